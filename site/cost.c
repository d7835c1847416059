/* site/cost.c -- the page's section on the producers' cost curves.
 *
 * Kept apart from site.c so that the page's grade sections and this one
 * change independently.  For each curve the caller computed (cost/), one
 * section: a heading, what the curve shows, the inline SVG of
 * cost_curve_svg (without its XML declaration) and a table of the
 * deployments in curve order.  Figures are the published fixed-point
 * values; nothing here recomputes a cost.  site_write is site_write_extras
 * without extras.
 */
#include <stdlib.h>
#include <string.h>

#include "site/internal.h"

gpi_status site_write(store *st, const char *dir, site_stats *s, gpi_diag *d)
{
    return site_write_extras(st, dir, NULL, s, d);
}

static void pct(FILE *f, int64_t bp)
{
    char b[32];
    if (bp == COST_NA) {
        fputs("n/a", f);
        return;
    }
    fprintf(f, "%s%s%%", bp >= 0 ? "+" : "", gpi_fixed_format(bp, 2, b));
}

static void one_curve(FILE *f, const cost_curve *c)
{
    char date[11], b[32], l[2 * COST_NAME_MAX + 2];
    gpi_date_format(c->day, date);
    fputs("<section><h2>Cost per acceptable token: ", f);
    site_html_esc(f, c->sel.workload && *c->sel.workload ? c->sel.workload : "(no workload)");
    fprintf(f, ", %s</h2>\n<p class=\"meta\">Latency target ", date);
    site_html_esc(f, c->sel.latency);
    fputs(". USD per million acceptable output tokens = GPU-hour price / (tokens/s &#215; 3600 "
          "&#215; acceptance) &#215; 10<sup>6</sup>, with the GPU-hour price from the grade's "
          "index value of the day (as first published) or the operator's own rent; deployments "
          "sorted by that cost against cumulative capacity (acceptable output tokens/s). API "
          "list prices are never part of it.</p>\n",
          f);
    char *svg = NULL;
    size_t len = 0;
    gpi_diag d = {{0}};
    if (cost_curve_svg(c, "Producers' cost curve", NULL, &svg, &len, &d) == GPI_OK) {
        const char *p = svg;
        if (strncmp(p, "<?xml", 5) == 0 && (p = strchr(p, '\n'))) p++;
        fputs("<div style=\"overflow-x:auto\">\n", f);
        fputs(p ? p : svg, f);
        fputs("</div>\n", f);
        free(svg);
    } else {
        fputs("<p class=\"note\">(chart unavailable: out of memory)</p>\n", f);
    }
    fputs("<table><thead><tr><th>deployment</th><th>rank</th><th>GPU</th><th>grade</th>"
          "<th>USD/GPU-hour</th><th>USD per 1M acceptable tokens</th><th>vs cheapest</th>"
          "<th>vs median</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *e = &c->v[i];
        fputs("<tr><td>", f);
        site_html_esc(f, cost_label(e->pt.dep, l));
        fprintf(f, "</td><td>%zu</td><td>", e->rank);
        site_html_esc(f, e->pt.dep->gpu);
        fputs("</td><td>", f);
        site_html_esc(f, e->pt.dep->grade[0] ? e->pt.dep->grade : "-");
        if (e->pt.dep->rent_micro >= 0) fputs(" (own rent)", f);
        fprintf(f, "</td><td>%s</td>", gpi_fixed_format(e->pt.price_micro, 6, b));
        fprintf(f, "<td>%s</td><td>", gpi_fixed_format(e->pt.cost_micro, COST_DP, b));
        pct(f, e->to_cheapest_bp);
        fputs("</td><td>", f);
        pct(f, e->to_median_bp);
        fputs("</td></tr>\n", f);
    }
    for (size_t i = 0; i < c->n_off; i++) {
        fputs("<tr><td>", f);
        site_html_esc(f, cost_label(c->off[i].dep, l));
        fputs("</td><td>&#8212;</td><td>", f);
        site_html_esc(f, c->off[i].dep->gpu);
        fputs("</td><td>", f);
        site_html_esc(f, c->off[i].dep->grade);
        fprintf(f, "</td><td colspan=\"4\">no index value (%s)</td></tr>\n",
                cost_status_name(c->off[i].status));
    }
    fputs("</tbody></table>\n", f);
    if (c->n)
        fprintf(f, "<p class=\"note\">Cheapest %s, capacity-weighted median %s USD per million "
                   "acceptable tokens.</p>\n",
                gpi_fixed_format(c->cheapest_micro, COST_DP, b),
                gpi_fixed_format(c->median_micro, COST_DP, l));
    fputs("</section>\n", f);
}

void site_cost_sections(FILE *f, const site_extras *x)
{
    for (size_t k = 0; x && k < x->n_curves; k++) one_curve(f, &x->curves[k]);
}
