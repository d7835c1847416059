/* hedge/svg.c -- a self-contained SVG chart of one hedge analysis.
 *
 * Three panels, no scripts, no external references:
 *   left          scatter of Δrent on Δindex (adjacent periods) with the
 *                 fitted line α + hΔi;
 *   right, top    rent and index levels over time;
 *   right, bottom basis (rent - index) over time.
 * Written into a growing buffer the caller frees; the CLI decides where it
 * goes.  Non-finite values are never plotted.
 */
#include "hedge/internal.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plotting box mapping data (x0..x1, y0..y1) to pixels. */
typedef struct box {
    double px, py, pw, ph;   /* pixel rectangle */
    double x0, x1, y0, y1;   /* data range */
} box;

static double bx(const box *b, double x) { return b->px + (x - b->x0) / (b->x1 - b->x0) * b->pw; }
static double by(const box *b, double y)
{
    return b->py + b->ph - (y - b->y0) / (b->y1 - b->y0) * b->ph;
}

static void widen(double *lo, double *hi)
{
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    double pad = (*hi - *lo) * 0.05;
    if (pad <= 0) pad = fabs(*hi) * 0.05 + 0.01;
    *lo -= pad;
    *hi += pad;
}

static void frame(gpi_sbuf *b, const box *bo, const char *title)
{
    gpi_sbuf_printf(b,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
                    "stroke=\"#999\"/>\n",
                    bo->px, bo->py, bo->pw, bo->ph);
    gpi_sbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%s</text>\n", bo->px,
              bo->py - 6, title);
    gpi_sbuf_printf(
        b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.4f</text>\n",
        bo->px - 3, bo->py + 10, bo->y1);
    gpi_sbuf_printf(
        b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.4f</text>\n",
        bo->px - 3, bo->py + bo->ph, bo->y0);
}

static void polyline(gpi_sbuf *b, const box *bo, const hedge_series *s, int which,
                     const char *color)
{
    gpi_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                    color);
    for (size_t i = 0; i < s->n; i++) {
        double y = which == 0 ? s->p[i].rent : which == 1 ? s->p[i].index
                                                          : s->p[i].rent - s->p[i].index;
        if (isfinite(y)) gpi_sbuf_printf(b, "%.1f,%.1f ", bx(bo, (double)s->p[i].start), by(bo, y));
    }
    gpi_sbuf_printf(b, "\"/>\n");
}

