/* cli/grades_segments.c -- `gpuidx grades evaluate`: the final settlement
 * price month to month and the provider segments of each grade (index/
 * segments.c; METHODOLOGY.md, Grade lab), as table sections, JSON objects
 * and CSV columns.  Not-available numbers print as "-" in the table, null
 * in JSON and an empty field in CSV, as the rest of the lab's output.
 */
#include "cli/grades_print.h"
#include "cli/cli.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *num(char buf[32], double v, int dp)
{
    return isfinite(v) ? cli_num(buf, v, dp) : "-";
}

static const char *pct(char buf[32], double v, int dp)
{
    return isfinite(v) ? num(buf, 100.0 * v, dp) : "-";
}

static const char *month(char buf[11], int32_t day)
{
    if (day == INT32_MIN) return "-";
    gpi_date_format(day, buf);
    buf[7] = '\0';
    return buf;
}

static void range_text(char *out, size_t cap, int32_t a, int32_t b)
{
    if (a == INT32_MIN) {
        snprintf(out, cap, "-");
        return;
    }
    char x[11], y[11];
    gpi_date_format(a, x);
    gpi_date_format(b, y);
    snprintf(out, cap, "%s..%s", x, y);
}

/* One grade's row of the FSP figures: value days, changes, largest (its
 * month), mean. */
static void fsp_cells(FILE *f, const idx_grade_eval *g)
{
    char b[2][32], m[11];
    fprintf(f, " %6ld %6ld %8s %7s %9s", g->n_value_days, g->fsp_changes,
            pct(b[0], g->fsp_change_max, 2), month(m, g->fsp_change_max_month),
            pct(b[1], g->fsp_change_mean, 2));
}

static void print_bimodal(FILE *f, const idx_evaluation *ev, const idx_grade_eval *g)
{
    char b[4][32];
    fprintf(f, "\n%s: bimodal: segment medians %sx apart (median over %ld days; %s-%s), "
               ">= %sx on %ld of them\n",
            g->id, num(b[0], g->seg_ratio_median, 2), g->seg_days,
            num(b[1], g->seg_ratio_min, 2), num(b[2], g->seg_ratio_max, 2),
            num(b[3], IDX_BIMODAL_RATIO, 1), g->seg_split_days);
    int w = (int)strlen(g->id) + 2; /* the grade column: the longest split's id */
    for (int s = 0; s < g->n_segments; s++)
        if (g->seg[s].split && (int)strlen(ev->g[g->seg[s].split - 1].id) > w)
            w = (int)strlen(ev->g[g->seg[s].split - 1].id);
    fprintf(f, "  %-12s %5s %5s %4s %5s %-22s %9s %6s  %-*s %6s %6s %8s %7s %9s\n", "segment",
            "days", "provs", "max", "fixd", "first..last (fixd)", "price", "spread", w, "grade",
            "values", "chg", "max_chg%", "month", "mean_chg%");
    for (int s = 0; s < g->n_segments; s++) {
        const idx_segment_eval *x = &g->seg[s];
        char r[32];
        range_text(r, sizeof r, x->first_day, x->last_day);
        fprintf(f, "  %-12s %5ld %5s %4ld %5ld %-22s %9s %6s  ", x->segment, x->days,
                num(b[0], x->mean_providers, 2), x->max_providers, x->min_days, r,
                num(b[1], x->price_median, 4), num(b[2], x->spread_median, 2));
        if (x->split) {
            const idx_grade_eval *sg = &ev->g[x->split - 1];
            fprintf(f, "%-*s", w, sg->id);
            fsp_cells(f, sg);
        } else {
            fputc('-', f);
        }
        fputc('\n', f);
    }
    fprintf(f, "  %-12s %5s %5s %4s %5s %-22s %9s %6s  %-*s", "(blended)", "", "", "", "", "",
            num(b[0], g->price_median, 4), "", w, g->id);
    fsp_cells(f, g);
    fputc('\n', f);
}

void cli_eval_print_segments(FILE *f, const idx_evaluation *ev, int w)
{
    char b[3][32], m[11];
    if (ev->n > IDX_CORR_MATRIX_MAX) /* a sweep: the table stays bounded (cmd_grades.c) */
        fprintf(f, "\nfinal settlement price month to month: %zu grades, more than %d; --csv\n"
                   "and --json give each grade's\n",
                ev->n, IDX_CORR_MATRIX_MAX);
    else
        fprintf(f, "\nfinal settlement price month to month (the mean of a month's values with\n"
                   ">= %d of them, 0.0001 tick; |FSP(m) / FSP(m-1) - 1| over consecutive\n"
                   "settleable months):\n%-*s %6s %8s %7s %9s\n",
                IDX_SETTLE_MIN_DAYS, w, "grade", "chg", "max_chg%", "month", "mean_chg%");
    for (size_t i = 0; i < ev->n && ev->n <= IDX_CORR_MATRIX_MAX; i++) {
        const idx_grade_eval *g = &ev->g[i];
        fprintf(f, "%-*s %6ld %8s %7s %9s\n", w, g->id, g->fsp_changes,
                pct(b[0], g->fsp_change_max, 2), month(m, g->fsp_change_max_month),
                pct(b[1], g->fsp_change_mean, 2));
    }
    long multi = 0, bimodal = 0;
    for (size_t i = 0; i < ev->n; i++) {
        multi += ev->g[i].seg_days > 0;
        bimodal += ev->g[i].bimodal;
    }
    fprintf(f, "\nprovider segments (bimodal: on at least half of the fixed days with providers\n"
               "of two or more segments, the highest segment's median provider price is at\n"
               "least %sx the lowest's): %ld grade%s with two or more segments, %ld bimodal\n",
            num(b[2], IDX_BIMODAL_RATIO, 1), multi, multi == 1 ? "" : "s", bimodal);
    if (ev->n > IDX_CORR_MATRIX_MAX) { /* a sweep: bounded as above */
        if (bimodal)
            fputs("--csv and --json give each grade's segments and its splits\n", f);
        return;
    }
    for (size_t i = 0; i < ev->n; i++)
        if (ev->g[i].bimodal) print_bimodal(f, ev, &ev->g[i]);
    if (bimodal)
        fputs("\ndays, provs, max  fixed days with a provider of the segment, its mean and\n"
              "                  largest number of providers on them; fixd: days with at\n"
              "                  least min_providers of them (a segment-only value can fix)\n"
              "price, spread     medians over the days of the segment's median provider\n"
              "                  price (USD/GPU-hour) and of its highest / lowest provider\n"
              "grade             the segment-only split (\"segments\": [S]), evaluated as any\n"
              "                  grade: its days with a value, and its final settlement price\n"
              "                  month to month as above (-: its segment never has\n"
              "                  min_providers providers, so it never has a value)\n",
              f);
    if (multi > bimodal)
        fprintf(f, "%ld grade%s with two or more segments %s not bimodal (--json and --csv\n"
                   "give each grade's figures)\n",
                multi - bimodal, multi - bimodal == 1 ? "" : "s",
                multi - bimodal == 1 ? "is" : "are");
}

