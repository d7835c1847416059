/* cli/cmd_grades.c -- `gpuidx grades evaluate` (the grade lab, SPEC §10),
 * and the dispatch of `gpuidx grades` (list, drop, restore:
 * cli/cmd_grades_set.c; stale: cli/cmd_stale.c).
 *
 * Argument parsing and printing only; the measures are computed by
 * idx_evaluate (index/evaluate.c).  Output to stdout: a readable table
 * (default), one JSON object (--json) or a per-grade CSV (--csv);
 * messages to stderr.  Not-available numbers print as "-" in the table,
 * null in JSON and an empty field in CSV.
 */
#include "cli/cli.h"
#include "cli/grades_print.h"
#include "cli/curve_cmd.h"
#include "core/vec.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/index.h"

static const char csv_header[] =
    "grade,days,trades_days,offers_days,carried_days,suspended_days,trades_share,"
    "offers_share,carried_share,suspended_share,mean_providers,top_provider_share,"
    "top_provider_share_trades,top_provider_share_offers,hhi,hhi_trades,hhi_offers,"
    "n_changes,vol_daily,vol_annualized,loo_days,loo_lost_days,loo_max_abs,loo_mean_abs,"
    "loo_max_rel,loo_mean_rel,loo_max_date,loo_max_provider,loo_max_from,loo_max_to,"
    "value_days,price_median,price_min,price_max,spread_iqr,spread_rel,mean_providers_live,"
    "full_months,settleable_months,"
    "method,xs_vol_annualized,panel_change_days,rebalances,splice_mean_abs,splice_max_abs,"
    "drift_mean,drift_max,loo_median_abs,loo_median_rel,cost_days,cost_tick_median_gpu_hours,"
    "cost_tick_min_gpu_hours,cost_tick_none_days,cost_1pct_median_gpu_hours,"
    "cost_1pct_min_gpu_hours,cost_1pct_none_days,cost_tick_offer_days,cost_1pct_offer_days";

static const char *num(char buf[32], double v, int dp)
{
    return isfinite(v) ? cli_num(buf, v, dp) : "-";
}

static const char *pct(char buf[32], double v, int dp)
{
    return isfinite(v) ? num(buf, 100.0 * v, dp) : "-";
}

/* A cost in GPU-hours: "inf" when no volume does it. */
static const char *cost(char buf[32], double v)
{
    return isinf(v) ? "inf" : num(buf, v, 2);
}

static void put_csv_num(FILE *f, double v, int dp)
{
    char buf[32];
    if (isfinite(v)) fputs(cli_num(buf, v, dp), f);
    fputc(',', f);
}

static void put_csv_text(FILE *f, const char *s, int last)
{
    gpi_csv_field(f, s);
    fputc(last ? '\n' : ',', f);
}

