/* index/v3_internal.h -- the state of methodology v3, shared by its own
 * files only (index/v3.h lists them).  Pure: no store, no I/O.
 */
#ifndef GPI_INDEX_V3_INTERNAL_H
#define GPI_INDEX_V3_INTERNAL_H

#include "index/v3.h"

/* A provider group the state knows: a member, or a group with
 * observations on the last day stepped. */
typedef struct v3_group {
    char *name;                 /* owned */
    uint64_t hash;
    int member;                 /* a member after the last day */
    int streak;                 /* days present in a row up to the last day */
    int absent;                 /* member: days absent in a row up to the last day */
    int32_t since;              /* member: the first day of its membership */
    int32_t last_seen;          /* the last day with observations (INT32_MIN none) */
    idx_item *o, *t;            /* its used observations of last_seen (group unused) */
    size_t no, nt, cap_o, cap_t;
    /* scratch of a step */
    int present, role, joined;
    int32_t gid;                /* its group id in the input, -1 none */
} v3_group;

/* An item of the price index: an offer identity (kind 0, key = the
 * store's key) or a group's representative trade price (kind 1, key =
 * the group's hash), its last price (offers micro, trades quarter-micro)
 * and the day of it. */
typedef struct v3_item {
    uint64_t key, group;
    int64_t price;
    int32_t day;
    int32_t kind;
} v3_item;

/* A group's scratch of the index step. */
typedef struct v3_gscratch {
    int64_t sum;                /* its matched items' log relatives */
    long match, carry;
    int32_t pg;                 /* its place in out.groups, -1 none */
} v3_gscratch;

/* Scratch of the statistics (v3_fix.c). */
typedef struct v3_scratch {
    uint32_t *stamp;            /* per group id: distinct counting */
    uint32_t stamp_now;
    size_t cap_stamp;
    double *work;
    size_t cap_work;
    idx_item *wm;               /* the weighted median's copy */
    size_t cap_wm;
} v3_scratch;

struct idx_v3 {
    const idx_grade *g;
    int32_t last_day;           /* INT32_MIN: no day stepped */
    idx_seq seq;                /* §4.3-§4.4 over the panel's raw values */
    v3_group *gr;               /* by name (strcmp) */
    size_t ng, cap_gr;
    v3_item *it;                /* by (kind, key) */
    size_t nit, cap_it;
    int index_on;               /* the index has started */
    int32_t base_day;
    int64_t log_e12;            /* the log index after last_day */
    int64_t value_last_e4;      /* the value of last_day, -1 none */
    int index_last_on;          /* the index had a value on last_day */
    int32_t month_day;          /* a month's base: its previous month's last day */
    int64_t month_value_e4, month_log_e12;
    int month_index_on;
    idx_reach_day *reach;       /* the month's reaches through last_day (v3_reach.c) */
    size_t reach_n, cap_reach;
    idx_reach_day reach_prev;   /* the last day of the month before (day INT32_MIN none) */
    /* scratch of a step */
    idx_v3_out out;
    idx_v3_pgroup *pg;
    size_t cap_pg;
    idx_item *fo, *ft, *xo, *xt; /* the fix's observations; copies without one group */
    int unobserved;             /* the day's panel has imputed members and no member
                                   present: they carry nothing (design note 5) */
    size_t nfo, nft, cap_fo, cap_ft, cap_xo, cap_xt;
    v3_scratch sc;              /* the statistics' */
    int32_t *gmap;              /* input group id -> group index */
    size_t cap_gmap;
    int64_t *oref;              /* out.offer_ref and friends */
    int32_t *oref_day;
    unsigned char *ocount;
    size_t cap_oref, cap_oref_day, cap_ocount;
    unsigned char *seen;        /* per item: present on the day */
    size_t cap_seen;
    v3_gscratch *gs;            /* per group: the index's sums, its place in out.groups */
    size_t cap_gs;
    uint64_t *ghash;            /* (hash, index) pairs by hash */
    size_t cap_ghash;
    v3_item *today, *merged;    /* the day's items; the items after it */
    size_t cap_today, cap_merged;
};

/* v3_fix.c: the statistics of the fix buffers s->fo, s->ft (sorted by
 * group then price; group = index into s->gr), without group `exclude`
 * when >= 0. */
gpi_status v3_fix_stats(idx_v3 *s, int32_t exclude, idx_v3_stats *out, gpi_diag *d);
void v3_scratch_free(v3_scratch *w);
/* v3_fix.c: leave each member out (s->out.groups set; the sequence
 * before the day in s->seq; v0 the day's value). */
gpi_status v3_leave_one_out(idx_v3 *s, int32_t day, gpi_diag *d);
/* v3_fix.c: the statistics of t, o (sorted by group then price), group
 * ids below n_groups. */
gpi_status v3_stats_items(idx_v3 *s, const idx_item *t, size_t nt, const idx_item *o, size_t no,
                          size_t n_groups, idx_v3_stats *st, gpi_diag *d);
/* v3_reach.c: the day's reach (before the sequence moves past the day),
 * then the month's figures through the day (after). */
gpi_status v3_reach_day(idx_v3 *s, int32_t day, gpi_diag *d);
gpi_status v3_reach_month(idx_v3 *s, int32_t day, gpi_diag *d);

/* price_index.c: the index's step of the day (after the panel's roles,
 * before the groups' observations are replaced), and the composition gap
 * once the value is known. */
gpi_status v3_index_step(idx_v3 *s, const idx_v3_input *in, gpi_diag *d);
void v3_index_gaps(idx_v3 *s, int32_t day);
/* price_index.c: the items after the day (the day's prices kept, items
 * unseen for more than absence_days dropped). */
gpi_status v3_items_update(idx_v3 *s, const idx_v3_input *in, gpi_diag *d);
/* price_index.c: the representative trade price of input group gid
 * (volume-weighted median of its used trades, no cap), quarter-micro,
 * -1 when none has a volume. */
gpi_status v3_trade_rep(idx_v3 *s, const idx_v3_input *in, int32_t gid, int64_t *rep,
                        gpi_diag *d);

#endif
