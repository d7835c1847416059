/* hedge/hedge.h -- how well futures on a grade would have hedged a rent.
 *
 * A producer's rent history (CSV `date,price[,quantity]`, USD per GPU-hour
 * paid or earned) is aggregated to an analysis frequency and aligned with
 * the grade's daily index values (SPEC §9):
 *
 *   rent.c      parse the rent file (and a forward-price file) with
 *               file:line errors
 *   period.c    calendar periods (day, ISO week from Monday, month),
 *               aggregation, alignment, changes between adjacent periods
 *   analyze.c   OLS on changes and levels, Ederington effectiveness, basis,
 *               accounting tests, robust fit (GSL bisquare)
 *   hac.c       Newey-West standard error, rolling ratio, horizons
 *   oos.c       out-of-sample evidence: walk-forward effectiveness, a
 *               block-bootstrap interval of h, a break test at the
 *               largest index move
 *   simulate.c  month-by-month replay with futures cash-settled at the FSP,
 *               month-ahead (roll) or N months at once (strip); headline:
 *               the budget error against the price locked at entry
 *   sim_ratio.c the rules of the automatic hedge ratio
 *   compare.c   ranking of several grades as hedges of one rent history,
 *               and the verdict
 *   suggest.c   candidate grades built around the rent (compare --suggest)
 *   svg.c       self-contained SVG charts of an analysis, a replay and a
 *               ranking
 *
 * Privacy, by types: the rent history is read, never stored.  hedge/ has
 * no store handle anywhere in its API: the caller fetches each grade's
 * daily index values and hands them over as plain data (gpi_index_day of
 * core/index_day.h, as settlement/ takes it), so nothing here can write to
 * the database (tests check that no object of hedge/ refers to a store_ or
 * sqlite3_ symbol and that no hedge source includes a store header, even
 * through another header).  Nothing here writes files either; the CLI prints results to
 * stdout only (and an SVG where the user asks for one).
 *
 * Statistics are doubles.  A statistic that cannot be computed is NaN in
 * the structs and comes with a warning; printers map NaN to null / "n/a".
 * Money is fixed point: index values and settlement prices in units of
 * 0.0001 USD/GPU-hour (e4), rent prices in micro-USD, futures P&L in cents.
 *
 * Ownership: every *_free(x) releases what the matching parse / load /
 * analyze call allocated inside x; *_free of a zeroed struct is a no-op.
 * Inputs are borrowed for the call.
 */
#ifndef GPI_HEDGE_H
#define GPI_HEDGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/index_day.h"

/* The grade's daily index values arrive as arrays of gpi_index_day
 * (core/index_day.h): ascending and distinct; suspended days are skipped
 * everywhere. */

/* ---- rent history (rent.c) ---------------------------------------------- */

typedef struct hedge_rent_row {
    int32_t day;
    int64_t price_micro;  /* USD per GPU-hour x 1e6, > 0 */
    double quantity;      /* GPU-hours, > 0; 0 when the file has no quantity */
    long line;
} hedge_rent_row;

/* What is rented (compare --suggest builds grades around it): header
 * fields of the rent file ("# gpu: T4") or options; "" when not given.
 * Private like the prices. */
typedef struct hedge_rent_info {
    char gpu[65];         /* a canonical model or a family ("A100") */
    char term[32];        /* on-demand, spot or reserved:A-B */
    char scope[32];       /* bare-metal, managed, vm or container */
    char region[65];
    char provider[65];
    char sku[65];         /* the instance type, e.g. g4dn.xlarge */
    char zone[65];        /* the availability zone, e.g. use1-az1 (the real
                             catalogue's offer ids carry it) */
} hedge_rent_info;

typedef struct hedge_rent {
    hedge_rent_row *rows; /* sorted by day, one row per day */
    size_t n;
    int has_quantity;     /* the file has a quantity column */
    hedge_rent_info info;
} hedge_rent;

/* Parses rent CSV text (path only names it in errors).  An optional header
 * line starts with "date".  Lines starting with '#' are comments; those of
 * the form "# key: value" with key gpu, term, scope, region, provider,
 * instance_type (also instance-type, sku) or zone fill r->info.  Errors:
 * "path:line: field: reason (got "...")" for a bad date, a price that is
 * not a positive decimal, a date given twice, a quantity that is not a
 * positive number, a wrong field count, a header field given twice, empty
 * or longer than 64 bytes, or a term or scope that is not one. */
