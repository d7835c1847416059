/* publish/columns.c -- the columns of the published CSV files and their
 * data package (contract in publish/columns.h).
 *
 * To add a column to a published CSV: one entry at the end of its table,
 * with the file format that adds it (PUB_FORMAT_CURRENT), its type, unit,
 * values and meaning -- and the code that writes its field (format.c for
 * index.csv's stored columns, commit.c for those computed at publication,
 * files.c for observations.csv).  tests/check_publication.py
 * (run by tests/test_e2e_publication.c on the demo) fails when a
 * published header differs from its table, or a field from its type.
 */
#include "publish/columns.h"
#include "core/gpi.h"

#include <jansson.h>
#include <string.h>

#define USD_GH PUB_CURRENCY " per " PUB_UNIT

static const pub_column index_cols[] = {
    {1, "date", "date", NULL, NULL, "the day of the fix (UTC)"},
    {1, "grade", "string", NULL, NULL, "the grade id (data/grades.json or the grade file built)"},
    {1, "value", "number", USD_GH, NULL,
     "the day's benchmark value, 4 decimals; empty when suspended (METHODOLOGY.md section 5)"},
    {1, "level", "string", NULL, "trades|offers|carried|suspended",
     "how the value was set: the data hierarchy's level"},
    {1, "n_obs", "integer", "observations", NULL,
     "eligible observations of the level used, before the screen"},
    {1, "n_excluded", "integer", "observations", NULL, "screen exclusions of the level used"},
    {1, "n_providers", "integer", "provider groups", NULL,
     "providers of the level used after the screen"},
    {1, "trade_volume_gpu_hours", "number", "GPU-hours", NULL,
     "screened eligible trades of the day, 2 decimals"},
    {1, "adjustment", "number", "ratio", NULL,
     "the offer-to-trade adjustment on offers days, 6 decimals"},
    {1, "p10", "number", USD_GH, NULL, "10th percentile of the level's observations (v2: of the constituents), 6 decimals"},
    {1, "p25", "number", USD_GH, NULL, "25th percentile, 6 decimals"},
    {1, "p50", "number", USD_GH, NULL, "median, 6 decimals"},
    {1, "p75", "number", USD_GH, NULL, "75th percentile, 6 decimals"},
    {1, "p90", "number", USD_GH, NULL, "90th percentile, 6 decimals"},
    {1, "min", "number", USD_GH, NULL, "lowest, 6 decimals"},
    {1, "max", "number", USD_GH, NULL, "highest, 6 decimals"},
    {1, "top_provider_share", "number", "share (0 to 1)", NULL,
     "the largest provider's share of the level's volume or offers, 6 decimals"},
    {1, "methodology", "string", NULL, "v1|v2|v3", "the method of the row (METHODOLOGY.md)"},
    {1, "vintage", "integer", NULL, NULL,
     "the publication vintage of the day; in index show and the site, the latest vintage that "
     "published the row's value, empty when none did"},
    {2, "xs_value", "number", USD_GH, NULL, "v2: the day's cross-section (the v1 value)"},
    {2, "xs_level", "string", NULL, "trades|offers|carried|suspended",
     "v2: the cross-section's level"},
    {2, "relative", "number", "ratio", NULL, "v2: the day's matched relative, 12 decimals"},
    {2, "n_matched", "integer", "members", NULL, "v2: members of the matched sample"},
    {2, "n_matched_providers", "integer", "provider groups", NULL,
     "v2: providers of the matched sample"},
    {2, "panel_change", "boolean", NULL, NULL,
     "v2: 1 when a constituent entered or left since the chain's previous fixed day"},
    {2, "event", "string", NULL, "start|rebalance|reanchor", "v2: the chain's event of the day"},
    {2, "splice", "number", "ratio", NULL, "v2: the splice on rebalance and reanchor days, 12 decimals"},
    {2, "note", "string", NULL, NULL, "why the day is carried or suspended, in words"},
    {3, "loo_move", "number", USD_GH, NULL,
     "the largest move of the value when one provider group is left out, 4 decimals"},
    {3, "cost_tick_gpu_hours", "number", "GPU-hours", NULL,
     "the trades one new participant must add to move the value one tick, 2 decimals"},
    {3, "cost_1pct_gpu_hours", "number", "GPU-hours", NULL,
     "the trades one new participant must add to move the value 1 %, 2 decimals"},
    {3, "cost_tick_offers", "integer", "offers", NULL,
     "1 when one new offer moves the value one tick, else empty"},
    {3, "cost_1pct_offers", "integer", "offers", NULL,
     "1 when one new offer moves the value 1 %, else empty"},
    /* format 4: computed at publication (commit.c), so only a vintage's
     * index.csv has them (index show and the site leave them empty) */
    {4, "ci_low", "number", USD_GH, NULL,
     "the low end of the fix's 95 % bootstrap interval over its provider groups, 4 decimals; "
     "empty when none (METHODOLOGY.md section 12.2)"},
    {4, "ci_high", "number", USD_GH, NULL,
     "the high end of the fix's 95 % bootstrap interval, 4 decimals; empty when none"},
    {4, "confidence", "string", NULL, "normal|low|withheld",
     "the fix's confidence flag (its rule: index.json's confidence_rule)"},
    {4, "stale_share", "number", "share (0 to 1)", NULL,
     "the share of the fix's provider groups whose every used offer's price had stood 30 days "
     "or more, 6 decimals; empty when the day has no fix of its own"},
    /* format 4: methodology v3's, stored with the row (index/v3_row.c);
     * empty on v1 and v2 rows (METHODOLOGY.md section 13.7) */
    {4, "price_index", "number", "index points", NULL,
     "v3: the price index, base 100 on the grade's first fixed day (index.json v3.index."
     "base_date), never re-anchored, 6 decimals; it never settles"},
    {4, "index_change", "number", "ratio", NULL,
     "v3: the price index's change of the day, exp of the equal-provider mean of the panel "
     "members' log relatives, 12 decimals; empty on the base day"},
    {4, "composition_gap", "number", "ratio", NULL,
     "v3: the value's change of the day less the index's (value / the day before's value - "
     "index_change), signed, 6 decimals"},
    {4, "composition_gap_month", "number", "ratio", NULL,
     "v3: the same since the previous month's last day, signed, 6 decimals"},
    {4, "panel_size", "integer", "provider groups", NULL,
     "v3: members of the panel on the day, present and imputed"},
    {4, "n_imputed", "integer", "provider groups", NULL,
     "v3: members absent on the day, carried at their last observations"},
    {4, "n_candidates", "integer", "provider groups", NULL,
     "v3: groups with observations that are not (yet) in the panel"},
    {4, "index_providers", "integer", "provider groups", NULL,
     "v3: members whose relative entered the index's change"},
};

