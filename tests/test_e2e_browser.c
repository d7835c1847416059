/* tests/test_e2e_browser.c -- the static site in a real browser.
 *
 * Builds a short demo as `make demo` does (60 days of `gpuidx simulate`,
 * every provider in data/providers.csv, the published grades of
 * data/grades.json and the demo's candidate H100-SXM.OD.GOLD+ (built, never
 * shown), the deployments' cost curves),
 * writes the site, and renders it in headless Chromium (Debian's
 * `chromium`, installed by tools/deps.sh):
 *   - index.html and statement.html load with no console message at all
 *     (the pages have no script, so any message is an error: a malformed
 *     SVG attribute, a blocked resource, ...);
 *   - every grade's chart is drawn: a copy of index.html with a small
 *     probe script appended (the site itself has none) reports, per
 *     svg.chart, its grade, its rendered width and each value polyline's
 *     rendered length; the test requires the published grades (and no
 *     candidate) in the published grades file's order, headline first,
 *     one chart per grade with a value in its CSV, with a visible line,
 *     and for a grade with none (A100-SXM-40.OD: the demo lists no such
 *     GPU) no chart but one visible line saying why;
 *   - statement.html shows what each grade's prices cover, and its tables
 *     keep each row on one line (a probe copy measures every cell: none
 *     is taller than one line of its text);
 *   - a full-page screenshot (1280 x 2400) is saved in the test's scratch
 *     directory (site.png, beside the site in www/; the browser profiles
 *     and the market are removed afterwards) and checked to be a PNG of
 *     that size.
 * Every local link of the two pages (CSV files, the statement) exists.
 * Skipped with a message when chromium is not installed.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

static char *dir;
static const char *skip_reason;

static const char chromium_flags[] =
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--hide-scrollbars --enable-logging=stderr --v=0";

static int setup(void **state)
{
    (void)state;
    tu_run r = tu_sh(NULL, "command -v chromium");
    int have = r.status == 0;
    tu_run_free(&r);
    if (!have) {
        skip_reason = "chromium is not installed (tools/deps.sh installs Debian's chromium; "
                      "run `make deps` as root)";
        return 0;
    }
    dir = tu_mkdtemp("browser");
    /* the demo's candidate (tools/demo.sh step 3b): built, never
     * published or shown */
    free(tu_write(dir, "cand.json",
                  "{\"grades\": [{\"id\": \"H100-SXM.OD.GOLD+\", \"method\": \"v2\","
                  " \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
                  " \"covers\": [\"instance\"], \"min_tier\": \"gold\"}]}\n"));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 60 --seed 20250101 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db d.db ingest offers m/offers.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db d.db ingest trades m/trades.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db d.db index build --from 2025-01-01 --to 2025-03-01 2>/dev/null",
        "\"$GPUIDX_BIN\" --db d.db index build --grades cand.json --from 2025-01-01 "
        "--to 2025-03-01 2>/dev/null",
        "\"$GPUIDX_BIN\" --db d.db index publish --date 2025-03-01 --out pub 2>/dev/null",
        "\"$GPUIDX_BIN\" --db d.db site --out www --deployments m/deployments.csv >/dev/null "
        "2>&1",
    };
    tu_run last = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&last);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (dir) { /* keep the site and the screenshot; drop the profiles and the market */
        tu_run r = tu_sh(dir, "rm -rf profile-* m d.db");
        tu_run_free(&r);
    }
    free(dir);
    return 0;
}

static void need_browser(void)
{
    if (skip_reason) {
        print_message("skipped: %s\n", skip_reason);
        skip();
    }
}

/* Runs chromium on dir/www/<page> with `mode` (--dump-dom or --screenshot=...)
 * and a fresh profile; fails on a non-zero exit.  The caller frees. */
static tu_run browse(const char *page, const char *mode)
{
    static int k;
    tu_run r = tu_sh(dir, "timeout 120 chromium %s --user-data-dir=\"$PWD/profile-%d\" %s "
                          "\"file://$PWD/www/%s\"",
                     chromium_flags, ++k, mode, page);
    if (r.status != 0) fail_msg("chromium exited %d on %s:\n%s", r.status, page, r.err);
    return r;
}

