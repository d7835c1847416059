/* tests/test_e2e_tamper.c -- a tampering corpus: every field of every
 * published file, and the cases of issue 31 item 3, must make `verify`
 * fail (verify/vintage.c, verify/restatements.c; issue 31: 22 of 86
 * tampering cases passed, among them the first-published vintage futures
 * settle on).
 *
 * The folder: a demo market's daily job with late data (as in
 * test_e2e_late.c, four published grades: v1, v2 and v3, the v3 one last
 * in index.csv): 2025-01-18..22 published day
 * by day, the 20th's late trades, then `index publish --date 2025-01-23
 * --restate`: the 20th restated (vintages 1 and 2), the 21st and 22nd in
 * second vintages, restatements.csv with lines.
 *
 * The corpus is generated from the files themselves, so fields added to
 * them later are covered without listing them: each leaf of index.json
 * and datapackage.json (one occurrence per key path: rows[].value,
 * rows[].receipt.batches[].sha256, ...; a path whose first value is null
 * once more at its first other value: a v3 member null on a v2 row is
 * edited on the v3 row too) and each column of index.csv,
 * observations.csv and restatements.csv (the header and a line, and
 * each later line's cells of a column edited so far only where empty:
 * the v2 columns of the first line, the v3 columns of the v3 grade's)
 * gets a change that is not an
 * equivalent form (a digit, a letter, true <-> false, null -> 0), one at a
 * time, in the current files of 2025-01-20 (which are vintage 2's: hard
 * links, an edit in place is an edit of both) and in its vintage 1.  Each
 * must fail `verify DIR` (in process: every day, its signature when it
 * names a key, restatements.csv and DIR's datapackage.json).
 *
 * The newest vintage of the newest day is linked to by nothing yet: an
 * edit of a field verify does not recompute (the manipulation figures,
 * panel_change, ...) passes there until the next day is published (its
 * previous_day link then holds the file's hash) or a signature covers it.
 * That day's corpus runs too and the fields whose edit passes must be
 * exactly the list below (a new field that passes fails this test: decide
 * whether verify recomputes it).
 */
#include "tests/testutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpi.h"
#include "verify/verify.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char *dir;      /* the scratch folder; DIR is dir/pub */
static char pubdir[4200];
/* The days verify_fails verifies (else every day of the corpus): an edit
 * of a day's files is found on that day (its files, its vintages) or on
 * the next (whose link holds the day's hash), so the corpus of one day's
 * files verifies those two -- an edit found only further on would pass,
 * and fail the test, not hide.  restatements.csv is checked always. */
static int32_t only_from = INT32_MIN, only_to = INT32_MAX;

