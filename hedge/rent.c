/* hedge/rent.c -- the user's rent history and forward prices, from CSV.
 *
 * Both files are tiny and numeric, so they are split by hand rather than
 * with libcsv: that keeps exact physical line numbers for errors.  A field
 * may be wrapped in double quotes (no embedded commas); spaces around a
 * field, a UTF-8 BOM, CRLF line ends and blank lines are accepted.
 *
 * Rent: `date,price[,quantity]`, an optional header naming those columns.
 * The column count is fixed by the header, else by the first row.  A first
 * line that starts with a word is a header: any other than those columns
 * is reported as a wrong header (not as a bad date in line 1).  Prices
 * are exact decimals stored in micro-USD; quantities are GPU-hours.  Lines
 * starting with '#' are comments, and "# key: value" ones describe what
 * is rented (gpu, term, scope, region, provider, instance_type), which
 * compare --suggest builds grades around.
 *
 * Errors are "path:line: field: reason (got "raw")"; the first error wins
 * (a duplicated date is reported at its second, later occurrence).
 */
#include "hedge/hedge.h"
#include "core/lines.h"
#include "core/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 4
#define MAX_FILE_BYTES (64L * 1024 * 1024)

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        s++;
    }
    return s;
}

/* Splits buf at commas in place; returns the field count (may exceed max,
 * then only max are stored). */
static int split(char *buf, char **f, int max)
{
    int n = 0;
    char *s = buf;
    for (;;) {
        char *c = strchr(s, ',');
        if (c) *c = '\0';
        if (n < max) f[n] = trim(s);
        n++;
        if (!c) break;
        s = c + 1;
    }
    return n;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return 0;
    return 1;
}

/* A positive price below 10^6 USD, rounded once, half-up, to `digits`
 * decimals (6 for rent in micro-USD, 4 for forward prices in e4). */
static const char *parse_price(const char *s, int digits, int64_t *out)
{
    gpi_dec v;
    const char *why = gpi_dec_parse(s, &v);
    if (why) return why;
    if (v.mant <= 0) return "must be positive";
    __int128 scaled = v.mant;
    for (int k = v.scale; k < 12; k++) scaled *= 10;
    if (scaled >= (__int128)1000000 * 1000000000000LL) return "too large (1000000 or more)";
    *out = gpi_dec_to_units(v, digits);
    if (*out <= 0)
        return digits == 6 ? "must be positive (rounds to 0 at 6 decimals)"
                           : "must be positive (rounds to 0 at 4 decimals)";
    return NULL;
}

static const char *parse_quantity(const char *s, double *out)
{
    gpi_dec v;
    if (!*s) return "missing";
    const char *why = gpi_dec_parse(s, &v);
    if (why) return why;
    if (v.mant <= 0) return "must be positive";
    double q = (double)v.mant;
    for (int k = 0; k < v.scale; k++) q /= 10.0;
    *out = q;
    return NULL;
}

static gpi_status read_file(const char *path, char **buf, size_t *len, gpi_diag *d)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    if (!b) {
        fclose(f);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= (size_t)MAX_FILE_BYTES) {
                free(b);
                fclose(f);
                return gpi_diag_set(d, GPI_EINPUT, "%s: file too large (over 64 MiB)", path);
            }
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                fclose(f);
                return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return gpi_diag_set(d, GPI_EIO, "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return GPI_OK;
}

/* "# key: value" (design: the file's own description of the rent).
 * Returns 0 for a plain comment, 1 when a field was set, -1 on error. */
