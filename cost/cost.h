/* cost/cost.h -- cost per acceptable output token, and the producers' cost
 * curve, from GPU-hour prices and measured throughput.
 *
 * A producer serving a model states, per deployment, the output tokens per
 * second one GPU sustains at a latency target, the share of responses that
 * meet its quality bar, and how many GPUs it runs.  The GPU-hour price is
 * either the grade's index value of the day or the producer's own rent.
 * Then, per deployment and day,
 *
 *   USD per million acceptable output tokens
 *       = price (USD/GPU-hour) / (tokens/s x 3600 x acceptance) x 1e6
 *
 * and, for one workload and day, the deployments sorted by that cost
 * against their cumulative capacity form the cost curve (METHODOLOGY.md,
 * "Cost per acceptable token").
 *
 *   deploy.c   the deployments CSV: header-named columns, file:line errors
 *   compute.c  one deployment-day: price lookup, cost, rent share, margin
 *   curve.c    the curve of one day: order, ranks, capacity, distances
 *   moves.c    positions over a date range, with the change of each cost
 *              split into an index (price) and a throughput effect
 *   svg.c      a self-contained SVG of a curve
 *
 * Data in, data out: the index values arrive as arrays (the CLI reads them
 * from the store); nothing here opens the database, prints or exits.
 * API list prices are carried beside the cost (margin) and never enter a
 * cost, a rank or a median.
 *
 * Money is fixed point.  GPU-hour prices are micro-USD (index values are
 * 0.0001 USD, x 100); a cost is micro-USD per million acceptable tokens,
 * computed from exact integers and rounded once, half-up (COST_DP = 6
 * decimals of a USD).  Everything derived from costs (distances, medians,
 * effects) is computed from the rounded costs, so it can be recomputed
 * from the published figures; relative distances are ratios of those
 * integers rounded once to 0.01 %.  Capacities are exact integers.
 *
 * Ownership: *_free(x) releases what the matching call allocated inside x;
 * *_free of a zeroed struct is a no-op.  Results point into the
 * deployments they were computed from (borrowed): free the results first.
 */
#ifndef GPI_COST_H
#define GPI_COST_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "store/store.h"

#define COST_NAME_MAX 64
#define COST_DP 6                 /* decimals of USD in a cost */
#define COST_NA INT64_MIN         /* a relative distance to a zero cost */

/* ---- the deployments file (deploy.c) ------------------------------------ */

typedef struct cost_deployment {
    long line;                          /* physical line in the file */
    char op[COST_NAME_MAX + 1];         /* operator (producer) */
    char name[COST_NAME_MAX + 1];       /* deployment label, "" none */
    char workload[COST_NAME_MAX + 1];   /* workload label, "" none */
    char latency[COST_NAME_MAX + 1];    /* latency target, as stated */
    char gpu[COST_NAME_MAX + 1];
    char grade[COST_NAME_MAX + 1];      /* grade id, "" none */
    int32_t from, to;                   /* days, inclusive */
    int64_t rent_micro;      /* own USD/GPU-hour x 1e6; -1: the grade's value */
    int64_t tps_milli;       /* output tokens/s per GPU x 1e3, > 0 */
    int64_t accept_ppm;      /* share meeting the quality bar x 1e6, 1..1e6 */
    int64_t gpus;            /* GPUs deployed, > 0 */
    int64_t other_micro;     /* other costs, USD/GPU-hour x 1e6; -1 none */
    int64_t api_micro;       /* API list price, USD per 1M output tokens x 1e6; -1 none */
} cost_deployment;

typedef struct cost_deployments {
    cost_deployment *v;      /* in file order */
    size_t n;
    int has_other, has_api;  /* the file has these columns */
} cost_deployments;

/* Parses deployments CSV text (path only names it in errors).  The first
 * non-blank line is a header naming the columns, in any order:
 *   operator, gpu, latency_target, tokens_per_s, acceptance, gpus  required
 *   date | from[,to]        a day, or an inclusive range (empty to: one day)
 *   grade and/or rent       at least one per row; rent wins for the price
 *   deployment, workload, other_cost, api_price               optional
 * Errors are "path:line: column: reason (got "...")"; the first wins.  Two
 * rows of one operator, deployment, workload and latency target may not
 * share a day (reported at the later row).  Free with
 * cost_deployments_free(). */