static void print_csv(FILE *f, const idx_evaluation *ev)
{
    fputs(csv_header, f);
    fputs(cli_eval_csv_tail_header, f);
    fputc('\n', f);
    for (size_t i = 0; i < ev->n + ev->n_split; i++) {
        const idx_grade_eval *g = &ev->g[i];
        put_csv_text(f, g->id, 0);
        fprintf(f, "%ld,", ev->days);
        for (int l = 0; l < GPI_LEVEL__N; l++) fprintf(f, "%ld,", g->n_level[l]);
        for (int l = 0; l < GPI_LEVEL__N; l++) put_csv_num(f, g->share_level[l], 6);
        put_csv_num(f, g->mean_providers, 6);
        put_csv_num(f, g->top_share, 6);
        put_csv_num(f, g->top_share_trades, 6);
        put_csv_num(f, g->top_share_offers, 6);
        put_csv_num(f, g->hhi, 6);
        put_csv_num(f, g->hhi_trades, 6);
        put_csv_num(f, g->hhi_offers, 6);
        fprintf(f, "%ld,", g->n_changes);
        put_csv_num(f, g->vol_daily, 8);
        put_csv_num(f, g->vol_annual, 8);
        fprintf(f, "%ld,%ld,", g->loo_days, g->loo_lost);
        put_csv_num(f, g->loo_max_abs, 4);
        put_csv_num(f, g->loo_mean_abs, 6);
        put_csv_num(f, g->loo_max_rel, 8);
        put_csv_num(f, g->loo_mean_rel, 8);
        char ds[11] = "";
        if (g->loo_max_day != INT32_MIN) gpi_date_format(g->loo_max_day, ds);
        fprintf(f, "%s,", ds);
        put_csv_text(f, g->loo_max_provider, 0);
        put_csv_num(f, g->loo_max_from_e4 >= 0 ? (double)g->loo_max_from_e4 / 1e4 : NAN, 4);
        if (g->loo_max_to_e4 >= 0) fprintf(f, "%.4f", (double)g->loo_max_to_e4 / 1e4);
        fprintf(f, ",%ld,", g->n_value_days);
        put_csv_num(f, g->price_median, 6);
        put_csv_num(f, g->price_min, 4);
        put_csv_num(f, g->price_max, 4);
        put_csv_num(f, g->spread_iqr, 6);
        put_csv_num(f, g->spread_rel, 6);
        put_csv_num(f, g->mean_providers_live, 6);
        fprintf(f, "%ld,%ld,", g->full_months, g->settleable_months);
        fprintf(f, "v%d,", g->method);
        put_csv_num(f, g->xs_vol_annual, 8);
        if (g->method == 2)
            fprintf(f, "%ld,%ld,", g->n_panel_change, g->n_rebalance);
        else if (g->method == 3) /* v3: days the panel changed, no rebalances */
            fprintf(f, "%ld,,", g->n_panel_change);
        else
            fputs(",,", f);
        put_csv_num(f, g->splice_mean_abs, 8);
        put_csv_num(f, g->splice_max_abs, 8);
        put_csv_num(f, g->drift_mean, 8);
        put_csv_num(f, g->drift_max, 8);
        put_csv_num(f, g->loo_median_abs, 4);
        put_csv_num(f, g->loo_median_rel, 8);
        fprintf(f, "%ld,", g->cost_days);
        for (int t = 0; t < 2; t++) {
            put_csv_num(f, g->cost_median[t], 2);
            put_csv_num(f, g->cost_min[t], 2);
            fprintf(f, "%ld,", g->cost_none[t]);
        }
        fprintf(f, "%ld,%ld", g->cost_offer_days[0], g->cost_offer_days[1]);
        cli_eval_csv_tail(f, ev, g);
        fputc('\n', f);
    }
}

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jvalue_e4(int64_t v)
{
    return v >= 0 ? json_real((double)v / 1e4) : json_null();
}

