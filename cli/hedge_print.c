/* cli/hedge_print.c -- text and JSON output of `gpuidx hedge`.
 *
 * Text fits one screen: the changes regression, levels and robust fit,
 * basis, the two accounting tests, horizons, a rolling summary and the
 * warnings.  JSON carries every SPEC §13 key plus the periods, rolling and
 * horizons; NaN is null (jansson's json_real(NAN) would be NULL).
 */
#include "cli/hedge_print.h"

#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *hp_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

const char *hp_num(char buf[32], double v, int dp)
{
    return isfinite(v) ? cli_num(buf, v, dp) : strcpy(buf, "n/a");
}

int hp_dump(FILE *f, json_t *j)
{
    if (!j) return -1;
    int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    return rc;
}

static const char *pass(int ok) { return ok ? "PASS" : "FAIL"; }

void hp_analysis_text(FILE *f, const char *rent_path, const char *grade, const hedge_series *s,
                      const hedge_analysis *a)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], l0[16], l1[16];
    hedge_period_label(s->freq, s->p[0].start, l0);
    hedge_period_label(s->freq, s->p[s->n - 1].start, l1);
    fprintf(f, "hedge analysis: %s against %s (%s, %s .. %s)\n", rent_path, grade,
            hedge_freq_name(s->freq), l0, l1);
    fprintf(f, "periods %zu in common (rent has %zu), changes %zu\n\n", a->n, s->n_rent_periods,
            a->n_changes);
    fprintf(f, "changes   d(rent) = alpha + h * d(index)\n");
    fprintf(f, "  h %s  se %s  t %s  Newey-West se %s (lag %d)\n", hp_num(b1, a->chg.b, 4),
            hp_num(b2, a->chg.se_b, 4), hp_num(b3, a->chg.t_b, 2), hp_num(b4, a->nw_se_h, 4),
            a->nw_lag);
    fprintf(f, "  alpha %s  F %s  R2 %s  rho %s\n", hp_num(b1, a->chg.a, 4),
            hp_num(b2, a->chg.f, 2), hp_num(b3, a->chg.r2, 4), hp_num(b4, a->chg.rho, 4));
    fprintf(f, "  hedge effectiveness %s at h, %s at h = 1\n", hp_num(b1, a->he, 4),
            hp_num(b2, a->he_naive, 4));
    fprintf(f, "levels    rent = a + b * index\n");
    fprintf(f, "  a %s  b %s  R2 %s\n", hp_num(b1, a->lev.a, 4), hp_num(b2, a->lev.b, 4),
            hp_num(b3, a->lev.r2, 4));
    fprintf(f, "  robust (bisquare) a %s  b %s", hp_num(b1, a->robust.a, 4),
            hp_num(b2, a->robust.b, 4));
    int shown = 0;
    for (size_t i = 0; i < a->robust.n && i < s->n; i++)
        if (a->robust.weights[i] < 0.5) {
            char lab[16];
            hedge_period_label(s->freq, s->p[i].start, lab);
            fprintf(f, "%s %s (%s)", shown ? "," : "  down-weighted:", lab,
                    hp_num(b3, a->robust.weights[i], 2));
            if (++shown == 5) break;
        }
    fprintf(f, "\nbasis = rent - index\n");
    fprintf(f, "  mean %s  sd %s  sd of changes %s\n", hp_num(b1, a->basis.mean, 4),
            hp_num(b2, a->basis.sd, 4), hp_num(b3, a->basis.sd_change, 4));
    fprintf(f, "  min %s  p5 %s  p95 %s  max %s\n", hp_num(b1, a->basis.min, 4),
            hp_num(b2, a->basis.p5, 4), hp_num(b3, a->basis.p95, 4), hp_num(b4, a->basis.max, 4));
    fprintf(f, "accounting tests of a hedge sized at h\n");
    fprintf(f, "  regression test  R2 %s  slope %s  %s (R2 >= 0.80, slope in [0.80, 1.25])\n",
            hp_num(b1, a->regtest.r2, 4), hp_num(b2, a->regtest.slope, 4), pass(a->regtest.pass));
    fprintf(f, "  dollar offset    %s cumulative  %s ([0.80, 1.25]); %zu of %zu periods outside\n",
            hp_num(b1, a->offset.ratio, 4), pass(a->offset.pass), a->offset.periods_outside,
            a->offset.periods);
    fprintf(f, "horizons  k  changes        h       se    NW se      R2\n");
    for (int k = 0; k < HEDGE_NHORIZON; k++) {
        const hedge_horizon *z = &a->horizons[k];
        fprintf(f, "          %d  %7zu  %7s  %7s  %7s  %6s\n", z->k, z->n_changes,
                hp_num(b1, z->h, 4), hp_num(b2, z->se_h, 4), hp_num(b3, z->nw_se_h, 4),
                hp_num(b4, z->r2, 4));
    }
    double lo = INFINITY, hi = -INFINITY, last = NAN;
    for (size_t i = 0; i < a->n_rolling; i++)
        if (isfinite(a->rolling[i].h)) {
            lo = fmin(lo, a->rolling[i].h);
            hi = fmax(hi, a->rolling[i].h);
            last = a->rolling[i].h;
        }
    fprintf(f, "rolling h (window %d periods): %zu windows, min %s  max %s  last %s\n", a->window,
            a->n_rolling, hp_num(b5, lo, 4), hp_num(b6, hi, 4), hp_num(b7, last, 4));
    for (size_t i = 0; i < a->n_warnings; i++) fprintf(f, "warning: %s\n", a->warnings[i]);
}

