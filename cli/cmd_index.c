/* cli/cmd_index.c -- `gpuidx index build|show|publish`.
 *
 * Argument parsing and printing only; the work is in index/.  Data (the
 * CSV of `show`) goes to stdout, summaries and errors to stderr.
 */
#include "cli/cli.h"
#include "core/vec.h"
#include "store/grades.h"
#include "store/index_values.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "index/index.h"
#include "cli/curve_cmd.h"
#include "publish/publish.h"

static int parse_day(const char *opt, const char *v, int32_t *day)
{
    const char *why = gpi_date_parse(v, day);
    if (why) {
        cli_error("%s: %s (got \"%s\")", opt, why, v);
        return 0;
    }
    return 1;
}

/* The database, which must exist (cli_have_db), read-only when the
 * command only reads (store_open_read); NULL after a message. */
static store *open_db(cli_ctx *ctx, const char *cmd, int read_only)
{
    store *st = NULL;
    gpi_diag d = {{0}};
    if (!cli_have_db(ctx, cmd)) return NULL;
    gpi_status rc = read_only ? store_open_read(ctx->db_path, &st, &d)
                              : store_open(ctx->db_path, &st, &d);
    if (rc != GPI_OK) cli_error("%s", d.msg);
    return st;
}

/* Prints each grade's days per level over [from, to] (stderr). */
typedef struct level_count {
    const idx_grades *gs;
    long (*n)[GPI_LEVEL__N];
    long *max_prov;             /* most providers of a day, per grade */
} level_count;

static int count_row(const store_index_row *r, void *ud)
{
    level_count *c = ud;
    for (size_t i = 0; i < c->gs->n; i++)
        if (strcasecmp(c->gs->g[i].id, r->grade) == 0 && r->level >= 0 &&
            r->level < GPI_LEVEL__N) {
            c->n[i][r->level]++;
            if (r->n_providers > c->max_prov[i]) c->max_prov[i] = r->n_providers;
        }
    return 0;
}

static gpi_status print_levels(store *st, const idx_grades *gs, int32_t from, int32_t to,
                               gpi_diag *d)
{
    long (*n)[GPI_LEVEL__N] = calloc(gs->n ? gs->n : 1, sizeof *n);
    long *max_prov = calloc(gs->n ? gs->n : 1, sizeof *max_prov);
    if (!n || !max_prov) {
        free(n);
        free(max_prov);
        return gpi_diag_set(d, GPI_ENOMEM, "index build: out of memory");
    }
    level_count c = {gs, n, max_prov};
    gpi_status rc = store_index_rows(st, NULL, from, to, count_row, &c, d);
    for (size_t i = 0; rc == GPI_OK && i < gs->n; i++) {
        long days = 0;
        for (int l = 0; l < GPI_LEVEL__N; l++) days += n[i][l];
        char why[160] = "";
        /* a grade with no value on any day says why, when the rows can */
        if (days > 0 && n[i][GPI_LEVEL_SUSPENDED] == days) {
            if (max_prov[i] == 0)
                snprintf(why, sizeof why, " (no observation of the grade on any day)");
            else if (max_prov[i] < gs->g[i].p.min_providers)
                snprintf(why, sizeof why, " (at most %ld provider%s on a day; min_providers is %d)",
                         max_prov[i], max_prov[i] == 1 ? "" : "s", gs->g[i].p.min_providers);
        }
        fprintf(stderr, "index build: %s: %ld days: trades %ld, offers %ld, carried %ld, "
                        "suspended %ld%s\n",
                gs->g[i].id, days, n[i][GPI_LEVEL_TRADES], n[i][GPI_LEVEL_OFFERS],
                n[i][GPI_LEVEL_CARRIED], n[i][GPI_LEVEL_SUSPENDED], why);
    }
    free(n);
    free(max_prov);
    return rc;
}

/* A candidate file may not redefine a grade of the published grades file
 * (its rows would replace the published grade's). */
