/* index/grades.c -- grade files: parse, validate, canonicalize (SPEC §4).
 *
 * A grade file is {"grades": [ {...}, ... ]}.  Every field is checked and
 * every mistake is refused with the field's path and the value given
 * ("grades.json: grades[2].min_tier: unknown tier (got \"diamond\")"):
 * silently ignoring a misspelt filter would build a different benchmark
 * than the designer meant.
 *
 * Canonical form: after validation each grade is re-emitted as compact
 * JSON with sorted keys, lists sorted and de-duplicated, enumerations in
 * their canonical spelling and every parameter written out as an exact
 * decimal string.  Its SHA-256 is the definition hash stored with every
 * value the grade produces; the canonical text itself parses back to the
 * same grade (publication re-derives fixes from it).
 *
 * Three files: grades.c parses, validates and canonicalizes a grade
 * file's text; grade_set.c reads grade files (and gpus.csv's names) into
 * sets and frees them; grade_match.c says whether an observation belongs
 * to a grade.
 */
#include "index/index.h"
#include "index/match.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void idx_params_default(idx_params *p)
{
    p->error_factor_e6 = 3000000;
    p->min_trade_volume_micro = 1000LL * 1000000;
    p->min_providers = 3;
    p->cap_floor_e6 = 300000;
    p->max_carry_days = 5;
    p->adj_lookback_days = 30;
    p->adj_min_days = 5;
    p->restate_threshold_e6 = 1000;
    p->rounding_e4 = 1;
    p->rebalance_months = 1;
    p->trade_carry_days = 3;
    p->anchor_days = 7;
    p->admission_days = 7;
    p->absence_days = 7;
}

/* Canonical GPU names of SPEC §3. */
static const char *const builtin_gpus[] = {
    "H100-SXM-80GB", "H100-PCIE-80GB", "H100-NVL-94GB", "H200-SXM-141GB", "B200",
    "B300", "GB200", "A100-SXM-80GB", "A100-SXM-40GB", "A100-PCIE-80GB",
    "A100-PCIE-40GB", "L40S", "L40", "L4", "A40", "A10", "A10G", "T4", "V100-16GB",
    "V100-32GB", "RTX4090", "RTX6000-ADA", "RTXA6000", "MI300X", "MI250X",
};

typedef struct ctx {
    const char *name;
    const char *const *gpus;
    size_t n_gpus;
    const idx_grade_tables *tb;     /* aliases and region groups, or NULL */
    FILE *notes;                    /* how names were read, or NULL */
    gpi_diag *d;
} ctx;

static gpi_status bad(ctx *c, size_t i, const char *field, const char *reason, const char *got)
{
    return gpi_diag_set(c->d, GPI_EINPUT, "%s: grades[%zu].%s: %s (got \"%s\")", c->name, i,
                        field, reason, got);
}

/* Text of a JSON value for messages.  A real is written the way people
 * write it: the shortest plain decimal that reads back as the same double
 * (0.00005, not jansson's 5e-5), an exponent only when no such decimal
 * has at most 17 decimals. */
