/* curve/format.h -- the term curve as published text (curve/format.c has
 * the formats: curve.csv and curve.json of file format 4).
 *
 * Writers only: no store, no files opened; the caller owns f.
 */
#ifndef GPI_CURVE_FORMAT_H
#define GPI_CURVE_FORMAT_H

#include <stdio.h>

#include "curve/curve.h"

/* curve.csv: the header line, and one grade's 36 lines. */
void curve_csv_header(FILE *f);
void curve_csv_rows(FILE *f, int32_t day, const char *grade, const curve_result *r);
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