static gpi_status check_candidates(cli_ctx *ctx, store *st, const char *path,
                                   const idx_grades *gs, gpi_diag *d)
{
    char buf[4096];
    const char *pub = cli_published_path(ctx, NULL, buf);
    if (strcmp(pub, path) == 0) return GPI_OK;
    cli_gradeset set;
    gpi_diag ignore = {{0}};
    if (cli_gradeset_load(ctx, st, NULL, &set, &ignore) != GPI_OK) { /* no published file */
        cli_gradeset_free(&set);
        return GPI_OK;
    }
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        int k = cli_gradeset_has(&set, gs->g[i].id);
        if (k && strcmp(set.gs->g[k - 1].hash, gs->g[i].hash) != 0)
            rc = gpi_diag_set(d, GPI_EINPUT,
                              "index build: %s: grade %s is a published grade of %s with another "
                              "definition; give the candidate its own id",
                              path, gs->g[i].id, set.path);
    }
    cli_gradeset_free(&set);
    return rc;
}

/* The progress of a long build on a terminal (stderr; a publication says
 * each day as it is written, and ingest has its own): one
 * line rewritten in place, at most twice a second, ended before the
 * command's own lines. */
typedef struct progress_line {
    const char *what;
    int shown;
    int64_t last_ms;
} progress_line;

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void show_progress(void *ud, int32_t day, int32_t from, int32_t to)
{
    progress_line *p = ud;
    int64_t now = mono_ms();
    if (p->shown && now - p->last_ms < 500 && day < to) return;
    p->last_ms = now;
    char ds[11];
    gpi_date_format(day, ds);
    fprintf(stderr, "\r%s: %s (%ld of %ld days)", p->what, ds, (long)(day - from + 1),
            (long)(to - from + 1));
    p->shown = 1;
}

static void end_progress(progress_line *p)
{
    if (p->shown) fputs("\r\033[K", stderr); /* the line cleared */
    p->shown = 0;
}

/* ---- late data (publish/late.c) ----------------------------------------------- */

/* The published grade set as publish/ takes it (the caller's set). */
static pub_set pub_set_of(const cli_gradeset *set)
{
    return (pub_set){.ids = set->ids,
                     .n = set->n,
                     .sha256 = set->gs ? set->gs->sha256 : NULL,
                     .key = NULL,
                     .hashes = set->hashes};
}

/* Names every published day behind (stderr): to build again, or to
 * publish again with the restatements it would make. */
static void print_stale(const char *cmd, const pub_stale *v, size_t n, int32_t last_built)
{
    for (size_t i = 0; i < n; i++) {
        char a[11], b[11];
        gpi_date_format(v[i].day, a);
        gpi_date_format(last_built > v[i].day ? last_built : v[i].day, b);
        if (v[i].rebuild)
            cli_error("warning: %s: %s (published, vintage %d) was %s: gpuidx index build "
                      "--from %s --to %s, then gpuidx index publish --restate --out DIR",
                      cmd, a, v[i].vintage, v[i].what, a, b);
        else
            cli_error("warning: %s: %s (published, vintage %d) is not its built rows; publishing "
                      "it again: %s (gpuidx index publish --restate --out DIR)",
                      cmd, a, v[i].vintage, v[i].what);
    }
}

/* The grades of the published set that are not dropped, as one idx_grades
 * viewing set->gs's (free g->g only). */
static gpi_status published_grades(const cli_gradeset *set, idx_grades *g, gpi_diag *d)
{
    g->n = 0;
    g->g = calloc(set->gs->n ? set->gs->n : 1, sizeof *g->g);
    if (!g->g) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < set->gs->n; i++)
        if (!set->dropped[i]) g->g[g->n++] = set->gs->g[i];
    return GPI_OK;
}

