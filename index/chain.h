/* index/chain.h -- methodology v2: the chain's state and step (chain.c),
 * its matched relatives (chain_rel.c), what a row shows (chain_detail.c),
 * the state as bytes (chain_state.c) and the constituents' helpers
 * (snap.c).  Data only: no store header; index/v2_store.c files the
 * state in the store, index/snap.h builds constituents from a day.
 *
 * Ownership: an idx_chain is the caller's, from idx_chain_init to
 * idx_chain_free; texts it hands out are its own until its next step.
 */
#ifndef GPI_INDEX_CHAIN_H
#define GPI_INDEX_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "index/index.h"
#include "index/v3.h"

/* A constituent of a grade-day: a screened offer (key = its store key,
 * price in micro) or a provider group's representative trade price (key =
 * group = the group's hash, price in quarter-micro, volume in
 * micro-GPU-hours). */
typedef struct idx_const {
    uint64_t key, group;
    int64_t price, volume;
    const char *name;           /* trades: the group's name (the day buffer's) */
} idx_const;

typedef struct idx_snap {
    int32_t day;
    idx_const *o, *t;           /* sorted by key */
    size_t no, nt, cap_o, cap_t;
    idx_item *items;            /* scratch */
    size_t cap_items;
} idx_snap;

/* A member of the panel (a constituent of the anchor day): its base (the
 * anchor-day price), its last price seen, its price on the reference day
 * (-1 none) and, while a day is computed, its price that day (seen, or
 * carried from the last one seen) and its relatives to base.  Trades:
 * key = group = the group's hash, prices are representatives. */
typedef struct idx_member {
    uint64_t key, group;
    int64_t base;
    int64_t last, last_vol;
    int32_t last_day;
    int64_t ref, ref_vol;
    int64_t now, now_vol;
    int seen;                   /* seen today (not carried) */
    int matched;                /* in the day's matched sample */
    int64_t rel_now, rel_ref;   /* relatives to base, 1e-12 (when matched) */
    char *name;                 /* trades: the group's name (owned) */
} idx_member;

/* A recent day, for an anchor's value: its cross-section (fixed, else
 * -1) and its constituents. */
typedef struct idx_hist {
    int32_t day;
    int64_t xs_e4;
    idx_snap snap;
} idx_hist;

/* A trading provider and the last day it traded. */
typedef struct idx_active {
    uint64_t group;
    int32_t day;
} idx_active;

/* One day of an anchor's window (METHODOLOGY.md §10.4): its fixed
 * cross-section (-1 none), the change c_k of the anchor day's
 * constituents since then (quarter units of 1e-12; -1 none) and the
 * estimate xs_k / c_k (nano-USD; -1 none). */
typedef struct idx_window {
    int32_t day;
    int64_t xs_e4, change_q, est_nano;
} idx_window;

/* chain_rel.c: a matched member's provider and relatives (scratch). */
typedef struct idx_grel {
    uint64_t group;
    int64_t now, ref;
} idx_grel;

/* chain_rel.c: the day's offers sample without exclusion, by provider,
 * while leave-one-out peeks run (idx_chain_loo_begin .. _end). */
typedef struct idx_loo {
    int on;                     /* the sample below is that of `day` */
    int record;                 /* the next offers relative fills it */
    int32_t day;
    long n_matched;             /* matched members, all providers */
    size_t np, cap;             /* providers; room in the arrays */
    uint64_t *grp;              /* [np] ascending */
    long *cnt;                  /* matched members of each */
    int64_t *mn, *mr;           /* each one's median relative now and at ref, doubled */
    int64_t *smn, *smr;         /* mn and mr sorted ascending */
    unsigned char *ok;          /* per offers member: relatives() held */
    size_t cap_ok;
} idx_loo;

typedef struct idx_chain {
    const idx_grade *g;
    int has;                    /* a chained value exists */
    int64_t nano;               /* the chained value, 1e-9 USD */
    int64_t value_e4;           /* its published rounding */
    int carry;
    int32_t last_day, anchor_day, ref_day;
    int32_t reset_day;          /* last anchor or suspension */
    idx_member *mem[2];         /* the panel: offers [0], trading groups [1], by key */
    size_t n_mem[2], cap_mem[2];
    idx_snap prev;              /* constituents of the last fixed day (panel_change) */
    idx_active *act;            /* every trading provider seen, its last trading day */
    size_t nact, cap_act;
    uint64_t *act_now, *prev_act; /* active today / on the last fixed day, sorted */
    size_t nact_now, cap_act_now, nprev_act, cap_prev_act;
    idx_snap cur;               /* the day being fixed (filled by the caller) */
    idx_hist *hist;             /* the last anchor_days days, by day modulo anchor_days */
    int64_t *est;               /* the last anchor's estimates: est[0] the day's own */
    int n_est;
    idx_window *win;            /* the last anchor's window days before it, ascending */
    int n_win;
    char *refvol, *window;      /* idx_chain_detail's text */
    int64_t *w;
    size_t cap_w;
    idx_item *witems;
    size_t cap_witems;
    idx_grel *grel;             /* scratch of chain_rel.c's provider medians */
    size_t cap_grel;
    idx_loo loo;                /* chain_rel.c: leave-one-out peeks (idx_chain_loo_begin) */
    char *carried;              /* idx_chain_carried_json's text */
    /* methodology v3 (index/v3.h): a v3 grade's state across days rides in
     * its chain's place (NULL for v1 and v2 grades), with the texts of its
     * last row (index/v3_row.c) */
    idx_v3 *v3;
    char *v3_json, *v3_detail;
} idx_chain;

