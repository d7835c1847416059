/* index/method.h -- the grades' types and the pure statistics of the
 * methodology (METHODOLOGY.md §1-§4): no store, no I/O.  index/index.h
 * includes it; the files of the method that take observations as data
 * (method.c, sort.c, seq.c, and methodology v3: v3_*.c, price_*.c)
 * include this header and core/ only.
 *
 * Money is fixed point throughout: prices in micro-USD per GPU-hour,
 * volumes in micro-GPU-hours, raw (unrounded) index values in
 * quarter-micro-USD ("_q"), published values in 0.0001 USD ("_e4"),
 * ratios and shares in millionths ("_e6").
 */
#ifndef GPI_INDEX_METHOD_H
#define GPI_INDEX_METHOD_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"

/* ---- grades (index/grades.c parses them) ------------------------------------ */

/* The §6 parameters; defaults from idx_params_default(). */
typedef struct idx_params {
    int64_t error_factor_e6;        /* F = 3             -> 3000000        */
    int64_t min_trade_volume_micro; /* 1000 GPU-hours    -> 1000000000     */
    int min_providers;              /* 3                                   */
    int64_t cap_floor_e6;           /* 0.30              -> 300000         */
    int max_carry_days;             /* 5                                   */
    int adj_lookback_days;          /* 30                                  */
    int adj_min_days;               /* 5                                   */
    int64_t restate_threshold_e6;   /* 0.001 (0.10 %)    -> 1000           */
    int64_t rounding_e4;            /* 0.0001            -> 1              */
    int rebalance_months;           /* v2: months between rebalances (1)  */
    int trade_carry_days;           /* v2: days a provider's last trade price carries (3) */
    int anchor_days;                /* v2: days behind a rebalance's anchor (7) */
    int max_unchanged_days;         /* fresh inputs (index/stale.c); 0: none */
    int admission_days;             /* v3: days present in a row to join the panel (A, 7) */
    int absence_days;               /* v3: days a member is imputed before it leaves (K, 7) */
} idx_params;

void idx_params_default(idx_params *p);

#define IDX_MAX_LIST 32
#define IDX_NAME_MAX 64
#define IDX_MAX_REGION 96           /* regions after region groups are expanded */
#define IDX_MAX_EXCL 4              /* entries of "exclude"                 */
#define IDX_MAX_EXCL_LIST 8         /* names in one list of an entry        */

/* One entry of a grade's "exclude" (grade_exclude.c): an observation that
 * matches every list the entry has is left out of the grade.  providers
 * match the provider or its group; regions, skus and ids are globs
 * (case-insensitive); ids match the observation's identity text (the
 * source's id, e.g. "g4dn.xlarge@use1-az1/1x/spot"). */
typedef struct idx_exclusion {
    int n_provider, n_region, n_sku, n_id;
    char provider[IDX_MAX_EXCL_LIST][IDX_NAME_MAX + 1];
    char region[IDX_MAX_EXCL_LIST][IDX_NAME_MAX + 1];
    char sku[IDX_MAX_EXCL_LIST][IDX_NAME_MAX + 1];
    char id[IDX_MAX_EXCL_LIST][IDX_NAME_MAX + 1];
} idx_exclusion;

/* The method of a grade that names none (no "method" key): the one
 * default, stated in the help of `index build` and `grades evaluate`
 * (cli/help.c) as IDX_METHOD_DEFAULT_NAME. */
#define IDX_METHOD_DEFAULT 1
#define IDX_STR_(x) #x
#define IDX_STR(x) IDX_STR_(x)
#define IDX_METHOD_DEFAULT_NAME "v" IDX_STR(IDX_METHOD_DEFAULT)

typedef struct idx_grade {
    char id[IDX_NAME_MAX + 1];
    int version;
    int method;                     /* 1 (SPEC §6), 2 (matched changes, chained) or 3
                                       (a disciplined panel's cross-section and a
                                       price index: METHODOLOGY.md §13) */
    int n_gpu;
    char gpu[IDX_MAX_LIST][IDX_NAME_MAX + 1];
    unsigned scope_mask;            /* bit per gpi_scope                   */
    int min_tier;                   /* gpi_tier                            */
    int term;                       /* gpi_term                            */
    int term_min, term_max;         /* reserved:A-B, else 0               */
    int n_region;                   /* 0 = all ("*")                       */
    char region[IDX_MAX_REGION][IDX_NAME_MAX + 1]; /* globs, groups expanded */
    int n_region_src;               /* the regions as written (messages):
                                       up to IDX_MAX_REGION, as a stored
                                       definition lists them expanded     */
    char region_src[IDX_MAX_REGION][IDX_NAME_MAX + 1];
    int n_provider;                 /* 0 = all                             */
    char provider[IDX_MAX_LIST][IDX_NAME_MAX + 1];
    int n_segment;                  /* 0 = all                             */
    char segment[IDX_MAX_LIST][IDX_NAME_MAX + 1];
    int n_sku;                      /* "skus": globs over the sku (instance
                                       type); 0 = all                      */
    char sku[IDX_MAX_LIST][IDX_NAME_MAX + 1];
    int n_exclude;                  /* "exclude_providers"; 0 = none       */
    char exclude[IDX_MAX_LIST][IDX_NAME_MAX + 1];
    unsigned covers_mask;           /* bit per gpi_covers                   */
    int n_excl;                     /* "exclude" entries; 0 = none         */
    idx_exclusion excl[IDX_MAX_EXCL];
    int excl_ids;                   /* an entry matches ids: the grade needs
                                       each observation's identity text,
                                       row by row (grade_exclude.c)       */
    idx_params p;
    char hash[65];                  /* SHA-256 of canon                    */
    char *canon;                    /* canonical JSON (owned by the set)   */
} idx_grade;

