/* tests/test_e2e_accuracy.c -- the index against the demo market's true
 * price (bench/accuracy, BENCHMARKS.md "Accuracy against the true price").
 *
 * The group setup runs `sh bench/accuracy` with the binary under test on a
 * 120-day demo market (the demo's seed; the pusher's two weeks, three
 * monthly rebalances and thin days fall inside it) and keeps its work
 * directory.  The grades are the published grade set as it was before
 * methodology v3 (tests/fixtures/grades_v2.json, every grade v2): the
 * bounds below are v2's claims (the v3 set's figures are in BENCHMARKS.md
 * and on the demo's site).
 * The tests then read the databases' `index show` output, the markets,
 * the true prices the simulator wrote and the grade lab's JSON themselves,
 * decide which rows a grade takes from its definition in data/grades.json
 * (gpu, term, scope, min_tier, covers; a grade with another filter fails
 * the test: it would need a matcher here), and
 *   - recompute every grade's true price from truth-trades.csv alone (the
 *     volume-weighted median of the model's prices in the grade,
 *     exact-half rule, rounded half-up), independently of the index build;
 *     a grade no model row matches has no true price on any day;
 *   - recompute the script's figures (MAE, daily-change MAE, monthly-mean
 *     error, the pusher's effect) and compare them with accuracy.csv; a
 *     grade of a GPU the market does not list (A100-SXM-40.OD) has no
 *     value either and is reported as "no data" (days 0, every figure
 *     empty), never as a number or NaN;
 *   - pin the stated bounds: the published value (v2) has a value on at
 *     least 97 % of the days and is within 5 % of the true price on average
 *     on every on-demand grade, within 12 % on the spot grades (their list
 *     prices carry 6 % of daily noise by design); v2's daily changes closer
 *     to the true changes than the cross-section's on every grade;
 *   - the pusher (the rows of trades.csv that `simulate --no-push` leaves
 *     out: Nimbus Compute, gold-tier bare-metal H100 SXM on demand) moves
 *     no grade whose definition does not take its rows, by exactly 0 in
 *     every variant; on the grades that take them (H100-SXM.OD) it moves
 *     the published value by no more than the grade lab's largest
 *     leave-one-provider-out move (the published manipulation figure) and
 *     by under 6 % of the true price, while without the provider cap it
 *     moves the cross-section by over 20 % (the manipulation is real).
 *
 * Why 5 % and not 4 %: the bound was 4 % on the earlier grade set
 * (measured 1.50-3.42 % on this market).  On the published set, v2 is at
 * 4.16 % on H100-PCIE.OD (3-4 provider groups a day: its chained median
 * of the providers' changes drifts between the monthly rebalances) and
 * 4.01 % on A100-SXM-80.OD (the earlier A100.OD.ALL, at 3.42 % before
 * the v2 change of commit 864c3b4: carried trade prices no longer make a
 * trades relative, a member that moved more than error_factor is left
 * out); over the year every on-demand grade is under 4 % (BENCHMARKS.md).
 * B200.OD has a value on 117 of the 120 days: from 2025-03-26 one
 * provider prices B200, the value is carried max_carry_days (5) and then
 * suspended until 2025-04-03.
 */
#include "tests/testutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "core/gpi.h"

#define DAYS 120
#define MAXG 64
#define MAXCOL 40

static char *work;              /* the bench's work directory */
static const char *skip_reason;
static json_t *pub;             /* the "grades" array of data/grades.json */

typedef struct series {
    char grade[80];
    double v[DAYS];             /* NAN: no value */
    double xs[DAYS];
} series;

typedef struct market {
    series s[MAXG * 3];
    int n;
} market;

static int32_t day0(void)
{
    return gpi_days_from_civil(2025, 1, 1);
}

static int split(char *line, char **col)
{
    int n = 0;
    col[n++] = line;
    for (char *p = line; *p && n < MAXCOL; p++)
        if (*p == ',') {
            *p = '\0';
            col[n++] = p + 1;
        }
    return n;
}

static int day_of(const char *s)
{
    int32_t d;
    if (gpi_date_parse(s, &d)) fail_msg("bad date \"%s\"", s);
    return (int)(d - day0());
}

