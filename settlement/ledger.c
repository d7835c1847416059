/* settlement/ledger.c -- positions files and the variation-margin ledger.
 *
 * Positions are CSV `account,symbol,contracts[,entry_price]`, read with
 * libcsv.  libcsv reports no line numbers, so the file is read in fixed
 * chunks and fed to it one physical line (or piece of one) at a time, and a
 * row is located at the line where it ends.  Lines over 1 MiB and NUL
 * bytes are refused, so memory stays bounded on any input.
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
#include "core/vec.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 8
#define FIELD_CAP 128
#define POS_CHUNK 65536
#define POS_LINE_MAX (1024 * 1024) /* no real positions line comes near it */

typedef struct reader {
    const char *path;
    const settle_contract *cs;
    size_t nc;
    long line;                       /* physical line being parsed        */
    long row;                        /* rows completed, header included   */
    int ncols;                       /* 3 or 4, from the header           */
    char field[MAX_FIELDS][FIELD_CAP];
    int too_long[MAX_FIELDS];
    int nf;
    settle_position *pos;
    size_t n, cap;
    size_t *slot;                    /* hash of (contract, account): pos
                                        index + 1, 0 = empty; hcap slots  */
    size_t hcap;
    gpi_status st;
    gpi_diag *d;
} reader;

static void on_field(void *s, size_t len, void *ud)
{
    reader *r = ud;
    if (r->nf < MAX_FIELDS) {
        size_t k = len < FIELD_CAP - 1 ? len : FIELD_CAP - 1;
        if (k) memcpy(r->field[r->nf], s, k);
        r->field[r->nf][k] = '\0';
        r->too_long[r->nf] = len >= FIELD_CAP - 1;
    }
    r->nf++;
}

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
        if (r->too_long[i]) return rerr(r, i == 0 ? "account" : "field", "too long", NULL);
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

static void on_row(int term, void *ud)
{
    (void)term;
    reader *r = ud;
    if (r->st == GPI_OK) r->st = r->row == 0 ? header(r) : data_row(r);
    r->row++;
    r->nf = 0;
}

gpi_status settle_positions_load(const char *path, const settle_contract *cs, size_t nc,
                                 settle_position **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
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
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI);
    /* Fixed-size reads, fed to libcsv one physical line (piece) at a time,
     * so memory stays bounded whatever the input (an endless stream with
     * no newline included); a line is counted when its first byte is fed. */
    char *buf = malloc(POS_CHUNK);
    size_t len, line_bytes = 0;
    int at_line_start = 1, first = 1;
    if (!buf) r->st = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    while (r->st == GPI_OK && (len = fread(buf, 1, POS_CHUNK, f)) > 0) {
        const char *q = buf, *end = buf + len;
        if (first && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
            q += 3; /* a UTF-8 byte-order mark */
        first = 0;
        while (q < end && r->st == GPI_OK) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            const char *e = nl ? nl + 1 : end;
            size_t k = (size_t)(e - q);
            if (at_line_start) {
                r->line++;
                line_bytes = 0;
                at_line_start = 0;
            }
            line_bytes += k;
            if (memchr(q, '\0', k)) {
                r->st = rerr(r, "row", "contains a NUL byte", NULL);
            } else if (line_bytes > POS_LINE_MAX) {
                r->st = rerr(r, "row", "longer than 1048576 bytes", NULL);
            } else if (csv_parse(&p, q, k, on_field, on_row, r) != k && r->st == GPI_OK) {
                r->st = rerr(r, "row", csv_strerror(csv_error(&p)), NULL);
            }
            at_line_start = nl != NULL;
            q = e;
        }
    }
    if (r->st == GPI_OK && ferror(f))
        r->st = gpi_diag_set(d, GPI_EIO, "%s: read error: %s", path, strerror(errno));
    if (r->st == GPI_OK && csv_fini(&p, on_field, on_row, r) != 0 && r->st == GPI_OK)
        r->st = rerr(r, "row", "unterminated quoted field", NULL);
    if (r->st == GPI_OK && r->row == 0)
        r->st = gpi_diag_set(d, GPI_EINPUT,
                             "%s: empty (want a header account,symbol,contracts[,entry_price])",
                             path);
    csv_free(&p);
    free(buf);
    fclose(f);
    free(r->slot);
    gpi_status st = r->st;
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
