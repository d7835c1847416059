/* cli/curve_backtest.c -- `gpuidx curve backtest`: each grade's curves of
 * the range (at the stored fixes) against what the months realised, and,
 * given the simulator's true term structure, against the true curve
 * (curve/backtest.h; METHODOLOGY.md "Term curve").
 *
 * Argument parsing, reading and printing only; the statistics are
 * curve/backtest.c's.
 */
#include "cli/curve_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/csv_reader.h"
#include "curve/backtest.h"
#include "store/index_values.h"

enum { BT_REALISED, BT_TRUE_FIX, BT_TRUE_PRICE, BT_N };
static const char *const bt_names[BT_N] = {"realised", "true curve at the fix",
                                           "true curve at the true price"};
static const char *const bt_keys[BT_N] = {"realised", "true_at_fix", "true_at_price"};

/* ---- the true term structure (simulate --truth's FILE-curve.csv) ----------- */

typedef struct truth_row {
    int32_t day;
    const char *gpu;          /* interned in tr.gpus */
    float fwd[CURVE_TENORS];
} truth_row;

typedef struct truth {
    truth_row *v;
    size_t n, cap;
    char **gpus;
    size_t n_gpus;
    int col[4];               /* date, gpu, tenor, forward_ratio */
    int header;
    const char *path;
} truth;

static const char *intern(truth *t, const char *g)
{
    for (size_t i = 0; i < t->n_gpus; i++)
        if (strcmp(t->gpus[i], g) == 0) return t->gpus[i];
    char **x = realloc(t->gpus, (t->n_gpus + 1) * sizeof *x);
    if (!x) return NULL;
    t->gpus = x;
    t->gpus[t->n_gpus] = strdup(g);
    return t->gpus[t->n_gpus] ? t->gpus[t->n_gpus++] : NULL;
}

static gpi_status truth_row_cb(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    truth *t = ud;
    static const char *const names[4] = {"date", "gpu", "tenor", "forward_ratio"};
    if (!t->header) {
        for (int k = 0; k < 4; k++) {
            t->col[k] = -1;
            for (int i = 0; i < n; i++)
                if (strcmp(f[i], names[k]) == 0) t->col[k] = i;
            if (t->col[k] < 0)
                return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: no column %s (the true term structure "
                                                   "of gpuidx simulate --truth)",
                                    t->path, line, names[k]);
        }
        t->header = 1;
        return GPI_OK;
    }
    int32_t day;
    const char *gpu = t->col[1] < n ? f[t->col[1]] : "";
    long k = t->col[2] < n ? strtol(f[t->col[2]], NULL, 10) : 0;
    if (gpi_date_parse(t->col[0] < n ? f[t->col[0]] : "", &day) || k < 1 || k > CURVE_TENORS)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: not a row of the true term structure", t->path, line);
    const char *g = intern(t, gpu);
    if (!g) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (!t->n || t->v[t->n - 1].day != day || t->v[t->n - 1].gpu != g) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 1024;
            truth_row *x = realloc(t->v, cap * sizeof *x);
            if (!x) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            t->v = x;
            t->cap = cap;
        }
        truth_row *r = &t->v[t->n++];
        r->day = day;
        r->gpu = g;
        for (int i = 0; i < CURVE_TENORS; i++) r->fwd[i] = NAN;
    }
    t->v[t->n - 1].fwd[k - 1] = strtof(t->col[3] < n ? f[t->col[3]] : "", NULL);
    return GPI_OK;
}

static const truth_row *truth_at(const truth *t, int32_t day, const char *gpu)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].day == day && strcmp(t->v[i].gpu, gpu) == 0) return &t->v[i];
    return NULL;
}

static void truth_free(truth *t)
{
    for (size_t i = 0; i < t->n_gpus; i++) free(t->gpus[i]);
    free(t->gpus);
    free(t->v);
}

/* ---- true prices (index show of the true prices' database) ------------------ */

typedef struct tvalues {
    int32_t *day;
    char **grade;
    int64_t *v;
    size_t n, cap;
    int col[3];
    int header;
    const char *path;
} tvalues;