static series *find(market *m, const char *grade, int add)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->s[i].grade, grade) == 0) return &m->s[i];
    if (!add) return NULL;
    if (m->n == MAXG * 3) fail_msg("too many grades");
    series *s = &m->s[m->n++];
    snprintf(s->grade, sizeof s->grade, "%s", grade);
    for (int t = 0; t < DAYS; t++) s->v[t] = s->xs[t] = NAN;
    return s;
}

static int valued(const double *v)
{
    int n = 0;
    for (int d = 0; d < DAYS; d++) n += !isnan(v[d]);
    return n;
}

/* `index show` CSV: date,grade,value,...,xs_value (column 19). */
static void read_show(const char *name, market *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", work, name);
    char *text = tu_read(path);
    if (!text) fail_msg("%s: missing", path);
    m->n = 0;
    char *save, *line = strtok_r(text, "\n", &save);
    char *c[MAXCOL];
    int nh = split(line, c);
    if (nh < 20 || strcmp(c[2], "value") != 0 || strcmp(c[19], "xs_value") != 0)
        fail_msg("%s: unexpected header", path);
    while ((line = strtok_r(NULL, "\n", &save))) {
        if (split(line, c) < 20) fail_msg("%s: short row", path);
        int t = day_of(c[0]);
        assert_true(t >= 0 && t < DAYS);
        series *s = find(m, c[1], 1);
        if (*c[2]) s->v[t] = strtod(c[2], NULL);
        if (*c[19]) s->xs[t] = strtod(c[19], NULL);
    }
    free(text);
}

static market *on, *off, *truth;

static int setup(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        skip_reason = "/usr/bin/python3 is not installed (tools/deps.sh installs it)";
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/grades_v2.json", tu_srcdir());
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j) {
        fprintf(stderr, "%s: %s\n", path, e.text);
        return -1;
    }
    pub = json_incref(json_object_get(j, "grades"));
    json_decref(j);
    work = tu_mkdtemp("accuracy");
    const char *bin = getenv("GPUIDX_BIN");
    tu_run r = tu_sh(tu_srcdir(),
                     "DAYS=%d WORK='%s' GRADES='%s' sh bench/accuracy '%s' >'%s/report.md'", DAYS,
                     work, path, bin ? bin : "build/gpuidx", work);
    if (r.status != 0) {
        fprintf(stderr, "bench/accuracy failed (%d):\n%s\n", r.status, r.err);
        tu_run_free(&r);
        return -1;
    }
    tu_run_free(&r);
    on = calloc(1, sizeof *on);
    off = calloc(1, sizeof *off);
    truth = calloc(1, sizeof *truth);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (work) { /* keep the report and the figures; drop the databases and markets */
        tu_run r = tu_sh(work, "rm -rf on off *.db truth-trades.csv");
        tu_run_free(&r);
    }
    json_decref(pub);
    free(on);
    free(off);
    free(truth);
    free(work);
    return 0;
}

static void load(void)
{
    if (skip_reason) {
        print_message("skipped: %s\n", skip_reason);
        skip();
    }
    if (truth->n == 0) {
        read_show("on.csv", on);
        read_show("off.csv", off);
        read_show("truth.csv", truth);
    }
}

static size_t n_pub(void)
{
    return json_array_size(pub);
}

static const char *pub_id(size_t i)
{
    return json_string_value(json_object_get(json_array_get(pub, i), "id"));
}

/* ---- which rows a grade takes (METHODOLOGY.md §1.2) --------------------- */

typedef struct obs {
    const char *gpu, *scope, *tier, *term, *months;
} obs;

static int tier_rank(const char *t)
{
    static const char *const order[] = {"unrated", "underperform", "bronze", "silver", "gold",
                                        "platinum"};
    for (int k = 0; k < 6; k++)
        if (strcmp(t, order[k]) == 0) return k;
    fail_msg("unknown tier \"%s\"", t);
    return -1;
}

/* 1 when list (a JSON array of strings, or a string) holds s, or is NULL
 * (the filter's default: all) or "*". */
static int listed(const json_t *list, const char *s)
{
    if (!list) return 1;
    if (json_is_string(list)) return strcmp(json_string_value(list), "*") == 0 ||
                                      strcasecmp(json_string_value(list), s) == 0;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (strcmp(json_string_value(v), "*") == 0 || strcasecmp(json_string_value(v), s) == 0)
            return 1;
    return 0;
}

