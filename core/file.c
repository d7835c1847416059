/* core/file.c -- a whole open file into memory (core/file.h). */
#include "core/file.h"
#include "core/vec.h"

#include <stdlib.h>

gpi_status gpi_file_read_all(FILE *f, const char *path, size_t max, char **out, size_t *n,
                             gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    char *buf = NULL;
    size_t cap = 0, len = 0, k;
    do {
        if (GPI_VEC_RESERVE(buf, cap, len + 65536) != 0) {
            free(buf);
            return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
        }
        k = fread(buf + len, 1, cap - len - 1, f);
        len += k;
        if (max && len > max) {
            free(buf);
            return gpi_diag_set(d, GPI_EINPUT, "%s: larger than %zu bytes", path, max);
        }
    } while (k > 0);
    if (ferror(f)) {
        free(buf);
        return gpi_diag_set(d, GPI_EIO, "%s: read error", path);
    }
    buf[len] = '\0';
    *out = buf;
    *n = len;
    return GPI_OK;
}