static const char *got_text(const json_t *v, char *buf, size_t n)
{
    if (json_is_string(v)) return json_string_value(v);
    if (json_is_real(v)) {
        double x = json_real_value(v);
        for (int p = 0; p <= 17 && isfinite(x) && fabs(x) < 1e17; p++) {
            snprintf(buf, n, "%.*f", p, x);
            if (strtod(buf, NULL) == x) return buf;
        }
        for (int p = 1; p <= 17; p++) {
            snprintf(buf, n, "%.*g", p, x);
            if (strtod(buf, NULL) == x) break;
        }
        return buf;
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    snprintf(buf, n, "%s", s ? s : "?");
    free(s);
    return buf;
}

/* The canonical name of a grade's GPU: a canonical name as is, else an
 * alias of gpus.csv that holds for every provider and sku ("H100" is
 * H100-SXM-80GB, as in a feed), with a note; NULL when unknown, *not_gpu
 * when gpus.csv says it is not a GPU. */
static const char *gpu_canonical(ctx *c, size_t gi, const char *s, int *not_gpu)
{
    *not_gpu = 0;
    if (c->n_gpus == IDX_TRUST_GPUS) return s;
    for (size_t i = 0; i < sizeof builtin_gpus / sizeof builtin_gpus[0]; i++)
        if (strcasecmp(s, builtin_gpus[i]) == 0) return builtin_gpus[i];
    for (size_t i = 0; i < c->n_gpus; i++)
        if (strcasecmp(s, c->gpus[i]) == 0) return c->gpus[i];
    if (!c->tb) return NULL;
    char f[IDX_NAME_MAX + 1];
    gpi_fold_gpu(s, f, sizeof f);
    for (size_t i = 0; i < c->tb->n_alias; i++) {
        if (strcmp(f, c->tb->alias[i]) != 0) continue;
        const char *to = c->tb->alias_to[i];
        if (strcmp(to, "-") == 0) {
            *not_gpu = 1;
            return NULL;
        }
        if (c->notes)
            fprintf(c->notes, "%s: grades[%zu].gpu: \"%s\" is %s (its alias in gpus.csv)\n",
                    c->name, gi, s, to);
        return to;
    }
    return NULL;
}

/* A decimal parameter: a JSON number or a decimal string, to `digits`
 * decimals exactly.  Returns NULL or a reason. */
static const char *decimal_of(const json_t *v, int digits, int64_t *out)
{
    if (json_is_string(v)) {
        gpi_dec dc;
        if (gpi_dec_parse(json_string_value(v), &dc)) return "not a number";
        if (dc.scale > digits) {
            /* exact only when the dropped digits are zeros */
            __int128 m = dc.mant;
            for (int k = digits; k < dc.scale; k++) {
                if (m % 10) return "too many decimals";
                m /= 10;
            }
        }
        *out = gpi_dec_to_units(dc, digits);
        return NULL;
    }
    if (!json_is_number(v)) return "not a number";
    double x = json_number_value(v);
    if (!isfinite(x) || fabs(x) > 1e12) return "not a number";
    int64_t u = gpi_double_to_units(x, digits);
    double back = (double)u / pow(10, digits);
    if (fabs(back - x) > 1e-9 * fmax(1.0, fabs(x))) return "too many decimals";
    *out = u;
    return NULL;
}

static const char *int_of(const json_t *v, long lo, long hi, int *out)
{
    int64_t u;
    const char *why = decimal_of(v, 0, &u);
    if (why) return "not an integer";
    if (json_is_real(v) && json_real_value(v) != (double)u) return "not an integer";
    if (u < lo || u > hi) return "out of range";
    *out = (int)u;
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcasecmp((const char *)a, (const char *)b);
}

/* A list field: string or array of strings, each <= 64 chars, at most
 * max of them; sorted and de-duplicated (ignoring case). */
static gpi_status list_max(ctx *c, size_t gi, const char *field, const json_t *v,
                           char (*dst)[IDX_NAME_MAX + 1], int *n, int max)
{
    char buf[256];
    *n = 0;
    size_t m = json_is_array(v) ? json_array_size(v) : 1;
    if (!json_is_array(v) && !json_is_string(v))
        return bad(c, gi, field, "not a string or a list of strings", got_text(v, buf, sizeof buf));
    if (json_is_array(v) && m == 0) return bad(c, gi, field, "empty list", "[]");
    for (size_t k = 0; k < m; k++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, k) : v;
        if (!json_is_string(e) || json_string_length(e) == 0 ||
            json_string_length(e) > IDX_NAME_MAX)
            return bad(c, gi, field, "entries must be strings of 1 to 64 characters",
                       got_text(e, buf, sizeof buf));
        if (*n == max) {
            char why[48];
            snprintf(why, sizeof why, "more than %d entries", max);
            return bad(c, gi, field, why, "...");
        }
        snprintf(dst[(*n)++], IDX_NAME_MAX + 1, "%s", json_string_value(e));
    }
    qsort(dst, (size_t)*n, sizeof dst[0], cmp_str);
    int w = 0;
    for (int k = 0; k < *n; k++)
        if (w == 0 || strcasecmp(dst[w - 1], dst[k]) != 0) memmove(dst[w++], dst[k], sizeof dst[0]);
    *n = w;
    return GPI_OK;
}

