/* cli/cost_print.h -- loading and printing for `gpuidx cost` (and the
 * site's cost curve section).
 *
 * cost_print.c  text, CSV and JSON of deployment-days, curves and moves;
 *               money as exact fixed decimals (JSON numbers too), shares
 *               and distances in percent with 2 decimals
 * cmd_cost.c    the command, plus cc_prices_load(): the index series of
 *               the grades the deployments price from, read from the
 *               store and handed to cost/ as data
 */
#ifndef GPI_CLI_COST_PRINT_H
#define GPI_CLI_COST_PRINT_H

#include <stdio.h>

#include "cost/cost.h"
#include "store/store.h"

/* ---- printing (cost_print.c) ---- */

/* price_note says where the GPU-hour prices come from (first published
 * or restated values); op (may be NULL) gets a closing summary line. */
void cp_curve_text(FILE *f, const cost_curve *c, const cost_deployments *ds, const char *op,
                   const char *price_note);
void cp_curve_csv(FILE *f, const cost_curve *c, const cost_deployments *ds);
void cp_curve_json(FILE *f, const cost_curve *c, const cost_deployments *ds, const char *price_note);

void cp_days_text(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds,
                  const char *price_note);
void cp_days_csv(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds);
void cp_days_json(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds,
                  const char *price_note);

void cp_moves_text(FILE *f, const cost_moves *m, int every, const char *op, const char *price_note);
void cp_moves_csv(FILE *f, const cost_moves *m);
void cp_moves_json(FILE *f, const cost_moves *m, int every, const char *price_note);

/* "acceptable output tokens/s" or "GPUs" */
const char *cp_axis_name(int axis);
/* Capacity on the axis as text: tokens with 3 decimals, GPUs whole. */
const char *cp_cap(char buf[32], int64_t v, int axis);

/* ---- index values for cost/ (cmd_cost.c) ---- */

typedef struct cc_prices {
    cost_series *s;
    gpi_index_day **days;    /* owned, one per series */
    size_t n;
    size_t cap_s, cap_days;  /* capacities of s and days */
    cost_prices px;          /* points at s */
} cc_prices;

/* Reads from db the index series over [from, to] of every grade that a
 * row of ds priced from the index (no own rent) needs: rows of sel (NULL:
 * any) and operator op (NULL: any) that overlap [from, to].  A grade with
 * no index values at all is an error at the first such row ("path:line:
 * grade: no index values in the database (got "X")").  latest: restated
 * values instead of first published.  Prints errors; returns an exit
 * code.  db may be NULL only when no row needs the index. */
int cc_prices_load(store *db, const char *path, const cost_deployments *ds,
                   const cost_select *sel, const char *op, int32_t from, int32_t to, int latest,
                   cc_prices *out);
void cc_prices_free(cc_prices *p);
/* 1 when a row that cc_prices_load would consider prices from the index. */
int cc_needs_index(const cost_deployments *ds, const cost_select *sel, const char *op,
                   int32_t from, int32_t to);
/* Checks each row's gpu against its grade's GPU list in the grades file
 * (grades_path, or data_dir/grades.json); grades not in the file are not
 * checked.  Prints errors; returns an exit code. */
int cc_check_gpus(const char *data_dir, const char *grades_path, const char *path,
                  const cost_deployments *ds);

#endif