json_t *hp_analysis_json(const char *grade, const hedge_series *s, const hedge_analysis *a)
{
    json_t *o = json_object();
    char lab[16];
    json_object_set_new(o, "grade", json_string(grade));
    json_object_set_new(o, "freq", json_string(hedge_freq_name(s->freq)));
    hedge_period_label(s->freq, s->p[0].start, lab);
    json_object_set_new(o, "from", json_string(lab));
    hedge_period_label(s->freq, s->p[s->n - 1].start, lab);
    json_object_set_new(o, "to", json_string(lab));
    json_object_set_new(o, "n", json_integer((json_int_t)a->n));
    json_object_set_new(o, "n_rent_periods", json_integer((json_int_t)s->n_rent_periods));
    json_object_set_new(o, "n_changes", json_integer((json_int_t)a->n_changes));
    json_object_set_new(o, "h", hp_real(a->chg.b));
    json_object_set_new(o, "alpha", hp_real(a->chg.a));
    json_object_set_new(o, "se_h", hp_real(a->chg.se_b));
    json_object_set_new(o, "t_h", hp_real(a->chg.t_b));
    json_object_set_new(o, "f", hp_real(a->chg.f));
    json_object_set_new(o, "r2", hp_real(a->chg.r2));
    json_object_set_new(o, "rho", hp_real(a->chg.rho));
    json_object_set_new(o, "he", hp_real(a->he));
    json_object_set_new(o, "he_naive", hp_real(a->he_naive));
    json_object_set_new(o, "nw_se_h", hp_real(a->nw_se_h));
    json_object_set_new(o, "nw_lag", json_integer(a->nw_lag));
    json_t *lev = json_object();
    json_object_set_new(lev, "a", hp_real(a->lev.a));
    json_object_set_new(lev, "b", hp_real(a->lev.b));
    json_object_set_new(lev, "se_b", hp_real(a->lev.se_b));
    json_object_set_new(lev, "r2", hp_real(a->lev.r2));
    json_object_set_new(o, "levels", lev);
    json_t *bs = json_object();
    json_object_set_new(bs, "mean", hp_real(a->basis.mean));
    json_object_set_new(bs, "sd", hp_real(a->basis.sd));
    json_object_set_new(bs, "sd_change", hp_real(a->basis.sd_change));
    json_object_set_new(bs, "min", hp_real(a->basis.min));
    json_object_set_new(bs, "max", hp_real(a->basis.max));
    json_object_set_new(bs, "p5", hp_real(a->basis.p5));
    json_object_set_new(bs, "p95", hp_real(a->basis.p95));
    json_object_set_new(o, "basis", bs);
    json_t *rt = json_object();
    json_object_set_new(rt, "r2", hp_real(a->regtest.r2));
    json_object_set_new(rt, "slope", hp_real(a->regtest.slope));
    json_object_set_new(rt, "pass", json_boolean(a->regtest.pass));
    json_object_set_new(o, "regression_test", rt);
    json_t *dof = json_object();
    json_object_set_new(dof, "ratio", hp_real(a->offset.ratio));
    json_object_set_new(dof, "pass", json_boolean(a->offset.pass));
    json_object_set_new(dof, "periods", json_integer((json_int_t)a->offset.periods));
    json_object_set_new(dof, "periods_outside", json_integer((json_int_t)a->offset.periods_outside));
    json_object_set_new(o, "dollar_offset", dof);
    json_t *rb = json_object(), *w = json_array();
    json_object_set_new(rb, "a", hp_real(a->robust.a));
    json_object_set_new(rb, "b", hp_real(a->robust.b));
    for (size_t i = 0; i < a->robust.n; i++) json_array_append_new(w, hp_real(a->robust.weights[i]));
    json_object_set_new(rb, "weights", w);
    json_object_set_new(o, "robust", rb);
    json_t *per = json_array();
    for (size_t i = 0; i < s->n; i++) {
        json_t *p = json_object();
        hedge_period_label(s->freq, s->p[i].start, lab);
        json_object_set_new(p, "period", json_string(lab));
        json_object_set_new(p, "rent", hp_real(s->p[i].rent));
        json_object_set_new(p, "index", hp_real(s->p[i].index));
        json_object_set_new(p, "basis", hp_real(s->p[i].rent - s->p[i].index));
        json_object_set_new(p, "robust_weight",
                            i < a->robust.n ? hp_real(a->robust.weights[i]) : json_null());
        json_array_append_new(per, p);
    }
    json_object_set_new(o, "periods", per);
    json_object_set_new(o, "window", json_integer(a->window));
    json_t *roll = json_array();
    for (size_t i = 0; i < a->n_rolling; i++) {
        json_t *r = json_object();
        hedge_period_label(s->freq, a->rolling[i].end, lab);
        json_object_set_new(r, "period", json_string(lab));
        json_object_set_new(r, "n_changes", json_integer((json_int_t)a->rolling[i].n_changes));
        json_object_set_new(r, "h", hp_real(a->rolling[i].h));
        json_object_set_new(r, "r2", hp_real(a->rolling[i].r2));
        json_array_append_new(roll, r);
    }
    json_object_set_new(o, "rolling", roll);
    json_t *hz = json_array();
    for (int k = 0; k < HEDGE_NHORIZON; k++) {
        const hedge_horizon *z = &a->horizons[k];
        json_t *r = json_object();
        json_object_set_new(r, "k", json_integer(z->k));
        json_object_set_new(r, "n_changes", json_integer((json_int_t)z->n_changes));
        json_object_set_new(r, "h", hp_real(z->h));
        json_object_set_new(r, "se_h", hp_real(z->se_h));
        json_object_set_new(r, "r2", hp_real(z->r2));
        json_object_set_new(r, "he", hp_real(z->he));
        json_object_set_new(r, "nw_se_h", hp_real(z->nw_se_h));
        json_object_set_new(r, "nw_lag", json_integer(z->nw_lag));
        json_array_append_new(hz, r);
    }
    json_object_set_new(o, "horizons", hz);
    json_t *wa = json_array();
    for (size_t i = 0; i < a->n_warnings; i++) json_array_append_new(wa, json_string(a->warnings[i]));
    json_object_set_new(o, "warnings", wa);
    return o;
}