/* One grade's object (a file's grade or a segment-only split). */
static json_t *grade_json(const idx_evaluation *ev, const idx_grade_eval *g)
{
    char ds[11];
    json_t *j = json_object();
    json_object_set_new(j, "id", json_string(g->id));
    json_t *lv = json_object();
    for (int l = 0; l < GPI_LEVEL__N; l++) {
        json_t *x = json_object();
        json_object_set_new(x, "days", json_integer(g->n_level[l]));
        json_object_set_new(x, "share", jreal(g->share_level[l]));
        json_object_set_new(lv, gpi_level_name(l), x);
    }
    json_object_set_new(j, "levels", lv);
    json_object_set_new(j, "mean_providers", jreal(g->mean_providers));
    json_t *top = json_object();
    json_object_set_new(top, "all", jreal(g->top_share));
    json_object_set_new(top, "trades", jreal(g->top_share_trades));
    json_object_set_new(top, "offers", jreal(g->top_share_offers));
    json_object_set_new(j, "top_provider_share", top);
    json_t *hhi = json_object();
    json_object_set_new(hhi, "all", jreal(g->hhi));
    json_object_set_new(hhi, "trades", jreal(g->hhi_trades));
    json_object_set_new(hhi, "offers", jreal(g->hhi_offers));
    json_object_set_new(j, "hhi", hhi);
    json_t *vol = json_object();
    json_object_set_new(vol, "n_changes", json_integer(g->n_changes));
    json_object_set_new(vol, "daily", jreal(g->vol_daily));
    json_object_set_new(vol, "annualized", jreal(g->vol_annual));
    json_object_set_new(j, "volatility", vol);
    json_t *loo = json_object();
    json_object_set_new(loo, "days", json_integer(g->loo_days));
    json_object_set_new(loo, "lost_days", json_integer(g->loo_lost));
    json_object_set_new(loo, "max_abs", jreal(g->loo_max_abs));
    json_object_set_new(loo, "mean_abs", jreal(g->loo_mean_abs));
    json_object_set_new(loo, "max_rel", jreal(g->loo_max_rel));
    json_object_set_new(loo, "mean_rel", jreal(g->loo_mean_rel));
    if (g->loo_max_day != INT32_MIN) {
        gpi_date_format(g->loo_max_day, ds);
        json_object_set_new(loo, "max_date", json_string(ds));
        json_object_set_new(loo, "max_provider", json_string(g->loo_max_provider));
    } else {
        json_object_set_new(loo, "max_date", json_null());
        json_object_set_new(loo, "max_provider", json_null());
    }
    json_object_set_new(loo, "max_from", jvalue_e4(g->loo_max_from_e4));
    json_object_set_new(loo, "max_to", jvalue_e4(g->loo_max_to_e4));
    json_object_set_new(loo, "median_abs", jreal(g->loo_median_abs));
    json_object_set_new(loo, "median_rel", jreal(g->loo_median_rel));
    json_object_set_new(j, "leave_one_out", loo);
    json_t *mc = json_object();
    json_object_set_new(mc, "days", json_integer(g->cost_days));
    static const char *const tn[2] = {"tick", "one_percent"};
    for (int t = 0; t < 2; t++) {
        json_t *x = json_object();
        json_object_set_new(x, "median_gpu_hours", jreal(g->cost_median[t]));
        json_object_set_new(x, "min_gpu_hours", jreal(g->cost_min[t]));
        json_object_set_new(x, "none_days", json_integer(g->cost_none[t]));
        json_object_set_new(x, "offer_days", json_integer(g->cost_offer_days[t]));
        json_object_set_new(mc, tn[t], x);
    }
    json_object_set_new(j, "manipulation_cost", mc);
    json_object_set_new(j, "method",
                        json_string(g->method == 3 ? "v3" : g->method == 2 ? "v2" : "v1"));
    if (g->method == 3) {
        json_t *v3 = json_object();
        json_object_set_new(v3, "panel_change_days", json_integer(g->n_panel_change));
        json_object_set_new(j, "panel", v3);
    }
    if (g->method == 2) {
        json_t *v2 = json_object();
        json_object_set_new(v2, "cross_section_vol_annualized", jreal(g->xs_vol_annual));
        json_object_set_new(v2, "panel_change_days", json_integer(g->n_panel_change));
        json_object_set_new(v2, "rebalances", json_integer(g->n_rebalance));
        json_object_set_new(v2, "splice_mean_abs", jreal(g->splice_mean_abs));
        json_object_set_new(v2, "splice_max_abs", jreal(g->splice_max_abs));
        json_object_set_new(v2, "drift_mean", jreal(g->drift_mean));
        json_object_set_new(v2, "drift_max", jreal(g->drift_max));
        json_object_set_new(j, "chain", v2);
    }
    json_t *price = json_object();
    json_object_set_new(price, "value_days", json_integer(g->n_value_days));
    json_object_set_new(price, "median", jreal(g->price_median));
    json_object_set_new(price, "min", jreal(g->price_min));
    json_object_set_new(price, "max", jreal(g->price_max));
    json_object_set_new(price, "spread_iqr", jreal(g->spread_iqr));
    json_object_set_new(price, "spread_rel", jreal(g->spread_rel));
    json_object_set_new(j, "price", price);
    json_object_set_new(j, "mean_providers_live", jreal(g->mean_providers_live));
    json_t *months = json_object();
    json_object_set_new(months, "full", json_integer(g->full_months));
    json_object_set_new(months, "settleable", json_integer(g->settleable_months));
    json_object_set_new(months, "min_days", json_integer(IDX_SETTLE_MIN_DAYS));
    json_object_set_new(j, "months", months);
    json_object_set_new(j, "fsp", cli_eval_fsp_json(g));
    json_object_set_new(j, "segments", cli_eval_segments_json(ev, g));
    json_object_set_new(j, "split_of", g->split_of ? json_string(ev->g[g->split_of - 1].id)
                                                   : json_null());
    json_object_set_new(j, "split_segment",
                        g->split_of ? json_string(g->split_segment) : json_null());
    return j;
}

