/* cli/curve_cmd.h -- shared by `gpuidx curve` (cmd_curve.c), its
 * back-test (curve_backtest.c) and the other commands that use the curve
 * (hedge's strip, the grade lab, the site): grade selection, futures
 * inputs, a day's curves at the stored fixes (curve_util.c).
 */
#ifndef GPI_CLI_CURVE_CMD_H
#define GPI_CLI_CURVE_CMD_H

#include "cli/cli.h"
#include "curve/futures.h"
#include "curve/read.h"

/* --grade ID (repeatable), collected by cc_take_grade as cli_args.take
 * with spec index CC_OPT_GRADE. */
enum { CC_OPT_GRADE = 3 };
typedef struct cc_grade_ids {
    const char **ids;
    int *n;
} cc_grade_ids;
int cc_take_grade(const cli_args *a, int k, const char *v);

/* The grades a curve command works on: the published grade set (not
 * dropped), or the ids given, from the published grades file at path
 * (NULL: DATA/grades.json). */
typedef struct cc_grades {
    cli_gradeset set;
    idx_grades sub;           /* the selection (definitions borrowed from set) */
    idx_grades *gs;           /* &sub */
} cc_grades;
gpi_status cc_grades_load(cli_ctx *ctx, store *st, const char *path, const char **ids,
                          size_t n_ids, cc_grades *out, gpi_diag *d);
void cc_grades_free(cc_grades *g);

/* Futures inputs: a contract file and a settlement prices file. */
typedef struct cc_futures {
    settle_contract *cs;
    size_t nc;
    curve_futures f;
    const idx_grades *gs;
    curve_extra *ex;          /* the last day's, freed by the next call */
    curve_quote **q;
    size_t n_ex;
} cc_futures;
gpi_status cc_futures_load(const char *contracts, const char *futures, const idx_grades *gs,
                           cc_futures *out, gpi_diag *d);
/* The futures inputs of day per grade (*ex valid until the next call;
 * *n 0 without a file). */
gpi_status cc_futures_day(cc_futures *f, int32_t day, curve_extra **ex, size_t *n, gpi_diag *d);
void cc_futures_free(cc_futures *f);

/* The curves of gs on day at the stored rows' fixes and cut-offs
 * (*missing: grades without a row); free with curve_set_free. */
gpi_status cc_curve_day(store *st, const idx_grades *gs, int32_t day, const curve_extra *extra,
                        size_t n_extra, curve_set *out, int *missing, gpi_diag *d);

int cc_curve_backtest(cli_ctx *ctx, int argc, char **argv);

/* A strip's locked prices from the term curve (hedge simulate --strategy
 * strip without --forward): for each month end E from the month before
 * `first` to `last`, the published curve of grade on E -- curve.csv of E's
 * first vintage with curve files, as the store recorded it -- or, for a
 * day never published in file format 4, the curve computed as `gpuidx
 * curve` computes it (the fix as first published, else as stored; the
 * stored row's cut-off and definition); and, for each of the strip_months
 * calendar months after E, the forward over that month (its tenors'
 * forwards weighted by their days), rounded half-up to 0.0001; a month
 * any of whose tenors the curve withholds has none.  Free with
 * cc_forwards_free. */
typedef struct cc_forwards {
    int32_t *entered;         /* first day of E's month */
    int32_t *month;           /* first day of the delivery month */
    int64_t *price_e4;
    size_t n;
    long entries;             /* month ends with a curve */
    long published;           /* of them, the published curve's */
} cc_forwards;
gpi_status cc_strip_forwards(store *st, const char *grade, int32_t first, int32_t last,
                             int strip_months, cc_forwards *out, gpi_diag *d);
void cc_forwards_free(cc_forwards *f);

/* The grade lab's term curves (grades evaluate --curve): per grade, over
 * the days of [from, to] on which it would have a fix (computed as the
 * lab computes it, the grades need not be built), the days with a curve
 * (a tenor with a forward), its tenors with a forward (sum and most), the
 * fitted ones among them (an input ends in the tenor), and per tenor the
 * days it had a forward. */
typedef struct cc_lab_grade {
    long fix_days, curve_days, tenors_sum, fitted_sum;
    int tenors_max;
    long tenor_days[CURVE_TENORS];
} cc_lab_grade;
typedef struct cc_lab {
    size_t n;
    cc_lab_grade *g;
} cc_lab;
gpi_status cc_lab_curves(store *st, const idx_grades *gs, int32_t from, int32_t to,
                         int64_t as_of, cc_lab *out, gpi_diag *d);
void cc_lab_free(cc_lab *l);

#endif