static int cmd_build(cli_ctx *ctx, int argc, char **argv)
{
    const char *grades = NULL, *from_s = NULL, *to_s = NULL, *asof_s = NULL;
    char from_buf[11];
    const cli_opt_spec spec[] = {{"--grades", &grades, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},       {"--as-of", &asof_s, NULL},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index build", "index build", "index build");
    if (ec >= 0) return ec;
    if (!from_s || !to_s) {
        cli_error("index build: --from and --to are required");
        return 2;
    }
    int32_t from, to;
    if (!parse_day("--from", from_s, &from) || !parse_day("--to", to_s, &to)) return 2;
    if (from > to) {
        cli_error("index build: --from %s is after --to %s", from_s, to_s);
        return 2;
    }
    const char *outside = idx_day_outside(from);
    if (outside || (outside = idx_day_outside(to))) {
        cli_error("index build: %s: %s (got \"%s\")", idx_day_outside(from) ? "--from" : "--to",
                  outside, idx_day_outside(from) ? from_s : to_s);
        return 2;
    }
    int64_t now = (int64_t)time(NULL), as_of = IDX_AS_OF_NOW;
    if (asof_s) {
        const char *why = gpi_time_parse(asof_s, &as_of);
        if (why) {
            cli_error("--as-of: %s (got \"%s\")", why, asof_s);
            return 2;
        }
        /* a cut-off in the future would let data ingested later pass for
         * data the build saw */
        if (as_of > now) {
            cli_error("--as-of: in the future (got \"%s\")", asof_s);
            return 2;
        }
    }
    gpi_diag d = {{0}};
    idx_grades *gs = NULL;
    char pbuf[4096];
    const char *path = cli_published_path(ctx, grades, pbuf);
    gpi_status rc = idx_grades_load_data(cli_data_dir(ctx), path, &gs, &d);
    store *st = NULL;
    if (rc == GPI_OK) cli_print_notes(gs);
    /* fresh inputs (index/fresh.c) are applied to v1 and v3 grades; a v2
     * chain would match offers that come and go with their age: refused,
     * a grade must not claim what it does not do */
    for (size_t i = 0; rc == GPI_OK && i < gs->n; i++)
        if (gs->g[i].p.max_unchanged_days > 0 && gs->g[i].method == 2)
            rc = gpi_diag_set(&d, GPI_EINPUT, "%s: grades[%zu].max_unchanged_days: not applied to "
                              "methodology v2 (its matched sample would gain and lose offers as "
                              "they age); use method v3 or v1, or evaluate it with `grades stale`",
                              path, i);
    if (rc == GPI_OK && !(st = open_db(ctx, "index build", 0))) rc = GPI_ESTORE, d.msg[0] = '\0';
    if (rc == GPI_OK && grades) rc = check_candidates(ctx, st, path, gs, &d);
    /* dropped grades are not built (their rows stay): the kept ones first,
     * in their order, the dropped ones after them, in place -- a grade is
     * 23 KB, and a copy of 10,000 of them was 230 MB of a build's peak
     * (issue 31) */
    idx_grade *keep = NULL; /* the dropped ones, moved aside */
    idx_grades kept = {.n = 0, .g = NULL};
    size_t n_drop = 0;
    char *dropped = rc == GPI_OK ? calloc(gs->n + 1, 1) : NULL;
    if (rc == GPI_OK && !dropped) rc = gpi_diag_set(&d, GPI_ENOMEM, "index build: out of memory");
    for (size_t i = 0; rc == GPI_OK && i < gs->n; i++) {
        int dr = 0;
        rc = store_grade_dropped(st, gs->g[i].id, &dr, &d);
        dropped[i] = (char)(rc == GPI_OK && dr);
        n_drop += dropped[i] != 0;
        if (dropped[i])
            cli_error("warning: %s: grade %s is dropped (gpuidx grades drop): not built", path,
                      gs->g[i].id);
    }
    if (rc == GPI_OK && n_drop && !(keep = malloc(n_drop * sizeof *keep)))
        rc = gpi_diag_set(&d, GPI_ENOMEM, "index build: out of memory");
    if (rc == GPI_OK) { /* gs still owns every grade, kept ones first */
        size_t k = 0;
        for (size_t i = 0; i < gs->n; i++) {
            if (dropped[i]) keep[k++] = gs->g[i];
            else gs->g[kept.n++] = gs->g[i];
        }
        for (size_t i = 0; i < n_drop; i++) gs->g[kept.n + i] = keep[i];
        kept.g = gs->g;
    }
    free(dropped);
    if (rc == GPI_OK) rc = cli_check_filters(ctx, st, &kept, path, &d);
    /* late data reached published days of the published set: they are
     * built again, from the earliest (publish/late.c) */
    cli_gradeset set;
    memset(&set, 0, sizeof set);
    int published = 0;
    if (rc == GPI_OK) {
        char buf[4096];
        gpi_diag ignore = {{0}};
        published = strcmp(path, cli_published_path(ctx, NULL, buf)) == 0 &&
                    cli_gradeset_load(ctx, st, NULL, &set, &ignore) == GPI_OK;
    }
    pub_set ps = pub_set_of(&set);
    if (rc == GPI_OK && published && !asof_s) {
        pub_stale *late = NULL;
        size_t nl = 0;
        rc = pub_stale_days(st, &ps, INT32_MIN, from - 1, 0, &late, &nl, &d);
        if (rc == GPI_OK && nl && late[0].day < from) {
            char a[11];
            gpi_date_format(late[0].day, a);
            cli_error("index build: %s (published, vintage %d) was %s: building from %s", a,
                      late[0].vintage, late[0].what, a);
            from = late[0].day;
            snprintf(from_buf, sizeof from_buf, "%s", a);
            from_s = from_buf;
        }
        free(late);
    }
    idx_build_stats stats;
    progress_line pl = {"index build", 0, 0};
    if (rc == GPI_OK)
        rc = idx_build_progress(st, &kept, from, to, as_of, &stats,
                                isatty(STDERR_FILENO) ? show_progress : NULL, &pl, &d);
    end_progress(&pl);
    for (int k = 0; rc == GPI_OK && k < stats.n_notes && k < IDX_BUILD_NOTES; k++)
        cli_error("warning: index build: %s", stats.notes[k]);
    if (rc == GPI_OK && stats.n_notes > IDX_BUILD_NOTES)
        cli_error("warning: index build: %d more chain states refused (not named)",
                  stats.n_notes - IDX_BUILD_NOTES);
    if (rc == GPI_OK) {
        fprintf(stderr,
                "index build: %s..%s: %ld days, %zu grades, %ld rows, %ld observations read, "
                "%ld later days re-evaluated\n",
                from_s, to_s, stats.days, kept.n, stats.rows, stats.observations,
                stats.reevaluated);
        rc = print_levels(st, &kept, from, to, &d);
    }
    if (rc == GPI_OK && published) { /* the published days now behind their built rows */
        pub_stale *late = NULL;
        size_t nl = 0;
        rc = pub_stale_days(st, &ps, INT32_MIN, INT32_MAX, 1, &late, &nl, &d);
        if (rc == GPI_OK) print_stale("index build", late, nl, to);
        free(late);
    }
    if (rc != GPI_OK && d.msg[0]) cli_error("%s", d.msg);
    cli_gradeset_free(&set);
    free(keep);
    store_close(st);
    idx_grades_free(gs);
    return gpi_exit_code(rc);
}

static int cmd_show(cli_ctx *ctx, int argc, char **argv)
{
    const char *grade = NULL, *from_s = NULL, *to_s = NULL;
    int32_t from = INT32_MIN / 2, to = INT32_MAX / 2;
    const cli_opt_spec spec[] = {{"--grade", &grade, NULL}, {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},     {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index show", "index show", "index show");
    if (ec >= 0) return ec;
    if ((from_s && !parse_day("--from", from_s, &from)) || (to_s && !parse_day("--to", to_s, &to)))
        return 2;
    store *st = open_db(ctx, "index show", 1);
    if (!st) return 1;
    gpi_diag d = {{0}};
    gpi_status rc = GPI_OK;
    if (grade) {
        int exists = 0;
        rc = store_grade_exists(st, grade, &exists, &d);
        if (rc == GPI_OK && !exists) {
            char near[256];
            cli_grades_near(ctx, st, grade, near, sizeof near);
            rc = gpi_diag_set(&d, GPI_EINPUT, "index show: no rows for grade %s (not built%s%s%s)",
                              grade, near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
        }
    }
    if (rc == GPI_OK) rc = pub_show(st, grade, from, to, stdout, &d);
    if (rc != GPI_OK) cli_error("%s", d.msg);
    store_close(st);
    return gpi_exit_code(rc);
}

static int count_any(const store_index_row *r, void *ud)
{
    (void)r;
    ++*(long *)ud;
    return 0;
}

typedef struct others {
    const cli_gradeset *set;
    int32_t from, to;
    char ids[256];
    int n;
} others;

/* Built grades of [from, to] that are not in the published grade set. */
static int other_built(const store_grade_info *g, void *ud)
{
    others *o = ud;
    if (g->rows == 0 || g->last_day < o->from || g->first_day > o->to || g->dropped_at ||
        cli_gradeset_has(o->set, g->id))
        return 0;
    if (o->n < 3) {
        size_t l = strlen(o->ids);
        snprintf(o->ids + l, sizeof o->ids - l, "%s%s", o->n ? ", " : "", g->id);
    }
    o->n++;
    return 0;
}

/* When no grade of the published set has a row in the range, says what to
 * do: build them, or -- when the database holds grades of a file of the
 * user's own -- publish those with --grades FILE. */
static gpi_status none_built(store *st, const cli_gradeset *set, const long *missing, long days,
                             int32_t from, int32_t to, const char *out, gpi_diag *d)
{
    for (size_t i = 0; i < set->n; i++)
        if (missing[i] < days) return GPI_OK;
    others o = {set, from, to, "", 0};
    gpi_status rc = store_grades_list(st, other_built, &o, d);
    if (rc != GPI_OK) return rc;
    char a[11], b[11], days_s[32];
    gpi_date_format(from, a);
    gpi_date_format(to, b);
    snprintf(days_s, sizeof days_s, from == to ? "%s" : "%s..%s", a, b);
    char range[48];
    snprintf(range, sizeof range, from == to ? "--date %s" : "--from %s --to %s", a, b);
    if (o.n == 0)
        return gpi_diag_set(d, GPI_EINPUT, "index publish: no grade is built on %s (gpuidx index "
                            "build --from %s --to %s first)", days_s, a, b);
    return gpi_diag_set(d, GPI_EINPUT,
                        "index publish: no grade of the published grades file %s is built on %s; "
                        "%s%s%s built from a file of your own: publish %s with that file, "
                        "gpuidx index publish --grades FILE %s --out %s",
                        set->path, days_s, o.ids, o.n > 3 ? ", ..." : "",
                        o.n == 1 ? " is" : " are", o.n == 1 ? "it" : "them", range, out);
}

/* One day published; prints what became of it. */
static gpi_status publish_day(store *st, int32_t day, const char *out, const pub_set *ps,
                              const char *why, gpi_diag *d)
{
    pub_result res;
    char ds[11];
    gpi_date_format(day, ds);
    gpi_status rc = pub_publish_set(st, day, out, ps, &res, d);
    if (rc == GPI_OK)
        fprintf(stderr,
                "index publish: %s vintage %d (%s; %d restated, %d revisions%s) in %s/%s%s\n", ds,
                res.vintage, res.is_new ? "new" : "unchanged", res.restated, res.revised,
                !ps->key                ? ""
                : res.signed_by_key > 0 ? "; signed"
                : res.signed_by_key < 0 ? "; kept its signature by another key"
                                        : "; unsigned: published before, unchanged",
                out, ds, why);
    return rc;
}

/* --restate: the published days late data reached are built again, then
 * every published day whose built rows changed is published, in order. */
static gpi_status restate(store *st, const cli_gradeset *set, const pub_set *ps, const char *out,
                          gpi_diag *d)
{
    pub_stale *late = NULL;
    size_t n = 0;
    gpi_status rc = pub_stale_days(st, ps, INT32_MIN, INT32_MAX, 0, &late, &n, d);
    if (rc == GPI_OK && n) {
        idx_grades g;
        rc = published_grades(set, &g, d);
        idx_build_stats stats;
        char a[11], b[11];
        gpi_date_format(late[0].day, a);
        gpi_date_format(late[n - 1].day, b);
        if (rc == GPI_OK) rc = idx_build(st, &g, late[0].day, late[n - 1].day, IDX_AS_OF_NOW,
                                         &stats, d);
        if (rc == GPI_OK)
            fprintf(stderr, "index publish: --restate: %s..%s built again (late data): %ld days, "
                            "%ld later days re-evaluated\n",
                    a, b, stats.days, stats.reevaluated);
        free(g.g);
    }
    free(late);
    late = NULL;
    n = 0;
    if (rc == GPI_OK) rc = pub_stale_days(st, ps, INT32_MIN, INT32_MAX, 1, &late, &n, d);
    for (size_t i = 0; i < n && rc == GPI_OK; i++)
        rc = publish_day(st, late[i].day, out, ps, " (--restate)", d);
    free(late);
    return rc;
}

static int cmd_publish(cli_ctx *ctx, int argc, char **argv)
{
    const char *date = NULL, *out = NULL, *from_s = NULL, *to_s = NULL, *grades = NULL;
    const char *sign = NULL, *contracts = NULL, *futures = NULL;
    int restate_flag = 0;
    const cli_opt_spec spec[] = {{"--date", &date, NULL},         {"--from", &from_s, NULL},
                                 {"--to", &to_s, NULL},           {"--out", &out, NULL},
                                 {"--grades", &grades, NULL},     {"--sign", &sign, NULL},
                                 {"--contracts", &contracts, NULL},
                                 {"--futures", &futures, NULL},   {"--restate", NULL, &restate_flag},
                                 {NULL, NULL, NULL}};
    int ec = cli_parse(argc, argv, spec, "index publish", "index publish", "index publish");
    if (ec >= 0) return ec;
    if (date && !from_s && !to_s) from_s = to_s = date;
    int none = !date && !from_s && !to_s && restate_flag; /* --restate alone */
    if ((!none && (!from_s || !to_s)) || !out || (date && from_s != date)) {
        cli_error("index publish: --date (or --from and --to, or --restate) and --out are required");
        return 2;
    }
    if (!contracts != !futures) {
        cli_error("index publish: --contracts and --futures go together");
        return 2;
    }
    int32_t from = 0, to = -1;
    if (!none && (!parse_day(date ? "--date" : "--from", from_s, &from) ||
                  !parse_day(date ? "--date" : "--to", to_s, &to)))
        return 2;
    if (from > to) {
        cli_error("index publish: --from %s is after --to %s", from_s, to_s);
        return 2;
    }
    gpi_diag d = {{0}};
    pub_key *key = NULL;
    if (sign && pub_key_load(sign, &key, &d) != GPI_OK) {
        cli_error("index publish: --sign: %s", d.msg);
        return 2;
    }
    store *st = open_db(ctx, "index publish", 0);
    if (!st) {
        pub_key_free(key);
        return 1;
    }
    cli_gradeset set;
    gpi_status rc = cli_gradeset_load(ctx, st, grades, &set, &d);
    cc_futures fut;
    memset(&fut, 0, sizeof fut);
    if (rc == GPI_OK && contracts) rc = cc_futures_load(contracts, futures, set.gs, &fut, &d);
    pub_set ps = pub_set_of(&set);
    ps.key = key;
    ps.futures = contracts ? &fut.f : NULL;
    long *missing = rc == GPI_OK ? calloc(set.n ? set.n : 1, sizeof *missing) : NULL;
    if (rc == GPI_OK && !missing) rc = gpi_diag_set(&d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; rc == GPI_OK && i < set.n && !none; i++) {
        long built = 0;
        rc = store_index_rows(st, set.ids[i], from, to, count_any, &built, &d);
        missing[i] = (long)(to - from + 1) - built;
    }
    if (rc == GPI_OK && !none)
        rc = none_built(st, &set, missing, (long)(to - from + 1), from, to, out, &d);
    if (rc == GPI_OK && restate_flag) rc = restate(st, &set, &ps, out, &d);
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) /* a line a day: its progress */
        rc = publish_day(st, day, out, &ps, "", &d);
    for (size_t i = 0; rc == GPI_OK && i < set.n && !none; i++)
        if (missing[i] > 0)
            cli_error("warning: %s: published grade %s has no built row on %ld of the %ld days "
                      "(index build them, or drop the grade)",
                      set.path, set.ids[i], missing[i], (long)(to - from + 1));
    if (rc == GPI_OK) { /* what late data left behind, and what publishing would make */
        pub_stale *late = NULL;
        size_t nl = 0;
        rc = pub_stale_days(st, &ps, INT32_MIN, INT32_MAX, 1, &late, &nl, &d);
        if (rc == GPI_OK) print_stale("index publish", late, nl, INT32_MIN);
        free(late);
    }
    if (rc != GPI_OK) cli_error("%s", d.msg);
    free(missing);
    cc_futures_free(&fut);
    cli_gradeset_free(&set);
    store_close(st);
    pub_key_free(key);
    return gpi_exit_code(rc);
}

int cmd_index(cli_ctx *ctx, int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        cli_help_print(argc < 2 ? stderr : stdout, "index");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "build") == 0) return cmd_build(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0) return cmd_show(ctx, argc - 1, argv + 1);
    if (strcmp(argv[1], "publish") == 0) return cmd_publish(ctx, argc - 1, argv + 1);
    cli_error("index: unknown subcommand '%s' (build, show, publish)", argv[1]);
    return 2;
}
