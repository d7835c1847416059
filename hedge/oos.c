/* hedge/oos.c -- out-of-sample evidence for a hedge ratio (issue 27 item 5).
 *
 * Every figure of hedge analyze was fitted and judged on the same periods;
 * a reviewer of hedge accounting expects to see the ratio tried on data
 * it was not fitted on, an interval on it and a test that it held.
 *
 * Walk-forward.  For each change j (in the order of the aligned series)
 * from the HEDGE_WF_MIN_TRAIN-th on, h_j is the OLS slope of the changes
 * before j (the periods before; never j or later) and the hedged change is
 * e_j = Δr_j - h_j Δi_j; with no slope before j (the index did not move)
 * the period is not hedged, h_j = 0.  The out-of-sample effectiveness is
 * 1 - Var(e)/Var(Δr) over the hedged periods (sample variances), beside
 * the in-sample R².  Needs 2 or more periods hedged out of sample.
 *
 * Block bootstrap of h.  Moving blocks of L = (Newey-West lag) + 1
 * consecutive changes (the lag rule measures how far the changes' errors
 * reach), drawn with replacement until n changes are had (the last block
 * cut), HEDGE_BOOT_REPS times; the starts are gsl_rng_uniform_int(r, n -
 * L + 1) of GSL's mt19937 seeded with HEDGE_BOOT_SEED (both stated in the
 * output), so every run gives the same interval.  A resample whose index
 * never moves has no slope and is left out (counted).  The interval is
 * the 2.5 % and 97.5 % quantiles of the slopes (GSL's, linear
 * interpolation, as numpy's default).  Needs 4 changes and 100 slopes.
 *
 * In sample only.  A fit the walk-forward does not back -- the futures
 * added variance out of sample, removed under 1 % of it, or cannot be
 * tried (too few changes; a rent that did not move over the periods the
 * walk-forward hedges) -- holds in sample only (hedge_in_sample_only):
 * compare ranks and recommends no such grade, and says why.  An untried
 * fit is treated as a failed one: a producer acts on a recommendation,
 * and nothing shows that this one would have carried to data it was not
 * fitted on.
 *
 * Stability.  A Chow test at the largest index move: the changes before
 * it and those from it on, each fitted alone (3 or more each), F =
 * ((S - S1 - S2)/2) / ((S1 + S2)/(n - 4)) with 2 and n - 4 degrees of
 * freedom; "broke" when p < 0.05.  It says in words whether a ratio
 * fitted before the market's biggest move would still have held after.
 *
 * tests/ref/hedge_oos.py computes all three again with statsmodels (and a
 * pure-Python mt19937 for the same draws).
 */
#include "hedge/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* OLS slope and SSE of y on x (with a constant); 0 when x does not vary
 * or n < 3. */
static int slope(const double *x, const double *y, size_t n, double *b, double *sse)
{
    if (n < 3) return 0;
    double mx = gsl_stats_mean(x, 1, n), my = gsl_stats_mean(y, 1, n), sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (!(sxx > 0)) return 0;
    *b = sxy / sxx;
    if (sse) *sse = fmax(0.0, syy - sxy * sxy / sxx);
    return 1;
}

static void walk_forward(const hedge_changes *c, hedge_analysis *a, double *e, double *r)
{
    a->oos.he = NAN;
    a->oos.train = HEDGE_WF_MIN_TRAIN;
    a->oos.n = a->oos.not_fitted = 0;
    size_t m = 0;
    for (size_t j = HEDGE_WF_MIN_TRAIN; j < c->n; j++) {
        double h = 0;
        if (!slope(c->di, c->dr, j, &h, NULL)) {
            h = 0;
            a->oos.not_fitted++;
        }
        e[m] = c->dr[j] - h * c->di[j];
        r[m] = c->dr[j];
        m++;
    }
    a->oos.n = m;
    if (m < 2) return;
    double vr = hedge__var(r, m);
    if (vr > 0) a->oos.he = 1.0 - hedge__var(e, m) / vr;
}

