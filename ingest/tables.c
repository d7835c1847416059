/* ingest/tables.c -- the normalization tables of data/ (SPEC §3).
 *
 * gpus.csv      alias,canonical,provider,sku_glob,note
 * providers.csv alias,provider,group,segment
 * tiers.csv     provider,tier,effective
 * fx.csv        date,currency,usd_per_unit
 * skus.csv      provider,sku_glob,gpu_count,covers,unit,note (optional)
 * (formats in data/README.md).  Each file has a header row naming these
 * columns (any order, extra columns ignored); lines starting with '#' are
 * comments.  A bad row is an error "file:line: column: reason".
 *
 * NOTES ON THE DESIGN
 * (1) Built once, read-only afterwards: a const ingest_tables may be
 *     shared.  Strings live in one arena.
 * (2) GPU names are keyed by their folded form (lower case without ' ',
 *     '-', '_').  Each alias maps to a chain of rows sorted most specific
 *     first (provider+sku > provider > sku > neither; then the longer sku
 *     glob, then file order), so the first row that matches wins.  Alias
 *     globs ('*' in the alias) are tried, in file order, only when no
 *     exact alias matches.  sku globs are matched with fnmatch against the
 *     lower-cased sku.
 * (3) Provider names are keyed by their folded form (trimmed, lower case,
 *     runs of spaces as one space).
 * (4) tiers and fx rows are sorted by (key, date); a lookup finds the key's
 *     run through the map and takes the last row dated on or before the day.
 *     Two rows of one key and date are an error (which one wins would
 *     depend on qsort).
 * (5) The SHA-256 covers every table's name and bytes, in a fixed order;
 *     it is recorded with every batch.
 * (6) The provider named by a gpus.csv, tiers.csv or skus.csv row may be
 *     written as any alias of providers.csv ("Lambda Labs"): it is resolved
 *     to the canonical provider the observations carry, so such a row is
 *     never silently dead.
 * (7) skus.csv is optional (a data directory without it corrects nothing).
 *     Its rows are ordered like gpus.csv's: provider and glob before glob
 *     only, then the longer glob, then file order; the first that matches
 *     wins.  Lookups are memoized per file by the caller (hygiene.c).
 *     Two rows of the same canonical provider (or both of none) and the
 *     same glob are an error naming both lines (issue 31: which one
 *     applied depended on their order -- swapping two lines doubled a
 *     price); so is a row whose provider is an alias of another row's.
 */
#include "ingest/internal.h"
#include "core/vec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct gpu_row {
    const char *alias;      /* folded */
    const char *canonical;  /* NULL: not a GPU */
    const char *provider;   /* canonical provider or NULL */
    const char *sku_glob;   /* lower case or NULL */
    const char *note;
    int order, next;        /* chain of rows with the same alias */
} gpu_row;

typedef struct keyed_row {  /* tiers and fx */
    const char *key;
    int32_t day;
    int tier;
    gpi_dec rate;
    long line;              /* in the table, for messages */
} keyed_row;

struct ingest_tables {
    arena a;
    sku_rule *skus;
    int n_skus;
    size_t cap_skus;
    gpu_row *gpus;
    int n_gpus;
    size_t cap_gpus;
    strmap gpu_alias;       /* folded alias -> first row of its chain */
    int *glob_rows;
    int n_glob;
    provider_match *provs;
    int n_provs;
    size_t cap_provs;
    strmap prov;            /* folded alias -> provs index */
    keyed_row *tiers, *fx;
    int n_tiers, n_fx;
    size_t cap_tiers, cap_fx;
    strmap tier_key, fx_key; /* key -> first row of its run */
    char sha[65];
};

#define MAX_TABLE_BYTES (16u << 20)
#define MAX_ROWS 100000

/* Folds a provider name: trimmed, lower case, runs of spaces as one (the
 * same fold is part of an identity: core/ident.c). */
