/* site/statement.c -- statement.html: the benchmark statement and its
 * back-test, generated from what the database holds.
 *
 * IOSCO's Principles for Financial Benchmarks ask an administrator to
 * publish, for each benchmark, what it measures, the data it uses and in
 * which order of preference, the thresholds of data sufficiency, what
 * happens when data are insufficient, and its restatement policy
 * (Principles 7-9, 17).  This page states them per grade in words, every
 * number taken from the grade's canonical definition as stored with its
 * values (store_grade_definition of the rows' grade_hash: the definition
 * that produced the numbers, not the grade file of the day), and adds a
 * back-test from the stored rows and restatements: the share of days at
 * each level, the v2 chain's events, and how often published fixes were
 * restated.  With site_extras.accuracy_csv it also shows the accuracy of
 * each grade against a known true price (bench/accuracy, site/accuracy.c).
 *
 * Everything is read before anything is written: site_statement_html
 * returns the whole page in memory, and site.c writes it with the other
 * files.  A grade whose rows carry no stored definition (rows put by
 * tests, or built before definitions were recorded) gets its back-test
 * and a sentence saying so.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "site/internal.h"
#include "store/admin.h"
#include "store/index_values.h"
#include "store/vintages.h"

/* ---- numbers in words ---------------------------------------------------- */

/* v / 10^scale with trailing zeros (and a bare point) removed. */
static const char *trim(int64_t v, int scale, char out[32])
{
    gpi_fixed_format(v, scale, out);
    if (strchr(out, '.')) {
        size_t n = strlen(out);
        while (n && out[n - 1] == '0') out[--n] = '\0';
        if (n && out[n - 1] == '.') out[--n] = '\0';
    }
    return out;
}

/* A fraction in millionths as a percentage ("0.1", "30"). */
static const char *pct(int64_t e6, char out[32])
{
    return trim(e6, 4, out);
}

static const char *plural(long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* ---- per grade: definition and back-test --------------------------------- */

typedef struct gstat {
    const store_index_row *r;   /* the grade's rows, ascending by day */
    size_t n;
    idx_grades *def;            /* the latest row's stored definition, or NULL */
    long level[GPI_LEVEL__N], xs_level[GPI_LEVEL__N];
    int v2;
    long events[4];             /* by IDX_EVENT_* */
    long panel_change;
    long longest_carry;
    double splice_max;          /* max |splice - 1| */
    long published, restatements, restated_days;
    int32_t last_restated;
    int n_versions;             /* distinct definitions over the rows */
} gstat;

static gpi_status load_definition(store *st, const char *hash, idx_grades **out, gpi_diag *d)
{
    *out = NULL;
    return hash[0] ? idx_grade_stored(st, hash, out, d) : GPI_OK;
}

static void count_rows(gstat *g)
{
    long run = 0;
    for (size_t i = 0; i < g->n; i++) {
        const store_index_row *r = &g->r[i];
        if (r->level >= 0 && r->level < GPI_LEVEL__N) g->level[r->level]++;
        run = r->level == GPI_LEVEL_CARRIED ? run + 1 : 0;
        if (run > g->longest_carry) g->longest_carry = run;
        if (strcmp(r->methodology, "v2") == 0) {
            g->v2 = 1;
            if (r->xs_level >= 0 && r->xs_level < GPI_LEVEL__N) g->xs_level[r->xs_level]++;
            if (r->event > 0 && r->event < 4) g->events[r->event]++;
            g->panel_change += r->panel_change == 1;
            if (r->splice_e12 >= 0) {
                double s = (double)r->splice_e12 / 1e12 - 1;
                if (s < 0) s = -s;
                if (s > g->splice_max) g->splice_max = s;
            }
        }
        if (i == 0 || strcmp(r->grade_hash, g->r[i - 1].grade_hash) != 0) g->n_versions++;
    }
}

typedef struct rs_ctx {
    gstat *g;
    size_t n;
} rs_ctx;

static int on_restatement(int32_t day, const char *grade, int vintage, int64_t old_e4,
                          int64_t new_e4, const char *reason, void *ud)
{
    (void)vintage, (void)old_e4, (void)new_e4, (void)reason;
    rs_ctx *c = ud;
    for (size_t k = 0; k < c->n; k++) {
        gstat *g = &c->g[k];
        if (strcasecmp(g->r[0].grade, grade) != 0) continue;
        g->restatements++;
        if (g->restated_days == 0 || g->last_restated != day) g->restated_days++;
        g->last_restated = day;
        break;
    }
    return 0;
}

/* ---- the page ------------------------------------------------------------ */

static const char css[] =
    "body{font:14px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;"
    "max-width:1040px;padding:16px 24px;color:#1b1b1b;background:#fff}"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:18px;margin:30px 0 6px}"
    "h3{font-size:16px;margin:24px 0 4px}p.meta,p.note{color:#555}"
    "table{border-collapse:collapse;margin:10px 0;font-variant-numeric:tabular-nums}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:right;"
    "vertical-align:top}th:first-child,td:first-child{text-align:left}"
    "table.def td{text-align:left}code{font-size:13px}ol{margin:4px 0 8px}"
    /* tables keep one line a row: wide ones scroll sideways (.wide) */
    "th,td{white-space:nowrap}table.def td:last-child{white-space:normal}"
    ".wide{overflow-x:auto}";

