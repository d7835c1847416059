/* cli/cmd_settle.c -- `gpuidx settle`: settlement prices and margin ledger.
 *
 * Reads the contract file (grades checked against the database), reads
 * each contract's index series from the store (values as first published,
 * or restated with --latest), settles it with settlement/, and prints
 * `date,symbol,settlement_price,kind` to stdout.  With --positions a
 * variation-margin ledger follows after one blank line (or goes to
 * --ledger FILE).  Nothing is printed to stdout, and no --ledger file is
 * written, unless every contract settles; notes (insufficient months, open
 * positions) go to stderr.
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

static const char help[] =
    "usage: gpuidx [--db PATH] settle --contracts FILE [--positions FILE]\n"
    "                                 [--through YYYY-MM-DD] [--latest] [--ledger FILE]\n"
    "\n"
    "Daily and final settlement prices of the contracts in FILE (METHODOLOGY.md,\n"
    "\"Futures settlement\"), as CSV\n"
    "date,symbol,settlement_price,kind on stdout (kind daily, final, insufficient).\n"
    "\n"
    "  --contracts FILE   contract file {\"contracts\": [{\"symbol\", \"grade\", \"month\",\n"
    "                     \"size\", \"tick\", \"min_published_days\", \"fsp_days\"}, ...],\n"
    "                     \"holidays\": [...]}; fsp_days \"calendar\" (default) or\n"
    "                     \"business\" (Monday-Friday less the holidays: only those\n"
    "                     days' values count and get a price)\n"
    "  --positions FILE   CSV account,symbol,contracts[,entry_price]; adds the\n"
    "                     variation-margin ledger (integer cents) after a blank line:\n"
    "                     date,account,symbol,contracts,settlement_price,\n"
    "                     variation_margin_cents\n"
    "  --ledger FILE      write the ledger to FILE instead of stdout\n"
    "  --through D        settle up to day D (default: the end of each delivery month)\n"
    "  --latest           use restated index values (default: as first published)\n"
    "\n"
    "exit status: 0 ok, 1 input or data error, 2 usage error.\n";

static gpi_status grade_known(const char *grade, int *known, void *ud, gpi_diag *d)
{
    return store_grade_exists((store *)ud, grade, known, d);
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

static void notes(const settle_contract *c, const settle_result *r,
                  const settle_position *pos, size_t np, size_t ci)
{
    char month[8];
    snprintf(month, sizeof month, "%04d-%02d", c->year % 10000, c->month % 100);
    int suspended = r->n && r->rows[r->n - 1].fallback == 2;
    if (r->insufficient && !suspended) {
        cli_error("%s: insufficient: %d day%s with a value in %s, fewer than"
                  " min_published_days %d; no final settlement price",
                  c->symbol, r->values_in_month, r->values_in_month == 1 ? "" : "s", month,
                  c->min_published_days);
    }
    int has_daily = 0;
    for (size_t i = 0; i < r->n; i++) has_daily |= r->rows[i].kind == SETTLE_DAILY;
    if (suspended)
        cli_error("%s: suspended under its fallback: no final settlement price", c->symbol);
    for (size_t j = 0; j < np; j++) {
        if (pos[j].contract != ci) continue;
        if (!has_daily)
            cli_error("%s: account %s: no settlement price yet; position not entered",
                      c->symbol, pos[j].account);
        else if (r->insufficient)
            cli_error("%s: account %s: %lld contracts stay open (no final settlement price)",
                      c->symbol, pos[j].account, (long long)pos[j].contracts);
    }
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
    int ec = cli_parse(argc, argv, spec, "settle", "settle", help);
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
    if (!cli_have_db(ctx, "settle")) return 1;

    gpi_diag d = {""};
    gpi_status st;
    store *db = NULL;
    settle_contract *cs = NULL;
    settle_position *pos = NULL;
    settle_result *res = NULL;
    int *fb_notes = NULL;
    char (*fb_text)[320] = NULL;
    size_t nc = 0, np = 0;

    st = store_open_read(ctx->db_path, &db, &d); /* settle only reads */
    if (st != GPI_OK) goto fail;
    st = settle_contracts_load(contracts_path, grade_known, db, &cs, &nc, &d);
    if (st != GPI_OK) goto fail;
    if (positions_path) {
        st = settle_positions_load(positions_path, cs, nc, &pos, &np, &d);
        if (st != GPI_OK) goto fail;
    }
    res = calloc(nc, sizeof *res);
    fb_notes = calloc(nc, sizeof *fb_notes);
    fb_text = calloc(nc, sizeof *fb_text);
    if (!res || !fb_notes || !fb_text) {
        st = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nc; i++) {
        int32_t last = settle_last_day(&cs[i]);
        int32_t end = through < last ? through : last;
        gpi_index_day *series = NULL;
        size_t n = 0;
        if (end >= settle_listing_day(&cs[i])) {
            /* from the first stored day: L may come from before the listing */
            st = store_index_series(db, cs[i].grade, INT32_MIN, end, latest, &series, &n, &d);
            if (st != GPI_OK) goto fail;
        }
        /* cessation (settlement/fallback.c): a dropped grade has no value
         * from its last built day on; the fallback grade's series */
        gpi_index_day *fb = NULL;
        size_t n_fb = 0;
        if (cs[i].fallback.rule && end >= settle_listing_day(&cs[i]))
            st = ceased_series(db, &cs[i], end, latest, &series, &n, &fb, &n_fb, &d);
        settle_fb_note note = {0};
        if (st == GPI_OK)
            st = settle_run_fallback(&cs[i], series, n, fb, n_fb, through, &res[i], &note, &d);
        free(series);
        free(fb);
        if (st != GPI_OK) goto fail;
        if (note.applied) {
            char a[11], b[11];
            gpi_date_format(note.start, a);
            gpi_date_format(note.trigger, b);
            fb_notes[i] = 1;
            snprintf(fb_text[i], sizeof fb_text[i],
                     "%s: %s has no value from %s, more than %d day%s: from %s the contract %s",
                     cs[i].symbol, cs[i].grade, a, cs[i].fallback.after_days,
                     cs[i].fallback.after_days == 1 ? "" : "s", b,
                     cs[i].fallback.rule == SETTLE_FB_SUSPEND ? "is suspended (its fallback)"
                     : cs[i].fallback.rule == SETTLE_FB_LAST
                         ? "settles on the grade's last value (its fallback)"
                         : "settles on its fallback grade");
            if (cs[i].fallback.rule == SETTLE_FB_GRADE) {
                size_t m = strlen(fb_text[i]);
                snprintf(fb_text[i] + m, sizeof fb_text[i] - m, " %s", cs[i].fallback.grade);
            }
        }
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
        st = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
        goto fail;
    }
    fputs("date,symbol,settlement_price,kind\n", o);
    for (size_t i = 0; i < nc && st == GPI_OK; i++) print_prices(o, &cs[i], &res[i]);
    if (positions_path) {
        if (!lm) fputc('\n', o);
        FILE *out = lm ? lm : o;
        fputs("date,account,symbol,contracts,settlement_price,variation_margin_cents\n", out);
        for (size_t i = 0; i < nc && st == GPI_OK; i++)
            st = print_ledger(out, cs, i, &res[i], pos, np, &d);
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
        for (size_t i = 0; i < nc; i++) {
            if (fb_notes[i]) cli_error("%s", fb_text[i]);
            notes(&cs[i], &res[i], pos, np, i);
        }
    }
    free(obuf);
    free(lbuf);
    /* a failed write to stdout is reported by main() for every command */
fail:
    if (st != GPI_OK) cli_error("%s", d.msg);
    if (res)
        for (size_t i = 0; i < nc; i++) settle_result_free(&res[i]);
    free(res);
    free(fb_notes);
    free(fb_text);
    free(pos);
    free(cs);
    store_close(db);
    return gpi_exit_code(st);
}
