/* index/internal.h -- shared by the index module's own files only.
 *
 * day.c reads one day of observations into per-grade arrays (one scan for
 * all grades) and reduces each grade's arrays to a fix: raw values and the
 * statistics of both levels.  build.c sequences fixes into rows (level,
 * adjustment, carry) and stores them.
 */
#ifndef GPI_INDEX_INTERNAL_H
#define GPI_INDEX_INTERNAL_H

#include "index/index.h"
#include "index/v3.h"
#include "store/index_values.h"

typedef struct idx_buf {
    idx_item *v;
    size_t n, cap;
} idx_buf;

/* Statistics of one level (trades or offers) of a grade-day. */
typedef struct idx_level_stats {
    long n_obs, n_excluded, n_providers;
    int64_t spread[7];      /* p10 p25 p50 p75 p90 min max, micro; -1 none */
    int64_t top_share_e6;   /* -1 none */
} idx_level_stats;

typedef struct idx_fix {
    int64_t trades_raw_q, offers_raw_q;  /* -1 when the level does not qualify */
    idx_level_stats ts, os;
    long all_obs, all_providers;
    int64_t trade_volume_micro;          /* screened eligible trades */
} idx_fix;

typedef struct idx_kept idx_kept;

/* One day's observations of every grade. */
typedef struct idx_day {
    const idx_grades *gs;
    size_t ng;
    idx_buf *offers, *trades;   /* [ng] */
    /* interned provider groups */
    char **names;
    size_t n_names, cap_names;
    int32_t *slots;             /* open addressing, -1 empty */
    size_t n_slots;
    uint32_t *stamp;            /* per group: distinct counting */
    uint32_t stamp_now;
    size_t cap_stamp;
    double *work;
    size_t cap_work;
    long n_scanned;
    gpi_status err;
    idx_buf loo_t, loo_o;       /* scratch of idx_day_fix_without */
    idx_buf scratch;            /* scratch of row.c's band */
    idx_buf manip;              /* scratch of manip.c */
    /* per interned name x grade: does the grade list that GPU?
     * -1 not yet known (idx_day_collect's memo of idx_grade_match_gpu) */
    signed char *gpu_ok;
    size_t cap_gpu_ok;          /* names covered */
    idx_kept *keep;             /* day.c's detail: the observations kept (NULL: none) */
    int need_ident;             /* a grade's "exclude" matches ids: the scan reads
                                   identity texts (grade_exclude.c note 3) */
    /* day.c note 6: per stored profile id, what the grades make of it:
     * pm_at[id] is 0 (not yet seen) or 1 + where pm holds its entry --
     * the group's interned id (-1: no grade takes it), the number of
     * grades that take it and their indices, ascending */
    uint32_t *pm_at;
    size_t cap_pm_at;
    int32_t *pm;
    size_t n_pm, cap_pm;
} idx_day;

/* idx_grade_match in three parts, cheapest first: term, tenor, tier and
 * scope; the GPU list; regions, providers and segments. */
int idx_grade_match_terms(const idx_grade *g, const gpi_obs *o);
int idx_grade_match_gpu(const idx_grade *g, const char *gpu);
int idx_grade_match_places(const idx_grade *g, const gpi_obs *o);
/* grade_match.c note 1: whether s (NULL as "") is in the list v[0..n):
 * globs matched without regard to case, other names compared so. */
int idx_name_in_list(const char (*v)[IDX_NAME_MAX + 1], int n, const char *s);
/* grade_exclude.c: a grade's "exclude" in canonical form (a JSON array;
 * NULL when out of memory). */
struct json_t;
struct json_t *idx_exclude_canon(const idx_grade *g);

/* manip_hint.c: the cost search's floating-point hint over trades v[0..n)
 * (their IDX_OK items with a volume), whose groups lie in [0, n_groups);
 * NULL when out of memory or a group does not (the search is then exact
 * only).
 * idx_hint_raw: the approximate raw trades value (quarter-micro) with a
 * participant's x micro-GPU-hours at price p, below every trade when
 * `below`, else above; idx_hint_raw_items the same added item by item
 * (manip_hint.c note 2). */
typedef struct idx_hint idx_hint;
idx_hint *idx_hint_new(const idx_item *v, size_t n, size_t n_groups);
void idx_hint_free(idx_hint *h);
int64_t idx_hint_raw(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x);
int64_t idx_hint_raw_items(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x);

/* An idx_day reads one database: its memo of what the grades take is
 * keyed by that database's profile ids (day.c note 6). */
