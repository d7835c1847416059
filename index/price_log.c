/* index/price_log.c -- the logarithms and exponentials of methodology v3's
 * price index (METHODOLOGY.md §13.5), in integer arithmetic.
 *
 * NOTES ON THE DESIGN
 * (1) The index is a chain of geometric means, so it needs ln and exp, and
 *     its published numbers must be reproducible by anyone: by verify/ (C)
 *     and by tests/ref/ref_v3.py (Python, decimal arithmetic), digit for
 *     digit.  A published number is therefore never the rounding of a
 *     binary double: ln of a price is defined as the exact ln rounded half
 *     away from zero to 1e-12, and each exp as the exact value rounded
 *     half away from zero at its published precision.  Both are computed
 *     here in unsigned 128-bit fixed point with 120 fractional bits,
 *     accurate to about 2^-110 (1e-33): a result can differ from the
 *     exact rounding only when the exact value lies within 1e-33 of a
 *     rounding boundary -- for a logarithm of an integer or an exponential
 *     of a non-zero rational, a transcendental number, that would take a
 *     coincidence of 21 digits past the last published one.
 * (2) ln x (x >= 1 an integer): x = 2^e m with m in [1, 2), and
 *     ln m = 2 atanh(z), z = (m - 1) / (m + 1) in [0, 1/3]:
 *     2 (z + z^3/3 + z^5/5 + ...), about 40 terms to 2^-120.  z is
 *     computed exactly as (x - 2^e) / (x + 2^e), truncated once.
 * (3) exp x: x = k ln 2 + r with r in [0, ln 2) and k an integer; exp r
 *     by its Taylor series (35 terms), then scaled by 2^k and by the
 *     published unit.  |x| is limited to 40 (e^40 ~ 2.4e17: an index of
 *     1e19 or a change of that much is not a price); beyond, an error.
 * (4) Products of two 120-bit fractions need 240 bits: mul() keeps the top
 *     part of the 256-bit product from four 64 x 64 -> 128 products.
 */
#include "index/v3.h"

#define FRAC 120
typedef unsigned __int128 u128;

/* floor(ln 2 x 2^120) (tests/test_index_v3.c checks it against ln(2^40)) */
static const u128 LN2 = ((u128)UINT64_C(0xb17217f7d1cf79) << 64) | UINT64_C(0xabc9e3b39803f2f6);
static const u128 ONE = (u128)1 << FRAC;

/* floor(a b / 2^120) for a, b < 2^127 with a b / 2^120 < 2^128. */
static u128 mul(u128 a, u128 b)
{
    uint64_t a1 = (uint64_t)(a >> 64), a0 = (uint64_t)a, b1 = (uint64_t)(b >> 64), b0 = (uint64_t)b;
    u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
    /* the 256-bit product as hi:lo */
    u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10; /* < 3 x 2^64 */
    u128 lo = (uint64_t)p00 | (mid << 64);
    u128 hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    return (hi << (128 - FRAC)) | (lo >> FRAC);
}

int64_t idx_ln_e12(int64_t x)
{
    if (x <= 1) return 0;
    int e = 63 - __builtin_clzll((unsigned long long)x);
    uint64_t p2 = (uint64_t)1 << e;
    u128 a = (u128)((uint64_t)x - p2), b = (u128)((uint64_t)x + p2);
    /* z = floor(a 2^120 / b) in two steps (a < b < 2^64) */
    u128 q1 = (a << 64) / b, r1 = (a << 64) % b;
    u128 z = (q1 << 56) + (r1 << 56) / b;
    u128 z2 = mul(z, z), t = z, s = z;
    for (unsigned k = 1; t != 0 && k < 200; k++) {
        t = mul(t, z2);
        s += t / (2 * k + 1);
    }
    u128 v = (u128)e * LN2 + 2 * s; /* ln x x 2^120, < 2^126 */
    /* round(v 10^12 / 2^120): v = vh 2^64 + vl */
    const uint64_t T = UINT64_C(1000000000000);
    u128 vh = v >> 64, vl = (uint64_t)v;
    u128 bl = vl * T;
    u128 h = vh * T + (bl >> 64); /* (h 2^64 + low 64 bits of bl) = v 10^12 */
    return (int64_t)((h + ((u128)1 << 55)) >> 56);
}

int64_t idx_exp_scaled(int64_t l_e12, int64_t scale, int *overflow)
{
    const int64_t T = INT64_C(1000000000000);
    *overflow = 0;
    if (l_e12 > 40 * T || l_e12 < -40 * T || scale <= 0 || scale > T) {
        *overflow = 1;
        return -1;
    }
    int neg = l_e12 < 0;
    uint64_t al = neg ? (uint64_t)0 - (uint64_t)l_e12 : (uint64_t)l_e12;
    uint64_t q = al / (uint64_t)T, rem = al % (uint64_t)T;
    /* |x| 2^120 = q 2^120 + floor(rem 2^120 / 10^12) (two steps) */
    u128 f1 = ((u128)rem << 87) / (uint64_t)T, r1 = ((u128)rem << 87) % (uint64_t)T;
    u128 ax = ((u128)q << FRAC) + (f1 << 33) + (r1 << 33) / (uint64_t)T;
    /* x = k ln 2 + r, r in [0, ln 2) */
    int k;
    u128 r;
    if (!neg) {
        k = (int)(ax / LN2);
        r = ax - (u128)k * LN2;
    } else {
        u128 kk = ax / LN2;
        if (kk * LN2 < ax) kk++;
        k = -(int)kk;
        r = kk * LN2 - ax;
    }
    u128 s = ONE, t = ONE;
    for (unsigned i = 1; t != 0 && i < 200; i++) {
        t = mul(t, r) / i;
        s += t;
    }
    /* round(s scale 2^k / 2^120): s scale = h 2^64 + lo */
    u128 sl = (u128)(uint64_t)s * (uint64_t)scale;
    u128 h = (s >> 64) * (uint64_t)scale + (sl >> 64);
    uint64_t lo = (uint64_t)sl;
    int sh = FRAC - k; /* divide h 2^64 + lo by 2^sh */
    if (sh < 64) {
        *overflow = 1;
        return -1;
    }
    if (sh == 64) {
        u128 res = h + (((u128)lo + ((u128)1 << 63)) >> 64);
        if (res > (u128)INT64_MAX) {
            *overflow = 1;
            return -1;
        }
        return (int64_t)res;
    }
    if (sh - 64 >= 128) return 0;
    u128 res = (h + ((u128)1 << (sh - 65))) >> (sh - 64);
    if (res > (u128)INT64_MAX) {
        *overflow = 1;
        return -1;
    }
    return (int64_t)res;
}