static const char *e4(char buf[32], int64_t v)
{
    return gpi_fixed_format(v, 4, buf);
}

static const char *cents(char buf[32], int64_t c)
{
    return gpi_fixed_format(c, 2, buf);
}

void hp_sim_text(FILE *f, const char *grade, const hedge_sim_opts *o, const hedge_sim *s)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32];
    fprintf(f, "hedge replay: %s futures on %s, ratio %s, size %lld GPU-hours, entry at %s\n",
            o->side == HEDGE_PAYER ? "payer buys" : "earner sells", grade,
            o->ratio_auto ? "auto" : hp_num(b1, o->ratio, 4), (long long)o->size,
            o->forward ? "the forward price" : "the previous month's FSP");
    fprintf(f, "month        h  exposure  contracts   entry     FSP    futures P&L    rent  "
               "hedged\n");
    for (size_t i = 0; i < s->n; i++) {
        const hedge_sim_month *m = &s->m[i];
        char lab[16];
        hedge_period_label(HEDGE_MONTH, m->month, lab);
        if (m->skipped) {
            fprintf(f, "%-8s skipped: %s\n", lab, m->reason);
            continue;
        }
        fprintf(f, "%-8s %6s %9s %10lld  %s  %s %14s  %s  %s\n", lab, hp_num(b1, m->h, 3),
                hp_num(b7, m->exposure, 0), (long long)m->contracts, e4(b2, m->entry_e4), e4(b3, m->fsp_e4),
                cents(b4, m->pnl_cents), hp_num(b5, m->unhedged, 4), hp_num(b6, m->hedged, 4));
    }
    const char *what = o->side == HEDGE_PAYER ? "cost" : "revenue";
    fprintf(f, "\nmonths replayed %zu of %zu; futures P&L total %s USD\n", s->n_done, s->n,
            cents(b1, s->pnl_cents));
    fprintf(f, "effective %s per GPU-hour: unhedged mean %s sd %s; hedged mean %s sd %s\n", what,
            hp_num(b1, s->mean_unhedged, 4), hp_num(b2, s->sd_unhedged, 4),
            hp_num(b3, s->mean_hedged, 4), hp_num(b4, s->sd_hedged, 4));
    fprintf(f, "reduction in the sd of the effective price: %s%s\n",
            hp_num(b5, 100 * s->sd_reduction, 1), isfinite(s->sd_reduction) ? "%" : "");
    for (size_t i = 0; i < s->n_warnings; i++) fprintf(f, "warning: %s\n", s->warnings[i]);
}

