/* index/build.c -- `index build`: fixes -> daily rows, incrementally.
 *
 * NOTES ON THE DESIGN
 * (1) A day's raw values (trades, offers) depend only on that day's
 *     observations.  Everything else of a row -- its level, the
 *     adjustment, the carried value -- is a function of raw values of
 *     earlier days: the adjustment of the last adj_lookback_days, the carry
 *     of at most max_carry_days.  So a row depends on the raw values of
 *     the P = adj_lookback_days + max_carry_days + 1 days before it.
 * (2) Building [from, to] therefore first replays the P days before
 *     `from`: their raw values come from stored rows (built with the same
 *     grade hash, and with a cut-off that saw the same observations of the
 *     day as this build's: no batch ingested between the two cut-offs holds
 *     one) or else from a scan of the day at this build's cut-off (not
 *     stored).  The rows of [from, to] are then exactly what building
 *     everything from the first observation with this cut-off would give
 *     (SPEC §6.0), even when late data reached a day before `from` that
 *     was not rebuilt.
 * (3) After `to`, the already built days are re-evaluated from their
 *     stored raw values (contiguous days only; a gap stops it) until P
 *     days past `to` and then until a day comes out unchanged.  A row
 *     stored at another cut-off whose day has observations ingested
 *     between the two cut-offs is fixed afresh at this build's cut-off
 *     (its raw values would otherwise mix two cut-offs); a row that
 *     changes takes this build's cut-off (its own observations are the
 *     same at both, what it depends on is at this one); and an offers
 *     day within P days is given its adjustment days again even when the
 *     adjustment is unchanged (the qualifying days may have moved).
 * (4) A built day (rows, exclusions, adjustment days of every grade) is
 *     written whole inside one transaction, so an interrupted build
 *     leaves whole days.  A transaction takes the days that follow until
 *     it has been open BUILD_TX_MS, until `to`, or until another writer
 *     waits for the lock (store_writers_waiting); then the build commits
 *     and lets the waiting writers in first (store_writers_let_in), so an
 *     ingest started during a build waits for one day at most, as when
 *     each day was its own transaction (tests/test_e2e_kill.c).  Where
 *     waiting writers cannot be seen (a lock file this process cannot
 *     write), each day is its own transaction.  A day's rows land in as
 *     many places as there are grades, a b-tree page or two each in every
 *     table, so a transaction per day wrote each of those pages to the WAL
 *     again every day: on the bench year ~28,000 WAL frames and 80 fsyncs
 *     (0.9 GB written with the checkpoints) for ~1,000 pages of rows.
 * (5) Reading a day (the SQLite scan and the grade matching) is about two
 *     thirds of a build, fixing and writing it the rest.  So while day d
 *     is fixed and written on the caller's handle, days d+1 and d+2 are
 *     read, each in its own thread on its own handle (WAL: the reads see
 *     every committed batch and do not wait for the writes), into their
 *     own idx_day: three buffers in turn, two reader handles in turn.  A
 *     reader's handle and buffer are reused only after its thread is
 *     joined.  The rows are the same as with one thread: only the scans
 *     move.  Memory is three days of observations.
 * (6) Cut-off: a row built at cut-off T holds exactly the batches with
 *     ingested_at <= T, and a batch is stamped with the second of its
 *     commit.  An ingest that commits in second T after the build began
 *     reading would be inside T yet unseen (the row could not be
 *     recomputed from T).  So the build first reserves T
 *     (store_cutoff_reserve, under the writers' lock): a batch that
 *     commits after that is stamped T + 1 or later, one that committed
 *     before is in the build's reads.  A build at its own time takes for T
 *     the time, or the stamp of the last committed batch when that is
 *     later (a batch committed in the second of an earlier build's
 *     reservation is stamped the second after, and the next build must
 *     see it).  (Builds used to wait for second T
 *     to end, up to 1.25 s of a daily job.)  As a guard against a writer
 *     that does not honour the reservation, the build still checks that
 *     no batch above the last one committed before it read has
 *     ingested_at <= T, and builds again after waiting out second T if one
 *     has.
 * (7) Methodology v2 (index/chain.c).  A v2 row depends on more than the
 *     P days of note 1: on the chain since its last reset.  A reset -- an
 *     anchor or a suspension -- happens, whatever the state before, within
 *     the rebalance period holding D - 1 - max_carry_days (the first day of
 *     a period with a fixed cross-section is an anchor; with none, the
 *     chain is suspended after max_carry_days), and an anchor's value
 *     depends only on the anchor_days days up to it.  So the replay of
 *     note 2 starts for a v2 grade at idx_v2_first_day (that period's
 *     start less anchor_days - 1 or trade_carry_days days, the larger:
 *     an anchor's window, and the trading providers present on a reset
 *     day for its panel_change) and reads every one of those days
 *     (the chain needs their constituents, not only their raw values).
 *     After `to`, v2 grades are re-evaluated by reading each later built
 *     day again (one read for all of them) until, for every grade, a day
 *     more than P days past `to` comes out unchanged after the chain's
 *     last reset fell after `to`; a row whose day got late data, or that
 *     changes, is rewritten at this build's cut-off.
 * (8) Chain states.  The replay of note 7 reads every day since the
 *     period before `from` began: a month of days to build one (1.0 s of
 *     a 31,000-observation daily job, and as much again to publish it).
 *     So a build stores each v2 grade's chain state after `to`
 *     (index/chain_state.c, filed by index/v2_store.c; the last
 *     IDX_CHAIN_STATES_KEPT days of each grade are kept), and a replay
 *     for `from` starts from the state after from - 1 instead when one is
 *     stored for the grade's definition (its hash) and no batch between
 *     its cut-off and this one stored rows of a day from
 *     idx_v2_first_day(from) to from - 1 -- the days that state was built
 *     from.  The rows are the same either way (note 7: whatever the chain
 *     before that first day, it has reset by the days that matter);
 *     tests/test_e2e_chain_state.c builds and publishes both ways.  The
 *     grade's sequence (note 1) is replayed as for v1, from stored rows.
 * (9) Methodology v3 (index/v3.h).  A v3 row depends on the grade's whole
 *     history (its panel's memberships, the price index's chain, the
 *     panel's raw values behind the adjustment), so its state rides in the
 *     grade's chain slot (idx_chain.v3) and is resumed from the stored
 *     state after from - 1 when no batch since that state's cut-off
 *     reached any day up to from - 1 (index/v3_store.c), else replayed
 *     from the first day observed, reading every day.  After `to` every
 *     later built day of the grade is re-evaluated (nothing bounds what a
 *     change can reach), and the state after the last one is stored.
 * (10) Every row carries its roles (index/roles.c, row.c note 5): what its
 *     fix made of the day, which publication lists the day's observations
 *     by.  A re-evaluated row whose roles changed is written like one
 *     whose value changed; the rows of a range are read without their
 *     roles (store_index_rows), and a row read so, or stored before store
 *     version 17, is compared without them (row_same): a v1 row's roles
 *     follow from its day's observations, which a stale day re-fixes.
 */
