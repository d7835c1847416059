/* cli/cmd_settle.c -- `gpuidx settle`: settlement prices and margin ledger.
 *
 * Reads the contract file (grades checked against the database), reads
 * each contract's index series from the store (values as first published,
 * or restated with --latest), settles it with settlement/, and prints
 * `date,symbol,settlement_price,kind` to stdout.  With --positions the
 * variation-margin ledger, a table of its own, goes to --ledger FILE (one
 * header and one field count per file: two tables in one stream loaded
 * nowhere).
 *
 * Each contract is settled as far as its index is built, on its own: one
 * line per contract on stderr says settled (the final settlement price),
 * provisional (the month is not over at --through, or the index is not
 * built to its end: daily prices up to the last built day),
 * insufficient (the month is over with too few values) or suspended (its
 * grade ceased and the contract's fallback is suspension), with the
 * reason.  A contract whose grade ceased settles on its fallback
 * (settlement/fallback.c): a line before its status says from when.
 * A contract that cannot settle yet does not stop the others; the exit
 * status is 1 only for what no settlement can be made of: an unreadable
 * or wrong input (contract file -- a tick too coarse for the grade's
 * values included --, positions file, database) or a ledger amount that
 * overflows.  Nothing is printed to stdout, and no --ledger file is
 * written, unless every table is made.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settlement/settlement.h"
#include "store/store.h"
#include "store/grades.h"
#include "store/index_values.h"

/* The database, and the first grade of the contract file it does not
 * know (for the did-you-mean after the contract parser's message). */
typedef struct grade_check {
    store *db;
    char unknown[SETTLE_GRADE_MAX + 1];
} grade_check;

static gpi_status grade_known(const char *grade, int *known, void *ud, gpi_diag *d)
{
    grade_check *g = ud;
    gpi_status rc = store_grade_exists(g->db, grade, known, d);
    if (rc == GPI_OK && !*known && !g->unknown[0])
        snprintf(g->unknown, sizeof g->unknown, "%s", grade);
    return rc;
}

static void print_prices(FILE *f, const settle_contract *c, const settle_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        char day[11], price[32];
        gpi_date_format(r->rows[i].day, day);
        if (r->rows[i].kind == SETTLE_INSUFFICIENT)
            price[0] = '\0';
        else
            gpi_fixed_format(r->rows[i].price_units, c->tick.scale, price);
        fprintf(f, "%s,%s,%s,%s\n", day, c->symbol, price, settle_row_kind(&r->rows[i]));
    }
}

/* Ledger of contract ci: dates ascending, positions in file order within a
 * date (final rows after the last day's daily rows). */
static gpi_status print_ledger(FILE *f, const settle_contract *cs, size_t ci,
                               const settle_result *r, const settle_position *pos, size_t np,
                               gpi_diag *d)
{
    const settle_contract *c = &cs[ci];
    settle_ledger_row **rows = calloc(np ? np : 1, sizeof *rows);
    size_t *nrows = calloc(np ? np : 1, sizeof *nrows);
    gpi_status st = GPI_OK;
    if (!rows || !nrows) {
        st = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        goto done;
    }
    size_t maxn = 0;
    for (size_t j = 0; j < np; j++) {
        if (pos[j].contract != ci) continue;
        int64_t entry;
        st = settle_ledger(c, r, &pos[j], &rows[j], &nrows[j], &entry, d);
        if (st != GPI_OK) goto done;
        if (nrows[j] > maxn) maxn = nrows[j];
    }
    /* every position of the contract has the same row dates */
    for (size_t k = 0; k < maxn; k++)
        for (size_t j = 0; j < np; j++) {
            if (pos[j].contract != ci || k >= nrows[j]) continue;
            const settle_ledger_row *lr = &rows[j][k];
            char day[11], price[32];
            gpi_date_format(lr->day, day);
            gpi_fixed_format(lr->price_units, c->tick.scale, price);
            fprintf(f, "%s,", day);
            gpi_csv_text(f, pos[j].account); /* no formula cells */
            fprintf(f, ",%s,%lld,%s,%lld\n", c->symbol, (long long)pos[j].contracts, price,
                    (long long)lr->variation_cents);
        }
done:
    if (rows)
        for (size_t j = 0; j < np; j++) free(rows[j]);
    free(rows);
    free(nrows);
    return st;
}