json_t *hp_sim_json(const char *grade, const hedge_sim_opts *o, const hedge_sim *s)
{
    json_t *j = json_object(), *ms = json_array();
    char buf[32];
    json_object_set_new(j, "grade", json_string(grade));
    json_object_set_new(j, "side", json_string(o->side == HEDGE_PAYER ? "payer" : "earner"));
    json_object_set_new(j, "ratio", o->ratio_auto ? json_string("auto") : hp_real(o->ratio));
    json_object_set_new(j, "size", json_integer(o->size));
    for (size_t i = 0; i < s->n; i++) {
        const hedge_sim_month *m = &s->m[i];
        json_t *r = json_object();
        char lab[16];
        hedge_period_label(HEDGE_MONTH, m->month, lab);
        json_object_set_new(r, "month", json_string(lab));
        json_object_set_new(r, "skipped", json_boolean(m->skipped));
        if (m->skipped) {
            json_object_set_new(r, "reason", json_string(m->reason));
        } else {
            json_object_set_new(r, "h", hp_real(m->h));
            json_object_set_new(r, "exposure", hp_real(m->exposure));
            json_object_set_new(r, "contracts", json_integer(m->contracts));
            json_object_set_new(r, "entry", json_string(e4(buf, m->entry_e4)));
            json_object_set_new(r, "fsp", json_string(e4(buf, m->fsp_e4)));
            json_object_set_new(r, "pnl_cents", json_integer(m->pnl_cents));
            json_object_set_new(r, "quantity", hp_real(m->quantity));
            json_object_set_new(r, "unhedged", hp_real(m->unhedged));
            json_object_set_new(r, "hedged", hp_real(m->hedged));
        }
        json_array_append_new(ms, r);
    }
    json_object_set_new(j, "months", ms);
    json_t *t = json_object();
    json_object_set_new(t, "months", json_integer((json_int_t)s->n_done));
    json_object_set_new(t, "skipped", json_integer((json_int_t)(s->n - s->n_done)));
    json_object_set_new(t, "pnl_cents", json_integer(s->pnl_cents));
    json_object_set_new(t, "mean_unhedged", hp_real(s->mean_unhedged));
    json_object_set_new(t, "mean_hedged", hp_real(s->mean_hedged));
    json_object_set_new(t, "sd_unhedged", hp_real(s->sd_unhedged));
    json_object_set_new(t, "sd_hedged", hp_real(s->sd_hedged));
    json_object_set_new(t, "sd_reduction", hp_real(s->sd_reduction));
    json_object_set_new(j, "total", t);
    json_t *wa = json_array();
    for (size_t i = 0; i < s->n_warnings; i++) json_array_append_new(wa, json_string(s->warnings[i]));
    json_object_set_new(j, "warnings", wa);
    return j;
}