#include "index/feed.h"
#include "index/row.h"
#include "index/snap.h"
#include "index/stale.h"
#include "core/vec.h"
#include "store/batches.h"
#include "store/grades.h"
#include "store/index_values.h"
#include "store/obs.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Note 4: how long a build's transaction takes more days. */
#define BUILD_TX_MS 250

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The sequence whose adjustment days a row's evaluation used: v3's own
 * (over the panel's raw values), else the grade's. */
static const idx_seq *seq_of(const idx_seq *s, const idx_chain *c)
{
    return c && c->v3 ? idx_v3_seq(c->v3) : s;
}

static gpi_status put_adj(store *st, const idx_seq *s, int32_t day, const idx_eval *e,
                          gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    if (e->level != GPI_LEVEL_OFFERS) return rc;
    for (size_t k = 0; k < e->n_adj && rc == GPI_OK; k++)
        rc = store_index_put_adj_day(st, s->g->id, day, s->adj_day[k], s->adj_t[k], s->adj_o[k], d);
    return rc;
}

static gpi_status put_exclusions(store *st, const idx_day *dy, size_t gi, int32_t day,
                                 gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    for (int kind = 0; kind < 2; kind++) {
        const idx_buf *b = kind == GPI_OFFER ? &dy->offers[gi] : &dy->trades[gi];
        for (size_t i = 0; i < b->n && rc == GPI_OK; i++) {
            const idx_item *it = &b->v[i];
            if (it->reason == IDX_OK) continue;
            rc = store_index_put_exclusion(st, dy->gs->g[gi].id, day, kind, it->key_hash,
                                           it->observed_at, idx_day_group(dy, it->group),
                                           it->price_micro, idx_reason_name(it->reason), d);
        }
    }
    return rc;
}

/* Fixes grade gi on the day read into dy, advances its sequence s and
 * writes the row at cut-off as_of with its exclusions and adjustment days
 * (replacing what the day had). */
static gpi_status fix_and_write(store *st, idx_day *dy, size_t gi, idx_seq *s, idx_chain *c,
                                int32_t day, int64_t as_of, store_index_row *r, gpi_diag *d)
{
    idx_eval e;
    gpi_status rc = idx_row_fix(dy, gi, s, c, day, as_of, r, &e, d);
    if (rc == GPI_OK) rc = store_index_put_row(st, r, d);
    if (rc == GPI_OK) rc = store_index_clear_detail(st, r->grade, day, 3, d);
    if (rc == GPI_OK) rc = put_exclusions(st, dy, gi, day, d);
    if (rc == GPI_OK) rc = put_adj(st, seq_of(s, c), day, &e, d);
    return rc;
}

/* ---- stored rows of a range ------------------------------------------------ */

typedef struct rowvec {
    store_index_row *v;
    size_t n, cap;
    const char *hash;
    int32_t next_day;    /* contiguous mode: the day expected next, else INT32_MIN */
    int oom;
} rowvec;

static int collect_row(const store_index_row *r, void *ud)
{
    rowvec *rv = ud;
    if (rv->next_day != INT32_MIN) {
        if (r->day != rv->next_day || strcmp(r->grade_hash, rv->hash) != 0) return 1;
        rv->next_day++;
    } else if (strcmp(r->grade_hash, rv->hash) != 0) {
        return 0;
    }
    if (GPI_VEC_RESERVE(rv->v, rv->cap, rv->n + 1)) {
        rv->oom = 1;
        return 1;
    }
    rv->v[rv->n++] = *r;
    /* the callback's only */
    rv->v[rv->n - 1].carried = rv->v[rv->n - 1].ref_volumes = NULL;
    rv->v[rv->n - 1].anchor_window = NULL;
    rv->v[rv->n - 1].v3_json = rv->v[rv->n - 1].v3_detail = rv->v[rv->n - 1].roles = NULL;
    return 0;
}

static gpi_status load_rows(store *st, const idx_grade *g, int32_t from, int32_t to,
                            int contiguous, rowvec *rv, gpi_diag *d)
{
    rv->n = 0;
    rv->hash = g->hash;
    rv->next_day = contiguous ? from : INT32_MIN;
    rv->oom = 0;
    gpi_status rc = store_index_rows(st, g->id, from, to, collect_row, rv, d);
    if (rc == GPI_OK && rv->oom) rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    return rc;
}

/* ---- the build ------------------------------------------------------------- */

/* Buffers of days: the one fixed and the two read ahead. */
enum { NPRE = 3 };

/* The buffer of day x. */
static size_t slot_of(int32_t x)
{
    return (size_t)(((x % NPRE) + NPRE) % NPRE);
}

/* The scan of a later day, in another thread on its own handle. */
typedef struct prefetch {
    idx_day *dy;
    store *st;
    int32_t day;
    int64_t as_of;
    gpi_status rc;
    gpi_diag d;
} prefetch;

static void *prefetch_run(void *arg)
{
    prefetch *pf = arg;
    pf->rc = idx_day_collect(pf->dy, pf->st, pf->day, pf->as_of, &pf->d);
    return NULL;
}

/* Starts reading day into dy on handle rd in a new thread (returns 1); if
 * no thread starts, reads it here on st instead (returns 0, *rc set). */
static int start_read(prefetch *pf, pthread_t *th, idx_day *dy, store *rd, store *st,
                      int32_t day, int64_t as_of, gpi_status *rc, gpi_diag *d)
{
    *pf = (prefetch){dy, rd, day, as_of, GPI_OK, {{0}}};
    if (pthread_create(th, NULL, prefetch_run, pf) == 0) return 1;
    *rc = idx_day_collect(dy, st, day, as_of, d);
    return 0;
}

static gpi_status register_grades(store *st, const idx_grades *gs, int32_t from, int32_t to,
                                  int64_t as_of, gpi_diag *d)
{
    int64_t now = (int64_t)time(NULL);
    gpi_status rc = store_begin(st, d);
    if (rc != GPI_OK) return rc;
    size_t cap = gs->n * 66 + 1;
    char *hashes = calloc(1, cap);
    if (!hashes) rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        const idx_grade *g = &gs->g[i];
        int conflict;
        char stored[65];
        rc = store_grade_register(st, g->id, g->version, g->hash, g->canon, now, &conflict,
                                  stored, d);
        if (rc == GPI_OK && conflict)
            rc = gpi_diag_set(d, GPI_EINPUT,
                              "grade %s version %d: definition differs from the stored one "
                              "(hash %.12s, now %.12s); give the changed grade a new version",
                              g->id, g->version, stored, g->hash);
        if (rc == GPI_OK) {
            strcat(hashes, i ? "," : "");
            strcat(hashes, g->hash);
        }
    }
    if (rc == GPI_OK) rc = store_index_log_build(st, now, from, to, as_of, hashes, d);
    free(hashes);
    if (rc == GPI_OK) rc = store_commit(st, d);
    if (rc != GPI_OK) store_rollback(st);
    return rc;
}

