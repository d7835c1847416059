/* ingest/ingest.c -- ingest_file: format dispatch, the CSV header, rows to
 * the sink, and file hashing.
 *
 * NOTES ON THE DESIGN
 * (1) Format by extension: .json, .ndjson, .jsonl are JSON (json.c),
 *     everything else is canonical CSV.
 * (2) CSV: the first record is the header.  Column names are matched
 *     case-insensitively; an unknown column is warned about once and
 *     ignored (the first INGEST_MAX_UNKNOWN_WARNINGS by name, then one
 *     line with the count of the rest); a duplicate column, a header without a required column
 *     (observed_at, provider, gpu, price; kind unless the command names
 *     it; quantity for `ingest trades`) or no header at all is a
 *     structural error "path:line:col: reason".  A data row with a
 *     different number of fields than the header is rejected.
 * (3) The file is read in 256 KiB chunks through a reused buffer; rows go
 *     straight from libcsv's callbacks through normalize_row to the sink.
 * (4) The file's SHA-256 is computed in the same pass, of exactly the
 *     bytes parsed (CSV here, JSON in json.c), with core/sha256.c, which
 *     is libcrypto's (SHA-NI where the CPU has it): a portable C SHA-256
 *     took a quarter of all ingest instructions.
 * (5) A CSV's final line without a line end (LF or CR) is held back: its
 *     bytes are neither parsed nor hashed, and a warning names its line
 *     (issue 31: a collector appending "...,2.75\n" while cron ingested
 *     the file stored 2.7; the finished file then conflicted, or, for a
 *     trade without an id, came back as a second trade).  The file's hash
 *     is so the hash of its complete lines: the same unfinished file read
 *     again is skipped, and the finished one is a new file whose complete
 *     lines are duplicates and whose last line is stored.  Nothing is
 *     lost and no cut value is stored.  opt->complete (ingest --complete:
 *     a file known to be whole) reads the final line as a record.  A line
 *     that never ends stops being held back past 1 MiB (longer than any
 *     record the reader takes: it reports it).  A tail of spaces and tabs
 *     holds no record and is read.  JSON needs no such rule: a cut object
 *     is invalid JSON (a reject, or a failed file for an array), and a
 *     line of NDJSON is whole when its object closes.
 */
#include "ingest/internal.h"
#include "core/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define CHUNK (256u << 10)
#define PROGRESS_EVERY (4u << 20)

gpi_status ingest_emit(norm_ctx *nc, const ingest_sink *sink, const norm_row *r,
                       const char *raw, gpi_diag *d)
{
    gpi_obs o;
    const char *col = NULL;
    char msg[512];
    int stop;
    if (!normalize_row(nc, r, &o, &col, msg, sizeof msg))
        return ingest_reject(sink, nc->path, r->line, col, raw, msg, d);
    stop = sink->obs(sink->ud, &o, raw);
    if (stop) return gpi_diag_set(d, GPI_ESTORE, "%s:%ld: stopped by the store", nc->path, r->line);
    return GPI_OK;
}

gpi_status ingest_reject(const ingest_sink *sink, const char *path, long line, const char *col,
                         const char *raw, const char *msg, gpi_diag *d)
{
    if (sink->reject(sink->ud, line, col, raw, msg))
        return gpi_diag_set(d, GPI_ESTORE, "%s:%ld: stopped by the store", path, line);
    return GPI_OK;
}

typedef struct csv_in {
    norm_ctx *nc;
    const ingest_opts *opt;
    const ingest_sink *sink;
    int header_done;
    int ncols;
    int *col_field;           /* column -> field or -1 */
    char *names;              /* header names, NUL-separated */
    norm_row row;             /* names filled once; values per row */
    int field_col[F__N];      /* field -> column or -1 */
    long rows;
    const gpi_csv_reader *rd;           /* the reader (its BOM counts in line 1's columns) */
} csv_in;

/* 1-based byte column of field k in a raw header line. */
static size_t field_col(const char *raw, size_t n, int k)
{
    int inq = 0, f = 0;
    for (size_t i = 0; i < n; i++) {
        if (f == k) return i + 1;
        if (raw[i] == '"') inq = !inq;
        else if (raw[i] == ',' && !inq) f++;
    }
    return n + 1;
}

/* Note 2: the header.  Unknown columns are found in one pass through a
 * map of their lower-case spellings (a header of 261,078 unknown columns
 * took 184 s when each was compared with every one before it), and only
 * the first INGEST_MAX_UNKNOWN_WARNINGS are named, then one line counts
 * the rest. */