typedef struct idx_grades {
    size_t n;
    idx_grade *g;
    char sha256[65];                /* of the file's bytes (idx_grades_load), or "" */
    char *notes;                    /* how names were read ("H100" is
                                       H100-SXM-80GB), lines; NULL when none */
} idx_grades;

/* ---- statistics (method.c) ------------------------------------------------- */

/* Reasons an observation did not enter a fix.  IDX_EX_UNCHANGED: an
 * offer whose price has stood longer than its grade's max_unchanged_days
 * (day.c, METHODOLOGY.md §12.1).  The last three make an observation not
 * eligible (IDX_EX_INELIGIBLE): it counts nowhere and is not screened. */
enum { IDX_OK = 0, IDX_EX_ABOVE, IDX_EX_BELOW, IDX_EX_CANCELLED, IDX_EX_AFFILIATE,
       IDX_EX_UNCHANGED };
#define IDX_EX_LAST IDX_EX_UNCHANGED
#define IDX_EX_INELIGIBLE(r)                                                                      \
    ((r) == IDX_EX_CANCELLED || (r) == IDX_EX_AFFILIATE || (r) == IDX_EX_UNCHANGED)
const char *idx_reason_name(int reason);

/* One eligible observation of a grade-day. */
typedef struct idx_item {
    int64_t price_micro;
    int64_t qty_micro;      /* trades: GPU-hours x 1e6 */
    uint64_t key_hash;
    int64_t observed_at;
    int32_t group;          /* interned provider group */
    int32_t reason;         /* IDX_OK or an exclusion */
} idx_item;

/* Sorts v by (group, price, key) and marks every price outside
 * [m/F, F*m] of its group's median m as IDX_EX_ABOVE/BELOW, for groups
 * with at least 3 items whose reason is IDX_OK.  Items already excluded
 * are left alone (and sorted too).  work holds n doubles.  Returns the
 * number newly excluded. */
size_t idx_screen(idx_item *v, size_t n, int64_t factor_e6, double *work);

/* Water-filling cap: shares of n providers with volumes vol[] (> 0) after
 * capping each at s = max(cap_floor, 1/n).  Share i = num[i] / den (one
 * common denominator).  Returns the number of capped providers. */
int idx_waterfill(const int64_t *vol, size_t n, int64_t cap_floor_e6, __int128 *num,
                  __int128 *den);

/* Volume-weighted median of the IDX_OK items of v (any order; v is sorted
 * by price on return) after the provider cap, exactly; the exact-half rule
 * of §6.3.  *raw_q in quarter-micro.  GPI_EMATH when the exact arithmetic
 * would overflow (more than ~100 capped providers). */
gpi_status idx_weighted_median(idx_item *v, size_t n, int64_t cap_floor_e6, int64_t *raw_q,
                               gpi_diag *d);

/* The same rule at fraction qn/qd (0 < qn/qd < 1): the first distinct
 * price at which the capped cumulative weight reaches qn/qd of the total,
 * or, when it reaches it exactly, the mean with the next higher distinct
 * price.  qn/qd = 1/2 is idx_weighted_median. */
gpi_status idx_weighted_quantile(idx_item *v, size_t n, int64_t cap_floor_e6, int qn, int qd,
                                 int64_t *raw_q, gpi_diag *d);

/* Median of provider medians of the IDX_OK items (v sorted by group then
 * price, as idx_screen leaves it); *raw_q in quarter-micro.  work: 2n
 * doubles.  Returns the number of providers. */
size_t idx_median_of_medians(const idx_item *v, size_t n, double *work, int64_t *raw_q);

/* Offer-to-trade adjustment from the qualifying days' raw values:
 * median of t[i]/o[i], rounded half-up to 6 decimals; 1000000 when
 * n < min_days. */
int64_t idx_adjustment_e6(const int64_t *t_q, const int64_t *o_q, size_t n, int min_days);

/* Published value in 0.0001 units, a multiple of step_e4, half-up:
 * raw_q * adj_e6 / 1e6 (adj_e6 = 1000000 for trades days). */
int64_t idx_value_e4(int64_t raw_q, int64_t adj_e6, int64_t step_e4);

/* Spread of the IDX_OK items: p10..p90 (GSL quantiles), min, max in
 * micro; work: 2n doubles.  out[7] = p10,p25,p50,p75,p90,min,max. */
void idx_spread(const idx_item *v, size_t n, double *work, int64_t out[7]);

/* sort.c: the fix's orders of items -- by group, price, key, time (the
 * screen); by price, group, key (the weighted median); by price alone --
 * each a stable sort (sort.c note 2). */
typedef enum { IDX_BY_GROUP_PRICE, IDX_BY_PRICE_GROUP, IDX_BY_PRICE } idx_order;
void idx_sort_items(idx_item *v, size_t n, idx_order order);


/* ---- a grade as a sequence of days (seq.c) ---------------------------------- */

/* seq.c: §6 steps 3-5 of one grade as a sequence of days -- a day's
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
    int exhausted;              /* suspended: 1 when a carry ran out */
    size_t n_adj;
} idx_eval;

gpi_status idx_seq_init(idx_seq *s, const idx_grade *g);
void idx_seq_free(idx_seq *s);
/* Evaluates day from its raw values (-1 = absent) without advancing s
 * (what-if); idx_seq_next evaluates and advances s past day. */
void idx_seq_peek(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out);
void idx_seq_next(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out);

#endif
