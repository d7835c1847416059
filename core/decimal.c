/* core/decimal.c -- exact decimal parsing, half-up rounding, the
 * formatting of fixed-point numbers, and the exact (doubled) median of
 * integers that index/ and verify/ share.
 *
 * A gpi_dec keeps a number exactly as written (mantissa and decimal scale).
 * Conversions to fixed-point units divide with gpi_div_round, which works in
 * 128-bit integers and rounds halves away from zero, so 2.3645 at three
 * decimals is 2.365 -- never 2.364 as binary 2.36449999... would give.
 */
#include "core/gpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gpi_dec_parse_scale(const char *s, int max_scale, gpi_dec *out)
{
    if (!s || !*s) return "empty";
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    int64_t mant = 0;
    int ndig = 0, scale = 0, seen_dot = 0, any = 0;
    for (; *p; p++) {
        if (*p == '.') {
            if (seen_dot) return "not a number";
            seen_dot = 1;
            continue;
        }
        if (*p < '0' || *p > '9') return "not a number";
        any = 1;
        if (seen_dot) {
            if (scale == max_scale) {
                /* digits beyond max_scale must be zeros to stay exact */
                if (*p != '0') return "too many digits";
                continue;
            }
            scale++;
        }
        if (mant == 0 && *p == '0') continue; /* leading zeros are not significant */
        if (++ndig > 18) return "too many digits";
        mant = mant * 10 + (*p - '0');
    }
    if (!any) return "not a number";
    out->mant = neg ? -mant : mant;
    out->scale = scale;
    return NULL;
}

const char *gpi_dec_parse(const char *s, gpi_dec *out)
{
    return gpi_dec_parse_scale(s, 12, out);
}

int64_t gpi_div_round(__int128 num, __int128 den)
{
    int neg = num < 0;
    __int128 a = neg ? -num : num;
    __int128 q = a / den, r = a % den;
    if (2 * r >= den) q++;
    return (int64_t)(neg ? -q : q);
}

int64_t gpi_dec_to_units(gpi_dec d, int digits)
{
    __int128 num = d.mant, den = 1;
    if (digits >= d.scale) {
        for (int i = d.scale; i < digits; i++) num *= 10;
    } else {
        for (int i = digits; i < d.scale; i++) den *= 10;
    }
    return gpi_div_round(num, den);
}

char *gpi_format_1f(double v, char out[32])
{
    /* below 1e6, v * 10 is within 1e-9 of the exact tenfold value (half
     * an ulp of 1e7), so 1e-6 away from .5 the exact value rounds to the
     * same side; -0.0, ties, large and odd values go to printf */
    double t = v * 10.0, fl = floor(t), frac = t - fl;
    if (signbit(v) || !(v < 1e6) || fabs(frac - 0.5) < 1e-6) {
        snprintf(out, 32, "%.1f", v);
        return out;
    }
    return gpi_fixed_format((int64_t)fl + (frac > 0.5), 1, out);
}

char *gpi_fixed_format(int64_t v, int digits, char out[32])
{
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (digits < 0 || digits > 18) { /* no caller; printf's output as before */
        uint64_t p = 1;
        for (int i = 0; i < digits; i++) p *= 10;
        if (digits <= 0)
            snprintf(out, 32, "%s%llu", v < 0 ? "-" : "", (unsigned long long)a);
        else
            snprintf(out, 32, "%s%llu.%0*llu", v < 0 ? "-" : "", (unsigned long long)(a / p),
                     digits, (unsigned long long)(a % p));
        return out;
    }
    /* by hand (observations.csv writes three per line): the digits of a,
     * least significant first, at least digits + 1 of them */
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + a % 10);
        a /= 10;
    } while (a || n <= digits);
    char *o = out;
    if (v < 0) *o++ = '-';
    while (n > 0) {
        *o++ = t[--n];
        if (n == digits && n > 0) *o++ = '.';
    }
    *o = '\0';
    return out;
}

int64_t gpi_double_to_units(double v, int digits)
{
    /* Take the shortest decimal that round-trips to 12 significant digits,
     * then round that decimal exactly. */
    char buf[64];
    if (!isfinite(v)) return 0;
    snprintf(buf, sizeof buf, "%.11e", v);
    /* buf = "-d.dddddddddddde±XX" */
    int neg = buf[0] == '-';
    const char *p = buf + neg;
    int64_t mant = p[0] - '0';
    for (int i = 2; i < 13; i++) mant = mant * 10 + (p[i] - '0');
    const char *e = strchr(p, 'e');
    int ex = 0;
    sscanf(e + 1, "%d", &ex);
    /* value = mant * 10^(ex - 11); want value * 10^digits */
    int shift = ex - 11 + digits;
    __int128 num = mant, den = 1;
    if (shift >= 0) {
        if (shift > 30) return neg ? INT64_MIN : INT64_MAX;
        for (int i = 0; i < shift; i++) num *= 10;
    } else {
        if (shift < -30) return 0;
        for (int i = 0; i < -shift; i++) den *= 10;
    }
    int64_t r = gpi_div_round(num, den);
    return neg ? -r : r;
}

int gpi_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t gpi_median2(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, gpi_cmp_i64);
    return n % 2 ? 2 * v[n / 2] : v[n / 2 - 1] + v[n / 2];
}