/* ---- the folder -------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-tamper");
    snprintf(pubdir, sizeof pubdir, "%s/pub", dir);
    char env[4400];
    snprintf(env, sizeof env, "SRC='%s'; export SRC; ", tu_srcdir());
    const char *steps[] = {
        /* four published grades: two v2 (a chain), one v1, one v3 (a
         * panel: the shipped grades' parameters) */
        "mkdir data && cp \"$SRC\"/data/*.csv data/ && printf '%s' '{\"grades\": ["
        "{\"id\": \"H100-SXM.OD\", \"gpu\": \"H100-SXM-80GB\", \"method\": \"v2\"},"
        "{\"id\": \"L40S.OD\", \"gpu\": \"L40S\", \"method\": \"v2\"},"
        "{\"id\": \"V3-B200.OD\", \"gpu\": \"B200\", \"method\": \"v3\", "
        "\"admission_days\": 7, \"absence_days\": 7},"
        "{\"id\": \"H200.OD\", \"gpu\": \"H200-SXM-141GB\"}]}' > data/grades.json",
        "\"$GPUIDX_BIN\" simulate --days 30 --seed 7 --out m >/dev/null",
        "awk -F, 'NR == 1 { print > \"tr.csv\"; print > \"late.csv\"; next } "
        "substr($3, 1, 10) == \"2025-01-20\" && NR % 2 == 0 { print > \"late.csv\"; next } "
        "{ print > \"tr.csv\" }' m/trades.csv",
        "for k in offers tr; do f=m/$k.csv; [ $k = tr ] && f=tr.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) <= \"2025-01-22\"' $f > $k-1.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) == \"2025-01-23\"' $f > $k-2.csv; done",
        "G() { \"$GPUIDX_BIN\" --db t.db --data data \"$@\"; }; "
        "G ingest offers --admit-providers offers-1.csv 2>/dev/null && "
        "G ingest trades --admit-providers tr-1.csv 2>/dev/null && "
        "G index build --from 2025-01-01 --to 2025-01-17 2>/dev/null && "
        "G index publish --from 2025-01-01 --to 2025-01-17 --out pub 2>/dev/null && "
        "for d in 18 19 20 21 22; do G index build --from 2025-01-$d --to 2025-01-$d 2>/dev/null "
        "&& G index publish --date 2025-01-$d --out pub 2>/dev/null || exit 1; done",
        "sleep 1.1 && G() { \"$GPUIDX_BIN\" --db t.db --data data \"$@\"; }; "
        "G ingest trades --admit-providers late.csv tr-2.csv 2>/dev/null && "
        "G ingest offers --admit-providers offers-2.csv 2>/dev/null && "
        "G index build --from 2025-01-23 --to 2025-01-23 2>/dev/null && "
        "G index publish --date 2025-01-23 --out pub --restate 2>/dev/null",
        "test -d pub/2025-01-20/v2 && test -d pub/2025-01-21/v2 && "
        "test $(wc -l < pub/restatements.csv) -ge 2 && \"$GPUIDX_BIN\" verify pub > /dev/null",
    };
    char *buf[N(steps)];
    for (size_t i = 0; i < N(steps); i++) {
        size_t n = strlen(env) + strlen(steps[i]) + 1;
        buf[i] = malloc(n);
        snprintf(buf[i], n, "%s%s", env, steps[i]);
    }
    tu_run r = tu_sh_all(dir, (const char *const *)buf, N(steps));
    tu_run_free(&r);
    for (size_t i = 0; i < N(steps); i++) free(buf[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

/* ---- verify, in process ---------------------------------------------------------------- */

/* 1 when verify finds a difference in DIR (or cannot read it): every day,
 * then restatements.csv, as `gpuidx verify DIR`; why: the first. */
static int verify_fails(char *why, size_t cap)
{
    verify_dir *v = NULL;
    gpi_diag d = {{0}};
    why[0] = '\0';
    int32_t *days = NULL;
    size_t n = 0;
    if (verify_dir_open(pubdir, &v, &d) != GPI_OK || verify_dir_days(v, &days, &n, &d) != GPI_OK) {
        snprintf(why, cap, "%s", d.msg);
        verify_dir_close(v);
        return 1;
    }
    int bad = 0;
    int32_t from = gpi_days_from_civil(2025, 1, 18); /* the corpus's days */
    if (only_from != INT32_MIN) from = only_from;
    for (size_t k = 0; k < n && !bad; k++) {
        if (days[k] < from || days[k] > only_to) continue;
        verify_day_report r;
        if (verify_day(v, days[k], &r, &d) != GPI_OK) {
            snprintf(why, cap, "%s", d.msg);
            bad = 1;
            break;
        }
        if (r.file_note[0]) {
            snprintf(why, cap, "%s", r.file_note);
            bad = 1;
        }
        /* as `gpuidx verify` does: a day's signature (none given: an
         * unsigned day passes, one naming a key must have its file) */
        int verdict = 0;
        char words[400];
        if (!bad && verify_day_signature(v, days[k], NULL, &verdict, words, sizeof words, &d) !=
                        GPI_OK) {
            snprintf(why, cap, "%s", d.msg);
            bad = 1;
        } else if (!bad && VERIFY_SIG_FAILED(verdict)) {
            snprintf(why, cap, "%s", words);
            bad = 1;
        }
        for (size_t i = 0; i < r.n && !bad; i++)
            if (r.g[i].status == VERIFY_DIFFERS) {
                snprintf(why, cap, "%s: %s", r.g[i].grade, r.g[i].differs);
                bad = 1;
            }
        /* the term curves (file format 4): as `gpuidx verify` counts them */
        if (!bad && r.curve_note[0]) {
            snprintf(why, cap, "curve: %s", r.curve_note);
            bad = 1;
        }
        for (size_t i = 0; i < r.n_curves && !bad; i++)
            if (r.curves[i].status == VERIFY_DIFFERS) {
                snprintf(why, cap, "curve %s: %s", r.curves[i].grade, r.curves[i].differs);
                bad = 1;
            }
        verify_day_report_free(&r);
        verify_dir_forget_before(v, days[k] - 64);
    }
    if (!bad) {
        char diff[2048], part[1024];
        long lines;
        verify_dir_forget_before(v, INT32_MAX);
        if (verify_dir_restatements(v, diff, sizeof diff, part, sizeof part, &lines, &d) !=
            GPI_OK) {
            snprintf(why, cap, "%s", d.msg);
            bad = 1;
        } else if (diff[0]) {
            snprintf(why, cap, "restatements.csv: %s", diff);
            bad = 1;
        }
    }
    free(days);
    verify_dir_close(v);
    return bad;
}

/* ---- edits ------------------------------------------------------------------------------ */

static char *slurp(const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", pubdir, rel);
    return tu_read(p);
}

/* Writes text over the file in place (an edit of every name of it). */
static void put(const char *rel, const char *text)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", pubdir, rel);
    FILE *f = fopen(p, "r+b");
    if (!f) fail_msg("cannot write %s", p);
    if (ftruncate(fileno(f), 0) != 0) fail_msg("cannot truncate %s", p);
    fputs(text, f);
    fclose(f);
}

/* A changed form of the token t[0..n) that means something else: the
 * last digit +1, the last letter the next, true <-> false, null -> 0
 * (malloc'd). */
static char *mutate(const char *t, size_t n)
{
    char *out = malloc(n + 8);
    if (n == 4 && memcmp(t, "null", 4) == 0) return strcpy(out, "0");
    if (n == 4 && memcmp(t, "true", 4) == 0) return strcpy(out, "false");
    if (n == 5 && memcmp(t, "false", 5) == 0) return strcpy(out, "true");
    memcpy(out, t, n);
    out[n] = '\0';
    int quoted = n >= 2 && t[0] == '"';
    if (quoted && n == 2) return strcpy(out, "\"x\""); /* "" -> "x" */
    for (size_t k = quoted ? n - 1 : n; k > (size_t)quoted; k--) {
        char c = out[k - 1];
        if (isdigit((unsigned char)c)) {
            out[k - 1] = c == '9' ? '0' : (char)(c + 1);
            return out;
        }
        if (isalpha((unsigned char)c)) {
            out[k - 1] = c == 'z' ? 'a' : c == 'Z' ? 'A' : (char)(c + 1);
            return out;
        }
    }
    /* no letter or digit: one more character */
    if (quoted) strcpy(out + n - 1, "x\"");
    else strcpy(out + n, "x");
    return out;
}

/* The leaves of a JSON text: each value that is not an object or an array,
 * with its path (array indices as []), first occurrence of each path. */
typedef struct leaf {
    char path[160];
    size_t at, len;
    int null; /* the value is null */
} leaf;

typedef struct leaves {
    leaf v[1024];
    size_t n;
} leaves;

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') i++;
    return i;
}

