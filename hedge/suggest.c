/* hedge/suggest.c -- grades built around a rent (hedge compare --suggest).
 *
 * NOTES ON THE DESIGN
 * (1) A published grade is wide (a GPU, a term, every provider) so that no
 *     one provider sets it; a rent is narrow (one instance type in one
 *     zone).  When the wide grades do not track the rent, the hedger wants
 *     to know whether a narrower index would, and which one to ask an
 *     exchange (or a swap dealer) for.  So from what is known of the rent
 *     (hedge_rent_info: GPU, term, scope, provider, region, instance
 *     type) this writes a ladder of candidate grades, each narrower than
 *     the one before, plus one that leaves the renter's own provider out:
 *         GPU + term                       (the shipped style)
 *         + scope
 *         + scope, the renter's provider   (all its regions)
 *         + scope, region
 *         + scope, region, instance type
 *         + scope, instance type           (every region)
 *         + scope, every provider but the renter's
 *     A rung that needs an attribute the rent does not give is left out,
 *     and so is one with the same filters as a rung before it.
 * (2) The candidates are a grades file ({"grades": [...]}, methodology v2
 *     like the shipped grades, every tier): the caller validates it with
 *     the index's own grade parser and computes each candidate's values
 *     from the stored observations without writing anything (index/
 *     series.c); hedge/ never sees the store.  A rung that names a
 *     provider, a region or an instance type is one provider's prices
 *     (region and instance type names are a provider's own), so it asks
 *     for min_providers 1 -- with the default 3 it would never have a
 *     value -- and the verdict says so when it recommends one.
 * (3) Ids are "sug-" and the filters joined with '.', characters outside
 *     [A-Za-z0-9._+-] turned into '-', cut to 64 bytes, and made unique
 *     ignoring case (as grade ids must be) with a "-N" suffix.
 */
#include "hedge/internal.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { F_SCOPE = 1, F_PROVIDER = 2, F_REGION = 4, F_SKU = 8, F_EXCLUDE = 16 };

static const unsigned ladder[] = {
    0,
    F_SCOPE,
    F_SCOPE | F_PROVIDER,
    F_SCOPE | F_REGION,
    F_SCOPE | F_REGION | F_SKU,
    F_SCOPE | F_SKU,
    F_SCOPE | F_EXCLUDE,
};
#define NLADDER (sizeof ladder / sizeof ladder[0])

void hedge_suggestion_free(hedge_suggestion *s)
{
    if (!s) return;
    free(s->c);
    free(s->grades_json);
    memset(s, 0, sizeof *s);
}

/* Appends ".part" (sanitized) to id. */
static void id_add(char *id, size_t cap, const char *part)
{
    size_t n = strlen(id);
    if (n + 1 >= cap) return;
    if (n) id[n++] = '.';
    for (const char *p = part; *p && n + 1 < cap; p++)
        id[n++] = isalnum((unsigned char)*p) || strchr("._+-", *p) ? *p : '-';
    id[n] = '\0';
}

static void what_add(char *what, size_t cap, const char *fmt, const char *v)
{
    size_t n = strlen(what);
    if (n + 2 >= cap) return;
    snprintf(what + n, cap - n, n ? ", " : "");
    n = strlen(what);
    snprintf(what + n, cap - n, fmt, v);
}

static json_t *str_list(const char *v)
{
    json_t *a = json_array();
    json_array_append_new(a, json_string(v));
    return a;
}

