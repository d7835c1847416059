/* site/iosco.c -- the administrator's file (data/administration.json)
 * and the IOSCO compliance table of statement.html.
 *
 * NOTES ON THE DESIGN
 * (1) The 19 IOSCO Principles for Financial Benchmarks (2013) ask things
 *     of the administrator that software cannot state for it -- who it
 *     is, who oversees it, its conflicts policy, its complaints channel,
 *     its audits -- and things the published files prove.  The table
 *     keeps them apart: per principle, what the administrator states
 *     (from its file; "not stated by the administrator" when the file or
 *     the entry is missing, never a default) and what gpuidx shows (from
 *     the store and the method: receipts, input commitments, signatures,
 *     restatements, the lab).  No verdict is invented: a reader sees both.
 * (2) The file is validated like every input: unknown keys, wrong types
 *     and out-of-range numbers are refused with
 *     "administration.json: complaints.response_days: must be a whole
 *     number from 1 to 365 (got "0")", so a misspelt entry never silently
 *     reads as "not stated".  "example": true marks the shipped example;
 *     the page then says, above the table, that the statements are an
 *     example and not an administrator's.
 */
#include "site/internal.h"
#include "store/admin.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct site_admin {
    json_t *root;
    int example;
};

static const char *str_at(const site_admin *a, const char *obj, const char *key)
{
    if (!a) return NULL;
    json_t *o = obj ? json_object_get(a->root, obj) : a->root;
    json_t *v = json_object_get(o, key);
    return json_is_string(v) && json_string_length(v) ? json_string_value(v) : NULL;
}

/* ---- validation (note 2) ------------------------------------------------------- */

static gpi_status bad(const char *path, const char *field, const char *why, json_t *got,
                      gpi_diag *d)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!got) return gpi_diag_set(d, GPI_EINPUT, "%s: %s: %s", base, field, why);
    if (json_is_string(got)) /* the text itself, not its JSON with quotes */
        return gpi_diag_set(d, GPI_EINPUT, "%s: %s: %s (got \"%.60s\")", base, field, why,
                            json_string_value(got));
    char *t = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT);
    gpi_status rc = gpi_diag_set(d, GPI_EINPUT, "%s: %s: %s (got \"%.60s\")", base, field, why,
                                 t ? t : "?");
    free(t);
    return rc;
}

/* Every key of o is one of keys (NULL-terminated). */
static gpi_status keys_ok(const char *path, const char *where, json_t *o,
                          const char *const *keys, gpi_diag *d)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        int ok = 0;
        for (size_t i = 0; keys[i] && !ok; i++) ok = strcmp(keys[i], k) == 0;
        if (!ok) {
            char f[160];
            snprintf(f, sizeof f, "%s%s%.64s", where, *where ? "." : "", k);
            return bad(path, f, "unknown key", NULL, d);
        }
        if (!json_is_object(v) && !json_is_array(v) && !json_is_string(v) &&
            !json_is_integer(v) && !json_is_boolean(v)) {
            char f[160];
            snprintf(f, sizeof f, "%s%s%.64s", where, *where ? "." : "", k);
            return bad(path, f, "not a text, number, object or list", v, d);
        }
    }
    return GPI_OK;
}

static gpi_status text_ok(const char *path, json_t *o, const char *where, const char *key,
                          gpi_diag *d)
{
    json_t *v = json_object_get(o, key);
    if (!v) return GPI_OK;
    char f[160];
    snprintf(f, sizeof f, "%s%s%s", where, *where ? "." : "", key);
    if (!json_is_string(v) || json_string_length(v) == 0) return bad(path, f, "not a text", v, d);
    return GPI_OK;
}

static gpi_status object_ok(const char *path, json_t *root, const char *name,
                            const char *const *keys, gpi_diag *d)
{
    json_t *o = json_object_get(root, name);
    if (!o) return GPI_OK;
    if (!json_is_object(o)) return bad(path, name, "not an object", o, d);
    gpi_status rc = keys_ok(path, name, o, keys, d);
    for (size_t i = 0; keys[i] && rc == GPI_OK; i++) {
        json_t *v = json_object_get(o, keys[i]);
        if (v && !json_is_integer(v)) rc = text_ok(path, o, name, keys[i], d);
    }
    return rc;
}

