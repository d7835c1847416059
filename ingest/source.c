/* ingest/source.c -- where an input file's bytes come from: a plain file,
 * a gzip file (decompressed with zlib while it is read), or standard input
 * ("-", gzip or plain).
 *
 * NOTES ON THE DESIGN
 * (1) The readers (csv.c through ingest.c, json.c) take a FILE *.  A plain
 *     file is an ordinary stdio stream (no cost).  A gzip file and standard
 *     input are a stdio stream over zlib's gzread (fopencookie), which
 *     reads gzip members and, in zlib's "transparent" mode, plain bytes
 *     alike -- so `zcat f | gpuidx ingest -` and `gpuidx ingest f.gz` read
 *     the same rows as `gpuidx ingest f`.
 * (2) What the file is, is decided by its first bytes, never by its name:
 *     gzip (1f 8b) is read; xz, bzip2, zstd and zip are refused with a
 *     message that says so (they used to reach the CSV reader and come
 *     back as a garbled "unknown column").  The format (CSV or JSON) is
 *     still chosen by the name, with a final ".gz" ignored (ingest.c);
 *     standard input is JSON when its first byte after a UTF-8 byte-order
 *     mark and white space is '[' or '{'.
 *     A FIFO's first bytes can be read only once: it is read as standard
 *     input is, through zlib (gzip or plain, no other compression named).
 * (3) Both readers read the stream once, front to back, and never seek
 *     (json.c note 7), so CSV and JSON alike are read from a pipe or a
 *     decompressing stream whatever their size.  (JSON used to rewind,
 *     and a gzip file or standard input was first copied to a temporary
 *     file.)
 * (4) A file's identity (the SHA-256 that makes a second ingest of it a
 *     no-op) is the SHA-256 of its content, decompressed: `f.csv` and
 *     `f.csv.gz` are the same file.  The readers hash what they read.
 * (5) A corrupt or truncated gzip stream is a read error whose message is
 *     zlib's ("unexpected end of file"), kept in src->err.
 * (6) A UTF-16 or UTF-32 file (after decompression) is refused with a
 *     message naming its encoding (core/text.c), and a directory as one,
 *     before any reader sees them (they were "unknown column" and "read
 *     error: Is a directory").
 */
#define _GNU_SOURCE 1 /* fopencookie */
#include "ingest/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

typedef struct gz_cookie {
    gzFile gz;
    ingest_source *src;
} gz_cookie;

static ssize_t gz_read(void *c, char *buf, size_t n)
{
    gz_cookie *k = c;
    if (n > (1u << 30)) n = 1u << 30;
    int got = gzread(k->gz, buf, (unsigned)n);
    int errnum = Z_OK;
    const char *msg = got <= 0 ? gzerror(k->gz, &errnum) : NULL;
    if (got < 0 || (got == 0 && errnum != Z_OK && errnum != Z_STREAM_END)) {
        /* zlib names the stream "<fd:N>: ..." (opened by descriptor) */
        if (msg && strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": ")) msg = strstr(msg, ": ") + 2;
        if (k->src && !k->src->err[0])
            snprintf(k->src->err, sizeof k->src->err, "%s",
                     errnum == Z_ERRNO ? strerror(errno) : msg ? msg : "gzip read error");
        errno = EIO;
        return -1;
    }
    return got;
}

static int gz_close(void *c)
{
    gz_cookie *k = c;
    int rc = gzclose_r(k->gz);
    free(k);
    return rc == Z_OK ? 0 : EOF;
}

/* A stdio stream over gzread of fd (which it owns). */
static FILE *gz_stream(int fd, ingest_source *src)
{
    gz_cookie *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->src = src;
    k->gz = gzdopen(fd, "rb");
    if (!k->gz) {
        free(k);
        return NULL;
    }
    gzbuffer(k->gz, 256u << 10);
    cookie_io_functions_t io = {gz_read, NULL, NULL, gz_close};
    FILE *f = fopencookie(k, "rb", io);
    if (!f) {
        gzclose_r(k->gz);
        free(k);
    }
    return f;
}

