/* hedge/rent.c -- the user's rent history and forward prices, from CSV.
 *
 * Both files go through core's CSV reader (core/csv_reader.h), so quoting
 * is RFC 4180 as everywhere else ("2024-01-02","2.5"; a quoted field may
 * hold a comma); spaces around a field, a UTF-8 BOM, CRLF line ends and
 * blank lines are accepted.  Before that, each physical line is screened
 * (screen_lines): a line with a NUL byte or over 1023 bytes is refused at
 * its line, and in a rent file a line whose first non-blank byte is '#' is
 * a comment -- read for "# key: value" fields, then blanked in the copy
 * the reader gets, so the lines of the rows keep their numbers.
 *
 * Rent: `date,price[,quantity]`, an optional header naming those columns;
 * a date is YYYY-MM-DD or an ISO-8601 timestamp, taken as its UTC day.
 * The column count is fixed by the header, else by the first row.  A first
 * line that starts with a word is a header: any other than those columns
 * is reported as a wrong header (not as a bad date in line 1).  Prices
 * are exact decimals stored in micro-USD; quantities are GPU-hours.  The
 * "# key: value" comments describe what is rented (gpu, term, scope,
 * region, provider, instance_type, zone), which compare --suggest builds
 * grades around and compare measures the renter's own quotes by.
 *
 * Errors are "path:line: field: reason (got "raw")"; the first error in
 * file order wins (a duplicated date is reported at its second, later
 * occurrence).
 */
#include "hedge/hedge.h"
#include "core/csv_reader.h"
#include "core/lines.h"
#include "core/vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LINE 1024 /* a longer line is refused */
#define MAX_FILE_MIB 64

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

/* "# key: value" (design: the file's own description of the rent).
 * Returns 0 for a plain comment, 1 when a field was set, -1 on error. */
