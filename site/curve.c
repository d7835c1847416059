/* site/curve.c -- the term curve on the site (issue 29): each grade's
 * curve of its last day against its curves of one and three months
 * before (an inline SVG chart under the grade's series), and the
 * statement's "Term curve" section: the method, the curves of the day at
 * a few tenors, and the back-test table (`gpuidx curve backtest --csv`,
 * given with `site --curve-backtest FILE`).
 *
 * The curves are the published ones: curve.csv of each day's latest
 * vintage with curve files, as the publication recorded it in the store
 * (store/curves.h store_vintage_curve_csv); nothing is fitted here, so a
 * day never published has no curve on the site.  Coordinates are display
 * only (doubles); every number printed is curve.csv's own text, parsed
 * exactly and printed back with the same 4 decimals.
 */
#include "site/internal.h"
#include "core/csv_reader.h"
#include "curve/format.h"
#include "store/curves.h"
#include "store/index_values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CW 960.0
#define CH 240.0
#define CML 64.0
#define CMR 150.0
#define CMT 20.0
#define CMB 34.0

enum { SC_DAYS = 3 }; /* the day, one month and three months before */
static const int sc_back[SC_DAYS] = {0, 1, 3};

typedef struct sc_curve {
    int32_t day;
    int64_t front_e4;
    int64_t fwd_e4[CURVE_TENORS];  /* -1 withheld */
    int64_t term_e4[CURVE_TENORS];
    int status[CURVE_TENORS];
    int listed;      /* the grade is in the day's curve.csv */
    char note[200];  /* why tenor 1 is withheld, or why there is no curve */
} sc_curve;

typedef struct sc_grade {
    char id[65];
    sc_curve c[SC_DAYS];
} sc_grade;

struct site_curves {
    sc_grade *g;
    size_t n;
};

/* The same day of the month k months before day (the month's last day when
 * it has fewer days). */
static int32_t months_before(int32_t day, int k)
{
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    m -= k;
    while (m < 1) m += 12, y--;
    int last = gpi_month_days(y, m);
    return gpi_days_from_civil(y, m, dd < last ? dd : last);
}

gpi_status site_curves_load(store *st, const store_index_row *rows, size_t n, site_curves **out,
                            gpi_diag *d)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) ng += i == 0 || strcmp(rows[i].grade, rows[i - 1].grade) != 0;
    site_curves *sc = *out;
    sc->g = calloc(ng ? ng : 1, sizeof *sc->g);
    if (!sc->g) {
        site_curves_free(sc);
        *out = NULL;
        return gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    }
    int32_t last = INT32_MIN;
    for (size_t i = 0; i < n; i++)
        if (rows[i].day > last) last = rows[i].day;
    for (size_t i = 0, k = 0; i < n; k++) {
        size_t j = i;
        while (j < n && strcmp(rows[j].grade, rows[i].grade) == 0) j++;
        sc_grade *g = &sc->g[k];
        snprintf(g->id, sizeof g->id, "%s", rows[i].grade);
        for (int t = 0; t < SC_DAYS; t++) {
            sc_curve *c = &g->c[t];
            c->day = months_before(last, sc_back[t]);
            c->front_e4 = -1;
            for (int m = 0; m < CURVE_TENORS; m++) {
                c->fwd_e4[m] = c->term_e4[m] = -1;
                c->status[m] = CURVE_WITHHELD;
            }
            /* the dot at 0: the day's index value, as the grade's rows have it */
            for (size_t m = i; m < j; m++)
                if (rows[m].day == c->day) c->front_e4 = rows[m].value_e4;
        }
        sc->n = k + 1;
        i = j;
    }
    gpi_status rc = GPI_OK;
    for (int t = 0; t < SC_DAYS && rc == GPI_OK && sc->n; t++) {
        int32_t day = months_before(last, sc_back[t]);
        char *csv = NULL;
        if ((rc = store_vintage_curve_csv(st, day, 0, &csv, d)) != GPI_OK) break;
        const char *why = csv ? "not in the day's curve.csv" : "no published curve of the day";
        for (size_t i = 0; i < sc->n; i++)
            snprintf(sc->g[i].c[t].note, sizeof sc->g[i].c[t].note, "%s", why);
        if (csv) {
            char date[11], path[64];
            gpi_date_format(day, date);
            snprintf(path, sizeof path, "curve.csv of %s", date);
            for (size_t i = 0; rc == GPI_OK && i < sc->n; i++) {
                sc_curve *c = &sc->g[i].c[t];
                curve_tenor ten[CURVE_TENORS];
                rc = curve_csv_read(path, csv, strlen(csv), sc->g[i].id, ten, &c->listed, d);
                for (int k = 0; rc == GPI_OK && c->listed && k < CURVE_TENORS; k++) {
                    c->term_e4[k] = ten[k].term_e4;
                    c->fwd_e4[k] = ten[k].fwd_e4;
                    c->status[k] = ten[k].status;
                }
                if (rc == GPI_OK && c->listed)
                    snprintf(c->note, sizeof c->note, "%s", ten[0].reason);
            }
            free(csv);
        }
    }
    if (rc != GPI_OK) {
        site_curves_free(*out);
        *out = NULL;
    }
    return rc;
}

