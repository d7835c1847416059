/* index/bootstrap.h -- the uncertainty of a fix (METHODOLOGY.md §12.2): a
 * bootstrap interval over its provider groups and a confidence flag.
 *
 * Pure functions over a fix's provider-level inputs, whatever the method
 * that made it:
 *   - idx_boot_run resamples provider groups with replacement and
 *     recomputes the fix with the method's own statistic -- the median of
 *     provider medians (one vote per group) or the capped volume-weighted
 *     median -- of the groups' items, or the ratio of that statistic on
 *     two days (a matched relative, v2), scaled and rounded as the value
 *     is.  A group may be marked imputed (a panel member carried at its
 *     last statistic, as methodology v3's rows will pass them): it is
 *     resampled like the others and counted.
 *   - idx_boot_fix_interval builds those inputs from what a published row
 *     and its observations say (idx_boot_line, the row's JSON), so the
 *     publisher (publish/commit.c) and `gpuidx verify` (verify/uncert.c)
 *     compute the same numbers from the same text.
 *   - idx_boot_seed: the stated seed of a grade-day.
 * Integer arithmetic only; the random draws are splitmix64's, so a
 * verifier in any language reproduces them (METHODOLOGY.md gives the
 * algorithm).
 *
 * Ownership: inputs are borrowed; nothing returned needs freeing.
 */
#ifndef GPI_INDEX_BOOTSTRAP_H
#define GPI_INDEX_BOOTSTRAP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "index/index.h"

#define IDX_BOOT_RESAMPLES 999
/* the interval: the 25th and 975th of the 999 resampled values (95 %) */
#define IDX_BOOT_LO 24
#define IDX_BOOT_HI 974

enum { IDX_BOOT_MEDIANS = 1, IDX_BOOT_WEIGHTED };

/* One provider group: its items [first, first + n) of `now` and, for a
 * ratio, [rfirst, rfirst + rn) of `ref`. */
typedef struct idx_boot_group {
    size_t first, n, rfirst, rn;
    int imputed;
} idx_boot_group;

typedef struct idx_boot_in {
    int stat;                   /* IDX_BOOT_MEDIANS or IDX_BOOT_WEIGHTED */
    const idx_item *now;        /* the items, by group (price_micro: a price or a relative;
                                   group: the index of its group in g) */
    const idx_item *ref;        /* NULL: the statistic itself; else S(now) / S(ref) */
    const idx_boot_group *g;
    size_t n_groups;
    int64_t cap_floor_e6;
    /* value_e4 = S(now) [/ S(ref)] x mul / div (S in quarter units),
     * rounded half-up to a multiple of step_e4 */
    int64_t mul, div, step_e4;
    uint64_t seed;
} idx_boot_in;

typedef struct idx_boot_out {
    int64_t lo_e4, hi_e4;       /* -1: no interval */
    long groups, imputed;
} idx_boot_out;

/* The interval of in (out->lo_e4 = -1 with fewer than 2 groups). */
gpi_status idx_boot_run(const idx_boot_in *in, idx_boot_out *out, gpi_diag *d);

/* The seed of grade on day: the first 8 bytes of SHA-256 of
 * "gpuidx bootstrap 1", NUL, the grade id, NUL, the date YYYY-MM-DD, as a
 * big-endian integer. */
uint64_t idx_boot_seed(const char *grade, int32_t day);

/* ---- a published row's fix ---------------------------------------------------- */

/* One line of a grade's observations.csv (the used and excluded ones). */
typedef struct idx_boot_line {
    int kind;                   /* GPI_OFFER, GPI_TRADE */
    const char *group;
    int64_t price_micro, qty_micro; /* qty -1: none */
    int used;                   /* role used */
    int matched;                /* v2: 1 in the matched sample */
    int64_t ref_e8, base_e8;    /* v2, matched lines */
    int imputed;                /* v3: a carried line of an imputed member (its group
                                   counts as imputed) */
} idx_boot_line;

/* The confidence flag (§12.2): withheld, low, normal. */
enum { IDX_CONF_WITHHELD = 0, IDX_CONF_LOW, IDX_CONF_NORMAL };
const char *idx_conf_name(int flag);

typedef struct idx_boot_result {
    idx_boot_out iv;
    int flag;                   /* IDX_CONF_* */
    char why[96];               /* the rule that set it, in words */
} idx_boot_result;

/* The interval and flag of a published row: row is its index.json object
 * with numbers kept as their text (strings), lines its observations in
 * file order, g its grade (parameters), stale_e6 the share of its
 * groups whose price has not changed for 30 days (-1 unknown).  A row
 * that cannot be read gives GPI_EINPUT with the reason. */
gpi_status idx_boot_row(json_t *row, const idx_grade *g, const idx_boot_line *lines, size_t n,
                        int32_t day, int64_t stale_e6, idx_boot_result *out, gpi_diag *d);

#endif
