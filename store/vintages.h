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
    const char *roles;       /* what the fix made of the day's observations (index/roles.c),
                                or NULL (published before store version 17) */
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

/* ---- file format 4 (store/publication.c) --------------------------------- */

/* The number the next vintage recorded gets in the order of publications
 * (1 + the largest so far; vintages of before format 4 have none). */
gpi_status store_vintage_next_seq(store *st, int64_t *seq, gpi_diag *d);
/* Records a format-4 vintage's sequence number and the members its
 * index.json holds besides the rows (text, as written), inside the
 * publication's transaction; read back by store_vintage_head (*head
 * malloc'd, NULL when none was recorded; *seq -1 then). */
gpi_status store_vintage_set_head(store *st, int32_t day, int vintage, int64_t seq,
                                  const char *head, gpi_diag *d);
gpi_status store_vintage_head(store *st, int32_t day, int vintage, int64_t *seq, char **head,
                              gpi_diag *d);
/* The latest published day before day (*prev INT32_MIN when none) and its
 * latest vintage. */
gpi_status store_vintage_day_before(store *st, int32_t day, int32_t *prev, int *vintage,
                                    gpi_diag *d);
/* Every published day, ascending, with its latest vintage. */
typedef int (*store_day_fn)(int32_t day, int vintage, void *ud);
gpi_status store_published_days(store *st, store_day_fn fn, void *ud, gpi_diag *d);
/* Each row of the latest vintage of every published day in [from, to]
 * (ascending, by grade), with the built row of its grade and day: what
 * tells a day whose published rows late data left behind. */
typedef struct store_pub_built {
    int32_t day;
    int vintage;                /* the day's latest */
    const char *grade;
    int64_t pub_as_of;          /* the published row's cut-off */
    const char *pub_hash;
    int64_t built_as_of;        /* the built row's, -1 when there is none */
    const char *built_hash;     /* "" when none */
} store_pub_built;
typedef int (*store_pub_built_fn)(const store_pub_built *r, void *ud);
gpi_status store_published_vs_built(store *st, int32_t from, int32_t to, store_pub_built_fn fn,
                                    void *ud, gpi_diag *d);
/* A published row whose value stands while its other fields are revised:
 * its published value (store_pub_row.value_e4) is the one of vintage
 * since; own_e4 is the row's own value (-1 none). */
gpi_status store_standing_put(store *st, int32_t day, int vintage, const char *grade,
                              int64_t own_e4, int since, gpi_diag *d);
typedef int (*store_standing_fn)(const char *grade, int64_t own_e4, int since, void *ud);
gpi_status store_standing(store *st, int32_t day, int vintage, store_standing_fn fn, void *ud,
                          gpi_diag *d);

#endif