void site_curves_free(site_curves *c)
{
    if (!c) return;
    free(c->g);
    free(c);
}

static const sc_grade *find(const site_curves *c, const char *id)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (strcasecmp(c->g[i].id, id) == 0) return &c->g[i];
    return NULL;
}

static int has_curve(const sc_curve *c)
{
    for (int k = 0; k < CURVE_TENORS; k++)
        if (c->fwd_e4[k] >= 0) return 1;
    return 0;
}

/* ---- the chart -------------------------------------------------------------- */

static const char *const sc_style[SC_DAYS] = {
    "stroke:#1f5fbf;stroke-width:2", "stroke:#e07b00;stroke-width:1.4;stroke-dasharray:6 3",
    "stroke:#7a7a7a;stroke-width:1.4;stroke-dasharray:2 3"};
static const char *const sc_fill[SC_DAYS] = {"#1f5fbf", "#e07b00", "#7a7a7a"};

void site_curve_chart(FILE *f, const site_curves *c, const char *grade)
{
    const sc_grade *g = find(c, grade);
    if (!g) return;
    char a[11], b[32];
    gpi_date_format(g->c[0].day, a);
    if (!has_curve(&g->c[0])) {
        fprintf(f, "<p class=\"meta\">Term curve of %s: none (%s).</p>\n", a,
                g->c[0].note[0] ? g->c[0].note : "every tenor withheld");
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int t = 0; t < SC_DAYS; t++) {
        const sc_curve *x = &g->c[t];
        if (x->front_e4 >= 0 && has_curve(x)) {
            lo = fmin(lo, (double)x->front_e4 / 1e4);
            hi = fmax(hi, (double)x->front_e4 / 1e4);
        }
        for (int k = 0; k < CURVE_TENORS; k++)
            if (x->fwd_e4[k] >= 0) {
                lo = fmin(lo, (double)x->fwd_e4[k] / 1e4);
                hi = fmax(hi, (double)x->fwd_e4[k] / 1e4);
            }
    }
    double pad = (hi - lo) * 0.08 + 0.01;
    /* the price axis in round steps, as the series chart's (site/svg.c) */
    double step = fmax(0.01, site_nice_step(hi - lo + 2 * pad));
    int cents = fabs(step * 100 - round(step * 100)) < 1e-9; /* else 0.025: a tenth */
    lo = fmax(0, floor((lo - pad) / step) * step);
    hi = ceil((hi + pad) / step) * step;
    int withheld = 0;
    for (int k = 0; k < CURVE_TENORS; k++) withheld += g->c[0].fwd_e4[k] < 0;
    fprintf(f, "<p class=\"meta\">Term curve of %s (%d of 36 tenors withheld): the "
               "monthly forward by tenor as published (curve.csv), against the curves of one "
               "and three months before; the dot at 0 is the day's index value.</p>\n",
            a, withheld);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "class=\"chart curve\">\n",
            CW, CH);