static size_t str_end(const char *s, size_t i) /* s[i] == '"' */
{
    for (i++; s[i] && s[i] != '"'; i++)
        if (s[i] == '\\' && s[i + 1]) i++;
    return i + 1;
}

static size_t value(const char *s, size_t i, const char *path, leaves *out);

/* The first value of each path; a path seen only as null so far once
 * more at a value that is not (named "PATH!"): v3's members are null on
 * the rows of other methods. */
static void add_leaf(leaves *out, const char *s, const char *path, size_t at, size_t len)
{
    int null = len == 4 && memcmp(s + at, "null", 4) == 0, seen = 0;
    for (size_t k = 0; k < out->n; k++)
        if (strncmp(out->v[k].path, path, strlen(path)) == 0 &&
            (out->v[k].path[strlen(path)] == '\0' || out->v[k].path[strlen(path)] == '!')) {
            if (null || !out->v[k].null) return;
            seen = 1;
        }
    if (out->n == N(out->v)) fail_msg("too many paths");
    snprintf(out->v[out->n].path, sizeof out->v[0].path, "%s%s", path, seen ? "!" : "");
    out->v[out->n].at = at;
    out->v[out->n].null = null;
    out->v[out->n++].len = len;
}

static size_t value(const char *s, size_t i, const char *path, leaves *out)
{
    i = skip_ws(s, i);
    char sub[160];
    if (s[i] == '{') {
        i = skip_ws(s, i + 1);
        while (s[i] && s[i] != '}') {
            size_t ke = str_end(s, i);
            snprintf(sub, sizeof sub, "%s%s%.*s", path, *path ? "." : "", (int)(ke - i - 2), s + i + 1);
            i = skip_ws(s, ke);
            i = value(s, i + 1, sub, out); /* past ':' */
            i = skip_ws(s, i);
            if (s[i] == ',') i = skip_ws(s, i + 1);
        }
        return i + 1;
    }
    if (s[i] == '[') {
        snprintf(sub, sizeof sub, "%s[]", path);
        i = skip_ws(s, i + 1);
        while (s[i] && s[i] != ']') {
            i = value(s, i, sub, out);
            i = skip_ws(s, i);
            if (s[i] == ',') i = skip_ws(s, i + 1);
        }
        return i + 1;
    }
    size_t e = s[i] == '"' ? str_end(s, i) : i;
    if (s[i] != '"')
        while (s[e] && !strchr(",}] \n", s[e])) e++;
    add_leaf(out, s, path, i, e - i);
    return e;
}

