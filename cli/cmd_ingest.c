/* cli/cmd_ingest.c -- `gpuidx ingest`: files -> the store (SPEC §3, §13).
 *
 * Per file, one transaction: the batch row, every stored row and
 * every reject, and the counts, committed together or rolled back
 * together.  A file already read through the same tables and options is
 * skipped; read through other ones (a provider added to providers.csv,
 * --admit-providers), it is read again: what is new is stored, what was
 * stored counts as duplicates.  Rejects go to the rejects table and, with --rejects FILE, to
 * a CSV (file,line,column,reason,raw_row); a file's rejects are buffered in
 * a temporary file and copied only when the file commits, so a broken file
 * leaves no trace anywhere.  The SHA-256 is computed while reading; a file
 * whose hash a committed batch already has is rolled back and reported
 * as skipped (nothing new is stored either way); batches also record the
 * file size, and a file whose size a batch already has is hashed up front
 * so that re-ingesting a big file costs one fast hash, not a full parse.
 *
 * Output (stable): one line per file on stdout,
 *   PATH: read R, stored S, duplicates D, rejected X
 *   PATH: skipped, already ingested (batch N)
 *   PATH: failed, nothing stored
 * with R = S + D + X; errors, warnings and the first rejects on stderr.
 * Exit 1 when any file failed (or had rejects with --strict), else 0.
 */
#include "cli/cli.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "store/store.h"

#define SHOW_REJECTS 5

static const char help[] =
    "usage: gpuidx ingest offers|trades [OPTIONS] FILE...\n"
    "       gpuidx ingest [OPTIONS] FILE...\n"
    "\n"
    "Reads observation files (canonical CSV, or JSON: .json array, .ndjson/.jsonl one\n"
    "object per line; gzip files are read as they are, and - is standard input),\n"
    "normalizes them through the tables in the data directory (gpus.csv,\n"
    "providers.csv, tiers.csv, fx.csv, skus.csv) and stores them.  Without\n"
    "offers|trades every row needs a kind column.\n"
    "\n"
    "  --source NAME      feed name for rows without a source column (default: the\n"
    "                     file name; \"stdin\" for -)\n"
    "  --rejects FILE     also write rejected rows as CSV: file,line,column,reason,raw_row\n"
    "  --strict           exit 1 when any row is rejected\n"
    "  --admit-providers  store rows of providers that providers.csv does not list,\n"
    "                     each as its own group, with one warning per new name\n"
    "                     (default: such rows are rejected, with the nearest known name)\n"
    "\n"
    "Each file is one transaction.  A file whose SHA-256 was already ingested is\n"
    "skipped.  A row that cannot be normalized is rejected (rejects table, stderr,\n"
    "--rejects) and the rest of the file is stored; a structurally broken file\n"
    "(unbalanced quote, invalid JSON, no header, missing required column) stores\n"
    "nothing and makes the exit status 1, but the other files are still ingested.\n"
    "\n"
    "Prints per file: PATH: read R, stored S, duplicates D, rejected X\n"
    "Exit status: 0 ok, 1 a file failed (or rejects with --strict), 2 usage.\n";

typedef struct sink_ctx {
    store *st;
    int64_t batch;
    const char *path;
    store_batch_counts n;
    FILE *rej;              /* this file's rejects as CSV rows, or NULL */
    long shown;
    gpi_diag err;
    int failed;
    int progress_shown;
} sink_ctx;

static void csv_field(FILE *f, const char *s)
{
    csv_fwrite(f, s ? s : "", s ? strlen(s) : 0);
}

static int on_reject(void *ud, long line, const char *column, const char *raw, const char *msg)
{
    sink_ctx *c = ud;
    c->n.rejected++;
    if (c->shown++ < SHOW_REJECTS) {
        if (c->progress_shown) fputc('\n', stderr);
        c->progress_shown = 0;
        cli_error("%s", msg);
    }
    if (c->rej) {
        csv_field(c->rej, c->path);
        fprintf(c->rej, ",%ld,", line);
        csv_field(c->rej, column);
        fputc(',', c->rej);
        csv_field(c->rej, msg);
        fputc(',', c->rej);
        csv_field(c->rej, raw);
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
        snprintf(msg, sizeof msg, "%s:%ld: conflicts with a stored observation", c->path, o->line);
        break;
    default:
        snprintf(msg, sizeof msg,
                 "%s:%ld: identity hash collides with a stored observation of another key "
                 "(give the rows an id)",
                 c->path, o->line);
        break;
    }
    return on_reject(ud, o->line, NULL, raw, msg);
}