static int fold_name(const char *s, char *out, size_t cap)
{
    return gpi_fold_name(s, out, cap);
}

/* ---- loading -------------------------------------------------------------- */

typedef struct loader {
    ingest_tables *t;
    const char *file;           /* name for messages: "gpus.csv" */
    const char *const *cols;    /* required column names */
    int ncols;
    int map[8];                 /* column -> field index in the record */
    int header_done;
    gpi_status (*row)(struct loader *l, const char *const *v, long line, gpi_diag *d);
    int optional;               /* a missing file is an empty table */
} loader;

static gpi_status bad(const loader *l, long line, const char *col, const char *why,
                      const char *got, gpi_diag *d)
{
    return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%.80s\")", l->file, line, col,
                        why, got);
}

static gpi_status on_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    loader *l = ud;
    if (!l->header_done) {
        for (int c = 0; c < l->ncols; c++) {
            l->map[c] = -1;
            for (int i = 0; i < r->n; i++)
                if (strcasecmp(r->f[i], l->cols[c]) == 0) l->map[c] = i;
            if (l->map[c] < 0)
                return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: missing column \"%s\"",
                                    l->file, r->line, l->cols[c]);
        }
        l->header_done = 1;
        return GPI_OK;
    }
    const char *v[8];
    for (int c = 0; c < l->ncols; c++)
        v[c] = l->map[c] < r->n ? r->f[l->map[c]] : "";
    return l->row(l, v, r->line, d);
}

static char *dup(ingest_tables *t, const char *s)
{
    return arena_strndup(&t->a, s, strlen(s));
}