int32_t idx_depends_from(const idx_grade *g, int32_t day)
{
    int32_t v1 = day - g->p.adj_lookback_days - g->p.max_carry_days;
    /* max_unchanged_days M (fresh.c note 1): an offer's price age is
     * looked up at most M + IDX_AGE_SLACK days back */
    if (g->p.max_unchanged_days > 0 && day - g->p.max_unchanged_days - IDX_AGE_SLACK < v1)
        v1 = day - g->p.max_unchanged_days - IDX_AGE_SLACK;
    if (g->method == 1) return v1;
    if (g->method == 3) return INT32_MIN; /* v3_store.c note 1 */
    int32_t v2 = idx_v2_first_day(g, day);
    return v2 < v1 ? v2 : v1;
}

/* A refused chain state in the build's notes (note 8): v2's chain, or
 * v3's panel state, replayed from day `replay`. */
static void note_refused(idx_build_stats *stats, const idx_grade *g, int32_t from,
                         int32_t replay, const char *why)
{
    if (!stats || !why[0]) return;
    if (stats->n_notes < IDX_BUILD_NOTES) {
        char a[11], b[11];
        gpi_date_format(from - 1, a);
        gpi_date_format(replay, b);
        snprintf(stats->notes[stats->n_notes], sizeof stats->notes[0],
                 "grade %s: the stored %s state after %s is refused (%s); the %s is "
                 "replayed from %s",
                 g->id, g->method == 3 ? "panel" : "chain", a, why,
                 g->method == 3 ? "panel" : "chain", b);
    }
    stats->n_notes++;
}