gpi_status hedge_rent_parse(const char *path, const char *text, size_t len,
                            hedge_rent *out, gpi_diag *d);
/* Reads and parses the file at path. */
gpi_status hedge_rent_load(const char *path, hedge_rent *out, gpi_diag *d);
void hedge_rent_free(hedge_rent *r);

/* Forward prices: CSV `month,price` (YYYY-MM, USD/GPU-hour), the entry
 * price of futures for that delivery month; rounded once, half-up, to
 * 0.0001.  A file without a price row is an error. */
typedef struct hedge_forward {
    int32_t *month_start; /* first day of the month */
    int64_t *price_e4;
    size_t n;
    /* optional (NULL: a price holds for any entry): the first day of the
     * month at whose end price i was locked -- a strip takes a month's
     * price of its own entry (the term curve of the entry day, issue 29),
     * and a month without one is entered at the FSP of the month of entry,
     * as without forward prices; the caller frees it (hedge_forward_free
     * does not) */
    int32_t *entered;
} hedge_forward;
gpi_status hedge_forward_load(const char *path, hedge_forward *out, gpi_diag *d);
void hedge_forward_free(hedge_forward *f);

/* ---- periods (period.c) ------------------------------------------------- */

typedef enum { HEDGE_DAY = 0, HEDGE_WEEK, HEDGE_MONTH } hedge_freq;

int hedge_freq_parse(const char *s);   /* -1 when unknown */
const char *hedge_freq_name(int f);
/* First day of the period holding day (weeks start on Monday). */
int32_t hedge_period_start(hedge_freq f, int32_t day);
/* First day of the next period. */
int32_t hedge_period_next(hedge_freq f, int32_t start);
/* "2025-01-31", "2025-W01" (ISO week-year and week), "2025-01". */
void hedge_period_label(hedge_freq f, int32_t start, char out[16]);

typedef struct hedge_period {
    int32_t start;       /* first day of the period */
    double rent;         /* USD/GPU-hour: quantity-weighted mean, or mean */
    double quantity;     /* GPU-hours in the period; 0 without quantities */
    double index;        /* mean of the period's index values, USD/GPU-hour */
    size_t n_rent;       /* rent rows in the period */
    size_t n_index;      /* index values (suspended days skipped) */
} hedge_period;

/* Periods present in both the rent and the index, ascending. */
typedef struct hedge_series {
    hedge_freq freq;
    hedge_period *p;
    size_t n;
    size_t n_rent_periods;   /* rent periods before alignment */
} hedge_series;

/* Aggregates rent rows and index days (ascending) to freq and keeps
 * periods present in both. */
gpi_status hedge_align(const hedge_rent *r, const gpi_index_day *idx, size_t nidx,
                       hedge_freq f, hedge_series *out, gpi_diag *d);
void hedge_series_free(hedge_series *s);

/* The rent alone: its periods at freq f (first and last) and the changes
 * between adjacent ones, and how often its price changed from one row to
 * the next (moves: a rent that never changed has nothing to hedge, one
 * that changed once or twice "fits" any index that moved then), with the
 * first two changes (day, price before and after, micro-USD). */
typedef struct hedge_rent_summary {
    hedge_freq freq;
    size_t periods, changes, moves;
    int32_t first, last;
    int32_t move_day[2];
    int64_t move_from[2], move_to[2];
} hedge_rent_summary;
void hedge_rent_summarize(const hedge_rent *r, hedge_freq f, hedge_rent_summary *out);

/* The day range of index values an analysis or replay of r needs: from
 * the first day of the month before the first rent row to six days after
 * the last day of the last rent row's month (an ISO week may run over). */
void hedge_index_range(const hedge_rent *r, int32_t *from, int32_t *to);

/* k-period changes (k >= 1) of an aligned series: x[t] - x[t-k] where the
 * periods t-k..t are all present and adjacent (a missing period breaks the
 * chain).  Arrays are malloc'd; end[j] is the series index of period t. */
typedef struct hedge_changes {
    double *di, *dr;
    size_t *end;
    size_t n;
} hedge_changes;
gpi_status hedge_changes_make(const hedge_series *s, int k, hedge_changes *out, gpi_diag *d);
void hedge_changes_free(hedge_changes *c);

/* ---- analysis (analyze.c, hac.c) ---------------------------------------- */

