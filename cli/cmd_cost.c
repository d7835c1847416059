/* cli/cmd_cost.c -- `gpuidx cost days|curve|moves`.
 *
 * Argument parsing and wiring only: the deployments file is read and
 * validated by cost/, the GPU of each row is checked against its grade's
 * definition in the grades file, the index series of the grades the rows
 * price from are read from the store here (cc_prices_load) and handed to
 * cost/ as data, and results go to stdout (text, --csv or --json) and an
 * optional --svg file.  The deployments are read, never stored.
 *
 * Which index value: by default each day's value as first published,
 * else the stored value (the rule settlement uses, METHODOLOGY.md "The
 * value of a day"), so a cost, once computed from a published day, is
 * reproducible from the published index.csv; --latest uses restated
 * values.
 */
#include "cli/cli.h"
#include "cli/cost_print.h"
#include "core/vec.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/index.h"
#include "store/store.h"
#include "store/grades.h"
#include "store/index_values.h"

enum { SUB_DAYS = 1, SUB_CURVE = 2, SUB_MOVES = 4, SUB_ALL = 7 };

typedef struct copts {
    const char *deployments, *date, *from, *to, *workload, *latency, *grade, *op, *svg,
        *grades_file;
    int latest, csv, json, axis, every;
} copts;

/* The subcommands each option applies to, in the order of parse_opts'
 * spec (cli_args.take). */
static const int opt_subs[] = {
    SUB_ALL,               /* --deployments */
    SUB_CURVE,             /* --date */
    SUB_DAYS | SUB_MOVES,  /* --from */
    SUB_DAYS | SUB_MOVES,  /* --to */
    SUB_CURVE | SUB_MOVES, /* --workload */
    SUB_CURVE | SUB_MOVES, /* --latency */
    SUB_CURVE | SUB_MOVES, /* --grade */
    SUB_ALL,               /* --operator */
    SUB_CURVE,             /* --svg */
    SUB_ALL,               /* --grades */
    SUB_CURVE | SUB_MOVES, /* --capacity */
    SUB_MOVES,             /* --every */
    SUB_ALL,               /* --latest */
    SUB_ALL,               /* --csv */
    SUB_ALL,               /* --json */
};

static int take(const cli_args *a, int k, const char *v)
{
    (void)v;
    const int *sub = a->ud;
    return (opt_subs[k] & *sub) ? -1 : cli_not_here(a, a->spec[k].name);
}

