/* index/seq.c -- METHODOLOGY.md §4.3-§4.4 as a sequence of days: a
 * grade-day's level, adjustment and carried value from its raw values and
 * those of the days before (index/method.h).  Pure: the caller feeds the
 * days' raw values in ascending order (a gap resets the carry); build.c
 * (v1, v2's cross-section) and v3 (the panel's raw values) share it.
 */
#include "index/method.h"

#include <stdlib.h>
#include <string.h>

gpi_status idx_seq_init(idx_seq *s, const idx_grade *g)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->L = g->p.adj_lookback_days;
    size_t L = (size_t)s->L;
    s->rday = malloc(L * sizeof *s->rday);
    /* zeroed: a slot no day filled is written as 0 by v3's state encoding
     * (v3_state.c), so equal states are equal bytes (issue 31 item 6) */
    s->rt = calloc(L ? L : 1, sizeof *s->rt);
    s->ro = calloc(L ? L : 1, sizeof *s->ro);
    s->adj_day = malloc(L * sizeof *s->adj_day);
    s->adj_t = malloc(L * sizeof *s->adj_t);
    s->adj_o = malloc(L * sizeof *s->adj_o);
    if (!s->rday || !s->rt || !s->ro || !s->adj_day || !s->adj_t || !s->adj_o) return GPI_ENOMEM;
    for (size_t i = 0; i < L; i++) s->rday[i] = INT32_MIN;
    s->prev_day = INT32_MIN;
    return GPI_OK;
}

void idx_seq_free(idx_seq *s)
{
    free(s->rday);
    free(s->rt);
    free(s->ro);
    free(s->adj_day);
    free(s->adj_t);
    free(s->adj_o);
}

static size_t slot(int32_t day, int L)
{
    return (size_t)(((day % L) + L) % L);
}

/* §6 steps 3-5 for one day from its raw values (-1 = absent), without
 * advancing the sequence (the adjustment days land in s->adj_*). */
void idx_seq_peek(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out)
{
    const idx_params *p = &s->g->p;
    int contiguous = s->prev_day == day - 1;
    int prev_has_value = contiguous && s->prev_has_value;
    int prev_carry = contiguous ? s->prev_carry : 0;
    memset(out, 0, sizeof *out);
    out->adj_e6 = -1;
    out->value_e4 = -1;
    if (t_q > 0) {
        out->level = GPI_LEVEL_TRADES;
        out->value_e4 = idx_value_e4(t_q, 1000000, p->rounding_e4);
    } else if (o_q > 0) {
        for (int k = s->L; k >= 1; k--) {
            int32_t dd = day - k;
            size_t i = slot(dd, s->L);
            if (s->rday[i] == dd && s->rt[i] > 0 && s->ro[i] > 0) {
                s->adj_day[out->n_adj] = dd;
                s->adj_t[out->n_adj] = s->rt[i];
                s->adj_o[out->n_adj++] = s->ro[i];
            }
        }
        out->level = GPI_LEVEL_OFFERS;
        out->adj_e6 = idx_adjustment_e6(s->adj_t, s->adj_o, out->n_adj, p->adj_min_days);
        out->value_e4 = idx_value_e4(o_q, out->adj_e6, p->rounding_e4);
    } else if (prev_has_value && prev_carry < p->max_carry_days) {
        out->level = GPI_LEVEL_CARRIED;
        out->value_e4 = s->prev_value;
        out->carry = prev_carry + 1;
    } else {
        out->level = GPI_LEVEL_SUSPENDED;
        out->exhausted = prev_has_value;
    }
}

void idx_seq_next(idx_seq *s, int32_t day, int64_t t_q, int64_t o_q, idx_eval *out)
{
    idx_seq_peek(s, day, t_q, o_q, out);
    size_t i = slot(day, s->L);
    s->rday[i] = day;
    s->rt[i] = t_q;
    s->ro[i] = o_q;
    s->prev_day = day;
    s->prev_has_value = out->level != GPI_LEVEL_SUSPENDED;
    s->prev_value = out->value_e4;
    s->prev_carry = out->carry;
}