/* Replays the days before from into the states (design notes 2, 7, 8). */

static gpi_status replay_prefix(store *st, idx_day *dy, idx_seq *gst, idx_chain *gch,
                                int32_t from, int P0, int64_t as_of, rowvec *rv,
                                idx_build_stats *stats, gpi_diag *d)
{
    size_t ng = dy->ng;
    gpi_status rc = GPI_OK;
    /* v2 grades: the chain is replayed from idx_v2_first_day (design note 7) */
    int32_t *slow_from = malloc((ng ? ng : 1) * sizeof *slow_from);
    if (!slow_from) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    int P = P0;
    for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
        const idx_grade *g = &dy->gs->g[gi];
        slow_from[gi] = INT32_MAX;
        if (g->method == 3) { /* design note 9 */
            int resumed = 0;
            int32_t first = INT32_MIN;
            char refused[256];
            rc = idx_v3_resume(st, &gch[gi], from, as_of, &resumed, refused, sizeof refused, d);
            if (rc == GPI_OK && !resumed) rc = idx_v3_first_day(st, &first, d);
            if (rc == GPI_OK && !resumed)
                note_refused(stats, g, from, first < from ? first : from, refused);
            if (rc != GPI_OK || resumed || first == INT32_MIN || first >= from) continue;
            slow_from[gi] = first;
            if (from - first > P) P = from - first;
            continue;
        }
        if (g->method != 2) continue;
        int resumed = 0;
        char refused[256];
        rc = idx_chain_resume(st, &gch[gi], from, as_of, &resumed, refused, sizeof refused, d);
        if (rc == GPI_OK) note_refused(stats, g, from, idx_v2_first_day(g, from), refused);
        if (rc != GPI_OK || resumed) continue;
        slow_from[gi] = idx_v2_first_day(g, from);
        int p = from - slow_from[gi] + g->p.adj_lookback_days + g->p.max_carry_days + 1;
        if (p > P) P = p;
    }
    int64_t *t = malloc(ng * (size_t)P * sizeof *t);
    int64_t *o = malloc(ng * (size_t)P * sizeof *o);
    char *have = calloc(ng * (size_t)P, 1);
    /* per day: the last stored cut-off checked and whether it saw the same
     * observations of the day as as_of (rows of one build share it) */
    int64_t *memo_cut = malloc((size_t)P * sizeof *memo_cut);
    char *memo_same = calloc((size_t)P, 1), *memo_set = calloc((size_t)P, 1);
    if (rc == GPI_OK && !(t && o && have && memo_cut && memo_same && memo_set))
        rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
        if (dy->gs->g[gi].method == 3) continue; /* its own state (design note 9) */
        rc = load_rows(st, &dy->gs->g[gi], from - P, from - 1, 0, rv, d);
        for (size_t k = 0; rc == GPI_OK && k < rv->n; k++) {
            size_t dk = (size_t)(rv->v[k].day - (from - P));
            size_t j = gi * (size_t)P + dk;
            if (!memo_set[dk] || memo_cut[dk] != rv->v[k].as_of) {
                int late = 0;
                rc = store_obs_ingested_between(st, rv->v[k].day, rv->v[k].as_of, as_of, &late, d);
                memo_set[dk] = 1;
                memo_cut[dk] = rv->v[k].as_of;
                memo_same[dk] = !late;
            }
            if (rc != GPI_OK || !memo_same[dk]) continue; /* rescanned below */
            t[j] = rv->v[k].trades_raw_q;
            o[j] = rv->v[k].offers_raw_q;
            have[j] = 1;
        }
    }
    for (int k = 0; k < P && rc == GPI_OK; k++) {
        int32_t day = from - P + k;
        int scanned = 0;
        for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
            size_t j = gi * (size_t)P + (size_t)k;
            int chain = day >= slow_from[gi];
            if (dy->gs->g[gi].method == 3) {
                if (!chain) continue;
                if (!scanned) rc = idx_day_collect(dy, st, day, as_of, d);
                scanned = 1;
                if (rc == GPI_OK) rc = idx_v3_replay_day(dy, gi, &gch[gi], day, d);
                continue;
            }
            if (!have[j] || chain) {
                if (!scanned) rc = idx_day_collect(dy, st, day, as_of, d);
                scanned = 1;
                idx_fix f;
                if (rc == GPI_OK) rc = idx_day_fix(dy, gi, &f, d);
                t[j] = f.trades_raw_q;
                o[j] = f.offers_raw_q;
            }
            idx_eval e;
            if (rc == GPI_OK) idx_seq_next(&gst[gi], day, t[j], o[j], &e);
            if (rc == GPI_OK && chain) {
                idx_v2eval v;
                rc = idx_snap_build(&gch[gi].cur, dy, gi, day, d);
                if (rc == GPI_OK) rc = idx_chain_step(&gch[gi], day, &e, NULL, &v, d);
            }
        }
    }
    free(t);
    free(o);
    free(have);
    free(memo_cut);
    free(memo_same);
    free(memo_set);
    free(slow_from);
    return rc;
}

