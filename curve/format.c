/* curve/format.c -- a computed curve as published text (curve.csv and
 * curve.json, file format 4; METHODOLOGY.md "Term curve").
 *
 * curve.csv: one line per grade and tenor 1..36,
 *     date,grade,tenor,term_rate,forward,status,reason
 * term_rate and forward with 4 decimals (empty when withheld), status
 * fitted, interpolated or withheld, reason empty unless withheld.
 * curve.json: per grade its front (the fix), the fit and its base's
 * growth a year, every input as an array under "columns" (kind, provider,
 * group, source, key, observed_at, term_months, starts_on, price,
 * quantity, reference, reference_of, ratio, restated, point, role,
 * reason; key: the identity hash of observations.csv without its top bit),
 * every futures price likewise (symbol, first_day, last_day,
 * price, reference, ratio, restated, point, role, reason), every point
 * (interval, groups, value, tolerance, fitted, residual, bound, role,
 * reason) and the 36 tenors.  Inputs are arrays, not objects: there are
 * about as many as observations.csv has lines.  Numbers are
 * JSON numbers with their published decimals (the exact decimal text a
 * verifier reads), prices 6 decimals, references 8 (quarter-micro), ratios
 * 12, interval ends 6, weights 6.
 */
#include "curve/format.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static void put_fixed(FILE *f, int64_t v, int digits)
{
    char b[32];
    if (v < 0 && digits >= 0) {
        fputs("null", f);
        return;
    }
    fputs(gpi_fixed_format(v, digits, b), f);
}

static void put_signed(FILE *f, int64_t v, int digits)
{
    char b[32];
    fprintf(f, "%s%s", v < 0 ? "-" : "", gpi_fixed_format(v < 0 ? -v : v, digits, b));
}

static void put_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    json_t *js = json_string(s);
    char *t = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "null", f);
    free(t);
    json_decref(js);
}

static void put_date(FILE *f, int32_t day)
{
    char b[11];
    gpi_date_format(day, b);
    fprintf(f, "\"%s\"", b);
}

void curve_csv_header(FILE *f)
{
    fputs("date,grade,tenor,term_rate,forward,status,reason\n", f);
}

void curve_csv_rows(FILE *f, int32_t day, const char *grade, const curve_result *r)
{
    char date[11], b[32];
    gpi_date_format(day, date);
    for (int k = 0; k < CURVE_TENORS; k++) {
        const curve_tenor *t = &r->t[k];
        fprintf(f, "%s,", date);
        gpi_csv_field(f, grade);
        fprintf(f, ",%d,", k + 1);
        if (t->term_e4 >= 0) fputs(gpi_fixed_format(t->term_e4, 4, b), f);
        fputc(',', f);
        if (t->fwd_e4 >= 0) fputs(gpi_fixed_format(t->fwd_e4, 4, b), f);
        fprintf(f, ",%s,", curve_status_name(t->status));
        gpi_csv_field(f, t->status == CURVE_WITHHELD ? t->reason : "");
        fputc('\n', f);
    }
}

void curve_json_params(FILE *f, const curve_params *p)
{
    fputs("{\"tolerance\":[", f);
    for (int i = 0; i < 4; i++) {
        if (i) fputc(',', f);
        put_fixed(f, p->tolerance_e6[i], 6);
    }
    fprintf(f, "],\"min_points\":%d,\"convexity\":", p->min_points);
    put_fixed(f, p->convexity_e6, 6);
    fprintf(f, ",\"convexity_from\":%d,\"max_gap_factor\":%d,\"max_gap_months\":%d,\"month_days\":30.4375}",
            p->convexity_from, p->max_gap_factor, p->max_gap_months);
}

/* The columns of a grade's "inputs" (quotes) and "futures" arrays. */
const char *const curve_input_cols[CURVE_INPUT_COLS] = {
    "kind",     "provider", "group",     "source",       "key",   "observed_at",
    "term_months", "starts_on", "price", "quantity", "reference", "reference_of",
    "ratio",    "restated", "point",     "role",         "reason"};
const char *const curve_futures_cols[CURVE_FUTURES_COLS] = {
    "symbol", "first_day", "last_day", "price", "reference", "ratio", "restated",
    "point",  "role",      "reason"};

static void put_tail(FILE *f, const curve_quote *q)
{
    fputc(',', f);
    put_fixed(f, q->ratio_e12, 12);
    fputc(',', f);
    put_fixed(f, q->restated_micro, 6);
    fputc(',', f);
    if (q->point >= 0 && q->role == CURVE_USED)
        fprintf(f, "%d", q->point + 1);
    else
        fputs("null", f);
    fprintf(f, ",\"%s\",", q->role == CURVE_USED ? "used" : "excluded");
    put_str(f, q->role == CURVE_USED ? NULL : q->reason);
    fputc(']', f);
}

