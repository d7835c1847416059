/* settlement/settlement.h -- cash settlement of monthly futures on a grade's
 * index (SPEC §8): contract files, daily and final settlement prices, and
 * the variation-margin ledger of positions.
 *
 * Usage:
 *     settle_contract *cs; size_t nc;
 *     settle_contracts_load("contracts.json", grade_known, st, &cs, &nc, &d);
 *     ... read each contract's index series from the store (the CLI does;
 *         this module has no SQL) ...
 *     settle_run(&cs[i], series, n, through_day, &res, &d);
 *     settle_positions_load("positions.csv", cs, nc, &pos, &npos, &d);
 *     settle_ledger(&cs[i], &res, &pos[j], &rows, &nrows, &d);
 *     settle_result_free(&res); free(rows); free(pos); free(cs);
 *
 * Prices are exact.  A contract's tick is an exact decimal mant / 10^scale;
 * every settlement price is an integer number of ticks and is held in
 * "price units" of 10^-scale USD per GPU-hour (the tick's own decimals, so
 * it prints with gpi_fixed_format(units, tick.scale)).  Index values come
 * in value_e4 units (0.0001 USD); conversions and averages are computed as
 * __int128 numerator / denominator and rounded once, half-up, with
 * gpi_div_round.  Cash is integer cents: size x tick is a whole number of
 * cents (checked when the contract is loaded), so every margin amount is
 * exact.
 *
 * The module never prints and never touches the store: the series it
 * settles on is passed in as an array of gpi_index_day (core/index_day.h;
 * this header does not include the store's).  settle_fsp is the one
 * final-settlement-price rule: hedge/'s replay settles its futures with it.
 *
 * Ownership: every *out array is malloc'd and freed by the caller with
 * free() (settle_result_free() for a settle_result).  Inputs are borrowed.
 */
#ifndef GPI_SETTLEMENT_H
#define GPI_SETTLEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/index_day.h"

#define SETTLE_DEFAULT_SIZE 1000
#define SETTLE_DEFAULT_MIN_DAYS 15
#define SETTLE_SYMBOL_MAX 32
#define SETTLE_GRADE_MAX 64
#define SETTLE_ACCOUNT_MAX 64
/* A contract lives from its listing (the 1st of the month before
 * delivery) to the last day of its delivery month: at most 62 days, so
 * at most 62 of a file's holidays fall in it. */
#define SETTLE_MAX_HOLIDAYS 62

/* The days whose values a contract settles on (fsp_days). */
typedef enum {
    SETTLE_DAYS_CALENDAR = 0, /* every calendar day (the default: a file
                                 written before fsp_days means what it meant) */
    SETTLE_DAYS_BUSINESS      /* Monday to Friday, less the file's holidays */
} settle_days;

/* ---- contracts (settlement/contract.c) --------------------------------- */

/* What a contract settles on when its grade ceases (fallback.c):
 * "fallback": {"rule": "grade" | "last_value" | "suspend", "grade": ID,
 * "after_days": N}. */
enum { SETTLE_FB_NONE = 0, SETTLE_FB_GRADE, SETTLE_FB_LAST, SETTLE_FB_SUSPEND };
typedef struct settle_fallback {
    int rule;                            /* SETTLE_FB_*                      */
    char grade[SETTLE_GRADE_MAX + 1];    /* rule grade: the grade it moves to */
    int after_days;                      /* days without a value tolerated    */
} settle_fallback;

typedef struct settle_contract {
    char symbol[SETTLE_SYMBOL_MAX + 1];  /* [A-Z0-9][A-Z0-9._-]{0,31}        */
    char grade[SETTLE_GRADE_MAX + 1];    /* a grade id known to the database */
    int year, month;                     /* delivery month                   */
    int64_t size_gpu_hours;              /* contract size, > 0               */
    gpi_dec tick;                        /* USD per GPU-hour, > 0, exact     */
    int64_t tick_cents;                  /* size x tick in cents (whole)     */
    int min_published_days;              /* values needed for an FSP         */
    int fsp_days;                        /* settle_days                      */
    /* business days only: the file's holidays inside the contract's life
     * (listing .. last day of the delivery month), ascending */
    int32_t holidays[SETTLE_MAX_HOLIDAYS];
    int n_holidays;
    settle_fallback fallback;            /* cessation (fallback.c); rule 0: none */
    /* where it was read, for messages: the file (borrowed from
     * settle_contracts_load's caller; NULL when not read from a file), its
     * position in the file (1-based), and the lines of the contract and of
     * its tick (the contract's when the tick is the default) */
    const char *path;
    size_t index;
    int line, tick_line;
} settle_contract;

/* The coarsest tick a contract may have, relative to the values it
 * settles on: a value must be at least SETTLE_MIN_TICKS ticks (a tick of 1
 * USD on a price of 2 USD made every price and margin 0 or 2: issue 12). */