static const pub_column obs_cols[] = {
    {1, "date", "date", NULL, NULL, "the day of the fix"},
    {1, "grade", "string", NULL, NULL, "the grade whose fix the observation entered or left"},
    {1, "kind", "string", NULL, "offer|trade", "an advertised offer or a completed trade"},
    {1, "observed_at", "datetime", NULL, NULL, "when the source observed it (UTC)"},
    {1, "provider", "string", NULL, NULL, "the seller (canonical name, data/providers.csv)"},
    {1, "group", "string", NULL, NULL, "the seller's owner group (one provider for every minimum and cap)"},
    {1, "source", "string", NULL, NULL, "the feed it came from"},
    {1, "key", "string", NULL, NULL,
     "the observation's identity hash: 16 hex digits of FNV-1a 64 (docs/ingest.md)"},
    {1, "region", "string", NULL, NULL, "the region as the feed writes it"},
    {1, "price", "number", USD_GH, NULL, "the normalized price, 6 decimals"},
    {1, "quantity", "number", "GPU-hours for trades, GPUs for offers", NULL,
     "the quantity as stored: a trade's GPU-hours or an offer's available GPUs, 6 decimals; "
     "file format 4 gives each in a column of its own unit (traded_gpu_hours, offered_gpus) "
     "and keeps this one for one more format"},
    {1, "role", "string", NULL, "used|excluded|candidate",
     "whether it entered the fix or was excluded; v3: candidate, its group not (yet) in the "
     "panel (METHODOLOGY.md section 13.2)"},
    {1, "reason", "string", NULL, NULL,
     "why it was excluded: above F x provider median, below 1/F x provider median, cancelled "
     "trade or affiliate trade; v3, a candidate's: not in the panel: present N of A days"},
    {2, "matched", "boolean", NULL, NULL,
     "v2: 1 when it is in the day's matched sample; v3: 1 when it entered the price index's "
     "change"},
    {2, "ref_price", "number", USD_GH, NULL,
     "v2: its price on the reference day; v3: the price it was matched to (the identity's last "
     "price, a trade's group's last representative price); 8 decimals"},
    {2, "base_price", "number", USD_GH, NULL, "v2: its base price, 8 decimals"},
    {2, "relative", "number", "ratio", NULL,
     "v2: its price over its base price; v3: over ref_price; 12 decimals"},
    {4, "traded_gpu_hours", "number", "GPU-hours", NULL,
     "a trade's quantity, 6 decimals; empty for an offer"},
    {4, "offered_gpus", "number", "GPUs", NULL,
     "an offer's available GPUs, 6 decimals; empty for a trade or when the feed gives none"},
    {4, "imputed", "boolean", NULL, NULL,
     "v3: 1 for a carried observation of an imputed panel member (listed as it entered the fix "
     "on its last day present), 0 for the grade's other lines; empty for a v1 or v2 grade "
     "(METHODOLOGY.md section 13.7)"},
};

