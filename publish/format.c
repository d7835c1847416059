/* publish/format.c -- the published row formats (SPEC §13, METHODOLOGY.md
 * §5 and §10.6) and `index show`.
 *
 * One formatter for the CSV line and one for the JSON object of a row, both
 * with the fixed decimals of §13 (value 4; p10..max, adjustment and
 * top_provider_share 6; trade volume 2), empty CSV fields / JSON null for
 * no value.  Numbers are printed from fixed-point integers, never from
 * doubles.
 *
 * File format 2 (methodology v2) adds columns after `vintage`, so a
 * reader of format 1 keeps working: xs_value (4 decimals), xs_level,
 * relative and splice (12), n_matched, n_matched_providers, panel_change,
 * event and note; JSON rows gain the same keys plus chain_raw,
 * reference_date, panel_date, matched_statistic, carried_trades and
 * observation_spread.  v1 rows leave the
 * v2 columns empty (note applies to every row).  A vintage keeps the
 * format it was published in (publish/publish.c), so files published before
 * format 2 regenerate byte for byte.
 *
 * File format 3 adds, after `note`, what one participant can do to the fix
 * (index/manip.c): loo_move (4 decimals), cost_tick_gpu_hours and
 * cost_1pct_gpu_hours (2), cost_tick_offers and cost_1pct_offers
 * (integers), empty for none; JSON rows gain the same keys plus
 * loo_provider and loo_voids, and v2 rows chain_prev, carry_prev,
 * xs_carry_days, ref_volumes and anchor_window (what gpuidx verify needs
 * besides the day's observations).
 *
 * File format 4 adds, after cost_1pct_offers, what publication computes
 * (publish/commit.c: ci_low, ci_high, confidence, stale_share), then
 * methodology v3's columns, stored with the row (index/v3_row.c,
 * METHODOLOGY.md §13.7): price_index (6 decimals),
 * index_change (12), composition_gap and composition_gap_month (6,
 * signed), panel_size, n_imputed, n_candidates and index_providers; empty
 * on v1 and v2 rows.  A v3 row fills panel_change of the v2 columns (a
 * group joined or left the panel) and leaves the others empty.  JSON rows
 * of v3 gain the same keys and "v3", the panel and the index's inputs
 * (v3_row.c design note 2).
 *
 * An index.csv line is written in one place, pub_csv_line: the row's
 * columns up to `methodology` (its head), the vintage, and the columns
 * after it (its tail) padded with empty fields to the file format, so a
 * row published in an older format and carried into a later vintage gets
 * empty later columns.  A vintage stores its rows as that text (head,
 * tail, JSON object: pub_row_text), so `index show`, site/ and every
 * vintage write the same line from the same pieces.  The stored tail of
 * format 4 holds the v3 columns after cost_1pct_offers; a published line
 * puts publication's columns between them (pub_csv_line_extra), and
 * `index show` leaves publication's columns empty.
 */
#include "publish/internal.h"
#include "store/index_values.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index.csv header of each file format is publish/columns.c's table. */
/* File format 4's first columns (ci_low, ci_high, confidence, stale_share)
 * are computed at publication (commit.c); its others (methodology v3's)
 * are stored with the row, after format 3's in its tail. */
enum { PUB4_PUBLICATION_COLS = 4 };

static int is_v3(const store_index_row *r)
{
    return strcmp(r->methodology, "v3") == 0;
}

/* A signed fixed-point number (none: INT64_MIN) as CSV (empty) or JSON (null). */
static void put_signed(FILE *f, int64_t v, int digits, int json)
{
    char b[32];
    if (v == INT64_MIN)
        fputs(json ? "null" : "", f);
    else
        fputs(gpi_fixed_format(v, digits, b), f);
}

static void row_csv_tail4(FILE *f, const store_index_row *r)
{
    if (!is_v3(r)) {
        fputs(",,,,,,,,", f);
        return;
    }
    fputc(',', f);
    idx_put_fixed(f, r->price_index_e6, 6, 0);
    fputc(',', f);
    idx_put_fixed(f, r->index_change_e12, 12, 0);
    fputc(',', f);
    put_signed(f, r->gap_e6, 6, 0);
    fputc(',', f);
    put_signed(f, r->gap_month_e6, 6, 0);
    fprintf(f, ",%ld,%ld,%ld,%ld", r->panel_size, r->n_imputed, r->n_candidates,
            r->index_providers);
}

