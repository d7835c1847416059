/* index/day.h -- one day's observations of every grade, and a grade's
 * fix (index/day.c; design notes there).  Data only: observations come
 * from the caller (index/feed.c reads them from the store); neither this
 * header nor day.c includes a store header (tests/test_store_headers.c).
 *
 * Ownership: an idx_day is the caller's, from idx_day_init to
 * idx_day_free, and holds its arrays, interned names and scratch; it
 * borrows its grades for its life.  A kept observation's names are
 * borrowed from the reader (dy->keep, below).
 */
#ifndef GPI_IDX_DAY_H
#define GPI_IDX_DAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/obs.h"
#include "core/strbuf.h"
#include "index/method.h"

typedef struct idx_buf {
    idx_item *v;
    size_t n, cap;
} idx_buf;

/* Statistics of one level (trades or offers) of a grade-day. */
typedef struct idx_level_stats {
    long n_obs, n_excluded, n_providers;
    int64_t spread[7];      /* p10 p25 p50 p75 p90 min max, micro; -1 none */
    int64_t top_share_e6;   /* -1 none */
} idx_level_stats;

typedef struct idx_fix {
    int64_t trades_raw_q, offers_raw_q;  /* -1 when the level does not qualify */
    idx_level_stats ts, os;
    long all_obs, all_providers;
    int64_t trade_volume_micro;          /* screened eligible trades */
} idx_fix;

typedef struct idx_kept idx_kept;

/* One day's observations of every grade. */
typedef struct idx_day {
    const idx_grades *gs;
    size_t ng;
    idx_buf *offers, *trades;   /* [ng] */
    /* interned provider groups */
    char **names;
    size_t n_names, cap_names;
    int32_t *slots;             /* open addressing, -1 empty */
    size_t n_slots;
    uint32_t *stamp;            /* per group: distinct counting */
    uint32_t stamp_now;
    size_t cap_stamp;
    double *work;
    size_t cap_work;
    long n_scanned;
    gpi_status err;
    idx_buf loo_t, loo_o;       /* scratch of idx_day_fix_without */
    idx_buf scratch;            /* scratch of row.c's band */
    idx_buf manip;              /* scratch of manip.c */
    /* per interned name x grade: does the grade list that GPU?
     * -1 not yet known (idx_day_collect's memo of idx_grade_match_gpu) */
    signed char *gpu_ok;
    size_t cap_gpu_ok;          /* names covered */
    idx_kept *keep;             /* day.c's detail: the observations kept (NULL: none) */
    int need_ident;             /* a grade's "exclude" matches ids: the scan reads
                                   identity texts (grade_exclude.c note 3) */
    int need_age;               /* a grade has max_unchanged_days (fresh.c) */
    /* day.c note 6: per stored profile id, what the grades make of it:
     * pm_at[id] is 0 (not yet seen) or 1 + where pm holds its entry --
     * the group's interned id (-1: no grade takes it), the number of
     * grades that take it and their indices, ascending */
    uint32_t *pm_at;
    size_t cap_pm_at;
    int32_t *pm;
    size_t n_pm, cap_pm;
    gpi_sbuf roles;             /* the roles of the row idx_row_fix fixed last
                                   (index/roles.c), valid until its next call */
} idx_day;

/* An idx_day reads one database: its memo of what the grades take is
 * keyed by that database's profile ids (day.c note 6). */
gpi_status idx_day_init(idx_day *dy, const idx_grades *gs);
void idx_day_free(idx_day *dy);
/* One day's observations as data (day.c note 0): idx_day_begin empties
 * the per-grade arrays, idx_day_add takes each observation of the day in
 * the store's primary-key order (0; 1 when out of memory: stop, and
 * idx_day_end says so), idx_day_end ends the day.  o and its texts are
 * borrowed for the call, except that a kept observation's names
 * (dy->keep) must stay valid until its listing.  idx_day_wants_ident: 1
 * when the observations must carry their identity texts (o->ident). */
void idx_day_begin(idx_day *dy);
int idx_day_add(idx_day *dy, const gpi_obs *o);
gpi_status idx_day_end(idx_day *dy, gpi_diag *d);
int idx_day_wants_ident(const idx_day *dy);
/* day.c note 5: what a day read with dy->keep set keeps for its detail
 * (idx_kept_new's, freed with idx_kept_free; NULL is a no-op): its
 * (observation, grade) pairs in scan order; idx_kept_get fills the listed
 * fields of o with pair h's observation (the rest of o left as it was)
 * and returns its grade. */
idx_kept *idx_kept_new(void);
void idx_kept_free(idx_kept *k);
size_t idx_kept_count(const idx_kept *k);
size_t idx_kept_get(const idx_kept *k, size_t h, gpi_obs *o);
/* Screens grade gi's arrays (idx_screen, both kinds), nothing more: v3's
 * input (index/v3_row.c).  Once per day read. */
gpi_status idx_day_screen(idx_day *dy, size_t gi, gpi_diag *d);
/* Reduces grade gi's arrays to a fix (screens and marks the items). */
gpi_status idx_day_fix(idx_day *dy, size_t gi, idx_fix *f, gpi_diag *d);
/* The same fix as idx_day_fix with every observation of provider group
 * `group` left out (leave-one-provider-out), on copies: grade gi's arrays
 * are not changed.  group < 0 leaves nothing out. */
gpi_status idx_day_fix_without(idx_day *dy, size_t gi, int32_t group, idx_fix *f, gpi_diag *d);
const char *idx_day_group(const idx_day *dy, int32_t gid);
/* The interned id of group name (interned when new); -1 out of memory. */
int32_t idx_day_group_id(idx_day *dy, const char *name);
/* A fresh stamp for counting distinct groups with dy->stamp (cleared when
 * the counter wraps). */
uint32_t idx_day_stamp_next(idx_day *dy);

#endif