gpi_status idx_day_init(idx_day *dy, const idx_grades *gs);
void idx_day_free(idx_day *dy);
/* One day's observations as data (day.c note 0): idx_day_begin empties
 * the per-grade arrays, idx_day_add takes each observation of the day in
 * the store's primary-key order (0; 1 when out of memory: stop, and
 * idx_day_end says so), idx_day_end ends the day.  o and its texts are
 * borrowed for the call, except that a kept observation's names
 * (dy->keep) must stay valid until its listing.  idx_day_wants_ident: 1
 * when the observations must carry their identity texts (o->ident). */
void idx_day_begin(idx_day *dy);
int idx_day_add(idx_day *dy, const gpi_obs *o);
gpi_status idx_day_end(idx_day *dy, gpi_diag *d);
int idx_day_wants_ident(const idx_day *dy);
/* feed.c: reads day (as_of cut-off) from the store into the per-grade
 * arrays (one scan, through idx_day_add). */
gpi_status idx_day_collect(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d);
/* day.c note 5: what a day read with dy->keep set keeps for its detail
 * (idx_kept_new's, freed with idx_kept_free; NULL is a no-op): its
 * (observation, grade) pairs in scan order; idx_kept_get fills the listed
 * fields of o with pair h's observation (the rest of o left as it was)
 * and returns its grade. */
idx_kept *idx_kept_new(void);
void idx_kept_free(idx_kept *k);
size_t idx_kept_count(const idx_kept *k);
size_t idx_kept_get(const idx_kept *k, size_t h, gpi_obs *o);
/* Screens grade gi's arrays (idx_screen, both kinds), nothing more: v3's
 * input (index/v3_row.c).  Once per day read. */
gpi_status idx_day_screen(idx_day *dy, size_t gi, gpi_diag *d);
/* Reduces grade gi's arrays to a fix (screens and marks the items). */
gpi_status idx_day_fix(idx_day *dy, size_t gi, idx_fix *f, gpi_diag *d);
/* The same fix as idx_day_fix with every observation of provider group
 * `group` left out (leave-one-provider-out), on copies: grade gi's arrays
 * are not changed.  group < 0 leaves nothing out. */
gpi_status idx_day_fix_without(idx_day *dy, size_t gi, int32_t group, idx_fix *f, gpi_diag *d);
const char *idx_day_group(const idx_day *dy, int32_t gid);
/* The interned id of group name (interned when new); -1 out of memory. */
int32_t idx_day_group_id(idx_day *dy, const char *name);
/* A fresh stamp for counting distinct groups with dy->stamp (cleared when
 * the counter wraps). */
uint32_t idx_day_stamp_next(idx_day *dy);

/* chain.c: methodology v2 (design notes there). */

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
/* The constituents of grade gi of the day read into dy, after idx_day_fix. */
gpi_status idx_snap_build(idx_snap *s, idx_day *dy, size_t gi, int32_t day, gpi_diag *d);
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
/* chain_store.c (build.c note 8): *resumed = 1 when the state c's grade left after
 * from - 1 is stored and still current at cut-off as_of, and c (fresh from
 * idx_chain_init) now holds it; a stored state refused (damaged, another
 * grade's, day's or method's, or not decodable) leaves c fresh and says
 * why in refused (cap bytes; "" otherwise); idx_chain_save stores c's state after day
 * (inside the caller's transaction), keeping IDX_CHAIN_STATES_KEPT days. */
gpi_status idx_chain_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
                            char *refused, size_t cap, gpi_diag *d);
gpi_status idx_chain_save(store *st, const idx_chain *c, int32_t day, int64_t as_of,
                          gpi_diag *d);
/* build.c: the first day a v2 grade's chain on day `from` can depend on
 * (design note 7 there). */
int32_t idx_v2_first_day(const idx_grade *g, int32_t from);
/* build.c: the states of every grade of dy->gs after day from - 1 at
 * cut-off as_of, exactly as a build of everything would leave them (the
 * sequences, and the chains of v2 grades; design notes 2 and 7 there);
 * dy is a day buffer to read with. */
gpi_status idx_replay(store *st, idx_day *dy, idx_seq *gst, idx_chain *gch, int32_t from,
                      int64_t as_of, gpi_diag *d);
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

/* manip.c: what one participant can do to the fix of grade gi on the day
 * read into dy (METHODOLOGY.md §11).  Call after idx_day_fix (f), with
 * s (and, for a v2 grade, c with c->cur built) in their state before the
 * day: xs is idx_seq_peek's evaluation of the day, v (v2; else NULL) the
 * chain's idx_chain_peek without exclusion.  Neither state is advanced. */