gpi_status idx_replay(store *st, idx_day *dy, idx_seq *gst, idx_chain *gch, int32_t from,
                      int64_t as_of, gpi_diag *d)
{
    int P = 0;
    for (size_t i = 0; i < dy->gs->n; i++) {
        int p = dy->gs->g[i].p.adj_lookback_days + dy->gs->g[i].p.max_carry_days + 1;
        if (p > P) P = p;
    }
    rowvec rv = {0};
    gpi_status rc = replay_prefix(st, dy, gst, gch, from, P, as_of, &rv, NULL, d);
    free(rv.v);
    return rc;
}

/* 1 when two rows of one grade-day say the same (all but cut-off and
 * vintage). */
static int row_same(const store_index_row *a, const store_index_row *b)
{
    store_index_row x = *a, y = *b;
    x.as_of = y.as_of = 0;
    x.vintage = y.vintage = 0;
    return x.level == y.level && x.value_e4 == y.value_e4 && x.n_obs == y.n_obs &&
           x.n_excluded == y.n_excluded && x.n_providers == y.n_providers &&
           x.trade_volume_e2 == y.trade_volume_e2 && x.adjustment_e6 == y.adjustment_e6 &&
           x.p10_micro == y.p10_micro && x.p25_micro == y.p25_micro &&
           x.p50_micro == y.p50_micro && x.p75_micro == y.p75_micro &&
           x.p90_micro == y.p90_micro && x.min_micro == y.min_micro &&
           x.max_micro == y.max_micro && x.top_share_e6 == y.top_share_e6 &&
           x.trades_raw_q == y.trades_raw_q && x.offers_raw_q == y.offers_raw_q &&
           x.carry_days == y.carry_days && strcmp(x.note, y.note) == 0 &&
           x.xs_value_e4 == y.xs_value_e4 && x.xs_level == y.xs_level &&
           x.chain_nano == y.chain_nano && x.relative_e12 == y.relative_e12 &&
           x.n_matched == y.n_matched && x.n_matched_providers == y.n_matched_providers &&
           x.panel_change == y.panel_change && x.event == y.event &&
           x.splice_e12 == y.splice_e12 && x.ref_day == y.ref_day &&
           x.panel_day == y.panel_day && x.matched_now_q == y.matched_now_q &&
           x.matched_ref_q == y.matched_ref_q &&
           strcmp(x.carried ? x.carried : "", y.carried ? y.carried : "") == 0 &&
           memcmp(x.obs_spread, y.obs_spread, sizeof x.obs_spread) == 0 &&
           x.loo_move_e4 == y.loo_move_e4 && strcmp(x.loo_provider, y.loo_provider) == 0 &&
           x.loo_voids == y.loo_voids && x.cost_e2[0] == y.cost_e2[0] &&
           x.cost_e2[1] == y.cost_e2[1] && x.cost_offers[0] == y.cost_offers[0] &&
           x.cost_offers[1] == y.cost_offers[1] && x.chain_prev_nano == y.chain_prev_nano &&
           x.carry_prev == y.carry_prev && x.xs_carry == y.xs_carry &&
           strcmp(x.ref_volumes ? x.ref_volumes : "", y.ref_volumes ? y.ref_volumes : "") == 0 &&
           strcmp(x.anchor_window ? x.anchor_window : "",
                  y.anchor_window ? y.anchor_window : "") == 0 &&
           x.price_index_e6 == y.price_index_e6 && x.log_index_e12 == y.log_index_e12 &&
           x.index_change_e12 == y.index_change_e12 && x.gap_e6 == y.gap_e6 &&
           x.gap_month_e6 == y.gap_month_e6 && x.panel_size == y.panel_size &&
           x.n_imputed == y.n_imputed && x.n_candidates == y.n_candidates &&
           x.index_providers == y.index_providers &&
           strcmp(x.v3_json ? x.v3_json : "", y.v3_json ? y.v3_json : "") == 0 &&
           strcmp(x.v3_detail ? x.v3_detail : "", y.v3_detail ? y.v3_detail : "") == 0 &&
           /* y's roles unread (a range's row) or stored before version 17 */
           (!y.roles || strcmp(x.roles ? x.roles : "", y.roles) == 0);
}

/* Re-evaluates built days after `to` of grade gi (design note 3); dy is a
 * spare day buffer.  A day is fixed afresh (read again) when it is within
 * P days of `to`, when its level, value, adjustment or carry would change,
 * or when the day before it changed: its leave-one-out moves and
 * manipulation costs depend on the history too (a provider's absence may
 * carry the day before's value or use another adjustment).  It is written
 * only when it differs. */
