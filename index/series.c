/* index/series.c -- the daily values candidate grades would have had,
 * computed from the stored observations and never written.
 *
 * NOTES ON THE DESIGN
 * (1) A hedger asking "which index would have hedged my rent" needs the
 *     value series of grades nobody built (hedge compare --suggest).  The
 *     values must be the index's own: exactly the rows `index build` would
 *     store for these grades at cut-off as_of, so a suggestion that hedges
 *     well is one an exchange could list and settle on.
 * (2) So this is the build's day loop without its writes: idx_replay puts
 *     every grade's sequence (and the chain of a v2 grade) in the state a
 *     build of everything leaves before `from` (build.c design notes 2
 *     and 7: stored raw values are reused only for the same definition
 *     hash and cut-off, which an unbuilt candidate never has, so its days
 *     are scanned); then each day of [from, to] is read once for all
 *     grades (idx_day_collect) and fixed with idx_row_fix, as the build
 *     does before store_index_put_row.  The store is only read.
 * (3) Memory: one day of observations plus, per grade, one value per day
 *     of the range.  A range of more than a century is refused as a typo.
 */
#include "index/feed.h"
#include "index/row.h"
#include "store/index_values.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SERIES_DAYS 36600

void idx_series_free(idx_series *s)
{
    if (!s) return;
    free(s->v);
    free(s->g);
    free(s);
}

gpi_status idx_series_compute(store *st, const idx_grades *gs, int32_t from, int32_t to,
                              int64_t as_of, idx_series **out, gpi_diag *d)
{
    if (out) *out = NULL;
    if (!st || !gs || !out)
        return gpi_diag_set(d, GPI_EUSAGE, "index series: no store or grades");
    if (gs->n == 0) return gpi_diag_set(d, GPI_EINPUT, "index series: no grades");
    if (from > to) return gpi_diag_set(d, GPI_EUSAGE, "index series: from is after to");
    if ((int64_t)to - from + 1 > MAX_SERIES_DAYS)
        return gpi_diag_set(d, GPI_EUSAGE, "index series: range of more than %d days",
                            MAX_SERIES_DAYS);
    size_t n = gs->n, days = (size_t)((int64_t)to - from + 1);
    idx_series *s = calloc(1, sizeof *s);
    idx_seq *seq = calloc(n, sizeof *seq);
    idx_chain *ch = calloc(n, sizeof *ch);
    idx_day dy;
    gpi_status rc = idx_day_init(&dy, gs);
    if (s) {
        s->v = malloc(n * days * sizeof *s->v);
        s->g = calloc(n, sizeof *s->g);
    }
    if (rc != GPI_OK || !s || !seq || !ch || !s->v || !s->g) rc = GPI_ENOMEM;
    for (size_t gi = 0; gi < n && rc == GPI_OK; gi++) {
        rc = idx_seq_init(&seq[gi], &gs->g[gi]);
        if (rc == GPI_OK) rc = idx_chain_init(&ch[gi], &gs->g[gi]);
    }
    if (rc == GPI_ENOMEM) {
        rc = gpi_diag_set(d, rc, "index series: out of memory");
        goto done;
    }
    s->from = from;
    s->to = to;
    s->days = days;
    s->n = n;
    rc = idx_replay(st, &dy, seq, ch, from, as_of, d);
    for (size_t k = 0; k < days && rc == GPI_OK; k++) {
        int32_t day = from + (int32_t)k;
        rc = idx_day_collect(&dy, st, day, as_of, d);
        for (size_t gi = 0; gi < n && rc == GPI_OK; gi++) {
            store_index_row r;
            idx_eval e;
            rc = idx_row_fix(&dy, gi, &seq[gi], &ch[gi], day, as_of, &r, &e, d);
            if (rc != GPI_OK) break;
            s->v[gi * days + k] = (gpi_index_day){day, r.level, r.value_e4};
            idx_series_grade *sg = &s->g[gi];
            sg->n_level[r.level]++;
            if ((r.level == GPI_LEVEL_TRADES || r.level == GPI_LEVEL_OFFERS) &&
                r.n_providers > sg->max_providers)
                sg->max_providers = r.n_providers;
        }
    }
done:
    for (size_t gi = 0; gi < n; gi++) {
        if (seq) idx_seq_free(&seq[gi]);
        if (ch) idx_chain_free(&ch[gi]);
    }
    free(seq);
    free(ch);
    idx_day_free(&dy);
    if (rc == GPI_OK)
        *out = s;
    else
        idx_series_free(s);
    return rc;
}
