/* cli/cmd_grades_set.c -- `gpuidx grades list|drop|restore`: the published
 * grade set (cli/gradeset.c) and the grades of the database.
 *
 * list shows every grade of the published grades file and of the
 * database with the set it is in (published, candidate, dropped), the
 * days it was built and published and its definition hash; drop stops
 * building, publishing and showing a grade (its rows and published
 * vintages stay), restore undoes it.  `grades evaluate` (the grade lab):
 * cli/cmd_grades.c.
 */
#include "cli/cli.h"
#include "core/vec.h"
#include "store/grades.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct list_ctx {
    cli_gradeset *set;
    char *seen;                     /* per grade of the file: in the database */
    int w;
    gpi_status rc;
} list_ctx;

static void list_line(const list_ctx *c, const char *id, const char *status, int version,
                      const store_grade_info *g, const char *hash)
{
    char range[32] = "-", vd[32] = "-", pd[32] = "-", h[16] = "-";
    if (g && g->rows > 0) {
        char a[11], b[11];
        gpi_date_format(g->first_day, a);
        gpi_date_format(g->last_day, b);
        snprintf(range, sizeof range, "%s..%s", a, b);
        snprintf(vd, sizeof vd, "%ld/%ld", g->value_days, g->rows);
        snprintf(pd, sizeof pd, "%ld", g->published_days);
    }
    char h2[48] = "";
    if (hash) snprintf(h, sizeof h, "%.12s", hash);
    /* the file's definition differs from what was built last */
    if (g && g->hash && hash && strcmp(g->hash, hash) != 0)
        snprintf(h2, sizeof h2, " (built: %.12s)", g->hash);
    char v[16] = "-";
    if (version > 0) snprintf(v, sizeof v, "%d", version);
    printf("%-*s  %-9s  %7s  %-22s  %11s  %9s  %s%s\n", c->w, id, status, v, range, vd, pd, h,
           h2);
}

static int list_db(const store_grade_info *g, void *ud)
{
    list_ctx *c = ud;
    int k = cli_gradeset_has(c->set, g->id);
    const char *status = g->dropped_at ? "dropped" : k ? "published" : "candidate";
    const char *hash = g->hash;
    int version = g->version;
    if (k) {
        c->seen[k - 1] = 1;
        const idx_grade *fg = &c->set->gs->g[k - 1];
        /* the file's definition is what will be built next */
        hash = fg->hash;
        version = fg->version;
    }
    list_line(c, g->id, status, version, g, hash);
    return 0;
}

static int width_db(const store_grade_info *g, void *ud)
{
    int *w = ud;
    if ((int)strlen(g->id) > *w) *w = (int)strlen(g->id);
    return 0;
}

int cmd_grades_list(cli_ctx *ctx, int argc, char **argv)
{
    const char *grades = NULL;
    const cli_opt_spec spec[] = {{"--grades", &grades, NULL}, {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "grades list", "grades list", "grades list");
    if (ec >= 0) return ec;
    if (!cli_have_db(ctx, "grades list")) return 1;
    gpi_diag d = {{0}};
    store *st = NULL;
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    gpi_status rc = store_open_read(ctx->db_path, &st, &d);
    if (rc == GPI_OK) rc = cli_gradeset_load(ctx, st, grades, &set, &d);
    list_ctx c = {&set, NULL, 5, GPI_OK};
    if (rc == GPI_OK && !(c.seen = calloc(set.gs->n ? set.gs->n : 1, 1)))
        rc = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; rc == GPI_OK && i < set.gs->n; i++)
        if ((int)strlen(set.gs->g[i].id) > c.w) c.w = (int)strlen(set.gs->g[i].id);
    if (rc == GPI_OK) rc = store_grades_list(st, width_db, &c.w, &d);
    if (rc == GPI_OK) {
        printf("published grades file: %s (sha256 %.12s)\n\n", set.path, set.gs->sha256);
        printf("%-*s  %-9s  %7s  %-22s  %11s  %9s  %s\n", c.w, "grade", "set", "version",
               "built", "value/days", "published", "definition");
        rc = store_grades_list(st, list_db, &c, &d);
    }
    for (size_t i = 0; rc == GPI_OK && i < set.gs->n; i++)
        if (!c.seen[i])
            list_line(&c, set.gs->g[i].id, set.dropped[i] ? "dropped" : "published",
                      set.gs->g[i].version, NULL, set.gs->g[i].hash);
    if (rc == GPI_OK)
        fputs("\npublished: in the published grades file and not dropped (index publish and\n"
              "site show these); candidate: built from another file, never published;\n"
              "dropped: no longer built, published or shown (gpuidx grades restore ID).\n"
              "value/days: built days with a value / built days; definition: the first\n"
              "12 hex digits of the definition hash (the file's, for a published grade;\n"
              "\"built:\" the last one built, when the file's differs).\n",
              stdout);
    if (rc != GPI_OK) cli_error("%s", d.msg);
    free(c.seen);
    cli_gradeset_free(&set);
    store_close(st);
    return gpi_exit_code(rc);
}

