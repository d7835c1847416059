/* core/csv_reader.h -- the CSV reader: the one every CSV input of gpuidx
 * goes through (observations, the normalization tables -- at ingest and in
 * index/grade_tables.c --, published files read back by verify, positions,
 * rent and forward prices, deployments, the accuracy figures of the site).
 * RFC 4180 quoting over libcsv, LF, CRLF or CR line
 * ends, a UTF-8 byte-order mark skipped, blank lines skipped, unquoted
 * fields trimmed of spaces and tabs, exact physical line numbers and byte
 * columns for every error ("path:line:col: reason"), and bounded memory
 * (a record over 1 MiB is an error).  Design notes in core/csv_reader.c.
 *
 * Streaming: gpi_csv_init, then gpi_csv_feed with the bytes in pieces of
 * any size, gpi_csv_finish at the end and gpi_csv_free always.  The
 * reader owns its buffers; a record's fields are valid during its
 * callback only.
 */
#ifndef GPI_CSV_READER_H
#define GPI_CSV_READER_H

#include <csv.h>
#include <stddef.h>
#include <stdio.h>

#include "core/gpi.h"

/* One record.  f[i] is NUL-terminated (embedded NULs end it early);
 * line is the physical line (1-based, counted at LF) where it starts;
 * raw is its text without the final line break. */
typedef struct gpi_csv_rec {
    const char *const *f;
    const size_t *len;
    int n;
    long line;
    const char *raw;
    size_t raw_len;
} gpi_csv_rec;

/* Called per record; a non-OK return stops the read and is returned. */
typedef gpi_status (*gpi_csv_rec_fn)(void *ud, const gpi_csv_rec *r, gpi_diag *d);

typedef struct gpi_csv_reader {
    struct csv_parser p;
    const char *path;       /* for messages, as given */
    int comments;           /* lines starting with '#' are skipped */
    int no_fast;            /* tests: always go through libcsv */
    gpi_csv_rec_fn fn;
    void *ud;
    gpi_diag *d;
    gpi_status st;          /* first callback failure */
    long line;              /* current physical line */
    size_t col0;            /* bytes of the current line already fed */
    int in_comment;
    long rec_line;
    char *raw;              /* text of the current record */
    size_t raw_len, raw_cap;
    char *fbuf;             /* fields of the current record, NUL-separated */
    size_t fbuf_len, fbuf_cap;
    size_t *foff, *flen;    /* offsets into fbuf */
    const char **fptr;
    int nf;
    size_t cap_foff, cap_flen, cap_fptr;
    int oom;
    int bom_k;              /* BOM bytes matched so far (0..2), -1 when decided */
    int bom;                /* 3 when line 1 began with a UTF-8 BOM (skipped) */
    int after_cr;           /* the last call ended a line at a CR (an LF may follow) */
} gpi_csv_reader;

gpi_status gpi_csv_init(gpi_csv_reader *r, const char *path, int comments, gpi_csv_rec_fn fn, void *ud);
/* Feeds bytes; structural errors come back as GPI_EINPUT with
 * "path:line:col: reason" in d. */
gpi_status gpi_csv_feed(gpi_csv_reader *r, const char *buf, size_t n, gpi_diag *d);
gpi_status gpi_csv_finish(gpi_csv_reader *r, gpi_diag *d);
void gpi_csv_free(gpi_csv_reader *r);

/* The whole text buf[0..len) at once, for files read into memory: the records
 * of the text buf[0..len) -- RFC 4180 quoting, LF or CRLF, a UTF-8 BOM
 * skipped, blank lines skipped, unquoted fields trimmed of spaces -- one
 * call of fn per record with its fields (valid during the call) and the
 * physical line it starts on.  path names the text in messages
 * ("path:line:col: unterminated quoted field").  A non-OK return of fn
 * stops the read and is returned. */
typedef gpi_status (*gpi_csv_row_fn)(void *ud, const char *const *field, int n, long line,
                                    gpi_diag *d);
gpi_status gpi_csv_read_text(const char *path, const char *buf, size_t len, gpi_csv_row_fn fn,
                           void *ud, gpi_diag *d);

/* The same with whole records (raw text and field lengths) and the
 * comments option of gpi_csv_init. */
gpi_status gpi_csv_read_recs(const char *path, const char *buf, size_t len, int comments,
                             gpi_csv_rec_fn fn, void *ud, gpi_diag *d);

/* The records of an open file, read to its end in pieces of 64 KiB (memory
 * stays bounded: a record over 1 MiB is an error).  The caller opens f
 * (its own messages for a missing file), checks its encoding and closes
 * it; a read error is "path: read error: reason". */
gpi_status gpi_csv_read_stream(FILE *f, const char *path, int comments, gpi_csv_rec_fn fn,
                               void *ud, gpi_diag *d);

/* 1 when a field of r holds a NUL byte (the reader ends the field's string
 * there; small readers refuse the row: "row: contains a NUL byte"). */
int gpi_csv_rec_nul(const gpi_csv_rec *r);

#endif
