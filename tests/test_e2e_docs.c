/* tests/test_e2e_docs.c -- what a newcomer meets, checked on one run of
 * the whole demo (tools/demo.sh, as `make demo` runs it, in a scratch
 * folder):
 *
 *   - every CSV the demo writes loads with Python's csv module and with
 *     pandas into exactly its header's columns (settle wrote two tables in
 *     one stream, cost moves a field too many on days without a value);
 *   - the publication follows its schemas: every index.json of format 4
 *     validates against schema/index.schema.json (strict: a member the
 *     schema does not list fails), every datapackage.json describes its
 *     CSVs' columns exactly, every signature file validates against
 *     schema/signature.schema.json and is listed by its folder's
 *     datapackage.json, and the grade and contract files of data/,
 *     examples/ and the demo validate against theirs;
 *   - the generated parts of README.md, docs/ and BENCHMARKS.md are
 *     what a fresh run gives (tools/docs.py check; the real catalogue's
 *     parts where ../shared has it, else left out with a message);
 *   - the docs name no SPEC sections, issue numbers, /tmp scripts or
 *     machine paths.
 * The checks are tests/check_publication.py and tools/docs.py, run with
 * Debian's /usr/bin/python3 (python3-jsonschema, python3-pandas:
 * tools/deps.sh); without them the tests are skipped, saying why.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *demo_dir;        /* where tools/demo.sh ran (group setup) */
static const char *skip_reason;

static int setup(void **state)
{
    (void)state;
    tu_run r = tu_sh(NULL, "/usr/bin/python3 -c 'import jsonschema, pandas' 2>&1");
    if (r.status != 0) {
        skip_reason = "/usr/bin/python3 with jsonschema and pandas is not installed "
                      "(tools/deps.sh installs python3-jsonschema and python3-pandas)";
        tu_run_free(&r);
        return 0;
    }
    tu_run_free(&r);
    demo_dir = tu_mkdtemp("e2e-docs-demo");
    r = tu_sh(demo_dir, "sh '%s/tools/demo.sh' \"$GPUIDX_BIN\" > demo.log 2>&1", tu_srcdir());
    if (r.status != 0) {
        tu_run l = tu_sh(demo_dir, "tail -20 demo.log");
        fprintf(stderr, "tools/demo.sh failed (%d):\n%s\n", r.status, l.out);
        tu_run_free(&l);
        tu_run_free(&r);
        return -1;
    }
    tu_run_free(&r);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(demo_dir);
    return 0;
}

static void test_demo_outputs_load_and_follow_their_schemas(void **state)
{
    (void)state;
    if (skip_reason) {
        printf("skipped: %s\n", skip_reason);
        skip();
    }
    const char *s = tu_srcdir();
    tu_run r = tu_sh(demo_dir,
                     "/usr/bin/python3 '%s/tests/check_publication.py' '%s' --csv demo-out "
                     "--publication demo-out/publish --package demo-out/site "
                     "--json-file grades='%s/data/grades.json' "
                     "--json-file contracts='%s/data/contracts.json' "
                     "--json-file contracts='%s/data/contracts-h100-exchange.json' "
                     "--json-file grades='%s/bench/grades20.json' "
                     "--json-file grades='%s/examples/real-candidates.json' "
                     "--json-file grades='%s/examples/grades.json' "
                     "--json-file contracts='%s/examples/contracts.json' "
                     "--json-file grades=demo-out/candidates.json "
                     "--json-file contracts=demo-out/market/contracts.json",
                     s, s, s, s, s, s, s, s, s);
    if (r.status != 0) fail_msg("check_publication (exit %d):\n%s%s", r.status, r.out, r.err);
    /* it looked at the files: the settlement, the cost moves, a year of days */
    assert_non_null(strstr(r.out, "check_publication: 0 problems in "));
    assert_null(strstr(r.out, " 0 CSV files"));
    tu_run_free(&r);
    /* the checker fails where it should: two tables in one stream, an
     * extra member in index.json (strict), a field of the wrong type */
    r = tu_sh(demo_dir, "rm -rf bad && mkdir -p bad/p && cp -R demo-out/publish/2025-12-31 bad/p/ && "
                        "printf 'a,b\\n1,2\\n\\nc,d,e\\n3,4,5\\n' > bad/two.csv && "
                        "sed -i 's/\"license\":/\"extra\":1,\"license\":/' bad/p/2025-12-31/index.json && "
                        "sed -i '2s/,trade,/,trades,/; 2s/,offer,/,offers,/' "
                        "bad/p/2025-12-31/observations.csv && "
                        "sed -i 's/\"format\":1,/\"format\":1,\"x\":1,/' "
                        "bad/p/2025-12-31/signature.json && "
                        "cp demo-out/publish/restatements.csv bad/p/ && "
                        "echo '{}' > bad/p/restatements.signature.json && "
                        "/usr/bin/python3 '%s/tests/check_publication.py' '%s' --csv bad "
                        "--publication bad/p", s, s);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "bad/two.csv: line 4: 3 fields, the header has 2"));
    assert_non_null(strstr(r.out, "'extra' was unexpected"));
    assert_non_null(strstr(r.out, "line 2 kind: not one of ['offer', 'trade']"));
    /* a signature file: its schema, and listed by its folder's package */
    assert_non_null(strstr(r.out, "bad/p/2025-12-31/signature.json: "));
    assert_non_null(strstr(r.out, "bad/p/restatements.signature.json: not a resource of its "
                                  "folder's datapackage.json"));
    tu_run_free(&r);
}

