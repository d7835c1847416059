/* core/sig.h -- what a signed publication is made of (METHODOLOGY.md §7.3),
 * shared by the signer (publish/sign.c) and the checker (verify/sign.c).
 *
 * A vintage is signed with Ed25519 (libcrypto) over a short text that
 * names the day, the vintage and the SHA-256 of each of its three files
 * (gpi_sig_message).  The key is named by its fingerprint: the SHA-256 of
 * the 32 raw bytes of its public key, 64 hex digits.  Signatures travel as
 * standard base64 (88 characters for 64 bytes).
 *
 * Ownership: every function writes into the caller's buffers.
 */
#ifndef GPI_SIG_H
#define GPI_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"

#define GPI_SIG_FILE "signature.json"
#define GPI_SIG_B64_MAX 96

/* The signed text of vintage `vintage` of `date` (YYYY-MM-DD) whose files
 * index.csv, index.json and observations.csv have SHA-256 sha[0..2]:
 *   "gpuidx signed vintage 1\ndate D\nvintage N\nindex.csv H\n
 *    index.json H\nobservations.csv H\n"
 * into out (at least 320 bytes); returns its length. */
size_t gpi_sig_message(const char *date, int vintage, const char sha[3][65], char *out,
                       size_t cap);

/* DIR/restatements.csv's signature file (METHODOLOGY.md §7.3). */
#define GPI_SIG_RESTATEMENTS_FILE "restatements.signature.json"

/* The signed text of restatements.csv, whose SHA-256 is sha and which
 * holds `rows` lines after its header:
 *   "gpuidx signed restatements 1\nrestatements.csv H\nrows N\n"
 * into out (at least 128 bytes); returns its length. */
size_t gpi_sig_restatements_message(const char sha[65], long rows, char *out, size_t cap);

/* The fingerprint of a raw Ed25519 public key (32 bytes): hex SHA-256. */
void gpi_sig_fingerprint(const unsigned char raw[32], char out[65]);

/* 1 when sig_b64 is a valid Ed25519 signature of msg under the raw public
 * key; 0 when it is not (or is not base64 of 64 bytes). */
int gpi_sig_verify(const unsigned char raw_pub[32], const char *sig_b64, const void *msg,
                   size_t len);

/* Standard base64 of n bytes into out (4 * ceil(n / 3) + 1 bytes). */
void gpi_base64(const unsigned char *in, size_t n, char *out);

/* The raw public key of a PEM file holding an Ed25519 public key (or a
 * private key, whose public half is taken).  GPI_EINPUT "path: reason". */
gpi_status gpi_sig_public_key(const char *path, unsigned char raw[32], gpi_diag *d);

#endif
