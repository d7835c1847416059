/* index/roles.c -- a row's roles: what its fix made of the day's
 * observations, stored with the row so that publication lists the day's
 * observations (observations.csv) from what the build decided instead of
 * fixing the day again and, for a v2 grade, replaying its chain through
 * the store (METHODOLOGY.md §13.7; the rows stored before store version 17
 * have none, and publication still does both for them: index/feed.c).
 *
 * NOTES ON THE DESIGN
 * (1) What is stored is what cannot be had from the day's observations
 *     and the grade's definition alone: the reason of every observation
 *     the fix left out (the screen's, a cancelled or affiliate trade, a
 *     price unchanged too long: that one looks back over earlier days),
 *     and for a v2 grade the chain's matched members on the day (their
 *     reference, base and relative prices: the chain's history).  Which
 *     observations are the grade's, and which snapshot of an offer key is
 *     the day's, come from the day read with the grade's filter, as in the
 *     build; an observation absent from the list entered the fix.  A v3
 *     row's panel roles and matched prices are in its v3_detail
 *     (index/v3_detail.c); its roles add the screen's reasons.
 * (2) Text, one line each, the header first:
 *       roles 1
 *       x<k> <key> <observed_at> <reason>     an excluded observation
 *       m<k> <key> <ref_e8> <base_e8> <rel_e12>   a v2 matched member
 *     <k> is o (offer) or t (trade), <key> 16 hex digits: an
 *     observation's key without its top bit (an x line, and an offer's m
 *     line), or a trade group's idx_group_hash (a trade's m line),
 *     <reason> the published reason
 *     (idx_reason_name: a name, not a number, so a renumbering of the
 *     reasons cannot change what a stored row says).  An empty list is
 *     the header alone: a row with roles is told from an older one
 *     (NULL) by that.  Only the excluded items are listed because most
 *     observations enter the fix: on the bench year the roles are a few
 *     per cent of the observations' count.
 * (3) Parsed into two arrays sorted by (kind, key, time) and (kind, key)
 *     for bsearch: publication looks up every listed observation.
 * (4) An observation's key is stored without its top bit: the store's key
 *     is its identity hash with the kind in the top bit (core/obs.h,
 *     gpi_store_key), a layout the store has changed before (migration 3
 *     set that bit on the rows stored earlier).  Published files do not
 *     depend on it (tests/test_e2e_index.c flips every stored key's top
 *     bit and regenerates vintages byte for byte), so the roles do not
 *     either; (kind, the other 63 bits) is the store's identity all the
 *     same.
 */
#include "index/roles.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ROLES_HEADER "roles 1\n"
#define MALFORMED "%s: the row's stored roles are malformed (build the day again)"

void idx_roles_begin(gpi_sbuf *b)
{
    b->n = 0;
    b->oom = 0;
    gpi_sbuf_put(b, ROLES_HEADER, sizeof ROLES_HEADER); /* with its NUL */
    if (!b->oom) b->n--;
}

static char kind_char(int kind)
{
    return kind == GPI_OFFER ? 'o' : 't';
}

/* An observation's key as the roles hold it (note 4). */
static uint64_t obs_key(uint64_t key)
{
    return key & (UINT64_MAX >> 1);
}

/* A member's key as the roles hold it: an offer's (an observation's key),
 * a trading group's hash whole. */
static uint64_t member_key(int kind, uint64_t key)
{
    return kind == GPI_OFFER ? obs_key(key) : key;
}

void idx_roles_matched(gpi_sbuf *b, const idx_chain *c)
{
    if (!c->has) return; /* idx_chain_lookup matches nothing */
    for (int k = 0; k < 2; k++) {
        int kind = k == 0 ? GPI_OFFER : GPI_TRADE;
        for (size_t i = 0; i < c->n_mem[k]; i++) {
            const idx_member *m = &c->mem[k][i];
            if (!m->matched) continue;
            idx_obs_match x = {0, 0, 0, 0, -1, -1, -1};
            idx_chain_lookup(c, kind, m->key, &x);
            gpi_sbuf_printf(b, "m%c %016" PRIx64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                            kind_char(kind), member_key(kind, m->key), x.ref_price_e8,
                            x.base_price_e8, x.relative_e12);
        }
    }
}

void idx_roles_excluded(gpi_sbuf *b, const idx_day *dy, size_t gi)
{
    for (int k = 0; k < 2; k++) {
        int kind = k == 0 ? GPI_OFFER : GPI_TRADE;
        const idx_buf *v = kind == GPI_OFFER ? &dy->offers[gi] : &dy->trades[gi];
        for (size_t i = 0; i < v->n; i++)
            if (v->v[i].reason != IDX_OK)
                gpi_sbuf_printf(b, "x%c %016" PRIx64 " %" PRId64 " %s\n", kind_char(kind),
                                obs_key(v->v[i].key_hash), v->v[i].observed_at,
                                idx_reason_name(v->v[i].reason));
    }
}

