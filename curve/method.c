/* curve/method.c -- curve_compute: a day's inputs restated, screened,
 * grouped into points, fitted, and read out per tenor (curve.h).
 *
 * NOTES ON THE DESIGN
 * (1) Exact where a published number is made from published numbers:
 *     ratios are integers of 1e-12 (price x 4e12 / the reference in
 *     quarter-micro, half-up), restated prices micro-USD (V x ratio,
 *     half-up), a median of an even count the mean of the middle two,
 *     half-up, tolerances micro-USD.  The fit (fit.c) runs in doubles on
 *     those integers; its forwards, term rates and averages are rounded
 *     once, half-up (gpi_double_to_units), so the same inputs give the
 *     same published curve on every run, and `gpuidx verify` recomputes
 *     it from the published inputs with this code.
 * (2) The screen (curve.h step 2) runs quote by quote, in input order; the
 *     convexity screen point by point after each fit: when the curve bends
 *     by more than the limit, of the points without which the fit of the
 *     others bends less, the one with the fewest provider groups goes (then
 *     the one leaving the curve smoothest, then the earlier) -- the least
 *     supported input gives way, not a consensus of many -- all its
 *     quotes with it, and the curve is fitted again.
 * (3) Statuses (step 5): tenor k is fitted when a used point ends in
 *     (k - 1, k]; interpolated when it lies between the ends e1 < e2 of
 *     used points (the front is an end at 0) with e2 <= max(3 e1, e1 + 3)
 *     -- a curve is not drawn across a gap longer than the distance it has
 *     already covered; withheld beyond the last end, across a wider gap,
 *     where the forward is not positive or not within [V/F, F V], and a
 *     term rate that averages a forward withheld by that check.
 */
#include "curve/curve.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void curve_params_default(curve_params *p)
{
    memset(p, 0, sizeof *p);
    p->error_factor_e6 = 3000000;
    p->tolerance_e6[0] = 15000;
    p->tolerance_e6[1] = 8000;
    p->tolerance_e6[2] = 6000;
    p->tolerance_e6[3] = 5000;
    p->min_points = 3;
    p->convexity_e6 = 10000;
    p->convexity_from = 4;
    p->max_gap_factor = 3;
    p->max_gap_months = 3;
}

const char *curve_kind_name(int kind)
{
    return kind == CURVE_OFFER ? "offer" : kind == CURVE_TRADE ? "trade" : "futures";
}

const char *curve_status_name(int status)
{
    return status == CURVE_FITTED ? "fitted" : status == CURVE_INTERPOLATED ? "interpolated"
                                                                             : "withheld";
}

const char *curve_fit_name(int fit)
{
    switch (fit) {
    case CURVE_FIT_SMOOTH: return "maximum-smoothness";
    case CURVE_FIT_MONOTONE: return "monotone-convex";
    case CURVE_FIT_EXACT: return "exact";
    default: return "none";
    }
}

void curve_result_free(curve_result *r)
{
    if (!r) return;
    free(r->pt);
    r->pt = NULL;
    r->n_pt = 0;
}

const char *const curve_only_on_demand =
    "a curve is drawn for on-demand grades only: term rents are not interruptible (spot) "
    "and a reserved grade is itself a term";

void curve_withhold_all(curve_result *r, const char *why)
{
    for (int k = 0; k < CURVE_TENORS; k++) {
        curve_tenor *t = &r->t[k];
        t->status = CURVE_WITHHELD;
        t->term_e4 = t->fwd_e4 = -1;
        t->term = t->fwd = NAN;
        snprintf(t->reason, sizeof t->reason, "%s", why);
    }
    snprintf(r->note, sizeof r->note, "%s", why);
}

static double months_of_days(int32_t days)
{
    return (double)days * CURVE_MONTH_DEN / CURVE_MONTH_NUM;
}

/* "12" or "14.27" (months). */
static const char *months_text(double m, char buf[24])
{
    if (fabs(m - round(m)) < 1e-9)
        snprintf(buf, 24, "%d", (int)round(m));
    else
        snprintf(buf, 24, "%.2f", m);
    return buf;
}

/* ---- step 1-2: restatement and screen ---------------------------------------- */

static void exclude(curve_quote *q, const char *fmt, const char *a, const char *b)
{
    q->role = CURVE_EXCLUDED;
    snprintf(q->reason, sizeof q->reason, fmt, a ? a : "", b ? b : "");
}

