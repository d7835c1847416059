/* tests/hedge_vectors.h -- the §6 test vector of
 * ../shared/reference/hedge-and-settlement.md (twelve months of index and
 * rent, USD/GPU-hour) and small helpers, shared by tests/test_hedge.c and
 * tests/test_hedge_replay.c. */
#ifndef GPI_TESTS_HEDGE_VECTORS_H
#define GPI_TESTS_HEDGE_VECTORS_H

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
