/* curve/backtest.h -- the term curve's back-test (issue 29; METHODOLOGY.md
 * "Term curve"): for each tenor k, the forward each day's curve fixed for
 * the month k months ahead against what that month realised, and against
 * a known true curve.  Pure: data in, numbers out.
 *
 * The month of tenor k seen from day D is the days X with (X - D - 1) /
 * 30.4375 in [k - 1, k) (curve.h's time axis); its realised price is the
 * monthly final settlement price's rule over those days: the mean of the
 * grade's values (suspended days skipped), rounded half-up to 0.0001, none
 * below 15 values.  The error of a forward F against a reference R is
 * F / R - 1; a tenor's bias is the mean error, its RMSE the root of the
 * mean squared error, "within" the share of errors of at most 3 % either
 * way.
 */
#ifndef GPI_CURVE_BACKTEST_H
#define GPI_CURVE_BACKTEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/index_day.h"
#include "curve/curve.h"

#define CURVE_BT_MIN_VALUES 15   /* a month's values for a realised price */

typedef struct curve_bt_stat {
    long n;
    double sum, sumsq;        /* of the errors */
    long within;              /* |error| <= 3 % */
} curve_bt_stat;

/* Adds the error of forward f against reference r (both > 0). */
void curve_bt_add(curve_bt_stat *s, double f, double r);
double curve_bt_bias(const curve_bt_stat *s);   /* NAN when n = 0 */
double curve_bt_rmse(const curve_bt_stat *s);
double curve_bt_within(const curve_bt_stat *s); /* share, NAN when n = 0 */

/* The realised price (x 1e4) of tenor k's month seen from day, from the
 * grade's values v[0..n) (ascending days); -1 when fewer than
 * CURVE_BT_MIN_VALUES values or when v does not reach the month's end. */
int64_t curve_bt_realised(int32_t day, int k, const gpi_index_day *v, size_t n);
/* The first and last day of tenor k's month seen from day. */
void curve_bt_month(int32_t day, int k, int32_t *first, int32_t *last);

#endif