static gpi_status int_ok(const char *path, json_t *root, const char *obj, const char *key,
                         long lo, long hi, gpi_diag *d)
{
    json_t *v = json_object_get(json_object_get(root, obj), key);
    if (!v) return GPI_OK;
    char f[96], why[96];
    snprintf(f, sizeof f, "%s.%s", obj, key);
    snprintf(why, sizeof why, "must be a whole number from %ld to %ld", lo, hi);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(path, f, why, v, d);
    return GPI_OK;
}

gpi_status site_admin_load(const char *path, site_admin **out, gpi_diag *d)
{
    *out = NULL;
    json_error_t e;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        if (strstr(e.text, "unable to open"))
            return gpi_diag_set(d, GPI_EINPUT, "%s: cannot open", path);
        return gpi_diag_set(d, GPI_EINPUT, "%s:%d:%d: %s", path, e.line, e.column, e.text);
    }
    static const char *const top[] = {"example", "note", "administrator", "oversight",
                                      "conflicts_of_interest", "control_framework", "submitters",
                                      "complaints", "review", "methodology_changes", "cessation",
                                      "fallbacks", "audits", "cooperation", NULL};
    static const char *const admin_k[] = {"name", "contact", NULL};
    static const char *const over_k[] = {"function", "third_parties", NULL};
    static const char *const comp_k[] = {"channel", "response_days", NULL};
    static const char *const rev_k[] = {"cadence_months", "last_review", NULL};
    static const char *const ces_k[] = {"policy", "transition", NULL};
    static const char *const fb_k[] = {"grade", "rule", "to", NULL};
    gpi_status rc = json_is_object(root) ? keys_ok(path, "", root, top, d)
                                         : bad(path, "(top)", "not an object", NULL, d);
    json_t *ex = json_object_get(root, "example");
    if (rc == GPI_OK && ex && !json_is_boolean(ex)) rc = bad(path, "example", "not true or false", ex, d);
    static const char *const texts[] = {"note", "conflicts_of_interest", "control_framework",
                                        "submitters", "methodology_changes", "audits",
                                        "cooperation"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0] && rc == GPI_OK; i++)
        rc = text_ok(path, root, "", texts[i], d);
    if (rc == GPI_OK) rc = object_ok(path, root, "administrator", admin_k, d);
    if (rc == GPI_OK) rc = object_ok(path, root, "oversight", over_k, d);
    if (rc == GPI_OK) rc = object_ok(path, root, "complaints", comp_k, d);
    if (rc == GPI_OK) rc = object_ok(path, root, "review", rev_k, d);
    if (rc == GPI_OK) rc = object_ok(path, root, "cessation", ces_k, d);
    if (rc == GPI_OK) rc = int_ok(path, root, "complaints", "response_days", 1, 365, d);
    if (rc == GPI_OK) rc = int_ok(path, root, "review", "cadence_months", 1, 60, d);
    json_t *lr = json_object_get(json_object_get(root, "review"), "last_review");
    int32_t day;
    if (rc == GPI_OK && lr && (!json_is_string(lr) || gpi_date_parse(json_string_value(lr), &day)))
        rc = bad(path, "review.last_review", "not a date YYYY-MM-DD", lr, d);
    json_t *fb = json_object_get(root, "fallbacks");
    if (rc == GPI_OK && fb && !json_is_array(fb)) rc = bad(path, "fallbacks", "not a list", fb, d);
    size_t i;
    json_t *x;
    json_array_foreach(fb, i, x) {
        if (rc != GPI_OK) break;
        char w[48];
        snprintf(w, sizeof w, "fallbacks[%zu]", i);
        if (!json_is_object(x)) {
            rc = bad(path, w, "not an object", x, d);
            break;
        }
        rc = keys_ok(path, w, x, fb_k, d);
        const char *g = json_string_value(json_object_get(x, "grade"));
        const char *r = json_string_value(json_object_get(x, "rule"));
        const char *to = json_string_value(json_object_get(x, "to"));
        char f[64];
        if (rc == GPI_OK && (!g || !gpi_grade_id_ok(g))) {
            snprintf(f, sizeof f, "%s.grade", w);
            rc = bad(path, f, "not a grade id", json_object_get(x, "grade"), d);
        }
        if (rc == GPI_OK && (!r || (strcmp(r, "grade") && strcmp(r, "last_value") &&
                                    strcmp(r, "suspend")))) {
            snprintf(f, sizeof f, "%s.rule", w);
            rc = bad(path, f, "not grade, last_value or suspend", json_object_get(x, "rule"), d);
        }
        if (rc == GPI_OK && (strcmp(r, "grade") == 0) != (to != NULL && gpi_grade_id_ok(to))) {
            snprintf(f, sizeof f, "%s.to", w);
            rc = bad(path, f, "a grade id with rule grade, and only then",
                     json_object_get(x, "to"), d);
        }
        if (rc == GPI_OK && to && strcasecmp(to, g) == 0) { /* as contracts: settlement/fallback.c */
            snprintf(f, sizeof f, "%s.to", w);
            rc = bad(path, f, "the grade's own id (a fallback is another grade)",
                     json_object_get(x, "to"), d);
        }
    }
    if (rc != GPI_OK) {
        json_decref(root);
        return rc;
    }
    site_admin *a = calloc(1, sizeof *a);
    if (!a) {
        json_decref(root);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    a->root = root;
    a->example = json_is_true(ex);
    *out = a;
    return GPI_OK;
}

