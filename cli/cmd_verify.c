/* cli/cmd_verify.c -- `gpuidx verify`: published days recomputed from their
 * files alone (verify/), and settlement prices from published days.
 *
 * Argument parsing and printing only.  Output to stdout, one line per
 * grade-day ("2025-12-31 H100-SXM.OD.GOLD+: ok"), then a summary line;
 * messages to stderr.  No database is opened.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sig.h"
#include "settlement/settlement.h"
#include "verify/verify.h"

/* DIR/D -> DIR and D; 0 when path does not end in a date. */
static int split_day(const char *path, char *dir, size_t n, int32_t *day)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    if (len < 10) return 0;
    char date[11];
    memcpy(date, path + len - 10, 10);
    date[10] = '\0';
    if (gpi_date_parse(date, day)) return 0;
    size_t dl = len - 10;
    if (dl > 0 && path[dl - 1] != '/') return 0;
    while (dl > 1 && path[dl - 1] == '/') dl--;
    if (dl == 0) {
        snprintf(dir, n, ".");
    } else {
        if (dl >= n) return 0;
        memcpy(dir, path, dl);
        dir[dl] = '\0';
    }
    return 1;
}

typedef struct tally {
    long days, rows, ok, partial, differ;
    long sig[VERIFY_SIG_BAD + 1];   /* days by signature verdict */
    long curves, c_ok, c_partial, c_differ; /* file format 4: the term curves */
} tally;

/* What a day is checked with besides its files. */
typedef struct extra {
    const unsigned char *key;       /* --key's raw public key, or NULL */
    verify_inputs *inputs;          /* --inputs, or NULL */
} extra;

static gpi_status verify_one(verify_dir *v, int32_t day, const extra *x, tally *t, gpi_diag *d)
{
    verify_day_report r;
    gpi_status rc = verify_day(v, day, &r, d);
    if (rc == GPI_OK && x->inputs) rc = verify_inputs_day(x->inputs, v, day, &r, d);
    int verdict = 0;
    char words[400];
    if (rc == GPI_OK) rc = verify_day_signature(v, day, x->key, &verdict, words, sizeof words, d);
    if (rc != GPI_OK) {
        verify_day_report_free(&r);
        return rc;
    }
    char date[11];
    gpi_date_format(day, date);
    t->days++;
    t->sig[verdict]++;
    if (VERIFY_SIG_FAILED(verdict)) {
        printf("%s: DIFFERS %s\n", date, words);
        t->differ++;
    } else if (verdict != VERIFY_SIG_UNSIGNED) {
        printf("%s: %s\n", date, words);
    }
    if (r.file_note[0]) {
        printf("%s: DIFFERS %s\n", date, r.file_note);
        t->differ++;
    }
    if (r.partial_note[0]) {
        printf("%s: ok; %s\n", date, r.partial_note);
        t->partial++;
    }
    for (size_t i = 0; i < r.n; i++) {
        const verify_result *g = &r.g[i];
        char who[96]; /* an older vintage is named */
        if (g->latest) snprintf(who, sizeof who, "%s %s", date, g->grade);
        else snprintf(who, sizeof who, "%s v%d %s", date, g->vintage, g->grade);
        t->rows++;
        if (g->status == VERIFY_DIFFERS) {
            printf("%s: DIFFERS %s\n", who, g->differs);
            t->differ++;
        } else if (g->status == VERIFY_PARTIAL) {
            printf("%s: ok; %s\n", who, g->unverified);
            t->partial++;
        } else {
            printf("%s: ok\n", who);
            t->ok++;
        }
    }
    /* file format 4: the term curve of each grade (verify/curve.c) */
    if (r.curve_note[0]) {
        printf("%s curve: DIFFERS %s\n", date, r.curve_note);
        t->c_differ++;
    }
    for (size_t i = 0; i < r.n_curves; i++) {
        const verify_result *g = &r.curves[i];
        t->curves++;
        if (g->status == VERIFY_DIFFERS) {
            printf("%s %s curve: DIFFERS %s\n", date, g->grade, g->differs);
            t->c_differ++;
        } else if (g->status == VERIFY_PARTIAL) {
            printf("%s %s curve: ok; %s\n", date, g->grade, g->unverified);
            t->c_partial++;
        } else {
            printf("%s %s curve: ok\n", date, g->grade);
            t->c_ok++;
        }
    }
    verify_day_report_free(&r);
    return GPI_OK;
}