/* CSV cells of lines 1 (header) and `line`: each field's span. */
static size_t csv_fields(const char *s, int line, size_t at[64], size_t len[64])
{
    const char *p = s;
    for (int l = 1; l < line && p; l++) {
        int q = 0;
        while (*p && (q || *p != '\n')) {
            if (*p == '"') q = !q;
            p++;
        }
        p = *p ? p + 1 : NULL;
    }
    if (!p || !*p) return 0;
    size_t n = 0;
    const char *a = p;
    int q = 0;
    for (;; p++) {
        if (!*p || (!q && (*p == ',' || *p == '\n'))) {
            if (n < 64) {
                at[n] = (size_t)(a - s);
                len[n++] = (size_t)(p - a);
            }
            if (!*p || *p == '\n') break;
            a = p + 1;
        } else if (*p == '"') {
            q = !q;
        }
    }
    return n;
}

/* One edit: text with [at, at + len) replaced by its mutation; verify must
 * fail unless `allowed` names what (then it must pass).  Returns 1 when
 * verify passed. */
static int try_edit(const char *rel, const char *orig, size_t at, size_t len, const char *what,
                    char *passed, size_t cap)
{
    char *rep = mutate(orig + at, len);
    size_t n = strlen(orig);
    char *t = malloc(n + strlen(rep) + 1);
    memcpy(t, orig, at);
    strcpy(t + at, rep);
    strcat(t, orig + at + len);
    free(rep);
    put(rel, t);
    free(t);
    char why[512];
    int fails = verify_fails(why, sizeof why);
    put(rel, orig);
    if (!fails) {
        size_t k = strlen(passed);
        snprintf(passed + k, cap - k, "%s%s", k ? "," : "", what);
    }
    return !fails;
}

/* The corpus of one file; *n_edits counted; the names of edits that
 * passed into passed. */