static json_t *eval_json(const idx_evaluation *ev, int64_t as_of)
{
    char ds[11];
    json_t *o = json_object();
    gpi_date_format(ev->from, ds);
    json_object_set_new(o, "from", json_string(ds));
    gpi_date_format(ev->to, ds);
    json_object_set_new(o, "to", json_string(ds));
    json_object_set_new(o, "days", json_integer(ev->days));
    json_object_set_new(o, "as_of", json_integer((json_int_t)as_of));
    json_object_set_new(o, "concentration_basis",
                        json_string("level used: screened trade volume per provider on trades "
                                    "days, screened offer count per provider on offers days; "
                                    "means over the days at that level"));
    json_t *arr = json_array();
    for (size_t i = 0; i < ev->n; i++) json_array_append_new(arr, grade_json(ev, &ev->g[i]));
    json_object_set_new(o, "grades", arr);
    arr = json_array();
    for (size_t i = ev->n; i < ev->n + ev->n_split; i++)
        json_array_append_new(arr, grade_json(ev, &ev->g[i]));
    json_object_set_new(o, "splits", arr);
    json_t *corr = json_object(), *ids = json_array(), *m = json_array(), *cn = json_array();
    json_t *mv = json_array(), *near = json_array();
    for (size_t a = 0; a < ev->n; a++) {
        const idx_grade_eval *g = &ev->g[a];
        json_array_append_new(ids, json_string(g->id));
        json_t *nj = json_object();
        json_object_set_new(nj, "grade", g->nearest ? json_string(ev->g[g->nearest - 1].id)
                                                    : json_null());
        json_object_set_new(nj, "r", g->nearest ? jreal(g->nearest_r) : json_null());
        json_object_set_new(nj, "common_days", json_integer(g->nearest ? g->nearest_n : 0));
        json_object_set_new(nj, "moved_days", json_integer(g->nearest ? g->nearest_moves : 0));
        json_array_append_new(near, nj);
        if (!ev->corr) continue; /* more than IDX_CORR_MATRIX_MAX grades */
        json_t *row = json_array(), *nrow = json_array(), *mrow = json_array();
        for (size_t b = 0; b < ev->n; b++) {
            json_array_append_new(row, jreal(ev->corr[a * ev->n + b]));
            json_array_append_new(nrow, json_integer(ev->corr_n[a * ev->n + b]));
            json_array_append_new(mrow, json_integer(ev->corr_moves[a * ev->n + b]));
        }
        json_array_append_new(m, row);
        json_array_append_new(cn, nrow);
        json_array_append_new(mv, mrow);
    }
    json_object_set_new(corr, "grades", ids);
    json_object_set_new(corr, "min_common_days", json_integer(IDX_CORR_MIN_DAYS));
    json_object_set_new(corr, "min_moved_days", json_integer(IDX_CORR_MIN_MOVES));
    json_object_set_new(corr, "matrix_max_grades", json_integer(IDX_CORR_MATRIX_MAX));
    json_object_set_new(corr, "matrix", ev->corr ? m : json_null());
    json_object_set_new(corr, "common_days", ev->corr ? cn : json_null());
    json_object_set_new(corr, "moved_days", ev->corr ? mv : json_null());
    if (!ev->corr) {
        json_decref(m);
        json_decref(cn);
        json_decref(mv);
    }
    json_object_set_new(corr, "nearest", near);
    json_object_set_new(o, "correlation", corr);
    return o;
}

/* With more grades than IDX_CORR_MATRIX_MAX: each grade's nearest. */
static void print_nearest(FILE *f, const idx_evaluation *ev, int w)
{
    fprintf(f, "\ncorrelation of daily log changes: %zu grades, more than %d, so no matrix;\n"
               "each grade's most correlated other grade (pairs with >= %d common change\n"
               "days, on >= %d of which both moved; common change days / days both moved):\n",
            ev->n, IDX_CORR_MATRIX_MAX, IDX_CORR_MIN_DAYS, IDX_CORR_MIN_MOVES);
    for (size_t a = 0; a < ev->n; a++) {
        const idx_grade_eval *g = &ev->g[a];
        char rb[32], nm[32] = "-";
        const char *r = g->nearest ? num(rb, g->nearest_r, 3) : "-";
        if (g->nearest) snprintf(nm, sizeof nm, "%ld/%ld", g->nearest_n, g->nearest_moves);
        fprintf(f, "%-*s %-*s %7s %9s\n", w, g->id, w, g->nearest ? ev->g[g->nearest - 1].id : "-",
                r, nm);
    }
}

