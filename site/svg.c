/* site/svg.c -- one inline SVG chart per grade.
 *
 * Layout (viewBox 960 x 300, scales with the page):
 *   - y axis: USD per GPU-hour, "nice" ticks (1, 2, 2.5, 5 x 10^k) over
 *     the range of the values and the p25-p75 band (p10/p90 and min/max
 *     are left out: a fat finger would flatten the chart);
 *   - x axis: the grade's own days from its first value (site.c; a grade
 *     with no value gets a line saying why, no chart), a label on the
 *     first of each month (every second or third month when the range is
 *     long);
 *   - suspended days: shaded columns, with why in a tooltip (the note of
 *     the run's first day); the value line breaks there; a carried day's
 *     dot says why too;
 *   - p25-p75 band: filled, one polygon per run of trades/offers days;
 *   - the value: a line, and a dot per day coloured by level (trades
 *     filled blue, offers filled orange, carried hollow grey), each dot
 *     with a <title> tooltip (date, level, value);
 *   - methodology v2 rows add the cross-section (the v1 rule) as a thin
 *     dashed line, a small triangle under the axis on each day a
 *     constituent entered or left (panel change), and a dashed vertical
 *     line on each rebalance with its splice in a tooltip.  The band is
 *     then the cross-section's constituents' (it follows xs_level).
 * Coordinates are display only, so doubles are fine here; the numbers in
 * tooltips are printed from the fixed-point values.
 */
#include <math.h>
#include <string.h>

#include "core/gpi.h"
#include "site/internal.h"
#include "store/index_values.h"

#define W 960.0
#define H 300.0
#define ML 64.0
#define MR 16.0
#define MT 30.0
#define MB 36.0


typedef struct frame {
    int32_t day0, day1;
    double ylo, yhi;
} frame;

/* A fixed-point price in USD, as a plot coordinate (display only: the
 * tooltips print the fixed-point value itself).  The conversion is exact
 * while |units| < 2^53, which holds for any price by many orders. */
static double e4_usd(int64_t e4)
{
    return (double)e4 / 1e4;
}

static double micro_usd(int64_t micro)
{
    return (double)micro / 1e6;
}

static double xof(const frame *fr, double day)
{
    double span = fr->day1 > fr->day0 ? fr->day1 - fr->day0 : 1;
    return ML + (day - fr->day0) / span * (W - ML - MR);
}

static double yof(const frame *fr, double usd)
{
    return MT + (fr->yhi - usd) / (fr->yhi - fr->ylo) * (H - MT - MB);
}

double site_nice_step(double range)
{
    double raw = range / 5.0;
    double p = pow(10, floor(log10(raw)));
    static const double m[] = {1, 2, 2.5, 5, 10};
    for (int i = 0; i < 5; i++)
        if (m[i] * p >= raw) return m[i] * p;
    return 10 * p;
}

static int is_v2(const store_index_row *r)
{
    return strcmp(r->methodology, "v2") == 0;
}

static int has_band(const store_index_row *r)
{
    int lv = is_v2(r) ? r->xs_level : r->level;
    return (lv == GPI_LEVEL_TRADES || lv == GPI_LEVEL_OFFERS) && r->p25_micro >= 0 &&
           r->p75_micro >= 0;
}

static int has_xs(const store_index_row *r)
{
    return is_v2(r) && r->xs_value_e4 >= 0;
}

static int has_value(const store_index_row *r)
{
    return r->level != GPI_LEVEL_SUSPENDED && r->value_e4 >= 0;
}

static void axes(FILE *f, const frame *fr, double step)
{
    fputs("<g class=\"axis\">\n", f);
    for (double v = step > 0 ? ceil(fr->ylo / step) * step : INFINITY; v <= fr->yhi + 1e-9;
         v += step) {
        double y = yof(fr, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", ML,
                y, W - MR, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">$%.2f</text>\n", ML - 6,
                y + 4, v);
    }
    int months = 0, y, m, d;
    gpi_civil_from_days(fr->day0, &y, &m, &d);
    int32_t span = fr->day1 - fr->day0;
    int every = span > 800 ? 6 : span > 400 ? 3 : span > 200 ? 2 : 1;
    if (d != 1 && ++m > 12) m = 1, y++;
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (;;) {
        int32_t day = gpi_days_from_civil(y, m, 1);
        if (day > fr->day1) break;
        if (months++ % every == 0) {
            double x = xof(fr, day);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"tick\"/>",
                    x, H - MB, x, H - MB + 5);
            const char *anchor = x > W - MR - 30 ? "end" : "middle";
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s %d</text>\n", x,
                    H - MB + 18, anchor, mon[m - 1], y);
        }
        if (++m > 12) m = 1, y++;
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"frame\"/>\n", ML,
            H - MB, W - MR, H - MB);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"frame\"/>\n", ML,
            MT, ML, H - MB);
    fputs("</g>\n", f);
}

