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
 *     standard input is JSON when its first byte is '[' or '{'.
 * (3) The JSON reader seeks (it rewinds after looking at the first byte),
 *     a decompressing stream cannot: for JSON, a gzip file or standard
 *     input is first copied into an anonymous temporary file
 *     (ingest_source_spool).  CSV is read as a stream, whatever its size.
 * (4) A file's identity (the SHA-256 that makes a second ingest of it a
 *     no-op) is the SHA-256 of its content, decompressed: `f.csv` and
 *     `f.csv.gz` are the same file.  The CSV reader hashes what it reads;
 *     the spool hashes what it copies (src->sha256).
 * (5) A corrupt or truncated gzip stream is a read error whose message is
 *     zlib's ("unexpected end of file"), kept in src->err.
 */
#define _GNU_SOURCE 1 /* fopencookie */
#include "ingest/internal.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        /* the first byte decides the format of standard input (note 2) */
        int ch = fgetc(src->f);
        src->first = ch;
        if (ch != EOF) ungetc(ch, src->f);
        return GPI_OK;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
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
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
        int fd = dup(fileno(f));
        fclose(f);
        if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0 || !(src->f = gz_stream(fd, src))) {
            if (fd >= 0) close(fd);
            return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
        }
        src->gzip = 1;
        return GPI_OK;
    }
    rewind(f);
    src->f = f;
    return GPI_OK;
}

gpi_status ingest_source_spool(ingest_source *src, gpi_diag *d)
{
    if (!src->gzip && !src->is_stdin) return GPI_OK;
    const char *name = src->is_stdin ? "stdin" : src->path;
    FILE *tmp = tmpfile();
    if (!tmp)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot create a temporary file: %s", name,
                            strerror(errno));
    char *buf = malloc(1u << 18);
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    gpi_status rc = GPI_OK;
    if (!buf || !h || EVP_DigestInit_ex(h, EVP_sha256(), NULL) != 1)
        rc = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", name);
    size_t n;
    while (rc == GPI_OK && (n = fread(buf, 1, 1u << 18, src->f)) > 0) {
        EVP_DigestUpdate(h, buf, n);
        if (fwrite(buf, 1, n, tmp) != n)
            rc = gpi_diag_set(d, GPI_EIO, "%s: cannot write a temporary file: %s", name,
                              strerror(errno));
    }
    if (rc == GPI_OK && ferror(src->f))
        rc = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", name,
                          src->err[0] ? src->err : strerror(errno));
    if (rc == GPI_OK && (fflush(tmp) != 0 || fseek(tmp, 0, SEEK_SET) != 0))
        rc = gpi_diag_set(d, GPI_EIO, "%s: cannot rewind a temporary file", name);
    if (rc == GPI_OK) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        EVP_DigestFinal_ex(h, md, &len);
        for (unsigned i = 0; i < 32 && len == 32; i++)
            snprintf(src->sha256 + 2 * i, 3, "%02x", md[i]);
    }
    EVP_MD_CTX_free(h);
    free(buf);
    if (rc != GPI_OK) {
        fclose(tmp);
        return rc;
    }
    fclose(src->f);
    src->f = tmp;
    return GPI_OK;
}

void ingest_source_close(ingest_source *src)
{
    if (src->f) fclose(src->f);
    src->f = NULL;
}
