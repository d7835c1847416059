/* cli/memory.c -- how a gpuidx process gets its memory from the kernel.
 *
 * Why.  A gpuidx process of the daily job lives ~50-150 ms and touches
 * 8-25 MB of fresh heap: the profiles and names it loads, the ingest's
 * event batches, SQLite's page cache, the publication's buffers.  Every
 * 4 KiB page of it is a page fault, and on virtual machines a fault is
 * expensive: ~10 us on the machine of BENCHMARKS.md (a Firecracker guest),
 * where the five processes of the daily job took ~20,000 faults, about
 * half of their CPU time.  Two settings of glibc's malloc, made here before
 * anything else runs, took the job from 0.489 s to 0.281 s there (median
 * of 7 runs, the binaries interleaved; (1) alone: 0.471 s; BENCHMARKS.md):
 *
 * (1) Freed memory stays in the process (cli_tune_memory).  By default
 *     glibc gives a freed block of 128 KiB or more back to the kernel
 *     (munmap, or a shrinking heap) and the next one of that size comes as
 *     fresh pages, which fault again: a publication reading several files
 *     of a few MiB, or a scan's buffers, fault their pages once per use.
 *     With M_MMAP_THRESHOLD at 32 MiB and M_TRIM_THRESHOLD at 64 MiB the
 *     heap keeps them for the next use.  The cost is a process that holds
 *     its peak heap until it exits; gpuidx processes are short, and the
 *     bench year's peak memory went from 46 to 48 MB (BENCHMARKS.md).
 *
 * (2) The heap on transparent huge pages (cli_prefer_huge_pages).  glibc
 *     (2.35 and later) puts its heap on 2 MiB pages when the tunable
 *     glibc.malloc.hugetlb is 1: it aligns the heap's growth to 2 MiB and
 *     asks the kernel for huge pages with madvise(MADV_HUGEPAGE): one
 *     fault where there were 512.  A tunable is read from GLIBC_TUNABLES
 *     once, when the program starts, before main; so when the kernel gives
 *     huge pages only on request ("[madvise]" in
 *     /sys/kernel/mm/transparent_hugepage/enabled) and the variable does
 *     not set the tunable yet, main calls this first, which adds it and
 *     executes the same program again (/proc/self/exe, same arguments,
 *     same process id: a kill still reaches it).  The second start finds
 *     the tunable set and returns at once, so it can never loop; an older
 *     glibc ignores a tunable it does not know.  The cost is one exec,
 *     ~2 ms.  It does nothing (and the program runs on as it was started)
 *     when GPUIDX_HUGEPAGES=0; when the kernel gives huge pages to every
 *     large mapping ("[always]") or to none ("[never]"), or says nothing;
 *     under valgrind (which the second start would escape) or with a
 *     sanitizer's allocator (which ignores the tunable); or when the
 *     exec fails.
 *
 * Neither changes a result: the same allocations, kept longer, on larger
 * pages.
 */
#include "cli/cli.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNABLE "glibc.malloc.hugetlb"

/* AddressSanitizer's and ThreadSanitizer's allocators replace glibc's */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_MALLOC 1
#endif
#endif

#if defined(__linux__) && !defined(SANITIZER_MALLOC)
/* Whether the kernel gives transparent huge pages on request only. */
static int thp_on_request(void)
{
    char mode[256] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    int ok = fgets(mode, sizeof mode, f) != NULL;
    fclose(f);
    return ok && strstr(mode, "[madvise]") != NULL;
}
#endif

void cli_prefer_huge_pages(char **argv)
{
#if defined(__linux__) && !defined(SANITIZER_MALLOC)
    const char *off = getenv("GPUIDX_HUGEPAGES");
    const char *t = getenv("GLIBC_TUNABLES");
    const char *pre = getenv("LD_PRELOAD");
    if ((off && strcmp(off, "0") == 0) || (t && strstr(t, TUNABLE)) ||
        (pre && strstr(pre, "vgpreload")) || !thp_on_request())
        return;
    char v[4096];
    int n = snprintf(v, sizeof v, "%s%s" TUNABLE "=1", t ? t : "", t && *t ? ":" : "");
    if (n < 0 || (size_t)n >= sizeof v || setenv("GLIBC_TUNABLES", v, 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* the exec failed: the tunable stays set, so a child would not try */
#else
    (void)argv;
#endif
}

void cli_tune_memory(void)
{
#if defined(__GLIBC__) && !defined(SANITIZER_MALLOC)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}
