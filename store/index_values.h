/* store/index_values.h -- the index's stored values: the rows `index build`
 * writes (with their exclusions, adjustment days and build log) and the
 * series the CLI reads for settlement/, hedge/ and cost/, handed over as
 * plain data (core/index_day.h).
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_INDEX_VALUES_H
#define GPI_STORE_INDEX_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The built days of grade in [from, to], ascending; days never built are
 * absent (callers name them in their errors).  latest = 0: each day's value
 * as first published, or the stored value where the day was never
 * published (SPEC §8); latest = 1: the current (restated) value.
 * *n may be 0. */
gpi_status store_index_series(store *st, const char *grade, int32_t from, int32_t to,
                              int latest, gpi_index_day **out, size_t *n,
                              gpi_diag *d);

/* One published-format row of the index (SPEC §6, §13).  Money fields are
 * fixed point; a field that is empty in the CSV is -1 (prices, shares and
 * the adjustment are never negative). */
typedef struct store_index_row {
    int32_t day;
    char grade[65];
    int level;                    /* gpi_level */
    int64_t value_e4;             /* 0.0001 USD/GPU-hour; -1 when suspended */
    long n_obs, n_excluded, n_providers;
    int64_t trade_volume_e2;      /* GPU-hours x 100 (published with 2 dp) */
    int64_t adjustment_e6;        /* -1 unless an offers day */
    int64_t p10_micro, p25_micro, p50_micro, p75_micro, p90_micro,
            min_micro, max_micro; /* -1 on carried/suspended days */
    int64_t top_share_e6;         /* -1 on carried/suspended days */
    char methodology[16];         /* "v1" */
    int vintage;                  /* latest vintage that published this level and
                                     value, 0 if none: never published, or the
                                     published value differs (a revision, where
                                     it stands, or a restatement not yet
                                     published) */
    /* build detail (fields <= 0 / "" are stored as NULL) */
    int64_t trades_raw_q;         /* unrounded trades value, 1/4 micro-USD; -1 none */
    int64_t offers_raw_q;         /* unrounded, unadjusted offers value; -1 none */
    int carry_days;               /* carried days in a row ending here */
    int grade_version;
    char grade_hash[65];          /* SHA-256 of the grade's canonical definition */
    int64_t as_of;                /* ingest cut-off the row was built with */
    /* why the day is carried or suspended ("" otherwise); every method */
    char note[400];
    /* methodology v2 (index/chain.c); stored only for methodology "v2"
     * rows and read back as -1 / 0 / INT32_MIN for v1 rows */
    int64_t xs_value_e4;          /* the day's cross-section statistic (v1 rule); -1 none */
    int xs_level;                 /* its level (gpi_level) */
    int64_t chain_nano;           /* the unrounded chained value, 1e-9 USD; -1 none */
    int64_t relative_e12;         /* the day's matched relative x 1e12; -1 none */
    long n_matched;               /* identities (offers) or providers (trades) in it */
    long n_matched_providers;
    int panel_change;             /* 1: a constituent entered or left since ref_day */
    int event;                    /* idx_event: 0, start, rebalance, reanchor */
    int64_t splice_e12;           /* anchor / value the chain would have had, x 1e12; -1 */
    int32_t ref_day;              /* the day the relative compared with; INT32_MIN none */
    int32_t panel_day;            /* the anchor day whose panel it used; INT32_MIN none */
    int64_t obs_spread[7];        /* observation-level p10..max, micro; -1 none */
    int64_t matched_now_q;        /* the matched statistic today and at ref_day, */
    int64_t matched_ref_q;        /* quarter units of 1e-12; -1 none */
    const char *carried;          /* JSON array of the trading providers carried into
                                     the day, or NULL: borrowed (reading: valid during
                                     the callback only; a copied row must not use it) */
    /* what one participant can do to the fix (index/manip.c, METHODOLOGY.md
     * §11; every method, file format 3); -1 / "" none.  Stored: the move
     * only with its provider, costs only when > 0 (a row set up with zeros
     * reads back as none). */
    int64_t loo_move_e4;          /* largest |value - value without one provider group| */
    char loo_provider[65];        /* the group causing it */
    long loo_voids;               /* groups whose absence leaves no value */
    int64_t cost_e2[2];           /* GPU-hours x 100 of trades one new participant must add
                                     to move the value [0] one rounding step, [1] 1 % */
    long cost_offers[2];          /* offers it must add for the same */
    /* what a v2 day's recomputation needs besides its observations (gpuidx
     * verify; stored for methodology "v2" rows only) */
    int64_t chain_prev_nano;      /* the chain of the day before; -1 none */
    int carry_prev;               /* its carried days in a row */
    int xs_carry;                 /* the cross-section's carried days in a row */
    const char *ref_volumes;      /* JSON object group -> volume on ref_day of the matched
                                     trading members, or NULL; borrowed as `carried` */
    const char *anchor_window;    /* JSON array of the anchor's window days, or NULL */
    /* methodology v3 (index/v3_row.c, METHODOLOGY.md §13; stored for
     * methodology "v3" rows only, read back as none otherwise) */
    int64_t price_index_e6;       /* 100 exp(log index), 6 decimals; -1 none */
    int64_t log_index_e12;        /* the log index, 1e-12; INT64_MIN none */
    int64_t index_change_e12;     /* exp(the day's log change), 12 decimals; -1 none */
    int64_t gap_e6, gap_month_e6; /* composition gaps, 1e-6, signed; INT64_MIN none */
    long panel_size, n_imputed, n_candidates, index_providers;
    const char *v3_json;          /* index.json's members of the panel and the index's
                                     inputs ("\"v3\":{...}" without the key), or NULL;
                                     borrowed as `carried` */
    const char *v3_detail;        /* what observations.csv lists beside the day's
                                     observations (JSON), or NULL (and NULL in a
                                     range of more than one day: store_index_rows);
                                     borrowed */
    const char *roles;            /* what the fix made of the day's observations
                                     (index/roles.c; table index_roles), or NULL (a
                                     row stored before store version 17, and NULL in
                                     a range of more than one day as v3_detail);
                                     borrowed */
} store_index_row;

