/* load/load.c -- one file into the store (the protocol is described in
 * load/load.h).
 *
 * load_file runs the file's reader with a sink of its own: each record
 * goes to store_obs_put and is counted as stored or duplicate; a conflict
 * or an identity collision with a stored observation becomes a reject of
 * the row; each reject goes to the rejects table, to the caller's reject
 * event and to a temporary file that holds the file's rejects as CSV rows
 * until the batch commits.  A store error inside a callback stops the
 * reader (GPI_ESTORE) and the store's message replaces the reader's.
 * The batch is begun with the file's size when it is known and plain: the
 * store sizes its page cache by it (store.c note 10); a gzip file's size
 * says little of what it holds, so it is begun as of unknown size.
 *
 * (1) The kind a file is read as when the command names one (`ingest
 *     offers`, `ingest trades`) is part of what makes it "already
 *     ingested" (issue 31: a file ingested under the wrong kind could
 *     never be ingested again, "already ingested").  Read again as the
 *     other kind, it is stored again, with a warning naming the batch
 *     that read it as the first kind: its rows stay.  A command that names
 *     no kind (the file's kind column) still skips a file read before.
 */
#include "load/load.h"
#include "store/batches.h"
#include "store/obs.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct sink_ctx {
    store *st;
    int64_t batch;
    const char *name;
    const load_events *ev;
    store_batch_counts n;
    FILE *rej;              /* this file's rejects as CSV rows, or NULL */
    gpi_diag err;           /* a store error inside a callback */
    int failed;
} sink_ctx;

int load_rejects_header(FILE *f)
{
    return fputs("file,line,column,reason,raw_row\n", f) < 0 ? -1 : 0;
}

/* The reason of a reject message: without the "FILE:LINE[:COL]: " and
 * "COLUMN: " that the rejects CSV holds in columns of their own. */
static const char *reason_alone(const char *msg, const char *name, long line, const char *column)
{
    size_t n = strlen(name);
    const char *p = msg;
    if (strncmp(p, name, n) == 0 && p[n] == ':') {
        char num[32];
        int k = snprintf(num, sizeof num, "%ld", line);
        if (strncmp(p + n + 1, num, (size_t)k) == 0) {
            const char *q = p + n + 1 + k;
            while (*q == ':' && q[1] >= '0' && q[1] <= '9') /* a column number */
                for (q++; *q >= '0' && *q <= '9'; q++)
                    ;
            if (*q == ':' && q[1] == ' ') p = q + 2;
        }
    }
    size_t c = column ? strlen(column) : 0;
    if (c && strncmp(p, column, c) == 0 && p[c] == ':' && p[c + 1] == ' ') p += c + 2;
    return p;
}

static int on_reject(void *ud, long line, const char *column, const char *raw, const char *msg)
{
    sink_ctx *c = ud;
    c->n.rejected++;
    if (c->ev->reject) c->ev->reject(c->ev->ud, msg);
    if (c->rej) {
        gpi_csv_quoted(c->rej, c->name);
        fprintf(c->rej, ",%ld,", line);
        gpi_csv_quoted(c->rej, column);
        fputc(',', c->rej);
        gpi_csv_quoted(c->rej, reason_alone(msg, c->name, line, column));
        fputc(',', c->rej);
        gpi_csv_quoted(c->rej, raw);
        fputc('\n', c->rej);
    }
    if (store_reject_put(c->st, c->batch, line, column, raw, msg, &c->err) != GPI_OK) {
        c->failed = 1;
        return 1;
    }
    return 0;
}

static int on_obs(void *ud, const gpi_obs *o, const char *raw)
{
    sink_ctx *c = ud;
    store_put_result res;
    if (store_obs_put(c->st, c->batch, o, &res, &c->err) != GPI_OK) {
        c->failed = 1;
        return 1;
    }
    char msg[512];
    switch (res) {
    case STORE_PUT_STORED: c->n.stored++; return 0;
    case STORE_PUT_DUPLICATE: c->n.duplicates++; return 0;
    case STORE_PUT_CONFLICT:
        snprintf(msg, sizeof msg, "%s:%ld: conflicts with a stored observation", c->name, o->line);
        break;
    default:
        snprintf(msg, sizeof msg,
                 "%s:%ld: identity hash collides with a stored observation of another key "
                 "(give the rows an id)",
                 c->name, o->line);
        break;
    }
    return on_reject(ud, o->line, NULL, raw, msg);
}

static void on_warn(void *ud, const char *msg)
{
    sink_ctx *c = ud;
    if (c->ev->warn) c->ev->warn(c->ev->ud, msg);
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    sink_ctx *c = ud;
    c->ev->progress(c->ev->ud, done, total);
}

static int copy_rejects(FILE *from, FILE *to)
{
    char buf[65536];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n) return -1;
    return ferror(from) ? -1 : 0;
}