const char cli_eval_csv_tail_header[] =
    ",fsp_changes,fsp_change_max,fsp_change_mean,fsp_change_max_month,segments,segment_days,"
    "segment_split_days,segment_ratio_median,segment_ratio_min,segment_ratio_max,bimodal,"
    "split_of,split_segment";

static void csv_num(FILE *f, double v, int dp)
{
    char buf[32];
    fputc(',', f);
    if (isfinite(v)) fputs(cli_num(buf, v, dp), f);
}

void cli_eval_csv_tail(FILE *f, const idx_evaluation *ev, const idx_grade_eval *g)
{
    char m[11] = "";
    if (g->fsp_change_max_month != INT32_MIN) gpi_date_format(g->fsp_change_max_month, m);
    fprintf(f, ",%ld", g->fsp_changes);
    csv_num(f, g->fsp_change_max, 8);
    csv_num(f, g->fsp_change_mean, 8);
    fprintf(f, ",%.7s,", m);
    for (int s = 0; s < g->n_segments; s++) {
        if (s) fputc(';', f);
        gpi_csv_field(f, g->seg[s].segment);
    }
    fprintf(f, ",%ld,%ld", g->seg_days, g->seg_split_days);
    csv_num(f, g->seg_ratio_median, 6);
    csv_num(f, g->seg_ratio_min, 6);
    csv_num(f, g->seg_ratio_max, 6);
    fprintf(f, ",%d,", g->bimodal);
    if (g->split_of) gpi_csv_field(f, ev->g[g->split_of - 1].id);
    fputc(',', f);
    if (g->split_of) gpi_csv_field(f, g->split_segment);
}

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jmonth(int32_t day)
{
    char m[11];
    if (day == INT32_MIN) return json_null();
    gpi_date_format(day, m);
    m[7] = '\0';
    return json_string(m);
}

static json_t *jday(int32_t day)
{
    char s[11];
    if (day == INT32_MIN) return json_null();
    gpi_date_format(day, s);
    return json_string(s);
}

json_t *cli_eval_fsp_json(const idx_grade_eval *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "changes", json_integer(g->fsp_changes));
    json_object_set_new(o, "change_max", jreal(g->fsp_change_max));
    json_object_set_new(o, "change_max_month", jmonth(g->fsp_change_max_month));
    json_object_set_new(o, "change_mean", jreal(g->fsp_change_mean));
    json_object_set_new(o, "min_days", json_integer(IDX_SETTLE_MIN_DAYS));
    json_object_set_new(o, "moves", cli_eval_fsp_moves_json(g));
    return o;
}

json_t *cli_eval_segments_json(const idx_evaluation *ev, const idx_grade_eval *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "bimodal", json_boolean(g->bimodal));
    json_object_set_new(o, "ratio_threshold", json_real(IDX_BIMODAL_RATIO));
    json_object_set_new(o, "days", json_integer(g->seg_days));
    json_object_set_new(o, "split_days", json_integer(g->seg_split_days));
    json_object_set_new(o, "ratio_median", jreal(g->seg_ratio_median));
    json_object_set_new(o, "ratio_min", jreal(g->seg_ratio_min));
    json_object_set_new(o, "ratio_max", jreal(g->seg_ratio_max));
    json_t *arr = json_array();
    for (int s = 0; s < g->n_segments; s++) {
        const idx_segment_eval *x = &g->seg[s];
        json_t *j = json_object();
        json_object_set_new(j, "segment", json_string(x->segment));
        json_object_set_new(j, "days", json_integer(x->days));
        json_object_set_new(j, "mean_providers", jreal(x->mean_providers));
        json_object_set_new(j, "max_providers", json_integer(x->max_providers));
        json_object_set_new(j, "min_providers_days", json_integer(x->min_days));
        json_object_set_new(j, "min_providers_first", jday(x->first_day));
        json_object_set_new(j, "min_providers_last", jday(x->last_day));
        json_object_set_new(j, "price_median", jreal(x->price_median));
        json_object_set_new(j, "spread_median", jreal(x->spread_median));
        json_object_set_new(j, "split", x->split ? json_string(ev->g[x->split - 1].id)
                                                 : json_null());
        json_array_append_new(arr, j);
    }
    json_object_set_new(o, "by_segment", arr);
    return o;
}
