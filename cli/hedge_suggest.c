/* cli/hedge_suggest.c -- wiring of `hedge compare`'s own quotes and of
 * `compare --suggest`.
 *
 * hedge/suggest.c writes the candidate grades around the rent (and their
 * twins, with or without the renter's own quotes) as a grades file, in
 * the published grades' style (the method and "covers" of the grades file
 * of the data directory); here its GPU is resolved to canonical models
 * (data/gpus.csv: the model itself, or every "FAMILY-..." model), the
 * candidates are validated by the index's grade parser, and their daily
 * values computed from the stored observations at the present cut-off
 * (index/series.c: nothing is written, nothing registered).  Their values
 * end on the last day of data -- the last day on which one of them has a
 * fix of its own, not a carried value -- so a candidate pasted into a
 * grades file and built over the printed days gives the printed figures.
 *
 * The renter's own quotes (the "exclude" entry hedge/suggest.c writes
 * from the description) are measured in every grade: for a published
 * grade its definition (from the grades file, or stored with its values)
 * is computed twice, as it is and with the entry, and the index says how
 * much of its fixes the quotes the twin leaves out supply
 * (idx_own_shares); for a suggestion, its twin is the other of the pair.
 * Everything is handed to hedge_compare as plain data.
 */
#include "cli/hedge_cmd.h"
#include "store/index_values.h"

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
    free(s->own);
    free(s->pown);
    idx_series_free(s->ser);
    idx_series_free(s->pser);
    idx_grades_free(s->gs);
    idx_grades_free(s->pgs);
    for (size_t i = 0; s->pdefs && i < s->npdefs; i++) idx_grades_free(s->pdefs[i]);
    free(s->pdefs);
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

/* The published grades' style: the method and "covers" of the first grade
 * of the data directory's grades file (v2 and every kind when it cannot
 * be read). */
static void shipped_style(cli_ctx *ctx, hedge_sug_style *st)
{
    memset(st, 0, sizeof *st);
    snprintf(st->method, sizeof st->method, "v2");
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_load_data(cli_data_dir(ctx), NULL, &gs, &d) != GPI_OK || !gs || gs->n == 0) {
        idx_grades_free(gs);
        return;
    }
    const idx_grade *g = &gs->g[0];
    snprintf(st->method, sizeof st->method, "v%d", g->method);
    if (g->covers_mask != (1u << GPI_COVERS__N) - 1)
        for (int cv = 0; cv < GPI_COVERS__N && st->n_covers < 4; cv++)
            if (g->covers_mask & (1u << cv))
                snprintf(st->covers[st->n_covers++], sizeof st->covers[0], "%s", gpi_covers_name(cv));
    idx_grades_free(gs);
}

/* The last day of [s->from, s->to] on which a grade of ser has a fix of
 * its own (trades or offers level); from - 1 when none. */
static int32_t last_data_day(const idx_series *ser)
{
    for (size_t k = ser->days; k-- > 0;)
        for (size_t gi = 0; gi < ser->n; gi++) {
            int lv = ser->v[gi * ser->days + k].level;
            if (lv == GPI_LEVEL_TRADES || lv == GPI_LEVEL_OFFERS) return ser->from + (int32_t)k;
        }
    return ser->from - 1;
}

/* The own share of grade gi of a set as an input's own part. */
static void own_of(const idx_own *o, int in, hedge_own_input *out)
{
    out->known = 1;
    out->in = in;
    out->share = o->share;
    out->days = o->days;
    out->median_days = o->median_days;
    out->any_days = o->any_days;
}

