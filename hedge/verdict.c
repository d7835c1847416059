/* hedge/verdict.c -- the verdict of hedge compare: sentences a risk
 * manager can act on, each true of the case it is said of (issue 27).
 *
 * NOTES ON THE DESIGN
 * (1) The case is settled first, from the rent itself and then from the
 *     grades, and each case has its own sentence (hedge.h, HEDGE_S_*):
 *       - the rent never changed: there is no rent risk in the period
 *         (not "no grade has values", which was printed for a flat rent);
 *       - no grade has index values on the rent's dates;
 *       - the rent moved on fewer than HEDGE_MIN_MOVES changes: any fit
 *         rests on a coincidence of one or two months, so nothing is
 *         ranked (two renters of one flat price list that moved once got
 *         opposite verdicts before);
 *       - no index that has values moved;
 *       - no grade has the changes a hedge ratio needs;
 *       - otherwise the ranking speaks (2).
 * (2) One ordering: the verdict reads the ranks hedge_rank_sort made.  It
 *     recommends the first ranked grade given (--grade, --grades) that
 *     removes at least HEDGE_VERDICT_MIN_HE (naming a suggestion that
 *     ranks above it), else the first ranked suggestion that does
 *     (unpublished, and one provider's price when it is), else says that
 *     nothing hedges.  A grade ranked first never has an effectiveness
 *     under 1 %, and never a fit that holds in sample only (compare.c):
 *     a grade whose walk-forward added variance is not "use"d, nor said
 *     to be one that "would" hedge; "best R²" names it as such.
 * (2a) A grade given is "published" only when it is in the published
 *     grade set (hedge_grade_input.published: the published grades file
 *     less dropped grades); any other is a candidate grade -- built, never
 *     published, so no futures settle on it -- and the sentences say so
 *     ("no published or candidate grade ...", "it is a candidate grade,
 *     not published").
 * (3) "Best R²" quotes only a grade of the rent's GPU (any grade when the
 *     rent's GPU is not given) with h > 0; when that grade is no hedge for
 *     another reason than its fit (too few changes, circular), the reason
 *     is quoted instead of "below 0.50".  When there is none, it says so.
 * (4) Circularity: a grade whose values hold the renter's own quotes and
 *     that tracks the rent (with them, HE >= 0.50) while they supply half
 *     or more of its fix is said to be the renter's own price, with what
 *     remains without them, and the advice that fits: a contract on it
 *     would settle on the renter's own bill.
 * (5) The recommended grade's out-of-sample figure goes with its
 *     in-sample one (it removes at least 1 % out of sample, else it would
 *     not be ranked), and a broken ratio is said.
 */
#include "hedge/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* v with dp decimals, rounded once, half-up (gpi_double_to_units). */
static const char *num(char buf[32], double v, int dp)
{
    return gpi_fixed_format(gpi_double_to_units(v, dp), dp, buf);
}

static const char *freq_noun(hedge_freq f)
{
    return f == HEDGE_DAY ? "daily" : f == HEDGE_WEEK ? "weekly" : "monthly";
}

static const char *unit(hedge_freq f)
{
    return f == HEDGE_DAY ? "day" : f == HEDGE_WEEK ? "week" : "month";
}

/* Appends to the verdict's text. */
static void add(hedge_verdict *v, unsigned kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(hedge_verdict *v, unsigned kind, const char *fmt, ...)
{
    size_t len = strlen(v->text);
    if (len + 1 >= sizeof v->text) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->text + len, sizeof v->text - len, fmt, ap);
    va_end(ap);
    v->kinds |= kind;
}

/* A price in micro-USD with its trailing zeros cut (at least 2 decimals). */
static const char *price(char buf[32], int64_t micro)
{
    gpi_fixed_format(micro, 6, buf);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0' && n >= 2 && strchr(buf, '.') &&
           (size_t)(strchr(buf, '.') - buf) + 3 < n)
        buf[--n] = '\0';
    return buf;
}

/* which: 0 published grades, 1 suggested ones, -1 both. */
static int in_set(const hedge_rank *k, int which)
{
    return which < 0 || k->suggested == which;
}