static void suspended(FILE *f, const frame *fr, const store_index_row *r, size_t n)
{
    double dw = (W - ML - MR) / (fr->day1 > fr->day0 ? fr->day1 - fr->day0 + 1 : 1);
    for (size_t i = 0; i < n; i++) {
        if (r[i].level != GPI_LEVEL_SUSPENDED) continue;
        size_t j = i;
        while (j + 1 < n && r[j + 1].level == GPI_LEVEL_SUSPENDED && r[j + 1].day == r[j].day + 1)
            j++;
        double x0 = xof(fr, r[i].day) - dw / 2, x1 = xof(fr, r[j].day) + dw / 2;
        if (x0 < ML) x0 = ML;
        if (x1 > W - MR) x1 = W - MR;
        char a[11], b[11];
        gpi_date_format(r[i].day, a);
        gpi_date_format(r[j].day, b);
        fprintf(f, "<rect class=\"susp\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                   "<title>suspended %s..%s",
                x0, MT, x1 - x0, H - MT - MB, a, b);
        if (r[i].note[0]) { /* why, in the first day's words */
            fputs(": ", f);
            site_html_esc(f, r[i].note);
        }
        fputs("</title></rect>\n", f);
        i = j;
    }
}

/* "x,y " of a point, as fprintf's "%.1f,%.1f " (core's gpi_format_1f:
 * printf's digits was a fifth of a site run's CPU). */
static void put_xy(FILE *f, double x, double y)
{
    char a[32], b[32];
    fputs(gpi_format_1f(x, a), f);
    fputc(',', f);
    fputs(gpi_format_1f(y, b), f);
    fputc(' ', f);
}

static void band(FILE *f, const frame *fr, const store_index_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!has_band(&r[i])) continue;
        size_t j = i;
        while (j + 1 < n && has_band(&r[j + 1]) && r[j + 1].day == r[j].day + 1) j++;
        fputs("<polygon class=\"band\" points=\"", f);
        for (size_t k = i; k <= j; k++)
            put_xy(f, xof(fr, r[k].day), yof(fr, micro_usd(r[k].p75_micro)));
        for (size_t k = j + 1; k-- > i;)
            put_xy(f, xof(fr, r[k].day), yof(fr, micro_usd(r[k].p25_micro)));
        if (i == j) /* one day: a short vertical bar */
            fprintf(f, "%.1f,%.1f %.1f,%.1f", xof(fr, r[i].day) + 1.5,
                    yof(fr, micro_usd(r[i].p25_micro)), xof(fr, r[i].day) + 1.5,
                    yof(fr, micro_usd(r[i].p75_micro)));
        fputs("\"/>\n", f);
        i = j;
    }
}

static void line_and_dots(FILE *f, const frame *fr, const store_index_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!has_value(&r[i])) continue;
        size_t j = i;
        while (j + 1 < n && has_value(&r[j + 1]) && r[j + 1].day == r[j].day + 1) j++;
        fputs("<polyline class=\"value\" points=\"", f);
        for (size_t k = i; k <= j; k++)
            put_xy(f, xof(fr, r[k].day), yof(fr, e4_usd(r[k].value_e4)));
        fputs("\"/>\n", f);
        i = j;
    }
    double rad = n > 400 ? 1.6 : n > 150 ? 2.2 : 3.0;
    for (size_t i = 0; i < n; i++) {
        if (!has_value(&r[i])) continue;
        int lv = r[i].level >= 0 && r[i].level < 3 ? r[i].level : 2;
        char date[11], val[32];
        gpi_date_format(r[i].day, date);
        gpi_fixed_format(r[i].value_e4, 4, val);
        char cx[32], cy[32], cr[32];
        fprintf(f, "<circle class=\"l%d\" cx=\"%s\" cy=\"%s\" r=\"%s\"><title>%s %s %s",
                lv, gpi_format_1f(xof(fr, r[i].day), cx),
                gpi_format_1f(yof(fr, e4_usd(r[i].value_e4)), cy), gpi_format_1f(rad, cr), date,
                gpi_level_name(lv), val);
        if (lv == GPI_LEVEL_CARRIED && r[i].note[0]) {
            fputs(": ", f);
            site_html_esc(f, r[i].note);
        }
        fputs("</title></circle>\n", f);
    }
}

