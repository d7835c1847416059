/* cli/cmd_hedge.c -- `gpuidx hedge analyze|simulate|compare`.
 *
 * Argument parsing and wiring only: the rent file is read by hedge/, the
 * index comes from the store, results go to stdout (text or --json) and an
 * optional --svg file the user names.  The rent history is private: it is
 * never written to the database or to any published file (SPEC §9).
 */
#include "cli/cli.h"
#include "cli/hedge_print.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hedge/hedge.h"
#include "store/store.h"

#define MAX_GRADES 256

enum { SUB_ANALYZE = 1, SUB_SIMULATE = 2, SUB_COMPARE = 4 };

typedef struct hopts {
    const char *rent, *grade, *grades_file, *svg, *forward;
    const char *grades[MAX_GRADES];
    size_t ngrades;
    int freq, json, window, latest;
    hedge_sim_opts sim;
} hopts;

static const char usage_analyze[] =
    "usage: gpuidx hedge analyze --rent FILE --grade ID [--freq day|week|month]\n"
    "                            [--window N] [--latest] [--json] [--svg FILE]\n"
    "\n"
    "How well futures on grade ID would have hedged the rent in FILE (CSV\n"
    "date,price[,quantity], USD per GPU-hour).  Rent and index are aggregated to\n"
    "--freq (default month; weeks are ISO, Monday start) and aligned on periods\n"
    "present in both.  Reports the minimum-variance hedge ratio h on changes,\n"
    "hedge effectiveness, levels and robust fits, basis risk, the regression and\n"
    "dollar-offset tests, Newey-West se, rolling h (--window periods, default 12)\n"
    "and horizons 1-3.  Index values as first published (--latest: restated).\n"
    "--svg FILE writes a chart.  The rent file is read, never stored.\n";

static const char usage_simulate[] =
    "usage: gpuidx hedge simulate --rent FILE --grade ID [--side payer|earner]\n"
    "                             [--ratio auto|X] [--size N] [--exposure N]\n"
    "                             [--forward FILE] [--min-days N] [--latest] [--json]\n"
    "\n"
    "Replays the rent month by month with futures on grade ID: payers buy,\n"
    "earners sell (default payer) h x exposure / size contracts (size default\n"
    "1000 GPU-hours, a multiple of 100), entered at the previous month's final\n"
    "settlement price (or the month's price in --forward FILE, CSV month,price)\n"
    "and cash-settled at the month's FSP (mean of its index values rounded to\n"
    "0.0001; --min-days values needed, default 15).  --ratio auto (default)\n"
    "uses h from the months before each month only.  Exposure: the previous\n"
    "month's quantity, or --exposure GPU-hours a month.\n";

static const char usage_compare[] =
    "usage: gpuidx hedge compare --rent FILE (--grades FILE | --grade ID...)\n"
    "                            [--freq day|week|month] [--window N] [--latest] [--json]\n"
    "\n"
    "Analyzes the rent against each grade (ids from the grades JSON file, or\n"
    "--grade repeated) and ranks them by hedge effectiveness, then basis risk.\n";

static const char usage_hedge[] =
    "usage: gpuidx hedge analyze|simulate|compare [OPTIONS]  (--help after one for more)\n";

static int grade_id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || !isalnum((unsigned char)s[0])) return 0;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._+-", s[i])) return 0;
    return 1;
}

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