/* What a set of grades is, for the sentences of note 1. */
typedef struct set_facts {
    size_t n, ok, moving;      /* grades, with data, with an index that moved */
    size_t published;          /* of the n, in the published grade set */
    size_t gpu, gpu_ok;        /* of the rent's GPU (note 3), with data */
    long first;                /* first ranked (-1 none) */
    long most;                 /* the moving grade with the most changes (-1) */
    long best;                 /* note 3's best fit (-1 none) */
} set_facts;

static void facts(const hedge_rank *r, size_t n, int which, int rent_gpu_known, set_facts *f)
{
    memset(f, 0, sizeof *f);
    f->first = f->most = f->best = -1;
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &r[i];
        if (!in_set(k, which)) continue;
        f->n++;
        f->published += k->published != 0;
        int gpu_ok = rent_gpu_known ? k->gpu_match == 1 : k->gpu_match != 0;
        f->gpu += gpu_ok != 0;
        if (!k->ok) continue;
        f->ok++;
        f->gpu_ok += gpu_ok != 0;
        if (k->a.index_moves > 0) {
            f->moving++;
            if (f->most < 0 || k->a.n_changes > r[f->most].a.n_changes) f->most = (long)i;
        }
        if (k->ranked && f->first < 0) f->first = (long)i;
        if (gpu_ok && isfinite(k->a.chg.b) && k->a.chg.b > 0 && isfinite(k->a.chg.r2) &&
            (f->best < 0 || k->a.chg.r2 > r[f->best].a.chg.r2))
            f->best = (long)i;
    }
}

/* What the grades given (not suggested) are, for the sentences: "published
 * grade" only when every one is in the published set (note 2a). */
static const char *given_name(const set_facts *f)
{
    return f->published == f->n ? "published grade"
           : f->published       ? "published or candidate grade"
                                : "candidate grade";
}

/* "removes a% of your monthly rent-change variance (95% interval lo%-hi%;
 * out of sample c%) at h = x, basis sd y USD/GPU-hour" */
static void removes(char *out, size_t cap, const hedge_rank *k, hedge_freq f)
{
    const hedge_analysis *a = &k->a;
    char b[3][32], ci[96] = "", lo[32], hi[32], oos[48] = "";
    if (isfinite(a->oos.he) && a->oos.he >= 0) /* a ranked grade's is >= 1 % (note 5) */
        snprintf(oos, sizeof oos, "; out of sample %s%%", num(b[0], 100 * a->oos.he, 0));
    if (a->exact)
        snprintf(ci, sizeof ci, " (an exact fit%s)", oos);
    else if (isfinite(a->he_lo))
        snprintf(ci, sizeof ci, " (95%% interval %s%%-%s%%%s)", num(lo, 100 * a->he_lo, 0),
                 num(hi, 100 * a->he_hi, 0), oos);
    else if (oos[0])
        snprintf(ci, sizeof ci, " (%s)", oos + 2);
    snprintf(out, cap, "removes %s%% of your %s rent-change variance%s at h = %s, basis sd %s "
                       "USD/GPU-hour",
             num(b[0], 100 * a->he, 0), freq_noun(f), ci, num(b[1], a->chg.b, 2),
             num(b[2], a->basis.sd, 4));
}

/* Why no grade of the set (its facts f) hedges: the first case of note 1
 * that holds, or note 3's best fit (returns 1 then; HEDGE_S_OOS_FAIL into
 * *kinds when that fit holds in sample only).  name: given_name's, or
 * "grade built around it". */