static void json_quote(FILE *f, const curve_quote *q)
{
    char tb[21];
    fprintf(f, "[\"%s\",", curve_kind_name(q->kind));
    put_str(f, q->provider);
    fputc(',', f);
    put_str(f, q->group);
    fputc(',', f);
    put_str(f, q->source);
    gpi_time_format(q->observed_at, tb);
    fprintf(f, ",\"%016llx\",\"%s\",%d,", (unsigned long long)q->key, tb, q->term_months);
    if (q->starts_on)
        put_date(f, q->starts_on);
    else
        fputs("null", f);
    fputc(',', f);
    put_fixed(f, q->price_micro, 6);
    fputc(',', f);
    put_fixed(f, q->quantity_micro, 6);
    fputc(',', f);
    put_fixed(f, q->ref_q >= 0 ? q->ref_q * 25 : -1, 8); /* quarter-micro -> 1e-8 */
    fprintf(f, ",%s", q->ref_q < 0 ? "null" : q->ref_twin ? "\"listing\"" : "\"group\"");
    put_tail(f, q);
}

static void json_future(FILE *f, const curve_quote *q)
{
    fputc('[', f);
    put_str(f, q->symbol);
    fputc(',', f);
    put_date(f, q->first_day);
    fputc(',', f);
    put_date(f, q->last_day);
    fputc(',', f);
    put_fixed(f, q->price_micro, 6);
    fputc(',', f);
    put_fixed(f, q->ref_q, 4); /* the fix */
    put_tail(f, q);
}

static void json_cols(FILE *f, const char *const *cols, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s\"%s\"", i ? "," : "", cols[i]);
    fputc(']', f);
}

static void json_point(FILE *f, size_t k, const curve_point *pt)
{
    fprintf(f, "{\"point\":%zu,\"kind\":\"%s\",\"start_days\":%d,", k + 1,
            pt->futures ? "futures" : "term", pt->start_days);
    if (pt->futures)
        fprintf(f, "\"term_months\":null,\"end_days\":%d", pt->end_days);
    else
        fprintf(f, "\"term_months\":%d,\"end_days\":null", pt->term_months);
    fputs(",\"start\":", f);
    put_fixed(f, gpi_double_to_units(pt->a, 6), 6);
    fputs(",\"end\":", f);
    put_fixed(f, gpi_double_to_units(pt->b, 6), 6);
    fprintf(f, ",\"groups\":%d,\"value\":", pt->groups);
    put_fixed(f, pt->value_micro, 6);
    fputs(",\"tolerance\":", f);
    put_fixed(f, pt->tol_micro, 6);
    fputs(",\"fitted\":", f);
    put_fixed(f, pt->fitted_micro, 6);
    fputs(",\"residual\":", f);
    if (pt->fitted_micro >= 0)
        put_signed(f, pt->residual_micro, 6);
    else
        fputs("null", f);
    fprintf(f, ",\"bound\":%s,\"role\":\"%s\",\"reason\":",
            pt->active > 0 ? "\"upper\"" : pt->active < 0 ? "\"lower\"" : "null",
            pt->role == CURVE_USED ? "used" : "excluded");
    put_str(f, pt->role == CURVE_USED ? NULL : pt->reason);
    fputc('}', f);
}

void curve_json_grade(FILE *f, const char *grade, int64_t error_factor_e6, const curve_result *r,
                      const curve_quote *q, size_t nq, const char *why)
{
    fputs("{\"grade\":", f);
    put_str(f, grade);
    fputs(",\"front\":", f);
    put_fixed(f, r->front_e4, 4);
    fputs(",\"error_factor\":", f);
    put_fixed(f, error_factor_e6, 6);
    fprintf(f, ",\"fit\":\"%s\",\"note\":", curve_fit_name(r->fit));
    put_str(f, why ? why : r->note[0] ? r->note : NULL);
    fprintf(f, ",\"growth\":");
    put_signed(f, gpi_double_to_units(r->growth * 12, 6), 6);
    fputs(",\"inputs\":{\"columns\":", f);
    json_cols(f, curve_input_cols, CURVE_INPUT_COLS);
    fputs(",\"rows\":[", f);
    int any = 0;
    for (size_t i = 0; i < nq; i++) {
        if (q[i].kind == CURVE_FUTURES) continue;
        fputs(any++ ? ",\n" : "\n", f);
        json_quote(f, &q[i]);
    }
    fputs("]},\"futures\":{\"columns\":", f);
    json_cols(f, curve_futures_cols, CURVE_FUTURES_COLS);
    fputs(",\"rows\":[", f);
    any = 0;
    for (size_t i = 0; i < nq; i++) {
        if (q[i].kind != CURVE_FUTURES) continue;
        fputs(any++ ? ",\n" : "\n", f);
        json_future(f, &q[i]);
    }
    fputs("]},\"points\":[", f);
    for (size_t k = 0; k < r->n_pt; k++) {
        fputs(k ? ",\n" : "\n", f);
        json_point(f, k, &r->pt[k]);
    }
    fputs("],\"tenors\":[", f);
    for (int k = 0; k < CURVE_TENORS; k++) {
        const curve_tenor *t = &r->t[k];
        fprintf(f, "%s{\"tenor\":%d,\"term_rate\":", k ? ",\n" : "\n", k + 1);
        put_fixed(f, t->term_e4, 4);
        fputs(",\"forward\":", f);
        put_fixed(f, t->fwd_e4, 4);
        fprintf(f, ",\"status\":\"%s\",\"reason\":", curve_status_name(t->status));
        put_str(f, t->status == CURVE_WITHHELD ? t->reason : NULL);
        fputc('}', f);
    }
    fputs("]}", f);
}
