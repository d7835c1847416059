/* cli/hedge_print_sim.c -- text and JSON output of `gpuidx hedge simulate`.
 *
 * The text leads with what a hedger asks: how far the effective price
 * ended from the price locked at entry (the budget), unhedged and hedged,
 * and how much of that variance the hedge removed.  The sd of the
 * effective price itself comes last, as a secondary line with its caveat.
 * Months show how their ratio was chosen (auto: fitted, one-for-one for
 * want of history, not hedged, capped) with a legend.  `--strategy all`
 * prints each replay and then one side-by-side table.
 */
#include "cli/hedge_print.h"

#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settlement/settlement.h"

static const char *e4(char buf[32], int64_t v)
{
    return gpi_fixed_format(v, 4, buf);
}

static const char *cents(char buf[32], int64_t c)
{
    return gpi_fixed_format(c, 2, buf);
}

static const char *pct(char buf[32], double v)
{
    if (!isfinite(v)) return strcpy(buf, "n/a");
    char t[32];
    snprintf(buf, 32, "%s%s%%", v > 0 ? "+" : "", cli_num(t, 100 * v, 1));
    return buf;
}

/* "92.2%" removed, or "-5.0% (added)" */
static const char *removed(char buf[32], double v)
{
    char t[32];
    if (!isfinite(v)) return strcpy(buf, "n/a");
    snprintf(buf, 32, "%s%%%s", cli_num(t, 100 * v, 1), v < 0 ? " (added)" : "");
    return buf;
}

static const char *const rule_key[HEDGE_RATIO_NRULES] = {"given", "fitted",
                                                        "too_few_changes_not_hedged",
                                                        "negative_not_hedged", "capped"};
static const char rule_mark[HEDGE_RATIO_NRULES] = {' ', ' ', '*', '!', '^'};

static const char *strategy_text(const hedge_sim_opts *o, char buf[96])
{
    if (o->strategy == HEDGE_STRIP)
        snprintf(buf, 96, "strip of %d months (each strip entered at the end of the month before it)",
                 o->strip_months ? o->strip_months : 12);
    else
        snprintf(buf, 96, "roll (each month hedged at the end of the month before)");
    return buf;
}

static void month_row(FILE *f, const hedge_sim_month *m)
{
    char lab[16], b[10][32];
    hedge_period_label(HEDGE_MONTH, m->month, lab);
    if (m->skipped) {
        fprintf(f, "%-8s skipped: %s\n", lab, m->reason);
        return;
    }
    fprintf(f, "%-8s %5s%c %9lld  %s  %s %13s  %s  %s  %s  %8s  %8s\n", lab, hp_num(b[0], m->h, 3),
            rule_mark[m->rule], (long long)m->contracts, e4(b[1], m->entry_e4), e4(b[2], m->fsp_e4),
            cents(b[3], m->pnl_cents), hp_num(b[4], m->unhedged, 4), hp_num(b[5], m->hedged, 4),
            hp_num(b[6], m->budget, 4), hp_num(b[7], m->err_unhedged, 4),
            hp_num(b[8], m->err_hedged, 4));
}

static void block_line(FILE *f, const hedge_sim *s, int32_t entered, const char *unit)
{
    char lab[16], b[4][32];
    hedge_period_label(HEDGE_MONTH, entered, lab);
    for (size_t i = 0; i < s->n; i++) {
        const hedge_sim_month *m = &s->m[i];
        if (m->skipped || m->entered != entered) continue;
        fprintf(f, "-- strip entered at the end of %s: h %s, %lld contracts a month (%s GPU-hours "
                   "exposure), budget %s %s\n",
                lab, hp_num(b[0], m->h, 3), (long long)m->contracts, hp_num(b[1], m->exposure, 0),
                hp_num(b[2], m->budget, 4), unit);
        return;
    }
}