static gpi_status reevaluate_after(store *st, idx_day *dy, size_t gi, idx_seq *s, int32_t to,
                                   int P, int64_t as_of, rowvec *rv, long *n_changed,
                                   gpi_diag *d)
{
    gpi_status rc = load_rows(st, s->g, to + 1, INT32_MAX - 1, 1, rv, d);
    int prev_changed = 0;
    for (size_t k = 0; k < rv->n && rc == GPI_OK; k++) {
        store_index_row *r = &rv->v[k];
        idx_eval e;
        int stale = 0;
        if (r->as_of != as_of) rc = store_obs_ingested_between(st, r->day, r->as_of, as_of, &stale, d);
        if (rc != GPI_OK) break;
        if (!stale) { /* stale: the day's observations differ at this cut-off */
            idx_seq_peek(s, r->day, r->trades_raw_q, r->offers_raw_q, &e);
            int64_t adj = e.level == GPI_LEVEL_OFFERS ? e.adj_e6 : -1;
            int changed = e.level != r->level || e.value_e4 != r->value_e4 ||
                          adj != r->adjustment_e6 || e.carry != r->carry_days;
            if (!changed && !prev_changed && r->day > to + P) break;
        }
        store_index_row nr;
        rc = idx_day_collect(dy, st, r->day, as_of, d);
        if (rc == GPI_OK) rc = idx_row_fix(dy, gi, s, NULL, r->day, as_of, &nr, &e, d);
        if (rc != GPI_OK) break;
        int differs = stale || !row_same(&nr, r);
        if (differs) {
            /* its own observations are the same at both cut-offs (or it
             * was read at this one), and what it depends on was fixed at
             * this one */
            rc = store_index_put_row(st, &nr, d);
            if (rc == GPI_OK) rc = store_index_clear_detail(st, nr.grade, nr.day, 3, d);
            if (rc == GPI_OK) rc = put_exclusions(st, dy, gi, nr.day, d);
            (*n_changed)++;
        } else { /* the same adjustment, but maybe from other qualifying days */
            rc = store_index_clear_detail(st, nr.grade, nr.day, 2, d);
        }
        if (rc == GPI_OK) rc = put_adj(st, s, nr.day, &e, d);
        prev_changed = differs;
    }
    return rc;
}

typedef struct one_row {
    store_index_row r;
    char *text[6];      /* copies of r.carried, r.ref_volumes, r.anchor_window, r.v3_json,
                           r.v3_detail, r.roles */
    int found, oom;
} one_row;

static int take_one(const store_index_row *r, void *ud)
{
    one_row *o = ud;
    o->r = *r;
    o->found = 1;
    const char *src[6] = {r->carried, r->ref_volumes, r->anchor_window, r->v3_json,
                          r->v3_detail, r->roles};
    o->oom = 0;
    for (int i = 0; i < 6; i++) {
        free(o->text[i]);
        o->text[i] = src[i] ? strdup(src[i]) : NULL;
        o->oom |= src[i] && !o->text[i];
    }
    o->r.carried = o->text[0];
    o->r.ref_volumes = o->text[1];
    o->r.anchor_window = o->text[2];
    o->r.v3_json = o->text[3];
    o->r.v3_detail = o->text[4];
    o->r.roles = o->text[5];
    return 1;
}

/* Re-evaluates the built days after `to` of the v2 grades (design note 7):
 * each later day is read and fixed again, one read for all of them, until
 * for every grade a day more than P days past `to` comes out unchanged
 * after the chain's last reset (anchor or suspension) fell after `to`. */
static gpi_status reevaluate_v2(store *st, idx_day *dy, const idx_grades *gs, idx_seq *gst,
                                idx_chain *gch, int32_t to, int64_t as_of, long *n_changed,
                                gpi_diag *d)
{
    size_t ng = gs->n;
    char *active = calloc(ng ? ng : 1, 1);
    one_row *old = calloc(ng ? ng : 1, sizeof *old);
    gpi_status rc = active && old ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t n_active = 0;
    int32_t *last = calloc(ng ? ng : 1, sizeof *last); /* v3: the last day re-evaluated */
    if (!last) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
        last[gi] = INT32_MIN;
        if (gs->g[gi].method >= 2) active[gi] = 1, n_active++;
    }
    for (int32_t day = to + 1; n_active > 0 && rc == GPI_OK && day < INT32_MAX - 1; day++) {
        for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
            if (!active[gi]) continue;
            old[gi].found = 0;
            rc = store_index_rows(st, gs->g[gi].id, day, day, take_one, &old[gi], d);
            if (rc == GPI_OK && old[gi].oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            if (rc == GPI_OK && (!old[gi].found || strcmp(old[gi].r.grade_hash, gs->g[gi].hash)))
                active[gi] = 0, n_active--; /* a gap or another definition stops it */
        }
        if (rc != GPI_OK || n_active == 0) break;
        rc = idx_day_collect(dy, st, day, as_of, d);
        for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++) {
            if (!active[gi]) continue;
            const idx_grade *g = &gs->g[gi];
            store_index_row nr;
            idx_eval e;
            int stale = 0;
            rc = store_obs_ingested_between(st, day, old[gi].r.as_of, as_of, &stale, d);
            if (rc == GPI_OK) rc = idx_row_fix(dy, gi, &gst[gi], &gch[gi], day, as_of, &nr, &e, d);
            if (rc != GPI_OK) break;
            int changed = stale || !row_same(&nr, &old[gi].r);
            if (changed) {
                rc = store_index_put_row(st, &nr, d);
                if (rc == GPI_OK) rc = store_index_clear_detail(st, g->id, day, 3, d);
                if (rc == GPI_OK) rc = put_exclusions(st, dy, gi, day, d);
                (*n_changed)++;
            } else {
                rc = store_index_clear_detail(st, g->id, day, 2, d);
            }
            if (rc == GPI_OK) rc = put_adj(st, seq_of(&gst[gi], &gch[gi]), day, &e, d);
            last[gi] = day;
            int P = g->p.adj_lookback_days + g->p.max_carry_days + 1;
            /* v3: every later built day (design note 9) */
            if (g->method == 2 && !changed && day > to + P && gch[gi].reset_day > to)
                active[gi] = 0, n_active--;
        }
    }
    /* v3: the state after the last day re-evaluated, for the next build */
    for (size_t gi = 0; gi < ng && rc == GPI_OK; gi++)
        if (gs->g[gi].method == 3 && last[gi] != INT32_MIN)
            rc = idx_v3_save(st, &gch[gi], last[gi], as_of, d);
    free(last);
    for (size_t gi = 0; old && gi < ng; gi++)
        for (int i = 0; i < 6; i++) free(old[gi].text[i]);
    free(active);
    free(old);
    return rc;
}

