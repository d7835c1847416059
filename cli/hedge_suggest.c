/* cli/hedge_suggest.c -- wiring of `hedge compare --suggest`.
 *
 * hedge/suggest.c writes the candidate grades around the rent as a grades
 * file; here its GPU is resolved to canonical models (data/gpus.csv: the
 * model itself, or every "FAMILY-..." model), the candidates are validated
 * by the index's grade parser, their daily values computed from the
 * stored observations at the present cut-off (index/series.c: nothing is
 * written, nothing registered), and handed to hedge_compare as plain
 * data, like the published grades' values.
 */
#include "cli/hedge_cmd.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void hs_free(hs_state *s)
{
    for (size_t i = 0; s->defs && i < s->sug.n; i++) free(s->defs[i]);
    free(s->defs);
    free(s->missing);
    idx_series_free(s->ser);
    idx_grades_free(s->gs);
    hedge_suggestion_free(&s->sug);
    memset(s, 0, sizeof *s);
}

/* The canonical models gpu names: itself, or the "gpu-..." family. */
static int resolve_gpu(cli_ctx *ctx, const char *gpu, char ***names, size_t *nn,
                       const char **pick, size_t *np)
{
    char path[4200];
    gpi_diag d = {{0}};
    snprintf(path, sizeof path, "%s/gpus.csv", cli_data_dir(ctx));
    if (idx_gpu_names_load(path, names, nn, &d) != GPI_OK) {
        cli_error("%s", d.msg);
        return 1;
    }
    *np = 0;
    size_t gl = strlen(gpu);
    for (size_t i = 0; i < *nn && *np < 16; i++)
        if (strcasecmp((*names)[i], gpu) == 0) {
            pick[0] = (*names)[i];
            *np = 1;
            return 0;
        }
    for (size_t i = 0; i < *nn && *np < 16; i++)
        if (strncasecmp((*names)[i], gpu, gl) == 0 && (*names)[i][gl] == '-') pick[(*np)++] = (*names)[i];
    if (*np == 0) {
        cli_error("--suggest: gpu: not a canonical GPU model or family of %s (got \"%s\")", path,
                  gpu);
        return 1;
    }
    return 0;
}

int hs_build(cli_ctx *ctx, store *db, const hedge_rent *r, const hedge_rent_info *info,
             hs_state *s, hedge_grade_input *in, size_t *nin, size_t cap)
{
    memset(s, 0, sizeof *s);
    char **names = NULL;
    size_t nn = 0, np = 0;
    const char *pick[16];
    gpi_diag d = {{0}};
    int rc = resolve_gpu(ctx, info->gpu, &names, &nn, pick, &np);
    gpi_status st = GPI_OK;
    if (!rc) st = hedge_suggest(info, pick, np, &s->sug, &d);
    if (!rc && st == GPI_OK)
        st = idx_grades_parse(s->sug.grades_json, "suggested grades", (const char *const *)names,
                              nn, &s->gs, &d);
    int32_t from, to;
    hedge_index_range(r, &from, &to);
    if (!rc && st == GPI_OK)
        st = idx_series_compute(db, s->gs, from, to, (int64_t)time(NULL), &s->ser, &d);
    for (size_t i = 0; !rc && st == GPI_OK && i < np; i++) {
        size_t len = strlen(s->gpus);
        snprintf(s->gpus + len, sizeof s->gpus - len, "%s%s", len ? ", " : "", pick[i]);
    }
    idx_names_free(names, nn);
    if (rc) return rc;
    if (st != GPI_OK) {
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    size_t n = s->sug.n, days = s->ser->days;
    if (*nin + n > cap) {
        cli_error("hedge compare: too many grades");
        return 1;
    }
    s->missing = calloc(n, sizeof *s->missing);
    s->defs = calloc(n, sizeof *s->defs);
    json_t *root = json_loads(s->sug.grades_json, 0, NULL);
    if (!s->missing || !s->defs || !root) {
        json_decref(root);
        cli_error("hedge compare: out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        s->defs[i] = json_dumps(json_array_get(json_object_get(root, "grades"), i),
                                JSON_SORT_KEYS | JSON_COMPACT);
        hedge_grade_input *g = &in[(*nin)++];
        g->grade = s->sug.c[i].id;
        g->days = s->ser->v + i * days; /* the computed series, as data */
        g->n = days;
        g->gpu = s->gpus;
        g->suggested = 1;
        g->what = s->sug.c[i].what;
        g->providers = (int)s->ser->g[i].max_providers;
        if (s->ser->g[i].n_level[GPI_LEVEL_SUSPENDED] == (long)days) {
            char a[11], b[11];
            gpi_date_format(from, a);
            gpi_date_format(to, b);
            snprintf(s->missing[i], sizeof s->missing[i],
                     "grade %s: no value on any day from %s to %s (too few offers or "
                     "providers)",
                     g->grade, a, b);
            g->missing = s->missing[i];
        }
    }
    json_decref(root);
    return 0;
}
