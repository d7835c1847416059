/* store/grades.h -- grade ids and definitions: the canonical definition
 * registered per (id, version), whether a grade was built, and the grade
 * set's drops (`gpuidx grades drop|restore|list`).
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_GRADES_H
#define GPI_STORE_GRADES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* 1 in *exists when a grade with this id (case-insensitive) has been
 * built into the database. */
gpi_status store_grade_exists(store *st, const char *grade, int *exists, gpi_diag *d);

/* Records (id, version) -> hash + canonical definition.  When the pair is
 * already stored with another hash, *conflict = 1 and stored_hash holds
 * it (nothing is written). */
gpi_status store_grade_register(store *st, const char *id, int version, const char *hash,
                                const char *definition, int64_t now, int *conflict,
                                char stored_hash[65], gpi_diag *d);
/* The canonical definition of a grade hash, or NULL in *out when
 * unknown. */
gpi_status store_grade_definition(store *st, const char *hash, char **out, gpi_diag *d);

/* Marks grade id dropped (no longer built, published or shown; its rows
 * and vintages stay).  *changed = 0 when it already was. */
gpi_status store_grade_drop(store *st, const char *id, int64_t now, int *changed, gpi_diag *d);
/* Undoes store_grade_drop.  *changed = 0 when it was not dropped. */
gpi_status store_grade_restore(store *st, const char *id, int *changed, gpi_diag *d);
/* 1 in *dropped when grade id (case-insensitive) is dropped. */
gpi_status store_grade_dropped(store *st, const char *id, int *dropped, gpi_diag *d);

/* One grade id the database knows (built, or dropped). */
typedef struct store_grade_info {
    const char *id;           /* as first registered */
    int version;              /* latest registered version (0: never built) */
    const char *hash;         /* its definition hash, or NULL */
    long rows;                /* index rows */
    long value_days;          /* rows with a value (not suspended) */
    int32_t first_day, last_day; /* of the rows (valid when rows > 0) */
    long published_days;      /* days with a published row */
    int64_t dropped_at;       /* 0 unless dropped */
} store_grade_info;
typedef int (*store_grade_info_fn)(const store_grade_info *g, void *ud);
/* Every grade id of the database, sorted by id (case-insensitive). */
gpi_status store_grades_list(store *st, store_grade_info_fn fn, void *ud, gpi_diag *d);

#endif
