/* cli/cmd_hedge.c -- `gpuidx hedge analyze|simulate|compare`.
 *
 * Argument parsing and wiring only: the rent file is read by hedge/, the
 * index values are read from the store here and handed to hedge/ as plain
 * data (hedge/ has no store handle: privacy by types), results go to
 * stdout (text or --json) and an optional --svg file the user names.  The
 * rent history is private: it is never written to the database or to any
 * published file (SPEC §9).  compare --suggest: cli/hedge_suggest.c.
 */
#include "cli/cli.h"
#include "cli/curve_cmd.h"
#include "cli/hedge_cmd.h"
#include "cli/hedge_print.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hedge/hedge.h"
#include "settlement/settlement.h"
#include "store/store.h"
#include "store/grades.h"
#include "store/index_values.h"

enum { SUB_ANALYZE = 1, SUB_SIMULATE = 2, SUB_COMPARE = 4 };

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* "YYYY-MM" -> its first day. */
static int parse_month(const char *s, int32_t *out)
{
    char buf[16];
    if (strlen(s) != 7 || s[4] != '-') return 0;
    snprintf(buf, sizeof buf, "%s-01", s);
    return gpi_date_parse(buf, out) == NULL;
}

/* What is rented (compare --suggest): the options, in hedge_rent_info's
 * order. */
#define N_RENT_OPTS 7
static const char *const rent_opt_name[N_RENT_OPTS] = {
    "--gpu", "--term", "--scope", "--region", "--provider", "--instance-type", "--zone"};

/* Sets rent option k to v; -1 to go on, else an exit code. */
static int set_rent_opt(hopts *o, int k, const char *v)
{
    const char **dst[N_RENT_OPTS] = {&o->gpu,    &o->term, &o->scope, &o->region,
                                     &o->provider, &o->sku, &o->zone};
    if (!*v || strlen(v) > 64 || strchr(v, '"')) {
        cli_error("%s: expected a name of 1 to 64 characters without quotes (got \"%s\")",
                  rent_opt_name[k], v);
        return 2;
    }
    if (k == 1 && strcasecmp(v, "on-demand") && strcasecmp(v, "spot") &&
        strncasecmp(v, "reserved:", 9)) {
        cli_error("--term: expected on-demand, spot or reserved:A-B (got \"%s\")", v);
        return 2;
    }
    if (k == 2 && gpi_scope_parse(v) < 0) {
        cli_error("--scope: expected bare-metal, managed, vm or container (got \"%s\")", v);
        return 2;
    }
    *dst[k] = v;
    return -1;
}

/* The options after the seven of rent_opt_name, in the order of
 * parse_opts' spec, and the subcommands each applies to. */
enum { H_JSON = N_RENT_OPTS, H_LATEST, H_RENT, H_GRADES, H_GRADE, H_FREQ, H_WINDOW, H_SUGGEST,
       H_SVG, H_SIDE, H_RATIO, H_SIZE, H_EXPOSURE, H_FORWARD, H_STRATEGY, H_MONTHS, H_START,
       H_MIN_CHANGES, H_MIN_DAYS, H_INCLUDE_OWN, H_CONTRACTS, H_N };
static const int opt_subs[H_N] = {
    SUB_COMPARE, SUB_COMPARE, SUB_COMPARE, SUB_COMPARE, SUB_COMPARE, SUB_COMPARE, SUB_COMPARE,
    [H_JSON] = 7, [H_LATEST] = 7, [H_RENT] = 7, [H_GRADES] = SUB_COMPARE, [H_GRADE] = 7,
    [H_FREQ] = SUB_ANALYZE | SUB_COMPARE, [H_WINDOW] = SUB_ANALYZE | SUB_COMPARE,
    [H_SUGGEST] = SUB_COMPARE, [H_SVG] = 7, [H_SIDE] = SUB_SIMULATE, [H_RATIO] = SUB_SIMULATE,
    [H_SIZE] = SUB_SIMULATE, [H_EXPOSURE] = SUB_SIMULATE, [H_FORWARD] = SUB_SIMULATE,
    [H_STRATEGY] = SUB_SIMULATE, [H_MONTHS] = SUB_SIMULATE, [H_START] = SUB_SIMULATE,
    [H_MIN_CHANGES] = SUB_SIMULATE | SUB_COMPARE, [H_MIN_DAYS] = SUB_SIMULATE,
    [H_INCLUDE_OWN] = SUB_COMPARE, [H_CONTRACTS] = SUB_SIMULATE};

