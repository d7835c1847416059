/* core/obs.h -- one normalized observation (an offer or a trade).
 *
 * The record ingest produces and the store keeps (SPEC §3).  All strings
 * are borrowed: a gpi_obs never owns memory; whoever fills one keeps the
 * strings alive until the consumer returns (ingest: until the row callback
 * returns; store: until the next step of the same query).
 */
#ifndef GPI_OBS_H
#define GPI_OBS_H

#include <stdint.h>

#include "core/gpi.h"

/* An observation's identity hash (SPEC §3): FNV-1a of the kind letter
 * ("o" or "t"), NUL, source, NUL, ident.  It is the published key
 * (observations.csv) and orders a grade's lines there.  NULL texts hash as
 * "". */
uint64_t gpi_identity_hash(int kind, const char *source, const char *ident);

/* The store's key (gpi_obs.key_hash): the identity hash with its top bit
 * replaced by the kind, set for trades and clear for offers, so a day's
 * trades and offers are two separate key ranges of the store. */
#define GPI_KEY_TRADE_BIT (UINT64_C(1) << 63)
uint64_t gpi_store_key(int kind, uint64_t identity_hash);

/* ---- identity text without an id (core/ident.c) ---------------------------
 * Version 2 of the rule depends only on the row's own values (ident.c
 * note 1): offers provider|region|gpu|sku|gpu_count|scope|term|
 * term_months|unit, trades add price|currency|quantity|buyer|status|tier,
 * with the provider as written and folded (gpi_fold_name), the status as
 * written (ok when absent) and the tier as written ("" when looked up). */

/* A name folded the way names are matched: trimmed, ASCII lower case,
 * runs of spaces and tabs as one space.  Returns its length, or -1 when
 * it does not fit in cap bytes. */
int gpi_fold_name(const char *s, char *out, size_t cap);
/* Folds a GPU name or alias for matching (gpus.csv, feeds, grade files):
 * lower case, without blanks, '-' and '_' ("H100 SXM" = "h100-sxm" =
 * "h100sxm").  Returns the folded length, or -1 when it does not fit in
 * cap - 1 bytes (out then holds as much as fits, NUL-terminated). */
int gpi_fold_gpu(const char *s, char *out, size_t cap);
/* s with '|' and '\\' escaped by '\\': s itself when it has neither,
 * else the copy in out; NULL when that does not fit.  NULL s is "". */
const char *gpi_ident_escape(const char *s, char *out, size_t cap);
/* The version 2 identity of a row stored with a version 1 identity v1
 * (canonical provider in the first field; for trades the status after the
 * affiliate rule in the 14th): the first field becomes the folded
 * raw_provider and, for a trade, the 14th becomes status (the status as
 * written; NULL keeps it).  Returns 0, or -1 when v1 is not a version 1
 * identity built from canonical_provider (a source's id) or out (cap
 * bytes) is too small. */
int gpi_ident_upgrade(const char *v1, int kind, const char *canonical_provider,
                      const char *raw_provider, const char *status, char *out, size_t cap);

typedef struct gpi_obs {
    int kind;          /* gpi_kind */
    int scope;         /* gpi_scope */
    int tier;          /* gpi_tier, frozen at ingest from tiers.csv or the row */
    int term;          /* gpi_term */
    int term_months;   /* 1..60 for reserved, else 0 */
    int status;        /* gpi_trade_status (offers: ok) */
    int unit;          /* gpi_unit as written (audit) */
    int covers;        /* gpi_covers: what the price covers (data/skus.csv) */
    int tier_given;    /* 1: the row gave its tier; 0: tiers.csv did */
    int status_given;  /* the status as written (ok when absent), before
                          the affiliate rule (trades; offers: ok) */
    int32_t starts_on;        /* a reserved term that starts later (a
                                 forward start, field starts_on): its first
                                 day; 0 none (it starts on the day).  Kept
                                 beside the row (store/curves.h); the scans
                                 leave it 0 */
    int64_t observed_at;      /* Unix seconds UTC */
    int32_t day;              /* gpi_day_of_time(observed_at) */
    uint64_t key_hash;        /* gpi_store_key(kind, gpi_identity_hash(...)) */
    int64_t price_micro;      /* USD per GPU-hour x 1e6, > 0 */
    int64_t quantity_micro;   /* trades: GPU-hours x 1e6 (> 0); offers: GPUs
                                 available x 1e6, or -1 when absent */
    int32_t gpu_count;        /* GPUs in the priced unit (>= 1) */
    const char *gpu;          /* canonical model, e.g. "H100-SXM-80GB" */
    const char *provider;     /* canonical provider */
    const char *group;        /* owner group: one provider in every rule of §6 */
    const char *segment;      /* hyperscaler, neocloud, marketplace, unknown... */
    const char *region;       /* free text, may be "" */
    const char *source;       /* feed name */
    const char *id;           /* the source's id, or NULL */
    const char *ident;        /* identity text: id, or the built key (§3) */
    const char *buyer;        /* trades: counterparty, or NULL */
    /* audit: the values as written in the file */
    const char *raw_gpu;
    const char *raw_provider;
    const char *raw_price;
    const char *currency;
    const char *sku;          /* may be NULL */
    const char *correction;   /* the data/skus.csv rule applied and what it
                                 changed ("skus.csv:14: gpu_count 12 -> 8"),
                                 or NULL */
    long line;                /* physical line (CSV) or record (JSON) */
    /* Hints from a producer that numbers what repeats within one file
     * (ingest/pipe.c note 5); 0 = none, and a consumer may ignore them.
     * profile_seq: the n-th distinct profile (gpi_obs_profile below);
     * ident_seq: the n-th distinct ident text.  *_first is set on the
     * first row of each number; every later row with that number has the
     * same profile (the same ident) as that first row. */
    uint32_t profile_seq, ident_seq;
    unsigned char profile_first, ident_first;
    /* The store's scans (store/obs.h): the row's stored profile id, the
     * same number for the same profile in one database; 0 elsewhere. */
    uint32_t profile_id;
} gpi_obs;

/* ---- the profile of an observation (core/obs.c) ----------------------------
 * What the store keeps once for all the rows that share it
 * (store/profiles.c): these texts, in this order (region NULL as "";
 * other NULLs stay NULL), and these integers.  Every other field (key,
 * times, price, quantity, id, ident, buyer, raw_price, line) is the row's
 * own. */
enum { GPI_PROFILE_TEXTS = 11, GPI_PROFILE_INTS = 11 };
void gpi_obs_profile(const gpi_obs *o, const char *text[GPI_PROFILE_TEXTS],
                     int32_t ints[GPI_PROFILE_INTS]);

#endif