static gpi_status list_of(ctx *c, size_t gi, const char *field, const json_t *v,
                          char (*dst)[IDX_NAME_MAX + 1], int *n)
{
    return list_max(c, gi, field, v, dst, n, IDX_MAX_LIST);
}

static const char *const param_names[] = {
    "error_factor", "min_trade_volume", "min_providers", "cap_floor", "max_carry_days",
    "adj_lookback_days", "adj_min_days", "restate_threshold", "rounding", "rebalance_months",
    "trade_carry_days", "anchor_days", "max_unchanged_days", "admission_days", "absence_days",
};

static gpi_status param_set(ctx *c, size_t gi, const char *key, const json_t *v, idx_params *p)
{
    char buf[256];
    const char *why = NULL;
    int64_t u = 0;
    if (strcmp(key, "error_factor") == 0) {
        why = decimal_of(v, 6, &u);
        if (!why && u <= 1000000) why = "must be greater than 1";
        p->error_factor_e6 = u;
    } else if (strcmp(key, "min_trade_volume") == 0) {
        why = decimal_of(v, 6, &u);
        if (!why && u < 0) why = "must not be negative";
        p->min_trade_volume_micro = u;
    } else if (strcmp(key, "min_providers") == 0) {
        why = int_of(v, 1, 1000, &p->min_providers);
    } else if (strcmp(key, "cap_floor") == 0) {
        why = decimal_of(v, 6, &u);
        if (!why && (u <= 0 || u > 1000000)) why = "must be in (0, 1]";
        p->cap_floor_e6 = u;
    } else if (strcmp(key, "max_carry_days") == 0) {
        why = int_of(v, 0, 365, &p->max_carry_days);
    } else if (strcmp(key, "adj_lookback_days") == 0) {
        why = int_of(v, 1, 365, &p->adj_lookback_days);
    } else if (strcmp(key, "adj_min_days") == 0) {
        why = int_of(v, 1, 365, &p->adj_min_days);
    } else if (strcmp(key, "restate_threshold") == 0) {
        why = decimal_of(v, 6, &u);
        if (!why && u < 0) why = "must not be negative";
        p->restate_threshold_e6 = u;
    } else if (strcmp(key, "rounding") == 0) {
        why = decimal_of(v, 4, &u);
        if (why && strcmp(why, "too many decimals") == 0) why = "must be a multiple of 0.0001";
        if (!why && u <= 0) why = "must be positive";
        p->rounding_e4 = u;
    } else if (strcmp(key, "rebalance_months") == 0) {
        why = int_of(v, 1, 12, &p->rebalance_months);
        if (!why && 12 % p->rebalance_months != 0) why = "must divide 12 (1, 2, 3, 4, 6 or 12)";
    } else if (strcmp(key, "trade_carry_days") == 0) {
        why = int_of(v, 0, 31, &p->trade_carry_days);
    } else if (strcmp(key, "anchor_days") == 0) {
        why = int_of(v, 1, 28, &p->anchor_days);
    } else if (strcmp(key, "max_unchanged_days") == 0) { /* index/stale.c */
        why = int_of(v, 1, 3650, &p->max_unchanged_days);
    } else if (strcmp(key, "admission_days") == 0) {
        why = int_of(v, 1, 90, &p->admission_days);
    } else if (strcmp(key, "absence_days") == 0) {
        why = int_of(v, 0, 90, &p->absence_days);
    }
    return why ? bad(c, gi, key, why, got_text(v, buf, sizeof buf)) : GPI_OK;
}

static int is_param(const char *key)
{
    for (size_t i = 0; i < sizeof param_names / sizeof param_names[0]; i++)
        if (strcmp(key, param_names[i]) == 0) return 1;
    return 0;
}

/* regions: globs, or region groups of regions.csv ("US", any case) that
 * stand for their globs; "*" anywhere is every region.  The canonical
 * definition lists the globs, so it does not depend on regions.csv -- and
 * it must read back: up to IDX_MAX_REGION entries (a stored grade of
 * ["US", "EU"], 50 globs, could not be read back with 32, so it was built
 * but neither published nor shown: issue 12, found by fuzz/fuzz_grades.c). */
