/* tests/refindex_helpers.h -- shared by tests/test_e2e_refindex.c and
 * tests/test_e2e_refindex_v2.c (header-only, static inline): the header of
 * `index show`, a reader of its CSV records, and a hand-computed case
 * runner that checks the binary and tests/ref/ref_index.py against the same
 * expected text.
 *
 * The hand-computed texts are the columns up to `note` (HDR): they pin
 * the method of §1-§10.  The five manipulation columns after it (§11) are
 * worked out by hand in tests/test_index.c, tests/test_e2e_index.c and
 * tests/test_e2e_grades.c; here they are required to equal the
 * reference's (tests/ref/ref_manip.py) on every hand-computed case and on the
 * generated market.
 */
#ifndef GPI_REFINDEX_HELPERS_H
#define GPI_REFINDEX_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"

#define HDR "date,grade,value,level,n_obs,n_excluded,n_providers,trade_volume_gpu_hours," \
            "adjustment,p10,p25,p50,p75,p90,min,max,top_provider_share,methodology,vintage," \
            "xs_value,xs_level,relative,n_matched,n_matched_providers,panel_change,event," \
            "splice,note\n"
/* a v1 row after its methodology: vintage and the v2 columns empty, then the note */
#define V1_EMPTY ",,,,,,,,,"

enum { F_NOBS = 4, F_LEVEL = 3, F_METHOD = 17, F_XS_LEVEL = 20, F_RELATIVE = 21,
       F_PANEL = 24, F_EVENT = 25, F_SPLICE = 26, F_NOTE = 27, N_UPTO_NOTE = 28,
       F_LOO = 28, F_COST_TICK = 29, F_COST_1PCT = 30, F_OFFERS_TICK = 31, F_OFFERS_1PCT = 32,
       F_CI_LOW = 33, F_CI_HIGH = 34, F_CONFIDENCE = 35, F_STALE_SHARE = 36,
       F_PRICE_INDEX = 37, F_INDEX_CHANGE = 38, F_GAP = 39, F_GAP_MONTH = 40, F_PANEL_SIZE = 41,
       F_IMPUTED = 42, F_CANDIDATES = 43, F_INDEX_PROVIDERS = 44, N_FIELDS = 45 };
static const char *const field_name[N_FIELDS] = {
    "date", "grade", "value", "level", "n_obs", "n_excluded", "n_providers",
    "trade_volume_gpu_hours", "adjustment", "p10", "p25", "p50", "p75", "p90", "min", "max",
    "top_provider_share", "methodology", "vintage", "xs_value", "xs_level", "relative",
    "n_matched", "n_matched_providers", "panel_change", "event", "splice", "note", "loo_move",
    "cost_tick_gpu_hours", "cost_1pct_gpu_hours", "cost_tick_offers", "cost_1pct_offers",
    "ci_low", "ci_high", "confidence", "stale_share", "price_index", "index_change", "composition_gap", "composition_gap_month", "panel_size",
    "n_imputed", "n_candidates", "index_providers"};

/* `index show` text cut after the first n fields of every line (commas and
 * line ends inside double quotes are part of a field); malloc'd. */
static inline char *cut_fields(const char *text, int n)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    int field = 0, quoted = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '"') quoted = !quoted;
        if (!quoted && *p == '\n') {
            field = 0;
            *o++ = '\n';
            continue;
        }
        if (!quoted && *p == ',') field++;
        if (field < n) *o++ = *p;
    }
    *o = '\0';
    return out;
}

/* `index show` text (got) up to its note column equals want. */
static inline void assert_upto_note(const char *got, const char *want)
{
    char *a = cut_fields(got, N_UPTO_NOTE);
    assert_string_equal(a, want);
    free(a);
}

static inline int have_python(void)
{
    if (access("/usr/bin/python3", X_OK) == 0) return 1;
    printf("skip: /usr/bin/python3 is absent (tests/ref/ref_index.py needs it)\n");
    return 0;
}

static inline void ok(tu_run *r, const char *what)
{
    if (r->status != 0) fail_msg("%s: exit %d: %s", what, r->status, r->err);
    tu_run_free(r);
}

/* One CSV record: fields of a line of `index show` (RFC 4180 quoting). */
typedef struct record {
    int n;
    char *f[N_FIELDS + 1];
} record;

