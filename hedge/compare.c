/* hedge/compare.c -- which grade hedges one rent history best.
 *
 * Each grade is analyzed on its own (values as first published, or
 * latest); grades with no usable data keep their reason.  The ranking is
 * of hedges, not of fits (hedge_rank_sort in hedge.h): a grade fitted on
 * fewer than the minimum number of changes, or whose h is not positive
 * (a payer would have to sell it), is listed with why but not ranked; the
 * ranked ones are ordered by the low end of the 95 % interval of their
 * effectiveness, so that a near-perfect R² on three changes does not beat
 * a good fit on fifty.  The verdict is one sentence a risk manager can act
 * on, and says when the grade is a different GPU.
 *
 * Grades come as data (hedge_grade_input: the id and its daily values):
 * published grades read from the store by the caller, and grades built
 * around the rent (compare --suggest, computed by the index from the
 * stored observations).  Both are ranked together; the verdict
 * recommends a published grade when one hedges (naming a better
 * suggestion after it), else a suggestion that hedges -- saying it is not
 * published, so no futures settle on it yet, and when it is one
 * provider's price -- else says that nothing here hedges, suggestions
 * included.
 */
#include "hedge/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_nan_last(double x, double y, int desc)
{
    int nx = !isfinite(x), ny = !isfinite(y);
    if (nx || ny) return nx - ny;
    if (x == y) return 0;
    return (x < y) == !desc ? -1 : 1;
}

/* 0 ranked, 1 unranked with data, 2 no data */
static int tier(const hedge_rank *r)
{
    return !r->ok ? 2 : r->ranked ? 0 : 1;
}

static int rank_cmp(const void *pa, const void *pb)
{
    const hedge_rank *a = pa, *b = pb;
    int ta = tier(a), tb = tier(b);
    if (ta != tb) return ta - tb;
    int c = 0;
    if (ta == 0) c = cmp_nan_last(a->a.he_lo, b->a.he_lo, 1);
    if (!c && ta < 2) c = cmp_nan_last(a->a.he, b->a.he, 1);
    if (!c && ta < 2) c = cmp_nan_last(a->a.basis.sd, b->a.basis.sd, 0);
    if (!c) c = strcasecmp(a->grade, b->grade);
    return c;
}

void hedge_rank_sort(hedge_rank *r, size_t n, size_t min_changes)
{
    if (min_changes == 0) min_changes = HEDGE_MIN_CHANGES;
    for (size_t i = 0; i < n; i++) {
        hedge_rank *k = &r[i];
        k->ranked = 0;
        k->why[0] = '\0';
        if (!k->ok) continue;
        if (k->a.n_changes < min_changes)
            snprintf(k->why, sizeof k->why, "%zu changes (need %zu)", k->a.n_changes, min_changes);
        else if (!isfinite(k->a.chg.b) || !isfinite(k->a.he))
            snprintf(k->why, sizeof k->why, "no hedge ratio (the rent or the index never moved)");
        else if (k->a.chg.b <= 0)
            snprintf(k->why, sizeof k->why, "h %.3f <= 0: the grade moves against your rent",
                     k->a.chg.b);
        else
            k->ranked = 1;
    }
    qsort(r, n, sizeof *r, rank_cmp);
}

/* Copies a GPU name without case, spaces, '-' and '_' into out. */
static void squash(const char *s, size_t len, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < cap; i++)
        if (!strchr(" -_", s[i])) out[k++] = (char)tolower((unsigned char)s[i]);
    out[k] = '\0';
}

int hedge_gpu_match(const char *gpu, const char *list)
{
    if (!gpu || !*gpu || !list || !*list) return -1;
    size_t gl = strlen(gpu);
    char want[128];
    squash(gpu, gl, want, sizeof want);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        size_t len = (size_t)(e - p);
        while (len && p[len - 1] == ' ') len--;
        char have[128];
        squash(p, len, have, sizeof have);
        /* "A100" names every "A100-..." model: a prefix that ends where
         * the listed name has a '-' */
        if (*have && (strcmp(have, want) == 0 ||
                      (len > gl && strncasecmp(p, gpu, gl) == 0 && p[gl] == '-')))
            return 1;
        p = e;
    }
    return 0;
}

