/* tests/test_e2e_verify.c -- `gpuidx verify` end to end (verify/).
 *
 * Generated markets (`gpuidx simulate`) built with the shipped grades as
 * methodology v1 and as v2 and published day by day must verify with no
 * difference; the demo's published days and its December contract too.
 * Then every field of observations.csv is changed, one at a time, in lines
 * of several grades: verify must fail and name the date, the grade and the
 * column.  A change whose receipt is recomputed as well (what a publisher
 * altering its own inputs would do) must still fail, on the recomputed fix.
 * The receipt's rule (METHODOLOGY.md §7.1) is written again here and must
 * give the published hashes.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* observations.csv's columns in the current file format (4 added the
 * quantity by unit: traded_gpu_hours, offered_gpus; and v3's imputed flag) */
#define NCOLS 20
static const char *const cols[NCOLS] = {"date", "grade", "kind", "observed_at", "provider",
                                        "group", "source", "key", "region", "price", "quantity",
                                        "role", "reason", "matched", "ref_price", "base_price",
                                        "relative", "traded_gpu_hours", "offered_gpus",
                                        "imputed"};

static void ok(tu_run *r, const char *what)
{
    if (r->status != 0) fail_msg("%s: exit %d: %s%s", what, r->status, r->out, r->err);
    tu_run_free(r);
}

/* s with every `from` replaced by `to` (malloc'd). */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = s; (p = strstr(p, from)); p += lf) n++;
    char *out = malloc(strlen(s) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
    for (const char *p = s;;) {
        const char *q = strstr(p, from);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
        p = q + lf;
    }
    return out;
}

/* A market of `days` days from 2025-01-01 built with the grades shipped
 * before methodology v3 (tests/fixtures/grades_v2.json, every one v2; as
 * methodology v1 when v1) and published day by day into tmp/pub. */
static char *market(const char *tag, int days, int v1)
{
    char *tmp = tu_mkdtemp(tag);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/grades_v2.json", tu_srcdir());
    char *shipped = tu_read(path);
    assert_non_null(shipped);
    char *a = v1 ? replace_all(shipped, "\"method\": \"v2\"", "\"method\": \"v1\"") : strdup(shipped);
    char *b = v1 ? replace_all(a, "\"version\": 2", "\"version\": 1") : strdup(a);
    /* the grades are the published set of the market's own data folder
     * (the v1 twins reuse the shipped ids) */
    tu_run dr = tu_sh(tmp, "mkdir data && cp '%s'/data/*.csv data/", tu_srcdir());
    ok(&dr, "data folder");
    free(tu_write(tmp, "data/grades.json", b));
    free(shipped);
    free(a);
    free(b);
    char to[16];
    snprintf(to, sizeof to, "2025-%02d-%02d", days <= 31 ? 1 : days <= 59 ? 2 : 3,
             days <= 31 ? days : days <= 59 ? days - 31 : days - 59);
    char cmd[5][256];
    snprintf(cmd[0], sizeof cmd[0], "\"$GPUIDX_BIN\" simulate --days %d --seed 7 --start 2025-01-01 --out m", days);
    snprintf(cmd[1], sizeof cmd[1],
             "\"$GPUIDX_BIN\" --db t.db --data data ingest offers --admit-providers m/offers.csv");
    snprintf(cmd[2], sizeof cmd[2],
             "\"$GPUIDX_BIN\" --db t.db --data data ingest trades --admit-providers m/trades.csv");
    snprintf(cmd[3], sizeof cmd[3],
             "\"$GPUIDX_BIN\" --db t.db --data data index build --from 2025-01-01 --to %s", to);
    snprintf(cmd[4], sizeof cmd[4],
             "\"$GPUIDX_BIN\" --db t.db --data data index publish --from 2025-01-01 --to %s --out pub",
             to);
    const char *steps[5] = {cmd[0], cmd[1], cmd[2], cmd[3], cmd[4]};
    tu_run r = tu_sh_all(tmp, steps, 5);
    tu_run_free(&r);
    return tmp;
}

