/* cost/svg.c -- a self-contained SVG of one cost curve.
 *
 * One bar per deployment on the curve, in curve order: its width is the
 * deployment's capacity (acceptable tokens/s, or GPUs), its height the
 * cost per million acceptable tokens, so the bars form the step-shaped
 * supply curve and the area of a bar is proportional to its spend rate.
 * Bars are coloured by GPU model (legend at the right), the highlighted
 * operator's bars are outlined in black, the capacity-weighted median is a
 * dashed line, and deployments without a value that day are listed below
 * the chart.  Plot coordinates are doubles (drawing only); every printed
 * figure is the published fixed-point value.  No scripts, no external
 * references; the buffer is the caller's to free.
 */
#include "cost/cost.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                      "#76b7b2", "#edc948", "#ff9da7", "#9c755f"};
#define NPAL (sizeof palette / sizeof palette[0])
#define MAX_GPUS 8

/* A "nice" tick step (1, 2 or 5 x 10^k) for about n ticks over range. */
static double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* Index of gpu in names[0..*n), added when new (up to MAX_GPUS; later
 * models share the last colour). */
static size_t gpu_slot(const char **names, size_t *n, const char *gpu)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(names[i], gpu) == 0) return i;
    if (*n < MAX_GPUS) names[(*n)++] = gpu;
    return *n - 1;
}

