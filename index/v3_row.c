/* index/v3_row.c -- a methodology v3 grade-day as the stored row
 * (METHODOLOGY.md §13.7): the day read into an idx_day becomes the v3
 * step's input (index/v3.h), and its output the row, index.json's v3
 * members and the detail publication lists in observations.csv.
 *
 * NOTES ON THE DESIGN
 * (1) A v3 row is v1's row (§5) computed over the panel's observations --
 *     level, value, the counts and the observations' spread of the level
 *     used, the panel's raw values and adjustment -- with methodology
 *     "v3", the v2 columns empty but panel_change (a group joined or
 *     left), the manipulation figures of leave-one-member-out (the costs
 *     none: a new participant cannot enter the panel on the day), and the
 *     v3 columns: the price index, its change, the composition gaps and
 *     the panel's counts.
 * (2) v3_json, written verbatim as index.json's "v3" member, holds what a
 *     recomputation needs besides the day's observations: the value of
 *     the day before and the log index (its base date, the log index of
 *     the day before, the day's change), the month's base (the previous
 *     month's last value and log index) and every group with a role: its
 *     role, days present and absent, admission day, last day present, its
 *     median and volume in the fix, its trade price and the one the index
 *     matched it to, and its part of the index's change.
 * (3) v3_detail (stored, not published) is what observations.csv lists
 *     beside the day's observations, so publication never replays the
 *     panel's history: per group its role and days present and the trade
 *     prices of the index; per offer the price the index matched it to;
 *     per imputed member the day its carried observations are from and
 *     their keys (publication reads them from that day).
 * (4) Numbers are written from integers, never from doubles: prices and
 *     medians with 8 decimals (micro x 100, half-micro x 50, quarter-micro
 *     x 25), volumes with 6, logs with 12 (signed).
 */
#include "index/row.h"
#include "index/v3.h"
#include "core/strbuf.h"
#include "store/index_values.h"

#include <stdlib.h>
#include <string.h>

/* The JSON texts are written with appends, not printf (a row's panel is
 * some 3 KB: printf's parsing was a tenth of a v3 build). */
static void put_s(gpi_sbuf *b, const char *s)
{
    gpi_sbuf_put(b, s, strlen(s));
}

static void put_num(gpi_sbuf *b, int64_t v, int digits)
{
    char t[32];
    put_s(b, gpi_fixed_format(v, digits, t));
}

static void put_int(gpi_sbuf *b, int64_t v)
{
    put_num(b, v, 0);
}

static void put_bool(gpi_sbuf *b, int v)
{
    put_s(b, v ? "true" : "false");
}

/* v with digits decimals, or null when v is none (< 0). */
static void put_opt(gpi_sbuf *b, int64_t v, int digits)
{
    if (v < 0)
        put_s(b, "null");
    else
        put_num(b, v, digits);
}

static void put_signed(gpi_sbuf *b, int64_t v, int digits)
{
    if (v == INT64_MIN)
        put_s(b, "null");
    else
        put_num(b, v, digits);
}

static void put_date(gpi_sbuf *b, int32_t day)
{
    char t[11];
    if (day == INT32_MIN) {
        put_s(b, "null");
        return;
    }
    gpi_date_format(day, t);
    gpi_sbuf_put(b, "\"", 1);
    gpi_sbuf_put(b, t, 10);
    gpi_sbuf_put(b, "\"", 1);
}

/* A JSON string (names come from the feeds: quotes, backslashes and
 * control characters escaped, other bytes as they are). */
static void put_jstr(gpi_sbuf *b, const char *s)
{
    gpi_sbuf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            gpi_sbuf_put(b, e, 2);
        } else if (*p < 0x20) {
            static const char hex[] = "0123456789abcdef";
            char e[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
            gpi_sbuf_put(b, e, 6);
        } else {
            gpi_sbuf_put(b, (const char *)p, 1);
        }
    }
    gpi_sbuf_put(b, "\"", 1);
}

/* What one participant can do to the month's FSP (METHODOLOGY.md §11.4):
 * the month's figures through the day, in USD per GPU-hour (6 decimals,
 * rounded up), and the day's reach by kind. */
