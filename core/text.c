/* core/text.c -- the text encoding of input files (issue 12), and the
 * whole-file reader of the small inputs read into memory.
 *
 * gpuidx reads UTF-8 (with or without a byte-order mark).  A file saved as
 * UTF-16 or UTF-32 -- what "Unicode text" means in several spreadsheet and
 * editor save dialogs -- used to come back as "unknown column", "invalid
 * JSON", "unable to decode byte 0xff" or "contains a NUL byte", depending
 * on the reader.  Every reader now looks at the first bytes first and says
 * what the file is: "u.csv:1:1: the file is UTF-16LE; gpuidx reads UTF-8
 * (convert it first, e.g. iconv -f UTF-16LE -t UTF-8)".
 *
 * Detection, on the first four bytes: the byte-order marks of UTF-32 (FF FE
 * 00 00, 00 00 FE FF) and UTF-16 (FF FE, FE FF); without a mark, the zero
 * bytes an ASCII character has in UTF-32 (X 0 0 0, 0 0 0 X) or UTF-16 (X 0,
 * 0 X).  A UTF-8 text has no zero byte, so no UTF-8 file is taken for
 * another encoding.
 */
#include "core/gpi.h"
#include "core/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *gpi_wide_encoding(const void *head, size_t n)
{
    const unsigned char *b = head;
    if (n >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0) return "UTF-32LE";
    if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF) return "UTF-32BE";
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE) return "UTF-16LE";
    if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF) return "UTF-16BE";
    if (n >= 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) return "UTF-32LE";
    if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0) return "UTF-32BE";
    if (n >= 2 && b[0] != 0 && b[1] == 0) return "UTF-16LE";
    if (n >= 2 && b[0] == 0 && b[1] != 0) return "UTF-16BE";
    return NULL;
}

gpi_status gpi_diag_encoding(gpi_diag *d, const char *path, const char *enc)
{
    return gpi_diag_set(d, GPI_EINPUT,
                        "%s:1:1: the file is %s; gpuidx reads UTF-8 (convert it first, e.g. "
                        "iconv -f %s -t UTF-8)",
                        path, enc, enc);
}

gpi_status gpi_text_check(FILE *f, const char *path, gpi_diag *d)
{
    unsigned char b[4];
    size_t n = fread(b, 1, sizeof b, f);
    /* put them back: within stdio's buffer, or its push-back area (glibc
     * takes several) when the stream is a pipe whose bytes came apart */
    for (size_t i = n; i > 0; i--)
        if (ungetc(b[i - 1], f) == EOF)
            return gpi_diag_set(d, GPI_EIO, "%s: cannot read: the first bytes cannot be put back",
                                path);
    const char *enc = gpi_wide_encoding(b, n);
    return enc ? gpi_diag_encoding(d, path, enc) : GPI_OK;
}

gpi_status gpi_file_read_all(FILE *f, const char *path, size_t max_mib, char **buf, size_t *len,
                             gpi_diag *d)
{
    *buf = NULL;
    *len = 0;
    size_t max = max_mib << 20, cap = 0, n = 0, k;
    char *b = NULL;
    do {
        if (GPI_VEC_RESERVE(b, cap, n + 65536) != 0) {
            free(b);
            return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
        }
        k = fread(b + n, 1, cap - n - 1, f);
        n += k;
        if (max_mib && n >= max) {
            free(b);
            return gpi_diag_set(d, GPI_EINPUT, "%s: file too large (over %zu MiB)", path, max_mib);
        }
    } while (k > 0);
    if (ferror(f)) {
        int e = errno;
        free(b);
        return gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(e));
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return GPI_OK;
}

FILE *gpi_open_input(const char *path, gpi_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            gpi_diag_set(d, GPI_EIO, "%s: no such file", path);
        else
            gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        gpi_diag_set(d, GPI_EIO, "%s: is a directory, not a file", path);
        return NULL;
    }
    return f;
}

gpi_status gpi_text_read(const char *path, size_t max_mib, char **buf, size_t *len, gpi_diag *d)
{
    *buf = NULL;
    *len = 0;
    FILE *f = gpi_open_input(path, d);
    if (!f) return GPI_EIO;
    gpi_status st = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (st == GPI_OK) st = gpi_file_read_all(f, path, max_mib, buf, len, d);
    fclose(f);
    return st;
}