/* y = a + b x by OLS (gsl_fit_linear).  ok = 0 (and NaNs) when n < 3 or x
 * does not vary. */
typedef struct hedge_ols {
    int ok;
    size_t n;
    double a, b, se_b, t_b, f, r2, rho, sse;
} hedge_ols;
gpi_status hedge_ols_fit(const double *x, const double *y, size_t n, hedge_ols *out,
                         gpi_diag *d);

/* Newey-West (Bartlett, no small-sample correction) standard error of b in
 * y = a + b x, with lag L.  NaN when it cannot be computed. */
double hedge_nw_se(const double *x, const double *y, size_t n, int lag);
/* floor(4 (T/100)^(2/9)). */
int hedge_nw_lag_rule(size_t t);

typedef struct hedge_roll {
    int32_t end;          /* start day of the window's last period */
    size_t n_changes;
    double h, r2;
} hedge_roll;

typedef struct hedge_horizon {
    int k;
    size_t n_changes;
    int nw_lag;
    double h, se_h, r2, he, nw_se_h;
} hedge_horizon;

#define HEDGE_MAX_WARN 12
#define HEDGE_NHORIZON 3

typedef struct hedge_analysis {
    hedge_freq freq;
    size_t n, n_changes;
    hedge_ols chg;                 /* Δrent = α + h Δindex */
    double he, he_naive;           /* Ederington at h and at h = 1 */
    double nw_se_h;
    int nw_lag;
    hedge_ols lev;                 /* rent = a + b index */
    struct { double mean, sd, sd_change, min, max, p5, p95; } basis; /* rent - index */
    struct { double r2, slope; int pass; } regtest;
    struct { double ratio; int pass; size_t periods, periods_outside; } offset;
    struct { double a, b; double *weights; size_t n; } robust; /* weights per period */
    int window;
    hedge_roll *rolling;
    size_t n_rolling;
    hedge_horizon horizons[HEDGE_NHORIZON];
    /* 95 % intervals: h ± 1.959964 x Newey-West se; the effectiveness at
     * the OLS h (= R² = ρ²) from Fisher's z of ρ, tanh(atanh ρ ±
     * 1.959964 / sqrt(n - 3)) squared (0 at the low end when the
     * interval of ρ holds 0).  NaN when they cannot be computed.  An
     * exact fit (no residual at all) has the degenerate interval [1, 1]
     * and exact = 1: it ranks by its effectiveness, said to be exact. */
    double h_lo, h_hi, he_lo, he_hi;
    int exact;
    /* changes on which the rent (the index) moved at all */
    size_t rent_moves, index_moves;
    /* out of sample (oos.c): walk-forward effectiveness over the n changes
     * from the train-th on, each hedged at the h fitted on the changes
     * before it (not_fitted: no slope before it, so not hedged) */
    struct { double he; size_t n, train, not_fitted; } oos;
    /* block bootstrap of h: 95 % percentile interval of `used` slopes of
     * `reps` resamples of blocks of `block` changes, mt19937 seed `seed` */
    struct { double lo, hi; int reps, block; size_t used; unsigned long seed; } boot;
    /* Chow test at the largest index move (period: its period's first day,
     * move: Δindex there): ok = 0 when not testable; broke when p < 0.05 */
    struct {
        int ok;
        int32_t period;
        double move, f, p, h_before, h_after;
        size_t n_before, n_after;
    } chow;
    char warnings[HEDGE_MAX_WARN][200];
    size_t n_warnings;
} hedge_analysis;

/* Changes a hedge ratio needs before it is trusted: a year of months
 * (SPEC §9 as amended by METHODOLOGY.md "Hedge analyzer"). */
#define HEDGE_MIN_CHANGES 12
/* Changes on which the rent must have moved before any fit is evidence:
 * a rent that changed once "fits" any index that moved that month. */
#define HEDGE_MIN_MOVES 3
/* Out of sample (oos.c): the first change the walk-forward hedges (it
 * fits h on the changes before it), the bootstrap's resamples and seed,
 * and the p-value below which the ratio broke. */
#define HEDGE_WF_MIN_TRAIN 6
#define HEDGE_BOOT_REPS 999
#define HEDGE_BOOT_SEED 1UL
#define HEDGE_BREAK_P 0.05
/* The largest ratio `--ratio auto` uses: more than twice the exposure in
 * futures is a bet on the grade, not a hedge of the rent. */
#define HEDGE_RATIO_CAP 2.0