#define SETTLE_MIN_TICKS 100

/* Says whether a grade id is known (1 in *known).  Lets the caller check
 * grades against the database without this module knowing SQL.  A non-OK
 * return aborts loading with the callback's diagnostic. */
typedef gpi_status (*settle_grade_fn)(const char *grade, int *known, void *ud,
                                      gpi_diag *d);

/* Loads and validates a contract file (SPEC §8 layout):
 *     {"contracts": [{"symbol": "GPUH-2502", "grade": "H100-SXM.OD.GOLD+",
 *       "month": "2025-02", "size": 1000, "tick": 0.0001,
 *       "min_published_days": 15, "fsp_days": "calendar"}, ...],
 *      "holidays": ["2025-12-25", ...]}
 * size, tick, min_published_days and fsp_days are optional (defaults
 * 1000, 0.0001, 15, calendar); "holidays" (optional, top level) are
 * weekdays that are not business days, for the contracts with fsp_days
 * "business".  Unknown keys and duplicate symbols are refused.  The tick is read
 * exactly: a JSON string ("0.0025") is parsed as written; a JSON number is
 * taken as the shortest decimal that reads back to the same double, which
 * is the text as written for up to 15 significant digits (more are
 * refused).  grade_fn may be NULL (no grade check).  Errors name the file,
 * the line and the contract: `FILE:LINE: contract N (SYMBOL): FIELD: reason
 * (got "X")`; ranges: month 2000-01 .. 2099-12 (the days an index is built
 * for), size 1 .. 10^9, tick > 0 and <= 1000, min_published_days 1 .. the
 * days of the delivery month.
 * On success *out holds *n >= 1 contracts in file order. */
gpi_status settle_contracts_load(const char *path, settle_grade_fn grade_fn, void *ud,
                                 settle_contract **out, size_t *n, gpi_diag *d);

/* First day of the listing (first day of the month before delivery) and
 * last day of the delivery month. */
int32_t settle_listing_day(const settle_contract *c);
int32_t settle_last_day(const settle_contract *c);

/* 1 when day is one of c's settlement days: every day (calendar), or a
 * Monday to Friday that is not one of its holidays (business).  Only
 * these days' values count, and only these days get a settlement price. */
int settle_is_day(const settle_contract *c, int32_t day);
/* The settlement days of c's delivery month, and the last of them (the
 * day of the final row; the month's last day when it has none). */
int settle_month_days(const settle_contract *c);
int32_t settle_final_day(const settle_contract *c);
/* "calendar" or "business". */
const char *settle_days_name(int fsp_days);

/* Converts an index value (value_e4) to the nearest tick, half-up, in
 * price units of c (10^-tick.scale). */
int64_t settle_round_value(const settle_contract *c, __int128 sum_e4, __int128 count);

/* Parses a price as an exact decimal into price units of c; refuses one
 * that is not a positive whole number of ticks.  Returns NULL or a static
 * reason. */
const char *settle_price_parse(const settle_contract *c, const char *s, int64_t *units);

/* ---- settlement prices (settlement/settle.c) --------------------------- */

typedef enum { SETTLE_DAILY = 0, SETTLE_FINAL, SETTLE_INSUFFICIENT } settle_kind;
const char *settle_kind_name(int kind);

typedef struct settle_price {
    int32_t day;
    int kind;             /* settle_kind                                     */
    int64_t price_units;  /* 10^-tick.scale USD/GPU-hour; 0 if insufficient   */
    int fallback;         /* 1: priced under the contract's fallback; 2: the
                             contract suspended by it (kind insufficient)    */
} settle_price;
/* The kind as the settlement file writes it: daily, final, insufficient,
 * or under a fallback fallback-daily, fallback-final, suspended. */
const char *settle_row_kind(const settle_price *p);

typedef struct settle_result {
    settle_price *rows;   /* daily rows ascending, then the final or
                             insufficient row when the range reaches the
                             month's last day                                */
    size_t n;
    int complete;         /* 1 when the range reached the month's final day
                             (settle_final_day)                              */
    int insufficient;     /* 1 when complete and fewer values than required */
    int values_in_month;  /* days of the delivery month with a value, up to
                             the end of the range                            */
} settle_result;