/* Compares computed prices with a `gpuidx settle` output (design: the same
 * CSV); prints one line per contract. */
static int compare_against(const char *path, const settle_contract *c, const settle_result *r)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("%s: cannot open", path);
        return -1;
    }
    char line[512];
    long ln = 0, found = 0;
    int bad = 0;
    for (size_t i = 0; i < r->n && !bad; i++) {
        char date[11], want[96], price[32] = "";
        gpi_date_format(r->rows[i].day, date);
        if (r->rows[i].kind != SETTLE_INSUFFICIENT)
            gpi_fixed_format(r->rows[i].price_units, c->tick.scale, price);
        snprintf(want, sizeof want, "%s,%s,%s,%s", date, c->symbol, price,
                 settle_row_kind(&r->rows[i]));
        char key[64];
        snprintf(key, sizeof key, "%s,%s,", date, c->symbol);
        int seen = 0;
        rewind(f);
        ln = 0;
        while (fgets(line, sizeof line, f)) {
            ln++;
            line[strcspn(line, "\r\n")] = '\0';
            if (strncmp(line, key, strlen(key)) != 0) continue;
            const char *kind = strrchr(line, ',');
            if (!kind || strcmp(kind + 1, settle_row_kind(&r->rows[i])) != 0) continue;
            seen = 1;
            if (strcmp(line, want) != 0) {
                printf("%s: DIFFERS %s:%ld: \"%s\", recomputed \"%s\"\n", c->symbol, path, ln,
                       line, want);
                bad = 1;
            }
            break;
        }
        if (!seen && !bad) {
            printf("%s: DIFFERS %s has no row \"%s\"\n", c->symbol, path, want);
            bad = 1;
        }
        found++;
    }
    fclose(f);
    if (!bad) printf("%s: ok (%ld settlement prices)\n", c->symbol, found);
    return bad;
}

/* --max-file-mib, in bytes (set by cmd_verify before any DIR is opened) */
static size_t max_file;

static gpi_status open_dir(const char *dir, verify_dir **v, gpi_diag *d)
{
    gpi_status rc = verify_dir_open(dir, v, d);
    if (rc == GPI_OK) verify_dir_set_max_file(*v, max_file);
    return rc;
}

static int settlement(int argc, char **argv, const char *contracts, const char *symbol,
                      const char *through_s, const char *against, const char *dir)
{
    (void)argc;
    (void)argv;
    if (!contracts || !dir) {
        cli_error("verify --settlement: --contracts and DIR are required");
        return 2;
    }
    int32_t through = INT32_MAX;
    const char *why;
    if (through_s && (why = gpi_date_parse(through_s, &through))) {
        cli_error("--through: %s (got \"%s\")", why, through_s);
        return 2;
    }
    gpi_diag d = {{0}};
    settle_contract *cs = NULL;
    size_t nc = 0;
    verify_dir *v = NULL;
    gpi_status rc = settle_contracts_load(contracts, NULL, NULL, &cs, &nc, &d);
    if (rc == GPI_OK) rc = open_dir(dir, &v, &d);
    int bad = 0, any = 0;
    for (size_t i = 0; i < nc && rc == GPI_OK; i++) {
        if (symbol && strcmp(symbol, cs[i].symbol) != 0) continue;
        any = 1;
        settle_result r;
        rc = verify_settlement(v, &cs[i], through, &r, &d);
        if (rc != GPI_OK) break;
        /* the days it settles on are verified too, each kept vintage (a
         * one-tick edit of a vintage 1 used to settle without a word) */
        int32_t first = settle_listing_day(&cs[i]), last = settle_last_day(&cs[i]);
        if (through < last) last = through;
        for (int32_t day = first; day <= last && rc == GPI_OK; day++) {
            verify_day_report vr;
            rc = verify_day(v, day, &vr, &d);
            if (rc != GPI_OK) break;
            char date[11];
            gpi_date_format(day, date);
            const char *diff = vr.file_note[0] ? vr.file_note : NULL;
            for (size_t k = 0; k < vr.n && !diff; k++)
                if (vr.g[k].status == VERIFY_DIFFERS) diff = vr.g[k].differs;
            if (diff) {
                printf("%s: DIFFERS %s/%s, a day it settles on: %s\n", cs[i].symbol, dir, date,
                       diff);
                bad = 1;
            }
            verify_day_report_free(&vr);
            verify_dir_forget_before(v, day - 64);
        }
        if (rc != GPI_OK) {
            settle_result_free(&r);
            break;
        }
        if (through < settle_listing_day(&cs[i])) { /* any day: nothing listed yet */
            char t[11], l[11];
            gpi_date_format(through, t);
            gpi_date_format(settle_listing_day(&cs[i]), l);
            fprintf(against ? stdout : stderr, "%s: not listed by %s (trading from %s): no "
                    "settlement price to verify\n", cs[i].symbol, t, l);
        } else if (against) {
            int b = compare_against(against, &cs[i], &r);
            if (b < 0) rc = GPI_EINPUT;
            bad |= b != 0;
        } else {
            for (size_t k = 0; k < r.n; k++) {
                char date[11], price[32] = "";
                gpi_date_format(r.rows[k].day, date);
                if (r.rows[k].kind != SETTLE_INSUFFICIENT)
                    gpi_fixed_format(r.rows[k].price_units, cs[i].tick.scale, price);
                printf("%s,%s,%s,%s\n", date, cs[i].symbol, price,
                       settle_row_kind(&r.rows[k]));
            }
        }
        settle_result_free(&r);
    }
    if (rc == GPI_OK && symbol && !any) {
        const char **names = malloc((nc ? nc : 1) * sizeof *names);
        char near[256] = "";
        for (size_t i = 0; names && i < nc; i++) names[i] = cs[i].symbol;
        if (names) cli_suggest(symbol, names, nc, near, sizeof near);
        free(names);
        cli_error("verify --settlement: no contract %s in %s%s%s%s", symbol, contracts,
                  near[0] ? " (did you mean " : "", near, near[0] ? "?)" : "");
        rc = GPI_EUSAGE;
    }
    if (rc != GPI_OK && d.msg[0]) cli_error("%s", d.msg);
    verify_dir_close(v);
    free(cs);
    if (rc != GPI_OK) return gpi_exit_code(rc);
    return bad ? 1 : 0;
}