static void row_csv_tail3(FILE *f, const store_index_row *r)
{
    fputc(',', f);
    idx_put_fixed(f, r->loo_move_e4, 4, 0);
    for (int k = 0; k < 2; k++) {
        fputc(',', f);
        idx_put_fixed(f, r->cost_e2[k], 2, 0);
    }
    for (int k = 0; k < 2; k++)
        if (r->cost_offers[k] >= 0)
            fprintf(f, ",%ld", r->cost_offers[k]);
        else
            fputc(',', f);
}

static int is_v2(const store_index_row *r)
{
    return strcmp(r->methodology, "v2") == 0;
}

static void row_csv_tail(FILE *f, const store_index_row *r)
{
    fputc(',', f);
    if (is_v2(r)) {
        idx_put_fixed(f, r->xs_value_e4, 4, 0);
        fprintf(f, ",%s,", gpi_level_name(r->xs_level));
        idx_put_fixed(f, r->relative_e12, 12, 0);
        fprintf(f, ",%ld,%ld,%d,%s,", r->n_matched, r->n_matched_providers, r->panel_change,
                idx_event_name(r->event));
        idx_put_fixed(f, r->splice_e12, 12, 0);
    } else if (is_v3(r)) {
        fprintf(f, ",,,,,%d,,", r->panel_change);
    } else {
        fputs(",,,,,,,", f);
    }
    fputc(',', f);
    gpi_csv_field(f, r->note);
}

/* CSV line without the vintage column (ends with the methodology and a
 * comma). */
static void row_csv(FILE *f, const store_index_row *r)
{
    char date[11];
    gpi_date_format(r->day, date);
    fprintf(f, "%s,%s,", date, r->grade);
    idx_put_fixed(f, r->level == GPI_LEVEL_SUSPENDED ? -1 : r->value_e4, 4, 0);
    fprintf(f, ",%s,%ld,%ld,%ld,", gpi_level_name(r->level), r->n_obs, r->n_excluded,
            r->n_providers);
    idx_put_fixed(f, r->trade_volume_e2, 2, 0);
    fputc(',', f);
    idx_put_fixed(f, r->adjustment_e6, 6, 0);
    const int64_t sp[7] = {r->p10_micro, r->p25_micro, r->p50_micro, r->p75_micro,
                           r->p90_micro, r->min_micro, r->max_micro};
    for (int i = 0; i < 7; i++) {
        fputc(',', f);
        idx_put_fixed(f, sp[i], 6, 0);
    }
    fputc(',', f);
    idx_put_fixed(f, r->top_share_e6, 6, 0);
    fprintf(f, ",%s,", r->methodology);
}

typedef struct adj_ctx {
    FILE *f;
    int n;
} adj_ctx;

static int adj_json(int32_t src_day, int64_t t_q, int64_t o_q, void *ud)
{
    adj_ctx *a = ud;
    char date[11];
    gpi_date_format(src_day, date);
    fprintf(a->f, "%s{\"date\":\"%s\",\"trades_raw\":", a->n++ ? "," : "", date);
    idx_put_fixed(a->f, t_q * 25, 8, 1); /* quarter-micro -> 1e-8 */
    fputs(",\"offers_raw\":", a->f);
    idx_put_fixed(a->f, o_q * 25, 8, 1);
    fputc('}', a->f);
    return 0;
}

