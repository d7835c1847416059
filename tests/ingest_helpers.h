/* tests/ingest_helpers.h -- a sink that keeps copies of what ingest_file
 * hands it, the fixed tables of tests/fixtures/tables, and run(): ingest a
 * text as a file and collect.  Shared by tests/test_ingest.c and
 * tests/test_ingest_json.c. */
#ifndef GPI_TESTS_INGEST_HELPERS_H
#define GPI_TESTS_INGEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "tests/testutil.h"

/* ---- a sink that keeps copies ------------------------------------------- */

typedef struct got_obs {
    gpi_obs o;
    char gpu[64], provider[64], group[64], segment[32], ident[256], source[64];
    char correction[160];
} got_obs;

typedef struct got {
    got_obs obs[64];
    int n_obs;
    char rej[64][512];
    char rej_col[64][64];
    char rej_raw[64][256];
    long rej_line[64];
    int n_rej;
    char warn[8][512];
    int n_warn;
} got;

static inline void cp(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static inline int g_obs(void *ud, const gpi_obs *o, const char *raw)
{
    (void)raw;
    got *g = ud;
    if (g->n_obs >= 64) return 1;
    got_obs *k = &g->obs[g->n_obs++];
    k->o = *o;
    cp(k->gpu, sizeof k->gpu, o->gpu);
    cp(k->provider, sizeof k->provider, o->provider);
    cp(k->group, sizeof k->group, o->group);
    cp(k->segment, sizeof k->segment, o->segment);
    cp(k->ident, sizeof k->ident, o->ident);
    cp(k->source, sizeof k->source, o->source);
    cp(k->correction, sizeof k->correction, o->correction);
    return 0;
}

static inline int g_rej(void *ud, long line, const char *col, const char *raw, const char *msg)
{
    got *g = ud;
    if (g->n_rej >= 64) return 1;
    cp(g->rej[g->n_rej], 512, msg);
    cp(g->rej_col[g->n_rej], 64, col ? col : "(row)");
    cp(g->rej_raw[g->n_rej], 256, raw);
    g->rej_line[g->n_rej++] = line;
    return 0;
}

static inline void g_warn(void *ud, const char *msg)
{
    got *g = ud;
    if (g->n_warn < 8) cp(g->warn[g->n_warn++], 512, msg);
}

/* ---- a sink that counts warnings (keeps the first 21 and the last) ----- */

typedef struct warn_count {
    long n;
    char first[21][128], last[128];
} warn_count;

static inline int wc_obs(void *ud, const gpi_obs *o, const char *raw)
{
    (void)ud, (void)o, (void)raw;
    return 0;
}

static inline int wc_rej(void *ud, long line, const char *col, const char *raw, const char *msg)
{
    (void)ud, (void)line, (void)col, (void)raw, (void)msg;
    return 0;
}

static inline void wc_warn(void *ud, const char *msg)
{
    warn_count *w = ud;
    const char *base = strrchr(msg, '/');
    base = base ? base + 1 : msg;
    if (w->n < 21) snprintf(w->first[w->n], sizeof w->first[0], "%s", base);
    snprintf(w->last, sizeof w->last, "%s", base);
    w->n++;
}

static inline ingest_tables *fixture_tables(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/tables", tu_srcdir());
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("tables: %s", d.msg);
    return t;
}

/* run() admits providers that the fixture providers.csv does not list
 * (the tests' rows use many); set to 0 to test their rejection. */
static int ih_admit_providers = 1;
/* run() reads a final line without a line end (ingest --complete) when 1 */
static int ih_complete = 0;
/* run()'s last result (hash, bytes read and held back) */
static ingest_result ih_res;

/* Ingests text as dir/name (cwd = dir so messages carry just name). */
static inline gpi_status run(ingest_tables *t, const char *name, const char *text, int kind, got *g,
                      gpi_diag *d, long *rows)
{
    static char *dir;
    if (!dir) dir = tu_mkdtemp("ingest");
    char *path = tu_write(dir, name, text);
    memset(g, 0, sizeof *g);
    ingest_sink sink = {g_obs, g_rej, g_warn, NULL, g};
    /* messages use the path as given: pass a short relative form */
    char given[4096];
    snprintf(given, sizeof given, "%s", path);
    ingest_opts opt = {.path = given, .kind = kind, .source = "feed", .threads = 1,
                       .admit_providers = ih_admit_providers, .complete = ih_complete};
    ingest_result res;
    gpi_status rc = ingest_file(t, &opt, &sink, &res, d);
    ih_res = res;
    if (rows) *rows = res.rows_read;
    /* rewrite "<dir>/name" to "name" in every message for comparison */
    size_t dl = strlen(dir) + 1;
    for (int i = 0; i < g->n_rej; i++)
        if (strncmp(g->rej[i], dir, dl - 1) == 0) memmove(g->rej[i], g->rej[i] + dl, strlen(g->rej[i] + dl) + 1);
    for (int i = 0; i < g->n_warn; i++)
        if (strncmp(g->warn[i], dir, dl - 1) == 0) memmove(g->warn[i], g->warn[i] + dl, strlen(g->warn[i] + dl) + 1);
    if (rc != GPI_OK && strncmp(d->msg, dir, dl - 1) == 0)
        memmove(d->msg, d->msg + dl, strlen(d->msg + dl) + 1);
    free(path);
    return rc;
}

#endif