static gpi_status fail(load_result *out, gpi_status rc)
{
    out->outcome = LOAD_FAILED;
    return rc;
}

static gpi_status skipped(load_result *out, int64_t batch)
{
    out->outcome = LOAD_SKIPPED;
    out->batch = batch;
    return GPI_OK;
}

gpi_status load_file(store *st, const ingest_tables *t, const ingest_opts *in,
                     const load_opts *opt, const load_events *ev, load_result *out,
                     gpi_diag *d)
{
    static const load_events quiet = {NULL, NULL, NULL, NULL};
    if (!ev) ev = &quiet;
    int64_t batch = 0, other = 0;
    const char *name = strcmp(in->path, "-") == 0 ? "stdin" : in->path;
    const char *options = in->admit_providers ? "admit-providers" : NULL;
    const char *tables_sha = ingest_tables_sha256(t);
    FILE *rejects = opt ? opt->rejects : NULL;
    load_read_fn read = opt && opt->read ? opt->read : ingest_file;
    memset(out, 0, sizeof *out);
    out->name = name;
    struct stat sb;
    int64_t size = name != in->path ? -1 /* standard input */
                   : stat(in->path, &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size
                                                                    : -1;
    int seen = 0, found = 0;
    gpi_status rc;
    if (size >= 0 && (rc = store_batch_size_seen(st, size, &seen, d)) != GPI_OK)
        return fail(out, rc);
    const char *kind = opt ? opt->kind_hint : NULL;
    int64_t other_kind_batch = 0;
    char other_kind[16];
    if (seen) { /* a file of this size was ingested: hash first (cheap) */
        char sha[65];
        if ((rc = ingest_file_sha256(in->path, sha, d)) != GPI_OK ||
            (rc = store_batch_find_same_kind(st, sha, tables_sha, options, kind, &found, &other,
                                             &other_kind_batch, other_kind, d)) != GPI_OK)
            return fail(out, rc);
        if (found) return skipped(out, other);
    }
    int64_t begin_size = size >= 0 && ingest_is_gzip(in->path) ? -1 : size;
    store_batch_info info = {name,       "pending",
                             in->source, opt ? opt->kind_hint : NULL,
                             tables_sha, (int64_t)time(NULL),
                             begin_size, options};
    if ((rc = store_batch_begin(st, &info, &batch, d)) != GPI_OK) return fail(out, rc);
    sink_ctx c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.batch = batch;
    c.name = name;
    c.ev = ev;
    c.rej = rejects ? tmpfile() : NULL;
    ingest_sink sink = {on_obs, on_reject, on_warn, ev->progress ? on_progress : NULL, &c};
    ingest_result res;
    memset(&res, 0, sizeof res);
    rc = read(t, in, &sink, &res, d);
    if (c.failed) *d = c.err;
    if (rc == GPI_OK && rejects && !c.rej)
        rc = gpi_diag_set(d, GPI_EIO, "%s: cannot create a temporary file for rejects", name);
    c.n.read = res.rows_read;
    if (rc == GPI_OK && c.n.read != c.n.stored + c.n.duplicates + c.n.rejected)
        rc = gpi_diag_set(d, GPI_EINPUT, "%s: internal error: counts do not add up", name);
    if (rc == GPI_OK)
        rc = store_batch_find_same_kind(st, res.sha256, tables_sha, options, kind, &found, &other,
                                        &other_kind_batch, other_kind, d);
    if (rc == GPI_OK && found) {
        store_batch_rollback(st);
        if (c.rej) fclose(c.rej);
        return skipped(out, other);
    }
    if (rc == GPI_OK && other_kind_batch && ev->warn) { /* note 1 */
        char msg[512];
        snprintf(msg, sizeof msg,
                 "%s: ingested before as %s (batch %lld), now read as %s; the rows batch %lld "
                 "stored stay as they were stored",
                 name, other_kind, (long long)other_kind_batch, kind,
                 (long long)other_kind_batch);
        ev->warn(ev->ud, msg);
    }
    if (rc == GPI_OK) rc = store_batch_set_sha256(st, batch, res.sha256, res.n_bytes, d);
    if (rc == GPI_OK) rc = store_batch_commit(st, batch, &c.n, (int64_t)time(NULL), d);
    else store_batch_rollback(st);
    if (rc != GPI_OK) {
        if (c.rej) fclose(c.rej);
        return fail(out, rc);
    }
    out->outcome = LOAD_STORED;
    out->batch = batch;
    out->n = c.n;
    if (c.rej && (copy_rejects(c.rej, rejects) != 0 || fflush(rejects) != 0)) {
        out->rejects_unwritten = 1;
        gpi_diag_set(d, GPI_EIO, "%s: cannot write the rejects file (the file itself is stored)",
                     name);
    }
    if (c.rej) fclose(c.rej);
    return GPI_OK;
}
