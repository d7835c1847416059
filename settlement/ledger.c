/* settlement/ledger.c -- positions files and the variation-margin ledger.
 *
 * Positions are CSV `account,symbol,contracts[,entry_price]`, read with
 * core's CSV reader (core/csv_reader.h: quoting, BOM, CRLF, blank lines,
 * "path:line:col:" for broken quoting), streamed in bounded pieces; a row
 * is located at the line where it starts.  A record over 1 MiB and a NUL
 * byte are refused, so memory stays bounded on any input.
 *
 * Margin is integer cents.  Every settlement price and entry price is a
 * whole number of ticks and size x tick is a whole number of cents
 * (tick_cents), so a day's variation margin is
 *     contracts x (price - previous) / tick x tick_cents
 * exactly, and the rows of a position telescope to
 *     contracts x size x (last price - entry).
 * Amounts are computed in __int128 and refused (GPI_EMATH) if they would
 * not fit the int64 cents of the output.
 */
#include "settlement/settlement.h"
#include "core/csv_reader.h"
#include "core/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 8
#define FIELD_CAP 128 /* a longer field is "too long" */

typedef struct reader {
    const char *path;
    const settle_contract *cs;
    size_t nc;
    long line;                       /* physical line the row starts on   */
    long row;                        /* rows completed, header included   */
    int ncols;                       /* 3 or 4, from the header           */
    const char *const *field;        /* the row's fields (the reader's)   */
    const size_t *flen;
    int nf;
    settle_position *pos;
    size_t n, cap;
    size_t *slot;                    /* hash of (contract, account): pos
                                        index + 1, 0 = empty; hcap slots  */
    size_t hcap;
    gpi_diag *d;
} reader;

static gpi_status rerr(reader *r, const char *field, const char *why, const char *got)
{
    if (got)
        return gpi_diag_set(r->d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%s\")", r->path, r->line,
                            field, why, got);
    return gpi_diag_set(r->d, GPI_EINPUT, "%s:%ld: %s: %s", r->path, r->line, field, why);
}

static gpi_status header(reader *r)
{
    static const char *const want[] = {"account", "symbol", "contracts", "entry_price"};
    int ok = r->nf == 3 || r->nf == 4;
    for (int i = 0; ok && i < r->nf; i++) ok = strcasecmp(r->field[i], want[i]) == 0;
    if (!ok) {
        /* the header as read: at most MAX_FIELDS fields of at most 40
         * bytes each, then ",..." -- the buffer holds that much exactly */
        char got[MAX_FIELDS * 41 + sizeof ",..."] = "";
        size_t o = 0;
        for (int i = 0; i < r->nf && i < MAX_FIELDS; i++) {
            int k = snprintf(got + o, sizeof got - o, "%s%.40s", i ? "," : "", r->field[i]);
            if (k < 0 || (size_t)k >= sizeof got - o) break; /* cannot happen: sized above */
            o += (size_t)k;
        }
        if (r->nf > MAX_FIELDS) snprintf(got + o, sizeof got - o, ",...");
        return rerr(r, "header", "want account,symbol,contracts[,entry_price]", got);
    }
    r->ncols = r->nf;
    return GPI_OK;
}

static int account_ok(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
    return 1;
}

static size_t pos_hash(const settle_position *p, size_t mask)
{
    return (size_t)gpi_fnv1a64(p->account, strlen(p->account), GPI_FNV_SEED ^ p->contract) & mask;
}

/* The slot holding (p->contract, p->account), or the empty slot where it
 * goes.  hcap is a power of two, at least twice the positions held. */
static size_t *pos_slot(reader *r, const settle_position *p)
{
    size_t mask = r->hcap - 1, h = pos_hash(p, mask);
    for (;; h = (h + 1) & mask) {
        size_t *sl = &r->slot[h];
        if (*sl == 0) return sl;
        const settle_position *q = &r->pos[*sl - 1];
        if (q->contract == p->contract && strcmp(q->account, p->account) == 0) return sl;
    }
}

static int pos_index_grow(reader *r)
{
    size_t cap = r->hcap ? 2 * r->hcap : 64;
    size_t *old = r->slot, ocap = r->hcap;
    r->slot = calloc(cap, sizeof *r->slot);
    if (!r->slot) {
        r->slot = old;
        return -1;
    }
    r->hcap = cap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) *pos_slot(r, &r->pos[old[i] - 1]) = old[i];
    free(old);
    return 0;
}