/* ratio = num / den in 1e-12, half-up. */
static int64_t ratio_e12(int64_t num, int64_t den)
{
    return gpi_div_round((__int128)num * 1000000000000LL, den);
}

static void restate(const curve_params *p, int32_t day, int64_t v_e4, curve_quote *q)
{
    q->role = CURVE_USED;
    q->reason[0] = '\0';
    q->point = -1;
    q->weight = 0;
    q->ratio_e12 = q->restated_micro = -1;
    if (q->kind == CURVE_FUTURES) {
        q->start_days = q->first_day - day - 1;
        int32_t end = q->last_day - day;
        q->a = months_of_days(q->start_days > 0 ? q->start_days : 0);
        q->b = months_of_days(end);
    } else {
        q->start_days = q->starts_on > day + 1 ? q->starts_on - day - 1 : 0;
        q->a = months_of_days(q->start_days);
        q->b = q->a + q->term_months;
    }
    char buf[64], m[24];
    if (q->pre_reason) {
        exclude(q, "%s", q->pre_reason, NULL);
        return;
    }
    if (v_e4 < 0) {
        exclude(q, "no fix on the day", NULL, NULL);
        return;
    }
    if (q->kind == CURVE_FUTURES) {
        if (q->first_day <= day) {
            exclude(q, "in its delivery month (its price holds the month's realised values)",
                    NULL, NULL);
            return;
        }
        q->ref_q = v_e4; /* published as the reference: the fix */
        if (q->price_micro == v_e4 * 100) {
            exclude(q, "equals the index value (the settlement rule's price before delivery, "
                       "not a market price)", NULL, NULL);
            return;
        }
    } else if (q->ref_q <= 0) {
        snprintf(buf, sizeof buf, "%s", curve_kind_name(q->kind));
        exclude(q, "no %s of its provider group (%s) in the grade on the day to restate against",
                buf, q->group);
        return;
    }
    if (q->b > CURVE_TENORS + 1e-9) {
        exclude(q, "ends %s months ahead, after the curve's 36", months_text(q->b, m), NULL);
        return;
    }
    int64_t den = q->kind == CURVE_FUTURES ? v_e4 * 100 : q->ref_q;
    int64_t num = q->kind == CURVE_FUTURES ? q->price_micro : q->price_micro * 4;
    if (den <= 0) {
        exclude(q, "the fix is 0", NULL, NULL);
        return;
    }
    q->ratio_e12 = ratio_e12(num, den);
    /* ratio within [1/F, F]: ratio x F >= 1 and ratio <= F, exactly */
    __int128 r = q->ratio_e12, f = p->error_factor_e6;
    if (r * 1000000 > f * 1000000000000LL || r * f < (__int128)1000000000000LL * 1000000) {
        char x[32], fx[32];
        gpi_fixed_format(gpi_div_round(r, 10000000000LL), 2, x);
        gpi_fixed_format(gpi_div_round(f, 10000), 2, fx);
        char why[96];
        snprintf(why, sizeof why, "%s times %s", x,
                 q->kind == CURVE_FUTURES ? "the fix" : "its provider's own price in the grade");
        exclude(q, "%s: outside 1/F..F (error_factor %s)", why, fx);
        return;
    }
    q->restated_micro = q->kind == CURVE_FUTURES
                            ? q->price_micro
                            : gpi_div_round((__int128)v_e4 * 100 * q->ratio_e12, 1000000000000LL);
}

/* ---- step 3: points ---------------------------------------------------------- */