static gpi_status regions_parse(ctx *c, size_t gi, const json_t *v, idx_grade *g)
{
    gpi_status rc = list_max(c, gi, "regions", v, g->region_src, &g->n_region_src,
                             IDX_MAX_REGION);
    if (rc != GPI_OK) return rc;
    g->n_region = 0;
    for (int k = 0; k < g->n_region_src; k++) {
        const char *e = g->region_src[k];
        if (strcmp(e, "*") == 0) {
            g->n_region = g->n_region_src = 0;
            return GPI_OK;
        }
        int group = 0;
        for (size_t i = 0; c->tb && i < c->tb->n_rgroup; i++) {
            if (strcasecmp(c->tb->rgroup[i], e) != 0) continue;
            group = 1;
            if (g->n_region == IDX_MAX_REGION)
                return bad(c, gi, "regions", "more than 96 regions with the groups expanded", e);
            snprintf(g->region[g->n_region++], IDX_NAME_MAX + 1, "%s", c->tb->rpattern[i]);
        }
        if (group) continue;
        if (g->n_region == IDX_MAX_REGION)
            return bad(c, gi, "regions", "more than 96 regions with the groups expanded", e);
        snprintf(g->region[g->n_region++], IDX_NAME_MAX + 1, "%s", e);
    }
    qsort(g->region, (size_t)g->n_region, sizeof g->region[0], cmp_str);
    int w = 0;
    for (int k = 0; k < g->n_region; k++)
        if (w == 0 || strcasecmp(g->region[w - 1], g->region[k]) != 0)
            memmove(g->region[w++], g->region[k], sizeof g->region[0]);
    g->n_region = w;
    return GPI_OK;
}

/* "exclude" (grade_exclude.c): a list of at most IDX_MAX_EXCL objects,
 * each with at least one of providers, regions, skus, ids (lists of at
 * most IDX_MAX_EXCL_LIST names; "*" is refused: a list of everything
 * would filter nothing, or everything). */
static gpi_status exclude_parse(ctx *c, size_t gi, const json_t *v, idx_grade *g)
{
    char buf[256], field[64];
    if (!json_is_array(v) || json_array_size(v) == 0)
        return bad(c, gi, "exclude", "not a list of objects", got_text(v, buf, sizeof buf));
    if (json_array_size(v) > IDX_MAX_EXCL)
        return bad(c, gi, "exclude", "more than 4 entries", "...");
    g->n_excl = 0;
    for (size_t k = 0; k < json_array_size(v); k++) {
        const json_t *e = json_array_get(v, k);
        idx_exclusion *x = &g->excl[g->n_excl++];
        memset(x, 0, sizeof *x);
        snprintf(field, sizeof field, "exclude[%zu]", k);
        if (!json_is_object(e) || json_object_size(e) == 0)
            return bad(c, gi, field, "not an object of providers, regions, skus or ids",
                       got_text(e, buf, sizeof buf));
        const char *key;
        json_t *lv;
        json_object_foreach((json_t *)e, key, lv) {
            char (*dst)[IDX_NAME_MAX + 1] = NULL;
            int *n = NULL;
            if (strcmp(key, "providers") == 0) dst = x->provider, n = &x->n_provider;
            else if (strcmp(key, "regions") == 0) dst = x->region, n = &x->n_region;
            else if (strcmp(key, "skus") == 0) dst = x->sku, n = &x->n_sku;
            else if (strcmp(key, "ids") == 0) dst = x->id, n = &x->n_id;
            snprintf(field, sizeof field, "exclude[%zu].%.32s", k, key);
            if (!dst) return bad(c, gi, field, "unknown (providers, regions, skus or ids)", key);
            gpi_status rc = list_max(c, gi, field, lv, dst, n, IDX_MAX_EXCL_LIST);
            if (rc != GPI_OK) return rc;
            for (int i = 0; i < *n; i++)
                if (strcmp(dst[i], "*") == 0)
                    return bad(c, gi, field, "\"*\" would match everything", "*");
        }
        if (x->n_id) g->excl_ids = 1;
    }
    return GPI_OK;
}