static void corpus(const char *rel, long *n_edits, char *passed, size_t cap)
{
    char *orig = slurp(rel);
    if (!orig) fail_msg("no %s", rel);
    int y, m, dd;
    if (sscanf(rel, "%4d-%2d-%2d/", &y, &m, &dd) == 3) { /* a day's file: that day and the next */
        only_from = gpi_days_from_civil(y, m, dd);
        only_to = only_from + 1;
    }
    size_t rl = strlen(rel);
    if (rl > 5 && strcmp(rel + rl - 5, ".json") == 0) {
        leaves *lv = calloc(1, sizeof *lv);
        value(orig, 0, "", lv);
        assert_true(lv->n > 10);
        for (size_t i = 0; i < lv->n; i++) {
            char what[200];
            snprintf(what, sizeof what, "%s:%s", rel, lv->v[i].path);
            try_edit(rel, orig, lv->v[i].at, lv->v[i].len, what, passed, cap);
            (*n_edits)++;
        }
        free(lv);
    } else {
        /* the header and the first line; then each later line's cells of
         * a column not yet edited where it has a value */
        char valued[64] = {0};
        for (int line = 1;; line++) {
            size_t at[64], len[64];
            size_t nf = csv_fields(orig, line, at, len);
            if (line <= 2) assert_true(nf > 0);
            if (!nf) break;
            for (size_t c = 0; c < nf; c++) {
                if (line > 2 && (valued[c] || !len[c])) continue;
                if (line > 1 && len[c]) valued[c] = 1;
                char what[200];
                snprintf(what, sizeof what, "%s:%d:%zu", rel, line, c + 1);
                try_edit(rel, orig, at[c], len[c], what, passed, cap);
                (*n_edits)++;
            }
        }
    }
    /* the file is back as it was */
    only_from = INT32_MIN;
    only_to = INT32_MAX;
    char why[512];
    if (verify_fails(why, sizeof why)) fail_msg("%s restored, verify fails: %s", rel, why);
    free(orig);
}

/* Every field of every published file of a day linked to by later
 * publications: every edit fails. */
static void test_every_field_fails(void **state)
{
    (void)state;
    char why[512];
    if (verify_fails(why, sizeof why)) fail_msg("the untouched folder: %s", why);
    static const char *const files[] = {
        "2025-01-20/index.json",        "2025-01-20/index.csv",
        "2025-01-20/observations.csv",  "2025-01-20/v1/index.json",
        "2025-01-20/v1/index.csv",      "2025-01-20/v1/observations.csv",
        "2025-01-21/v1/index.json",     "restatements.csv",
        "2025-01-20/datapackage.json",  "2025-01-20/v1/datapackage.json",
        "datapackage.json",
        /* the term curve's files (file format 4), current and kept */
        "2025-01-20/curve.csv",         "2025-01-20/v1/curve.csv",
        "2025-01-20/curve.json",        "2025-01-20/v1/curve.json",
    };
    long n = 0;
    char passed[8192] = "";
    for (size_t i = 0; i < N(files); i++) corpus(files[i], &n, passed, sizeof passed);
    printf("tamper corpus: %ld edits of %zu files, %s pass\n", n, N(files),
           passed[0] ? passed : "none");
    if (passed[0]) fail_msg("edits that verify does not find: %s", passed);
    assert_true(n > 300);
}

/* The newest vintage of the newest day: what passes is exactly the fields
 * verify does not recompute (a signature, or the next day's link, covers
 * them). */
