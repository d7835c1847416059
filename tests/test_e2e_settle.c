/* tests/test_e2e_settle.c -- `gpuidx settle` end to end.
 *
 * Each test builds a database with the store API (index rows and published
 * vintages, as the index build would leave them), writes contract and
 * positions files, runs the real binary and checks stdout, stderr and the
 * exit code exactly.  Expected prices are the Python-computed literals of
 * test_settlement.c (hedge-and-settlement.md §6F in SPEC §8's formula).
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/index_values.h"
#include "store/grades.h"
#include "store/testing.h"

#define H100 "H100-SXM.OD"
#define A100 "A100-SXM-80.OD"

static int32_t day_of(int y, int m, int d) { return gpi_days_from_civil(y, m, d); }

static void put_day(store *st, const char *grade, int32_t day, int64_t e4)
{
    store_index_row r;
    memset(&r, 0, sizeof r);
    r.day = day;
    snprintf(r.grade, sizeof r.grade, "%s", grade);
    r.level = e4 < 0 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES;
    r.value_e4 = e4;
    r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = r.p90_micro =
        r.min_micro = r.max_micro = r.top_share_e6 = -1;
    snprintf(r.methodology, sizeof r.methodology, "v1");
    gpi_diag d = {""};
    if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("%s", d.msg);
}

static void put_published(store *st, const char *grade, int32_t day, int vintage, int64_t e4)
{
    gpi_diag d = {""};
    if (store_index_put_published(st, grade, day, vintage,
                                  e4 < 0 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES, e4,
                                  &d) != GPI_OK)
        fail_msg("%s", d.msg);
}

static store *open_db(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/gpuidx.db", dir);
    store *st = NULL;
    gpi_diag d = {""};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    return st;
}

/* §6F: Feb 2025 suspended except 02-28 = 2.418; March 2025 business days
 * but the 17th carry the reference values; other days suspended.  Also
 * one day of the A100 grade so both grades are known. */
static const int wx_mday[20] = {3, 4, 5, 6, 7, 10, 11, 12, 13, 14,
                                18, 19, 20, 21, 24, 25, 26, 27, 28, 31};
static const int64_t wx_e4[20] = {24120, 24050, 23980, 24010, 23900, 23860, 23790,
                                  23830, 23710, 23660, 23590, 23520, 23480, 23550,
                                  23410, 23370, 23300, 23340, 23260, 23170};
static const char *const wx_daily[32] = {
    "2.418", "2.418", "2.418", "2.412", "2.405", "2.399", "2.401", "2.392",
    "2.392", "2.392", "2.389", "2.383", "2.386", "2.378", "2.375", "2.375",
    "2.375", "2.376", "2.372", "2.368", "2.366", "2.369", "2.370", "2.370",
    "2.365", "2.364", "2.362", "2.363", "2.361", "2.363", "2.365", "2.365"};

static char *worked_db(int skip_mday)
{
    char *dir = tu_mkdtemp("e2e-settle");
    store *st = open_db(dir);
    gpi_diag d = {""};
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int32_t t = day_of(2025, 2, 1); t <= day_of(2025, 3, 31); t++) {
        int y, m, md;
        gpi_civil_from_days(t, &y, &m, &md);
        if (m == 3 && md == skip_mday) continue;
        int64_t v = t == day_of(2025, 2, 28) ? 24180 : -1;
        for (int i = 0; i < 20; i++)
            if (m == 3 && md == wx_mday[i]) v = wx_e4[i];
        put_day(st, H100, t, v);
    }
    put_day(st, A100, day_of(2025, 3, 1), 12000);
    /* registered as a build registers them (the did-you-mean reads them) */
    int conflict = 0;
    char stored[65];
    if (store_grade_register(st, H100, 1, "h1", "{}", 0, &conflict, stored, &d) != GPI_OK ||
        store_grade_register(st, A100, 1, "a1", "{}", 0, &conflict, stored, &d) != GPI_OK)
        fail_msg("register: %s", d.msg);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    return dir;
}