gpi_status hedge_svg(const hedge_series *s, const hedge_analysis *a, const char *title,
                     char **out, size_t *len, gpi_diag *d)
{
    *out = NULL;
    *len = 0;
    if (!s || !a) return gpi_diag_set(d, GPI_EUSAGE, "hedge_svg: bad arguments");
    gpi_sbuf b = {NULL, 0, 0, 0};
    hedge_changes c;
    gpi_status st = hedge_changes_make(s, 1, &c, d);
    if (st != GPI_OK) return st;
    gpi_sbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"540\" "
                  "viewBox=\"0 0 920 540\" font-family=\"sans-serif\">\n"
                  "<rect width=\"920\" height=\"540\" fill=\"white\"/>\n"
                  "<text x=\"20\" y=\"22\" font-size=\"15\">");
    gpi_sbuf_xml(&b, title);
    char h[48] = "n/a";
    if (isfinite(a->chg.b)) snprintf(h, sizeof h, "%.4f", a->chg.b);
    gpi_sbuf_printf(&b, " (%s, %zu periods, h = %s)</text>\n", hedge_freq_name(s->freq), s->n, h);

    /* scatter */
    box sc = {70, 60, 330, 360, INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (size_t j = 0; j < c.n; j++) {
        sc.x0 = fmin(sc.x0, c.di[j]);
        sc.x1 = fmax(sc.x1, c.di[j]);
        sc.y0 = fmin(sc.y0, c.dr[j]);
        sc.y1 = fmax(sc.y1, c.dr[j]);
    }
    widen(&sc.x0, &sc.x1);
    widen(&sc.y0, &sc.y1);
    frame(&b, &sc, "change in rent vs change in index");
    gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%.4f</text>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.4f</text>\n",
              sc.px, sc.py + sc.ph + 14, sc.x0, sc.px + sc.pw, sc.py + sc.ph + 14, sc.x1);
    for (size_t j = 0; j < c.n; j++)
        gpi_sbuf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#1f77b4\"/>\n",
                  bx(&sc, c.di[j]), by(&sc, c.dr[j]));
    if (a->chg.ok && isfinite(a->chg.a) && isfinite(a->chg.b)) {
        double ya = a->chg.a + a->chg.b * sc.x0, yb = a->chg.a + a->chg.b * sc.x1;
        gpi_sbuf_printf(&b,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                        "stroke-width=\"1.5\"/>\n",
                        bx(&sc, sc.x0), by(&sc, ya), bx(&sc, sc.x1), by(&sc, yb));
    } else {
        gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">no fit</text>\n",
                        sc.px + 10, sc.py + 20);
    }

    /* levels and basis over time */
    box lv = {490, 60, 400, 220, INFINITY, -INFINITY, INFINITY, -INFINITY};
    box bs = {490, 320, 400, 100, INFINITY, -INFINITY, INFINITY, -INFINITY};
    if (s->n > 0) {
        lv.x0 = bs.x0 = (double)s->p[0].start;
        lv.x1 = bs.x1 = (double)s->p[s->n - 1].start;
    }
    for (size_t i = 0; i < s->n; i++) {
        lv.y0 = fmin(lv.y0, fmin(s->p[i].rent, s->p[i].index));
        lv.y1 = fmax(lv.y1, fmax(s->p[i].rent, s->p[i].index));
        bs.y0 = fmin(bs.y0, s->p[i].rent - s->p[i].index);
        bs.y1 = fmax(bs.y1, s->p[i].rent - s->p[i].index);
    }
    if (!(lv.x1 > lv.x0)) {
        lv.x1 = lv.x0 + 1;
        bs.x1 = bs.x0 + 1;
    }
    widen(&lv.y0, &lv.y1);
    widen(&bs.y0, &bs.y1);
    frame(&b, &lv, "rent (blue) and index (orange), USD/GPU-hour");
    polyline(&b, &lv, s, 0, "#1f77b4");
    polyline(&b, &lv, s, 1, "#ff7f0e");
    frame(&b, &bs, "basis = rent - index");
    if (bs.y0 < 0 && bs.y1 > 0)
        gpi_sbuf_printf(&b,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n",
                        bs.px, by(&bs, 0), bs.px + bs.pw, by(&bs, 0));
    polyline(&b, &bs, s, 2, "#555");
    if (s->n > 0) {
        char l0[16], l1[16];
        hedge_period_label(s->freq, s->p[0].start, l0);
        hedge_period_label(s->freq, s->p[s->n - 1].start, l1);
        gpi_sbuf_printf(
            &b,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s</text>"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
            bs.px, bs.py + bs.ph + 14, l0, bs.px + bs.pw, bs.py + bs.ph + 14, l1);
    }
    /* the out-of-sample evidence (oos.c), in words */
    char t[400];
    for (int k = 0; k < 3; k++) {
        if (k == 0) hedge_oos_text(a, t, sizeof t);
        if (k == 1) hedge_boot_text(a, t, sizeof t);
        if (k == 2) hedge_stability_text(a, t, sizeof t);
        gpi_sbuf_printf(&b, "<text x=\"20\" y=\"%d\" font-size=\"11\">", 470 + 18 * k);
        gpi_sbuf_xml(&b, t);
        gpi_sbuf_printf(&b, "</text>\n");
    }
    gpi_sbuf_printf(&b, "</svg>\n");
    hedge_changes_free(&c);
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (svg)");
    }
    *out = b.p;
    *len = b.n;
    return GPI_OK;
}

