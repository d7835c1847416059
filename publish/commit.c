/* publish/commit.c -- what file format 4 adds to a vintage (METHODOLOGY.md
 * §7.1, §12): the ingested files its fixes could see, each row's cut-off
 * and the signing key's fingerprint; per row the bootstrap interval and
 * confidence flag of its fix and the stale share of its providers.
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
 * (3) A row's interval and flag (index/bootstrap.c) are computed from the
 *     text publication writes -- its lines of observations.csv, captured
 *     by files.c as they are written, and its index.json object read back
 *     with numbers as text -- so `gpuidx verify` computes the same from
 *     the files.  The stale share looks back, for each used offer, at most
 *     IDX_STALE_DAYS + 15 days of its identity's prices at the row's
 *     cut-off (store_price_age: one primary-key seek a day, stopping at the
 *     first other price or once IDX_STALE_DAYS are covered).  Both are
 *     publication's work, never the build's.
 */
#include "publish/internal.h"
#include "core/json_text.h"
#include "index/stale.h"
#include "store/admin.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
    pub_json_text(c->f, "file", base ? base + 1 : b->path);
    pub_json_text(c->f, "source", pub_input_source(b));
    pub_json_text(c->f, "kind", b->kind_hint);
    fprintf(c->f, ",\"rows\":%lld,\"ingested_at\":\"%s\"", (long long)b->n_read, t);
    pub_json_text(c->f, "tables_sha256", b->tables_sha256);
    pub_json_text(c->f, "options", b->options);
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

/* The stale share of a row (note 3): the share of the groups of its
 * cross-section's level whose every used offer's price has stood for
 * IDX_STALE_DAYS days or more; -1 when the day has no such level. */
static gpi_status stale_share(store *st, int32_t day, int64_t as_of, int level,
                              const pub_capture *c, int64_t *share, long *n_stale, long *n_groups,
                              gpi_diag *d)
{
    *share = -1;
    *n_stale = *n_groups = 0;
    if (level != GPI_LEVEL_TRADES && level != GPI_LEVEL_OFFERS) return GPI_OK;
    int kind = level == GPI_LEVEL_TRADES ? GPI_TRADE : GPI_OFFER;
    /* per group (interned names: pointers compare) whether every offer is stale */
    const char **grp = malloc((c->n + 1) * sizeof *grp);
    signed char *stale = malloc(c->n + 1);
    if (!grp || !stale) {
        free(grp);
        free(stale);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    size_t ng = 0;
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < c->n && rc == GPI_OK; i++) {
        const idx_boot_line *l = &c->v[i];
        if (!l->used || l->kind != kind) continue;
        size_t g = 0;
        while (g < ng && grp[g] != l->group) g++;
        if (g == ng) {
            grp[ng] = l->group;
            stale[ng++] = kind == GPI_OFFER; /* trades are never carried forward */
        }
        if (!stale[g]) continue;
        int age = 0;
        rc = store_price_age(st, c->key[i], l->price_micro, day, as_of, IDX_STALE_DAYS,
                             IDX_STALE_DAYS + IDX_AGE_SLACK, &age, d);
        if (age < IDX_STALE_DAYS) stale[g] = 0;
    }
    for (size_t g = 0; g < ng; g++) *n_stale += stale[g];
    *n_groups = (long)ng;
    if (ng) *share = gpi_div_round((__int128)*n_stale * 1000000, (__int128)ng);
    free(grp);
    free(stale);
    return rc;
}

static void put_e4(FILE *f, int64_t v, int json)
{
    char t[32];
    if (v < 0)
        fputs(json ? "null" : "", f);
    else
        fputs(gpi_fixed_format(v, 4, t), f);
}