static void test_newest_day_unrecomputed_fields(void **state)
{
    (void)state;
    long n = 0;
    char passed[8192] = "";
    corpus("2025-01-23/index.json", &n, passed, sizeof passed);
    corpus("2025-01-23/index.csv", &n, passed, sizeof passed);
    corpus("2025-01-23/observations.csv", &n, passed, sizeof passed);
    corpus("2025-01-23/datapackage.json", &n, passed, sizeof passed);
    printf("newest day: %ld edits, these pass: %s\n", n, passed);
    /* the grades file (not among the published files), what the raw
     * files say of themselves (their row count, which `verify --inputs
     * RAW` checks; their name and feed, labels), the publication's number (a higher one
     * than its own changes no check: nothing was published after it yet)
     * and the v3 manipulation figures (v3.manipulation: bounds found by
     * running the method under each attack, index/v3_reach.c; verify does
     * not run the attacks again, and index.csv does not repeat them); of
     * methodology v3, a member's count of carried items in the price
     * index (verify/v3.c note 2: it needs every member's items of the
     * days before; a candidate's is checked to be 0, and a member's
     * divides its relative, which is recomputed: the edit passes where
     * the member's matched prices did not move) */
    static const char want[] =
        "2025-01-23/index.json:grades_sha256,"
        "2025-01-23/index.json:inputs[].file,"
        "2025-01-23/index.json:inputs[].source,"
        "2025-01-23/index.json:inputs[].rows,"
        "2025-01-23/index.json:sequence,"
        "2025-01-23/index.json:rows[].loo_provider,"
        "2025-01-23/index.json:rows[].loo_voids,"
        "2025-01-23/index.json:rows[].v3.manipulation.month,"
        "2025-01-23/index.json:rows[].v3.manipulation.days,"
        "2025-01-23/index.json:rows[].v3.manipulation.business_days,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move.absent,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move.print,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move.new,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move_business.absent,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move_business.print,"
        "2025-01-23/index.json:rows[].v3.manipulation.fsp_move_business.new,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.absent.low,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.absent.high,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.absent.void,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.absent.carry,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.print.low,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.print.high,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.print.void,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.print.carry,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.new.low,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.new.high,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.new.void,"
        "2025-01-23/index.json:rows[].v3.manipulation.day.new.carry,"
        "2025-01-23/index.json:rows[].v3.panel[].index_carried";
    if (strcmp(passed, want) != 0) fail_msg("passing edits:\n%s\nwant\n%s", passed, want);
}

/* ---- consistent rewrites ------------------------------------------------------------ */

/* s with the first `from` replaced by `to` (malloc'd); NULL when absent. */
static char *replace1(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    if (!p) return NULL;
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *o = malloc(n + 1);
    memcpy(o, s, (size_t)(p - s));
    strcpy(o + (p - s), to);
    strcat(o, p + strlen(from));
    return o;
}

/* The 64 hex digits after key":" in s (from p on), into out. */
static void hash_after(const char *s, const char *key, char out[65])
{
    char k[80];
    snprintf(k, sizeof k, "\"%s\":\"", key);
    const char *p = strstr(s, k);
    if (!p) fail_msg("no %s", key);
    snprintf(out, 65, "%.64s", p + strlen(k));
}

/* Replaces the value of the top-level hash member key of index.json. */
static char *set_hash(char *j, const char *key, const char *sha)
{
    char old[65], a[160], b[160];
    hash_after(j, key, old);
    snprintf(a, sizeof a, "\"%s\":\"%s\"", key, old);
    snprintf(b, sizeof b, "\"%s\":\"%s\"", key, sha);
    char *o = replace1(j, a, b);
    free(j);
    return o;
}

/* The grade set's SHA-256 of index.json text j ("GRADE,HASH\n" of its
 * rows, in order; no grades_without_row here). */
static void grade_set(const char *j, char out[65])
{
    gpi_sha256 h;
    gpi_sha256_init(&h);
    for (const char *p = strstr(j, "\"rows\":["); (p = strstr(p, "\n{\"date\":")); p++) {
        const char *g = strstr(p, "\"grade\":\"") + 9, *ge = strchr(g, '"');
        char hash[65];
        hash_after(p, "grade_hash", hash);
        gpi_sha256_update(&h, g, (size_t)(ge - g));
        gpi_sha256_update(&h, ",", 1);
        gpi_sha256_update(&h, hash, 64);
        gpi_sha256_update(&h, "\n", 1);
    }
    gpi_sha256_final(&h, out);
}

/* Removes grade g from day's current files: its row of index.json, its
 * line of index.csv, its lines of observations.csv; then every hash
 * index.json holds of them (observations, index.csv, the grade set). */
