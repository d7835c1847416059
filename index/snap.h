/* index/snap.h -- a grade-day's constituents for the v2 chain, from the
 * day read (index/snap.c): where the day (index/day.h) meets the chain
 * (index/chain.h), so that neither of those includes the other.
 */
#ifndef GPI_INDEX_SNAP_H
#define GPI_INDEX_SNAP_H

#include "index/chain.h"
#include "index/day.h"

/* The constituents of grade gi of the day read into dy, after idx_day_fix. */
gpi_status idx_snap_build(idx_snap *s, idx_day *dy, size_t gi, int32_t day, gpi_diag *d);

#endif
