/* hedge/hac.c -- Newey-West standard error, rolling ratio, horizons.
 *
 * Newey-West: V = (X'X)^-1 S (X'X)^-1 with X = [1, x], u_t = X_t e_t and
 * S = Σ u_t u_t' + Σ_{l=1..L} (1 - l/(L+1)) Σ_t (u_t u_{t-l}' + u_{t-l} u_t'),
 * no small-sample correction (statsmodels cov_hac with
 * use_correction=False).  Lags run over the change sequence as stored.
 * The default lag is floor(4 (T/100)^(2/9)) for T changes.
 *
 * Rolling: for each aligned period t whose window of `window` calendar
 * periods ending at t starts at or after the first aligned period, h is
 * fitted on the changes lying wholly inside that window.
 *
 * Horizons k = 1, 2, 3: overlapping k-period changes (their errors are
 * MA(k-1)), so the Newey-West lag is max(rule, k - 1).
 */
#include "hedge/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int hedge_nw_lag_rule(size_t t)
{
    if (t == 0) return 0;
    double v = 4.0 * pow((double)t / 100.0, 2.0 / 9.0);
    /* guard a value a hair below an integer from pow's rounding */
    return (int)floor(v + 1e-12);
}

double hedge_nw_se(const double *x, const double *y, size_t n, int lag)
{
    if (n < 3 || !x || !y || lag < 0) return NAN;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t t = 0; t < n; t++) {
        sx += x[t];
        sy += y[t];
    }
    double mx = sx / (double)n, my = sy / (double)n;
    for (size_t t = 0; t < n; t++) {
        sxx += (x[t] - mx) * (x[t] - mx);
        sxy += (x[t] - mx) * (y[t] - my);
    }
    if (!(sxx > 0)) return NAN;
    double b = sxy / sxx, a = my - b * mx;
    /* X'X = [[n, Σx], [Σx, Σx²]] */
    double sx2 = 0;
    for (size_t t = 0; t < n; t++) sx2 += x[t] * x[t];
    double det = (double)n * sx2 - sx * sx;
    if (!(det > 0)) return NAN;
    double i01 = -sx / det, i11 = (double)n / det; /* row 1 of (X'X)^-1 */
    double s00 = 0, s01 = 0, s11 = 0;
    for (size_t l = 0; l <= (size_t)lag && l < n; l++) { /* lag >= 0: checked above */
        double w = l == 0 ? 1.0 : 1.0 - (double)l / (double)(lag + 1);
        double g00 = 0, g01 = 0, g10 = 0, g11 = 0;
        for (size_t t = l; t < n; t++) {
            double et = y[t] - a - b * x[t];
            double es = y[t - l] - a - b * x[t - l];
            double u0 = et, u1 = et * x[t], v0 = es, v1 = es * x[t - l];
            g00 += u0 * v0;
            g01 += u0 * v1;
            g10 += u1 * v0;
            g11 += u1 * v1;
        }
        if (l == 0) {
            s00 += g00;
            s01 += g01;
            s11 += g11;
        } else {
            s00 += w * 2 * g00;
            s01 += w * (g01 + g10);
            s11 += w * 2 * g11;
        }
    }
    /* V11 = row 1 of (X'X)^-1 · S · column 1 of (X'X)^-1 */
    double v11 = i01 * (s00 * i01 + s01 * i11) + i11 * (s01 * i01 + s11 * i11);
    return v11 >= 0 ? sqrt(v11) : NAN;
}

gpi_status hedge__rolling(const hedge_series *s, const hedge_changes *c, int window,
                          hedge_analysis *a, gpi_diag *d)
{
    a->rolling = NULL;
    a->n_rolling = 0;
    if (s->n == 0 || c->n == 0) return GPI_OK;
    double *x = malloc(c->n * sizeof *x), *y = malloc(c->n * sizeof *y);
    a->rolling = malloc(s->n * sizeof *a->rolling);
    if (!x || !y || !a->rolling) {
        free(x);
        free(y);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (rolling)");
    }
    for (size_t t = 0; t < s->n; t++) {
        int32_t wstart = s->p[t].start;
        for (int k = 1; k < window; k++) wstart = hedge_period_start(s->freq, wstart - 1);
        if (wstart < s->p[0].start) continue;
        size_t m = 0;
        for (size_t j = 0; j < c->n; j++) {
            size_t e = c->end[j];
            if (e <= t && s->p[e - 1].start >= wstart) {
                x[m] = c->di[j];
                y[m] = c->dr[j];
                m++;
            }
        }
        hedge_ols o;
        gpi_status st = hedge_ols_fit(x, y, m, &o, d);
        if (st != GPI_OK) {
            free(x);
            free(y);
            return st;
        }
        hedge_roll *r = &a->rolling[a->n_rolling++];
        r->end = s->p[t].start;
        r->n_changes = m;
        r->h = o.b;
        r->r2 = o.r2;
    }
    free(x);
    free(y);
    return GPI_OK;
}

gpi_status hedge__horizons(const hedge_series *s, hedge_analysis *a, gpi_diag *d)
{
    for (int k = 1; k <= HEDGE_NHORIZON; k++) {
        hedge_horizon *hz = &a->horizons[k - 1];
        hz->k = k;
        hz->h = hz->se_h = hz->r2 = hz->he = hz->nw_se_h = NAN;
        hedge_changes c;
        gpi_status st = hedge_changes_make(s, k, &c, d);
        if (st != GPI_OK) return st;
        hz->n_changes = c.n;
        hz->nw_lag = hedge_nw_lag_rule(c.n);
        if (hz->nw_lag < k - 1) hz->nw_lag = k - 1;
        hedge_ols o;
        st = hedge_ols_fit(c.di, c.dr, c.n, &o, d);
        if (st == GPI_OK && o.ok) {
            hz->h = o.b;
            hz->se_h = o.se_b;
            hz->r2 = o.r2;
            double vr = hedge__var(c.dr, c.n);
            if (vr > 0) {
                double *res = malloc(c.n * sizeof *res);
                if (!res) {
                    hedge_changes_free(&c);
                    return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (horizons)");
                }
                for (size_t j = 0; j < c.n; j++) res[j] = c.dr[j] - o.b * c.di[j];
                hz->he = 1.0 - hedge__var(res, c.n) / vr;
                free(res);
            }
            hz->nw_se_h = hedge_nw_se(c.di, c.dr, c.n, hz->nw_lag);
        }
        hedge_changes_free(&c);
        if (st != GPI_OK) return st;
    }
    return GPI_OK;
}