static gpi_status bootstrap(const hedge_changes *c, hedge_analysis *a, gpi_diag *d)
{
    size_t n = c->n;
    a->boot.lo = a->boot.hi = NAN;
    a->boot.reps = HEDGE_BOOT_REPS;
    a->boot.seed = HEDGE_BOOT_SEED;
    a->boot.used = 0;
    a->boot.block = (int)hedge_nw_lag_rule(n) + 1;
    if (n < 4) return GPI_OK;
    size_t L = (size_t)a->boot.block;
    if (L > n) L = n;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *b = malloc(HEDGE_BOOT_REPS * sizeof *b);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!x || !y || !b || !rng) {
        free(x);
        free(y);
        free(b);
        if (rng) gsl_rng_free(rng);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (bootstrap)");
    }
    gsl_rng_set(rng, HEDGE_BOOT_SEED);
    size_t used = 0;
    for (int rep = 0; rep < HEDGE_BOOT_REPS; rep++) {
        size_t k = 0;
        while (k < n) {
            size_t s = (size_t)gsl_rng_uniform_int(rng, (unsigned long)(n - L + 1));
            for (size_t t = 0; t < L && k < n; t++, k++) {
                x[k] = c->di[s + t];
                y[k] = c->dr[s + t];
            }
        }
        double h;
        if (slope(x, y, n, &h, NULL)) b[used++] = h;
    }
    a->boot.used = used;
    if (used >= 100) {
        gsl_sort(b, 1, used);
        a->boot.lo = gsl_stats_quantile_from_sorted_data(b, 1, used, 0.025);
        a->boot.hi = gsl_stats_quantile_from_sorted_data(b, 1, used, 0.975);
    }
    free(x);
    free(y);
    free(b);
    gsl_rng_free(rng);
    return GPI_OK;
}

static void chow(const hedge_series *s, const hedge_changes *c, hedge_analysis *a)
{
    a->chow.ok = 0;
    a->chow.f = a->chow.p = a->chow.h_before = a->chow.h_after = a->chow.move = NAN;
    a->chow.period = 0;
    a->chow.n_before = a->chow.n_after = 0;
    size_t n = c->n;
    if (n == 0) return;
    size_t at = 0;
    for (size_t j = 1; j < n; j++)
        if (fabs(c->di[j]) > fabs(c->di[at])) at = j;
    if (!(fabs(c->di[at]) > 0)) return; /* the index never moved */
    a->chow.period = s->p[c->end[at]].start;
    a->chow.move = c->di[at];
    a->chow.n_before = at;
    a->chow.n_after = n - at;
    double b1, b2, b, s1, s2, sp;
    if (at < 3 || n - at < 3 || !slope(c->di, c->dr, at, &b1, &s1) ||
        !slope(c->di + at, c->dr + at, n - at, &b2, &s2) || !slope(c->di, c->dr, n, &b, &sp) ||
        n < 7)
        return; /* not testable: too few changes on a side (or no slope there) */
    a->chow.ok = 1;
    a->chow.h_before = b1;
    a->chow.h_after = b2;
    double within = s1 + s2, between = sp - within;
    if (between < 0) between = 0;
    if (within <= 1e-18 * fmax(sp, 1e-300)) {
        a->chow.f = between > 0 ? INFINITY : 0;
        a->chow.p = between > 0 ? 0 : 1;
        return;
    }
    a->chow.f = (between / 2.0) / (within / (double)(n - 4));
    a->chow.p = gsl_cdf_fdist_Q(a->chow.f, 2.0, (double)(n - 4));
}

gpi_status hedge__oos(const hedge_series *s, const hedge_changes *c, hedge_analysis *a,
                      gpi_diag *d)
{
    size_t cap = c->n ? c->n : 1;
    double *e = malloc(cap * sizeof *e), *r = malloc(cap * sizeof *r);
    if (!e || !r) {
        free(e);
        free(r);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (walk-forward)");
    }
    walk_forward(c, a, e, r);
    free(e);
    free(r);
    chow(s, c, a);
    return bootstrap(c, a, d);
}

/* v with dp decimals, rounded once, half-up. */
static const char *num(char buf[32], double v, int dp)
{
    return gpi_fixed_format(gpi_double_to_units(v, dp), dp, buf);
}

static const char *unit_of(hedge_freq f)
{
    return f == HEDGE_DAY ? "day" : f == HEDGE_WEEK ? "week" : "month";
}

