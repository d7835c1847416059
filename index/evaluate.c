/* index/evaluate.c -- the grade lab (SPEC §10): how a candidate grade would
 * have behaved, for exchange designers.
 *
 * NOTES ON THE DESIGN
 * (1) Candidate grades need not be built: each day of [from - P, to] is
 *     read once for all grades (idx_day_collect) and reduced with the
 *     index's own fix (idx_day_fix) and day sequence (idx_seq: level,
 *     adjustment, carry), exactly as `index build` does; P is the
 *     dependency horizon of build.c (lookback + carry + 1 days), so the
 *     first day of the range already has its adjustment and carry.
 *     Nothing is written to the store.
 * (2) Memory: one day of observations (the idx_day arrays) plus, per
 *     grade, one value per day of the range (for the volatility and the
 *     correlations).  Every other measure is a running sum.  The n x n
 *     correlation matrices are kept for at most IDX_CORR_MATRIX_MAX
 *     grades; with more, every pair is still computed but only each
 *     grade's nearest (most correlated) other grade is kept -- 10,000
 *     grades took 2.4 GB of matrices (and printed 1.8 GB of them).  The
 *     state of a grade while its days are read (sequence, v2 chain and
 *     panel, the day's items) is some 70 KB, so grades are evaluated
 *     EVAL_BATCH at a time, each batch reading the days again: what stays
 *     for all grades is one log change per grade and day (issue 12:
 *     10,000 grades over a month took 3.0 GB before, see
 *     docs/reliability.md).
 * (3) Leave-one-provider-out is index/manip.c's, the numbers published
 *     with each fix: on a trades or offers day, each provider group with
 *     an eligible observation of the grade is left out in turn and the day
 *     evaluated with the same adjustment and carry; the move is |value
 *     without - value| (ties name the provider first in byte order), and
 *     a day on which a removal leaves no value is counted as a lost day.
 *     The relative move is the move / value, over the days whose value is
 *     not 0.0000 (a price of 0.00004 rounds to it).  A carried or
 *     suspended day has no fix to move.
 * (4) Concentration is of the level used that day: screened trade volume
 *     per provider on trades days, screened offer counts on offers days
 *     (the bases of the published top_provider_share).  HHI = sum of
 *     squared shares (1/n for n equal providers, 1 for a monopoly).
 * (6) Manipulation figures (index/manip.c) per grade over the range: the
 *     median and largest leave-one-out move (absolute and relative), and
 *     the median and smallest cost (GPU-hours of trades) for one new
 *     participant to move the value one tick and 1 %, over the days on
 *     which a cost is defined (days with a value; for v2, anchor days);
 *     a day on which no volume does it counts as infinite in the median
 *     and is counted apart (cost_none), and the days one offer does it.
 * (5) Changes are log(v_d / v_{d-1}) for consecutive days of the range
 *     that both have a value (trades, offers or carried: the series a
 *     futures contract settles on).  Volatility is their sample standard
 *     deviation (n - 1), annualized by sqrt(365) (the market never closes).
 *     Correlations are Pearson over the days both grades have a change,
 *     and only where both moved on at least IDX_CORR_MIN_MOVES of them:
 *     list prices are flat for weeks, and two series that each moved once
 *     correlate at +-1 from that one day.  The sample sizes go out with
 *     every coefficient.
 * (6) Level and spread: the median, minimum and maximum of the daily
 *     values (USD), and the median over trades and offers days of the
 *     day's interquartile range (p75 - p25 of the screened observations of
 *     the level used, as published) -- how wide the market is around the
 *     fix.  Settleable months: calendar months wholly inside the range
 *     with at least IDX_SETTLE_MIN_DAYS days with a value, the default a
 *     monthly future needs for its final settlement price; that price,
 *     the mean of the month's values rounded half-up to 0.0001 (the
 *     settlement rule at a 0.0001 tick), and its change from one
 *     settleable month to the next, the unit a futures position pays in.
 * (7) Provider segments (segments.c): on each fixed day of the cross-
 *     section, the level used reduced to provider statistics and those to
 *     segments; a grade is bimodal when its segments' medians stand at
 *     least IDX_BIMODAL_RATIO apart on at least half of the days with two
 *     or more.  The split that removes it is evaluated, when asked for, as
 *     grades of their own: the grade with "segments": [S] for each segment
 *     S with min_providers providers on some fixed day (another could not
 *     fix a value), read in a second pass over the range (only the
 *     bimodal grades' splits: a sweep of thousands of unimodal grades
 *     costs one pass), and reported after the file's grades.
 */
#include "index/feed.h"
#include "index/manip.h"
#include "index/row.h"
#include "index/snap.h"
#include "core/vec.h"
#include "index/segments.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVAL_DAYS 36600 /* a century: a guard against typos, not a limit of the method */
#define EVAL_BATCH 256      /* grades evaluated together (design note 2) */

/* Per-group running sums of one day (indexed by interned group id). */
typedef struct groups {
    int64_t *w;        /* weight per group id */
    char *seen;
    int32_t *ids;      /* the groups touched, in first-seen order */
    size_t n_ids;
    size_t cap_w, cap_seen, cap_ids;
} groups;

