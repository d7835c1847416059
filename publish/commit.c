/* publish/commit.c -- what a vintage of file format 4 commits to besides
 * its fixes (METHODOLOGY.md §7.1): the ingested files its fixes could
 * see, each row's cut-off, and the signing key's fingerprint.
 *
 * NOTES ON THE DESIGN
 * (1) "inputs" lists every batch holding observations of the day that
 *     was ingested at or before the latest cut-off of the vintage's rows
 *     (the batches of store_day_batches, which each row's receipt already
 *     names by SHA-256), in ingestion order, with what re-ingesting it
 *     needs: its SHA-256 (of the bytes, decompressed), its rows, the
 *     second it counts as ingested, its source (the feed name rows
 *     without a source column take: --source, else the file's name), the
 *     kind it was ingested as, the tables' SHA-256 and the options.  A
 *     row's own cut-off ("cut_off") says which of them it could see: those
 *     ingested at or before it.  `gpuidx verify --inputs` re-ingests the
 *     files into a scratch store at those stamps and compares the
 *     observations each fix lists with the eligible ones (verify/inputs.c):
 *     receipts commit to what was published, this commits to what was
 *     received.
 * (2) Everything is read from the store at the rows' cut-offs, which
 *     later ingests never change, so a vintage of format 4 regenerates
 *     byte for byte like the others.  No scan of the day's observations
 *     is added (the batches' day ranges answer, store_index.c).
 */
#include "publish/internal.h"
#include "store/admin.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(FILE *f, const char *key, const char *v, int comma)
{
    fprintf(f, "%s\"%s\":", comma ? "," : "", key);
    if (!v) {
        fputs("null", f);
        return;
    }
    json_t *js = json_string(v);
    char *t = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "null", f);
    free(t);
    json_decref(js);
}

typedef struct in_ctx {
    FILE *f;
    int n;
} in_ctx;

/* The feed name the file's rows without a source column were given
 * (ingest/ingest.c: --source, else the file's name; "stdin" for "-"). */
static const char *pub_input_source(const store_input *b)
{
    if (b->source && *b->source) return b->source;
    if (strcmp(b->path, "-") == 0) return "stdin";
    const char *base = strrchr(b->path, '/');
    return base ? base + 1 : b->path;
}

static int one_input(const store_input *b, void *ud)
{
    in_ctx *c = ud;
    char t[21];
    gpi_time_format(b->ingested_at, t);
    fprintf(c->f, "%s{\"sha256\":\"%s\"", c->n++ ? ",\n" : "\n", b->sha256);
    const char *base = strrchr(b->path, '/');
    json_str(c->f, "file", base ? base + 1 : b->path, 1);
    json_str(c->f, "source", pub_input_source(b), 1);
    json_str(c->f, "kind", b->kind_hint, 1);
    fprintf(c->f, ",\"rows\":%lld,\"ingested_at\":\"%s\"", (long long)b->n_read, t);
    json_str(c->f, "tables_sha256", b->tables_sha256 && *b->tables_sha256 ? b->tables_sha256 : NULL,
             1);
    json_str(c->f, "options", b->options, 1);
    fputc('}', c->f);
    return 0;
}

gpi_status pub_commit_top(store *st, int32_t day, const pub_rows *p, const char *fingerprint,
                          FILE *f, gpi_diag *d)
{
    if (fingerprint && *fingerprint)
        fprintf(f, "\"key_fingerprint\":\"%s\",", fingerprint);
    else
        fputs("\"key_fingerprint\":null,", f);
    int64_t as_of = INT64_MIN;
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].as_of > as_of) as_of = p->v[i].as_of;
    fputs("\"inputs\":[", f);
    in_ctx c = {f, 0};
    gpi_status rc = p->n ? store_day_inputs(st, day, as_of, one_input, &c, d) : GPI_OK;
    fputs(c.n ? "\n]," : "],", f);
    return rc;
}

gpi_status pub_commit_row(store *st, int32_t day, const pub_row *r, FILE *f, gpi_diag *d)
{
    (void)st;
    (void)day;
    (void)d;
    char t[21];
    gpi_time_format(r->as_of, t);
    fprintf(f, ",\"cut_off\":\"%s\"", t);
    return GPI_OK;
}