void hedge_oos_text(const hedge_analysis *a, char *out, size_t cap)
{
    char b[2][32];
    const char *unit = unit_of(a->freq);
    if (!isfinite(a->oos.he) && a->oos.n >= 2) {
        snprintf(out, cap, "walk-forward: your rent's changes did not vary over the %zu %ss it "
                           "hedges (those after the first %zu): no out-of-sample figure",
                 a->oos.n, unit, a->oos.train);
        return;
    }
    if (!isfinite(a->oos.he)) {
        snprintf(out, cap, "walk-forward: needs %d changes to fit on and 2 more to hedge (has %zu)",
                 HEDGE_WF_MIN_TRAIN, a->n_changes);
        return;
    }
    int len = snprintf(out, cap,
                       "walk-forward: hedged each %s at the h fitted on the %ss before it, "
                       "futures %s %s%% %s the variance over %zu %ss (in sample %s%%)",
                       unit, unit, a->oos.he < 0 ? "ADDED" : "removed",
                       num(b[0], 100 * fabs(a->oos.he), 0), a->oos.he < 0 ? "to" : "of", a->oos.n,
                       unit, isfinite(a->he) ? num(b[1], 100 * a->he, 0) : "n/a");
    if (a->oos.not_fitted && len > 0 && (size_t)len < cap)
        snprintf(out + len, cap - (size_t)len, "; %zu %s(s) not hedged: no h before them",
                 a->oos.not_fitted, unit);
}

int hedge_in_sample_only(const hedge_analysis *a, char *out, size_t cap)
{
    char b[32];
    const char *unit = unit_of(a->freq);
    if (cap) out[0] = '\0';
    if (isfinite(a->oos.he) && a->oos.he >= HEDGE_RANK_MIN_HE) return 0;
    if (isfinite(a->oos.he) && a->oos.he < 0)
        snprintf(out, cap,
                 "fits in sample only: out of sample (each %s hedged at the h fitted on the %ss "
                 "before it, %zu %ss) it ADDED %s%% to the variance",
                 unit, unit, a->oos.n, unit, num(b, -100 * a->oos.he, 0));
    else if (isfinite(a->oos.he))
        snprintf(out, cap,
                 "fits in sample only: out of sample (each %s hedged at the h fitted on the %ss "
                 "before it, %zu %ss) it removed under 1%% of the variance",
                 unit, unit, a->oos.n, unit);
    else if (a->oos.n >= 2)
        snprintf(out, cap,
                 "fits in sample only, untried out of sample: your rent's changes did not vary "
                 "over the %zu %ss the walk-forward hedges (those after the first %zu)",
                 a->oos.n, unit, a->oos.train);
    else
        snprintf(out, cap,
                 "fits in sample only, untried out of sample: the walk-forward needs %d changes "
                 "to fit on and 2 more to hedge (has %zu)",
                 HEDGE_WF_MIN_TRAIN, a->n_changes);
    return 1;
}

void hedge_boot_text(const hedge_analysis *a, char *out, size_t cap)
{
    char b[2][32];
    if (!isfinite(a->boot.lo)) {
        snprintf(out, cap, "bootstrap: no interval (needs 4 changes and 100 resamples with a "
                           "moving index; %zu of %d had one)",
                 a->boot.used, a->boot.reps);
        return;
    }
    snprintf(out, cap,
             "bootstrap: h 95%% interval [%s, %s] from %zu of %d resamples of blocks of %d "
             "changes (GSL mt19937, seed %lu)",
             num(b[0], a->boot.lo, 3), num(b[1], a->boot.hi, 3), a->boot.used, a->boot.reps,
             a->boot.block, a->boot.seed);
}

int hedge_broke(const hedge_analysis *a)
{
    return a->chow.ok && isfinite(a->chow.p) && a->chow.p < HEDGE_BREAK_P;
}

void hedge_stability_text(const hedge_analysis *a, char *out, size_t cap)
{
    char b[5][32], lab[16];
    if (!a->chow.period) {
        snprintf(out, cap, "stability: not testable (the index never moved)");
        return;
    }
    hedge_period_label(a->freq, a->chow.period, lab);
    if (!a->chow.ok) {
        snprintf(out, cap,
                 "stability: not testable at the largest index move (%s, %s%s): %zu change%s "
                 "before it and %zu from it on (3 each, with a moving index, needed)",
                 lab, a->chow.move > 0 ? "+" : "", num(b[0], a->chow.move, 4), a->chow.n_before,
                 a->chow.n_before == 1 ? "" : "s", a->chow.n_after);
        return;
    }
    int broke = hedge_broke(a);
    snprintf(out, cap,
             "stability: h %s at the largest index move (%s, %s%s): %s before, %s after (Chow "
             "F %s, p %s)%s",
             broke ? "BROKE" : "held", lab, a->chow.move > 0 ? "+" : "",
             num(b[0], a->chow.move, 4), num(b[1], a->chow.h_before, 2),
             num(b[2], a->chow.h_after, 2), isfinite(a->chow.f) ? num(b[3], a->chow.f, 2) : "inf",
             num(b[4], a->chow.p, 3),
             broke ? ": a ratio fitted before it would not have held after it" : "");
}