gpi_status cost_deployments_parse(const char *path, const char *text, size_t len,
                                  cost_deployments *out, gpi_diag *d);
/* Reads the file at path (at most 64 MiB) and parses it. */
gpi_status cost_deployments_load(const char *path, cost_deployments *out, gpi_diag *d);
void cost_deployments_free(cost_deployments *ds);

/* "op" or "op/deployment": how a producer's deployment is named in output
 * (and the identity followed over time).  Returns out. */
const char *cost_label(const cost_deployment *dep, char out[2 * COST_NAME_MAX + 2]);

/* 1 when gpu names a GPU of the list, compared ignoring case, spaces, '-'
 * and '_' ("h100 sxm 80gb" = "H100-SXM-80GB"). */
int cost_gpu_in(const char *gpu, const char *const *gpus, size_t n);

/* ---- index values as data ----------------------------------------------- */

/* One grade's days as store_index_series returns them (ascending; days
 * never built absent; suspended days with level GPI_LEVEL_SUSPENDED). */
typedef struct cost_series {
    const char *grade;
    const gpi_index_day *days;
    size_t n;
} cost_series;

typedef struct cost_prices {
    const cost_series *s;    /* grade ids compared case-insensitively */
    size_t n;
} cost_prices;

/* ---- one deployment-day (compute.c) -------------------------------------- */

typedef enum {
    COST_OK = 0,             /* priced */
    COST_SUSPENDED,          /* the grade is suspended that day: no value */
    COST_UNBUILT             /* no index row for the day (never built) */
} cost_status;
const char *cost_status_name(int st);   /* "ok", "suspended", "not built" */

typedef struct cost_point {
    const cost_deployment *dep;  /* borrowed */
    int32_t day;
    int status;              /* cost_status; the fields below are -1 (or 0
                                for has_*) unless COST_OK */
    int level;               /* gpi_level of the index value; -1 own rent */
    int64_t price_micro;     /* USD/GPU-hour used */
    int64_t cost_micro;      /* USD per 1M acceptable tokens x 1e6 (rent only) */
    int has_total;           /* other costs given */
    int64_t total_micro;     /* (rent + other) per 1M acceptable tokens */
    int64_t rent_share_bp;   /* rent / (rent + other), 0.01 % units */
    int has_api;
    int64_t margin_micro;    /* api_price - cost (may be negative) */
    int64_t margin_bp;       /* margin / api_price, 0.01 %; 0 when api is 0 */
} cost_point;

/* USD per 1M acceptable tokens x 1e6 of price_micro at tps_milli and
 * accept_ppm: round(price x 1e15 / (3600 x tps x acceptance)), half-up.
 * Exact for every input the reader accepts. */
int64_t cost_per_mtok_micro(int64_t price_micro, int64_t tps_milli, int64_t accept_ppm);

/* round(num x 1e4 / den) half away from zero: a ratio in 0.01 % units. */
int64_t cost_ratio_bp(int64_t num, int64_t den);

/* The index value of grade on day: GPI_OK with *value_e4 and *level, or
 * COST_SUSPENDED / COST_UNBUILT in *status. */
void cost_price_lookup(const cost_prices *px, const char *grade, int32_t day, int *status,
                       int *level, int64_t *value_e4);

/* Computes dep on day (which must lie in dep's range). */
void cost_point_compute(const cost_deployment *dep, const cost_prices *px, int32_t day,
                        cost_point *out);

/* Every deployment-day in [from, to] (clipped to each deployment's range),
 * ordered by day, then file order; deployments whose op differs from
 * `op` (if non-NULL) are skipped.  *out malloc'd (free()); *n may be 0. */
gpi_status cost_days(const cost_deployments *ds, const cost_prices *px, int32_t from, int32_t to,
                     const char *op, cost_point **out, size_t *n, gpi_diag *d);

/* ---- the curve of one day (curve.c) -------------------------------------- */

typedef enum { COST_AXIS_TOKENS = 0, COST_AXIS_GPUS } cost_axis;

/* Which deployments form a curve. */
typedef struct cost_select {
    const char *workload;    /* exact; "" = rows without a workload */
    const char *latency;     /* exact latency target */
    const char *grade;       /* NULL: any; else only rows of this grade */
    int axis;                /* cost_axis */
} cost_select;

