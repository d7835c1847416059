/* index/row.h -- a grade-day fixed as the row the store keeps: v1 and v2
 * (index/row.c), v3 (index/v3_row.c), and the band of a row's
 * constituents.  The row type is the store's (store/index_values.h).
 */
#ifndef GPI_INDEX_ROW_H
#define GPI_INDEX_ROW_H

#include "index/chain.h"
#include "index/day.h"
#include "store/index_values.h"

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
gpi_status idx_v3_day_step(idx_day *dy, size_t gi, idx_chain *c, int32_t day, idx_v3_out **out,
                           gpi_diag *d);
gpi_status idx_v3_replay_day(idx_day *dy, size_t gi, idx_chain *c, int32_t day, gpi_diag *d);
/* index/v3_reach.c: after a v3 day of the grade lab (k its index in the
 * range, values the range's values before it), on the month's last day
 * or the range's (last), its month's figures appended to ge. */
gpi_status idx_eval_fsp_month(idx_grade_eval *ge, const idx_v3_out *o, const int64_t *values,
                              long k, int last, gpi_diag *d);
/* row.c: the band of the day's cross-section constituents (v2's p10..max,
 * micro; -1 when the level e is carried or suspended), after idx_day_fix. */
gpi_status idx_band(idx_day *dy, size_t gi, const idx_eval *e, int64_t out[7], gpi_diag *d);

#endif