typedef struct grade_acc {
    int64_t *value_e4; /* per day of the range, -1 none */
    int64_t *xs_e4;    /* v2: the cross-section per day, -1 none */
    double sum_splice, sum_drift;
    long n_drift;
    double *iqr;       /* per fixed day: p75 - p25, micro (n_iqr of them) */
    long n_iqr;
    double sum_prov, sum_prov_live;
    double sum_top[2], sum_hhi[2];   /* [0] trades days, [1] offers days */
    long n_top[2];                   /* days behind them (the cross-section's level) */
    double sum_loo_abs, sum_loo_rel;
    long n_loo_rel;                  /* days in sum_loo_rel (value > 0) */
    int64_t *loo_e4;                 /* per day: the largest leave-one-out move, -1 none */
    int64_t *cost_e2[2];             /* per day: a new participant's cost, -1 none */
    char *cost_day;                  /* per day: 1 when the cost is defined */
    idx_segacc seg;                  /* provider segments (design note 7) */
} grade_acc;

/* What a batch's days share besides the day buffer. */
typedef struct batch_ctx {
    const idx_segmap *map;
    idx_segcache cache;
} batch_ctx;

/* Room for group ids below n (seen zeroed). */
static int groups_reserve(groups *g, size_t n)
{
    if (GPI_VEC_RESERVE(g->w, g->cap_w, n) != 0 ||
        GPI_VEC_RESERVE_ZERO(g->seen, g->cap_seen, n) != 0 ||
        GPI_VEC_RESERVE(g->ids, g->cap_ids, n) != 0)
        return -1;
    return 0;
}

static void groups_clear(groups *g)
{
    for (size_t i = 0; i < g->n_ids; i++) g->seen[g->ids[i]] = 0;
    g->n_ids = 0;
}

static void groups_add(groups *g, int32_t id, int64_t w)
{
    if (!g->seen[id]) {
        g->seen[id] = 1;
        g->w[id] = 0;
        g->ids[g->n_ids++] = id;
    }
    g->w[id] += w;
}

/* Top share and HHI of the screened items of b, by volume or by count. */
static void concentration(groups *g, const idx_buf *b, int by_volume, double *top, double *hhi)
{
    groups_clear(g);
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].reason == IDX_OK)
            groups_add(g, b->v[i].group, by_volume ? b->v[i].qty_micro : 1);
    double total = 0, best = 0, h = 0;
    for (size_t i = 0; i < g->n_ids; i++) total += (double)g->w[g->ids[i]];
    for (size_t i = 0; i < g->n_ids && total > 0; i++) {
        double s = (double)g->w[g->ids[i]] / total;
        h += s * s;
        if (s > best) best = s;
    }
    *top = total > 0 ? best : NAN;
    *hhi = total > 0 ? h : NAN;
}

/* What one participant could do on the day (index/manip.c; design notes 3
 * and 6): the leave-one-out accounting and the per-day figures behind
 * the distributions. */
static gpi_status manip_day(idx_day *dy, size_t gi, idx_seq *seq, idx_chain *ch, int32_t day,
                            long k, const idx_fix *f, const idx_eval *e, const idx_v2eval *v,
                            int64_t v0, idx_grade_eval *ge, grade_acc *acc, gpi_diag *d)
{
    idx_manip m;
    gpi_status rc = idx_manip_day(dy, gi, seq, ch, day, f, e, v, &m, d);
    if (rc != GPI_OK) return rc;
    /* costs are defined on days with a value (v2: anchor days) */
    if (v0 >= 0 && (!ch || v->event)) {
        acc->cost_day[k] = 1;
        for (int t = 0; t < 2; t++) {
            acc->cost_e2[t][k] = m.cost_e2[t];
            ge->cost_offer_days[t] += m.cost_offers[t] > 0;
        }
    }
    if (!m.measured) return GPI_OK;
    if (m.loo_voids > 0) ge->loo_lost++;
    if (m.loo_move_e4 < 0) return GPI_OK;
    acc->loo_e4[k] = m.loo_move_e4;
    double abs_usd = (double)m.loo_move_e4 / 1e4;
    ge->loo_days++;
    acc->sum_loo_abs += abs_usd;
    if (isnan(ge->loo_max_abs) || abs_usd > ge->loo_max_abs) ge->loo_max_abs = abs_usd;
    if (v0 == 0) return GPI_OK; /* no relative move from 0.0000 */
    double rel = (double)m.loo_move_e4 / (double)v0;
    acc->sum_loo_rel += rel;
    acc->n_loo_rel++;
    if (isnan(ge->loo_max_rel) || rel > ge->loo_max_rel) {
        ge->loo_max_rel = rel;
        ge->loo_max_day = day;
        snprintf(ge->loo_max_provider, sizeof ge->loo_max_provider, "%s",
                 idx_day_group(dy, m.loo_group));
        ge->loo_max_from_e4 = v0;
        ge->loo_max_to_e4 = m.loo_to_e4;
    }
    return GPI_OK;
}