static const pub_column restatement_cols[] = {
    {1, "date", "date", NULL, NULL, "the day restated"},
    {1, "grade", "string", NULL, NULL, "the grade restated"},
    {1, "vintage", "integer", NULL, NULL, "the vintage that restated it"},
    {1, "old", "number", USD_GH, NULL, "the value published before, 4 decimals"},
    {1, "new", "number", USD_GH, NULL, "the value now published, 4 decimals"},
    {1, "reason", "string", NULL, NULL, "why, in words (METHODOLOGY.md section 6.3)"},
};

/* curve.csv (file format 4: publish/curve.c, curve/format.c writes it) */
static const pub_column curve_cols[] = {
    {4, "date", "date", NULL, NULL, "the day of the curve (UTC): its front is the day's value"},
    {4, "grade", "string", NULL, NULL, "the grade id"},
    {4, "tenor", "integer", "months", NULL,
     "the month ahead, 1..36 (a month is 365.25/12 days from the end of the day)"},
    {4, "term_rate", "number", USD_GH, NULL,
     "the average rent locked for tenor months from the day, 4 decimals; empty when withheld"},
    {4, "forward", "number", USD_GH, NULL,
     "the rent of month tenor alone (the monthly forward), 4 decimals; empty when withheld"},
    {4, "status", "string", NULL, "fitted|interpolated|withheld",
     "fitted: an input ends in the tenor; interpolated: between inputs; withheld: no number"},
    {4, "reason", "string", NULL, NULL,
     "why the tenor is withheld, in words (METHODOLOGY.md \"Term curve\"); empty otherwise"},
};

#define TABLE(c) c, sizeof c / sizeof c[0]
const pub_table pub_index_csv = {"index.csv", "The day's benchmark values, one row per grade",
                                 TABLE(index_cols), "date,grade"};
const pub_table pub_observations_csv = {
    "observations.csv", "Every observation that entered a fix or was excluded from it",
    TABLE(obs_cols), NULL};
const pub_table pub_curve_csv = {"curve.csv",
                                 "Each grade's term curve of the day: 36 monthly tenors",
                                 TABLE(curve_cols), "date,grade,tenor"};
const pub_table pub_restatements_csv = {"restatements.csv",
                                        "Every restated value of every published day",
                                        TABLE(restatement_cols), NULL};