/* Returns -1 to go on, else an exit code (0 after --help). */
static int parse_opts(int sub, int argc, char **argv, hopts *o)
{
    const char *usage = sub == SUB_ANALYZE ? usage_analyze
                        : sub == SUB_SIMULATE ? usage_simulate : usage_compare;
    memset(o, 0, sizeof *o);
    o->freq = HEDGE_MONTH;
    o->sim = (hedge_sim_opts){HEDGE_PAYER, 1, 0, 1000, 0, NULL, 15};
    for (int i = 1; i < argc; i++) {
        int missing = 0, allowed = 0;
        const char *v = NULL, *a = argv[i];
        long lv;
        if (cli_is_help(a)) {
            fputs(usage, stdout);
            return 0;
        }
#define OPT(name, subs) ((v = cli_opt(argc, argv, &i, name, &missing)) || missing) && ((allowed = (sub & (subs)) != 0), 1)
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        } else if (strcmp(a, "--latest") == 0) {
            o->latest = 1;
            continue;
        } else if (OPT("--rent", 7)) {
            if (v) o->rent = v;
        } else if (OPT("--grades", SUB_COMPARE)) {
            if (v) o->grades_file = v;
        } else if (OPT("--grade", 7)) {
            if (v && o->ngrades == MAX_GRADES) {
                cli_error("too many --grade options (at most %d)", MAX_GRADES);
                return 2;
            }
            if (v) o->grade = o->grades[o->ngrades++] = v;
        } else if (OPT("--freq", SUB_ANALYZE | SUB_COMPARE)) {
            if (v && (o->freq = hedge_freq_parse(v)) < 0) {
                cli_error("--freq: expected day, week or month (got \"%s\")", v);
                return 2;
            }
        } else if (OPT("--window", SUB_ANALYZE | SUB_COMPARE)) {
            if (v && !parse_long(v, 3, 100000, &lv)) {
                cli_error("--window: expected a whole number of periods >= 3 (got \"%s\")", v);
                return 2;
            }
            if (v) o->window = (int)lv;
        } else if (OPT("--svg", SUB_ANALYZE)) {
            if (v) o->svg = v;
        } else if (OPT("--side", SUB_SIMULATE)) {
            if (v && strcmp(v, "payer") == 0) o->sim.side = HEDGE_PAYER;
            else if (v && strcmp(v, "earner") == 0) o->sim.side = HEDGE_EARNER;
            else if (v) {
                cli_error("--side: expected payer or earner (got \"%s\")", v);
                return 2;
            }
        } else if (OPT("--ratio", SUB_SIMULATE)) {
            if (v && strcmp(v, "auto") == 0) o->sim.ratio_auto = 1;
            else if (v && parse_double(v, &o->sim.ratio) && fabs(o->sim.ratio) <= 100) o->sim.ratio_auto = 0;
            else if (v) {
                cli_error("--ratio: expected auto or a number in [-100, 100] (got \"%s\")", v);
                return 2;
            }
        } else if (OPT("--size", SUB_SIMULATE)) {
            if (v && (!parse_long(v, 100, 1000000000L, &lv) || lv % 100 != 0)) {
                cli_error("--size: expected a positive multiple of 100 GPU-hours (got \"%s\")", v);
                return 2;
            }
            if (v) o->sim.size = lv;
        } else if (OPT("--exposure", SUB_SIMULATE)) {
            if (v && (!parse_double(v, &o->sim.exposure) || !(o->sim.exposure > 0) ||
                      o->sim.exposure > 1e12)) {
                cli_error("--exposure: expected a positive number of GPU-hours (got \"%s\")", v);
                return 2;
            }
        } else if (OPT("--forward", SUB_SIMULATE)) {
            if (v) o->forward = v;
        } else if (OPT("--min-days", SUB_SIMULATE)) {
            if (v && !parse_long(v, 1, 31, &lv)) {
                cli_error("--min-days: expected 1..31 (got \"%s\")", v);
                return 2;
            }
            if (v) o->sim.min_days = (size_t)lv;
        } else {
            cli_error("hedge: unknown option '%s'\n%s", a, usage);
            return 2;
        }
#undef OPT
        if (missing) {
            cli_error("option '%s' needs a value", a);
            return 2;
        }
        if (!allowed) {
            cli_error("option '%s' does not apply here\n%s", a, usage);
            return 2;
        }
    }
    if (!o->rent) {
        cli_error("--rent FILE is required\n%s", usage);
        return 2;
    }
    if (sub != SUB_COMPARE && (!o->grade || o->ngrades != 1)) {
        cli_error("exactly one --grade ID is required\n%s", usage);
        return 2;
    }
    if (sub == SUB_COMPARE && !o->grades_file && o->ngrades == 0) {
        cli_error("--grades FILE or --grade ID is required\n%s", usage);
        return 2;
    }
    for (size_t k = 0; k < o->ngrades; k++)
        if (!grade_id_ok(o->grades[k])) {
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
    if (store_open(ctx->db_path, st, &d) != GPI_OK) {
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
    st = hedge_analyze_grade(db, o->grade, o->latest, &r, (hedge_freq)o->freq, o->window, &s, &a, &d);
    store_close(db);
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

static int do_simulate(cli_ctx *ctx, hopts *o)
{
    hedge_rent r;
    hedge_forward fw = {NULL, NULL, 0};
    gpi_diag d = {{0}};
    store *db = NULL;
    store_index_day *days = NULL;
    size_t nd = 0;
    int rc = 0;
    gpi_status st = hedge_rent_load(o->rent, &r, &d);
    if (st != GPI_OK) return fail(st, &d);
    if (o->forward) {
        if ((st = hedge_forward_load(o->forward, &fw, &d)) != GPI_OK) {
            rc = fail(st, &d);
            goto done;
        }
        o->sim.forward = &fw;
    }
    if ((rc = open_db(ctx, &db))) goto done;
    int exists = 0;
    if ((st = store_grade_exists(db, o->grade, &exists, &d)) != GPI_OK) {
        rc = fail(st, &d);
        goto done;
    }
    if (!exists) {
        cli_error("grade %s: no index values in the database", o->grade);
        rc = 1;
        goto done;
    }
    int32_t from, to;
    hedge_index_range(&r, &from, &to);
    if ((st = store_index_series(db, o->grade, from, to, o->latest, &days, &nd, &d)) != GPI_OK) {
        rc = fail(st, &d);
        goto done;
    }
    hedge_sim s;
    if ((st = hedge_simulate(&r, days, nd, &o->sim, &s, &d)) != GPI_OK) {
        rc = fail(st, &d);
        goto done;
    }
    if (o->json) {
        json_t *j = hp_sim_json(o->grade, &o->sim, &s);
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else {
        hp_sim_text(stdout, o->grade, &o->sim, &s);
    }
    hedge_sim_free(&s);
done:
    free(days);
    store_close(db);
    hedge_forward_free(&fw);
    hedge_rent_free(&r);
    return rc;
}

/* Reads the grade ids of a grades file ({"grades": [{"id": ...}, ...]}). */
static int load_grade_ids(const char *path, hopts *o, json_t **keep)
{
    json_error_t e;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!j) {
        if (e.line < 0) cli_error("%s: %s", path, e.text);
        else cli_error("%s:%d: %s", path, e.line, e.text);
        return 1;
    }
    json_t *arr = json_object_get(j, "grades");
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        cli_error("%s: grades: expected a non-empty array", path);
        json_decref(j);
        return 1;
    }
    size_t i;
    json_t *g;
    json_array_foreach(arr, i, g) {
        const char *id = json_string_value(json_object_get(g, "id"));
        if (!id || !grade_id_ok(id)) {
            cli_error("%s: grades[%zu].id: not a grade id (got %s)", path, i,
                      id ? id : "no string");
            json_decref(j);
            return 1;
        }
        if (o->ngrades == MAX_GRADES) {
            cli_error("%s: too many grades (at most %d)", path, MAX_GRADES);
            json_decref(j);
            return 1;
        }
        o->grades[o->ngrades++] = id;
    }
    *keep = j;
    return 0;
}

static void compare_text(const hopts *o, const hedge_rank *rk, size_t n)
{
    char b[8][32];
    printf("grades ranked for %s (%s; hedge effectiveness, then basis sd)\n", o->rent,
           hedge_freq_name(o->freq));
    printf("rank  grade                      n       h      HE      R2  basis mean  basis sd  "
           "sd chg  regr  offset\n");
    for (size_t i = 0; i < n; i++) {
        const hedge_analysis *a = &rk[i].a;
        if (!rk[i].ok) {
            printf("   -  %-22s  %s\n", rk[i].grade, rk[i].reason);
            continue;
        }
        printf("%4zu  %-22s %5zu  %6s  %6s  %6s  %10s  %8s  %6s  %4s  %6s\n", i + 1, rk[i].grade,
               a->n, hp_num(b[0], a->chg.b, 3), hp_num(b[1], a->he, 3), hp_num(b[2], a->chg.r2, 3),
               hp_num(b[3], a->basis.mean, 4), hp_num(b[4], a->basis.sd, 4),
               hp_num(b[5], a->basis.sd_change, 4), a->regtest.pass ? "pass" : "fail",
               a->offset.pass ? "pass" : "fail");
    }
}

static json_t *compare_json(const hopts *o, const hedge_rank *rk, size_t n)
{
    json_t *j = json_object(), *arr = json_array();
    json_object_set_new(j, "freq", json_string(hedge_freq_name(o->freq)));
    for (size_t i = 0; i < n; i++) {
        const hedge_analysis *a = &rk[i].a;
        json_t *g = json_object();
        json_object_set_new(g, "grade", json_string(rk[i].grade));
        json_object_set_new(g, "rank", rk[i].ok ? json_integer((json_int_t)i + 1) : json_null());
        if (!rk[i].ok) {
            json_object_set_new(g, "reason", json_string(rk[i].reason));
            json_array_append_new(arr, g);
            continue;
        }
        json_object_set_new(g, "n", json_integer((json_int_t)a->n));
        json_object_set_new(g, "n_changes", json_integer((json_int_t)a->n_changes));
        json_object_set_new(g, "h", hp_real(a->chg.b));
        json_object_set_new(g, "he", hp_real(a->he));
        json_object_set_new(g, "r2", hp_real(a->chg.r2));
        json_object_set_new(g, "nw_se_h", hp_real(a->nw_se_h));
        json_t *bs = json_object();
        json_object_set_new(bs, "mean", hp_real(a->basis.mean));
        json_object_set_new(bs, "sd", hp_real(a->basis.sd));
        json_object_set_new(bs, "sd_change", hp_real(a->basis.sd_change));
        json_object_set_new(g, "basis", bs);
        json_object_set_new(g, "regression_test_pass", json_boolean(a->regtest.pass));
        json_object_set_new(g, "dollar_offset", hp_real(a->offset.ratio));
        json_object_set_new(g, "dollar_offset_pass", json_boolean(a->offset.pass));
        json_t *wa = json_array();
        for (size_t k = 0; k < a->n_warnings; k++) json_array_append_new(wa, json_string(a->warnings[k]));
        json_object_set_new(g, "warnings", wa);
        json_array_append_new(arr, g);
    }
    json_object_set_new(j, "grades", arr);
    return j;
}

static int do_compare(cli_ctx *ctx, hopts *o)
{
    json_t *gfile = NULL;
    hedge_rent r;
    gpi_diag d = {{0}};
    if (o->grades_file && load_grade_ids(o->grades_file, o, &gfile)) return 1;
    gpi_status st = hedge_rent_load(o->rent, &r, &d);
    if (st != GPI_OK) {
        json_decref(gfile);
        return fail(st, &d);
    }
    store *db;
    int rc = open_db(ctx, &db);
    hedge_rank *rk = NULL;
    if (!rc) {
        st = hedge_compare(db, o->grades, o->ngrades, o->latest, &r, (hedge_freq)o->freq,
                           o->window, &rk, &d);
        store_close(db);
        if (st != GPI_OK) rc = fail(st, &d);
    }
    if (!rc && o->json) {
        json_t *j = compare_json(o, rk, o->ngrades);
        rc = hp_dump(stdout, j) == 0 ? 0 : 1;
        json_decref(j);
    } else if (!rc) {
        compare_text(o, rk, o->ngrades);
    }
    hedge_ranks_free(rk, rk ? o->ngrades : 0);
    hedge_rent_free(&r);
    json_decref(gfile);
    return rc;
}

int cmd_hedge(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_hedge, stderr);
        return 2;
    }
    if (cli_is_help(argv[1])) {
        fputs(usage_hedge, stdout);
        return 0;
    }
    int sub = strcmp(argv[1], "analyze") == 0    ? SUB_ANALYZE
              : strcmp(argv[1], "simulate") == 0 ? SUB_SIMULATE
              : strcmp(argv[1], "compare") == 0  ? SUB_COMPARE
                                                 : 0;
    if (!sub) {
        cli_error("hedge: unknown subcommand '%s'\n%s", argv[1], usage_hedge);
        return 2;
    }
    hopts o;
    int rc = parse_opts(sub, argc - 1, argv + 1, &o);
    if (rc >= 0) return rc;
    if (sub == SUB_ANALYZE) return do_analyze(ctx, &o);
    if (sub == SUB_SIMULATE) return do_simulate(ctx, &o);
    return do_compare(ctx, &o);
}