static const char worked_contract[] =
    "{\"contracts\": [{\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD\","
    " \"month\": \"2025-03\", \"size\": 1000, \"tick\": 0.001, \"min_published_days\": %d}]}\n";

static char *write_contract(const char *dir, int min_days)
{
    char text[512];
    snprintf(text, sizeof text, worked_contract, min_days);
    return tu_write(dir, "contracts.json", text);
}

/* The expected settlement CSV of the worked example up to row `upto`. */
static void worked_prices(char *out, size_t cap, size_t upto, const char *final)
{
    size_t o = (size_t)snprintf(out, cap, "date,symbol,settlement_price,kind\n");
    for (size_t i = 0; i < upto; i++) {
        char day[11];
        gpi_date_format(day_of(2025, 2, 28) + (int32_t)i, day);
        o += (size_t)snprintf(out + o, cap - o, "%s,GPUH-2503,%s,daily\n", day, wx_daily[i]);
    }
    if (final) snprintf(out + o, cap - o, "%s", final);
}

static void test_e2e_settle_worked_example(void **state)
{
    (void)state;
    char *dir = worked_db(0);
    char *c = write_contract(dir, 15);
    char *p = tu_write(dir, "positions.csv",
                       "account,symbol,contracts,entry_price\n"
                       "hedger,GPUH-2503,-740,2.450\n"
                       "fund,GPUH-2503,500,2.450\n"
                       "desk,GPUH-2503,240,\n");
    /* the ledger is a table of its own: --positions without --ledger is a
     * usage error (two tables in one stream loaded nowhere) */
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s'", c, p);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "gpuidx: settle: --positions needs --ledger FILE (the margin ledger"
                               " is a table of its own; stdout has the settlement prices)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s'"
                       " --ledger ledger.csv", c, p);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    assert_string_equal(r.err, "settle: GPUH-2503: settled: final settlement price 2.365 (20 days"
                               " with a value in 2025-03)\n");
    char want[8192];
    worked_prices(want, sizeof want, 32, "2025-03-31,GPUH-2503,2.365,final\n");
    assert_string_equal(r.out, want);
    tu_run_free(&r);
    char lpath[4200];
    snprintf(lpath, sizeof lpath, "%s/ledger.csv", dir);
    char *ledger = tu_read(lpath);
    assert_non_null(ledger);
    /* the ledger: per-account sums, zero-net days, the hedger's +$62,900 */
    const char *l = ledger;
    const char *hdr = "date,account,symbol,contracts,settlement_price,variation_margin_cents\n";
    assert_int_equal(strncmp(l, hdr, strlen(hdr)), 0);
    l += strlen(hdr);
    long long sum_h = 0, sum_f = 0, sum_d = 0, day_sum = 0;
    int nrows = 0;
    char line[256];
    const char *e;
    while ((e = strchr(l, '\n'))) {
        snprintf(line, sizeof line, "%.*s", (int)(e - l), l);
        l = e + 1;
        char date[16], acct[32], sym[32], price[32];
        long long k, vm;
        if (sscanf(line, "%15[^,],%31[^,],%31[^,],%lld,%31[^,],%lld", date, acct, sym, &k, price,
                   &vm) != 6)
            fail_msg("bad ledger line %s", line);
        if (strcmp(acct, "hedger") == 0) sum_h += vm;
        if (strcmp(acct, "fund") == 0) sum_f += vm;
        if (strcmp(acct, "desk") == 0) sum_d += vm;
        day_sum += vm;
        if (++nrows % 3 == 0 && nrows > 3) {
            /* after the first day (entries differ) every day nets to zero */
            if (day_sum != 0) fail_msg("%s does not net to zero (%lld)", date, day_sum);
        }
        if (nrows % 3 == 0) day_sum = 0;
    }
    assert_int_equal(nrows, 33 * 3);
    assert_int_equal(sum_h, 6290000);        /* -740 x 1000 x (2.365 - 2.450) */
    assert_int_equal(sum_f, -4250000);       /*  500 x 1000 x (2.365 - 2.450) */
    assert_int_equal(sum_d, -1272000);       /*  240 x 1000 x (2.365 - 2.418) */
    assert_non_null(strstr(ledger, "\n2025-02-28,hedger,GPUH-2503,-740,2.418,2368000\n"));
    assert_non_null(strstr(ledger, "\n2025-02-28,desk,GPUH-2503,240,2.418,0\n"));
    assert_non_null(strstr(ledger, "\n2025-03-31,hedger,GPUH-2503,-740,2.365,0\n"));
    assert_non_null(strstr(ledger, "\n2025-03-31,fund,GPUH-2503,500,2.365,0\n"));
    free(ledger);
    free(p);
    free(c);
    free(dir);
}

