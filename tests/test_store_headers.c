/* tests/test_store_headers.c -- the store's API split by concern.
 *
 * store/store.h is the handle (open, close, transactions) and includes
 * none of the concern headers (store/obs.h, batches.h, index_values.h,
 * grades.h, vintages.h, chain_states.h, curves.h); store/testing.h holds hooks for tests only.
 * Properties checked here on the source tree itself:
 *   - every store header compiles on its own (testing.h only with
 *     GPI_STORE_TESTING, as the Makefile builds tests/ and store/), and
 *     testing.h stops any other compilation with its message;
 *   - every file outside store/ includes the concern header of each
 *     store name it uses (function, type or callback type) directly, and
 *     no concern header it does not use: a file's includes say which
 *     parts of the store it touches.  Which header declares a name is
 *     read from the headers themselves (a name followed by '(' outside
 *     any parentheses, or a typedef's name), not listed here;
 *   - the index's methods take data: index/day.c, index/day_detail.c,
 *     index/roles.c (a row's roles, which publication lists the day by),
 *     index/snap.c and every index/chain*.c depend on no store header,
 *     directly or through another header (the compiler's own dependency
 *     list, cc -MM), and index/index.h includes none; the day (day.h)
 *     and the chain (chain.h) do not include each other, nor the build's
 *     glue (feed.h, row.h): the store is read by index/feed.c,
 *     index/build.c and the other glue files, which hand the methods data.
 */
#include "tests/testutil.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const concerns[] = {"obs",      "batches", "index_values", "grades",
                                       "vintages", "testing", "chain_states", "admin",
                                       "curves"};
#define N_CONCERNS (sizeof concerns / sizeof concerns[0])

/* The directories whose files use the store from outside. */
static const char *const dirs[] = {"cli",  "core",       "cost", "curve", "fuzz",  "hedge", "index",
                                   "ingest", "load",     "publish", "settlement", "sim",
                                   "site", "tests",      "verify", "bench"};


/* Comments and string/char literals blanked (newlines kept), in place. */
static void strip(char *s)
{
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *end = e ? e + 2 : p + strlen(p);
            for (; p < end; p++)
                if (*p != '\n') *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++) *p = ' ';
            p--;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            for (; *p && *p != q && *p != '\n'; p++) {
                if (*p == '\\' && p[1]) *p++ = ' ';
                *p = ' ';
            }
            if (!*p) break;
        }
    }
}

typedef struct names {
    char name[128][64];
    int owner[128];
    int n;
} names;

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void add_owner(names *ns, const char *p, size_t len, int owner)
{
    for (int i = 0; i < ns->n; i++)
        if (strlen(ns->name[i]) == len && strncmp(ns->name[i], p, len) == 0) return;
    if (ns->n == 128 || len >= 64) fail_msg("too many store names (or one too long)");
    snprintf(ns->name[ns->n], 64, "%.*s", (int)len, p);
    ns->owner[ns->n++] = owner;
}

/* The names store/<concern>.h declares. */
static void read_owners(names *ns, int c)
{
    char path[256];
    snprintf(path, sizeof path, "%s/store/%s.h", GPUIDX_SRCDIR, concerns[c]);
    char *s = tu_read(path);
    if (!s) fail_msg("cannot read %s", path);
    strip(s);
    int depth = 0;
    for (char *p = s; *p; p++) {
        if (*p == '(') depth++;
        if (*p == ')') depth--;
        if (strncmp(p, "store_", 6) != 0 || (p > s && ident_char(p[-1]))) continue;
        size_t len = 0;
        while (ident_char(p[len])) len++;
        const char *after = p + len, *before = p;
        while (*after == ' ' || *after == '\n') after++;
        while (before > s && (before[-1] == ' ' || before[-1] == '\n')) before--;
        int fn = depth == 0 && *after == '(';
        int type = (*after == ';' && before > s && before[-1] == '}') ||
                   (*after == ')' && before > s && before[-1] == '*');
        if (fn || type) add_owner(ns, p, len, c);
        p += len - 1;
    }
    free(s);
}

/* Bits of the concerns file's text uses (by name) and includes. */
static void scan_file(const names *ns, const char *rel, unsigned *used, unsigned *inc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GPUIDX_SRCDIR, rel);
    char *s = tu_read(path);
    if (!s) fail_msg("cannot read %s", path);
    *used = *inc = 0;
    for (unsigned c = 0; c < N_CONCERNS; c++) {
        char want[64];
        snprintf(want, sizeof want, "#include \"store/%s.h\"", concerns[c]);
        if (strstr(s, want)) *inc |= 1u << c;
    }
    strip(s);
    for (char *p = s; *p; p++) {
        if (strncmp(p, "store_", 6) != 0 || (p > s && ident_char(p[-1]))) continue;
        size_t len = 0;
        while (ident_char(p[len])) len++;
        for (int i = 0; i < ns->n; i++)
            if (strlen(ns->name[i]) == len && strncmp(ns->name[i], p, len) == 0)
                *used |= 1u << ns->owner[i];
        p += len - 1;
    }
    free(s);
}

static void bits_names(unsigned bits, char *out, size_t cap)
{
    out[0] = '\0';
    for (unsigned c = 0; c < N_CONCERNS; c++)
        if (bits & (1u << c))
            snprintf(out + strlen(out), cap - strlen(out), "%sstore/%s.h", out[0] ? ", " : "",
                     concerns[c]);
}