static void esc(FILE *f, const char *s)
{
    site_html_esc(f, s);
}

static void list_words(FILE *f, const char (*v)[IDX_NAME_MAX + 1], int n, const char *conj)
{
    for (int i = 0; i < n; i++) {
        if (i) fputs(i == n - 1 ? conj : ", ", f);
        esc(f, v[i]);
    }
}

static void scope_words(FILE *f, unsigned mask, const char *conj)
{
    int n = 0, k = 0;
    for (int s = 0; s < GPI_SCOPE__N; s++) n += !!(mask & (1u << s));
    for (int s = 0; s < GPI_SCOPE__N; s++)
        if (mask & (1u << s)) {
            if (k) fputs(k == n - 1 ? conj : ", ", f);
            fputs(gpi_scope_name(s), f);
            k++;
        }
}

static void term_words(FILE *f, const idx_grade *g)
{
    if (g->term == GPI_TERM_SPOT) {
        fputs("spot (interruptible)", f);
    } else if (g->term == GPI_TERM_RESERVED) {
        if (g->term_min == g->term_max)
            fprintf(f, "reserved (a %d-month commitment)", g->term_min);
        else
            fprintf(f, "reserved (commitments of %d to %d months)", g->term_min, g->term_max);
    } else {
        fputs("on-demand", f);
    }
}

/* trades: the grade's days fixed on trades in the period (its value or,
 * v2, its cross-section): with none, it was offered, not transacted. */
static void measures(FILE *f, const idx_grade *g, long trades)
{
    char b[32];
    fputs("<p><b>What it measures.</b> The price, in USD per GPU-hour, at which ", f);
    term_words(f, g);
    fputs(" rental of ", f);
    list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->gpu, g->n_gpu, " or ");
    fputs(" GPUs", f);
    if (g->scope_mask != (1u << GPI_SCOPE__N) - 1) {
        fputs(" as ", f);
        scope_words(f, g->scope_mask, " or ");
        fputs(" capacity", f);
    }
    if (g->min_tier == GPI_TIER_UNRATED)
        fputs(", from any provider whatever its ClusterMAX tier", f);
    else
        fprintf(f, ", from providers rated %s or better in ClusterMAX", gpi_tier_name(g->min_tier));
    if (g->n_provider) {
        fputs(" (only ", f);
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->provider, g->n_provider, " and ");
        fputs(")", f);
    }
    if (g->n_segment) {
        fputs(" in the ", f);
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->segment, g->n_segment, " or ");
        fputs(" segment", f);
    }
    if (g->n_region) {
        fputs(", in the regions ", f);
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->region, g->n_region, " and ");
    } else {
        fputs(", in any region", f);
    }
    if (trades)
        fprintf(f, ", was transacted &#8212; or, on days without enough trades, offered &#8212; "
                   "on each UTC calendar day; published to a multiple of %s USD.</p>\n",
                trim(g->p.rounding_e4, 4, b));
    else
        fprintf(f, ", was offered (advertised) on each UTC calendar day; published to a "
                   "multiple of %s USD. No day of this period was fixed on trades: every "
                   "value is a list price, not a price at which compute was transacted.</p>\n",
                trim(g->p.rounding_e4, 4, b));
}

