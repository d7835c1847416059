/* tests/settlement_helpers.h -- a contract built in code and the day
 * number of a date, shared by tests/test_settlement.c and
 * tests/test_settlement_files.c. */
#ifndef GPI_TESTS_SETTLEMENT_HELPERS_H
#define GPI_TESTS_SETTLEMENT_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "settlement/settlement.h"

static inline settle_contract contract(const char *sym, int y, int m, int64_t size,
                                       int64_t tick_mant,
                                       int tick_scale, int min_days)
{
    settle_contract c;
    memset(&c, 0, sizeof c);
    snprintf(c.symbol, sizeof c.symbol, "%s", sym);
    snprintf(c.grade, sizeof c.grade, "H100-SXM.OD.GOLD+");
    c.year = y;
    c.month = m;
    c.size_gpu_hours = size;
    c.tick.mant = tick_mant;
    c.tick.scale = tick_scale;
    int64_t p = 1;
    for (int i = 0; i < tick_scale; i++) p *= 10;
    c.tick_cents = size * tick_mant * 100 / p;
    c.min_published_days = min_days;
    return c;
}

static inline int32_t day_of(int y, int m, int d) { return gpi_days_from_civil(y, m, d); }

#endif