/* Settles c on days[0..n) (ascending, distinct days; days before the
 * listing may be included and serve only as the latest value L).  The
 * range is [listing, min(through, last day of the delivery month)]; every
 * settlement day of it (settle_is_day) must be present, else GPI_EINPUT
 * naming the first missing day.  Only settlement days count: their
 * values, and a price on each of them.
 *
 * Daily price on settlement day d of the delivery month: (sum P + R*L) /
 * (k + R), P the k values of the month's settlement days up to d, L the
 * latest value of a settlement day on or before d, R the settlement days
 * of the month after d (on the final day with k = 0: L).  Before the
 * month: L.  No row while no value exists.  Final (dated the month's
 * final settlement day): the mean of the month's values when there are
 * at least min_published_days, else an `insufficient` row.  All rounded half-up to the tick.  GPI_EINPUT when a
 * value used is under SETTLE_MIN_TICKS ticks (the tick is too coarse for
 * the grade's prices), naming the contract's tick line, the day and the
 * value. */
gpi_status settle_run(const settle_contract *c, const gpi_index_day *days, size_t n,
                      int32_t through, settle_result *out, gpi_diag *d);

/* The final settlement price of c's delivery month (SPEC §8): the mean of
 * the values of the month's settlement days among days[0..n) (any order;
 * a day has a value unless it is suspended or negative), rounded once, half-up, to c's
 * tick (settle_round_value).  *n_values (may be NULL) receives how many
 * values the month has.  Returns 1 with *price_units set when there is at
 * least one value and at least c->min_published_days; else 0, *price_units
 * untouched.  settle_run's final row is this price; it alone checks that
 * every day was built and that the tick fits. */
int settle_fsp(const settle_contract *c, const gpi_index_day *days, size_t n,
               int64_t *price_units, int *n_values);
void settle_result_free(settle_result *r);

/* ---- cessation and fallback (settlement/fallback.c) -------------------- */

/* Reads a contract's "fallback" object into c->fallback; NULL, or the
 * reason with *field the member it is about ("fallback.rule", ...). */
const char *settle_fallback_parse(const void *json_fallback, settle_contract *c,
                                  const char **field);

/* What a fallback did to a settlement. */
typedef struct settle_fb_note {
    int applied;          /* 1 when the grade ceased in the range           */
    int32_t start;        /* the first day of the run without a value        */
    int32_t trigger;      /* start + after_days: the day the fallback applies */
    int32_t end;          /* the last day settled (through, or the month's)  */
    int fb_values;        /* rule grade: the days of start..end on which the
                             fallback grade itself has a value (it may be
                             suspended too: said, not hidden)              */
} settle_fb_note;

/* settle_run with c's fallback (METHODOLOGY.md, "Cessation"): when the
 * grade has no value on more than after_days consecutive days from the
 * listing, from the first such day `start` its values are the fallback
 * grade's (fb[0..n_fb), ascending; every day from start must be there),
 * or its last value before start, or the contract is suspended.  Daily
 * rows before the trigger day are those of settle_run; from it on they
 * are computed on the new series and flagged (settle_row_kind); a
 * suspended contract gets no more rows but an `insufficient` row flagged
 * 2 ("suspended") on the trigger day.  Without a fallback, or without a
 * cessation, it is settle_run. */
gpi_status settle_run_fallback(const settle_contract *c, const gpi_index_day *days, size_t n,
                               const gpi_index_day *fb, size_t n_fb, int32_t through,
                               settle_result *out, settle_fb_note *note, gpi_diag *d);

/* ---- positions and margin (settlement/ledger.c) ------------------------ */

typedef struct settle_position {
    char account[SETTLE_ACCOUNT_MAX + 1];
    size_t contract;      /* index into the contracts array                 */
    int64_t contracts;    /* signed: > 0 long, < 0 short, never 0           */
    int has_entry;
    int64_t entry_units;  /* price units of its contract when has_entry     */
    long line;            /* line in the positions file                     */
} settle_position;

/* Loads a positions CSV with header `account,symbol,contracts[,entry_price]`
 * (an empty entry_price means the first daily settlement price).  Symbols
 * must name contracts of cs; an (account, symbol) pair appears once.
 * Errors: `FILE:LINE: FIELD: reason (got "X")`. */
gpi_status settle_positions_load(const char *path, const settle_contract *cs, size_t nc,
                                 settle_position **out, size_t *n, gpi_diag *d);

typedef struct settle_ledger_row {
    int32_t day;
    int kind;                 /* SETTLE_DAILY or SETTLE_FINAL                */
    int64_t price_units;
    int64_t variation_cents;  /* contracts x size x (price - previous)       */
} settle_ledger_row;

/* The daily variation-margin ledger of one position of contract c over the
 * settlement rows of r: one row per daily price (the first against the
 * entry price) and one at the FSP when there is one.  No rows when r has
 * no daily price.  *entry_units receives the entry price used (0 when there
 * is none).  Sums telescope: the rows total contracts x size x (last price
 * - entry) exactly.  GPI_EMATH if an amount would overflow 64 bits. */
gpi_status settle_ledger(const settle_contract *c, const settle_result *r,
                         const settle_position *p, settle_ledger_row **out, size_t *n,
                         int64_t *entry_units, gpi_diag *d);

#endif
