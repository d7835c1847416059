/* tests/test_index_roles.c -- a row's stored roles (index/roles.c): what
 * the build writes of a fix (its exclusions, a v2 chain's matched members)
 * is what publication reads back.
 *
 *  - The text of a small case, pinned byte for byte: it is stored with
 *    every row and every published row, so a change of format must be a
 *    new header, never a silent change.
 *  - Round trip, table-driven: every excluded item of both kinds reads
 *    back with its reason, every other (kind, key, time) as IDX_OK (the
 *    same key at another time, an offer's key asked as a trade's), an
 *    observation's key with its top bit flipped (the store's layout bit)
 *    as itself, a trading group's hash only whole; every
 *    matched member reads back with exactly the prices idx_chain_lookup
 *    gives on the same chain (offers: micro x 100; trades: quarter-micro x
 *    25), an unmatched member and an unknown key as not matched, -1.
 *  - A chain without a value (has 0) writes no member: the lookup of a
 *    chain with nothing matches nothing.
 *  - Malformed stored texts, a table: each refused with GPI_ESTORE and the
 *    one message publication prints.
 */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "index/roles.h"

#define WHERE "publish: 2025-01-29: grade H200.OD"
#define MALFORMED WHERE ": the row's stored roles are malformed (build the day again)"

static idx_item item(uint64_t key, int64_t at, int reason)
{
    idx_item it;
    memset(&it, 0, sizeof it);
    it.key_hash = key;
    it.observed_at = at;
    it.price_micro = 1000000;
    it.reason = reason;
    return it;
}

static idx_member member(uint64_t key, int matched, int64_t ref, int64_t base, int64_t rel)
{
    idx_member m;
    memset(&m, 0, sizeof m);
    m.key = key;
    m.matched = matched;
    m.ref = ref;
    m.base = base;
    m.rel_now = rel;
    return m;
}

/* A day of one grade with these offers and trades (only the arrays). */
static void day_of(idx_day *dy, idx_buf *ob, idx_buf *tb, idx_item *o, size_t no, idx_item *t,
                   size_t nt)
{
    memset(dy, 0, sizeof *dy);
    *ob = (idx_buf){o, no, no};
    *tb = (idx_buf){t, nt, nt};
    dy->ng = 1;
    dy->offers = ob;
    dy->trades = tb;
}

static void test_roles_text_pinned(void **state)
{
    (void)state;
    idx_item o[2] = {item(0x00000000000000ffULL, 1735700400, IDX_EX_ABOVE),
                     item(0x0000000000000100ULL, 1735704000, IDX_OK)};
    idx_item t[1] = {item(0xfedcba9876543210ULL, 1735707600, IDX_EX_CANCELLED)};
    idx_member mo[1] = {member(0x0000000000000100ULL, 1, 2530000, 2650000, 954716981132)};
    idx_member mt[2] = {member(0x0000000000000007ULL, 1, 10120000, 10000000, 1012000000000),
                        member(0x0000000000000009ULL, 0, 1, 1, 1)};
    idx_day dy;
    idx_buf ob, tb;
    day_of(&dy, &ob, &tb, o, 2, t, 1);
    idx_chain c;
    memset(&c, 0, sizeof c);
    c.has = 1;
    c.mem[0] = mo;
    c.n_mem[0] = 1;
    c.mem[1] = mt;
    c.n_mem[1] = 2;
    gpi_sbuf b = {0};
    idx_roles_begin(&b);
    idx_roles_matched(&b, &c);
    idx_roles_excluded(&b, &dy, 0);
    assert_false(b.oom);
    assert_string_equal(b.p, "roles 1\n"
                             "mo 0000000000000100 253000000 265000000 954716981132\n"
                             "mt 0000000000000007 253000000 250000000 1012000000000\n"
                             "xo 00000000000000ff 1735700400 above F x provider median\n"
                             "xt 7edcba9876543210 1735707600 cancelled trade\n");
    /* begin empties the buffer for the next row */
    idx_roles_begin(&b);
    assert_string_equal(b.p, "roles 1\n");
    free(b.p);
}