/* Returns -1 to go on, else an exit code (0 after --help). */
static int parse_opts(int sub, int argc, char **argv, copts *o)
{
    const char *topic = sub == SUB_DAYS ? "cost days" : sub == SUB_CURVE ? "cost curve" : "cost moves";
    memset(o, 0, sizeof *o);
    o->axis = COST_AXIS_TOKENS;
    o->every = 1;
    const char *capacity = NULL, *every = NULL;
    const cli_opt_spec spec[] = {
        {"--deployments", &o->deployments, NULL}, {"--date", &o->date, NULL},
        {"--from", &o->from, NULL},               {"--to", &o->to, NULL},
        {"--workload", &o->workload, NULL},       {"--latency", &o->latency, NULL},
        {"--grade", &o->grade, NULL},             {"--operator", &o->op, NULL},
        {"--svg", &o->svg, NULL},                 {"--grades", &o->grades_file, NULL},
        {"--capacity", &capacity, NULL},          {"--every", &every, NULL},
        {"--latest", NULL, &o->latest},           {"--csv", NULL, &o->csv},
        {"--json", NULL, &o->json},               {NULL, NULL, NULL}};
    _Static_assert(sizeof opt_subs / sizeof opt_subs[0] == sizeof spec / sizeof spec[0] - 1,
                   "one entry of opt_subs per option");
    const cli_args args = {"cost", topic, topic, spec, take, &sub, NULL, 0, NULL, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    if (!o->deployments) {
        cli_error("cost: --deployments FILE is required");
        cli_usage(stderr, topic);
        return 2;
    }
    if (o->csv && o->json) {
        cli_error("cost: --csv and --json exclude each other");
        return 2;
    }
    if (capacity) {
        if (strcmp(capacity, "tokens") == 0) o->axis = COST_AXIS_TOKENS;
        else if (strcmp(capacity, "gpus") == 0) o->axis = COST_AXIS_GPUS;
        else {
            cli_error("cost: --capacity: expected tokens or gpus (got \"%s\")", capacity);
            return 2;
        }
    }
    if (every) {
        char *end;
        errno = 0;
        long n = strtol(every, &end, 10);
        if (errno || end == every || *end || n < 1 || n > 3660) {
            cli_error("cost: --every: expected a whole number of days 1..3660 (got \"%s\")", every);
            return 2;
        }
        o->every = (int)n;
    }
    if (o->grade && !gpi_grade_id_ok(o->grade)) {
        cli_error("cost: --grade: not a grade id (got \"%s\")", o->grade);
        return 2;
    }
    if (sub == SUB_MOVES && (!o->from || !o->to)) {
        cli_error("cost: --from D and --to D are required");
        cli_usage(stderr, topic);
        return 2;
    }
    return -1;
}

static int parse_day(const char *opt, const char *s, int32_t *day)
{
    const char *why = gpi_date_parse(s, day);
    if (why) {
        cli_error("cost: %s: %s (got \"%s\")", opt, why, s);
        return 2;
    }
    return 0;
}

/* ---- index values ---- */

static int row_needed(const cost_deployment *r, const cost_select *sel, const char *op,
                      int32_t from, int32_t to)
{
    if (r->rent_micro >= 0 || r->to < from || r->from > to) return 0;
    if (op && strcmp(r->op, op) != 0) return 0;
    if (sel && (strcmp(r->workload, sel->workload) != 0 || strcmp(r->latency, sel->latency) != 0 ||
                (sel->grade && strcasecmp(r->grade, sel->grade) != 0)))
        return 0;
    return 1;
}

int cc_needs_index(const cost_deployments *ds, const cost_select *sel, const char *op,
                   int32_t from, int32_t to)
{
    for (size_t i = 0; i < ds->n; i++)
        if (row_needed(&ds->v[i], sel, op, from, to)) return 1;
    return 0;
}

void cc_prices_free(cc_prices *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) free(p->days[i]);
    free(p->days);
    free(p->s);
    memset(p, 0, sizeof *p);
}

int cc_prices_load(store *db, const char *path, const cost_deployments *ds,
                   const cost_select *sel, const char *op, int32_t from, int32_t to, int latest,
                   cc_prices *out)
{
    memset(out, 0, sizeof *out);
    gpi_diag d = {{0}};
    for (size_t i = 0; i < ds->n; i++) {
        const cost_deployment *r = &ds->v[i];
        if (!row_needed(r, sel, op, from, to)) continue;
        size_t k = 0;
        while (k < out->n && strcasecmp(out->s[k].grade, r->grade) != 0) k++;
        if (k < out->n) continue;
        int exists = 0;
        if (!db || store_grade_exists(db, r->grade, &exists, &d) != GPI_OK) {
            cli_error("%s", db ? d.msg : "cost: no database");
            cc_prices_free(out);
            return 1;
        }
        if (!exists) {
            char hint[320];
            cli_error("%s:%ld: grade: no index values in the database%s (got \"%s\")", path,
                      r->line, cli_grade_hint(NULL, db, r->grade, hint, sizeof hint), r->grade);
            cc_prices_free(out);
            return 1;
        }
        if (GPI_VEC_RESERVE(out->s, out->cap_s, out->n + 1) != 0 ||
            GPI_VEC_RESERVE(out->days, out->cap_days, out->n + 1) != 0) {
            cli_error("cost: out of memory");
            cc_prices_free(out);
            return 1;
        }
        size_t n = 0;
        if (store_index_series(db, r->grade, from, to, latest, &out->days[out->n], &n, &d) !=
            GPI_OK) {
            cli_error("%s", d.msg);
            cc_prices_free(out);
            return 1;
        }
        out->s[out->n] = (cost_series){r->grade, out->days[out->n], n};
        out->n++;
    }
    out->px.s = out->s;
    out->px.n = out->n;
    return 0;
}

