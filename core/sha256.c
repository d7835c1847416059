/* core/sha256.c -- SHA-256 (FIPS 180-4): the one implementation gpuidx
 * uses, for file identity (batches), table hashes, published-file hashes
 * and receipts.
 *
 * It is OpenSSL libcrypto's (SHA-NI or vector code where the CPU has it:
 * about five times the speed of portable C, which matters for ingest,
 * which hashes every input file).  Its low-level context is kept inside
 * gpi_sha256 by value, so a state can be copied to finish a copy (verify/
 * does), needs no free and cannot fail: EVP's contexts are heap objects.
 * That API is marked deprecated in OpenSSL 3 but kept there; the mark is
 * silenced for this file only.  Checked against the FIPS test vectors in
 * tests/test_core.c.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/gpi.h"

#include <openssl/sha.h>
#include <string.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((gpi_sha256 *)0)->state),
               "gpi_sha256 cannot hold OpenSSL's SHA256_CTX");

static SHA256_CTX *ctx(gpi_sha256 *s)
{
    return (SHA256_CTX *)(void *)s->state;
}

void gpi_sha256_init(gpi_sha256 *s)
{
    SHA256_Init(ctx(s));
}

void gpi_sha256_update(gpi_sha256 *s, const void *buf, size_t n)
{
    SHA256_Update(ctx(s), buf, n);
}

void gpi_sha256_final(gpi_sha256 *s, char out[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256_Final(md, ctx(s));
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

void gpi_sha256_hex(const void *buf, size_t n, char out[65])
{
    gpi_sha256 s;
    gpi_sha256_init(&s);
    gpi_sha256_update(&s, buf, n);
    gpi_sha256_final(&s, out);
}