static int why_none(char *out, size_t cap, const hedge_rank *r, const set_facts *f,
                    const char *name, size_t min_changes, hedge_freq freq, int rent_gpu_known,
                    unsigned *kinds)
{
    char b[2][32];
    int fit = 0;
    if (f->n == 0)
        snprintf(out, cap, "no %s was compared", name);
    else if (f->ok == 0)
        snprintf(out, cap, "no %s has index values in your rent's %ss", name, unit(freq));
    else if (f->moving == 0)
        snprintf(out, cap, "no %s moved over your rent's %ss", name, unit(freq));
    else if (r[f->most].a.n_changes < min_changes)
        snprintf(out, cap, "no %s has the %zu %s changes a hedge ratio needs (the most is %zu, %s)",
                 name, min_changes, freq_noun(freq), r[f->most].a.n_changes, r[f->most].grade);
    else if (f->best < 0 && f->gpu_ok == 0)
        snprintf(out, cap, "no %s of your GPU has index values in your rent's %ss", name,
                 unit(freq));
    else if (f->best < 0) {
        snprintf(out, cap, "no %s of your GPU moves with your rent (none has h > 0)%s", name,
                 rent_gpu_known ? "" : "; give --gpu to compare only grades of your GPU");
        fit = 2;
    } else {
        const hedge_rank *k = &r[f->best];
        fit = 1;
        if (k->a.chg.r2 >= HEDGE_VERDICT_MIN_HE && !k->ranked && k->circular)
            snprintf(out, cap, "best R² %s (%s) is no hedge: it is largely your own price",
                     num(b[0], k->a.chg.r2, 2), k->grade);
        else if (k->a.chg.r2 >= HEDGE_VERDICT_MIN_HE && !k->ranked && k->in_sample_only) {
            snprintf(out, cap, "best R² %s (%s) is no hedge: it %s", num(b[0], k->a.chg.r2, 2),
                     k->grade, k->why);
            *kinds |= HEDGE_S_OOS_FAIL;
        } else if (k->a.chg.r2 >= HEDGE_VERDICT_MIN_HE && !k->ranked)
            snprintf(out, cap, "best R² %s (%s) is no hedge: %s", num(b[0], k->a.chg.r2, 2),
                     k->grade, k->why);
        else
            snprintf(out, cap,
                     "best R² %s (%s), below the %s a hedge needs to remove half of the %s "
                     "rent-change variance",
                     num(b[0], k->a.chg.r2, 2), k->grade, num(b[1], HEDGE_VERDICT_MIN_HE, 2),
                     freq_noun(freq));
    }
    return fit;
}

/* The analysis of a grade with the renter's own quotes in it, and without
 * them (NULL when there is none). */
static const hedge_analysis *with_own(const hedge_rank *k)
{
    if (!k->own_known) return NULL;
    if (k->own_in) return k->ok ? &k->a : NULL;
    return k->twin_ok ? &k->t : NULL;
}

static const hedge_analysis *without_own(const hedge_rank *k)
{
    if (!k->own_known) return NULL;
    if (k->own_in) return k->twin_ok ? &k->t : NULL;
    return k->ok ? &k->a : NULL;
}

/* Note 4: the grade that tracks the rent because it holds the renter's
 * own quotes -- "only because" when it does not without them. */
static void own_clause(hedge_verdict *v, const hedge_rank *r, size_t n, hedge_freq f)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        const hedge_analysis *w = with_own(&r[i]);
        if (!w || r[i].own_share < HEDGE_OWN_HIGH || !isfinite(w->he) ||
            w->he < HEDGE_VERDICT_MIN_HE || !isfinite(w->chg.b) || w->chg.b <= 0)
            continue;
        if (best < 0 || w->he > with_own(&r[best])->he) best = (long)i;
    }
    if (best < 0) return;
    const hedge_rank *k = &r[best];
    const hedge_analysis *w = with_own(k), *wo = without_own(k);
    char b[3][32], name[120];
    if (!k->own_in && k->twin_grade[0])
        snprintf(name, sizeof name, "%s (with your quotes)", k->twin_grade);
    else
        snprintf(name, sizeof name, "%s", k->grade);
    int still = wo && isfinite(wo->he) && wo->he >= HEDGE_VERDICT_MIN_HE;
    if (!still) {
        char rest[64];
        if (wo && isfinite(wo->he))
            snprintf(rest, sizeof rest, "without them it removes %s%%", num(b[2], 100 * wo->he, 0));
        else
            snprintf(rest, sizeof rest, "without them it has no fit");
        add(v, HEDGE_S_OWN,
            "; %s tracks your rent (it removes %s%% of the %s variance) only because your own "
            "quotes supply %s%% of its fix (they are the median on %ld of %ld days); %s: futures "
            "on it would settle on your own bill -- to lock your price, ask your provider for a "
            "fixed price, or an exchange to list your own bill",
            name, num(b[0], 100 * w->he, 0), freq_noun(f), num(b[1], 100 * k->own_share, 0),
            k->own_median_days, k->own_days, rest);
        return;
    }
    add(v, HEDGE_S_OWN,
        "; %s tracks your rent (it removes %s%% of the %s variance) and your own quotes supply "
        "%s%% of its fix (they are the median on %ld of %ld days); without them it still removes "
        "%s%%%s",
        name, num(b[0], 100 * w->he, 0), freq_noun(f), num(b[1], 100 * k->own_share, 0),
        k->own_median_days, k->own_days, num(b[2], 100 * wo->he, 0),
        k->providers == 1 || k->own_share >= 0.999
            ? ": what is left is your provider's own price list, which that provider alone sets"
            : "");
}

