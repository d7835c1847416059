/* index/day_detail.h -- what observations.csv lists of a day
 * (index/day_detail.c; design notes there).  Data only.
 */
#ifndef GPI_INDEX_DAY_DETAIL_H
#define GPI_INDEX_DAY_DETAIL_H

#include "index/chain.h"
#include "index/day.h"
#include "index/v3_detail.h"

/* day_detail.c: the detail of the day read into dy with kept (design
 * notes there): each grade with its row's stored roles ro[gi] taken as
 * they are; a grade without (ro NULL, or ro[gi] NULL) fixed again, and a
 * v2 one's day matched against its chain ch[gi] (replayed to the day
 * before); then every kept observation handed to fn with its role (v3
 * grades by their stored detail v3[gi]), until fn returns non-zero. */
typedef struct idx_roles idx_roles;
gpi_status idx_day_list(idx_day *dy, const idx_kept *kept, const idx_detail *rows,
                        idx_chain *ch, idx_v3_pub **v3, idx_roles **ro, int32_t day,
                        idx_obs_fn fn, void *ud, gpi_diag *d);

#endif
