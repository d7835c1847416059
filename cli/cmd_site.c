/* cli/cmd_site.c -- `gpuidx site --out DIR`: the static web page (SPEC §7). */
#include <string.h>

#include "cli/cli.h"
#include "site/site.h"
#include "store/store.h"

static const char help[] =
    "usage: gpuidx [--db PATH] site --out DIR [--grades FILE]\n"
    "\n"
    "Writes DIR/index.html (one page, inline SVG charts: each grade's series\n"
    "with its p25-p75 band, the level of each day marked, suspended days\n"
    "shaded; no JavaScript, no network) and DIR/<grade>.csv, each grade's\n"
    "history in the index.csv format, for the published grade set: the grades\n"
    "of --grades FILE (default DATA/grades.json) that are not dropped.\n";

int cmd_site(cli_ctx *ctx, int argc, char **argv)
{
    const char *out = NULL, *grades = NULL;
    const cli_opt_spec spec[] = {{"--out", &out, NULL}, {"--grades", &grades, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "site", "site", help);
    if (ec >= 0) return ec;
    if (!out) {
        cli_error("site: --out DIR is required (see gpuidx site --help)");
        return 2;
    }
    if (!cli_have_db(ctx, "site")) return 1;
    gpi_diag d = {{0}};
    store *st = NULL;
    gpi_status rc = store_open(ctx->db_path, &st, &d);
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    if (rc == GPI_OK) rc = cli_gradeset_load(ctx, st, grades, &set, &d);
    site_stats s;
    if (rc == GPI_OK) rc = site_write_grades(st, out, set.ids, set.n, &s, &d);
    cli_gradeset_free(&set);
    store_close(st);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(rc);
    }
    if (s.grades == 0) {
        printf("site: no index values in %s yet -> %s/index.html\n", ctx->db_path, out);
        return 0;
    }
    char a[11], b[11];
    gpi_date_format(s.first_day, a);
    gpi_date_format(s.last_day, b);
    printf("site: %d grades, %ld grade-days (%s..%s) -> %s/index.html and %d CSV files\n",
           s.grades, s.rows, a, b, out, s.grades);
    return 0;
}