int cc_check_gpus(const char *data_dir, const char *grades_path, const char *path,
                  const cost_deployments *ds)
{
    int any = 0;
    for (size_t i = 0; i < ds->n && !any; i++) any = ds->v[i].grade[0] != '\0';
    if (!any) return 0;
    idx_grades *g = NULL;
    gpi_diag d = {{0}};
    gpi_status st = idx_grades_load_data(data_dir, grades_path, &g, &d);
    if (st != GPI_OK) {
        cli_error("%s", d.msg);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < ds->n && rc == 0; i++) {
        const cost_deployment *r = &ds->v[i];
        if (!r->grade[0]) continue;
        const idx_grade *gr = NULL;
        for (size_t k = 0; k < g->n && !gr; k++)
            if (strcasecmp(g->g[k].id, r->grade) == 0) gr = &g->g[k];
        if (!gr) {
            size_t j = 0;
            while (j < i && strcasecmp(ds->v[j].grade, r->grade) != 0) j++;
            if (j == i)
                cli_error("note: %s:%ld: grade %s is not in the grades file; its rows' GPUs are "
                          "not checked",
                          path, r->line, r->grade);
            continue;
        }
        const char *names[IDX_MAX_LIST];
        for (int k = 0; k < gr->n_gpu; k++) names[k] = gr->gpu[k];
        if (!cost_gpu_in(r->gpu, names, (size_t)gr->n_gpu)) {
            char list[512] = "";
            for (int k = 0; k < gr->n_gpu; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                         gr->gpu[k]);
            cli_error("%s:%ld: gpu: not a GPU of grade %s (%s) (got \"%s\")", path, r->line,
                      gr->id, list, r->gpu);
            rc = 1;
        }
    }
    idx_grades_free(g);
    return rc;
}

/* ---- the selection ---- */

static int resolve_sel(const char *path, const cost_deployments *ds, const copts *o,
                       cost_select *sel)
{
    size_t *g = NULL, ng = 0, hit = 0, which = 0;
    gpi_diag d = {{0}};
    if (cost_groups(ds, &g, &ng, &d) != GPI_OK) {
        cli_error("%s", d.msg);
        return 1;
    }
    for (size_t k = 0; k < ng; k++) {
        const cost_deployment *r = &ds->v[g[k]];
        if ((o->workload && strcmp(r->workload, o->workload) != 0) ||
            (o->latency && strcmp(r->latency, o->latency) != 0))
            continue;
        if (hit++ == 0) which = g[k];
    }
    if (hit != 1) { /* list the candidates, or every group when none matched */
        char list[1024] = "";
        for (size_t k = 0; k < ng && strlen(list) < sizeof list - 200; k++) {
            const cost_deployment *r = &ds->v[g[k]];
            if (hit > 1 && ((o->workload && strcmp(r->workload, o->workload) != 0) ||
                            (o->latency && strcmp(r->latency, o->latency) != 0)))
                continue;
            snprintf(list + strlen(list), sizeof list - strlen(list),
                     "\n  workload \"%s\", latency target \"%s\"", ds->v[g[k]].workload,
                     ds->v[g[k]].latency);
        }
        free(g);
        if (hit == 0) {
            cli_error("cost: %s has no deployments of workload \"%s\" at latency target \"%s\"; "
                      "it has:%s",
                      path, o->workload ? o->workload : "*", o->latency ? o->latency : "*", list);
            return 1;
        }
        cli_error("cost: %s holds %zu workload / latency target groups%s; choose one with "
                  "--workload (and --latency):%s",
                  path, hit, o->workload ? " for that workload" : "", list);
        return 2;
    }
    sel->workload = ds->v[which].workload;
    sel->latency = ds->v[which].latency;
    sel->grade = o->grade;
    sel->axis = o->axis;
    free(g);
    return 0;
}

/* ---- subcommands ---- */

static const char *price_note(int latest)
{
    return latest ? "index values as restated now (--latest), or own rent"
                  : "index values as first published (else as stored), or own rent";
}

static int open_db(cli_ctx *ctx, store **db)
{
    gpi_diag d = {{0}};
    *db = NULL;
    if (!cli_have_db(ctx, "cost")) return 1;
    if (store_open_read(ctx->db_path, db, &d) != GPI_OK) { /* cost only reads */
        cli_error("%s", d.msg);
        return 1;
    }
    return 0;
}

