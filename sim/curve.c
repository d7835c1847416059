/* sim/curve.c -- the demo market's true term structure (issue 29).
 *
 * Each GPU g has, on each day t, a known instantaneous forward curve
 * relative to its on-demand market level L_g(t) (model.c):
 *
 *     phi_g,t(tau) = exp( b1 tau/12 + b2 (1 - e^(-tau/4))
 *                         - c (1 - 2^(-tau * 30.4375/25)) ),
 *
 * tau in months of 365.25/12 = 30.4375 days from the end of day t (the
 * time axis of the term curve, METHODOLOGY.md "Term curve").  b1 is the
 * long-run slope per year, b2 a near-term step that builds over about
 * four months, and c the supply crunch of model.c (H100 SXM, H100 PCIe,
 * H200: +14 % decaying with a half-life of 25 days) that the market
 * expects to decay -- so the curve steepens into backwardation the day
 * the crunch hits.  b1 and b2 move slowly around each GPU's base (AR(1),
 * phi 0.99, stationary sd 0.03 and 0.02, stream 7 of the seed): H100 SXM,
 * H100 PCIe, A100 and L40S are backwardated (older GPUs are expected to
 * get cheaper), H200 and B200 in contango (new GPUs, supply expected to
 * stay tight).
 *
 * A term rent of T months locked on day t is the average of the forward
 * over [0, T]; a forward-start rent of T months from start a the average
 * over [a, a + T]; the monthly forward of tenor k the average over
 * [k - 1, k].  Averages are integrated with Simpson's rule, 16 panels a
 * month (the curve is smooth: the error is below 1e-9).  The market
 * (market.c) prices every reserved key at its on-demand target times the
 * term average, with the key's own quoting noise; the truth (truth.c)
 * without noise; sim_write_truth_curve writes the term structure itself.
 *
 * The draws come from stream 7 only, so the on-demand and spot market
 * (streams 1-6) is what it was before the term structure existed, row for
 * row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

#define MONTH_DAYS 30.4375
#define PANELS 16 /* per month, even */

/* Base b1 (per year) and b2 of each GPU (sim_gpus order). */
static const double base_b1[SIM_NGPU] = {-0.16, -0.10, -0.20, 0.04, 0.08, -0.05};
static const double base_b2[SIM_NGPU] = {-0.04, -0.03, -0.02, 0.03, 0.04, 0.0};

struct sim_curve {
    int days;
    double *b1, *b2, *c;      /* [g * days + t] */
    double *term;             /* [(g * days + t) * (SIM_CURVE_MONTHS + 1) + m]: the
                                 average over [0, m]; m = 0 unused */
};

static double phi(const sim_curve *cv, int g, int t, double tau)
{
    size_t i = (size_t)g * (size_t)cv->days + (size_t)t;
    return exp(cv->b1[i] * tau / 12.0 + cv->b2[i] * (1.0 - exp(-tau / 4.0)) -
               cv->c[i] * (1.0 - exp2(-tau * MONTH_DAYS / 25.0)));
}

/* The integral of phi over [a, b] (Simpson, about PANELS a month). */
static double integral(const sim_curve *cv, int g, int t, double a, double b)
{
    if (b <= a) return 0;
    int n = (int)ceil((b - a) * PANELS);
    if (n < 2) n = 2;
    if (n % 2) n++;
    double h = (b - a) / n, s = phi(cv, g, t, a) + phi(cv, g, t, b);
    for (int i = 1; i < n; i++) s += (i % 2 ? 4.0 : 2.0) * phi(cv, g, t, a + h * i);
    return s * h / 3.0;
}

double sim_curve_average(const sim_curve *cv, int g, int t, double a, double b)
{
    return integral(cv, g, t, a, b) / (b - a);
}

double sim_curve_term(const sim_curve *cv, int g, int t, int months)
{
    if (months < 1 || months > SIM_CURVE_MONTHS) return sim_curve_average(cv, g, t, 0, months);
    return cv->term[((size_t)g * (size_t)cv->days + (size_t)t) * (SIM_CURVE_MONTHS + 1) +
                    (size_t)months];
}

double sim_curve_forward(const sim_curve *cv, int g, int t, int k)
{
    return k * sim_curve_term(cv, g, t, k) - (k - 1) * (k > 1 ? sim_curve_term(cv, g, t, k - 1) : 0);
}