static long count(const char *s, const char *what)
{
    long n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* ---- markets verify --------------------------------------------------------------- */

/* The two markets, built once (group setup). */
static char *shared_v1, *shared_v2;

static int setup(void **state)
{
    (void)state;
    shared_v1 = market("e2e-verify-v1", 40, 1);
    shared_v2 = market("e2e-verify-v2", 64, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(shared_v1);
    free(shared_v2);
    return 0;
}

static void test_v1_market_verifies(void **state)
{
    (void)state;
    const char *tmp = shared_v1;
    tu_run r = tu_gpuidx(tmp, "verify pub");
    if (r.status != 0) fail_msg("verify: exit %d: %.2000s%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.out, "verify: 40 days, 320 grade-days: "));
    assert_non_null(strstr(r.out, ", 0 differ\n"));
    assert_int_equal(count(r.out, "DIFFERS"), 0);
    /* every level of v1 was recomputed: the market has offers days */
    tu_run lv = tu_sh(tmp, "(cat pub/*/index.csv | cut -d, -f4 | sort | uniq -c)");
    assert_non_null(strstr(lv.out, " offers\n"));
    assert_non_null(strstr(lv.out, " trades\n"));
    tu_run_free(&lv);
    /* a v1 day from day 31 on needs no day before 2025-01-01: fully verified */
    assert_non_null(strstr(r.out, "2025-02-09 H100-SXM.OD: ok\n"));
    tu_run_free(&r);
}

static void test_v2_market_verifies(void **state)
{
    (void)state;
    const char *tmp = shared_v2;
    tu_run r = tu_gpuidx(tmp, "verify --strict pub/2025-03-01 pub/2025-03-05");
    /* the rebalance of 2025-03-01 with all of its window published, and a
     * day of its period: fully verified */
    if (r.status != 0) fail_msg("verify: exit %d: %.3000s%s", r.status, r.out, r.err);
    /* 2 days x 8 grades, each fix and each term curve (file format 4) */
    assert_int_equal(count(r.out, ": ok\n"), 32);
    assert_int_equal(count(r.out, " curve: ok\n"), 16);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "verify pub");
    if (r.status != 0) fail_msg("verify: exit %d: %.2000s%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.out, "verify: 64 days, 512 grade-days: "));
    assert_non_null(strstr(r.out, ", 0 differ\n"));
    tu_run_free(&r);
    /* the rebalances really were verified: they are there (A100-SXM-40.OD
     * has no data on the simulated market: suspended every day) */
    r = tu_sh(tmp, "grep -c ',rebalance,' pub/2025-03-01/index.csv");
    assert_string_equal(r.out, "7\n");
    tu_run_free(&r);
    /* without a day of the anchor's window: said, not passed silently */
    r = tu_sh(tmp, "mv pub/2025-02-25 hidden");
    ok(&r, "hide a day");
    r = tu_gpuidx(tmp, "verify pub/2025-03-01");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "2025-03-01 H100-SXM.OD: ok; anchor not verifiable without "
                                  "pub/2025-02-25\n"));
    assert_non_null(strstr(r.out, "1 ok, 7 ok but not fully verifiable, 0 differ\n"));
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "verify --strict pub/2025-03-01");
    assert_int_equal(r.status, 1);
    tu_run_free(&r);
    r = tu_sh(tmp, "mv hidden pub/2025-02-25");
    ok(&r, "restore");
}

/* The demo (tools/demo.sh, run in a scratch folder): every published day
 * verifies, and the December contract's prices from the published days
 * equal `gpuidx settle`'s.  DEMO_QUICK=1 leaves out the demo's accuracy
 * benchmark and screenshot (two thirds of its time; neither touches the
 * published days or the settlement, and tests/test_e2e_accuracy.c and
 * tests/test_e2e_browser.c run them). */