/* One day of the range for a methodology v3 grade (index/v3.h): its
 * value, levels and providers are the panel's; concentration over the
 * panel's observations; leave one member out as the build publishes it;
 * the costs of a new participant are none (it cannot enter the panel on
 * the day), so no cost day is counted. */
static gpi_status eval_day_v3(idx_day *dy, size_t gi, idx_chain *ch, int32_t day, long k,
                              int last, groups *g, batch_ctx *bc, idx_grade_eval *ge,
                              grade_acc *acc, gpi_diag *d)
{
    idx_v3_out *o;
    gpi_status rc = idx_v3_day_step(dy, gi, ch, day, &o, d);
    if (rc != GPI_OK) return rc;
    if ((rc = idx_eval_fsp_month(ge, o, acc->value_e4, k, last, d)) != GPI_OK) return rc;
    int level = o->e.level;
    int64_t v0 = level == GPI_LEVEL_SUSPENDED ? -1 : o->e.value_e4;
    ge->n_level[level]++;
    acc->value_e4[k] = v0;
    acc->xs_e4[k] = -1;
    ge->n_panel_change += o->panel_change;
    acc->sum_prov += (double)o->n_providers;
    if (level != GPI_LEVEL_SUSPENDED) acc->sum_prov_live += (double)o->n_providers;
    int lv = level == GPI_LEVEL_TRADES ? 0 : level == GPI_LEVEL_OFFERS ? 1 : -1;
    if (lv >= 0) {
        if (o->spread[1] >= 0 && o->spread[3] >= 0)
            acc->iqr[acc->n_iqr++] = (double)(o->spread[3] - o->spread[1]);
        const idx_item *t, *f;
        size_t nt, nf, ng;
        idx_v3_fix_items(ch->v3, &t, &nt, &f, &nf, &ng);
        if (groups_reserve(g, ng + 1)) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        idx_buf b = {(idx_item *)(lv == 0 ? t : f), lv == 0 ? nt : nf, 0};
        double top, hhi;
        concentration(g, &b, lv == 0, &top, &hhi);
        acc->sum_top[lv] += top;
        acc->sum_hhi[lv] += hhi;
        acc->n_top[lv]++;
        /* provider segments over the panel's observations: the items'
         * groups as the day's interned ids (segments.c names them) */
        idx_item *w = malloc((b.n + 1) * sizeof *w);
        if (!w) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        for (size_t i = 0; i < b.n && rc == GPI_OK; i++) {
            w[i] = b.v[i];
            w[i].group = idx_day_group_id(dy, idx_v3_group_name(ch->v3, (size_t)b.v[i].group));
            if (w[i].group < 0) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        }
        idx_buf wb = {w, b.n, 0};
        if (rc == GPI_OK)
            rc = idx_seg_day(&acc->seg, &bc->cache, dy, bc->map, &wb,
                             dy->gs->g[gi].p.min_providers, day, k, d);
        free(w);
        if (rc != GPI_OK) return rc;
    }
    if (!o->measured) return GPI_OK;
    if (o->loo_voids > 0) ge->loo_lost++;
    if (o->loo_move_e4 < 0) return GPI_OK;
    acc->loo_e4[k] = o->loo_move_e4;
    double abs_usd = (double)o->loo_move_e4 / 1e4;
    ge->loo_days++;
    acc->sum_loo_abs += abs_usd;
    if (isnan(ge->loo_max_abs) || abs_usd > ge->loo_max_abs) ge->loo_max_abs = abs_usd;
    if (v0 <= 0) return GPI_OK;
    double rel = (double)o->loo_move_e4 / (double)v0;
    acc->sum_loo_rel += rel;
    acc->n_loo_rel++;
    if (isnan(ge->loo_max_rel) || rel > ge->loo_max_rel) {
        ge->loo_max_rel = rel;
        ge->loo_max_day = day;
        snprintf(ge->loo_max_provider, sizeof ge->loo_max_provider, "%s",
                 o->groups[o->loo_group].name);
        ge->loo_max_from_e4 = v0;
        ge->loo_max_to_e4 = o->loo_to_e4;
    }
    return GPI_OK;
}