/* 1 when the grade g (an object of data/grades.json) takes o.  The demo's
 * rows carry no sku, or one data/skus.csv has no row for (h100sxm.8x, ...):
 * each covers a whole instance. */
static int takes(const json_t *g, const obs *o)
{
    static const char *const unknown[] = {"regions", "providers", "segments", "skus",
                                          "exclude_providers"};
    for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++) {
        const json_t *f = json_object_get(g, unknown[k]);
        if (f && !listed(f, "\x01")) /* only "*" passes */
            fail_msg("grade %s: filter %s: not decided by this test (extend takes())",
                     json_string_value(json_object_get(g, "id")), unknown[k]);
    }
    if (!json_object_get(g, "gpu") || !listed(json_object_get(g, "gpu"), o->gpu)) return 0;
    if (!listed(json_object_get(g, "scope"), o->scope)) return 0;
    if (!listed(json_object_get(g, "covers"), "instance")) return 0;
    const json_t *mt = json_object_get(g, "min_tier");
    if (mt && tier_rank(o->tier) < tier_rank(json_string_value(mt))) return 0;
    const json_t *tj = json_object_get(g, "term");
    const char *term = tj ? json_string_value(tj) : "on-demand";
    int a, b;
    if (sscanf(term, "reserved:%d-%d", &a, &b) == 2) {
        int m = atoi(o->months);
        return strcmp(o->term, "reserved") == 0 && m >= a && m <= b;
    }
    return strcmp(o->term, term) == 0;
}

static const json_t *pub_grade(const char *id)
{
    for (size_t i = 0; i < n_pub(); i++)
        if (strcmp(pub_id(i), id) == 0) return json_array_get(pub, i);
    fail_msg("%s is not a grade of data/grades.json", id);
    return NULL;
}

/* ---- the truth, recomputed from the simulator's file alone -------------- */

typedef struct wt {
    int64_t price_micro, qty_e2;
} wt;

static int by_price(const void *a, const void *b)
{
    const wt *x = a, *y = b;
    return (x->price_micro > y->price_micro) - (x->price_micro < y->price_micro);
}

static int64_t micro_of(const char *s)
{
    gpi_dec d;
    if (gpi_dec_parse(s, &d) || d.scale > 6) fail_msg("bad price \"%s\"", s);
    int64_t v = d.mant;
    for (int k = d.scale; k < 6; k++) v *= 10;
    return v;
}

/* One truth-trades.csv row. */
typedef struct trow {
    int day;
    char gpu[32], scope[16], tier[16], term[16], months[4];
    wt w;
} trow;

