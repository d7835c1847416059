/* ingest/json.c -- JSON observations: one array of objects, or one object
 * per line (NDJSON), with the keys of the CSV header (SPEC §3).
 *
 * NOTES ON THE DESIGN
 * (1) The first non-blank byte decides: '[' is an array, '{' is NDJSON.
 *     Both are read one row at a time, so memory is one row whatever the
 *     file's size: NDJSON a line, an array an element (a scanner follows
 *     strings and nesting to find where each element ends and hands its
 *     bytes to jansson, which has no streaming parser).  A row is at most
 *     MAX_LINE bytes, and the limit is enforced while the row is read: an
 *     NDJSON line was read whole first (a 400 MB line took 425 MB).  Anything else, or a syntax error anywhere, is a
 *     structural error "path:line:col: invalid JSON: ..."; the rows before
 *     it were already handed on, and the caller discards the file (one
 *     file is one transaction).
 * (2) Row numbers: NDJSON rows carry their physical line; array elements
 *     the line where they start.
 * (3) Values: strings as written; null is absent; integers are printed
 *     exactly; reals are printed as the shortest decimal that reads back as
 *     the same double, which is the number as written whenever it has at
 *     most 15 significant digits (every realistic price).  A price with
 *     more digits should be sent as a string ("2.123456789012345678"),
 *     which is always exact.  Booleans, objects and arrays are rejected.
 * (4) raw_row is the NDJSON line, or the element re-encoded compactly.
 * (5) A UTF-8 byte-order mark at the start is skipped (jansson refuses it).
 * (6) Error columns are 1-based byte columns (SPEC §3): jansson's `column`
 *     counts characters, so the column is recomputed from its byte
 *     `position` within the line or the element.
 * (7) The file's SHA-256 is taken in the same pass, of the bytes as they
 *     are read (a whole file is read to its end).  It used to be taken by
 *     reading the file again after parsing: rows appended in between were
 *     hashed but never parsed, and the next ingest of the whole file was
 *     "already ingested" (issue 12).  The reader never seeks or rewinds,
 *     so JSON can come from a pipe.
 */
#include "ingest/internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An NDJSON line longer than this is a structural error, as a CSV record
 * is (core/csv_reader.c). */
#define MAX_LINE (1 << 20)

typedef struct json_in {
    norm_ctx *nc;
    const ingest_opts *opt;
    const ingest_sink *sink;
    char num[F__N][64];     /* number texts of the current row */
    strmap warned;          /* unknown keys already reported */
    int warned_more;        /* the "more unknown keys" line was given */
    arena a;
} json_in;

/* ---- the bytes of the file ------------------------------------------------ */

/* Every byte the parser reads comes through rd_getc/rd_line, and the
 * SHA-256 is taken of exactly those bytes as they are read (note 7).  The
 * file is read in RD_CHUNK pieces and never seeks, so a pipe works as a
 * file does. */
#define RD_CHUNK (256u << 10)

typedef struct jrd {
    FILE *f;
    gpi_sha256 *h;
    char *buf;
    size_t pos, len;
    unsigned char back[3]; /* bytes given back (the BOM check), last first */
    int nback;
    int eof;
    int err;               /* errno of a read error, or 0 */
    uint64_t total;        /* bytes read (and hashed) */
} jrd;

/* Refills the buffer; 0 at the end of the file or on a read error. */
static int rd_fill(jrd *r)
{
    if (r->eof) return 0;
    errno = 0;
    size_t n = fread(r->buf, 1, RD_CHUNK, r->f);
    if (n == 0) {
        r->eof = 1;
        if (ferror(r->f)) r->err = errno ? errno : EIO;
        return 0;
    }
    gpi_sha256_update(r->h, r->buf, n);
    r->total += n;
    r->pos = 0;
    r->len = n;
    return 1;
}

static int rd_getc(jrd *r)
{
    if (r->nback) return r->back[--r->nback];
    if (r->pos == r->len && !rd_fill(r)) return EOF;
    return (unsigned char)r->buf[r->pos++];
}