static gpi_status gpu_row_fn(loader *l, const char *const *v, long line, gpi_diag *d)
{
    ingest_tables *t = l->t;
    char buf[256];
    if (gpi_fold_gpu(v[0], buf, sizeof buf) <= 0) return bad(l, line, "alias", "empty or too long", v[0], d);
    if (!*v[1]) return bad(l, line, "canonical", "empty (use - for not a GPU)", v[1], d);
    if (t->n_gpus >= MAX_ROWS) return bad(l, line, "alias", "too many rows", v[0], d);
    if (GPI_VEC_RESERVE(t->gpus, t->cap_gpus, (size_t)t->n_gpus + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    gpu_row *g = &t->gpus[t->n_gpus];
    memset(g, 0, sizeof *g);
    g->alias = dup(t, buf);
    g->canonical = strcmp(v[1], "-") == 0 ? NULL : dup(t, v[1]);
    if (*v[2]) {
        if (fold_name(v[2], buf, sizeof buf) < 0) return bad(l, line, "provider", "too long", v[2], d);
        g->provider = dup(t, buf);
    }
    if (*v[3]) {
        size_t n = strlen(v[3]);
        char *s = arena_strndup(&t->a, v[3], n);
        if (!s) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
        for (size_t i = 0; i < n; i++) s[i] = (char)tolower((unsigned char)s[i]);
        g->sku_glob = s;
    }
    g->note = dup(t, v[4]);
    g->order = t->n_gpus;
    g->next = -1;
    if (!g->alias || (!g->canonical && strcmp(v[1], "-") != 0) || !g->note)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    t->n_gpus++;
    return GPI_OK;
}

static gpi_status prov_row_fn(loader *l, const char *const *v, long line, gpi_diag *d)
{
    ingest_tables *t = l->t;
    char alias[256], canon[256];
    if (fold_name(v[0], alias, sizeof alias) <= 0) return bad(l, line, "alias", "empty or too long", v[0], d);
    if (fold_name(v[1], canon, sizeof canon) <= 0) return bad(l, line, "provider", "empty or too long", v[1], d);
    if (!*v[2]) return bad(l, line, "group", "empty", v[2], d);
    if (!*v[3]) return bad(l, line, "segment", "empty", v[3], d);
    if (t->n_provs >= MAX_ROWS) return bad(l, line, "alias", "too many rows", v[0], d);
    if (strmap_get(&t->prov, alias, strlen(alias)) >= 0)
        return bad(l, line, "alias", "listed twice", v[0], d);
    if (GPI_VEC_RESERVE(t->provs, t->cap_provs, (size_t)t->n_provs + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    provider_match *p = &t->provs[t->n_provs];
    p->provider = dup(t, canon);
    p->group = dup(t, v[2]);
    p->segment = dup(t, v[3]);
    char *key = dup(t, alias);
    if (!p->provider || !p->group || !p->segment || !key ||
        strmap_put(&t->prov, key, strlen(key), t->n_provs) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    t->n_provs++;
    return GPI_OK;
}

static gpi_status keyed_add(loader *l, keyed_row **rows, int *n, size_t *cap, keyed_row kr,
                            gpi_diag *d)
{
    if (*n >= MAX_ROWS) return gpi_diag_set(d, GPI_EINPUT, "%s: too many rows", l->file);
    if (GPI_VEC_RESERVE(*rows, *cap, (size_t)*n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    if (!kr.key) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    (*rows)[(*n)++] = kr;
    return GPI_OK;
}

static gpi_status tier_row_fn(loader *l, const char *const *v, long line, gpi_diag *d)
{
    char canon[256];
    keyed_row kr;
    memset(&kr, 0, sizeof kr);
    if (fold_name(v[0], canon, sizeof canon) <= 0) return bad(l, line, "provider", "empty or too long", v[0], d);
    if ((kr.tier = gpi_tier_parse(v[1])) < 0) return bad(l, line, "tier", "unknown tier", v[1], d);
    const char *why = gpi_date_parse(v[2], &kr.day);
    if (why) return bad(l, line, "effective", why, v[2], d);
    kr.key = dup(l->t, canon);
    kr.line = line;
    return keyed_add(l, &l->t->tiers, &l->t->n_tiers, &l->t->cap_tiers, kr, d);
}

static gpi_status fx_row_fn(loader *l, const char *const *v, long line, gpi_diag *d)
{
    keyed_row kr;
    memset(&kr, 0, sizeof kr);
    const char *why = gpi_date_parse(v[0], &kr.day);
    if (why) return bad(l, line, "date", why, v[0], d);
    char cur[4];
    if (strlen(v[1]) != 3) return bad(l, line, "currency", "not a 3-letter ISO-4217 code", v[1], d);
    for (int i = 0; i < 3; i++) {
        if (!isalpha((unsigned char)v[1][i]))
            return bad(l, line, "currency", "not a 3-letter ISO-4217 code", v[1], d);
        cur[i] = (char)toupper((unsigned char)v[1][i]);
    }
    cur[3] = '\0';
    if ((why = gpi_dec_parse(v[2], &kr.rate)) != NULL) return bad(l, line, "usd_per_unit", why, v[2], d);
    if (kr.rate.mant <= 0) return bad(l, line, "usd_per_unit", "must be > 0", v[2], d);
    if (kr.rate.mant >= 1000000000000LL)
        return bad(l, line, "usd_per_unit", "more than 12 significant digits", v[2], d);
    kr.key = dup(l->t, cur);
    kr.line = line;
    return keyed_add(l, &l->t->fx, &l->t->n_fx, &l->t->cap_fx, kr, d);
}

static gpi_status sku_row_fn(loader *l, const char *const *v, long line, gpi_diag *d)
{
    ingest_tables *t = l->t;
    char buf[256];
    sku_rule r;
    memset(&r, 0, sizeof r);
    r.covers = -1;
    r.unit = -1;
    if (*v[0]) {
        if (fold_name(v[0], buf, sizeof buf) < 0) return bad(l, line, "provider", "too long", v[0], d);
        r.provider = dup(t, buf);
    }
    if (!*v[1]) return bad(l, line, "sku_glob", "empty (use * for every sku)", v[1], d);
    if (*v[2]) {
        char *end;
        long n = strtol(v[2], &end, 10);
        if (*end || n < 1 || n > 100000)
            return bad(l, line, "gpu_count", "not a whole number from 1 to 100000", v[2], d);
        r.gpu_count = (int)n;
    }
    if (*v[3] && (r.covers = gpi_covers_parse(v[3])) < 0)
        return bad(l, line, "covers", "unknown (instance, gpu-only, cpu-heavy, partial-gpu)", v[3], d);
    if (*v[4] && (r.unit = gpi_unit_parse(v[4])) < 0)
        return bad(l, line, "unit", "unknown unit (gpu-hour, instance-hour, gpu-month, "
                   "instance-month)", v[4], d);
    if (r.gpu_count == 0 && r.covers < 0 && r.unit < 0)
        return bad(l, line, "sku_glob", "the row changes nothing (give gpu_count, covers or unit)",
                   v[1], d);
    if (t->n_skus >= MAX_ROWS) return bad(l, line, "sku_glob", "too many rows", v[1], d);
    size_t n = strlen(v[1]);
    char *g = arena_strndup(&t->a, v[1], n);
    if (!g) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    for (size_t i = 0; i < n; i++) g[i] = (char)tolower((unsigned char)g[i]);
    r.glob = g;
    r.note = dup(t, v[5]);
    r.line = line;
    if (GPI_VEC_RESERVE(t->skus, t->cap_skus, (size_t)t->n_skus + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    if ((r.provider == NULL && *v[0]) || !r.note)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", l->file);
    t->skus[t->n_skus++] = r;
    return GPI_OK;
}

static gpi_status load_one(ingest_tables *t, const char *dir, loader *l, gpi_sha256 *sha,
                           gpi_diag *d)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, l->file);
    FILE *f = fopen(path, "rb");
    if (!f && l->optional && errno == ENOENT) return GPI_OK; /* note 7 */
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot open: %s", path, strerror(errno));
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    char *buf = malloc(MAX_TABLE_BYTES);
    if (!buf) {
        fclose(f);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, MAX_TABLE_BYTES, f);
    int err = ferror(f), more = !err && fgetc(f) != EOF;
    fclose(f);
    gpi_status rc = GPI_OK;
    if (err) rc = gpi_diag_set(d, GPI_EIO, "%s: read error", path);
    else if (more) rc = gpi_diag_set(d, GPI_EINPUT, "%s: larger than %u bytes", path, MAX_TABLE_BYTES);
    if (rc == GPI_OK) {
        gpi_sha256_update(sha, l->file, strlen(l->file) + 1);
        gpi_sha256_update(sha, buf, n);
        l->t = t;
        gpi_csv_reader r;
        rc = gpi_csv_init(&r, l->file, 1, on_rec, l);
        if (rc == GPI_OK) rc = gpi_csv_feed(&r, buf, n, d);
        if (rc == GPI_OK) rc = gpi_csv_finish(&r, d);
        if (rc == GPI_OK && !l->header_done)
            rc = gpi_diag_set(d, GPI_EINPUT, "%s:1: no header row", l->file);
        gpi_csv_free(&r);
        if (rc == GPI_ENOMEM) gpi_diag_set(d, rc, "%s: out of memory", path);
    }
    free(buf);
    return rc;
}

/* ---- indexes ---------------------------------------------------------------- */

static int spec(const gpu_row *g)
{
    return (g->provider ? 2 : 0) + (g->sku_glob ? 1 : 0);
}

static int glob_len(const gpu_row *g)
{
    int n = 0;
    if (g->sku_glob)
        for (const char *s = g->sku_glob; *s; s++) n += *s != '*' && *s != '?';
    return n;
}

static int cmp_gpu(const void *a, const void *b)
{
    const gpu_row *x = *(const gpu_row *const *)a, *y = *(const gpu_row *const *)b;
    int c = strcmp(x->alias, y->alias);
    if (c) return c;
    if (spec(x) != spec(y)) return spec(y) - spec(x);
    if (glob_len(x) != glob_len(y)) return glob_len(y) - glob_len(x);
    return x->order - y->order;
}

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return (x->day > y->day) - (x->day < y->day);
}

/* Sorts rows by (key, day) and maps each key to its first row.  Two rows
 * of one key on one day would make the lookup depend on the sort: an
 * error naming the later line. */
static gpi_status index_keyed(keyed_row *rows, int n, strmap *m, const char *file,
                              const char *date_col, gpi_diag *d)
{
    if (n) qsort(rows, (size_t)n, sizeof *rows, cmp_keyed);
    for (int i = 1; i < n; i++)
        if (rows[i].day == rows[i - 1].day && strcmp(rows[i].key, rows[i - 1].key) == 0) {
            const keyed_row *a = &rows[i - 1], *b = &rows[i];
            if (a->line > b->line) {
                const keyed_row *x = a;
                a = b;
                b = x;
            }
            char day[11];
            gpi_date_format(b->day, day);
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s has a row for this date already, "
                                "line %ld (got \"%s\")", file, b->line, date_col, b->key, a->line, day);
        }
    for (int i = n - 1; i >= 0; i--)
        if (strmap_put(m, rows[i].key, strlen(rows[i].key), i) != 0)
            return gpi_diag_set(d, GPI_ENOMEM, "tables: out of memory");
    return GPI_OK;
}

/* The canonical provider of a folded name from gpus.csv or tiers.csv: the
 * providers.csv row whose alias it is, else the name itself (note 6). */
static const char *canonical_provider(const ingest_tables *t, const char *name)
{
    int i = strmap_get(&t->prov, name, strlen(name));
    return i >= 0 ? t->provs[i].provider : name;
}

static int sku_spec(const sku_rule *r)
{
    int n = 0;
    for (const char *s = r->glob; *s; s++) n += *s != '*' && *s != '?';
    return (r->provider ? 1 << 20 : 0) + n;
}

static int cmp_sku(const void *a, const void *b)
{
    const sku_rule *x = a, *y = b;
    if (sku_spec(x) != sku_spec(y)) return sku_spec(y) - sku_spec(x);
    return (x->line > y->line) - (x->line < y->line);
}

static gpi_status build_indexes(ingest_tables *t, gpi_diag *d)
{
    for (int i = 0; i < t->n_skus; i++)
        if (t->skus[i].provider) t->skus[i].provider = canonical_provider(t, t->skus[i].provider);
    if (t->n_skus) qsort(t->skus, (size_t)t->n_skus, sizeof *t->skus, cmp_sku);
    /* note 7: one rule per (provider, glob) */
    strmap seen = {0};
    gpi_status drc = GPI_OK;
    for (int i = 0; i < t->n_skus && drc == GPI_OK; i++) {
        const sku_rule *b = &t->skus[i];
        char key[600];
        int n = snprintf(key, sizeof key, "%s\x1f%s", b->provider ? b->provider : "", b->glob);
        char *k = n > 0 && (size_t)n < sizeof key ? arena_strndup(&t->a, key, (size_t)n) : NULL;
        if (!k) {
            drc = gpi_diag_set(d, GPI_ENOMEM, "tables: out of memory");
            break;
        }
        int j = strmap_get(&seen, k, (size_t)n);
        if (j < 0) {
            if (strmap_put(&seen, k, (size_t)n, i) != 0)
                drc = gpi_diag_set(d, GPI_ENOMEM, "tables: out of memory");
            continue;
        }
        /* the later line is named, with the earlier */
        const sku_rule *a = &t->skus[j];
        const sku_rule *x = a->line < b->line ? a : b, *y = a->line < b->line ? b : a;
        drc = gpi_diag_set(d, GPI_EINPUT,
                           "skus.csv:%ld: sku_glob: a second rule for %s%s%s and this sku glob "
                           "(line %ld): which one applies would depend on the order of the lines "
                           "(got \"%.80s\")",
                           y->line, y->provider ? "provider \"" : "every provider",
                           y->provider ? y->provider : "", y->provider ? "\"" : "", x->line,
                           y->glob);
    }
    strmap_free(&seen);
    if (drc != GPI_OK) return drc;
    for (int i = 0; i < t->n_gpus; i++)
        if (t->gpus[i].provider) t->gpus[i].provider = canonical_provider(t, t->gpus[i].provider);
    for (int i = 0; i < t->n_tiers; i++) t->tiers[i].key = canonical_provider(t, t->tiers[i].key);
    const gpu_row **ord = malloc((size_t)(t->n_gpus + 1) * sizeof *ord);
    t->glob_rows = malloc((size_t)(t->n_gpus + 1) * sizeof *t->glob_rows);
    if (!ord || !t->glob_rows) {
        free(ord);
        return gpi_diag_set(d, GPI_ENOMEM, "tables: out of memory");
    }
    int n = 0;
    for (int i = 0; i < t->n_gpus; i++) {
        if (strchr(t->gpus[i].alias, '*') || strchr(t->gpus[i].alias, '?'))
            t->glob_rows[t->n_glob++] = i;
        else
            ord[n++] = &t->gpus[i];
    }
    qsort(ord, (size_t)n, sizeof *ord, cmp_gpu);
    gpi_status rc = GPI_OK;
    for (int k = n - 1; k >= 0 && rc == GPI_OK; k--) {
        gpu_row *g = &t->gpus[ord[k] - t->gpus];
        if (k + 1 < n && strcmp(ord[k + 1]->alias, g->alias) == 0)
            g->next = (int)(ord[k + 1] - t->gpus);
        if (strmap_put(&t->gpu_alias, g->alias, strlen(g->alias), (int)(g - t->gpus)) != 0)
            rc = GPI_ENOMEM;
    }
    free(ord);
    if (rc != GPI_OK) return gpi_diag_set(d, rc, "tables: out of memory");
    rc = index_keyed(t->tiers, t->n_tiers, &t->tier_key, "tiers.csv", "effective", d);
    if (rc == GPI_OK) rc = index_keyed(t->fx, t->n_fx, &t->fx_key, "fx.csv", "date", d);
    return rc;
}

gpi_status ingest_tables_load(const char *dir, ingest_tables **out, gpi_diag *d)
{
    static const char *const gcols[] = {"alias", "canonical", "provider", "sku_glob", "note"};
    static const char *const pcols[] = {"alias", "provider", "group", "segment"};
    static const char *const tcols[] = {"provider", "tier", "effective"};
    static const char *const fcols[] = {"date", "currency", "usd_per_unit"};
    static const char *const scols[] = {"provider", "sku_glob", "gpu_count", "covers", "unit",
                                        "note"};
    loader ls[] = {
        {NULL, "gpus.csv", gcols, 5, {0}, 0, gpu_row_fn, 0},
        {NULL, "providers.csv", pcols, 4, {0}, 0, prov_row_fn, 0},
        {NULL, "tiers.csv", tcols, 3, {0}, 0, tier_row_fn, 0},
        {NULL, "fx.csv", fcols, 3, {0}, 0, fx_row_fn, 0},
        {NULL, "skus.csv", scols, 6, {0}, 0, sku_row_fn, 1},
    };
    if (!out) return gpi_diag_set(d, GPI_EUSAGE, "ingest_tables_load: no output");
    *out = NULL;
    if (!dir) return gpi_diag_set(d, GPI_EUSAGE, "ingest_tables_load: no directory");
    ingest_tables *t = calloc(1, sizeof *t);
    if (!t) return gpi_diag_set(d, GPI_ENOMEM, "tables: out of memory");
    gpi_sha256 sha;
    gpi_sha256_init(&sha);
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < sizeof ls / sizeof ls[0] && rc == GPI_OK; i++)
        rc = load_one(t, dir, &ls[i], &sha, d);
    if (rc == GPI_OK) rc = build_indexes(t, d);
    if (rc != GPI_OK) {
        ingest_tables_free(t);
        return rc;
    }
    gpi_sha256_final(&sha, t->sha);
    *out = t;
    return GPI_OK;
}

void ingest_tables_free(ingest_tables *t)
{
    if (!t) return;
    arena_free(&t->a);
    free(t->gpus);
    free(t->glob_rows);
    free(t->provs);
    free(t->tiers);
    free(t->fx);
    free(t->skus);
    strmap_free(&t->gpu_alias);
    strmap_free(&t->prov);
    strmap_free(&t->tier_key);
    strmap_free(&t->fx_key);
    free(t);
}

const char *ingest_tables_sha256(const ingest_tables *t)
{
    return t->sha;
}

/* ---- lookups ---------------------------------------------------------------- */

static int row_matches(const gpu_row *g, const char *provider, const char *sku)
{
    if (g->provider && (!provider || strcmp(g->provider, provider) != 0)) return 0;
    if (g->sku_glob && fnmatch(g->sku_glob, sku, 0) != 0) return 0;
    return 1;
}

int tables_gpu(const ingest_tables *t, const char *gpu, const char *provider,
               const char *sku, gpu_match *m)
{
    char key[256], lsku[256];
    int n = gpi_fold_gpu(gpu, key, sizeof key);
    if (n <= 0) return 0;
    size_t k = 0;
    if (sku)
        for (; sku[k] && k + 1 < sizeof lsku; k++) lsku[k] = (char)tolower((unsigned char)sku[k]);
    lsku[k] = '\0';
    for (int i = strmap_get(&t->gpu_alias, key, (size_t)n); i >= 0; i = t->gpus[i].next)
        if (row_matches(&t->gpus[i], provider, lsku)) {
            m->canonical = t->gpus[i].canonical;
            m->note = t->gpus[i].note;
            return 1;
        }
    for (int j = 0; j < t->n_glob; j++) {
        const gpu_row *g = &t->gpus[t->glob_rows[j]];
        if (fnmatch(g->alias, key, 0) == 0 && row_matches(g, provider, lsku)) {
            m->canonical = g->canonical;
            m->note = g->note;
            return 1;
        }
    }
    return 0;
}

int tables_provider(const ingest_tables *t, const char *name, char *buf, size_t cap,
                    provider_match *m)
{
    int n = fold_name(name, buf, cap);
    if (n <= 0) return -1;
    int i = strmap_get(&t->prov, buf, (size_t)n);
    if (i >= 0) {
        *m = t->provs[i];
        m->known = 1;
    } else {
        m->provider = buf;
        m->group = buf;
        m->segment = "unknown";
        m->known = 0;
    }
    return 0;
}

int ingest_provider_resolve(const ingest_tables *t, const char *name, char *buf, size_t cap,
                            const char **provider, const char **group, const char **segment)
{
    provider_match m;
    if (tables_provider(t, name, buf, cap, &m) != 0) return -1;
    *provider = m.provider;
    *group = m.group;
    *segment = m.segment;
    return m.known;
}

/* Optimal string alignment distance (edits, adjacent swaps), capped:
 * returns cap + 1 as soon as it must exceed cap. */
static int osa(const char *a, const char *b, int cap)
{
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > 64 || m > 64 || abs(n - m) > cap) return cap + 1;
    int dm[65][65];
    for (int i = 0; i <= n; i++) dm[i][0] = i;
    for (int j = 0; j <= m; j++) dm[0][j] = j;
    for (int i = 1; i <= n; i++) {
        int row_min = cap + 1;
        for (int j = 1; j <= m; j++) {
            int c = a[i - 1] != b[j - 1];
            int v = dm[i - 1][j] + 1;
            if (dm[i][j - 1] + 1 < v) v = dm[i][j - 1] + 1;
            if (dm[i - 1][j - 1] + c < v) v = dm[i - 1][j - 1] + c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                dm[i - 2][j - 2] + 1 < v)
                v = dm[i - 2][j - 2] + 1;
            dm[i][j] = v;
            if (v < row_min) row_min = v;
        }
        if (row_min > cap) return cap + 1;
    }
    return dm[n][m];
}

/* Letters and digits only, for comparing "lambda-labs" with "lambda labs". */
static void alnum_only(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (isalnum((unsigned char)*s)) out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

const char *tables_provider_suggest(const ingest_tables *t, const char *name)
{
    char a[256], b[256];
    alnum_only(name, a, sizeof a);
    int la = (int)strlen(a);
    if (la == 0) return NULL;
    int cap = la <= 4 ? 1 : la <= 8 ? 2 : 3, best = cap + 1;
    const char *out = NULL;
    for (size_t k = 0; k < t->prov.cap; k++) {
        if (!t->prov.keys[k]) continue;
        alnum_only(t->prov.keys[k], b, sizeof b);
        int lb = (int)strlen(b);
        if (lb == 0) continue;
        /* a known name of 5 letters or more inside the unknown one
         * ("lambda cloud"), or the other way round, counts as one edit */
        int sub = (lb >= 5 && strstr(a, b)) || (la >= 5 && strstr(b, a));
        int dist = sub ? 1 : osa(a, b, cap);
        const char *p = t->provs[t->prov.vals[k]].provider;
        if (dist < best || (dist == best && out && strcmp(p, out) < 0)) {
            best = dist;
            out = p;
        }
    }
    return best <= cap ? out : NULL;
}

int tables_sku(const ingest_tables *t, const char *provider, const char *sku)
{
    char lsku[256];
    size_t k = 0;
    if (!sku) sku = "";
    for (; sku[k] && k + 1 < sizeof lsku; k++) lsku[k] = (char)tolower((unsigned char)sku[k]);
    lsku[k] = '\0';
    for (int i = 0; i < t->n_skus; i++) {
        const sku_rule *r = &t->skus[i];
        if (r->provider && (!provider || strcmp(r->provider, provider) != 0)) continue;
        if (fnmatch(r->glob, lsku, 0) == 0) return i;
    }
    return -1;
}

const sku_rule *tables_sku_rule(const ingest_tables *t, int i)
{
    return i >= 0 && i < t->n_skus ? &t->skus[i] : NULL;
}

/* The key's last row dated on or before day: -1 when none, -2 when the key
 * has no rows.  Rows of a key dated on or before day are a prefix of its
 * run, so a binary search finds it (fx.csv may hold years of daily rates). */
static int keyed_find(const keyed_row *rows, int n, const strmap *map, const char *key,
                      int32_t day)
{
    int lo = strmap_get(map, key, strlen(key));
    if (lo < 0) return -2;
    if (rows[lo].day > day) return -1;
    int hi = n; /* rows[lo] qualifies; rows[hi] (if any) does not */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (rows[mid].day <= day && strcmp(rows[mid].key, key) == 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int tables_tier(const ingest_tables *t, const char *provider, int32_t day)
{
    int i = keyed_find(t->tiers, t->n_tiers, &t->tier_key, provider, day);
    return i >= 0 ? t->tiers[i].tier : GPI_TIER_UNRATED;
}

int tables_fx(const ingest_tables *t, const char *currency, int32_t day, gpi_dec *rate)
{
    int i = keyed_find(t->fx, t->n_fx, &t->fx_key, currency, day);
    if (i == -2) return 0;
    if (i < 0) return -1;
    *rate = t->fx[i].rate;
    return 1;
}
