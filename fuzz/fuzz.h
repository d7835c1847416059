/* fuzz/fuzz.h -- helpers shared by the libFuzzer targets (fuzz/fuzz_*.c).
 *
 * Each target is one file with LLVMFuzzerTestOneInput; `make fuzz` builds
 * them with clang (-fsanitize=fuzzer,address,undefined) against the
 * library built the same way (build-fuzz/), and runs each over its seed
 * corpus fuzz/corpus/<target>/; `make fuzz-run FUZZ_SECONDS=600` fuzzes
 * each in turn (docs/reliability.md).  A target aborts (a finding) on a
 * crash, a sanitizer report, or -- for the differential CSV target -- a
 * difference between its two readers.
 *
 * Readers that take a path get the input through a file of their own
 * under $TMPDIR (fuzz_file), rewritten for every input.
 */
#ifndef GPI_FUZZ_H
#define GPI_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The path of this process's scratch file named `name` (its extension
 * chooses the reader's format), holding data[0..size) (static buffer). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char dir[512], path[600];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gpuidx-fuzz-%ld", t && *t ? t : "/tmp", (long)getpid());
        char cmd[600];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        if (system(cmd) != 0) abort();
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();
    return path;
}

/* data as a NUL-terminated string (malloc'd; free it). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The repository's data folder (the shipped tables). */
static inline const char *fuzz_data_dir(void)
{
    return GPUIDX_SRCDIR "/data";
}

#endif
