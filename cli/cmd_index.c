/* cli/cmd_index.c -- `gpuidx index build|show|publish`.
 *
 * Argument parsing and printing only; the work is in index/.  Data (the
 * CSV of `show`) goes to stdout, summaries and errors to stderr.
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/index.h"

static const char usage[] =
    "usage: gpuidx index build [--grades FILE] --from YYYY-MM-DD --to YYYY-MM-DD\n"
    "                          [--as-of TIME]\n"
    "       gpuidx index show [--grade ID] [--from D] [--to D]\n"
    "       gpuidx index publish --date D --out DIR\n"
    "       gpuidx index publish --from D --to D --out DIR   (each day of the range)\n"
    "\n"
    "build    computes every grade's daily rows (METHODOLOGY.md) from the stored\n"
    "         observations ingested at or before --as-of (default now); grades\n"
    "         come from --grades (default DATA/grades.json).  Later days already\n"
    "         built are re-evaluated when they depend on the rebuilt ones.\n"
    "show     prints the stored rows as CSV (the index.csv format); the vintage\n"
    "         column names the latest vintage that published the row's value,\n"
    "         empty when none did.\n"
    "publish  writes DIR/D/index.csv, index.json, observations.csv and\n"
    "         DIR/D/v<n>/ for vintage n, and DIR/restatements.csv.\n";

static int parse_day(const char *opt, const char *v, int32_t *day)
{
    const char *why = gpi_date_parse(v, day);
    if (why) {
        cli_error("%s: %s (got \"%s\")", opt, why, v);
        return 0;
    }
    return 1;
}

/* The database, which must exist (cli_have_db); NULL after a message. */
static store *open_db(cli_ctx *ctx, const char *cmd)
{
    store *st = NULL;
    gpi_diag d = {{0}};
    if (!cli_have_db(ctx, cmd)) return NULL;
    if (store_open(ctx->db_path, &st, &d) != GPI_OK) cli_error("%s", d.msg);
    return st;
}

static int cmd_build(cli_ctx *ctx, int argc, char **argv)
{
    const char *grades = NULL, *from_s = NULL, *to_s = NULL, *asof_s = NULL;
    const cli_opt_spec spec[] = {{"--grades", &grades, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},       {"--as-of", &asof_s, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index build", "index", usage);
    if (ec >= 0) return ec;
    if (!from_s || !to_s) {
        cli_error("index build: --from and --to are required");
        return 2;
    }
    int32_t from, to;
    if (!parse_day("--from", from_s, &from) || !parse_day("--to", to_s, &to)) return 2;
    if (from > to) {
        cli_error("index build: --from %s is after --to %s", from_s, to_s);
        return 2;
    }
    int64_t now = (int64_t)time(NULL), as_of = now;
    if (asof_s) {
        const char *why = gpi_time_parse(asof_s, &as_of);
        if (why) {
            cli_error("--as-of: %s (got \"%s\")", why, asof_s);
            return 2;
        }
        /* a cut-off in the future would let data ingested later pass for
         * data the build saw */
        if (as_of > now) {
            cli_error("--as-of: in the future (got \"%s\")", asof_s);
            return 2;
        }
    }
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), grades, &gs, &d);
    store *st = NULL;
    if (rc == GPI_OK && !(st = open_db(ctx, "index build"))) rc = GPI_ESTORE, d.msg[0] = '\0';
    idx_build_stats stats;
    if (rc == GPI_OK) rc = idx_build(st, gs, from, to, as_of, &stats, &d);
    if (rc == GPI_OK)
        fprintf(stderr,
                "index build: %s..%s: %ld days, %zu grades, %ld rows, %ld observations read, "
                "%ld later days re-evaluated\n",
                from_s, to_s, stats.days, gs->n, stats.rows, stats.observations,
                stats.reevaluated);
    else if (d.msg[0])
        cli_error("%s", d.msg);
    store_close(st);
    idx_grades_free(gs);
    return gpi_exit_code(rc);
}

static int cmd_show(cli_ctx *ctx, int argc, char **argv)
{
    const char *grade = NULL, *from_s = NULL, *to_s = NULL;
    int32_t from = INT32_MIN / 2, to = INT32_MAX / 2;
    const cli_opt_spec spec[] = {{"--grade", &grade, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},     {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index show", "index", usage);
    if (ec >= 0) return ec;
    if ((from_s && !parse_day("--from", from_s, &from)) || (to_s && !parse_day("--to", to_s, &to)))
        return 2;
    store *st = open_db(ctx, "index show");
    if (!st) return 1;
    gpi_diag d = {{0}};
    gpi_status rc = GPI_OK;
    if (grade) {
        int exists = 0;
        rc = store_grade_exists(st, grade, &exists, &d);
        if (rc == GPI_OK && !exists)
            rc = gpi_diag_set(&d, GPI_EINPUT, "index show: no rows for grade %s (not built)",
                              grade);
    }
    if (rc == GPI_OK) rc = idx_show(st, grade, from, to, stdout, &d);
    if (rc != GPI_OK) cli_error("%s", d.msg);
    store_close(st);
    return gpi_exit_code(rc);
}

static int cmd_publish(cli_ctx *ctx, int argc, char **argv)
{
    const char *date = NULL, *out = NULL, *from_s = NULL, *to_s = NULL;
    const cli_opt_spec spec[] = {{"--date", &date, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},   {"--out", &out, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index publish", "index", usage);
    if (ec >= 0) return ec;
    if (date && !from_s && !to_s) from_s = to_s = date;
    if (!from_s || !to_s || !out || (date && from_s != date)) {
        cli_error("index publish: --date (or --from and --to) and --out are required");
        return 2;
    }
    int32_t from, to;
    if (!parse_day(date ? "--date" : "--from", from_s, &from) ||
        !parse_day(date ? "--date" : "--to", to_s, &to))
        return 2;
    if (from > to) {
        cli_error("index publish: --from %s is after --to %s", from_s, to_s);
        return 2;
    }
    store *st = open_db(ctx, "index publish");
    if (!st) return 1;
    gpi_diag d = {{0}};
    gpi_status rc = GPI_OK;
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        idx_publish_result res;
        char ds[11];
        gpi_date_format(day, ds);
        rc = idx_publish(st, day, out, &res, &d);
        if (rc == GPI_OK)
            fprintf(stderr,
                    "index publish: %s vintage %d (%s; %d restated, %d revisions) in %s/%s\n",
                    ds, res.vintage, res.is_new ? "new" : "unchanged", res.restated,
                    res.revised, out, ds);
    }
    if (rc != GPI_OK) cli_error("%s", d.msg);
    store_close(st);
    return gpi_exit_code(rc);
}

int cmd_index(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "build") == 0) return cmd_build(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0) return cmd_show(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "publish") == 0) return cmd_publish(ctx, argc - 1, argv + 1);
    cli_error("index: unknown subcommand '%s' (build, show, publish)", argv[1]);
    return 2;
}