/* What became of one contract (design note at the top). */
enum { ST_SETTLED, ST_PROVISIONAL, ST_INSUFFICIENT, ST_SUSPENDED };
static const char *const status_name[] = {"settled", "provisional", "insufficient", "suspended"};

typedef struct outcome {
    int status;
    char why[512];
    char fallback[512]; /* what the contract's fallback did (settlement/fallback.c), or "" */
} outcome;

/* The contract's fallback line and status line and its positions' notes,
 * on stderr. */
static void notes(const settle_contract *c, const settle_result *r, const outcome *oc,
                  const settle_position *pos, size_t np, size_t ci)
{
    if (oc->fallback[0]) cli_error("%s", oc->fallback);
    fprintf(stderr, "settle: %s: %s: %s\n", c->symbol, status_name[oc->status], oc->why);
    int has_daily = 0;
    for (size_t i = 0; i < r->n; i++) has_daily |= r->rows[i].kind == SETTLE_DAILY;
    for (size_t j = 0; j < np; j++) {
        if (pos[j].contract != ci) continue;
        if (!has_daily)
            cli_error("%s: account %s: no settlement price yet; position not entered",
                      c->symbol, pos[j].account);
        else if (oc->status == ST_INSUFFICIENT || oc->status == ST_SUSPENDED)
            cli_error("%s: account %s: %lld contracts stay open (no final settlement price)",
                      c->symbol, pos[j].account, (long long)pos[j].contracts);
    }
}

/* The first settlement day of c in [from, to] (every day; with fsp_days
 * business, Monday-Friday less the holidays) the series days[0..n)
 * (ascending) lacks, or INT32_MAX; every_day: every calendar day counts
 * (a fallback grade's series, settlement/fallback.c). */
static int32_t first_missing(const settle_contract *c, const gpi_index_day *days, size_t n,
                             int32_t from, int32_t to, int every_day)
{
    size_t j = 0;
    for (int32_t t = from; t <= to; t++) {
        while (j < n && days[j].day < t) j++;
        if ((every_day || settle_is_day(c, t)) && (j >= n || days[j].day != t)) return t;
    }
    return INT32_MAX;
}

/* A contract with a fallback (settlement/fallback.c note 1): its grade's
 * series extended, when the grade is dropped, with a suspended day for
 * every day after its last row up to end; and the fallback grade's
 * series (rule grade). */
static gpi_status ceased_series(store *db, const settle_contract *c, int32_t end, int latest,
                                gpi_index_day **series, size_t *n, gpi_index_day **fb,
                                size_t *n_fb, gpi_diag *d)
{
    int dropped = 0;
    gpi_status st = store_grade_dropped(db, c->grade, &dropped, d);
    if (st == GPI_OK && dropped) {
        int32_t from = *n ? (*series)[*n - 1].day + 1 : settle_listing_day(c);
        if (from <= end) {
            gpi_index_day *p = realloc(*series, (*n + (size_t)(end - from + 1)) * sizeof *p);
            if (!p) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            *series = p;
            for (int32_t t = from; t <= end; t++)
                p[(*n)++] = (gpi_index_day){t, GPI_LEVEL_SUSPENDED, -1};
        }
    }
    if (st == GPI_OK && c->fallback.rule == SETTLE_FB_GRADE)
        st = store_index_series(db, c->fallback.grade, INT32_MIN, end, latest, fb, n_fb, d);
    return st;
}

/* Settles c on series[0..n) (and its fallback's fb[0..n_fb)) through upto
 * with settlement/fallback.c.  A fallback grade not built on a day it is
 * needed (from the cessation on) settles c through the day before, and
 * *fb_gap names that day (else INT32_MAX). */
