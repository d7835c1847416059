/* core/sig.c -- the signed text of a vintage, key fingerprints, Ed25519
 * verification and base64 (core/sig.h), through libcrypto's EVP.
 *
 * NOTES ON THE DESIGN
 * (1) What is signed is not the files but a short text naming their
 *     SHA-256 (and the day and vintage): a checker hashes the files it
 *     holds, compares, and checks one signature over ~300 bytes.  The text
 *     is fixed byte for byte (LF line ends, lower-case hex) so a
 *     verifier in any language rebuilds it from signature.json.
 * (2) Ed25519 signs the message itself (no pre-hash: EVP_DigestSign with
 *     a NULL digest), deterministically: the same key over the same text
 *     gives the same 64 bytes, so publishing unchanged data again writes
 *     the same signature file.
 */
#include "core/sig.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>

size_t gpi_sig_message(const char *date, int vintage, const char sha[3][65], char *out,
                       size_t cap)
{
    int n = snprintf(out, cap,
                     "gpuidx signed vintage 1\ndate %s\nvintage %d\nindex.csv %s\n"
                     "index.json %s\nobservations.csv %s\n",
                     date, vintage, sha[0], sha[1], sha[2]);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t gpi_sig_restatements_message(const char sha[65], long rows, char *out, size_t cap)
{
    int n = snprintf(out, cap, "gpuidx signed restatements 1\nrestatements.csv %s\nrows %ld\n",
                     sha, rows);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

void gpi_sig_fingerprint(const unsigned char raw[32], char out[65])
{
    gpi_sha256_hex(raw, 32, out);
}

void gpi_base64(const unsigned char *in, size_t n, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

int gpi_sig_verify(const unsigned char raw_pub[32], const char *sig_b64, const void *msg,
                   size_t len)
{
    size_t blen = strlen(sig_b64);
    if (blen != 88) return 0; /* 64 bytes: 86 characters and "==" */
    unsigned char sig[72];
    if (EVP_DecodeBlock(sig, (const unsigned char *)sig_b64, 88) != 66) return 0;
    EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw_pub, 32);
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    int ok = k && m && EVP_DigestVerifyInit(m, NULL, NULL, NULL, k) == 1 &&
             EVP_DigestVerify(m, sig, 64, msg, len) == 1;
    EVP_MD_CTX_free(m);
    EVP_PKEY_free(k);
    return ok;
}

gpi_status gpi_sig_public_key(const char *path, unsigned char raw[32], gpi_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f) return gpi_diag_set(d, GPI_EINPUT, "%s: cannot open", path);
    EVP_PKEY *k = PEM_read_PUBKEY(f, NULL, NULL, NULL);
    if (!k) { /* a private key file holds the public half too */
        rewind(f);
        k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    }
    fclose(f);
    size_t n = 32;
    int ok = k && EVP_PKEY_id(k) == EVP_PKEY_ED25519 &&
             EVP_PKEY_get_raw_public_key(k, raw, &n) == 1 && n == 32;
    EVP_PKEY_free(k);
    if (!ok) return gpi_diag_set(d, GPI_EINPUT, "%s: not an Ed25519 key in PEM form", path);
    return GPI_OK;
}
