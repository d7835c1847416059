/* tests/settlement_helpers.h -- a contract built in code, the day number
 * of a date, index series built by hand and the §6F worked month, shared
 * by tests/test_settlement*.c. */
#ifndef GPI_TESTS_SETTLEMENT_HELPERS_H
#define GPI_TESTS_SETTLEMENT_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
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

/* Days [from, to] all built and suspended (calloc'd: free). */
static inline gpi_index_day *suspended_days(int32_t from, int32_t to, size_t *n)
{
    *n = (size_t)(to - from + 1);
    gpi_index_day *v = calloc(*n, sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        v[i].day = from + (int32_t)i;
        v[i].level = GPI_LEVEL_SUSPENDED;
        v[i].value_e4 = -1;
    }
    return v;
}

static inline void set_value(gpi_index_day *v, size_t n, int32_t day, int64_t e4)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].day == day) {
            v[i].level = GPI_LEVEL_TRADES;
            v[i].value_e4 = e4;
            return;
        }
    fail_msg("day %d not in series", (int)day);
}

/* The §6F month: Feb 2025 suspended except 2025-02-28 = 2.418; March 2025
 * business days but the 17th carry the 20 reference values: day of March
 * and value of the i-th (0..19). */
static inline int wx_mday(int i)
{
    static const int d[20] = {3, 4, 5, 6, 7, 10, 11, 12, 13, 14,
                              18, 19, 20, 21, 24, 25, 26, 27, 28, 31};
    return d[i];
}

static inline int64_t wx_e4(int i)
{
    static const int64_t v[20] = {24120, 24050, 23980, 24010, 23900, 23860, 23790,
                                  23830, 23710, 23660, 23590, 23520, 23480, 23550,
                                  23410, 23370, 23300, 23340, 23260, 23170};
    return v[i];
}

static inline gpi_index_day *worked_series(size_t *n)
{
    gpi_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), n);
    set_value(v, *n, day_of(2025, 2, 28), 24180);
    for (int i = 0; i < 20; i++) set_value(v, *n, day_of(2025, 3, wx_mday(i)), wx_e4(i));
    return v;
}

#endif