static gpi_status run_one(const settle_contract *c, const gpi_index_day *series, size_t n,
                          const gpi_index_day *fb, size_t n_fb, int32_t upto, settle_result *res,
                          settle_fb_note *note, int32_t *fb_gap, gpi_diag *d)
{
    *fb_gap = INT32_MAX;
    gpi_status st = settle_run_fallback(c, series, n, fb, n_fb, upto, res, note, d);
    if (st == GPI_EINPUT && note->applied && c->fallback.rule == SETTLE_FB_GRADE) {
        int32_t gap = first_missing(c, fb, n_fb, note->start, upto, 1);
        if (gap == INT32_MAX) return st; /* not the fallback's days: the error stands */
        *fb_gap = gap;
        d->msg[0] = '\0';
        st = settle_run_fallback(c, series, n, fb, n_fb, gap - 1, res, note, d);
    }
    return st;
}

/* Settles contract c from the store as far as its index (and its
 * fallback's, when it ceased) is built (through `through` at most): the
 * prices into *res, the status into *oc.  Errors are the store's and the
 * contract's own (a tick too coarse, a fallback last_value with no value
 * to repeat). */
static gpi_status settle_one(store *db, const settle_contract *c, int32_t through, int latest,
                             settle_result *res, outcome *oc, gpi_diag *d)
{
    memset(res, 0, sizeof *res);
    int32_t listing = settle_listing_day(c), last = settle_last_day(c);
    int32_t end = through < last ? through : last;
    char month[8], a[11], b[11];
    snprintf(month, sizeof month, "%04d-%02d", c->year % 10000, c->month % 100);
    gpi_date_format(listing, a);
    if (end < listing) {
        gpi_date_format(through, b);
        oc->status = ST_PROVISIONAL;
        snprintf(oc->why, sizeof oc->why, "not listed by %s (trading from %s)", b, a);
        return GPI_OK;
    }
    gpi_index_day *series = NULL, *fb = NULL;
    size_t n = 0, n_fb = 0;
    /* from the first stored day: L may come from before the listing */
    gpi_status st = store_index_series(db, c->grade, INT32_MIN, end, latest, &series, &n, d);
    /* cessation (settlement/fallback.c): a dropped grade has no value from
     * its last built day on; the fallback grade's series */
    if (st == GPI_OK && c->fallback.rule)
        st = ceased_series(db, c, end, latest, &series, &n, &fb, &n_fb, d);
    int dropped = 0;
    int32_t gap = st == GPI_OK ? first_missing(c, series, n, listing, end, 0) : INT32_MAX;
    if (st == GPI_OK && gap != INT32_MAX) st = store_grade_dropped(db, c->grade, &dropped, d);
    int32_t upto = gap == INT32_MAX ? end : gap - 1;
    /* a tick too coarse for the grade's values is the contract file's
     * error: it fails the run like any other error of that file */
    settle_fb_note note = {0};
    int32_t fb_gap = INT32_MAX;
    if (st == GPI_OK) st = run_one(c, series, n, fb, n_fb, upto, res, &note, &fb_gap, d);
    free(series);
    free(fb);
    if (st != GPI_OK) return st;
    if (note.applied) {
        gpi_date_format(note.start, a);
        gpi_date_format(note.trigger, b);
        snprintf(oc->fallback, sizeof oc->fallback,
                 "%s: %s has no value from %s, more than %d day%s: from %s the contract %s%s%s",
                 c->symbol, c->grade, a, c->fallback.after_days,
                 c->fallback.after_days == 1 ? "" : "s", b,
                 c->fallback.rule == SETTLE_FB_SUSPEND ? "is suspended (its fallback)"
                 : c->fallback.rule == SETTLE_FB_LAST
                     ? "settles on the grade's last value (its fallback)"
                     : "settles on its fallback grade",
                 c->fallback.rule == SETTLE_FB_GRADE ? " " : "",
                 c->fallback.rule == SETTLE_FB_GRADE ? c->fallback.grade : "");
        int days = note.end - note.start + 1;
        if (c->fallback.rule == SETTLE_FB_GRADE && note.fb_values < days) {
            /* the fallback grade is suspended too: said, not passed off */
            char e[11];
            gpi_date_format(note.end, e);
            size_t m = strlen(oc->fallback);
            snprintf(oc->fallback + m, sizeof oc->fallback - m,
                     ", which itself has a value on only %d of the %d days from %s to %s",
                     note.fb_values, days, a, e);
        }
    }
    int has_daily = 0;
    for (size_t i = 0; i < res->n; i++) has_daily |= res->rows[i].kind == SETTLE_DAILY;
    int suspended = res->n && res->rows[res->n - 1].fallback == 2;
    if (suspended) {
        gpi_date_format(res->rows[res->n - 1].day, b);
        oc->status = ST_SUSPENDED;
        snprintf(oc->why, sizeof oc->why, "under its fallback from %s: no final settlement price",
                 b);
    } else if (fb_gap != INT32_MAX) {
        gpi_date_format(fb_gap, b);
        gpi_date_format(fb_gap - 1, a);
        oc->status = ST_PROVISIONAL;
        snprintf(oc->why, sizeof oc->why, "fallback grade %s is not built on %s; %s through %s"
                 " (build it: gpuidx index build)", c->fallback.grade, b,
                 has_daily ? "daily prices" : "no value", a);
    } else if (gap != INT32_MAX) {
        gpi_date_format(gap, b);
        gpi_date_format(gap - 1, a);
        oc->status = ST_PROVISIONAL;
        if (dropped)
            snprintf(oc->why, sizeof oc->why, "grade %s is dropped (no row from %s; the contract"
                     " names no fallback); %s through %s", c->grade, b,
                     has_daily ? "daily prices" : "no value", a);
        else if (gap == listing)
            snprintf(oc->why, sizeof oc->why, "grade %s is not built from the listing, %s"
                     " (build it: gpuidx index build)", c->grade, b);
        else
            snprintf(oc->why, sizeof oc->why, "grade %s is not built on %s; %s through %s"
                     " (build it: gpuidx index build)", c->grade, b,
                     has_daily ? "daily prices" : "no value", a);
    } else if (!res->complete) {
        gpi_date_format(end, b);
        oc->status = ST_PROVISIONAL;
        snprintf(oc->why, sizeof oc->why, "%s is not over on %s; %s %s", month, b,
                 has_daily ? "daily prices through" : "no value by", b);
    } else if (res->insufficient) {
        oc->status = ST_INSUFFICIENT;
        snprintf(oc->why, sizeof oc->why, "%d day%s with a value in %s, fewer than"
                 " min_published_days %d; no final settlement price", res->values_in_month,
                 res->values_in_month == 1 ? "" : "s", month, c->min_published_days);
    } else {
        char price[32];
        gpi_fixed_format(res->rows[res->n - 1].price_units, c->tick.scale, price);
        oc->status = ST_SETTLED;
        snprintf(oc->why, sizeof oc->why, "final settlement price %s (%d days with a value in %s)",
                 price, res->values_in_month, month);
    }
    return GPI_OK;
}