gpi_status hedge_compare(const hedge_grade_input *g, size_t n, const hedge_rent *r,
                         const hedge_compare_opts *o, hedge_rank **out, gpi_diag *d)
{
    *out = NULL;
    if (!g || !r || !o || n == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_compare: no grades given");
    hedge_rank *rk = calloc(n, sizeof *rk);
    if (!rk) return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (compare)");
    for (size_t i = 0; i < n; i++) {
        hedge_rank *k = &rk[i];
        snprintf(k->grade, sizeof k->grade, "%s", g[i].grade ? g[i].grade : "");
        k->input = i;
        snprintf(k->gpu, sizeof k->gpu, "%s", g[i].gpu ? g[i].gpu : "");
        k->gpu_match = hedge_gpu_match(o->rent_gpu, k->gpu);
        k->suggested = g[i].suggested;
        k->providers = g[i].providers;
        snprintf(k->what, sizeof k->what, "%s", g[i].what ? g[i].what : "");
        if (g[i].missing) {
            snprintf(k->reason, sizeof k->reason, "%s", g[i].missing);
            continue;
        }
        hedge_series s;
        gpi_diag dd = {{0}};
        gpi_status rc = hedge_analyze_index(k->grade, g[i].days, g[i].n, r, o->freq, o->window,
                                            &s, &k->a, &dd);
        if (rc == GPI_EINPUT) {
            snprintf(k->reason, sizeof k->reason, "%s", dd.msg);
            continue;
        }
        if (rc != GPI_OK) {
            hedge_ranks_free(rk, n);
            return gpi_diag_set(d, rc, "%s", dd.msg);
        }
        hedge_series_free(&s);
        k->ok = 1;
    }
    hedge_rank_sort(rk, n, o->min_changes);
    *out = rk;
    return GPI_OK;
}

/* v with dp decimals, rounded once, half-up (gpi_double_to_units). */
static const char *num(char buf[32], double v, int dp)
{
    return gpi_fixed_format(gpi_double_to_units(v, dp), dp, buf);
}

static const char *freq_noun(hedge_freq f)
{
    return f == HEDGE_DAY ? "daily" : f == HEDGE_WEEK ? "weekly" : "monthly";
}

/* which: 0 published grades, 1 suggested ones, -1 both. */
static int in_set(const hedge_rank *k, int which)
{
    return which < 0 || k->suggested == which;
}

/* The first ranked grade of the set (-1 none). */
static long first_ranked(const hedge_rank *r, size_t n, int which)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].ok && r[i].ranked && in_set(&r[i], which)) return (long)i;
    return -1;
}

/* The best R² among the set's grades with data (-1 none). */
static long best_fit(const hedge_rank *r, size_t n, int which)
{
    long bi = -1;
    for (size_t i = 0; i < n; i++)
        if (r[i].ok && in_set(&r[i], which) && isfinite(r[i].a.chg.r2) &&
            (bi < 0 || r[i].a.chg.r2 > r[bi].a.chg.r2))
            bi = (long)i;
    return bi;
}

/* "removes a% of your monthly rent-change variance (95% interval lo%-hi%)
 * at h = x, basis sd y USD/GPU-hour" */
static void removes(char *out, size_t cap, const hedge_rank *k, hedge_freq f)
{
    const hedge_analysis *a = &k->a;
    char b[3][32], ci[64] = "", lo[32], hi[32];
    if (isfinite(a->he_lo))
        snprintf(ci, sizeof ci, " (95%% interval %s%%-%s%%)", num(lo, 100 * a->he_lo, 0),
                 num(hi, 100 * a->he_hi, 0));
    snprintf(out, cap, "removes %s%% of your %s rent-change variance%s at h = %s, basis sd %s "
                       "USD/GPU-hour",
             num(b[0], 100 * a->he, 0), freq_noun(f), ci, num(b[1], a->chg.b, 2),
             num(b[2], a->basis.sd, 4));
}

/* Why no grade of the set hedges: "none has a hedge ratio ...", "none has
 * the changes ... (best R² ...)" or "best R² x (X), below the 0.50 ...". */