gpi_status cost_curve_svg(const cost_curve *c, const char *title, const char *highlight,
                          char **out, size_t *len, gpi_diag *d)
{
    *out = NULL;
    *len = 0;
    if (!c) return gpi_diag_set(d, GPI_EUSAGE, "cost_curve_svg: bad arguments");
    const double W = 920, H = 460, px = 80, py = 50, pw = 640, ph = 340;
    int tokens = c->sel.axis == COST_AXIS_TOKENS;
    double xmax = c->n ? (double)c->total_cap / (tokens ? 1000.0 : 1.0) : 1;
    double ymax = 0;
    for (size_t i = 0; i < c->n; i++) ymax = fmax(ymax, (double)c->v[i].pt.cost_micro / 1e6);
    if (!(ymax > 0)) ymax = 1;
    double ystep = nice_step(ymax * 1.1, 5), xstep = nice_step(xmax, 6);
    double ytop = ceil(ymax * 1.1 / ystep) * ystep;
    char cost_s[32], buf[32], date[11];
    gpi_date_format(c->day, date);

    gpi_sbuf b = {NULL, 0, 0, 0};
    gpi_sbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                  "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n"
                  "<text x=\"20\" y=\"24\" font-size=\"15\">",
              W, H, W, H, W, H);
    gpi_sbuf_xml(&b, title);
    gpi_sbuf_printf(&b, "</text>\n<text x=\"20\" y=\"40\" font-size=\"11\" fill=\"#555\">%s &#183; "
                  "workload ", date);
    gpi_sbuf_xml(&b, c->sel.workload && *c->sel.workload ? c->sel.workload : "(none)");
    gpi_sbuf_printf(&b, " &#183; latency target ");
    gpi_sbuf_xml(&b, c->sel.latency);
    if (c->sel.grade) {
        gpi_sbuf_printf(&b, " &#183; grade ");
        gpi_sbuf_xml(&b, c->sel.grade);
    }
    gpi_sbuf_printf(&b, " &#183; %zu deployments</text>\n", c->n);
    gpi_sbuf_printf(&b,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
                    "stroke=\"#999\"/>\n",
                    px, py, pw, ph);
    /* axes and ticks */
    for (double y = 0; y <= ytop + ystep / 2; y += ystep) {
        double yy = py + ph - y / ytop * ph;
        gpi_sbuf_printf(
            &b,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%g</text>\n",
            px, yy, px + pw, yy, px - 4, yy + 3, y);
    }
    for (double x = 0; x <= xmax * 1.0001; x += xstep)
        gpi_sbuf_printf(
            &b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%g</text>\n",
            px + x / xmax * pw, py + ph + 14, x);
    gpi_sbuf_printf(
        &b,
        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">cumulative "
        "capacity (%s)</text>\n",
        px + pw / 2, py + ph + 32, tokens ? "acceptable output tokens/s" : "GPUs");
    gpi_sbuf_printf(&b, "<text x=\"18\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
                  "transform=\"rotate(-90 18 %.1f)\">USD per million acceptable tokens</text>\n",
              py + ph / 2, py + ph / 2);

    const char *gpus[MAX_GPUS];
    size_t ngpu = 0;
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *e = &c->v[i];
        double x0 = px + (double)e->cum_from / (double)c->total_cap * pw;
        double x1 = px + (double)e->cum_to / (double)c->total_cap * pw;
        double h = (double)e->pt.cost_micro / 1e6 / ytop * ph;
        size_t g = gpu_slot(gpus, &ngpu, e->pt.dep->gpu);
        int hl = highlight && strcmp(e->pt.dep->op, highlight) == 0;
        char label[2 * COST_NAME_MAX + 2];
        cost_label(e->pt.dep, label);
        gpi_sbuf_printf(&b,
                        "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
                        "stroke=\"%s\" stroke-width=\"%s\"><title>",
                        x0, py + ph - h, x1 - x0, h, palette[g % NPAL], hl ? "#000" : "#fff",
                        hl ? "2.5" : "0.5");
        gpi_sbuf_printf(&b, "#%zu ", e->rank);
        gpi_sbuf_xml(&b, label);
        gpi_sbuf_printf(&b, " (");
        gpi_sbuf_xml(&b, e->pt.dep->gpu);
        gpi_sbuf_printf(&b, "): %s USD per 1M acceptable tokens</title></rect>\n",
                  gpi_fixed_format(e->pt.cost_micro, COST_DP, cost_s));
        if (x1 - x0 >= 14) {
            /* rotated, inside the bar from its foot when it fits (about 6.5
             * px a character), else above the bar */
            double lx = (x0 + x1) / 2 + 3, need = 6.5 * (double)strlen(label) + 12;
            int inside = h >= need;
            double ly = inside ? py + ph - 6 : py + ph - h - 4;
            gpi_sbuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\" %s"
                          "transform=\"rotate(-90 %.1f %.1f)\">",
                      lx, ly, inside ? "#fff" : "#222", hl ? "font-weight=\"bold\" " : "", lx, ly);
            gpi_sbuf_xml(&b, label);
            gpi_sbuf_printf(&b, "</text>\n");
        }
    }
    if (c->n) {
        double ym = py + ph - (double)c->median_micro / 1e6 / ytop * ph;
        gpi_sbuf_printf(
            &b,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
            "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#d62728\">median %s</text>\n",
            px, ym, px + pw, ym, px + pw + 6, ym + 3,
            gpi_fixed_format(c->median_micro, COST_DP, buf));
    } else {
        gpi_sbuf_printf(&b,
                        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">no deployment with a cost "
                        "on this day</text>\n",
                        px + 20, py + 30);
    }
    for (size_t g = 0; g < ngpu; g++) {
        double ly = py + 40 + 18 * (double)g;
        gpi_sbuf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
                  px + pw + 6, ly, palette[g % NPAL], px + pw + 22, ly + 10);
        gpi_sbuf_xml(&b, gpus[g]);
        gpi_sbuf_printf(&b, "</text>\n");
    }
    if (c->n_off) {
        gpi_sbuf_printf(
            &b,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">not on the curve "
            "(no index value that day):",
            px, py + ph + 52);
        char label[2 * COST_NAME_MAX + 2];
        for (size_t i = 0; i < c->n_off; i++) {
            gpi_sbuf_printf(&b, "%s ", i ? "," : "");
            gpi_sbuf_xml(&b, cost_label(c->off[i].dep, label));
            gpi_sbuf_printf(&b, " (");
            gpi_sbuf_xml(&b, c->off[i].dep->grade);
            gpi_sbuf_printf(&b, " %s)", cost_status_name(c->off[i].status));
        }
        gpi_sbuf_printf(&b, "</text>\n");
    }
    gpi_sbuf_printf(&b, "</svg>\n");
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory (svg)");
    }
    *out = b.p;
    *len = b.n;
    return GPI_OK;
}