static void test_roles_round_trip(void **state)
{
    (void)state;
    /* every reason, both kinds, snapshots of one key at two times */
    idx_item o[] = {item(1, 100, IDX_EX_ABOVE),     item(1, 200, IDX_OK),
                    item(2, 100, IDX_EX_BELOW),     item(3, 100, IDX_EX_UNCHANGED),
                    item(UINT64_MAX, -5, IDX_OK),   item(UINT64_MAX, 7, IDX_EX_ABOVE)};
    idx_item t[] = {item(1, 100, IDX_OK), item(4, 300, IDX_EX_CANCELLED),
                    item(5, 300, IDX_EX_AFFILIATE), item(6, 300, IDX_EX_ABOVE)};
    size_t no = sizeof o / sizeof o[0], nt = sizeof t / sizeof t[0];
    idx_member mo[] = {member(1, 1, 2000000, 1900000, 1052631578947), member(2, 0, 5, 5, 5),
                       member(9, 1, 1, 1, 1000000000000)};
    idx_member mt[] = {member(3, 1, 8000000, 8000000, 1000000000000),
                       member(UINT64_MAX, 1, 4, 8, 500000000000)};
    idx_day dy;
    idx_buf ob, tb;
    day_of(&dy, &ob, &tb, o, no, t, nt);
    idx_chain c;
    memset(&c, 0, sizeof c);
    c.has = 1;
    c.mem[0] = mo;
    c.n_mem[0] = sizeof mo / sizeof mo[0];
    c.mem[1] = mt;
    c.n_mem[1] = sizeof mt / sizeof mt[0];
    gpi_sbuf b = {0};
    idx_roles_begin(&b);
    idx_roles_excluded(&b, &dy, 0); /* any order of lines reads back */
    idx_roles_matched(&b, &c);
    assert_false(b.oom);
    idx_roles *r = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_roles_parse(b.p, WHERE, &r, &d), GPI_OK);
    for (size_t i = 0; i < no; i++)
        assert_int_equal(idx_roles_reason(r, GPI_OFFER, o[i].key_hash, o[i].observed_at),
                         o[i].reason);
    for (size_t i = 0; i < nt; i++)
        assert_int_equal(idx_roles_reason(r, GPI_TRADE, t[i].key_hash, t[i].observed_at),
                         t[i].reason);
    /* the store's layout bit (roles.c note 4): a key with its top bit
     * flipped is the same observation, for exclusions and offers' matches */
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, 2 | (UINT64_C(1) << 63), 100), IDX_EX_BELOW);
    assert_int_equal(idx_roles_reason(r, GPI_TRADE, 4 | (UINT64_C(1) << 63), 300),
                     IDX_EX_CANCELLED);
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, UINT64_MAX >> 1, 7), IDX_EX_ABOVE);
    {
        idx_obs_match m = {1, 0, 0, 0, -1, -1, -1};
        idx_roles_lookup(r, GPI_OFFER, 1 | (UINT64_C(1) << 63), &m);
        assert_int_equal(m.matched, 1);
        assert_int_equal(m.ref_price_e8, 200000000);
        /* a trading group's hash is whole: its top bit matters */
        idx_roles_lookup(r, GPI_TRADE, UINT64_MAX >> 1, &m);
        assert_int_equal(m.matched, 0);
    }
    /* not listed: another time of an excluded key, the other kind, no key */
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, 1, 101), IDX_OK);
    assert_int_equal(idx_roles_reason(r, GPI_TRADE, 2, 100), IDX_OK);
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, 4, 300), IDX_OK);
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, 77, 100), IDX_OK);
    /* matched members: what the chain's own lookup says, key by key */
    struct {
        int kind;
        uint64_t key;
        int matched;
        int64_t ref, base, rel;
    } want[] = {
        {GPI_OFFER, 1, 1, 200000000, 190000000, 1052631578947},
        {GPI_OFFER, 2, 0, -1, -1, -1},  /* a member, not matched */
        {GPI_OFFER, 9, 1, 100, 100, 1000000000000},
        {GPI_OFFER, 3, 0, -1, -1, -1},  /* a trading group's key, asked as an offer */
        {GPI_TRADE, 3, 1, 200000000, 200000000, 1000000000000},
        {GPI_TRADE, UINT64_MAX, 1, 100, 200, 500000000000},
        {GPI_TRADE, 1, 0, -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        idx_obs_match m = {1, 0, 0, 0, -1, -1, -1}, ref = m;
        idx_roles_lookup(r, want[i].kind, want[i].key, &m);
        idx_chain_lookup(&c, want[i].kind, want[i].key, &ref);
        assert_int_equal(m.matched, want[i].matched);
        assert_int_equal(m.ref_price_e8, want[i].ref);
        assert_int_equal(m.base_price_e8, want[i].base);
        assert_int_equal(m.relative_e12, want[i].rel);
        assert_memory_equal(&m, &ref, sizeof m);
        assert_int_equal(m.v2, 1); /* untouched */
    }
    idx_roles_free(r);
    /* a chain without a value lists no member */
    c.has = 0;
    idx_roles_begin(&b);
    idx_roles_matched(&b, &c);
    assert_string_equal(b.p, "roles 1\n");
    assert_int_equal(idx_roles_parse(b.p, WHERE, &r, &d), GPI_OK);
    idx_obs_match m = {1, 0, 0, 0, -1, -1, -1};
    idx_roles_lookup(r, GPI_OFFER, 1, &m);
    assert_int_equal(m.matched, 0);
    assert_int_equal(m.ref_price_e8, -1);
    assert_int_equal(idx_roles_reason(r, GPI_OFFER, 1, 100), IDX_OK);
    idx_roles_free(r);
    free(b.p);
}