static gpi_status header(csv_in *c, const gpi_csv_rec *r, gpi_diag *d)
{
    const char *path = c->opt->path;
    size_t total = 0;
    for (int i = 0; i < r->n; i++) total += r->len[i] + 1;
    c->names = malloc(total + 1);
    c->col_field = malloc(((size_t)r->n + 1) * sizeof *c->col_field);
    char *lower = malloc(total + 1);
    strmap unknown = {0};
    gpi_status rc = GPI_OK;
    if (!c->names || !c->col_field || !lower) {
        rc = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (int f = 0; f < F__N; f++) c->field_col[f] = -1;
    size_t off = 0;
    int known = 0;
    long n_unknown = 0;
    for (int i = 0; i < r->n; i++) {
        char *name = c->names + off, *low = lower + off;
        memcpy(name, r->f[i], r->len[i] + 1);
        off += r->len[i] + 1;
        int f = field_lookup(name);
        c->col_field[i] = f;
        if (f < 0) {
            size_t n = strlen(name); /* a NUL in a name ends it, as for strcasecmp */
            for (size_t k = 0; k <= n; k++) low[k] = (char)tolower((unsigned char)name[k]);
            if (strmap_get(&unknown, low, n) >= 0) continue; /* named already */
            if (strmap_put(&unknown, low, n, 1) != 0) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
                goto out;
            }
            if (++n_unknown <= INGEST_MAX_UNKNOWN_WARNINGS && c->sink->warn) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s:%ld: unknown column \"%.100s\" ignored", path,
                         r->line, name);
                c->sink->warn(c->sink->ud, msg);
            }
            continue;
        }
        if (c->field_col[f] >= 0) {
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%zu: duplicate column \"%.100s\"", path,
                              r->line,
                              field_col(r->raw, r->raw_len, i) +
                                  (r->line == 1 ? (size_t)c->rd->bom : 0),
                              name);
            goto out;
        }
        c->field_col[f] = i;
        c->row.name[f] = name;
        known++;
    }
    if (n_unknown > INGEST_MAX_UNKNOWN_WARNINGS && c->sink->warn) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s:%ld: %ld more unknown columns ignored (not named)", path,
                 r->line, n_unknown - INGEST_MAX_UNKNOWN_WARNINGS);
        c->sink->warn(c->sink->ud, msg);
    }
    if (!known) {
        rc = gpi_diag_set(d, GPI_EINPUT,
                          "%s:%ld:1: no header row (the first row names no known column)", path,
                          r->line);
        goto out;
    }
    int need[] = {F_KIND, F_OBSERVED_AT, F_PROVIDER, F_GPU, F_PRICE, F_QUANTITY};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        int f = need[k];
        if (f == F_KIND && c->opt->kind >= 0) continue;
        if (f == F_QUANTITY && c->opt->kind != GPI_TRADE) continue;
        if (c->field_col[f] < 0) {
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:%ld:1: header: missing required column \"%s\"",
                              path, r->line, field_names[f]);
            goto out;
        }
    }
    c->ncols = r->n;
    c->header_done = 1;
out:
    strmap_free(&unknown);
    free(lower);
    return rc;
}

/* What is wrong with the text s[0..n), in one pass: NULL when it is
 * well-formed UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF) without NUL bytes.  Fields are C strings from here on (a NUL
 * would cut one short without a word), and published files and JSON need
 * UTF-8. */
static const char *text_fault(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    const char *bad = NULL;
    while (p < e) {
        unsigned c = *p;
        if (c < 0x80) {
            if (!c) return "contains a NUL byte";
            p++;
            continue;
        }
        size_t k = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
                 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
        unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
        int ok = k && (size_t)(e - p) > k && p[1] >= lo && p[1] <= hi;
        for (size_t i = 2; ok && i <= k; i++) ok = (p[i] & 0xC0) == 0x80;
        if (!ok) bad = "not valid UTF-8"; /* a NUL later still wins */
        p += ok ? k + 1 : 1;
    }
    return bad;
}

/* Rejects row r for the fault `why` of field f (column k): the echo shows
 * bytes outside printable ASCII as \xHH, and the raw row keeps every byte
 * (a NUL written as \0). */