static void print_table(FILE *f, const idx_evaluation *ev)
{
    char b[12][32], d0[11], d1[11];
    gpi_date_format(ev->from, d0);
    gpi_date_format(ev->to, d1);
    int w = 5;
    for (size_t i = 0; i < ev->n; i++)
        if ((int)strlen(ev->g[i].id) > w) w = (int)strlen(ev->g[i].id);
    fprintf(f, "grade lab: %s..%s, %ld day%s, %zu grade%s\n\n", d0, d1, ev->days,
            ev->days == 1 ? "" : "s", ev->n, ev->n == 1 ? "" : "s");
    fprintf(f, "%-*s %7s %7s %7s %7s %6s %6s %6s %7s %8s %8s %8s %8s %5s\n", w, "grade",
            "trades%", "offers%", "carry%", "susp%", "provs", "top", "hhi", "vol_d%", "vol_ann%",
            "loo_max", "loo_max%", "loo_avg%", "lost");
    for (size_t i = 0; i < ev->n; i++) {
        const idx_grade_eval *g = &ev->g[i];
        fprintf(f, "%-*s %7s %7s %7s %7s %6s %6s %6s %7s %8s %8s %8s %8s %5ld\n", w, g->id,
                pct(b[0], g->share_level[GPI_LEVEL_TRADES], 1),
                pct(b[1], g->share_level[GPI_LEVEL_OFFERS], 1),
                pct(b[2], g->share_level[GPI_LEVEL_CARRIED], 1),
                pct(b[3], g->share_level[GPI_LEVEL_SUSPENDED], 1),
                num(b[4], g->mean_providers, 2), num(b[5], g->top_share, 3),
                num(b[6], g->hhi, 3), pct(b[7], g->vol_daily, 2), pct(b[8], g->vol_annual, 1),
                num(b[9], g->loo_max_abs, 4), pct(b[10], g->loo_max_rel, 2),
                pct(b[11], g->loo_mean_rel, 2), g->loo_lost);
    }
    fputs("\n"
          "trades% .. susp%  share of days at each level\n"
          "provs             mean providers per day (the n_providers of the rows)\n"
          "top, hhi          largest provider's share and Herfindahl-Hirschman index (sum\n"
          "                  of squared shares, 0..1) of the level used, averaged over\n"
          "                  trades and offers days: shares of trade volume on trades\n"
          "                  days, of offer counts on offers days\n"
          "vol_d%, vol_ann%  sd of daily log changes of the value; x sqrt(365)\n"
          "loo_max           largest move of a day's value (USD/GPU-hour) when one provider is\n"
          "                  left out; loo_max%, loo_avg%: largest and mean over days, relative\n"
          "lost              days on which leaving one provider out leaves no value\n",
          f);
    fprintf(f, "\n%-*s %6s %9s %9s %9s %9s %7s %6s %9s\n", w, "grade", "days", "price",
            "min", "max", "spread", "spread%", "provs", "settle");
    for (size_t i = 0; i < ev->n; i++) {
        const idx_grade_eval *g = &ev->g[i];
        char months[32];
        snprintf(months, sizeof months, "%ld/%ld", g->settleable_months, g->full_months);
        fprintf(f, "%-*s %6ld %9s %9s %9s %9s %7s %6s %9s\n", w, g->id, g->n_value_days,
                num(b[0], g->price_median, 4), num(b[1], g->price_min, 4),
                num(b[2], g->price_max, 4), num(b[3], g->spread_iqr, 4),
                pct(b[4], g->spread_rel, 1), num(b[5], g->mean_providers_live, 2), months);
    }
    fprintf(f, "\n"
               "days              days with a value (trades, offers or carried)\n"
               "price, min, max   median, lowest and highest daily value (USD/GPU-hour)\n"
               "spread, spread%%   median over trades and offers days of the day's p75 - p25\n"
               "                  (USD/GPU-hour), and relative to the median price\n"
               "provs             mean providers per day over the days with a value\n"
               "settle            calendar months with >= %d days with a value (a monthly\n"
               "                  future's final settlement price) / months in the range\n",
            IDX_SETTLE_MIN_DAYS);
    int any = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const idx_grade_eval *g = &ev->g[i];
        if (g->method != 2) continue;
        if (!any++)
            fprintf(f, "\nmethodology v2 (the chained value above; its cross-section and "
                       "rebalances here):\n%-*s %8s %7s %7s %8s %8s %8s %8s\n",
                    w, "grade", "xs_ann%", "panel", "rebal", "splice%", "spl_max%", "drift%",
                    "drft_max%");
        fprintf(f, "%-*s %8s %7ld %7ld %8s %8s %8s %8s\n", w, g->id,
                pct(b[0], g->xs_vol_annual, 1), g->n_panel_change, g->n_rebalance,
                pct(b[1], g->splice_mean_abs, 2), pct(b[2], g->splice_max_abs, 2),
                pct(b[3], g->drift_mean, 2), pct(b[4], g->drift_max, 2));
    }
    if (any)
        fputs("xs_ann%           annualized volatility of the cross-section (the v1 rule)\n"
              "panel             days a constituent entered or left\n"
              "rebal             rebalances and reanchors; splice%, spl_max%: mean and largest\n"
              "                  |splice - 1|\n"
              "drift%, drft_max% mean and largest |value / cross-section - 1|\n",
              f);
    fprintf(f, "\nwhat one participant can do (METHODOLOGY.md §11):\n"
               "%-*s %8s %8s %8s %6s %9s %9s %5s %9s %9s %5s %6s %6s\n",
            w, "grade", "loo_med", "loo_med%", "loo_max%", "days", "tick_med", "tick_min",
            "none", "1%_med", "1%_min", "none", "o_tick", "o_1%");
    for (size_t i = 0; i < ev->n; i++) {
        const idx_grade_eval *g = &ev->g[i];
        fprintf(f, "%-*s %8s %8s %8s %6ld %9s %9s %5ld %9s %9s %5ld %6ld %6ld\n", w, g->id,
                num(b[0], g->loo_median_abs, 4), pct(b[1], g->loo_median_rel, 2),
                pct(b[2], g->loo_max_rel, 2), g->cost_days, cost(b[3], g->cost_median[0]),
                num(b[4], g->cost_min[0], 2), g->cost_none[0], cost(b[5], g->cost_median[1]),
                num(b[6], g->cost_min[1], 2), g->cost_none[1], g->cost_offer_days[0],
                g->cost_offer_days[1]);
    }
    fputs("loo_med, loo_med%  median move of a day's value when one provider is left out\n"
          "                   (USD/GPU-hour, relative); loo_max%: the largest\n"
          "days               days a new participant's cost is defined (with a value; v2:\n"
          "                   anchor days only -- between anchors it cannot move the value)\n"
          "tick_med, tick_min median and smallest GPU-hours of trades one new participant must\n"
          "                   add to move the value one tick (1%_med, 1%_min: by 1 %); none:\n"
          "                   days no volume does it (the provider cap); inf: most days none\n"
          "o_tick, o_1%       days one offer of a new participant does it\n",
          f);
    any = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const idx_grade_eval *g = &ev->g[i];
        if (g->loo_max_day == INT32_MIN) continue;
        if (!any++) fputs("\nlargest single-provider move:\n", f);
        gpi_date_format(g->loo_max_day, d0);
        fprintf(f, "  %-*s %s without %s: %.4f -> %.4f (%s%%)\n", w, g->id, d0,
                g->loo_max_provider, (double)g->loo_max_from_e4 / 1e4,
                (double)g->loo_max_to_e4 / 1e4, pct(b[0], g->loo_max_rel, 2));
    }
    cli_eval_print_segments(f, ev, w);
    cli_eval_print_fsp_moves(f, ev, w);
    if (!ev->corr) { /* more than IDX_CORR_MATRIX_MAX grades */
        print_nearest(f, ev, w);
        return;
    }
    fprintf(f, "\ncorrelation of daily log changes (pairs with >= %d common change days, on\n"
               ">= %d of which both moved; the sample sizes follow):\n",
            IDX_CORR_MIN_DAYS, IDX_CORR_MIN_MOVES);
    fprintf(f, "%*s", w + 6, "");
    for (size_t c = 0; c < ev->n; c++) {
        snprintf(b[0], 32, "[%zu]", c + 1);
        fprintf(f, " %7s", b[0]);
    }
    fputc('\n', f);
    for (size_t a = 0; a < ev->n; a++) {
        snprintf(b[1], 32, "[%zu]", a + 1);
        fprintf(f, "%-5s %-*s", b[1], w, ev->g[a].id);
        for (size_t c = 0; c < ev->n; c++) {
            double r = ev->corr[a * ev->n + c];
            fprintf(f, " %7s", num(b[0], r, 3));
        }
        fputc('\n', f);
    }
    fputs("\ncommon change days / days both moved:\n", f);
    fprintf(f, "%*s", w + 6, "");
    for (size_t c = 0; c < ev->n; c++) {
        snprintf(b[0], 32, "[%zu]", c + 1);
        fprintf(f, " %9s", b[0]);
    }
    fputc('\n', f);
    for (size_t a = 0; a < ev->n; a++) {
        snprintf(b[1], 32, "[%zu]", a + 1);
        fprintf(f, "%-5s %-*s", b[1], w, ev->g[a].id);
        for (size_t c = 0; c < ev->n; c++) {
            snprintf(b[0], 32, "%ld/%ld", ev->corr_n[a * ev->n + c],
                     ev->corr_moves[a * ev->n + c]);
            fprintf(f, " %9s", b[0]);
        }
        fputc('\n', f);
    }
}