static void test_roles_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        NULL,
        "",
        "roles 2\n",
        "role 1\n",
        "roles 1\nxo 0000000000000001 5 cancelled trade",      /* no newline */
        "roles 1\nxo 0000000000000001 5\n",                    /* no reason */
        "roles 1\nxo 0000000000000001 5 \n",                   /* an empty one */
        "roles 1\nxo 0000000000000001 5 not a reason\n",
        "roles 1\nxo 000000000000000g 5 cancelled trade\n",    /* not hex */
        "roles 1\nxo -000000000000001 5 cancelled trade\n",
        "roles 1\nxo 00000000000001 5 cancelled trade\n",      /* 14 digits */
        "roles 1\nxo 0000000000000001  5 cancelled trade\n",   /* two spaces */
        "roles 1\nxq 0000000000000001 5 cancelled trade\n",    /* kind */
        "roles 1\nqo 0000000000000001 5 cancelled trade\n",    /* line type */
        "roles 1\nmo 0000000000000001 1 2\n",                  /* a price short */
        "roles 1\nmo 0000000000000001 1 2 3 4\n",              /* one too many */
        "roles 1\nmo 0000000000000001 1 x 3\n",
        "roles 1\n\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static char dummy;
        idx_roles *r = (idx_roles *)(void *)&dummy; /* set to NULL on failure */
        gpi_diag d = {{0}};
        gpi_status rc = idx_roles_parse(bad[i], WHERE, &r, &d);
        if (rc != GPI_ESTORE) fail_msg("case %zu (%s): status %d", i, bad[i] ? bad[i] : "NULL", rc);
        assert_null(r);
        assert_string_equal(d.msg, MALFORMED);
    }
    /* and what is well-formed: negative prices of "none", every reason */
    static const char *const good[] = {
        "roles 1\n",
        "roles 1\nmo 0000000000000001 -1 -1 -1\n",
        "roles 1\nxt FFFFFFFFFFFFFFFF -3 affiliate trade\n",
        "roles 1\nxo 0000000000000001 5 price unchanged longer than max_unchanged_days\n"
        "xo 0000000000000002 5 below 1/F x provider median\n",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        idx_roles *r = NULL;
        gpi_diag d = {{0}};
        assert_int_equal(idx_roles_parse(good[i], WHERE, &r, &d), GPI_OK);
        assert_non_null(r);
        idx_roles_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roles_text_pinned),
        cmocka_unit_test(test_roles_round_trip),
        cmocka_unit_test(test_roles_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
