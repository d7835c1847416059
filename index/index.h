/* index/index.h -- grades and the daily benchmark (SPEC §4, §6); its
 * publication (SPEC §7, §13) is the stage above, publish/publish.h.
 *
 * The files:
 *   grades.c   JSON grade text -> validated idx_grade records with a
 *              canonical definition hash (no store, no I/O);
 *              grade_set.c reads grade files into sets, grade_match.c
 *              says whether an observation belongs to a grade,
 *              grade_tables.c the aliases and region groups.
 *   method.c   the pure statistics of methodology v1: error screen,
 *              water-filling cap, exact weighted median, medians of
 *              provider medians, offer-to-trade adjustment, rounding.
 *   build.c    store -> one day's observations -> rows of every grade
 *              (day.c, row.c; methodology v2's chain in chain.c,
 *              chain_rel.c, chain_detail.c).
 *   evaluate.c the grade lab: candidate grades computed from the stored
 *              observations (levels, concentration, volatility,
 *              leave-one-provider-out, correlations), nothing written.
 *   series.c   the daily values of grades nobody built, as a build would
 *              store them, nothing written (hedge compare --suggest).
 *   The module's own headers, one concept each: day.h (a day's
 *   observations and a grade's fix), chain.h (v2's chain), snap.h (a
 *   day's constituents for the chain), match.h (grade matching in parts),
 *   row.h (a grade-day as the stored row), roles.h (what a row's fix made
 *   of its day, stored with it: publication lists the day by it, without
 *   fixing the day again or replaying a chain), manip.h, day_detail.h,
 *   v3_detail.h, v3.h; feed.h the glue that reads and writes the store for
 *   the methods (feed.c, build.c, v2_store.c, v3_store.c).  The methods
 *   take data: day.c, day_detail.c, roles.c, snap.c and chain*.c depend on
 *   no store header (tests/test_store_headers.c).
 * The module never prints; every function returns gpi_status and fills d.
 *
 * Money is fixed point throughout: prices in micro-USD per GPU-hour,
 * volumes in micro-GPU-hours, raw (unrounded) index values in
 * quarter-micro-USD ("_q": a median of provider medians can be a mean of
 * two means, so 1/4 micro is exact), published values in 0.0001 USD
 * ("_e4"), ratios and shares in millionths ("_e6").
 */
#ifndef GPI_INDEX_H
#define GPI_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/gpi.h"
#include "core/index_day.h"
#include "core/obs.h"
#include "index/method.h"

/* The store's handle (store/store.h): index/ takes one where it reads or
 * writes the store; this header includes no store header. */
typedef struct store store;

/* ---- grades (grades.c; the types in index/method.h) ----------------------- */

/* A v2 row's event (store_index_row.event; METHODOLOGY.md §10.4) and its
 * name in the published files ("" for none). */
enum { IDX_EVENT_NONE = 0, IDX_EVENT_START, IDX_EVENT_REBALANCE, IDX_EVENT_REANCHOR };
const char *idx_event_name(int ev);
/* What a grade file is read with (data/): the canonical GPU names and
 * the generic aliases of gpus.csv, and the region groups of regions.csv. */
typedef struct idx_grade_tables {
    char **gpus;                    /* canonical names */
    size_t n_gpus;
    char **alias, **alias_to;       /* generic aliases (folded) -> canonical or "-" */
    size_t n_alias;
    char **rgroup, **rpattern;      /* region group -> one glob, a row each */
    size_t n_rgroup;
} idx_grade_tables;

/* Loads data_dir/gpus.csv and data_dir/regions.csv (each optional). */
gpi_status idx_grade_tables_load(const char *data_dir, idx_grade_tables *tb, gpi_diag *d);
void idx_grade_tables_free(idx_grade_tables *tb);
/* Parses a grade file's text with tb (NULL: the built-in GPU names only). */
gpi_status idx_grades_parse_tables(const char *text, const char *name,
                                   const idx_grade_tables *tb, idx_grades **out, gpi_diag *d);

