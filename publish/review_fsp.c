/* publish/review_fsp.c -- the review's monthly manipulation figures in the
 * unit that settles money (METHODOLOGY.md §11.4 and §12.4): per contract
 * month of a methodology v3 grade in the review's range, the month's FSP
 * so far and the largest move of it one participant can cause by
 * withdrawing, printing an extreme price or listing as a newcomer, as the
 * month's last row built in the range publishes them (index.json's
 * v3.manipulation), in USD per GPU-hour and as a share of the FSP.
 *
 * NOTES ON THE DESIGN
 * (1) The rows come from the store's callback in day order, from the
 *     first day of the range's first month (review.c reads them from
 *     there, so a month's FSP so far counts its days before the range).
 *     A month keeps the sum and count of its values (not suspended)
 *     and the figures of its latest row that has them; a month whose
 *     last row has none (another method, a row built before the figures)
 *     is listed without figures.
 * (2) The FSP so far is the mean of the month's values, e4 half-up, as
 *     the site's table and a contract's settlement compute it; a share is
 *     the figure over that mean (a double: it is read, not settled).
 * (3) The trend: the largest share of each half of the range (a month
 *     belongs to the half its last row is in).
 */
#include "publish/internal.h"
#include "core/vec.h"
#include "index/v3.h"
#include "store/index_values.h"

#include <stdlib.h>
#include <string.h>

static int month_of(int32_t day)
{
    int y, m, d;
    gpi_civil_from_days(day, &y, &m, &d);
    return y * 12 + (m - 1);
}

int pub_review_fsp_take(pub_review_fsp *x, const store_index_row *r)
{
    int ym = month_of(r->day);
    if (x->n == 0 || x->v[x->n - 1].ym != ym) {
        if (GPI_VEC_RESERVE(x->v, x->cap, x->n + 1)) return -1;
        memset(&x->v[x->n], 0, sizeof x->v[0]);
        x->v[x->n++].ym = ym;
    }
    pub_review_month *o = &x->v[x->n - 1];
    o->last_day = r->day;
    if (r->value_e4 >= 0 && r->level != GPI_LEVEL_SUSPENDED) {
        o->sum_e4 += r->value_e4;
        o->n++;
    }
    o->has = strcmp(r->methodology, "v3") == 0 && idx_reach_pub_read(r->v3_json, &o->fig);
    return 0;
}

void pub_review_fsp_free(pub_review_fsp *x)
{
    free(x->v);
    memset(x, 0, sizeof *x);
}

static int64_t fsp_e4(const pub_review_month *o)
{
    return o->n ? (2 * o->sum_e4 + o->n) / (2 * o->n) : -1;
}

/* The largest of a month's figures (calendar days) as a share of its FSP;
 * -1 none. */
static double worst_share(const pub_review_month *o, int *kind)
{
    int64_t fsp = fsp_e4(o);
    double w = -1;
    for (int k = 0; k < IDX_REACH_KINDS && o->has && fsp > 0; k++) {
        if (o->fig.fig_e6[k][0] < 0) continue;
        double s = (double)o->fig.fig_e6[k][0] / ((double)fsp * 100.0);
        if (s > w) w = s, *kind = k;
    }
    return w;
}

static const char *kind_words(int k)
{
    return k == IDX_REACH_ABSENT ? "withdrawing" : k == IDX_REACH_PRINT ? "printing" : "a newcomer";
}

static void trend(const pub_review_fsp *x, int32_t mid, double w[2], int kind[2], int ym[2])
{
    w[0] = w[1] = -1;
    for (size_t i = 0; i < x->n; i++) {
        int k = 0, h = x->v[i].last_day > mid;
        double s = worst_share(&x->v[i], &k);
        if (s > w[h]) w[h] = s, kind[h] = k, ym[h] = x->v[i].ym;
    }
}

