/* core/sha256.c -- SHA-256 (FIPS 180-4) and FNV-1a.
 *
 * Small and dependency-free; checked against the FIPS test vectors in
 * tests/test_core.c.  Used for file identity (batches), table hashes and
 * published-file hashes.
 */
#include "core/gpi.h"
#include "core/obs.h"

#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t h[8], const unsigned char *b)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
               (uint32_t)b[4 * i + 2] << 8 | (uint32_t)b[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + S1 + ch + K[i] + w[i];
        uint32_t S0 = ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22);
        uint32_t mj = (a & bb) ^ (a & c) ^ (bb & c);
        uint32_t t2 = S0 + mj;
        hh = g; g = f; f = e; e = d + t1; d = c; c = bb; bb = a; a = t1 + t2;
    }
    h[0] += a; h[1] += bb; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void gpi_sha256_init(gpi_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->nbytes = 0;
    s->nblock = 0;
}

void gpi_sha256_update(gpi_sha256 *s, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    s->nbytes += n;
    if (s->nblock) {
        size_t take = 64 - s->nblock < n ? 64 - s->nblock : n;
        memcpy(s->block + s->nblock, p, take);
        s->nblock += take;
        p += take;
        n -= take;
        if (s->nblock == 64) {
            compress(s->h, s->block);
            s->nblock = 0;
        }
    }
    while (n >= 64) {
        compress(s->h, p);
        p += 64;
        n -= 64;
    }
    if (n) {
        memcpy(s->block, p, n);
        s->nblock = n;
    }
}

void gpi_sha256_final(gpi_sha256 *s, char out[65])
{
    uint64_t bits = s->nbytes * 8;
    unsigned char pad = 0x80;
    gpi_sha256_update(s, &pad, 1);
    unsigned char zero = 0;
    while (s->nblock != 56) gpi_sha256_update(s, &zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    gpi_sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

void gpi_sha256_hex(const void *buf, size_t n, char out[65])
{
    gpi_sha256 s;
    gpi_sha256_init(&s);
    gpi_sha256_update(&s, buf, n);
    gpi_sha256_final(&s, out);
}

uint64_t gpi_fnv1a64(const void *buf, size_t n, uint64_t h)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t gpi_identity_hash(int kind, const char *source, const char *ident)
{
    uint64_t h = gpi_fnv1a64(kind == GPI_TRADE ? "t" : "o", 2, GPI_FNV_SEED);
    if (!source) source = "";
    if (!ident) ident = "";
    h = gpi_fnv1a64(source, strlen(source) + 1, h);
    return gpi_fnv1a64(ident, strlen(ident), h);
}

uint64_t gpi_store_key(int kind, uint64_t identity_hash)
{
    return kind == GPI_TRADE ? identity_hash | GPI_KEY_TRADE_BIT
                             : identity_hash & ~GPI_KEY_TRADE_BIT;
}