const char *idx_day_outside(int32_t day)
{
    if (day < gpi_days_from_civil(2000, 1, 1))
        return "before " IDX_FIRST_DAY ", the first day an index is built for";
    if (day > gpi_days_from_civil(2099, 12, 31))
        return "after " IDX_LAST_DAY ", the last day an index is built for";
    return NULL;
}

static gpi_status build_once(store *st, const idx_grades *gs, int32_t from, int32_t to,
                             int64_t as_of, idx_build_stats *stats, idx_progress_fn progress,
                             void *ud, gpi_diag *d)
{
    memset(stats, 0, sizeof *stats);
    if (from > to)
        return gpi_diag_set(d, GPI_EUSAGE, "index build: --from is after --to");
    if (idx_day_outside(from) || idx_day_outside(to))
        return gpi_diag_set(d, GPI_EUSAGE, "index build: %s",
                            idx_day_outside(from) ? idx_day_outside(from) : idx_day_outside(to));
    if (gs->n == 0) return gpi_diag_set(d, GPI_EINPUT, "index build: no grades");
    gpi_status rc = register_grades(st, gs, from, to, as_of, d);
    if (rc != GPI_OK) return rc;
    idx_day dyn[NPRE];
    idx_seq *gst = calloc(gs->n, sizeof *gst);
    idx_chain *gch = calloc(gs->n, sizeof *gch);
    rowvec rv = {0};
    rc = GPI_OK;
    for (int k = 0; k < NPRE; k++)
        if (idx_day_init(&dyn[k], gs) != GPI_OK) rc = GPI_ENOMEM;
    int P = 0;
    for (size_t i = 0; i < gs->n && rc == GPI_OK && gst && gch; i++) {
        rc = idx_seq_init(&gst[i], &gs->g[i]);
        if (rc == GPI_OK) rc = idx_chain_init(&gch[i], &gs->g[i]);
        int p = gs->g[i].p.adj_lookback_days + gs->g[i].p.max_carry_days + 1;
        if (p > P) P = p;
    }
    if (rc != GPI_OK || !gst || !gch) {
        rc = gpi_diag_set(d, GPI_ENOMEM, "index build: out of memory");
        goto done;
    }
    /* the replay uses the buffer of `from`: no reader runs yet */
    rc = replay_prefix(st, &dyn[slot_of(from)], gst, gch, from, P, as_of, &rv, stats, d);
    /* design note 5: days d+1 and d+2 are scanned on their own handles
     * while day d is fixed and written; without them (no file, or not
     * WAL), one thread does everything */
    store *rd[2] = {NULL, NULL};
    int nrd = 0;
    int want = to - from < 2 ? to - from : 2; /* no more readers than later days */
    while (rc == GPI_OK && nrd < want && store_open_again(st, &rd[nrd], NULL) == GPI_OK) nrd++;
    prefetch pf[NPRE];
    pthread_t th[NPRE];
    int running[NPRE] = {0};
    /* day x lives in dyn[x % NPRE] and is read on rd[(x - from) % nrd] */
#define SLOT(x) slot_of(x)
    for (int32_t x = from + 1; rc == GPI_OK && nrd && x <= to && x <= from + nrd; x++) {
        size_t k = SLOT(x);
        running[k] = start_read(&pf[k], &th[k], &dyn[k], rd[(size_t)(x - from) % (size_t)nrd],
                                st, x, as_of, &rc, d);
    }
    idx_day *cur = &dyn[SLOT(from)];
    if (rc == GPI_OK) rc = idx_day_collect(cur, st, from, as_of, d);
    int in_tx = 0;    /* note 4: the transaction open since tx_began */
    long tx_days = 0; /* and the days written in it */
    int64_t tx_began = 0;
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        size_t k = SLOT(day);
        cur = &dyn[k];
        if (running[k]) { /* day's own scan */
            pthread_join(th[k], NULL);
            running[k] = 0;
            if (pf[k].rc != GPI_OK) {
                rc = pf[k].rc;
                if (d) *d = pf[k].d;
                break;
            }
        }
        /* the scan of day + nrd takes the handle day's scan used and the
         * buffer of day - 1, both free now */
        int32_t x = day + nrd;
        if (nrd && x <= to && day > from) {
            size_t kx = SLOT(x);
            running[kx] = start_read(&pf[kx], &th[kx], &dyn[kx],
                                     rd[(size_t)(x - from) % (size_t)nrd], st, x, as_of, &rc, d);
            if (rc != GPI_OK) break;
        }
        if (!in_tx) { /* note 4 */
            rc = store_begin(st, d);
            in_tx = rc == GPI_OK;
            tx_began = now_ms();
        }
        for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++) {
            store_index_row r;
            rc = fix_and_write(st, cur, gi, &gst[gi], &gch[gi], day, as_of, &r, d);
            stats->rows++;
            if (rc == GPI_OK && day == to && gs->g[gi].method == 2)
                rc = idx_chain_save(st, &gch[gi], day, as_of, d);
            if (rc == GPI_OK && day == to && gs->g[gi].method == 3)
                rc = idx_v3_save(st, &gch[gi], day, as_of, d);
        }
        tx_days += in_tx;
        int waiting = rc == GPI_OK && in_tx ? store_writers_waiting(st) : 0;
        if (rc == GPI_OK && in_tx &&
            (day == to || waiting != 0 || now_ms() - tx_began >= BUILD_TX_MS)) {
            rc = store_commit(st, d);
            in_tx = 0;
            stats->days += rc == GPI_OK ? tx_days : 0;
            tx_days = 0;
            if (rc == GPI_OK && waiting == 1) store_writers_let_in(st);
        }
        if (rc != GPI_OK && in_tx) {
            store_rollback(st);
            in_tx = 0;
        }
        if (rc == GPI_OK && progress) progress(ud, day, from, to);
        if (rc == GPI_OK && !nrd && day < to)
            rc = idx_day_collect(&dyn[SLOT(day + 1)], st, day + 1, as_of, d);
    }