static gpi_status bad_text(csv_in *c, const gpi_csv_rec *r, int f, int k, const char *why,
                           gpi_diag *d)
{
    char msg[256], got[96];
    size_t g = 0, i = 0;
    got[0] = '\0';
    for (; i < r->len[k] && g + 4 < 80; i++) {
        unsigned char q = (unsigned char)r->f[k][i];
        g += (size_t)(q >= 0x20 && q < 0x7F ? snprintf(got + g, sizeof got - g, "%c", q)
                                            : snprintf(got + g, sizeof got - g, "\\x%02X", q));
    }
    snprintf(msg, sizeof msg, "%s:%ld: %s: %s (got \"%s%s\")", c->opt->path, r->line,
             c->row.name[f], why, got, i < r->len[k] ? "..." : "");
    char *raw = malloc(2 * r->raw_len + 1);
    if (!raw) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->opt->path);
    size_t o = 0;
    for (size_t b = 0; b < r->raw_len; b++) {
        if (r->raw[b] == '\0') raw[o++] = '\\';
        raw[o++] = r->raw[b] == '\0' ? '0' : r->raw[b];
    }
    raw[o] = '\0';
    gpi_status rc = ingest_reject(c->sink, c->opt->path, r->line, c->row.name[f], raw, msg, d);
    free(raw);
    return rc;
}

static gpi_status on_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    csv_in *c = ud;
    if (!c->header_done) return header(c, r, d);
    c->rows++;
    c->row.line = r->line;
    if (r->n != c->ncols) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s:%ld: row has %d fields, the header has %d", c->opt->path,
                 r->line, r->n, c->ncols);
        return ingest_reject(c->sink, c->opt->path, r->line, NULL, r->raw, msg, d);
    }
    for (int f = 0; f < F__N; f++) {
        int k = c->field_col[f];
        c->row.v[f] = k >= 0 ? r->f[k] : NULL;
        const char *why = k >= 0 ? text_fault(r->f[k], r->len[k]) : NULL;
        if (why) return bad_text(c, r, f, k, why, d);
    }
    return ingest_emit(c->nc, c->sink, &c->row, r->raw, d);
}

/* ---- note 5: the final line held back ----------------------------------- */

/* The bytes since the last line end. */
typedef struct held {
    char *p;
    size_t n, cap;
} held;

/* A held line longer than any record: read (the reader reports it). */
#define HELD_MAX ((size_t)(1u << 20) + 64)

static gpi_status feed(gpi_csv_reader *r, gpi_sha256 *sha, const char *b, size_t n, gpi_diag *d)
{
    gpi_sha256_update(sha, b, n);
    return gpi_csv_feed(r, b, n, d);
}

static int blank(const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != ' ' && b[i] != '\t') return 0;
    return 1;
}

/* Feeds the held bytes and buf up to its last line end; keeps the rest. */
static gpi_status feed_lines(gpi_csv_reader *r, gpi_sha256 *sha, held *h, const char *buf,
                             size_t n, gpi_diag *d)
{
    size_t k = n;
    while (k > 0 && buf[k - 1] != '\n' && buf[k - 1] != '\r') k--;
    gpi_status rc = GPI_OK;
    if (k > 0 || h->n + n > HELD_MAX) {
        if (k == 0) k = n; /* a line that never ends */
        if (h->n) rc = feed(r, sha, h->p, h->n, d);
        h->n = 0;
        if (rc == GPI_OK) rc = feed(r, sha, buf, k, d);
    }
    if (rc == GPI_OK && k < n) {
        if (GPI_VEC_RESERVE(h->p, h->cap, h->n + (n - k)) != 0)
            return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", r->path);
        memcpy(h->p + h->n, buf + k, n - k);
        h->n += n - k;
    }
    return rc;
}

static gpi_status ingest_csv(const ingest_opts *opt, norm_ctx *nc, const ingest_sink *sink,
                             FILE *f, ingest_result *res, gpi_diag *d)
{
    struct stat sb;
    uint64_t total = fileno(f) >= 0 && fstat(fileno(f), &sb) == 0 ? (uint64_t)sb.st_size : 0;
    char *buf = malloc(CHUNK);
    csv_in c;
    memset(&c, 0, sizeof c);
    c.nc = nc;
    c.opt = opt;
    c.sink = sink;
    gpi_csv_reader r;
    c.rd = &r;
    gpi_status rc = buf ? gpi_csv_init(&r, opt->path, 0, on_rec, &c) : GPI_ENOMEM;
    if (rc != GPI_OK) {
        free(buf);
        return gpi_diag_set(d, rc, "%s: out of memory", opt->path);
    }
    uint64_t done = 0, next_progress = PROGRESS_EVERY;
    size_t n;
    gpi_sha256 sha;
    gpi_sha256_init(&sha);
    held h = {NULL, 0, 0};
    while (rc == GPI_OK && (n = fread(buf, 1, CHUNK, f)) > 0) {
        done += n;
        if (opt->complete) rc = feed(&r, &sha, buf, n, d);
        else rc = feed_lines(&r, &sha, &h, buf, n, d);
        if (sink->progress && done >= next_progress) {
            sink->progress(sink->ud, done, total);
            next_progress = done + PROGRESS_EVERY;
        }
    }
    if (rc == GPI_OK && ferror(f))
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", opt->path, strerror(errno));
    if (rc == GPI_OK && h.n && blank(h.p, h.n)) { /* note 5: no record in it */
        rc = feed(&r, &sha, h.p, h.n, d);
        h.n = 0;
    }
    if (rc == GPI_OK) rc = gpi_csv_finish(&r, d);
    if (rc == GPI_OK && !c.header_done && h.n)
        rc = gpi_diag_set(d, GPI_EINPUT,
                          "%s:%ld:1: no complete line: the file has no line end (still being "
                          "written? --complete reads a file known to be whole)",
                          opt->path, r.line);
    if (rc == GPI_OK && !c.header_done)
        rc = gpi_diag_set(d, GPI_EINPUT, "%s:1:1: no header row (the file is empty)", opt->path);
    if (rc == GPI_OK && h.n && sink->warn) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "%s:%ld: the last line has no line end: held back, not read (a file still "
                 "being written?); it is read when the file is ingested again with its line "
                 "end, or now with --complete",
                 opt->path, r.line);
        sink->warn(sink->ud, msg);
    }
    res->rows_read = c.rows;
    res->n_bytes = (int64_t)(done - h.n);
    res->held_back = (int64_t)h.n;
    gpi_sha256_final(&sha, res->sha256);
    gpi_csv_free(&r);
    free(h.p);
    free(c.names);
    free(c.col_field);
    free(buf);
    return rc;
}