/* The qualifiers of a recommended grade: partial, another GPU, some of
 * its fix the renter's own, a ratio that broke.  (Its out-of-sample
 * figure is removes()'s: a grade that added variance out of sample is
 * not ranked, so never recommended.) */
static void qualifiers(hedge_verdict *v, const hedge_rank *k)
{
    char b[3][32], lab[16];
    if (k->a.he < 0.80) add(v, 0, "; a partial hedge (below the 80%% of hedge accounting)");
    if (k->gpu_match == 0) add(v, 0, "; a different GPU, so its price can part from your rent's");
    if (k->own_known && k->own_in && k->own_share > 0)
        add(v, 0, "; your own quotes supply %s%% of its fix", num(b[0], 100 * k->own_share, 0));
    if (hedge_broke(&k->a)) {
        hedge_period_label(k->a.freq, k->a.chow.period, lab);
        add(v, HEDGE_S_BROKE,
            "; but its h broke at the largest index move (%s: %s before, %s after, Chow p %s): "
            "refit it before you rely on it",
            lab, num(b[0], k->a.chow.h_before, 2), num(b[1], k->a.chow.h_after, 2),
            num(b[2], k->a.chow.p, 3));
    }
}

/* Note 1's cases before the ranking; 1 when one of them is the verdict. */
static int case_first(hedge_verdict *v, const hedge_rank *r, size_t n,
                      const hedge_rent_summary *rs, size_t min_changes, hedge_freq f)
{
    char a[16], b[16], c[16], p[2][32];
    _Static_assert(sizeof c >= 11, "a date");
    hedge_period_label(f, rs->first, a);
    hedge_period_label(f, rs->last, b);
    if (rs->moves == 0) {
        if (rs->changes == 0)
            add(v, HEDGE_S_FLAT_RENT,
                "no rent risk in this period to hedge: your rent has no change between adjacent "
                "%ss (%zu %s%s, %s .. %s)",
                unit(f), rs->periods, unit(f), rs->periods == 1 ? "" : "s", a, b);
        else
            add(v, HEDGE_S_FLAT_RENT,
                "no rent risk in this period to hedge: your rent never changed over its %zu %ss "
                "(%s .. %s)",
                rs->periods, unit(f), a, b);
        return 1;
    }
    set_facts all;
    facts(r, n, -1, 1, &all);
    if (all.ok == 0) {
        add(v, HEDGE_S_NO_OVERLAP,
            "no grade here has index values in your rent's %ss (%s .. %s): there is nothing to "
            "compare it with",
            unit(f), a, b);
        return 1;
    }
    if (rs->moves < HEDGE_MIN_MOVES) {
        add(v, HEDGE_S_FEW_MOVES, "your rent's price changed on only %zu day%s (", rs->moves,
            rs->moves == 1 ? "" : "s");
        for (size_t m = 0; m < rs->moves && m < 2; m++) {
            gpi_date_format(rs->move_day[m], c);
            add(v, 0, "%s%s: %s to %s", m ? "; " : "", c, price(p[0], rs->move_from[m]),
                price(p[1], rs->move_to[m]));
        }
        add(v, 0, ") from %s to %s: too few to tell a hedge from a coincidence, so no grade is "
                  "ranked", a, b);
        own_clause(v, r, n, f);
        return 1;
    }
    if (all.moving == 0) {
        add(v, HEDGE_S_FLAT_INDEX,
            "no grade here moved over your rent's %ss (%s .. %s): every index with values was "
            "flat, so none can hedge it",
            unit(f), a, b);
        own_clause(v, r, n, f);
        return 1;
    }
    if (all.first < 0 && r[all.most].a.n_changes < min_changes) {
        add(v, HEDGE_S_TOO_FEW,
            "no grade here has the %zu %s changes a hedge ratio needs: the most is %zu (%s)",
            min_changes, freq_noun(f), r[all.most].a.n_changes, r[all.most].grade);
        own_clause(v, r, n, f);
        return 1;
    }
    return 0;
}

