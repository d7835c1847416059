/* curve/fit.c -- the two fits of the term curve (curve.h step 4).
 *
 * NOTES ON THE DESIGN
 * (1) The curve is its monthly forwards F_1..F_N (tenor k is the month
 *     [k - 1, k)), a forward constant within its month; the front V (the
 *     grade's fix) sits at 0 and F_k at the middle of its month, k - 1/2.
 *     A point's average over [a, b] is then linear in F: sum over months
 *     of F_k x (the share of [a, b] in month k).  N is the last point's
 *     end rounded up.
 * (2) Maximum smoothness on that grid, relative to a base: the base is
 *     the curve growing at a constant rate g a month from V (its monthly
 *     forward k is V times the average of e^(g tau) over the month), g
 *     the weighted least-squares slope through the origin of
 *     ln(value / V) on the points' middles (weights 1 / tol^2; clamped to
 *     +-0.1 a month): a rent expected to fall or rise by a steady share a
 *     month is then no roughness at all, as a flat market is none.  The
 *     curve is F_k = E_k G_k with E the base and G multipliers that
 *     minimize the roughness
 *         R(G) = sum_{k=1}^{N-1} w_k D_k^2,
 *     D_k the divided second difference at node k of the nodes k - 1, k,
 *     k + 1 (node 0 is G_0 = 1 at 0, the front; node k >= 1 is G_k at
 *     k - 1/2), w_k half the width of the two gaps around node k -- the
 *     discrete form of the integral of f''^2 (Adams and van Deventer's
 *     maximum smoothness) -- subject to value - tol <= average <= value +
 *     tol for every point.  With no bound active G is 1: the curve is the
 *     base (flat at V in a flat market).
 * (3) The bounds are found by an active set: start with none; solve the
 *     equality problem of the bounds held (the KKT system [2Q A'; A 0],
 *     Gaussian elimination with partial pivoting, in IEEE doubles, in a
 *     fixed order); drop the held bound whose multiplier has the wrong
 *     sign (the most wrong first); else hold the most violated point (by
 *     violation over tolerance) at the bound it crosses; else done.  Ties
 *     go to the earlier point.  It settles in a few steps; if it has not
 *     after 8 x points + 8, the caller fits every point exactly.  A point
 *     whose average is a combination of the held ones' (two inputs over
 *     the same months, which monthly forwards cannot tell apart) makes the
 *     system singular: it is reported for the caller to exclude.
 * (4) Monotone convex (Hagan and West, "Interpolation methods for curve
 *     construction", 2006): the discrete forwards between consecutive
 *     point ends, instantaneous forwards at the ends (weighted by the
 *     neighbouring intervals' lengths, kept in [0, 2 x the smaller
 *     neighbour]; the last one extrapolated and kept in [0, 2 x its
 *     discrete forward]), the front at V, and on each interval the
 *     quadratic pieces of their four cases, which keep the interval's
 *     average exactly.  The monthly forwards are the exact integrals of
 *     those pieces.
 */
#include "curve/curve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the monthly grid ------------------------------------------------------ */

static double overlap(double a, double b, double lo, double hi)
{
    double x = a > lo ? a : lo, y = b < hi ? b : hi;
    return y > x ? y - x : 0;
}

double curve_average(const double *fwd, int n, double a, double b)
{
    double s = 0;
    for (int k = 0; k < n; k++) s += fwd[k] * overlap(a, b, k, k + 1);
    return s / (b - a);
}

/* Node positions: 0 for the front, k - 1/2 for F_k. */
static double node(int k)
{
    return k == 0 ? 0.0 : k - 0.5;
}

/* Coefficients of D_k (k >= 1) on the nodes k - 1, k, k + 1, and w_k. */
static void second_diff(int k, double c[3], double *w)
{
    double hl = node(k) - node(k - 1), hh = node(k + 1) - node(k), s = 2.0 / (hl + hh);
    c[0] = s / hl;
    c[1] = -s * (1.0 / hl + 1.0 / hh);
    c[2] = s / hh;
    *w = (hl + hh) / 2.0;
}

double curve_roughness_max(double v, const double *fwd, int n, int from, int *at)
{
    double best = 0;
    if (at) *at = 0;
    for (int k = from > 1 ? from : 1; k < n; k++) {
        double c[3], w;
        second_diff(k, c, &w);
        double lo = k == 1 ? v : fwd[k - 2];
        double dk = fabs(c[0] * lo + c[1] * fwd[k - 1] + c[2] * fwd[k]);
        if (dk > best) {
            best = dk;
            if (at) *at = k;
        }
    }
    return best;
}

