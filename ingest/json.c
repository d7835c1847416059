/* ingest/json.c -- JSON observations: one array of objects, or one object
 * per line (NDJSON), with the keys of the CSV header (SPEC §3).
 *
 * NOTES ON THE DESIGN
 * (1) The first non-blank byte decides: '[' is an array (parsed whole with
 *     jansson, which has no streaming parser -- use NDJSON for large feeds),
 *     '{' is NDJSON (each non-blank line parsed on its own, so memory is one
 *     line).  Anything else, or a syntax error anywhere, is a structural
 *     error "path:line:col: invalid JSON: ..." and nothing of the file is
 *     kept (the caller rolls back).
 * (2) Row numbers: NDJSON rows carry their physical line; array elements
 *     carry their 1-based position in the array (jansson reports no
 *     positions for values that parsed).
 * (3) Values: strings as written; null is absent; integers are printed
 *     exactly; reals are printed as the shortest decimal that reads back as
 *     the same double, which is the number as written whenever it has at
 *     most 15 significant digits (every realistic price).  A price with
 *     more digits should be sent as a string ("2.123456789012345678"),
 *     which is always exact.  Booleans, objects and arrays are rejected.
 * (4) raw_row is the NDJSON line, or the element re-encoded compactly.
 */
#include "ingest/internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct json_in {
    norm_ctx *nc;
    const ingest_opts *opt;
    const ingest_sink *sink;
    char num[F__N][64];     /* number texts of the current row */
    strmap warned;          /* unknown keys already reported */
    arena a;
} json_in;

/* Rewrites "d.ddde±x" as a plain decimal into out. */
static void plain(const char *s, char *out, size_t cap)
{
    char dig[40];
    int nd = 0, point = -1, neg = 0;
    const char *p = s;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') point = nd;
        else if (nd < 39) dig[nd++] = *p;
    }
    if (point < 0) point = nd;
    int ex = *p ? atoi(p + 1) : 0;
    point += ex; /* digits before the decimal point */
    size_t n = 0;
    if (neg && n + 1 < cap) out[n++] = '-';
    if (point <= 0) {
        if (n + 2 < cap) {
            out[n++] = '0';
            out[n++] = '.';
        }
        for (int i = 0; i < -point && n + 1 < cap; i++) out[n++] = '0';
        for (int i = 0; i < nd && n + 1 < cap; i++) out[n++] = dig[i];
    } else {
        for (int i = 0; i < point && n + 1 < cap; i++) out[n++] = i < nd ? dig[i] : '0';
        if (point < nd && n + 1 < cap) out[n++] = '.';
        for (int i = point; i < nd && n + 1 < cap; i++) out[n++] = dig[i];
    }
    out[n] = '\0';
}

static void real_text(double v, char *out, size_t cap)
{
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    plain(tmp, out, cap);
}

static gpi_status row_of(json_in *c, json_t *obj, long line, const char *raw, gpi_diag *d)
{
    const char *path = c->opt->path;
    norm_row r;
    memset(&r, 0, sizeof r);
    r.line = line;
    char msg[512];
    const char *bad_col = NULL;
    if (!json_is_object(obj)) {
        snprintf(msg, sizeof msg, "%s:%ld: not a JSON object", path, line);
        goto reject;
    }
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int f = field_lookup(key);
        if (f < 0) {
            size_t kl = strlen(key);
            if (strmap_get(&c->warned, key, kl) < 0) {
                char *k = arena_strndup(&c->a, key, kl);
                if (!k || strmap_put(&c->warned, k, kl, 1) != 0)
                    return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
                if (c->sink->warn) {
                    snprintf(msg, sizeof msg, "%s:%ld: unknown key \"%.100s\" ignored", path,
                             line, key);
                    c->sink->warn(c->sink->ud, msg);
                }
            }
            continue;
        }
        r.name[f] = key;
        if (json_is_string(v)) {
            r.v[f] = json_string_value(v);
        } else if (json_is_integer(v)) {
            snprintf(c->num[f], sizeof c->num[f], "%" JSON_INTEGER_FORMAT, json_integer_value(v));
            r.v[f] = c->num[f];
        } else if (json_is_real(v)) {
            real_text(json_real_value(v), c->num[f], sizeof c->num[f]);
            r.v[f] = c->num[f];
        } else if (!json_is_null(v)) {
            bad_col = key;
            snprintf(msg, sizeof msg, "%s:%ld: %.100s: not a string or number", path, line, key);
            goto reject;
        }
    }
    return ingest_emit(c->nc, c->sink, &r, raw, d);
reject:
    if (c->sink->reject(c->sink->ud, line, bad_col, raw, msg))
        return gpi_diag_set(d, GPI_ESTORE, "%s:%ld: stopped by the store", path, line);
    return GPI_OK;
}

static gpi_status array_file(json_in *c, FILE *f, long *rows, gpi_diag *d)
{
    const char *path = c->opt->path;
    json_error_t e;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
    if (!root)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%d:%d: invalid JSON: %s", path, e.line,
                            e.column > 0 ? e.column : 1, e.text);
    gpi_status rc = GPI_OK;
    size_t i;
    json_t *el;
    json_array_foreach(root, i, el) {
        char *raw = json_dumps(el, JSON_COMPACT | JSON_ENCODE_ANY);
        ++*rows;
        rc = row_of(c, el, (long)i + 1, raw ? raw : "", d);
        free(raw);
        if (rc != GPI_OK) break;
    }
    json_decref(root);
    return rc;
}

static gpi_status ndjson_file(json_in *c, FILE *f, long *rows, gpi_diag *d)
{
    const char *path = c->opt->path;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long ln = 0;
    gpi_status rc = GPI_OK;
    while (rc == GPI_OK && (n = getline(&line, &cap, f)) >= 0) {
        ln++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        size_t k = strspn(line, " \t");
        if (line[k] == '\0') continue;
        json_error_t e;
        json_t *obj = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &e);
        if (!obj) {
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%d: invalid JSON: %s", path, ln,
                              e.column > 0 ? e.column : 1, e.text);
            break;
        }
        ++*rows;
        rc = row_of(c, obj, ln, line, d);
        json_decref(obj);
    }
    if (rc == GPI_OK && ferror(f)) rc = gpi_diag_set(d, GPI_EIO, "%s: read error", path);
    free(line);
    return rc;
}

gpi_status ingest_json(const ingest_tables *t, const ingest_opts *opt, norm_ctx *nc,
                       const ingest_sink *sink, long *rows_read, gpi_diag *d)
{
    (void)t;
    FILE *f = fopen(opt->path, "rb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", opt->path, strerror(errno));
    int ch;
    long line = 1, col = 1;
    while ((ch = fgetc(f)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
        if (ch == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    gpi_status rc;
    json_in c;
    memset(&c, 0, sizeof c);
    c.nc = nc;
    c.opt = opt;
    c.sink = sink;
    if (ch == EOF) {
        rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%ld: no data (the file is empty)", opt->path,
                          line, col);
    } else if (ch != '[' && ch != '{') {
        rc = gpi_diag_set(d, GPI_EINPUT,
                          "%s:%ld:%ld: invalid JSON: expected an array or one object per line",
                          opt->path, line, col);
    } else {
        rewind(f);
        rc = ch == '[' ? array_file(&c, f, rows_read, d) : ndjson_file(&c, f, rows_read, d);
    }
    strmap_free(&c.warned);
    arena_free(&c.a);
    fclose(f);
    return rc;
}