/* JSON members of a row without braces and without the vintage. */
static gpi_status row_json(store *st, FILE *f, const store_index_row *r, gpi_diag *d)
{
    char date[11];
    gpi_date_format(r->day, date);
    fprintf(f, "\"date\":\"%s\",\"grade\":\"%s\",\"value\":", date, r->grade);
    idx_put_fixed(f, r->level == GPI_LEVEL_SUSPENDED ? -1 : r->value_e4, 4, 1);
    fprintf(f, ",\"level\":\"%s\",\"n_obs\":%ld,\"n_excluded\":%ld,\"n_providers\":%ld,",
            gpi_level_name(r->level), r->n_obs, r->n_excluded, r->n_providers);
    fputs("\"trade_volume_gpu_hours\":", f);
    idx_put_fixed(f, r->trade_volume_e2, 2, 1);
    fputs(",\"adjustment\":", f);
    idx_put_fixed(f, r->adjustment_e6, 6, 1);
    static const char *const names[7] = {"p10", "p25", "p50", "p75", "p90", "min", "max"};
    const int64_t sp[7] = {r->p10_micro, r->p25_micro, r->p50_micro, r->p75_micro,
                           r->p90_micro, r->min_micro, r->max_micro};
    for (int i = 0; i < 7; i++) {
        fprintf(f, ",\"%s\":", names[i]);
        idx_put_fixed(f, sp[i], 6, 1);
    }
    fputs(",\"top_provider_share\":", f);
    idx_put_fixed(f, r->top_share_e6, 6, 1);
    fprintf(f, ",\"methodology\":\"%s\",\"trades_raw\":", r->methodology);
    idx_put_fixed(f, r->trades_raw_q > 0 ? r->trades_raw_q * 25 : -1, 8, 1);
    fputs(",\"offers_raw\":", f);
    idx_put_fixed(f, r->offers_raw_q > 0 ? r->offers_raw_q * 25 : -1, 8, 1);
    fprintf(f, ",\"carry_days\":%d,\"grade_version\":%d,\"grade_hash\":\"%s\","
               "\"adjustment_days\":[",
            r->carry_days, r->grade_version, r->grade_hash);
    adj_ctx a = {f, 0};
    gpi_status rc = GPI_OK;
    int adj_level = is_v2(r) ? r->xs_level : r->level;
    if (adj_level == GPI_LEVEL_OFFERS)
        rc = store_index_adj_days(st, r->grade, r->day, adj_json, &a, d);
    fputc(']', f);
    return rc;
}

static void json_day(FILE *f, const char *key, int32_t day)
{
    char date[11];
    if (day == INT32_MIN) {
        fprintf(f, ",\"%s\":null", key);
        return;
    }
    gpi_date_format(day, date);
    fprintf(f, ",\"%s\":\"%s\"", key, date);
}

static void row_json_tail(FILE *f, const store_index_row *r)
{
    fputs(",\"note\":", f);
    if (r->note[0]) {
        /* notes are plain ASCII words and numbers: no escaping needed but
         * quotes and backslashes, which they never hold */
        fputc('"', f);
        for (const char *p = r->note; *p; p++) {
            if (*p == '"' || *p == '\\') fputc('\\', f);
            fputc(*p, f);
        }
        fputc('"', f);
    } else {
        fputs("null", f);
    }
    if (is_v3(r)) {
        fprintf(f, ",\"panel_change\":%s", r->panel_change ? "true" : "false");
        return;
    }
    if (!is_v2(r)) return;
    fputs(",\"xs_value\":", f);
    idx_put_fixed(f, r->xs_value_e4, 4, 1);
    fprintf(f, ",\"xs_level\":\"%s\",\"chain_raw\":", gpi_level_name(r->xs_level));
    idx_put_fixed(f, r->chain_nano, 9, 1);
    fputs(",\"relative\":", f);
    idx_put_fixed(f, r->relative_e12, 12, 1);
    fprintf(f, ",\"n_matched\":%ld,\"n_matched_providers\":%ld,\"panel_change\":%s,",
            r->n_matched, r->n_matched_providers, r->panel_change ? "true" : "false");
    if (r->event)
        fprintf(f, "\"event\":\"%s\"", idx_event_name(r->event));
    else
        fputs("\"event\":null", f);
    fputs(",\"splice\":", f);
    idx_put_fixed(f, r->splice_e12, 12, 1);
    json_day(f, "reference_date", r->ref_day);
    json_day(f, "panel_date", r->panel_day);
    /* the matched statistic (quarter units of 1e-12 -> 14 decimals) */
    fputs(",\"matched_statistic\":", f);
    if (r->matched_now_q >= 0 && r->matched_ref_q >= 0) {
        fputs("{\"now\":", f);
        idx_put_fixed(f, r->matched_now_q * 25, 14, 1);
        fputs(",\"ref\":", f);
        idx_put_fixed(f, r->matched_ref_q * 25, 14, 1);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\"carried_trades\":%s", r->carried ? r->carried : "[]");
    static const char *const names[7] = {"p10", "p25", "p50", "p75", "p90", "min", "max"};
    fputs(",\"observation_spread\":{", f);
    for (int i = 0; i < 7; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", names[i]);
        idx_put_fixed(f, r->obs_spread[i], 6, 1);
    }
    fputc('}', f);
}

