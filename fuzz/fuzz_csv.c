/* fuzz/fuzz_csv.c -- differential: the CSV reader's fast path against
 * libcsv (core/csv_reader.c note 5), and whole against chunked feeding.
 *
 * The same bytes are read three ways: fed whole with the fast path, fed
 * whole through libcsv only (no_fast), and fed in chunks cut where the
 * input's first byte says (the fast path sees lines split across calls).
 * Every record (line, fields, raw text), the status and the message must
 * be the same; any difference aborts.
 */
#include "fuzz/fuzz.h"
#include "core/csv_reader.h"
#include "core/vec.h"

#include "ingest/internal.h"

typedef struct out {
    char *text;
    size_t n, cap;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (GPI_VEC_RESERVE(o->text, o->cap, o->n + n + 1) != 0) abort();
    memcpy(o->text + o->n, s, n);
    o->n += n;
    o->text[o->n] = '\0';
}

static gpi_status rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    (void)d;
    out *o = ud;
    char head[64];
    int k = snprintf(head, sizeof head, "%ld:%d[", r->line, r->n);
    put(o, head, (size_t)k);
    put(o, r->raw, r->raw_len);
    put(o, "]", 1);
    for (int i = 0; i < r->n; i++) {
        put(o, "<", 1);
        put(o, r->f[i], r->len[i]);
        put(o, ">", 1);
    }
    put(o, "\n", 1);
    return GPI_OK;
}

/* Reads data; chunk 0: whole. */
static void read_csv(const uint8_t *data, size_t size, int no_fast, size_t chunk, out *o)
{
    gpi_csv_reader r;
    gpi_diag d = {{0}};
    o->n = 0;
    put(o, "", 0);
    /* '#' comment lines (the tables' reader) or not (ingest), by the input */
    int comments = size > 1 && (data[1] & 1);
    if (gpi_csv_init(&r, "f.csv", comments, rec, o) != GPI_OK) abort();
    r.no_fast = no_fast;
    gpi_status rc = GPI_OK;
    for (size_t at = 0; rc == GPI_OK && at < size;) {
        size_t n = chunk ? (size - at < chunk ? size - at : chunk) : size;
        rc = gpi_csv_feed(&r, (const char *)data + at, n, &d);
        at += n;
    }
    if (rc == GPI_OK) rc = gpi_csv_finish(&r, &d);
    char tail[600];
    int k = snprintf(tail, sizeof tail, "status %d: %s\n", (int)rc, d.msg);
    put(o, tail, (size_t)k);
    gpi_csv_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static out a, b, c;
    read_csv(data, size, 0, 0, &a);
    read_csv(data, size, 1, 0, &b);
    read_csv(data, size, 0, size ? 1 + data[0] % 17 : 1, &c);
    if (strcmp(a.text, b.text) != 0) {
        fprintf(stderr, "fast path:\n%s\nlibcsv:\n%s\n", a.text, b.text);
        abort();
    }
    if (strcmp(a.text, c.text) != 0) {
        fprintf(stderr, "whole:\n%s\nchunked:\n%s\n", a.text, c.text);
        abort();
    }
    return 0;
}