/* The suggestions: candidates, values, own shares, inputs. */
static int suggestions(cli_ctx *ctx, store *db, const hedge_rent *r, const hedge_rent_info *info,
                       int include_own, hs_state *s, hedge_grade_input *in, size_t *nin,
                       size_t cap)
{
    char **names = NULL;
    size_t nn = 0, np = 0;
    const char *pick[16];
    gpi_diag d = {{0}};
    hedge_sug_style style;
    shipped_style(ctx, &style);
    int rc = resolve_gpu(ctx, info->gpu, &names, &nn, pick, &np);
    gpi_status st = GPI_OK;
    if (!rc) st = hedge_suggest(info, pick, np, &style, include_own, &s->sug, &d);
    if (!rc && st == GPI_OK)
        st = idx_grades_parse(s->sug.grades_json, "suggested grades", (const char *const *)names,
                              nn, &s->gs, &d);
    int32_t from, to;
    hedge_index_range(r, &from, &to);
    int64_t now = (int64_t)time(NULL);
    if (!rc && st == GPI_OK) st = idx_series_compute(db, s->gs, from, to, now, &s->ser, &d);
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
    /* item 7: the values end on the last day of data, no carried tail */
    s->from = from;
    s->to = last_data_day(s->ser);
    if (s->to < from) { /* no data: said, never "from .. from, the last day of data" */
        s->to = from;
        s->none_to = to;
    }
    size_t n = s->sug.n, days = s->ser->days, used = (size_t)(s->to - from + 1);
    long *twin = malloc(s->gs->n * sizeof *twin);
    s->own = calloc(s->gs->n, sizeof *s->own);
    if (!twin || !s->own) {
        free(twin);
        cli_error("hedge compare: out of memory");
        return 1;
    }
    for (size_t i = 0; i < s->gs->n; i++) twin[i] = -1;
    /* the share is always of the grade with the own quotes: the candidate
     * (include_own) or its twin, whose twin is then the candidate */
    for (size_t i = 0; i < n; i++) {
        const hedge_candidate *c = &s->sug.c[i];
        if (c->twin < 0) continue;
        if (c->own_in) twin[i] = c->twin;
        else twin[c->twin] = (long)i;
    }
    if (s->sug.own_exclude &&
        (st = idx_own_shares(db, s->gs, twin, from, s->to, now, s->own, &d)) != GPI_OK) {
        free(twin);
        cli_error("%s", d.msg);
        return gpi_exit_code(st);
    }
    free(twin);
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
        const hedge_candidate *c = &s->sug.c[i];
        s->defs[i] = json_dumps(json_array_get(json_object_get(root, "grades"), i),
                                JSON_SORT_KEYS | JSON_COMPACT);
        hedge_grade_input *g = &in[(*nin)++];
        g->grade = c->id;
        g->days = s->ser->v + i * days; /* the computed series, as data */
        g->n = used;
        g->gpu = s->gpus;
        g->suggested = 1;
        g->what = c->what;
        g->providers = (int)s->ser->g[i].max_providers;
        if (c->twin >= 0) {
            own_of(&s->own[c->own_in ? i : (size_t)c->twin], c->own_in, &g->own);
            g->own.twin = s->ser->v + (size_t)c->twin * days;
            g->own.n_twin = used;
            g->own.twin_grade = s->gs->g[c->twin].id;
        } else if (s->sug.own_exclude) {
            g->own.known = 1; /* leaves the renter's whole provider out */
            g->own.in = 0;
        }
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

/* The last stored definition hash of a grade in [from, to]. */
typedef struct last_hash {
    char hash[65];
} last_hash;

static int keep_hash(const store_index_row *row, void *ud)
{
    last_hash *h = ud;
    if (row->grade_hash[0]) snprintf(h->hash, sizeof h->hash, "%s", row->grade_hash);
    return 0;
}

idx_grades *hc_stored_def(store *db, const char *grade, int32_t from, int32_t to)
{
    last_hash h = {""};
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    if (store_index_rows(db, grade, from, to, keep_hash, &h, &d) != GPI_OK || !h.hash[0])
        return NULL;
    if (idx_grade_stored(db, h.hash, &gs, &d) != GPI_OK || !gs || gs->n == 0) {
        idx_grades_free(gs);
        return NULL;
    }
    return gs;
}

/* A published grade's definition: from its grades file, else the one
 * stored with it (kept in s->pdefs); NULL when none. */
static const idx_grade *pub_def(store *db, const char *grade, const idx_grade *given,
                                int32_t from, int32_t to, hs_state *s)
{
    if (given) return given;
    idx_grades *gs = hc_stored_def(db, grade, from, to);
    if (!gs) return NULL;
    s->pdefs[s->npdefs++] = gs;
    return &gs->g[0];
}

/* The published grades in[0..npub): each with a definition computed as
 * it is and without the own quotes, and measured.  A grade of another
 * term than the rent's cannot hold the renter's quotes (an on-demand
 * price is not a spot renter's bill): share 0, no twin. */
static int published_twins(store *db, const hedge_rent *r, const hedge_rent_info *info,
                           const idx_grade *const *defs, size_t npub, hs_state *s,
                           hedge_grade_input *in)
{
    char rent_term[32];
    snprintf(rent_term, sizeof rent_term, "%s", info->term[0] ? info->term : "on-demand");
    gpi_diag d = {{0}};
    int32_t from, to;
    hedge_index_range(r, &from, &to);
    s->pdefs = calloc(npub + 1, sizeof *s->pdefs);
    long *at = malloc((npub + 1) * sizeof *at);
    json_t *root = json_object(), *arr = json_array();
    json_t *own = json_loads(s->sug.own_exclude, 0, NULL);
    int rc = 0;
    if (!s->pdefs || !at || !root || !arr || !own) {
        cli_error("hedge compare: out of memory");
        rc = 1;
        goto done;
    }
    json_object_set_new(root, "grades", arr);
    size_t k = 0;
    for (size_t i = 0; i < npub; i++) {
        at[i] = -1;
        if (in[i].missing) continue;
        const idx_grade *g = pub_def(db, in[i].grade, defs ? defs[i] : NULL, from, to, s);
        json_t *copy = g ? json_loads(g->canon, 0, NULL) : NULL;
        if (!copy) continue;
        const char *term = json_string_value(json_object_get(copy, "term"));
        if (term && strcasecmp(term, rent_term) != 0) {
            json_decref(copy);
            in[i].own.known = in[i].own.in = 1; /* share 0: another term */
            continue;
        }
        json_t *tw = json_deep_copy(copy), *ex = json_array();
        char id[32];
        snprintf(id, sizeof id, "pub%zu", k);
        json_object_set_new(copy, "id", json_string(id));
        snprintf(id, sizeof id, "pub%zu.not-own", k);
        json_object_set_new(tw, "id", json_string(id));
        json_array_append(ex, own);
        json_object_set_new(tw, "exclude", ex);
        json_array_append_new(arr, copy);
        json_array_append_new(arr, tw);
        at[i] = (long)k++;
    }
    if (k == 0) goto done;
    char *text = json_dumps(root, JSON_COMPACT);
    gpi_status st = text ? idx_grades_parse(text, "published grades", NULL, IDX_TRUST_GPUS,
                                            &s->pgs, &d)
                         : gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
    free(text);
    int64_t now = (int64_t)time(NULL);
    if (st == GPI_OK) st = idx_series_compute(db, s->pgs, from, to, now, &s->pser, &d);
    long *twin = st == GPI_OK ? malloc(s->pgs->n * sizeof *twin) : NULL;
    if (st == GPI_OK && !(twin && (s->pown = calloc(s->pgs->n, sizeof *s->pown))))
        st = gpi_diag_set(&d, GPI_ENOMEM, "hedge compare: out of memory");
    if (st == GPI_OK) {
        for (size_t j = 0; j < s->pgs->n; j++) twin[j] = j % 2 ? -1 : (long)j + 1;
        st = idx_own_shares(db, s->pgs, twin, from, to, now, s->pown, &d);
    }
    free(twin);
    if (st != GPI_OK) {
        cli_error("%s", d.msg);
        rc = gpi_exit_code(st);
        goto done;
    }
    for (size_t i = 0; i < npub; i++) {
        if (at[i] < 0) continue;
        size_t c = 2 * (size_t)at[i], days = s->pser->days;
        own_of(&s->pown[c], 1, &in[i].own);
        /* the twin's values over the days the published values cover */
        int32_t last = in[i].n ? in[i].days[in[i].n - 1].day : from;
        in[i].own.twin = s->pser->v + (c + 1) * days;
        in[i].own.n_twin = last < from ? 0 : (size_t)(last - from + 1) < days
                                                 ? (size_t)(last - from + 1)
                                                 : days;
    }
done:
    json_decref(root);
    json_decref(own);
    free(at);
    return rc;
}

int hs_build(cli_ctx *ctx, store *db, const hedge_rent *r, const hedge_rent_info *info,
             int suggest, int include_own, const idx_grade *const *defs, hs_state *s,
             hedge_grade_input *in, size_t *nin, size_t cap)
{
    memset(s, 0, sizeof *s);
    size_t npub = *nin;
    int rc = 0;
    if (suggest) {
        rc = suggestions(ctx, db, r, info, include_own, s, in, nin, cap);
    } else {
        /* the own quotes without suggestions (hedge/suggest.c writes them) */
        s->sug.own_exclude = hedge_own_exclude(info, s->sug.own_words, sizeof s->sug.own_words);
    }
    snprintf(s->own_words, sizeof s->own_words, "%s", s->sug.own_words);
    if (!rc && s->sug.own_exclude && npub) rc = published_twins(db, r, info, defs, npub, s, in);
    return rc;
}