static gpi_status tv_row(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    tvalues *t = ud;
    static const char *const names[3] = {"date", "grade", "value"};
    if (!t->header) {
        for (int k = 0; k < 3; k++) {
            t->col[k] = -1;
            for (int i = 0; i < n; i++)
                if (strcmp(f[i], names[k]) == 0) t->col[k] = i;
            if (t->col[k] < 0)
                return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: no column %s (index show's CSV)",
                                    t->path, line, names[k]);
        }
        t->header = 1;
        return GPI_OK;
    }
    const char *val = t->col[2] < n ? f[t->col[2]] : "";
    if (!*val) return GPI_OK;
    int32_t day;
    gpi_dec x;
    if (gpi_date_parse(t->col[0] < n ? f[t->col[0]] : "", &day) || gpi_dec_parse(val, &x))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: not a row of index show's CSV", t->path, line);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        int32_t *a = realloc(t->day, cap * sizeof *a);
        if (a) t->day = a;
        char **b = realloc(t->grade, cap * sizeof *b);
        if (b) t->grade = b;
        int64_t *c = realloc(t->v, cap * sizeof *c);
        if (c) t->v = c;
        if (!a || !b || !c) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        t->cap = cap;
    }
    t->day[t->n] = day;
    t->grade[t->n] = strdup(t->col[1] < n ? f[t->col[1]] : "");
    t->v[t->n] = gpi_dec_to_units(x, 4);
    if (!t->grade[t->n]) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    t->n++;
    return GPI_OK;
}

static int64_t tv_at(const tvalues *t, int32_t day, const char *grade)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->day[i] == day && strcasecmp(t->grade[i], grade) == 0) return t->v[i];
    return -1;
}

static void tv_free(tvalues *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->grade[i]);
    free(t->day);
    free(t->grade);
    free(t->v);
}

static gpi_status read_csv(const char *path, gpi_csv_row_fn fn, void *ud, gpi_diag *d)
{
    char *text = NULL;
    size_t len = 0;
    gpi_status rc = gpi_text_read(path, 1024, &text, &len, d);
    if (rc == GPI_OK) rc = gpi_csv_read_text(path, text, len, fn, ud, d);
    free(text);
    return rc;
}

/* ---- the command ------------------------------------------------------------ */