/* Appends the rest of the current line (through its LF, or to the end of
 * the file) to line[*n..]: 1 when a line was read, 0 at the end of the
 * file with nothing added, -1 when the line would pass max bytes (reading
 * stops there, so memory is max bytes whatever the input). */
static int rd_line(jrd *r, char *line, size_t max, size_t *n)
{
    size_t n0 = *n;
    while (r->nback) {
        int ch = r->back[--r->nback];
        if (*n == max) return -1;
        line[(*n)++] = (char)ch;
        if (ch == '\n') return 1;
    }
    for (;;) {
        if (r->pos == r->len && !rd_fill(r)) return *n > n0 ? 1 : 0;
        const char *p = r->buf + r->pos;
        size_t avail = r->len - r->pos;
        const char *nl = memchr(p, '\n', avail);
        size_t k = nl ? (size_t)(nl - p) + 1 : avail;
        if (k > max - *n) return -1;
        memcpy(line + *n, p, k);
        *n += k;
        r->pos += k;
        if (nl) return 1;
    }
}

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
            if (c->warned.n >= INGEST_MAX_UNKNOWN_WARNINGS) {
                /* enough named: one line says so, the rest pass silently
                 * (and are not remembered: memory stays bounded) */
                if (!c->warned_more && strmap_get(&c->warned, key, kl) < 0) {
                    c->warned_more = 1;
                    if (c->sink->warn) {
                        snprintf(msg, sizeof msg,
                                 "%s:%ld: more unknown keys ignored (only the first %d are named)",
                                 path, line, INGEST_MAX_UNKNOWN_WARNINGS);
                        c->sink->warn(c->sink->ud, msg);
                    }
                }
            } else if (strmap_get(&c->warned, key, kl) < 0) {
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
        if (r.name[f]) { /* keys match case-insensitively, as CSV columns do */
            bad_col = key;
            snprintf(msg, sizeof msg, "%s:%ld: %.100s: duplicate key (also \"%.100s\")", path, line,
                     key, r.name[f]);
            goto reject;
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
    return ingest_reject(c->sink, path, line, bad_col, raw, msg, d);
}

/* Overwrites every number token of text[0..n) outside strings with "0"
 * and blanks (same length, so error positions stay): what is left parses
 * exactly when the record's only fault is a number jansson cannot hold. */
static void blank_numbers(char *t, size_t n)
{
    int in_str = 0, esc = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = t[i];
        if (in_str) {
            if (esc) esc = 0;
            else if (ch == '\\') esc = 1;
            else if (ch == '"') in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            t[i] = '0';
            while (i + 1 < n && strchr("0123456789.eE+-", t[i + 1])) t[++i] = ' ';
        }
    }
}

/* Whether a record jansson refused with a numeric overflow is otherwise
 * well-formed; if not, *e becomes the syntax error (same positions). */
static int only_number_overflow(const char *text, size_t n, size_t flags, json_error_t *e)
{
    char *t = malloc(n ? n : 1);
    if (!t) return 1; /* out of memory: the row is rejected, nothing lost */
    memcpy(t, text, n);
    blank_numbers(t, n);
    json_error_t e2;
    json_t *v = json_loadb(t, n, flags, &e2);
    free(t);
    if (v) {
        json_decref(v);
        return 1;
    }
    *e = e2;
    return 0;
}

/* A whole record with a number jansson cannot hold (an integer beyond 64
 * bits, a real beyond a double): that row is rejected, not the file. */
static gpi_status number_reject(json_in *c, const char *text, size_t n, long line,
                                const json_error_t *e, long *rows, gpi_diag *d)
{
    char *raw = malloc(n + 1);
    if (!raw) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->opt->path);
    memcpy(raw, text, n);
    raw[n] = '\0';
    /* jansson says "too big integer near '123...'": echo the number */
    char msg[512];
    const char *near = strstr(e->text, "near '"), *end = near ? strrchr(e->text, '\'') : NULL;
    if (near && end > near + 6)
        snprintf(msg, sizeof msg, "%s:%ld: a number is out of range (got \"%.*s\")",
                 c->opt->path, line, (int)(end - (near + 6)), near + 6);
    else
        snprintf(msg, sizeof msg, "%s:%ld: a number is out of range (%s)", c->opt->path, line,
                 e->text);
    ++*rows;
    gpi_status rc = ingest_reject(c->sink, c->opt->path, line, NULL, raw, msg, d);
    free(raw);
    return rc;
}

