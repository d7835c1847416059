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

gpi_status hedge_compare(store *st, const char *const *grades, size_t ngrades,
                         const hedge_rent *r, const hedge_compare_opts *o, hedge_rank **out,
                         gpi_diag *d)
{
    *out = NULL;
    if (!st || !grades || !r || !o || ngrades == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_compare: no grades given");
    hedge_rank *rk = calloc(ngrades, sizeof *rk);
    if (!rk) return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (compare)");
    for (size_t i = 0; i < ngrades; i++) {
        snprintf(rk[i].grade, sizeof rk[i].grade, "%s", grades[i]);
        const char *g = o->gpus ? o->gpus[i] : NULL;
        snprintf(rk[i].gpu, sizeof rk[i].gpu, "%s", g ? g : "");
        rk[i].gpu_match = hedge_gpu_match(o->rent_gpu, rk[i].gpu);
        hedge_series s;
        gpi_diag dd = {{0}};
        gpi_status rc = hedge_analyze_grade(st, grades[i], o->latest, r, o->freq, o->window, &s,
                                            &rk[i].a, &dd);
        if (rc == GPI_EINPUT) {
            snprintf(rk[i].reason, sizeof rk[i].reason, "%s", dd.msg);
            continue;
        }
        if (rc != GPI_OK) {
            hedge_ranks_free(rk, ngrades);
            return gpi_diag_set(d, rc, "%s", dd.msg);
        }
        hedge_series_free(&s);
        rk[i].ok = 1;
    }
    hedge_rank_sort(rk, ngrades, o->min_changes);
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

void hedge_compare_verdict(const hedge_rank *r, size_t n, hedge_freq f, hedge_verdict *v)
{
    char b[4][32];
    memset(v, 0, sizeof *v);
    v->best = -1;
    for (size_t i = 0; i < n; i++)
        if (r[i].ok && r[i].ranked) {
            v->best = (long)i;
            break;
        }
    if (v->best < 0) {
        /* the best fit among the unranked, to say what was seen */
        long bi = -1;
        for (size_t i = 0; i < n; i++)
            if (r[i].ok && isfinite(r[i].a.chg.r2) && (bi < 0 || r[i].a.chg.r2 > r[bi].a.chg.r2))
                bi = (long)i;
        if (bi < 0)
            snprintf(v->text, sizeof v->text,
                     "no grade here hedges this rent: none has a hedge ratio on this history");
        else
            snprintf(v->text, sizeof v->text,
                     "no grade here hedges this rent: none has the changes and a positive ratio "
                     "a hedge needs (best R² %s, %s: %s)",
                     num(b[0], r[bi].a.chg.r2, 3), r[bi].grade, r[bi].why);
        return;
    }
    const hedge_rank *k = &r[v->best];
    const hedge_analysis *a = &k->a;
    if (!(a->he >= HEDGE_VERDICT_MIN_HE)) {
        snprintf(v->text, sizeof v->text,
                 "no grade here hedges this rent: best R² %s (%s%s), below the %s a hedge "
                 "needs to remove half of the %s rent-change variance",
                 num(b[0], a->chg.r2, 2), k->grade, k->gpu_match == 0 ? ", a different GPU" : "",
                 num(b[1], HEDGE_VERDICT_MIN_HE, 2), freq_noun(f));
        return;
    }
    v->hedges = 1;
    char ci[64] = "", lo[32], hi[32];
    if (isfinite(a->he_lo))
        snprintf(ci, sizeof ci, " (95%% interval %s%%-%s%%)", num(lo, 100 * a->he_lo, 0),
                 num(hi, 100 * a->he_hi, 0));
    snprintf(v->text, sizeof v->text,
             "use %s: removes %s%% of your %s rent-change variance%s at h = %s, basis sd "
             "%s USD/GPU-hour%s%s",
             k->grade, num(b[0], 100 * a->he, 0), freq_noun(f), ci, num(b[1], a->chg.b, 2),
             num(b[2], a->basis.sd, 4),
             a->he < 0.80 ? "; a partial hedge (below the 80% of hedge accounting)" : "",
             k->gpu_match == 0 ? "; a different GPU, so its price can part from your rent's" : "");
}

void hedge_ranks_free(hedge_rank *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) hedge_analysis_free(&r[i].a);
    free(r);
}
