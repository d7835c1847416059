/* index/roles.h -- what a v1, v2 or v3 row's fix made of its day's
 * observations, stored with the row (index/roles.c; design notes there):
 * the build writes it, publication reads it instead of fixing the day
 * again or replaying a v2 chain.  Data only: no store header.
 *
 * Ownership: idx_roles_* writers append to the caller's buffer; a parsed
 * idx_roles is the caller's until idx_roles_free.
 */
#ifndef GPI_INDEX_ROLES_H
#define GPI_INDEX_ROLES_H

#include "core/strbuf.h"
#include "index/chain.h"
#include "index/day.h"

/* The build's side, for the row of grade gi: idx_roles_begin empties b
 * and writes the header; idx_roles_matched appends the chain's matched
 * members (a v2 grade, after idx_chain_match on the state before the day:
 * what idx_chain_lookup would answer); idx_roles_excluded appends every
 * item of the day's arrays whose reason is not IDX_OK (after the fix). */
void idx_roles_begin(gpi_sbuf *b);
void idx_roles_matched(gpi_sbuf *b, const idx_chain *c);
void idx_roles_excluded(gpi_sbuf *b, const idx_day *dy, size_t gi);

/* Publication's side: the stored text parsed (GPI_ESTORE, saying so after
 * `where` -- the row's day and grade --, when it is not one idx_roles_*
 * wrote); the reason (IDX_OK or an exclusion) of
 * the observation (kind, key, observed_at), its key's top bit ignored (a
 * layout of the store's: roles.c note 4); the matching columns of a v2
 * constituent (kind, key: an offer's key, or idx_group_hash of a trade's
 * group), as idx_chain_lookup gives them (m->matched and the prices; the
 * other fields untouched). */
typedef struct idx_roles idx_roles;
gpi_status idx_roles_parse(const char *text, const char *where, idx_roles **out, gpi_diag *d);
void idx_roles_free(idx_roles *r);
int idx_roles_reason(const idx_roles *r, int kind, uint64_t key, int64_t observed_at);
void idx_roles_lookup(const idx_roles *r, int kind, uint64_t key, idx_obs_match *m);

#endif
