/* verify/inputs_stale.h -- a row's stale share, interval and confidence flag
 * against the raw files (verify/inputs_stale.c; the caller is inputs.c). */
#ifndef GPI_VERIFY_INPUTS_STALE_H
#define GPI_VERIFY_INPUTS_STALE_H

#include "verify/internal.h"

/* Compares row's published stale_share and stale_groups with share and
 * n_stale (of n_groups) recomputed from the committed files, and its
 * confidence flag, rule and interval with those its published lines give
 * with that share: out is "" when they agree, else what differs. */
gpi_status vinputs_stale_compare(const vday *dy, const vrow *row, const idx_grade *g,
                                 int64_t share, long n_stale, long n_groups, char *out,
                                 size_t cap, gpi_diag *d);

#endif