/* DIR/restatements.csv's signature (verify/sign.c note 4): said when
 * signed or failed, a failure counted as a difference. */
static void restatements_signature(verify_dir *v, const unsigned char *key, tally *t)
{
    char words[400];
    int verdict = verify_restatements_signature(v, key, words, sizeof words);
    if (VERIFY_SIG_FAILED(verdict)) {
        printf("restatements.csv: DIFFERS %s\n", words);
        t->differ++;
    } else if (verdict != VERIFY_SIG_UNSIGNED) {
        printf("restatements.csv: %s\n", words);
    }
}

int cmd_verify(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    const char *contracts = NULL, *symbol = NULL, *through = NULL, *against = NULL,
               *max_mib = NULL;
    const char *key_path = NULL, *raw = NULL;
    int strict = 0, settle = 0, n_paths = 0;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) return 1;
    const cli_opt_spec spec[] = {{"--strict", NULL, &strict},      {"--settlement", NULL, &settle},
                                 {"--contracts", &contracts, NULL}, {"--symbol", &symbol, NULL},
                                 {"--through", &through, NULL},     {"--against", &against, NULL},
                                 {"--key", &key_path, NULL},        {"--inputs", &raw, NULL},
                                 {"--max-file-mib", &max_mib, NULL}, {NULL, NULL, NULL}};
    const cli_args args = {"verify", "verify", "verify", spec, NULL, NULL, paths, argc, &n_paths, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) {
        free(paths);
        return ec;
    }
    if ((key_path || raw) && (contracts || settle)) {
        cli_error("verify: --key and --inputs do not go with --settlement");
        free(paths);
        return 2;
    }
    max_file = 0;
    if (max_mib) {
        char *end = NULL;
        long m = strtol(max_mib, &end, 10);
        if (!*max_mib || *end || m < 1 || m > 65536) {
            cli_error("--max-file-mib: a number of MiB from 1 to 65536 (got \"%s\")", max_mib);
            free(paths);
            return 2;
        }
        max_file = (size_t)m << 20;
    }
    if (settle) {
        int rc = n_paths == 1 ? settlement(argc, argv, contracts, symbol, through, against, paths[0])
                              : (cli_error("verify --settlement: one DIR"), 2);
        free(paths);
        return rc;
    }
    if (contracts || symbol || through || against) {
        cli_error("verify: --contracts, --symbol, --through and --against go with --settlement");
        free(paths);
        return 2;
    }
    if (n_paths == 0) {
        cli_help_print(stderr, "verify");
        free(paths);
        return 2;
    }
    gpi_diag d = {{0}};
    gpi_status rc = GPI_OK;
    tally t = {0};
    char dir[4096];
    unsigned char key[32];
    extra x = {NULL, NULL};
    if (key_path) {
        rc = gpi_sig_public_key(key_path, key, &d);
        if (rc != GPI_OK) {
            cli_error("verify: --key %s", d.msg);
            free(paths);
            return 2;
        }
        x.key = key;
    }
    if (raw) rc = verify_inputs_open(raw, cli_data_dir(ctx), &x.inputs, &d);
    for (int p = 0; p < n_paths && rc == GPI_OK; p++) {
        int32_t day;
        verify_dir *v = NULL;
        if (split_day(paths[p], dir, sizeof dir, &day)) {
            rc = open_dir(dir, &v, &d);
            if (rc == GPI_OK && x.inputs) rc = verify_inputs_prepare(x.inputs, v, &day, 1, &d);
            if (rc == GPI_OK) rc = verify_one(v, day, &x, &t, &d);
        } else {
            int32_t *days = NULL;
            size_t n = 0;
            rc = open_dir(paths[p], &v, &d);
            if (rc == GPI_OK) rc = verify_dir_days(v, &days, &n, &d);
            if (rc == GPI_OK && n == 0)
                rc = gpi_diag_set(&d, GPI_EINPUT, "%s: no published day (DIR/YYYY-MM-DD/index.json)",
                                  paths[p]);
            /* the files of every day, re-ingested in their order first */
            if (rc == GPI_OK && x.inputs) rc = verify_inputs_prepare(x.inputs, v, days, n, &d);
            for (size_t k = 0; k < n && rc == GPI_OK; k++) {
                rc = verify_one(v, days[k], &x, &t, &d);
                /* what the next days can still need: the adjustment window */
                verify_dir_forget_before(v, days[k] - 64);
            }
            free(days);
            if (rc == GPI_OK) { /* the folder as a whole */
                char diff[2048], part[1024];
                long lines = 0;
                verify_dir_forget_before(v, INT32_MAX);
                rc = verify_dir_restatements(v, diff, sizeof diff, part, sizeof part, &lines, &d);
                if (rc == GPI_OK && diff[0]) {
                    printf("restatements.csv: DIFFERS %s\n", diff);
                    t.differ++;
                } else if (rc == GPI_OK && part[0]) {
                    printf("restatements.csv: ok; %s\n", part);
                    t.partial++;
                } else if (rc == GPI_OK) {
                    printf("restatements.csv: ok (%ld restatement%s)\n", lines,
                           lines == 1 ? "" : "s");
                }
            }
            if (rc == GPI_OK) restatements_signature(v, x.key, &t);
        }
        verify_dir_close(v);
    }
    free(paths);
    size_t n_raw = 0, unused = x.inputs ? verify_inputs_unused(x.inputs, &n_raw) : 0;
    verify_inputs_close(x.inputs);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(rc);
    }
    if (t.curves || t.c_differ)
        printf("verify: %ld term curve%s: %ld ok, %ld ok but not fully verifiable, %ld differ\n",
               t.curves, t.curves == 1 ? "" : "s", t.c_ok, t.c_partial, t.c_differ);
    printf("verify: %ld day%s, %ld grade-day%s: %ld ok, %ld ok but not fully verifiable, "
           "%ld differ\n",
           t.days, t.days == 1 ? "" : "s", t.rows, t.rows == 1 ? "" : "s", t.ok, t.partial,
           t.differ);
    long signed_days = t.sig[VERIFY_SIG_OK] + t.sig[VERIFY_SIG_UNCHECKED];
    if (signed_days || key_path)
        printf("verify: signatures: %ld day%s signed and checked, %ld signed not checked (no "
               "--key), %ld unsigned, %ld failed\n",
               t.sig[VERIFY_SIG_OK], t.sig[VERIFY_SIG_OK] == 1 ? "" : "s",
               t.sig[VERIFY_SIG_UNCHECKED], t.sig[VERIFY_SIG_UNSIGNED],
               t.days - signed_days - t.sig[VERIFY_SIG_UNSIGNED]);
    if (raw)
        printf("verify: inputs: %zu file%s in %s, %zu committed by no verified day\n", n_raw,
               n_raw == 1 ? "" : "s", raw, unused);
    return t.differ || t.c_differ || (strict && (t.partial || t.c_partial)) ? 1 : 0;
}
