/* hedge/analyze.c -- the hedge statistics of SPEC §9 for an aligned series.
 *
 * Changes regression  Δr = α + h Δi (gsl_fit_linear): h is the
 * minimum-variance hedge ratio Cov(Δi,Δr)/Var(Δi); se, t = h/se,
 * F = (SST - SSE)/(SSE/(n-2)), R², ρ.  Ederington effectiveness
 * HE(h) = 1 - Var(Δr - hΔi)/Var(Δr), at the OLS h (= R²) and at h = 1.
 * Levels regression r = a + b i.  Basis = rent - index (sign: what the
 * user pays or earns above the index), its spread and its changes; p5/p95
 * are GSL's quantiles (linear interpolation at (n-1)f).
 *
 * Accounting tests for a hedge sized at h: the regression test wants
 * R² >= 0.80 and 0.80 <= slope <= 1.25 with slope = h Cov(Δi,Δr)/Var(Δr)
 * (the slope of the hedge's value changes on the rent's; equals R² at
 * the OLS h); the cumulative dollar offset h ΣΔi / ΣΔr must lie in
 * [0.80, 1.25].  A cumulative rent move |ΣΔr| smaller than half the mean
 * absolute period move makes the ratio meaningless: it is then flagged.
 * The period-by-period ratios are counted too (how many fall outside).
 *
 * Robust fit: rent levels on index levels with gsl_multifit_robust's
 * default (bisquare, tuning 4.685, OLS start); the weight it gave each
 * period is kept.
 *
 * Confidence: h ± z·(Newey-West se) and, for the effectiveness at the OLS
 * h (which is ρ²), Fisher's z: atanh ρ ± z/sqrt(n - 3) mapped back with
 * tanh and squared, z = 1.959964 (95 %).  Both are large-sample intervals;
 * with few changes they are wide, which is the point: compare ranks on
 * the low end.
 *
 * Nothing here fails on thin data: a statistic that cannot be computed is
 * NaN and a warning says why.
 */
#include "hedge/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void hedge__warn(char list[][200], size_t *n, const char *fmt, ...)
{
    if (*n >= HEDGE_MAX_WARN) return;
    if (*n == HEDGE_MAX_WARN - 1) {
        snprintf(list[*n], 200, "further warnings omitted");
        (*n)++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list[*n], 200, fmt, ap);
    va_end(ap);
    (*n)++;
}

double hedge__var(const double *x, size_t n)
{
    return n < 2 ? NAN : gsl_stats_variance(x, 1, n);
}

double hedge__cov(const double *x, const double *y, size_t n)
{
    return n < 2 ? NAN : gsl_stats_covariance(x, 1, y, 1, n);
}

gpi_status hedge_ols_fit(const double *x, const double *y, size_t n, hedge_ols *o, gpi_diag *d)
{
    o->ok = 0;
    o->n = n;
    o->a = o->b = o->se_b = o->t_b = o->f = o->r2 = o->rho = o->sse = NAN;
    if (n < 3) return GPI_OK;
    if (!x || !y) return gpi_diag_set(d, GPI_EUSAGE, "hedge_ols_fit: bad arguments");
    double vx = hedge__var(x, n), vy = hedge__var(y, n);
    if (!(vx > 0)) return GPI_OK; /* x constant: no slope */
    double c0, c1, c00, c01, c11, sse;
    int rc = gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &c00, &c01, &c11, &sse);
    if (rc != GSL_SUCCESS)
        return gpi_diag_set(d, GPI_EMATH, "hedge: gsl_fit_linear: %s", gsl_strerror(rc));
    double sst = vy * (double)(n - 1);
    /* A fit whose residuals are rounding noise (residual sd under 10^-9 of
     * y's; prices carry 6 decimals, so no real residual is that small) is
     * exact: sse and se are 0, t and F undefined (a warning says so). */
    if (sse <= 1e-18 * sst) {
        sse = 0;
        c11 = 0;
    }
    o->ok = 1;
    o->a = c0;
    o->b = c1;
    o->sse = sse;
    o->se_b = sqrt(c11);
    o->t_b = o->se_b > 0 ? c1 / o->se_b : NAN;
    o->f = sse > 0 ? (sst - sse) / (sse / (double)(n - 2)) : NAN;
    o->r2 = sst > 0 ? 1.0 - sse / sst : NAN;
    o->rho = sst > 0 ? hedge__cov(x, y, n) / sqrt(vx * vy) : NAN;
    return GPI_OK;
}

