/* tests/test_e2e_memory.c -- cli/memory.c: how a gpuidx process takes its
 * memory, and that nothing about it depends on how the process was
 * started.
 *
 * (1) Huge pages from inside the process.  Where the kernel gives
 *     transparent huge pages on request ("[madvise]" in /sys/kernel/mm/
 *     transparent_hugepage/enabled), the heap's first 32 MiB are asked for
 *     with madvise(MADV_HUGEPAGE), in one place (cli_tune_memory): a
 *     mapping of /proc/PID/smaps with the VmFlag "hg".  Table: the
 *     environment a process is started with -> whether it asked, read
 *     while the process waits to open its input, a FIFO.  Never under a
 *     sanitizer (make check), whose allocator is not glibc's.  The
 *     process never runs itself again: it keeps its id ($! is the process
 *     read), its program (/proc/PID/exe is GPUIDX_BIN) and its environment
 *     (GLIBC_TUNABLES is not added).
 * (2) Every way a program is started runs it, with the same results
 *     (issue 31: a setuid or file-capability copy run by another user
 *     executed itself again forever, ~570 execve a second, because glibc
 *     drops GLIBC_TUNABLES under secure execution; through ld.so the
 *     program broke): a market ingested, built, published and shown by
 *     the binary as it is, with GPUIDX_HUGEPAGES=0, through the dynamic
 *     loader, as a setuid-root copy and as a copy with a file capability
 *     run by the user nobody, and under valgrind, gives the same files
 *     byte for byte.  The setuid and capability runs need root (setcap,
 *     runuser) and are skipped, saying so, without it; valgrind where it
 *     is installed and the binary is not built with a sanitizer.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <link.h>

/* the binary under test is built with the tests' flags (make check, tsan) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

/* Whether the binary under test asks for huge pages on this machine. */
static int asks_huge(void)
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
    {"GPUIDX_HUGEPAGES=0", 0},
    {"GPUIDX_HUGEPAGES=0 GLIBC_TUNABLES=glibc.malloc.perturb=0", 0},
};

static void test_environment(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("memory");
    int add = asks_huge();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* once the database exists, the process waits to open the FIFO */
        tu_run r = tu_sh(dir,
                         "rm -f e.db* in; mkfifo in; "
                         "env -u GLIBC_TUNABLES -u GPUIDX_HUGEPAGES %s \"$GPUIDX_BIN\" --db e.db "
                         "ingest offers in >/dev/null 2>&1 & pid=$!; "
                         "n=0; while [ ! -e e.db ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); "
                         "done; "
                         "grep -q '^VmFlags:.* hg' /proc/$pid/smaps && echo huge pages; "
                         "[ \"$(readlink /proc/$pid/exe)\" = \"$(readlink -f \"$GPUIDX_BIN\")\" ] "
                         "&& echo same program; "
                         "tr '\\0' '\\n' </proc/$pid/environ | grep -q '^GLIBC_TUNABLES=.*hugetlb' "
                         "&& echo tunable added; "
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

/* The job every start runs: $G is how the program $B is started (words
 * before it: env, ld.so, valgrind, runuser; none for the plain run), $1
 * the output folder (a fresh database, then published files and the
 * rows).  B is quoted: the binary's path may hold a space (CI's second
 * clone).  D is the data folder, a copy beside the run that the user
 * nobody can read (the source tree's may be in a mode-700 folder: a
 * file-capability copy run by nobody could not open data/gpus.csv). */
static const char job[] =
    "run() { o=$1; shift; mkdir -p $o && chmod 777 $o && "
    "$G \"$B\" \"$@\" --data \"$D\" --db $o/t.db ingest offers --admit-providers m/offers.csv && "
    "$G \"$B\" \"$@\" --data \"$D\" --db $o/t.db ingest trades --admit-providers m/trades.csv && "
    "$G \"$B\" \"$@\" --data \"$D\" --db $o/t.db index build --from 2025-01-01 --to 2025-01-12 && "
    "$G \"$B\" \"$@\" --data \"$D\" --db $o/t.db index publish --date 2025-01-12 --out $o/pub && "
    "$G \"$B\" \"$@\" --data \"$D\" --db $o/t.db index show --from 2025-01-01 --to 2025-01-12 "
    ">$o/show.csv; }; ";

/* Runs the job as `how` (shell text setting G) into folder out, within
 * `limit` seconds; fails the test unless its files equal ref's. */
static void same_as(const char *dir, const char *what, const char *how, const char *out,
                    int limit)
{
    tu_run r = tu_sh(dir, "%s %s; export G B; timeout %d sh -c '%s run %s' >%s.log 2>&1; "
                          "echo status $?",
                     job, how, limit, job, out, out);
    if (strcmp(r.out, "status 0\n") != 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.log", dir, out);
        char *log = tu_read(path);
        fail_msg("%s: %s(124: did not end within %d s)\n%.2000s", what, r.out, limit,
                 log ? log : "");
    }
    tu_run_free(&r);
    /* index.json (file format 4) states when each file was ingested and
     * each row's cut-off: each run's own clock; the rest is equal */
    r = tu_sh(dir, "for o in ref %s; do for f in $(cd $o/pub && find . -name index.json); do "
                   "mkdir -p $o/t/$(dirname $f) && "
                   "sed -E 's/\"(ingested_at|cut_off)\":\"[^\"]*\"/\"\\1\":\"T\"/g' "
                   "$o/pub/$f >$o/t/$f || exit 1; done; done && "
                   "diff -r ref/t %s/t && diff -r -x index.json ref/pub %s/pub && "
                   "cmp ref/show.csv %s/show.csv && test $(wc -l <%s/show.csv) -gt 50",
              out, out, out, out, out);
    if (r.status != 0) fail_msg("%s: files differ from the plain run:\n%s%s", what, r.out, r.err);
    tu_run_free(&r);
}

/* The program interpreter (PT_INTERP) named in the ELF file at path, or
 * "" (not a dynamically linked ELF file of this machine's word size). */
static void interpreter(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return;
    ElfW(Ehdr) eh;
    if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_phentsize == sizeof(ElfW(Phdr))) {
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            ElfW(Phdr) ph;
            if (fseek(f, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) != 0 ||
                fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= n) continue;
            if (fseek(f, (long)ph.p_offset, SEEK_SET) == 0 && fread(out, 1, ph.p_filesz, f) == ph.p_filesz)
                out[ph.p_filesz - 1] = '\0';
            else
                out[0] = '\0';
            break;
        }
    }
    fclose(f);
}