static void remove_grade(const char *day, const char *g)
{
    char rel[3][64], want[96];
    static const char *const names[3] = {"index.json", "index.csv", "observations.csv"};
    char *t[3];
    for (int i = 0; i < 3; i++) {
        snprintf(rel[i], sizeof rel[i], "%s/%s", day, names[i]);
        t[i] = slurp(rel[i]);
        assert_non_null(t[i]);
    }
    /* index.json: the row is one line "{...}," (or the last, "{...}") */
    snprintf(want, sizeof want, "\n{\"date\":\"%s\",\"grade\":\"%s\"", day, g);
    char *p = strstr(t[0], want);
    assert_non_null(p);
    char *e = strchr(p + 1, '\n');
    int last = e[-1] != ',';
    memmove(p + 1, e + 1, strlen(e + 1) + 1);
    if (last) { /* the row before loses its comma */
        char *c = strstr(t[0], ",\n]}");
        if (c) memmove(c, c + 1, strlen(c + 1) + 1);
    }
    /* index.csv and observations.csv: every line of the grade */
    snprintf(want, sizeof want, "\n%s,%s,", day, g);
    for (int i = 1; i < 3; i++)
        while ((p = strstr(t[i], want))) {
            e = strchr(p + 1, '\n');
            memmove(p + 1, e + 1, strlen(e + 1) + 1);
        }
    char sha[65];
    gpi_sha256_hex(t[2], strlen(t[2]), sha);
    t[0] = set_hash(t[0], "observations_sha256", sha);
    gpi_sha256_hex(t[1], strlen(t[1]), sha);
    t[0] = set_hash(t[0], "index_csv_sha256", sha);
    grade_set(t[0], sha);
    t[0] = set_hash(t[0], "grade_set_sha256", sha);
    for (int i = 0; i < 3; i++) {
        put(rel[i], t[i]);
        free(t[i]);
    }
}

/* Changes grade g's restate_threshold in day's current index.json and
 * recomputes its grade_hash (the definition's SHA-256) everywhere. */
static void redefine(const char *day, const char *g)
{
    char rel[64], want[96];
    snprintf(rel, sizeof rel, "%s/index.json", day);
    char *t = slurp(rel);
    snprintf(want, sizeof want, "\"grade\":\"%s\"", g);
    char *row = strstr(t, want);
    assert_non_null(row);
    char old[65];
    hash_after(row, "grade_hash", old);
    char *n = replace1(row, "\\\"restate_threshold\\\":\\\"0.001000\\\"",
                       "\\\"restate_threshold\\\":\\\"0.002000\\\"");
    assert_non_null(n);
    size_t at = (size_t)(row - t);
    t[at] = '\0';
    char *u = malloc(strlen(t) + strlen(n) + 1);
    strcpy(u, t);
    strcat(u, n);
    free(t);
    free(n);
    /* the definition as a string: between "grade_definition":" and ","receipt" */
    const char *d0 = strstr(u + at, "\"grade_definition\":\"") + 20;
    const char *d1 = strstr(d0, "\",\"receipt\"");
    char *def = malloc((size_t)(d1 - d0) + 1);
    size_t k = 0;
    for (const char *q = d0; q < d1; q++) {
        if (*q == '\\' && q + 1 < d1) q++;
        def[k++] = *q;
    }
    def[k] = '\0';
    char nh[65];
    gpi_sha256_hex(def, k, nh);
    free(def);
    char *v;
    while ((v = replace1(u, old, nh))) {
        free(u);
        u = v;
    }
    put(rel, u);
    free(u);
}

