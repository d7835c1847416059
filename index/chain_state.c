/* index/chain_state.c -- a v2 chain's state as bytes and back: the
 * checkpoint a build leaves after its last day, so that building the next
 * day -- the daily job -- steps the chain once instead of replaying every
 * day since its last reset (build.c note 8).  Data only: index/v2_store.c
 * files the bytes in the store and reads them back; this file includes no
 * store header.
 *
 * NOTES ON THE DESIGN
 * (1) What is kept is what idx_chain_step carries from one day to the
 *     next: the value and its carry, the anchor, reference and reset
 *     days, the panel (every member with its base, last and reference
 *     prices and, for trading groups, its name), the last fixed day's
 *     constituents and active traders (panel_change), every trading
 *     provider's last trading day, and the anchor_days recent days'
 *     cross-sections and constituents (an anchor's window).  Scratch
 *     (c->cur, the window's estimates, the detail texts) is rebuilt by the
 *     next step and is not kept; nor are snapshot group names, which point
 *     into a day buffer (index/snap.c) and are not read after that day.
 * (2) Encoding: every number as 8 bytes little-endian (two's complement),
 *     counts first, strings as a length and their bytes; a leading
 *     format number (IDX_CHAIN_STATE_FORMAT) and the grade's anchor_days.
 *     So the bytes are the same on every machine, and decoding checks
 *     every count against the bytes left: malformed or truncated bytes are
 *     an error, never a wild read (the caller then replays).
 * (3) Decoding into a chain fresh from idx_chain_init gives a chain whose
 *     next steps are the same as the encoded one's (tests/test_index.c
 *     steps both through the demo market and compares every row).
 */
#include "index/chain.h"
#include "core/vec.h"
#include "index/codec.h"

#include <stdlib.h>
#include <string.h>

static void put_snap(wbuf *b, const idx_snap *s)
{
    put_i64(b, s->day);
    const idx_const *v[2] = {s->o, s->t};
    size_t n[2] = {s->no, s->nt};
    for (int k = 0; k < 2; k++) {
        put_u64(b, n[k]);
        for (size_t i = 0; i < n[k]; i++) {
            put_u64(b, v[k][i].key);
            put_u64(b, v[k][i].group);
            put_i64(b, v[k][i].price);
            put_i64(b, v[k][i].volume);
        }
    }
}

gpi_status idx_chain_encode(const idx_chain *c, unsigned char **out, size_t *n, gpi_diag *d)
{
    wbuf b = {0};
    *out = NULL;
    *n = 0;
    put_i64(&b, IDX_CHAIN_STATE_FORMAT);
    put_i64(&b, c->g->p.anchor_days);
    put_i64(&b, c->has);
    put_i64(&b, c->nano);
    put_i64(&b, c->value_e4);
    put_i64(&b, c->carry);
    put_i64(&b, c->last_day);
    put_i64(&b, c->anchor_day);
    put_i64(&b, c->ref_day);
    put_i64(&b, c->reset_day);
    for (int k = 0; k < 2; k++) {
        put_u64(&b, c->n_mem[k]);
        for (size_t i = 0; i < c->n_mem[k]; i++) {
            const idx_member *m = &c->mem[k][i];
            put_u64(&b, m->key);
            put_u64(&b, m->group);
            put_i64(&b, m->base);
            put_i64(&b, m->last);
            put_i64(&b, m->last_vol);
            put_i64(&b, m->last_day);
            put_i64(&b, m->ref);
            put_i64(&b, m->ref_vol);
            if (k == 1) put_str(&b, m->name);
        }
    }
    put_snap(&b, &c->prev);
    put_u64(&b, c->nact);
    for (size_t i = 0; i < c->nact; i++) {
        put_u64(&b, c->act[i].group);
        put_i64(&b, c->act[i].day);
    }
    put_u64(&b, c->nprev_act);
    for (size_t i = 0; i < c->nprev_act; i++) put_u64(&b, c->prev_act[i]);
    int w = c->hist ? c->g->p.anchor_days : 0;
    for (int i = 0; i < w; i++) {
        put_i64(&b, c->hist[i].day);
        put_i64(&b, c->hist[i].xs_e4);
        put_snap(&b, &c->hist[i].snap);
    }
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    }
    *out = b.p;
    *n = b.n;
    return GPI_OK;
}