/* ---- a dense solve ------------------------------------------------------------ */

/* Solves m x = r in place (m n x n, row-major; r becomes x) by Gaussian
 * elimination with partial pivoting.  Returns -1 at a pivot below 1e-12 of
 * the matrix's largest entry (singular), else 0. */
static int solve(double *m, double *r, int n)
{
    double big = 0;
    for (int i = 0; i < n * n; i++)
        if (fabs(m[i]) > big) big = fabs(m[i]);
    if (big == 0) return -1;
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(m[i * n + c]) > fabs(m[p * n + c])) p = i;
        if (fabs(m[p * n + c]) < 1e-12 * big) return -1;
        if (p != c) {
            for (int j = 0; j < n; j++) {
                double t = m[c * n + j];
                m[c * n + j] = m[p * n + j];
                m[p * n + j] = t;
            }
            double t = r[c];
            r[c] = r[p];
            r[p] = t;
        }
        for (int i = c + 1; i < n; i++) {
            double f = m[i * n + c] / m[c * n + c];
            if (f == 0) continue;
            for (int j = c; j < n; j++) m[i * n + j] -= f * m[c * n + j];
            r[i] -= f * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = r[i];
        for (int j = i + 1; j < n; j++) s -= m[i * n + j] * r[j];
        r[i] = s / m[i * n + i];
    }
    return 0;
}

/* ---- maximum smoothness ---------------------------------------------------- */

double curve_base_growth(double v, const curve_fit_point *pts, size_t n)
{
    double num = 0, den = 0;
    if (v <= 0) return 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].value <= 0 || pts[i].tol <= 0) continue;
        double m = (pts[i].a + pts[i].b) / 2, w = 1.0 / (pts[i].tol * pts[i].tol);
        num += w * m * log(pts[i].value / v);
        den += w * m * m;
    }
    double g = den > 0 ? num / den : 0;
    return g > 0.1 ? 0.1 : g < -0.1 ? -0.1 : g;
}

/* The base's monthly forward k (0-based: the month [k, k + 1)) with front v
 * and growth g a month: v times the average of e^(g tau) over the month. */
static double base(double v, double g, int k)
{
    if (fabs(g) < 1e-12) return v;
    return v * (exp(g * (k + 1)) - exp(g * k)) / g;
}