/* Names a compression gpuidx does not read, from the first bytes. */
/* The gzip magic (1f 8b) at the start of b. */
static int is_gzip(const unsigned char *b, size_t n)
{
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int ingest_is_gzip(const char *path)
{
    unsigned char head[2];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return is_gzip(head, n);
}

static const char *other_compression(const unsigned char *b, size_t n)
{
    if (n >= 6 && memcmp(b, "\xFD" "7zXZ\0", 6) == 0) return "xz";
    if (n >= 3 && memcmp(b, "BZh", 3) == 0 && n >= 4 && b[3] >= '1' && b[3] <= '9')
        return "bzip2";
    if (n >= 4 && memcmp(b, "\x28\xB5\x2F\xFD", 4) == 0) return "zstd";
    if (n >= 4 && memcmp(b, "PK\x03\x04", 4) == 0) return "zip";
    if (n >= 6 && memcmp(b, "7z\xBC\xAF\x27\x1C", 6) == 0) return "7z";
    return NULL;
}

/* The first byte of f after a UTF-8 byte-order mark and white space (at
 * most 64 bytes looked at), or EOF; every byte is put back.  A BOM used
 * to make JSON on standard input "CSV" (issue 12). */
static int first_char(FILE *f)
{
    unsigned char b[64];
    size_t n = 0;
    int ch = EOF;
    while (n < sizeof b && (ch = fgetc(f)) != EOF) {
        b[n++] = (unsigned char)ch;
        int bom = n <= 3 && b[n - 1] == (unsigned char)"\xEF\xBB\xBF"[n - 1] &&
                  memcmp(b, "\xEF\xBB\xBF", n) == 0;
        if (!bom && !strchr(" \t\r\n", ch)) break;
    }
    int first = n && ch != EOF ? ch : EOF;
    while (n > 0) ungetc(b[--n], f);
    return first;
}

/* Refuses a UTF-16 or UTF-32 stream (core/text.c), closing it. */
static gpi_status text_check(ingest_source *src, const char *name, gpi_diag *d)
{
    gpi_status rc = gpi_text_check(src->f, name, d);
    if (rc != GPI_OK) ingest_source_close(src);
    return rc;
}

gpi_status ingest_source_open(const char *path, ingest_source *src, gpi_diag *d)
{
    memset(src, 0, sizeof *src);
    src->path = path;
    if (strcmp(path, "-") == 0) {
        src->is_stdin = 1;
        int fd = dup(STDIN_FILENO);
        if (fd < 0 || !(src->f = gz_stream(fd, src))) {
            if (fd >= 0) close(fd);
            return gpi_diag_set(d, GPI_EIO, "stdin: cannot read: %s", strerror(errno));
        }
        gpi_status rc = text_check(src, "stdin", d);
        if (rc == GPI_OK) src->first = first_char(src->f);
        return rc;
    }
    FILE *f = gpi_open_input(path, d); /* no such file, a directory */
    if (!f) return GPI_EIO;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* a FIFO or a device: its first bytes cannot be read twice, so it
         * is read as standard input is (gzip or plain, note 1) */
        int fd = dup(fileno(f));
        fclose(f);
        if (fd < 0 || !(src->f = gz_stream(fd, src))) {
            if (fd >= 0) close(fd);
            return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
        }
        return text_check(src, path, d);
    }
    unsigned char head[8];
    size_t n = fread(head, 1, sizeof head, f);
    const char *other = other_compression(head, n);
    if (other) {
        fclose(f);
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:1:1: the file is compressed with %s; gpuidx reads plain text "
                            "or gzip (decompress it first)",
                            path, other);
    }
    if (is_gzip(head, n)) {
        int fd = dup(fileno(f));
        fclose(f);
        if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0 || !(src->f = gz_stream(fd, src))) {
            if (fd >= 0) close(fd);
            return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
        }
        src->gzip = 1;
        return text_check(src, path, d);
    }
    const char *enc = gpi_wide_encoding(head, n);
    if (enc) {
        fclose(f);
        return gpi_diag_encoding(d, path, enc);
    }
    rewind(f);
    src->f = f;
    return GPI_OK;
}

void ingest_source_close(ingest_source *src)
{
    if (src->f) fclose(src->f);
    src->f = NULL;
}