void hp_sim_text(FILE *f, const char *grade, const hedge_sim_opts *o, const hedge_sim *s)
{
    char b[8][32], st[96];
    const int payer = o->side == HEDGE_PAYER;
    const char *what = payer ? "cost" : "revenue";
    fprintf(f, "hedge replay: %s futures on %s, %s, ratio %s, size %lld GPU-hours, entry at %s\n",
            payer ? "payer buys" : "earner sells", grade, strategy_text(o, st),
            o->ratio_auto ? "auto" : hp_num(b[0], o->ratio, 4), (long long)(o->terms ? o->terms->size_gpu_hours : o->size),
            o->forward ? "the forward price"
            : o->strategy == HEDGE_STRIP ? "the FSP of the month of entry"
                                         : "the previous month's FSP");
    if (s->contradicts)
        fprintf(f, "NOTE: --ratio %s contradicts the fit: h fitted on all %zu monthly changes is %s "
                   "(the grade moved %s your rent), so this replay hedges against it\n",
                hp_num(b[0], o->ratio, 4), s->fit_changes, hp_num(b[1], s->fit_h, 3),
                s->fit_h > 0 ? "with" : "against");
    if (o->terms && o->n_listed) {
        const settle_contract *t = o->terms;
        char tick[32];
        fprintf(f, "contracts sized on %s: %s's terms, %lld GPU-hours, tick %s, %s-day average, "
                   "%d values needed; a month the file lists settles on its own contract\n",
                t->path ? t->path : "the contract file", t->symbol, (long long)t->size_gpu_hours,
                gpi_fixed_format(t->tick.mant, t->tick.scale, tick), settle_days_name(t->fsp_days),
                t->min_published_days);
    } else if (o->terms) { /* no contract of the file is on the grade: borrowed terms */
        const settle_contract *t = o->terms;
        char tick[32];
        fprintf(f, "NOTE: no contract in %s is on %s: sized and settled on the terms of %s, a "
                   "contract on %s (%lld GPU-hours, tick %s, %s-day average, %d values needed), "
                   "as if an exchange listed this grade on them\n",
                t->path ? t->path : "the contract file", grade, t->symbol, t->grade,
                (long long)t->size_gpu_hours, gpi_fixed_format(t->tick.mant, t->tick.scale, tick),
                settle_days_name(t->fsp_days), t->min_published_days);
    }
    fprintf(f, "month        h  contracts   entry     FSP   futures P&L    rent  hedged  locked  "
               "rent-lck  hedg-lck\n");
    int32_t last_entered = 0;
    for (size_t i = 0; i < s->n; i++) {
        const hedge_sim_month *m = &s->m[i];
        if (o->strategy == HEDGE_STRIP && !m->skipped && m->entered != last_entered) {
            block_line(f, s, m->entered, "USD/GPU-hour");
            last_entered = m->entered;
        }
        month_row(f, &s->m[i]);
    }
    size_t minc = o->min_changes ? o->min_changes : HEDGE_MIN_CHANGES;
    if (s->n_rule[HEDGE_RATIO_FALLBACK])
        fprintf(f, "  * h = 0, not hedged: fewer than %zu monthly changes before the month (or an "
                   "index that never moved) to fit h on\n", minc);
    if (s->n_rule[HEDGE_RATIO_NEGATIVE])
        fprintf(f, "  ! h = 0, not hedged: the fitted h was negative (the side is never switched)\n");
    if (s->n_rule[HEDGE_RATIO_CAPPED])
        fprintf(f, "  ^ capped at %.1f\n", HEDGE_RATIO_CAP);

    fprintf(f, "\nmonths replayed %zu of %zu; futures P&L total %s USD\n", s->n_done, s->n,
            cents(b[0], s->pnl_cents));
    fprintf(f, "budget error = effective %s - price locked at entry, USD per GPU-hour:\n", what);
    fprintf(f, "              sd      rms     mean\n");
    fprintf(f, "  unhedged %7s  %7s  %7s\n", hp_num(b[0], s->err_u.sd, 4),
            hp_num(b[1], s->err_u.rms, 4), hp_num(b[2], s->err_u.mean, 4));
    fprintf(f, "  hedged   %7s  %7s  %7s\n", hp_num(b[0], s->err_h.sd, 4),
            hp_num(b[1], s->err_h.rms, 4), hp_num(b[2], s->err_h.mean, 4));
    if (isfinite(s->var_removed) && s->var_removed >= 0)
        fprintf(f, "the hedge removed %s of the variance of the budget error (rms %s)\n",
                removed(b[0], s->var_removed), pct(b[1], -s->rms_reduction));
    else if (isfinite(s->var_removed))
        fprintf(f, "the hedge ADDED risk: the variance of the budget error rose %s (rms %s)\n",
                pct(b[0], -s->var_removed), pct(b[1], -s->rms_reduction));
    if (isfinite(s->var_removed_exact))
        fprintf(f, "  with futures matching each month's GPU-hours exactly: %s%s\n",
                removed(b[0], s->var_removed_exact),
                o->strategy == HEDGE_ROLL && !o->forward && !o->ratio_auto
                    ? " (at a fixed h, `hedge analyze --freq month`'s effectiveness at that h)"
                    : "");
    if (s->total.budget_usd > 0) {
        double bu = s->total.budget_usd;
        fprintf(f, "%s of the replayed months: %s USD at the locked prices; unhedged %s, hedged %s; "
                   "futures covered %s%% of the GPU-hours\n",
                what, hp_num(b[0], bu, 2), pct(b[1], s->total.unhedged_usd / bu - 1),
                pct(b[2], s->total.hedged_usd / bu - 1),
                cli_num(b[3], 100 * s->total.hedged_quantity / s->total.quantity, 0));
    }
    if (o->strategy == HEDGE_STRIP && s->total.budget_usd > 0)
        for (size_t i = 0; i < s->n_blocks; i++) {
            const hedge_block *k = &s->blocks[i];
            if (!(k->budget_usd > 0)) continue;
            char l0[16], l1[16];
            hedge_period_label(HEDGE_MONTH, k->first, l0);
            hedge_period_label(HEDGE_MONTH, k->last, l1);
            fprintf(f, "  strip %s..%s (%zu months): budget %s USD; %s unhedged %s, hedged %s; "
                       "futures covered %s%% of the GPU-hours\n",
                    l0, l1, k->months, hp_num(b[0], k->budget_usd, 2), what,
                    pct(b[1], k->unhedged_usd / k->budget_usd - 1),
                    pct(b[2], k->hedged_usd / k->budget_usd - 1),
                    cli_num(b[3], 100 * k->hedged_quantity / k->quantity, 0));
        }
    if (o->terms && s->n_done > 0) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        int32_t worst = 0;
        double wmax = 0;
        for (size_t i = 0; i < s->n; i++) {
            const hedge_sim_month *m = &s->m[i];
            if (m->skipped) continue;
            if (m->contracts < lo) lo = m->contracts;
            if (m->contracts > hi) hi = m->contracts;
            if (fabs(m->residual_usd) >= fabs(wmax)) {
                wmax = m->residual_usd;
                worst = m->month;
            }
        }
        char lab[16];
        hedge_period_label(HEDGE_MONTH, worst, lab);
        fprintf(f, "contracts: %lld to %lld a month (h x GPU-hours / %lld, whole contracts); cash "
                   "settled %s USD in total\n",
                (long long)lo, (long long)hi, (long long)o->terms->size_gpu_hours,
                cents(b[0], s->pnl_cents));
        fprintf(f, "residual basis: the hedged %s ended %s USD from the locked budget over the "
                   "replayed months (largest month %s USD, %s)\n",
                what, hp_num(b[0], s->residual_usd, 2), hp_num(b[1], wmax, 2), lab);
        if (isfinite(s->var_removed_frac) && isfinite(s->var_removed)) {
            double cost = s->var_removed_frac - s->var_removed;
            fprintf(f, "rounding to whole contracts %s %s points of variance removed (fractional "
                       "contracts %s, whole %s)\n",
                    cost >= 0 ? "cost" : "happened to add", hp_num(b[0], 100 * fabs(cost), 1),
                    removed(b[1], s->var_removed_frac), removed(b[2], s->var_removed));
        }
    }
    fprintf(f, "secondary: sd of the monthly effective %s itself: unhedged %s, hedged %s -- it "
               "includes the trend across months, which %s\n",
            what, hp_num(b[0], s->sd_unhedged, 4), hp_num(b[1], s->sd_hedged, 4),
            o->strategy == HEDGE_STRIP ? "a strip removes only as far as it locked the price"
                                       : "a month-ahead hedge cannot remove");
    for (size_t i = 0; i < s->n_warnings; i++) fprintf(f, "warning: %s\n", s->warnings[i]);
}

