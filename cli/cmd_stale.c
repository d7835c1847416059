/* cli/cmd_stale.c -- `gpuidx grades stale`: the grade lab's view of stale
 * and repeating inputs (index/stale.c; METHODOLOGY.md §12.1).
 *
 * Argument parsing and printing only: a readable table per grade, or with
 * --json one object.  Nothing is written to the database.
 */
#include "cli/cli.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/stale.h"

static json_t *as_json(const idx_stale_eval *e)
{
    json_t *root = json_object(), *arr = json_array();
    char a[11], b[11];
    gpi_date_format(e->from, a);
    gpi_date_format(e->to, b);
    json_object_set_new(root, "from", json_string(a));
    json_object_set_new(root, "to", json_string(b));
    json_object_set_new(root, "stale_days", json_integer(IDX_STALE_DAYS));
    json_object_set_new(root, "repeat_days", json_integer(e->repeat_days));
    for (size_t k = 0; k < e->n; k++) {
        const idx_stale_grade *g = &e->g[k];
        json_t *o = json_object(), *fs = json_array();
        json_object_set_new(o, "grade", json_string(g->id));
        json_object_set_new(o, "days", json_integer(g->days));
        json_object_set_new(o, "stale_share_mean",
                            isnan(g->stale_share_mean) ? json_null() : json_real(g->stale_share_mean));
        json_object_set_new(o, "stale_share_last",
                            isnan(g->stale_share_last) ? json_null() : json_real(g->stale_share_last));
        json_object_set_new(o, "groups", json_integer(g->groups));
        json_object_set_new(o, "groups_never_changed", json_integer(g->groups_never_changed));
        json_object_set_new(o, "max_unchanged_days", json_integer(g->max_unchanged_days));
        json_object_set_new(o, "coverage_days_all", json_integer(g->cover_all));
        json_object_set_new(o, "coverage_days_fresh", json_integer(g->cover_fresh));
        for (size_t i = 0; i < g->n_feed; i++) {
            const idx_stale_feed *f = &g->feed[i];
            json_t *x = json_object();
            json_object_set_new(x, "source", json_string(f->source));
            json_object_set_new(x, "group", json_string(f->group));
            json_object_set_new(x, "days", json_integer(f->days));
            json_object_set_new(x, "repeat_days", json_integer(f->repeat_days));
            json_object_set_new(x, "change_days", json_integer(f->change_days));
            json_object_set_new(x, "longest_run", json_integer(f->longest_run));
            if (f->longest_run) {
                gpi_date_format(f->run_from, a);
                gpi_date_format(f->run_to, b);
                json_object_set_new(x, "run_from", json_string(a));
                json_object_set_new(x, "run_to", json_string(b));
            }
            json_object_set_new(x, "flagged", json_boolean(f->flagged));
            json_array_append_new(fs, x);
        }
        json_object_set_new(o, "feeds", fs);
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "grades", arr);
    return root;
}

static void print_text(const idx_stale_eval *e)
{
    char a[11], b[11], n1[32], n2[32];
    gpi_date_format(e->from, a);
    gpi_date_format(e->to, b);
    printf("stale inputs %s .. %s (a price standing %d days or more is stale; a feed repeating "
           "%d days is flagged)\n",
           a, b, IDX_STALE_DAYS, e->repeat_days);
    for (size_t k = 0; k < e->n; k++) {
        const idx_stale_grade *g = &e->g[k];
        printf("\n%s: %ld days with offers; stale share mean %s, last %s; %ld of %ld provider "
               "groups never changed a price; days with enough providers: %ld, %ld with only "
               "prices standing at most %d days\n",
               g->id, g->days, isnan(g->stale_share_mean) ? "-" : cli_num(n1, g->stale_share_mean, 3),
               isnan(g->stale_share_last) ? "-" : cli_num(n2, g->stale_share_last, 3),
               g->groups_never_changed, g->groups, g->cover_all, g->cover_fresh,
               g->max_unchanged_days);
        for (size_t i = 0; i < g->n_feed; i++) {
            const idx_stale_feed *f = &g->feed[i];
            char run[40] = "";
            if (f->longest_run > 1) {
                gpi_date_format(f->run_from, a);
                gpi_date_format(f->run_to, b);
                snprintf(run, sizeof run, " (%s .. %s)", a, b);
            }
            printf("  %-8s %s / %s: %ld days, %ld repeating the day before, prices changed on "
                   "%ld; longest run %ld day%s%s\n",
                   f->flagged ? "FLAGGED" : "", f->source, f->group, f->days, f->repeat_days,
                   f->change_days, f->longest_run, f->longest_run == 1 ? "" : "s", run);
        }
    }
}

int cmd_grades_stale(cli_ctx *ctx, int argc, char **argv)
{
    const char *grades = NULL, *from_s = NULL, *to_s = NULL, *rep_s = NULL, *max_s = NULL;
    const char *asof_s = NULL;
    int json = 0;
    const cli_opt_spec spec[] = {{"--grades", &grades, NULL},       {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},             {"--repeat-days", &rep_s, NULL},
                                 {"--max-unchanged-days", &max_s, NULL},
                                 {"--as-of", &asof_s, NULL},        {"--json", NULL, &json},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "grades stale", "grades stale", "grades stale");
    if (ec >= 0) return ec;
    int32_t from, to;
    const char *why;
    if (!from_s || !to_s) {
        cli_error("grades stale: --from and --to are required");
        return 2;
    }
    if ((why = gpi_date_parse(from_s, &from)) || (why = gpi_date_parse(to_s, &to))) {
        cli_error("grades stale: %s (got \"%s\")", why, from_s);
        return 2;
    }
    if (from > to || (why = idx_day_outside(from)) || (why = idx_day_outside(to))) {
        cli_error("grades stale: %s", why ? why : "--from is after --to");
        return 2;
    }
    long rep = 30, maxu = 30;
    char *end;
    if (rep_s && ((rep = strtol(rep_s, &end, 10)) < 2 || rep > 3650 || *end)) {
        cli_error("grades stale: --repeat-days: a whole number from 2 to 3650 (got \"%s\")", rep_s);
        return 2;
    }
    if (max_s && ((maxu = strtol(max_s, &end, 10)) < 1 || maxu > 3650 || *end)) {
        cli_error("grades stale: --max-unchanged-days: a whole number from 1 to 3650 (got \"%s\")",
                  max_s);
        return 2;
    }
    int64_t as_of = (int64_t)time(NULL);
    if (asof_s && (why = gpi_time_parse(asof_s, &as_of))) {
        cli_error("grades stale: --as-of: %s (got \"%s\")", why, asof_s);
        return 2;
    }
    if (!cli_have_db(ctx, "grades stale")) return 1;
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    store *st = NULL;
    idx_stale_eval *e = NULL;
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), grades, &gs, &d);
    if (rc == GPI_OK) rc = store_open_read(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = idx_stale_evaluate(st, gs, from, to, as_of, (int)rep, (int)maxu, &e, &d);
    if (rc == GPI_OK) {
        if (json) {
            json_t *j = as_json(e);
            char *t = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
            if (t) puts(t);
            free(t);
            json_decref(j);
        } else {
            print_text(e);
        }
    } else {
        cli_error("%s", d.msg);
    }
    idx_stale_free(e);
    store_close(st);
    idx_grades_free(gs);
    return gpi_exit_code(rc);
}