static void test_demo_days_verify(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-verify-demo");
    tu_run r = tu_sh(tmp, "DEMO_QUICK=1 sh '%s/tools/demo.sh' \"$GPUIDX_BIN\"", tu_srcdir());
    ok(&r, "make demo");
    r = tu_gpuidx(tmp, "verify demo-out/publish");
    if (r.status != 0) fail_msg("verify: exit %d: %.2000s%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.out, "verify: 77 days, 1001 grade-days: "));
    assert_non_null(strstr(r.out, ", 0 differ\n"));
    /* December: every input of every day published */
    assert_non_null(strstr(r.out, "2025-12-31 H100-SXM.OD: ok\n"));
    assert_non_null(strstr(r.out, "2025-12-01 H100-SXM.OD: ok\n"));
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "verify --settlement --contracts demo-out/market/contracts.json --symbol "
                       "GPUH-2512 --against demo-out/settlement.csv demo-out/publish");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "GPUH-2512: ok (62 settlement prices)\n");
    tu_run_free(&r);
    /* the exchange twin (business days): 20 + 23 business days of November
     * and December 2025 and the final row */
    r = tu_gpuidx(tmp, "verify --settlement --contracts '%s/data/contracts-h100-exchange.json' "
                       "--symbol GPUHX-2512 --against demo-out/settlement-exchange.csv "
                       "demo-out/publish", tu_srcdir());
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "GPUHX-2512: ok (44 settlement prices)\n");
    tu_run_free(&r);
    /* the prices themselves, against settle's */
    r = tu_sh(tmp, "(\"$GPUIDX_BIN\" verify --settlement --contracts demo-out/market/contracts.json "
                   "--symbol GPUH-2512 demo-out/publish > v.csv && grep ',GPUH-2512,' "
                   "demo-out/settlement.csv | grep -E ',(daily|final)$' | cmp - v.csv)");
    ok(&r, "settlement prices");
    /* --through any day: before the listing there is nothing to verify
     * (it was a usage error); within the listing, the prices so far */
    r = tu_gpuidx(tmp, "verify --settlement --contracts demo-out/market/contracts.json --symbol "
                       "GPUH-2512 --through 2025-10-15 --against demo-out/settlement.csv "
                       "demo-out/publish");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "GPUH-2512: not listed by 2025-10-15 (trading from 2025-11-01): no "
                               "settlement price to verify\n");
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "verify --settlement --contracts demo-out/market/contracts.json --symbol "
                       "GPUH-2512 --through 2025-11-15 --against demo-out/settlement.csv "
                       "demo-out/publish");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "GPUH-2512: ok (15 settlement prices)\n");
    tu_run_free(&r);
    /* a changed first-published value is found */
    r = tu_sh(tmp, "sed -i 's/\"grade\":\"H100-SXM.OD\",\"value\":1\\./"
                   "\"grade\":\"H100-SXM.OD\",\"value\":2./' "
                   "demo-out/publish/2025-12-10/v1/index.json && grep -c '\"value\":2\\.' "
                   "demo-out/publish/2025-12-10/v1/index.json");
    ok(&r, "change a value");
    r = tu_gpuidx(tmp, "verify --settlement --contracts demo-out/market/contracts.json --symbol "
                       "GPUH-2512 --against demo-out/settlement.csv demo-out/publish");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "GPUH-2512: DIFFERS demo-out/settlement.csv:"));
    tu_run_free(&r);
    free(tmp);
}

/* ---- changed observations ----------------------------------------------------------- */