/* ---- --curve: the term curve of each grade (cli/curve_util.c) --------------- */

static void lab_text(const idx_evaluation *ev, const cc_lab *lab)
{
    printf("\nterm curves (METHODOLOGY.md \"Term curve\"): days with a curve of the days with "
           "a value; tenors (of 36) with a forward, mean and most; fitted tenors (an input ends "
           "there), mean; days with a forward at 1, 3, 6, 12, 24, 36 months\n");
    static const int at[6] = {1, 3, 6, 12, 24, 36};
    char a[32], b[32];
    for (size_t i = 0; i < ev->n && i < lab->n; i++) {
        const cc_lab_grade *g = &lab->g[i];
        printf("  %s: %ld of %ld days; tenors %s, most %d; fitted %s; days", ev->g[i].id,
               g->curve_days, g->fix_days,
               g->curve_days ? cli_num(a, (double)g->tenors_sum / (double)g->curve_days, 1) : "-",
               g->tenors_max,
               g->curve_days ? cli_num(b, (double)g->fitted_sum / (double)g->curve_days, 1) : "-");
        for (int k = 0; k < 6; k++) printf(" %d:%ld", at[k], g->tenor_days[at[k] - 1]);
        printf("\n");
    }
}

static void lab_json(json_t *root, const cc_lab *lab)
{
    json_t *arr = json_object_get(root, "grades");
    for (size_t i = 0; i < json_array_size(arr) && i < lab->n; i++) {
        const cc_lab_grade *g = &lab->g[i];
        json_t *c = json_object(), *td = json_array();
        json_object_set_new(c, "days_with_value", json_integer(g->fix_days));
        json_object_set_new(c, "days", json_integer(g->curve_days));
        json_object_set_new(c, "tenors_mean",
                            g->curve_days ? json_real((double)g->tenors_sum / (double)g->curve_days)
                                          : json_null());
        json_object_set_new(c, "tenors_max", json_integer(g->tenors_max));
        json_object_set_new(c, "fitted_mean",
                            g->curve_days ? json_real((double)g->fitted_sum / (double)g->curve_days)
                                          : json_null());
        for (int k = 0; k < CURVE_TENORS; k++)
            json_array_append_new(td, json_integer(g->tenor_days[k]));
        json_object_set_new(c, "tenor_days", td);
        json_object_set_new(json_array_get(arr, i), "curve", c);
    }
}

