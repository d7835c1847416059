/* index/internal.h -- shared by the index module's own files only.
 *
 * day.c reads one day of observations into per-grade arrays (one scan for
 * all grades) and reduces each grade's arrays to a fix: raw values and the
 * statistics of both levels.  build.c sequences fixes into rows (level,
 * adjustment, carry) and stores them.
 */
#ifndef GPI_INDEX_INTERNAL_H
#define GPI_INDEX_INTERNAL_H

#include "index/index.h"

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
    /* per interned name x grade: does the grade list that GPU?
     * -1 not yet known (idx_day_collect's memo of idx_grade_match_gpu) */
    signed char *gpu_ok;
    size_t cap_gpu_ok;          /* names covered */
} idx_day;

/* idx_grade_match in three parts, cheapest first: term, tenor, tier and
 * scope; the GPU list; regions, providers and segments. */
int idx_grade_match_terms(const idx_grade *g, const gpi_obs *o);
int idx_grade_match_gpu(const idx_grade *g, const char *gpu);
int idx_grade_match_places(const idx_grade *g, const gpi_obs *o);

gpi_status idx_day_init(idx_day *dy, const idx_grades *gs);
void idx_day_free(idx_day *dy);
/* Scans day (as_of cut-off) into the per-grade arrays. */
gpi_status idx_day_collect(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d);
/* Reduces grade gi's arrays to a fix (screens and marks the items). */
gpi_status idx_day_fix(idx_day *dy, size_t gi, idx_fix *f, gpi_diag *d);
/* The same fix as idx_day_fix with every observation of provider group
 * `group` left out (leave-one-provider-out), on copies: grade gi's arrays
 * are not changed.  group < 0 leaves nothing out. */
gpi_status idx_day_fix_without(idx_day *dy, size_t gi, int32_t group, idx_fix *f, gpi_diag *d);
const char *idx_day_group(const idx_day *dy, int32_t gid);

/* build.c: §6 steps 3-5 of one grade as a sequence of days -- a day's
 * level, adjustment and carried value from its raw values and those of
 * the days before (fed in ascending order; a gap resets the carry). */
typedef struct idx_seq {
    const idx_grade *g;
    int L;
    int32_t *rday;
    int64_t *rt, *ro;
    int32_t *adj_day;           /* the adjustment days of the last evaluation */
    int64_t *adj_t, *adj_o;
    int32_t prev_day;
    int prev_has_value, prev_carry;
    int64_t prev_value;
} idx_seq;

typedef struct idx_eval {
    int level;                  /* gpi_level */
    int64_t value_e4, adj_e6;   /* -1 none */
    int carry;
    size_t n_adj;
} idx_eval;

gpi_status idx_seq_init(idx_seq *s, const idx_grade *g);
void idx_seq_free(idx_seq *s);
/* Evaluates day from its raw values (-1 = absent) without advancing s
 * (what-if); idx_seq_next evaluates and advances s past day. */
void idx_seq_peek(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out);
void idx_seq_next(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out);

/* format.c: the §13 header line; a fixed-point number (v < 0: empty, or
 * "null" when json); a row as CSV without the vintage (ends with
 * "methodology,"); a row's JSON members without braces and vintage. */
extern const char idx_csv_header[];
void idx_put_fixed(FILE *f, int64_t v, int digits, int json);
void idx_row_csv(FILE *f, const store_index_row *r);
gpi_status idx_row_json(store *st, FILE *f, const store_index_row *r, gpi_diag *d);

#endif
