/* verify/check.c -- one row's checker: the first difference of each kind
 * (receipt, recomputation) and the inputs that need days DIR does not
 * have.  Messages name the field: "value: published 1.7468, recomputed
 * 1.7470". */
#include "verify/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void vchk_diff(vchk *c, int receipt, const char *fmt, ...)
{
    if (receipt ? c->n_diff - c->diff_recomputed > 0 : c->diff_recomputed) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(c->differs);
    snprintf(c->differs + n, sizeof c->differs - n, "%s%s", n ? "; " : "", msg);
    c->n_diff++;
    if (!receipt) c->diff_recomputed = 1;
}

int vchk_failed(const vchk *c)
{
    return c->diff_recomputed;
}

static void fmt_num(char out[40], int64_t v, int digits)
{
    if (v < 0)
        snprintf(out, 40, "none");
    else
        gpi_fixed_format(v, digits, out);
}

void vchk_num(vchk *c, const char *field, int64_t published, int64_t recomputed, int digits)
{
    if (published < 0) published = -1;
    if (recomputed < 0) recomputed = -1;
    if (published == recomputed) return;
    char a[40], b[40];
    fmt_num(a, published, digits);
    fmt_num(b, recomputed, digits);
    vchk_diff(c, 0, "%s: published %s, recomputed %s", field, a, b);
}

void vchk_int(vchk *c, const char *field, long published, long recomputed)
{
    if (published != recomputed)
        vchk_diff(c, 0, "%s: published %ld, recomputed %ld", field, published, recomputed);
}

void vchk_text(vchk *c, const char *field, const char *published, const char *recomputed)
{
    if (strcmp(published, recomputed) != 0)
        vchk_diff(c, 0, "%s: published \"%s\", recomputed \"%s\"", field, published, recomputed);
}

void vchk_missing(vchk *c, int32_t day, const char *what)
{
    if (strcmp(what, "anchor") == 0) c->anchor_missing = 1;
    for (int i = 0; i < c->n_missing; i++)
        if (c->missing[i] == day && strcmp(c->missing_what[i], what) == 0) return;
    if (c->n_missing == 64) return;
    c->missing[c->n_missing] = day;
    c->missing_what[c->n_missing++] = what;
}

static int cmp_day(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void vchk_missing_text(const vchk *c, const char *dir, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < c->n_missing && k < n; i++) {
        const char *what = c->missing_what[i];
        int first = 1;
        for (int j = 0; j < i && first; j++) first = strcmp(c->missing_what[j], what) != 0;
        if (!first) continue;
        int32_t days[64];
        int m = 0;
        for (int j = i; j < c->n_missing; j++)
            if (strcmp(c->missing_what[j], what) == 0) days[m++] = c->missing[j];
        qsort(days, (size_t)m, sizeof *days, cmp_day);
        k += (size_t)snprintf(out + k, n - k, "%s%s not verifiable without %s/", k ? "; " : "",
                              what, dir);
        for (int a = 0; a < m && k < n;) {
            int b = a;
            while (b + 1 < m && days[b + 1] == days[b] + 1) b++;
            char d0[11], d1[11];
            gpi_date_format(days[a], d0);
            gpi_date_format(days[b], d1);
            if (b > a)
                k += (size_t)snprintf(out + k, n - k, "%s%s..%s", a ? ", " : "", d0, d1);
            else
                k += (size_t)snprintf(out + k, n - k, "%s%s", a ? ", " : "", d0);
            a = b + 1;
        }
    }
}