static gpi_status term_parse(ctx *c, size_t gi, const json_t *v, idx_grade *g)
{
    char buf[256];
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s) return bad(c, gi, "term", "not a string", got_text(v, buf, sizeof buf));
    if (strcasecmp(s, "on-demand") == 0 || strcasecmp(s, "spot") == 0) {
        g->term = gpi_term_parse(s);
        return GPI_OK;
    }
    if (strncasecmp(s, "reserved:", 9) == 0) {
        int a, b, n = 0;
        if (sscanf(s + 9, "%3d-%3d%n", &a, &b, &n) == 2 && s[9 + n] == '\0' &&
            isdigit((unsigned char)s[9]) && 1 <= a && a <= b && b <= 60) {
            g->term = GPI_TERM_RESERVED;
            g->term_min = a;
            g->term_max = b;
            return GPI_OK;
        }
        return bad(c, gi, "term", "reserved range must be A-B with 1 <= A <= B <= 60", s);
    }
    return bad(c, gi, "term", "must be on-demand, spot or reserved:A-B", s);
}

static gpi_status grade_canon(idx_grade *g)
{
    json_t *o = json_object();
    json_t *a;
    json_object_set_new(o, "id", json_string(g->id));
    json_object_set_new(o, "version", json_integer(g->version));
    a = json_array();
    for (int i = 0; i < g->n_gpu; i++) json_array_append_new(a, json_string(g->gpu[i]));
    json_object_set_new(o, "gpu", a);
    a = json_array();
    for (int s = 0; s < GPI_SCOPE__N; s++)
        if (g->scope_mask & (1u << s)) json_array_append_new(a, json_string(gpi_scope_name(s)));
    json_object_set_new(o, "scope", a);
    json_object_set_new(o, "min_tier", json_string(gpi_tier_name(g->min_tier)));
    char term[32];
    if (g->term == GPI_TERM_RESERVED)
        snprintf(term, sizeof term, "reserved:%d-%d", g->term_min, g->term_max);
    else
        snprintf(term, sizeof term, "%s", gpi_term_name(g->term));
    json_object_set_new(o, "term", json_string(term));
    struct {
        const char *key;
        int n;
        char (*v)[IDX_NAME_MAX + 1];
    } lists[] = {{"regions", g->n_region, g->region},
                 {"providers", g->n_provider, g->provider},
                 {"segments", g->n_segment, g->segment}};
    for (size_t k = 0; k < 3; k++) {
        a = json_array();
        if (lists[k].n == 0) json_array_append_new(a, json_string("*"));
        for (int i = 0; i < lists[k].n; i++) json_array_append_new(a, json_string(lists[k].v[i]));
        json_object_set_new(o, lists[k].key, a);
    }
    /* written only when they filter: definitions without them hash as
     * before they existed */
    struct {
        const char *key;
        int n;
        char (*v)[IDX_NAME_MAX + 1];
    } opt[] = {{"skus", g->n_sku, g->sku}, {"exclude_providers", g->n_exclude, g->exclude}};
    for (size_t k = 0; k < 2; k++) {
        if (opt[k].n == 0) continue;
        a = json_array();
        for (int i = 0; i < opt[k].n; i++) json_array_append_new(a, json_string(opt[k].v[i]));
        json_object_set_new(o, opt[k].key, a);
    }
    if (g->n_excl) {
        if (!(a = idx_exclude_canon(g))) {
            json_decref(o);
            return GPI_ENOMEM;
        }
        json_object_set_new(o, "exclude", a);
    }
    if (g->covers_mask != (1u << GPI_COVERS__N) - 1) {
        a = json_array();
        for (int cv = 0; cv < GPI_COVERS__N; cv++)
            if (g->covers_mask & (1u << cv)) json_array_append_new(a, json_string(gpi_covers_name(cv)));
        json_object_set_new(o, "covers", a);
    }
    char b[32];
    const idx_params *p = &g->p;
    json_object_set_new(o, "error_factor", json_string(gpi_fixed_format(p->error_factor_e6, 6, b)));
    json_object_set_new(o, "min_trade_volume",
                        json_string(gpi_fixed_format(p->min_trade_volume_micro, 6, b)));
    json_object_set_new(o, "min_providers", json_integer(p->min_providers));
    json_object_set_new(o, "cap_floor", json_string(gpi_fixed_format(p->cap_floor_e6, 6, b)));
    json_object_set_new(o, "max_carry_days", json_integer(p->max_carry_days));
    json_object_set_new(o, "adj_lookback_days", json_integer(p->adj_lookback_days));
    json_object_set_new(o, "adj_min_days", json_integer(p->adj_min_days));
    json_object_set_new(o, "restate_threshold",
                        json_string(gpi_fixed_format(p->restate_threshold_e6, 6, b)));
    json_object_set_new(o, "rounding", json_string(gpi_fixed_format(p->rounding_e4, 4, b)));
    /* v1 definitions are written as before v2 existed: their hashes stay */
    if (g->method == 2) {
        json_object_set_new(o, "method", json_string("v2"));
        json_object_set_new(o, "rebalance_months", json_integer(p->rebalance_months));
        json_object_set_new(o, "trade_carry_days", json_integer(p->trade_carry_days));
        json_object_set_new(o, "anchor_days", json_integer(p->anchor_days));
    } else if (g->method == 3) {
        json_object_set_new(o, "method", json_string("v3"));
        json_object_set_new(o, "admission_days", json_integer(p->admission_days));
        json_object_set_new(o, "absence_days", json_integer(p->absence_days));
    }
    /* written only when set: definitions without it keep their hashes */
    if (p->max_unchanged_days > 0)
        json_object_set_new(o, "max_unchanged_days", json_integer(p->max_unchanged_days));
    g->canon = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    if (!g->canon) return GPI_ENOMEM;
    gpi_sha256_hex(g->canon, strlen(g->canon), g->hash);
    return GPI_OK;
}