static int header_field(const char *path, long line, const char *buf, hedge_rent_info *info,
                        long seen[6], gpi_diag *d)
{
    static const struct {
        const char *key;
        int field;
    } keys[] = {{"gpu", 0},      {"term", 1},          {"scope", 2},         {"region", 3},
                {"provider", 4}, {"instance_type", 5}, {"instance-type", 5}, {"sku", 5}};
    static const char *const names[] = {"gpu", "term", "scope", "region", "provider",
                                        "instance_type"};
    const char *p = buf;
    while (*p == ' ' || *p == '\t') p++;
    p++; /* '#' */
    while (*p == ' ' || *p == '\t') p++;
    const char *colon = strchr(p, ':');
    if (!colon) return 0;
    size_t klen = (size_t)(colon - p);
    while (klen && (p[klen - 1] == ' ' || p[klen - 1] == '\t')) klen--;
    int field = -1;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strlen(keys[k].key) == klen && strncasecmp(p, keys[k].key, klen) == 0)
            field = keys[k].field;
    if (field < 0) return 0;
    char v[1024];
    snprintf(v, sizeof v, "%s", colon + 1);
    char *val = trim(v);
    const char *why = NULL;
    if (seen[field]) {
        gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: given twice, first on line %ld (got \"%s\")", path,
                     line, names[field], seen[field], val);
        return -1;
    }
    if (!*val)
        why = "empty";
    else if (strlen(val) > 64)
        why = "longer than 64 bytes";
    else if (field == 1 && strcasecmp(val, "on-demand") != 0 && strcasecmp(val, "spot") != 0 &&
             strncasecmp(val, "reserved:", 9) != 0)
        why = "must be on-demand, spot or reserved:A-B";
    else if (field == 2 && gpi_scope_parse(val) < 0)
        why = "must be bare-metal, managed, vm or container";
    for (const char *c = val; !why && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == '"') why = "holds a control character or a quote";
    if (why) {
        gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%s\")", path, line, names[field], why,
                     val);
        return -1;
    }
    char *dst[6] = {info->gpu, info->term, info->scope, info->region, info->provider, info->sku};
    size_t cap[6] = {sizeof info->gpu,    sizeof info->term,     sizeof info->scope,
                     sizeof info->region, sizeof info->provider, sizeof info->sku};
    snprintf(dst[field], cap[field], "%s", val);
    seen[field] = line;
    return 1;
}

static int row_cmp(const void *a, const void *b)
{
    const hedge_rent_row *x = a, *y = b;
    if (x->day != y->day) return x->day < y->day ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

gpi_status hedge_rent_parse(const char *path, const char *text, size_t len, hedge_rent *out,
                            gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!path || (!text && len)) return gpi_diag_set(d, GPI_EUSAGE, "hedge_rent_parse: bad arguments");
    gpi_lines it;
    gpi_lines_init(&it, text, len);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) it.p += 3;
    char buf[1024], raw[1024];
    char *f[MAX_FIELDS];
    int ncol = 0;
    const char *bad;
    size_t cap = 0;
    long seen[6] = {0};
    gpi_status st = GPI_OK;
    while (gpi_lines_next(&it, buf, sizeof buf, &bad)) {
        if (bad) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: %s", path, it.line, bad);
            goto fail;
        }
        if (blank(buf)) continue;
        if (buf[strspn(buf, " \t")] == '#') {
            if (header_field(path, it.line, buf, &out->info, seen, d) < 0) {
                st = GPI_EINPUT;
                goto fail;
            }
            continue;
        }
        snprintf(raw, sizeof raw, "%s", buf);
        int nf = split(buf, f, MAX_FIELDS);
        /* a first line of words that is not the header ("day,rent_usd") is
         * a wrong header, not a bad date */
        int32_t day0;
        int wordy = ncol == 0 && out->n == 0 && nf >= 1 && isalpha((unsigned char)f[0][0]) &&
                    gpi_date_parse(f[0], &day0) != NULL;
        if (wordy && strcasecmp(f[0], "date") != 0) {
            st = gpi_diag_set(d, GPI_EINPUT,
                              "%s:%ld: header: expected date,price[,quantity] (got \"%s\")", path,
                              it.line, raw);
            goto fail;
        }
        if (ncol == 0 && nf >= 1 && strcasecmp(f[0], "date") == 0) {
            int ok = (nf == 2 || nf == 3) && strcasecmp(f[1], "price") == 0 &&
                     (nf == 2 || strcasecmp(f[2], "quantity") == 0);
            if (!ok) {
                st = gpi_diag_set(d, GPI_EINPUT,
                                  "%s:%ld: header: expected date,price[,quantity] (got \"%s\")",
                                  path, it.line, raw);
                goto fail;
            }
            ncol = nf;
            continue;
        }
        if (ncol == 0) ncol = nf == 3 ? 3 : 2;
        if (nf != ncol) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: expected %d fields, found %d (got \"%s\")",
                              path, it.line, ncol, nf, raw);
            goto fail;
        }
        hedge_rent_row r = {0, 0, 0.0, it.line};
        const char *why = gpi_date_parse(f[0], &r.day);
        if (why) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: date: %s (got \"%s\")", path, it.line, why,
                              f[0]);
            goto fail;
        }
        if ((why = parse_price(f[1], 6, &r.price_micro))) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: price: %s (got \"%s\")", path, it.line, why,
                              f[1]);
            goto fail;
        }
        if (ncol == 3 && (why = parse_quantity(f[2], &r.quantity))) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: quantity: %s (got \"%s\")", path, it.line,
                              why, f[2]);
            goto fail;
        }
        if (GPI_VEC_RESERVE(out->rows, cap, out->n + 1) != 0) {
            st = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
            goto fail;
        }
        out->rows[out->n++] = r;
    }
    if (out->n == 0) {
        st = gpi_diag_set(d, GPI_EINPUT, "%s: no rent rows", path);
        goto fail;
    }
    out->has_quantity = ncol == 3;
    qsort(out->rows, out->n, sizeof *out->rows, row_cmp);
    long dup_line = 0, first_line = 0;
    int32_t dup_day = 0;
    for (size_t i = 1; i < out->n; i++)
        if (out->rows[i].day == out->rows[i - 1].day &&
            (!dup_line || out->rows[i].line < dup_line)) {
            dup_line = out->rows[i].line;
            dup_day = out->rows[i].day;
            /* the earliest line of this day precedes i in the sorted run */
            size_t j = i - 1;
            while (j > 0 && out->rows[j - 1].day == dup_day) j--;
            first_line = out->rows[j].line;
        }
    if (dup_line) {
        char ds[11];
        gpi_date_format(dup_day, ds);
        st = gpi_diag_set(d, GPI_EINPUT,
                          "%s:%ld: date: duplicate date, first given on line %ld (got \"%s\")",
                          path, dup_line, first_line, ds);
        goto fail;
    }
    return GPI_OK;