/* 95 % interval of the effectiveness ρ² from n pairs with correlation rho
 * (Fisher's z); NaN when n < 4 or rho is not in (-1, 1). */
void hedge_he_interval(double rho, size_t n, double *lo, double *hi);

/* Analyzes an aligned series.  window: rolling window in periods (>= 3;
 * 0 means 12).  Problems of the data (too short, no variation, tiny
 * offset denominators, a robust fit that did not converge) are warnings
 * with NaN results, not errors; errors are out-of-memory and misuse.
 * Free with hedge_analysis_free(). */
gpi_status hedge_analyze(const hedge_series *s, int window, hedge_analysis *out, gpi_diag *d);
void hedge_analysis_free(hedge_analysis *a);

/* The out-of-sample evidence in words (oos.c): the walk-forward figure,
 * the bootstrap interval of h (with its resamples, blocks and seed), and
 * the break test at the largest index move; hedge_broke is 1 when h
 * broke there (p < HEDGE_BREAK_P). */
void hedge_oos_text(const hedge_analysis *a, char *out, size_t cap);
void hedge_boot_text(const hedge_analysis *a, char *out, size_t cap);
void hedge_stability_text(const hedge_analysis *a, char *out, size_t cap);
int hedge_broke(const hedge_analysis *a);
/* 1 when the fit holds in sample only: the walk-forward effectiveness is
 * below HEDGE_RANK_MIN_HE (the futures added variance out of sample, or
 * removed under 1 %), or it cannot be measured (fewer changes than the
 * walk-forward needs, or a rent that did not move over the periods it
 * hedges) -- then no grade is ranked or recommended on that fit; out:
 * why in words ("fits in sample only: out of sample (...) it ADDED 57%
 * to the variance"), "" when 0. */
int hedge_in_sample_only(const hedge_analysis *a, char *out, size_t cap);

/* Convenience: aligns r with grade's index values idx[0..nidx) (the
 * range hedge_index_range gives) and analyzes.  GPI_EINPUT ("grade G: no
 * month has both rent and an index value") when no period is in both. */
gpi_status hedge_analyze_index(const char *grade, const gpi_index_day *idx, size_t nidx,
                               const hedge_rent *r, hedge_freq f, int window,
                               hedge_series *series, hedge_analysis *out, gpi_diag *d);

/* ---- replay (simulate.c) ------------------------------------------------ */

/* Futures settle at settlement/'s settle_fsp (SPEC §8): tick 0.0001 on
 * every calendar day, or a contract file's terms (hedge_sim_opts.terms). */
struct settle_contract;

typedef enum { HEDGE_PAYER = 0, HEDGE_EARNER } hedge_side;

/* roll: each month is hedged at the end of the month before with that
 * month's futures; strip: at the end of the month before a block of N
 * months, the futures of all N months are bought (sold) at once. */
typedef enum { HEDGE_ROLL = 0, HEDGE_STRIP } hedge_strategy;
const char *hedge_strategy_name(int s);

/* How a month's ratio was chosen (sim_ratio.c). */
typedef enum {
    HEDGE_RATIO_GIVEN = 0, /* --ratio X */
    HEDGE_RATIO_FITTED,    /* auto: the OLS h on the months before */
    HEDGE_RATIO_FALLBACK,  /* auto: fewer changes than the minimum (or no
                              fit): 0, the month is not hedged (a ratio of 1
                              there hedged against fits that were negative) */
    HEDGE_RATIO_NEGATIVE,  /* auto: the fit was <= 0: 0, the month is not
                              hedged (never a silent switch of side) */
    HEDGE_RATIO_CAPPED,    /* auto: the fit was above HEDGE_RATIO_CAP */
    HEDGE_RATIO_NRULES
} hedge_ratio_rule;

/* The ratio `--ratio auto` uses, given the OLS fit of the changes before
 * the month (fit->ok = 0 when there is none) on n_changes changes;
 * min_changes 0 means HEDGE_MIN_CHANGES. */
hedge_ratio_rule hedge_auto_ratio(const hedge_ols *fit, size_t n_changes, size_t min_changes,
                                  double *h);