void hedge_compare_verdict(const hedge_rank *r, size_t n, const hedge_compare_opts *o,
                           const hedge_rent_summary *rs, hedge_verdict *v)
{
    char rm[400], why[560], sw[400];
    memset(v, 0, sizeof *v);
    v->best = -1;
    hedge_freq f = o->freq;
    size_t minc = o->min_changes ? o->min_changes : HEDGE_MIN_CHANGES;
    int gpu_known = o->rent_gpu && *o->rent_gpu;
    if (case_first(v, r, n, rs, minc, f)) return;
    set_facts pub, sug;
    facts(r, n, 0, gpu_known, &pub);
    facts(r, n, 1, gpu_known, &sug);
    long bp = pub.first, bs = sug.first;
    int p_ok = bp >= 0 && r[bp].a.he >= HEDGE_VERDICT_MIN_HE;
    int s_ok = bs >= 0 && r[bs].a.he >= HEDGE_VERDICT_MIN_HE;
    if (p_ok) {
        const hedge_rank *k = &r[bp];
        v->hedges = 1;
        v->best = bp;
        removes(rm, sizeof rm, k, f);
        add(v, HEDGE_S_USE, "use %s: %s", k->grade, rm);
        if (!k->published) {
            add(v, HEDGE_S_CANDIDATE,
                "; it is a candidate grade, not published, so no futures settle on it yet: ask an "
                "exchange to list it, or hedge with a swap on it");
            for (long i = bp + 1; i < (long)n; i++) /* the best published one that hedges */
                if (r[i].ranked && r[i].published && r[i].a.he >= HEDGE_VERDICT_MIN_HE) {
                    char b[32];
                    add(v, 0, " (the best published grade, %s, removes %s%%)", r[i].grade,
                        num(b, 100 * r[i].a.he, 0));
                    break;
                }
        }
        qualifiers(v, k);
        if (s_ok && bs < bp) {
            char b[32];
            add(v, 0, "; a grade built around your rent would remove %s%% (%s, not published)",
                num(b, 100 * r[bs].a.he, 0), r[bs].grade);
        }
        own_clause(v, r, n, f);
        return;
    }
    unsigned oos_kind = 0;
    const char *given = given_name(&pub);
    int pub_fit = why_none(sw, sizeof sw, r, &pub, given, minc, f, gpu_known, &oos_kind);
    if (s_ok) {
        const hedge_rank *k = &r[bs];
        v->hedges = v->suggested = 1;
        v->best = bs;
        removes(rm, sizeof rm, k, f);
        char lead[80] = "";
        if (pub_fit == 1) snprintf(lead, sizeof lead, "no %s here hedges this rent: ", given);
        snprintf(why, sizeof why, "%s%s", lead, sw);
        add(v, HEDGE_S_SUGGEST | (pub_fit ? HEDGE_S_BEST_FIT : 0) | oos_kind,
            "%s; one built around it would: %s%s%s%s %s -- it is not published, so no futures "
            "settle on it yet: ask an exchange to list it, or hedge with a swap on it",
            why, k->grade, k->what[0] ? " (" : "", k->what, k->what[0] ? ")" : "", rm);
        if (k->providers == 1) add(v, 0, "; it is one provider's price, which that provider alone sets");
        qualifiers(v, k);
        own_clause(v, r, n, f);
        return;
    }
    add(v, HEDGE_S_NONE | (pub_fit ? HEDGE_S_BEST_FIT : 0) | oos_kind,
        "no grade here hedges this rent: %s", pub.n ? sw : "");
    if (sug.n) {
        oos_kind = 0;
        int sug_fit = why_none(why, sizeof why, r, &sug, "grade built around it", minc, f,
                               gpu_known, &oos_kind);
        if (sug_fit == 1)
            add(v, HEDGE_S_NONE_BUILT | HEDGE_S_BEST_FIT | oos_kind, "%s: %s",
                pub.n ? "; nor would a grade built around it" : "none built around it does", why);
        else
            add(v, HEDGE_S_NONE_BUILT | (sug_fit ? HEDGE_S_BEST_FIT : 0), "%s%s", pub.n ? "; " : "",
                why);
    }
    own_clause(v, r, n, f);
}