/* ---- publication's side ------------------------------------------------------ */

typedef struct role_x {
    int kind, reason;
    uint64_t key;
    int64_t at;
} role_x;

typedef struct role_m {
    int kind;
    uint64_t key;
    int64_t ref, base, rel;
} role_m;

struct idx_roles {
    role_x *x;
    size_t nx;
    role_m *m;
    size_t nm;
};

void idx_roles_free(idx_roles *r)
{
    if (!r) return;
    free(r->x);
    free(r->m);
    free(r);
}

static int cmp_x(const void *a, const void *b)
{
    const role_x *p = a, *q = b;
    if (p->kind != q->kind) return p->kind < q->kind ? -1 : 1;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return (p->at > q->at) - (p->at < q->at);
}

static int cmp_m(const void *a, const void *b)
{
    const role_m *p = a, *q = b;
    if (p->kind != q->kind) return p->kind < q->kind ? -1 : 1;
    return (p->key > q->key) - (p->key < q->key);
}

static int reason_of(const char *name)
{
    for (int r = IDX_OK + 1; r <= IDX_EX_LAST; r++)
        if (strcmp(idx_reason_name(r), name) == 0) return r;
    return -1;
}

/* One line (without its newline) into r; 0 ok, -1 malformed. */
static int parse_line(idx_roles *r, const char *s, size_t len)
{
    char line[256];
    if (len < 3 || len >= sizeof line || (s[1] != 'o' && s[1] != 't') || s[2] != ' ') return -1;
    memcpy(line, s, len);
    line[len] = '\0';
    int kind = s[1] == 'o' ? GPI_OFFER : GPI_TRADE;
    char *p = line + 3, *end;
    if (strlen(p) < 17 || p[16] != ' ') return -1;
    for (int i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)p[i])) return -1;
    p[16] = '\0';
    uint64_t key = strtoull(p, &end, 16);
    p += 17;
    int64_t v[3];
    int nv = s[0] == 'x' ? 1 : s[0] == 'm' ? 3 : 0;
    if (!nv) return -1;
    for (int i = 0; i < nv; i++) {
        if (*p != '-' && !isdigit((unsigned char)*p)) return -1;
        v[i] = strtoll(p, &end, 10);
        if (end == p || (i < nv - 1 || s[0] == 'x' ? *end != ' ' : *end != '\0')) return -1;
        p = *end ? end + 1 : end;
    }
    if (s[0] == 'x') {
        int reason = reason_of(p);
        if (reason < 0) return -1;
        r->x[r->nx++] = (role_x){kind, reason, key, v[0]};
    } else {
        r->m[r->nm++] = (role_m){kind, key, v[0], v[1], v[2]};
    }
    return 0;
}

gpi_status idx_roles_parse(const char *text, const char *where, idx_roles **out, gpi_diag *d)
{
    *out = NULL;
    size_t hl = sizeof ROLES_HEADER - 1;
    if (!text || strncmp(text, ROLES_HEADER, hl) != 0)
        return gpi_diag_set(d, GPI_ESTORE, MALFORMED, where);
    size_t lines = 0;
    for (const char *p = text + hl; *p; p++) lines += *p == '\n';
    idx_roles *r = calloc(1, sizeof *r);
    if (r) {
        r->x = calloc(lines + 1, sizeof *r->x);
        r->m = calloc(lines + 1, sizeof *r->m);
    }
    if (!r || !r->x || !r->m) {
        idx_roles_free(r);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    const char *p = text + hl;
    while (*p) {
        const char *nl = strchr(p, '\n');
        if (!nl || parse_line(r, p, (size_t)(nl - p)) != 0) {
            idx_roles_free(r);
            return gpi_diag_set(d, GPI_ESTORE, MALFORMED, where);
        }
        p = nl + 1;
    }
    if (r->nx > 1) qsort(r->x, r->nx, sizeof *r->x, cmp_x);
    if (r->nm > 1) qsort(r->m, r->nm, sizeof *r->m, cmp_m);
    *out = r;
    return GPI_OK;
}

int idx_roles_reason(const idx_roles *r, int kind, uint64_t key, int64_t observed_at)
{
    role_x k = {kind, 0, obs_key(key), observed_at};
    const role_x *f = r->nx ? bsearch(&k, r->x, r->nx, sizeof k, cmp_x) : NULL;
    return f ? f->reason : IDX_OK;
}

void idx_roles_lookup(const idx_roles *r, int kind, uint64_t key, idx_obs_match *m)
{
    role_m k = {kind, member_key(kind, key), 0, 0, 0};
    const role_m *f = r->nm ? bsearch(&k, r->m, r->nm, sizeof k, cmp_m) : NULL;
    m->matched = f != NULL;
    m->ref_price_e8 = f ? f->ref : -1;
    m->base_price_e8 = f ? f->base : -1;
    m->relative_e12 = f ? f->rel : -1;
}
