/* index/v3.h -- methodology v3 (METHODOLOGY.md §13): the settlement value
 * as a daily cross-section over a disciplined panel of provider groups,
 * and beside it a published price index (a Jevons chain of matched
 * relatives, base 100) that never settles.
 *
 * Pure: the day's observations come in as data (idx_v3_input: the grade's
 * screened items of one day), the state across days is an idx_v3 the
 * caller keeps, and nothing here reads the store or prints.  The files:
 *   v3_panel.c   the state, the panel's discipline (admission, absence,
 *                imputation) and the day's step;
 *   v3_fix.c     the v1 statistics over the panel's observations, the
 *                note, leave-one-member-out;
 *   price_index.c the price index's step and the composition gap;
 *   price_log.c  ln and exp in integer arithmetic (design notes there);
 *   v3_state.c   the state as bytes and back (a build resumes from it).
 * index/v3_row.c turns a step into a stored row and its published detail,
 * index/v3_store.c keeps the state in the store's chain states.
 */
#ifndef GPI_INDEX_V3_H
#define GPI_INDEX_V3_H

#include "index/method.h"

/* ---- price_log.c ---------------------------------------------------------------- */

/* ln x rounded half away from zero to 1e-12 (x >= 1; 0 for x <= 1). */
int64_t idx_ln_e12(int64_t x);
/* round(scale x exp(l_e12 x 1e-12)), half away from zero, for
 * 0 < scale <= 10^12 and |l_e12| <= 40 x 10^12; *overflow = 1 (and -1
 * returned) outside, or when the result does not fit 64 bits. */
int64_t idx_exp_scaled(int64_t l_e12, int64_t scale, int *overflow);

/* ---- the day's input ----------------------------------------------------------- */

/* One grade-day's eligible observations, screened (idx_screen's marks in
 * reason; cancelled and affiliate trades with theirs), in any order; an
 * item's group indexes names.  Read only. */
typedef struct idx_v3_input {
    int32_t day;
    const idx_item *offers, *trades;
    size_t n_offers, n_trades;
    const char *const *names;
    size_t n_names;
} idx_v3_input;

/* A group's role on a day (METHODOLOGY.md §13.2). */
enum {
    IDX_V3_NONE = 0,    /* not listed: no observation and no membership */
    IDX_V3_MEMBER,      /* a member with observations: they enter the fix */
    IDX_V3_IMPUTED,     /* a member without: its last observations enter the fix */
    IDX_V3_CANDIDATE,   /* observations, not (yet) a member: they do not enter */
    IDX_V3_LEFT         /* a member absent for absence_days + 1 days: gone today */
};
const char *idx_v3_role_name(int role);

/* What the day made of one group (the state's until the next step). */
typedef struct idx_v3_pgroup {
    const char *name;
    uint64_t hash;              /* idx_v3_group_hash(name) */
    int role;
    int present_days;           /* days present in a row up to the day (0: absent) */
    int absent_days;            /* imputed, left: days absent in a row up to the day */
    int32_t since;              /* members: the first day of the membership */
    int32_t last_seen;          /* the last day with observations (imputed: of its carried ones) */
    int joined;                 /* 1: became a member on the day */
    /* its part of the fix (members): provider median of its offers in the
     * fix (half-micro; -1 none), its trades' volume (micro; -1 none) */
    int64_t offers_median_h, trade_volume;
    long n_offers, n_trades;    /* its used observations in the fix (imputed: carried) */
    const idx_item *carried_o, *carried_t; /* imputed: the carried observations */
    size_t n_carried_o, n_carried_t;
    /* the price index: its representative trade price today and the one it
     * is matched to (quarter-micro, -1 none) with that one's day */
    int64_t trade_rep_q, trade_ref_q;
    int32_t trade_ref_day;
    int index_counted;          /* members: its relative entered the day's change */
    long items_matched, items_carried;
    int64_t rel_log_e12;        /* its log relative (capped), when counted */
    int capped;                 /* the cap changed it */
} idx_v3_pgroup;

