/* store/vintages.h -- publication: the vintages of a day (their file
 * SHA-256s and format), the rows each published, restatements and
 * revisions.
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_VINTAGES_H
#define GPI_STORE_VINTAGES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* A grade's row as published in one vintage. */
typedef struct store_pub_row {
    char grade[65];
    int level;
    int64_t value_e4;        /* -1 none */
    int64_t as_of;
    char grade_hash[65];
    const char *row_csv;     /* the published CSV row */
    const char *row_json;
    const char *row_tail;    /* CSV columns after the vintage (format >= 2), or "" */
    int32_t ref_day, panel_day; /* v2 rows: what the relative compared with; else INT32_MIN */
    const char *v3_detail;   /* v3 rows: what observations.csv lists of the panel, or NULL */
} store_pub_row;
typedef int (*store_pub_fn)(const store_pub_row *r, void *ud);

/* Latest vintage of day (0 if never published). */
gpi_status store_vintage_last(store *st, int32_t day, int *vintage, gpi_diag *d);
/* The three SHA-256 of a vintage (each 65 bytes). */
gpi_status store_vintage_sha(store *st, int32_t day, int vintage, char csv[65], char json[65],
                             char obs[65], gpi_diag *d);
/* format: the file format of the vintage (1: published before methodology
 * v2's columns; see index/publish.c). */
gpi_status store_vintage_put(store *st, int32_t day, int vintage, int format, int64_t created_at,
                             const char *csv_sha, const char *json_sha, const char *obs_sha,
                             gpi_diag *d);
gpi_status store_vintage_format(store *st, int32_t day, int vintage, int *format, gpi_diag *d);
/* Rows of one vintage, sorted by grade id. */
gpi_status store_vintage_rows(store *st, int32_t day, int vintage, store_pub_fn fn, void *ud,
                              gpi_diag *d);
gpi_status store_index_put_published_row(store *st, int32_t day, int vintage,
                                         const store_pub_row *r, gpi_diag *d);
gpi_status store_restatement_put(store *st, int32_t day, const char *grade, int vintage,
                                 int64_t old_e4, int64_t new_e4, const char *reason,
                                 gpi_diag *d);
typedef int (*store_restatement_fn)(int32_t day, const char *grade, int vintage, int64_t old_e4,
                                    int64_t new_e4, const char *reason, void *ud);
/* All restatements sorted by day, grade, vintage. */
gpi_status store_restatements(store *st, store_restatement_fn fn, void *ud, gpi_diag *d);
/* Records a revision once (same day, grade, standing vintage and value). */
gpi_status store_revision_put(store *st, int32_t day, const char *grade, int vintage,
                              int64_t old_e4, int64_t new_e4, int64_t now, gpi_diag *d);

/* The SHA-256 of the grades file vintage `vintage` of day followed
 * ("" when none was recorded); set inside the publication's transaction. */
gpi_status store_vintage_set_grades_sha(store *st, int32_t day, int vintage, const char *sha,
                                        gpi_diag *d);
gpi_status store_vintage_grades_sha(store *st, int32_t day, int vintage, char sha[65],
                                    gpi_diag *d);

#endif