typedef struct hedge_sim_opts {
    hedge_side side;
    int ratio_auto;            /* h from changes strictly before each month */
    double ratio;              /* used when !ratio_auto */
    int64_t size;              /* GPU-hours per contract (multiple of 100) */
    double exposure;           /* GPU-hours a month; 0 = previous month's quantity */
    const hedge_forward *forward; /* entry prices, or NULL (previous FSP) */
    size_t min_days;           /* FSP needs this many values (15) */
    /* fields below: zero means the default */
    hedge_strategy strategy;   /* HEDGE_ROLL */
    int strip_months;          /* months a strip locks (12) */
    int32_t start;             /* strip: first day of the first strip's first
                                  month; 0: the first month that can be entered */
    size_t min_changes;        /* auto ratio minimum (HEDGE_MIN_CHANGES) */
    /* a contract file's terms (--contracts; NULL: size above, tick 0.0001,
     * calendar days, min_days): size, tick, fsp_days, min_published_days
     * of `terms`; a month one of `listed` (the file's contracts on the
     * grade) delivers settles on that contract's own terms (its holidays) */
    const struct settle_contract *terms;
    const struct settle_contract *listed;
    size_t n_listed;
} hedge_sim_opts;

typedef struct hedge_sim_month {
    int32_t month;             /* first day */
    int skipped;
    char reason[96];           /* why skipped */
    double h, exposure, quantity, rent;
    int64_t contracts, entry_e4, fsp_e4, pnl_cents;
    double unhedged, hedged;   /* effective USD/GPU-hour */
    int32_t entered;           /* first day of the month at whose end the
                                  position was entered (roll: the month
                                  before; strip: the month before the strip) */
    hedge_ratio_rule rule;
    double h_fit;              /* auto: the OLS h (NaN when none) */
    size_t h_changes;          /* auto: monthly changes it was fitted on */
    /* The price locked at entry ("budget"): entry price + basis at entry
     * (rent - FSP of the month of entry).  err_* = effective - budget. */
    double budget, err_unhedged, err_hedged;
    double residual_usd;       /* residual basis: (hedged - budget) x quantity */
    double want;               /* contracts before rounding: h x exposure / size */
} hedge_sim_month;

/* Budget errors of the replayed months: mean, sd (n - 1) and root mean
 * square; sd NaN below 2 months. */
typedef struct hedge_err_stats {
    size_t n;
    double mean, sd, rms;
} hedge_err_stats;

/* One block entered at once (a strip; a month under roll): cost in USD
 * of the replayed months at the budget, unhedged and hedged prices, and
 * the GPU-hours used (quantity) and covered by futures (contracts x size). */
typedef struct hedge_block {
    int32_t entered, first, last; /* first days of the months */
    size_t months;
    double quantity, hedged_quantity, budget_usd, unhedged_usd, hedged_usd;
} hedge_block;

typedef struct hedge_sim {
    hedge_sim_month *m;
    size_t n, n_done;
    int64_t pnl_cents;
    /* levels of the effective price (the secondary view: includes the
     * trend across months, which no month-ahead hedge removes) */
    double mean_unhedged, mean_hedged, sd_unhedged, sd_hedged, sd_reduction;
    /* the headline: effective price - price locked at entry */
    hedge_err_stats err_u, err_h;
    double var_removed;        /* 1 - sd_h² / sd_u² (NaN when sd_u is 0) */
    double var_removed_exact;  /* the same with each month's futures sized
                                  exactly on its own GPU-hours (no rounding
                                  to contracts, no volume mismatch):
                                  hedged error = unhedged - h (FSP - entry);
                                  under roll at a fixed h with entry at the
                                  previous FSP this is `analyze --freq
                                  month`'s effectiveness at that h */
    double rms_reduction;      /* 1 - rms_h / rms_u */
    double var_removed_frac;   /* the same with the month's fractional
                                  contracts (h x exposure / size, unrounded):
                                  var_removed_frac - var_removed is what
                                  rounding to whole contracts cost */
    double residual_usd;       /* the residual basis in dollars, net over the
                                  replayed months, and the largest month's */
    double residual_max_usd;
    /* a fixed --ratio against the fit of every monthly change (fit_ok = 0:
     * no fit); contradicts when its sign differs from the fit's */
    int fit_ok, contradicts;
    double fit_h;
    size_t fit_changes;
    size_t n_rule[HEDGE_RATIO_NRULES]; /* replayed months per ratio rule */
    hedge_block *blocks;       /* strips (or months) with a replayed month */
    size_t n_blocks;
    hedge_block total;         /* all replayed months */
    char warnings[HEDGE_MAX_WARN][200];
    size_t n_warnings;
} hedge_sim;

