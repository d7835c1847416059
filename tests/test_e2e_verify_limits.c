/* tests/test_e2e_verify_limits.c -- `gpuidx verify` reads published files
 * within limits (verify/files.c; issue 31 item 4: a 1 GB index.json took
 * 2.1 GB of memory, a symbolic link to /dev/zero reached 18.9 GB, and a
 * FIFO hung verify).
 *
 * A small market is published; then, one at a time, a published file is
 * replaced by something hostile, and verify must refuse it with its
 * message, within a few seconds (a FIFO: it must not wait for a writer)
 * and in little memory (the peak resident size of the verify process);
 * --max-file-mib moves the limit.  A signed day's signature.json (and its
 * vintages') is read under the same rules.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* the binary under test is built with the tests' flags: a sanitizer
 * reserves terabytes of address space, so the cap below is for plain
 * builds (it keeps a regression from taking the machine's memory) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VLIMIT ""
#else
#define VLIMIT "ulimit -v 4194304; "
#endif

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-verify-limits");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 6 --seed 3 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers m/trades.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db t.db index build --from 2025-01-01 --to 2025-01-06 2>/dev/null",
        /* a signed copy: its signature files are read too */
        "cp t.db s.db && \"$GPUIDX_BIN\" key new --out k.pem >/dev/null 2>&1 && "
        "\"$GPUIDX_BIN\" --db s.db index publish --from 2025-01-05 --to 2025-01-06 --out spub "
        "--sign k.pem 2>/dev/null",
        "\"$GPUIDX_BIN\" --db t.db index publish --from 2025-01-05 --to 2025-01-06 --out pub "
        "2>/dev/null",
        "\"$GPUIDX_BIN\" verify pub >/dev/null && \"$GPUIDX_BIN\" verify --key k.pem.pub spub "
        ">/dev/null",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_run r = tu_sh(dir, "rm -rf big");
    tu_run_free(&r);
    free(dir);
    return 0;
}

static void test_hostile_files_refused(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        const char *file;    /* the published file replaced (of 2025-01-06) */
        const char *make;    /* shell: makes $F (the path) hostile */
        const char *opts;    /* verify's options */
        const char *err;     /* what verify says (after "pub/2025-01-06/") */
    } cases[] = {
        {"a link to /dev/zero", "index.json", "ln -s /dev/zero $F", "",
         "index.json: a character device, not a published file: refused"},
        {"a FIFO", "observations.csv", "mkfifo $F", "",
         "observations.csv: a FIFO, not a published file: refused"},
        {"a folder", "index.csv", "mkdir $F", "", "index.csv: a folder, not a published file: refused"},
        {"a FIFO as the term curve", "curve.csv", "mkfifo $F", "",
         "curve.csv: a FIFO, not a published file: refused"},
        {"1 GiB of index.json", "index.json", "truncate -s 1G $F", "",
         "index.json: 1073741824 bytes, over the limit of 128 MiB a file (--max-file-mib)"},
        {"200 MiB of observations.csv", "observations.csv", "truncate -s 200M $F", "",
         "observations.csv: 209715200 bytes, over the limit of 128 MiB a file (--max-file-mib)"},
        {"a limit of 1 MiB", "index.json", "truncate -s 2M $F", "--max-file-mib 1",
         "index.json: 2097152 bytes, over the limit of 1 MiB a file (--max-file-mib)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_sh(dir, "rm -rf big && cp -a pub big && F=big/2025-01-06/%s && "
                              "rm -f $F && %s",
                         cases[i].file, cases[i].make);
        if (r.status != 0) fail_msg("%s: %s", cases[i].what, r.err);
        tu_run_free(&r);
        /* the peak resident size of verify, and a time limit (a FIFO) */
        r = tu_sh(dir, VLIMIT "timeout 20 /usr/bin/env time -f 'peak %%M KiB' \"$GPUIDX_BIN\" verify %s "
                       "big 2>err.txt >out.txt; echo $?; cat err.txt; grep -v ': ok' out.txt",
                  cases[i].opts);
        long status = strtol(r.out, NULL, 10);
        char want[512];
        /* (on stderr "gpuidx: ...", a curve file's on its curve line) */
        snprintf(want, sizeof want, "big/2025-01-06/%s", cases[i].err);
        if (status != 1 || !strstr(r.out, want))
            fail_msg("%s: exit %ld (124: hung), want 1 and \"%s\":\n%s", cases[i].what, status,
                     want, r.out);
        const char *peak = strstr(r.out, "peak ");
        long kib = peak ? strtol(peak + 5, NULL, 10) : -1;
        if (kib < 0 || kib > 64 * 1024)
            fail_msg("%s: peak %ld KiB (more than 64 MiB)", cases[i].what, kib);
        tu_run_free(&r);
    }
    /* a signed day's signature.json, of the current files or of v1/, as a
     * FIFO or a link to /dev/zero: said unreadable, without waiting */
    static const char *const sig_cases[] = {
        "mkfifo big/2025-01-06/signature.json",
        "mkfifo big/2025-01-06/v1/signature.json",
        "ln -s /dev/zero big/2025-01-06/signature.json",
    };
    for (size_t i = 0; i < sizeof sig_cases / sizeof sig_cases[0]; i++) {
        tu_run r = tu_sh(dir, "rm -rf big && cp -a spub big && rm -f %s && %s && " VLIMIT
                              "timeout 20 \"$GPUIDX_BIN\" verify big; echo $?",
                         strrchr(sig_cases[i], ' ') + 1, sig_cases[i]);
        if (!strstr(r.out, "\n1\n") || !strstr(r.out, "signature.json is unreadable"))
            fail_msg("%s: want exit 1 (124: hung) and \"signature.json is unreadable\":\n%s%s",
                     sig_cases[i], r.out, r.err);
        tu_run_free(&r);
    }
    /* the limit moved above a file: it is read (and then found not JSON:
     * the zeros truncate pads it with ended the parser's text, and the
     * padded file verified, before verify/load.c refused a NUL byte) */
    tu_run r = tu_sh(dir, "rm -rf big && cp -a pub big && truncate -s 2M big/2025-01-06/index.json"
                          " && \"$GPUIDX_BIN\" verify --max-file-mib 3 big 2>&1; echo $?");
    if (!strstr(r.out, "\n1\n") || strstr(r.out, "over the limit") ||
        !strstr(r.out, "gpuidx: big/2025-01-06/index.json: a NUL byte at byte "))
        fail_msg("--max-file-mib 3: %s%s", r.out, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify --max-file-mib 0 pub");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: --max-file-mib: a number of MiB from 1 to 65536 (got \"0\")\n");
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_files_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
