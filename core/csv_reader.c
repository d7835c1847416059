/* core/csv_reader.c -- the CSV reader (csv_reader.h): streaming records
 * over libcsv, with exact physical line numbers.
 *
 * NOTES ON THE DESIGN
 * (1) libcsv reports no positions, so bytes are fed one physical line (up
 *     to and including its LF) per csv_parse call.  Before each line, the
 *     parser state tells whether a record is in progress: libcsv's public
 *     struct keeps `pstate`, which is 0 (ROW_NOT_BEGUN in libcsv.c) between
 *     records; a record that starts on this line therefore starts here.
 *     Quoted newlines and CRLF come out right: lines are counted at LF and
 *     a CR before the LF belongs to the same line.  A bare CR (old Mac line
 *     ends) also ends a line; a CR that ends one call's bytes is taken as
 *     a line end, and an LF that starts the next call is then its CRLF's.
 * (2) A strict-mode parse error stops csv_parse early; its byte column is
 *     the bytes of the line fed before plus the bytes consumed, + 1.  An
 *     unterminated quote is only seen by csv_fini; it is located by
 *     re-scanning the pending record's raw text for the opening quote.
 * (3) Fields are copied into one reused buffer (fbuf) and the record's raw
 *     text into another (raw), so a row costs no allocation once the
 *     buffers have grown to the longest record.  A record longer than
 *     GPI_CSV_MAX_RECORD is a structural error (bounded memory on any input).
 * (4) Options CSV_STRICT|CSV_STRICT_FINI|CSV_APPEND_NULL (see
 *     reference/dependencies.md); unquoted surrounding spaces are trimmed
 *     by libcsv; blank lines are skipped.
 * (5) Fast path: a whole line that starts outside any record and holds no
 *     quote and no CR (except one right before its LF) cannot be anything
 *     but comma-separated unquoted fields, so it is split here with the
 *     same rules libcsv applies (fields trimmed of spaces and tabs; a line
 *     of only blanks is no record) and skips libcsv's per-byte state
 *     machine, which was a fifth of all ingest instructions.  Every other
 *     line goes through libcsv.  tests/test_ingest.c checks that both paths
 *     give the same records on generated input (no_fast forces libcsv).
 * (6) A UTF-8 byte-order mark at the start of the file (spreadsheets write
 *     one) is skipped, so the header's first name is read as written; the
 *     byte columns of line 1 still count it.
 */
#include "core/csv_reader.h"
#include "core/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GPI_CSV_MAX_RECORD (1u << 20)

static void on_field(void *s, size_t len, void *ud)
{
    gpi_csv_reader *r = ud;
    if (r->oom) return;
    size_t nf = (size_t)r->nf + 1;
    if (GPI_VEC_RESERVE(r->foff, r->cap_foff, nf) != 0 ||
        GPI_VEC_RESERVE(r->flen, r->cap_flen, nf) != 0 ||
        GPI_VEC_RESERVE(r->fptr, r->cap_fptr, nf) != 0 ||
        GPI_VEC_RESERVE(r->fbuf, r->fbuf_cap, r->fbuf_len + len + 1) != 0) {
        r->oom = 1;
        return;
    }
    if (len) memcpy(r->fbuf + r->fbuf_len, s, len);
    r->fbuf[r->fbuf_len + len] = '\0';
    r->foff[r->nf] = r->fbuf_len;
    r->flen[r->nf] = len;
    r->fbuf_len += len + 1;
    r->nf++;
}

static void on_row(int term, void *ud)
{
    (void)term;
    gpi_csv_reader *r = ud;
    if (r->st == GPI_OK && !r->oom) {
        for (int i = 0; i < r->nf; i++) r->fptr[i] = r->fbuf + r->foff[i];
        size_t rl = r->raw_len;
        while (rl && (r->raw[rl - 1] == '\n' || r->raw[rl - 1] == '\r')) rl--;
        r->raw[rl] = '\0'; /* raw_cap > raw_len always (see gpi_csv_feed) */
        gpi_csv_rec rec = {r->fptr, r->flen, r->nf, r->rec_line, r->raw, rl};
        r->st = r->fn(r->ud, &rec, r->d);
    }
    r->nf = 0;
    r->fbuf_len = 0;
}