gpi_status pub_commit_row(store *st, int32_t day, const pub_row *r, const pub_capture *c,
                          pub_extra *x, gpi_diag *d)
{
    x->csv[0] = '\0';
    x->json = NULL;
    /* the row as its text, numbers kept as written (core/json_text.h) */
    size_t n = strlen(r->json);
    char *wrapped = malloc(n + 3);
    if (!wrapped) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    wrapped[0] = '{';
    memcpy(wrapped + 1, r->json, n);
    memcpy(wrapped + n + 1, "}", 2);
    char *q = gpi_json_quote_numbers(wrapped, n + 2);
    free(wrapped);
    json_error_t je;
    json_t *row = q ? json_loads(q, 0, &je) : NULL;
    free(q);
    if (!row) return gpi_diag_set(d, GPI_ENOMEM, "publish: the row of %s cannot be read again", r->grade);
    idx_grades *gs = NULL;
    gpi_status rc = pub_grade_load(st, r->hash, &gs, d);
    json_t *xl = json_object_get(row, "xs_level");
    int level = json_is_string(xl) ? gpi_level_parse(json_string_value(xl)) : r->level;
    int64_t share = -1;
    long n_stale = 0, n_groups = 0;
    if (rc == GPI_OK)
        rc = stale_share(st, day, r->as_of, level, c, &share, &n_stale, &n_groups, d);
    idx_boot_result b;
    if (rc == GPI_OK) rc = idx_boot_row(row, &gs->g[0], c->v, c->n, day, share, &b, d);
    json_decref(row);
    idx_grades_free(gs);
    if (rc != GPI_OK) return rc;
    size_t len = 0;
    FILE *f = open_memstream(&x->json, &len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    char t[32];
    gpi_time_format(r->as_of, t);
    fprintf(f, ",\"cut_off\":\"%s\",\"ci_low\":", t);
    put_e4(f, b.iv.lo_e4, 1);
    fputs(",\"ci_high\":", f);
    put_e4(f, b.iv.hi_e4, 1);
    fprintf(f, ",\"confidence\":\"%s\",\"confidence_rule\":\"%s\"", idx_conf_name(b.flag), b.why);
    if (b.iv.lo_e4 >= 0)
        fprintf(f, ",\"bootstrap\":{\"resamples\":%d,\"seed\":\"%016llx\",\"groups\":%ld,"
                   "\"imputed\":%ld}",
                IDX_BOOT_RESAMPLES, (unsigned long long)idx_boot_seed(r->grade, day), b.iv.groups,
                b.iv.imputed);
    else
        fputs(",\"bootstrap\":null", f);
    fputs(",\"stale_share\":", f);
    if (share >= 0)
        fprintf(f, "%s,\"stale_groups\":%ld,\"stale_days\":%d", gpi_fixed_format(share, 6, t),
                n_stale, IDX_STALE_DAYS);
    else
        fprintf(f, "null,\"stale_groups\":null,\"stale_days\":%d", IDX_STALE_DAYS);
    if (fclose(f) != 0 || !x->json) {
        free(x->json);
        x->json = NULL;
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    /* index.csv: ci_low,ci_high,confidence,stale_share */
    FILE *g = fmemopen(x->csv, sizeof x->csv, "w");
    if (!g) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    fputc(',', g);
    put_e4(g, b.iv.lo_e4, 0);
    fputc(',', g);
    put_e4(g, b.iv.hi_e4, 0);
    fprintf(g, ",%s,", idx_conf_name(b.flag));
    if (share >= 0) fputs(gpi_fixed_format(share, 6, t), g);
    fputc('\0', g);
    fclose(g);
    return GPI_OK;
}

gpi_status pub_obs_lines_stale(store *st, int32_t day, const idx_grade *g, const idx_detail *lv,
                               int64_t as_of, int xs_level, char **text, size_t *len,
                               int64_t *share, long *n_stale, long *n_groups, gpi_diag *d)
{
    pub_capture cap = {0};
    gpi_status rc = pub_obs_lines_capture(st, day, g, lv, as_of, text, len, &cap, d);
    if (rc == GPI_OK && cap.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (rc == GPI_OK) rc = stale_share(st, day, as_of, xs_level, &cap, share, n_stale, n_groups, d);
    pub_capture_free(&cap);
    if (rc != GPI_OK) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    return rc;
}