/* Loads and validates a grade file.  gpus lists the canonical GPU names
 * accepted besides the built-in SPEC §3 list (may be NULL).  Messages are
 * "path: grades[i].field: reason (got "...")" or "path:line:col: reason"
 * for JSON syntax.  Free *out with idx_grades_free(). */
gpi_status idx_grades_load(const char *path, const char *const *gpus, size_t n_gpus,
                           idx_grades **out, gpi_diag *d);
/* The same from text; `name` prefixes the messages.  n_gpus ==
 * IDX_TRUST_GPUS accepts any GPU name (stored canonical definitions). */
#define IDX_TRUST_GPUS ((size_t)-1)
gpi_status idx_grades_parse(const char *text, const char *name, const char *const *gpus,
                            size_t n_gpus, idx_grades **out, gpi_diag *d);
void idx_grades_free(idx_grades *g);
/* Reads the `canonical` column of a gpus.csv (malloc'd array of malloc'd
 * names; free with idx_names_free).  A missing file gives 0 names. */
gpi_status idx_gpu_names_load(const char *path, char ***names, size_t *n, gpi_diag *d);
void idx_names_free(char **names, size_t n);
/* The usual way to load grades: the tables of data_dir (gpus.csv,
 * regions.csv), then the grade file at path (NULL: data_dir/grades.json).
 * Free *out with idx_grades_free(). */
gpi_status idx_grades_load_data(const char *data_dir, const char *path, idx_grades **out,
                                gpi_diag *d);

/* A grade's canonical definition text as a set of one grade (any GPU
 * name accepted); `name` prefixes the messages.  idx_grade_stored reads
 * the definition stored under hash (store_grade_definition): *out NULL and
 * GPI_OK when none is stored.  Free *out with idx_grades_free(). */
gpi_status idx_grade_from_canon(const char *canon, const char *name, idx_grades **out,
                                gpi_diag *d);
gpi_status idx_grade_stored(store *st, const char *hash, idx_grades **out, gpi_diag *d);

/* 1 when the observation belongs to the grade (every filter but status;
 * an "exclude" entry with ids reads o->ident, NULL as ""). */
int idx_grade_match(const idx_grade *g, const gpi_obs *o);

/* Filters that match no stored observation (grade_tables.c): for each
 * grade, every GPU, region (or region group), provider, segment and sku
 * entry that no stored observation has, and a grade whose filters
 * together match none, are reported through warn ("grades.json:
 * grades[2].providers: \"lamda\" matches no stored observation").  One
 * scan of the store's distinct facets.  tb: the tables the file was read
 * with (region groups), or NULL. */
typedef void (*idx_warn_fn)(const char *msg, void *ud);
gpi_status idx_grades_check(const idx_grades *gs, const char *name, const idx_grade_tables *tb,
                            store *st, idx_warn_fn warn, void *ud, gpi_diag *d);

/* ---- build (build.c) ----------------------------------------------------- */

/* What a build did, and what it says besides its rows: each stored chain
 * state it refused and replayed instead (damaged, or filed under another
 * grade, method or day: build.c note 8), at most IDX_BUILD_NOTES named. */
enum { IDX_BUILD_NOTES = 8 };
typedef struct idx_build_stats {
    long days, rows, observations, reevaluated;
    int n_notes;
    char notes[IDX_BUILD_NOTES][384];
} idx_build_stats;

/* The days an index is built for (and the grade lab evaluates): from
 * IDX_FIRST_DAY to IDX_LAST_DAY.  A range like 0001-01-01..9999-12-31 was
 * accepted and would have run for about half an hour, writing 3.65
 * million rows per grade (issue 12). */
#define IDX_FIRST_DAY "2000-01-01"
#define IDX_LAST_DAY "2099-12-31"
/* NULL when day is inside them, else why not ("before 2000-01-01, ..."). */
const char *idx_day_outside(int32_t day);

