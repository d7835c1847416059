/* hedge/compare.c -- which grade hedges one rent history best.
 *
 * Each grade is analyzed on its own (values as first published, or
 * latest); grades with no usable data keep their reason.  The ranking is
 * of hedges, not of fits (hedge_rank_sort in hedge.h): a grade is listed
 * with why but not ranked when the rent or the index never moved, when
 * it has fewer than the minimum number of changes or the rent moved on
 * too few of them, when its h is not positive (a payer would have to
 * sell it), when it removes under 1 % of the variance, when it is
 * largely the renter's own price (circular: its own quotes supply half
 * or more of its fix, measured by the index, with the fit without them
 * analyzed beside it), or when its fit holds in sample only (the
 * walk-forward of oos.c added variance, removed under 1 % of it, or could
 * not try it: a T4 renter was told a grade "would" remove 77 % whose
 * walk-forward had ADDED 57 %).  The ranked ones are ordered by the low end of
 * the 95 % interval of their effectiveness -- an exact fit by its
 * degenerate interval [1, 1], never as unknown -- so that a near-perfect
 * R² on three changes does not beat a good fit on fifty.  The verdict,
 * built from the same ranks, is verdict.c's.
 *
 * Grades come as data (hedge_grade_input: the id and its daily values,
 * and the twin without -- or with -- the renter's own quotes): published
 * grades read from the store by the caller, and grades built around the
 * rent (compare --suggest, computed by the index from the stored
 * observations).  Both are ranked together.
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

/* "removes 2% of ..." / "no fit" of an analysis, for the why of a
 * circular grade. */
static void fit_words(const hedge_analysis *a, int ok, char *out, size_t cap)
{
    char b[2][32];
    if (!ok || !isfinite(a->he))
        snprintf(out, cap, "no fit");
    else
        snprintf(out, cap, "HE %s at h = %s",
                 gpi_fixed_format(gpi_double_to_units(a->he, 3), 3, b[0]),
                 gpi_fixed_format(gpi_double_to_units(a->chg.b, 3), 3, b[1]));
}

void hedge_rank_sort(hedge_rank *r, size_t n, size_t min_changes)
{
    if (min_changes == 0) min_changes = HEDGE_MIN_CHANGES;
    for (size_t i = 0; i < n; i++) {
        hedge_rank *k = &r[i];
        const hedge_analysis *a = &k->a;
        k->ranked = k->in_sample_only = 0;
        k->why[0] = '\0';
        k->circular = k->own_known && k->own_in && k->own_share >= HEDGE_OWN_HIGH;
        if (!k->ok) continue;
        if (a->n_changes > 0 && a->rent_moves == 0)
            snprintf(k->why, sizeof k->why, "your rent never changed over the %zu change%s here",
                     a->n_changes, a->n_changes == 1 ? "" : "s");
        else if (a->n_changes >= 3 && a->index_moves == 0)
            snprintf(k->why, sizeof k->why, "the index never changed over the %zu changes here",
                     a->n_changes);
        else if (a->n_changes < min_changes)
            snprintf(k->why, sizeof k->why, "%zu changes (need %zu)", a->n_changes, min_changes);
        else if (k->rent_price_changes < HEDGE_MIN_MOVES)
            snprintf(k->why, sizeof k->why, "your rent's price changed on only %zu day%s (need %d)",
                     k->rent_price_changes, k->rent_price_changes == 1 ? "" : "s",
                     HEDGE_MIN_MOVES);
        else if (!isfinite(a->chg.b) || !isfinite(a->he))
            snprintf(k->why, sizeof k->why, "no hedge ratio");
        else if (a->chg.b <= 0)
            snprintf(k->why, sizeof k->why, "h %.3f <= 0: the grade moves against your rent",
                     a->chg.b);
        else if (a->he < HEDGE_RANK_MIN_HE)
            snprintf(k->why, sizeof k->why, "removes under 1%% of your rent-change variance");
        else if (k->circular) {
            char fw[80];
            fit_words(&k->t, k->twin_ok, fw, sizeof fw);
            snprintf(k->why, sizeof k->why,
                     "largely your own price: your quotes supply %.0f%% of its fix (half or more "
                     "on %ld of %ld days); without them %s",
                     100 * k->own_share, k->own_median_days, k->own_days, fw);
        } else if (hedge_in_sample_only(a, k->why, sizeof k->why))
            k->in_sample_only = 1;
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
    hedge_rent_summary rs;
    hedge_rent_summarize(r, o->freq, &rs);
    for (size_t i = 0; i < n; i++) {
        hedge_rank *k = &rk[i];
        k->rent_price_changes = rs.moves;
        snprintf(k->grade, sizeof k->grade, "%s", g[i].grade ? g[i].grade : "");
        k->input = i;
        snprintf(k->gpu, sizeof k->gpu, "%s", g[i].gpu ? g[i].gpu : "");
        k->gpu_match = hedge_gpu_match(o->rent_gpu, k->gpu);
        k->suggested = g[i].suggested;
        k->published = g[i].published && !g[i].suggested;
        k->providers = g[i].providers;
        snprintf(k->what, sizeof k->what, "%s", g[i].what ? g[i].what : "");
        const hedge_own_input *own = &g[i].own;
        if (own->known) {
            k->own_known = 1;
            k->own_in = own->in;
            k->own_share = own->share;
            k->own_days = own->days;
            k->own_median_days = own->median_days;
            k->own_any_days = own->any_days;
            if (own->twin_grade) snprintf(k->twin_grade, sizeof k->twin_grade, "%s", own->twin_grade);
        }
        if (g[i].missing) snprintf(k->reason, sizeof k->reason, "%s", g[i].missing);
        /* the twin is analyzed even when the grade has no values: a grade
         * made of the renter's own quotes alone has none without them */
        for (int twin = g[i].missing ? 1 : 0; twin < 2; twin++) {
            if (twin && !own->twin) break;
            hedge_series s;
            gpi_diag dd = {{0}};
            gpi_status rc = hedge_analyze_index(k->grade, twin ? own->twin : g[i].days,
                                                twin ? own->n_twin : g[i].n, r, o->freq,
                                                o->window, &s, twin ? &k->t : &k->a, &dd);
            if (rc == GPI_EINPUT) {
                if (!twin) snprintf(k->reason, sizeof k->reason, "%s", dd.msg);
                if (!twin) break;
                continue;
            }
            if (rc != GPI_OK) {
                hedge_ranks_free(rk, n);
                return gpi_diag_set(d, rc, "%s", dd.msg);
            }
            hedge_series_free(&s);
            if (twin)
                k->twin_ok = 1;
            else
                k->ok = 1;
        }
    }
    hedge_rank_sort(rk, n, o->min_changes);
    *out = rk;
    return GPI_OK;
}

void hedge_ranks_free(hedge_rank *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) {
        hedge_analysis_free(&r[i].a);
        hedge_analysis_free(&r[i].t);
    }
    free(r);
}
