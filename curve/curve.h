/* curve/curve.h -- the term curve (issue 29; METHODOLOGY.md "Term curve"):
 * a grade's 1-36 month rent curve of one day, from the day's fix and the
 * term rents quoted that day.
 *
 * The method is pure: data in, data out -- no store, no files, no
 * printing (curve/read.h reads a day's inputs from the store, and
 * curve/format.c writes what this computes).  Given the grade's fix V of
 * day D and its inputs (term quotes with their provider's own price in the
 * grade, forward-start quotes, futures settlement prices):
 *   1. each quote is restated to the grade: ratio = price / the provider's
 *      own price of the same kind in the grade that day (12 decimals,
 *      half-up), restated = V x ratio (micro-USD, half-up); a futures
 *      price is on the grade itself and stays as it is;
 *   2. the screen: a ratio outside [1/F, F] (F the grade's error_factor),
 *      a quote without a provider price to restate against, a term that
 *      ends after 36 months, a futures price in its delivery month or equal
 *      to the index (the settlement rule's own price) are excluded with
 *      their reason;
 *   3. the quotes of one interval (start and end) form a point: the median
 *      of the provider groups' median restated prices (one vote per
 *      group), with a tolerance of 1.0 %, 0.7 %, 0.6 % or 0.5 % of its
 *      value for 1, 2, 3 or more groups;
 *   4. the fit: monthly forwards F_1..F_N, relative to the curve growing
 *      at the points' constant rate from V, that minimize the roughness
 *      (squared second differences on the monthly grid, the front V at 0)
 *      while every point's average lies within its tolerance -- maximum
 *      smoothness -- or, with fewer than three points that all start on
 *      the day, Hagan and West's monotone-convex interpolation through
 *      them; a point that bends the curve past the convexity limit is
 *      excluded and the fit made again;
 *   5. per tenor 1..36: the monthly forward and the term rate (the mean of
 *      the forwards up to it), 4 decimals half-up, and a status: fitted
 *      (an input ends in the tenor), interpolated (between inputs close
 *      enough), or withheld with the reason (no input that far, inputs too
 *      far apart, a negative or implausible forward, no fix).
 * Time runs in months of 365.25 / 12 = 30.4375 days from the end of D:
 * day D + j is [(j - 1), j) / 30.4375; tenor k is [k - 1, k).
 *
 * Ownership: quotes are the caller's; curve_compute writes their outputs
 * in place.  curve_result owns its points: free with curve_result_free.
 */
#ifndef GPI_CURVE_H
#define GPI_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"

#define CURVE_TENORS 36
/* The published name of the method and its version (curve.json "method"). */
#define CURVE_METHOD "term curve v1"
/* A curve month is CURVE_MONTH_NUM / CURVE_MONTH_DEN days (30.4375). */
#define CURVE_MONTH_NUM 487
#define CURVE_MONTH_DEN 16

/* Kinds of input (offers and trades are gpi_kind's). */
enum { CURVE_OFFER = GPI_OFFER, CURVE_TRADE = GPI_TRADE, CURVE_FUTURES = 2 };
const char *curve_kind_name(int kind);
/* A quote's or a point's role. */
enum { CURVE_USED = 0, CURVE_EXCLUDED };
/* A tenor's status. */
enum { CURVE_FITTED = 0, CURVE_INTERPOLATED, CURVE_WITHHELD };
const char *curve_status_name(int status);
/* How the curve was fitted. */
enum { CURVE_FIT_NONE = 0, CURVE_FIT_SMOOTH, CURVE_FIT_MONOTONE, CURVE_FIT_EXACT };
const char *curve_fit_name(int fit);

typedef struct curve_params {
    int64_t error_factor_e6;  /* F of the screen and the plausibility check (the grade's: 3) */
    int64_t tolerance_e6[4];  /* a point's tolerance for 1, 2, 3, >= 4 groups:
                                 10000, 7000, 6000, 5000 (1.0 % .. 0.5 %) */
    int min_points;           /* fewer spot-start points: monotone convex (3) */
    int64_t convexity_e6;     /* the largest |second difference| of the forwards,
                                 per month squared, as a share of the fix (1 %) */
    int convexity_from;       /* ... from this tenor on (4: the first quarter is
                                 bent by shocks the market expects to fade) */
    int max_gap_factor;       /* interpolation between input ends e1 < e2 needs */
    int max_gap_months;       /* e2 <= max(factor x e1, e1 + months): 3 and 3 */
} curve_params;

void curve_params_default(curve_params *p);

/* One input of the day (a term quote, a forward-start quote or a futures
 * settlement price).  "in" fields are the caller's, "out" fields
 * curve_compute's. */