typedef struct parse_ctx {
    int sub;
    hopts *o;
} parse_ctx;

/* Checks each option as it comes (cli_args.take). */
static int take(const cli_args *a, int k, const char *v)
{
    const parse_ctx *pc = a->ud;
    hopts *o = pc->o;
    long lv;
    if (!(opt_subs[k] & pc->sub)) return cli_not_here(a, a->spec[k].name);
    if (k < N_RENT_OPTS) return set_rent_opt(o, k, v);
    switch (k) {
    case H_GRADE:
        if (o->ngrades == MAX_GRADES) {
            cli_error("too many --grade options (at most %d)", MAX_GRADES);
            return 2;
        }
        o->grade = o->grades[o->ngrades++] = v;
        break;
    case H_FREQ:
        if ((o->freq = hedge_freq_parse(v)) < 0) {
            cli_error("--freq: expected day, week or month (got \"%s\")", v);
            return 2;
        }
        break;
    case H_WINDOW:
        if (!parse_long(v, 3, 100000, &lv)) {
            cli_error("--window: expected a whole number of periods >= 3 (got \"%s\")", v);
            return 2;
        }
        o->window = (int)lv;
        break;
    case H_SIDE:
        if (strcmp(v, "payer") == 0) o->sim.side = HEDGE_PAYER;
        else if (strcmp(v, "earner") == 0) o->sim.side = HEDGE_EARNER;
        else {
            cli_error("--side: expected payer or earner (got \"%s\")", v);
            return 2;
        }
        break;
    case H_RATIO:
        if (strcmp(v, "auto") == 0) o->sim.ratio_auto = 1;
        else if (parse_double(v, &o->sim.ratio) && fabs(o->sim.ratio) <= 100) o->sim.ratio_auto = 0;
        else {
            cli_error("--ratio: expected auto or a number in [-100, 100] (got \"%s\")", v);
            return 2;
        }
        break;
    case H_SIZE:
        if (!parse_long(v, 100, 1000000000L, &lv) || lv % 100 != 0) {
            cli_error("--size: expected a positive multiple of 100 GPU-hours (got \"%s\")", v);
            return 2;
        }
        o->sim.size = lv;
        o->size_given = 1;
        break;
    case H_EXPOSURE:
        if (!parse_double(v, &o->sim.exposure) || !(o->sim.exposure > 0) ||
            o->sim.exposure > 1e12) {
            cli_error("--exposure: expected a positive number of GPU-hours (got \"%s\")", v);
            return 2;
        }
        break;
    case H_STRATEGY:
        if (strcmp(v, "roll") == 0) o->sim.strategy = HEDGE_ROLL;
        else if (strcmp(v, "strip") == 0) o->sim.strategy = HEDGE_STRIP;
        else if (strcmp(v, "all") == 0) o->all_strategies = 1;
        else {
            cli_error("--strategy: expected roll, strip or all (got \"%s\")", v);
            return 2;
        }
        break;
    case H_MONTHS:
        if (!parse_long(v, 1, 120, &lv)) {
            cli_error("--months: expected a strip length of 1..120 months (got \"%s\")", v);
            return 2;
        }
        o->sim.strip_months = (int)lv;
        break;
    case H_START:
        if (!parse_month(v, &o->sim.start)) {
            cli_error("--start: expected a month YYYY-MM (got \"%s\")", v);
            return 2;
        }
        break;
    case H_MIN_CHANGES:
        if (!parse_long(v, 3, 100000, &lv)) {
            cli_error("--min-changes: expected a whole number >= 3 (got \"%s\")", v);
            return 2;
        }
        o->min_changes = o->sim.min_changes = (size_t)lv;
        break;
    case H_MIN_DAYS:
        if (!parse_long(v, 1, 31, &lv)) {
            cli_error("--min-days: expected 1..31 (got \"%s\")", v);
            return 2;
        }
        o->sim.min_days = (size_t)lv;
        o->min_days_given = 1;
        break;
    default: /* stored by the parser */
        break;
    }
    return -1;
}