gpi_status gpi_csv_init(gpi_csv_reader *r, const char *path, int comments, gpi_csv_rec_fn fn, void *ud)
{
    memset(r, 0, sizeof *r);
    if (csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return GPI_ENOMEM;
    r->path = path;
    r->comments = comments;
    r->fn = fn;
    r->ud = ud;
    r->line = 1;
    r->rec_line = 1;
    return GPI_OK;
}

void gpi_csv_free(gpi_csv_reader *r)
{
    csv_free(&r->p);
    free(r->raw);
    free(r->fbuf);
    free(r->foff);
    free(r->flen);
    free(r->fptr);
    memset(r, 0, sizeof *r);
}

static gpi_status oom(gpi_csv_reader *r, gpi_diag *d)
{
    return gpi_diag_set(d, GPI_ENOMEM, "%s:%ld: out of memory", r->path, r->rec_line);
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Note 5.  Returns 1 when the line was handled (len excludes the LF). */
static int fast_line(gpi_csv_reader *r, const char *s, size_t len)
{
    size_t end = len;
    if (end && s[end - 1] == '\r') end--;
    if (memchr(s, '"', end) || memchr(s, '\r', end)) return 0;
    size_t i = 0;
    while (i < end && blank(s[i])) i++;
    if (i == end) return 1; /* blank line: no record */
    size_t start = 0;
    for (;;) {
        const char *comma = memchr(s + start, ',', end - start);
        size_t stop = comma ? (size_t)(comma - s) : end;
        size_t a = start, b = stop;
        while (a < b && blank(s[a])) a++;
        while (b > a && blank(s[b - 1])) b--;
        on_field((void *)(s + a), b - a, r);
        if (!comma) break;
        start = stop + 1;
    }
    on_row('\n', r);
    return 1;
}

/* The last byte of the first line end in buf: an LF, or a CR that no LF
 * follows in buf (note 1); NULL when the line goes on. */
static const char *line_end(const char *buf, size_t n)
{
    const char *nl = memchr(buf, '\n', n);
    const char *cr = memchr(buf, '\r', nl ? (size_t)(nl - buf) : n);
    return cr && cr + 1 != nl ? cr : nl;
}

static gpi_status feed(gpi_csv_reader *r, const char *buf, size_t n, gpi_diag *d)
{
    r->d = d;
    if (r->after_cr && n > 0 && buf[0] == '\n') {
        /* the LF of a CRLF split between calls: its line is counted */
        if (r->p.pstate == 0 && !r->in_comment) {
            buf++; /* between records libcsv would skip it too */
            n--;
        } else {
            r->line--; /* inside a quoted field: fed below, counted again */
        }
    }
    r->after_cr = 0;
    while (n > 0) {
        const char *nl = line_end(buf, n);
        size_t piece = nl ? (size_t)(nl - buf) + 1 : n;
        if (r->col0 == 0 && r->p.pstate == 0) {
            if (r->comments && buf[0] == '#') r->in_comment = 1;
            r->rec_line = r->line;
            r->raw_len = 0;
        }
        if (r->in_comment) {
            if (nl) r->in_comment = 0;
        } else {
            if (r->raw_len + piece > GPI_CSV_MAX_RECORD)
                return gpi_diag_set(d, GPI_EINPUT, "%s:%ld:1: record longer than %u bytes",
                                    r->path, r->rec_line, GPI_CSV_MAX_RECORD);
            if (GPI_VEC_RESERVE(r->raw, r->raw_cap, r->raw_len + piece + 1) != 0) return oom(r, d);
            memcpy(r->raw + r->raw_len, buf, piece);
            r->raw_len += piece;
            if (nl && r->col0 == 0 && r->p.pstate == 0 && !r->no_fast &&
                fast_line(r, buf, piece - 1)) {
                if (r->oom) return oom(r, d);
                if (r->st != GPI_OK) return r->st;
                r->line++;
                r->after_cr = *nl == '\r' && piece == n;
                buf += piece;
                n -= piece;
                continue;
            }
            size_t used = csv_parse(&r->p, buf, piece, on_field, on_row, r);
            if (r->oom) return oom(r, d);
            if (r->st != GPI_OK) return r->st;
            if (used < piece) {
                if (csv_error(&r->p) != CSV_EPARSE) return oom(r, d);
                return gpi_diag_set(d, GPI_EINPUT,
                                    "%s:%ld:%zu: malformed quoting (a quote inside an unquoted "
                                    "field, or text after a closing quote)",
                                    r->path, r->line,
                                    r->col0 + used + 1 + (r->line == 1 ? (size_t)r->bom : 0));
            }
        }
        if (nl) {
            r->line++;
            r->col0 = 0;
            r->after_cr = *nl == '\r' && piece == n;
        } else {
            r->col0 += piece;
        }
        buf += piece;
        n -= piece;
    }
    return GPI_OK;
}

static const char bom_bytes[3] = {'\xEF', '\xBB', '\xBF'};

/* Note 6; the BOM may arrive split over several calls. */
gpi_status gpi_csv_feed(gpi_csv_reader *r, const char *buf, size_t n, gpi_diag *d)
{
    while (r->bom_k >= 0 && n > 0) {
        if (buf[0] == bom_bytes[r->bom_k]) {
            buf++;
            n--;
            if (++r->bom_k == 3) {
                r->bom = 3;
                r->bom_k = -1;
            }
        } else {
            int held = r->bom_k;
            r->bom_k = -1;
            gpi_status rc = held ? feed(r, bom_bytes, (size_t)held, d) : GPI_OK;
            if (rc != GPI_OK) return rc;
        }
    }
    return n ? feed(r, buf, n, d) : GPI_OK;
}

/* Finds the opening quote of the unterminated field in the pending raw
 * record: returns its line and byte column. */
static void open_quote(const gpi_csv_reader *r, long *line, size_t *col)
{
    size_t open = 0;
    int inq = 0, at_start = 1;
    for (size_t i = 0; i < r->raw_len; i++) {
        char c = r->raw[i];
        if (inq) {
            if (c == '"') {
                if (i + 1 < r->raw_len && r->raw[i + 1] == '"') i++;
                else inq = 0;
            }
            continue;
        }
        if (c == '"' && at_start) {
            inq = 1;
            open = i;
        }
        at_start = c == ',' || c == '\n' || c == '\r' || (at_start && (c == ' ' || c == '\t'));
    }
    long ln = r->rec_line;
    size_t ls = 0;
    for (size_t i = 0; i < open; i++)
        if (r->raw[i] == '\n' ||
            (r->raw[i] == '\r' && (i + 1 == r->raw_len || r->raw[i + 1] != '\n'))) {
            ln++;
            ls = i + 1;
        }
    *line = ln;
    *col = open - ls + 1 + (ln == 1 ? (size_t)r->bom : 0);
}

gpi_status gpi_csv_finish(gpi_csv_reader *r, gpi_diag *d)
{
    if (r->bom_k > 0) { /* the file ended inside what looked like a BOM */
        int held = r->bom_k;
        r->bom_k = -1;
        gpi_status rc = feed(r, bom_bytes, (size_t)held, d);
        if (rc != GPI_OK) return rc;
    }
    r->d = d;
    if (csv_fini(&r->p, on_field, on_row, r) != 0) {
        if (csv_error(&r->p) != CSV_EPARSE) return oom(r, d);
        long line;
        size_t col;
        open_quote(r, &line, &col);
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld:%zu: unterminated quoted field", r->path,
                            line, col);
    }
    if (r->oom) return oom(r, d);
    return r->st;
}

/* ---- gpi_csv_read_text ---------------------------------------------- */

typedef struct text_ctx {
    gpi_csv_row_fn fn;
    void *ud;
} text_ctx;

static gpi_status text_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    const text_ctx *t = ud;
    return t->fn(t->ud, r->f, r->n, r->line, d);
}