static void definition_table(FILE *f, const idx_grade *g)
{
    fprintf(f, "<table class=\"def\"><tbody>\n<tr><td>definition</td><td>version %d, method "
               "v%d, SHA-256 <code>%.16s&#8230;</code></td></tr>\n<tr><td>GPU models</td><td>",
            g->version, g->method, g->hash);
    list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->gpu, g->n_gpu, ", ");
    fputs("</td></tr>\n<tr><td>term</td><td>", f);
    term_words(f, g);
    fputs("</td></tr>\n<tr><td>scope</td><td>", f);
    scope_words(f, g->scope_mask, ", ");
    fprintf(f, "</td></tr>\n<tr><td>tier floor</td><td>%s</td></tr>\n<tr><td>regions</td><td>",
            gpi_tier_name(g->min_tier));
    if (g->n_region) list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->region, g->n_region, ", ");
    else fputs("all", f);
    fputs("</td></tr>\n<tr><td>providers</td><td>", f);
    if (g->n_provider)
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->provider, g->n_provider, ", ");
    else fputs("all", f);
    fputs("</td></tr>\n<tr><td>segments</td><td>", f);
    if (g->n_segment)
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->segment, g->n_segment, ", ");
    else fputs("all", f);
    /* what the price covers (a whole instance; GPU-only prices, the host
     * billed apart; CPU-heavy instances; slices of a GPU) */
    fputs("</td></tr>\n<tr><td>covers</td><td>", f);
    if (g->covers_mask == (1u << GPI_COVERS__N) - 1) {
        fputs("all prices", f);
    } else {
        int k = 0;
        for (int c = 0; c < GPI_COVERS__N; c++)
            if (g->covers_mask & (1u << c)) fprintf(f, "%s%s", k++ ? ", " : "", gpi_covers_name(c));
        fputs(" prices only", f);
    }
    if (g->n_sku) {
        fputs("</td></tr>\n<tr><td>instance types</td><td>", f);
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->sku, g->n_sku, ", ");
    }
    if (g->n_exclude) {
        fputs("</td></tr>\n<tr><td>providers left out</td><td>", f);
        list_words(f, (const char (*)[IDX_NAME_MAX + 1])g->exclude, g->n_exclude, ", ");
    }
    fputs("</td></tr>\n</tbody></table>\n", f);
}

static void rebalance_words(FILE *f, int months)
{
    static const char *const mon[] = {"January", "February", "March",     "April",
                                      "May",     "June",     "July",      "August",
                                      "September", "October", "November", "December"};
    if (months == 1) {
        fputs("on the first day of every month", f);
        return;
    }
    fprintf(f, "on the first day of every %d months (", months);
    for (int m = 0; m < 12; m += months) fprintf(f, "%s%s", m ? ", " : "", mon[m]);
    fputs(")", f);
}