/* Chromium logs each console message as "...:INFO:CONSOLE:<line>] "text", source: ..." */
static void no_console_messages(const char *page, const tu_run *r)
{
    const char *p = strstr(r->err, ":CONSOLE");
    if (p) {
        const char *e = strchr(p, '\n');
        fail_msg("%s: console message: %.*s", page, e ? (int)(e - p) : 200, p);
    }
    if (strstr(r->err, "Uncaught")) fail_msg("%s: uncaught error:\n%s", page, r->err);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* Every href="X" of the page that is a local file exists in www/. */
static void local_links_exist(const char *html)
{
    for (const char *p = html; (p = strstr(p, "href=\"")); ) {
        p += 6;
        const char *e = strchr(p, '"');
        assert_non_null(e);
        if (*p != '#' && strncmp(p, "http", 4) != 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/www/%.*s", dir, (int)(e - p), p);
            if (access(path, R_OK) != 0) fail_msg("broken link: %.*s", (int)(e - p), p);
        }
        p = e;
    }
}

static char *read_www(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/www/%s", dir, name);
    char *s = tu_read(path);
    if (!s) fail_msg("%s missing", path);
    return s;
}

static void test_pages_load_without_console_errors(void **state)
{
    (void)state;
    need_browser();
    static const char *const pages[] = {"index.html", "statement.html"};
    for (size_t i = 0; i < 2; i++) {
        tu_run r = browse(pages[i], "--dump-dom");
        no_console_messages(pages[i], &r);
        /* the browser parsed the whole page */
        assert_non_null(strstr(r.out, "</body></html>"));
        char *html = read_www(pages[i]);
        local_links_exist(html);
        assert_null(strstr(html, "<script"));
        free(html);
        tu_run_free(&r);
    }
}

static const char probe[] =
    "<pre id=\"probe\"></pre><script>\n"
    "var out = [], errs = [];\n"
    "window.addEventListener('error', function (e) { errs.push(String(e.message)); });\n"
    "document.querySelectorAll('svg.chart:not(.curve)').forEach(function (svg, i) {\n"
    "  var w = svg.getBoundingClientRect().width, lines = 0, len = 0, empty = 0;\n"
    "  svg.querySelectorAll('polyline.value').forEach(function (pl) {\n"
    "    var l = pl.getTotalLength(), b = pl.getBBox();\n"
    "    if (l > 0 && b.width > 0) { lines++; len += l; }\n"
    "  });\n"
    "  svg.querySelectorAll('text.empty').forEach(function (t) {\n"
    "    empty += t.getBoundingClientRect().width;\n"
    "  });\n"
    "  var h = svg.closest('section').querySelector('h2');\n"
    "  out.push('chart ' + i + ' width=' + Math.round(w) + ' lines=' + lines +\n"
    "           ' length=' + Math.round(len) + ' empty=' + Math.round(empty) +\n"
    "           ' grade=' + h.id.substring(2) + ' ;');\n"
    "});\n"
    "document.querySelectorAll('p.novalue').forEach(function (p) {\n"
    "  var h = p.closest('section').querySelector('h2');\n"
    "  out.push('novalue ' + h.id.substring(2) + ' width=' +\n"
    "           Math.round(p.getBoundingClientRect().width) + ' ;');\n"
    "});\n"
    "out.push('errors=' + errs.length);\n"
    "document.getElementById('probe').textContent = out.join('\\n');\n"
    "</script>\n";

/* The ids of data/grades.json (the published grade set); *n set. */
static json_t *published_ids(size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/grades.json", tu_srcdir());
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j) fail_msg("%s: %s", path, e.text);
    json_t *gs = json_incref(json_object_get(j, "grades"));
    json_decref(j);
    *n = json_array_size(gs);
    assert_true(*n > 0);
    return gs;
}

/* 1 when www/<grade>.csv (the index.csv format: date,grade,value,...) has
 * a value on some day. */
static int has_value(const char *grade)
{
    char name[128];
    snprintf(name, sizeof name, "%s.csv", grade);
    char *csv = read_www(name), *save = NULL;
    int any = 0;
    char *line = strtok_r(csv, "\n", &save); /* the header */
    assert_non_null(line);
    while ((line = strtok_r(NULL, "\n", &save)) && !any) {
        const char *c = strchr(line, ',');
        assert_non_null(c);
        c = strchr(c + 1, ',');
        assert_non_null(c);
        any = c[1] != ',';
    }
    free(csv);
    return any;
}

