/* cli/cmd_site.c -- `gpuidx site --out DIR`: the static web page (SPEC §7). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cost_print.h"
#include "site/site.h"
#include "store/store.h"

/* The cost curve of each workload / latency target group of the
 * deployments file on its last day; *curves malloc'd, pointing into ds. */
static int cost_curves(cli_ctx *ctx, store *st, const char *path, const cost_deployments *ds,
                       cost_curve **curves, size_t *n)
{
    *curves = NULL;
    *n = 0;
    gpi_diag d = {{0}};
    size_t *g = NULL, ng = 0;
    int rc = cc_check_gpus(cli_data_dir(ctx), NULL, path, ds);
    if (rc) return rc;
    if (cost_groups(ds, &g, &ng, &d) != GPI_OK || !(*curves = calloc(ng, sizeof **curves))) {
        free(g);
        cli_error("site: out of memory");
        return 1;
    }
    for (size_t k = 0; k < ng && rc == 0; k++) {
        cost_select sel = {ds->v[g[k]].workload, ds->v[g[k]].latency, NULL, COST_AXIS_TOKENS};
        int32_t day;
        cost_last_day(ds, &sel, &day);
        cc_prices px;
        if ((rc = cc_prices_load(st, path, ds, &sel, NULL, day, day, 0, &px))) break;
        gpi_status e = cost_curve_build(ds, &px.px, &sel, day, &(*curves)[*n], &d);
        cc_prices_free(&px);
        if (e != GPI_OK) {
            cli_error("%s", d.msg);
            rc = gpi_exit_code(e);
        } else {
            (*n)++;
        }
    }
    free(g);
    return rc;
}

/* The latest review report in dir (review-FROM-TO.md: the largest name,
 * the latest start, then end), or "". */
static void latest_review(const char *dir, char *out, size_t n)
{
    out[0] = '\0';
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "review-", 7) != 0 || len < 10 || len >= n ||
            strcmp(e->d_name + len - 3, ".md") != 0)
            continue;
        if (strcmp(e->d_name, out) > 0) snprintf(out, n, "%s", e->d_name);
    }
    closedir(dp);
}

int cmd_site(cli_ctx *ctx, int argc, char **argv)
{
    const char *out = NULL, *deployments = NULL, *grades = NULL, *accuracy = NULL;
    const char *admin = NULL, *curve_bt = NULL;
    const cli_opt_spec spec[] = {{"--out", &out, NULL},
                                 {"--curve-backtest", &curve_bt, NULL},
                                 {"--deployments", &deployments, NULL},
                                 {"--grades", &grades, NULL},
                                 {"--accuracy", &accuracy, NULL},
                                 {"--admin", &admin, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "site", "site", "site");
    if (ec >= 0) return ec;
    if (!out) {
        cli_error("site: --out DIR is required (see gpuidx site --help)");
        return 2;
    }
    if (!cli_have_db(ctx, "site")) return 1;
    gpi_diag d = {{0}};
    store *st = NULL;
    gpi_status rc = store_open_read(ctx->db_path, &st, &d); /* the site only reads */
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    if (rc == GPI_OK) rc = cli_gradeset_load(ctx, st, grades, &set, &d);
    site_stats s;
    cost_deployments ds = {NULL, 0, 0, 0};
    cost_curve *curves = NULL;
    size_t ncurves = 0;
    int cerr = 0;
    if (rc == GPI_OK && deployments) {
        rc = cost_deployments_load(deployments, &ds, &d);
        if (rc == GPI_OK) cerr = cost_curves(ctx, st, deployments, &ds, &curves, &ncurves);
    }
    char admin_buf[4096], review[256];
    if (!admin) { /* the data folder's, when there is one */
        snprintf(admin_buf, sizeof admin_buf, "%s/administration.json", cli_data_dir(ctx));
        if (access(admin_buf, R_OK) == 0) admin = admin_buf;
    }
    latest_review(out, review, sizeof review);
    char review_json[4400] = "";
    if (review[0])
        snprintf(review_json, sizeof review_json, "%s/%.*sjson", out, (int)strlen(review) - 2,
                 review);
    site_extras x = {curves, ncurves, (const char *const *)set.ids, set.n, accuracy, admin,
                     review[0] ? review : NULL, review[0] ? review_json : NULL, curve_bt};
    if (rc == GPI_OK && cerr == 0) rc = site_write_extras(st, out, &x, &s, &d);
    cli_gradeset_free(&set);
    store_close(st);
    for (size_t k = 0; k < ncurves; k++) cost_curve_free(&curves[k]);
    free(curves);
    cost_deployments_free(&ds);
    if (cerr) return cerr;
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
    printf("site: %d grades, %ld grade-days (%s..%s) -> %s/index.html, statement.html and %d "
           "CSV files\n",
           s.grades, s.rows, a, b, out, s.grades);
    if (ncurves)
        printf("site: %zu cost curve%s from %s\n", ncurves, ncurves == 1 ? "" : "s", deployments);
    return 0;
}
