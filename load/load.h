/* load/load.h -- one file into the store: the ingest-to-store protocol
 * (SPEC §3, §13).
 *
 * Data flows files -> ingest/ (parse, normalize) -> load/ -> store/.  This
 * module owns the rules that decide what of a file reaches the database:
 *
 *   - One file is one transaction: the batch row, every stored row, every
 *     reject and the counts are committed together or rolled back
 *     together; a structurally broken file leaves nothing anywhere.
 *   - Skip by hash: a file already read through the same tables and
 *     options (store_batch_find_same) is skipped.  When a committed batch
 *     had a file of the same size, the file is hashed up front (one fast
 *     pass instead of a full parse); otherwise it is hashed while it is
 *     read, the batch starts with the placeholder hash "pending", and a
 *     finished hash that a committed batch has after all (a gzip file of
 *     known content, standard input, a race) rolls the file back and
 *     reports it skipped.  Read through other tables or options, the file
 *     is read again: what is new is stored, what was stored counts as
 *     duplicates.
 *   - The count check: rows read = stored + duplicates + rejected, or the
 *     file fails ("PATH: internal error: counts do not add up").
 *   - Rejects: a row that cannot be normalized, or that conflicts with a
 *     stored observation, is recorded in the rejects table of the batch
 *     and, when the caller gives a rejects CSV, buffered in a temporary
 *     file that is copied to the CSV only once the file commits.
 *
 * It never prints and never exits: messages go to the caller's events
 * (as they happen) and to d (the file's failure); the caller decides
 * what to show.  Messages name the file as given, "stdin" for "-".
 *
 * Ownership: the store, tables and rejects stream are the caller's and
 * are borrowed for the call; strings handed to events are valid only
 * during the callback; load_result.name points into the caller's path or
 * to a string literal.
 */
#ifndef GPI_LOAD_H
#define GPI_LOAD_H

#include <stdint.h>
#include <stdio.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "store/batches.h"

/* What became of a file. */
typedef enum load_outcome {
    LOAD_STORED = 0,   /* committed as a new batch (it may have stored 0 rows) */
    LOAD_SKIPPED,      /* a committed batch read it already: nothing changed */
    LOAD_FAILED        /* nothing of it was stored (load_file's d says why) */
} load_outcome;

/* What the caller hears while a file is read; every member may be NULL. */
typedef struct load_events {
    /* Each reject in order, with its full message ("path:line: column:
     * reason (got "value")"), also for a file that fails later. */
    void (*reject)(void *ud, const char *msg);
    /* A warning that is not a reject (ingest_sink.warn). */
    void (*warn)(void *ud, const char *msg);
    /* Progress in bytes (ingest_sink.progress). */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} load_events;

/* The reader of a file: ingest_file, or a stand-in with its contract. */
typedef gpi_status (*load_read_fn)(const ingest_tables *t, const ingest_opts *opt,
                                   const ingest_sink *sink, ingest_result *res, gpi_diag *d);

typedef struct load_opts {
    const char *kind_hint;  /* "offers" or "trades" (recorded with the batch), or NULL */
    FILE *rejects;          /* the rejects CSV (load_rejects_header written), or NULL */
    load_read_fn read;      /* NULL: ingest_file */
} load_opts;

typedef struct load_result {
    load_outcome outcome;
    const char *name;       /* the file as messages name it ("stdin" for "-") */
    int64_t batch;          /* STORED: the new batch; SKIPPED: the batch that had the file */
    store_batch_counts n;   /* STORED: read = stored + duplicates + rejected */
    int rejects_unwritten;  /* STORED, but copying its rejects to the CSV failed
                               (d says so; the file itself is stored) */
} load_result;

/* Writes the rejects CSV's header line: file,line,column,reason,raw_row.
 * Returns 0, or -1 on a write error. */
int load_rejects_header(FILE *f);

/* Loads one file (in->path; in->source, kind, threads, admit_providers as
 * for ingest_file) into st.  Returns GPI_OK when the file was stored or
 * skipped (out->outcome says which), otherwise the error with the message
 * in d, out->outcome = LOAD_FAILED and nothing of the file in st or in
 * opt->rejects.  With out->rejects_unwritten set, GPI_OK still and d holds
 * "PATH: cannot write the rejects file (the file itself is stored)". */
gpi_status load_file(store *st, const ingest_tables *t, const ingest_opts *in,
                     const load_opts *opt, const load_events *ev, load_result *out,
                     gpi_diag *d);

/* Moves the stored rows whose provider name providers.csv (in t) now
 * gives another canonical provider, group or segment to those (load/
 * regroup.c, store/regroup.c); *out says how many and which days. */
gpi_status load_regroup(store *st, const ingest_tables *t, store_regroup_result *out,
                        gpi_diag *d);

#endif