/* The first day a row of grade g on `day` can depend on: observations of
 * [idx_depends_from(g, day), day] make it what it is (build.c notes 1 and
 * 7: v1 the adjustment's lookback and the carry, or, with
 * max_unchanged_days M, the M + IDX_AGE_SLACK days its offers' price ages
 * are looked up over (index/fresh.c) when that reaches further; v2 the
 * chain since the rebalance period before, and v1's days; v3 every day before: INT32_MIN,
 * its panel's membership, last prices and log index carry from the
 * grade's first observation on, index/v3_store.c note 1).  A method
 * without its own rule gets v2's.  Publication uses it to tell which
 * published days late data left behind. */
int32_t idx_depends_from(const idx_grade *g, int32_t day);

/* as_of of idx_build: the build's own cut-off -- the time of the build, or
 * the stamp of the last file committed before it when that is later
 * (build.c note 6) -- rather than a given one. */
#define IDX_AS_OF_NOW INT64_MIN

/* Builds the rows of every grade for days [from, to] from observations
 * ingested at or before as_of, then re-evaluates the already built later
 * days that depend on them (carry, adjustment).  Registers each grade's
 * definition; a changed definition under a stored id+version is refused.
 * Each built day is one transaction (build.c note 4). */
gpi_status idx_build(store *st, const idx_grades *g, int32_t from, int32_t to, int64_t as_of,
                     idx_build_stats *stats, gpi_diag *d);
/* idx_build that calls progress(ud, day, from, to) after each day is
 * written (the command line's progress on a terminal); progress may be
 * NULL. */
typedef void (*idx_progress_fn)(void *ud, int32_t day, int32_t from, int32_t to);
gpi_status idx_build_progress(store *st, const idx_grades *g, int32_t from, int32_t to,
                              int64_t as_of, idx_build_stats *stats, idx_progress_fn progress,
                              void *ud, gpi_diag *d);

/* Detail of grades gs on day (cut-off as_of) for observations.csv: calls
 * fn, in store order, for every observation of grade gi that entered a fix
 * (role "used", reason "") and every excluded one (role "excluded" and its
 * reason).  v1 grades: the observations of rows[gi].level only (those of
 * the other level did not enter the fix); v2 grades: every constituent of
 * either kind, with whether it matched the reference day rows[gi].ref_day
 * within the panel of rows[gi].panel_day, its reference price and its
 * relative (METHODOLOGY.md §10); v3 grades: every observation with its
 * role in the panel (used, excluded, candidate) and the price index's
 * matched price, and the carried observations of imputed members
 * (rows[gi].v3_detail says which: §13.7).  Earlier snapshots of an offer
 * key are not listed.  o holds what a listing shows: kind, day, observed_at,
 * key_hash, price, quantity, provider, group, source, region and ident
 * (the rest zero or NULL); it and its texts are valid during the call.
 * One scan of the day (day.c note 5). */
typedef struct idx_detail {
    int level;                      /* the row's level (gpi_level) */
    int32_t ref_day, panel_day;     /* v2 rows; INT32_MIN none */
    const char *v3_detail;          /* v3 rows: the row's v3_detail (index/v3_row.c) */
    const char *roles;              /* the row's roles (index/roles.c): what its fix made
                                       of the day, listed as the build decided it; NULL
                                       (a row stored before store version 17, or gpuidx
                                       verify recomputing): the day is fixed again and a
                                       v2 chain replayed to the day before */
} idx_detail;
typedef struct idx_obs_match {
    int v2;                         /* 1 for the observations of a v2 or v3 grade (the
                                       matching columns are written) */
    int v3;                         /* 1 for a v3 grade's (the imputed column is written) */
    int imputed;                    /* v3: a carried observation of an imputed member */
    int matched;                    /* its identity (offers) or provider (trades) matched */
    int64_t ref_price_e8;           /* its price on the reference day (trades: the */
    int64_t base_price_e8;          /* provider's representative), and on the anchor day */
    int64_t relative_e12;           /* price / base price */
} idx_obs_match;
typedef int (*idx_obs_fn)(size_t gi, const gpi_obs *o, const char *role, const char *reason,
                          const idx_obs_match *m, void *ud);