/* Capacity of a deployment on an axis: GPUs, or acceptable output tokens
 * per second in units of 0.001 (tps x acceptance x GPUs, rounded once). */
int64_t cost_capacity(const cost_deployment *dep, int axis);

typedef struct cost_entry {
    cost_point pt;
    int64_t cap;             /* capacity on the axis */
    int64_t cum_from, cum_to;/* cumulative capacity before / after it */
    size_t rank;             /* 1 = cheapest; equal costs share a rank */
    int64_t to_cheapest_micro, to_median_micro;  /* cost - reference */
    int64_t to_cheapest_bp, to_median_bp;        /* cost / reference - 1, 0.01 %
                                                    units; COST_NA when the
                                                    reference cost is 0 */
} cost_entry;

typedef struct cost_curve {
    int32_t day;
    cost_select sel;         /* borrowed strings */
    cost_entry *v;           /* priced, by cost, then label, then line */
    size_t n;
    cost_point *off;         /* active that day but without a value */
    size_t n_off;
    int64_t cheapest_micro, median_micro;   /* meaningless when n == 0 */
    int64_t total_cap;
    size_t median_at;        /* index in v of the median deployment */
} cost_curve;

/* The curve of sel on day.  The median is capacity-weighted: the cost of
 * the first deployment (in curve order) at which the cumulative capacity
 * reaches half the total.  Free with cost_curve_free(). */
gpi_status cost_curve_build(const cost_deployments *ds, const cost_prices *px,
                            const cost_select *sel, int32_t day, cost_curve *out, gpi_diag *d);
void cost_curve_free(cost_curve *c);

/* The distinct (workload, latency target) groups of the deployments, in
 * first-seen order, as indexes of a representative row. */
gpi_status cost_groups(const cost_deployments *ds, size_t **rows, size_t *n, gpi_diag *d);

/* The last day any deployment of sel covers (returns 1), or 0 in *day
 * and returns 0 when none. */
int cost_last_day(const cost_deployments *ds, const cost_select *sel, int32_t *day);

/* ---- positions over time (moves.c) --------------------------------------- */

typedef struct cost_move {
    char label[2 * COST_NAME_MAX + 2];
    const cost_entry *first, *last;  /* at the first / last sampled day where
                                        it is on the curve; NULL: never */
    int32_t first_day, last_day;
    size_t first_of, last_of;        /* deployments on those two curves */
    size_t best_rank, worst_rank;    /* over the sampled days on the curve */
    int32_t best_day, worst_day;
    size_t n_on;                     /* sampled days on the curve */
    /* between first and last (both non-NULL): */
    int64_t change_micro;            /* cost change */
    int64_t price_effect_micro;      /* of the GPU-hour price */
    int64_t eff_effect_micro;        /* of tokens/s x acceptance (the rest) */
    int64_t eff_change_bp;           /* tokens/s x acceptance: last/first - 1 */
    int improved;                    /* throughput x acceptance rose */
    int fell_back;                   /* rank worse, or further above the median */
} cost_move;

typedef struct cost_moves {
    cost_curve *curves;      /* one per sampled day, ascending */
    size_t n_curves;
    cost_move *m;            /* by label */
    size_t n;
} cost_moves;

/* Curves of sel every `every` days from `from`, and on `to` (always), and
 * each producer's move between its first and last sampled day on a curve.
 * Free with cost_moves_free(). */
gpi_status cost_moves_build(const cost_deployments *ds, const cost_prices *px,
                            const cost_select *sel, int32_t from, int32_t to, int every,
                            cost_moves *out, gpi_diag *d);
void cost_moves_free(cost_moves *m);

/* ---- chart (svg.c) --------------------------------------------------------- */

/* A self-contained SVG (no scripts, no external references) of the curve:
 * one bar per deployment, width its capacity and height its cost, in
 * curve order, coloured by GPU, with the median as a dashed line and the
 * deployments of `highlight` (an operator; NULL: none) outlined.  *out is
 * malloc'd, NUL-terminated; free with free(). */
gpi_status cost_curve_svg(const cost_curve *c, const char *title, const char *highlight,
                          char **out, size_t *len, gpi_diag *d);

#endif