/* ---- the replay (simulate --svg) ------------------------------------------ */

static const char *const sim_color[2] = {"#2ca02c", "#9467bd"};

/* A polyline of one field of the replayed months of s ("" dash for solid). */
static void sim_line(gpi_sbuf *b, const box *bo, const hedge_sim *s, int field, const char *color,
                     const char *dash)
{
    gpi_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s%s%s points=\"",
              color, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
    for (size_t i = 0; i < s->n; i++) {
        const hedge_sim_month *m = &s->m[i];
        double y = field == 0   ? m->rent
                   : field == 1 ? (double)m->fsp_e4 / 1e4
                   : field == 2 ? m->hedged
                                : m->budget;
        if (!m->skipped && isfinite(y))
            gpi_sbuf_printf(b, "%.1f,%.1f ", bx(bo, (double)m->month), by(bo, y));
    }
    gpi_sbuf_printf(b, "\"/>\n");
}

gpi_status hedge_svg_sim(const hedge_sim *s, const hedge_sim_opts *o, size_t n,
                         const char *title, char **out, size_t *len, gpi_diag *d)
{
    *out = NULL;
    *len = 0;
    if (!s || !o || n == 0 || n > 2)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_svg_sim: bad arguments");
    gpi_sbuf b = {NULL, 0, 0, 0};
    box lv = {70, 96, 820, 240, INFINITY, -INFINITY, INFINITY, -INFINITY};
    box er = {70, 380, 820, 150, INFINITY, -INFINITY, INFINITY, -INFINITY};
    size_t done = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            const hedge_sim_month *m = &s[k].m[i];
            if (m->skipped) continue;
            done++;
            double x = (double)m->month, v[4] = {m->rent, (double)m->fsp_e4 / 1e4, m->hedged,
                                                  m->budget};
            lv.x0 = er.x0 = fmin(lv.x0, x);
            lv.x1 = er.x1 = fmax(lv.x1, x);
            for (int q = 0; q < 4; q++)
                if (isfinite(v[q])) {
                    lv.y0 = fmin(lv.y0, v[q]);
                    lv.y1 = fmax(lv.y1, v[q]);
                }
            double e[2] = {m->err_unhedged, m->err_hedged};
            for (int q = 0; q < 2; q++)
                if (isfinite(e[q])) {
                    er.y0 = fmin(er.y0, e[q]);
                    er.y1 = fmax(er.y1, e[q]);
                }
        }
    /* a month's bars need room either side */
    if (!isfinite(lv.x0)) lv.x0 = er.x0 = 0, lv.x1 = er.x1 = 1;
    lv.x0 = er.x0 = lv.x0 - 16;
    lv.x1 = er.x1 = lv.x1 + 16;
    widen(&lv.y0, &lv.y1);
    er.y0 = fmin(er.y0, 0);
    er.y1 = fmax(er.y1, 0);
    widen(&er.y0, &er.y1);
    gpi_sbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"570\" "
                  "viewBox=\"0 0 920 570\" font-family=\"sans-serif\">\n"
                  "<rect width=\"920\" height=\"570\" fill=\"white\"/>\n"
                  "<text x=\"20\" y=\"22\" font-size=\"15\">");
    gpi_sbuf_xml(&b, title);
    gpi_sbuf_printf(&b, " (%s)</text>\n", o->side == HEDGE_PAYER ? "payer" : "earner");
    /* legend of the strategies, with the headline */
    for (size_t k = 0; k < n; k++) {
        char vr[32] = "n/a";
        if (isfinite(s[k].var_removed)) snprintf(vr, sizeof vr, "%.1f%%", 100 * s[k].var_removed);
        gpi_sbuf_printf(&b, "<text x=\"20\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s: %zu months "
                      "replayed; hedged price (solid), locked price (dashed); variance of the "
                      "budget error removed %s</text>\n",
                  42 + 15 * (double)k, sim_color[k], hedge_strategy_name(o[k].strategy),
                  s[k].n_done, vr);
    }
    frame(&b, &lv, "rent = unhedged price (blue), index FSP (orange), USD/GPU-hour");
    sim_line(&b, &lv, &s[0], 0, "#1f77b4", "");
    sim_line(&b, &lv, &s[0], 1, "#ff7f0e", "");
    for (size_t k = 0; k < n; k++) {
        sim_line(&b, &lv, &s[k], 2, sim_color[k], "");
        sim_line(&b, &lv, &s[k], 3, sim_color[k], "5,4");
    }
    frame(&b, &er, "budget error = price - locked price: unhedged (light), hedged (dark)");
    gpi_sbuf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">0</text>\n",
              er.px, by(&er, 0), er.px + er.pw, by(&er, 0), er.px - 3, by(&er, 0) + 3);
    /* bars: per month, per strategy, unhedged then hedged, 6 px each */
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            const hedge_sim_month *m = &s[k].m[i];
            if (m->skipped) continue;
            double e[2] = {m->err_unhedged, m->err_hedged};
            for (int q = 0; q < 2; q++) {
                if (!isfinite(e[q])) continue;
                double x =
                    bx(&er, (double)m->month) + (double)(12 * (int)k + 6 * q) - 6 * (double)n;
                double y0 = by(&er, 0), y1 = by(&er, e[q]);
                gpi_sbuf_printf(
                    &b,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"5\" height=\"%.1f\" fill=\"%s\" "
                    "fill-opacity=\"%s\"/>\n",
                    x, fmin(y0, y1), fabs(y1 - y0), sim_color[k], q ? "1" : "0.35");
            }
        }
    char l0[16] = "", l1[16] = "";
    if (isfinite(lv.x0) && done) {
        hedge_period_label(HEDGE_MONTH, (int32_t)(lv.x0 + 16), l0);
        hedge_period_label(HEDGE_MONTH, (int32_t)(lv.x1 - 16), l1);
    }
    gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s</text>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
              er.px, er.py + er.ph + 14, l0, er.px + er.pw, er.py + er.ph + 14, l1);
    gpi_sbuf_printf(&b, "</svg>\n");
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (svg)");
    }
    *out = b.p;
    *len = b.n;
    return GPI_OK;
}