int curve_fit_smooth(double v, curve_fit_point *pts, size_t n, int exact, double *fwd,
                     int *n_out, double *growth)
{
    double bmax = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].b > bmax) bmax = pts[i].b;
    int N = (int)ceil(bmax - 1e-9);
    if (N < 1) N = 1;
    if (N > CURVE_TENORS) N = CURVE_TENORS;
    *n_out = N;
    int m = (int)n, K = N + m;
    double *A = calloc((size_t)(m ? m : 1) * (size_t)N, sizeof *A);
    double *Q = calloc((size_t)N * (size_t)N, sizeof *Q);
    double *q = calloc((size_t)N, sizeof *q);
    double *kkt = malloc((size_t)K * (size_t)K * sizeof *kkt);
    double *rhs = malloc((size_t)K * sizeof *rhs);
    int *side = calloc((size_t)(m ? m : 1), sizeof *side);
    int *held = malloc((size_t)(m ? m : 1) * sizeof *held);
    /* the held bounds' multipliers follow F in rhs after a solve */
    int rc = 0;
    if (!A || !Q || !q || !kkt || !rhs || !side || !held) {
        rc = -1;
        goto done;
    }
    /* the base (note 2): the unknowns are the multipliers G of its forwards */
    double g = curve_base_growth(v, pts, n), E[CURVE_TENORS];
    if (growth) *growth = g;
    for (int k = 0; k < N; k++) E[k] = base(v, g, k);
    for (int i = 0; i < m; i++) {
        double len = pts[i].b - pts[i].a;
        for (int k = 0; k < N; k++)
            A[i * N + k] = overlap(pts[i].a, pts[i].b, k, k + 1) / len * E[k];
    }
    /* Q and q of R(G) = G'QG + 2q'G + const, G_0 = 1 (note 2) */
    for (int k = 1; k < N; k++) {
        double c[3], w;
        second_diff(k, c, &w);
        int idx[3] = {k - 2, k - 1, k}; /* F_{k-1}, F_k, F_{k+1} as unknowns (-1: the front) */
        for (int x = 0; x < 3; x++) {
            if (idx[x] < 0) continue;
            for (int y = 0; y < 3; y++) {
                if (idx[y] < 0)
                    q[idx[x]] += w * c[x] * c[y];
                else
                    Q[idx[x] * N + idx[y]] += w * c[x] * c[y];
            }
        }
    }
    if (exact) {
        /* every point held at its value; the first that the earlier ones
         * make singular is reported (note 3) */
        for (int j = 0; j < m; j++) {
            side[j] = 2;
            int kk = N + j + 1;
            memset(kkt, 0, (size_t)kk * (size_t)kk * sizeof *kkt);
            for (int r = 0; r < N; r++) {
                for (int c = 0; c < N; c++) kkt[r * kk + c] = 2 * Q[r * N + c];
                rhs[r] = -2 * q[r];
            }
            for (int h = 0; h <= j; h++) {
                for (int c = 0; c < N; c++) {
                    kkt[(N + h) * kk + c] = A[h * N + c];
                    kkt[c * kk + N + h] = A[h * N + c];
                }
                rhs[N + h] = pts[h].value;
            }
            if (solve(kkt, rhs, kk) != 0) {
                rc = -2 - j;
                goto done;
            }
        }
        for (int k = 0; k < N; k++) fwd[k] = (m ? rhs[k] : 1.0) * E[k];
    }
    int last_added = -1;
    for (int it = 0; !exact; it++) {
        if (it >= 8 * m + 8) {
            rc = -1;
            goto done;
        }
        int nh = 0;
        for (int i = 0; i < m; i++)
            if (side[i]) held[nh++] = i;
        double *lam = rhs + N;
        if (nh == 0) {
            for (int k = 0; k < N; k++) fwd[k] = E[k]; /* G = 1: the base itself */
        } else {
            int kk = N + nh;
            memset(kkt, 0, (size_t)kk * (size_t)kk * sizeof *kkt);
            for (int r = 0; r < N; r++) {
                for (int c = 0; c < N; c++) kkt[r * kk + c] = 2 * Q[r * N + c];
                rhs[r] = -2 * q[r];
            }
            for (int h = 0; h < nh; h++) {
                int i = held[h];
                for (int c = 0; c < N; c++) {
                    kkt[(N + h) * kk + c] = A[i * N + c];
                    kkt[c * kk + N + h] = A[i * N + c];
                }
                rhs[N + h] = pts[i].value + side[i] * pts[i].tol;
            }
            if (solve(kkt, rhs, kk) != 0) {
                /* the bound just held depends on the others (note 3) */
                rc = last_added >= 0 ? -2 - last_added : -1;
                goto done;
            }
            for (int k = 0; k < N; k++) fwd[k] = rhs[k] * E[k];
        }
        /* drop the most wrong-signed held bound */
        int drop = -1;
        double worst = -1e-10 * (fabs(v) > 1 ? fabs(v) : 1);
        for (int h = 0; h < nh; h++) {
            double sg = side[held[h]] * lam[h];
            if (sg < worst) {
                worst = sg;
                drop = held[h];
            }
        }
        if (drop >= 0) {
            side[drop] = 0;
            last_added = -1;
            continue;
        }
        /* hold the most violated point */
        int add = -1, add_side = 0;
        double score = 0;
        for (int i = 0; i < m; i++) {
            if (side[i]) continue;
            double r = curve_average(fwd, N, pts[i].a, pts[i].b) - pts[i].value;
            double viol = fabs(r) - pts[i].tol;
            if (viol <= 1e-9 * (pts[i].value > 1e-6 ? pts[i].value : 1e-6)) continue;
            double sc = pts[i].tol > 0 ? viol / pts[i].tol : INFINITY;
            if (add < 0 || sc > score) {
                add = i;
                score = sc;
                add_side = r > 0 ? 1 : -1;
            }
        }
        if (add < 0) break;
        side[add] = add_side;
        last_added = add;
    }
    for (int i = 0; i < m; i++) {
        pts[i].active = side[i] == 2 ? 0 : side[i];
        pts[i].lambda = 0;
    }
    {
        int h = 0;
        for (int i = 0; i < m; i++)
            if (side[i]) pts[i].lambda = rhs[N + h++];
    }
done:
    free(A);
    free(Q);
    free(q);
    free(kkt);
    free(rhs);
    free(side);
    free(held);
    return rc;
}