/* Returns -1 to go on, else an exit code (0 after --help). */
static int parse_opts(int sub, int argc, char **argv, hopts *o)
{
    const char *topic = sub == SUB_ANALYZE    ? "hedge analyze"
                        : sub == SUB_SIMULATE ? "hedge simulate"
                                              : "hedge compare";
    memset(o, 0, sizeof *o);
    o->freq = HEDGE_MONTH;
    o->sim = (hedge_sim_opts){.side = HEDGE_PAYER, .ratio_auto = 1, .size = 1000, .min_days = 15};
    const cli_opt_spec spec[] = {
        {rent_opt_name[0], NULL, NULL}, {rent_opt_name[1], NULL, NULL},
        {rent_opt_name[2], NULL, NULL}, {rent_opt_name[3], NULL, NULL},
        {rent_opt_name[4], NULL, NULL}, {rent_opt_name[5], NULL, NULL},
        {rent_opt_name[6], NULL, NULL},
        {"--json", NULL, &o->json},     {"--latest", NULL, &o->latest},
        {"--rent", &o->rent, NULL},     {"--grades", &o->grades_file, NULL},
        {"--grade", NULL, NULL},        {"--freq", NULL, NULL},
        {"--window", NULL, NULL},       {"--suggest", NULL, &o->suggest},
        {"--svg", &o->svg, NULL},       {"--side", NULL, NULL},
        {"--ratio", NULL, NULL},        {"--size", NULL, NULL},
        {"--exposure", NULL, NULL},     {"--forward", &o->forward, NULL},
        {"--strategy", NULL, NULL},     {"--months", NULL, NULL},
        {"--start", NULL, NULL},        {"--min-changes", NULL, NULL},
        {"--min-days", NULL, NULL},     {"--include-own", NULL, &o->include_own},
        {"--contracts", &o->contracts, NULL}, {NULL, NULL, NULL}};
    _Static_assert(sizeof spec / sizeof spec[0] == H_N + 1, "one option per H_ key");
    parse_ctx pc = {sub, o};
    const cli_args args = {"hedge", topic, topic, spec, take, &pc, NULL, 0, NULL, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    if (!o->rent) {
        cli_error("--rent FILE is required");
        cli_usage(stderr, topic);
        return 2;
    }
    if (sub != SUB_COMPARE && (!o->grade || o->ngrades != 1)) {
        cli_error("exactly one --grade ID is required");
        cli_usage(stderr, topic);
        return 2;
    }
    if (sub == SUB_SIMULATE && o->sim.strategy == HEDGE_ROLL && !o->all_strategies &&
        (o->sim.strip_months || o->sim.start)) {
        cli_error("--months and --start apply to --strategy strip (or all)");
        cli_usage(stderr, topic);
        return 2;
    }
    if (sub == SUB_COMPARE && !o->grades_file && o->ngrades == 0 && !o->suggest) {
        cli_error("--grades FILE, --grade ID or --suggest is required");
        cli_usage(stderr, topic);
        return 2;
    }
    if (sub == SUB_COMPARE && o->include_own && !o->suggest) {
        cli_error("--include-own applies to the grades --suggest builds");
        cli_usage(stderr, topic);
        return 2;
    }
    if (sub == SUB_SIMULATE && o->contracts && (o->size_given || o->min_days_given)) {
        cli_error("--contracts gives the contract's size and min_published_days: leave out "
                  "--size and --min-days");
        cli_usage(stderr, topic);
        return 2;
    }
    for (size_t k = 0; k < o->ngrades; k++)
        if (!gpi_grade_id_ok(o->grades[k])) {
            cli_error("--grade: not a grade id (got \"%s\")", o->grades[k]);
            return 2;
        }
    return -1;
}

static int open_db(cli_ctx *ctx, store **st)
{
    gpi_diag d = {{0}};
    *st = NULL;
    if (!cli_have_db(ctx, "hedge")) return 1;
    if (store_open_read(ctx->db_path, st, &d) != GPI_OK) { /* hedge only reads */
        cli_error("%s", d.msg);
        return 1;
    }
    return 0;
}

static int fail(gpi_status st, const gpi_diag *d)
{
    cli_error("%s", d->msg);
    return gpi_exit_code(st);
}

gpi_status hc_fetch(store *db, const char *grade, const hedge_rent *r, int latest,
                    gpi_index_day **out, size_t *n, int *exists, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    gpi_status st = store_grade_exists(db, grade, exists, d);
    if (st != GPI_OK || !*exists) return st;
    int32_t from, to;
    hedge_index_range(r, &from, &to);
    return store_index_series(db, grade, from, to, latest, out, n, d);
}

/* Writes svg[0..len) to path (and frees svg); an exit code. */
static int put_file(const char *path, char *svg, size_t len)
{
    FILE *f = fopen(path, "w");
    int bad = !f || fwrite(svg, 1, len, f) != len;
    if (f && fclose(f) != 0) bad = 1;
    free(svg);
    if (bad) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int write_svg(const char *path, const char *grade, const hedge_series *s,
                     const hedge_analysis *a)
{
    char *svg;
    size_t len;
    gpi_diag d = {{0}};
    char title[128];
    snprintf(title, sizeof title, "Rent against %s", grade);
    gpi_status st = hedge_svg(s, a, title, &svg, &len, &d);
    if (st != GPI_OK) return fail(st, &d);
    return put_file(path, svg, len);
}

static int do_analyze(cli_ctx *ctx, const hopts *o)
{
    hedge_rent r;
    gpi_diag d = {{0}};
    gpi_status st = hedge_rent_load(o->rent, &r, &d);
    if (st != GPI_OK) return fail(st, &d);
    store *db;
    int rc = open_db(ctx, &db);
    if (rc) {
        hedge_rent_free(&r);
        return rc;
    }
    hedge_series s;
    hedge_analysis a;
    gpi_index_day *days = NULL;
    size_t nd = 0;
    int exists = 0;
    st = hc_fetch(db, o->grade, &r, o->latest, &days, &nd, &exists, &d);
    char hint[320] = "";
    if (st == GPI_OK && !exists) cli_grade_hint(NULL, db, o->grade, hint, sizeof hint);
    store_close(db);
    if (st == GPI_OK && !exists)
        st = gpi_diag_set(&d, GPI_EINPUT, "grade %s: no index values in the database%s", o->grade,
                          hint);
    if (st == GPI_OK)
        st = hedge_analyze_index(o->grade, days, nd, &r, (hedge_freq)o->freq, o->window, &s, &a, &d);
    free(days);
    hedge_rent_free(&r);
    if (st != GPI_OK) return fail(st, &d);
    if (o->json) {
        json_t *j = hp_analysis_json(o->grade, &s, &a);
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else {
        hp_analysis_text(stdout, o->rent, o->grade, &s, &a);
    }
    if (rc == 0 && o->svg) rc = write_svg(o->svg, o->grade, &s, &a);
    hedge_analysis_free(&a);
    hedge_series_free(&s);
    return rc;
}

/* --contracts: the terms of the file's contract on the grade (else its
 * first) and the file's contracts on the grade, into *cs (free). */
static int contract_terms(hopts *o, settle_contract **cs, settle_contract **listed)
{
    size_t nc = 0;
    gpi_diag d = {{0}};
    gpi_status st = settle_contracts_load(o->contracts, NULL, NULL, cs, &nc, &d);
    if (st != GPI_OK) return fail(st, &d);
    *listed = calloc(nc, sizeof **listed);
    if (!*listed) {
        cli_error("hedge simulate: out of memory");
        return 1;
    }
    size_t nl = 0;
    for (size_t i = 0; i < nc; i++)
        if (strcasecmp((*cs)[i].grade, o->grade) == 0) (*listed)[nl++] = (*cs)[i];
    o->sim.terms = nl ? &(*listed)[0] : &(*cs)[0];
    o->sim.listed = *listed;
    o->sim.n_listed = nl;
    return 0;
}

static int do_simulate(cli_ctx *ctx, hopts *o)
{
    hedge_rent r;
    hedge_forward fw = {NULL, NULL, 0, NULL}, cfw = {NULL, NULL, 0, NULL};
    cc_forwards cf;
    memset(&cf, 0, sizeof cf);
    int strip = o->all_strategies || o->sim.strategy == HEDGE_STRIP;
    gpi_diag d = {{0}};
    store *db = NULL;
    gpi_index_day *days = NULL;
    settle_contract *cs = NULL, *listed = NULL;
    size_t nd = 0;
    int rc = 0;
    gpi_status st = hedge_rent_load(o->rent, &r, &d);
    if (st != GPI_OK) return fail(st, &d);
    if (o->contracts && (rc = contract_terms(o, &cs, &listed))) goto done;
    if (o->forward) {
        if ((st = hedge_forward_load(o->forward, &fw, &d)) != GPI_OK) {
            rc = fail(st, &d);
            goto done;
        }
        o->sim.forward = &fw;
    }
    if ((rc = open_db(ctx, &db))) goto done;
    int exists = 0;
    if ((st = hc_fetch(db, o->grade, &r, o->latest, &days, &nd, &exists, &d)) != GPI_OK) {
        rc = fail(st, &d);
        goto done;
    }
    /* a strip without --forward locks each month at the term curve of its
     * entry day (issue 29; cli/curve_util.c) */
    if (strip && !o->forward && exists && r.n) {
        if ((st = cc_strip_forwards(db, o->grade, r.rows[0].day, r.rows[r.n - 1].day,
                                    o->sim.strip_months ? o->sim.strip_months : 12, &cf, &d)) !=
            GPI_OK) {
            rc = fail(st, &d);
            goto done;
        }
        cfw = (hedge_forward){cf.month, cf.price_e4, cf.n, cf.entered};
        /* --contracts: a locked price trades on the contract's tick (half-up) */
        const settle_contract *t = o->sim.terms;
        if (t && t->tick.mant > 0 && t->tick.scale >= 0 && t->tick.scale <= 4) {
            int64_t tick = t->tick.mant;
            for (int k = t->tick.scale; k < 4; k++) tick *= 10;
            for (size_t i = 0; i < cf.n; i++)
                cf.price_e4[i] = (cf.price_e4[i] + tick / 2) / tick * tick;
        }
    }
    char hint[320] = "";
    if (!exists) cli_grade_hint(NULL, db, o->grade, hint, sizeof hint);
    store_close(db);
    db = NULL;
    if (!exists) {
        cli_error("grade %s: no index values in the database%s", o->grade, hint);
        rc = 1;
        goto done;
    }
    /* one replay, or (--strategy all) roll and strip of the same rent */
    hedge_sim_opts so[2] = {o->sim, o->sim};
    hedge_sim s[2];
    size_t ns = o->all_strategies ? 2 : 1;
    if (o->all_strategies) {
        so[0].strategy = HEDGE_ROLL;
        so[1].strategy = HEDGE_STRIP;
    }
    if (strip && !o->forward && cf.n) so[ns - 1].forward = &cfw; /* else the FSP, as before */
    for (size_t k = 0; k < ns; k++)
        if ((st = hedge_simulate(&r, days, nd, &so[k], &s[k], &d)) != GPI_OK) {
            if (k) hedge_sim_free(&s[0]);
            rc = fail(st, &d);
            goto done;
        }
    if (o->json && ns == 1) {
        json_t *j = hp_sim_json(o->grade, &so[0], &s[0]);
        if (strip && !o->forward)
            json_object_set_new(j, "locked_prices", json_string("term curve"));
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else if (o->json) {
        json_t *j = json_object(), *arr = json_array();
        json_object_set_new(j, "grade", json_string(o->grade));
        for (size_t k = 0; k < ns; k++) {
            json_t *x = hp_sim_json(o->grade, &so[k], &s[k]);
            if (so[k].strategy == HEDGE_STRIP && !o->forward)
                json_object_set_new(x, "locked_prices", json_string("term curve"));
            json_array_append_new(arr, x);
        }
        json_object_set_new(j, "strategies", arr);
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else {
        for (size_t k = 0; k < ns; k++) {
            if (k) fputc('\n', stdout);
            hp_sim_text(stdout, o->grade, &so[k], &s[k]);
        }
        if (ns > 1) hp_sim_compare_text(stdout, so, s, ns);
    }
    if (strip && !o->forward && !o->json) {
        /* the strip's replayed months that took the curve's forward */
        const hedge_sim *ss = &s[ns - 1];
        size_t on_curve = 0, done = 0;
        for (size_t i = 0; i < ss->n; i++) {
            if (ss->m[i].skipped) continue;
            done++;
            for (size_t j = 0; j < cf.n; j++)
                if (cf.month[j] == ss->m[i].month && cf.entered[j] == ss->m[i].entered) {
                    on_curve++;
                    break;
                }
        }
        printf("\nThe strip's locked prices are the term curve's forwards, not --forward: each "
               "month at the curve of %s on the last day of the month before its strip, as "
               "published (curve.csv of the day's first vintage: %ld of %ld entry days), else as "
               "`gpuidx curve` computes it at the day's value as first published%s; %zu of the "
               "%zu replayed months had one, the others were entered at the FSP of the month of "
               "entry (the curve withheld them).\n",
               o->grade, cf.published, cf.entries,
               o->sim.terms ? "; rounded half-up to the contract's tick" : "", on_curve, done);
    }
    if (rc == 0 && o->svg) {
        char *svg;
        size_t len;
        char title[128];
        snprintf(title, sizeof title, "Replay against %s", o->grade);
        if ((st = hedge_svg_sim(s, so, ns, title, &svg, &len, &d)) != GPI_OK)
            rc = fail(st, &d);
        else
            rc = put_file(o->svg, svg, len);
    }
    for (size_t k = 0; k < ns; k++) hedge_sim_free(&s[k]);
done:
    free(days);
    free(cs);
    free(listed);
    store_close(db);
    cc_forwards_free(&cf);
    hedge_forward_free(&fw);
    hedge_rent_free(&r);
    return rc;
}

/* A grade's GPU models, joined "a, b". */
static void join_gpus(const idx_grade *g, char out[160])
{
    out[0] = '\0';
    for (int k = 0; k < g->n_gpu; k++) {
        size_t len = strlen(out);
        snprintf(out + len, 160 - len, "%s%s", len ? ", " : "", g->gpu[k]);
    }
}

/* The grades of a grades file, read by the index's grade reader (the one
 * `index build` uses, with data/'s tables): their ids, and their GPU
 * models joined "a, b" in gpus[] (kept in *gs and *gpus; free both). */
static int load_grade_ids(cli_ctx *ctx, const char *path, hopts *o, idx_grades **gs,
                          char (**gpus)[160])
{
    gpi_diag d = {{0}};
    if (idx_grades_load_data(cli_data_dir(ctx), path, gs, &d) != GPI_OK) {
        cli_error("%s", d.msg);
        return 1;
    }
    if ((*gs)->n > MAX_GRADES - o->ngrades) {
        cli_error("%s: too many grades (at most %d)", path, MAX_GRADES);
        return 1;
    }
    *gpus = calloc((*gs)->n + 1, sizeof **gpus);
    if (!*gpus) {
        cli_error("hedge compare: out of memory");
        return 1;
    }
    for (size_t i = 0; i < (*gs)->n; i++) {
        const idx_grade *g = &(*gs)->g[i];
        join_gpus(g, (*gpus)[i]);
        o->grade_gpus[o->ngrades] = g->n_gpu ? (*gpus)[i] : NULL;
        o->grade_defs[o->ngrades] = g;
        o->grades[o->ngrades++] = g->id;
    }
    return 0;
}

/* The GPU models of a grade from its stored definition ("" when none). */
static void stored_gpus(store *st, const char *grade, int32_t from, int32_t to, char out[160])
{
    idx_grades *gs = hc_stored_def(st, grade, from, to);
    out[0] = '\0';
    if (gs) join_gpus(&gs->g[0], out);
    idx_grades_free(gs);
}

/* What is rented: the rent file's header fields, each overridden by its
 * option. */
static void rent_info(const hopts *o, const hedge_rent *r, hedge_rent_info *info)
{
    *info = r->info;
    const char *opt[N_RENT_OPTS] = {o->gpu,      o->term, o->scope, o->region,
                                    o->provider, o->sku,  o->zone};
    char *dst[N_RENT_OPTS] = {info->gpu,      info->term, info->scope, info->region,
                              info->provider, info->sku,  info->zone};
    size_t cap[N_RENT_OPTS] = {sizeof info->gpu,      sizeof info->term, sizeof info->scope,
                               sizeof info->region,   sizeof info->provider, sizeof info->sku,
                               sizeof info->zone};
    for (int k = 0; k < N_RENT_OPTS; k++)
        if (opt[k]) snprintf(dst[k], cap[k], "%s", opt[k]);
}

static int do_compare(cli_ctx *ctx, hopts *o)
{
    idx_grades *gfile = NULL;
    char (*file_gpus)[160] = NULL;
    hedge_rent r;
    gpi_diag d = {{0}};
    if (o->grades_file && load_grade_ids(ctx, o->grades_file, o, &gfile, &file_gpus)) {
        idx_grades_free(gfile);
        free(file_gpus);
        return 1;
    }
    gpi_status st = hedge_rent_load(o->rent, &r, &d);
    if (st != GPI_OK) {
        idx_grades_free(gfile);
        free(file_gpus);
        return fail(st, &d);
    }
    hedge_rent_info info;
    rent_info(o, &r, &info);
    if (o->suggest && !info.gpu[0]) {
        cli_error("--suggest needs the rent's GPU: --gpu MODEL, or a '# gpu: MODEL' line in %s",
                  o->rent);
        hedge_rent_free(&r);
        idx_grades_free(gfile);
        free(file_gpus);
        return 2;
    }
    store *db = NULL;
    int rc = open_db(ctx, &db);
    hedge_rank *rk = NULL;
    size_t cap = o->ngrades + 16, nin = 0;
    char (*gpu_buf)[160] = calloc(o->ngrades + 1, sizeof *gpu_buf);
    char (*miss)[480] = calloc(o->ngrades + 1, sizeof *miss);
    hedge_grade_input *in = calloc(cap, sizeof *in);
    gpi_index_day **days = calloc(o->ngrades + 1, sizeof *days);
    hs_state hs;
    memset(&hs, 0, sizeof hs);
    if (!rc && (!gpu_buf || !miss || !in || !days)) {
        cli_error("hedge compare: out of memory");
        rc = 1;
    }
    int32_t from, to;
    hedge_index_range(&r, &from, &to);
    /* which grades given are published (the published set: the published
     * grades file less dropped grades); the others are candidates */
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    if (!rc && o->ngrades && (st = cli_gradeset_load(ctx, db, NULL, &set, &d)) != GPI_OK)
        rc = fail(st, &d);
    for (size_t i = 0; !rc && i < o->ngrades; i++) {
        hedge_grade_input *g = &in[nin++];
        int exists = 0;
        g->grade = o->grades[i];
        int k = cli_gradeset_has(&set, o->grades[i]);
        g->published = k > 0 && !set.dropped[k - 1];
        if ((st = hc_fetch(db, o->grades[i], &r, o->latest, &days[i], &g->n, &exists, &d)) != GPI_OK) {
            rc = fail(st, &d);
            break;
        }
        g->days = days[i];
        if (!exists) {
            char hint[320];
            snprintf(miss[i], sizeof miss[i], "grade %s: no index values in the database%s",
                     o->grades[i], cli_grade_hint(NULL, db, o->grades[i], hint, sizeof hint));
            g->missing = miss[i];
            continue;
        }
        if (!o->grade_gpus[i]) {
            stored_gpus(db, o->grades[i], from, to, gpu_buf[i]);
            o->grade_gpus[i] = gpu_buf[i];
        }
        g->gpu = o->grade_gpus[i];
    }
    int own_known = info.provider[0] != '\0';
    if (!rc && (o->suggest || own_known))
        rc = hs_build(ctx, db, &r, &info, o->suggest, o->include_own,
                      (const idx_grade *const *)o->grade_defs, &hs, in, &nin, cap);
    store_close(db);
    hedge_compare_opts co = {(hedge_freq)o->freq, o->window, o->min_changes,
                             info.gpu[0] ? info.gpu : NULL};
    hedge_verdict v;
    if (!rc) {
        if ((st = hedge_compare(in, nin, &r, &co, &rk, &d)) != GPI_OK) rc = fail(st, &d);
    }
    if (!rc) {
        hedge_rent_summary rs;
        hedge_rent_summarize(&r, (hedge_freq)o->freq, &rs);
        hedge_compare_verdict(rk, nin, &co, &rs, &v);
    }
    hp_extra ex = {&v,      o->suggest ? &info : NULL, (const char *const *)hs.defs, o->ngrades,
                   hs.from, hs.to, own_known ? hs.own_words : "", o->suggest && !o->include_own,
                   hs.none_to, set.path};
    if (!rc && o->json) {
        json_t *j = hp_compare_json((hedge_freq)o->freq, o->min_changes, rk, nin, &ex);
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else if (!rc) {
        hp_compare_text(stdout, o->rent, (hedge_freq)o->freq, o->min_changes, rk, nin, &ex);
    }
    if (!rc && o->svg) {
        char *svg;
        size_t len;
        char title[160];
        snprintf(title, sizeof title, "Grades as hedges of %s", o->rent);
        if ((st = hedge_svg_compare(rk, nin, (hedge_freq)o->freq, title, &svg, &len, &d)) != GPI_OK)
            rc = fail(st, &d);
        else
            rc = put_file(o->svg, svg, len);
    }
    hedge_ranks_free(rk, rk ? nin : 0);
    for (size_t i = 0; days && i < o->ngrades; i++) free(days[i]);
    free(days);
    free(in);
    hs_free(&hs);
    hedge_rent_free(&r);
    free(gpu_buf);
    free(miss);
    idx_grades_free(gfile);
    free(file_gpus);
    cli_gradeset_free(&set);
    return rc;
}

int cmd_hedge(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2) {
        cli_help_print(stderr, "hedge");
        return 2;
    }
    if (cli_is_help(argv[1])) {
        cli_help_print(stdout, "hedge");
        return 0;
    }
    int sub = strcmp(argv[1], "analyze") == 0    ? SUB_ANALYZE
              : strcmp(argv[1], "simulate") == 0 ? SUB_SIMULATE
              : strcmp(argv[1], "compare") == 0  ? SUB_COMPARE
                                                 : 0;
    if (!sub) {
        cli_error("hedge: unknown subcommand '%s' (analyze, simulate, compare)", argv[1]);
        return 2;
    }
    hopts o;
    int rc = parse_opts(sub, argc - 1, argv + 1, &o);
    if (rc >= 0) return rc;
    if (sub == SUB_ANALYZE) return do_analyze(ctx, &o);
    if (sub == SUB_SIMULATE) return do_simulate(ctx, &o);
    return do_compare(ctx, &o);
}
