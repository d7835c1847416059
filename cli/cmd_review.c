/* cli/cmd_review.c -- `gpuidx review`: the periodic review report
 * (publish/review.c; METHODOLOGY.md §12.4).  Argument parsing and
 * printing only. */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "publish/publish.h"

int cmd_review(cli_ctx *ctx, int argc, char **argv)
{
    const char *from_s = NULL, *to_s = NULL, *out = NULL, *grades = NULL, *rep_s = NULL;
    const char *asof_s = NULL;
    const cli_opt_spec spec[] = {{"--from", &from_s, NULL},       {"--to", &to_s, NULL},
                                 {"--out", &out, NULL},           {"--grades", &grades, NULL},
                                 {"--repeat-days", &rep_s, NULL}, {"--as-of", &asof_s, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "review", "review", "review");
    if (ec >= 0) return ec;
    if (!from_s || !to_s || !out) {
        cli_error("review: --from, --to and --out are required");
        return 2;
    }
    int32_t from, to;
    const char *why = gpi_date_parse(from_s, &from);
    if (!why) why = gpi_date_parse(to_s, &to);
    if (why) {
        cli_error("review: %s (got \"%s\" .. \"%s\")", why, from_s, to_s);
        return 2;
    }
    if (from > to || (why = idx_day_outside(from)) || (why = idx_day_outside(to))) {
        cli_error("review: %s", why ? why : "--from is after --to");
        return 2;
    }
    long rep = 30;
    char *end;
    if (rep_s && ((rep = strtol(rep_s, &end, 10)) < 2 || rep > 3650 || *end)) {
        cli_error("review: --repeat-days: a whole number from 2 to 3650 (got \"%s\")", rep_s);
        return 2;
    }
    int64_t as_of = (int64_t)time(NULL);
    if (asof_s && (why = gpi_time_parse(asof_s, &as_of))) {
        cli_error("review: --as-of: %s (got \"%s\")", why, asof_s);
        return 2;
    }
    if (!cli_have_db(ctx, "review")) return 1;
    if (mkdir(out, 0755) != 0 && errno != EEXIST) {
        cli_error("review: %s: cannot create: %s", out, strerror(errno));
        return 1;
    }
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    store *st = NULL;
    char name[64];
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), grades, &gs, &d);
    if (rc == GPI_OK) rc = store_open_read(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = pub_review(st, gs, from, to, as_of, (int)rep, out, name, sizeof name, &d);
    if (rc == GPI_OK)
        printf("review: %zu grade%s, %s .. %s -> %s/%s and .json\n", gs->n, gs->n == 1 ? "" : "s",
               from_s, to_s, out, name);
    else
        cli_error("%s", d.msg);
    store_close(st);
    idx_grades_free(gs);
    return gpi_exit_code(rc);
}