static void manipulation_json(gpi_sbuf *b, const idx_v3_out *o)
{
    char ym[11];
    gpi_date_format(o->reach.day, ym);
    ym[7] = '\0';
    put_s(b, "{\"month\":\"");
    put_s(b, ym);
    put_s(b, "\",\"days\":");
    put_int(b, o->fsp_days[0]);
    put_s(b, ",\"business_days\":");
    put_int(b, o->fsp_days[1]);
    for (int cal = 0; cal < 2; cal++) {
        put_s(b, cal ? ",\"fsp_move_business\":{" : ",\"fsp_move\":{");
        for (int k = 0; k < IDX_REACH_KINDS; k++) {
            put_s(b, k ? ",\"" : "\"");
            put_s(b, idx_reach_kind_name(k));
            put_s(b, "\":");
            put_opt(b, o->fsp_reach_e6[k][cal], 6);
        }
        put_s(b, "}");
    }
    put_s(b, ",\"day\":{");
    for (int k = 0; k < IDX_REACH_KINDS; k++) {
        put_s(b, k ? ",\"" : "\"");
        put_s(b, idx_reach_kind_name(k));
        put_s(b, "\":{\"low\":");
        put_opt(b, o->reach.lo_e4[k], 4);
        put_s(b, ",\"high\":");
        put_opt(b, o->reach.hi_e4[k], 4);
        put_s(b, ",\"void\":");
        put_bool(b, o->reach.void_[k]);
        put_s(b, ",\"carry\":");
        put_bool(b, o->reach.carry_[k]);
        put_s(b, "}");
    }
    put_s(b, "}}");
}

static void v3_json(gpi_sbuf *b, const idx_v3_out *o)
{
    put_s(b, "{\"value_prev\":");
    put_opt(b, o->value_prev_e4, 4);
    put_s(b, ",\"index\":");
    if (o->index_on) {
        put_s(b, "{\"base_date\":");
        put_date(b, o->index_base_day);
        put_s(b, ",\"log\":");
        put_signed(b, o->log_index_e12, 12);
        put_s(b, ",\"log_prev\":");
        put_signed(b, o->log_prev_e12, 12);
        put_s(b, ",\"delta\":");
        put_signed(b, o->log_prev_e12 == INT64_MIN ? INT64_MIN : o->delta_e12, 12);
        put_s(b, ",\"moved\":");
        put_bool(b, o->index_moved);
        put_s(b, ",\"providers\":");
        put_int(b, o->index_providers);
        put_s(b, "}");
    } else {
        put_s(b, "null");
    }
    put_s(b, ",\"month\":{\"date\":");
    put_date(b, o->month_day);
    put_s(b, ",\"value\":");
    put_opt(b, o->month_value_e4, 4);
    put_s(b, ",\"log\":");
    put_signed(b, o->month_log_e12, 12);
    put_s(b, "},\"manipulation\":");
    manipulation_json(b, o);
    put_s(b, ",\"panel\":[");
    for (size_t k = 0; k < o->n_groups; k++) {
        const idx_v3_pgroup *p = &o->groups[k];
        put_s(b, k ? ",{\"group\":" : "{\"group\":");
        put_jstr(b, p->name);
        put_s(b, ",\"role\":\"");
        put_s(b, idx_v3_role_name(p->role));
        put_s(b, "\",\"present_days\":");
        put_int(b, p->present_days);
        put_s(b, ",\"absent_days\":");
        put_int(b, p->absent_days);
        put_s(b, ",\"since\":");
        put_date(b, p->since);
        put_s(b, ",\"last_seen\":");
        put_date(b, p->last_seen);
        put_s(b, ",\"joined\":");
        put_bool(b, p->joined);
        put_s(b, ",\"offers_median\":");
        put_opt(b, p->offers_median_h >= 0 ? p->offers_median_h * 50 : -1, 8);
        put_s(b, ",\"trade_volume\":");
        put_opt(b, p->trade_volume, 6);
        put_s(b, ",\"n_offers\":");
        put_int(b, p->n_offers);
        put_s(b, ",\"n_trades\":");
        put_int(b, p->n_trades);
        put_s(b, ",\"trade_price\":");
        put_opt(b, p->trade_rep_q >= 0 ? p->trade_rep_q * 25 : -1, 8);
        put_s(b, ",\"trade_ref\":");
        put_opt(b, p->trade_ref_q >= 0 ? p->trade_ref_q * 25 : -1, 8);
        put_s(b, ",\"trade_ref_date\":");
        put_date(b, p->trade_ref_day);
        put_s(b, ",\"index_matched\":");
        put_int(b, p->items_matched);
        put_s(b, ",\"index_carried\":");
        put_int(b, p->items_carried);
        put_s(b, ",\"index_relative\":");
        put_signed(b, p->index_counted ? p->rel_log_e12 : INT64_MIN, 12);
        put_s(b, ",\"capped\":");
        put_bool(b, p->capped);
        put_s(b, "}");
    }
    put_s(b, "]}");
}

