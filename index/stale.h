/* index/stale.h -- stale and non-bona-fide inputs in the grade lab and the
 * review (METHODOLOGY.md §12.1).
 *
 * An advertised offer whose price never changes may be a live list price
 * or a row a feed carries forward after the provider stopped quoting it:
 * the real catalogue repeats some clouds' rows unchanged for months.  Per
 * grade over a range of days, from the stored observations (nothing is
 * written):
 *   - the stale share: per day, the share of the provider groups with an
 *     eligible offer whose every offer's price has stood for
 *     IDX_STALE_DAYS days or more; its mean over the days;
 *   - per provider group, whether any of its prices changed in the range;
 *   - per source and group, the runs of days on which its rows (identity,
 *     price, quantity) repeated the day before's exactly, flagged when a
 *     run reaches repeat_days;
 *   - the coverage with fresh inputs: the days with at least
 *     min_providers groups, with every offer and with only the offers
 *     whose price has stood at most max_unchanged_days (the grade's
 *     parameter, else the caller's).
 * One scan of the days [from - IDX_STALE_LOOKBACK, to] (the look back
 * dates the prices standing at `from`); offers only (trades are never
 * carried forward); the latest snapshot of each key per day.
 *
 * Ownership: idx_stale_evaluate returns a result freed with
 * idx_stale_free().
 */
#ifndef GPI_INDEX_STALE_H
#define GPI_INDEX_STALE_H

#include "index/index.h"

#define IDX_STALE_DAYS 30
/* How much further back than the age it must reach an offer's price is
 * looked up (store_price_age's max_back): a quote absent that long is
 * dated from its return (METHODOLOGY.md §12.1). */
#define IDX_AGE_SLACK 15
#define IDX_STALE_LOOKBACK 60

typedef struct idx_stale_feed {
    char source[IDX_NAME_MAX + 1], group[IDX_NAME_MAX + 1];
    long days;                  /* days with offers of the grade */
    long repeat_days;           /* days whose rows repeat the day before's */
    long longest_run;           /* days in its longest run of repeats (+1: the first day) */
    int32_t run_from, run_to;   /* that run */
    long change_days;           /* days on which a price of it changed */
    int flagged;                /* longest_run >= repeat_days */
} idx_stale_feed;

typedef struct idx_stale_grade {
    char id[IDX_NAME_MAX + 1];
    long days;                  /* days of the range with an eligible offer */
    double stale_share_mean;    /* NAN when no such day */
    double stale_share_last;    /* on the range's last such day */
    long groups, groups_never_changed; /* groups with offers in the range */
    int max_unchanged_days;     /* the coverage's limit */
    long cover_all, cover_fresh; /* days with >= min_providers groups */
    idx_stale_feed *feed;
    size_t n_feed;
    long flagged;               /* feeds flagged */
} idx_stale_grade;

typedef struct idx_stale_eval {
    int32_t from, to;
    int repeat_days;
    size_t n;
    idx_stale_grade *g;
} idx_stale_eval;

/* repeat_days >= 2; max_unchanged_days >= 1 unless every grade sets it. */
gpi_status idx_stale_evaluate(store *st, const idx_grades *gs, int32_t from, int32_t to,
                              int64_t as_of, int repeat_days, int max_unchanged_days,
                              idx_stale_eval **out, gpi_diag *d);
void idx_stale_free(idx_stale_eval *e);

#endif