/* An array is read one element at a time (note 1): the scanner below
 * follows strings and nesting at the array's top level, collects each
 * element's bytes (at most MAX_LINE) with the line and byte column where
 * it starts, and hands them to jansson.  Memory is one element. */
typedef struct scan {
    jrd *r;
    long line, col;      /* place of ch, 1-based (after EOF: where the end is) */
    int ch;              /* the last byte read, or EOF */
} scan;

/* Reads the next byte; sc->line/col become its place. */
static int next_byte(scan *sc)
{
    if (sc->ch == '\n') {
        sc->line++;
        sc->col = 1;
    } else {
        sc->col++;
    }
    sc->ch = rd_getc(sc->r);
    return sc->ch;
}

static int is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* The next non-blank byte (EOF at the end); sc->line/col are its place. */
static int skip_blank(scan *sc)
{
    int ch;
    while (is_space(ch = next_byte(sc))) {
    }
    return ch;
}

enum { NO_NEAR = -2 }; /* json_error: what already says where */

/* "path:line:col: invalid JSON: what near 'x'" as jansson words it. */
static gpi_status json_error(json_in *c, long line, long col, const char *what, int ch,
                             gpi_diag *d)
{
    char nb[32] = "";
    if (ch == EOF) snprintf(nb, sizeof nb, " near end of file");
    else if (ch >= 0x20 && ch < 0x7f) snprintf(nb, sizeof nb, " near '%c'", ch);
    else if (ch != NO_NEAR) snprintf(nb, sizeof nb, " near byte 0x%02x", (unsigned)ch & 0xff);
    return gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%ld: invalid JSON: %s%s", c->opt->path, line, col,
                        what, nb);
}

/* jansson's error e in element el[0..n) that starts at line:col, at its
 * place in the file (note 6: e.position is a byte count, so the column is
 * a byte column).  Inside an array, what jansson calls the end of its
 * input is where the array wants its ']' or ','. */
static gpi_status parse_error(json_in *c, const char *el, size_t n, long line, long col,
                              const json_error_t *e, gpi_diag *d)
{
    size_t pos = e->position > 0 ? (size_t)e->position : 1;
    if (pos > n) pos = n;
    long l = line, cc = col - 1;
    for (size_t i = 0; i < pos; i++) {
        if (el[i] == '\n') {
            l++;
            cc = 0;
        } else {
            cc++;
        }
    }
    static const char eof[] = "end of file expected";
    char text[sizeof e->text + 8];
    if (strncmp(e->text, eof, sizeof eof - 1) == 0)
        snprintf(text, sizeof text, "']' expected%s", e->text + sizeof eof - 1);
    else
        snprintf(text, sizeof text, "%s", e->text);
    return json_error(c, l, cc > 0 ? cc : 1, text, NO_NEAR, d);
}

/* Parses element el[0..n) that starts at line:col and hands it on. */
static gpi_status element(json_in *c, const char *el, size_t n, long line, long col, long *rows,
                          gpi_diag *d)
{
    json_error_t e;
    json_t *v = json_loadb(el, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (!v && json_error_code(&e) == json_error_numeric_overflow &&
        only_number_overflow(el, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e))
        return number_reject(c, el, n, line, &e, rows, d);
    if (!v) return parse_error(c, el, n, line, col, &e, d);
    char *raw = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    ++*rows;
    gpi_status rc = raw ? row_of(c, v, line, raw, d)
                        : gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->opt->path);
    free(raw);
    json_decref(v);
    return rc;
}

/* The place of the end of the file as jansson gives it: the last byte's
 * column (1 at the start of a line). */
