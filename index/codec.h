/* index/codec.h -- the byte encoding of the states a build leaves
 * (index/chain_state.c: v2's chain; index/v3_state.c: v3's panel and
 * price index): every number as 8 bytes little-endian (two's complement),
 * counts first, strings as a length and their bytes in 8-byte words.  So
 * the bytes are the same on every machine, and decoding checks every
 * count against the bytes left: malformed or truncated bytes are an
 * error, never a wild read.  Static functions of the files that include
 * it; pure.
 */
#ifndef GPI_INDEX_CODEC_H
#define GPI_INDEX_CODEC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} wbuf;

static inline void put_u64(wbuf *b, uint64_t v)
{
    if (b->oom || (b->oom = GPI_VEC_RESERVE(b->p, b->cap, b->n + 8) != 0)) return;
    /* byte by byte, written out: the compiler makes one store of it */
    unsigned char *q = b->p + b->n;
    q[0] = (unsigned char)v;
    q[1] = (unsigned char)(v >> 8);
    q[2] = (unsigned char)(v >> 16);
    q[3] = (unsigned char)(v >> 24);
    q[4] = (unsigned char)(v >> 32);
    q[5] = (unsigned char)(v >> 40);
    q[6] = (unsigned char)(v >> 48);
    q[7] = (unsigned char)(v >> 56);
    b->n += 8;
}

static inline void put_i64(wbuf *b, int64_t v)
{
    put_u64(b, (uint64_t)v);
}

static inline void put_str(wbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u64(b, n);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = 0;
        for (size_t k = 0; k < 8 && i + k < n; k++) v |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
        put_u64(b, v);
    }
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct rbuf {
    const unsigned char *p;
    size_t n, at;
    int bad;
} rbuf;

static inline uint64_t get_u64(rbuf *b)
{
    if (b->bad || b->n - b->at < 8) {
        b->bad = 1;
        return 0;
    }
    const unsigned char *q = b->p + b->at; /* one load (as put_u64) */
    uint64_t v = (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 |
                 (uint64_t)q[3] << 24 | (uint64_t)q[4] << 32 | (uint64_t)q[5] << 40 |
                 (uint64_t)q[6] << 48 | (uint64_t)q[7] << 56;
    b->at += 8;
    return v;
}

static inline int64_t get_i64(rbuf *b)
{
    return (int64_t)get_u64(b);
}

static inline int32_t get_day(rbuf *b)
{
    int64_t v = get_i64(b);
    if (v < INT32_MIN || v > INT32_MAX) b->bad = 1;
    return b->bad ? 0 : (int32_t)v;
}

/* A count of items of `size` encoded bytes each: no more than the bytes
 * left can hold (so a corrupt count never allocates wildly). */
static inline size_t get_count(rbuf *b, size_t size)
{
    uint64_t v = get_u64(b);
    if (b->bad || v > (b->n - b->at) / size) {
        b->bad = 1;
        return 0;
    }
    return (size_t)v;
}

static inline char *get_str(rbuf *b)
{
    size_t n = get_count(b, 1);
    size_t words = (n + 7) / 8;
    if (b->bad || words > (b->n - b->at) / 8) {
        b->bad = 1;
        return NULL;
    }
    char *s = malloc(n + 1);
    if (!s) return NULL;
    for (size_t i = 0; i < words; i++) {
        uint64_t v = get_u64(b);
        for (size_t k = 0; k < 8 && i * 8 + k < n; k++) s[i * 8 + k] = (char)(unsigned char)(v >> (8 * k));
    }
    s[n] = '\0';
    return s;
}

#endif