size_t pub_columns_n(const pub_table *t, int format)
{
    size_t n = 0;
    while (n < t->n && t->cols[n].since <= format) n++;
    return n;
}

void pub_columns_header(FILE *f, const pub_table *t, int format)
{
    size_t n = pub_columns_n(t, format);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? "," : "", t->cols[i].name);
    fputc('\n', f);
}

/* A "|"- or ","-separated list as a JSON array of strings. */
static json_t *list(const char *s, char sep)
{
    json_t *a = json_array();
    while (a && s && *s) {
        const char *e = strchr(s, sep);
        size_t n = e ? (size_t)(e - s) : strlen(s);
        json_array_append_new(a, json_stringn(s, n));
        s = e ? e + 1 : NULL;
    }
    return a;
}

static json_t *field(const pub_column *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "type", json_string(c->type));
    json_object_set_new(o, "description", json_string(c->desc));
    if (c->unit) json_object_set_new(o, "unit", json_string(c->unit));
    if (strcmp(c->type, "boolean") == 0) {
        json_object_set_new(o, "trueValues", list("1", ','));
        json_object_set_new(o, "falseValues", list("0", ','));
    }
    if (c->values) {
        json_t *k = json_object();
        json_object_set_new(k, "enum", list(c->values, '|'));
        json_object_set_new(o, "constraints", k);
    }
    return o;
}

static json_t *resource(const pub_table *t, const char *path, const char *name, int format)
{
    json_t *r = json_object();
    const char *dot = strrchr(t->file, '.');
    if (name)
        json_object_set_new(r, "name", json_string(name));
    else
        json_object_set_new(r, "name", json_stringn(t->file, dot ? (size_t)(dot - t->file)
                                                                  : strlen(t->file)));
    json_object_set_new(r, "path", json_string(path));
    json_object_set_new(r, "profile", json_string("tabular-data-resource"));
    json_object_set_new(r, "title", json_string(t->title));
    json_object_set_new(r, "format", json_string("csv"));
    json_object_set_new(r, "mediatype", json_string("text/csv"));
    json_object_set_new(r, "encoding", json_string("utf-8"));
    json_t *dl = json_object();
    json_object_set_new(dl, "delimiter", json_string(","));
    json_object_set_new(dl, "quoteChar", json_string("\""));
    json_object_set_new(dl, "doubleQuote", json_true());
    json_object_set_new(dl, "lineTerminator", json_string("\n"));
    json_object_set_new(dl, "header", json_true());
    json_object_set_new(r, "dialect", dl);
    json_t *schema = json_object(), *fields = json_array();
    size_t n = pub_columns_n(t, format);
    for (size_t i = 0; i < n; i++) json_array_append_new(fields, field(&t->cols[i]));
    json_object_set_new(schema, "fields", fields);
    json_t *missing = json_array(); /* an empty field is no value */
    json_array_append_new(missing, json_string(""));
    json_object_set_new(schema, "missingValues", missing);
    if (t->key) json_object_set_new(schema, "primaryKey", list(t->key, ','));
    json_object_set_new(r, "schema", schema);
    return r;
}

/* A JSON file of the package, described by schema/signature.schema.json. */
static json_t *json_resource(const char *name, const char *path, const char *title)
{
    json_t *r = json_object();
    json_object_set_new(r, "name", json_string(name));
    json_object_set_new(r, "path", json_string(path));
    json_object_set_new(r, "title", json_string(title));
    json_object_set_new(r, "format", json_string("json"));
    json_object_set_new(r, "mediatype", json_string("application/json"));
    json_object_set_new(r, "encoding", json_string("utf-8"));
    json_object_set_new(r, "description",
                        json_string("Described by schema/signature.schema.json of the gpuidx "
                                    "source (JSON Schema 2020-12); METHODOLOGY.md §7.3 says "
                                    "what is signed and how to check it."));
    return r;
}