void pub_json_text(FILE *f, const char *key, const char *v)
{
    fprintf(f, ",\"%s\":", key);
    if (!v || !*v) {
        fputs("null", f);
        return;
    }
    json_t *js = json_string(v);
    char *t = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "null", f);
    free(t);
    json_decref(js);
}

static void row_json_tail3(FILE *f, const store_index_row *r)
{
    fputs(",\"loo_move\":", f);
    idx_put_fixed(f, r->loo_move_e4, 4, 1);
    pub_json_text(f, "loo_provider", r->loo_provider);
    fprintf(f, ",\"loo_voids\":%ld", r->loo_voids);
    static const char *const names[2][2] = {{"cost_tick_gpu_hours", "cost_1pct_gpu_hours"},
                                            {"cost_tick_offers", "cost_1pct_offers"}};
    for (int k = 0; k < 2; k++) {
        fprintf(f, ",\"%s\":", names[0][k]);
        idx_put_fixed(f, r->cost_e2[k], 2, 1);
    }
    for (int k = 0; k < 2; k++)
        if (r->cost_offers[k] >= 0)
            fprintf(f, ",\"%s\":%ld", names[1][k], r->cost_offers[k]);
        else
            fprintf(f, ",\"%s\":null", names[1][k]);
    if (is_v3(r)) {
        fputs(",\"price_index\":", f);
        idx_put_fixed(f, r->price_index_e6, 6, 1);
        fputs(",\"index_change\":", f);
        idx_put_fixed(f, r->index_change_e12, 12, 1);
        fputs(",\"composition_gap\":", f);
        put_signed(f, r->gap_e6, 6, 1);
        fputs(",\"composition_gap_month\":", f);
        put_signed(f, r->gap_month_e6, 6, 1);
        fprintf(f, ",\"panel_size\":%ld,\"n_imputed\":%ld,\"n_candidates\":%ld,"
                   "\"index_providers\":%ld,\"v3\":%s",
                r->panel_size, r->n_imputed, r->n_candidates, r->index_providers,
                r->v3_json ? r->v3_json : "null");
        return;
    }
    if (!is_v2(r)) return;
    fputs(",\"chain_prev\":", f);
    idx_put_fixed(f, r->chain_prev_nano, 9, 1);
    fprintf(f, ",\"carry_prev\":%d,\"xs_carry_days\":%d", r->carry_prev, r->xs_carry);
    fprintf(f, ",\"ref_volumes\":%s", r->ref_volumes ? r->ref_volumes : "{}");
    fprintf(f, ",\"anchor_window\":%s", r->anchor_window ? r->anchor_window : "null");
}

/* ---- the row's text and the index.csv line -------------------------------- */