/* Every file outside store/ includes exactly the concern headers it uses. */
static void test_each_file_includes_its_concerns(void **state)
{
    (void)state;
    names ns = {.n = 0};
    for (int c = 0; c < (int)N_CONCERNS; c++) read_owners(&ns, c);
    /* the reading of the headers found their API (a broken reader would
     * make the check below pass on anything) */
    static const char *const known[][2] = {{"store_obs_put", "obs"},
                                           {"store_batch_info", "batches"},
                                           {"store_index_row", "index_values"},
                                           {"store_index_row_fn", "index_values"},
                                           {"store_grades_list", "grades"},
                                           {"store_pub_row", "vintages"},
                                           {"store_count", "testing"}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        int i = 0;
        while (i < ns.n && strcmp(ns.name[i], known[k][0]) != 0) i++;
        if (i == ns.n || strcmp(concerns[ns.owner[i]], known[k][1]) != 0)
            fail_msg("%s: not found as a name of store/%s.h", known[k][0], known[k][1]);
    }
    char report[8192] = "";
    int files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", GPUIDX_SRCDIR, dirs[d]);
        DIR *dp = opendir(path);
        if (!dp) continue;
        struct dirent *e;
        while ((e = readdir(dp))) {
            size_t len = strlen(e->d_name);
            if (len < 3 || e->d_name[len - 2] != '.' ||
                (e->d_name[len - 1] != 'c' && e->d_name[len - 1] != 'h'))
                continue;
            char rel[300];
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], e->d_name);
            unsigned used, inc;
            scan_file(&ns, rel, &used, &inc);
            files++;
            unsigned missing = used & ~inc, extra = inc & ~used;
            char m[256], x[256];
            bits_names(missing, m, sizeof m);
            bits_names(extra, x, sizeof x);
            if (missing)
                snprintf(report + strlen(report), sizeof report - strlen(report),
                         "%s: uses but does not include %s\n", rel, m);
            if (extra)
                snprintf(report + strlen(report), sizeof report - strlen(report),
                         "%s: includes but does not use %s\n", rel, x);
        }
        closedir(dp);
    }
    assert_true(files > 100);
    if (report[0]) {
        fputs(report, stderr); /* longer than fail_msg prints */
        fail_msg("files include the wrong store headers (above)");
    }
    /* and store.h itself includes none of them */
    char path[512];
    snprintf(path, sizeof path, "%s/store/store.h", GPUIDX_SRCDIR);
    char *s = tu_read(path);
    assert_non_null(s);
    if (strstr(s, "#include \"store/")) fail_msg("store/store.h includes a concern header");
    free(s);
}

/* Each store header compiles on its own; testing.h only for tests. */
static void test_headers_compile_alone(void **state)
{
    (void)state;
    tu_run r = tu_sh(GPUIDX_SRCDIR,
                     "for h in store/*.h; do [ \"$h\" = store/internal.h ] && continue; "
                     "printf '#include \"%%s\"\\n' \"$h\" | ${CC:-cc} -I. -std=c11 "
                     "-DGPI_STORE_TESTING -Wall -Werror -fsyntax-only -x c - || echo \"FAIL $h\"; "
                     "done");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    /* without the flag, testing.h stops the compilation and says why */
    r = tu_sh(GPUIDX_SRCDIR, "printf '#include \"store/testing.h\"\\n' | ${CC:-cc} -I. -std=c11 "
                             "-fsyntax-only -x c - 2>&1 && echo COMPILED; true");
    assert_null(strstr(r.out, "COMPILED"));
    assert_non_null(strstr(r.out, "store/testing.h holds hooks for tests only"));
    tu_run_free(&r);
    /* and nothing outside tests/ and store/ includes it */
    r = tu_sh(GPUIDX_SRCDIR, "grep -rl --include='*.[ch]' 'include \"store/testing.h\"' . "
                             "| grep -v -E '^\\./(tests|store|build[^/]*)/' || true");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
}

/* The index's methods take data (file comment): what each depends on, as
 * the compiler lists it, holds no store header, and the day and the chain
 * do not include each other or the glue. */
static void test_index_methods_include_no_store_header(void **state)
{
    (void)state;
    /* one line "FILE: HEADER" per forbidden dependency */
    tu_run r = tu_sh(GPUIDX_SRCDIR,
                     "dep() { ${CC:-cc} -I. -MM \"$1\" | tr ' \\\\' '\\n\\n' | "
                     "grep -E \"$2\" | sed \"s|^|$1: |\"; }; "
                     "for f in index/day.c index/day_detail.c index/roles.c index/snap.c "
                     "index/chain*.c index/index.h index/day.h index/chain.h index/roles.h; "
                     "do dep $f '^store/'; done; "
                     "dep index/day.c '^index/(chain|feed|row|snap)\\.h'; "
                     "for f in index/chain*.c; do dep $f '^index/(day|feed|row|snap)\\.h'; done");
    assert_int_equal(r.status, 0);
    if (r.out[0]) fail_msg("index methods depend on the store or on each other:\n%s", r.out);
    tu_run_free(&r);
    /* the glob above found the chain's files (a renamed tree would make
     * the check pass on nothing) */
    r = tu_sh(GPUIDX_SRCDIR, "echo $(ls index/chain*.c | wc -l)");
    assert_int_equal(r.status, 0);
    assert_true(atoi(r.out) >= 4);
    tu_run_free(&r);
    /* and the check sees a store header where there is one */
    r = tu_sh(GPUIDX_SRCDIR, "echo $(${CC:-cc} -I. -MM index/feed.c | grep -c 'store/obs.h')");
    assert_int_equal(atoi(r.out), 1);
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_compile_alone),
        cmocka_unit_test(test_each_file_includes_its_concerns),
        cmocka_unit_test(test_index_methods_include_no_store_header),
    };
    return cmocka_run_group_tests_name("store_headers", tests, NULL, NULL);
}