static void test_every_start_same_files(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("memory-files");
    char data[4200];
    snprintf(data, sizeof data, "%s/data", dir);
    setenv("D", data, 1);
    tu_run r = tu_sh(dir, "chmod 755 . && cp -r '%s/data' data && chmod -R a+rX data && "
                          "\"$GPUIDX_BIN\" simulate --days 12 --seed 7 --out m "
                          ">/dev/null && chmod -R a+rX m && "
                          "G= B=\"$GPUIDX_BIN\" && export G B && sh -c '%s run ref'",
                     tu_srcdir(), job);
    if (r.status != 0) fail_msg("the plain run: %s%s", r.out, r.err);
    tu_run_free(&r);
    same_as(dir, "GPUIDX_HUGEPAGES=0", "G=\"env GPUIDX_HUGEPAGES=0\" B=\"$GPUIDX_BIN\"", "nohuge", 120);
    /* the program through the dynamic loader named in its own header */
    char ldso[512] = "";
    interpreter(getenv("GPUIDX_BIN"), ldso, sizeof ldso);
    if (ldso[0] && access(ldso, X_OK) == 0) {
        char how[1024];
        snprintf(how, sizeof how, "G=\"%s\" B=\"$GPUIDX_BIN\"", ldso);
        same_as(dir, "through ld.so", how, "ldso", 120);
    } else {
        printf("skipped: no program interpreter to run the binary through\n");
    }
    /* copies run by another user, as a setuid program and with a file
     * capability: secure execution (AT_SECURE) */
    r = tu_sh(dir, "[ $(id -u) = 0 ] && command -v runuser && command -v setcap && "
                   "id nobody");
    int root = r.status == 0;
    tu_run_free(&r);
    if (root) {
        r = tu_sh(dir, "cp \"$GPUIDX_BIN\" suid.bin && chmod 4755 suid.bin && "
                       "cp \"$GPUIDX_BIN\" fcap.bin && chmod 755 fcap.bin && "
                       "setcap cap_net_bind_service+ep fcap.bin");
        int made = r.status == 0;
        tu_run_free(&r);
        if (made) {
            same_as(dir, "setuid copy run by nobody",
                    "G=\"runuser -u nobody --\" B=\"$PWD/suid.bin\"", "suid", 120);
            same_as(dir, "file-capability copy run by nobody",
                    "G=\"runuser -u nobody --\" B=\"$PWD/fcap.bin\"", "fcap", 120);
        } else {
            printf("skipped: setuid and capability copies (cannot make them here)\n");
        }
    } else {
        printf("skipped: setuid and capability copies run by nobody (need root, runuser, "
               "setcap)\n");
    }
    r = tu_sh(dir, "command -v valgrind");
    int vg = r.status == 0 && !UNDER_SANITIZER;
    tu_run_free(&r);
    if (vg)
        same_as(dir, "under valgrind",
                "G=\"valgrind -q --error-exitcode=99\" B=\"$GPUIDX_BIN\"", "valgrind", 600);
    else
        printf("skipped: valgrind (not installed, or a sanitizer build)\n");
    unsetenv("D");
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_every_start_same_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
