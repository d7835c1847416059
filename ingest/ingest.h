/* ingest/ingest.h -- read observation files and normalize them (SPEC §3).
 *
 * Files -> gpi_obs records.  This module parses canonical CSV (libcsv,
 * streaming, exact physical line numbers) and JSON (an array, or one object
 * per line), and normalizes every row through the tables of data/
 * (gpus.csv, providers.csv, tiers.csv, fx.csv).  It never touches the
 * database and never prints: records, rejects and warnings go to the
 * caller's sink, which decides what to store.
 *
 * Messages have the SPEC's form, with the path as the caller gave it:
 *   rows:       "offers.csv:17: price: not a number (got \"abc\")"
 *   structure:  "offers.csv:40:12: unterminated quoted field"
 * Line numbers are physical lines (counted at LF, quoted newlines
 * included) where the record starts; NDJSON rows carry their line, JSON
 * array elements the line where they start.  A file that cannot be opened is
 * GPI_EIO "path: cannot open: reason".  Format by extension: .json,
 * .ndjson, .jsonl are JSON, anything else canonical CSV; a gzip file is
 * decompressed (by its content; a final ".gz" is ignored when choosing
 * the format).  The path "-" is standard input (messages say "stdin"),
 * JSON when its first byte is '[' or '{'.
 * A structural error (unterminated quote, invalid JSON, no header, a
 * missing required column, an unreadable file) makes ingest_file return
 * GPI_EINPUT with the message in d; the caller must then discard everything
 * the sink received for that file (one file is one transaction).
 *
 * Ownership: ingest_tables_load() returns tables freed with
 * ingest_tables_free(); records and strings passed to the sink are valid
 * only during the callback.
 */
#ifndef GPI_INGEST_H
#define GPI_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/obs.h"

typedef struct ingest_tables ingest_tables;

/* Loads gpus.csv, providers.csv, tiers.csv, fx.csv and (when present)
 * skus.csv from dir.  A bad table row is an error naming file:line. */
gpi_status ingest_tables_load(const char *dir, ingest_tables **out, gpi_diag *d);
void ingest_tables_free(ingest_tables *t);
/* SHA-256 over the tables' bytes, recorded with every batch. */
const char *ingest_tables_sha256(const ingest_tables *t);

/* Where parsed rows go.  Each callback returns 0 to go on; non-zero stops
 * the file with GPI_ESTORE (the callback fills d through ud). */
typedef struct ingest_sink {
    /* A normalized observation.  raw_row is the row as read (for a later
     * conflict reject). */
    int (*obs)(void *ud, const gpi_obs *o, const char *raw_row);
    /* A rejected row: physical line, column name (header spelling, or NULL
     * for the row as a whole), raw row, and the full message
     * "path:line: column: reason (got "value")". */
    int (*reject)(void *ud, long line, const char *column, const char *raw_row,
                  const char *msg);
    /* A warning that is not a reject, e.g. "offers.csv:1: unknown column
     * \"foo\" ignored".  May be NULL. */
    void (*warn)(void *ud, const char *msg);
    /* Progress in bytes; may be NULL.  Called at most every 4 MiB. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} ingest_sink;

typedef struct ingest_opts {
    const char *path;     /* file to read */
    int kind;             /* GPI_OFFER / GPI_TRADE from `ingest offers|trades`,
                             or -1: the file's kind column decides */
    const char *source;   /* --source, or NULL: the file name is the default */
    int threads;          /* 2: parse in a second thread while the caller's
                             thread runs the sink (same callbacks, same
                             order, same thread as with 0 or 1: one thread) */
    int admit_providers;  /* 1: a provider providers.csv does not list is
                             stored as its own group (one warning per new
                             name); 0: such rows are rejected */
    long number_after;    /* threads 2: observations read before the parser
                             starts numbering profiles and identities
                             (pipe.c note 5): 1 numbers from the second
                             on; 0 or less: INGEST_NUMBER_AFTER */
    int complete;         /* CSV: 1 the file is known to be complete: a final
                             line without a line end is read as a record; 0
                             (default) it is held back (ingest.c note 5) */
} ingest_opts;

/* Numbering pays when a file holds many days of the same offers; a day's
 * file (one row per offer) has as many profiles as rows. */
#define INGEST_NUMBER_AFTER 65536L

typedef struct ingest_result {
    long rows_read;       /* data rows seen (records, not physical lines),
                             whatever became of them */
    char sha256[65];      /* SHA-256 of the file's bytes (decompressed),
                             computed in the same pass; "" unless
                             ingest_file returns OK.  A CSV's bytes after
                             its last line end (held back, ingest.c note
                             5) are not among them */
    int64_t n_bytes;      /* the bytes read and hashed (decompressed: the
                             file's size as it was read, less the bytes held
                             back), when ingest_file returns OK */
    int64_t held_back;    /* CSV: bytes after the last line end, not read
                             (0 with opt->complete) */
} ingest_result;

/* Reads one file. */
gpi_status ingest_file(const ingest_tables *t, const ingest_opts *opt,
                       const ingest_sink *sink, ingest_result *res, gpi_diag *d);

/* SHA-256 of a whole file's bytes, decompressed (hex); GPI_EIO with
 * "path: reason" if unreadable. */
gpi_status ingest_file_sha256(const char *path, char out[65], gpi_diag *d);

/* What providers.csv makes of a provider name as written: 1 with its
 * canonical provider, group and segment (pointers into t, or into buf of
 * cap bytes), 0 when providers.csv does not list it (then it is its own
 * group, segment "unknown", as --admit-providers stores it), -1 when the
 * name is empty or too long. */
int ingest_provider_resolve(const ingest_tables *t, const char *name, char *buf, size_t cap,
                            const char **provider, const char **group, const char **segment);

/* 1 when the file at path is gzip, as ingest_file decides it (its first
 * bytes); 0 otherwise or when it cannot be read. */
int ingest_is_gzip(const char *path);

#endif