gpi_status idx_day_detail(store *st, const idx_grades *gs, const idx_detail *rows, int32_t day,
                          int64_t as_of, idx_obs_fn fn, void *ud, gpi_diag *d);

/* The published text of a fixed-point number (row.c): v with `digits`
 * decimals; v < 0 (none) is an empty field, or "null" when json.  The
 * stored JSON text of v2 rows and publish/ write numbers with it. */
void idx_put_fixed(FILE *f, int64_t v, int digits, int json);

/* ---- grade lab (evaluate.c) ---------------------------------------------- */

/* Provider segments of a grade (segments.c): the grade lab says whether
 * its panel is bimodal -- on at least half of the fixed days with
 * providers of two or more segments, the highest segment's median provider
 * price is at least IDX_BIMODAL_RATIO times the lowest's -- and, for a
 * bimodal grade, evaluates the segment-only grades that split it. */
#define IDX_SEG_MAX 8               /* segments followed per grade */
#define IDX_BIMODAL_RATIO 2.0
typedef struct idx_segment_eval {
    char segment[IDX_NAME_MAX + 1];
    long days;                      /* fixed days with a provider of the segment */
    double mean_providers;          /* its providers on those days */
    long max_providers;
    long min_days;                  /* days with >= min_providers of them */
    int32_t first_day, last_day;    /* of those; INT32_MIN none */
    double price_median;            /* median over its days of the segment's median
                                       provider price, USD/GPU-hour */
    double spread_median;           /* median over the days with >= 2 of its providers
                                       of their highest / lowest price; NAN none */
    size_t split;                   /* its segment-only grade: index + 1 in
                                       idx_evaluation.g; 0 none */
} idx_segment_eval;

/* What a candidate grade would have been over [from, to], computed from
 * the stored observations with this methodology (the grades need not be
 * built; nothing is written).  Means are NAN when no day qualifies. */
/* A month's FSP so far and what one participant can do to it. */
typedef struct idx_fsp_month {
    int32_t day;                    /* the month's last day in the range */
    long days, business_days;       /* days with a value through it */
    int64_t fsp_e4;                 /* the mean of the month's values in the range, half-up; -1 none */
    int64_t move_e6[3][2];          /* [absent, print, new][calendar, business]; -1 none */
} idx_fsp_month;