/* ---- decoding ---------------------------------------------------------------- */

static int get_snap(rbuf *b, idx_snap *s)
{
    s->day = get_day(b);
    idx_const **v[2] = {&s->o, &s->t};
    size_t *n[2] = {&s->no, &s->nt}, *cap[2] = {&s->cap_o, &s->cap_t};
    for (int k = 0; k < 2; k++) {
        size_t m = get_count(b, 32);
        if (b->bad) return 0;
        if (GPI_VEC_RESERVE(*v[k], *cap[k], m + 1)) return -1;
        for (size_t i = 0; i < m; i++) {
            idx_const *x = &(*v[k])[i];
            x->key = get_u64(b);
            x->group = get_u64(b);
            x->price = get_i64(b);
            x->volume = get_i64(b);
            x->name = NULL;
        }
        *n[k] = m;
    }
    return b->bad ? 0 : 1;
}

gpi_status idx_chain_decode(idx_chain *c, const unsigned char *p, size_t n, gpi_diag *d)
{
    rbuf b = {p, n, 0, 0};
    int oom = 0;
    if (get_i64(&b) != IDX_CHAIN_STATE_FORMAT || get_i64(&b) != c->g->p.anchor_days)
        b.bad = 1;
    c->has = (int)(get_i64(&b) != 0);
    c->nano = get_i64(&b);
    c->value_e4 = get_i64(&b);
    int64_t carry = get_i64(&b); /* days carried: 0 .. max_carry_days (chain.c) */
    if (carry < 0 || carry > c->g->p.max_carry_days) b.bad = 1;
    c->carry = b.bad ? 0 : (int)carry;
    c->last_day = get_day(&b);
    c->anchor_day = get_day(&b);
    c->ref_day = get_day(&b);
    c->reset_day = get_day(&b);
    for (int k = 0; k < 2 && !b.bad && !oom; k++) {
        size_t m = get_count(&b, k ? 72 : 64);
        if (b.bad) break;
        if (GPI_VEC_RESERVE(c->mem[k], c->cap_mem[k], m + 1)) {
            oom = 1;
            break;
        }
        for (size_t i = 0; i < m && !b.bad; i++) {
            idx_member *x = &c->mem[k][i];
            memset(x, 0, sizeof *x);
            x->key = get_u64(&b);
            x->group = get_u64(&b);
            x->base = get_i64(&b);
            x->last = get_i64(&b);
            x->last_vol = get_i64(&b);
            x->last_day = get_day(&b);
            x->ref = get_i64(&b);
            x->ref_vol = get_i64(&b);
            c->n_mem[k] = i + 1; /* names owned from here (idx_chain_free) */
            if (k == 1 && !(x->name = get_str(&b)) && !b.bad) oom = 1;
            if (oom) break;
        }
    }
    if (!b.bad && !oom) {
        int r = get_snap(&b, &c->prev);
        oom = r < 0;
    }
    size_t na = b.bad || oom ? 0 : get_count(&b, 16);
    if (!b.bad && !oom && GPI_VEC_RESERVE(c->act, c->cap_act, na + 1)) oom = 1;
    for (size_t i = 0; i < na && !b.bad && !oom; i++) {
        c->act[i].group = get_u64(&b);
        c->act[i].day = get_day(&b);
    }
    c->nact = b.bad || oom ? 0 : na;
    size_t np = b.bad || oom ? 0 : get_count(&b, 8);
    if (!b.bad && !oom && GPI_VEC_RESERVE(c->prev_act, c->cap_prev_act, np + 1)) oom = 1;
    for (size_t i = 0; i < np && !b.bad && !oom; i++) c->prev_act[i] = get_u64(&b);
    c->nprev_act = b.bad || oom ? 0 : np;
    int w = c->hist ? c->g->p.anchor_days : 0;
    for (int i = 0; i < w && !b.bad && !oom; i++) {
        c->hist[i].day = get_day(&b);
        c->hist[i].xs_e4 = get_i64(&b);
        oom = get_snap(&b, &c->hist[i].snap) < 0;
    }
    if (!b.bad && b.at != b.n) b.bad = 1;
    if (oom) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    if (b.bad)
        return gpi_diag_set(d, GPI_EINPUT,
                            "grade %s: stored chain state is malformed at byte %zu of %zu",
                            c->g->id, b.at, b.n);
    return GPI_OK;
}
