/* site/fsp.c -- on the site, per contract month of a methodology v3
 * grade, what one participant can do to the month's final settlement
 * price (METHODOLOGY.md §11.4): the figures the build stored with each
 * row (index.json's v3.manipulation), as of the month's last day built.
 *
 * NOTES ON THE DESIGN
 * (1) The rows the site reads hand out their v3 text only during the
 *     store's callback, so the figures are taken from it there
 *     (site_fsp_take): the "manipulation" member alone is parsed
 *     (jansson), into numbers; nothing else of the text is kept.
 * (2) A month is shown from its last row: the figures are the month's
 *     through that day (the whole month once its last day is built).
 *     The last 12 months of a grade are shown, newest first.
 */
#include "site/internal.h"
#include "store/index_values.h"
#include "core/vec.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* n decimals of a JSON number (or null: -1) as an integer, rounded. */
static int64_t fixed_of(const json_t *v, int digits)
{
    if (!json_is_number(v)) return -1;
    double x = json_number_value(v), s = 1;
    for (int i = 0; i < digits; i++) s *= 10;
    return (int64_t)(x * s + 0.5);
}

int site_fsp_take(site_fsp *x, const store_index_row *r)
{
    if (!r->v3_json || strcmp(r->methodology, "v3") != 0) return 0;
    const char *p = strstr(r->v3_json, "\"manipulation\":");
    if (!p) return 0;
    p += strlen("\"manipulation\":");
    json_error_t e;
    json_t *j = json_loadb(p, strlen(p), JSON_DISABLE_EOF_CHECK, &e);
    if (!j) return 0; /* not there: a row built before the figures */
    if (GPI_VEC_RESERVE(x->v, x->cap, x->n + 1)) {
        json_decref(j);
        return -1;
    }
    site_fsp_row *o = &x->v[x->n++];
    memset(o, 0, sizeof *o);
    snprintf(o->grade, sizeof o->grade, "%s", r->grade);
    o->day = r->day;
    o->days[0] = (long)json_integer_value(json_object_get(j, "days"));
    o->days[1] = (long)json_integer_value(json_object_get(j, "business_days"));
    for (int c = 0; c < 2; c++) {
        const json_t *f = json_object_get(j, c ? "fsp_move_business" : "fsp_move");
        for (int k = 0; k < IDX_REACH_KINDS; k++)
            o->fig[k][c] = fixed_of(json_object_get(f, idx_reach_kind_name(k)), 6);
    }
    json_decref(j);
    return 0;
}

void site_fsp_free(site_fsp *x)
{
    free(x->v);
    memset(x, 0, sizeof *x);
}

static int same_month(int32_t a, int32_t b)
{
    int y1, m1, d1, y2, m2, d2;
    gpi_civil_from_days(a, &y1, &m1, &d1);
    gpi_civil_from_days(b, &y2, &m2, &d2);
    return y1 == y2 && m1 == m2;
}

/* The month's FSP so far (the mean of its values through day), e4 half-up;
 * -1 none. */
static int64_t month_mean(const store_index_row *r, size_t n, int32_t day, long *days)
{
    __int128 sum = 0;
    long k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].day <= day && same_month(r[i].day, day) && r[i].value_e4 >= 0 &&
            r[i].level != GPI_LEVEL_SUSPENDED)
            sum += r[i].value_e4, k++;
    *days = k;
    return k ? (int64_t)((2 * sum + k) / (2 * k)) : -1;
}

void site_fsp_section(FILE *f, const site_fsp *x, const store_index_row *r, size_t n)
{
    if (n == 0) return;
    const char *grade = r[0].grade;
    /* the last row of each month, newest first, up to 12 */
    const site_fsp_row *m[12];
    size_t nm = 0;
    for (size_t i = x->n; i-- > 0 && nm < 12;) {
        const site_fsp_row *o = &x->v[i];
        if (strcmp(o->grade, grade) != 0) continue;
        if (nm > 0 && same_month(m[nm - 1]->day, o->day)) continue;
        if (nm > 0 && o->day > m[nm - 1]->day) continue;
        m[nm++] = o;
    }
    size_t shown = 0;
    for (size_t i = 0; i < nm; i++) shown += m[i]->fig[0][0] >= 0;
    if (shown == 0) return;
    fputs("<p class=\"meta\">What one participant can do to each month's final settlement "
          "price (the mean of the month's values; METHODOLOGY.md &#167;11.4), USD per "
          "GPU-hour, the largest move: withdrawing for 1 to absence_days + 1 days, printing "
          "an extreme price every day, or listing as a new participant for 1 to "
          "admission_days + 1 days; calendar days (business days, Monday to Friday, in "
          "brackets).  A contract rounding to a tick moves by at most the figure rounded up "
          "to the tick.</p>\n<table><tr><th>month</th><th>through</th><th>FSP so far</th>"
          "<th>days</th><th>withdrawing</th><th>printing</th><th>new participant</th></tr>\n",
          f);
    char a[11], num[32], b[32];
    for (size_t i = 0; i < nm; i++) {
        const site_fsp_row *o = m[i];
        if (o->fig[0][0] < 0) continue;
        long days;
        int64_t mean = month_mean(r, n, o->day, &days);
        gpi_date_format(o->day, a);
        fprintf(f, "<tr><td>%.7s</td><td>%s</td><td>%s</td><td>%ld</td>", a, a,
                mean >= 0 ? gpi_fixed_format(mean, 4, num) : "-", o->days[0]);
        for (int k = 0; k < IDX_REACH_KINDS; k++) {
            fprintf(f, "<td>%s", gpi_fixed_format(o->fig[k][0], 6, num));
            if (o->fig[k][1] >= 0) fprintf(f, " (%s)", gpi_fixed_format(o->fig[k][1], 6, b));
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}