typedef struct idx_manip {
    int measured;               /* 1: leave-one-out was measured (a fixed day with a value) */
    int64_t loo_move_e4;        /* largest |value without one group - value|; -1 none */
    int64_t loo_to_e4;          /* the value without that group */
    int32_t loo_group;          /* that group (interned in dy), -1 none */
    long loo_voids;             /* groups whose absence leaves no value */
    int64_t cost_e2[2];         /* trades (GPU-hours x 100) a new participant needs to move
                                   the value [0] one tick, [1] 1 %; -1 none */
    long cost_offers[2];        /* offers for the same; -1 none */
} idx_manip;
gpi_status idx_manip_day(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                         const idx_fix *f, const idx_eval *xs, const idx_v2eval *v,
                         idx_manip *out, gpi_diag *d);

/* row.c: grade gi of the day read into dy, fixed (v1 statistics, the
 * sequence s, and for v2 grades the chain c, which may be NULL for v1) as
 * the row stored at cut-off as_of; *e is the day's v1 evaluation. */
gpi_status idx_row_fix(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                       int64_t as_of, store_index_row *r, idx_eval *e, gpi_diag *d);
/* v3_row.c: grade gi (methodology v3, c->v3 its state before the day) of
 * the day read into dy as the row stored at cut-off as_of; *e is the
 * value's evaluation (the panel's level, adjustment, carry). */
gpi_status idx_v3_row_fix(idx_day *dy, size_t gi, idx_chain *c, int32_t day, int64_t as_of,
                          store_index_row *r, idx_eval *e, gpi_diag *d);
/* v3_row.c: grade gi (v3) of the day read into dy screened and stepped
 * (*out: the state's, until its next step); idx_v3_replay_day the same
 * without the output (build.c note 9). */
/* index/v3_reach.c: after a v3 day of the grade lab (k its index in the
 * range, values the range's values before it), on the month's last day
 * or the range's (last), its month's figures appended to ge. */
gpi_status idx_eval_fsp_month(idx_grade_eval *ge, const idx_v3_out *o, const int64_t *values,
                              long k, int last, gpi_diag *d);
gpi_status idx_v3_day_step(idx_day *dy, size_t gi, idx_chain *c, int32_t day, idx_v3_out **out,
                           gpi_diag *d);
gpi_status idx_v3_replay_day(idx_day *dy, size_t gi, idx_chain *c, int32_t day, gpi_diag *d);
/* v3_store.c (build.c note 9): the first day observed (INT32_MIN none);
 * *resumed = 1 when the state c's grade left after from - 1 is stored and
 * still current at cut-off as_of, and c->v3 now holds it; a stored state
 * refused (damaged, another grade's, day's or method's, or not decodable)
 * leaves c->v3 fresh and says why in refused (cap bytes; "" otherwise);
 * idx_v3_save stores c->v3 after day (inside the caller's transaction). */
gpi_status idx_v3_first_day(store *st, int32_t *day, gpi_diag *d);
gpi_status idx_v3_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
                         char *refused, size_t cap, gpi_diag *d);
gpi_status idx_v3_save(store *st, const idx_chain *c, int32_t day, int64_t as_of, gpi_diag *d);
/* v3_detail.c: a v3 row's stored detail parsed for observations.csv
 * (design notes there); the role (and *why, the reason) and index columns
 * of an observation of the day whose screened reason is `reason`; the
 * carried observations of the day's imputed members, read from their
 * days at cut-off as_of and handed to fn (*stop set when fn stops). */
typedef struct idx_v3_pub idx_v3_pub;
gpi_status idx_v3_pub_parse(const char *text, idx_v3_pub **out, gpi_diag *d);
void idx_v3_pub_free(idx_v3_pub *p);
const char *idx_v3_pub_role(const idx_v3_pub *p, const idx_grade *g, const gpi_obs *o,
                            int reason, idx_obs_match *m, char *why, size_t n);
gpi_status idx_v3_pub_imputed(store *st, const idx_v3_pub *p, size_t gi, int64_t as_of,
                              idx_obs_fn fn, void *ud, int *stop, gpi_diag *d);
/* day_detail.c: the detail of the day read into dy with kept (design
 * notes there): each grade fixed, a v2 grade's day matched against its
 * chain ch[gi] (replayed to the day before), then every kept observation
 * handed to fn with its role (v3 grades by their stored detail v3[gi]),
 * until fn returns non-zero. */
gpi_status idx_day_list(idx_day *dy, const idx_kept *kept, const idx_detail *rows,
                        idx_chain *ch, idx_v3_pub **v3, int32_t day, idx_obs_fn fn, void *ud,
                        gpi_diag *d);
/* row.c: the band of the day's cross-section constituents (v2's p10..max,
 * micro; -1 when the level e is carried or suspended), after idx_day_fix. */
gpi_status idx_band(idx_day *dy, size_t gi, const idx_eval *e, int64_t out[7], gpi_diag *d);

#endif