static int header_field(const char *path, long line, const char *buf, hedge_rent_info *info,
                        long seen[7], gpi_diag *d)
{
    static const struct {
        const char *key;
        int field;
    } keys[] = {{"gpu", 0},      {"term", 1},          {"scope", 2},         {"region", 3},
                {"provider", 4}, {"instance_type", 5}, {"instance-type", 5}, {"sku", 5},
                {"zone", 6}};
    static const char *const names[] = {"gpu",      "term",          "scope", "region",
                                        "provider", "instance_type", "zone"};
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
    char *dst[7] = {info->gpu,      info->term, info->scope, info->region,
                    info->provider, info->sku,  info->zone};
    size_t cap[7] = {sizeof info->gpu,      sizeof info->term, sizeof info->scope,
                     sizeof info->region,   sizeof info->provider, sizeof info->sku,
                     sizeof info->zone};
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

/* The lines of text[0, len) screened before the CSV reader sees them (see
 * the top of the file): *out is a copy (free()) with the comment lines
 * blanked when info is given, cut before the first line refused on its
 * own; that line's error is in *late (GPI_OK when none), to be reported
 * only when the rows before it are good. */
static gpi_status screen_lines(const char *path, const char *text, size_t len,
                               hedge_rent_info *info, char **out, size_t *out_len,
                               gpi_status *late, gpi_diag *late_d, gpi_diag *d)
{
    *late = GPI_OK;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    char *copy = malloc(len + 1);
    if (!copy) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    if (len) memcpy(copy, text, len);
    gpi_lines it;
    gpi_lines_init(&it, text, len);
    char buf[MAX_LINE];
    const char *bad;
    long seen[7] = {0};
    const char *start = it.p;
    while (gpi_lines_next(&it, buf, sizeof buf, &bad)) {
        size_t at = (size_t)(start - text), n = (size_t)(it.p - start);
        start = it.p;
        if (bad) {
            *late = gpi_diag_set(late_d, GPI_EINPUT, "%s:%ld: row: %s", path, it.line, bad);
        } else if (info && buf[strspn(buf, " \t")] == '#') {
            if (header_field(path, it.line, buf, info, seen, late_d) < 0) *late = GPI_EINPUT;
            else memset(copy + at, ' ', n && text[at + n - 1] == '\n' ? n - 1 : n);
        }
        if (*late != GPI_OK) {
            len = at;
            break;
        }
    }
    *out = copy;
    *out_len = len;
    return GPI_OK;
}

typedef struct rent_ctx {
    const char *path;
    hedge_rent *out;
    size_t cap;
    int ncol; /* 2 or 3 once known */
} rent_ctx;

/* A rent row's day: "YYYY-MM-DD", or an ISO-8601 timestamp (as billing
 * exports write them: "2025-03-01T00:00:00Z", "+02:00", no zone = UTC)
 * taken as its UTC day.  NULL or a static reason. */
static const char *rent_day(const char *s, int32_t *day)
{
    int64_t t;
    const char *why = gpi_time_parse(s, &t);
    if (!why) *day = gpi_day_of_time(t);
    return why;
}

static gpi_status rent_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    rent_ctx *c = ud;
    hedge_rent *out = c->out;
    const char *path = c->path, *const *f = r->f;
    int nf = r->n;
    /* a first line of words that is not the header ("day,rent_usd") is
     * a wrong header, not a bad date */
    int32_t day0;
    int wordy = c->ncol == 0 && out->n == 0 && isalpha((unsigned char)f[0][0]) &&
                gpi_date_parse(f[0], &day0) != NULL;
    if (wordy && strcasecmp(f[0], "date") != 0)
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: header: expected date,price[,quantity] (got \"%s\")", path,
                            r->line, r->raw);
    if (c->ncol == 0 && strcasecmp(f[0], "date") == 0) {
        int ok = (nf == 2 || nf == 3) && strcasecmp(f[1], "price") == 0 &&
                 (nf == 2 || strcasecmp(f[2], "quantity") == 0);
        if (!ok)
            return gpi_diag_set(d, GPI_EINPUT,
                                "%s:%ld: header: expected date,price[,quantity] (got \"%s\")",
                                path, r->line, r->raw);
        c->ncol = nf;
        return GPI_OK;
    }
    if (c->ncol == 0) c->ncol = nf == 3 ? 3 : 2;
    if (nf != c->ncol)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: expected %d fields, found %d (got \"%s\")",
                            path, r->line, c->ncol, nf, r->raw);
    hedge_rent_row row = {0, 0, 0.0, r->line};
    const char *why = rent_day(f[0], &row.day);
    if (why)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: date: %s (got \"%s\")", path, r->line, why,
                            f[0]);
    if ((why = parse_price(f[1], 6, &row.price_micro)))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: price: %s (got \"%s\")", path, r->line, why,
                            f[1]);
    if (c->ncol == 3 && (why = parse_quantity(f[2], &row.quantity)))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: quantity: %s (got \"%s\")", path, r->line,
                            why, f[2]);
    if (GPI_VEC_RESERVE(out->rows, c->cap, out->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    out->rows[out->n++] = row;
    return GPI_OK;
}

/* The CSV rows of text through fn, after screen_lines; the first error in
 * file order. */
static gpi_status read_rows(const char *path, const char *text, size_t len,
                            hedge_rent_info *info, gpi_csv_rec_fn fn, void *ctx, gpi_diag *d)
{
    char *copy = NULL;
    size_t n = 0;
    gpi_status late;
    gpi_diag late_d = {{0}};
    gpi_status st = screen_lines(path, text, len, info, &copy, &n, &late, &late_d, d);
    if (st != GPI_OK) return st;
    st = gpi_csv_read_recs(path, copy, n, 0, fn, ctx, d);
    free(copy);
    if (st == GPI_OK && late != GPI_OK) {
        if (d) *d = late_d;
        st = late;
    }
    return st;
}

gpi_status hedge_rent_parse(const char *path, const char *text, size_t len, hedge_rent *out,
                            gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!path || (!text && len)) return gpi_diag_set(d, GPI_EUSAGE, "hedge_rent_parse: bad arguments");
    rent_ctx c = {path, out, 0, 0};
    gpi_status st = read_rows(path, text ? text : "", len, &out->info, rent_rec, &c, d);
    if (st != GPI_OK) goto fail;
    if (out->n == 0) {
        st = gpi_diag_set(d, GPI_EINPUT, "%s: no rent rows", path);
        goto fail;
    }
    out->has_quantity = c.ncol == 3;
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
    gpi_status st = gpi_text_read(path, MAX_FILE_MIB, &buf, &len, d);
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

typedef struct forward_ctx {
    const char *path;
    hedge_forward *out;
    size_t cap_month, cap_price; /* of out->month_start, out->price_e4 */
    int seen_row;
} forward_ctx;

static gpi_status forward_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    forward_ctx *c = ud;
    hedge_forward *out = c->out;
    const char *path = c->path;
    int first = !c->seen_row;
    c->seen_row = 1;
    if (first && strcasecmp(r->f[0], "month") == 0) return GPI_OK; /* the header */
    if (r->n != 2)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: expected 2 fields, found %d (got \"%s\")",
                            path, r->line, r->n, r->raw);
    int y, m;
    const char *why = gpi_month_parse(r->f[0], &y, &m);
    if (why)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: month: %s (got \"%s\")", path, r->line, why,
                            r->f[0]);
    int64_t e4;
    if ((why = parse_price(r->f[1], 4, &e4)))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: price: %s (got \"%s\")", path, r->line, why,
                            r->f[1]);
    int32_t ms = gpi_days_from_civil(y, m, 1);
    for (size_t k = 0; k < out->n; k++)
        if (out->month_start[k] == ms)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: month: duplicate month (got \"%s\")",
                                path, r->line, r->f[0]);
    if (GPI_VEC_RESERVE(out->month_start, c->cap_month, out->n + 1) ||
        GPI_VEC_RESERVE(out->price_e4, c->cap_price, out->n + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    out->month_start[out->n] = ms;
    out->price_e4[out->n] = e4; /* rounded once from the text, not via micro-USD */
    out->n++;
    return GPI_OK;
}

gpi_status hedge_forward_load(const char *path, hedge_forward *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    gpi_status st = gpi_text_read(path, MAX_FILE_MIB, &text, &len, d);
    if (st != GPI_OK) return st;
    forward_ctx c = {path, out, 0, 0, 0};
    st = read_rows(path, text, len, NULL, forward_rec, &c, d);
    free(text);
    if (st == GPI_OK && out->n == 0) /* an empty --forward file would silently skip every month */
        st = gpi_diag_set(d, GPI_EINPUT, "%s: no forward prices (want CSV month,price)", path);
    if (st != GPI_OK) hedge_forward_free(out);
    return st;
}

void hedge_forward_free(hedge_forward *f)
{
    if (!f) return;
    free(f->month_start);
    free(f->price_e4);
    memset(f, 0, sizeof *f);
}