static void test_e2e_settle_insufficient_and_through(void **state)
{
    (void)state;
    char *dir = worked_db(0);
    char *c = write_contract(dir, 21);
    char *p = tu_write(dir, "positions.csv", "account,symbol,contracts\nfund,GPUH-2503,5\n");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s'"
                              " --ledger l.csv", c, p);
    assert_int_equal(r.status, 0);
    char want[8192];
    worked_prices(want, sizeof want, 32, "2025-03-31,GPUH-2503,,insufficient\n");
    assert_string_equal(r.out, want);
    assert_string_equal(r.err,
                        "settle: GPUH-2503: insufficient: 20 days with a value in 2025-03, fewer"
                        " than min_published_days 21; no final settlement price\n"
                        "gpuidx: GPUH-2503: account fund: 5 contracts stay open (no final"
                        " settlement price)\n");
    tu_run_free(&r);

    /* --through 2025-03-10: eleven dailies, no final row */
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --through 2025-03-10", c);
    assert_int_equal(r.status, 0);
    worked_prices(want, sizeof want, 11, NULL);
    assert_string_equal(r.out, want);
    assert_string_equal(r.err, "settle: GPUH-2503: provisional: 2025-03 is not over on 2025-03-10;"
                               " daily prices through 2025-03-10\n");
    tu_run_free(&r);
    /* --through before the listing: nothing to settle yet, not a usage error */
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --through 2025-01-31", c);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "date,symbol,settlement_price,kind\n");
    assert_string_equal(r.err, "settle: GPUH-2503: provisional: not listed by 2025-01-31 (trading"
                               " from 2025-02-01)\n");
    tu_run_free(&r);
    /* prices that cannot reach stdout fail the command */
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --through 2025-03-10 >/dev/full", c);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "settle: GPUH-2503: provisional: 2025-03 is not over on 2025-03-10;"
                               " daily prices through 2025-03-10\n"
                               "gpuidx: stdout: write failed\n");
    tu_run_free(&r);
    free(p);
    free(c);
    free(dir);
}

static void test_e2e_settle_missing_day(void **state)
{
    (void)state;
    char *dir = worked_db(12); /* 2025-03-12 never built */
    char *c = write_contract(dir, 15);
    /* settled as far as the index is built: the daily prices up to the
     * day before the gap, exit 0, and the reason */
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s'", c);
    assert_int_equal(r.status, 0);
    char want[8192];
    worked_prices(want, sizeof want, 12, NULL);
    assert_string_equal(r.out, want);
    assert_string_equal(r.err, "settle: GPUH-2503: provisional: grade H100-SXM.OD is not built on"
                               " 2025-03-12; daily prices through 2025-03-11 (build it: gpuidx"
                               " index build)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --through 2025-03-11", c);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, want);
    tu_run_free(&r);
    free(c);
    free(dir);
}

/* Contracts of months never built settle nothing and say so, beside those
 * that settle: one status line each, exit 0. */