/* 1 - Var(y - h x)/Var(y). */
static double effectiveness(const double *x, const double *y, size_t n, double h,
                            double *scratch)
{
    double vy = hedge__var(y, n);
    if (!(vy > 0) || !isfinite(h)) return NAN;
    for (size_t i = 0; i < n; i++) scratch[i] = y[i] - h * x[i];
    return 1.0 - hedge__var(scratch, n) / vy;
}

void hedge_he_interval(double rho, size_t n, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n < 4 || !(rho > -1.0 && rho < 1.0)) return;
    double z = atanh(rho), w = gsl_cdf_ugaussian_Pinv(0.975) / sqrt((double)(n - 3));
    double a = tanh(z - w), b = tanh(z + w);
    if (a > 0) {
        *lo = a * a;
        *hi = b * b;
    } else if (b < 0) {
        *lo = b * b;
        *hi = a * a;
    } else {
        *lo = 0;
        *hi = fmax(a * a, b * b);
    }
}

static void intervals(hedge_analysis *a)
{
    a->h_lo = a->h_hi = a->he_lo = a->he_hi = NAN;
    if (!a->chg.ok) return;
    if (a->chg.sse == 0 && isfinite(a->chg.r2)) { /* an exact fit: degenerate intervals */
        a->exact = 1;
        a->he = 1.0;
        a->h_lo = a->h_hi = a->chg.b;
        a->he_lo = a->he_hi = 1.0;
        return;
    }
    if (isfinite(a->nw_se_h)) {
        double w = gsl_cdf_ugaussian_Pinv(0.975) * a->nw_se_h;
        a->h_lo = a->chg.b - w;
        a->h_hi = a->chg.b + w;
    }
    if (isfinite(a->he)) hedge_he_interval(a->chg.rho, a->n_changes, &a->he_lo, &a->he_hi);
}

static void basis_stats(const hedge_series *s, const hedge_changes *c, hedge_analysis *a,
                        double *scratch)
{
    size_t n = s->n;
    a->basis.mean = a->basis.sd = a->basis.sd_change = NAN;
    a->basis.min = a->basis.max = a->basis.p5 = a->basis.p95 = NAN;
    if (n == 0) return;
    for (size_t i = 0; i < n; i++) scratch[i] = s->p[i].rent - s->p[i].index;
    a->basis.mean = gsl_stats_mean(scratch, 1, n);
    if (n >= 2) a->basis.sd = gsl_stats_sd(scratch, 1, n);
    gsl_sort(scratch, 1, n);
    a->basis.min = scratch[0];
    a->basis.max = scratch[n - 1];
    a->basis.p5 = gsl_stats_quantile_from_sorted_data(scratch, 1, n, 0.05);
    a->basis.p95 = gsl_stats_quantile_from_sorted_data(scratch, 1, n, 0.95);
    if (c->n >= 2) {
        for (size_t j = 0; j < c->n; j++) scratch[j] = c->dr[j] - c->di[j];
        a->basis.sd_change = gsl_stats_sd(scratch, 1, c->n);
    }
}

