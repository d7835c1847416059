/* curve/backtest.c -- the term curve's back-test statistics
 * (curve/backtest.h). */
#include "curve/backtest.h"

#include <math.h>

void curve_bt_add(curve_bt_stat *s, double f, double r)
{
    double e = f / r - 1;
    s->n++;
    s->sum += e;
    s->sumsq += e * e;
    s->within += fabs(e) <= 0.03 + 1e-12;
}

double curve_bt_bias(const curve_bt_stat *s)
{
    return s->n ? s->sum / (double)s->n : NAN;
}

double curve_bt_rmse(const curve_bt_stat *s)
{
    return s->n ? sqrt(s->sumsq / (double)s->n) : NAN;
}

double curve_bt_within(const curve_bt_stat *s)
{
    return s->n ? (double)s->within / (double)s->n : NAN;
}

void curve_bt_month(int32_t day, int k, int32_t *first, int32_t *last)
{
    /* X - day - 1 in [ceil((k-1) 487/16), ceil(k 487/16) - 1] */
    int32_t a = (int32_t)(((int64_t)(k - 1) * CURVE_MONTH_NUM + CURVE_MONTH_DEN - 1) / CURVE_MONTH_DEN);
    int32_t b = (int32_t)(((int64_t)k * CURVE_MONTH_NUM + CURVE_MONTH_DEN - 1) / CURVE_MONTH_DEN) - 1;
    *first = day + 1 + a;
    *last = day + 1 + b;
}

int64_t curve_bt_realised(int32_t day, int k, const gpi_index_day *v, size_t n)
{
    int32_t first, last;
    curve_bt_month(day, k, &first, &last);
    if (!n || v[n - 1].day < last) return -1;
    __int128 sum = 0;
    long cnt = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].day < first || v[i].day > last || v[i].level == GPI_LEVEL_SUSPENDED) continue;
        sum += v[i].value_e4;
        cnt++;
    }
    if (cnt < CURVE_BT_MIN_VALUES) return -1;
    return gpi_div_round(sum, cnt);
}