/* The cases of issue 31, each a consistent rewrite a forger would make. */
static void test_issue_cases(void **state)
{
    (void)state;
    static const struct {
        const char *what, *sh; /* shell in DIR's parent: changes pub */
    } cases[] = {
        {"v1 value one tick up, index.json and index.csv alike",
         "f=pub/2025-01-20/v1; v=$(sed -n 's/.*\"grade\":\"H100-SXM.OD\",\"value\":\\([0-9.]*\\).*/\\1/p' "
         "$f/index.json); w=$(echo $v | awk '{printf \"%.4f\", $1 + 0.0001}'); "
         "sed -i \"s/\\\"grade\\\":\\\"H100-SXM.OD\\\",\\\"value\\\":$v/\\\"grade\\\":\\\"H100-SXM.OD\\\",\\\"value\\\":$w/\" "
         "$f/index.json && sed -i \"s/^2025-01-20,H100-SXM.OD,$v,/2025-01-20,H100-SXM.OD,$w,/\" $f/index.csv"},
        {"v1/ deleted", "rm -r pub/2025-01-20/v1"},
        {"a vintage renumbered (v1 -> v3)", "mv pub/2025-01-20/v1 pub/2025-01-20/v3"},
        {"index.csv lines swapped",
         "f=pub/2025-01-21/index.csv; t=$(mktemp); { head -1 $f; tail -n +2 $f | sort -r; } > $t && "
         "cat $t > $f && rm $t"},
        {"a forged restatements.csv line",
         "echo '2025-01-21,L40S.OD,2,0.9000,0.9100,value moved by 1.11 % (more than "
         "restate_threshold 0.10 %)' >> pub/restatements.csv && "
         "t=$(mktemp); { head -1 pub/restatements.csv; tail -n +2 pub/restatements.csv | sort; } "
         "> $t && cat $t > pub/restatements.csv && rm $t"},
        {"a restatements.csv line deleted", "sed -i '2d' pub/restatements.csv"},
        {"a day folder deleted", "rm -r pub/2025-01-21"},
        {"the current files are not the latest vintage's",
         "cp pub/2025-01-22/v1/index.csv pub/2025-01-22/x && rm pub/2025-01-22/index.csv && "
         "mv pub/2025-01-22/x pub/2025-01-22/index.csv"},
    };
    /* the settlement prices of the month's contract from the published
     * days, and the same after a one-tick edit of vintage 1 of the 20th */
    free(tu_write(dir, "c.json", "{\"contracts\": [{\"symbol\": \"GPUH-2502\", \"grade\": "
                                 "\"H100-SXM.OD\", \"month\": \"2025-02\", \"size\": 1000, "
                                 "\"tick\": 0.0001, \"min_published_days\": 15}]}"));
    tu_run r = tu_gpuidx(dir, "verify --settlement --contracts c.json --through 2025-01-23 pub "
                              "> prices.csv");
    if (r.status != 0) fail_msg("settlement prices: %s", r.err);
    tu_run_free(&r);
    r = tu_sh(dir, "rm -rf keep && cp -a pub keep && ( %s ) && \"$GPUIDX_BIN\" verify --settlement "
                   "--contracts c.json --through 2025-01-23 --against prices.csv pub; echo $?; "
                   "rm -rf pub && mv keep pub",
              cases[0].sh);
    if (!strstr(r.out, "GPUH-2502: DIFFERS ") || !strstr(r.out, "\n1\n"))
        fail_msg("verify --settlement after a one-tick edit of v1:\n%s%s", r.out, r.err);
    printf("verify --settlement: %s", r.out);
    tu_run_free(&r);
    for (size_t i = 0; i < N(cases); i++) {
        r = tu_sh(dir, "rm -rf keep && cp -a pub keep && ( %s )", cases[i].sh);
        if (r.status != 0) fail_msg("%s: %s", cases[i].what, r.err);
        tu_run_free(&r);
        char why[512];
        int fails = verify_fails(why, sizeof why);
        r = tu_sh(dir, "rm -rf pub && mv keep pub");
        tu_run_free(&r);
        if (!fails) fail_msg("%s: verify passes", cases[i].what);
        printf("%s: %s\n", cases[i].what, why);
    }
    /* consistent rewrites of a day's files, in place (the current files
     * and their vintage alike): each hash the day holds recomputed */
    for (int k = 0; k < 2; k++) {
        r = tu_sh(dir, "rm -rf keep && cp -a pub keep");
        tu_run_free(&r);
        const char *what = k ? "a grade's definition changed and its hash recomputed"
                             : "a whole grade removed from a day, its receipts rewritten";
        if (k) redefine("2025-01-21", "H200.OD");
        else remove_grade("2025-01-21", "L40S.OD");
        char why[512];
        int fails = verify_fails(why, sizeof why);
        r = tu_sh(dir, "rm -rf pub && mv keep pub");
        tu_run_free(&r);
        if (!fails) fail_msg("%s: verify passes", what);
        printf("%s: %s\n", what, why);
    }
    char why[512];
    if (verify_fails(why, sizeof why)) fail_msg("the folder restored: %s", why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field_fails),
        cmocka_unit_test(test_newest_day_unrecomputed_fields),
        cmocka_unit_test(test_issue_cases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
