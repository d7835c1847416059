/* ingest/internal.h -- shared between ingest's own files only.
 *
 * ingest/ is split by concept:
 *   strmap.c    a small open-addressing string -> int map and an arena
 *   csv.c       streaming CSV records over libcsv, with exact physical lines
 *   tables.c    gpus.csv, providers.csv, tiers.csv, fx.csv
 *   normalize.c one row of named raw fields -> gpi_obs, or a reject reason
 *   ingest.c    ingest_file: CSV header mapping, dispatch, SHA-256
 *   json.c      JSON array and NDJSON input
 * Nothing outside ingest/ includes this header.
 */
#ifndef GPI_INGEST_INTERNAL_H
#define GPI_INGEST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/csv_reader.h"
#include "core/gpi.h"
#include "core/obs.h"
#include "ingest/ingest.h"

/* ---- arena and string map (strmap.c) ------------------------------------ */

/* A bump allocator: everything is freed at once by arena_free. */
typedef struct arena_blk arena_blk;
typedef struct arena {
    arena_blk *head;
} arena;
void *arena_alloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

/* String -> int map.  Keys are borrowed (keep them alive, e.g. in an
 * arena); lookups take (pointer, length) so callers need no NUL. */
typedef struct strmap {
    const char **keys;
    uint32_t *lens;
    int *vals;
    size_t cap, n;
} strmap;
/* Returns 0, or -1 when out of memory.  An existing key is overwritten. */
int strmap_put(strmap *m, const char *key, size_t len, int val);
/* The value, or -1 when absent. */
int strmap_get(const strmap *m, const char *key, size_t len);
void strmap_free(strmap *m);

/* ---- tables (tables.c) --------------------------------------------------- */

typedef struct gpu_match {
    const char *canonical;   /* NULL: not a GPU (note says what it is) */
    const char *note;
} gpu_match;

/* Resolves a GPU as written, at a canonical provider, with a sku (may be
 * NULL or "").  Returns 1 with *m filled, 0 when unknown (also when a
 * name is longer than 255 bytes). */
int tables_gpu(const ingest_tables *t, const char *gpu, const char *provider,
               const char *sku, gpu_match *m);

typedef struct provider_match {
    const char *provider, *group, *segment;
    int known;               /* 1 when providers.csv lists the name */
} provider_match;

/* Canonical provider of a name as written.  An unknown name is its own
 * group (its folded lower-case spelling, written into buf of size cap)
 * with segment "unknown" and known = 0.  Returns 0, or -1 when the name is
 * empty after trimming or longer than cap - 1. */
int tables_provider(const ingest_tables *t, const char *name, char *buf, size_t cap,
                    provider_match *m);
/* The canonical provider whose providers.csv alias is closest to name (a
 * few letters apart, ignoring case, spaces and punctuation), or NULL. */
const char *tables_provider_suggest(const ingest_tables *t, const char *name);

/* A row of skus.csv: a correction for the offers of a sku. */
typedef struct sku_rule {
    const char *provider;    /* canonical provider, or NULL for any */
    const char *glob;        /* lower case, over the sku */
    int gpu_count;           /* the sku's true GPU count, or 0: as written */
    int covers;              /* gpi_covers, or -1: instance */
    int unit;                /* gpi_unit for rows without one, or -1 */
    const char *note;
    long line;               /* in skus.csv */
} sku_rule;
/* Index of the skus.csv rule for (canonical provider, sku), or -1. */
int tables_sku(const ingest_tables *t, const char *provider, const char *sku);
const sku_rule *tables_sku_rule(const ingest_tables *t, int i);

/* Tier of a canonical provider on a day: the latest row effective on or
 * before day, else GPI_TIER_UNRATED. */
int tables_tier(const ingest_tables *t, const char *provider, int32_t day);

/* USD per unit of currency (upper-case ISO code) on day.  Returns 1 and
 * the rate; 0 when the currency is not in fx.csv at all; -1 when it has no
 * rate on or before day. */
int tables_fx(const ingest_tables *t, const char *currency, int32_t day, gpi_dec *rate);

/* ---- normalization (normalize.c) ----------------------------------------- */

/* The fields of SPEC §3, in the order of the table. */
enum {
    F_KIND, F_ID, F_OBSERVED_AT, F_SOURCE, F_PROVIDER, F_GPU, F_SKU, F_GPU_COUNT,
    F_PRICE, F_CURRENCY, F_UNIT, F_SCOPE, F_TIER, F_TERM, F_TERM_MONTHS, F_REGION,
    F_QUANTITY, F_BUYER, F_STATUS, F_STARTS_ON, F__N
};
extern const char *const field_names[F__N];
/* Field index of a column name (case-insensitive), or -1. */
int field_lookup(const char *name);