#define XOF(m) (CML + (CW - CML - CMR) * (m) / 36.0)
#define YOF(v) (CMT + (CH - CMT - CMB) * (1 - ((v) - lo) / (hi - lo)))
    /* axes: tenors every 6 months, the price lines every step */
    for (int m = 0; m <= 36; m += 6)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">%d</text>\n",
                XOF(m), CMT, XOF(m), CH - CMB, XOF(m), CH - CMB + 14, m);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">months "
               "ahead</text>\n",
            XOF(18), CH - 4);
    for (int i = 0; lo + step * i <= hi + step / 2; i++) {
        double v = lo + step * i;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"axis\">$%s</text>\n",
                CML, YOF(v), CW - CMR, YOF(v), CML - 6, YOF(v) + 4,
                gpi_fixed_format(gpi_double_to_units(v, cents ? 2 : 3), cents ? 2 : 3, b));
    }
    for (int t = SC_DAYS - 1; t >= 0; t--) {
        const sc_curve *x = &g->c[t];
        if (!has_curve(x)) continue;
        /* runs of tenors with a forward; the front joins the first when tenor 1 has one */
        int open = 0;
        for (int k = 0; k < CURVE_TENORS; k++) {
            if (x->fwd_e4[k] < 0) {
                if (open) fputs("\"/>\n", f);
                open = 0;
                continue;
            }
            if (!open) {
                fprintf(f, "<polyline fill=\"none\" style=\"%s\" points=\"", sc_style[t]);
                if (k == 0 && x->front_e4 >= 0)
                    fprintf(f, "%.1f,%.1f ", XOF(0), YOF((double)x->front_e4 / 1e4));
                open = 1;
            }
            fprintf(f, "%.1f,%.1f ", XOF(k + 0.5), YOF((double)x->fwd_e4[k] / 1e4));
        }
        if (open) fputs("\"/>\n", f);
        if (x->front_e4 >= 0)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s fix %s"
                       "</title></circle>\n",
                    XOF(0), YOF((double)x->front_e4 / 1e4), sc_fill[t],
                    (gpi_date_format(x->day, a), a), gpi_fixed_format(x->front_e4, 4, b));
    }
    /* legend */
    for (int t = 0; t < SC_DAYS; t++) {
        double y = CMT + 14 + 18 * t;
        gpi_date_format(g->c[t].day, a);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" style=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">%s%s</text>\n",
                CW - CMR + 10, y, CW - CMR + 34, y, sc_style[t], CW - CMR + 40, y + 4, a,
                has_curve(&g->c[t]) ? "" : " (none)");
    }
#undef XOF
#undef YOF
    fputs("</svg>\n", f);
}

/* ---- the statement ---------------------------------------------------------- */

typedef struct bt_ctx {
    FILE *f;
    int header, rows;
    int col[7];
} bt_ctx;

static gpi_status bt_row(void *ud, const char *const *fl, int n, long line, gpi_diag *d)
{
    bt_ctx *c = ud;
    static const char *const names[7] = {"grade", "tenor", "against", "n", "bias_pct", "rmse_pct",
                                         "within_3pct_pct"};
    (void)line;
    (void)d;
    if (!c->header) {
        for (int k = 0; k < 7; k++) {
            c->col[k] = -1;
            for (int i = 0; i < n; i++)
                if (strcmp(fl[i], names[k]) == 0) c->col[k] = i;
        }
        c->header = 1;
        return GPI_OK;
    }
    const char *v[7];
    for (int k = 0; k < 7; k++) v[k] = c->col[k] >= 0 && c->col[k] < n ? fl[c->col[k]] : "";
    int tenor = atoi(v[1]);
    if (tenor != 1 && tenor != 3 && tenor != 6 && tenor != 12 && tenor != 24) return GPI_OK;
    static const char *const against[3][2] = {
        {"realised", "realised monthly FSP"},
        {"true_at_fix", "true curve at the day's fix"},
        {"true_at_price", "true curve at the true price"}};
    const char *what = v[2];
    for (int k = 0; k < 3; k++)
        if (strcmp(v[2], against[k][0]) == 0) what = against[k][1];
    fputs("<tr><td>", c->f);
    site_html_esc(c->f, v[0]);
    fprintf(c->f, "</td><td>%d</td><td>", tenor);
    site_html_esc(c->f, what);
    for (int k = 3; k < 7; k++) {
        fputs("</td><td>", c->f);
        site_html_esc(c->f, v[k]);
    }
    fputs("</td></tr>\n", c->f);
    c->rows++;
    return GPI_OK;
}