static void accounting_tests(const hedge_changes *c, hedge_analysis *a)
{
    double h = a->chg.b;
    a->regtest.r2 = a->chg.r2;
    a->regtest.slope = NAN;
    a->regtest.pass = 0;
    a->offset.ratio = NAN;
    a->offset.pass = 0;
    a->offset.periods = a->offset.periods_outside = 0;
    if (!a->chg.ok) return;
    double vr = hedge__var(c->dr, c->n);
    if (vr > 0) a->regtest.slope = h * hedge__cov(c->di, c->dr, c->n) / vr;
    a->regtest.pass = isfinite(a->regtest.r2) && isfinite(a->regtest.slope) &&
                      a->regtest.r2 >= 0.80 && a->regtest.slope >= 0.80 &&
                      a->regtest.slope <= 1.25;

    double si = 0, sr = 0, sabs = 0;
    for (size_t j = 0; j < c->n; j++) {
        si += c->di[j];
        sr += c->dr[j];
        sabs += fabs(c->dr[j]);
        if (c->dr[j] != 0) {
            double pr = h * c->di[j] / c->dr[j];
            a->offset.periods++;
            if (!(pr >= 0.80 && pr <= 1.25)) a->offset.periods_outside++;
        }
    }
    double mean_abs = sabs / (double)c->n;
    if (sr == 0) {
        hedge__warn(a->warnings, &a->n_warnings,
                    "dollar offset: the rent's cumulative change is zero; no ratio");
        return;
    }
    a->offset.ratio = h * si / sr;
    a->offset.pass = a->offset.ratio >= 0.80 && a->offset.ratio <= 1.25;
    if (fabs(sr) < 0.5 * mean_abs)
        hedge__warn(a->warnings, &a->n_warnings,
                    "dollar offset: the rent's cumulative change (%.6f) is tiny next to its "
                    "typical period change (%.6f); the ratio is not meaningful",
                    sr, mean_abs);
}

static gpi_status robust_fit(const hedge_series *s, hedge_analysis *a, gpi_diag *d)
{
    size_t n = s->n;
    a->robust.a = a->robust.b = NAN;
    a->robust.weights = NULL;
    a->robust.n = 0;
    if (n < 3 || !a->lev.ok) {
        hedge__warn(a->warnings, &a->n_warnings,
                    "robust fit: needs at least 3 periods and a varying index");
        return GPI_OK;
    }
    gsl_matrix *X = gsl_matrix_alloc(n, 2);
    gsl_vector *y = gsl_vector_alloc(n);
    gsl_vector *cf = gsl_vector_alloc(2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_default, n, 2);
    gpi_status st = GPI_OK;
    if (!X || !y || !cf || !cov || !w) {
        st = gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (robust fit)");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        gsl_matrix_set(X, i, 0, 1.0);
        gsl_matrix_set(X, i, 1, s->p[i].index);
        gsl_vector_set(y, i, s->p[i].rent);
    }
    int rc = gsl_multifit_robust(X, y, cf, cov, w);
    if (rc != GSL_SUCCESS && rc != GSL_EMAXITER) {
        hedge__warn(a->warnings, &a->n_warnings, "robust fit failed: %s", gsl_strerror(rc));
        goto done;
    }
    if (rc == GSL_EMAXITER)
        hedge__warn(a->warnings, &a->n_warnings,
                    "robust fit did not converge within its iteration limit; last iterate shown");
    gsl_multifit_robust_stats rs = gsl_multifit_robust_statistics(w);
    a->robust.weights = malloc(n * sizeof(double));
    if (!a->robust.weights) {
        st = gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (robust fit)");
        goto done;
    }
    for (size_t i = 0; i < n; i++) a->robust.weights[i] = gsl_vector_get(rs.weights, i);
    a->robust.n = n;
    a->robust.a = gsl_vector_get(cf, 0);
    a->robust.b = gsl_vector_get(cf, 1);
done:
    if (w) gsl_multifit_robust_free(w);
    if (cov) gsl_matrix_free(cov);
    if (cf) gsl_vector_free(cf);
    if (y) gsl_vector_free(y);
    if (X) gsl_matrix_free(X);
    return st;
}