int cmd_settle(cli_ctx *ctx, int argc, char **argv)
{
    const char *contracts_path = NULL, *positions_path = NULL, *ledger_path = NULL;
    const char *through_s = NULL;
    int32_t through = INT32_MAX;
    int latest = 0;
    const cli_opt_spec spec[] = {{"--contracts", &contracts_path, NULL},
                                 {"--positions", &positions_path, NULL},
                                 {"--ledger", &ledger_path, NULL},
                                 {"--through", &through_s, NULL},
                                 {"--latest", NULL, &latest},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "settle", "settle", "settle");
    if (ec >= 0) return ec;
    const char *why = through_s ? gpi_date_parse(through_s, &through) : NULL;
    if (why) {
        cli_error("settle: --through: %s (got \"%s\")", why, through_s);
        return 2;
    }
    if (!contracts_path) {
        cli_error("settle: --contracts FILE is required (see gpuidx settle --help)");
        return 2;
    }
    if (ledger_path && !positions_path) {
        cli_error("settle: --ledger needs --positions");
        return 2;
    }
    if (positions_path && !ledger_path) {
        cli_error("settle: --positions needs --ledger FILE (the margin ledger is a table of its"
                  " own; stdout has the settlement prices)");
        return 2;
    }
    if (!cli_have_db(ctx, "settle")) return 1;

    gpi_diag d = {""};
    gpi_status st;
    store *db = NULL;
    settle_contract *cs = NULL;
    settle_position *pos = NULL;
    settle_result *res = NULL;
    size_t nc = 0, np = 0;

    st = store_open_read(ctx->db_path, &db, &d); /* settle only reads */
    if (st != GPI_OK) goto fail;
    grade_check gc = {db, ""};
    st = settle_contracts_load(contracts_path, grade_known, &gc, &cs, &nc, &d);
    if (st != GPI_OK && gc.unknown[0]) {
        char hint[320];
        cli_grade_hint(NULL, db, gc.unknown, hint, sizeof hint); /* built grades only */
        size_t l = strlen(d.msg);
        snprintf(d.msg + l, sizeof d.msg - l, "%s", hint);
    }
    if (st != GPI_OK) goto fail;
    if (positions_path) {
        st = settle_positions_load(positions_path, cs, nc, &pos, &np, &d);
        if (st != GPI_OK) goto fail;
    }
    res = calloc(nc, sizeof *res);
    outcome *oc = calloc(nc, sizeof *oc);
    if (!res || !oc) {
        free(oc);
        st = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nc && st == GPI_OK; i++)
        st = settle_one(db, &cs[i], through, latest, &res[i], &oc[i], &d);
    if (st != GPI_OK) {
        free(oc);
        goto fail;
    }
    /* everything is written to memory first: stdout and the --ledger file
     * get all or nothing */
    char *obuf = NULL, *lbuf = NULL;
    size_t olen = 0, llen = 0;
    FILE *o = open_memstream(&obuf, &olen);
    FILE *lm = ledger_path ? open_memstream(&lbuf, &llen) : NULL;
    if (!o || (ledger_path && !lm)) {
        if (o) fclose(o);
        if (lm) fclose(lm);
        free(obuf);
        free(lbuf);
        free(oc);
        st = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
        goto fail;
    }
    fputs("date,symbol,settlement_price,kind\n", o);
    for (size_t i = 0; i < nc && st == GPI_OK; i++) print_prices(o, &cs[i], &res[i]);
    if (lm) {
        fputs("date,account,symbol,contracts,settlement_price,variation_margin_cents\n", lm);
        for (size_t i = 0; i < nc && st == GPI_OK; i++)
            st = print_ledger(lm, cs, i, &res[i], pos, np, &d);
    }
    fclose(o);
    if (lm) fclose(lm);
    if (st == GPI_OK && ledger_path) {
        FILE *lf = fopen(ledger_path, "w");
        if (!lf) {
            st = gpi_diag_set(&d, GPI_EIO, "%s: cannot write: %s", ledger_path, strerror(errno));
        } else {
            int bad = fwrite(lbuf, 1, llen, lf) != llen;
            if (fclose(lf) != 0 || bad)
                st = gpi_diag_set(&d, GPI_EIO, "%s: write failed", ledger_path);
        }
    }
    if (st == GPI_OK) {
        fwrite(obuf, 1, olen, stdout);
        for (size_t i = 0; i < nc; i++) notes(&cs[i], &res[i], &oc[i], pos, np, i);
    }
    free(oc);
    free(obuf);
    free(lbuf);
    /* a failed write to stdout is reported by main() for every command */
fail:
    if (st != GPI_OK) cli_error("%s", d.msg);
    if (res)
        for (size_t i = 0; i < nc; i++) settle_result_free(&res[i]);
    free(res);
    free(pos);
    free(cs);
    store_close(db);
    return gpi_exit_code(st);
}