typedef struct idx_grade_eval {
    char id[IDX_NAME_MAX + 1];
    long n_level[GPI_LEVEL__N];     /* days per level (gpi_level index)       */
    double share_level[GPI_LEVEL__N];
    double mean_providers;          /* mean of the rows' n_providers          */
    /* concentration of the level used, means over the days at that level:
     * trades days by screened volume, offers days by screened offer count;
     * "all" = over trades and offers days together */
    double top_share, top_share_trades, top_share_offers;
    double hhi, hhi_trades, hhi_offers;   /* sum of squared shares, 0..1   */
    /* daily log changes of the value between consecutive days of the range
     * that both have one (carried days included: they settle futures) */
    long n_changes;
    double vol_daily, vol_annual;   /* sample sd; x sqrt(365); NAN if < 2    */
    /* the other grade whose changes correlate most with this one's (the
     * largest coefficient, not NAN; ties: the first in file order):
     * nearest = its index + 1 (0: none), with the coefficient and the
     * sample sizes of idx_evaluation.corr */
    size_t nearest;
    double nearest_r;
    long nearest_n, nearest_moves;
    /* leave one provider group out of a trades/offers day, same method,
     * same adjustment and carry state: the day's largest move */
    long loo_days;                  /* fixed days with a move measured       */
    long loo_lost;                  /* fixed days one provider could void    */
    double loo_max_abs, loo_mean_abs; /* USD/GPU-hour, max / mean over days */
    double loo_max_rel, loo_mean_rel; /* fraction of the value (days > 0)  */
    int32_t loo_max_day;            /* day of the largest relative move      */
    char loo_max_provider[IDX_NAME_MAX + 1];
    int64_t loo_max_from_e4, loo_max_to_e4; /* the value with / without it */
    double loo_median_abs, loo_median_rel;  /* medians over the days with a move */
    /* what one new participant must add to move the value (index/manip.c,
     * METHODOLOGY.md §11) over the days a cost is defined (with a value;
     * v2: anchor days): [0] one tick, [1] 1 % */
    long cost_days;
    long cost_none[2];              /* days no volume of trades does it */
    double cost_median[2];          /* GPU-hours; INFINITY when most days none; NAN no days */
    double cost_min[2];             /* GPU-hours; NAN when none */
    long cost_offer_days[2];        /* days one offer does it */
    /* methodology v2 (method 2; the series above are then the chained
     * value's, its levels the chain's): the cross-section's volatility,
     * the days a constituent entered or left, the rebalances and their
     * splices, and the chain's distance from the cross-section */
    int method;
    double xs_vol_annual;           /* of the cross-section (the v1 rule) */
    long n_panel_change;            /* days with panel_change */
    long n_rebalance;               /* rebalance and reanchor days with a splice */
    double splice_mean_abs, splice_max_abs; /* |splice - 1| */
    double drift_mean, drift_max;   /* |value / xs_value - 1| over days with both */
    /* price level: the daily values of the range (carried included);
     * spread: the market's dispersion around them, the median over the
     * trades and offers days of the day's p75 - p25 (of the level used) */
    long n_value_days;              /* days with a value                    */
    double price_median, price_min, price_max; /* USD/GPU-hour; NAN if none */
    double spread_iqr;              /* USD/GPU-hour, NAN if no fixed day    */
    double spread_rel;              /* spread_iqr / price_median            */
    /* providers per day over the days with a value (suspended days, with
     * their few providers, left out of the mean) */
    double mean_providers_live;
    /* calendar months wholly inside the range, and those with at least
     * IDX_SETTLE_MIN_DAYS days with a value (a monthly future's final
     * settlement price needs them) */
    long full_months, settleable_months;
    /* the final settlement price of each settleable month (settlement's
     * rule at a 0.0001 tick: the mean of the month's values, half-up) and
     * its change between consecutive settleable months,
     * |FSP(m) / FSP(m - 1) - 1|: how many, the largest (and the first day
     * of its later month), the mean; NAN, INT32_MIN when none */
    long fsp_changes;
    double fsp_change_max, fsp_change_mean;
    int32_t fsp_change_max_month;
    /* provider segments (above): the segments with a provider on a fixed
     * day, in the order first seen; the days with two or more of them, of
     * which those with a ratio >= IDX_BIMODAL_RATIO, the ratio's median,
     * lowest and highest (NAN none), and the verdict */
    int n_segments;
    idx_segment_eval seg[IDX_SEG_MAX];
    long seg_days, seg_split_days;
    double seg_ratio_median, seg_ratio_min, seg_ratio_max;
    int bimodal;
    /* a segment-only split: index + 1 in idx_evaluation.g of the grade it
     * splits, and its segment; 0 for the evaluated file's grades */
    size_t split_of;
    char split_segment[IDX_NAME_MAX + 1];
    /* methodology v3: per calendar month of the range, as of its last day
     * in the range, what one participant can do to the month's final
     * settlement price (METHODOLOGY.md §11.4; index/v3.h's figures);
     * malloc'd, freed by idx_evaluation_free */
    idx_fsp_month *fsp_months;
    size_t n_fsp_months;
} idx_grade_eval;