static void hex16(gpi_sbuf *b, uint64_t key)
{
    static const char hex[] = "0123456789abcdef";
    char t[18];
    t[0] = t[17] = '"';
    for (int k = 0; k < 16; k++) t[16 - k] = hex[(key >> (4 * k)) & 15];
    gpi_sbuf_put(b, t, 18);
}

/* Design note 3. */
static void v3_detail(gpi_sbuf *b, const idx_v3_out *o, const idx_v3_input *in)
{
    put_s(b, "{\"groups\":[");
    for (size_t k = 0; k < o->n_groups; k++) {
        const idx_v3_pgroup *p = &o->groups[k];
        put_s(b, k ? ",[" : "[");
        put_jstr(b, p->name);
        put_s(b, ",");
        put_int(b, p->role);
        put_s(b, ",");
        put_int(b, p->present_days);
        put_s(b, ",");
        put_int(b, p->trade_rep_q);
        put_s(b, ",");
        put_int(b, p->trade_ref_q);
        put_s(b, ",");
        put_int(b, p->trade_ref_day == INT32_MIN ? -1 : p->trade_ref_day);
        put_s(b, ",");
        put_int(b, p->role == IDX_V3_MEMBER && p->trade_ref_q > 0 && p->trade_rep_q > 0);
        put_s(b, "]");
    }
    put_s(b, "],\"refs\":[");
    int first = 1;
    for (size_t i = 0; i < in->n_offers; i++) {
        if (o->offer_ref[i] < 0) continue;
        put_s(b, first ? "[" : ",[");
        first = 0;
        hex16(b, in->offers[i].key_hash);
        put_s(b, ",");
        put_int(b, o->offer_ref[i]);
        put_s(b, ",");
        put_int(b, o->offer_ref_day[i]);
        put_s(b, ",");
        put_int(b, o->offer_counted[i]);
        put_s(b, "]");
    }
    put_s(b, "],\"imputed\":[");
    first = 1;
    for (size_t k = 0; k < o->n_groups; k++) {
        const idx_v3_pgroup *p = &o->groups[k];
        if (p->role != IDX_V3_IMPUTED) continue;
        put_s(b, first ? "{\"group\":" : ",{\"group\":");
        first = 0;
        put_jstr(b, p->name);
        put_s(b, ",\"day\":");
        put_int(b, p->last_seen);
        put_s(b, ",\"items\":[");
        size_t n = 0;
        for (int kind = 0; kind < 2; kind++) {
            const idx_item *v = kind ? p->carried_t : p->carried_o;
            size_t m = kind ? p->n_carried_t : p->n_carried_o;
            for (size_t i = 0; i < m; i++) {
                put_s(b, n++ ? ",[" : "[");
                put_int(b, kind ? GPI_TRADE : GPI_OFFER);
                put_s(b, ",");
                hex16(b, v[i].key_hash);
                put_s(b, ",");
                put_int(b, v[i].observed_at);
                put_s(b, "]");
            }
        }
        put_s(b, "]}");
    }
    put_s(b, "]}");
}

gpi_status idx_v3_day_step(idx_day *dy, size_t gi, idx_chain *c, int32_t day, idx_v3_out **out,
                           gpi_diag *d)
{
    gpi_status rc = idx_day_screen(dy, gi, d);
    if (rc != GPI_OK) return rc;
    idx_v3_input in = {day,
                       dy->offers[gi].v,
                       dy->trades[gi].v,
                       dy->offers[gi].n,
                       dy->trades[gi].n,
                       (const char *const *)dy->names,
                       dy->n_names};
    return idx_v3_step(c->v3, &in, out, d);
}