static long eof_col(const scan *sc)
{
    return sc->col > 1 ? sc->col - 1 : 1;
}

/* f has just given the array's '[', at line:col.  An element's bytes are
 * collected until its value is complete (a bracket closed at depth 0, a
 * top-level string closed, or a bare token ended by a blank); after that
 * only blanks may come before ',' or ']', so they are not kept, and
 * anything else is reported where it stands. */
static gpi_status array_file(json_in *c, jrd *f, long line, long col, long *rows, gpi_diag *d)
{
    const char *path = c->opt->path;
    scan sc = {f, line, col, '['};
    char *el = malloc(MAX_LINE);
    if (!el) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    gpi_status rc = GPI_OK;
    int ch = skip_blank(&sc), more = ch != ']';
    while (rc == GPI_OK && more) {
        if (ch == EOF || ch == ',' || ch == ']') { /* no element where one must be */
            rc = json_error(c, sc.line, ch == EOF ? eof_col(&sc) : sc.col,
                            ch == EOF ? "']' expected" : "unexpected token", ch, d);
            break;
        }
        long el_line = sc.line, el_col = sc.col;
        size_t n = 0;
        int depth = 0, in_str = 0, esc = 0, done = 0;
        while (in_str || depth > 0 || (ch != ',' && ch != ']')) {
            if (ch == EOF) break;
            if (done) {
                if (!is_space(ch)) {
                    rc = json_error(c, sc.line, sc.col, "']' expected", ch, d);
                    break;
                }
            } else if (n == MAX_LINE) {
                /* a syntax error that kept the element open is reported
                 * as such; else the element is too long */
                json_error_t e;
                json_t *v = json_loadb(el, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
                json_decref(v);
                if (!v && (size_t)e.position < n)
                    rc = parse_error(c, el, n, el_line, el_col, &e, d);
                else
                    rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%ld: record longer than %d bytes",
                                      path, el_line, el_col, MAX_LINE);
                break;
            } else if (!in_str && depth == 0 && n > 0 && el[0] != '"' && is_space(ch)) {
                done = 1; /* a bare token ended */
            } else {
                el[n++] = (char)ch;
                if (in_str) {
                    if (esc) esc = 0;
                    else if (ch == '\\') esc = 1;
                    else if (ch == '"') {
                        in_str = 0;
                        done = depth == 0;
                    }
                } else if (ch == '"') {
                    in_str = 1;
                } else if (ch == '{' || ch == '[') {
                    depth++;
                } else if ((ch == '}' || ch == ']') && depth > 0) {
                    done = --depth == 0;
                }
            }
            ch = next_byte(&sc);
        }
        if (rc != GPI_OK) break;
        if (ch == EOF) { /* an unfinished element, or no ']' after a whole one */
            if (f->err) {
                rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(f->err));
                break;
            }
            json_error_t e;
            json_t *v = json_loadb(el, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
            json_decref(v);
            rc = v ? json_error(c, sc.line, eof_col(&sc), "']' expected", EOF, d)
                   : parse_error(c, el, n, el_line, el_col, &e, d);
            break;
        }
        rc = element(c, el, n, el_line, el_col, rows, d);
        more = ch == ',';
        if (more) ch = skip_blank(&sc);
    }
    if (rc == GPI_OK) { /* nothing but blanks after the array */
        ch = skip_blank(&sc);
        if (ch != EOF) rc = json_error(c, sc.line, sc.col, "end of file expected", ch, d);
        else if (f->err)
            rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(f->err));
    }
    free(el);
    return rc;
}

/* f has given the first line's leading blanks and its '{' (the n bytes
 * already in line, at most MAX_LINE + 1 bytes long), on line ln. */