typedef struct idx_v2eval {
    int level;                  /* gpi_level of the chained value */
    int64_t value_e4, nano;     /* -1 when suspended */
    int carry, event, panel_change;
    int64_t relative_e12, splice_e12;   /* -1 none */
    int64_t matched_now_q, matched_ref_q; /* the matched statistic behind the relative */
    long n_matched, n_matched_providers;
    int32_t ref_day, panel_day;         /* what the relative compared with */
    int64_t chain_prev;                 /* the chain of the day before (nano; -1 none) */
    int carry_prev;                     /* and its carried days */
    char note[400];
} idx_v2eval;

uint64_t idx_group_hash(const char *group);
gpi_status idx_snap_copy(idx_snap *dst, const idx_snap *src, gpi_diag *d);
/* First day of the rebalance period holding day (periods of `months`
 * months starting in January). */
int32_t idx_period_start(int32_t day, int months);
void idx_snap_free(idx_snap *s);
gpi_status idx_chain_init(idx_chain *c, const idx_grade *g);
void idx_chain_free(idx_chain *c);
/* One day of the chain: c->cur holds the day's constituents; xs is the
 * day's cross-section (v1) evaluation and xs_note its note.  Days must
 * come in ascending order; a gap starts afresh. */
gpi_status idx_chain_step(idx_chain *c, int32_t day, const idx_eval *xs, const char *xs_note,
                          idx_v2eval *out, gpi_diag *d);
/* chain_state.c: the chain's state as bytes (*out malloc'd, the caller's)
 * and back into a chain fresh from idx_chain_init for the same grade
 * (GPI_EINPUT when the bytes are malformed: free and init it again). */
enum { IDX_CHAIN_STATE_FORMAT = 1, IDX_CHAIN_STATES_KEPT = 3 };
gpi_status idx_chain_encode(const idx_chain *c, unsigned char **out, size_t *n, gpi_diag *d);
gpi_status idx_chain_decode(idx_chain *c, const unsigned char *p, size_t n, gpi_diag *d);
/* The first day a v2 grade's chain on day `from` can depend on (build.c
 * design note 7). */
int32_t idx_v2_first_day(const idx_grade *g, int32_t from);
/* Publication: the matched sample of day (c->cur) against the replayed
 * chain (both kinds), then one constituent's match (key: the offer's store
 * key, or idx_group_hash of the trade's group). */
gpi_status idx_chain_match(idx_chain *c, int32_t day, gpi_diag *d);
void idx_chain_lookup(const idx_chain *c, int kind, uint64_t key, idx_obs_match *m);
/* After a step: the trading providers whose last price was carried into
 * the day's matched sample, as a compact JSON array (group, last_seen,
 * price, volume, ref_price, base_price, relative), owned by c until its
 * next step; NULL when none. */
gpi_status idx_chain_carried_json(idx_chain *c, const char **out, gpi_diag *d);
/* After a step: the matched trading members' volumes on the reference day
 * as a JSON object (group -> GPU-hours) and, on an anchor day with
 * anchor_days > 1, the anchor's window as a JSON array (date, xs_value,
 * change, estimate); owned by c until its next step; NULL when none. */
void idx_chain_detail(const idx_chain *c, const char **ref_volumes, const char **window);
/* What the day would give with provider group `exclude` (idx_group_hash)
 * left out of c->cur's matching, without advancing c (grade lab). */
gpi_status idx_chain_peek(idx_chain *c, int32_t day, const idx_eval *xs, uint64_t exclude,
                          idx_v2eval *out, gpi_diag *d);
/* Leave-one-out (manip.c): between idx_chain_loo_begin and _end, a peek
 * at `day` that leaves a group out takes the offers relative from the
 * day's sample without exclusion, read once by begin (chain_rel.c note
 * 4): the same numbers and member marks as from scratch.  Nothing may
 * change c (but peeks) or c->cur in between; a step ends it. */
gpi_status idx_chain_loo_begin(idx_chain *c, int32_t day, gpi_diag *d);
void idx_chain_loo_end(idx_chain *c);
void idx_loo_free(idx_loo *L);

/* chain_rel.c (chain.c's design notes 2-5): the matched sample of the
 * members' day prices (set by chain.c's prepare) and its relative, -1
 * when too few matched: offers (median of provider medians; *n_prov
 * providers) and trades (volume-weighted median with the provider cap);
 * *now_q and *ref_q are S on the day and on the reference day.  Members of
 * group *exclude (when not NULL) are left out.  Marks the members'
 * `matched` and relatives; errors in *rc. */
int64_t idx_chain_offers_relative(idx_chain *c, const uint64_t *exclude, long *n_matched,
                                  long *n_prov, int64_t *now_q, int64_t *ref_q, gpi_diag *d,
                                  gpi_status *rc);
int64_t idx_chain_trades_relative(idx_chain *c, const uint64_t *exclude, long *n_matched,
                                  int64_t *now_q, int64_t *ref_q, gpi_diag *d, gpi_status *rc);
/* An anchor's value on day in nano-USD: the median over the window of the
 * cross-sections brought to day (fills c->est and c->win). */
int64_t idx_chain_anchor_value(idx_chain *c, int32_t day, int64_t xs_e4, const uint64_t *exclude,
                               gpi_diag *d, gpi_status *rc);
/* chain_detail.c, called by idx_chain_step between deciding and committing
 * a day: the text of idx_chain_detail (reference volumes, anchor window)
 * and of idx_chain_carried_json (has: a chain the day before). */
gpi_status idx_chain_detail_json(idx_chain *c, const idx_v2eval *v, gpi_diag *d);
gpi_status idx_chain_carried_text(idx_chain *c, int has, gpi_diag *d);

#endif