/* Reads the record at *p into rec (malloc'd fields; free with
 * record_free) and moves *p past its line end.  Returns 0 at the end. */
static inline int record_read(const char **p, record *rec)
{
    const char *s = *p;
    if (!*s) return 0;
    rec->n = 0;
    for (;;) {
        /* the field's own length bounds its text (the rest of the
         * output did, which made reading a long output quadratic) */
        size_t cap = strcspn(s, ",\n") + 1, k = 0;
        if (*s == '"') {
            const char *e = s + 1;
            while (*e && !(*e == '"' && e[1] != '"')) e += *e == '"' ? 2 : 1;
            cap = (size_t)(e - s) + 1;
        }
        char *f = malloc(cap);
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"') s++; /* "" */
                f[k++] = *s;
            }
            if (*s == '"') s++;
        } else {
            while (*s && *s != ',' && *s != '\n') f[k++] = *s++;
        }
        f[k] = '\0';
        if (rec->n <= N_FIELDS) rec->f[rec->n++] = f;
        else free(f);
        if (*s != ',') break;
        s++;
    }
    if (*s == '\n') s++;
    *p = s;
    return 1;
}

static inline void record_free(record *rec)
{
    for (int i = 0; i < rec->n; i++) free(rec->f[i]);
    rec->n = 0;
}

/* In tmp: ingests o.csv into h.db, builds [from, to] with g.json, and
 * requires both `index show --from sfrom --to sto` and the reference over
 * the same days to print want up to the note column, and the two to agree
 * on every column (the manipulation figures too). */
static inline void hand_case_show(const char *tmp, const char *from, const char *to,
                                  const char *sfrom, const char *sto, const char *want)
{
    tu_run r = tu_gpuidx(tmp, "--db h.db ingest --admit-providers o.csv");
    if (r.status != 0 || !strstr(r.out, ", rejected 0"))
        fail_msg("ingest: exit %d: %s%s", r.status, r.out, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db h.db index build --grades g.json --from %s --to %s", from, to);
    ok(&r, "build");
    r = tu_gpuidx(tmp, "--db h.db index show --from %s --to %s", sfrom, sto);
    assert_int_equal(r.status, 0);
    assert_upto_note(r.out, want);
    if (!have_python()) {
        tu_run_free(&r);
        return;
    }
    tu_run ref = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' --db h.db --grades g.json"
                            " --from %s --to %s", tu_srcdir(), sfrom, sto);
    assert_int_equal(ref.status, 0);
    assert_upto_note(ref.out, want);
    assert_string_equal(r.out, ref.out);
    tu_run_free(&r);
    tu_run_free(&ref);
}

/* hand_case_show over every built day. */
static inline void hand_case(const char *tmp, const char *from, const char *to, const char *want)
{
    hand_case_show(tmp, from, to, from, to, want);
}

/* `index show` (a) against the reference (b), field by field: the first
 * difference is described in msg (malloc'd) and the rows with one counted
 * in *n_bad.  Returns the rows. */
static inline int diff_show(const char *sa, const char *sb, int *n_bad, char **msg)
{
    record a = {0}, b = {0};
    int line = 0;
    *n_bad = 0;
    *msg = NULL;
    for (;;) {
        int ha = record_read(&sa, &a), hb = record_read(&sb, &b);
        if (!ha || !hb) {
            if (ha || hb) fail_msg("index show has %s rows than the reference (line %d)",
                                   ha ? "more" : "fewer", line + 1);
            break;
        }
        line++;
        if (a.n != N_FIELDS || b.n != N_FIELDS)
            fail_msg("line %d: %d fields from gpuidx, %d from the reference (want %d)", line,
                     a.n, b.n, N_FIELDS);
        int bad = 0;
        for (int k = 0; k < N_FIELDS; k++) {
            if (strcmp(a.f[k], b.f[k]) == 0) continue;
            bad = 1;
            if (*msg) continue;
            size_t n = 512 + strlen(a.f[k]) + strlen(b.f[k]);
            *msg = malloc(n);
            snprintf(*msg, n, "index show differs from the reference at line %d (%s %s), "
                     "field %s:\n  gpuidx: \"%s\"\n  ref:    \"%s\"", line, a.f[0], a.f[1],
                     field_name[k], a.f[k], b.f[k]);
        }
        *n_bad += bad;
        record_free(&a);
        record_free(&b);
    }
    return line - 1;
}

#endif
