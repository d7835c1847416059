/* index/v3_state.c -- methodology v3's state as bytes and back: what a
 * build leaves after its last day (through the store's chain states,
 * index/v3_store.c) so the next day's build steps once instead of
 * replaying the grade's whole history.
 *
 * NOTES ON THE DESIGN
 * (1) Kept: what idx_v3_step carries from one day to the next -- the last
 *     day, the sequence of the panel's raw values (§4.3-§4.4: the
 *     adjustment's window and the carry), every group the state knows
 *     (name, membership, days present and absent, the day of admission,
 *     its last day present and that day's used observations), every item
 *     of the price index (kind, key, group, last price and day), the log
 *     index and its base, and the value and log index behind the
 *     composition gaps.  Scratch (the day's output) is not kept.
 * (2) The encoding is index/codec.h's, led by IDX_V3_STATE_FORMAT and the
 *     grade's admission_days, absence_days and adj_lookback_days, so a
 *     state read with other parameters is refused (the caller replays).
 * (3) Decoding into a state fresh from idx_v3_new gives a state whose
 *     next steps are the same as the encoded one's
 *     (tests/test_index_v3.c steps both and compares every output).
 */
#include "index/v3_internal.h"
#include "index/codec.h"

#include <stdlib.h>
#include <string.h>

static void put_items(wbuf *b, const idx_item *v, size_t n)
{
    put_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        put_i64(b, v[i].price_micro);
        put_i64(b, v[i].qty_micro);
        put_u64(b, v[i].key_hash);
        put_i64(b, v[i].observed_at);
        put_i64(b, v[i].reason);
    }
}

/* A day's reach (v3_reach.c). */
static void put_reach(wbuf *b, const idx_reach_day *r)
{
    put_i64(b, r->day);
    put_i64(b, r->v_e4);
    put_i64(b, r->carried);
    for (int k = 0; k < IDX_REACH_KINDS; k++) {
        put_i64(b, r->lo_e4[k]);
        put_i64(b, r->hi_e4[k]);
        put_i64(b, r->void_[k]);
        put_i64(b, r->carry_[k]);
    }
}

gpi_status idx_v3_encode(const idx_v3 *s, unsigned char **out, size_t *n, gpi_diag *d)
{
    wbuf b = {0};
    const idx_params *p = &s->g->p;
    *out = NULL;
    *n = 0;
    put_i64(&b, IDX_V3_STATE_FORMAT);
    put_i64(&b, p->admission_days);
    put_i64(&b, p->absence_days);
    put_i64(&b, s->seq.L);
    put_i64(&b, s->last_day);
    for (int i = 0; i < s->seq.L; i++) {
        put_i64(&b, s->seq.rday[i]);
        put_i64(&b, s->seq.rt[i]);
        put_i64(&b, s->seq.ro[i]);
    }
    put_i64(&b, s->seq.prev_day);
    put_i64(&b, s->seq.prev_has_value);
    put_i64(&b, s->seq.prev_carry);
    put_i64(&b, s->seq.prev_value);
    /* groups a step would purge are left out (v3_panel.c note 4) */
    size_t ng = 0;
    for (size_t i = 0; i < s->ng; i++) ng += s->gr[i].member || s->gr[i].streak > 0;
    put_u64(&b, ng);
    for (size_t i = 0; i < s->ng; i++) {
        const v3_group *x = &s->gr[i];
        if (!x->member && x->streak == 0) continue;
        put_str(&b, x->name);
        put_i64(&b, x->member);
        put_i64(&b, x->streak);
        put_i64(&b, x->absent);
        put_i64(&b, x->since);
        put_i64(&b, x->last_seen);
        put_items(&b, x->o, x->no);
        put_items(&b, x->t, x->nt);
    }
    put_u64(&b, s->nit);
    for (size_t i = 0; i < s->nit; i++) {
        put_u64(&b, s->it[i].key);
        put_u64(&b, s->it[i].group);
        put_i64(&b, s->it[i].price);
        put_i64(&b, s->it[i].day);
        put_i64(&b, s->it[i].kind);
    }
    put_i64(&b, s->index_on);
    put_i64(&b, s->base_day);
    put_i64(&b, s->log_e12);
    put_i64(&b, s->value_last_e4);
    put_i64(&b, s->index_last_on);
    put_i64(&b, s->month_day);
    put_i64(&b, s->month_value_e4);
    put_i64(&b, s->month_log_e12);
    put_i64(&b, s->month_index_on);
    put_reach(&b, &s->reach_prev);
    put_u64(&b, s->reach_n);
    for (size_t i = 0; i < s->reach_n; i++) put_reach(&b, &s->reach[i]);
    if (b.oom) {
        free(b.p);
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    }
    *out = b.p;
    *n = b.n;
    return GPI_OK;
}

/* 0 ok, -1 out of memory (b->bad on malformed bytes). */
static int get_items(rbuf *b, idx_item **v, size_t *n, size_t *cap)
{
    size_t m = get_count(b, 40);
    if (b->bad) return 0;
    if (GPI_VEC_RESERVE(*v, *cap, m + 1)) return -1;
    for (size_t i = 0; i < m; i++) {
        idx_item *x = &(*v)[i];
        x->price_micro = get_i64(b);
        x->qty_micro = get_i64(b);
        x->key_hash = get_u64(b);
        x->observed_at = get_i64(b);
        int64_t r = get_i64(b);
        if (r < IDX_OK || r > IDX_EX_LAST) b->bad = 1;
        x->reason = (int32_t)r;
        x->group = 0;
    }
    *n = b->bad ? 0 : m;
    return 0;
}