static gpi_status grade_parse(ctx *c, size_t gi, const json_t *obj, idx_grade *g)
{
    char buf[256];
    gpi_status rc;
    memset(g, 0, sizeof *g);
    g->version = 1;
    g->scope_mask = (1u << GPI_SCOPE__N) - 1;
    g->min_tier = GPI_TIER_UNRATED;
    g->term = GPI_TERM_ON_DEMAND;
    g->method = IDX_METHOD_DEFAULT;
    g->covers_mask = (1u << GPI_COVERS__N) - 1;
    idx_params_default(&g->p);
    if (!json_is_object(obj))
        return gpi_diag_set(c->d, GPI_EINPUT, "%s: grades[%zu]: not an object", c->name, gi);
    const json_t *id = json_object_get(obj, "id");
    if (!id) return gpi_diag_set(c->d, GPI_EINPUT, "%s: grades[%zu].id: missing", c->name, gi);
    if (!json_is_string(id) || !gpi_grade_id_ok(json_string_value(id)))
        return bad(c, gi, "id", "must match [A-Za-z0-9][A-Za-z0-9._+-]{0,63}",
                   got_text(id, buf, sizeof buf));
    snprintf(g->id, sizeof g->id, "%s", json_string_value(id));
    if (!json_object_get(obj, "gpu"))
        return gpi_diag_set(c->d, GPI_EINPUT, "%s: grades[%zu].gpu: missing", c->name, gi);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        if (strcmp(key, "id") == 0) continue;
        if (strcmp(key, "version") == 0) {
            const char *why = int_of(v, 1, 1000000, &g->version);
            if (why) return bad(c, gi, key, why, got_text(v, buf, sizeof buf));
        } else if (strcmp(key, "method") == 0) {
            const char *m = json_is_string(v) ? json_string_value(v) : "";
            if (strcasecmp(m, "v1") == 0)
                g->method = 1;
            else if (strcasecmp(m, "v2") == 0)
                g->method = 2;
            else if (strcasecmp(m, "v3") == 0)
                g->method = 3;
            else
                return bad(c, gi, key, "must be v1, v2 or v3", got_text(v, buf, sizeof buf));
        } else if (strcmp(key, "gpu") == 0) {
            if ((rc = list_of(c, gi, key, v, g->gpu, &g->n_gpu)) != GPI_OK) return rc;
            for (int k = 0; k < g->n_gpu; k++) {
                int not_gpu;
                const char *cn = gpu_canonical(c, gi, g->gpu[k], &not_gpu);
                if (!cn)
                    return bad(c, gi, key,
                               not_gpu ? "not a GPU (gpus.csv)"
                                       : "unknown GPU model (a canonical name or an alias of "
                                         "gpus.csv)",
                               g->gpu[k]);
                if (cn != g->gpu[k]) snprintf(g->gpu[k], sizeof g->gpu[k], "%s", cn);
            }
            /* two aliases of one model */
            qsort(g->gpu, (size_t)g->n_gpu, sizeof g->gpu[0], cmp_str);
            int w = 0;
            for (int k = 0; k < g->n_gpu; k++)
                if (w == 0 || strcasecmp(g->gpu[w - 1], g->gpu[k]) != 0)
                    memmove(g->gpu[w++], g->gpu[k], sizeof g->gpu[0]);
            g->n_gpu = w;
        } else if (strcmp(key, "scope") == 0) {
            char tmp[IDX_MAX_LIST][IDX_NAME_MAX + 1];
            int n;
            if ((rc = list_of(c, gi, key, v, tmp, &n)) != GPI_OK) return rc;
            g->scope_mask = 0;
            for (int k = 0; k < n; k++) {
                int s = gpi_scope_parse(tmp[k]);
                if (s < 0) return bad(c, gi, key, "unknown scope", tmp[k]);
                g->scope_mask |= 1u << s;
            }
        } else if (strcmp(key, "min_tier") == 0) {
            int t = json_is_string(v) ? gpi_tier_parse(json_string_value(v)) : -1;
            if (t < 0) return bad(c, gi, key, "unknown tier", got_text(v, buf, sizeof buf));
            g->min_tier = t;
        } else if (strcmp(key, "term") == 0) {
            if ((rc = term_parse(c, gi, v, g)) != GPI_OK) return rc;
        } else if (strcmp(key, "regions") == 0) {
            if ((rc = regions_parse(c, gi, v, g)) != GPI_OK) return rc;
        } else if (strcmp(key, "covers") == 0) {
            char tmp[IDX_MAX_LIST][IDX_NAME_MAX + 1];
            int n;
            if ((rc = list_of(c, gi, key, v, tmp, &n)) != GPI_OK) return rc;
            g->covers_mask = 0;
            for (int k = 0; k < n; k++) {
                int cv = gpi_covers_parse(tmp[k]);
                if (cv < 0)
                    return bad(c, gi, key, "unknown (instance, gpu-only, cpu-heavy, partial-gpu)",
                               tmp[k]);
                g->covers_mask |= 1u << cv;
            }
        } else if (strcmp(key, "providers") == 0 || strcmp(key, "segments") == 0) {
            char (*dst)[IDX_NAME_MAX + 1] = key[0] == 'p' ? g->provider : g->segment;
            int *n = key[0] == 'p' ? &g->n_provider : &g->n_segment;
            if ((rc = list_of(c, gi, key, v, dst, n)) != GPI_OK) return rc;
            for (int k = 0; k < *n; k++)
                if (strcmp(dst[k], "*") == 0) *n = 0; /* "*" anywhere = all */
        } else if (strcmp(key, "skus") == 0 || strcmp(key, "exclude_providers") == 0) {
            char (*dst)[IDX_NAME_MAX + 1] = key[0] == 's' ? g->sku : g->exclude;
            int *n = key[0] == 's' ? &g->n_sku : &g->n_exclude;
            if ((rc = list_of(c, gi, key, v, dst, n)) != GPI_OK) return rc;
            for (int k = 0; k < *n; k++)
                if (strcmp(dst[k], "*") == 0) {
                    if (key[0] == 'e') return bad(c, gi, key, "would exclude every provider", "*");
                    *n = 0; /* "*" anywhere = all */
                }
        } else if (strcmp(key, "exclude") == 0) {
            if ((rc = exclude_parse(c, gi, v, g)) != GPI_OK) return rc;
        } else if (is_param(key)) {
            if ((rc = param_set(c, gi, key, v, &g->p)) != GPI_OK) return rc;
        } else {
            return bad(c, gi, key, "unknown field or parameter", key);
        }
    }
    static const char *const v2_only[] = {"rebalance_months", "trade_carry_days",
                                          "anchor_days"};
    for (size_t k = 0; k < 3 && g->method != 2; k++)
        if (json_object_get(obj, v2_only[k]))
            return bad(c, gi, v2_only[k], "applies to method v2 only (add \"method\": \"v2\")",
                       got_text(json_object_get(obj, v2_only[k]), buf, sizeof buf));
    static const char *const v3_only[] = {"admission_days", "absence_days"};
    for (size_t k = 0; k < 2 && g->method != 3; k++)
        if (json_object_get(obj, v3_only[k]))
            return bad(c, gi, v3_only[k], "applies to method v3 only (add \"method\": \"v3\")",
                       got_text(json_object_get(obj, v3_only[k]), buf, sizeof buf));
    /* name the field the file gave (both, or the one that was changed) */
    if (g->p.adj_min_days > g->p.adj_lookback_days) {
        if (json_object_get(obj, "adj_min_days"))
            return bad(c, gi, "adj_min_days", "must not exceed adj_lookback_days",
                       got_text(json_object_get(obj, "adj_min_days"), buf, sizeof buf));
        char why[128];
        snprintf(why, sizeof why,
                 "is below adj_min_days (%lld), so no adjustment could ever apply; lower "
                 "adj_min_days too",
                 (long long)g->p.adj_min_days);
        return bad(c, gi, "adj_lookback_days", why,
                   got_text(json_object_get(obj, "adj_lookback_days"), buf, sizeof buf));
    }
    return grade_canon(g);
}