fail:
    hedge_rent_free(out);
    return st;
}

gpi_status hedge_rent_load(const char *path, hedge_rent *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    gpi_status st = read_file(path, &buf, &len, d);
    if (st != GPI_OK) return st;
    st = hedge_rent_parse(path, buf, len, out, d);
    free(buf);
    return st;
}

void hedge_rent_free(hedge_rent *r)
{
    if (!r) return;
    free(r->rows);
    memset(r, 0, sizeof *r);
}

gpi_status hedge_forward_load(const char *path, hedge_forward *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    gpi_status st = read_file(path, &text, &len, d);
    if (st != GPI_OK) return st;
    gpi_lines it;
    gpi_lines_init(&it, text, len);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) it.p += 3;
    char buf[1024], raw[1024];
    char *f[MAX_FIELDS];
    int seen_row = 0;
    const char *bad;
    size_t cap_month = 0, cap_price = 0;
    while (gpi_lines_next(&it, buf, sizeof buf, &bad)) {
        if (bad) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: %s", path, it.line, bad);
            goto fail;
        }
        if (blank(buf)) continue;
        snprintf(raw, sizeof raw, "%s", buf);
        int nf = split(buf, f, MAX_FIELDS);
        if (!seen_row && nf >= 1 && strcasecmp(f[0], "month") == 0) {
            seen_row = 1;
            continue;
        }
        seen_row = 1;
        if (nf != 2) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: expected 2 fields, found %d (got \"%s\")",
                              path, it.line, nf, raw);
            goto fail;
        }
        int y, m;
        const char *why = gpi_month_parse(f[0], &y, &m);
        if (why) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: month: %s (got \"%s\")", path, it.line, why,
                              f[0]);
            goto fail;
        }
        int64_t e4;
        if ((why = parse_price(f[1], 4, &e4))) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: price: %s (got \"%s\")", path, it.line, why,
                              f[1]);
            goto fail;
        }
        int32_t ms = gpi_days_from_civil(y, m, 1);
        for (size_t k = 0; k < out->n; k++)
            if (out->month_start[k] == ms) {
                st = gpi_diag_set(d, GPI_EINPUT, "%s:%ld: month: duplicate month (got \"%s\")",
                                  path, it.line, f[0]);
                goto fail;
            }
        if (GPI_VEC_RESERVE(out->month_start, cap_month, out->n + 1) != 0 ||
            GPI_VEC_RESERVE(out->price_e4, cap_price, out->n + 1) != 0) {
            st = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
            goto fail;
        }
        out->month_start[out->n] = ms;
        out->price_e4[out->n] = e4; /* rounded once from the text, not via micro-USD */
        out->n++;
    }
    if (out->n == 0) {
        /* an empty --forward file would silently skip every month */
        st = gpi_diag_set(d, GPI_EINPUT, "%s: no forward prices (want CSV month,price)", path);
        goto fail;
    }
    free(text);
    return GPI_OK;
fail:
    free(text);
    hedge_forward_free(out);
    return st;
}

void hedge_forward_free(hedge_forward *f)
{
    if (!f) return;
    free(f->month_start);
    free(f->price_e4);
    memset(f, 0, sizeof *f);
}