/* ---- what one participant can do to a month's FSP (v3_reach.c) --------------------- */

/* The kinds of attack of METHODOLOGY.md §11.4: a participant withdrawing
 * for 1..K+1 days, a member printing an extreme price, a new participant
 * listing for 1..A+1 days. */
enum { IDX_REACH_ABSENT, IDX_REACH_PRINT, IDX_REACH_NEW, IDX_REACH_KINDS };
const char *idx_reach_kind_name(int kind);

/* A day's reach: the lowest and highest value one participant can give
 * the day, by kind (e4; -1 none), and whether it can make the day gain or
 * lose its value. */
typedef struct idx_reach_day {
    int32_t day;
    int64_t v_e4;               /* the day's value, -1 none */
    int carried;                /* the day's value is carried */
    int64_t lo_e4[IDX_REACH_KINDS], hi_e4[IDX_REACH_KINDS];
    int void_[IDX_REACH_KINDS];
    int carry_[IDX_REACH_KINDS]; /* an operation left the day carried */
} idx_reach_day;

/* The largest move of the FSP of the month whose days (consecutive,
 * ascending, one month) are v[0..n), prev the month before's last day
 * (NULL none) -- the mean of the values of its
 * calendar days (business 0) or Monday-to-Friday days (1) -- that one
 * participant can cause with an attack of kind reaching span days; USD
 * per GPU-hour x 1e6, rounded up; -1 when no day has a value. */
int64_t idx_fsp_reach(const idx_reach_day *prev, const idx_reach_day *v, size_t n, int kind,
                      int business, int span);
/* The span of kind on grade g: A + K + 1 (absent), 31 (print), K + 1 (new). */
int idx_reach_span(const idx_grade *g, int kind);

/* A day of v3 (idx_v3_step). */
typedef struct idx_v3_out {
    /* the settlement value: the v1 rules over the panel's observations */
    idx_eval e;                 /* level, value, adjustment, carry */
    int64_t trades_raw_q, offers_raw_q;
    long n_obs, n_excluded, n_providers; /* of the level used (else: all of the panel) */
    int64_t spread[7], top_share_e6;     /* of the level used; -1 none */
    int64_t trade_volume_micro;          /* the panel's screened trades */
    long all_obs, all_providers, trade_providers, offer_providers;
    char note[400];
    /* the panel */
    idx_v3_pgroup *groups;      /* every group with a role, by name */
    size_t n_groups;
    long panel_size, n_imputed, n_candidates;
    int panel_change;           /* a group joined or left */
    /* the day's offers (input order): the price each is matched to in the
     * index (micro, -1 none), its day, and whether it entered the change */
    int64_t *offer_ref;
    int32_t *offer_ref_day;
    unsigned char *offer_counted;
    /* the price index (METHODOLOGY.md §13.5); log values in 1e-12 */
    int index_on;               /* the index has a value on the day */
    int32_t index_base_day;
    int index_moved;            /* a change was measured (index_on, not the base day) */
    long index_providers;       /* members whose relative counted */
    int64_t log_index_e12, log_prev_e12, delta_e12; /* delta: 0 when not moved */
    int64_t price_index_e6;     /* 100 exp(log_index), 6 decimals; -1 none */
    int64_t index_change_e12;   /* exp(delta), 12 decimals; -1 none (base day, no index) */
    /* the composition gap: the value's change less the index's change,
     * day on day and since the last day of the previous month (1e-6,
     * signed; INT64_MIN none) */
    int64_t value_prev_e4;      /* the value of the day before (-1 none) */
    int64_t gap_e6, gap_month_e6;
    int32_t month_day;          /* the previous month's last day (INT32_MIN none) */
    int64_t month_value_e4, month_log_e12; /* its value and log index (-1 / INT64_MIN none) */
    /* leave one member out (§11.1 over the panel) */
    int measured;
    int64_t loo_move_e4, loo_to_e4;
    long loo_group;             /* index into groups, -1 none */
    long loo_voids;
    /* what one participant can do to the month's FSP (§11.4): the day's
     * reach, and the month's figures through the day by kind and calendar
     * ([k][0] calendar days, [k][1] business days; e6 rounded up, -1
     * none) over its days with a value */
    idx_reach_day reach;
    int64_t fsp_reach_e6[IDX_REACH_KINDS][2];
    long fsp_days[2];
} idx_v3_out;