static void test_truth_is_the_volume_weighted_median_of_the_model(void **state)
{
    (void)state;
    load();
    char path[4096];
    snprintf(path, sizeof path, "%s/truth-trades.csv", work);
    char *text = tu_read(path);
    assert_non_null(text);
    size_t cap = 1 << 17, nrows = 0;
    trow *rows = malloc(cap * sizeof *rows);
    assert_non_null(rows);
    char *save, *line = strtok_r(text, "\n", &save);
    char *c[MAXCOL];
    int nh = split(line, c);
    assert_int_equal(nh, 16);
    assert_string_equal(c[6], "gpu");
    assert_string_equal(c[7], "price");
    assert_string_equal(c[9], "scope");
    assert_string_equal(c[10], "tier");
    assert_string_equal(c[11], "term");
    assert_string_equal(c[12], "term_months");
    assert_string_equal(c[13], "quantity");
    while ((line = strtok_r(NULL, "\n", &save))) {
        assert_int_equal(split(line, c), 16);
        if (nrows == cap) fail_msg("truth-trades.csv: more than %zu rows", cap);
        trow *r = &rows[nrows++];
        char date[11];
        snprintf(date, sizeof date, "%s", c[2]);
        r->day = day_of(date);
        assert_true(r->day >= 0 && r->day < DAYS);
        snprintf(r->gpu, sizeof r->gpu, "%s", c[6]);
        snprintf(r->scope, sizeof r->scope, "%s", c[9]);
        snprintf(r->tier, sizeof r->tier, "%s", c[10]);
        snprintf(r->term, sizeof r->term, "%s", c[11]);
        snprintf(r->months, sizeof r->months, "%s", c[12]);
        gpi_dec q;
        assert_null(gpi_dec_parse(c[13], &q));
        assert_int_equal(q.scale, 2);
        r->w = (wt){micro_of(c[7]), q.mant};
    }
    free(text);
    assert_true(nrows > 1000L * DAYS / 4);
    static wt day[DAYS][1024];
    static int n[DAYS];
    int with_truth = 0;
    for (size_t i = 0; i < n_pub(); i++) {
        const json_t *gdef = json_array_get(pub, i);
        series *g = find(truth, pub_id(i), 0);
        if (!g) fail_msg("truth.csv: no rows for %s", pub_id(i));
        memset(n, 0, sizeof n);
        long matched = 0;
        for (size_t k = 0; k < nrows; k++) {
            const trow *r = &rows[k];
            obs o = {r->gpu, r->scope, r->tier, r->term, r->months};
            if (!takes(gdef, &o)) continue;
            if (n[r->day] == 1024) fail_msg("%s: over 1024 model rows a day", g->grade);
            day[r->day][n[r->day]++] = r->w;
            matched++;
        }
        with_truth += matched > 0;
        for (int t = 0; t < DAYS; t++) {
            if (n[t] == 0) {
                if (!isnan(g->v[t]))
                    fail_msg("%s day %d: truth database %.4f, but no model row of the grade",
                             g->grade, t, g->v[t]);
                continue;
            }
            qsort(day[t], (size_t)n[t], sizeof day[t][0], by_price);
            int64_t tot = 0, cum = 0;
            for (int k = 0; k < n[t]; k++) tot += day[t][k].qty_e2;
            /* first price whose cumulative volume reaches half; exactly
             * half: the mean with the next price (in half-micro units) */
            int64_t med2 = -1;
            for (int k = 0; k < n[t] && med2 < 0; k++) {
                cum += day[t][k].qty_e2;
                if (2 * cum == tot) med2 = day[t][k].price_micro + day[t][k + 1].price_micro;
                else if (2 * cum > tot) med2 = 2 * day[t][k].price_micro;
            }
            int64_t e4 = (med2 + 100) / 200; /* half-micro -> 0.0001, half-up */
            double want = (double)e4 / 1e4;
            if (!(fabs(g->v[t] - want) <= 1e-9))
                fail_msg("%s day %d: truth database %.4f, weighted median of truth-trades.csv "
                         "%.4f (%d rows)", g->grade, t, g->v[t], want, n[t]);
        }
        print_message("%-16s %6ld model rows, true price on %d days\n", g->grade, matched,
                      valued(g->v));
    }
    free(rows);
    /* every published grade but those of a GPU the demo does not list */
    assert_true(with_truth >= 6);
    assert_int_equal(truth->n, (int)n_pub());
}

/* ---- the figures -------------------------------------------------------- */

typedef struct figs {
    int days;
    double mae_usd, mae_pct, chg_pct, month_mean_pct, month_max_pct;
} figs;

static figs figures(const double *v, const double *t)
{
    figs f = {0, 0, 0, 0, 0, 0};
    double sum_abs = 0, sum_rel = 0, sum_chg = 0;
    int nchg = 0;
    for (int d = 0; d < DAYS; d++) {
        if (isnan(v[d]) || isnan(t[d])) continue;
        f.days++;
        sum_abs += fabs(v[d] - t[d]);
        sum_rel += fabs(v[d] / t[d] - 1);
        if (d > 0 && !isnan(v[d - 1]) && !isnan(t[d - 1])) {
            sum_chg += fabs(log(v[d] / v[d - 1]) - log(t[d] / t[d - 1]));
            nchg++;
        }
    }
    f.mae_usd = sum_abs / f.days;
    f.mae_pct = 100 * sum_rel / f.days;
    f.chg_pct = 100 * sum_chg / nchg;
    /* full calendar months with a true price every day and at least 15
     * values */
    int nm = 0;
    double sum_m = 0, max_m = 0;
    for (int d = 0; d < DAYS;) {
        int y, mo, dd;
        gpi_civil_from_days(day0() + d, &y, &mo, &dd);
        int e = d;
        double sv = 0, st = 0;
        int nv = 0, nt = 0;
        for (;; e++) {
            int y2, mo2, dd2;
            gpi_civil_from_days(day0() + e, &y2, &mo2, &dd2);
            if (e >= DAYS || mo2 != mo) break;
            if (!isnan(v[e])) sv += v[e], nv++;
            if (!isnan(t[e])) st += t[e], nt++;
        }
        int y3, mo3, dd3;
        gpi_civil_from_days(day0() + e, &y3, &mo3, &dd3);
        int full = dd == 1 && mo3 != mo && nt == e - d;
        if (full && nv >= 15) {
            double err = fabs((sv / nv) / (st / nt) - 1);
            sum_m += err;
            if (err > max_m) max_m = err;
            nm++;
        }
        d = e;
    }
    f.month_mean_pct = nm ? 100 * sum_m / nm : NAN;
    f.month_max_pct = nm ? 100 * max_m : NAN;
    return f;
}