static void rules(FILE *f, const idx_grade *g)
{
    const idx_params *p = &g->p;
    char vol[32], ef[32], cap[32], rs[32];
    trim(p->min_trade_volume_micro, 6, vol);
    trim(p->error_factor_e6, 6, ef);
    pct(p->cap_floor_e6, cap);
    pct(p->restate_threshold_e6, rs);
    int mp = p->min_providers;
    fprintf(f,
            "<p><b>Data sufficiency.</b> The trades level needs at least %s GPU-hours of "
            "screened trades from at least %d provider %s; the offers level needs screened "
            "offers from at least %d provider %s. A provider is its owner group: one owner "
            "counts once in every minimum, cap and vote. Error screen: a trade or offer is "
            "excluded when it is above %s&#215; or below 1/%s of the median of its own "
            "provider's prices in the grade that day (providers with at least three prices). "
            "Provider cap: on the trades level no provider weighs more than max(%s %%, 1/n) "
            "of the volume of the n providers.</p>\n",
            vol, mp, plural(mp, "group", "groups"), mp, plural(mp, "group", "groups"), ef, ef,
            cap);
    fputs("<p><b>Fallback waterfall.</b></p>\n<ol>\n", f);
    if (g->method == 2) {
        fprintf(f,
                "<li><b>trades</b>: the change of the matched trading providers' prices "
                "(at least %d %s with at least %s GPU-hours that day), as the "
                "capped volume-weighted median of their relatives to base;</li>\n"
                "<li><b>offers</b>: otherwise the change of the matched offers (at least %d "
                "%s), as the median of the provider medians of their relatives;</li>\n"
                "<li><b>carried</b>: otherwise the previous value, at most %d %s in a row;"
                "</li>\n"
                "<li><b>re-anchored</b>: when the carry is exhausted, the chain restarts at "
                "the cross-section if that day has one (trades or offers level);</li>\n"
                "<li><b>suspended</b>: otherwise no value is published.</li>\n</ol>\n",
                mp, plural(mp, "provider", "providers"), vol, mp,
                plural(mp, "provider", "providers"), p->max_carry_days,
                plural(p->max_carry_days, "day", "days"));
        fprintf(f,
                "<p><b>Chain and rebalance (method v2).</b> Between rebalances the value moves "
                "only with the prices of constituents present on both days (offers by "
                "identity, trading providers by group); a provider that skips a day stays in "
                "the sample at its last trade price for %d %s. New constituents join only "
                "at anchors. The chain is re-anchored to the cross-section (the v1 value, "
                "published as <code>xs_value</code>) ",
                p->trade_carry_days, plural(p->trade_carry_days, "day", "days"));
        rebalance_words(f, p->rebalance_months);
        if (p->anchor_days == 1)
            fputs(", at that day's cross-section", f);
        else
            fprintf(f, ", at the median of the cross-sections of the last %d days brought to "
                       "the day by its constituents' changes",
                    p->anchor_days);
        fprintf(f,
                "; the splice that does it is published. A rebalance date without a "
                "cross-section leaves the rebalance pending until the first later day of the "
                "period with one. The cross-section follows the v1 waterfall: the capped "
                "volume-weighted median of the screened trades, else the median of the "
                "provider medians of the screened offers times the offer-to-trade "
                "adjustment (the median ratio of the trades to the offers value over the "
                "previous %d days that had both, when there are at least %d such days, else "
                "1), else carried, else suspended.</p>\n",
                p->adj_lookback_days, p->adj_min_days);
    } else {
        fprintf(f,
                "<li><b>trades</b>: the volume-weighted median of the screened trades after "
                "the provider cap;</li>\n"
                "<li><b>offers</b>: otherwise the median of the provider medians of the "
                "screened offers, times the offer-to-trade adjustment: the median ratio of "
                "the trades to the offers value over the previous %d days that had both, "
                "when there are at least %d such days (else 1);</li>\n"
                "<li><b>carried</b>: otherwise the previous value, at most %d %s in a row;"
                "</li>\n"
                "<li><b>suspended</b>: otherwise no value is published.</li>\n</ol>\n",
                p->adj_lookback_days, p->adj_min_days, p->max_carry_days,
                plural(p->max_carry_days, "day", "days"));
        if (g->method == 3)
            fprintf(f,
                    "<p><b>Panel (method v3).</b> The statistics above are computed over the "
                    "grade's panel of provider groups, never re-anchored. A group joins the "
                    "panel after eligible observations on each of %d days in a row; a member "
                    "without an observation enters the value with the observations of its "
                    "last day present, exactly as they entered then, for up to %d %s (flagged "
                    "imputed), then leaves and must be admitted again. Other groups are "
                    "listed as candidates and never enter the value, so a new seller cannot "
                    "move it before it has printed for %d days, and a member's absence of up "
                    "to %d %s moves it by nothing. Beside the value a price index (base 100, "
                    "a Jevons chain of the members' matched price relatives) is published; "
                    "it never settles.</p>\n",
                    p->admission_days, p->absence_days,
                    plural(p->absence_days, "day", "days"), p->admission_days,
                    p->absence_days, plural(p->absence_days, "day", "days"));
    }
    fprintf(f,
            "<p><b>When input data is insufficient.</b> A day without enough data for either "
            "level is carried at the previous value and flagged <code>carried</code>, with a "
            "note saying what was missing (<i>trades: V GPU-hours from N providers (need %s "
            "from %d); offers: N providers after the screen (need %d)</i>). "
            "After %d carried %s in a row, or with no earlier value, the day is "
            "<code>suspended</code>: no value is published and futures skip the day (a "
            "month needs its contract's minimum of published values for a final settlement "
            "price).%s</p>\n",
            gpi_fixed_format(p->min_trade_volume_micro / 10000, 2, ef), mp, mp,
            p->max_carry_days, plural(p->max_carry_days, "day", "days"),
            g->method == 2 ? " Under v2 a day whose panel cannot be matched is carried the "
                             "same way (<i>no matched change: ...</i>), and the chain is "
                             "re-anchored to the cross-section when the carry runs out."
                           : "");
    fprintf(f,
            "<p><b>Restatement.</b> A value changed by late data after its publication is "
            "restated &#8212; a new vintage of the day and a row in "
            "<code>restatements.csv</code> &#8212; when it moved by more than %s %% of the "
            "published value, or gained or lost its value; a smaller move is recorded as a "
            "revision and the published value stands. Values are rounded once, half-up, to a "
            "multiple of %s. Futures settle on each day's value as first published.</p>\n",
            rs, trim(p->rounding_e4, 4, cap));
}

