/* index/format.c -- the published row formats (SPEC §13) and `index show`.
 *
 * One formatter for the CSV line and one for the JSON object of a row, both
 * with the fixed decimals of §13 (value 4; p10..max, adjustment and
 * top_provider_share 6; trade volume 2), empty CSV fields / JSON null for
 * no value.  Numbers are printed from fixed-point integers, never from
 * doubles.
 */
#include "index/internal.h"

#include <stdio.h>
#include <string.h>

const char idx_csv_header[] =
    "date,grade,value,level,n_obs,n_excluded,n_providers,trade_volume_gpu_hours,adjustment,"
    "p10,p25,p50,p75,p90,min,max,top_provider_share,methodology,vintage\n";

/* ---- formatting ------------------------------------------------------------ */

void idx_put_fixed(FILE *f, int64_t v, int digits, int json)
{
    char b[32];
    if (v < 0)
        fputs(json ? "null" : "", f);
    else
        fputs(gpi_fixed_format(v, digits, b), f);
}

/* CSV line without the vintage column (ends with the methodology and a
 * comma). */
void idx_row_csv(FILE *f, const store_index_row *r)
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
gpi_status idx_row_json(store *st, FILE *f, const store_index_row *r, gpi_diag *d)
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
    if (r->level == GPI_LEVEL_OFFERS) rc = store_index_adj_days(st, r->grade, r->day, adj_json, &a, d);
    fputc(']', f);
    return rc;
}

/* ---- show ------------------------------------------------------------------ */

typedef struct show_ctx {
    FILE *out;
} show_ctx;

static int show_row(const store_index_row *r, void *ud)
{
    show_ctx *c = ud;
    idx_row_csv(c->out, r);
    if (r->vintage > 0) fprintf(c->out, "%d", r->vintage);
    fputc('\n', c->out);
    return 0;
}

gpi_status idx_show(store *st, const char *grade, int32_t from, int32_t to, FILE *out,
                    gpi_diag *d)
{
    fputs(idx_csv_header, out);
    show_ctx c = {out};
    return store_index_rows(st, grade, from, to, show_row, &c, d);
}