typedef struct curve_quote {
    /* in */
    int kind;                 /* CURVE_OFFER, CURVE_TRADE, CURVE_FUTURES */
    const char *provider, *group, *source; /* borrowed; futures: the exchange or "" */
    const char *symbol;       /* futures: the contract's symbol; else NULL */
    uint64_t key;             /* identity hash without its top bit (observations.csv's
                                 key modulo 2^63); futures 0 */
    int64_t observed_at;      /* Unix seconds; futures: the day's end */
    int term_months;          /* quotes: 1..60; futures: 0 */
    int32_t starts_on;        /* quotes: the first day of a forward start, 0 none */
    int32_t first_day, last_day; /* futures: the delivery month */
    int64_t price_micro;      /* USD/GPU-hour x 1e6 */
    int64_t quantity_micro;   /* trades: GPU-hours x 1e6; else -1 */
    int64_t ref_q;            /* quotes: the provider group's own price of the same
                                 kind in the grade that day, quarter-micro; -1 none.
                                 futures: set to the fix (x 1e4) by curve_compute */
    int ref_twin;             /* 1: ref_q is the same listing's (region, scope, sku) */
    const char *pre_reason;   /* excluded before the method (the reader: "cancelled
                                 trade", a screen...), static text; NULL none */
    /* out */
    int32_t start_days;       /* days from the end of the day to its start */
    double a, b;              /* its interval in curve months */
    int64_t ratio_e12;        /* price / reference (futures: price / fix); -1 none */
    int64_t restated_micro;   /* its price restated to the grade; -1 none */
    int point;                /* its point (curve_result.pt), -1 none */
    double weight;            /* its share of its point's vote (1 / groups / its
                                 group's quotes there); 0 excluded */
    int role;                 /* CURVE_USED, CURVE_EXCLUDED */
    char reason[160];
} curve_quote;

/* One constraint of the fit: the average of the forward over [a, b]. */
typedef struct curve_point {
    int32_t start_days;       /* as its quotes' */
    int term_months;          /* > 0: [a, a + term_months]; 0 (futures): [a, b] of */
    int32_t end_days;         /* days from the end of the day to its end (futures) */
    double a, b;
    int futures;
    int groups;               /* provider groups (futures: contracts) voting */
    int64_t value_micro;      /* median of the groups' median restated prices */
    int64_t tol_micro;        /* its tolerance */
    int64_t fitted_micro;     /* the curve's average over [a, b]; -1 none */
    int64_t residual_micro;   /* fitted - value (meaningful when fitted_micro >= 0) */
    int active;               /* at its upper (+1) or lower (-1) bound in the fit, 0 */
    double lambda;            /* the bound's multiplier (0 inactive) */
    int role;                 /* CURVE_USED, CURVE_EXCLUDED (the convexity screen) */
    char reason[160];
} curve_point;

typedef struct curve_tenor {
    int status;               /* CURVE_FITTED, CURVE_INTERPOLATED, CURVE_WITHHELD */
    int64_t term_e4, fwd_e4;  /* -1 withheld */
    double term, fwd;         /* unrounded, NAN when not computed */
    char reason[160];         /* withheld: why */
} curve_tenor;

typedef struct curve_result {
    int32_t day;
    int64_t front_e4;         /* the fix, -1 none */
    int fit;                  /* CURVE_FIT_* */
    int n_used;               /* points the fit reproduces */
    int longest_days;         /* days covered by the inputs (0 none) */
    double growth;            /* the smooth fit's base growth a month (0 otherwise) */
    curve_point *pt;          /* every point, in order of (start, end) */
    size_t n_pt;
    curve_tenor t[CURVE_TENORS];
    char note[200];           /* why no tenor has a value ("" otherwise) */
} curve_result;

/* The curve of grade-day `day` with fix front_e4 (-1: none) from the
 * inputs q[0..nq) (their outputs written in place).  GPI_ENOMEM, or
 * GPI_EMATH when the fit cannot be solved (never on finite inputs). */
gpi_status curve_compute(const curve_params *p, int32_t day, int64_t front_e4, curve_quote *q,
                         size_t nq, curve_result *out, gpi_diag *d);
void curve_result_free(curve_result *r);
/* Why a spot or reserved grade has no curve (the store's reader gives it
 * no inputs): the note of such a grade. */
extern const char *const curve_only_on_demand;
/* Withholds every tenor of r with the reason why (a grade without a
 * curve: curve/read.h) and sets r->note to it. */
void curve_withhold_all(curve_result *r, const char *why);

/* ---- the fit alone (fit.c; tests and tests/ref) ------------------------- */

/* A point of the fit: the average over [a, b] months within value +- tol. */
typedef struct curve_fit_point {
    double a, b, value, tol;
    int active;               /* out: +1 / -1 at a bound, 0 inside */
    double lambda;            /* out */
} curve_fit_point;

/* Maximum smoothness on the monthly grid: the forwards fwd[0..n) (n =
 * months to the last point's end, rounded up, at most CURVE_TENORS) with
 * front v that minimize the roughness relative to the constant-growth
 * base (*growth: its rate a month) while every point is within its
 * tolerance.  exact = 1 holds every point at its value.  *n_out: n.
 * Returns 0, -1 when the active set did not settle (the caller fits
 * exactly), or -2 - i when point i cannot be held with the others (it
 * measures the same months). */
int curve_fit_smooth(double v, curve_fit_point *pts, size_t n, int exact, double *fwd,
                     int *n_out, double *growth);
/* The base's growth a month (fit.c note 2): the weighted least-squares
 * slope of ln(value / v) on the points' middles, within +-0.1. */
double curve_base_growth(double v, const curve_fit_point *pts, size_t n);
/* Hagan and West's monotone-convex forward through points that all start
 * at 0 (ends strictly increasing), front v: fwd[0..n_out). */
void curve_fit_monotone(double v, const curve_fit_point *pts, size_t n, double *fwd, int *n_out);
/* The average of monthly forwards fwd[0..n) over [a, b]. */
double curve_average(const double *fwd, int n, double a, double b);
/* The largest |divided second difference| of (v at 0, fwd[k] at k + 1/2)
 * over the nodes from .. n - 1 (node k is tenor k; none: 0); *at: its
 * tenor. */
double curve_roughness_max(double v, const double *fwd, int n, int from, int *at);

#endif