/* ---- monotone convex (note 4) -------------------------------------------------- */

/* The integral over [x1, x2] (0 <= x1 <= x2 <= 1) of Hagan and West's g on
 * an interval whose g(0) = g0 and g(1) = g1. */
static double hw_h1(double eta, double x) /* integral of ((eta - t) / eta)^2 on [0, min(x, eta)] */
{
    if (eta <= 0) return 0;
    double y = x < eta ? x : eta;
    return (eta * eta * eta - (eta - y) * (eta - y) * (eta - y)) / (3 * eta * eta);
}

static double hw_h2(double eta, double x) /* integral of ((t - eta) / (1 - eta))^2 on [eta, x] */
{
    if (eta >= 1 || x <= eta) return 0;
    return (x - eta) * (x - eta) * (x - eta) / (3 * (1 - eta) * (1 - eta));
}

static double hw_G(double g0, double g1, double x)
{
    if (g0 == 0 && g1 == 0) return 0;
    if ((g0 < 0 && -0.5 * g0 <= g1 && g1 <= -2 * g0) || (g0 > 0 && -0.5 * g0 >= g1 && g1 >= -2 * g0))
        return g0 * (x - 2 * x * x + x * x * x) + g1 * (-x * x + x * x * x);
    if ((g0 < 0 && g1 > -2 * g0) || (g0 > 0 && g1 < -2 * g0)) {
        double eta = (g1 + 2 * g0) / (g1 - g0);
        return g0 * x + (g1 - g0) * hw_h2(eta, x);
    }
    if ((g0 > 0 && 0 > g1 && g1 > -0.5 * g0) || (g0 < 0 && 0 < g1 && g1 < -0.5 * g0)) {
        double eta = 3 * g1 / (g1 - g0);
        return g1 * x + (g0 - g1) * hw_h1(eta, x);
    }
    /* same signs */
    double eta = g1 / (g1 + g0), A = -g0 * g1 / (g0 + g1);
    return A * x + (g0 - A) * hw_h1(eta, x) + (g1 - A) * hw_h2(eta, x);
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

void curve_fit_monotone(double v, const curve_fit_point *pts, size_t n, double *fwd, int *n_out)
{
    /* knots t[0] = 0 < t[1] < ... < t[n]; discrete forwards fd[1..n] */
    double t[CURVE_TENORS + 2], fd[CURVE_TENORS + 2], f[CURVE_TENORS + 2];
    if (n > CURVE_TENORS) n = CURVE_TENORS;
    t[0] = 0;
    double prev = 0;
    for (size_t i = 1; i <= n; i++) {
        t[i] = pts[i - 1].b;
        double cum = pts[i - 1].value * t[i];
        fd[i] = (cum - prev) / (t[i] - t[i - 1]);
        prev = cum;
    }
    f[0] = v;
    for (size_t i = 1; i < n; i++) {
        f[i] = ((t[i] - t[i - 1]) * fd[i + 1] + (t[i + 1] - t[i]) * fd[i]) / (t[i + 1] - t[i - 1]);
        f[i] = clampd(f[i], 0, 2 * (fd[i] < fd[i + 1] ? fd[i] : fd[i + 1]));
    }
    if (n >= 1) f[n] = clampd(fd[n] - 0.5 * (f[n - 1] - fd[n]), 0, 2 * fd[n]);
    int N = n ? (int)ceil(t[n] - 1e-9) : 1;
    if (N < 1) N = 1;
    if (N > CURVE_TENORS) N = CURVE_TENORS;
    *n_out = N;
    for (int k = 0; k < N; k++) {
        double s = 0;
        for (size_t i = 1; i <= n; i++) {
            double lo = k > t[i - 1] ? k : t[i - 1], hi = k + 1 < t[i] ? k + 1 : t[i];
            if (hi <= lo) continue;
            double h = t[i] - t[i - 1], x1 = (lo - t[i - 1]) / h, x2 = (hi - t[i - 1]) / h;
            double g0 = f[i - 1] - fd[i], g1 = f[i] - fd[i];
            s += fd[i] * (hi - lo) + h * (hw_G(g0, g1, x2) - hw_G(g0, g1, x1));
        }
        /* a month partly beyond the last knot: its known part */
        double covered = overlap(0, n ? t[n] : 0, k, k + 1);
        fwd[k] = covered > 0 ? s / covered : v;
    }
}