static void grade_section(FILE *f, const gstat *g)
{
    const char *id = g->r[0].grade;
    fputs("<section><h3 id=\"s-", f);
    esc(f, id);
    fputs("\">", f);
    esc(f, id);
    fputs("</h3>\n", f);
    if (!g->def || g->def->n != 1) {
        fputs("<p class=\"note\">This grade's definition is not stored with its values "
              "(they were recorded without it), so its rules cannot be stated here; see "
              "the back-test below.</p>\n</section>\n",
              f);
        return;
    }
    const idx_grade *d = &g->def->g[0];
    measures(f, d, (g->v2 ? g->xs_level : g->level)[GPI_LEVEL_TRADES]);
    definition_table(f, d);
    rules(f, d);
    if (g->n_versions > 1)
        fprintf(f, "<p class=\"note\">The stored values were produced by %d successive "
                   "definitions of this grade; this section states the latest.</p>\n",
                g->n_versions);
    fputs("</section>\n", f);
}

static void share_cell(FILE *f, long k, size_t n)
{
    fprintf(f, "<td>%ld (%.1f %%)</td>", k, n ? 100.0 * (double)k / (double)n : 0.0);
}

static void backtest(FILE *f, const gstat *gs, size_t ng)
{
    fputs("<h2 id=\"backtest\">5. Back-test</h2>\n<p>From the stored values: the days at "
          "each level of the waterfall, the longest run of carried days, and how often a "
          "published fix was restated (days with at least one restatement, of the days "
          "published). For v2 grades the second table shows the cross-section's levels and "
          "the chain's events.</p>\n"
          "<div class=\"wide\"><table><thead><tr><th>grade</th><th>days</th><th>trades</th>"
          "<th>offers</th><th>carried</th><th>suspended</th><th>longest carry</th>"
          "<th>days published</th>"
          "<th>restatements</th><th>days restated</th></tr></thead><tbody>\n",
          f);
    for (size_t k = 0; k < ng; k++) {
        const gstat *g = &gs[k];
        fputs("<tr><td>", f);
        esc(f, g->r[0].grade);
        fprintf(f, "</td><td>%zu</td>", g->n);
        for (int l = 0; l < GPI_LEVEL__N; l++) share_cell(f, g->level[l], g->n);
        fprintf(f, "<td>%ld</td><td>%ld</td><td>%ld</td>", g->longest_carry, g->published,
                g->restatements);
        share_cell(f, g->restated_days, (size_t)g->published);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    int any_v2 = 0;
    for (size_t k = 0; k < ng; k++) any_v2 |= gs[k].v2;
    if (!any_v2) return;
    fputs("<div class=\"wide\"><table><thead><tr><th>v2 grade</th><th>cross-section: trades</th><th>offers</th>"
          "<th>carried</th><th>suspended</th><th>starts</th><th>rebalances</th>"
          "<th>re-anchors</th><th>panel changes</th><th>largest splice</th></tr></thead>"
          "<tbody>\n",
          f);
    for (size_t k = 0; k < ng; k++) {
        const gstat *g = &gs[k];
        if (!g->v2) continue;
        fputs("<tr><td>", f);
        esc(f, g->r[0].grade);
        fputs("</td>", f);
        for (int l = 0; l < GPI_LEVEL__N; l++) share_cell(f, g->xs_level[l], g->n);
        fprintf(f, "<td>%ld</td><td>%ld</td><td>%ld</td><td>%ld</td><td>%.2f %%</td></tr>\n",
                g->events[IDX_EVENT_START], g->events[IDX_EVENT_REBALANCE],
                g->events[IDX_EVENT_REANCHOR], g->panel_change, 100 * g->splice_max);
    }
    fputs("</tbody></table></div>\n", f);
}

static void general(FILE *f, int32_t d0, int32_t d1, long trades)
{
    char a[11], b[11];
    gpi_date_format(d0, a);
    gpi_date_format(d1, b);
    fprintf(f,
            "<p class=\"meta\">Generated by gpuidx " GPUIDX_VERSION " from the grade "
            "definitions and parameters stored with the index values, %s to %s. "
            "<a href=\"index.html\">Index values</a> &#183; the complete method is "
            "<code>METHODOLOGY.md</code>; every number on this page is taken from the "
            "stored definition of the grade it describes.</p>\n"
            "<h2>1. The benchmarks</h2>\n"
            "<p>For each grade and each UTC calendar day &#8212; weekends and holidays included, "
            "the GPU rental market does not close &#8212; gpuidx determines one value: the "
            "representative price, in USD per GPU-hour, at which the service the grade "
            "describes was %s. Each row states the "
            "level of the waterfall that produced it (<code>level</code>) and, when carried "
            "or suspended, why (<code>note</code>).</p>\n"
            "<h2>2. Input data and its hierarchy</h2>\n"
            "<p>Completed arm's-length trades are the best evidence of the price paid; "
            "advertised offers are used only when trades are insufficient; then the previous "
            "value is carried for a few days; then the day is suspended (IOSCO Principle 8). "
            "Cancelled trades and affiliate trades (the buyer in the seller's group) never "
            "count; of an offer re-listed during the day only its latest snapshot counts. "
            "Every exclusion is published with its reason in <code>observations.csv</code>."
            "</p>\n"
            "<h2>3. Grades</h2>\n",
            a, b,
            trades ? "transacted or, failing transactions, offered"
                   : "offered (advertised): no day of this period was fixed on trades, so "
                     "every value is a list price, not a price at which compute was "
                     "transacted");
}

static void publication(FILE *f)
{
    fputs("<h2>4. Publication, restatement and settlement</h2>\n"
          "<p>A day is published after it ends (recommended 06:00 UTC the next day) as "
          "<code>index.csv</code>, <code>index.json</code> and <code>observations.csv</code>, "
          "enough to recompute every fix without the database. Each publication is a "
          "numbered vintage kept unchanged; publishing unchanged data again gives the same "
          "files. Late data that moves a published value beyond the grade's restatement "
          "threshold restates the day (a new vintage and a row in "
          "<code>restatements.csv</code>); smaller moves are revisions and the published "
          "value stands. Futures settle on each day's value as first published, so a "
          "restatement never moves a price that has already settled. A change of a grade's "
          "definition needs a new grade version, and every value carries the SHA-256 of "
          "the definition that produced it.</p>\n",
          f);
}

static void limitations(FILE *f)
{
    fputs("<h2>6. Limitations</h2>\n<ul>\n"
          "<li>Offers are not transactions: an offers-level value is a list price brought "
          "to trade level by a historical ratio (1 when too few days qualify).</li>\n"
          "<li>The cap and the one-vote-per-provider rule are only as good as the mapping "
          "of providers to owner groups.</li>\n"
          "<li>A thin grade (few providers) is concentrated: the back-test and each row's "
          "<code>n_providers</code> and <code>top_provider_share</code> show it.</li>\n"
          "<li>Day boundaries are UTC.</li>\n</ul>\n",
          f);
}

gpi_status site_statement_html(store *st, const store_index_row *rows, size_t n,
                                const site_extras *x, const site_curves *curves, char **html,
                                size_t *len, gpi_diag *d)
{
    *html = NULL;
    *len = 0;
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) ng += i == 0 || strcmp(rows[i].grade, rows[i - 1].grade) != 0;
    gstat *gs = calloc(ng ? ng : 1, sizeof *gs);
    if (!gs) return gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    gpi_status rc = GPI_OK;
    int32_t d0 = n ? rows[0].day : 0, d1 = d0;
    for (size_t i = 0, k = 0; i < n; k++) {
        size_t j = i;
        while (j < n && strcmp(rows[j].grade, rows[i].grade) == 0) {
            if (rows[j].day < d0) d0 = rows[j].day;
            if (rows[j].day > d1) d1 = rows[j].day;
            j++;
        }
        gs[k].r = &rows[i];
        gs[k].n = j - i;
        count_rows(&gs[k]);
        if (rc == GPI_OK) rc = load_definition(st, rows[j - 1].grade_hash, &gs[k].def, d);
        i = j;
    }
    /* days published: a day is published when it has a vintage */
    unsigned char *pub = NULL;
    if (rc == GPI_OK && n) {
        pub = calloc((size_t)(d1 - d0 + 1), 1);
        if (!pub) rc = gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
        for (int32_t day = d0; rc == GPI_OK && day <= d1; day++) {
            int v = 0;
            rc = store_vintage_last(st, day, &v, d);
            pub[day - d0] = v > 0;
        }
    }
    for (size_t k = 0; rc == GPI_OK && k < ng; k++)
        for (size_t i = 0; i < gs[k].n; i++) gs[k].published += pub[gs[k].r[i].day - d0];
    rs_ctx rctx = {gs, ng};
    if (rc == GPI_OK) rc = store_restatements(st, on_restatement, &rctx, d);
    site_accuracy *acc = NULL;
    if (rc == GPI_OK && x && x->accuracy_csv) rc = site_accuracy_load(x->accuracy_csv, &acc, d);
    site_admin *adm = NULL; /* the administrator's file (iosco.c) */
    store_admin_facts facts;
    if (rc == GPI_OK && x && x->admin_json) rc = site_admin_load(x->admin_json, &adm, d);
    if (rc == GPI_OK) rc = store_admin_facts_read(st, &facts, d);

    FILE *f = NULL;
    if (rc == GPI_OK && !(f = open_memstream(html, len)))
        rc = gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    if (rc == GPI_OK) {
        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                   "<title>gpuidx &#8212; benchmark statement</title>\n"
                   "<style>%s</style></head><body>\n"
                   "<h1>gpuidx &#8212; benchmark statement</h1>\n",
                css);
        if (n == 0) {
            fputs("<p class=\"note\">No index values have been built yet.</p>\n", f);
        } else {
            long trades = 0, offers = 0, all_days = 0;
            for (size_t k = 0; k < ng; k++) {
                /* v2: the cross-section's level (the chain's follows it) */
                const long *lv = gs[k].v2 ? gs[k].xs_level : gs[k].level;
                trades += lv[GPI_LEVEL_TRADES];
                offers += lv[GPI_LEVEL_OFFERS];
                all_days += (long)gs[k].n;
            }
            general(f, d0, d1, trades);
            fputs("<p>", f);
            for (size_t k = 0; k < ng; k++) {
                fputs(k ? " &#183; <a href=\"#s-" : "<a href=\"#s-", f);
                esc(f, gs[k].r[0].grade);
                fputs("\">", f);
                esc(f, gs[k].r[0].grade);
                fputs("</a>", f);
            }
            fputs("</p>\n", f);
            for (size_t k = 0; k < ng; k++) grade_section(f, &gs[k]);
            publication(f);
            backtest(f, gs, ng);
            if (acc) site_accuracy_section(f, acc);
            rc = site_curve_statement(f, curves, x ? x->curve_backtest_csv : NULL, d);
            limitations(f);
            site_iosco_grades ig = {ng, all_days, trades, offers, x ? x->review_link : NULL};
            site_iosco_section(f, adm, &facts, &ig);
            site_review_flags(f, x ? x->review_json : NULL, x ? x->review_link : NULL);
        }
        fputs("</body></html>\n", f);
        if (fclose(f) != 0) rc = gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
        if (rc != GPI_OK) {
            free(*html);
            *html = NULL;
            *len = 0;
        }
    }
    site_accuracy_free(acc);
    site_admin_free(adm);
    free(pub);
    for (size_t k = 0; k < ng; k++) idx_grades_free(gs[k].def);
    free(gs);
    return rc;
}