#define IDX_CORR_MIN_DAYS 10
#define IDX_CORR_MIN_MOVES 5        /* days both series moved, for a correlation */
/* The full correlation matrix is kept for at most this many grades; with
 * more only each grade's nearest one is (10,000 grades took 2.4 GB of
 * matrices and printed 1.8 GB: issue 12). */
#define IDX_CORR_MATRIX_MAX 64
#define IDX_SETTLE_MIN_DAYS 15      /* the contracts' default min_published_days */

typedef struct idx_evaluation {
    int32_t from, to;
    long days;
    size_t n;                       /* grades, in file order */
    idx_grade_eval *g;              /* [n + n_split]: the file's grades, then the
                                       segment-only splits of the bimodal ones */
    size_t n_split;
    /* correlation of daily log changes, n x n row-major, over the days
     * both grades have a change; NAN with fewer than IDX_CORR_MIN_DAYS
     * such days, fewer than IDX_CORR_MIN_MOVES of them on which both
     * moved (a series flat but for a day or two gives +-1 from those days
     * alone), or a constant series.  corr_n: the common days; corr_moves:
     * the common days on which both changed.  NULL with more than
     * IDX_CORR_MATRIX_MAX grades (then only idx_grade_eval.nearest). */
    double *corr;
    long *corr_n;
    long *corr_moves;
} idx_evaluation;

/* Evaluates grades gs over [from, to] (observations ingested at or before
 * as_of).  Reads one day at a time (plus the days before `from` that the
 * carry and adjustment need); with `splits`, reads the range once more
 * for the segment-only grades of the bimodal grades.  Free *out with
 * idx_evaluation_free(). */
gpi_status idx_evaluate(store *st, const idx_grades *gs, int32_t from, int32_t to,
                        int64_t as_of, int splits, idx_evaluation **out, gpi_diag *d);
void idx_evaluation_free(idx_evaluation *e);

/* ---- values of unbuilt grades (series.c) --------------------------------- */

typedef struct idx_series_grade {
    long n_level[GPI_LEVEL__N];     /* days of the range per level         */
    long max_providers;             /* most provider groups behind a trades
                                       or offers value (0: none)           */
} idx_series_grade;

typedef struct idx_series {
    int32_t from, to;
    size_t days;                    /* to - from + 1 */
    size_t n;                       /* grades, in the order of gs */
    gpi_index_day *v;               /* grade gi's day from + k at v[gi * days + k]:
                                       every day, level suspended where the
                                       grade has no value */
    idx_series_grade *g;            /* [n] */
} idx_series;

/* The daily values (level, value) the grades gs would have over [from,
 * to] at cut-off as_of -- the rows `index build` would store, v1 or v2 by
 * each grade's method -- computed from the stored observations without
 * writing anything (the store is only read; the grades need not be built
 * or registered).  Free *out with idx_series_free(). */
gpi_status idx_series_compute(store *st, const idx_grades *gs, int32_t from, int32_t to,
                              int64_t as_of, idx_series **out, gpi_diag *d);
void idx_series_free(idx_series *s);

/* ---- one participant's share of a fix (own.c) ------------------------------ */

/* How much of grade G's fixes one participant's quotes supply, over the
 * days with a fix (trades or offers level) of a range. */
typedef struct idx_own {
    long days;          /* days with a fix                                  */
    double share;       /* mean over them of the share own quotes supply    */
    long median_days;   /* days own quotes supply at least half of the fix  */
    long any_days;      /* days own quotes are in the fix at all            */
} idx_own;

/* For every grade gi of gs with twin[gi] >= 0 (the index in gs of the same
 * grade with the participant's quotes excluded: its "own" quotes are those
 * the twin does not take), out[gi] over [from, to] at cut-off as_of, from
 * the stored observations (the store is only read; design notes in
 * own.c); zero for the others.  out holds gs->n entries. */
gpi_status idx_own_shares(store *st, const idx_grades *gs, const long *twin, int32_t from,
                          int32_t to, int64_t as_of, idx_own *out, gpi_diag *d);

#endif