static int write_file(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(buf, 1, len, f) != len;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* Loads the index values the rows need (opening the database only then). */
static int load_prices(cli_ctx *ctx, const copts *o, const cost_deployments *ds,
                       const cost_select *sel, const char *op, int32_t from, int32_t to,
                       cc_prices *px)
{
    memset(px, 0, sizeof *px);
    if (!cc_needs_index(ds, sel, op, from, to)) return 0;
    store *db;
    int rc = open_db(ctx, &db);
    if (rc) return rc;
    rc = cc_prices_load(db, o->deployments, ds, sel, op, from, to, o->latest, px);
    store_close(db);
    return rc;
}

static int do_days(cli_ctx *ctx, const copts *o, const cost_deployments *ds)
{
    int32_t from = INT32_MAX, to = INT32_MIN;
    for (size_t i = 0; i < ds->n; i++) {
        if (o->op && strcmp(ds->v[i].op, o->op) != 0) continue;
        if (ds->v[i].from < from) from = ds->v[i].from;
        if (ds->v[i].to > to) to = ds->v[i].to;
    }
    if (from == INT32_MAX) {
        cli_error("cost: %s has no deployments of operator \"%s\"", o->deployments, o->op);
        return 1;
    }
    int rc;
    if (o->from && (rc = parse_day("--from", o->from, &from))) return rc;
    if (o->to && (rc = parse_day("--to", o->to, &to))) return rc;
    if (from > to) {
        cli_error("cost: --from is after --to");
        return 2;
    }
    if ((int64_t)to - from >= 3660 * 10) {
        cli_error("cost: the range is longer than 36600 days");
        return 2;
    }
    cc_prices px;
    if ((rc = load_prices(ctx, o, ds, NULL, o->op, from, to, &px))) return rc;
    cost_point *p = NULL;
    size_t n = 0;
    gpi_diag d = {{0}};
    gpi_status st = cost_days(ds, &px.px, from, to, o->op, &p, &n, &d);
    if (st != GPI_OK) {
        cc_prices_free(&px);
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    if (o->csv) cp_days_csv(stdout, p, n, ds);
    else if (o->json) cp_days_json(stdout, p, n, ds, price_note(o->latest));
    else cp_days_text(stdout, p, n, ds, price_note(o->latest));
    free(p);
    cc_prices_free(&px);
    return 0;
}

static int do_curve(cli_ctx *ctx, const copts *o, const cost_deployments *ds)
{
    cost_select sel;
    int rc = resolve_sel(o->deployments, ds, o, &sel);
    if (rc) return rc;
    int32_t day;
    if (o->date) {
        if ((rc = parse_day("--date", o->date, &day))) return rc;
    } else if (!cost_last_day(ds, &sel, &day)) {
        cli_error("cost: %s has no deployments of grade %s for workload \"%s\"", o->deployments,
                  sel.grade, sel.workload);
        return 1;
    }
    cc_prices px;
    if ((rc = load_prices(ctx, o, ds, &sel, NULL, day, day, &px))) return rc;
    cost_curve c;
    gpi_diag d = {{0}};
    gpi_status st = cost_curve_build(ds, &px.px, &sel, day, &c, &d);
    if (st != GPI_OK) {
        cc_prices_free(&px);
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    if (o->csv) cp_curve_csv(stdout, &c, ds);
    else if (o->json) cp_curve_json(stdout, &c, ds, price_note(o->latest));
    else cp_curve_text(stdout, &c, ds, o->op, price_note(o->latest));
    if (o->svg) {
        char *svg;
        size_t len;
        char title[200];
        snprintf(title, sizeof title, "Cost per acceptable token: the producers' cost curve");
        st = cost_curve_svg(&c, title, o->op, &svg, &len, &d);
        if (st != GPI_OK) {
            cli_error("%s", d.msg);
            rc = gpi_exit_code(st);
        } else {
            rc = write_file(o->svg, svg, len);
            free(svg);
        }
    }
    cost_curve_free(&c);
    cc_prices_free(&px);
    return rc;
}

static int do_moves(cli_ctx *ctx, const copts *o, const cost_deployments *ds)
{
    cost_select sel;
    int32_t from, to;
    int rc = resolve_sel(o->deployments, ds, o, &sel);
    if (rc) return rc;
    if ((rc = parse_day("--from", o->from, &from)) || (rc = parse_day("--to", o->to, &to)))
        return rc;
    if (from > to) {
        cli_error("cost: --from is after --to");
        return 2;
    }
    if ((int64_t)to - from >= 3660) {
        cli_error("cost: the range is longer than 3660 days");
        return 2;
    }
    cc_prices px;
    if ((rc = load_prices(ctx, o, ds, &sel, NULL, from, to, &px))) return rc;
    cost_moves m;
    gpi_diag d = {{0}};
    gpi_status st = cost_moves_build(ds, &px.px, &sel, from, to, o->every, &m, &d);
    if (st != GPI_OK) {
        cc_prices_free(&px);
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    if (o->csv) cp_moves_csv(stdout, &m);
    else if (o->json) cp_moves_json(stdout, &m, o->every, price_note(o->latest));
    else cp_moves_text(stdout, &m, o->every, o->op, price_note(o->latest));
    cost_moves_free(&m);
    cc_prices_free(&px);
    return 0;
}

/* An --operator or --grade that no row of the deployments file names is
 * an error (a typo used to give an empty curve, exit 0), with the file's
 * nearest names. */
static int check_names(const char *path, const cost_deployments *ds, const copts *o)
{
    const char *want[2] = {o->op, o->grade}, *what[2] = {"operator", "grade"};
    const char **names = malloc((ds->n ? ds->n : 1) * sizeof *names);
    if (!names) {
        cli_error("cost: out of memory");
        return 1;
    }
    int rc = 0;
    for (int w = 0; w < 2 && !rc; w++) {
        if (!want[w]) continue;
        size_t n = 0;
        int found = 0;
        for (size_t i = 0; i < ds->n && !found; i++) {
            const char *v = w == 0 ? ds->v[i].op : ds->v[i].grade;
            if (!v || !*v) continue;
            found = w == 0 ? strcmp(v, want[w]) == 0 : strcasecmp(v, want[w]) == 0;
            names[n++] = v;
        }
        if (found) continue;
        char near[256] = "";
        for (size_t i = 0; i < n && !near[0]; i++) /* the name in another case */
            if (strcasecmp(names[i], want[w]) == 0) snprintf(near, sizeof near, "%s", names[i]);
        if (!near[0]) cli_suggest(want[w], names, n, near, sizeof near);
        cli_error("cost: %s has no deployments of %s \"%s\"%s%s%s", path, what[w], want[w],
                  near[0] ? " (did you mean " : "", near, near[0] ? "?)" : "");
        rc = 1;
    }
    free(names);
    return rc;
}

int cmd_cost(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2) {
        cli_help_print(stderr, "cost");
        return 2;
    }
    if (cli_is_help(argv[1])) {
        cli_help_print(stdout, "cost");
        return 0;
    }
    int sub = strcmp(argv[1], "days") == 0    ? SUB_DAYS
              : strcmp(argv[1], "curve") == 0 ? SUB_CURVE
              : strcmp(argv[1], "moves") == 0 ? SUB_MOVES
                                              : 0;
    if (!sub) {
        cli_error("cost: unknown subcommand '%s' (days, curve, moves)", argv[1]);
        return 2;
    }
    copts o;
    int rc = parse_opts(sub, argc - 1, argv + 1, &o);
    if (rc >= 0) return rc;
    cost_deployments ds;
    gpi_diag d = {{0}};
    gpi_status st = cost_deployments_load(o.deployments, &ds, &d);
    if (st != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    rc = cc_check_gpus(cli_data_dir(ctx), o.grades_file, o.deployments, &ds);
    if (rc == 0) rc = check_names(o.deployments, &ds, &o);
    if (rc == 0) {
        if (sub == SUB_DAYS) rc = do_days(ctx, &o, &ds);
        else if (sub == SUB_CURVE) rc = do_curve(ctx, &o, &ds);
        else rc = do_moves(ctx, &o, &ds);
    }
    cost_deployments_free(&ds);
    return rc;
}