/* The lab's CSV with the curve's columns appended to each line. */
static gpi_status lab_csv(const idx_evaluation *ev, const cc_lab *lab, gpi_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
    print_csv(m, ev);
    fclose(m);
    size_t row = 0;
    char a[32], b[32];
    for (char *line = buf; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        fputs(line, stdout);
        if (line == buf) {
            fputs(",curve_days,curve_tenors_mean,curve_tenors_max,curve_fitted_mean", stdout);
        } else if (row >= lab->n) {
            fputs(",,,,", stdout); /* a segment-only grade: no curve evaluated */
        } else {
            const cc_lab_grade *g = &lab->g[row++];
            printf(",%ld,%s,%d,%s", g->curve_days,
                   g->curve_days ? cli_num(a, (double)g->tenors_sum / (double)g->curve_days, 2)
                                 : "",
                   g->tenors_max,
                   g->curve_days ? cli_num(b, (double)g->fitted_sum / (double)g->curve_days, 2)
                                 : "");
        }
        fputc('\n', stdout);
        line = end ? end + 1 : NULL;
    }
    free(buf);
    return GPI_OK;
}

static int cmd_evaluate(cli_ctx *ctx, int argc, char **argv)
{
    const char *grades = NULL, *from_s = NULL, *to_s = NULL, *asof_s = NULL;
    int json = 0, csv = 0, no_split = 0, curve = 0;
    const cli_opt_spec spec[] = {{"--json", NULL, &json},     {"--csv", NULL, &csv},
                                 {"--no-split", NULL, &no_split}, {"--curve", NULL, &curve},
                                 {"--grades", &grades, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},       {"--as-of", &asof_s, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "grades evaluate", "grades evaluate", "grades evaluate");
    if (ec >= 0) return ec;
    if (!from_s || !to_s) {
        cli_error("grades evaluate: --from and --to are required");
        return 2;
    }
    if (json && csv) {
        cli_error("grades evaluate: --json and --csv exclude each other");
        return 2;
    }
    int32_t from, to;
    const char *why = gpi_date_parse(from_s, &from);
    if (why) {
        cli_error("--from: %s (got \"%s\")", why, from_s);
        return 2;
    }
    if ((why = gpi_date_parse(to_s, &to))) {
        cli_error("--to: %s (got \"%s\")", why, to_s);
        return 2;
    }
    if (from > to) {
        cli_error("grades evaluate: --from %s is after --to %s", from_s, to_s);
        return 2;
    }
    const char *outside = idx_day_outside(from);
    if (outside || (outside = idx_day_outside(to))) {
        cli_error("grades evaluate: %s: %s (got \"%s\")", idx_day_outside(from) ? "--from" : "--to",
                  outside, idx_day_outside(from) ? from_s : to_s);
        return 2;
    }
    int64_t as_of = (int64_t)time(NULL);
    if (asof_s && (why = gpi_time_parse(asof_s, &as_of))) {
        cli_error("--as-of: %s (got \"%s\")", why, asof_s);
        return 2;
    }
    if (!cli_have_db(ctx, "grades evaluate")) return 1;
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    store *st = NULL;
    idx_evaluation *ev = NULL;
    char pbuf[4096];
    const char *path = cli_published_path(ctx, grades, pbuf);
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), path, &gs, &d);
    if (rc == GPI_OK) cli_print_notes(gs);
    if (rc == GPI_OK) rc = store_open_read(ctx->db_path, &st, &d); /* writes nothing */
    if (rc == GPI_OK) rc = cli_check_filters(ctx, st, gs, path, &d);
    if (rc == GPI_OK) rc = idx_evaluate(st, gs, from, to, as_of, !no_split, &ev, &d);
    cc_lab lab = {0, NULL};
    if (rc == GPI_OK && curve) rc = cc_lab_curves(st, gs, from, to, as_of, &lab, &d);
    if (rc == GPI_OK) {
        if (json) {
            json_t *j = eval_json(ev, as_of);
            if (j && curve) lab_json(j, &lab);
            if (!j)
                rc = gpi_diag_set(&d, GPI_ENOMEM, "grades evaluate: out of memory");
            else if (json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
                rc = gpi_diag_set(&d, GPI_EIO, "stdout: write failed");
            else
                fputc('\n', stdout);
            json_decref(j);
        } else if (csv) {
            if (curve)
                rc = lab_csv(ev, &lab, &d);
            else
                print_csv(stdout, ev);
        } else {
            print_table(stdout, ev);
            if (curve) lab_text(ev, &lab);
        }
    }
    if (rc != GPI_OK) cli_error("%s", d.msg);
    cc_lab_free(&lab);
    idx_evaluation_free(ev);
    store_close(st);
    idx_grades_free(gs);
    return gpi_exit_code(rc);
}

int cmd_grades(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        cli_help_print(argc < 2 ? stderr : stdout, "grades");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "evaluate") == 0) return cmd_evaluate(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "list") == 0) return cmd_grades_list(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "drop") == 0) return cmd_grades_drop_restore(ctx, argc - 1, argv + 1, 1);
    if (strcmp(argv[1], "restore") == 0) return cmd_grades_drop_restore(ctx, argc - 1, argv + 1, 0);
    if (strcmp(argv[1], "stale") == 0) return cmd_grades_stale(ctx, argc - 1, argv + 1);
    cli_error("grades: unknown subcommand '%s' (evaluate, list, drop, restore, stale)", argv[1]);
    return 2;
}