static double effect(const double *a, const double *b)
{
    double e = 0;
    for (int d = 0; d < DAYS; d++)
        if (!isnan(a[d]) && !isnan(b[d]) && fabs(a[d] - b[d]) > e) e = fabs(a[d] - b[d]);
    return e;
}

/* accuracy.csv cell of (grade, method, variant, market) in column col, as
 * text (malloc'd); fails when the row or the column is missing. */
static char *csv_text(const char *grade, const char *method, const char *variant,
                      const char *mkt, const char *col)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/accuracy.csv", work);
    char *text = tu_read(path);
    assert_non_null(text);
    char *save, *line = strtok_r(text, "\n", &save);
    char *h[MAXCOL], *c[MAXCOL];
    int nh = split(line, h), ci = -1;
    for (int i = 0; i < nh; i++)
        if (strcmp(h[i], col) == 0) ci = i;
    if (ci < 0) fail_msg("accuracy.csv: no column %s", col);
    char *v = NULL;
    while ((line = strtok_r(NULL, "\n", &save))) {
        if (split(line, c) != nh) fail_msg("accuracy.csv: a row of another width");
        if (strcmp(c[0], grade) == 0 && strcmp(c[1], method) == 0 &&
            strcmp(c[2], variant) == 0 && strcmp(c[3], mkt) == 0) {
            if (v) fail_msg("accuracy.csv: two rows for %s %s %s %s", grade, method, variant, mkt);
            v = strdup(c[ci]);
        }
    }
    free(text);
    if (!v) fail_msg("accuracy.csv: no row for %s %s %s %s", grade, method, variant, mkt);
    return v;
}

static double csv_fig(const char *grade, const char *method, const char *variant,
                      const char *mkt, const char *col)
{
    char *s = csv_text(grade, method, variant, mkt, col);
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v))
        fail_msg("accuracy.csv: %s of %s %s %s %s is not a number (got \"%s\")", col, grade,
                 method, variant, mkt, s);
    free(s);
    return v;
}

static int is_spot(const char *grade)
{
    return strstr(grade, "SPOT") != NULL;
}

static char *read_work(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", work, name);
    char *s = tu_read(path);
    if (!s) fail_msg("%s: missing", path);
    return s;
}

/* 1 when a row of the market (on/offers.csv or on/trades.csv) is one the
 * grade takes. */
static int market_has(const json_t *g)
{
    static const char *const files[] = {"on/offers.csv", "on/trades.csv"};
    int found = 0;
    for (int f = 0; f < 2 && !found; f++) {
        char *text = read_work(files[f]);
        char *save, *line = strtok_r(text, "\n", &save), *c[MAXCOL];
        int nh = split(line, c), ig = -1, is = -1, it = -1, iterm = -1, im = -1;
        for (int i = 0; i < nh; i++) {
            if (strcmp(c[i], "gpu") == 0) ig = i;
            if (strcmp(c[i], "scope") == 0) is = i;
            if (strcmp(c[i], "tier") == 0) it = i;
            if (strcmp(c[i], "term") == 0) iterm = i;
            if (strcmp(c[i], "term_months") == 0) im = i;
        }
        assert_true(ig >= 0 && is >= 0 && it >= 0 && iterm >= 0 && im >= 0);
        while (!found && (line = strtok_r(NULL, "\n", &save))) {
            if (split(line, c) != nh) fail_msg("%s: a row of another width", files[f]);
            obs o = {c[ig], c[is], c[it], c[iterm], c[im]};
            found = takes(g, &o);
        }
        free(text);
    }
    return found;
}