/* GPI_EUSAGE for bad options, GPI_EMATH when the total P&L would not fit
 * int64 cents; months that cannot be replayed are skipped with a reason. */
gpi_status hedge_simulate(const hedge_rent *r, const gpi_index_day *idx, size_t nidx,
                          const hedge_sim_opts *o, hedge_sim *out, gpi_diag *d);
void hedge_sim_free(hedge_sim *s);

/* ---- several grades (compare.c) ----------------------------------------- */

/* Effectiveness a grade needs for the verdict to recommend it: it removes
 * at least half of the variance of the rent's changes. */
#define HEDGE_VERDICT_MIN_HE 0.50
/* Effectiveness below which a grade is not ranked at all: it removes
 * under 1 % of the variance (shown as 0 %), which is no hedge. */
#define HEDGE_RANK_MIN_HE 0.01
/* Share of a grade's fix supplied by the renter's own quotes from which
 * the grade is "largely your own price" (circular): not ranked as a
 * hedge, and the verdict says so. */
#define HEDGE_OWN_HIGH 0.50

/* The renter's own quotes in a grade (circularity, issue 27 item 1):
 * measured from the stored observations by the index (idx_own_shares)
 * when the rent names its provider.  in = 1 when the grade's values hold
 * them (a published grade, or a suggestion with --include-own), 0 when
 * they leave them out (a suggestion by default); the share is of the
 * grade with them.  The twin is the same grade the other way round:
 * without them when in = 1, with them when in = 0. */
typedef struct hedge_own_input {
    int known;                    /* 0: not measured (the other fields unused) */
    int in;
    double share;                 /* mean share of the fix they supply */
    long days, median_days, any_days;
    const gpi_index_day *twin;    /* the twin's values (NULL: none) */
    size_t n_twin;
    const char *twin_grade;       /* the twin's id when it is a grade of its own
                                     (a suggestion's), or NULL */
} hedge_own_input;

/* One grade to rank against the rent: its daily index values over the
 * range hedge_index_range gives, or why it has none, and what is known of
 * it.  All borrowed for the call. */
typedef struct hedge_grade_input {
    const char *grade;            /* id */
    const gpi_index_day *days;  /* ascending */
    size_t n;
    const char *missing;          /* non-NULL: why there are no values (the
                                     grade is listed with it, last) */
    const char *gpu;              /* its GPU models "a, b"; NULL or "" unknown */
    int suggested;                /* built around the rent (compare --suggest):
                                     not a published grade, no futures on it */
    int published;                /* in the published grade set (the published
                                     grades file, less dropped grades); 0: a
                                     candidate (given, never published) or a
                                     suggestion */
    const char *what;             /* a suggestion in words, or NULL */
    int providers;                /* a suggestion: the most provider groups
                                     behind one day's value (0 unknown) */
    hedge_own_input own;
} hedge_grade_input;

typedef struct hedge_rank {
    char grade[65];
    size_t input;               /* its index in the input array */
    int ok;                     /* 0: no data in common (reason) */
    char reason[160];
    hedge_analysis a;
    char gpu[160];              /* the grade's GPU models, ", "-separated;
                                   "" when unknown */
    int gpu_match;              /* 1 the rent's GPU, 0 another, -1 unknown */
    int suggested;              /* from the input */
    int published;              /* from the input */
    int providers;
    char what[160];
    int ranked;                 /* a hedge: see hedge_rank_sort */
    char why[240];              /* why not ranked (ok && !ranked) */
    /* own quotes: from the input; twin_ok when the twin was analyzed (t) */
    int own_known, own_in;
    double own_share;
    long own_days, own_median_days, own_any_days;
    int twin_ok;
    hedge_analysis t;
    char twin_grade[65];        /* the twin's id, "" when unnamed */
    int circular;               /* its values hold the renter's own quotes and
                                   they supply HEDGE_OWN_HIGH or more of its fix */
    int in_sample_only;         /* the fit does not hold out of sample
                                   (hedge_in_sample_only): not ranked */
    size_t rent_price_changes;  /* the rent's price changes row to row (the
                                   same for every grade; hedge_compare sets it) */
} hedge_rank;

typedef struct hedge_compare_opts {
    hedge_freq freq;
    int window;                 /* rolling window (0 = 12) */
    size_t min_changes;         /* 0 = HEDGE_MIN_CHANGES */
    const char *rent_gpu;       /* the rent's GPU model, or NULL */
} hedge_compare_opts;

