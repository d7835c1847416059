/* cli/hedge_cmd.h -- shared by cmd_hedge.c and hedge_suggest.c only. */
#ifndef GPI_CLI_HEDGE_CMD_H
#define GPI_CLI_HEDGE_CMD_H

#include "cli/cli.h"
#include "hedge/hedge.h"
#include "index/index.h"
#include "store/store.h"

#define MAX_GRADES 256

typedef struct hopts {
    const char *rent, *grade, *grades_file, *svg, *forward, *contracts;
    const char *grades[MAX_GRADES];
    const char *grade_gpus[MAX_GRADES]; /* from the grades file, or NULL */
    const idx_grade *grade_defs[MAX_GRADES]; /* from the grades file, or NULL */
    size_t ngrades;
    int freq, json, window, latest, all_strategies, suggest, include_own, size_given, min_days_given;
    size_t min_changes;
    hedge_sim_opts sim;
    /* what is rented: options, over the rent file's header fields */
    const char *gpu, *term, *scope, *region, *provider, *sku, *zone;
} hopts;

/* The index values of grade over the days r needs (hedge_index_range), as
 * plain data for hedge/ (values as first published, or latest).  *exists
 * = 0 when the grade has no values in the database at all.  *out is
 * malloc'd (free with free()). */
gpi_status hc_fetch(store *db, const char *grade, const hedge_rent *r, int latest,
                    gpi_index_day **out, size_t *n, int *exists, gpi_diag *d);

/* The definition stored with a grade's last value of [from, to] (a set
 * of one grade: free with idx_grades_free), or NULL when none. */
idx_grades *hc_stored_def(store *db, const char *grade, int32_t from, int32_t to);

/* compare: the renter's own quotes in the published grades and the grades
 * built around the rent (hedge_suggest.c), computed from the stored
 * observations without writing anything. */
typedef struct hs_state {
    hedge_suggestion sug;
    idx_grades *gs;          /* the suggestions and their twins */
    idx_series *ser;
    idx_own *own;            /* [gs->n] */
    int32_t from, to;        /* the suggestions' values: to is the last day of data */
    int32_t none_to;         /* no suggestion has a value of its own on any day from
                                `from` to it (to is then from); 0 otherwise */
    char gpus[400];          /* the candidates' GPU models, "a, b" */
    char (*missing)[160];    /* per candidate: why it has no values, or "" */
    char **defs;             /* per candidate: its definition, compact JSON */
    /* the published grades' twins (without the own quotes) */
    idx_grades *pgs;         /* copy k at 2k, its twin at 2k + 1 */
    idx_series *pser;
    idx_own *pown;
    idx_grades **pdefs;      /* definitions read from the store (owned) */
    size_t npdefs;
    char own_words[240];     /* the own quotes in words ("" unknown) */
} hs_state;

/* Measures the renter's own quotes in the published grades in[0..*nin)
 * (defs[i]: grade i's definition, or NULL) and, with suggest, appends one
 * input per suggested grade to in[*nin..cap).  info is the rent's
 * description (options over header fields).  Returns an exit code (0 ok;
 * messages printed). */
int hs_build(cli_ctx *ctx, store *db, const hedge_rent *r, const hedge_rent_info *info,
             int suggest, int include_own, const idx_grade *const *defs, hs_state *s,
             hedge_grade_input *in, size_t *nin, size_t cap);
void hs_free(hs_state *s);

#endif
