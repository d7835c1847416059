/* site/accuracy.c -- the accuracy section of statement.html.
 *
 * Reads the figures bench/accuracy writes (WORK/accuracy.csv: one row per
 * grade, method, variant and market; columns found by name, see
 * bench/accuracy.py) and writes them as a table: each grade's error
 * against the demo market's true price as shipped, and the planted
 * pusher's effect against the grade lab's leave-one-provider-out move.
 * The figures are statistics (doubles), shown as the file gives them to
 * two or four decimals; a grade with days 0 (no day with both a value and
 * a true price) is shown as "no data".  The file goes through core's CSV
 * reader (quoted fields as bench/accuracy.py's csv module writes them).
 * Bad input fails with "path:line: field: reason (got "...")"; nothing is
 * guessed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv_reader.h"
#include "site/internal.h"
#include "core/vec.h"

enum { C_GRADE, C_METHOD, C_VARIANT, C_MARKET, C_DAYS, C_MAE_USD, C_MAE_PCT, C_BIAS_PCT,
       C_CHG_PCT, C_MONTH_MEAN, C_MONTH_MAX, C_PUSH, C_PUSH_DAY, C_LOO, C__N };

static const char *const col_names[C__N] = {
    "grade",       "method",         "variant",       "market",         "days",
    "mae_usd",     "mae_pct",        "bias_pct",      "chg_mae_pct",    "month_mean_pct",
    "month_max_pct", "push_effect_usd", "push_effect_day", "loo_max_usd"};

typedef struct acc_row {
    char grade[65], method[8], variant[32], market[16], push_day[11];
    double f[C__N];             /* numeric columns; NAN when empty */
} acc_row;

struct site_accuracy {
    acc_row *v;
    size_t n;
};

void site_accuracy_free(site_accuracy *a)
{
    if (!a) return;
    free(a->v);
    free(a);
}

static gpi_status bad(gpi_diag *d, const char *path, long line, const char *field,
                      const char *why, const char *got)
{
    return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%.40s\")", path, line, field, why,
                        got);
}

static gpi_status text_field(char *dst, size_t cap, const char *s, const char *path, long line,
                             const char *field, gpi_diag *d)
{
    if (!*s || strlen(s) >= cap) return bad(d, path, line, field, "empty or too long", s);
    memcpy(dst, s, strlen(s) + 1);
    return GPI_OK;
}

typedef struct load_ctx {
    const char *path;
    site_accuracy *a;
    size_t cap;
    int idx[C__N];          /* column of each name, from the header */
    int header_done;
} load_ctx;

static gpi_status header(load_ctx *c, const gpi_csv_rec *r, gpi_diag *d)
{
    for (int k = 0; k < C__N; k++) {
        c->idx[k] = -1;
        for (int i = 0; i < r->n; i++)
            if (strcmp(r->f[i], col_names[k]) == 0) c->idx[k] = i;
        if (c->idx[k] < 0)
            return bad(d, c->path, r->line, col_names[k], "column missing from the header", "");
    }
    c->header_done = 1;
    return GPI_OK;
}

static gpi_status field(acc_row *row, int k, const char *s, const char *path, long line,
                        gpi_diag *d)
{
    const char *name = col_names[k];
    row->f[k] = NAN;
    if (k == C_GRADE) return text_field(row->grade, sizeof row->grade, s, path, line, name, d);
    if (k == C_METHOD) return text_field(row->method, sizeof row->method, s, path, line, name, d);
    if (k == C_VARIANT)
        return text_field(row->variant, sizeof row->variant, s, path, line, name, d);
    if (k == C_MARKET) return text_field(row->market, sizeof row->market, s, path, line, name, d);
    if (k == C_PUSH_DAY) {
        snprintf(row->push_day, sizeof row->push_day, "%s", s);
        return GPI_OK;
    }
    if (!*s) return GPI_OK;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v)) return bad(d, path, line, name, "not a number", s);
    row->f[k] = v;
    return GPI_OK;
}

static gpi_status on_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    load_ctx *c = ud;
    if (!c->header_done) return header(c, r, d);
    site_accuracy *a = c->a;
    if (GPI_VEC_RESERVE(a->v, c->cap, a->n + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    acc_row *row = &a->v[a->n];
    memset(row, 0, sizeof *row);
    for (int k = 0; k < C__N; k++) {
        if (c->idx[k] >= r->n) return bad(d, c->path, r->line, col_names[k], "missing field", "");
        gpi_status rc = field(row, k, r->f[c->idx[k]], c->path, r->line, d);
        if (rc != GPI_OK) return rc;
    }
    a->n++;
    return GPI_OK;
}

gpi_status site_accuracy_load(const char *path, site_accuracy **out, gpi_diag *d)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: %s", path, strerror(errno));
    load_ctx c = {path, calloc(1, sizeof *c.a), 0, {0}, 0};
    gpi_status rc = c.a ? gpi_text_check(f, path, d) /* UTF-16 and UTF-32 */
                        : gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    if (rc == GPI_OK) rc = gpi_csv_read_stream(f, path, 0, on_rec, &c, d);
    if (rc == GPI_OK && !c.header_done) rc = bad(d, path, 1, "header", "empty file", "");
    fclose(f);
    if (rc != GPI_OK) {
        site_accuracy_free(c.a);
        return rc;
    }
    *out = c.a;
    return GPI_OK;
}