gpi_status site_curve_statement(FILE *f, const site_curves *c, const char *backtest_csv,
                                gpi_diag *d)
{
    curve_params p;
    curve_params_default(&p);
    fputs("<h2 id=\"curve\">Term curve</h2>\n"
          "<p>With each published day (file format 4, <code>curve.csv</code> and "
          "<code>curve.json</code>) gpuidx publishes each on-demand grade's term curve: for "
          "each tenor of 1 to 36 months the <b>term rate</b> (the average rent per GPU-hour "
          "locked for that many months from the day) and the <b>monthly forward</b> (the rent "
          "of that month alone). Months are 365.25/12 days from the end of the day.</p>\n"
          "<p><b>Inputs.</b> The day's reserved offers and trades of 1 to 60 months that the "
          "grade takes with its term read as reserved (every other filter its own), "
          "forward-start reservations (<code>starts_on</code>), and futures settlement prices "
          "given to the publication. Each quote is <b>restated</b> to the grade by a measured "
          "factor only: its price over its provider's own on-demand price in the grade that "
          "day (the same listing's, else the provider's median), times the grade's fix. "
          "The quotes of one interval form a point: the median of the providers' medians, one "
          "vote per provider. The grade's fix is the front of the curve.</p>\n",
          f);
    fprintf(f, "<p><b>Arithmetic.</b> A term rate T months long averages the forwards, so the "
               "forward between two terms is F(T1,T2) = (T2&#183;&#928;2 &#8722; "
               "T1&#183;&#928;1)/(T2 &#8722; T1). The curve is the smoothest monthly forward "
               "curve (least squared second differences, relative to the curve growing at the "
               "points' constant rate) that reproduces every point within its tolerance "
               "(%s %%, %s %%, %s %% or %s %% of its value for 1, 2, 3 or more providers); "
               "with fewer than %d points, all starting on the day, Hagan and West's "
               "monotone-convex interpolation. Ratios are exact to 10<sup>-12</sup>, prices to "
               "the micro-dollar, the fit runs in IEEE doubles and every published number is "
               "rounded once, half-up; <code>gpuidx verify</code> recomputes every curve from "
               "its published inputs.</p>\n",
            "1.5", "0.8", "0.6", "0.5", p.min_points);
    fputs("<p><b>Screens and withheld tenors.</b> A quote more than error_factor times its "
          "provider's own price (or below its reciprocal), without a provider price to restate "
          "against, or ending after 36 months is excluded and named; a point that bends the "
          "curve by more than 1 % of the fix a month squared (from tenor 4) is excluded and "
          "named (the convexity screen). A tenor is <i>fitted</i> where an input ends, "
          "<i>interpolated</i> between inputs no further apart than three times (or three "
          "months beyond) the nearer end, and otherwise <i>withheld</i> with the reason: beyond "
          "the longest input, across too wide a gap, a negative or implausible forward (outside "
          "1/error_factor..error_factor times the fix), no fix. Spot and reserved grades have "
          "no curve: term rents restate to an on-demand price only.</p>\n",
          f);
    if (c && c->n) {
        char a[11], b[32];
        gpi_date_format(c->g[0].c[0].day, a);
        fprintf(f, "<p>Forwards of %s (USD per GPU-hour; &#8212; withheld):</p>\n"
                   "<table><thead><tr><th>grade</th><th>fix</th><th>1</th><th>3</th><th>6</th>"
                   "<th>12</th><th>24</th><th>36</th></tr></thead><tbody>\n",
                a);
        static const int at[6] = {1, 3, 6, 12, 24, 36};
        for (size_t i = 0; i < c->n; i++) {
            const sc_curve *x = &c->g[i].c[0];
            fputs("<tr><td>", f);
            site_html_esc(f, c->g[i].id);
            fprintf(f, "</td><td>%s</td>",
                    x->front_e4 >= 0 ? gpi_fixed_format(x->front_e4, 4, b) : "&#8212;");
            for (int k = 0; k < 6; k++)
                fprintf(f, "<td>%s</td>", x->fwd_e4[at[k] - 1] >= 0
                                              ? gpi_fixed_format(x->fwd_e4[at[k] - 1], 4, b)
                                              : "&#8212;");
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("<p><b>Back-test.</b> For each tenor k, the forward each day's curve fixed for the "
          "month k months ahead against the realised monthly final settlement price of that "
          "month (bias = mean of forward / realised &#8722; 1), and on the demo market against "
          "the simulator's true curve (<code>gpuidx curve backtest</code>).</p>\n",
          f);
    if (!backtest_csv) {
        fputs("<p class=\"note\">No back-test given (<code>gpuidx site --curve-backtest "
              "FILE</code>, the CSV of <code>gpuidx curve backtest --csv</code>).</p>\n",
              f);
        return GPI_OK;
    }
    char *text = NULL;
    size_t len = 0;
    gpi_status rc = gpi_text_read(backtest_csv, 64, &text, &len, d);
    if (rc != GPI_OK) return rc;
    fputs("<table><thead><tr><th>grade</th><th>tenor</th><th>against</th><th>n</th>"
          "<th>bias %</th><th>RMSE %</th><th>within 3 %</th></tr></thead><tbody>\n",
          f);
    bt_ctx bc = {f, 0, 0, {0}};
    rc = gpi_csv_read_text(backtest_csv, text, len, bt_row, &bc, d);
    fputs("</tbody></table>\n", f);
    free(text);
    return rc;
}