void site_admin_free(site_admin *a)
{
    if (!a) return;
    json_decref(a->root);
    free(a);
}

/* ---- the table (note 1) -------------------------------------------------------- */

static void stated(FILE *f, const char *text)
{
    fputs("<td>", f);
    if (text)
        site_html_esc(f, text);
    else
        fputs("<i>not stated by the administrator</i>", f);
    fputs("</td>", f);
}

static void stated2(FILE *f, const char *label1, const char *a, const char *label2,
                    const char *b)
{
    fputs("<td>", f);
    if (!a && !b) fputs("<i>not stated by the administrator</i>", f);
    if (a) {
        fprintf(f, "%s", label1);
        site_html_esc(f, a);
    }
    if (a && b) fputs("<br>", f);
    if (b) {
        fprintf(f, "%s", label2);
        site_html_esc(f, b);
    }
    fputs("</td>", f);
}

void site_iosco_section(FILE *f, const site_admin *a, const store_admin_facts *fx,
                        const site_iosco_grades *g)
{
    fputs("<h2 id=\"iosco\">7. IOSCO Principles: what the administrator states and what "
          "gpuidx shows</h2>\n",
          f);
    if (!a)
        fputs("<p class=\"note\">No administrator's file (<code>data/administration.json</code>, "
              "or <code>site --admin FILE</code>) was given: every statement below is "
              "missing.</p>\n",
              f);
    else if (a->example)
        fputs("<p class=\"note\"><b>Example.</b> The administrator's statements below come from "
              "the example file shipped with gpuidx (<code>\"example\": true</code>), not from a "
              "benchmark administrator.</p>\n",
              f);
    fputs("<p>The IOSCO <i>Principles for Financial Benchmarks</i> (2013), one row each. The "
          "middle column is the administrator's own statement, from its file; the right "
          "column is what the published files and this software show, which anyone holding "
          "them can check. Neither column is a finding of compliance.</p>\n"
          "<table class=\"def\"><thead><tr><th>principle</th><th>the administrator states</th>"
          "<th>gpuidx shows</th></tr></thead><tbody>\n",
          f);
    char buf[400];
    /* 1 */
    fputs("<tr><td>1. Overall responsibility of the administrator</td>", f);
    stated2(f, "", str_at(a, "administrator", "name"), "contact: ",
            str_at(a, "administrator", "contact"));
    fputs("<td>&#8212;</td></tr>\n", f);
    /* 2 */
    fputs("<tr><td>2. Oversight of third parties</td>", f);
    stated(f, str_at(a, "oversight", "third_parties"));
    fprintf(f, "<td>%ld ingested file%s from %ld source%s, each published observation naming "
               "its source; since file format 4 every file a fix could see is listed by "
               "SHA-256 in <code>index.json</code> (<code>inputs</code>)</td></tr>\n",
            fx->batches, fx->batches == 1 ? "" : "s", fx->sources, fx->sources == 1 ? "" : "s");
    /* 3 */
    fputs("<tr><td>3. Conflicts of interest for administrators</td>", f);
    stated(f, str_at(a, NULL, "conflicts_of_interest"));
    fputs("<td>&#8212;</td></tr>\n", f);
    /* 4 */
    fputs("<tr><td>4. Control framework for administrators</td>", f);
    stated(f, str_at(a, NULL, "control_framework"));
    if (fx->vintages_signed)
        snprintf(buf, sizeof buf, "%ld of %ld published vintages signed (Ed25519; latest key "
                 "<code>%.16s&#8230;</code>): <code>gpuidx verify --key PUB</code> names a "
                 "changed file, a wrong key or a missing signature",
                 fx->vintages_signed, fx->vintages, fx->last_fingerprint);
    else
        snprintf(buf, sizeof buf, "no published vintage is signed (%ld unsigned): "
                 "<code>index publish --sign KEY</code> signs them", fx->vintages);
    fprintf(f, "<td>%s; publication is atomic, numbered vintages are kept unchanged</td></tr>\n",
            buf);
    /* 5 */
    fputs("<tr><td>5. Internal oversight</td>", f);
    stated(f, str_at(a, "oversight", "function"));
    fputs("<td>&#8212;</td></tr>\n", f);
    /* 6 */
    fputs("<tr><td>6. Benchmark design</td><td>&#8212;</td>", f);
    fprintf(f, "<td>%zu grade%s, each a versioned, hashed definition (section 3); per fix the "
               "largest one-provider move and the cost to move it (manipulation figures); "
               "concentration and correlation in the grade lab "
               "(<code>gpuidx grades evaluate</code>)</td></tr>\n",
            g->n_grades, g->n_grades == 1 ? "" : "s");
    /* 7 */
    fputs("<tr><td>7. Data sufficiency</td><td>&#8212;</td>", f);
    fprintf(f, "<td>minimum providers and trade volume per grade (section 3); days at each level "
               "in the back-test (section 5): %ld trades-level and %ld offers-level days of "
               "%ld; each fix's providers, confidence interval and flag, and the share of its "
               "providers whose price has not changed for 30 days (file format 4)</td></tr>\n",
            g->trades_days, g->offers_days, g->days);
    /* 8 */
    fputs("<tr><td>8. Hierarchy of data inputs</td><td>&#8212;</td><td>trades, then offers "
          "brought to trade level, then carry, then suspension; every row states its "
          "<code>level</code> (section 2)</td></tr>\n",
          f);
    /* 9 */
    fputs("<tr><td>9. Transparency of benchmark determinations</td><td>&#8212;</td><td>every "
          "observation that entered or was excluded from each fix, with the reason "
          "(<code>observations.csv</code>), and a note on every carried or suspended day; "
          "<code>gpuidx verify DIR</code> recomputes each published fix from its files</td>"
          "</tr>\n",
          f);
    /* 10 */
    fputs("<tr><td>10. Periodic review</td>", f);
    json_t *rv = a ? json_object_get(a->root, "review") : NULL;
    json_t *cad = json_object_get(rv, "cadence_months");
    const char *last = str_at(a, "review", "last_review");
    if (!cad && !last) {
        stated(f, NULL);
    } else {
        fputs("<td>", f);
        if (cad) fprintf(f, "every %lld months", (long long)json_integer_value(cad));
        if (last) {
            fputs(cad ? "; last review " : "last review ", f);
            site_html_esc(f, last);
        }
        fputs("</td>", f);
    }
    fputs("<td><code>gpuidx review --from D --to D</code> writes the review report per grade "
          "(data sufficiency, concentration, manipulation figures, stale inputs, suspended "
          "days, restatements, a recommendation)", f);
    if (g->review_link && g->review_link[0]) {
        fputs("; the latest: <a href=\"", f);
        site_html_esc(f, g->review_link);
        fputs("\">", f);
        site_html_esc(f, g->review_link);
        fputs("</a>", f);
    }
    fputs("</td></tr>\n", f);
    /* 11 */
    fputs("<tr><td>11. Content of the methodology</td><td>&#8212;</td><td>the complete method "
          "(<code>METHODOLOGY.md</code>) and, per grade, every parameter from its stored "
          "definition (section 3)</td></tr>\n",
          f);
    /* 12 */
    fputs("<tr><td>12. Changes to the methodology</td>", f);
    stated(f, str_at(a, NULL, "methodology_changes"));
    fputs("<td>a changed definition needs a new grade version; every value carries the SHA-256 "
          "of the definition that produced it; earlier methods stay reproducible "
          "(<code>methodology</code> column)</td></tr>\n",
          f);
    /* 13 */
    fputs("<tr><td>13. Transition</td>", f);
    {
        const char *pol = str_at(a, "cessation", "policy"), *tr = str_at(a, "cessation", "transition");
        json_t *fb = a ? json_object_get(a->root, "fallbacks") : NULL;
        if (!pol && !tr && !json_array_size(fb)) {
            stated(f, NULL);
        } else {
            fputs("<td>", f);
            if (pol) site_html_esc(f, pol);
            if (tr) {
                fputs(pol ? "<br>" : "", f);
                site_html_esc(f, tr);
            }
            size_t i;
            json_t *x;
            json_array_foreach(fb, i, x) {
                fputs(i == 0 && (pol || tr) ? "<br>Fallbacks: " : i == 0 ? "Fallbacks: " : "; ", f);
                site_html_esc(f, json_string_value(json_object_get(x, "grade")));
                const char *r = json_string_value(json_object_get(x, "rule"));
                if (strcmp(r, "grade") == 0) {
                    fputs(" &#8594; ", f);
                    site_html_esc(f, json_string_value(json_object_get(x, "to")));
                } else {
                    fputs(strcmp(r, "last_value") == 0 ? " &#8594; its last value"
                                                       : " &#8594; contracts suspended", f);
                }
            }
            fputs("</td>", f);
        }
    }
    fputs("<td>contract files name a fallback (another grade, the last value, or suspension) "
          "after N days without a value; <code>gpuidx settle</code> applies it and flags the "
          "rows, <code>gpuidx verify --settlement</code> recomputes it</td></tr>\n",
          f);
    /* 14 */
    fputs("<tr><td>14. Submitter code of conduct</td>", f);
    stated(f, str_at(a, NULL, "submitters"));
    fputs("<td>&#8212;</td></tr>\n", f);
    /* 15 */
    fputs("<tr><td>15. Internal controls over data collection</td><td>&#8212;</td>", f);
    fprintf(f, "<td>%ld input row%s refused at ingest with the reason; per-provider error "
               "screen; unknown providers refused; %ld of %ld vintages commit to their inputs: "
               "<code>gpuidx verify --inputs RAW</code> re-ingests them and names a dropped or "
               "added observation; stale and repeating sources flagged in the grade lab</td>"
               "</tr>\n",
            fx->rejects, fx->rejects == 1 ? "" : "s", fx->vintages_committed, fx->vintages);
    /* 16 */
    fputs("<tr><td>16. Complaints procedures</td>", f);
    {
        const char *ch = str_at(a, "complaints", "channel");
        json_t *rd = json_object_get(a ? json_object_get(a->root, "complaints") : NULL,
                                     "response_days");
        if (!ch && !rd) {
            stated(f, NULL);
        } else {
            fputs("<td>", f);
            if (ch) site_html_esc(f, ch);
            else fputs("<i>channel not stated by the administrator</i>", f);
            if (rd) fprintf(f, "; answered within %lld days", (long long)json_integer_value(rd));
            else fputs("; <i>response time not stated by the administrator</i>", f);
            fputs("</td>", f);
        }
    }
    fputs("<td>a challenged value is answered by recomputation from the published files "
          "(<code>gpuidx verify</code>)</td></tr>\n",
          f);
    /* 17 */
    fputs("<tr><td>17. Audits</td>", f);
    stated(f, str_at(a, NULL, "audits"));
    fputs("<td>anyone holding the published files can recompute every fix, and with the raw "
          "files its inputs; <code>tests/ref/</code> is a second, independent implementation "
          "of the method</td></tr>\n",
          f);
    /* 18 */
    fprintf(f, "<tr><td>18. Audit trail</td><td>&#8212;</td><td>%ld published vintage%s kept "
               "unchanged under <code>DIR/D/v&lt;n&gt;/</code>; %ld restatement%s in "
               "<code>restatements.csv</code> and %ld revision%s kept; receipts (SHA-256 of "
               "every observation line and of the grade definition) in each "
               "<code>index.json</code></td></tr>\n",
            fx->vintages, fx->vintages == 1 ? "" : "s", fx->restatements,
            fx->restatements == 1 ? "" : "s", fx->revisions, fx->revisions == 1 ? "" : "s");
    /* 19 */
    fputs("<tr><td>19. Cooperation with regulatory authorities</td>", f);
    stated(f, str_at(a, NULL, "cooperation"));
    fputs("<td>&#8212;</td></tr>\n</tbody></table>\n", f);
}