static gpi_status grades_parse(ctx *cp, const char *text, idx_grades **out);

gpi_status idx_grades_parse(const char *text, const char *name, const char *const *gpus,
                            size_t n_gpus, idx_grades **out, gpi_diag *d)
{
    ctx c = {name, gpus, n_gpus, NULL, NULL, d};
    return grades_parse(&c, text, out);
}

gpi_status idx_grades_parse_tables(const char *text, const char *name,
                                   const idx_grade_tables *tb, idx_grades **out, gpi_diag *d)
{
    ctx c = {name, tb ? (const char *const *)tb->gpus : NULL, tb ? tb->n_gpus : 0, tb, NULL, d};
    char *notes = NULL;
    size_t len = 0;
    c.notes = open_memstream(&notes, &len);
    gpi_status rc = grades_parse(&c, text, out);
    if (c.notes) fclose(c.notes);
    if (rc == GPI_OK && len) {
        (*out)->notes = notes;
        notes = NULL;
    }
    free(notes);
    return rc;
}

static gpi_status grades_parse(ctx *cp, const char *text, idx_grades **out)
{
    ctx c = *cp;
    const char *name = c.name;
    gpi_diag *d = c.d;
    *out = NULL;
    /* a UTF-8 byte-order mark, as every other reader of gpuidx takes one
     * (issue 31: a grades file saved with one was refused as invalid JSON);
     * the file's SHA-256 stays that of its bytes */
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3;
    json_error_t e;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    if (!root) return gpi_diag_set(d, GPI_EINPUT, "%s:%d:%d: %s", name, e.line, e.column, e.text);
    gpi_status rc = GPI_OK;
    const json_t *arr = json_object_get(root, "grades");
    if (!json_is_object(root) || !json_is_array(arr)) {
        json_decref(root);
        return gpi_diag_set(d, GPI_EINPUT, "%s: grades: missing (want {\"grades\": [...]})", name);
    }
    idx_grades *gs = calloc(1, sizeof *gs);
    size_t n = json_array_size(arr);
    gs->g = calloc(n ? n : 1, sizeof *gs->g);
    if (!gs->g) {
        free(gs);
        json_decref(root);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", name);
    }
    for (size_t i = 0; i < n && rc == GPI_OK; i++) {
        rc = grade_parse(&c, i, json_array_get(arr, i), &gs->g[i]);
        if (rc == GPI_ENOMEM) gpi_diag_set(d, rc, "%s: out of memory", name);
        if (rc != GPI_OK) {
            free(gs->g[i].canon);
            break;
        }
        gs->n = i + 1;
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(gs->g[j].id, gs->g[i].id) == 0) {
                char why[64];
                snprintf(why, sizeof why, "duplicate of grades[%zu] (ids ignore case)", j);
                rc = bad(&c, i, "id", why, gs->g[i].id);
            }
    }
    json_decref(root);
    if (rc != GPI_OK) {
        idx_grades_free(gs);
        return rc;
    }
    *out = gs;
    return GPI_OK;
}