static gpi_status ndjson_file(json_in *c, jrd *f, char *line, size_t n, long ln, int bom,
                              long *rows, gpi_diag *d)
{
    const char *path = c->opt->path;
    gpi_status rc = GPI_OK;
    for (ln--; rc == GPI_OK; n = 0) {
        int got = rd_line(f, line, MAX_LINE, &n);
        if (got == 0) break;
        ln++;
        if (got < 0) { /* note 1: the limit holds while the line is read */
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:1: record longer than %d bytes", path, ln,
                              MAX_LINE);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        line[n] = '\0';
        size_t k = strspn(line, " \t");
        if (line[k] == '\0') continue;
        json_error_t e;
        json_t *obj = json_loadb(line, n, JSON_REJECT_DUPLICATES, &e);
        if (!obj && json_error_code(&e) == json_error_numeric_overflow &&
            only_number_overflow(line, n, JSON_REJECT_DUPLICATES, &e)) {
            rc = number_reject(c, line, n, ln, &e, rows, d);
            continue;
        }
        if (!obj) {
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%d: invalid JSON: %s", path, ln,
                              (e.position > 0 ? e.position : 1) + (ln == 1 ? bom : 0), e.text);
            break;
        }
        ++*rows;
        rc = row_of(c, obj, ln, line, d);
        json_decref(obj);
    }
    if (rc == GPI_OK && f->err)
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(f->err));
    return rc;
}

gpi_status ingest_json(const ingest_tables *t, const ingest_opts *opt, norm_ctx *nc,
                       const ingest_sink *sink, FILE *fp, long *rows_read, char sha256[65],
                       int64_t *n_bytes, gpi_diag *d)
{
    (void)t;
    sha256[0] = '\0';
    gpi_sha256 h;
    gpi_sha256_init(&h);
    jrd r;
    memset(&r, 0, sizeof r);
    r.f = fp;
    r.h = &h;
    r.buf = malloc(RD_CHUNK);
    /* the first line's bytes up to its first non-blank (NDJSON reads the
     * line on from there), at most MAX_LINE + 1 of them */
    char *line = malloc(MAX_LINE + 1);
    if (!r.buf || !line) {
        free(r.buf);
        free(line);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", opt->path);
    }
    long line_no = 1, col = 1;
    int bom = 0;
    unsigned char head[3];
    int k = 0, ch;
    while (k < 3 && (ch = rd_getc(&r)) != EOF) head[k++] = (unsigned char)ch;
    if (k == 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0) { /* note 5 */
        bom = 3;
        col = 4;
    } else {
        while (k > 0) r.back[r.nback++] = head[--k];
    }
    size_t lb = 0; /* bytes of the current line so far */
    while ((ch = rd_getc(&r)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
        if (ch == '\n') {
            line_no++;
            col = 1;
            lb = 0;
        } else {
            col++;
            if (lb < MAX_LINE + 1) line[lb] = (char)ch;
            lb++;
        }
    }
    gpi_status rc;
    json_in c;
    memset(&c, 0, sizeof c);
    c.nc = nc;
    c.opt = opt;
    c.sink = sink;
    if (ch == EOF && r.err) {
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", opt->path, strerror(r.err));
    } else if (ch == EOF) {
        rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%ld: no data (the file is empty)", opt->path,
                          line_no, col);
    } else if (ch != '[' && ch != '{') {
        rc = gpi_diag_set(d, GPI_EINPUT,
                          "%s:%ld:%ld: invalid JSON: expected an array or one object per line",
                          opt->path, line_no, col);
    } else if (ch == '[') {
        rc = array_file(&c, &r, line_no, col, rows_read, d);
    } else if (lb + 1 > MAX_LINE) { /* blanks enough before the '{' to pass the limit */
        rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:1: record longer than %d bytes", opt->path,
                          line_no, MAX_LINE);
    } else {
        line[lb++] = '{';
        rc = ndjson_file(&c, &r, line, lb, line_no, bom, rows_read, d);
    }
    /* note 7: the hash of exactly the bytes read, and so parsed (a whole
     * file is read to its end); a failed file has none */
    gpi_sha256_final(&h, sha256);
    if (rc != GPI_OK) sha256[0] = '\0';
    *n_bytes = (int64_t)r.total;
    strmap_free(&c.warned);
    arena_free(&c.a);
    free(r.buf);
    free(line);
    return rc;
}