void pub_datapackage(FILE *f, const char *name, const char *title, const pub_table *const *t,
                     const char *const *paths, size_t n, int format, int json)
{
    pub_datapackage_named(f, name, title, t, paths, NULL, n, format, json);
}

void pub_datapackage_named(FILE *f, const char *name, const char *title,
                           const pub_table *const *t, const char *const *paths,
                           const char *const *names, size_t n, int format, int json)
{
    json_t *p = json_object();
    json_object_set_new(p, "profile", json_string("data-package"));
    json_object_set_new(p, "name", json_string(name));
    json_object_set_new(p, "title", json_string(title));
    json_t *lic = json_object();
    json_object_set_new(lic, "name", json_string(PUB_LICENSE));
    json_object_set_new(lic, "path", json_string("https://www.apache.org/licenses/LICENSE-2.0"));
    json_object_set_new(lic, "title", json_string("Apache License 2.0"));
    json_t *lics = json_array();
    json_array_append_new(lics, lic);
    json_object_set_new(p, "licenses", lics);
    json_object_set_new(p, "gpuidx_file_format", json_integer(format));
    json_t *res = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(res, resource(t[i], paths[i], names ? names[i] : NULL, format));
    if (json & PUB_PKG_INDEX_JSON) {
        json_t *r = json_object();
        json_object_set_new(r, "name", json_string("index-json"));
        json_object_set_new(r, "path", json_string("index.json"));
        json_object_set_new(r, "title", json_string("The same values with each row's "
                                                    "definition, units and receipt"));
        json_object_set_new(r, "format", json_string("json"));
        json_object_set_new(r, "mediatype", json_string("application/json"));
        json_object_set_new(r, "encoding", json_string("utf-8"));
        json_object_set_new(r, "description",
                            json_string("Described by schema/index.schema.json of the gpuidx "
                                        "source (JSON Schema 2020-12)."));
        json_array_append_new(res, r);
    }
    if (json & PUB_PKG_SIGNATURE)
        json_array_append_new(res, json_resource("signature-json", "signature.json",
                                                 "The vintage's Ed25519 signature over its "
                                                 "files' SHA-256s"));
    if (json & PUB_PKG_RESTATEMENTS_SIG)
        json_array_append_new(res, json_resource("restatements-signature-json",
                                                 "restatements.signature.json",
                                                 "The Ed25519 signature over restatements.csv's "
                                                 "SHA-256"));
    json_object_set_new(p, "resources", res);
    json_dumpf(p, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    fputc('\n', f);
    json_decref(p);
}

void pub_datapackage_day(FILE *f, int32_t day, int k, int format, int is_signed)
{
    char date[11], name[64], title[128];
    gpi_date_format(day, date);
    if (k > 0) {
        snprintf(name, sizeof name, "gpuidx-%s-v%d", date, k);
        snprintf(title, sizeof title, "gpuidx index of %s, vintage %d", date, k);
    } else {
        snprintf(name, sizeof name, "gpuidx-%s", date);
        snprintf(title, sizeof title, "gpuidx index of %s, its latest vintage", date);
    }
    /* the term curve's curve.csv from file format 4 (PUB_FORMAT_CURVE of
     * publish/internal.h; publish/curve.c) */
    const pub_table *const t[3] = {&pub_index_csv, &pub_observations_csv, &pub_curve_csv};
    const char *const paths[3] = {"index.csv", "observations.csv", "curve.csv"};
    size_t nt = format >= 4 ? 3 : 2;
    pub_datapackage(f, name, title, t, paths, nt, format,
                    PUB_PKG_INDEX_JSON | (is_signed ? PUB_PKG_SIGNATURE : 0));
}

void pub_datapackage_restatements(FILE *f, int is_signed)
{
    const pub_table *const t[1] = {&pub_restatements_csv};
    const char *const paths[1] = {"restatements.csv"};
    pub_datapackage(f, "gpuidx-restatements", "gpuidx restatements of the published days", t,
                    paths, 1, PUB_FORMAT_CURRENT, is_signed ? PUB_PKG_RESTATEMENTS_SIG : 0);
}
