/* publish/sign.c -- signed publications (METHODOLOGY.md §7.3): Ed25519
 * key pairs, and the detached signature of a vintage over its files'
 * SHA-256.
 *
 * NOTES ON THE DESIGN
 * (1) `gpuidx key new` writes the private key (PKCS#8 PEM, mode 0600,
 *     never over an existing file) and its public half beside it
 *     (PATH.pub).  The private key is read by `index publish --sign` and
 *     used in memory only: neither the store nor a published file ever
 *     holds it.  What is kept is the public key's fingerprint (in
 *     index.json, file format 4, and in the store) and the signature.
 * (2) The signature covers the text of core/sig.c: the day, the vintage
 *     and the SHA-256 of its three files.  index.json names the key's
 *     fingerprint, so it is written first, hashed, then the text is signed.
 *     The signature file DIR/D/signature.json (and v<n>/signature.json)
 *     repeats what was signed, so a checker reads one small file, hashes
 *     the three it names and checks one signature.  Its bytes are a pure
 *     function of (day, vintage, fingerprint, hashes, signature), so an
 *     older signed vintage is regenerated from the store like its files.
 * (3) DIR/restatements.csv is one file for the whole folder, written
 *     again from the database by every publication: it is signed apart,
 *     in DIR/restatements.signature.json, over its SHA-256 and its number
 *     of rows (core/sig.c's text), by the key of the publication that
 *     wrote it last.  An unsigned publication that changes the file
 *     removes a signature that no longer matches it (publish.c); one that
 *     leaves it as it was keeps it.
 */
#include "publish/internal.h"
#include "core/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pub_key {
    EVP_PKEY *k;
    char fingerprint[65];
};

static gpi_status fingerprint_of(EVP_PKEY *k, char out[65], const char *path, gpi_diag *d)
{
    unsigned char raw[32];
    size_t n = sizeof raw;
    if (EVP_PKEY_id(k) != EVP_PKEY_ED25519 || EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 ||
        n != 32)
        return gpi_diag_set(d, GPI_EINPUT, "%s: not an Ed25519 key", path);
    gpi_sig_fingerprint(raw, out);
    return GPI_OK;
}

/* Writes the PEM of k to path, created new with mode; pub: the public half. */
static gpi_status write_pem(const char *path, EVP_PKEY *k, int pub, mode_t mode, gpi_diag *d)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0)
        return gpi_diag_set(d, errno == EEXIST ? GPI_EUSAGE : GPI_EIO, "%s: %s", path,
                            errno == EEXIST ? "exists (a key is never overwritten)"
                                            : strerror(errno));
    FILE *f = fdopen(fd, "w");
    int ok = f && (pub ? PEM_write_PUBKEY(f, k) : PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL,
                                                                         NULL)) == 1;
    if (f) {
        ok &= fflush(f) == 0 && fsync(fd) == 0;
        ok &= fclose(f) == 0;
    } else {
        close(fd);
    }
    if (!ok) {
        unlink(path);
        return gpi_diag_set(d, GPI_EIO, "%s: cannot write the key", path);
    }
    return GPI_OK;
}

gpi_status pub_key_new(const char *path, char fingerprint[65], gpi_diag *d)
{
    char pub[4096];
    if (snprintf(pub, sizeof pub, "%s.pub", path) >= (int)sizeof pub)
        return gpi_diag_set(d, GPI_EUSAGE, "%s: path too long", path);
    if (access(path, F_OK) == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "%s: exists (a key is never overwritten)", path);
    if (access(pub, F_OK) == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "%s: exists (a key is never overwritten)", pub);
    EVP_PKEY *k = NULL;
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    int ok = c && EVP_PKEY_keygen_init(c) == 1 && EVP_PKEY_keygen(c, &k) == 1;
    EVP_PKEY_CTX_free(c);
    if (!ok) return gpi_diag_set(d, GPI_EIO, "key new: libcrypto could not make an Ed25519 key");
    gpi_status rc = fingerprint_of(k, fingerprint, path, d);
    if (rc == GPI_OK) rc = write_pem(path, k, 0, 0600, d);
    if (rc == GPI_OK) {
        rc = write_pem(pub, k, 1, 0644, d);
        if (rc != GPI_OK) unlink(path);
    }
    EVP_PKEY_free(k);
    return rc;
}

