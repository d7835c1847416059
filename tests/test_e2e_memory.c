/* tests/test_e2e_memory.c -- cli/memory.c: a gpuidx process puts glibc's
 * heap on huge pages when the kernel gives them on request, by running
 * itself again with the tunable glibc.malloc.hugetlb=1 added, and nothing
 * else changes.
 *
 * Table: the environment a process is started with -> whether its heap
 * asked for huge pages (a mapping of /proc/PID/smaps with the VmFlag "hg",
 * MADV_HUGEPAGE: nothing else in gpuidx asks for them), read while the
 * process waits to open its input, a FIFO.  The answer depends on the
 * kernel's mode (read here from /sys/kernel/mm/transparent_hugepage/
 * enabled): only "[madvise]" makes gpuidx ask, and never under a
 * sanitizer (make check), whose allocator ignores the tunable.
 * The environment itself is not compared: glibc cuts GLIBC_TUNABLES's
 * text in place at its first ':' when it parses it.  The process keeps its
 * id ($! is the process read) and its program (/proc/PID/exe is
 * GPUIDX_BIN).
 *
 * Property: a market ingested, built, published and shown with
 * GPUIDX_HUGEPAGES=0 and with 1 gives the same files, byte for byte.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the binary under test is built with the tests' flags (make check, tsan) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

/* Whether the binary under test adds the tunable on this machine. */
static int adds_tunable(void)
{
    char *mode = tu_read("/sys/kernel/mm/transparent_hugepage/enabled");
    int on_request = mode && strstr(mode, "[madvise]") != NULL;
    free(mode);
    return on_request && !UNDER_SANITIZER;
}

static const struct {
    const char *env; /* assignments before the command */
    int huge;        /* the heap asks for huge pages when the kernel gives them on request */
} cases[] = {
    {"", 1},
    {"GLIBC_TUNABLES=", 1},
    {"GLIBC_TUNABLES=glibc.malloc.perturb=0", 1},
    {"GPUIDX_HUGEPAGES=1", 1},
    /* the user's own choice stands */
    {"GLIBC_TUNABLES=glibc.malloc.hugetlb=0", 0},
    {"GPUIDX_HUGEPAGES=0", 0},
    {"GPUIDX_HUGEPAGES=0 GLIBC_TUNABLES=glibc.malloc.perturb=0", 0},
};

static void test_environment(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("memory");
    int add = adds_tunable();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the database is created after the exec: once it exists, the
         * process runs its final program and waits to open the FIFO */
        tu_run r = tu_sh(dir,
                         "rm -f e.db* in; mkfifo in; "
                         "env -u GLIBC_TUNABLES -u GPUIDX_HUGEPAGES %s \"$GPUIDX_BIN\" --db e.db "
                         "ingest offers in >/dev/null 2>&1 & pid=$!; "
                         "n=0; while [ ! -e e.db ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); "
                         "done; "
                         "grep -q '^VmFlags:.* hg' /proc/$pid/smaps && echo huge pages; "
                         "[ \"$(readlink /proc/$pid/exe)\" = \"$(readlink -f \"$GPUIDX_BIN\")\" ] "
                         "&& echo same program; "
                         ": >in; wait $pid; true",
                         cases[i].env);
        const char *want = add && cases[i].huge ? "huge pages\nsame program\n" : "same program\n";
        if (strcmp(r.out, want) != 0)
            fail_msg("started with [%s] (the kernel's huge pages %s): got\n%swant\n%s",
                     cases[i].env, add ? "on request" : "not asked for", r.out, want);
        tu_run_free(&r);
    }
    free(dir);
}

static void test_same_files(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("memory-files");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 40 --seed 7 --out m >/dev/null",
        "for h in 0 1; do mkdir -p h$h && GPUIDX_HUGEPAGES=$h sh -c '"
        "\"$GPUIDX_BIN\" --db h'$h'/t.db ingest offers --admit-providers m/offers.csv && "
        "\"$GPUIDX_BIN\" --db h'$h'/t.db ingest trades --admit-providers m/trades.csv && "
        "\"$GPUIDX_BIN\" --db h'$h'/t.db index build --from 2025-01-01 --to 2025-02-09 && "
        "\"$GPUIDX_BIN\" --db h'$h'/t.db index publish --date 2025-02-09 --out h'$h'/pub && "
        "\"$GPUIDX_BIN\" --db h'$h'/t.db index show --from 2025-01-01 --to 2025-02-09 "
        ">h'$h'/show.csv' >/dev/null 2>&1 || exit 1; done",
        /* index.json (file format 4) states when each file was ingested and
         * each row's cut-off: the two runs' own clocks; the rest is equal */
        "for h in 0 1; do sed -E 's/\"(ingested_at|cut_off)\":\"[^\"]*\"/\"\\1\":\"T\"/g'"
        " h$h/pub/2025-02-09/index.json > h$h/index.json.t || exit 1; done && "
        "cmp h0/index.json.t h1/index.json.t && diff -r -x index.json h0/pub h1/pub && "
        "cmp h0/show.csv h1/show.csv && test $(wc -l <h0/show.csv) -gt 100",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_same_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