static int flag(rbuf *b)
{
    int64_t v = get_i64(b);
    if (v != 0 && v != 1) b->bad = 1;
    return (int)v;
}

static int small(rbuf *b, int64_t lo, int64_t hi)
{
    int64_t v = get_i64(b);
    if (v < lo || v > hi) b->bad = 1;
    return b->bad ? 0 : (int)v;
}

static void get_reach(rbuf *b, idx_reach_day *r)
{
    r->day = get_day(b);
    r->v_e4 = get_i64(b);
    r->carried = flag(b);
    for (int k = 0; k < IDX_REACH_KINDS; k++) {
        r->lo_e4[k] = get_i64(b);
        r->hi_e4[k] = get_i64(b);
        r->void_[k] = flag(b);
        r->carry_[k] = flag(b);
    }
}

gpi_status idx_v3_decode(idx_v3 *s, const unsigned char *pb, size_t nb, gpi_diag *d)
{
    rbuf b = {pb, nb, 0, 0};
    const idx_params *p = &s->g->p;
    int oom = 0;
    if (get_i64(&b) != IDX_V3_STATE_FORMAT || get_i64(&b) != p->admission_days ||
        get_i64(&b) != p->absence_days || get_i64(&b) != s->seq.L)
        b.bad = 1;
    s->last_day = get_day(&b);
    for (int i = 0; i < s->seq.L && !b.bad; i++) {
        s->seq.rday[i] = get_day(&b);
        s->seq.rt[i] = get_i64(&b);
        s->seq.ro[i] = get_i64(&b);
    }
    s->seq.prev_day = get_day(&b);
    s->seq.prev_has_value = flag(&b);
    s->seq.prev_carry = small(&b, 0, p->max_carry_days);
    s->seq.prev_value = get_i64(&b);
    size_t ng = b.bad ? 0 : get_count(&b, 64);
    if (!b.bad && GPI_VEC_RESERVE(s->gr, s->cap_gr, ng + 1)) oom = 1;
    for (size_t i = 0; i < ng && !b.bad && !oom; i++) {
        v3_group *x = &s->gr[i];
        memset(x, 0, sizeof *x);
        s->ng = i + 1; /* owned from here (idx_v3_free) */
        x->name = get_str(&b);
        if (!x->name) {
            oom = !b.bad;
            break;
        }
        x->hash = idx_v3_group_hash(x->name);
        x->member = flag(&b);
        x->streak = small(&b, 0, INT32_MAX);
        x->absent = small(&b, 0, INT32_MAX);
        x->since = get_day(&b);
        x->last_seen = get_day(&b);
        if (get_items(&b, &x->o, &x->no, &x->cap_o) || get_items(&b, &x->t, &x->nt, &x->cap_t))
            oom = 1;
        if (i > 0 && strcmp(s->gr[i - 1].name, x->name) >= 0) b.bad = 1; /* by name */
    }
    size_t nit = b.bad || oom ? 0 : get_count(&b, 40);
    if (!b.bad && !oom && GPI_VEC_RESERVE(s->it, s->cap_it, nit + 1)) oom = 1;
    for (size_t i = 0; i < nit && !b.bad && !oom; i++) {
        v3_item *x = &s->it[i];
        x->key = get_u64(&b);
        x->group = get_u64(&b);
        x->price = get_i64(&b);
        x->day = get_day(&b);
        x->kind = small(&b, 0, 1);
        /* by (kind, key), as the step's binary search needs them */
        if (i > 0 && (s->it[i - 1].kind > x->kind ||
                      (s->it[i - 1].kind == x->kind && s->it[i - 1].key >= x->key)))
            b.bad = 1;
    }
    s->nit = b.bad || oom ? 0 : nit;
    s->index_on = flag(&b);
    s->base_day = get_day(&b);
    s->log_e12 = get_i64(&b);
    s->value_last_e4 = get_i64(&b);
    s->index_last_on = flag(&b);
    s->month_day = get_day(&b);
    s->month_value_e4 = get_i64(&b);
    s->month_log_e12 = get_i64(&b);
    s->month_index_on = flag(&b);
    get_reach(&b, &s->reach_prev);
    size_t nr = b.bad || oom ? 0 : get_count(&b, 8);
    if (nr > 31) b.bad = 1;
    if (!b.bad && !oom && GPI_VEC_RESERVE(s->reach, s->cap_reach, nr + 1)) oom = 1;
    for (size_t i = 0; i < nr && !b.bad && !oom; i++) {
        get_reach(&b, &s->reach[i]);
        if (i > 0 && s->reach[i].day != s->reach[i - 1].day + 1) b.bad = 1;
    }
    s->reach_n = b.bad || oom ? 0 : nr;
    if (!b.bad && b.at != b.n) b.bad = 1;
    if (oom) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    if (b.bad)
        return gpi_diag_set(d, GPI_EINPUT,
                            "grade %s: stored v3 state is malformed at byte %zu of %zu", s->g->id,
                            b.at, b.n);
    return GPI_OK;
}
