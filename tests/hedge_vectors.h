/* tests/hedge_vectors.h -- the §6 test vector of
 * ../shared/reference/hedge-and-settlement.md (twelve months of index and
 * rent, USD/GPU-hour) and small helpers, shared by tests/test_hedge.c,
 * tests/test_hedge_replay.c and tests/test_hedge_ratio.c. */
#ifndef GPI_TESTS_HEDGE_VECTORS_H
#define GPI_TESTS_HEDGE_VECTORS_H

#include <stdlib.h>
#include <string.h>

#include "hedge/hedge.h"
#include "tests/testutil.h"

/* §6 data: twelve months, USD/GPU-hour. */
static const double vec_index[12] = {2.95, 2.88, 2.80, 2.74, 2.70, 2.62,
                                     2.55, 2.58, 2.49, 2.41, 2.38, 2.30};
static const double vec_rent[12] = {2.71, 2.67, 2.58, 2.55, 2.49, 2.45,
                                    2.36, 2.40, 2.33, 2.24, 2.23, 2.13};

static inline int32_t day_of(const char *s)
{
    int32_t d = 0;
    assert_null(gpi_date_parse(s, &d));
    return d;
}

/* Index days: every day of each month from Jan 2024 at the given value
 * (malloc'd: free). */
static inline gpi_index_day *monthly_index(const int64_t *val_e4, int months, size_t *n)
{
    gpi_index_day *idx = malloc(31 * (size_t)months * sizeof *idx);
    assert_non_null(idx);
    *n = 0;
    for (int m = 0; m < months; m++) {
        int y = 2024 + m / 12, mo = m % 12 + 1;
        int32_t s = gpi_days_from_civil(y, mo, 1);
        for (int k = 0; k < gpi_month_days(y, mo); k++)
            idx[(*n)++] = (gpi_index_day){s + k, GPI_LEVEL_TRADES, val_e4[m]};
    }
    return idx;
}

/* Monthly series Jan..Dec 2024 of the §6 vector (rent optionally edited). */
static inline void vec_series(hedge_series *s, hedge_period *p, const double *rent)
{
    for (int m = 0; m < 12; m++) {
        memset(&p[m], 0, sizeof p[m]);
        p[m].start = gpi_days_from_civil(2024, m + 1, 1);
        p[m].rent = rent[m];
        p[m].index = vec_index[m];
        p[m].n_rent = p[m].n_index = 1;
    }
    s->freq = HEDGE_MONTH;
    s->p = p;
    s->n = 12;
    s->n_rent_periods = 12;
}

#endif