/* Splits a line (no quotes) into its NCOLS fields, in place. */
static int split(char *line, char **f)
{
    int k = 0;
    for (char *p = line; k < NCOLS;) {
        f[k++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return k;
}

/* The field changed by one byte: its last character to the next digit or
 * letter; an empty field gets one. */
static void mutate(const char *field, char *out, size_t n)
{
    snprintf(out, n, "%s", field);
    size_t k = strlen(out);
    if (k == 0) {
        snprintf(out, n, "1");
        return;
    }
    char *c = &out[k - 1];
    if (*c >= '0' && *c <= '9') *c = *c == '9' ? '0' : (char)(*c + 1);
    else if (*c >= 'a' && *c <= 'z') *c = *c == 'z' ? 'a' : (char)(*c + 1);
    else if (*c >= 'A' && *c <= 'Z') *c = *c == 'Z' ? 'A' : (char)(*c + 1);
    else *c = 'x';
}

/* observations.csv of day with line `ln` (0-based, after the header)
 * rebuilt with field c replaced by `val`. */
static char *with_field(const char *text, int ln, int c, const char *val)
{
    size_t cap = strlen(text) + strlen(val) + 16;
    char *out = malloc(cap), *o = out;
    const char *p = text;
    for (int i = -1; *p; i++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (i != ln) {
            memcpy(o, p, len);
            o += len;
        } else {
            char line[4096], *f[NCOLS];
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            assert_int_equal(split(line, f), NCOLS);
            for (int k = 0; k < NCOLS; k++) {
                const char *v = k == c ? val : f[k];
                size_t vl = strlen(v);
                if (k) *o++ = ',';
                memcpy(o, v, vl);
                o += vl;
            }
        }
        if (!e) break;
        *o++ = '\n';
        p = e + 1;
    }
    *o = '\0';
    return out;
}

/* Line numbers (0-based, after the header) of grade g: the first used
 * one of kind `kind` and the first excluded one, -1 when none. */
static void pick(const char *text, const char *g, const char *kind, int *used, int *excl)
{
    *used = *excl = -1;
    int matched = -1; /* v2: a used line that is matched, when there is one */
    const char *p = strchr(text, '\n') + 1;
    for (int i = 0; *p; i++) {
        const char *e = strchr(p, '\n');
        char line[4096], *f[NCOLS];
        snprintf(line, sizeof line, "%.*s", (int)(e - p), p);
        if (split(line, f) == NCOLS && strcmp(f[1], g) == 0) {
            if (*used < 0 && strcmp(f[2], kind) == 0 && strcmp(f[11], "used") == 0) *used = i;
            if (matched < 0 && strcmp(f[2], kind) == 0 && strcmp(f[11], "used") == 0 &&
                strcmp(f[13], "1") == 0)
                matched = i;
            if (*excl < 0 && strcmp(f[11], "excluded") == 0) *excl = i;
        }
        p = e + 1;
    }
    if (matched >= 0) *used = matched;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Changes each field of the chosen lines of grade g on day in tmp/pub and
 * checks that verify names date, grade and column. */
static void mutate_grade(const char *tmp, const char *day, const char *g, const char *kind)
{
    char path[4096], want[256];
    snprintf(path, sizeof path, "%s/pub/%s/observations.csv", tmp, day);
    char *orig = tu_read(path);
    assert_non_null(orig);
    int lines[2];
    pick(orig, g, kind, &lines[0], &lines[1]);
    assert_true(lines[0] >= 0);
    for (int li = 0; li < 2; li++) {
        if (lines[li] < 0) continue;
        /* the original fields */
        const char *p = orig;
        for (int i = -1; i < lines[li]; i++) p = strchr(p, '\n') + 1;
        char line[4096], *f[NCOLS];
        snprintf(line, sizeof line, "%.*s", (int)(strchr(p, '\n') - p), p);
        split(line, f);
        for (int c = 0; c < NCOLS; c++) {
            char val[256];
            mutate(f[c], val, sizeof val);
            char *text = with_field(orig, lines[li], c, val);
            write_file(path, text);
            free(text);
            tu_run r = tu_gpuidx(tmp, "verify pub/%s", day);
            if (c == 1)
                snprintf(want, sizeof want, "%s %s: DIFFERS observations.csv: the grade has ", day, g);
            else
                snprintf(want, sizeof want, "%s %s: DIFFERS observations.csv %s: the grade's %s fields "
                                            "differ from index.json's receipt", day, g, cols[c], cols[c]);
            if (r.status != 1 || !strstr(r.out, want))
                fail_msg("%s line %d: %s \"%s\" -> \"%s\": exit %d, want \"%s\" in:\n%s%s", day,
                         lines[li] + 2, cols[c], f[c], val, r.status, want, r.out, r.err);
            snprintf(want, sizeof want, "%s: DIFFERS observations.csv: its SHA-256 ", day);
            if (c != 1 && !strstr(r.out, want)) fail_msg("no file-level difference:\n%s", r.out);
            /* the other grades still verify */
            assert_int_equal(count(r.out, "DIFFERS"), c == 1 ? 2 : 2);
            tu_run_free(&r);
        }
    }
    write_file(path, orig);
    tu_run r = tu_gpuidx(tmp, "verify pub/%s", day);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    free(orig);
}

static void test_changed_observation_named_v2(void **state)
{
    (void)state;
    /* a trade (used, and the first exclusion) and an offer (on a day of the
     * offers relative) of v2 grades */
    mutate_grade(shared_v2, "2025-02-04", "H100-SXM.OD", "trade");
    mutate_grade(shared_v2, "2025-02-21", "A100-SXM-80.OD", "offer");
}

static void test_changed_observation_named_v1(void **state)
{
    (void)state;
    mutate_grade(shared_v1, "2025-02-04", "H100-SXM.OD", "trade");
}

/* ---- the receipt rule, and a change with its receipt recomputed ----------------------- */

/* The receipt of grade g's lines as METHODOLOGY.md §7.1 states it:
 * SHA-256 of the lines, and per column of the fields, each + NUL. */
static void receipt(const char *text, const char *g, char lines[65], char col[NCOLS][65])
{
    gpi_sha256 sl, sc[NCOLS];
    gpi_sha256_init(&sl);
    for (int c = 0; c < NCOLS; c++) gpi_sha256_init(&sc[c]);
    const char *p = strchr(text, '\n') + 1;
    while (*p) {
        const char *e = strchr(p, '\n');
        char line[4096], *f[NCOLS];
        snprintf(line, sizeof line, "%.*s", (int)(e - p), p);
        if (split(line, f) == NCOLS && strcmp(f[1], g) == 0) {
            gpi_sha256_update(&sl, p, (size_t)(e - p) + 1);
            for (int c = 0; c < NCOLS; c++) gpi_sha256_update(&sc[c], f[c], strlen(f[c]) + 1);
        }
        p = e + 1;
    }
    gpi_sha256_final(&sl, lines);
    for (int c = 0; c < NCOLS; c++) gpi_sha256_final(&sc[c], col[c]);
}

/* What a publisher changing its own inputs would publish: a used
 * observation's field c changed (to val, or by one byte when val is NULL),
 * and field c2 to val2 when c2 >= 0, and every SHA-256 of index.json
 * recomputed.  verify must find it in the recomputed fix. */
static void rehashed2(const char *tmp, const char *day, const char *g, const char *kind, int c,
                      const char *val, int c2, const char *val2, const char *want_field)
{
    char path[4096], jpath[4096];
    snprintf(path, sizeof path, "%s/pub/%s/observations.csv", tmp, day);
    snprintf(jpath, sizeof jpath, "%s/pub/%s/index.json", tmp, day);
    char *orig = tu_read(path), *json = tu_read(jpath);
    assert_non_null(orig);
    assert_non_null(json);
    char l0[65], c0[NCOLS][65], l1[65], c1[NCOLS][65], f0[65], f1[65];
    receipt(orig, g, l0, c0);
    /* the rule above gives the published receipt */
    assert_non_null(strstr(json, l0));
    for (int k = 0; k < NCOLS; k++) {
        char kv[96];
        snprintf(kv, sizeof kv, "\"%s\":\"%s\"", cols[k], c0[k]);
        if (!strstr(json, kv)) fail_msg("%s %s: receipt of %s is not %s", day, g, cols[k], c0[k]);
    }
    int used, excl;
    pick(orig, g, kind, &used, &excl);
    assert_true(used >= 0);
    char mval[256];
    if (!val) { /* one byte of the original changed */
        const char *p = orig;
        for (int i = -1; i < used; i++) p = strchr(p, '\n') + 1;
        char line[4096], *f[NCOLS];
        snprintf(line, sizeof line, "%.*s", (int)(strchr(p, '\n') - p), p);
        split(line, f);
        mutate(f[c], mval, sizeof mval);
        val = mval;
    }
    char *text = with_field(orig, used, c, val);
    if (c2 >= 0) {
        char *t2 = with_field(text, used, c2, val2);
        free(text);
        text = t2;
    }
    receipt(text, g, l1, c1);
    gpi_sha256_hex(orig, strlen(orig), f0);
    gpi_sha256_hex(text, strlen(text), f1);
    /* a column's hash by its name: two columns whose fields are the same
     * (reason and imputed, both empty) have the same hash */
    char k0[160], k1[160];
    snprintf(k0, sizeof k0, "\"%s\":\"%s\"", cols[c], c0[c]);
    snprintf(k1, sizeof k1, "\"%s\":\"%s\"", cols[c], c1[c]);
    char *j1 = replace_all(json, l0, l1), *j2 = replace_all(j1, k0, k1);
    if (c2 >= 0) {
        snprintf(k0, sizeof k0, "\"%s\":\"%s\"", cols[c2], c0[c2]);
        snprintf(k1, sizeof k1, "\"%s\":\"%s\"", cols[c2], c1[c2]);
        char *t2 = replace_all(j2, k0, k1);
        free(j2);
        j2 = t2;
    }
    char *j3 = replace_all(j2, f0, f1);
    write_file(path, text);
    write_file(jpath, j3);
    tu_run r = tu_gpuidx(tmp, "verify pub/%s", day);
    char want[256];
    snprintf(want, sizeof want, "%s %s: DIFFERS %s", day, g, want_field);
    if (r.status != 1 || !strstr(r.out, want) || strstr(r.out, "receipt"))
        fail_msg("%s %s %s -> %s: exit %d, want \"%s\" in:\n%s%s", day, g, cols[c], val, r.status,
                 want, r.out, r.err);
    tu_run_free(&r);
    write_file(path, orig);
    write_file(jpath, json);
    free(orig);
    free(json);
    free(text);
    free(j1);
    free(j2);
    free(j3);
}

static void rehashed(const char *tmp, const char *day, const char *g, const char *kind, int c,
                     const char *val, const char *want_field)
{
    rehashed2(tmp, day, g, kind, c, val, -1, NULL, want_field);
}

/* Fixed-point text with `digits` decimals -> integer units (no sign). */
static int64_t units(const char *s, int digits)
{
    int64_t v = 0;
    int frac = -1;
    for (; *s; s++) {
        if (*s == '.') {
            frac = 0;
            continue;
        }
        v = v * 10 + (*s - '0');
        if (frac >= 0) frac++;
    }
    for (; frac < digits; frac++) v *= 10;
    return v;
}

/* A matched offer whose price is four times its reference price, with its
 * relative to base written to agree (receipts recomputed): §10.3 leaves a
 * member that moved by more than error_factor (3x) out of the matched
 * sample, so verify names the line. */
static void test_rehashed_factor_move_found(void **state)
{
    (void)state;
    const char *tmp = shared_v2, *day = "2025-02-21", *g = "A100-SXM-80.OD";
    char path[4096];
    snprintf(path, sizeof path, "%s/pub/%s/observations.csv", tmp, day);
    char *orig = tu_read(path);
    assert_non_null(orig);
    int used, excl;
    pick(orig, g, "offer", &used, &excl);
    assert_true(used >= 0);
    const char *p = orig;
    for (int i = -1; i < used; i++) p = strchr(p, '\n') + 1;
    char line[4096], *f[NCOLS];
    snprintf(line, sizeof line, "%.*s", (int)(strchr(p, '\n') - p), p);
    assert_int_equal(split(line, f), NCOLS);
    assert_string_equal(f[13], "1");
    int64_t price = units(f[9], 6) * 4, base = units(f[15], 8);
    assert_true(price * 100 > 3 * units(f[14], 8)); /* more than 3x its reference price */
    __int128 rel = ((__int128)price * 100 * 1000000000000 * 2 + base) / (2 * base);
    char pv[32], rv[48];
    snprintf(pv, sizeof pv, "%lld.%06lld", (long long)(price / 1000000),
             (long long)(price % 1000000));
    snprintf(rv, sizeof rv, "%lld.%012lld", (long long)(rel / 1000000000000),
             (long long)(rel % 1000000000000));
    char want[128];
    snprintf(want, sizeof want, "observations.csv:%d matched: 1, but its price moved by more "
             "than error_factor since the reference day", used + 2);
    rehashed2(tmp, day, g, "offer", 9, pv, 16, rv, want);
    free(orig);
}

static void test_rehashed_change_found_in_the_fix(void **state)
{
    (void)state;
    /* Not every byte enters a fix (one micro-USD on a trade that is not the
     * median, an extreme or a quantile's neighbour changes nothing
     * published), so the changes here are ones that must: v1, a used
     * trade's price beyond all, its quantity, its provider group, its role;
     * and one byte of its kind, role or reason */
    rehashed(shared_v1, "2025-02-04", "H100-SXM.OD", "trade", 9, "9.999999", "");
    /* the quantity, in both its columns (format 4 gives a trade's in
     * traded_gpu_hours too) */
    rehashed2(shared_v1, "2025-02-04", "H100-SXM.OD", "trade", 10, "99999.000000", 17,
              "99999.000000", "");
    rehashed(shared_v1, "2025-02-04", "H100-SXM.OD", "trade", 5, "newgroup", "");
    rehashed(shared_v1, "2025-02-04", "H100-SXM.OD", "trade", 11, "excluded", "observations.csv:");
    static const int always[] = {2, 11, 12};
    for (size_t i = 0; i < N(always); i++)
        rehashed(shared_v1, "2025-02-04", "H100-SXM.OD", "trade", always[i], NULL,
                 "observations.csv:");
    /* v2, matched constituents: one byte of the price, the kind, role,
     * reason, the matched flag, the base price or the relative breaks the
     * published relative of the line, or the line */
    static const int always2[] = {2, 9, 11, 12, 13, 15, 16};
    for (size_t i = 0; i < N(always2); i++) {
        rehashed(shared_v2, "2025-02-21", "A100-SXM-80.OD", "offer", always2[i], NULL, "");
        if (always2[i] != 9) /* a trade's representative price may not move */
            rehashed(shared_v2, "2025-02-04", "H100-SXM.OD", "trade", always2[i], NULL, "");
    }
    rehashed(shared_v2, "2025-02-04", "H100-SXM.OD", "trade", 9, "9.999999", "");
}

/* ---- errors -------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-verify-err");
    tu_run mk = tu_sh(tmp, "mkdir -p old/2025-01-01");
    ok(&mk, "mkdir");
    free(tu_write(tmp, "old/2025-01-01/index.json", "{\"format\":2,\"rows\":[]}\n"));
    static const struct {
        const char *args, *err;
        int status;
    } cases[] = {
        {"verify", "usage: gpuidx verify", 2},
        {"verify --frob x", "gpuidx: verify: unknown argument '--frob' (see gpuidx verify --help)\n",
         2},
        {"verify --contracts c.json pub", "gpuidx: verify: --contracts, --symbol, --through and "
                                          "--against go with --settlement\n", 2},
        {"verify --settlement pub", "gpuidx: verify --settlement: --contracts and DIR are required\n",
         2},
        {"verify nowhere", "gpuidx: nowhere: not a folder of published days\n", 1},
        {"verify nowhere/2025-01-01", "gpuidx: nowhere: not a folder of published days\n", 1},
        {"verify old/2025-01-02", "gpuidx: old/2025-01-02: not published (no index.json)\n", 1},
        {"verify old/2025-01-01",
         "gpuidx: old/2025-01-01/index.json: file format 2: gpuidx verify needs format 3 (the "
         "rows' definitions and receipts; published since gpuidx added them)\n", 1},
    };
    for (size_t i = 0; i < N(cases); i++) {
        tu_run r = tu_gpuidx(tmp, "%s", cases[i].args);
        if (r.status != cases[i].status || strncmp(r.err, cases[i].err, strlen(cases[i].err)) != 0)
            fail_msg("%s: exit %d, stderr %s", cases[i].args, r.status, r.err);
        tu_run_free(&r);
    }
    tu_run r = tu_gpuidx(tmp, "verify --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx verify"));
    tu_run_free(&r);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v1_market_verifies),
        cmocka_unit_test(test_v2_market_verifies),
        cmocka_unit_test(test_demo_days_verify),
        cmocka_unit_test(test_changed_observation_named_v2),
        cmocka_unit_test(test_changed_observation_named_v1),
        cmocka_unit_test(test_rehashed_change_found_in_the_fix),
        cmocka_unit_test(test_rehashed_factor_move_found),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("e2e_verify", tests, setup, teardown);
}