gpi_status hedge_analyze(const hedge_series *s, int window, hedge_analysis *a, gpi_diag *d)
{
    memset(a, 0, sizeof *a);
    if (!s || window < 0 || (window > 0 && window < 3))
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_analyze: bad arguments (window must be >= 3)");
    a->freq = s->freq;
    a->n = s->n;
    a->window = window ? window : 12;
    a->he = a->he_naive = a->nw_se_h = NAN;
    a->h_lo = a->h_hi = a->he_lo = a->he_hi = NAN;
    hedge_changes c;
    gpi_status st = hedge_changes_make(s, 1, &c, d);
    if (st != GPI_OK) return st;
    size_t cap = s->n > 1 ? s->n : 1;
    double *scratch = malloc(cap * sizeof *scratch);
    double *lx = malloc(cap * sizeof *lx), *ly = malloc(cap * sizeof *ly);
    if (!scratch || !lx || !ly) {
        st = gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory");
        goto done;
    }
    a->n_changes = c.n;
    for (size_t j = 0; j < c.n; j++) {
        a->rent_moves += c.dr[j] != 0;
        a->index_moves += c.di[j] != 0;
    }
    if (s->n < 12)
        hedge__warn(a->warnings, &a->n_warnings,
                    "only %zu periods (fewer than 12): the estimates are unreliable", s->n);

    /* changes */
    if ((st = hedge_ols_fit(c.di, c.dr, c.n, &a->chg, d)) != GPI_OK) goto done;
    if (c.n < 3)
        hedge__warn(a->warnings, &a->n_warnings,
                    "too short to regress: %zu changes between adjacent periods (need 3)", c.n);
    else if (!a->chg.ok)
        hedge__warn(a->warnings, &a->n_warnings,
                    "the index did not change between adjacent periods: no hedge ratio");
    else {
        if (!isfinite(a->chg.r2))
            hedge__warn(a->warnings, &a->n_warnings,
                        "the rent did not change: R², correlation and effectiveness are undefined");
        else if (!isfinite(a->chg.f))
            hedge__warn(a->warnings, &a->n_warnings,
                        "the changes fit exactly: t and F are infinite (shown as n/a)");
        a->he = effectiveness(c.di, c.dr, c.n, a->chg.b, scratch);
        a->he_naive = effectiveness(c.di, c.dr, c.n, 1.0, scratch);
        a->nw_lag = hedge_nw_lag_rule(c.n);
        a->nw_se_h = hedge_nw_se(c.di, c.dr, c.n, a->nw_lag);
    }
    intervals(a);

    /* levels */
    for (size_t i = 0; i < s->n; i++) {
        lx[i] = s->p[i].index;
        ly[i] = s->p[i].rent;
    }
    if ((st = hedge_ols_fit(lx, ly, s->n, &a->lev, d)) != GPI_OK) goto done;
    if (s->n >= 3 && !a->lev.ok)
        hedge__warn(a->warnings, &a->n_warnings,
                    "the index level never varied: no levels regression");

    basis_stats(s, &c, a, scratch);
    accounting_tests(&c, a);
    if ((st = robust_fit(s, a, d)) != GPI_OK) goto done;
    if ((st = hedge__rolling(s, &c, a->window, a, d)) != GPI_OK) goto done;
    if ((st = hedge__horizons(s, a, d)) != GPI_OK) goto done;
    st = hedge__oos(s, &c, a, d);
done:
    free(scratch);
    free(lx);
    free(ly);
    hedge_changes_free(&c);
    if (st != GPI_OK) hedge_analysis_free(a);
    return st;
}

void hedge_analysis_free(hedge_analysis *a)
{
    if (!a) return;
    free(a->robust.weights);
    free(a->rolling);
    a->robust.weights = NULL;
    a->robust.n = 0;
    a->rolling = NULL;
    a->n_rolling = 0;
}

gpi_status hedge_analyze_index(const char *grade, const gpi_index_day *idx, size_t nidx,
                               const hedge_rent *r, hedge_freq f, int window,
                               hedge_series *series, hedge_analysis *out, gpi_diag *d)
{
    memset(series, 0, sizeof *series);
    memset(out, 0, sizeof *out);
    if (!grade) return gpi_diag_set(d, GPI_EUSAGE, "hedge_analyze_index: no grade");
    gpi_status rc = hedge_align(r, idx, nidx, f, series, d);
    if (rc != GPI_OK) return rc;
    if (series->n == 0) {
        hedge_series_free(series);
        return gpi_diag_set(d, GPI_EINPUT,
                            "grade %s: no %s has both rent and an index value", grade,
                            hedge_freq_name(f));
    }
    rc = hedge_analyze(series, window, out, d);
    if (rc != GPI_OK) hedge_series_free(series);
    return rc;
}
