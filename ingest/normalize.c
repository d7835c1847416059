/* ingest/normalize.c -- one row of named raw fields -> a gpi_obs, or a
 * reject with the SPEC's message (SPEC §3).
 *
 * NOTES ON THE DESIGN
 * (1) Exact money.  price = pm / 10^ps (as written: up to 18 significant
 *     digits and 18 decimals), fx = fm / 10^fs (from fx.csv, at most 12
 *     significant digits and 12 decimals).  USD per GPU-hour x 10^6 is
 *         pm * fm * 10^6 / (10^ps * 10^fs * divisor)
 *     with divisor = gpu_count for instance-* units (1 for gpu-*) times 730
 *     for *-month units.  It is computed in 128-bit integers and rounded
 *     once, half-up (gpi_div_round).  Bounds: pm < 10^18, fm < 10^12, so
 *     the numerator is < 10^36 < 2^127.
 * (2) Every reject names the column by its spelling in the file and
 *     shows the value: "path:line: column: reason (got "value")".  Checks
 *     run in a fixed order (the table of SPEC §3), so a row with several
 *     problems always reports the same first one.
 * (3) Identity (SPEC §3): an id gives ident = id; without one, offers use
 *     provider|region|gpu|sku|gpu_count|scope|term|term_months|unit
 *     and trades add price|currency|quantity|buyer|status|tier ("all
 *     their fields"), then |starts_on when the row gives one (issue 29:
 *     rows without it keep their identity), each as the row gives it: the provider as written
 *     and folded (case, blanks), never the canonical one; the status as
 *     written, before the affiliate rule; the tier only when the row
 *     gives one.  So no table (providers.csv, tiers.csv) changes an
 *     identity, and a file re-sent after a table changed is found again,
 *     never stored twice (issue 12; core/ident.c).  '|' and '\\'
 *     inside the free-text fields (provider, region, gpu, sku, buyer) are
 *     escaped with '\\', so no two rows share an identity by shifting text
 *     across a separator.  key_hash is the identity hash (FNV-1a of the
 *     kind letter, NUL, source, NUL, ident) with its top bit replaced by
 *     the kind (core/obs.h): a day's trades and its offers are then two
 *     separate key ranges of the store, and ingesting a trades file into a
 *     day full of offers touches only the trades' pages (a third less
 *     time for the benchmark market's trades).  Publication shows the
 *     identity hash, which does not depend on this layout.
 * (4) Tiers come from the row, else tiers.csv by canonical provider and
 *     observed day; a trade whose buyer is in the seller's group becomes
 *     status affiliate (cancelled stays cancelled).
 */
#include "ingest/internal.h"
#include "core/vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const field_names[F__N] = {
    "kind", "id", "observed_at", "source", "provider", "gpu", "sku",
    "gpu_count", "price", "currency", "unit", "scope", "tier", "term",
    "term_months", "region", "quantity", "buyer", "status", "starts_on",
};

int field_lookup(const char *name)
{
    for (int i = 0; i < F__N; i++)
        if (strcasecmp(name, field_names[i]) == 0) return i;
    return -1;
}

#define MAX_GPU_COUNT 100000
#define MAX_START_DAYS 1827 /* a forward start at most 5 years after the day */
#define MAX_PRICE_MICRO 1000000000000LL /* 1,000,000 USD per GPU-hour */

typedef struct rej {
    char *msg;
    size_t cap;
    const char **col;
    const norm_row *r;
    const char *path;
} rej;

/* Reject with the column and the value shown. */
static int bad(const rej *x, int f, const char *why)
{
    const char *v = x->r->v[f] ? x->r->v[f] : "";
    *x->col = x->r->name[f] ? x->r->name[f] : field_names[f];
    snprintf(x->msg, x->cap, "%s:%ld: %s: %s (got \"%.80s%s\")", x->path, x->r->line, *x->col,
             why, v, strlen(v) > 80 ? "..." : "");
    return 0;
}

/* Reject for a missing value (no "got"). */
static int missing(const rej *x, int f, const char *why)
{
    *x->col = x->r->name[f] ? x->r->name[f] : field_names[f];
    snprintf(x->msg, x->cap, "%s:%ld: %s: %s", x->path, x->r->line, *x->col, why);
    return 0;
}

static const char *val(const norm_row *r, int f)
{
    const char *v = r->v[f];
    return v && *v ? v : NULL;
}

static const char out_of_range[] = "out of range";

/* A whole number in [lo, hi] written as a decimal ("8", "8.0"); returns a
 * reason (out_of_range when outside [lo, hi]) or NULL. */
