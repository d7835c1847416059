/* cli/hedge_print.c -- text and JSON output of `gpuidx hedge analyze`
 * (the replay is hedge_print_sim.c, the ranking hedge_print_cmp.c).
 *
 * Text fits one screen: one plain-words line, the changes regression,
 * levels and robust fit, basis, the two accounting tests, horizons, a
 * rolling summary and the warnings.  JSON carries every SPEC §13 key plus the periods, rolling and
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
    fprintf(f, "periods %zu in common (rent has %zu), changes %zu\n", a->n, s->n_rent_periods,
            a->n_changes);
    if (isfinite(a->he) && isfinite(a->chg.b)) {
        char ci[80] = "";
        if (isfinite(a->he_lo))
            snprintf(ci, sizeof ci, " (95%% interval %s%%-%s%%)", cli_num(b1, 100 * a->he_lo, 0),
                     cli_num(b2, 100 * a->he_hi, 0));
        fprintf(f, "in plain words: futures at h = %s %s %s%% of the variance of your %s rent "
                   "changes%s; basis sd %s%s\n",
                hp_num(b3, a->chg.b, 2),
                a->chg.b > 0 ? "remove" : "(negative: a payer would sell them) remove",
                cli_num(b4, 100 * a->he, 0),
                s->freq == HEDGE_DAY ? "daily" : s->freq == HEDGE_WEEK ? "weekly" : "monthly", ci,
                hp_num(b5, a->basis.sd, 4),
                a->n_changes < HEDGE_MIN_CHANGES ? " -- on too few changes to rely on" : "");
        char why[240];
        if (a->chg.b > 0 && hedge_in_sample_only(a, why, sizeof why))
            fprintf(f, "not a hedge to act on: it %s\n", why);
    }
    if (a->exact) fprintf(f, "an exact fit: no residual at all (intervals degenerate)\n");
    if (a->n_changes && a->rent_moves < HEDGE_MIN_MOVES)
        fprintf(f, "your rent moved on %zu of %zu changes: any fit rests on %s\n", a->rent_moves,
                a->n_changes, a->rent_moves == 1 ? "that one" : a->rent_moves ? "those" : "none");
    char oos[400];
    fprintf(f, "out of sample\n");
    hedge_oos_text(a, oos, sizeof oos);
    fprintf(f, "  %s\n", oos);
    hedge_boot_text(a, oos, sizeof oos);
    fprintf(f, "  %s\n", oos);
    hedge_stability_text(a, oos, sizeof oos);
    fprintf(f, "  %s\n", oos);
    fputc('\n', f);
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

json_t *hp_oos_json(const hedge_analysis *a)
{
    char lab[16], text[400];
    json_t *o = json_object(), *w = json_object(), *b = json_object(), *c = json_object();
    json_object_set_new(w, "he", hp_real(a->oos.he));
    json_object_set_new(w, "he_in_sample", hp_real(a->he));
    json_object_set_new(w, "n", json_integer((json_int_t)a->oos.n));
    json_object_set_new(w, "train", json_integer((json_int_t)a->oos.train));
    json_object_set_new(w, "not_fitted", json_integer((json_int_t)a->oos.not_fitted));
    hedge_oos_text(a, text, sizeof text);
    json_object_set_new(w, "text", json_string(text));
    /* the fit holds in sample only (hedge_in_sample_only): nothing to act on */
    json_object_set_new(w, "in_sample_only", json_boolean(hedge_in_sample_only(a, text, sizeof text)));
    json_object_set_new(o, "walk_forward", w);
    json_t *iv = json_array();
    json_array_append_new(iv, hp_real(a->boot.lo));
    json_array_append_new(iv, hp_real(a->boot.hi));
    json_object_set_new(b, "h_interval", iv);
    json_object_set_new(b, "reps", json_integer(a->boot.reps));
    json_object_set_new(b, "used", json_integer((json_int_t)a->boot.used));
    json_object_set_new(b, "block", json_integer(a->boot.block));
    json_object_set_new(b, "rng", json_string("mt19937"));
    json_object_set_new(b, "seed", json_integer((json_int_t)a->boot.seed));
    hedge_boot_text(a, text, sizeof text);
    json_object_set_new(b, "text", json_string(text));
    json_object_set_new(o, "bootstrap", b);
    json_object_set_new(c, "test", json_string("chow at the largest index move"));
    if (a->chow.period) {
        hedge_period_label(a->freq, a->chow.period, lab);
        json_object_set_new(c, "period", json_string(lab));
    } else {
        json_object_set_new(c, "period", json_null());
    }
    json_object_set_new(c, "index_move", hp_real(a->chow.move));
    json_object_set_new(c, "testable", json_boolean(a->chow.ok));
    json_object_set_new(c, "n_before", json_integer((json_int_t)a->chow.n_before));
    json_object_set_new(c, "n_after", json_integer((json_int_t)a->chow.n_after));
    json_object_set_new(c, "h_before", hp_real(a->chow.h_before));
    json_object_set_new(c, "h_after", hp_real(a->chow.h_after));
    json_object_set_new(c, "f", hp_real(a->chow.f));
    json_object_set_new(c, "p", hp_real(a->chow.p));
    json_object_set_new(c, "broke", a->chow.ok ? json_boolean(hedge_broke(a)) : json_null());
    hedge_stability_text(a, text, sizeof text);
    json_object_set_new(c, "text", json_string(text));
    json_object_set_new(o, "stability", c);
    return o;
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
    json_t *iv = json_array();
    json_array_append_new(iv, hp_real(a->h_lo));
    json_array_append_new(iv, hp_real(a->h_hi));
    json_object_set_new(o, "h_interval", iv);
    iv = json_array();
    json_array_append_new(iv, hp_real(a->he_lo));
    json_array_append_new(iv, hp_real(a->he_hi));
    json_object_set_new(o, "he_interval", iv);
    json_object_set_new(o, "exact_fit", json_boolean(a->exact));
    json_object_set_new(o, "rent_moves", json_integer((json_int_t)a->rent_moves));
    json_object_set_new(o, "index_moves", json_integer((json_int_t)a->index_moves));
    json_object_set_new(o, "out_of_sample", hp_oos_json(a));
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