/* Median of v[0..n) (sorted in place), an even count's middle two
 * averaged half-up. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median_i64(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    if (n % 2) return v[n / 2];
    return gpi_div_round((__int128)v[n / 2 - 1] + v[n / 2], 2);
}

static const char *vote_of(const curve_quote *q)
{
    return q->kind == CURVE_FUTURES ? (q->symbol ? q->symbol : "") : (q->group ? q->group : "");
}

static int cmp_point(const void *a, const void *b)
{
    const curve_point *x = a, *y = b;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return x->futures - y->futures;
}

static gpi_status make_points(const curve_params *p, curve_quote *q, size_t nq, curve_result *out,
                              gpi_diag *d)
{
    size_t cap = nq ? nq : 1;
    out->pt = calloc(cap, sizeof *out->pt);
    int64_t *vals = malloc(cap * sizeof *vals), *meds = malloc(cap * sizeof *meds);
    const char **names = malloc(cap * sizeof *names);
    if (!out->pt || !vals || !meds || !names) {
        free(vals);
        free(meds);
        free(names);
        return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    }
    /* one point per interval (in order of first quote, then sorted) */
    for (size_t i = 0; i < nq; i++) {
        if (q[i].role != CURVE_USED) continue;
        size_t k = 0;
        for (; k < out->n_pt; k++) {
            const curve_point *pt = &out->pt[k];
            if (pt->start_days == q[i].start_days && pt->futures == (q[i].kind == CURVE_FUTURES) &&
                (pt->futures ? pt->end_days == q[i].last_day - out->day
                             : pt->term_months == q[i].term_months))
                break;
        }
        if (k == out->n_pt) {
            curve_point *pt = &out->pt[out->n_pt++];
            pt->start_days = q[i].start_days;
            pt->futures = q[i].kind == CURVE_FUTURES;
            pt->term_months = pt->futures ? 0 : q[i].term_months;
            pt->end_days = pt->futures ? q[i].last_day - out->day : 0;
            pt->a = q[i].a;
            pt->b = q[i].b;
            pt->fitted_micro = pt->residual_micro = -1;
        }
    }
    qsort(out->pt, out->n_pt, sizeof *out->pt, cmp_point);
    size_t *list = malloc(cap * sizeof *list), *gidx = malloc(cap * sizeof *gidx);
    if (!list || !gidx) {
        free(list);
        free(gidx);
        free(vals);
        free(meds);
        free(names);
        return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    }
    for (size_t k = 0; k < out->n_pt; k++) {
        curve_point *pt = &out->pt[k];
        /* the quotes of the point, and their groups in order of appearance */
        size_t nl = 0, ng = 0;
        for (size_t i = 0; i < nq; i++) {
            if (q[i].role != CURVE_USED || q[i].start_days != pt->start_days ||
                (q[i].kind == CURVE_FUTURES) != pt->futures ||
                (pt->futures ? q[i].last_day - out->day != pt->end_days
                             : q[i].term_months != pt->term_months))
                continue;
            q[i].point = (int)k;
            const char *v = vote_of(&q[i]);
            size_t g = 0;
            while (g < ng && names[g] != v && strcmp(names[g], v) != 0) g++;
            if (g == ng) names[ng++] = v;
            list[nl] = i;
            gidx[nl++] = g;
        }
        for (size_t g = 0; g < ng; g++) {
            size_t nv = 0;
            for (size_t l = 0; l < nl; l++)
                if (gidx[l] == g) vals[nv++] = q[list[l]].restated_micro;
            for (size_t l = 0; l < nl; l++)
                if (gidx[l] == g) q[list[l]].weight = 1.0 / (double)ng / (double)nv;
            meds[g] = median_i64(vals, nv);
        }
        pt->groups = (int)ng;
        pt->value_micro = median_i64(meds, ng);
        pt->tol_micro = gpi_div_round((__int128)pt->value_micro *
                                          p->tolerance_e6[ng < 4 ? ng - 1 : 3],
                                      1000000);
        pt->role = CURVE_USED;
    }
    free(list);
    free(gidx);
    free(vals);
    free(meds);
    free(names);
    return GPI_OK;
}

/* ---- step 4: the fit ---------------------------------------------------------- */

static void exclude_point(curve_result *out, size_t k, curve_quote *q, size_t nq, const char *why)
{
    curve_point *pt = &out->pt[k];
    pt->role = CURVE_EXCLUDED;
    snprintf(pt->reason, sizeof pt->reason, "%s", why);
    for (size_t i = 0; i < nq; i++)
        if (q[i].point == (int)k) {
            q[i].role = CURVE_EXCLUDED;
            q[i].weight = 0;
            snprintf(q[i].reason, sizeof q[i].reason, "%s", why);
        }
}