static void test_e2e_settle_months_not_built(void **state)
{
    (void)state;
    char *dir = worked_db(0); /* built 2025-02-01 .. 2025-03-31 */
    char *c = tu_write(dir, "c.json",
                       "{\"contracts\": [{\"symbol\": \"GPUH-2503\", \"grade\": \"" H100 "\","
                       " \"month\": \"2025-03\"},\n"
                       "{\"symbol\": \"GPUH-2504\", \"grade\": \"" H100 "\", \"month\": \"2025-04\"},\n"
                       "{\"symbol\": \"GPUH-2506\", \"grade\": \"" H100 "\", \"month\": \"2025-06\"}]}\n");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s'", c);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n2025-03-31,GPUH-2503,2.3645,final\n"));
    assert_non_null(strstr(r.out, "\n2025-03-31,GPUH-2504,"));
    assert_null(strstr(r.out, "GPUH-2506"));
    assert_string_equal(r.err,
                        "settle: GPUH-2503: settled: final settlement price 2.3645 (20 days with a"
                        " value in 2025-03)\n"
                        "settle: GPUH-2504: provisional: grade H100-SXM.OD is not built on"
                        " 2025-04-01; daily prices through 2025-03-31 (build it: gpuidx index"
                        " build)\n"
                        "settle: GPUH-2506: provisional: grade H100-SXM.OD is not built from the"
                        " listing, 2025-05-01 (build it: gpuidx index build)\n");
    tu_run_free(&r);
    free(c);
    free(dir);
}