void hp_sim_compare_text(FILE *f, const hedge_sim_opts *o, const hedge_sim *s, size_t n)
{
    char b[8][32];
    const char *what = o[0].side == HEDGE_PAYER ? "cost" : "revenue";
    fprintf(f, "\nside by side: budget error = effective %s - price locked at entry (USD/GPU-hour)\n",
            what);
    fprintf(f, "strategy            months  unhedged sd     rms  hedged sd     rms  variance removed  "
               "%s vs budget: unhedged  hedged\n", what);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        if (o[i].strategy == HEDGE_STRIP)
            snprintf(name, sizeof name, "strip %d months", o[i].strip_months ? o[i].strip_months : 12);
        else
            snprintf(name, sizeof name, "roll (month-ahead)");
        double bu = s[i].total.budget_usd;
        fprintf(f, "%-19s %6zu  %11s  %6s  %9s  %6s  %16s  %22s  %6s\n", name, s[i].n_done,
                hp_num(b[0], s[i].err_u.sd, 4), hp_num(b[1], s[i].err_u.rms, 4),
                hp_num(b[2], s[i].err_h.sd, 4), hp_num(b[3], s[i].err_h.rms, 4),
                removed(b[4], s[i].var_removed), pct(b[5], bu > 0 ? s[i].total.unhedged_usd / bu - 1 : NAN),
                pct(b[6], bu > 0 ? s[i].total.hedged_usd / bu - 1 : NAN));
    }
    fprintf(f, "(roll locks each month's price a month ahead; a strip locks a whole budget at its "
               "start, so its unhedged error includes the trend it protects against)\n");
}