static void on_warn(void *ud, const char *msg)
{
    sink_ctx *c = ud;
    if (c->progress_shown) fputc('\n', stderr);
    c->progress_shown = 0;
    cli_error("warning: %s", msg);
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    sink_ctx *c = ud;
    if (total)
        fprintf(stderr, "\r%s: %3d%%", c->path, (int)(done * 100 / total));
    c->progress_shown = 1;
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

static void summary(const char *path, const store_batch_counts *n)
{
    printf("%s: read %ld, stored %ld, duplicates %ld, rejected %ld\n", path, n->read, n->stored,
           n->duplicates, n->rejected);
    fflush(stdout);
}

static int failed(const char *path, const char *msg)
{
    cli_error("%s", msg);
    printf("%s: failed, nothing stored\n", path);
    fflush(stdout);
    return 1;
}

/* Ingests one file; returns 0 ok, 1 failed.  When a committed batch had a
 * file of the same size, the file is hashed first and skipped if its hash
 * is known.  Otherwise it is hashed while it is read (one pass): the batch
 * starts with the placeholder hash "pending" and, should the finished hash
 * belong to a committed batch after all (a file that changed size but not
 * content cannot, but a race can), the transaction is rolled back and the
 * file reported as skipped. */
static int one_file(store *st, const ingest_tables *t, const ingest_opts *opt,
                    const char *kind_hint, FILE *rejects, int *n_rejected)
{
    gpi_diag d = {{0}};
    int64_t batch = 0, other = 0;
    const char *name = strcmp(opt->path, "-") == 0 ? "stdin" : opt->path; /* for messages */
    const char *options = opt->admit_providers ? "admit-providers" : NULL;
    struct stat sb;
    int64_t size = name != opt->path ? -1 /* standard input */
                   : stat(opt->path, &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size
                                                                      : -1;
    int seen = 0, found = 0;
    if (size >= 0 && store_batch_size_seen(st, size, &seen, &d) != GPI_OK)
        return failed(name, d.msg);
    if (seen) { /* a file of this size was ingested: hash first (cheap) */
        char sha[65];
        if (ingest_file_sha256(opt->path, sha, &d) != GPI_OK ||
            store_batch_find_same(st, sha, ingest_tables_sha256(t), options, &found, &other,
                                  &d) != GPI_OK)
            return failed(name, d.msg);
        if (found) {
            printf("%s: skipped, already ingested (batch %lld)\n", name, (long long)other);
            fflush(stdout);
            return 0;
        }
    }
    store_batch_info info = {name, "pending", opt->source, kind_hint,
                             ingest_tables_sha256(t), (int64_t)time(NULL), size, options};
    if (store_batch_begin(st, &info, &batch, &d) != GPI_OK) return failed(name, d.msg);
    sink_ctx c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.batch = batch;
    c.path = name;
    c.rej = rejects ? tmpfile() : NULL;
    ingest_sink sink = {on_obs, on_reject, on_warn,
                        isatty(STDERR_FILENO) ? on_progress : NULL, &c};
    ingest_result res;
    gpi_status rc = ingest_file(t, opt, &sink, &res, &d);
    if (c.progress_shown) fputc('\n', stderr);
    if (c.failed) d = c.err;
    if (rc == GPI_OK && rejects && !c.rej)
        rc = gpi_diag_set(&d, GPI_EIO, "%s: cannot create a temporary file for rejects", name);
    c.n.read = res.rows_read;
    if (rc == GPI_OK && c.n.read != c.n.stored + c.n.duplicates + c.n.rejected)
        rc = gpi_diag_set(&d, GPI_EINPUT, "%s: internal error: counts do not add up", name);
    if (rc == GPI_OK)
        rc = store_batch_find_same(st, res.sha256, ingest_tables_sha256(t), options, &found,
                                   &other, &d);
    if (rc == GPI_OK && found) {
        store_batch_rollback(st);
        if (c.rej) fclose(c.rej);
        printf("%s: skipped, already ingested (batch %lld)\n", name, (long long)other);
        fflush(stdout);
        return 0;
    }
    if (rc == GPI_OK) rc = store_batch_set_sha256(st, batch, res.sha256, res.n_bytes, &d);
    if (rc == GPI_OK) rc = store_batch_commit(st, batch, &c.n, (int64_t)time(NULL), &d);
    else store_batch_rollback(st);
    if (rc != GPI_OK) {
        if (c.rej) fclose(c.rej);
        return failed(name, d.msg);
    }
    int bad_rejects = c.rej && (copy_rejects(c.rej, rejects) != 0 || fflush(rejects) != 0);
    if (c.rej) fclose(c.rej);
    if (c.shown > SHOW_REJECTS)
        cli_error("%s: %ld more rejects not shown (see --rejects or the rejects table)",
                  name, c.shown - SHOW_REJECTS);
    summary(name, &c.n);
    *n_rejected += c.n.rejected > 0;
    if (bad_rejects) {
        cli_error("%s: cannot write the rejects file (the file itself is stored)", name);
        return 1;
    }
    return 0;
}

int cmd_ingest(cli_ctx *ctx, int argc, char **argv)
{
    int kind = -1, strict = 0, admit = 0, i = 1, nfiles = 0;
    const char *source = NULL, *rejects_path = NULL, *kind_hint = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) return 1;
    if (i < argc && (strcmp(argv[i], "offers") == 0 || strcmp(argv[i], "trades") == 0)) {
        kind = argv[i][0] == 'o' ? GPI_OFFER : GPI_TRADE;
        kind_hint = argv[i];
        i++;
    }
    int opts_done = 0;
    for (; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        if (!opts_done && cli_is_help(a)) {
            fputs(help, stdout);
            free(files);
            return 0;
        } else if (!opts_done && strcmp(a, "--") == 0) {
            opts_done = 1;
        } else if (!opts_done && strcmp(a, "--strict") == 0) {
            strict = 1;
        } else if (!opts_done && strcmp(a, "--admit-providers") == 0) {
            admit = 1;
        } else if (!opts_done && ((v = cli_opt(argc, argv, &i, "--source", &missing)) || missing)) {
            if (missing) goto need_value;
            source = v;
        } else if (!opts_done &&
                   ((v = cli_opt(argc, argv, &i, "--rejects", &missing)) || missing)) {
            if (missing) goto need_value;
            rejects_path = v;
        } else if (!opts_done && a[0] == '-' && a[1] != '\0') {
            cli_error("ingest: unknown option '%s' (see gpuidx ingest --help)", a);
            free(files);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
        continue;
    need_value:
        cli_error("ingest: option '%s' needs a value", a);
        free(files);
        return 2;
    }
    if (nfiles == 0) {
        cli_error("ingest: no input files (see gpuidx ingest --help)");
        free(files);
        return 2;
    }
    int dashes = 0;
    for (int k = 0; k < nfiles; k++) dashes += strcmp(files[k], "-") == 0;
    if (dashes > 1) {
        cli_error("ingest: standard input (-) can be read once");
        free(files);
        return 2;
    }
    gpi_diag d = {{0}};
    ingest_tables *t = NULL;
    store *st = NULL;
    FILE *rejects = NULL;
    int status = 0;
    if (ingest_tables_load(cli_data_dir(ctx), &t, &d) != GPI_OK ||
        store_open(ctx->db_path, &st, &d) != GPI_OK) {
        cli_error("%s", d.msg);
        status = 1;
        goto out;
    }
    if (rejects_path) {
        rejects = fopen(rejects_path, "w");
        if (!rejects) {
            cli_error("%s: cannot open for writing", rejects_path);
            status = 1;
            goto out;
        }
        fputs("file,line,column,reason,raw_row\n", rejects);
    }
    int with_rejects = 0;
    for (int k = 0; k < nfiles; k++) {
        ingest_opts opt = {files[k], kind, source, 2, admit};
        if (one_file(st, t, &opt, kind_hint, rejects, &with_rejects) != 0) status = 1;
    }
    if (strict && with_rejects) status = 1;
    if (rejects && fclose(rejects) != 0) {
        cli_error("%s: write error", rejects_path);
        status = 1;
    }
    rejects = NULL;
out:
    if (rejects) fclose(rejects);
    store_close(st);
    ingest_tables_free(t);
    free(files);
    return status;
}