/* 1 when text holds the word "nan" in any case ("nan", "-nan", "NaN"). */
static int has_nan(const char *text)
{
    for (const char *p = text; *p; p++)
        if (strncasecmp(p, "nan", 3) == 0 && (p == text || !isalpha((unsigned char)p[-1])) &&
            !isalpha((unsigned char)p[3]))
            return 1;
    return 0;
}

static void test_script_figures_match_recomputation(void **state)
{
    (void)state;
    load();
    assert_int_equal(truth->n, (int)n_pub());
    char *report = read_work("report.md"), *csv = read_work("accuracy.csv");
    /* never a NaN: a figure that cannot be computed is empty or "--" */
    assert_false(has_nan(csv));
    assert_false(has_nan(report));
    static const char *const variants[] = {"as shipped", "no error screen", "no provider cap"};
    static const char *const markets[] = {"pusher on", "pusher off"};
    int nodata = 0;
    for (size_t i = 0; i < n_pub(); i++) {
        const series *t = find(truth, pub_id(i), 0);
        assert_non_null(t);
        const series *g = find(on, t->grade, 0), *o = find(off, t->grade, 0);
        assert_non_null(g);
        assert_non_null(o);
        if (valued(t->v) == 0) {
            /* no data: the market has no row of the grade, the index no
             * value; every row of accuracy.csv says days 0 and no figure */
            nodata++;
            if (market_has(json_array_get(pub, i)))
                fail_msg("%s: no true price, yet the market has rows of the grade", t->grade);
            assert_int_equal(valued(g->v) + valued(g->xs) + valued(o->v) + valued(o->xs), 0);
            for (int m = 0; m < 2; m++)
                for (int k = 0; k < 3; k++)
                    for (int w = 0; w < 2; w++) {
                        static const char *const cols[] = {"mae_usd", "mae_pct", "bias_pct",
                                                           "chg_mae_pct", "months",
                                                           "month_mean_pct", "push_effect_usd",
                                                           "loo_max_usd"};
                        const char *method = m ? "v1" : "v2";
                        char *s = csv_text(t->grade, method, variants[k], markets[w], "days");
                        assert_string_equal(s, "0");
                        free(s);
                        for (size_t q = 0; q < sizeof cols / sizeof cols[0]; q++) {
                            s = csv_text(t->grade, method, variants[k], markets[w], cols[q]);
                            if (*s) fail_msg("%s %s: %s is \"%s\" without data", t->grade,
                                             method, cols[q], s);
                            free(s);
                        }
                    }
            char want[160];
            snprintf(want, sizeof want, "| %s | no data |", t->grade);
            if (!strstr(report, want)) fail_msg("report.md lacks \"%s\"", want);
            continue;
        }
        for (int m = 0; m < 2; m++) {
            const char *method = m ? "v1" : "v2";
            figs f = figures(m ? g->xs : g->v, t->v);
            char what[160];
            snprintf(what, sizeof what, "%s %s days", t->grade, method);
            tu_assert_close(csv_fig(t->grade, method, "as shipped", "pusher on", "days"),
                            f.days, 0, what);
            snprintf(what, sizeof what, "%s %s mae_pct", t->grade, method);
            tu_assert_close(csv_fig(t->grade, method, "as shipped", "pusher on", "mae_pct"),
                            f.mae_pct, 1e-5, what);
            snprintf(what, sizeof what, "%s %s mae_usd", t->grade, method);
            tu_assert_close(csv_fig(t->grade, method, "as shipped", "pusher on", "mae_usd"),
                            f.mae_usd, 1e-5, what);
            snprintf(what, sizeof what, "%s %s chg_mae_pct", t->grade, method);
            tu_assert_close(csv_fig(t->grade, method, "as shipped", "pusher on", "chg_mae_pct"),
                            f.chg_pct, 1e-5, what);
            snprintf(what, sizeof what, "%s %s month_mean_pct", t->grade, method);
            tu_assert_close(
                csv_fig(t->grade, method, "as shipped", "pusher on", "month_mean_pct"),
                f.month_mean_pct, 1e-5, what);
            snprintf(what, sizeof what, "%s %s month_max_pct", t->grade, method);
            tu_assert_close(
                csv_fig(t->grade, method, "as shipped", "pusher on", "month_max_pct"),
                f.month_max_pct, 1e-5, what);
            snprintf(what, sizeof what, "%s %s push_effect_usd", t->grade, method);
            tu_assert_close(
                csv_fig(t->grade, method, "as shipped", "pusher on", "push_effect_usd"),
                effect(m ? g->xs : g->v, m ? o->xs : o->v), 1e-9, what);
        }
    }
    /* A100-SXM-40.OD: the demo lists no A100 40 GB */
    assert_int_equal(nodata, 1);
    free(report);
    free(csv);
}