static gpi_status data_row(reader *r)
{
    if (r->nf > r->ncols || r->nf < 3) {
        char why[64];
        snprintf(why, sizeof why, "want %d fields, got %d", r->ncols, r->nf);
        return rerr(r, "row", why, NULL);
    }
    for (int i = 0; i < r->nf; i++)
        if (r->flen[i] >= FIELD_CAP - 1) return rerr(r, i == 0 ? "account" : "field", "too long", NULL);
    settle_position p;
    memset(&p, 0, sizeof p);
    p.line = r->line;

    const char *acct = r->field[0];
    if (!account_ok(acct)) return rerr(r, "account", "empty or has control characters", acct);
    if (strlen(acct) > SETTLE_ACCOUNT_MAX) return rerr(r, "account", "longer than 64", acct);
    snprintf(p.account, sizeof p.account, "%s", acct);

    const char *sym = r->field[1];
    size_t c = 0;
    while (c < r->nc && strcmp(r->cs[c].symbol, sym) != 0) c++;
    if (c == r->nc) return rerr(r, "symbol", "no such contract in the contract file", sym);
    p.contract = c;

    const char *ct = r->field[2];
    char *endp;
    errno = 0;
    long long k = strtoll(ct, &endp, 10);
    if (!*ct || *endp || errno) return rerr(r, "contracts", "not a whole number", ct);
    if (k == 0) return rerr(r, "contracts", "must not be 0", ct);
    if (k > 1000000000LL || k < -1000000000LL)
        return rerr(r, "contracts", "more than 1000000000 in absolute value", ct);
    p.contracts = k;

    if (r->nf == 4 && r->field[3][0]) {
        const char *why = settle_price_parse(&r->cs[c], r->field[3], &p.entry_units);
        if (why) {
            char tick[32], msg[96];
            gpi_fixed_format(r->cs[c].tick.mant, r->cs[c].tick.scale, tick);
            if (strcmp(why, "not a whole number of ticks") == 0) {
                snprintf(msg, sizeof msg, "not a whole number of ticks of %s", tick);
                why = msg;
            }
            return rerr(r, "entry_price", why, r->field[3]);
        }
        p.has_entry = 1;
    }
    if (2 * (r->n + 1) > r->hcap && pos_index_grow(r) != 0)
        return gpi_diag_set(r->d, GPI_ENOMEM, "%s: out of memory", r->path);
    size_t *sl = pos_slot(r, &p);
    if (*sl) {
        char why[160];
        snprintf(why, sizeof why, "duplicate position in %s (first at line %ld)",
                 r->cs[c].symbol, r->pos[*sl - 1].line);
        return rerr(r, "account", why, p.account);
    }
    if (GPI_VEC_RESERVE(r->pos, r->cap, r->n + 1) != 0)
        return gpi_diag_set(r->d, GPI_ENOMEM, "%s: out of memory", r->path);
    r->pos[r->n++] = p;
    *sl = r->n;
    return GPI_OK;
}

static gpi_status on_rec(void *ud, const gpi_csv_rec *rec, gpi_diag *d)
{
    (void)d; /* r->d */
    reader *r = ud;
    r->line = rec->line;
    r->field = rec->f;
    r->flen = rec->len;
    r->nf = rec->n;
    if (gpi_csv_rec_nul(rec)) return rerr(r, "row", "contains a NUL byte", NULL);
    gpi_status st = r->row == 0 ? header(r) : data_row(r);
    r->row++;
    return st;
}

gpi_status settle_positions_load(const char *path, const settle_contract *cs, size_t nc,
                                 settle_position **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    FILE *f = gpi_open_input(path, d); /* "no such file", "is a directory" (core/text.c) */
    if (!f) return GPI_EIO;
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    r->path = path;
    r->cs = cs;
    r->nc = nc;
    r->d = d;
    gpi_status st = gpi_csv_read_stream(f, path, 0, on_rec, r, d);
    fclose(f);
    if (st == GPI_OK && r->row == 0)
        st = gpi_diag_set(d, GPI_EINPUT,
                          "%s: empty (want a header account,symbol,contracts[,entry_price])", path);
    free(r->slot);
    if (st == GPI_OK) {
        *out = r->pos;
        *n = r->n;
    } else {
        free(r->pos);
    }
    free(r);
    return st;
}

gpi_status settle_ledger(const settle_contract *c, const settle_result *res,
                         const settle_position *p, settle_ledger_row **out, size_t *n,
                         int64_t *entry_units, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    *entry_units = 0;
    size_t first = 0;
    while (first < res->n && res->rows[first].kind != SETTLE_DAILY) first++;
    if (first == res->n) return GPI_OK;
    settle_ledger_row *rows = malloc(res->n * sizeof *rows);
    if (!rows) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->symbol);
    int64_t prev = p->has_entry ? p->entry_units : res->rows[first].price_units;
    *entry_units = prev;
    size_t nr = 0;
    for (size_t i = first; i < res->n; i++) {
        const settle_price *sp = &res->rows[i];
        if (sp->kind == SETTLE_INSUFFICIENT) continue;
        __int128 vm = (__int128)p->contracts * ((sp->price_units - prev) / c->tick.mant) *
                      c->tick_cents;
        if (vm > INT64_MAX || vm < -INT64_MAX) {
            free(rows);
            return gpi_diag_set(d, GPI_EMATH, "%s: account %s: margin amount too large",
                                c->symbol, p->account);
        }
        rows[nr].day = sp->day;
        rows[nr].kind = sp->kind;
        rows[nr].price_units = sp->price_units;
        rows[nr].variation_cents = (int64_t)vm;
        nr++;
        prev = sp->price_units;
    }
    *out = rows;
    *n = nr;
    return GPI_OK;
}
