/* curve/format.h -- the term curve as published text (curve/format.c has
 * the formats: curve.csv and curve.json of file format 4).
 *
 * No store, no files opened; the caller owns f.  The writers are in
 * format.c, the reader of curve.csv in csv_read.c.
 */
#ifndef GPI_CURVE_FORMAT_H
#define GPI_CURVE_FORMAT_H

#include <stdio.h>

#include "curve/curve.h"

/* curve.csv: the header line, and one grade's 36 lines. */
void curve_csv_header(FILE *f);
void curve_csv_rows(FILE *f, int32_t day, const char *grade, const curve_result *r);
/* Reads grade's lines of curve.csv text[0..len) (name in messages) into
 * t[0..36): term_e4, fwd_e4 (-1 empty), status and reason; a tenor
 * without a line is withheld with reason "".  *found = 0 when the grade
 * has no line.  GPI_EINPUT "name:line: ..." for a text that is not
 * curve.csv. */
gpi_status curve_csv_read(const char *name, const char *text, size_t len, const char *grade,
                          curve_tenor t[CURVE_TENORS], int *found, gpi_diag *d);
/* curve.json: the method's parameters as an object, and one grade's
 * object (its inputs q[0..nq) as curve_compute left them; why: no curve
 * for the grade, or NULL). */
void curve_json_params(FILE *f, const curve_params *p);
/* The columns of curve.json's "inputs" and "futures" rows. */
#define CURVE_INPUT_COLS 17
#define CURVE_FUTURES_COLS 10
extern const char *const curve_input_cols[CURVE_INPUT_COLS];
extern const char *const curve_futures_cols[CURVE_FUTURES_COLS];
void curve_json_grade(FILE *f, const char *grade, int64_t error_factor_e6, const curve_result *r,
                      const curve_quote *q, size_t nq, const char *why);

#endif