/* One day of the range for grade gi (ch: its chain when it is a v2 grade). */
static gpi_status eval_day(idx_day *dy, size_t gi, idx_seq *seq, idx_chain *ch, int32_t day,
                           long k, groups *g, batch_ctx *bc, idx_grade_eval *ge, grade_acc *acc,
                           gpi_diag *d)
{
    idx_fix f;
    idx_eval e, ev;
    gpi_status rc = idx_day_fix(dy, gi, &f, d);
    if (rc != GPI_OK) return rc;
    idx_seq_peek(seq, day, f.trades_raw_q, f.offers_raw_q, &e);
    ev = e; /* the value the day has: v1's, or the chain's */
    idx_v2eval v;
    if (ch) {
        rc = idx_snap_build(&ch->cur, dy, gi, day, d);
        if (rc == GPI_OK) rc = idx_chain_peek(ch, day, &e, 0, &v, d); /* group 0: none */
        if (rc != GPI_OK) return rc;
        ev.level = v.level;
        ev.value_e4 = v.level == GPI_LEVEL_SUSPENDED ? -1 : v.value_e4;
        acc->xs_e4[k] = e.level == GPI_LEVEL_SUSPENDED ? -1 : e.value_e4;
        ge->n_panel_change += v.panel_change;
        if (v.splice_e12 > 0) {
            double sp = fabs((double)v.splice_e12 / 1e12 - 1.0);
            ge->n_rebalance++;
            acc->sum_splice += sp;
            if (isnan(ge->splice_max_abs) || sp > ge->splice_max_abs) ge->splice_max_abs = sp;
        }
        if (ev.value_e4 > 0 && acc->xs_e4[k] > 0) {
            double dr = fabs((double)ev.value_e4 / (double)acc->xs_e4[k] - 1.0);
            acc->sum_drift += dr;
            acc->n_drift++;
            if (isnan(ge->drift_max) || dr > ge->drift_max) ge->drift_max = dr;
        }
    }
    ge->n_level[ev.level]++;
    acc->value_e4[k] = ev.value_e4;
    int lv = e.level == GPI_LEVEL_TRADES ? 0 : e.level == GPI_LEVEL_OFFERS ? 1 : -1;
    double prov = (double)(lv == 0 ? f.ts.n_providers : lv == 1 ? f.os.n_providers
                                                                : f.all_providers);
    acc->sum_prov += prov;
    if (ev.level != GPI_LEVEL_SUSPENDED) acc->sum_prov_live += prov;
    if (lv >= 0) { /* the published p25 and p75: v2's are the constituents' band */
        int64_t band[7];
        const int64_t *sp = lv == 0 ? f.ts.spread : f.os.spread;
        if (ch) {
            rc = idx_band(dy, gi, &e, band, d);
            if (rc != GPI_OK) return rc;
            sp = band;
        }
        if (sp[1] >= 0 && sp[3] >= 0) acc->iqr[acc->n_iqr++] = (double)(sp[3] - sp[1]);
    }
    if (lv >= 0) {
        double top, hhi;
        const idx_buf *b = lv == 0 ? &dy->trades[gi] : &dy->offers[gi];
        concentration(g, b, lv == 0, &top, &hhi);
        acc->sum_top[lv] += top;
        acc->sum_hhi[lv] += hhi;
        acc->n_top[lv]++;
        rc = idx_seg_day(&acc->seg, &bc->cache, dy, bc->map, b, dy->gs->g[gi].p.min_providers,
                         day, k, d);
        if (rc != GPI_OK) return rc;
    }
    rc = manip_day(dy, gi, seq, ch, day, k, &f, &e, ch ? &v : NULL, ev.value_e4, ge, acc, d);
    idx_seq_next(seq, day, f.trades_raw_q, f.offers_raw_q, &e);
    if (rc == GPI_OK && ch) rc = idx_chain_step(ch, day, &e, NULL, &v, d);
    return rc;
}

static double mean_or_nan(double sum, long n)
{
    return n > 0 ? sum / (double)n : NAN;
}