void pub_review_fsp_md(FILE *f, const pub_review_fsp *x, int32_t mid)
{
    size_t shown = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->v[i].has) shown++;
    if (shown == 0) return;
    fputs("\n**What one participant can do to a month's settlement price** (methodology v3, "
          "METHODOLOGY.md §11.4): the largest move of the month's FSP (the mean of its values) "
          "one participant can cause, USD per GPU-hour and as a share of the FSP, by "
          "withdrawing for 1 to K + 1 days, printing an extreme price every day, or listing as "
          "a new participant for 1 to A + 1 days; calendar days, as of the month's last day "
          "built in the range.\n\n| month | through | FSP so far | days | withdrawing | printing "
          "| new participant |\n|---|---|---:|---:|---:|---:|---:|\n",
          f);
    char day[11], a[32], b[32];
    for (size_t i = 0; i < x->n; i++) {
        const pub_review_month *o = &x->v[i];
        int64_t fsp = fsp_e4(o);
        gpi_date_format(o->last_day, day);
        fprintf(f, "| %.7s | %s | %s | %ld |", day, day, fsp >= 0 ? gpi_fixed_format(fsp, 4, a) : "-",
                o->has ? o->fig.days[0] : o->n);
        for (int k = 0; k < IDX_REACH_KINDS; k++) {
            int64_t v = o->has ? o->fig.fig_e6[k][0] : -1;
            if (v < 0) fputs(" - |", f);
            else if (fsp > 0)
                fprintf(f, " %s (%.1f %%) |", gpi_fixed_format(v, 6, a),
                        (double)v / ((double)fsp * 100.0) * 100.0);
            else fprintf(f, " %s |", gpi_fixed_format(v, 6, b));
        }
        fputc('\n', f);
    }
    double w[2];
    int kind[2] = {0, 0}, ym[2] = {0, 0};
    trend(x, mid, w, kind, ym);
    fputs("\nThe largest share", f);
    for (int h = 0; h < 2; h++) {
        fprintf(f, "%s half: ", h ? "; in the second" : " in the first");
        if (w[h] < 0) fputs("no month with figures", f);
        else
            fprintf(f, "%.1f %% (%04d-%02d, %s)", 100.0 * w[h], ym[h] / 12, ym[h] % 12 + 1,
                    kind_words(kind[h]));
    }
    fputs(".\n", f);
}

static json_t *num_or_null(int64_t v, int digits)
{
    if (v < 0) return json_null();
    double s = 1;
    for (int i = 0; i < digits; i++) s *= 10;
    return json_real((double)v / s);
}

json_t *pub_review_fsp_json(const pub_review_fsp *x, int32_t mid)
{
    json_t *o = json_object(), *months = json_array();
    for (size_t i = 0; i < x->n; i++) {
        const pub_review_month *m = &x->v[i];
        json_t *j = json_object();
        char day[11];
        gpi_date_format(m->last_day, day);
        json_object_set_new(j, "month", json_stringn(day, 7));
        json_object_set_new(j, "through", json_string(day));
        json_object_set_new(j, "fsp", num_or_null(fsp_e4(m), 4));
        json_object_set_new(j, "days", json_integer(m->has ? m->fig.days[0] : m->n));
        for (int c = 0; c < 2; c++) {
            json_t *fm = json_object();
            for (int k = 0; k < IDX_REACH_KINDS; k++)
                json_object_set_new(fm, idx_reach_kind_name(k),
                                    num_or_null(m->has ? m->fig.fig_e6[k][c] : -1, 6));
            json_object_set_new(j, c ? "fsp_move_business" : "fsp_move", fm);
        }
        json_array_append_new(months, j);
    }
    double w[2];
    int kind[2] = {0, 0}, ym[2] = {0, 0};
    trend(x, mid, w, kind, ym);
    json_object_set_new(o, "months", months);
    json_object_set_new(o, "largest_share_first_half", w[0] < 0 ? json_null() : json_real(w[0]));
    json_object_set_new(o, "largest_share_second_half", w[1] < 0 ? json_null() : json_real(w[1]));
    return o;
}