gpi_status gpi_csv_read_recs(const char *path, const char *buf, size_t len, int comments,
                             gpi_csv_rec_fn fn, void *ud, gpi_diag *d)
{
    gpi_csv_reader r;
    if (gpi_csv_init(&r, path, comments, fn, ud) != GPI_OK)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    gpi_status rc = gpi_csv_feed(&r, buf, len, d);
    if (rc == GPI_OK) rc = gpi_csv_finish(&r, d);
    gpi_csv_free(&r);
    return rc;
}

gpi_status gpi_csv_read_text(const char *path, const char *buf, size_t len, gpi_csv_row_fn fn,
                           void *ud, gpi_diag *d)
{
    text_ctx t = {fn, ud};
    return gpi_csv_read_recs(path, buf, len, 0, text_rec, &t, d);
}

/* ---- gpi_csv_read_stream --------------------------------------------- */

#define GPI_CSV_CHUNK (64u * 1024)

gpi_status gpi_csv_read_stream(FILE *f, const char *path, int comments, gpi_csv_rec_fn fn,
                               void *ud, gpi_diag *d)
{
    gpi_csv_reader r;
    char *buf = malloc(GPI_CSV_CHUNK);
    if (!buf || gpi_csv_init(&r, path, comments, fn, ud) != GPI_OK) {
        free(buf);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    gpi_status rc = GPI_OK;
    size_t n;
    while (rc == GPI_OK && (n = fread(buf, 1, GPI_CSV_CHUNK, f)) > 0)
        rc = gpi_csv_feed(&r, buf, n, d);
    if (rc == GPI_OK && ferror(f))
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(errno));
    if (rc == GPI_OK) rc = gpi_csv_finish(&r, d);
    gpi_csv_free(&r);
    free(buf);
    return rc;
}

int gpi_csv_rec_nul(const gpi_csv_rec *r)
{
    for (int i = 0; i < r->n; i++)
        if (memchr(r->f[i], '\0', r->len[i])) return 1;
    return 0;
}