static void test_every_chart_is_drawn(void **state)
{
    (void)state;
    need_browser();
    char *html = read_www("index.html");
    /* each grade's series (class "chart"); the term curves are charts of
     * their own (class "chart curve", site/curve.c) */
    size_t charts = count(html, "role=\"img\" class=\"chart\">");
    size_t grades = count(html, "<section><h2 id=\"g-");
    size_t npub;
    json_t *pub = published_ids(&npub);
    assert_int_equal(grades, npub); /* the published set, not the candidate */
    assert_null(strstr(html, "id=\"g-H100-SXM.OD.GOLD+\""));
    size_t k, valued = 0;
    json_t *g;
    const char *prev = html;
    json_array_foreach(pub, k, g) {
        char want[128];
        const char *id = json_string_value(json_object_get(g, "id"));
        snprintf(want, sizeof want, "<section><h2 id=\"g-%s\">", id);
        const char *at = strstr(html, want);
        if (!at) fail_msg("index.html: no section %s", want);
        /* in the published grades file's order: the headline first */
        if (at < prev) fail_msg("index.html: %s is not in the grades file's order", id);
        prev = at;
        valued += (size_t)has_value(id);
    }
    json_decref(pub);
    assert_int_equal(charts, valued);
    assert_true(valued < grades); /* A100-SXM-40.OD: a line, no chart */
    /* the probe copy: the page with a script appended before </body> */
    char *end = strstr(html, "</body>");
    assert_non_null(end);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/probe.html", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(end - html), html, probe, end);
    fclose(f);
    tu_run r = browse("probe.html", "--dump-dom");
    no_console_messages("probe.html", &r);
    const char *pre = strstr(r.out, "<pre id=\"probe\">");
    assert_non_null(pre);
    for (size_t i = 0; i < charts; i++) {
        char want[64];
        snprintf(want, sizeof want, "chart %zu width=", i);
        const char *c = strstr(pre, want);
        if (!c) fail_msg("chart %zu not reported by the probe:\n%.2000s", i, pre);
        int w = 0, lines = 0, len = 0, empty = 0;
        char grade[80];
        if (sscanf(c + strlen(want), "%d lines=%d length=%d empty=%d grade=%79s", &w, &lines,
                   &len, &empty, grade) != 5)
            fail_msg("probe line: %.120s", c);
        print_message("chart %zu %s: width %d, %d value lines of %d px\n", i, grade, w, lines,
                      len);
        if (!has_value(grade)) fail_msg("chart %zu (%s): a chart for a grade with no value", i, grade);
        if (w < 600 || lines < 1 || len < 500)
            fail_msg("chart %zu (%s) not drawn: width %d, %d value lines, length %d", i, grade, w,
                     lines, len);
    }
    char last[64];
    snprintf(last, sizeof last, "chart %zu ", charts);
    assert_null(strstr(pre, last));
    /* the grade with no value: its line, visible */
    const char *nv = strstr(pre, "novalue A100-SXM-40.OD width=");
    if (!nv) fail_msg("no visible line for A100-SXM-40.OD:\n%.2000s", pre);
    assert_true(atoi(nv + strlen("novalue A100-SXM-40.OD width=")) > 200);
    assert_non_null(strstr(pre, "errors=0"));
    tu_run_free(&r);
    free(html);
}

static const char cell_probe[] =
    "<pre id=\"probe\"></pre><script>\n"
    "var tall = [], cells = 0;\n"
    "document.querySelectorAll('table:not(.def) td, table:not(.def) th').forEach(function (c) {\n"
    "  var lh = parseFloat(getComputedStyle(c).lineHeight) ||\n"
    "           1.5 * parseFloat(getComputedStyle(c).fontSize);\n"
    "  var r = document.createRange(); r.selectNodeContents(c);\n"
    "  var h = r.getBoundingClientRect().height;\n"
    "  cells++;\n"
    "  if (h > 1.6 * lh) tall.push(c.textContent.substring(0, 40));\n"
    "});\n"
    "document.getElementById('probe').textContent = 'cells=' + cells + ' tall=' + tall.length +\n"
    "  ' ' + tall.slice(0, 5).join(' | ');\n"
    "</script>\n";

static void test_statement_covers_and_unwrapped_tables(void **state)
{
    (void)state;
    need_browser();
    char *html = read_www("statement.html");
    assert_non_null(strstr(html, "<tr><td>covers</td><td>instance prices only</td></tr>"));
    char *end = strstr(html, "</body>");
    assert_non_null(end);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/probe-statement.html", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(end - html), html, cell_probe, end);
    fclose(f);
    /* a narrow window: wide tables scroll sideways instead of wrapping */
    tu_run r = browse("probe-statement.html", "--window-size=800,1200 --dump-dom");
    no_console_messages("probe-statement.html", &r);
    const char *pre = strstr(r.out, "<pre id=\"probe\">cells=");
    assert_non_null(pre);
    int cells = atoi(pre + strlen("<pre id=\"probe\">cells="));
    print_message("statement.html: %s\n", pre + strlen("<pre id=\"probe\">"));
    assert_true(cells > 50);
    if (!strstr(pre, " tall=0 ")) fail_msg("statement cells wrap: %.300s", pre);
    tu_run_free(&r);
    free(html);
}

static void test_screenshot(void **state)
{
    (void)state;
    need_browser();
    tu_run r = browse("index.html", "--screenshot=\"$PWD/site.png\" --window-size=1280,2400");
    no_console_messages("index.html", &r);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/site.png", dir);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("no screenshot at %s", path);
    unsigned char h[24];
    size_t n = fread(h, 1, sizeof h, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_int_equal(n, 24);
    assert_memory_equal(h, "\x89PNG\r\n\x1a\n", 8);
    assert_memory_equal(h + 12, "IHDR", 4);
    unsigned w = (unsigned)h[16] << 24 | (unsigned)h[17] << 16 | (unsigned)h[18] << 8 | h[19];
    unsigned ht = (unsigned)h[20] << 24 | (unsigned)h[21] << 16 | (unsigned)h[22] << 8 | h[23];
    assert_int_equal(w, 1280);
    assert_int_equal(ht, 2400);
    assert_true(size > 20000); /* not a blank page */
    print_message("screenshot: %s (%ld bytes)\n", path, size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages_load_without_console_errors),
        cmocka_unit_test(test_every_chart_is_drawn),
        cmocka_unit_test(test_statement_covers_and_unwrapped_tables),
        cmocka_unit_test(test_screenshot),
    };
    return cmocka_run_group_tests_name("e2e_browser", tests, setup, teardown);
}