/* ---- the ranking (compare --svg) ------------------------------------------ */

gpi_status hedge_svg_compare(const hedge_rank *rk, size_t n, hedge_freq f, const char *title,
                             char **out, size_t *len, gpi_diag *d)
{
    *out = NULL;
    *len = 0;
    if (!rk && n) return gpi_diag_set(d, GPI_EUSAGE, "hedge_svg_compare: bad arguments");
    gpi_sbuf b = {NULL, 0, 0, 0};
    const double row = 22, top = 96, left = 380, width = 300;
    double height = top + row * (double)(n ? n : 1) + 40;
    gpi_sbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"980\" height=\"%.0f\" "
                  "viewBox=\"0 0 980 %.0f\" font-family=\"sans-serif\">\n"
                  "<rect width=\"980\" height=\"%.0f\" fill=\"white\"/>\n"
                  "<text x=\"20\" y=\"22\" font-size=\"15\">",
              height, height, height);
    gpi_sbuf_xml(&b, title);
    gpi_sbuf_printf(&b, "</text>\n<text x=\"20\" y=\"42\" font-size=\"11\">hedge effectiveness HE: "
                  "the share of the %s rent-change variance a hedge at the fitted h removes, with "
                  "its 95%% interval</text>\n<text x=\"20\" y=\"57\" font-size=\"10\">"
                  "<tspan fill=\"#1f77b4\">blue: ranked</tspan>, <tspan fill=\"#2ca02c\">"
                  "green: suggested (built around the rent, not published)</tspan>, <tspan "
                  "fill=\"#888\">grey: not ranked</tspan>; dashed: the verdict's 50%% and hedge "
                  "accounting's 80%%</text>\n<text x=\"20\" y=\"72\" font-size=\"10\">hollow "
                  "diamond: out of sample (walk-forward; at 0 when it added variance); right: HE, "
                  "out of sample (oos), h's bootstrap 95%% interval, and whether h held at the "
                  "largest index move</text>\n",
              f == HEDGE_DAY ? "daily" : f == HEDGE_WEEK ? "weekly" : "monthly");
    box bo = {left, top - 8, width, row * (double)(n ? n : 1) + 8, 0, 1, 0, 1};
    gpi_sbuf_printf(&b,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
                    "stroke=\"#999\"/>\n",
                    bo.px, bo.py, bo.pw, bo.ph);
    for (int t = 0; t <= 10; t += 2) {
        double x = bx(&bo, t / 10.0);
        gpi_sbuf_printf(&b,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%d%%"
                        "</text>\n",
                        x, bo.py, x, bo.py + bo.ph, x, bo.py + bo.ph + 14, t * 10);
    }
    /* the verdict's threshold and hedge accounting's 80 % */
    const double marks[2] = {HEDGE_VERDICT_MIN_HE, 0.80};
    for (int q = 0; q < 2; q++)
        gpi_sbuf_printf(&b,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                        "stroke-dasharray=\"4,3\"/>\n",
                        bx(&bo, marks[q]), bo.py, bx(&bo, marks[q]), bo.py + bo.ph);
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        double y = top + row * (double)i + row / 2;
        gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">",
                  left - 8, y + 4);
        gpi_sbuf_xml(&b, k->grade);
        gpi_sbuf_printf(&b, "</text>\n");
        const hedge_analysis *a = &k->a;
        if (!k->ok || !isfinite(a->he)) {
            gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#888\">",
                      left + 6, y + 4);
            gpi_sbuf_xml(&b, k->ok ? "no hedge ratio" : k->reason);
            gpi_sbuf_printf(&b, "</text>\n");
            continue;
        }
        const char *c = !k->ranked ? "#999" : k->suggested ? "#2ca02c" : "#1f77b4";
        double he = fmin(fmax(a->he, 0), 1);
        if (isfinite(a->he_lo) && isfinite(a->he_hi))
            gpi_sbuf_printf(&b,
                            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                            "stroke-width=\"2\"/>\n",
                            bx(&bo, fmin(fmax(a->he_lo, 0), 1)), y,
                            bx(&bo, fmin(fmax(a->he_hi, 0), 1)), y, c);
        char oos[32] = "oos n/a", boot[64] = "", held[16] = "";
        if (isfinite(a->oos.he)) {
            double ox = fmin(fmax(a->oos.he, 0), 1);
            snprintf(oos, sizeof oos, "oos %.0f%%", 100 * a->oos.he);
            gpi_sbuf_printf(&b,
                            "<path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\" fill=\"none\" "
                            "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                            bx(&bo, ox), y - 5, c);
        }
        if (isfinite(a->boot.lo)) snprintf(boot, sizeof boot, " h [%.2f, %.2f]", a->boot.lo, a->boot.hi);
        if (a->chow.ok) snprintf(held, sizeof held, " %s", hedge_broke(a) ? "BROKE" : "held");
        gpi_sbuf_printf(
            &b,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#333\">%.0f%% %s%s%s%s</text>\n",
            bx(&bo, he), y, c, bx(&bo, 1) + 6, y + 4, 100 * he, oos, boot, held,
            k->ranked ? "" : " (not ranked)");
    }
    gpi_sbuf_printf(&b, "</svg>\n");
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (svg)");
    }
    *out = b.p;
    *len = b.n;
    return GPI_OK;
}