static void test_docs_generated_parts_are_fresh(void **state)
{
    (void)state;
    if (skip_reason) {
        printf("skipped: %s\n", skip_reason);
        skip();
    }
    /* under the sanitizers (make check) the real catalogue's parts are left
     * out: ten times slower there, and test_e2e_real_v2.c runs gpuidx on
     * the catalogue under them already */
    const char *real = getenv("ASAN_OPTIONS") ? "--real /nonexistent/under-sanitizers" : "";
    if (*real) printf("the real catalogue's parts are left out under the sanitizers\n");
    tu_run r = tu_sh(demo_dir, "/usr/bin/python3 '%s/tools/docs.py' check --bin \"$GPUIDX_BIN\" "
                               "--demo . %s", tu_srcdir(), real);
    if (r.status != 0) fail_msg("tools/docs.py check (exit %d):\n%s%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.out, " differ\n"));
    if (r.err[0]) printf("%s", r.err); /* the parts left out (no ../shared) */
    tu_run_free(&r);
}

/* The docs speak to a reader of this repository: no section numbers of a
 * contract they do not have, no issue numbers, no scratch scripts or paths
 * of one machine (bench/HISTORY.md, the record of past sessions, may). */
static void test_docs_name_nothing_a_reader_lacks(void **state)
{
    (void)state;
    tu_run r = tu_sh(tu_srcdir(), "grep -nE 'SPEC ?§|[Ii]ssue [0-9]+|/tmp/|/work/|/root/|/home/' "
                                  "README.md docs/*.md BENCHMARKS.md data/README.md "
                                  "examples/README.md || true");
    if (r.out[0]) fail_msg("the docs name what a reader does not have:\n%s", r.out);
    tu_run_free(&r);
}

/* CITATION.cff names the version the binary reports. */
static void test_citation_names_this_version(void **state)
{
    (void)state;
    tu_run v = tu_gpuidx(NULL, "--version");
    assert_int_equal(v.status, 0);
    const char *ver = strchr(v.out, ' ');
    assert_non_null(ver);
    tu_run r = tu_sh(tu_srcdir(), "sed -n 's/^version: //p' CITATION.cff");
    if (strcmp(r.out, ver + 1) != 0)
        fail_msg("CITATION.cff version %s, gpuidx --version %s", r.out, ver + 1);
    tu_run_free(&r);
    tu_run_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_outputs_load_and_follow_their_schemas),
        cmocka_unit_test(test_docs_generated_parts_are_fresh),
        cmocka_unit_test(test_docs_name_nothing_a_reader_lacks),
        cmocka_unit_test(test_citation_names_this_version),
    };
    return cmocka_run_group_tests_name("e2e_docs", tests, setup, teardown);
}