gpi_status idx_v3_replay_day(idx_day *dy, size_t gi, idx_chain *c, int32_t day, gpi_diag *d)
{
    idx_v3_out *o;
    return idx_v3_day_step(dy, gi, c, day, &o, d);
}

gpi_status idx_v3_row_fix(idx_day *dy, size_t gi, idx_chain *c, int32_t day, int64_t as_of,
                          store_index_row *r, idx_eval *e, gpi_diag *d)
{
    const idx_grade *g = &dy->gs->g[gi];
    gpi_status rc = idx_day_screen(dy, gi, d);
    if (rc != GPI_OK) return rc;
    idx_v3_input in = {day,
                       dy->offers[gi].v,
                       dy->trades[gi].v,
                       dy->offers[gi].n,
                       dy->trades[gi].n,
                       (const char *const *)dy->names,
                       dy->n_names};
    idx_v3_out *o;
    if ((rc = idx_v3_step(c->v3, &in, &o, d)) != GPI_OK) return rc;
    *e = o->e;
    memset(r, 0, sizeof *r);
    r->day = day;
    snprintf(r->grade, sizeof r->grade, "%s", g->id);
    r->level = o->e.level;
    r->value_e4 = o->e.level == GPI_LEVEL_SUSPENDED ? -1 : o->e.value_e4;
    r->n_obs = o->n_obs;
    r->n_excluded = o->n_excluded;
    r->n_providers = o->n_providers;
    r->trade_volume_e2 = gpi_div_round(o->trade_volume_micro, 10000);
    r->adjustment_e6 = o->e.level == GPI_LEVEL_OFFERS ? o->e.adj_e6 : -1;
    int64_t *sp[7] = {&r->p10_micro, &r->p25_micro, &r->p50_micro, &r->p75_micro,
                      &r->p90_micro, &r->min_micro, &r->max_micro};
    for (int i = 0; i < 7; i++) *sp[i] = o->spread[i];
    r->top_share_e6 = o->top_share_e6;
    snprintf(r->methodology, sizeof r->methodology, "v3");
    r->trades_raw_q = o->trades_raw_q;
    r->offers_raw_q = o->offers_raw_q;
    r->carry_days = o->e.carry;
    r->grade_version = g->version;
    snprintf(r->grade_hash, sizeof r->grade_hash, "%s", g->hash);
    r->as_of = as_of;
    snprintf(r->note, sizeof r->note, "%s", o->note);
    r->xs_value_e4 = r->chain_nano = r->relative_e12 = r->splice_e12 = -1;
    r->chain_prev_nano = r->matched_now_q = r->matched_ref_q = -1;
    r->ref_day = r->panel_day = INT32_MIN;
    for (int i = 0; i < 7; i++) r->obs_spread[i] = -1;
    r->panel_change = o->panel_change;
    r->loo_move_e4 = o->loo_move_e4;
    if (o->loo_group >= 0)
        snprintf(r->loo_provider, sizeof r->loo_provider, "%s", o->groups[o->loo_group].name);
    r->loo_voids = o->loo_voids;
    r->cost_e2[0] = r->cost_e2[1] = -1;
    r->cost_offers[0] = r->cost_offers[1] = -1;
    r->price_index_e6 = o->price_index_e6;
    r->log_index_e12 = o->log_index_e12;
    r->index_change_e12 = o->index_change_e12;
    r->gap_e6 = o->gap_e6;
    r->gap_month_e6 = o->gap_month_e6;
    r->panel_size = o->panel_size;
    r->n_imputed = o->n_imputed;
    r->n_candidates = o->n_candidates;
    r->index_providers = o->index_providers;
    gpi_sbuf j = {0}, x = {0};
    v3_json(&j, o);
    v3_detail(&x, o, &in);
    /* C strings (appends add no NUL) */
    char *zj = gpi_sbuf_room(&j, 1), *zx = gpi_sbuf_room(&x, 1);
    if (zj) *zj = '\0';
    if (zx) *zx = '\0';
    if (j.oom || x.oom) {
        free(j.p);
        free(x.p);
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    }
    free(c->v3_json);
    free(c->v3_detail);
    c->v3_json = j.p;
    c->v3_detail = x.p;
    r->v3_json = c->v3_json;
    r->v3_detail = c->v3_detail;
    return GPI_OK;
}
