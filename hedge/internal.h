/* hedge/internal.h -- helpers shared by the files of hedge/ only. */
#ifndef GPI_HEDGE_INTERNAL_H
#define GPI_HEDGE_INTERNAL_H

#include "hedge/hedge.h"

/* Appends a formatted warning to list (capacity HEDGE_MAX_WARN; extra
 * warnings are dropped, the last slot then says so). */
void hedge__warn(char list[][200], size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sample variance (n - 1) and covariance; NaN when n < 2. */
double hedge__var(const double *x, size_t n);
double hedge__cov(const double *x, const double *y, size_t n);

/* Mean price in USD of rent rows [i, e), weighted by quantity when the
 * file has one; *wsum gets the weight.  Summed as deviations from row i's
 * price in micro-USD, so rows of one price give exactly that price: a rent
 * that never moved has period means that are exactly equal. */
double hedge__mean_price(const hedge_rent *r, size_t i, size_t e, double *wsum);

/* Rolling h (window periods) and horizons 1..HEDGE_NHORIZON (hac.c). */
gpi_status hedge__rolling(const hedge_series *s, const hedge_changes *c, int window,
                          hedge_analysis *a, gpi_diag *d);
gpi_status hedge__horizons(const hedge_series *s, hedge_analysis *a, gpi_diag *d);

/* Walk-forward, bootstrap and break test of the changes c of s (oos.c). */
gpi_status hedge__oos(const hedge_series *s, const hedge_changes *c, hedge_analysis *a,
                      gpi_diag *d);

#endif