int cc_curve_backtest(cli_ctx *ctx, int argc, char **argv)
{
    const char *from_s = NULL, *to_s = NULL, *grades = NULL, *truth_path = NULL, *tv_path = NULL;
    int csv = 0, n_ids = 0;
    const char **ids = calloc((size_t)argc + 1, sizeof *ids);
    if (!ids) return 1;
    cli_opt_spec spec[] = {{"--from", &from_s, NULL},  {"--to", &to_s, NULL},
                           {"--grades", &grades, NULL}, {"--grade", NULL, NULL},
                           {"--truth", &truth_path, NULL}, {"--truth-values", &tv_path, NULL},
                           {"--csv", NULL, &csv},       {NULL, NULL, NULL}};
    cc_grade_ids gi = {ids, &n_ids};
    const cli_args args = {"curve backtest", "curve backtest", "curve backtest", spec,
                           cc_take_grade, &gi, NULL, 0, NULL, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    int32_t from = 0, to = 0;
    if (ec < 0 && (!from_s || !to_s)) {
        cli_error("curve backtest: --from and --to are required");
        ec = 2;
    }
    if (ec < 0 && (gpi_date_parse(from_s, &from) || gpi_date_parse(to_s, &to) || to < from)) {
        cli_error("curve backtest: --from and --to: two dates YYYY-MM-DD, in order");
        ec = 2;
    }
    if (ec < 0 && tv_path && !truth_path) {
        cli_error("curve backtest: --truth-values needs --truth");
        ec = 2;
    }
    if (ec < 0 && !cli_have_db(ctx, "curve backtest")) ec = 1;
    if (ec >= 0) {
        free(ids);
        return ec;
    }
    gpi_diag d = {{0}};
    store *st = NULL;
    cc_grades sel;
    memset(&sel, 0, sizeof sel);
    truth tr;
    memset(&tr, 0, sizeof tr);
    tr.path = truth_path;
    tvalues tv;
    memset(&tv, 0, sizeof tv);
    tv.path = tv_path;
    gpi_status rc = store_open_read(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = cc_grades_load(ctx, st, grades, ids, (size_t)n_ids, &sel, &d);
    if (rc == GPI_OK && truth_path) rc = read_csv(truth_path, truth_row_cb, &tr, &d);
    if (rc == GPI_OK && tv_path) rc = read_csv(tv_path, tv_row, &tv, &d);
    size_t ng = sel.gs ? sel.gs->n : 0;
    curve_bt_stat *stat = calloc((ng ? ng : 1) * CURVE_TENORS * BT_N, sizeof *stat);
    gpi_index_day **vals = calloc(ng ? ng : 1, sizeof *vals);
    size_t *nv = calloc(ng ? ng : 1, sizeof *nv);
    long *days = calloc(ng ? ng : 1, sizeof *days);
    if (rc == GPI_OK && (!stat || !vals || !nv || !days))
        rc = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
    for (size_t g = 0; g < ng && rc == GPI_OK; g++)
        rc = store_index_series(st, sel.gs->g[g].id, from, to + 40 * 31, 0, &vals[g], &nv[g], &d);
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        curve_set s;
        int missing = 0;
        rc = cc_curve_day(st, sel.gs, day, NULL, 0, &s, &missing, &d);
        if (rc != GPI_OK) break;
        for (size_t g = 0; g < ng; g++) {
            const curve_result *r = &s.g[g].r;
            const idx_grade *gd = &sel.gs->g[g];
            if (r->front_e4 < 0 || !r->n_used) continue;
            days[g]++;
            const truth_row *t = truth_path && gd->n_gpu == 1 ? truth_at(&tr, day, gd->gpu[0]) : NULL;
            int64_t tp = tv_path ? tv_at(&tv, day, gd->id) : -1;
            for (int k = 0; k < CURVE_TENORS; k++) {
                if (r->t[k].status == CURVE_WITHHELD) continue;
                double f = (double)r->t[k].fwd_e4 / 1e4;
                curve_bt_stat *sk = &stat[(g * CURVE_TENORS + (size_t)k) * BT_N];
                int64_t real = curve_bt_realised(day, k + 1, vals[g], nv[g]);
                if (real > 0) curve_bt_add(&sk[BT_REALISED], f, (double)real / 1e4);
                if (t && !isnan(t->fwd[k])) {
                    curve_bt_add(&sk[BT_TRUE_FIX], f, (double)r->front_e4 / 1e4 * t->fwd[k]);
                    if (tp > 0) curve_bt_add(&sk[BT_TRUE_PRICE], f, (double)tp / 1e4 * t->fwd[k]);
                }
            }
        }
        curve_set_free(&s);
    }
    if (rc == GPI_OK) {
        char a[11], b[11], n1[32], n2[32], n3[32];
        gpi_date_format(from, a);
        gpi_date_format(to, b);
        if (csv) printf("grade,tenor,against,n,bias_pct,rmse_pct,within_3pct_pct\n");
        for (size_t g = 0; g < ng; g++) {
            const char *id = sel.gs->g[g].id;
            if (!csv)
                printf("%s %s..%s: %ld curves with a tenor\n  tenor", id, a, b, days[g]);
            for (int m = 0; m < BT_N && !csv; m++)
                if (m == 0 || (m == 1 && truth_path) || (m == 2 && tv_path))
                    printf("   | %s: n, bias %%, RMSE %%, within 3 %%", bt_names[m]);
            if (!csv) printf("\n");
            for (int k = 0; k < CURVE_TENORS; k++) {
                const curve_bt_stat *sk = &stat[(g * CURVE_TENORS + (size_t)k) * BT_N];
                if (!sk[0].n && !sk[1].n && !sk[2].n) continue;
                if (!csv) printf("  %5d", k + 1);
                for (int m = 0; m < BT_N; m++) {
                    if ((m == 1 && !truth_path) || (m == 2 && !tv_path)) continue;
                    const curve_bt_stat *x = &sk[m];
                    if (csv) {
                        if (!x->n) continue;
                        printf("%s,%d,%s,%ld,%s,%s,%s\n", id, k + 1, bt_keys[m], x->n,
                               cli_num(n1, 100 * curve_bt_bias(x), 2),
                               cli_num(n2, 100 * curve_bt_rmse(x), 2),
                               cli_num(n3, 100 * curve_bt_within(x), 1));
                    } else if (x->n) {
                        printf("   | %5ld %7s %6s %6s", x->n, cli_num(n1, 100 * curve_bt_bias(x), 2),
                               cli_num(n2, 100 * curve_bt_rmse(x), 2),
                               cli_num(n3, 100 * curve_bt_within(x), 1));
                    } else {
                        printf("   | %5s %7s %6s %6s", "0", "", "", "");
                    }
                }
                if (!csv) printf("\n");
            }
        }
    }
    for (size_t g = 0; g < ng && vals; g++) free(vals[g]);
    free(vals);
    free(nv);
    free(days);
    free(stat);
    truth_free(&tr);
    tv_free(&tv);
    cc_grades_free(&sel);
    store_close(st);
    free(ids);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(rc);
    }
    return 0;
}