static int has_ext(const char *path, size_t n, const char *ext)
{
    size_t e = strlen(ext);
    return n > e && strncasecmp(path + n - e, ext, e) == 0;
}

/* .json, .ndjson, .jsonl, each also with a final .gz (source.c note 2). */
static int is_json_name(const char *path)
{
    size_t n = strlen(path);
    if (has_ext(path, n, ".gz")) n -= 3;
    return has_ext(path, n, ".json") || has_ext(path, n, ".ndjson") || has_ext(path, n, ".jsonl");
}

gpi_status ingest_file(const ingest_tables *t, const ingest_opts *opt, const ingest_sink *sink,
                       ingest_result *res, gpi_diag *d)
{
    if (!res) return gpi_diag_set(d, GPI_EUSAGE, "ingest_file: missing argument");
    memset(res, 0, sizeof *res);
    if (!t || !opt || !opt->path || !sink || !sink->obs || !sink->reject)
        return gpi_diag_set(d, GPI_EUSAGE, "ingest_file: missing argument");
    if (opt->threads > 1) return ingest_file_piped(t, opt, sink, res, d);
    ingest_source src;
    gpi_status rc = ingest_source_open(opt->path, &src, d);
    if (rc != GPI_OK) return rc;
    /* messages name standard input "stdin" */
    ingest_opts o = *opt;
    if (src.is_stdin) o.path = "stdin";
    norm_ctx nc;
    memset(&nc, 0, sizeof nc);
    nc.t = t;
    nc.path = o.path;
    nc.kind_hint = o.kind;
    nc.admit_providers = o.admit_providers;
    nc.sink = sink;
    const char *base = strrchr(o.path, '/');
    nc.default_source = o.source && *o.source ? o.source : base ? base + 1 : o.path;
    if (src.is_stdin ? src.first == '[' || src.first == '{' : is_json_name(o.path))
        rc = ingest_json(t, &o, &nc, sink, src.f, &res->rows_read, res->sha256, &res->n_bytes, d);
    else
        rc = ingest_csv(&o, &nc, sink, src.f, res, d);
    if (rc == GPI_EIO && src.err[0]) /* zlib says what is wrong with a gzip file */
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", o.path, src.err);
    ingest_source_close(&src);
    if (rc != GPI_OK) res->sha256[0] = '\0'; /* a partial file has no hash */
    norm_ctx_free(&nc);
    return rc;
}

gpi_status ingest_file_sha256(const char *path, char out[65], gpi_diag *d)
{
    if (!path || !out) return gpi_diag_set(d, GPI_EUSAGE, "ingest_file_sha256: missing argument");
    ingest_source src;
    gpi_status orc = ingest_source_open(path, &src, d);
    if (orc != GPI_OK) return orc;
    FILE *f = src.f;
    char *buf = malloc(1u << 20);
    if (!buf) {
        out[0] = '\0';
        fclose(f);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    gpi_sha256 h;
    gpi_sha256_init(&h);
    size_t n;
    while ((n = fread(buf, 1, 1u << 20, f)) > 0) gpi_sha256_update(&h, buf, n);
    int err = ferror(f);
    free(buf);
    fclose(f);
    gpi_sha256_final(&h, out);
    if (err) return gpi_diag_set(d, GPI_EIO, "%s: read error", path);
    return GPI_OK;
}