/* v2: the cross-section line, panel changes and rebalances */
static void chain_marks(FILE *f, const frame *fr, const store_index_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!has_xs(&r[i])) continue;
        size_t j = i;
        while (j + 1 < n && has_xs(&r[j + 1]) && r[j + 1].day == r[j].day + 1) j++;
        fputs("<polyline class=\"xs\" points=\"", f);
        for (size_t k = i; k <= j; k++)
            put_xy(f, xof(fr, r[k].day), yof(fr, e4_usd(r[k].xs_value_e4)));
        fputs("\"/>\n", f);
        i = j;
    }
    for (size_t i = 0; i < n; i++) {
        char date[11], b[32];
        gpi_date_format(r[i].day, date);
        double x = xof(fr, r[i].day);
        if (is_v2(&r[i]) && r[i].panel_change)
            fprintf(f, "<path class=\"pc\" d=\"M%.1f %.1f l-3.5 6 h7 z\"><title>%s: a "
                       "constituent entered or left</title></path>\n",
                    x, H - MB + 1, date);
        if (is_v2(&r[i]) && r[i].event && r[i].splice_e12 >= 0)
            fprintf(f, "<line class=\"reb\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
                       "<title>%s: %s, splice %s</title></line>\n",
                    x, MT, x, H - MB, date, idx_event_name(r[i].event),
                    gpi_fixed_format(r[i].splice_e12, 12, b));
    }
}

static void legend(FILE *f, int v2)
{
    double x = ML, y = 14;
    fprintf(f, "<g class=\"legend\" transform=\"translate(%.1f,%.1f)\">", x, y);
    fputs("<rect class=\"band\" x=\"0\" y=\"-8\" width=\"18\" height=\"10\"/>"
          "<text x=\"24\" y=\"1\">p25&#8211;p75</text>"
          "<circle class=\"l0\" cx=\"100\" cy=\"-3\" r=\"4\"/><text x=\"108\" y=\"1\">trades</text>"
          "<circle class=\"l1\" cx=\"170\" cy=\"-3\" r=\"4\"/><text x=\"178\" y=\"1\">offers</text>"
          "<circle class=\"l2\" cx=\"240\" cy=\"-3\" r=\"4\"/><text x=\"248\" y=\"1\">carried</text>"
          "<rect class=\"susp\" x=\"312\" y=\"-8\" width=\"12\" height=\"10\"/>"
          "<text x=\"330\" y=\"1\">suspended</text>",
          f);
    if (v2)
        fputs("<line class=\"xs\" x1=\"410\" y1=\"-3\" x2=\"430\" y2=\"-3\"/>"
              "<text x=\"436\" y=\"1\">cross-section</text>"
              "<path class=\"pc\" d=\"M530 -7 l-3.5 6 h7 z\"/><text x=\"538\" y=\"1\">panel "
              "change</text>"
              "<line class=\"reb\" x1=\"634\" y1=\"-9\" x2=\"634\" y2=\"3\"/>"
              "<text x=\"640\" y=\"1\">rebalance</text>",
              f);
    fputs("</g>\n", f);
}

void site_svg_chart(FILE *f, const store_index_row *r, size_t n, int32_t day0, int32_t day1)
{
    frame fr = {day0, day1, INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        if (has_value(&r[i])) {
            double v = e4_usd(r[i].value_e4);
            fr.ylo = fmin(fr.ylo, v);
            fr.yhi = fmax(fr.yhi, v);
        }
        if (has_band(&r[i])) {
            fr.ylo = fmin(fr.ylo, micro_usd(r[i].p25_micro));
            fr.yhi = fmax(fr.yhi, micro_usd(r[i].p75_micro));
        }
        if (has_xs(&r[i])) {
            fr.ylo = fmin(fr.ylo, e4_usd(r[i].xs_value_e4));
            fr.yhi = fmax(fr.yhi, e4_usd(r[i].xs_value_e4));
        }
    }
    int v2 = 0;
    for (size_t i = 0; i < n; i++) v2 |= is_v2(&r[i]);
    int empty = !(fr.ylo <= fr.yhi);
    if (empty) fr.ylo = 0, fr.yhi = 1;
    double pad = (fr.yhi - fr.ylo) * 0.08;
    if (pad < 0.01) pad = 0.05;
    fr.ylo = fmax(0, fr.ylo - pad);
    fr.yhi += pad;
    double step = site_nice_step(fr.yhi - fr.ylo);
    fr.ylo = floor(fr.ylo / step) * step;
    fr.yhi = ceil(fr.yhi / step) * step;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
               "role=\"img\" class=\"chart\">\n",
            W, H);
    suspended(f, &fr, r, n);
    if (empty) { /* no value on any day: no price axis to draw */
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"empty\">"
                   "no value on any day of the range</text>\n",
                (ML + W - MR) / 2, (MT + H - MB) / 2);
    }
    axes(f, &fr, empty ? 0 : step);
    band(f, &fr, r, n);
    if (v2) chain_marks(f, &fr, r, n);
    line_and_dots(f, &fr, r, n);
    legend(f, v2);
    fputs("</svg>\n", f);
}