/* 1 when gpu (a canonical model, or a family such as "A100" that names
 * every "A100-..." model) is among list ("a, b"; case-insensitive), 0 when
 * not, -1 when either is unknown (NULL or ""). */
int hedge_gpu_match(const char *gpu, const char *list);

/* Analyzes r against each grade (and each twin), then hedge_rank_sort().
 * *out holds n ranks; free with hedge_ranks_free(*out, n). */
gpi_status hedge_compare(const hedge_grade_input *g, size_t n, const hedge_rent *r,
                         const hedge_compare_opts *o, hedge_rank **out, gpi_diag *d);
/* Ranks hedges, not fits.  A grade with data is ranked only when, in this
 * order: the rent moved over its changes, the index moved, it has at
 * least min_changes changes, the rent's price changed on at least
 * HEDGE_MIN_MOVES days (rent_price_changes), a positive h (a payer of
 * the rent would buy it), an effectiveness of at least HEDGE_RANK_MIN_HE,
 * it is not largely the renter's own price (circular), and the fit holds
 * out of sample (not hedge_in_sample_only: the walk-forward removes at
 * least HEDGE_RANK_MIN_HE); else `why` says which failed.  Ranked grades first, by the low end of the 95 %
 * interval of the effectiveness (an exact fit: its degenerate interval
 * [1, 1]; a short history ranks below an equal fit on a long one), then
 * the effectiveness, then basis sd (lower first), then id; then unranked
 * grades with data, then grades without.  Published and suggested grades
 * are ranked together.  Sets ranked, why, circular. */
void hedge_rank_sort(hedge_rank *r, size_t n, size_t min_changes);

/* The sentences a verdict may be made of (hedge_verdict.kinds): one
 * table-driven test each (tests/test_hedge_compare.c). */
enum {
    HEDGE_S_FLAT_RENT = 1 << 0,   /* "no rent risk in this period to hedge: ..." */
    HEDGE_S_NO_OVERLAP = 1 << 1,  /* "no grade here has index values in your rent's ..." */
    HEDGE_S_FEW_MOVES = 1 << 2,   /* "your rent changed on only k of its N ... changes" */
    HEDGE_S_FLAT_INDEX = 1 << 3,  /* "no grade here moved over your rent's ..." */
    HEDGE_S_TOO_FEW = 1 << 4,     /* "no grade here has the N ... changes a hedge ratio needs" */
    HEDGE_S_USE = 1 << 5,         /* "use X: removes a% ..." */
    HEDGE_S_SUGGEST = 1 << 6,     /* "...; one built around it would: Y ..." */
    HEDGE_S_NONE = 1 << 7,        /* "no grade here hedges this rent: ..." */
    HEDGE_S_NONE_BUILT = 1 << 8,  /* "; nor would a grade built around it ..." */
    HEDGE_S_OWN = 1 << 9,         /* "...; X tracks your rent only because your own quotes ..." */
    HEDGE_S_BROKE = 1 << 10,      /* "...; but its h broke at the largest index move ..." */
    HEDGE_S_BEST_FIT = 1 << 11,   /* "best R² x (X), ..." / "none of your GPU moves with it" */
    HEDGE_S_OOS_FAIL = 1 << 12,   /* "best R² x (X) is no hedge: fits in sample only: ..." */
    HEDGE_S_CANDIDATE = 1 << 13   /* "...; it is a candidate grade, not published ..." */
};

/* The plain answer, sentences a risk manager can act on, each true of
 * the case (design notes in compare.c): a rent that never changed has no
 * risk to hedge; no overlap of dates; a rent that moved too rarely; no
 * index that moved; too few changes; else the first ranked grade when it
 * removes at least HEDGE_VERDICT_MIN_HE (a grade given first -- called
 * published only when it is in the published set, else a candidate, not
 * published; a suggestion said to be unpublished and, when it is, one
 * provider's price), else why none does -- quoting only a grade of the
 * rent's GPU with h > 0, and a fit that holds in sample only as such --
 * and, when a grade tracks the rent only because it is the renter's own
 * price, that.  A grade that fits in sample only is never ranked, so
 * never recommended.  best is the index in r of the grade recommended (-1
 * none); hedges is 1 for a recommendation, suggested 1 when it is a
 * suggested grade; kinds the sentences used. */