/* Log changes of grade a into chg (NAN where none); returns the count. */
static long changes(const int64_t *v, long days, double *chg)
{
    long n = 0;
    chg[0] = NAN;
    for (long k = 1; k < days; k++) {
        chg[k] = v[k] > 0 && v[k - 1] > 0 ? log((double)v[k] / (double)v[k - 1]) : NAN;
        if (!isnan(chg[k])) n++;
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted here; INFINITY sorts last); NAN when n = 0. */
static double median_of(double *v, long n)
{
    if (n == 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (n % 2) return v[n / 2];
    return isinf(v[n / 2]) ? INFINITY : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Design note 6: the medians and extremes over the days of the range. */
static void distributions(idx_grade_eval *ge, const grade_acc *a, long days, double *x,
                          double *y)
{
    long n = 0, m = 0;
    for (long k = 0; k < days; k++) {
        if (a->loo_e4[k] < 0) continue;
        x[n++] = (double)a->loo_e4[k] / 1e4;
        if (a->value_e4[k] > 0) y[m++] = (double)a->loo_e4[k] / (double)a->value_e4[k];
    }
    ge->loo_median_abs = median_of(x, n);
    ge->loo_median_rel = median_of(y, m);
    ge->cost_days = 0;
    for (long k = 0; k < days; k++) ge->cost_days += a->cost_day[k];
    for (int t = 0; t < 2; t++) {
        n = 0;
        ge->cost_none[t] = 0;
        ge->cost_min[t] = NAN;
        for (long k = 0; k < days; k++) {
            if (!a->cost_day[k]) continue;
            int64_t c = a->cost_e2[t][k];
            x[n++] = c < 0 ? INFINITY : (double)c / 100.0;
            if (c < 0) ge->cost_none[t]++;
            else if (isnan(ge->cost_min[t]) || (double)c / 100.0 < ge->cost_min[t])
                ge->cost_min[t] = (double)c / 100.0;
        }
        ge->cost_median[t] = median_of(x, n);
    }
}

/* Level, spread and settleable months of one grade (design note 6). */
static void level_and_months(idx_grade_eval *ge, grade_acc *a, int32_t from, long days,
                             double *x)
{
    long m = 0;
    for (long k = 0; k < days; k++)
        if (a->value_e4[k] >= 0) x[m++] = (double)a->value_e4[k] / 1e4;
    ge->n_value_days = m;
    ge->mean_providers_live = mean_or_nan(a->sum_prov_live, m);
    ge->price_median = ge->price_min = ge->price_max = NAN;
    if (m > 0) {
        qsort(x, (size_t)m, sizeof *x, cmp_double);
        ge->price_median = gsl_stats_median_from_sorted_data(x, 1, (size_t)m);
        ge->price_min = x[0];
        ge->price_max = x[m - 1];
    }
    ge->spread_iqr = ge->spread_rel = NAN;
    if (a->n_iqr > 0) {
        qsort(a->iqr, (size_t)a->n_iqr, sizeof *a->iqr, cmp_double);
        ge->spread_iqr = gsl_stats_median_from_sorted_data(a->iqr, 1, (size_t)a->n_iqr) / 1e6;
        if (ge->price_median > 0) ge->spread_rel = ge->spread_iqr / ge->price_median;
    }
    ge->full_months = ge->settleable_months = 0;
    ge->fsp_changes = 0;
    ge->fsp_change_max = ge->fsp_change_mean = NAN;
    ge->fsp_change_max_month = INT32_MIN;
    int64_t prev_fsp = -1; /* the month before's FSP (e4), -1 none */
    double sum_change = 0;
    for (long k = 0; k < days;) {
        int y, mo, dd;
        gpi_civil_from_days(from + (int32_t)k, &y, &mo, &dd);
        long len = gpi_month_days(y, mo);
        if (dd != 1 || k + len > days) { /* a part of a month */
            k += len - dd + 1;
            prev_fsp = -1;
            continue;
        }
        long with = 0;
        int64_t sum = 0;
        for (long j = k; j < k + len; j++)
            if (a->value_e4[j] >= 0) {
                with++;
                sum += a->value_e4[j];
            }
        ge->full_months++;
        int64_t fsp = with >= IDX_SETTLE_MIN_DAYS ? gpi_div_round(sum, with) : -1;
        ge->settleable_months += fsp >= 0;
        if (fsp >= 0 && prev_fsp > 0) { /* design note 6 */
            double c = fabs((double)fsp / (double)prev_fsp - 1.0);
            sum_change += c;
            ge->fsp_changes++;
            if (isnan(ge->fsp_change_max) || c > ge->fsp_change_max) {
                ge->fsp_change_max = c;
                ge->fsp_change_max_month = from + (int32_t)k;
            }
        }
        prev_fsp = fsp;
        k += len;
    }
    ge->fsp_change_mean = mean_or_nan(sum_change, ge->fsp_changes);
}

/* Makes grade k (r, m common days, moved) ge's nearest when it correlates
 * more than the one so far (pairs come in file order: ties keep the
 * first). */
static void nearer(idx_grade_eval *ge, size_t k, double r, long m, long moved)
{
    if (ge->nearest && !(r > ge->nearest_r)) return;
    ge->nearest = k + 1;
    ge->nearest_r = r;
    ge->nearest_n = m;
    ge->nearest_moves = moved;
}

/* The measures of grade gi from its accumulator a; its log changes go to
 * c (days of them). */
static void finish_grade(idx_evaluation *ev, const idx_segmap *map, size_t gi, grade_acc *a,
                         double *c, double *x, double *y)
{
    long days = ev->days;
    {
        idx_grade_eval *ge = &ev->g[gi];
        level_and_months(ge, a, ev->from, days, x);
        for (int l = 0; l < GPI_LEVEL__N; l++)
            ge->share_level[l] = (double)ge->n_level[l] / (double)days;
        long nt = a->n_top[0], no = a->n_top[1];
        ge->mean_providers = a->sum_prov / (double)days;
        ge->top_share_trades = mean_or_nan(a->sum_top[0], nt);
        ge->top_share_offers = mean_or_nan(a->sum_top[1], no);
        ge->top_share = mean_or_nan(a->sum_top[0] + a->sum_top[1], nt + no);
        ge->hhi_trades = mean_or_nan(a->sum_hhi[0], nt);
        ge->hhi_offers = mean_or_nan(a->sum_hhi[1], no);
        ge->hhi = mean_or_nan(a->sum_hhi[0] + a->sum_hhi[1], nt + no);
        ge->loo_mean_abs = mean_or_nan(a->sum_loo_abs, ge->loo_days);
        ge->loo_mean_rel = mean_or_nan(a->sum_loo_rel, a->n_loo_rel);
        distributions(ge, a, days, x, y);
        idx_seg_finish(&a->seg, map, ge, x);
        ge->n_changes = changes(a->value_e4, days, c);
        long m = 0;
        for (long k = 0; k < days; k++)
            if (!isnan(c[k])) x[m++] = c[k];
        ge->vol_daily = m >= 2 ? gsl_stats_sd(x, 1, (size_t)m) : NAN;
        ge->vol_annual = ge->vol_daily * sqrt(365.0);
        if (ge->method == 2) {
            changes(a->xs_e4, days, c); /* c is rewritten below for the correlations */
            m = 0;
            for (long k = 0; k < days; k++)
                if (!isnan(c[k])) x[m++] = c[k];
            ge->xs_vol_annual = m >= 2 ? gsl_stats_sd(x, 1, (size_t)m) * sqrt(365.0) : NAN;
            ge->splice_mean_abs = mean_or_nan(a->sum_splice, ge->n_rebalance);
            ge->drift_mean = mean_or_nan(a->sum_drift, a->n_drift);
            changes(a->value_e4, days, c);
        }
    }
}

/* Correlations of every pair (design note 5), from chg. */
static void finish_pairs(idx_evaluation *ev, const double *chg, double *x, double *y)
{
    long days = ev->days;
    size_t n = ev->n;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a; b < n; b++) {
            const double *ca = chg + a * (size_t)days, *cb = chg + b * (size_t)days;
            long m = 0, moved = 0;
            for (long k = 0; k < days; k++)
                if (!isnan(ca[k]) && !isnan(cb[k])) {
                    moved += ca[k] != 0 && cb[k] != 0;
                    x[m] = ca[k];
                    y[m++] = cb[k];
                }
            double r = NAN;
            if (m >= IDX_CORR_MIN_DAYS && moved >= IDX_CORR_MIN_MOVES) {
                double sx = gsl_stats_sd(x, 1, (size_t)m), sy = gsl_stats_sd(y, 1, (size_t)m);
                if (sx > 0 && sy > 0) r = gsl_stats_correlation(x, 1, y, 1, (size_t)m);
            }
            if (ev->corr) {
                ev->corr[a * n + b] = ev->corr[b * n + a] = r;
                ev->corr_n[a * n + b] = ev->corr_n[b * n + a] = m;
                ev->corr_moves[a * n + b] = ev->corr_moves[b * n + a] = moved;
            }
            if (a == b || isnan(r)) continue;
            nearer(&ev->g[a], b, r, m, moved);
            nearer(&ev->g[b], a, r, m, moved);
        }
}

void idx_evaluation_free(idx_evaluation *e)
{
    if (!e) return;
    for (size_t i = 0; e->g && i < e->n + e->n_split; i++) free(e->g[i].fsp_months);
    free(e->g);
    free(e->corr);
    free(e->corr_n);
    free(e->corr_moves);
    free(e);
}

/* Grades [b0, b1) of gs over the days from - P .. to (design notes 1, 2):
 * their accumulators are filled, finished into ev->g[out0 + b0 ...] and
 * freed; their log changes go to chg's rows b0 ... (NULL: nowhere, the
 * segment splits have no correlations). */
static gpi_status eval_batch(store *st, const idx_grades *gs, size_t b0, size_t b1, int P,
                             int64_t as_of, const idx_segmap *map, idx_evaluation *ev,
                             size_t out0, double *chg, double *x, double *y, gpi_diag *d)
{
    const int32_t from = ev->from, to = ev->to;
    const long days = ev->days;
    idx_grades sub = *gs; /* the batch as a grade set of its own */
    sub.g = gs->g + b0;
    sub.n = b1 - b0;
    size_t n = sub.n;
    grade_acc *acc = calloc(n, sizeof *acc);
    idx_seq *seq = calloc(n, sizeof *seq);
    idx_chain *ch = calloc(n, sizeof *ch);
    int32_t *first = calloc(n, sizeof *first);
    double *row = chg ? NULL : malloc((size_t)days * sizeof *row);
    groups g = {0};
    batch_ctx bc = {map, {0}};
    idx_day dy;
    gpi_status rc = idx_day_init(&dy, &sub);
    if (rc != GPI_OK || !acc || !seq || !ch || !first || (!chg && !row)) goto oom;
    for (size_t gi = 0; gi < n; gi++) {
        acc[gi].value_e4 = malloc((size_t)days * sizeof *acc[gi].value_e4);
        acc[gi].xs_e4 = malloc((size_t)days * sizeof *acc[gi].xs_e4);
        acc[gi].iqr = malloc((size_t)days * sizeof *acc[gi].iqr);
        acc[gi].loo_e4 = malloc((size_t)days * sizeof *acc[gi].loo_e4);
        acc[gi].cost_e2[0] = malloc((size_t)days * sizeof *acc[gi].cost_e2[0]);
        acc[gi].cost_e2[1] = malloc((size_t)days * sizeof *acc[gi].cost_e2[1]);
        acc[gi].cost_day = calloc((size_t)days, 1);
        if (acc[gi].loo_e4)
            for (long k = 0; k < days; k++) acc[gi].loo_e4[k] = -1;
        if (!acc[gi].value_e4 || !acc[gi].xs_e4 || !acc[gi].iqr || !acc[gi].loo_e4 ||
            !acc[gi].cost_e2[0] || !acc[gi].cost_e2[1] || !acc[gi].cost_day ||
            idx_segacc_init(&acc[gi].seg, days) != GPI_OK ||
            idx_seq_init(&seq[gi], &sub.g[gi]) != GPI_OK ||
            idx_chain_init(&ch[gi], &sub.g[gi]) != GPI_OK)
            goto oom;
        /* v2: the chain's days before the range (build.c's replay) */
        first[gi] = sub.g[gi].method == 2 ? idx_v2_first_day(&sub.g[gi], from) : INT32_MAX;
    }
    for (int64_t day = (int64_t)from - P; day <= to && rc == GPI_OK; day++) {
        rc = idx_day_collect(&dy, st, (int32_t)day, as_of, d);
        if (rc == GPI_OK && groups_reserve(&g, dy.n_names + 1)) goto oom;
        for (size_t gi = 0; gi < n && rc == GPI_OK; gi++) {
            idx_chain *c = sub.g[gi].method == 2 ? &ch[gi] : NULL;
            if (sub.g[gi].method == 3) { /* its state from the first day read */
                rc = day < from ? idx_v3_replay_day(&dy, gi, &ch[gi], (int32_t)day, d)
                                : eval_day_v3(&dy, gi, &ch[gi], (int32_t)day,
                                              (long)(day - from), day == to, &g, &bc,
                                              &ev->g[out0 + b0 + gi], &acc[gi], d);
                continue;
            }
            if (day < from) { /* the days the range's first days depend on */
                idx_fix f;
                idx_eval e;
                idx_v2eval v;
                rc = idx_day_fix(&dy, gi, &f, d);
                if (rc == GPI_OK) idx_seq_next(&seq[gi], (int32_t)day, f.trades_raw_q,
                                               f.offers_raw_q, &e);
                if (rc == GPI_OK && c && day >= first[gi]) {
                    rc = idx_snap_build(&c->cur, &dy, gi, (int32_t)day, d);
                    if (rc == GPI_OK) rc = idx_chain_step(c, (int32_t)day, &e, NULL, &v, d);
                }
            } else {
                rc = eval_day(&dy, gi, &seq[gi], c, (int32_t)day, (long)(day - from), &g, &bc,
                              &ev->g[out0 + b0 + gi], &acc[gi], d);
            }
        }
    }
    for (size_t gi = 0; gi < n && rc == GPI_OK; gi++)
        finish_grade(ev, map, out0 + b0 + gi, &acc[gi],
                     chg ? chg + (b0 + gi) * (size_t)days : row, x, y);
    goto done;
oom:
    rc = gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
done:
    for (size_t gi = 0; gi < n; gi++) {
        if (seq) idx_seq_free(&seq[gi]);
        if (ch) idx_chain_free(&ch[gi]);
        if (acc) {
            free(acc[gi].value_e4);
            free(acc[gi].xs_e4);
            free(acc[gi].iqr);
            free(acc[gi].loo_e4);
            free(acc[gi].cost_e2[0]);
            free(acc[gi].cost_e2[1]);
            free(acc[gi].cost_day);
            idx_segacc_free(&acc[gi].seg);
        }
    }
    free(seq);
    free(ch);
    free(first);
    free(acc);
    free(row);
    free(g.w);
    free(g.seen);
    free(g.ids);
    idx_segcache_free(&bc.cache);
    idx_day_free(&dy);
    return rc;
}

/* The figures a grade's evaluation starts from (NAN, none). */
static void eval_start(idx_grade_eval *ge, const idx_grade *g)
{
    snprintf(ge->id, sizeof ge->id, "%s", g->id);
    ge->loo_max_abs = ge->loo_max_rel = NAN;
    ge->loo_max_day = INT32_MIN;
    ge->loo_max_from_e4 = ge->loo_max_to_e4 = -1;
    ge->method = g->method;
    ge->xs_vol_annual = ge->splice_mean_abs = ge->splice_max_abs = NAN;
    ge->drift_mean = ge->drift_max = NAN;
}

/* Design note 7: the segment-only grades of the bimodal grades of ev,
 * evaluated after them (ev->g grows by ev->n_split), EVAL_BATCH at a time
 * (a grade's definition is ~23 KB: a sweep's splits are not all made at
 * once). */
static gpi_status eval_splits(store *st, const idx_grades *gs, int P, int64_t as_of,
                              const idx_segmap *map, idx_evaluation *ev, double *x, double *y,
                              gpi_diag *d)
{
    size_t ns = 0; /* a segment that never has min_providers cannot fix a value */
    for (size_t i = 0; i < ev->n; i++)
        for (int s = 0; ev->g[i].bimodal && s < ev->g[i].n_segments; s++)
            ns += ev->g[i].seg[s].min_days > 0;
    if (ns == 0) return GPI_OK;
    idx_grades sub = *gs;
    sub.g = calloc(ns < EVAL_BATCH ? ns : EVAL_BATCH, sizeof *sub.g);
    idx_grade_eval *g2 = realloc(ev->g, (ev->n + ns) * sizeof *ev->g);
    if (g2) ev->g = g2;
    if (!sub.g || !g2) {
        free(sub.g);
        return gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
    }
    memset(ev->g + ev->n, 0, ns * sizeof *ev->g);
    ev->n_split = ns;
    gpi_status rc = GPI_OK;
    size_t k = 0; /* splits made so far; sub.n of them not evaluated yet */
    sub.n = 0;
    for (size_t i = 0; i < ev->n && rc == GPI_OK; i++) {
        idx_grade_eval *pe = &ev->g[i];
        for (int s = 0; pe->bimodal && s < pe->n_segments && rc == GPI_OK; s++) {
            if (pe->seg[s].min_days == 0) continue;
            idx_grade *g = &sub.g[sub.n++];
            *g = gs->g[i];
            g->canon = NULL; /* the parent's; nothing here reads it */
            g->n_segment = 1;
            snprintf(g->segment[0], sizeof g->segment[0], "%s", pe->seg[s].segment);
            idx_seg_split_id(gs->g[i].id, pe->seg[s].segment, g->id);
            idx_grade_eval *ge = &ev->g[ev->n + k];
            eval_start(ge, g);
            ge->split_of = i + 1;
            snprintf(ge->split_segment, sizeof ge->split_segment, "%s", pe->seg[s].segment);
            pe->seg[s].split = ev->n + k + 1;
            k++;
            if (sub.n == EVAL_BATCH || k == ns) {
                rc = eval_batch(st, &sub, 0, sub.n, P, as_of, map, ev, ev->n + k - sub.n, NULL,
                                x, y, d);
                sub.n = 0;
            }
        }
    }
    free(sub.g);
    return rc;
}

gpi_status idx_evaluate(store *st, const idx_grades *gs, int32_t from, int32_t to,
                        int64_t as_of, int splits, idx_evaluation **out, gpi_diag *d)
{
    if (out) *out = NULL;
    if (!st || !gs || !out)
        return gpi_diag_set(d, GPI_EUSAGE, "grades evaluate: no store or grades");
    if (gs->n == 0) return gpi_diag_set(d, GPI_EINPUT, "grades evaluate: no grades to evaluate");
    if (from > to) return gpi_diag_set(d, GPI_EUSAGE, "grades evaluate: --from is after --to");
    if ((int64_t)to - from + 1 > MAX_EVAL_DAYS)
        return gpi_diag_set(d, GPI_EUSAGE, "grades evaluate: range of more than %d days",
                            MAX_EVAL_DAYS);
    size_t n = gs->n;
    long days = (long)(to - from + 1);
    idx_evaluation *ev = calloc(1, sizeof *ev);
    double *chg = malloc(n * (size_t)days * sizeof *chg);
    double *x = malloc((size_t)days * sizeof *x), *y = malloc((size_t)days * sizeof *y);
    idx_segmap map;
    memset(&map, 0, sizeof map);
    gpi_status rc = GPI_OK;
    int matrix = n <= IDX_CORR_MATRIX_MAX; /* else only the nearest grades */
    if (ev) {
        ev->g = calloc(n, sizeof *ev->g);
        ev->corr = matrix ? malloc(n * n * sizeof *ev->corr) : NULL;
        ev->corr_n = matrix ? malloc(n * n * sizeof *ev->corr_n) : NULL;
        ev->corr_moves = matrix ? malloc(n * n * sizeof *ev->corr_moves) : NULL;
    }
    if (!ev || !ev->g || !chg || !x || !y ||
        (matrix && (!ev->corr || !ev->corr_n || !ev->corr_moves))) {
        rc = gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
        goto done;
    }
    ev->from = from;
    ev->to = to;
    ev->days = days;
    ev->n = n;
    /* P: the days before `from` read, the most any grade needs (the same
     * for every batch, so a grade's figures do not depend on its batch) */
    int P = 0;
    int32_t first = INT32_MIN; /* v3: its state depends on every day observed */
    for (size_t gi = 0; gi < n && rc == GPI_OK; gi++)
        if (gs->g[gi].method == 3 && first == INT32_MIN) rc = idx_v3_first_day(st, &first, d);
    if (rc != GPI_OK) goto done;
    for (size_t gi = 0; gi < n; gi++) {
        const idx_params *p = &gs->g[gi].p;
        int need = p->adj_lookback_days + p->max_carry_days + 1;
        if (gs->g[gi].method == 2) need += from - idx_v2_first_day(&gs->g[gi], from);
        if (gs->g[gi].method == 3 && first != INT32_MIN && first < from && from - first > need)
            need = from - first;
        if (need > P) P = need;
        eval_start(&ev->g[gi], &gs->g[gi]);
    }
    rc = idx_segmap_load(st, &map, d);
    for (size_t b0 = 0; b0 < n && rc == GPI_OK; b0 += EVAL_BATCH)
        rc = eval_batch(st, gs, b0, b0 + EVAL_BATCH < n ? b0 + EVAL_BATCH : n, P, as_of, &map, ev,
                        0, chg, x, y, d);
    if (rc == GPI_OK) finish_pairs(ev, chg, x, y);
    if (rc == GPI_OK && splits) rc = eval_splits(st, gs, P, as_of, &map, ev, x, y, d);
done:
    idx_segmap_free(&map);
    free(chg);
    free(x);
    free(y);
    if (rc == GPI_OK)
        *out = ev;
    else
        idx_evaluation_free(ev);
    return rc;
}