/* ---- the latest review's flags ------------------------------------------------------ */

void site_review_flags(FILE *f, const char *json_path, const char *md_name)
{
    json_error_t e;
    json_t *root = json_path ? json_load_file(json_path, 0, &e) : NULL;
    fputs("<h2 id=\"stale\">8. Stale and repeating inputs</h2>\n", f);
    if (!root) {
        fputs("<p class=\"note\">No review report beside this page (<code>gpuidx review --out "
              "DIR</code>): the feeds repeating their rows and the stale share are not shown. "
              "Each published fix states its own stale share (<code>stale_share</code>).</p>\n",
              f);
        return;
    }
    fputs("<p>From the latest review report (<a href=\"", f);
    site_html_esc(f, md_name);
    fputs("\">", f);
    site_html_esc(f, md_name);
    fputs("</a>): a feed whose rows repeated the day before's, byte for byte but for the time, "
          "for the days below is flagged -- a catalogue carried forward is not a fresh quote; the "
          "stale share is the share of a day's providers whose every price had stood 30 days or "
          "more.</p>\n<table class=\"def\"><thead><tr><th>grade</th><th>stale share (mean)</th>"
          "<th>groups that never changed a price</th><th>flagged feeds (longest run)</th></tr>"
          "</thead><tbody>\n",
          f);
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(root, "grades"), i, g) {
        json_t *s = json_object_get(g, "stale");
        json_t *mean = json_object_get(s, "stale_share_mean");
        const char *id = json_string_value(json_object_get(g, "grade"));
        fputs("<tr><td>", f);
        site_html_esc(f, id ? id : "?");
        if (json_is_number(mean))
            fprintf(f, "</td><td>%.1f %%</td>", 100 * json_number_value(mean));
        else
            fputs("</td><td>&#8212;</td>", f);
        fprintf(f, "<td>%lld of %lld</td><td>",
                (long long)json_integer_value(json_object_get(s, "groups_never_changed")),
                (long long)json_integer_value(json_object_get(s, "groups")));
        size_t k;
        json_t *x;
        json_t *feeds = json_object_get(s, "flagged_feeds");
        if (!json_array_size(feeds)) fputs("none", f);
        json_array_foreach(feeds, k, x) {
            fputs(k ? "; " : "", f);
            site_html_esc(f, json_string_value(json_object_get(x, "source")));
            fputs(" / ", f);
            site_html_esc(f, json_string_value(json_object_get(x, "group")));
            fprintf(f, " (%lld days)", (long long)json_integer_value(json_object_get(x, "longest_run_days")));
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    json_decref(root);
}
