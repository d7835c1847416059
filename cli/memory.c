/* cli/memory.c -- how a gpuidx process gets its memory from the kernel.
 *
 * Why.  A gpuidx process of the daily job lives ~50-150 ms and touches
 * 8-25 MB of fresh heap: the profiles and names it loads, the ingest's
 * event batches, SQLite's page cache, the publication's buffers.  Every
 * 4 KiB page of it is a page fault, and on virtual machines a fault is
 * expensive (~10 us on the machine of BENCHMARKS.md, a Firecracker guest).
 * cli_tune_memory, called first thing in main, does two things, both
 * inside the process (no tunable, no second start, nothing that depends
 * on how the program was started):
 *
 * (1) Freed memory stays in the process.  By default glibc gives a freed
 *     block of 128 KiB or more back to the kernel (munmap, or a shrinking
 *     heap) and the next one of that size comes as fresh pages, which
 *     fault again: a publication reading several files of a few MiB, or a
 *     scan's buffers, fault their pages once per use.  With
 *     M_MMAP_THRESHOLD at 32 MiB and M_TRIM_THRESHOLD at 64 MiB the heap
 *     keeps them for the next use.  The cost is a process that holds its
 *     peak heap until it exits; gpuidx processes are short.
 *
 * (2) The heap's first HEAP_HUGE (32 MiB) on transparent huge pages, where
 *     the kernel gives them on request ("[madvise]" in
 *     /sys/kernel/mm/transparent_hugepage/enabled): the heap is grown once
 *     to that size (a block allocated and freed: below the mmap threshold
 *     it comes from the heap, below the trim threshold it stays there),
 *     and that one range -- where the few large arrays of a short process
 *     live: the store's profiles and names, the ingest's batches, the
 *     publication's files -- is given madvise(MADV_HUGEPAGE): one fault
 *     where there were 512.  Growing the heap reserves address space, not
 *     memory: only pages touched are resident.  A heap that grows past it
 *     (a long build) grows on ordinary pages.  This replaces running the
 *     program again with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (issue 31):
 *     glibc drops the variable under secure execution, so a setuid or
 *     file-capability copy executed itself forever, and a start through
 *     ld.so re-executed ld.so with the program's arguments.
 *     It does nothing when GPUIDX_HUGEPAGES=0; when the kernel gives huge
 *     pages to every large mapping ("[always]") or to none ("[never]"),
 *     or says nothing; with a sanitizer's allocator (ASan, TSan: not
 *     glibc's heap); and under valgrind it asks for a range its allocator
 *     does not use (harmless).  A failed madvise changes nothing.
 *
 * Neither changes a result: the same allocations, kept longer, on larger
 * pages (tests/test_e2e_memory.c: the same files from every kind of start).
 */
#include "cli/cli.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* AddressSanitizer's and ThreadSanitizer's allocators replace glibc's */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_MALLOC 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(SANITIZER_MALLOC) && defined(MADV_HUGEPAGE)
#define HUGE_HEAP 1
enum { HEAP_HUGE = 32 << 20, THP = 2 << 20 };

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

/* Note 2: the heap grown to HEAP_HUGE, that range on huge pages. */
static void huge_heap(void)
{
    const char *off = getenv("GPUIDX_HUGEPAGES");
    if ((off && strcmp(off, "0") == 0) || !thp_on_request()) return;
    /* below M_MMAP_THRESHOLD: from the heap; freed below M_TRIM_THRESHOLD:
     * the heap keeps it */
    char *p = malloc(HEAP_HUGE - THP);
    if (!p) return;
    uintptr_t lo = ((uintptr_t)p + THP - 1) & ~(uintptr_t)(THP - 1);
    void *brk_now = sbrk(0);
    uintptr_t hi = brk_now == (void *)-1 ? 0 : (uintptr_t)brk_now & ~(uintptr_t)(THP - 1);
    /* only when the block lies in the heap below the break (not mmap'd:
     * another allocator, or a heap that could not grow) */
    if (hi > lo && (uintptr_t)p < hi && hi - lo <= 2u * HEAP_HUGE)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    free(p);
}
#endif

void cli_tune_memory(void)
{
#if defined(__GLIBC__) && !defined(SANITIZER_MALLOC)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
#ifdef HUGE_HEAP
    huge_heap();
#endif
}