static void no_hedge(char *out, size_t cap, const hedge_rank *r, size_t n, int which,
                     hedge_freq f)
{
    char b[2][32];
    long best = first_ranked(r, n, which);
    if (best < 0) {
        long bi = best_fit(r, n, which);
        if (bi < 0)
            snprintf(out, cap, "none has a hedge ratio on this history");
        else
            snprintf(out, cap,
                     "none has the changes and a positive ratio a hedge needs (best R² %s, %s: "
                     "%s)",
                     num(b[0], r[bi].a.chg.r2, 3), r[bi].grade, r[bi].why);
        return;
    }
    const hedge_rank *k = &r[best];
    snprintf(out, cap,
             "best R² %s (%s%s), below the %s a hedge needs to remove half of the %s "
             "rent-change variance",
             num(b[0], k->a.chg.r2, 2), k->grade, k->gpu_match == 0 ? ", a different GPU" : "",
             num(b[1], HEDGE_VERDICT_MIN_HE, 2), freq_noun(f));
}

void hedge_compare_verdict(const hedge_rank *r, size_t n, hedge_freq f, hedge_verdict *v)
{
    char rm[256], why[320], sw[320];
    memset(v, 0, sizeof *v);
    v->best = -1;
    int any_sug = 0, any_pub = 0;
    for (size_t i = 0; i < n; i++) {
        any_sug |= r[i].suggested;
        any_pub |= !r[i].suggested;
    }
    long bp = first_ranked(r, n, 0), bs = first_ranked(r, n, 1);
    int p_ok = bp >= 0 && r[bp].a.he >= HEDGE_VERDICT_MIN_HE;
    int s_ok = bs >= 0 && r[bs].a.he >= HEDGE_VERDICT_MIN_HE;
    if (p_ok) {
        const hedge_rank *k = &r[bp];
        v->hedges = 1;
        v->best = bp;
        removes(rm, sizeof rm, k, f);
        char better[200] = "";
        if (s_ok && bs < bp) {
            char b[32];
            snprintf(better, sizeof better,
                     "; a grade built around your rent would remove %s%% (%s, not published)",
                     num(b, 100 * r[bs].a.he, 0), r[bs].grade);
        }
        snprintf(v->text, sizeof v->text, "use %s: %s%s%s%s", k->grade, rm,
                 k->a.he < 0.80 ? "; a partial hedge (below the 80% of hedge accounting)" : "",
                 k->gpu_match == 0 ? "; a different GPU, so its price can part from your rent's"
                                   : "",
                 better);
        return;
    }
    if (s_ok) {
        const hedge_rank *k = &r[bs];
        v->hedges = v->suggested = 1;
        v->best = bs;
        removes(rm, sizeof rm, k, f);
        if (!any_pub)
            snprintf(why, sizeof why, "no published grade was compared");
        else if (best_fit(r, n, 0) < 0)
            snprintf(why, sizeof why, "no published grade here has values for this rent");
        else {
            no_hedge(sw, sizeof sw, r, n, 0, f);
            snprintf(why, sizeof why, "no published grade here hedges this rent: %s", sw);
        }
        snprintf(v->text, sizeof v->text,
                 "%s; one built around it would: %s%s%s%s %s -- it is not published, so no "
                 "futures settle on it yet: ask an exchange to list it, or hedge with a swap "
                 "on it%s",
                 why, k->grade, k->what[0] ? " (" : "", k->what, k->what[0] ? ")" : "", rm,
                 k->providers == 1 ? "; it is one provider's price, which that provider alone "
                                     "sets"
                                   : "");
        return;
    }
    if (!any_sug) {
        no_hedge(sw, sizeof sw, r, n, -1, f);
        snprintf(v->text, sizeof v->text, "no grade here hedges this rent: %s", sw);
        return;
    }
    /* suggestions were ranked too, and none hedges */
    long bsf = bs >= 0 ? bs : best_fit(r, n, 1);
    char tail[160] = "";
    if (bsf >= 0) {
        char b[32];
        snprintf(tail, sizeof tail, "; nor would a grade built around it (best R² %s, %s)",
                 num(b, r[bsf].a.chg.r2, 2), r[bsf].grade);
    } else {
        snprintf(tail, sizeof tail, "; no grade built around it has values for this rent");
    }
    if (best_fit(r, n, 0) < 0)
        snprintf(sw, sizeof sw, "%s", any_pub ? "no published grade has values for this rent"
                                             : "no published grade was compared");
    else
        no_hedge(sw, sizeof sw, r, n, 0, f);
    snprintf(v->text, sizeof v->text, "no grade here hedges this rent: %s%s", sw, tail);
}

void hedge_ranks_free(hedge_rank *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) hedge_analysis_free(&r[i].a);
    free(r);
}
