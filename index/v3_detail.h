/* index/v3_detail.h -- a v3 row's stored detail for observations.csv
 * (index/v3_detail.c; design notes there): publication writes what the
 * build stored, no replay.
 */
#ifndef GPI_INDEX_V3_DETAIL_H
#define GPI_INDEX_V3_DETAIL_H

#include "index/index.h"
#include "index/v3.h"

/* v3_detail.c: a v3 row's stored detail parsed for observations.csv
 * (design notes there); the role (and *why, the reason) and index columns
 * of an observation of the day whose screened reason is `reason`; the
 * carried observations of the day's imputed members, read from their
 * days at cut-off as_of and handed to fn (*stop set when fn stops). */
typedef struct idx_v3_pub idx_v3_pub;
gpi_status idx_v3_pub_parse(const char *text, idx_v3_pub **out, gpi_diag *d);
void idx_v3_pub_free(idx_v3_pub *p);
const char *idx_v3_pub_role(const idx_v3_pub *p, const idx_grade *g, const gpi_obs *o,
                            int reason, idx_obs_match *m, char *why, size_t n);
gpi_status idx_v3_pub_imputed(store *st, const idx_v3_pub *p, size_t gi, int64_t as_of,
                              idx_obs_fn fn, void *ud, int *stop, gpi_diag *d);

#endif