gpi_status hedge_suggest(const hedge_rent_info *info, const char *const *gpus, size_t ngpus,
                         hedge_suggestion *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!info || !info->gpu[0] || !gpus || ngpus == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_suggest: the rent's GPU is needed");
    const char *term = info->term[0] ? info->term : "on-demand";
    unsigned have = (info->scope[0] ? F_SCOPE : 0) | (info->provider[0] ? F_PROVIDER | F_EXCLUDE : 0) |
                    (info->region[0] ? F_REGION : 0) | (info->sku[0] ? F_SKU : 0);
    out->c = calloc(NLADDER, sizeof *out->c);
    json_t *root = json_object(), *arr = json_array();
    if (!out->c || !root || !arr) {
        json_decref(root);
        json_decref(arr);
        hedge_suggestion_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (suggest)");
    }
    json_object_set_new(root, "grades", arr);
    unsigned done[NLADDER];
    size_t ndone = 0;
    for (size_t k = 0; k < NLADDER; k++) {
        unsigned f = ladder[k] & have; /* a rung without its attribute */
        if ((ladder[k] & ~(unsigned)F_SCOPE) != (f & ~(unsigned)F_SCOPE)) continue;
        int dup = 0;
        for (size_t j = 0; j < ndone; j++) dup |= done[j] == f;
        if (dup) continue;
        done[ndone++] = f;
        hedge_candidate *c = &out->c[out->n];
        char id[128] = "";
        id_add(id, sizeof id, info->gpu);
        id_add(id, sizeof id, term);
        what_add(c->what, sizeof c->what, "%s", info->gpu);
        size_t wl = strlen(c->what);
        snprintf(c->what + wl, sizeof c->what - wl, " %s", term);
        json_t *g = json_object();
        json_t *gl = json_array();
        for (size_t i = 0; i < ngpus; i++) json_array_append_new(gl, json_string(gpus[i]));
        json_object_set_new(g, "gpu", gl);
        json_object_set_new(g, "term", json_string(term));
        json_object_set_new(g, "min_tier", json_string("unrated"));
        json_object_set_new(g, "method", json_string("v2"));
        if (f & F_SCOPE) {
            id_add(id, sizeof id, info->scope);
            what_add(c->what, sizeof c->what, "%s", info->scope);
            json_object_set_new(g, "scope", str_list(info->scope));
        }
        if (f & F_PROVIDER) {
            id_add(id, sizeof id, info->provider);
            what_add(c->what, sizeof c->what, "at %s", info->provider);
            json_object_set_new(g, "providers", str_list(info->provider));
        }
        if (f & F_REGION) {
            id_add(id, sizeof id, info->region);
            what_add(c->what, sizeof c->what, "in %s", info->region);
            json_object_set_new(g, "regions", str_list(info->region));
        }
        if (f & F_SKU) {
            id_add(id, sizeof id, info->sku);
            what_add(c->what, sizeof c->what, "instance type %s", info->sku);
            if (!(f & F_REGION)) what_add(c->what, sizeof c->what, "%s", "every region");
            json_object_set_new(g, "skus", str_list(info->sku));
        }
        if (f & F_EXCLUDE) {
            char part[80];
            snprintf(part, sizeof part, "not-%s", info->provider);
            id_add(id, sizeof id, part);
            what_add(c->what, sizeof c->what, "every provider but %s", info->provider);
            json_object_set_new(g, "exclude_providers", str_list(info->provider));
        }
        c->one_provider = (f & (F_PROVIDER | F_REGION | F_SKU)) != 0;
        if (c->one_provider) json_object_set_new(g, "min_providers", json_integer(1));
        /* "sug-" + id, at most 64 bytes, unique ignoring case */
        snprintf(c->id, sizeof c->id, "sug-%.60s", id);
        for (int tries = 2;; tries++) {
            int clash = 0;
            for (size_t j = 0; j < out->n; j++) clash |= strcasecmp(out->c[j].id, c->id) == 0;
            if (!clash) break;
            char sfx[16];
            snprintf(sfx, sizeof sfx, "-%d", tries);
            snprintf(c->id, sizeof c->id, "sug-%.*s%s", (int)(60 - strlen(sfx)), id, sfx);
        }
        json_object_set_new(g, "id", json_string(c->id));
        json_array_append_new(arr, g);
        out->n++;
    }
    out->grades_json = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1));
    json_decref(root);
    if (!out->grades_json) {
        hedge_suggestion_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (suggest)");
    }
    return GPI_OK;
}
