/* curve/read.h -- the term curve's inputs of a day, read from the store
 * (the stage above index/; the method itself, curve/curve.h, takes them
 * as plain data).
 *
 * For each grade of a set and one day at one cut-off, one scan of the day
 * gives:
 *   - the term quotes: the day's observations the grade takes when its
 *     term is read as reserved 1..60 months -- every other filter the
 *     grade's own (GPU, scope, tier, regions, providers, segments, skus,
 *     exclusions, covers) -- offers at their latest snapshot of the day
 *     (found among all of the day's snapshots of the key, as the index
 *     finds it), trades as listed, cancelled and affiliate trades and the
 *     error screen's exclusions (per provider group, the grade's
 *     error_factor, METHODOLOGY.md §3) named; with their forward start
 *     (store/curves.h) when they have one;
 *   - each quote's reference: its provider group's own price of the same
 *     kind in the grade that day -- the median of the group's screened
 *     offers, or the volume-weighted median of its screened trades -- in
 *     quarter-micro-USD (-1 when the group has none).
 * Only on-demand grades have a curve: for a spot or a reserved grade the
 * reader gives no quotes and `why` says so.
 *
 * Ownership: curve_day_read fills *out; free it with curve_day_free.  The
 * quotes' provider, group and source are the store's interned names,
 * valid until the store handle's next rollback or close.
 */
#ifndef GPI_CURVE_READ_H
#define GPI_CURVE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"
#include "index/index.h"
#include "store/store.h"

typedef struct curve_inputs {
    curve_quote *q;
    size_t n, cap;
    const char *why;          /* no curve for the grade (static text), or NULL */
} curve_inputs;

typedef struct curve_day {
    int32_t day;
    size_t n;                 /* grades, in the order of the set */
    curve_inputs *g;
} curve_day;

/* The inputs of every grade of gs on day at cut-off as_of (one scan). */
gpi_status curve_day_read(store *st, const idx_grades *gs, int32_t day, int64_t as_of,
                          curve_day *out, gpi_diag *d);
void curve_day_free(curve_day *cd);

/* The curve parameters of grade g: the defaults with the grade's
 * error_factor. */
void curve_params_of(const idx_grade *g, curve_params *p);

/* ---- a day's curves (day.c): inputs read and curves computed ------------ */

/* One grade's curve of the day. */
typedef struct curve_graded {
    const idx_grade *g;       /* borrowed from the set */
    int64_t front_e4;         /* the fix, -1 none */
    curve_inputs in;          /* its inputs (the method's outputs written in) */
    curve_result r;
} curve_graded;

typedef struct curve_set {
    int32_t day;
    size_t n;
    curve_graded *g;          /* in the order of the grade set */
    curve_params base;        /* the parameters (each grade's error_factor its own) */
} curve_set;

/* Extra inputs of a grade (futures settlement prices, curve/futures.c):
 * q[0..n) appended to the store's quotes of grade index gi. */
typedef struct curve_extra {
    size_t gi;
    const curve_quote *q;
    size_t n;
} curve_extra;

/* The curves of grades gs on day: front_e4[i] the fix of grade i (-1
 * none), as_of[i] the cut-off its inputs are read at (grades of one
 * cut-off share a scan); extra: futures inputs (NULL, 0: none).  Free
 * with curve_set_free. */
gpi_status curve_set_compute(store *st, const idx_grades *gs, int32_t day,
                             const int64_t *front_e4, const int64_t *as_of,
                             const curve_extra *extra, size_t n_extra, curve_set *out,
                             gpi_diag *d);
void curve_set_free(curve_set *s);
/* The same at the stored index rows of day: each grade's value (-1 when
 * suspended or not built) and its row's cut-off; *missing (may be NULL):
 * grades without a row. */
gpi_status curve_set_stored(store *st, const idx_grades *gs, int32_t day, const curve_extra *extra,
                            size_t n_extra, curve_set *out, int *missing, gpi_diag *d);
/* curve.csv and curve.json of the set (vintage <= 0: null, a curve not
 * published). */
void curve_set_csv(FILE *f, const curve_set *s);
void curve_set_json(FILE *f, const curve_set *s, int vintage);

#endif