typedef struct hedge_verdict {
    int hedges, suggested;
    long best;
    unsigned kinds;
    char text[1400];
} hedge_verdict;
void hedge_compare_verdict(const hedge_rank *r, size_t n, const hedge_compare_opts *o,
                           const hedge_rent_summary *rs, hedge_verdict *v);
void hedge_ranks_free(hedge_rank *r, size_t n);

/* ---- grades built around the rent (suggest.c) ------------------------------ */

typedef struct hedge_candidate {
    char id[65];              /* "sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own" */
    char what[240];           /* "T4 spot, vm, in us-east-1, instance type
                                 g4dn.xlarge, without your own quotes" */
    int one_provider;         /* names a provider, region or instance type:
                                 one provider's prices (min_providers 1) */
    int own_in;               /* its values may hold the renter's own quotes */
    long twin;                /* the index in grades_json of its twin -- the
                                 same grade the other way round (with the own
                                 quotes when it leaves them out, without
                                 when not) -- or -1 (none: the own quotes are
                                 unknown, or the rung leaves their provider
                                 out) */
} hedge_candidate;

/* The shipped grades' style, which the candidates follow (read from the
 * published grades file by the caller): their method and what their
 * prices cover. */
typedef struct hedge_sug_style {
    char method[8];           /* "v2" */
    char covers[4][16];
    int n_covers;             /* 0: every kind (no "covers" field) */
} hedge_sug_style;

typedef struct hedge_suggestion {
    hedge_candidate *c;
    size_t n;
    size_t n_grades;          /* candidates, then their twins */
    char *grades_json;        /* {"grades": [...]}: the n candidates, in order,
                                 then the twins, for the index's grade parser */
    char *own_exclude;        /* the renter's own quotes as one "exclude" entry
                                 (compact JSON), NULL when the rent names no
                                 provider */
    char own_words[240];      /* those quotes in words, "" when unknown */
} hedge_suggestion;

/* The candidate grades around a rent (design notes in suggest.c): GPU +
 * term, + scope, + the renter's provider, + region, + instance type, the
 * instance type in every region, and every provider but the renter's --
 * those the known attributes allow -- in the shipped grades' style.  The
 * renter's own quotes (same provider and, as far as the description
 * goes, region, instance type and zone) are left out of every candidate
 * unless include_own, and each candidate gets its twin.  info->gpu is
 * required; gpus are the canonical models it names (a family names
 * several).  Free with hedge_suggestion_free(). */
gpi_status hedge_suggest(const hedge_rent_info *info, const char *const *gpus, size_t ngpus,
                         const hedge_sug_style *style, int include_own, hedge_suggestion *out,
                         gpi_diag *d);
void hedge_suggestion_free(hedge_suggestion *s);
/* The renter's own quotes alone (note 5 of suggest.c): the "exclude"
 * entry as compact JSON (malloc'd; NULL when the rent names no provider,
 * or out of memory) and in words into words[cap] ("" when unknown). */
char *hedge_own_exclude(const hedge_rent_info *info, char *words, size_t cap);

/* ---- chart (svg.c) ------------------------------------------------------ */

/* Writes a self-contained SVG (no scripts) of s and a: scatter of Δrent on
 * Δindex with the fitted line, and rent, index and basis over time.  *out
 * is malloc'd, NUL-terminated; free with free(). */
gpi_status hedge_svg(const hedge_series *s, const hedge_analysis *a, const char *title,
                     char **out, size_t *len, gpi_diag *d);
/* The replay of one rent under n (1 or 2) strategies (o[k] the options of
 * s[k]): per month the rent (= the unhedged price), the index FSP, the
 * hedged price and the price locked at entry; below, the budget errors
 * unhedged and hedged as bars.  Skipped months are left out. */
gpi_status hedge_svg_sim(const hedge_sim *s, const hedge_sim_opts *o, size_t n,
                         const char *title, char **out, size_t *len, gpi_diag *d);
/* The ranking: one row per grade in rank order, its effectiveness with
 * the 95 % interval on a 0-100 % axis with the verdict's 50 % and hedge
 * accounting's 80 % marked; ranked, suggested and unranked grades in
 * their own colours, grades without data named with the reason. */
gpi_status hedge_svg_compare(const hedge_rank *rk, size_t n, hedge_freq f, const char *title,
                             char **out, size_t *len, gpi_diag *d);

#endif