static void test_e2e_settle_first_published_vs_latest(void **state)
{
    (void)state;
    /* April and May 2025 at 2.0000, published as vintage 1; 05-10 restated
     * to 2.3100 (vintage 2, the stored value); 05-31 stored, never
     * published, 2.0310.  First published: (29 x 2 + 2 + 2.031)/31 =
     * 2.0010; latest: (29 x 2 + 2.31 + 2.031)/31 = 2.0110. */
    char *dir = tu_mkdtemp("e2e-settle-vintage");
    store *st = open_db(dir);
    for (int32_t t = day_of(2025, 4, 1); t <= day_of(2025, 5, 31); t++) {
        if (t == day_of(2025, 5, 31)) {
            put_day(st, H100, t, 20310);
        } else if (t == day_of(2025, 5, 10)) {
            put_day(st, H100, t, 23100);
            put_published(st, H100, t, 1, 20000);
            put_published(st, H100, t, 2, 23100);
        } else {
            put_day(st, H100, t, 20000);
            put_published(st, H100, t, 1, 20000);
        }
    }
    store_close(st);
    char *c = tu_write(dir, "c.json",
                       "{\"contracts\": [{\"symbol\": \"GPUH-2505\", \"grade\": \"H100-SXM.OD\","
                       " \"month\": \"2025-05\"}]}");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s'", c);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n2025-05-10,GPUH-2505,2.0000,daily\n"));
    assert_non_null(strstr(r.out, "\n2025-05-31,GPUH-2505,2.0010,final\n"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --latest", c);
    assert_int_equal(r.status, 0);
    /* 05-10: (9 x 2 + 2.31 + 21 x 2.31) / 31 = 2.22 exactly */
    assert_non_null(strstr(r.out, "\n2025-05-10,GPUH-2505,2.2200,daily\n"));
    assert_non_null(strstr(r.out, "\n2025-05-31,GPUH-2505,2.0110,final\n"));
    tu_run_free(&r);
    free(c);
    free(dir);
}

static void test_e2e_settle_leap_february(void **state)
{
    (void)state;
    /* the pattern series of test_settlement.c: FSP 2.0476 dated 02-29 */
    char *dir = tu_mkdtemp("e2e-settle-leap");
    store *st = open_db(dir);
    gpi_diag d = {""};
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int32_t t = day_of(2024, 1, 1); t <= day_of(2024, 2, 29); t++)
        put_day(st, A100, t, t % 7 == 3 ? -1 : 20000 + ((int64_t)t * 7919) % 997 + (t % 31) * 3);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    char *c = tu_write(dir, "c.json",
                       "{\"contracts\": [{\"symbol\": \"GPUA-2402\", \"grade\": \"A100-SXM-80.OD\","
                       " \"month\": \"2024-02\"}]}");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s'", c);
    assert_int_equal(r.status, 0);
    const char *tail = "2024-02-28,GPUA-2402,2.0478,daily\n"
                       "2024-02-29,GPUA-2402,2.0476,daily\n"
                       "2024-02-29,GPUA-2402,2.0476,final\n";
    size_t n = strlen(r.out), tn = strlen(tail);
    assert_true(n > tn);
    assert_string_equal(r.out + n - tn, tail);
    assert_non_null(strstr(r.out, "\n2024-02-01,GPUA-2402,2.0653,daily\n"));
    tu_run_free(&r);
    free(c);
    free(dir);
}

static void test_e2e_settle_bad_contract_files(void **state)
{
    (void)state;
    char *dir = worked_db(0);
    static const struct {
        const char *body, *msg;
    } cases[] = {
        {"\"symbol\": \"GPUB-2503\", \"grade\": \"B200.OD\", \"month\": \"2025-03\"",
         "contract 1 (GPUB-2503): grade: unknown grade (not built in the database)"
         " (got \"B200.OD\")"},
        /* a typo of a built grade: the nearest built ones */
        {"\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.0D\", \"month\": \"2025-03\"",
         "contract 1 (GPUH-2503): grade: unknown grade (not built in the database)"
         " (got \"H100-SXM.0D\") (did you mean H100-SXM.OD?)"},
        {"\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-3\"",
         "contract 1 (GPUH-2503): month: not a month YYYY-MM (got \"2025-3\")"},
        {"\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-03\","
         " \"tick\": -0.0001",
         "contract 1 (GPUH-2503): tick: must be greater than 0 (got \"-0.0001\")"},
        {"\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-03\","
         " \"size\": 10, \"tick\": 0.0001",
         "contract 1 (GPUH-2503): size x tick: not a whole number of cents (got 10 x 0.0001 USD)"},
        {"\"symbol\": \"GPUH 2503\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-03\"",
         "contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"GPUH 2503\")"},
        /* a tick of 1000 made every price and margin 0 without a word
         * (issue 12); the first value settled on is February's first */
        {"\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-03\","
         " \"tick\": 1000",
         "contract 1 (GPUH-2503): tick: more than 1% of the value 2.4180 of H100-SXM.OD on 2025-02-28, so"
         " prices would move in steps of over 1% (got \"1000\")"},
        {"\"symbol\": \"GPUH-2502\", \"grade\": \"H100-SXM.OD\", \"month\": \"2025-02\","
         " \"min_published_days\": 29",
         "contract 1 (GPUH-2502): min_published_days: must be at most 28, the days of 2025-02 (it"
         " could never settle) (got \"29\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"contracts\": [{%s}]}\n", cases[i].body);
        char *c = tu_write(dir, "bad.json", text);
        tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s'", c);
        char want[1024];
        snprintf(want, sizeof want, "gpuidx: %s:1: %s\n", c, cases[i].msg);
        if (r.status != 1) fail_msg("case %zu: exit %d", i, r.status);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, want);
        tu_run_free(&r);
        free(c);
    }
    /* a bad positions file is named with its line */
    char *c = write_contract(dir, 15);
    char *p = tu_write(dir, "p.csv", "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH-2503,0\n");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s' --ledger l.csv", c, p);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "");
    char want[1024];
    snprintf(want, sizeof want, "gpuidx: %s:3: contracts: must not be 0 (got \"0\")\n", p);
    assert_string_equal(r.err, want);
    tu_run_free(&r);
    free(p);
    free(c);
    free(dir);
}