#undef SLOT
    if (in_tx) store_rollback(st); /* an error on the way out of the loop */
    for (int k = 0; k < NPRE; k++)
        if (running[k]) pthread_join(th[k], NULL);
    store_close(rd[0]);
    store_close(rd[1]);
    stats->observations = 0;
    for (int k = 0; k < NPRE; k++) stats->observations += dyn[k].n_scanned;
    if (rc == GPI_OK) rc = store_begin(st, d);
    if (rc == GPI_OK) {
        for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++)
            if (gs->g[gi].method == 1)
                rc = reevaluate_after(st, &dyn[0], gi, &gst[gi], to, P, as_of, &rv,
                                      &stats->reevaluated, d);
        if (rc == GPI_OK)
            rc = reevaluate_v2(st, &dyn[0], gs, gst, gch, to, as_of, &stats->reevaluated, d);
        if (rc == GPI_OK) rc = store_commit(st, d);
        if (rc != GPI_OK) store_rollback(st);
    }
done:
    for (size_t i = 0; gst && i < gs->n; i++) idx_seq_free(&gst[i]);
    for (size_t i = 0; gch && i < gs->n; i++) idx_chain_free(&gch[i]);
    free(gst);
    free(gch);
    free(rv.v);
    for (int k = 0; k < NPRE; k++) idx_day_free(&dyn[k]);
    return rc;
}

/* Sleeps until 250 ms after the second as_of has ended: an ingest stamps
 * its batch with the second of its commit, and its commit is done by then
 * (only for a writer that ignored the reservation, note 6). */
static void wait_past(int64_t as_of)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t left_ns = ((as_of + 1) - (int64_t)now.tv_sec) * 1000000000 + 250000000 -
                      (int64_t)now.tv_nsec;
    if (left_ns <= 0) return;
    struct timespec t = {(time_t)(left_ns / 1000000000), (long)(left_ns % 1000000000)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

/* Design note 6: a build whose cut-off second saw an ingest commit after
 * the build began reading is done again once that second is over. */
gpi_status idx_build(store *st, const idx_grades *gs, int32_t from, int32_t to, int64_t as_of,
                     idx_build_stats *stats, gpi_diag *d)
{
    return idx_build_progress(st, gs, from, to, as_of, stats, NULL, NULL, d);
}

gpi_status idx_build_progress(store *st, const idx_grades *gs, int32_t from, int32_t to,
                              int64_t as_of, idx_build_stats *stats, idx_progress_fn progress,
                              void *ud, gpi_diag *d)
{
    int latest = as_of == IDX_AS_OF_NOW;
    if (latest) as_of = (int64_t)time(NULL);
    gpi_status rc0 = store_cutoff_reserve(st, &as_of, latest, d);
    if (rc0 != GPI_OK) return rc0;
    for (int pass = 0; pass < 3; pass++) {
        int64_t seen = 0;
        long slipped = 0;
        gpi_status rc = store_batch_max_id(st, &seen, d);
        if (rc == GPI_OK) rc = build_once(st, gs, from, to, as_of, stats, progress, ud, d);
        if (rc == GPI_OK) rc = store_batches_since(st, seen, as_of, &slipped, d);
        if (rc != GPI_OK || slipped == 0) return rc;
        wait_past(as_of); /* a writer ignored the reservation (note 6) */
    }
    return gpi_diag_set(d, GPI_ESTORE,
                        "index build: ingests kept committing inside the cut-off second; "
                        "run the build again");
}