static const char *whole(const char *s, long lo, long hi, long *out)
{
    gpi_dec d;
    const char *why = gpi_dec_parse(s, &d);
    if (why) return why;
    int64_t p = 1;
    for (int i = 0; i < d.scale; i++) p *= 10;
    if (d.mant % p != 0) return "not a whole number";
    int64_t v = d.mant / p;
    if (v < lo || v > hi) return out_of_range;
    *out = (long)v;
    return NULL;
}

/* A price as written: up to 18 decimals, because feeds print binary floats
 * in full ("1.2774707094999997").  The result stays exact (note 1:
 * pm < 10^18 and 10^18 x 10^12 x 10^5 x 730 < 2^127). */
static const char *price_parse(const char *s, gpi_dec *out)
{
    return gpi_dec_parse_scale(s, 18, out);
}

static int put_ident(norm_ctx *c, const char *s)
{
    size_t n = strlen(s);
    if (GPI_VEC_RESERVE(c->ident, c->ident_cap, n + 1) != 0) return -1;
    memcpy(c->ident, s, n + 1);
    return 0;
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* A free-text identity field with '|' and '\\' escaped by '\\' (note 3):
 * s itself when it has neither, else the escaped copy in tmp, or NULL when
 * that does not fit. */
static const char *esc(const char *s, char *tmp, size_t cap)
{
    return gpi_ident_escape(s, tmp, cap);
}

int normalize_row(norm_ctx *c, const norm_row *r, gpi_obs *o, const char **col, char *msg,
                  size_t msg_cap)
{
    rej x = {msg, msg_cap, col, r, c->path};
    const char *v, *why;
    memset(o, 0, sizeof *o);
    o->line = r->line;
    o->quantity_micro = -1;

    /* kind */
    if ((v = val(r, F_KIND)) != NULL) {
        if ((o->kind = gpi_kind_parse(v)) < 0) return bad(&x, F_KIND, "not offer or trade");
        if (c->kind_hint >= 0 && o->kind != c->kind_hint)
            return bad(&x, F_KIND, c->kind_hint == GPI_OFFER ? "a trade in an offers file"
                                                             : "an offer in a trades file");
    } else if (c->kind_hint >= 0) {
        o->kind = c->kind_hint;
    } else {
        return missing(&x, F_KIND, "missing (needed unless the command says offers or trades)");
    }
    int trade = o->kind == GPI_TRADE;

    /* observed_at */
    if (!(v = val(r, F_OBSERVED_AT))) return missing(&x, F_OBSERVED_AT, "missing");
    if ((why = gpi_time_parse(v, &o->observed_at)) != NULL) return bad(&x, F_OBSERVED_AT, why);
    o->day = gpi_day_of_time(o->observed_at);

    /* source, id */
    o->source = val(r, F_SOURCE) ? r->v[F_SOURCE] : c->default_source;
    o->id = val(r, F_ID);

    /* provider */
    if (!(v = val(r, F_PROVIDER))) return missing(&x, F_PROVIDER, "missing");
    provider_match pm;
    if (tables_provider(c->t, v, c->prov_buf, sizeof c->prov_buf, &pm) != 0)
        return bad(&x, F_PROVIDER, "empty or longer than 255 bytes");
    if (!hygiene_provider(c, r, &pm, col, msg, msg_cap)) return 0;
    o->provider = pm.provider;
    o->group = pm.group;
    o->segment = pm.segment;
    o->raw_provider = v;

    /* gpu, sku */
    o->sku = val(r, F_SKU);
    if (!(v = val(r, F_GPU))) return missing(&x, F_GPU, "missing");
    gpu_match gm;
    if (!tables_gpu(c->t, v, o->provider, o->sku, &gm))
        return bad(&x, F_GPU, "unknown GPU model (add it to gpus.csv)");
    if (!gm.canonical) {
        char why2[160];
        snprintf(why2, sizeof why2, "not a GPU: %.120s",
                 gm.note && *gm.note ? gm.note : "listed as not a GPU in gpus.csv");
        return bad(&x, F_GPU, why2);
    }
    o->gpu = gm.canonical;
    o->raw_gpu = v;

    /* unit, gpu_count, and the sku's skus.csv rule (hygiene.c) */
    o->unit = GPI_UNIT_GPU_HOUR;
    int unit_given = (v = val(r, F_UNIT)) != NULL;
    if (unit_given && (o->unit = gpi_unit_parse(v)) < 0)
        return bad(&x, F_UNIT, "unknown unit (gpu-hour, instance-hour, gpu-month, instance-month)");
    const sku_rule *rule = hygiene_rule(c, o->provider, o->sku);
    if (!unit_given && rule && rule->unit >= 0) o->unit = rule->unit;
    int per_instance = o->unit == GPI_UNIT_INSTANCE_HOUR || o->unit == GPI_UNIT_INSTANCE_MONTH;
    long count = 1;
    if ((v = val(r, F_GPU_COUNT)) != NULL) {
        if ((why = whole(v, 1, MAX_GPU_COUNT, &count)) != NULL)
            return bad(&x, F_GPU_COUNT, why == out_of_range ? "must be between 1 and 100000" : why);
    } else if (per_instance) {
        return missing(&x, F_GPU_COUNT, o->unit == GPI_UNIT_INSTANCE_HOUR
                                            ? "missing (required with unit instance-hour)"
                                            : "missing (required with unit instance-month)");
    }
    long raw_count = count; /* the identity keeps the count as written */
    if (!hygiene_sku(c, r, rule, unit_given, o, &count, col, msg, msg_cap)) return 0;
    o->gpu_count = (int32_t)count;

    /* price */
    if (!(v = val(r, F_PRICE))) return missing(&x, F_PRICE, "missing");
    gpi_dec price;
    if ((why = price_parse(v, &price)) != NULL) return bad(&x, F_PRICE, why);
    if (price.mant <= 0) return bad(&x, F_PRICE, "must be > 0");
    o->raw_price = v;

    /* currency */
    gpi_dec fx = {1, 0};
    o->currency = "USD";
    if ((v = val(r, F_CURRENCY)) != NULL) {
        size_t n = strlen(v);
        int ok = n == 3;
        for (size_t i = 0; ok && i < 3; i++) {
            ok = isalpha((unsigned char)v[i]) != 0;
            c->cur_buf[i] = (char)toupper((unsigned char)v[i]);
        }
        if (!ok) return bad(&x, F_CURRENCY, "not a 3-letter ISO-4217 code");
        c->cur_buf[3] = '\0';
        o->currency = c->cur_buf;
        if (strcmp(c->cur_buf, "USD") != 0) {
            int f = tables_fx(c->t, c->cur_buf, o->day, &fx);
            if (f == 0) return bad(&x, F_CURRENCY, "unknown currency (no rate in fx.csv)");
            if (f < 0) {
                char why2[96], day[11];
                gpi_date_format(o->day, day);
                snprintf(why2, sizeof why2, "no FX rate on or before %s in fx.csv", day);
                return bad(&x, F_CURRENCY, why2);
            }
        }
    }

    /* scope, term, term_months, tier, region */
    o->scope = GPI_SCOPE_VM;
    if ((v = val(r, F_SCOPE)) && (o->scope = gpi_scope_parse(v)) < 0)
        return bad(&x, F_SCOPE, "unknown scope (bare-metal, managed, vm, container)");
    o->term = GPI_TERM_ON_DEMAND;
    if ((v = val(r, F_TERM)) && (o->term = gpi_term_parse(v)) < 0)
        return bad(&x, F_TERM, "unknown term (on-demand, spot, reserved)");
    v = val(r, F_TERM_MONTHS);
    if (o->term == GPI_TERM_RESERVED) {
        long m;
        if (!v) return missing(&x, F_TERM_MONTHS, "missing (required with term reserved)");
        if ((why = whole(v, 1, 60, &m)) != NULL)
            return bad(&x, F_TERM_MONTHS, why == out_of_range ? "must be between 1 and 60" : why);
        o->term_months = (int)m;
    } else if (v) {
        return bad(&x, F_TERM_MONTHS, "only allowed with term reserved");
    }
    /* starts_on (issue 29): a reserved term that starts later; a start on
     * or before the day observed is a term that starts on the day */
    if ((v = val(r, F_STARTS_ON)) != NULL) {
        int32_t s;
        if (o->term != GPI_TERM_RESERVED) return bad(&x, F_STARTS_ON, "only allowed with term reserved");
        if ((why = gpi_date_parse(v, &s)) != NULL) return bad(&x, F_STARTS_ON, why);
        if (s - o->day > MAX_START_DAYS)
            return bad(&x, F_STARTS_ON, "more than 1827 days (5 years) after the day observed");
        o->starts_on = s > o->day ? s : 0;
    }
    if ((v = val(r, F_TIER)) != NULL) {
        if ((o->tier = gpi_tier_parse(v)) < 0)
            return bad(&x, F_TIER, "unknown tier (platinum, gold, silver, bronze, "
                                   "underperform, unrated)");
        o->tier_given = 1;
    } else {
        o->tier = tables_tier(c->t, o->provider, o->day);
    }
    o->region = val(r, F_REGION) ? r->v[F_REGION] : "";

    /* quantity */
    if ((v = val(r, F_QUANTITY)) != NULL) {
        gpi_dec q;
        if ((why = gpi_dec_parse(v, &q)) != NULL) return bad(&x, F_QUANTITY, why);
        if (trade ? q.mant <= 0 : q.mant < 0)
            return bad(&x, F_QUANTITY, trade ? "must be > 0" : "must be >= 0");
        __int128 lim = 1000000000000LL; /* 10^12 GPU-hours */
        for (int i = 0; i < q.scale; i++) lim *= 10;
        if (q.mant >= lim) return bad(&x, F_QUANTITY, "too large");
        o->quantity_micro = gpi_dec_to_units(q, 6);
        if (trade && o->quantity_micro == 0)
            return bad(&x, F_QUANTITY, "below 0.000001 GPU-hours");
    } else if (trade) {
        return missing(&x, F_QUANTITY, "missing (trades need the GPU-hours traded)");
    }

    /* status, buyer */
    o->status = GPI_STATUS_OK;
    if ((v = val(r, F_STATUS)) != NULL) {
        if ((o->status = gpi_trade_status_parse(v)) < 0)
            return bad(&x, F_STATUS, "unknown status (ok, cancelled, affiliate)");
        if (!trade && o->status != GPI_STATUS_OK)
            return bad(&x, F_STATUS, "only trades have a status");
    }
    o->status_given = o->status;
    o->buyer = trade ? val(r, F_BUYER) : NULL;
    if (o->buyer && o->status == GPI_STATUS_OK) {
        provider_match bm;
        if (tables_provider(c->t, o->buyer, c->buyer_buf, sizeof c->buyer_buf, &bm) == 0 &&
            strcasecmp(bm.group, o->group) == 0)
            o->status = GPI_STATUS_AFFILIATE;
    }

    /* money, exactly (note 1) */
    __int128 num = (__int128)price.mant * fx.mant * 1000000;
    __int128 den = 1;
    for (int i = 0; i < price.scale + fx.scale; i++) den *= 10;
    if (per_instance) den *= count;
    if (o->unit == GPI_UNIT_GPU_MONTH || o->unit == GPI_UNIT_INSTANCE_MONTH) den *= 730;
    /* the bound is on the stored (rounded) price: 1000000 itself is in */
    if (num / den > MAX_PRICE_MICRO)
        return bad(&x, F_PRICE, "above 1000000 USD per GPU-hour");
    o->price_micro = gpi_div_round(num, den);
    if (o->price_micro > MAX_PRICE_MICRO) return bad(&x, F_PRICE, "above 1000000 USD per GPU-hour");
    if (o->price_micro <= 0) return bad(&x, F_PRICE, "below 0.000001 USD per GPU-hour");

    /* identity (note 3) */
    if (o->id) {
        if (put_ident(c, o->id) != 0) goto oom;
    } else {
        char buf[2048], e[5][512], folded[256];
        /* the provider as written, folded (fits: tables_provider checked) */
        const char *prov = gpi_fold_name(o->raw_provider, folded, sizeof folded) > 0
                               ? esc(folded, e[0], sizeof e[0])
                               : NULL;
        const char *region = esc(o->region, e[1], sizeof e[1]);
        const char *gpu = esc(o->raw_gpu, e[2], sizeof e[2]);
        const char *sku = esc(o->sku, e[3], sizeof e[3]);
        const char *buyer = esc(o->buyer, e[4], sizeof e[4]);
        int n = -1;
        if (prov && region && gpu && sku && buyer)
            n = snprintf(buf, sizeof buf, "%s|%s|%s|%s|%ld|%s|%s|%d|%s", prov, region, gpu, sku,
                         raw_count, gpi_scope_name(o->scope), gpi_term_name(o->term),
                         o->term_months, gpi_unit_name(o->unit));
        if (trade && n > 0 && (size_t)n < sizeof buf)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "|%s|%s|%s|%s|%s|%s", o->raw_price,
                          o->currency, nz(r->v[F_QUANTITY]), buyer,
                          gpi_trade_status_name(o->status_given),
                          val(r, F_TIER) ? gpi_tier_name(o->tier) : "");
        if (n > 0 && (size_t)n < sizeof buf && val(r, F_STARTS_ON))
            n += snprintf(buf + n, sizeof buf - (size_t)n, "|%s", r->v[F_STARTS_ON]);
        if (n < 0 || (size_t)n >= sizeof buf) {
            *col = NULL;
            snprintf(msg, msg_cap, "%s:%ld: row too long to build an identity (give it an id)",
                     c->path, r->line);
            return 0;
        }
        if (put_ident(c, buf) != 0) goto oom;
    }
    o->ident = c->ident;
    o->key_hash = gpi_store_key(o->kind, gpi_identity_hash(o->kind, o->source, o->ident));
    return 1;
oom:
    *col = NULL;
    snprintf(msg, msg_cap, "%s:%ld: out of memory", c->path, r->line);
    return 0;
}

void norm_ctx_free(norm_ctx *c)
{
    hygiene_free(c);
    free(c->ident);
    c->ident = NULL;
    c->ident_cap = 0;
}