static void test_e2e_settle_ledger_file_all_or_nothing(void **state)
{
    (void)state;
    /* a margin amount beyond int64 cents (10^9 contracts x 10^9 GPU-hours
     * x 0.01 USD tick, 142 ticks from the entry) fails the run: exit 1,
     * nothing on stdout, and no --ledger file left behind with part of a
     * ledger */
    char *dir = worked_db(0);
    char *c = tu_write(dir, "big.json",
                       "{\"contracts\": [{\"symbol\": \"BIG\", \"grade\": \"" H100 "\","
                       " \"month\": \"2025-03\", \"size\": 1000000000, \"tick\": 0.01}]}");
    char *p = tu_write(dir, "p.csv", "account,symbol,contracts,entry_price\nwhale,BIG,1000000000,1\n");
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s'"
                              " --ledger ledger.csv", c, p);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "gpuidx: BIG: account whale: margin amount too large\n");
    char lpath[4200];
    snprintf(lpath, sizeof lpath, "%s/ledger.csv", dir);
    char *ledger = tu_read(lpath);
    if (ledger) fail_msg("a partial ledger was left: '%s'", ledger);
    tu_run_free(&r);
    /* an unwritable --ledger path is an error before anything is printed */
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s' --positions '%s'"
                       " --ledger no/such/dir/l.csv", c, p);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    free(p);
    free(c);
    free(dir);
}

static void test_e2e_settle_usage_and_shipped_contracts(void **state)
{
    (void)state;
    char *dir = worked_db(0);
    tu_run r = tu_gpuidx(dir, "--db gpuidx.db settle --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] settle --contracts FILE"));
    tu_run_free(&r);
    static const struct {
        const char *args, *err;
    } usage[] = {
        {"settle", "gpuidx: settle: --contracts FILE is required (see gpuidx settle --help)\n"},
        {"settle --contracts c.json --through 2025-02-30",
         "gpuidx: settle: --through: no such calendar date (got \"2025-02-30\")\n"},
        {"settle --contracts c.json --bogus",
         "gpuidx: settle: unknown argument '--bogus' (see gpuidx settle --help)\n"},
        {"settle --contracts", "gpuidx: settle: option '--contracts' needs a value\n"},
        {"settle --contracts c.json --ledger l.csv", "gpuidx: settle: --ledger needs --positions\n"},
        {"settle --contracts c.json --positions p.csv",
         "gpuidx: settle: --positions needs --ledger FILE (the margin ledger is a table of its own;"
         " stdout has the settlement prices)\n"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        r = tu_gpuidx(dir, "--db gpuidx.db %s", usage[i].args);
        if (r.status != 2) fail_msg("%s: exit %d", usage[i].args, r.status);
        assert_string_equal(r.err, usage[i].err);
        assert_string_equal(r.out, "");
        tu_run_free(&r);
    }
    r = tu_gpuidx(dir, "--db nothere.db settle --contracts c.json");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err,
                        "gpuidx: settle: no database at nothere.db (ingest observations first, or"
                        " pass --db)\n");
    tu_run_free(&r);
    /* the shipped example contracts load against a database with both
     * grades; settled through a day before any listing they print only the
     * header */
    r = tu_gpuidx(dir, "--db gpuidx.db settle --contracts '%s/data/contracts.json'"
                       " --through 2024-11-30", tu_srcdir());
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    assert_string_equal(r.out, "date,symbol,settlement_price,kind\n");
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_settle_worked_example),
        cmocka_unit_test(test_e2e_settle_insufficient_and_through),
        cmocka_unit_test(test_e2e_settle_months_not_built),
        cmocka_unit_test(test_e2e_settle_missing_day),
        cmocka_unit_test(test_e2e_settle_first_published_vs_latest),
        cmocka_unit_test(test_e2e_settle_leap_february),
        cmocka_unit_test(test_e2e_settle_bad_contract_files),
        cmocka_unit_test(test_e2e_settle_usage_and_shipped_contracts),
        cmocka_unit_test(test_e2e_settle_ledger_file_all_or_nothing),
    };
    return cmocka_run_group_tests_name("e2e_settle", tests, NULL, NULL);
}
