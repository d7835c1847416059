/* cli/cmd_ingest.c -- `gpuidx ingest`: files -> the store (SPEC §3, §13).
 *
 * Parses the arguments and prints; the rules of what reaches the
 * database (one transaction per file, skip by hash, the count check,
 * rejects recorded and buffered until the file commits) are load/'s
 * (load/load.h).  Rejects go to the rejects table and, with --rejects
 * FILE, to a CSV (file,line,column,reason,raw_row); the first
 * SHOW_REJECTS of a file are printed as they come.
 *
 * Output (stable): one line per file on stdout,
 *   PATH: read R, stored S, duplicates D, rejected X
 *   PATH: skipped, already ingested (batch N)
 *   PATH: failed, nothing stored
 * with R = S + D + X; errors, warnings and the first rejects on stderr.
 * Exit 1 when any file failed (or had rejects with --strict), else 0.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "load/load.h"
#include "store/batches.h"
#include "store/store.h"

#define SHOW_REJECTS 5

/* What the terminal shows of one file while it is read. */
typedef struct show_ctx {
    const char *name;
    long shown;             /* rejects seen (the first SHOW_REJECTS printed) */
    int progress_shown;     /* a progress line is open on stderr */
} show_ctx;

static void end_progress(show_ctx *s)
{
    if (s->progress_shown) fputc('\n', stderr);
    s->progress_shown = 0;
}

static void on_reject(void *ud, const char *msg)
{
    show_ctx *s = ud;
    if (s->shown++ < SHOW_REJECTS) {
        end_progress(s);
        cli_error("%s", msg);
    }
}

static void on_warn(void *ud, const char *msg)
{
    show_ctx *s = ud;
    end_progress(s);
    cli_error("warning: %s", msg);
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    show_ctx *s = ud;
    if (total)
        fprintf(stderr, "\r%s: %3d%%", s->name, (int)(done * 100 / total));
    s->progress_shown = 1;
}

/* Ingests one file (load_file) and prints what became of it; returns 0
 * ok, 1 failed. */
static int one_file(store *st, const ingest_tables *t, const ingest_opts *opt,
                    const char *kind_hint, FILE *rejects, int *n_rejected)
{
    gpi_diag d = {{0}};
    show_ctx s = {strcmp(opt->path, "-") == 0 ? "stdin" : opt->path, 0, 0};
    load_events ev = {on_reject, on_warn, isatty(STDERR_FILENO) ? on_progress : NULL, &s};
    load_opts lo = {kind_hint, rejects, NULL};
    load_result res;
    gpi_status rc = load_file(st, t, opt, &lo, &ev, &res, &d);
    end_progress(&s);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
        printf("%s: failed, nothing stored\n", res.name);
        fflush(stdout);
        return 1;
    }
    if (res.outcome == LOAD_SKIPPED) {
        printf("%s: skipped, already ingested (batch %lld)\n", res.name, (long long)res.batch);
        fflush(stdout);
        return 0;
    }
    if (s.shown > SHOW_REJECTS)
        cli_error("%s: %ld more rejects not shown (see --rejects or the rejects table)",
                  res.name, s.shown - SHOW_REJECTS);
    printf("%s: read %ld, stored %ld, duplicates %ld, rejected %ld\n", res.name, res.n.read,
           res.n.stored, res.n.duplicates, res.n.rejected);
    fflush(stdout);
    *n_rejected += res.n.rejected > 0;
    if (res.rejects_unwritten) {
        cli_error("%s", d.msg);
        return 1;
    }
    return 0;
}

/* ingest --regroup (load/regroup.c): prints what moved. */
static int do_regroup(cli_ctx *ctx)
{
    gpi_diag d = {{0}};
    ingest_tables *t = NULL;
    store *st = NULL;
    store_regroup_result res;
    gpi_status rc = ingest_tables_load(cli_data_dir(ctx), &t, &d);
    if (rc == GPI_OK) rc = store_open(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = load_regroup(st, t, &res, &d);
    if (rc != GPI_OK) {
        cli_error("%s", d.msg);
    } else if (!res.rows) {
        printf("regroup: every stored row has its providers.csv group already\n");
    } else {
        char a[11], b[11];
        gpi_date_format(res.first_day, a);
        gpi_date_format(res.last_day, b);
        printf("regroup: %lld rows of %ld profiles moved to their providers.csv provider and "
               "group (batch %lld), days %s..%s\n",
               (long long)res.rows, res.profiles, (long long)res.batch, a, b);
        cli_error("ingest --regroup: the days %s..%s changed: gpuidx index build --from %s --to "
                  "%s (published days: then gpuidx index publish --restate --out DIR)",
                  a, b, a, b);
    }
    store_close(st);
    ingest_tables_free(t);
    return gpi_exit_code(rc);
}

int cmd_ingest(cli_ctx *ctx, int argc, char **argv)
{
    int kind = -1, strict = 0, admit = 0, complete = 0, regroup = 0, nfiles = 0;
    const char *source = NULL, *rejects_path = NULL, *kind_hint = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) return 1;
    if (argc > 1 && (strcmp(argv[1], "offers") == 0 || strcmp(argv[1], "trades") == 0)) {
        kind = argv[1][0] == 'o' ? GPI_OFFER : GPI_TRADE;
        kind_hint = argv[1];
        argc--, argv++;
    }
    const cli_opt_spec spec[] = {{"--strict", NULL, &strict},
                                 {"--admit-providers", NULL, &admit},
                                 {"--complete", NULL, &complete},
                                 {"--regroup", NULL, &regroup},
                                 {"--source", &source, NULL},
                                 {"--rejects", &rejects_path, NULL},
                                 {NULL, NULL, NULL}};
    const cli_args args = {"ingest", "ingest", "ingest", spec, NULL, NULL, files, argc, &nfiles, 1, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) {
        free(files);
        return ec;
    }
    if (regroup) {
        free(files);
        if (nfiles || kind >= 0) {
            cli_error("ingest --regroup: takes no files and no kind");
            return 2;
        }
        return do_regroup(ctx);
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
        load_rejects_header(rejects);
    }
    int with_rejects = 0;
    for (int k = 0; k < nfiles; k++) {
        ingest_opts opt = {files[k], kind, source, 2, admit, 0, complete};
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
