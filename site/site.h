/* site/site.h -- the static web page of the index (SPEC §7).
 *
 * site_write() reads every stored index row (store_index_rows) and writes
 *   DIR/index.html    one self-contained page: a summary table and, per
 *                     grade, an inline SVG chart of the series with its
 *                     p25-p75 band, each day's level marked (trades,
 *                     offers, carried) and suspended days shaded; no
 *                     JavaScript, no network, no external files;
 *   DIR/<grade>.csv   the grade's history in the index.csv format
 *                     (same header, decimals and empty fields), and
 *                     DIR/datapackage.json describing them (publish/columns.h);
 * Each grade's section also draws its term curve of the last day against
 * those of one and three months before (site/curve.c), and the statement
 * describes the curve's method.
 *   DIR/statement.html the benchmark statement (site/statement.c): per
 *                     grade what it measures, its data thresholds, fallback
 *                     waterfall, restatement policy and what happens when
 *                     data is insufficient, from the stored definitions,
 *                     and a back-test from the stored rows and
 *                     restatements; linked from index.html.
 * Grade ids are validated ([A-Za-z0-9][A-Za-z0-9._+-]{0,63}) before any
 * file is written: a bad id fails the whole call with GPI_EINPUT and
 * nothing is written.  Each file is written to a temporary name in DIR and
 * renamed into place.  The module never prints.  With site_write_extras,
 * the page also shows the producers' cost curves the caller computed
 * (site/cost.c), one section each, after the grades.
 *
 * Ownership: st and dir are borrowed; s (may be NULL) receives counts.
 */
#ifndef GPI_SITE_H
#define GPI_SITE_H

#include <stdint.h>

#include "core/gpi.h"
#include "cost/cost.h"
#include "store/store.h"

typedef struct site_stats {
    int grades;              /* charts and CSV files written */
    long rows;               /* grade-day rows */
    int32_t first_day, last_day; /* range of the page (0 when empty) */
} site_stats;

gpi_status site_write(store *st, const char *dir, site_stats *s, gpi_diag *d);

/* What else the page shows (borrowed).  ids[0..n_ids): only these grades
 * (the published grade set); ids NULL: every grade.  Curves: a section of
 * producers' cost curves after the grades (site/cost.c); n_curves == 0
 * leaves it out. */
typedef struct site_extras {
    const cost_curve *curves;   /* producers' cost curves (cost/cost.h) */
    size_t n_curves;
    const char *const *ids;
    size_t n_ids;
    const char *accuracy_csv;   /* bench/accuracy's accuracy.csv, shown on
                                   statement.html; NULL: left out */
    const char *admin_json;     /* the administrator's file (data/administration.json)
                                   of the statement's IOSCO table; NULL: none (every
                                   statement "not stated by the administrator") */
    const char *review_link;    /* the latest review report, relative to the page */
    const char *review_json;    /* its JSON (the feeds it flags are listed), or NULL */
    const char *curve_backtest_csv; /* `gpuidx curve backtest --csv`, shown in the
                                   statement's term curve section; NULL: none */
} site_extras;

/* site_write with the extras (x may be NULL: same as site_write). */
gpi_status site_write_extras(store *st, const char *dir, const site_extras *x, site_stats *s,
                             gpi_diag *d);

#endif