static json_t *err_json(const hedge_err_stats *e)
{
    json_t *j = json_object();
    json_object_set_new(j, "n", json_integer((json_int_t)e->n));
    json_object_set_new(j, "mean", hp_real(e->mean));
    json_object_set_new(j, "sd", hp_real(e->sd));
    json_object_set_new(j, "rms", hp_real(e->rms));
    return j;
}

static json_t *block_json(const hedge_block *k)
{
    json_t *j = json_object();
    char lab[16];
    hedge_period_label(HEDGE_MONTH, k->entered, lab);
    json_object_set_new(j, "entered", json_string(lab));
    hedge_period_label(HEDGE_MONTH, k->first, lab);
    json_object_set_new(j, "first", json_string(lab));
    hedge_period_label(HEDGE_MONTH, k->last, lab);
    json_object_set_new(j, "last", json_string(lab));
    json_object_set_new(j, "months", json_integer((json_int_t)k->months));
    json_object_set_new(j, "quantity", hp_real(k->quantity));
    json_object_set_new(j, "hedged_quantity", hp_real(k->hedged_quantity));
    json_object_set_new(j, "budget_usd", hp_real(k->budget_usd));
    json_object_set_new(j, "unhedged_usd", hp_real(k->unhedged_usd));
    json_object_set_new(j, "hedged_usd", hp_real(k->hedged_usd));
    return j;
}

