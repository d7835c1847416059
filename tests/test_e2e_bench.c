/* tests/test_e2e_bench.c -- bench/index end to end on a small market, and
 * bench/compare_index.py (BENCHMARKS.md "Index end to end").
 *
 * bench/index runs with the binary under test on a 20-day market at scale
 * 1, once on both cores and once with ONE_CORE=1, and with the DuckDB peer
 * pointed at a directory without @duckdb/node-api, so that `make test`
 * never needs Node or npm: the bench must then say so in one line and
 * leave the DuckDB row out.  Pinned: the run succeeds (it stopped at
 * `index build` once its grades became candidates that reuse an id of
 * data/grades.json, issue 13), the last day is published with all 20
 * bench grades, pandas' rows are matched with gpuidx's on every
 * grade-day, and the one-core run says it pinned the timed processes.
 * compare_index.py is checked on hand-made rows: its counts, and the
 * differing cells it lists.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *skip_reason;

static void need_tools(void)
{
    if (skip_reason) {
        print_message("skipped: %s\n", skip_reason);
        skip();
    }
}

static int setup(void **state)
{
    (void)state;
    /* find_spec: whether pandas is installed, without the second and a
     * half its import takes (the bench imports it itself) */
    tu_run r = tu_sh(NULL, "/usr/bin/python3 -c 'import importlib.util, sys; "
                           "sys.exit(importlib.util.find_spec(\"pandas\") is None)' && "
                           "command -v taskset && command -v cc");
    if (r.status != 0)
        skip_reason = "bench/index needs /usr/bin/python3 with pandas (tools/deps.sh installs it), "
                      "taskset and cc";
    tu_run_free(&r);
    return 0;
}

/* Runs bench/index in a fresh work directory with env (shell text). */
static tu_run bench(const char *env, char **work)
{
    *work = tu_mkdtemp("bench");
    const char *bin = getenv("GPUIDX_BIN");
    return tu_sh(tu_srcdir(), "%s GPUIDX_DUCKDB_DIR=/nonexistent SCALE=1 DAYS=20 WORK='%s' "
                              "sh bench/index '%s'",
                 env, *work, bin ? bin : "build/gpuidx");
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++) n += *p == '\n';
    return n;
}

static void test_bench_index_runs_and_agrees(void **state)
{
    (void)state;
    need_tools();
    char *work;
    tu_run r = bench("", &work);
    if (r.status != 0) fail_msg("bench/index failed (%d):\n%s", r.status, r.err);
    assert_non_null(strstr(r.out, "## Index end to end\n"));
    assert_non_null(strstr(r.out, "side in one run of `bench/index` ("));
    assert_non_null(strstr(r.out, "| gpuidx (ingest, build, publish: "));
    assert_non_null(strstr(r.out, "| ratio (pandas / gpuidx) | **"));
    assert_non_null(strstr(r.out, "Results, pandas: 400 grade-days compared (0 only in gpuidx, "
                                  "0 only in the peer): level agrees on 400 (100.0 %), level and "
                                  "value on "));
    /* no DuckDB here: one line says why, and there is no DuckDB row */
    assert_non_null(strstr(r.err, "bench/index: DuckDB pipeline skipped: @duckdb/node-api is not "
                                  "installed in /nonexistent (run sh bench/duckdb-setup)\n"));
    assert_null(strstr(r.out, "DuckDB"));
    /* the last day is published with the bench's 20 grades */
    char path[4096];
    snprintf(path, sizeof path, "%s/publish/2025-01-20/index.csv", work);
    char *csv = tu_read(path);
    if (!csv) fail_msg("%s: not published", path);
    assert_int_equal(count_lines(csv), 21);
    assert_non_null(strstr(csv, "\n2025-01-20,H100-SXM.SPOT,"));
    assert_non_null(strstr(csv, "\n2025-01-20,L40S.SPOT,"));
    free(csv);
    tu_run_free(&r);
    free(work);
}

static void test_bench_index_one_core(void **state)
{
    (void)state;
    need_tools();
    char *work;
    tu_run r = bench("ONE_CORE=1", &work);
    if (r.status != 0) fail_msg("bench/index failed (%d):\n%s", r.status, r.err);
    assert_non_null(strstr(r.out, "side in one run of `bench/index` (ONE_CORE=1: every timed "
                                  "process on one core, `taskset -c 0`; "));
    assert_non_null(strstr(r.err, "bench/index: gpuidx ingest + build + publish (taskset -c 0)\n"));
    assert_non_null(strstr(r.out, "Results, pandas: 400 grade-days compared"));
    tu_run_free(&r);
    free(work);
}

/* compare_index.py on hand-made rows: one value differs, one level, one
 * grade-day only in each file, and an extra column. */
static void test_compare_index_counts_and_lists_differences(void **state)
{
    (void)state;
    need_tools();
    char *dir = tu_mkdtemp("cmpidx");
    free(tu_write(dir, "g.csv",
             "date,grade,value,level,n_obs,note\n"
             "2025-01-01,A,1.0000,trades,5,\n"
             "2025-01-01,B,2.0001,trades,7,\n"
             "2025-01-02,A,1.0000,carried,5,x\n"
             "2025-01-02,B,2.0000,offers,7,\n"
             "2025-01-03,A,1.5000,trades,4,\n"));
    free(tu_write(dir, "p.csv",
             "date,grade,value,level,n_obs\n"
             "2025-01-01,A,1.0000,trades,5\n"
             "2025-01-01,B,2.0000,trades,7\n"
             "2025-01-02,A,1.0000,offers,5\n"
             "2025-01-02,B,2.0000,offers,6\n"
             "2025-01-04,A,1.0000,trades,4\n"));
    static const struct {
        const char *flag, *line;
    } cases[] = {
        {"", "4 grade-days compared (1 only in gpuidx, 1 only in the peer): level agrees on 3 "
             "(75.0 %), level and value on 2 (50.0 %)\n"},
        {"--all-columns", "4 grade-days compared (1 only in gpuidx, 1 only in the peer): level "
                          "agrees on 3 (75.0 %), level and value on 2 (50.0 %), all 3 columns on "
                          "1 (25.0 %)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_sh(dir, "/usr/bin/python3 '%s/bench/compare_index.py' g.csv p.csv d.csv %s",
                         tu_srcdir(), cases[i].flag);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, cases[i].line);
        tu_run_free(&r);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/d.csv", dir);
    char *diff = tu_read(path);
    assert_non_null(diff);
    assert_string_equal(diff, "date,grade,column,gpuidx,peer\n"
                              "2025-01-01,B,value,2.0001,2.0000\n"
                              "2025-01-02,A,level,carried,offers\n"
                              "2025-01-02,B,n_obs,7,6\n");
    free(diff);
    tu_run r = tu_sh(dir, "/usr/bin/python3 '%s/bench/compare_index.py' g.csv p.csv d.csv --all",
                     tu_srcdir());
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "usage: compare_index.py GPUIDX.csv PEER.csv DIFF.csv [--all-columns]\n");
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_index_counts_and_lists_differences),
        cmocka_unit_test(test_bench_index_runs_and_agrees),
        cmocka_unit_test(test_bench_index_one_core),
    };
    return cmocka_run_group_tests_name("e2e_bench", tests, setup, NULL);
}