static gpi_status fit(const curve_params *p, curve_result *out, curve_quote *q, size_t nq,
                      double *fwd, int *nf, gpi_diag *d)
{
    double v = (double)out->front_e4 / 1e4;
    curve_fit_point fp[CURVE_TENORS * 8];
    size_t map[CURVE_TENORS * 8];
    for (;;) {
        size_t n = 0;
        int spot = 1;
        for (size_t k = 0; k < out->n_pt && n < sizeof fp / sizeof fp[0]; k++) {
            curve_point *pt = &out->pt[k];
            pt->active = 0;
            pt->lambda = 0;
            if (pt->role != CURVE_USED) continue;
            fp[n] = (curve_fit_point){pt->a, pt->b, (double)pt->value_micro / 1e6,
                                      (double)pt->tol_micro / 1e6, 0, 0};
            spot &= pt->start_days == 0 && !pt->futures;
            map[n++] = k;
        }
        out->n_used = (int)n;
        if (n == 0) {
            out->fit = CURVE_FIT_NONE;
            return GPI_OK;
        }
        if (spot && (int)n < p->min_points) {
            curve_fit_monotone(v, fp, n, fwd, nf);
            out->fit = CURVE_FIT_MONOTONE;
            out->growth = 0;
            return GPI_OK;
        }
        int rc = curve_fit_smooth(v, fp, n, 0, fwd, nf, &out->growth);
        out->fit = CURVE_FIT_SMOOTH;
        if (rc == -1) {
            rc = curve_fit_smooth(v, fp, n, 1, fwd, nf, &out->growth);
            out->fit = CURVE_FIT_EXACT;
        }
        if (rc == -1) return gpi_diag_set(d, GPI_EMATH, "curve: the fit cannot be solved");
        if (rc <= -2) {
            exclude_point(out, map[-2 - rc], q, nq,
                          "measures the same months as other inputs (monthly forwards cannot "
                          "hold both)");
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            out->pt[map[i]].active = fp[i].active;
            out->pt[map[i]].lambda = fp[i].lambda;
        }
        /* the convexity screen (note 2) */
        int at;
        double rough = curve_roughness_max(v, fwd, *nf, p->convexity_from, &at);
        if (v <= 0 || rough * 1e6 <= (double)p->convexity_e6 * v || n < 2) return GPI_OK;
        /* of the points without which the curve is less rough, the least
         * supported (fewest groups), then the one leaving it smoothest */
        size_t worst = n;
        double best = rough, without_fwd[CURVE_TENORS];
        int worst_groups = 0;
        for (size_t i = 0; i < n; i++) {
            curve_fit_point sub[CURVE_TENORS * 8];
            size_t m = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i) sub[m++] = fp[j];
            int nw, src = curve_fit_smooth(v, sub, m, 0, without_fwd, &nw, NULL);
            if (src == -1) src = curve_fit_smooth(v, sub, m, 1, without_fwd, &nw, NULL);
            if (src != 0) continue;
            double r2 = curve_roughness_max(v, without_fwd, nw, p->convexity_from, NULL);
            if (r2 >= rough - 1e-12 * v) continue; /* no smoother without it */
            int gr = out->pt[map[i]].groups;
            if (worst == n || gr < worst_groups || (gr == worst_groups && r2 < best - 1e-12 * v)) {
                best = r2;
                worst = i;
                worst_groups = gr;
            }
        }
        if (worst == n) return GPI_OK;
        char why[160], x[32], y[32], lim[32];
        gpi_fixed_format(gpi_double_to_units(rough / v * 100, 2), 2, x);
        gpi_fixed_format(gpi_double_to_units(best / v * 100, 2), 2, y);
        gpi_fixed_format(gpi_div_round(p->convexity_e6, 100), 2, lim);
        snprintf(why, sizeof why,
                 "convexity screen: with it the curve bends by %s %% of the fix a month squared "
                 "(tenor %d), without it %s %% (at most %s %%)",
                 x, at, y, lim);
        exclude_point(out, map[worst], q, nq, why);
    }
}

/* ---- step 5: tenors ------------------------------------------------------------ */

static void withhold(curve_tenor *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void withhold(curve_tenor *t, const char *fmt, ...)
{
    t->status = CURVE_WITHHELD;
    t->term_e4 = t->fwd_e4 = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->reason, sizeof t->reason, fmt, ap);
    va_end(ap);
}

