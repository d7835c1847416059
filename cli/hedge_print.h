/* cli/hedge_print.h -- printing of hedge results for cmd_hedge.c (text and
 * JSON).  Non-finite numbers print as "n/a" in text and null in JSON. */
#ifndef GPI_CLI_HEDGE_PRINT_H
#define GPI_CLI_HEDGE_PRINT_H

#include <jansson.h>
#include <stdio.h>

#include "hedge/hedge.h"

/* A JSON real, or null when v is not finite.  Never NULL (except OOM). */
json_t *hp_real(double v);
/* A number with dp decimals, or "n/a", into buf (32 bytes); returns buf. */
const char *hp_num(char buf[32], double v, int dp);

void hp_analysis_text(FILE *f, const char *rent_path, const char *grade,
                      const hedge_series *s, const hedge_analysis *a);
json_t *hp_analysis_json(const char *grade, const hedge_series *s, const hedge_analysis *a);
/* The out-of-sample evidence of a (walk_forward, bootstrap, stability). */
json_t *hp_oos_json(const hedge_analysis *a);

/* hedge_print_sim.c */
void hp_sim_text(FILE *f, const char *grade, const hedge_sim_opts *o, const hedge_sim *s);
json_t *hp_sim_json(const char *grade, const hedge_sim_opts *o, const hedge_sim *s);
/* The side-by-side table of n replays of one rent (--strategy all). */
void hp_sim_compare_text(FILE *f, const hedge_sim_opts *o, const hedge_sim *s, size_t n);

/* hedge_print_cmp.c: the ranking of `hedge compare` (freq for the words).
 * ex: what is printed besides the ranks -- the verdict (hedge_compare_
 * verdict's, made once by the caller), the rent's description (info,
 * NULL without --suggest), each suggested grade's definition
 * (defs[input - first_suggested], compact JSON) and the days their values
 * were computed over, how the renter's own quotes were found (own:
 * words, "" when they were not; own_out: left out of the suggestions),
 * and the published grades file. */
typedef struct hp_extra {
    const hedge_verdict *verdict;
    const hedge_rent_info *info;
    const char *const *defs;
    size_t first_suggested;
    int32_t sug_from, sug_to;
    const char *own;
    int own_out;
    int32_t sug_none_to;   /* > 0: no suggestion has a value of its own on any
                              day from sug_from to it */
    const char *published; /* the published grades file (the grades given that
                              are not in it, or dropped, are candidates) */
} hp_extra;
void hp_compare_text(FILE *f, const char *rent_path, hedge_freq freq, size_t min_changes,
                     const hedge_rank *rk, size_t n, const hp_extra *ex);
json_t *hp_compare_json(hedge_freq freq, size_t min_changes, const hedge_rank *rk, size_t n,
                        const hp_extra *ex);
/* The names of the sentences of a verdict's kinds (JSON "sentences"). */
json_t *hp_verdict_kinds(unsigned kinds);

/* Prints j (indented, keys in insertion order) and a newline; 0 or -1. */
int hp_dump(FILE *f, json_t *j);

#endif