json_t *hp_sim_json(const char *grade, const hedge_sim_opts *o, const hedge_sim *s)
{
    json_t *j = json_object(), *ms = json_array();
    char buf[32];
    json_object_set_new(j, "grade", json_string(grade));
    json_object_set_new(j, "side", json_string(o->side == HEDGE_PAYER ? "payer" : "earner"));
    json_object_set_new(j, "ratio", o->ratio_auto ? json_string("auto") : hp_real(o->ratio));
    json_object_set_new(j, "size",
                        json_integer(o->terms ? o->terms->size_gpu_hours : o->size));
    if (o->terms) {
        char tick[32];
        json_t *c = json_object();
        json_object_set_new(c, "file", o->terms->path ? json_string(o->terms->path) : json_null());
        json_object_set_new(c, "symbol", json_string(o->terms->symbol));
        json_object_set_new(c, "grade", json_string(o->terms->grade));
        json_object_set_new(c, "on_grade", json_boolean(o->n_listed > 0));
        json_object_set_new(c, "size", json_integer(o->terms->size_gpu_hours));
        json_object_set_new(c, "tick", json_string(gpi_fixed_format(o->terms->tick.mant,
                                                                    o->terms->tick.scale, tick)));
        json_object_set_new(c, "fsp_days", json_string(settle_days_name(o->terms->fsp_days)));
        json_object_set_new(c, "min_published_days", json_integer(o->terms->min_published_days));
        json_object_set_new(j, "contracts", c);
    }
    if (!o->ratio_auto) {
        json_t *c = json_object();
        json_object_set_new(c, "h", hp_real(s->fit_h));
        json_object_set_new(c, "n_changes", json_integer((json_int_t)s->fit_changes));
        json_object_set_new(c, "contradicts", json_boolean(s->contradicts));
        json_object_set_new(j, "fit", c);
    }
    json_object_set_new(j, "strategy", json_string(hedge_strategy_name(o->strategy)));
    if (o->strategy == HEDGE_STRIP)
        json_object_set_new(j, "strip_months", json_integer(o->strip_months ? o->strip_months : 12));
    json_object_set_new(j, "min_changes",
                        json_integer((json_int_t)(o->min_changes ? o->min_changes : HEDGE_MIN_CHANGES)));
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
            hedge_period_label(HEDGE_MONTH, m->entered, lab);
            json_object_set_new(r, "entered", json_string(lab));
            json_object_set_new(r, "h", hp_real(m->h));
            json_object_set_new(r, "h_rule", json_string(rule_key[m->rule]));
            if (o->ratio_auto) {
                json_object_set_new(r, "h_fit", hp_real(m->h_fit));
                json_object_set_new(r, "h_changes", json_integer((json_int_t)m->h_changes));
            }
            json_object_set_new(r, "exposure", hp_real(m->exposure));
            json_object_set_new(r, "contracts", json_integer(m->contracts));
            json_object_set_new(r, "entry", json_string(e4(buf, m->entry_e4)));
            json_object_set_new(r, "fsp", json_string(e4(buf, m->fsp_e4)));
            json_object_set_new(r, "pnl_cents", json_integer(m->pnl_cents));
            json_object_set_new(r, "quantity", hp_real(m->quantity));
            json_object_set_new(r, "unhedged", hp_real(m->unhedged));
            json_object_set_new(r, "hedged", hp_real(m->hedged));
            json_object_set_new(r, "budget", hp_real(m->budget));
            json_object_set_new(r, "err_unhedged", hp_real(m->err_unhedged));
            json_object_set_new(r, "err_hedged", hp_real(m->err_hedged));
            json_object_set_new(r, "contracts_unrounded", hp_real(m->want));
            json_object_set_new(r, "residual_basis_usd", hp_real(m->residual_usd));
        }
        json_array_append_new(ms, r);
    }
    json_object_set_new(j, "months", ms);
    json_t *t = json_object();
    json_object_set_new(t, "months", json_integer((json_int_t)s->n_done));
    json_object_set_new(t, "skipped", json_integer((json_int_t)(s->n - s->n_done)));
    json_object_set_new(t, "pnl_cents", json_integer(s->pnl_cents));
    json_object_set_new(t, "err_unhedged", err_json(&s->err_u));
    json_object_set_new(t, "err_hedged", err_json(&s->err_h));
    json_object_set_new(t, "var_removed", hp_real(s->var_removed));
    json_object_set_new(t, "var_removed_exact", hp_real(s->var_removed_exact));
    json_object_set_new(t, "rms_reduction", hp_real(s->rms_reduction));
    json_object_set_new(t, "var_removed_fractional", hp_real(s->var_removed_frac));
    json_object_set_new(t, "rounding_cost", isfinite(s->var_removed_frac) && isfinite(s->var_removed)
                                                ? hp_real(s->var_removed_frac - s->var_removed)
                                                : json_null());
    json_object_set_new(t, "residual_basis_usd", hp_real(s->residual_usd));
    json_object_set_new(t, "residual_basis_max_usd", hp_real(s->residual_max_usd));
    json_object_set_new(t, "budget_usd", hp_real(s->total.budget_usd));
    json_object_set_new(t, "unhedged_usd", hp_real(s->total.unhedged_usd));
    json_object_set_new(t, "hedged_usd", hp_real(s->total.hedged_usd));
    json_object_set_new(t, "quantity", hp_real(s->total.quantity));
    json_object_set_new(t, "hedged_quantity", hp_real(s->total.hedged_quantity));
    json_object_set_new(t, "mean_unhedged", hp_real(s->mean_unhedged));
    json_object_set_new(t, "mean_hedged", hp_real(s->mean_hedged));
    json_object_set_new(t, "sd_unhedged", hp_real(s->sd_unhedged));
    json_object_set_new(t, "sd_hedged", hp_real(s->sd_hedged));
    json_object_set_new(t, "sd_reduction", hp_real(s->sd_reduction));
    json_t *rules = json_object();
    for (int k = 0; k < HEDGE_RATIO_NRULES; k++)
        json_object_set_new(rules, rule_key[k], json_integer((json_int_t)s->n_rule[k]));
    json_object_set_new(t, "ratio_rules", rules);
    json_object_set_new(j, "total", t);
    json_t *bl = json_array();
    for (size_t i = 0; i < s->n_blocks; i++) json_array_append_new(bl, block_json(&s->blocks[i]));
    json_object_set_new(j, "blocks", bl);
    json_t *wa = json_array();
    for (size_t i = 0; i < s->n_warnings; i++) json_array_append_new(wa, json_string(s->warnings[i]));
    json_object_set_new(j, "warnings", wa);
    return j;
}