typedef int (*store_index_row_fn)(const store_index_row *row, void *ud);

/* Calls fn for each stored row with grade (case-insensitive; NULL = all
 * grades) and day in [from, to], sorted by day then grade id.  A non-zero
 * return from fn stops the scan.  v3_detail and roles are read only when the range is
 * one day (from == to: a day's publication and the build's comparison of
 * a day's rows need them); a range's rows have them NULL: v3_detail is most of the
 * table's bytes (109 MB of the bench year's 4,758 rows, 15 MB of v3_json),
 * which every reader of a range (the site, the review, index show) read
 * whole before. */
gpi_status store_index_rows(store *st, const char *grade, int32_t from, int32_t to,
                            store_index_row_fn fn, void *ud, gpi_diag *d);

/* Inserts or replaces the stored row (grade, day).  Used by the index
 * build; tests use it to set up series. */
gpi_status store_index_put_row(store *st, const store_index_row *row, gpi_diag *d);

/* Deletes the exclusions (what & 1) and/or adjustment days (what & 2) of
 * (grade, day). */
gpi_status store_index_clear_detail(store *st, const char *grade, int32_t day, int what,
                                    gpi_diag *d);
gpi_status store_index_put_exclusion(store *st, const char *grade, int32_t day, int kind,
                                     uint64_t key_hash, int64_t observed_at, const char *group,
                                     int64_t price_micro, const char *reason, gpi_diag *d);
gpi_status store_index_put_adj_day(store *st, const char *grade, int32_t day, int32_t src_day,
                                   int64_t trades_raw_q, int64_t offers_raw_q, gpi_diag *d);
typedef int (*store_adj_fn)(int32_t src_day, int64_t trades_raw_q, int64_t offers_raw_q,
                            void *ud);
gpi_status store_index_adj_days(store *st, const char *grade, int32_t day, store_adj_fn fn,
                                void *ud, gpi_diag *d);
gpi_status store_index_log_build(store *st, int64_t started_at, int32_t from, int32_t to,
                                 int64_t as_of, const char *grade_hashes, gpi_diag *d);

#endif