/* Per-file scratch: the strings a gpi_obs points to live here. */
typedef struct norm_ctx {
    const ingest_tables *t;
    const char *path;        /* for messages */
    int kind_hint;           /* GPI_OFFER, GPI_TRADE or -1 */
    const char *default_source;
    char prov_buf[256], buyer_buf[256], cur_buf[8];
    char *ident;             /* identity text buffer */
    size_t ident_cap;
    char price_text[64];     /* JSON numbers as decimal text */
    /* hygiene.c */
    int admit_providers;     /* unknown providers are stored, with a warning */
    const ingest_sink *sink; /* for those warnings */
    strmap new_providers;    /* unknown providers already warned about */
    strmap sku_memo;         /* "provider\x1fsku" -> skus.csv rule + 1 (0: none) */
    strmap suggested;        /* unknown provider -> index + 1 in sugg (0: none) */
    const char **sugg;       /* nearest known providers (the tables' strings) */
    size_t n_sugg, cap_sugg;
    arena scratch;           /* keys of both maps */
    char correction[160];    /* the observation's correction text */
} norm_ctx;

/* A row: v[F] is the value (NULL when the column is absent; "" when
 * empty), name[F] the column's spelling in the file (for messages). */
typedef struct norm_row {
    const char *v[F__N];
    const char *name[F__N];
    long line;
} norm_row;

/* Normalizes a row.  Returns 1 with *o filled (strings borrowed from the
 * row and ctx), or 0 with *col (column spelling, or NULL) and the full
 * reject message "path:line: column: reason (got "v")" in msg. */
int normalize_row(norm_ctx *c, const norm_row *r, gpi_obs *o, const char **col,
                  char *msg, size_t msg_cap);
void norm_ctx_free(norm_ctx *c);

/* ---- provider and sku hygiene (hygiene.c) ---------------------------------- */

/* 1 when the row's provider may be stored: listed in providers.csv, or
 * admitted (c->admit_providers; the first row of each new name warns).
 * Else 0 with the reject in col/msg ("did you mean" the nearest name). */
int hygiene_provider(norm_ctx *c, const norm_row *r, const provider_match *pm, const char **col,
                     char *msg, size_t cap);
/* The skus.csv rule for (canonical provider, sku), memoized; or NULL. */
const sku_rule *hygiene_rule(norm_ctx *c, const char *provider, const char *sku);
/* Applies rule (may be NULL) to o and *count (the GPU count as written):
 * the corrected count, o->covers and o->correction; rejects a row whose
 * unit is unknown where it matters (count > 1).  1 ok, 0 rejected. */
int hygiene_sku(norm_ctx *c, const norm_row *r, const sku_rule *rule, int unit_given,
                gpi_obs *o, long *count, const char **col, char *msg, size_t cap);
void hygiene_free(norm_ctx *c);

/* ---- input sources (source.c) ------------------------------------------- */

/* An open input: a plain file, gzip decompressed on the fly, or standard
 * input ("-").  Close with ingest_source_close. */
typedef struct ingest_source {
    const char *path;       /* as given; "-" is standard input */
    FILE *f;
    int gzip, is_stdin;
    int first;              /* standard input: its first byte, or EOF */
    char err[128];          /* zlib's message after a read error, or "" */
} ingest_source;

/* Opens path ("-" = standard input).  A gzip file is decompressed; a file
 * compressed otherwise (xz, bzip2, zstd, zip, 7z) is GPI_EINPUT
 * "path:1:1: the file is compressed with xz; ...". */
gpi_status ingest_source_open(const char *path, ingest_source *src, gpi_diag *d);
void ingest_source_close(ingest_source *src);

/* Unknown columns (CSV) and keys (JSON) named in warnings per file; the
 * rest are counted in one more warning, so a hostile header cannot flood
 * the caller with messages. */
#define INGEST_MAX_UNKNOWN_WARNINGS 20

/* ---- JSON input (json.c) -------------------------------------------------- */

/* Reads the JSON stream f to its end, never seeking (the caller closes
 * it); sha256 is the SHA-256 of the n_bytes bytes read (the whole file),
 * "" unless it returns GPI_OK. */
gpi_status ingest_json(const ingest_tables *t, const ingest_opts *opt, norm_ctx *nc,
                       const ingest_sink *sink, FILE *f, long *rows_read, char sha256[65],
                       int64_t *n_bytes, gpi_diag *d);

/* Shared by the CSV and JSON paths: normalizes and hands a row to the
 * sink.  Returns non-OK when the sink asked to stop. */
/* ingest_file with opt->threads > 1 (pipe.c). */
gpi_status ingest_file_piped(const ingest_tables *t, const ingest_opts *opt,
                             const ingest_sink *sink, ingest_result *res, gpi_diag *d);
gpi_status ingest_emit(norm_ctx *nc, const ingest_sink *sink, const norm_row *r,
                       const char *raw, gpi_diag *d);
/* Hands a rejected row to the sink; GPI_ESTORE ("path:line: stopped by
 * the store") when the sink asks to stop. */
gpi_status ingest_reject(const ingest_sink *sink, const char *path, long line, const char *col,
                         const char *raw, const char *msg, gpi_diag *d);

#endif