gpi_status pub_key_load(const char *path, pub_key **out, gpi_diag *d)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return gpi_diag_set(d, GPI_EUSAGE, "%s: cannot open: %s", path, strerror(errno));
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!k)
        return gpi_diag_set(d, GPI_EUSAGE, "%s: not a private key in PEM form (gpuidx key new "
                            "writes one; the .pub file cannot sign)", path);
    pub_key *pk = calloc(1, sizeof *pk);
    if (!pk) {
        EVP_PKEY_free(k);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    pk->k = k;
    gpi_status rc = fingerprint_of(k, pk->fingerprint, path, d);
    if (rc != GPI_OK) {
        pub_key_free(pk);
        return rc;
    }
    *out = pk;
    return GPI_OK;
}

void pub_key_free(pub_key *k)
{
    if (!k) return;
    EVP_PKEY_free(k->k);
    free(k);
}

const char *pub_key_fingerprint(const pub_key *k)
{
    return k->fingerprint;
}

gpi_status pub_sig_text(int32_t day, int vintage, const char *fingerprint, const char sha[3][65],
                        const char *sig_b64, char **out, size_t *len, gpi_diag *d)
{
    char date[11];
    gpi_date_format(day, date);
    *out = NULL;
    FILE *f = open_memstream(out, len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    fprintf(f,
            "{\"format\":1,\"algorithm\":\"Ed25519\",\"key_fingerprint\":\"%s\",\"date\":\"%s\","
            "\"vintage\":%d,\"files\":{\"index.csv\":\"%s\",\"index.json\":\"%s\","
            "\"observations.csv\":\"%s\"},\"signature\":\"%s\"}\n",
            fingerprint, date, vintage, sha[0], sha[1], sha[2], sig_b64);
    if (fclose(f) != 0 || !*out) {
        free(*out);
        *out = NULL;
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    return GPI_OK;
}

/* The Ed25519 signature of the n bytes of msg with k, as base64 (core/sig.c
 * note 2: deterministic). */
static gpi_status sign_text(const pub_key *k, const char *msg, size_t n,
                            char b64[GPI_SIG_B64_MAX], gpi_diag *d)
{
    unsigned char sig[64];
    size_t sl = sizeof sig;
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    int ok = m && EVP_DigestSignInit(m, NULL, NULL, NULL, k->k) == 1 &&
             EVP_DigestSign(m, sig, &sl, (const unsigned char *)msg, n) == 1 && sl == 64;
    EVP_MD_CTX_free(m);
    if (!ok) return gpi_diag_set(d, GPI_EIO, "publish: libcrypto could not sign");
    gpi_base64(sig, 64, b64);
    return GPI_OK;
}

gpi_status pub_sign_files(const pub_key *k, int32_t day, int vintage, pub_files *fs, gpi_diag *d)
{
    char date[11], msg[512];
    gpi_date_format(day, date);
    size_t n = gpi_sig_message(date, vintage, (const char(*)[65])fs->sha, msg, sizeof msg);
    gpi_status rc = sign_text(k, msg, n, fs->sig_b64, d);
    if (rc != GPI_OK) return rc;
    snprintf(fs->fingerprint, sizeof fs->fingerprint, "%s", k->fingerprint);
    free(fs->sig);
    fs->sig = NULL;
    return pub_sig_text(day, vintage, fs->fingerprint, (const char(*)[65])fs->sha, fs->sig_b64,
                        &fs->sig, &fs->sig_len, d);
}

gpi_status pub_sign_restatements(const pub_key *k, const char *buf, size_t len, char **out,
                                 size_t *out_len, gpi_diag *d)
{
    *out = NULL;
    char sha[65], msg[256];
    gpi_sha256_hex(buf, len, sha);
    long rows = -1; /* the header is not a row */
    for (size_t i = 0; i < len; i++) rows += buf[i] == '\n';
    if (rows < 0) rows = 0;
    size_t n = gpi_sig_restatements_message(sha, rows, msg, sizeof msg);
    char b64[GPI_SIG_B64_MAX];
    gpi_status rc = sign_text(k, msg, n, b64, d);
    if (rc != GPI_OK) return rc;
    FILE *f = open_memstream(out, out_len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    fprintf(f,
            "{\"format\":1,\"algorithm\":\"Ed25519\",\"key_fingerprint\":\"%s\","
            "\"files\":{\"restatements.csv\":\"%s\"},\"rows\":%ld,\"signature\":\"%s\"}\n",
            k->fingerprint, sha, rows, b64);
    if (fclose(f) != 0 || !*out) {
        free(*out);
        *out = NULL;
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    return GPI_OK;
}