sim_curve *sim_curve_new(const sim_params *p, const sim_events *ev)
{
    sim_curve *cv = calloc(1, sizeof *cv);
    if (!cv) return NULL;
    size_t n = (size_t)p->days * SIM_NGPU;
    cv->days = p->days;
    cv->b1 = malloc(n * sizeof *cv->b1);
    cv->b2 = malloc(n * sizeof *cv->b2);
    cv->c = malloc(n * sizeof *cv->c);
    cv->term = malloc(n * (SIM_CURVE_MONTHS + 1) * sizeof *cv->term);
    if (!cv->b1 || !cv->b2 || !cv->c || !cv->term) {
        sim_curve_free(cv);
        return NULL;
    }
    sim_rng r;
    sim_rng_seed(&r, p->seed, 7);
    const double phi1 = 0.99, k1 = 0.03 * sqrt(1 - phi1 * phi1), k2 = 0.02 * sqrt(1 - phi1 * phi1);
    for (int g = 0; g < SIM_NGPU; g++) {
        double x = 0, y = 0;
        int crunch = g == SIM_H100_SXM || g == SIM_H100_PCIE || g == SIM_H200;
        for (int t = 0; t < p->days; t++) {
            x = phi1 * x + k1 * sim_rng_normal(&r);
            y = phi1 * y + k2 * sim_rng_normal(&r);
            size_t i = (size_t)g * (size_t)p->days + (size_t)t;
            cv->b1[i] = base_b1[g] + x;
            cv->b2[i] = base_b2[g] + y;
            cv->c[i] = crunch && t >= ev->crunch_day
                           ? log(1.14) * pow(0.5, (t - ev->crunch_day) / 25.0)
                           : 0.0;
            double cum = 0, *term = cv->term + i * (SIM_CURVE_MONTHS + 1);
            term[0] = 1.0;
            for (int m = 1; m <= SIM_CURVE_MONTHS; m++) {
                cum += integral(cv, g, t, m - 1, m);
                term[m] = cum / m;
            }
        }
    }
    return cv;
}

void sim_curve_free(sim_curve *cv)
{
    if (!cv) return;
    free(cv->b1);
    free(cv->b2);
    free(cv->c);
    free(cv->term);
    free(cv);
}

double sim_curve_start(int32_t day, int32_t starts_on)
{
    int32_t k = starts_on - day - 1;
    return k > 0 ? k / MONTH_DAYS : 0.0;
}

/* ---- the true term structure as a file ------------------------------------ */

static const char header[] =
    "date,gpu,tenor,term_ratio,forward_ratio,level,term_rate,forward\n";

gpi_status sim_write_truth_curve(const sim_params *p, const double *mf, const sim_curve *cv,
                                 FILE *f, gpi_diag *d)
{
    sim_out o;
    if (sim_out_open(&o, f) != 0) return gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
    sim_out_str(&o, header);
    char date[11];
    for (int t = 0; t < p->days && !o.err; t++) {
        gpi_date_format(p->start_day + t, date);
        for (int g = 0; g < SIM_NGPU; g++) {
            double level = mf[g * p->days + t];
            for (int k = 1; k <= SIM_CURVE_MONTHS; k++) {
                double term = sim_curve_term(cv, g, t, k), fwd = sim_curve_forward(cv, g, t, k);
                sim_out_str(&o, date);
                sim_out_ch(&o, ',');
                sim_out_str(&o, sim_gpus[g].name);
                sim_out_ch(&o, ',');
                sim_out_int(&o, k);
                sim_out_ch(&o, ',');
                sim_out_fixed(&o, llround(term * 1e9), 9);
                sim_out_ch(&o, ',');
                sim_out_fixed(&o, llround(fwd * 1e9), 9);
                sim_out_ch(&o, ',');
                sim_out_fixed(&o, llround(level * 1e6), 6);
                sim_out_ch(&o, ',');
                sim_out_fixed(&o, llround(level * term * 1e6), 6);
                sim_out_ch(&o, ',');
                sim_out_fixed(&o, llround(level * fwd * 1e6), 6);
                sim_out_ch(&o, '\n');
            }
        }
    }
    if (sim_out_close(&o) != 0)
        return gpi_diag_set(d, GPI_EIO, "simulate: the true term structure: write failed");
    return GPI_OK;
}
