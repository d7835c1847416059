/* cli/cmd_curve.c -- `gpuidx curve`: the term curve of grades on days
 * (curve/; METHODOLOGY.md "Term curve", docs/curve.md), and its
 * back-test (`gpuidx curve backtest`, cli/curve_backtest.c).
 *
 * Argument parsing and printing only: the fix of each grade-day and its
 * cut-off are the stored index row's, the inputs and the curve curve/'s.
 */
#include "cli/cli.h"
#include "cli/curve_cmd.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curve/format.h"
#include "curve/read.h"

static int parse_day(const char *opt, const char *v, int32_t *day)
{
    const char *why = gpi_date_parse(v, day);
    if (why) {
        cli_error("%s: %s (got \"%s\")", opt, why, v);
        return 2;
    }
    return 0;
}

gpi_status cc_curve_day(store *st, const idx_grades *gs, int32_t day, const curve_extra *extra,
                        size_t n_extra, curve_set *out, int *missing, gpi_diag *d)
{
    return curve_set_stored(st, gs, day, extra, n_extra, out, missing, d);
}

static void print_text(const curve_set *s)
{
    char date[11], b[32], c[32];
    gpi_date_format(s->day, date);
    for (size_t i = 0; i < s->n; i++) {
        const curve_graded *cg = &s->g[i];
        const curve_result *r = &cg->r;
        size_t used = 0;
        for (size_t k = 0; k < cg->in.n; k++) used += cg->in.q[k].role == CURVE_USED;
        printf("%s %s: front %s", date, cg->g->id,
               r->front_e4 >= 0 ? gpi_fixed_format(r->front_e4, 4, b) : "none");
        if (r->n_used)
            printf(", %s fit of %d point%s from %zu of %zu inputs\n", curve_fit_name(r->fit),
                   r->n_used, r->n_used == 1 ? "" : "s", used, cg->in.n);
        else
            printf(": no curve (%s)\n", r->note);
        if (!r->n_used) continue;
        printf("  tenor  term rate  forward  status\n");
        for (int k = 0; k < CURVE_TENORS; k++) {
            const curve_tenor *t = &r->t[k];
            if (t->status == CURVE_WITHHELD) {
                printf("  %5d  %9s  %7s  withheld: %s\n", k + 1, "", "", t->reason);
                /* one line for the run of tenors withheld for the same reason */
                int j = k;
                while (j + 1 < CURVE_TENORS && r->t[j + 1].status == CURVE_WITHHELD &&
                       strcmp(r->t[j + 1].reason, t->reason) == 0)
                    j++;
                if (j > k) printf("  %5s  (tenors %d..%d likewise)\n", "", k + 2, j + 1);
                k = j;
                continue;
            }
            printf("  %5d  %9s  %7s  %s\n", k + 1, gpi_fixed_format(t->term_e4, 4, b),
                   gpi_fixed_format(t->fwd_e4, 4, c), curve_status_name(t->status));
        }
    }
}

int cmd_curve(cli_ctx *ctx, int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "backtest") == 0)
        return cc_curve_backtest(ctx, argc - 1, argv + 1);
    const char *date = NULL, *to_s = NULL, *grades = NULL, *contracts = NULL, *futures = NULL;
    int csv = 0, json = 0;
    const char **ids = calloc((size_t)argc + 1, sizeof *ids);
    int n_ids = 0;
    if (!ids) return 1;
    cli_opt_spec spec[] = {{"--date", &date, NULL},         {"--to", &to_s, NULL},
                           {"--grades", &grades, NULL},     {"--grade", NULL, NULL},
                           {"--csv", NULL, &csv},           {"--json", NULL, &json},
                           {"--contracts", &contracts, NULL}, {"--futures", &futures, NULL},
                           {NULL, NULL, NULL}};
    cc_grade_ids gi = {ids, &n_ids};
    const cli_args args = {"curve", "curve", "curve", spec, cc_take_grade, &gi,
                           NULL, 0, NULL, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) {
        free(ids);
        return ec;
    }
    int32_t from = 0, to = 0;
    if (!date) {
        cli_error("curve: --date D is required (see gpuidx curve --help)");
        free(ids);
        return 2;
    }
    if ((ec = parse_day("--date", date, &from)) || (to_s && (ec = parse_day("--to", to_s, &to)))) {
        free(ids);
        return ec;
    }
    if (!to_s) to = from;
    if (to < from) {
        cli_error("curve: --to is before --date");
        free(ids);
        return 2;
    }
    if (csv && json) {
        cli_error("curve: --csv or --json, not both");
        free(ids);
        return 2;
    }
    if (!contracts != !futures) {
        cli_error("curve: --contracts and --futures go together");
        free(ids);
        return 2;
    }
    if (!cli_have_db(ctx, "curve")) {
        free(ids);
        return 1;
    }
    gpi_diag d = {{0}};
    store *st = NULL;
    cc_grades sel;
    memset(&sel, 0, sizeof sel);
    cc_futures fut;
    memset(&fut, 0, sizeof fut);
    gpi_status rc = store_open_read(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = cc_grades_load(ctx, st, grades, ids, (size_t)n_ids, &sel, &d);
    if (rc == GPI_OK && contracts) rc = cc_futures_load(contracts, futures, sel.gs, &fut, &d);
    int missing_any = 0;
    if (rc == GPI_OK && csv) curve_csv_header(stdout);
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        curve_set s;
        int missing = 0;
        curve_extra *ex = NULL;
        size_t nex = 0;
        rc = cc_futures_day(&fut, day, &ex, &nex, &d);
        if (rc == GPI_OK) rc = cc_curve_day(st, sel.gs, day, ex, nex, &s, &missing, &d);
        if (rc != GPI_OK) break;
        missing_any |= missing;
        if (csv) {
            for (size_t i = 0; i < s.n; i++) curve_csv_rows(stdout, day, s.g[i].g->id, &s.g[i].r);
        } else if (json) {
            curve_set_json(stdout, &s, 0);
        } else {
            print_text(&s);
        }
        curve_set_free(&s);
    }
    if (rc == GPI_OK && missing_any)
        cli_error("warning: some grade-days have no index row (not built): their curves have "
                  "no fix");
    cc_futures_free(&fut);
    cc_grades_free(&sel);
    store_close(st);
    free(ids);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(rc);
    }
    return 0;
}