gpi_status pub_row_text(store *st, const store_index_row *r, char **csv, char **tail,
                        char **json, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    size_t n;
    *csv = *tail = NULL;
    FILE *f = open_memstream(csv, &n);
    if (f) {
        row_csv(f, r);
        fclose(f);
    }
    f = open_memstream(tail, &n);
    if (f) {
        row_csv_tail(f, r);
        row_csv_tail3(f, r);
        row_csv_tail4(f, r);
        fclose(f);
    }
    if (json) {
        *json = NULL;
        f = open_memstream(json, &n);
        if (f) {
            rc = row_json(st, f, r, d);
            row_json_tail(f, r);
            row_json_tail3(f, r);
            fclose(f);
        }
    }
    if (!*csv || !*tail || (json && !*json)) {
        free(*csv);
        free(*tail);
        *csv = *tail = NULL;
        if (json) {
            free(*json);
            *json = NULL;
        }
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    return rc;
}

/* Top-level fields of a row's CSV tail (the columns after the vintage):
 * 0 for none, 9 for format 2's, 14 for format 3's, 22 for format 4's. */
static int tail_fields(const char *t)
{
    int n = 0, q = 0;
    for (; *t; t++) {
        if (*t == '"') q = !q;
        else if (*t == ',' && !q) n++;
    }
    return n;
}

void pub_csv_header(FILE *f, int format)
{
    pub_columns_header(f, &pub_index_csv, format);
}

/* The columns of index.csv up to and including `vintage` (a line's head
 * and the vintage): the rest of format's columns are the tail's. */
enum { HEAD_COLS = 19 };

void pub_csv_line(FILE *f, const char *head, int vintage, const char *tail, int format)
{
    pub_csv_line_extra(f, head, vintage, tail, format, NULL);
}

/* Where the (n + 1)-th field of a tail starts (its leading comma, outside
 * quotes), or the tail's end. */
static const char *tail_after(const char *t, int n)
{
    int k = 0, q = 0;
    for (; *t; t++) {
        if (*t == '"') q = !q;
        else if (*t == ',' && !q && k++ == n) return t;
    }
    return t;
}

void pub_csv_line_extra(FILE *f, const char *head, int vintage, const char *tail, int format,
                        const char *extra)
{
    /* a row published in an earlier format and carried into a later
     * vintage lacks the later columns: empty ones */
    int have = tail_fields(tail);
    fputs(head, f);
    if (vintage > 0) fprintf(f, "%d", vintage);
    if (format < 4) {
        int want = (int)pub_columns_n(&pub_index_csv, format) - HEAD_COLS;
        if (format >= 2) fputs(tail, f);
        for (int k = have; k < want; k++) fputc(',', f);
        fputc('\n', f);
        return;
    }
    /* file format 4: the stored tail's format 3 fields, the columns
     * publication computes (extra, or empty ones), then the stored tail's
     * v3 fields */
    int want3 = (int)pub_columns_n(&pub_index_csv, 3) - HEAD_COLS;
    int want = (int)pub_columns_n(&pub_index_csv, format) - HEAD_COLS - PUB4_PUBLICATION_COLS;
    const char *rest = tail_after(tail, want3);
    fwrite(tail, 1, (size_t)(rest - tail), f);
    for (int k = have; k < want3; k++) fputc(',', f);
    if (extra)
        fputs(extra, f);
    else
        for (int k = 0; k < PUB4_PUBLICATION_COLS; k++) fputc(',', f);
    fputs(rest, f);
    for (int k = have > want3 ? have : want3; k < want; k++) fputc(',', f);
    fputc('\n', f);
}

/* ---- show ------------------------------------------------------------------ */

void pub_csv_write_header(FILE *f)
{
    pub_csv_header(f, PUB_FORMAT_ROWS);
}

gpi_status pub_csv_write_row(FILE *f, const store_index_row *r, gpi_diag *d)
{
    /* pub_csv_line of pub_row_text's pieces, written straight to f: a
     * current row's tail has every column, so nothing is padded (two
     * memory streams a row were a third of the site's time on a year) */
    (void)d;
    row_csv(f, r);
    if (r->vintage > 0) fprintf(f, "%d", r->vintage);
    row_csv_tail(f, r);
    row_csv_tail3(f, r);
    fputs(",,,,", f); /* ci_low ... stale_share: publication's (commit.c) */
    row_csv_tail4(f, r);
    fputc('\n', f);
    return GPI_OK;
}

typedef struct show_ctx {
    FILE *out;
    gpi_status rc;
    gpi_diag *d;
} show_ctx;

static int show_row(const store_index_row *r, void *ud)
{
    show_ctx *c = ud;
    c->rc = pub_csv_write_row(c->out, r, c->d);
    return c->rc != GPI_OK;
}

gpi_status pub_show(store *st, const char *grade, int32_t from, int32_t to, FILE *out,
                    gpi_diag *d)
{
    pub_csv_write_header(out);
    show_ctx c = {out, GPI_OK, d};
    gpi_status rc = store_index_rows(st, grade, from, to, show_row, &c, d);
    return rc == GPI_OK ? c.rc : rc;
}