static void test_mae_within_stated_bounds(void **state)
{
    (void)state;
    load();
    int checked = 0;
    for (int i = 0; i < truth->n; i++) {
        const series *t = &truth->s[i];
        if (valued(t->v) == 0) continue; /* no data: test_script_figures_match_recomputation */
        const series *g = find(on, t->grade, 0);
        figs v2 = figures(g->v, t->v), v1 = figures(g->xs, t->v);
        double bound = is_spot(t->grade) ? 12.0 : 5.0;
        print_message("%-16s %3d days  v2 MAE %5.2f %%  v1 MAE %5.2f %%  change MAE v2 %5.2f %% "
                      "v1 %5.2f %%  month v2 %5.2f %% v1 %5.2f %%\n",
                      t->grade, v2.days, v2.mae_pct, v1.mae_pct, v2.chg_pct, v1.chg_pct,
                      v2.month_mean_pct, v1.month_mean_pct);
        assert_int_equal(valued(t->v), DAYS);
        if (!(v2.days >= 0.97 * DAYS))
            fail_msg("%s: v2 has a value on %d of %d days", t->grade, v2.days, DAYS);
        if (!(v2.mae_pct < bound))
            fail_msg("%s: v2 MAE %.2f %% not under %.0f %%", t->grade, v2.mae_pct, bound);
        if (!(v2.chg_pct < v1.chg_pct))
            fail_msg("%s: v2 daily-change MAE %.2f %% not under the cross-section's %.2f %%",
                     t->grade, v2.chg_pct, v1.chg_pct);
        checked++;
    }
    assert_int_equal(checked, (int)n_pub() - 1);
}

static double lab_loo_max(const char *file, const char *grade)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", work, file);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j) fail_msg("%s: %s", path, e.text);
    double v = NAN;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(j, "grades"), i, g)
        if (strcmp(json_string_value(json_object_get(g, "id")), grade) == 0)
            v = json_number_value(json_object_get(json_object_get(g, "leave_one_out"), "max_abs"));
    json_decref(j);
    if (isnan(v)) fail_msg("%s: no leave_one_out.max_abs for %s", path, grade);
    return v;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The ids (second column) of the trade lines of text, sorted; the text is
 * cut at the end of each id; *n set.  Free the array, not the strings. */
static char **trade_ids(char *text, size_t *n)
{
    size_t cap = 1024;
    char **ids = malloc(cap * sizeof *ids);
    *n = 0;
    for (char *p = text; p && *p;) {
        char *eol = strchr(p, '\n');
        if (strncmp(p, "trade,", 6) == 0) {
            char *id = p + 6, *e = strpbrk(id, ",\n");
            if (!e || *e != ',') fail_msg("a trade line without an id: %.80s", p);
            *e = '\0';
            if (*n == cap) ids = realloc(ids, (cap *= 2) * sizeof *ids);
            ids[(*n)++] = id;
        }
        p = eol ? eol + 1 : NULL;
    }
    qsort(ids, *n, sizeof *ids, cmp_str);
    return ids;
}

/* The pusher's rows: those of on/trades.csv whose id off/trades.csv (the
 * same market, `simulate --no-push`) lacks.  All of one key, returned in
 * *o (strings static); the count is returned. */