typedef struct found_grade {
    store_grade_info info;
    char id[80];                    /* the stored spelling */
} found_grade;

static int find_info(const store_grade_info *g, void *ud)
{
    found_grade *out = ud;
    if (strcasecmp(g->id, out->id) != 0) return 0;
    out->info = *g;
    out->info.id = out->id;
    snprintf(out->id, sizeof out->id, "%s", g->id);
    out->info.version = g->version > 0 ? g->version : -1; /* found */
    return 1;
}

/* The grade ids a suggestion is chosen from (owned copies). */
typedef struct id_list {
    char **v;
    size_t n, cap;
} id_list;

static int id_add(id_list *l, const char *id)
{
    char *c = strdup(id);
    if (!c || GPI_VEC_RESERVE(l->v, l->cap, l->n + 1) != 0) {
        free(c);
        return 1;
    }
    l->v[l->n++] = c;
    return 0;
}

static int collect_id(const store_grade_info *g, void *ud)
{
    return id_add(ud, g->id);
}

int cmd_grades_drop_restore(cli_ctx *ctx, int argc, char **argv, int drop)
{
    const char *cmd = drop ? "grades drop" : "grades restore";
    const char *id = NULL;
    int n_ids = 0;
    const cli_opt_spec spec[] = {{NULL, NULL, NULL}};
    const cli_args args = {cmd, cmd, cmd, spec, NULL, NULL, &id, 1, &n_ids, 0, NULL};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    if (!id) {
        cli_error("%s: which grade? (gpuidx %s ID)", cmd, cmd);
        return 2;
    }
    if (!cli_have_db(ctx, cmd)) return 1;
    gpi_diag d = {{0}};
    store *st = NULL;
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    gpi_status rc = store_open(ctx->db_path, &st, &d);
    gpi_diag ignore = {{0}};
    if (rc == GPI_OK && cli_gradeset_load(ctx, st, NULL, &set, &ignore) != GPI_OK)
        cli_gradeset_free(&set);
    found_grade fg;
    memset(&fg, 0, sizeof fg);
    snprintf(fg.id, sizeof fg.id, "%s", id);
    if (rc == GPI_OK) rc = store_grades_list(st, find_info, &fg, &d);
    const store_grade_info info = fg.info;
    int in_file = cli_gradeset_has(&set, id);
    int known = info.version != 0 || in_file;
    /* the id as the database or the file spells it */
    if (info.version == 0 && in_file) snprintf(fg.id, sizeof fg.id, "%s", set.gs->g[in_file - 1].id);
    if (known) id = fg.id;
    if (rc == GPI_OK && !known) {
        id_list names = {NULL, 0, 0};
        store_grades_list(st, collect_id, &names, &d);
        for (size_t i = 0; set.gs && i < set.gs->n; i++)
            if (id_add(&names, set.gs->g[i].id) != 0) break;
        char near[256] = "";
        cli_suggest(id, (const char *const *)names.v, names.n, near, sizeof near);
        for (size_t i = 0; i < names.n; i++) free(names.v[i]);
        free(names.v);
        rc = gpi_diag_set(&d, GPI_EINPUT, "%s: no grade %s in the database or %s%s%s%s", cmd,
                          id, set.path[0] ? set.path : "the published grades file",
                          near[0] ? " (did you mean " : "", near, near[0] ? "?)" : "");
    }
    int changed = 0;
    if (rc == GPI_OK)
        rc = drop ? store_grade_drop(st, id, (int64_t)time(NULL), &changed, &d)
                  : store_grade_restore(st, id, &changed, &d);
    if (rc == GPI_OK) {
        if (!changed)
            printf("%s: %s was %s already\n", cmd, id, drop ? "dropped" : "not dropped");
        else if (drop)
            printf("grades drop: %s dropped: no longer built, published or shown on the site; "
                   "its %ld built days and %ld published days stay%s (gpuidx grades restore %s "
                   "undoes this)\n",
                   id, info.rows, info.published_days,
                   cli_gradeset_has(&set, id) ? "; it is still listed in the published grades "
                                                "file"
                                              : "",
                   id);
        else
            printf("grades restore: %s is built, published and shown again\n", id);
    }
    if (rc != GPI_OK) cli_error("%s", d.msg);
    cli_gradeset_free(&set);
    store_close(st);
    return gpi_exit_code(rc);
}
