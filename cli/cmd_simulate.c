/* cli/cmd_simulate.c -- `gpuidx simulate`: write the demo market (SPEC §10).
 *
 * Opens the output files in DIR (created if missing) and hands them to
 * sim_write(); prints one summary line.  See sim/sim.h for what is in the
 * market. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "sim/sim.h"

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) cli_error("%s: %s", path, strerror(errno));
    return f;
}

typedef struct sim_args {
    sim_params p;
    int have_days, have_seed;
} sim_args;

enum { OPT_DAYS, OPT_SEED, OPT_SCALE, OPT_START };

/* Checks the numbers and dates as they come (cli_args.take). */
static int take(const cli_args *a, int k, const char *v)
{
    sim_args *s = a->ud;
    long n;
    if (k == OPT_DAYS) {
        if (parse_int(v, 1, SIM_MAX_DAYS, &n) != 0) {
            cli_error("--days: must be a whole number 1..%d (got \"%s\")", SIM_MAX_DAYS, v);
            return 2;
        }
        s->p.days = (int)n;
        s->have_days = 1;
    } else if (k == OPT_SEED) {
        char *end;
        errno = 0;
        unsigned long long seed = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-') {
            cli_error("--seed: must be an unsigned integer (got \"%s\")", v);
            return 2;
        }
        s->p.seed = (uint64_t)seed;
        s->have_seed = 1;
    } else if (k == OPT_SCALE) {
        if (parse_int(v, 1, SIM_MAX_SCALE, &n) != 0) {
            cli_error("--scale: must be a whole number 1..%d (got \"%s\")", SIM_MAX_SCALE, v);
            return 2;
        }
        s->p.scale = (int)n;
    } else if (k == OPT_START) {
        const char *why = gpi_date_parse(v, &s->p.start_day);
        if (why) {
            cli_error("--start: %s (got \"%s\")", why, v);
            return 2;
        }
    }
    return -1;
}

int cmd_simulate(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    sim_args sa = {{gpi_days_from_civil(2025, 1, 1), 0, 0, 1, NULL, 0}, 0, 0};
    const char *out = NULL, *truth = NULL;
    int no_push = 0;
    const cli_opt_spec spec[] = {{"--days", NULL, NULL},  {"--seed", NULL, NULL},
                                 {"--scale", NULL, NULL}, {"--start", NULL, NULL},
                                 {"--grade", &sa.p.contract_grade, NULL},
                                 {"--out", &out, NULL},   {"--truth", &truth, NULL},
                                 {"--no-push", NULL, &no_push}, {NULL, NULL, NULL}};
    const cli_args args = {"simulate", "simulate", "simulate", spec, take, &sa, NULL, 0, NULL, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    sim_params p = sa.p;
    p.no_push = no_push;
    if (!sa.have_days || !sa.have_seed || !out) {
        cli_error("simulate: --days, --seed and --out are required (see gpuidx simulate --help)");
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        cli_error("%s: %s", out, strerror(errno));
        return 1;
    }
    static const char *const names[] = {"offers.csv",      "trades.csv",     "rent_payer.csv",
                                        "rent_earner.csv", "contracts.json", "positions.csv",
                                        "deployments.csv", "term_offers.csv"};
    enum { NF = 8 };
    FILE *fh[NF] = {NULL}, *tf = NULL, *tc = NULL;
    char path[PATH_MAX], curve_path[PATH_MAX];
    int rc = 0;
    for (int k = 0; k < NF; k++)
        if (!(fh[k] = open_out(out, names[k], path, sizeof path))) rc = 1;
    if (rc == 0 && truth && !(tf = fopen(truth, "wb"))) {
        cli_error("%s: %s", truth, strerror(errno));
        rc = 1;
    }
    if (truth) { /* the true term structure beside the true prices */
        size_t n = strlen(truth);
        int csv = n > 4 && strcmp(truth + n - 4, ".csv") == 0;
        snprintf(curve_path, sizeof curve_path, "%.*s-curve.csv", (int)(csv ? n - 4 : n), truth);
    }
    if (rc == 0 && truth && !(tc = fopen(curve_path, "wb"))) {
        cli_error("%s: %s", curve_path, strerror(errno));
        rc = 1;
    }
    sim_stats s;
    if (rc == 0) {
        sim_files f = {fh[0], fh[1], fh[2], fh[3], fh[4], fh[5], tf, fh[7], tc};
        gpi_diag d = {{0}};
        gpi_status st = sim_write(&p, &f, &s, &d);
        if (st == GPI_OK) st = sim_write_deployments(&p, fh[6], &d);
        if (st != GPI_OK) {
            cli_error("%s", d.msg);
            rc = gpi_exit_code(st);
        }
    }
    for (int k = 0; k < NF; k++)
        if (fh[k] && fclose(fh[k]) != 0 && rc == 0) {
            cli_error("%s/%s: %s", out, names[k], strerror(errno));
            rc = 1;
        }
    if (tf && fclose(tf) != 0 && rc == 0) {
        cli_error("%s: %s", truth, strerror(errno));
        rc = 1;
    }
    if (tc && fclose(tc) != 0 && rc == 0) {
        cli_error("%s: %s", curve_path, strerror(errno));
        rc = 1;
    }
    if (rc != 0) return rc;
    char from[11], to[11];
    gpi_date_format(p.start_day, from);
    gpi_date_format(p.start_day + p.days - 1, to);
    printf("simulate: %s..%s seed %" PRIu64 " scale %d: %ld offers, %ld trades "
           "(%ld cancelled, %ld affiliate, %ld pushed), %ld fat fingers, %ld outliers, "
           "%d thin days, %d contracts -> %s/\n",
           from, to, p.seed, p.scale, s.offers, s.trades, s.cancelled, s.affiliate,
           s.pushed_trades, s.fat_fingers, s.outliers, s.thin_days, s.contracts, out);
    printf("simulate: %ld term offers (%ld forward starts) -> %s/term_offers.csv\n", s.term_offers,
           s.forward_offers, out);
    if (truth) printf("simulate: true prices -> %s\n", truth);
    if (truth) printf("simulate: true term structure -> %s\n", curve_path);
    return 0;
}
