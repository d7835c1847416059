/* core/ident.c -- the identity text of an observation without an id
 * (SPEC §3), shared by ingest (which builds it) and the store (which
 * upgrades the identities of rows stored before version 2 of the rule).
 *
 * NOTES ON THE DESIGN
 * (1) Version 2 of the rule (issue 12): the identity depends only on the
 *     row's own values, never on the normalization tables.  Version 1
 *     took the canonical provider from providers.csv and the trade status
 *     after the affiliate rule (buyer in the seller's group, also from
 *     providers.csv): once an alias was added, a re-sent file got other
 *     identities and its trades were stored a second time.  Version 2
 *     takes the provider as written, folded the way names are matched
 *     (trimmed, lower case, runs of blanks as one: gpi_fold_name), and the
 *     status as written (ok when absent).
 * (2) Fields are joined with '|'; '|' and '\\' inside the free-text
 *     fields are escaped with '\\', so no two rows share an identity by
 *     moving text across a separator, and the fields can be split again
 *     (gpi_ident_upgrade).
 */
#include "core/obs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int gpi_fold_gpu(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    int fits = 1;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '-' || c == '_' || c == '\t') continue;
        if (n + 1 >= cap) {
            fits = 0;
            break;
        }
        out[n++] = (char)tolower(c);
    }
    if (cap) out[n] = '\0';
    return fits ? (int)n : -1;
}

int gpi_fold_name(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    int space = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '\t') {
            space = n > 0;
            continue;
        }
        if (n + 2 + (size_t)space >= cap) return -1;
        if (space) out[n++] = ' ';
        space = 0;
        out[n++] = (char)tolower(c);
    }
    if (cap) out[n] = '\0';
    return (int)n;
}

const char *gpi_ident_escape(const char *s, char *out, size_t cap)
{
    if (!s) return "";
    if (!strpbrk(s, "|\\")) return s;
    size_t n = 0;
    for (; *s; s++) {
        if (n + 3 > cap) return NULL;
        if (*s == '|' || *s == '\\') out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = '\0';
    return out;
}

/* Splits an identity text at its unescaped '|' (note 2): start and end of
 * each field in at[], up to max fields; returns the field count. */
static int split(const char *t, size_t *start, size_t *end, int max)
{
    int n = 0;
    size_t i = 0, s = 0;
    for (;; i++) {
        if (t[i] == '\\' && t[i + 1]) {
            i++;
            continue;
        }
        if (t[i] == '|' || t[i] == '\0') {
            if (n < max) {
                start[n] = s;
                end[n] = i;
            }
            n++;
            if (t[i] == '\0') return n;
            s = i + 1;
        }
    }
}

int gpi_ident_upgrade(const char *v1, int kind, const char *canonical_provider,
                      const char *raw_provider, const char *status, char *out, size_t cap)
{
    enum { MAXF = 16, STATUS_FIELD = 13 };
    size_t st[MAXF], en[MAXF];
    int want = kind == GPI_TRADE ? 15 : 9;
    if (!v1 || !raw_provider || split(v1, st, en, MAXF) != want) return -1;
    char esc_buf[1024], fold[512];
    /* the first field must be the version 1 provider: else v1 is an id */
    const char *canon = gpi_ident_escape(canonical_provider, esc_buf, sizeof esc_buf);
    if (!canon || strlen(canon) != en[0] - st[0] || memcmp(v1, canon, en[0]) != 0) return -1;
    if (gpi_fold_name(raw_provider, fold, sizeof fold) <= 0) return -1;
    const char *prov = gpi_ident_escape(fold, esc_buf, sizeof esc_buf);
    if (!prov) return -1;
    size_t n = 0;
    for (int f = 0; f < want; f++) {
        const char *txt = v1 + st[f];
        size_t len = en[f] - st[f];
        if (f == 0) {
            txt = prov;
            len = strlen(prov);
        } else if (f == STATUS_FIELD && kind == GPI_TRADE && status) {
            txt = status;
            len = strlen(status);
        }
        if (n + len + 2 > cap) return -1;
        if (f) out[n++] = '|';
        memcpy(out + n, txt, len);
        n += len;
    }
    out[n] = '\0';
    return 0;
}

/* ---- identity hashes (obs.h) ------------------------------------------------ */

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