/* ---- the panel's statistics (v3_fix.c) ------------------------------------------- */

/* v1's statistics of the panel's observations (§2-§4 without the screen:
 * the observations come screened). */
typedef struct idx_v3_stats {
    int64_t t_q, o_q;           /* raw values, quarter-micro; -1 when not qualifying */
    long t_obs, t_excl, t_prov, o_obs, o_excl, o_prov;
    long all_obs, all_prov;
    int64_t volume;             /* screened trades, micro-GPU-hours */
    int64_t t_spread[7], o_spread[7], t_top, o_top;
} idx_v3_stats;

/* The statistics of trades t and offers o (each sorted by group then
 * price: idx_sort_items IDX_BY_GROUP_PRICE; groups non-negative). */
gpi_status idx_v3_stats_of(const idx_grade *g, const idx_item *t, size_t nt, const idx_item *o,
                           size_t no, idx_v3_stats *st, gpi_diag *d);
/* The note of a carried or suspended day (METHODOLOGY.md §13.3); "" on
 * a fixed day.  candidates: the groups with observations outside the panel;
 * unobserved: the imputed members of a day with no member present (they
 * carry nothing into the fix), else 0. */
void idx_v3_note(const idx_grade *g, const idx_v3_stats *st, const idx_eval *e, long candidates,
                 long unobserved, char *out, size_t n);

/* ---- the state (v3_panel.c) ------------------------------------------------------ */

typedef struct idx_v3 idx_v3;

/* A state before the grade's first day (every group outside the panel,
 * no index); NULL when out of memory.  g must outlive it. */
idx_v3 *idx_v3_new(const idx_grade *g);
void idx_v3_free(idx_v3 *s);
/* The day after the last one stepped (INT32_MIN: none stepped). */
int32_t idx_v3_next_day(const idx_v3 *s);
/* One day: the panel, the fix, the value, the price index; advances s.
 * Days come in ascending order; days skipped are stepped as days without
 * observations.  *out points into s until the next step. */
gpi_status idx_v3_step(idx_v3 *s, const idx_v3_input *in, idx_v3_out **out, gpi_diag *d);
/* The last step's fix: the panel's observations (group = an index below
 * *n_groups), sorted by group then price; valid until the next step. */
void idx_v3_fix_items(const idx_v3 *s, const idx_item **t, size_t *nt, const idx_item **o,
                      size_t *no, size_t *n_groups);
/* The sequence of the panel's raw values (its adjustment days after a
 * step: what the build records behind an offers day's adjustment). */
const idx_seq *idx_v3_seq(const idx_v3 *s);
/* The name of group i of the state (the fix items' group), "" none. */
const char *idx_v3_group_name(const idx_v3 *s, size_t i);
/* The hash the state keys groups by (FNV-1a 64 of the name). */
uint64_t idx_v3_group_hash(const char *name);

/* ---- the state as bytes (v3_state.c) -------------------------------------------- */

enum { IDX_V3_STATE_FORMAT = 4 };
/* *out malloc'd (the caller's); decoding into a state fresh from
 * idx_v3_new for the same grade (GPI_EINPUT when malformed). */
gpi_status idx_v3_encode(const idx_v3 *s, unsigned char **out, size_t *n, gpi_diag *d);
gpi_status idx_v3_decode(idx_v3 *s, const unsigned char *p, size_t n, gpi_diag *d);

#endif