static const acc_row *find(const site_accuracy *a, const char *grade, const char *method,
                           const char *variant, const char *market)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].grade, grade) == 0 && strcmp(a->v[i].method, method) == 0 &&
            strcmp(a->v[i].variant, variant) == 0 && strcmp(a->v[i].market, market) == 0)
            return &a->v[i];
    return NULL;
}

static void num(FILE *f, const acc_row *r, int k, int dec)
{
    if (!r || isnan(r->f[k])) fputs("<td>&#8212;</td>", f);
    else fprintf(f, "<td>%.*f</td>", dec, r->f[k]);
}

void site_accuracy_section(FILE *f, const site_accuracy *a)
{
    /* the published method: the one other than v1 (bench/accuracy's
     * method.txt), or v1 itself when the grades are v1 */
    const char *m = "v1";
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].method, "v1") != 0) m = a->v[i].method;
    fprintf(f,
            "<h3 id=\"accuracy\">Accuracy against a known true price</h3>\n"
            "<p>On the demo market the simulator knows each grade's true price: the "
            "volume-weighted median of its model's noise-free transaction prices in the grade "
            "(<code>gpuidx simulate --truth</code>; <code>bench/accuracy</code>, "
            "BENCHMARKS.md). Mean absolute error of the value (%s, published) and of the "
            "cross-section (v1) against it, the mean of the daily-change errors, the error of "
            "the monthly mean a future settles on (mean / largest over the full months), and "
            "the largest move of the value caused by the planted pusher (a provider printing "
            "large trades 50 %% over its list for two weeks) against the grade lab's largest "
            "leave-one-provider-out move.</p>\n"
            "<div class=\"wide\"><table><thead><tr><th>grade</th><th>days</th><th>%s MAE %%</th><th>v1 MAE %%</th>"
            "<th>%s bias %%</th><th>%s change MAE %%</th><th>v1 change MAE %%</th>"
            "<th>%s month error %%</th><th>v1 month error %%</th><th>pusher effect %s $</th>"
            "<th>leave-one-out max %s $</th><th>pusher effect v1 $</th>"
            "<th>v1 without the cap $</th></tr></thead><tbody>\n",
            m, m, m, m, m, m, m);
    for (size_t i = 0; i < a->n; i++) {
        const acc_row *r2 = &a->v[i];
        if (strcmp(r2->method, m) != 0 || strcmp(r2->variant, "as shipped") != 0 ||
            strcmp(r2->market, "pusher on") != 0)
            continue;
        const acc_row *r1 = find(a, r2->grade, "v1", "as shipped", "pusher on");
        const acc_row *nc = find(a, r2->grade, "v1", "no provider cap", "pusher on");
        fputs("<tr><td>", f);
        site_html_esc(f, r2->grade);
        fputs("</td>", f);
        num(f, r2, C_DAYS, 0);
        if (r2->f[C_DAYS] == 0) { /* a GPU the market does not list: never a 0 % error */
            fputs("<td colspan=\"11\">no data (no day with both a value and a true price)</td>"
                  "</tr>\n",
                  f);
            continue;
        }
        num(f, r2, C_MAE_PCT, 2);
        num(f, r1, C_MAE_PCT, 2);
        num(f, r2, C_BIAS_PCT, 2);
        num(f, r2, C_CHG_PCT, 2);
        num(f, r1, C_CHG_PCT, 2);
        if (isnan(r2->f[C_MONTH_MEAN])) fputs("<td>&#8212;</td>", f);
        else fprintf(f, "<td>%.2f / %.2f</td>", r2->f[C_MONTH_MEAN], r2->f[C_MONTH_MAX]);
        if (!r1 || isnan(r1->f[C_MONTH_MEAN])) fputs("<td>&#8212;</td>", f);
        else fprintf(f, "<td>%.2f / %.2f</td>", r1->f[C_MONTH_MEAN], r1->f[C_MONTH_MAX]);
        num(f, r2, C_PUSH, 4);
        num(f, r2, C_LOO, 4);
        num(f, r1, C_PUSH, 4);
        num(f, nc, C_PUSH, 4);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}