static int pusher_rows(obs *o)
{
    static char gpu[32], scope[16], tier[16], term[16], months[4], prov[64];
    char *a = read_work("on/trades.csv"), *b = read_work("off/trades.csv");
    size_t n_off = 0;
    char **off_ids = trade_ids(b, &n_off); /* a search of the whole text per row took 4 s */
    assert_true(n_off > 1000);
    int n = 0;
    char *save, *line = strtok_r(a, "\n", &save), *c[MAXCOL];
    assert_int_equal(split(line, c), 16); /* kind,id,...: trades.csv */
    assert_string_equal(c[4], "provider");
    while ((line = strtok_r(NULL, "\n", &save))) {
        assert_int_equal(split(line, c), 16);
        assert_string_equal(c[0], "trade");
        const char *id = c[1];
        if (bsearch(&id, off_ids, n_off, sizeof *off_ids, cmp_str)) continue;
        if (n++ == 0) {
            snprintf(prov, sizeof prov, "%s", c[4]);
            snprintf(gpu, sizeof gpu, "%s", c[6]);
            snprintf(scope, sizeof scope, "%s", c[9]);
            snprintf(tier, sizeof tier, "%s", c[10]);
            snprintf(term, sizeof term, "%s", c[11]);
            snprintf(months, sizeof months, "%s", c[12]);
        } else if (strcmp(prov, c[4]) || strcmp(gpu, c[6]) || strcmp(scope, c[9]) ||
                   strcmp(tier, c[10]) || strcmp(term, c[11]) || strcmp(months, c[12])) {
            fail_msg("the pusher's rows are not of one key (%s %s %s %s %s, then %s %s %s %s %s)",
                     prov, gpu, scope, tier, term, c[4], c[6], c[9], c[10], c[11]);
        }
    }
    free(off_ids);
    free(a);
    free(b);
    *o = (obs){gpu, scope, tier, term, months};
    print_message("the pusher: %d trades of %s, %s %s %s %s\n", n, prov, tier, scope, gpu, term);
    return n;
}

static void test_pusher_effect_bounded(void **state)
{
    (void)state;
    load();
    obs push;
    assert_true(pusher_rows(&push) > 0);
    static const char *const variants[] = {"", ".NOSCREEN", ".NOCAP"};
    int ntraded = 0;
    for (int i = 0; i < truth->n; i++) {
        const series *t = &truth->s[i];
        int traded = takes(pub_grade(t->grade), &push);
        ntraded += traded;
        double tmean = 0;
        for (int d = 0; d < DAYS; d++)
            if (!isnan(t->v[d])) tmean += t->v[d] / valued(t->v);
        for (int k = 0; k < 3; k++) {
            char id[96];
            snprintf(id, sizeof id, "%s%s", t->grade, variants[k]);
            const series *a = find(on, id, 0), *b = find(off, id, 0);
            assert_non_null(a);
            assert_non_null(b);
            double e2 = effect(a->v, b->v), e1 = effect(a->xs, b->xs);
            if (!traded) {
                if (e2 != 0 || e1 != 0)
                    fail_msg("%s: the pusher moved a grade that does not take its rows (v2 "
                             "%.4f, v1 %.4f)", id, e2, e1);
                continue;
            }
            if (k == 0) {
                double loo = lab_loo_max("lab-v2.json", t->grade);
                print_message("%-16s pusher effect v2 %.4f (lab leave-one-out max %.4f), "
                              "true price %.4f\n", id, e2, loo, tmean);
                assert_true(e2 > 0);
                if (!(e2 <= loo))
                    fail_msg("%s: the pusher moved the value by %.4f, more than the largest "
                             "leave-one-provider-out move %.4f", id, e2, loo);
                if (!(e2 < 0.06 * tmean))
                    fail_msg("%s: the pusher moved the value by %.4f (%.1f %% of the true "
                             "price)", id, e2, 100 * e2 / tmean);
            }
            if (k == 2) {
                print_message("%-16s pusher effect on the cross-section without the cap %.4f "
                              "(%.1f %% of the true price)\n", id, e1, 100 * e1 / tmean);
                if (!(e1 > 0.20 * tmean))
                    fail_msg("%s: without the cap the pusher moved the cross-section by only "
                             "%.4f: the planted manipulation is not visible", id, e1);
            }
        }
    }
    /* H100-SXM.OD: H100 SXM on demand, every tier and scope */
    assert_int_equal(ntraded, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truth_is_the_volume_weighted_median_of_the_model),
        cmocka_unit_test(test_script_figures_match_recomputation),
        cmocka_unit_test(test_mae_within_stated_bounds),
        cmocka_unit_test(test_pusher_effect_bounded),
    };
    return cmocka_run_group_tests_name("e2e_accuracy", tests, setup, teardown);
}