static void tenors(const curve_params *p, curve_result *out, const double *fwd, int nf)
{
    double v = (double)out->front_e4 / 1e4, F = (double)p->error_factor_e6 / 1e6;
    double bmax = 0;
    for (size_t k = 0; k < out->n_pt; k++)
        if (out->pt[k].role == CURVE_USED && out->pt[k].b > bmax) bmax = out->pt[k].b;
    int npub = (int)floor(bmax + 1e-9);
    if (npub > nf) npub = nf;
    out->longest_days = (int)llround(bmax * CURVE_MONTH_NUM / CURVE_MONTH_DEN);
    char m1[24], m2[24];
    int bad_fwd = 0; /* the first tenor whose forward failed the checks */
    double sum = 0;
    for (int k = 1; k <= CURVE_TENORS; k++) {
        curve_tenor *t = &out->t[k - 1];
        t->term = t->fwd = NAN;
        t->reason[0] = '\0';
        if (out->front_e4 < 0) {
            withhold(t, "no fix on the day");
            continue;
        }
        if (out->n_used == 0) {
            withhold(t, "no term input on the day");
            continue;
        }
        if (k > npub) {
            withhold(t, "beyond the longest input (%s months)", months_text(bmax, m1));
            continue;
        }
        t->fwd = fwd[k - 1];
        sum += fwd[k - 1];
        t->term = sum / k;
        int fitted = 0;
        double lo = 0, hi = INFINITY;
        for (size_t j = 0; j < out->n_pt; j++) {
            const curve_point *pt = &out->pt[j];
            if (pt->role != CURVE_USED) continue;
            if (pt->b > k - 1 + 1e-9 && pt->b <= k + 1e-9) fitted = 1;
            if (pt->b <= k - 1 + 1e-9 && pt->b > lo) lo = pt->b;
            if (pt->b > k + 1e-9 && pt->b < hi) hi = pt->b;
        }
        double reach = lo * p->max_gap_factor > lo + p->max_gap_months
                           ? lo * p->max_gap_factor
                           : lo + p->max_gap_months;
        if (!fitted && hi > reach + 1e-9) {
            withhold(t, "between inputs ending %s and %s months ahead: too far apart to "
                        "interpolate (at most %d times or %d months further)",
                     months_text(lo, m1), months_text(hi, m2), p->max_gap_factor,
                     p->max_gap_months);
            continue;
        }
        char fx[32];
        gpi_fixed_format(gpi_double_to_units(t->fwd, 4), 4, fx);
        if (t->fwd <= 0) {
            withhold(t, "negative forward (%s)", fx);
            if (!bad_fwd) bad_fwd = k;
            continue;
        }
        if (t->fwd > F * v || t->fwd * F < v) {
            withhold(t, "implausible forward %s: %s error_factor times the fix", fx,
                     t->fwd > F * v ? "more than" : "less than 1 /");
            if (!bad_fwd) bad_fwd = k;
            continue;
        }
        if (bad_fwd) {
            withhold(t, "its term rate averages the withheld forward of tenor %d", bad_fwd);
            continue;
        }
        t->status = fitted ? CURVE_FITTED : CURVE_INTERPOLATED;
        t->fwd_e4 = gpi_double_to_units(t->fwd, 4);
        t->term_e4 = gpi_double_to_units(t->term, 4);
    }
}

/* ---- the whole -------------------------------------------------------------- */

gpi_status curve_compute(const curve_params *p, int32_t day, int64_t front_e4, curve_quote *q,
                         size_t nq, curve_result *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->day = day;
    out->front_e4 = front_e4;
    for (size_t i = 0; i < nq; i++) restate(p, day, front_e4, &q[i]);
    gpi_status rc = make_points(p, q, nq, out, d);
    double fwd[CURVE_TENORS];
    int nf = 0;
    for (int k = 0; k < CURVE_TENORS; k++) fwd[k] = NAN;
    if (rc == GPI_OK && front_e4 >= 0) rc = fit(p, out, q, nq, fwd, &nf, d);
    if (rc != GPI_OK) {
        curve_result_free(out);
        return rc;
    }
    for (size_t k = 0; k < out->n_pt; k++) {
        curve_point *pt = &out->pt[k];
        if (pt->role != CURVE_USED || front_e4 < 0 || nf == 0) continue;
        double avg = curve_average(fwd, nf, pt->a, pt->b);
        pt->fitted_micro = gpi_double_to_units(avg, 6);
        pt->residual_micro = pt->fitted_micro - pt->value_micro;
    }
    tenors(p, out, fwd, nf);
    if (front_e4 < 0)
        snprintf(out->note, sizeof out->note, "no fix on the day");
    else if (out->n_used == 0)
        snprintf(out->note, sizeof out->note, "no term input on the day");
    return GPI_OK;
}
