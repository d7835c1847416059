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
 * (4) The shipped style (issue 27 item 7): the method and "covers" of the
 *     published grades (hedge_sug_style, read by the caller from the
 *     published grades file), so a suggestion never mixes what the
 *     published grades keep apart (GPU-only and CPU-heavy prices).
 * (5) The renter's own quotes (issue 27 item 1) are the same provider and,
 *     as far as the description goes, the same region, instance type and
 *     zone; the zone is read from offer ids, which for the real catalogue
 *     are "<instance type>@<zone or region>/<count>x/<term>", as the glob
 *     "*@ZONE/" followed by "*".  They are one "exclude" entry
 *     (grade_exclude.c).  A grade built around a rent that holds the
 *     renter's own quotes tracks the rent because it *is* the rent, so by
 *     default every candidate leaves them out (id suffix ".not-own") --
 *     not the whole provider: the other zones of the same provider are a
 *     genuine hedge -- and its twin (the same grade with them, the id
 *     without the suffix) lets compare say how much of it they would
 *     supply.  include_own turns it round.  The rung "every provider but
 *     the renter's" holds none of them and has no twin.  Without a
 *     provider the own quotes are unknown: no exclusion, no twins.
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
    free(s->own_exclude);
    memset(s, 0, sizeof *s);
}

static json_t *str_list(const char *v)
{
    json_t *a = json_array();
    json_array_append_new(a, json_string(v));
    return a;
}

/* Note 5: the own quotes as an "exclude" entry, and in words. */
static json_t *own_entry(const hedge_rent_info *info, char *words, size_t cap);

char *hedge_own_exclude(const hedge_rent_info *info, char *words, size_t cap)
{
    json_t *e = own_entry(info, words, cap);
    char *s = e ? json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    json_decref(e);
    return s;
}

static json_t *own_entry(const hedge_rent_info *info, char *words, size_t cap)
{
    words[0] = '\0';
    if (!info->provider[0]) return NULL;
    json_t *e = json_object();
    json_object_set_new(e, "providers", str_list(info->provider));
    int n = snprintf(words, cap, "%s", info->provider);
    if (info->sku[0]) {
        json_object_set_new(e, "skus", str_list(info->sku));
        n += snprintf(words + n, cap - (size_t)n, " %s", info->sku);
    }
    if (info->region[0]) {
        json_object_set_new(e, "regions", str_list(info->region));
        n += snprintf(words + n, cap - (size_t)n, " in %s", info->region);
    }
    if (info->zone[0]) {
        char glob[96];
        snprintf(glob, sizeof glob, "*@%s/*", info->zone);
        json_object_set_new(e, "ids", str_list(glob));
        snprintf(words + n, cap - (size_t)n, ", zone %s (offer ids %s)", info->zone, glob);
    }
    return e;
}

/* "sug-" + core + tail, at most 64 bytes (core cut), unique ignoring case
 * among used[0..*n) (a "-N" after the core when not), then added there. */
static void unique_id(char out[65], const char *core, const char *tail, char (*used)[65],
                      size_t *n)
{
    for (int tries = 1;; tries++) {
        char sfx[16] = "";
        if (tries > 1) snprintf(sfx, sizeof sfx, "-%d", tries);
        snprintf(out, 65, "sug-%.*s%s%s", (int)(60 - strlen(sfx) - strlen(tail)), core, sfx, tail);
        int clash = 0;
        for (size_t j = 0; j < *n; j++) clash |= strcasecmp(used[j], out) == 0;
        if (!clash) break;
    }
    snprintf(used[(*n)++], 65, "%s", out);
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

gpi_status hedge_suggest(const hedge_rent_info *info, const char *const *gpus, size_t ngpus,
                         const hedge_sug_style *style, int include_own, hedge_suggestion *out,
                         gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!info || !info->gpu[0] || !gpus || ngpus == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_suggest: the rent's GPU is needed");
    const char *term = info->term[0] ? info->term : "on-demand";
    unsigned have = (info->scope[0] ? F_SCOPE : 0) | (info->provider[0] ? F_PROVIDER | F_EXCLUDE : 0) |
                    (info->region[0] ? F_REGION : 0) | (info->sku[0] ? F_SKU : 0);
    out->c = calloc(NLADDER, sizeof *out->c);
    json_t *root = json_object(), *arr = json_array(), *twins = json_array();
    json_t *own = own_entry(info, out->own_words, sizeof out->own_words);
    if (!out->c || !root || !arr || !twins) {
        json_decref(root);
        json_decref(arr);
        json_decref(twins);
        json_decref(own);
        hedge_suggestion_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (suggest)");
    }
    json_object_set_new(root, "grades", arr);
    if (own) out->own_exclude = json_dumps(own, JSON_SORT_KEYS | JSON_COMPACT);
    unsigned done[NLADDER];
    size_t ndone = 0, nused = 0;
    char used[2 * NLADDER][65];
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
        json_object_set_new(g, "method",
                            json_string(style && style->method[0] ? style->method : "v2"));
        if (style && style->n_covers > 0) {
            json_t *cv = json_array();
            for (int k2 = 0; k2 < style->n_covers && k2 < 4; k2++)
                json_array_append_new(cv, json_string(style->covers[k2]));
            json_object_set_new(g, "covers", cv);
        }
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
        unique_id(c->id, id, "", used, &nused);
        /* note 5: own quotes out (by default) and the twin */
        c->own_in = 1;
        c->twin = -1;
        if (own && !(f & F_EXCLUDE)) {
            json_t *tw = json_deep_copy(g);
            char base[65], other[65];
            snprintf(base, sizeof base, "%s", c->id);
            unique_id(other, id, ".not-own", used, &nused);
            json_t *ex_g = include_own ? tw : g, *in_g = include_own ? g : tw;
            json_t *ex = json_array();
            json_array_append_new(ex, json_deep_copy(own));
            json_object_set_new(ex_g, "exclude", ex);
            json_object_set_new(in_g, "id", json_string(base));
            json_object_set_new(ex_g, "id", json_string(other));
            if (!include_own) {
                snprintf(c->id, sizeof c->id, "%s", other);
                what_add(c->what, sizeof c->what, "%s", "without your own quotes");
                c->own_in = 0;
            }
            c->twin = (long)json_array_size(twins); /* made absolute below */
            json_array_append_new(twins, tw);
        } else {
            json_object_set_new(g, "id", json_string(c->id));
        }
        json_array_append_new(arr, g);
        out->n++;
    }
    for (size_t k = 0; k < out->n; k++)
        if (out->c[k].twin >= 0) out->c[k].twin += (long)out->n;
    for (size_t k = 0; k < json_array_size(twins); k++)
        json_array_append(arr, json_array_get(twins, k));
    out->n_grades = json_array_size(arr);
    json_decref(twins);
    json_decref(own);
    out->grades_json = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1));
    json_decref(root);
    if (!out->grades_json) {
        hedge_suggestion_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (suggest)");
    }
    return GPI_OK;
}
