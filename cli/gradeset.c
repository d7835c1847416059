/* cli/gradeset.c -- the published grade set and the messages about grade
 * files that several commands print.
 *
 * The published grade set is the grades of the published grades file
 * (--grades FILE of `index publish` and `site`, default DATA/grades.json)
 * less the grades dropped with `gpuidx grades drop`.  Publication and the
 * site show only these; grades built from any other file (candidates for
 * the grade lab or a hedge comparison) stay in the database for `index
 * show`, `hedge` and `settle`, and are never published.
 */
#include "cli/cli.h"
#include "core/vec.h"
#include "store/grades.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_print_notes(const idx_grades *gs)
{
    if (!gs || !gs->notes) return;
    const char *p = gs->notes;
    while (*p) {
        size_t n = strcspn(p, "\n");
        cli_error("note: %.*s", (int)n, p);
        p += n;
        if (*p) p++;
    }
}

static void warn_line(const char *msg, void *ud)
{
    (void)ud;
    cli_error("warning: %s", msg);
}

gpi_status cli_check_filters(cli_ctx *ctx, store *st, const idx_grades *gs, const char *name,
                             gpi_diag *d)
{
    idx_grade_tables tb;
    gpi_status rc = idx_grade_tables_load(cli_data_dir(ctx), &tb, d);
    if (rc == GPI_OK) rc = idx_grades_check(gs, name, &tb, st, warn_line, NULL, d);
    idx_grade_tables_free(&tb);
    return rc;
}

const char *cli_published_path(cli_ctx *ctx, const char *path, char buf[4096])
{
    if (path) return path;
    snprintf(buf, 4096, "%s/grades.json", cli_data_dir(ctx));
    return buf;
}

gpi_status cli_gradeset_load(cli_ctx *ctx, store *st, const char *path, cli_gradeset *out,
                             gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    char buf[4096];
    snprintf(out->path, sizeof out->path, "%s", cli_published_path(ctx, path, buf));
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), out->path, &out->gs, d);
    if (rc != GPI_OK) return rc;
    out->ids = calloc(out->gs->n ? out->gs->n : 1, sizeof *out->ids);
    out->hashes = calloc(out->gs->n ? out->gs->n : 1, sizeof *out->hashes);
    out->dropped = calloc(out->gs->n ? out->gs->n : 1, sizeof *out->dropped);
    if (!out->ids || !out->hashes || !out->dropped)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < out->gs->n && rc == GPI_OK; i++) {
        int dropped = 0;
        rc = st ? store_grade_dropped(st, out->gs->g[i].id, &dropped, d) : GPI_OK;
        out->dropped[i] = dropped;
        if (!dropped) {
            out->hashes[out->n] = out->gs->g[i].hash;
            out->ids[out->n++] = out->gs->g[i].id;
        }
    }
    return rc;
}

int cli_gradeset_has(const cli_gradeset *s, const char *id)
{
    for (size_t i = 0; s->gs && i < s->gs->n; i++)
        if (strcasecmp(s->gs->g[i].id, id) == 0) return (int)i + 1;
    return 0;
}

void cli_gradeset_free(cli_gradeset *s)
{
    idx_grades_free(s->gs);
    free(s->ids);
    free(s->hashes);
    free(s->dropped);
    memset(s, 0, sizeof *s);
}

/* ---- "did you mean" ------------------------------------------------------------ */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Edit distance ignoring case, capped at 9 (ids are at most 64 bytes). */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) return 9;
    int prev[65], cur[65];
    for (size_t j = 0; j <= m; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int c = lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]);
            int v = prev[j - 1] + c;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            cur[j] = v;
        }
        memcpy(prev, cur, (m + 1) * sizeof *prev);
    }
    return prev[m] > 9 ? 9 : prev[m];
}

void cli_suggest(const char *want, const char *const *names, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    size_t len = strlen(want), used = 0;
    int limit = len <= 4 ? 1 : len <= 10 ? 2 : 3;
    for (int pass = 0; pass <= limit && used < 3; pass++)
        for (size_t i = 0; i < n && used < 3; i++) {
            size_t ln = strlen(names[i]);
            /* "H100-SXM.OD" for "h100-sxm": a prefix of the other counts
             * as one edit */
            int d = strncasecmp(names[i], want, ln < len ? ln : len) == 0 && (ln >= 3 && len >= 3)
                        ? 1
                        : distance(want, names[i]);
            if (d != pass || strcasecmp(names[i], want) == 0) continue;
            int dup = 0;
            for (size_t k = 0; k < i && !dup; k++) dup = strcasecmp(names[k], names[i]) == 0;
            if (dup) continue;
            size_t w = strlen(out);
            snprintf(out + w, cap - w, "%s%s", used ? ", " : "", names[i]);
            used++;
        }
}

/* ---- did you mean: grade ids ---- */

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int add_name(names *ns, const char *s)
{
    if (GPI_VEC_RESERVE(ns->v, ns->cap, ns->n + 1) != 0) return 1;
    return !(ns->v[ns->n++] = strdup(s));
}

static int add_info(const store_grade_info *g, void *ud)
{
    return add_name(ud, g->id);
}

void cli_grades_near(cli_ctx *ctx, store *st, const char *want, char *out, size_t cap)
{
    names ns = {0};
    gpi_diag ignore = {{0}};
    out[0] = '\0';
    if (st) store_grades_list(st, add_info, &ns, &ignore);
    cli_gradeset set;
    if (ctx && cli_gradeset_load(ctx, NULL, NULL, &set, &ignore) == GPI_OK)
        for (size_t i = 0; i < set.gs->n; i++) add_name(&ns, set.gs->g[i].id);
    if (ctx) cli_gradeset_free(&set);
    cli_suggest(want, (const char *const *)ns.v, ns.n, out, cap);
    for (size_t i = 0; i < ns.n; i++) free(ns.v[i]);
    free(ns.v);
}

const char *cli_grade_hint(cli_ctx *ctx, store *st, const char *want, char *out, size_t cap)
{
    char near[256];
    cli_grades_near(ctx, st, want, near, sizeof near);
    if (near[0])
        snprintf(out, cap, " (did you mean %s?)", near);
    else
        out[0] = '\0';
    return out;
}
