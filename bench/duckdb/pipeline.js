#!/usr/bin/env node
/* bench/duckdb/pipeline.js -- METHODOLOGY.md v1 (SPEC §6) in DuckDB SQL.
 *
 * The DuckDB peer of bench/index: the same job as `gpuidx ingest offers|trades`
 * + `gpuidx index build` (canonical CSV in, one row per grade-day out, in the
 * columns of `gpuidx index show` up to top_provider_share), written as SQL a
 * data team would write for DuckDB: read_csv, small dimension tables for the
 * normalisation, a join of the observations with the grades, GROUP BY and
 * window functions, every intermediate result a table.  Node only drives it
 * (npm's @duckdb/node-api, installed outside the repository by
 * `sh bench/duckdb-setup`; the version pinned by bench/duckdb/package.json).
 *
 *   node bench/duckdb/pipeline.js --offers F --trades F --grades F --data DIR
 *        --from YYYY-MM-DD --to YYYY-MM-DD --out F [--admit-providers]
 *        [--threads N] [--db FILE] [--verbose]
 *   node bench/duckdb/pipeline.js --version
 *
 * --db keeps the working tables in a DuckDB file for inspection (default: in
 * memory); --threads defaults to the CPUs the process may run on (one under
 * `taskset -c 0`); --verbose times each statement.  Exit status: 0 ok,
 * 1 error, 2 usage, 3 @duckdb/node-api not installed.
 *
 * NOTES ON THE DESIGN
 * (0) Loading.  Materialising a CSV's text columns is most of the cost of a
 *     naive load, so each file is read twice: pass 1 keeps only the distinct
 *     combinations of its categorical columns (keyed by a 64-bit hash of
 *     them), which are normalised once as a small table (adim: canonical
 *     provider, group, segment and GPU through data/, codes, divisor,
 *     validity) and matched with the grades' static filters (ag); pass 2
 *     keeps per row only integers: the combination, time, the offer key (a
 *     64-bit hash of source and identity, as gpuidx's key_hash) and the
 *     exact price and quantity.
 * (1) Exact where gpuidx is.  A price is parsed from its text (mantissa and
 *     scale), converted with fx.csv's exact decimal and divided by the GPU
 *     count and 730 h/month, rounded once half-up to integer micro-USD per
 *     GPU-hour (in BIGINT when no FX and at most 6 decimals, else HUGEINT);
 *     quantities are integer micro-GPU-hours.  The error screen compares
 *     2 p 10^6 with F_e6 x 2 median in integers.  Medians of integer prices
 *     are DuckDB's median (a DOUBLE): (a+b)/2 of integers below 2^52 is
 *     exact in binary, so 2 x median is an exact integer in half-micro, and
 *     the median of provider medians an exact integer in quarter-micro --
 *     the argument of index/method.c note 2.
 * (2) Provider cap and weighted median, exactly.  Providers ranked by volume
 *     descending; k = the first rank r with (sd - r sn) V_r <= sn U_r (U_r the
 *     volume of ranks >= r), s = sn/sd = max(cap_floor, 1/n) in lowest
 *     terms.  Every trade gets the integer weight q c where c = (sd - k sn) P
 *     for an uncapped provider and c = sn U P / V_j for capped provider j
 *     (P = the product of the capped volumes, U = the uncapped volume); the
 *     total weight is R = sd U P, so "cumulative weight >= half" is
 *     2 cum >= R in HUGEINT, exactly (method.c note 4 with the denominators
 *     cleared per trade instead of per class).  Volumes are first divided by
 *     the greatest common divisor of the day's quantities (whole GPU-hours
 *     in the benchmark market), which keeps P within 128 bits; a market
 *     whose products still overflow stops with DuckDB's "Overflow in
 *     HUGEINT" error rather than giving an inexact number.
 * (3) Adjustment: the qualifying days' ratios t/o are ranked by cross
 *     multiplication (a self-join of at most 30 x 30 per offers day), the
 *     median is (t1/o1 + t2/o2)/2 of the middle ranks, rounded half-up to
 *     6 decimals in HUGEINT; value = round(raw x a) half-up at 0.0001
 *     (rounding), in integers.
 * (4) The per-day sequence (trades, else offers, else carried at most
 *     max_carry_days, else suspended) is a window over each grade's days:
 *     carried iff the last fixed day is at most max_carry_days back.  Days
 *     from `from` - (adj_lookback_days + max_carry_days + 1) are computed,
 *     as index build replays them.
 * (5) Percentiles: GSL's interpolation (index = f (n-1)) computed exactly in
 *     integers, a + rem (b - a) / 100 rounded half-up to the micro-USD;
 *     gpuidx rounds GSL's double to 12 significant digits first, which is
 *     the same for any price below 10,000 USD/GPU-hour.
 * (6) Simplifications (stated in BENCHMARKS.md): a row is checked only for
 *     what the method needs (known GPU, provider unless --admit-providers,
 *     the enumerations, GPU count, term, price, quantity, FX rate), not for
 *     everything ingest checks; rows repeating an identity and time
 *     (ingest's duplicates) are not looked for (the benchmark market has
 *     none); ties of time between two snapshots of an offer within a day are
 *     broken arbitrarily; only v1 grades; no publication files.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createRequire } = require('module');

function duckdbDir() {
    if (process.env.GPUIDX_DUCKDB_DIR) return process.env.GPUIDX_DUCKDB_DIR;
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    return path.join(cache, 'gpuidx', 'duckdb');
}

/* The installed @duckdb/node-api and its version, or null. */
function loadDuckDB() {
    try {
        const req = createRequire(path.join(duckdbDir(), 'package.json'));
        return { api: req('@duckdb/node-api'), version: req('@duckdb/node-api/package.json').version };
    } catch (e) {
        return null;
    }
}

function die(msg, code) {
    process.stderr.write('duckdb pipeline: ' + msg + '\n');
    process.exit(code === undefined ? 1 : code);
}

/* ---- arguments ---------------------------------------------------------- */

function parseArgs(argv) {
    const a = { admit: false, verbose: false };
    const val = { '--offers': 'offers', '--trades': 'trades', '--grades': 'grades', '--data': 'data',
                  '--from': 'from', '--to': 'to', '--out': 'out', '--threads': 'threads',
                  '--db': 'db' };
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        if (k === '--admit-providers') a.admit = true;
        else if (k === '--verbose') a.verbose = true;
        else if (k === '--version') a.version = true;
        else if (val[k] && i + 1 < argv.length) a[val[k]] = argv[++i];
        else die('usage: pipeline.js --offers F --trades F --grades F --data DIR --from D --to D ' +
                 '--out F [--admit-providers] [--threads N] [--db FILE] [--verbose] (got "' + k + '")', 2);
    }
    if (a.version) return a;
    for (const k of ['offers', 'trades', 'grades', 'from', 'to', 'out'])
        if (!a[k]) die('--' + k + ' is required', 2);
    a.data = a.data || 'data';
    return a;
}

const DAY_MS = 86400000;
function dayOf(s, what) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || isNaN(Date.parse(s + 'T00:00:00Z')))
        die(what + ': not a date YYYY-MM-DD (got "' + s + '")', 2);
    return Date.parse(s + 'T00:00:00Z') / DAY_MS;
}

/* ---- the small tables of data/ ------------------------------------------ */

/* RFC 4180 CSV with '#' comment lines; returns [{col: value}] with .line. */
function readTable(file) {
    const text = fs.readFileSync(file, 'utf8');
    const rows = [];
    let header = null, line = 0;
    for (const raw of text.split('\n')) {
        line++;
        const s = raw.replace(/\r$/, '');
        if (s === '' || s.startsWith('#')) continue;
        const f = [];
        let cur = '', q = false;
        for (let i = 0; i < s.length; i++) {
            const c = s[i];
            if (q) {
                if (c === '"' && s[i + 1] === '"') cur += '"', i++;
                else if (c === '"') q = false;
                else cur += c;
            } else if (c === '"') q = true;
            else if (c === ',') f.push(cur), cur = '';
            else cur += c;
        }
        f.push(cur);
        if (!header) { header = f.map((x) => x.trim().toLowerCase()); continue; }
        const r = { line };
        header.forEach((h, i) => { r[h] = f[i] === undefined ? '' : f[i]; });
        rows.push(r);
    }
    return rows;
}

const foldName = (s) => s.trim().split(/[ \t]+/).join(' ').toLowerCase();
const foldGpu = (s) => s.replace(/[ \t_-]/g, '').toLowerCase();
const q = (s) => (s === null || s === undefined ? 'NULL' : "'" + String(s).replace(/'/g, "''") + "'");
const qlist = (v) => (v === null ? 'NULL' : '[' + v.map(q).join(', ') + ']::VARCHAR[]');

/* ---- grades --------------------------------------------------------------- */

const TIERS = ['unrated', 'underperform', 'bronze', 'silver', 'gold', 'platinum'];
const SCOPES = ['bare-metal', 'managed', 'vm', 'container'];
const TERMS = ['on-demand', 'spot', 'reserved'];
const COVERS = ['instance', 'gpu-only', 'cpu-heavy', 'partial-gpu'];
const UNITS = ['gpu-hour', 'instance-hour', 'gpu-month', 'instance-month'];

/* An exact decimal (JSON number or string) in units of 10^-digits. */
function units(v, digits, where) {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(String(v));
    if (!m) die(where + ': not a plain decimal (got ' + JSON.stringify(v) + ')');
    const frac = (m[2] || '').padEnd(digits, '0');
    if (frac.length > digits && /[1-9]/.test(frac.slice(digits)))
        die(where + ': more than ' + digits + ' decimals (got ' + v + ')');
    return BigInt(m[1]) * 10n ** BigInt(digits) + BigInt(frac.slice(0, digits) || '0');
}

function loadGrades(file, gpus, rgroups) {
    let doc;
    try { doc = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { die(file + ': ' + e.message); }
    const canon = new Set(gpus.filter((g) => g.canonical).map((g) => g.canonical.toLowerCase()));
    const alias = new Map(); /* rows valid for every provider and sku */
    for (const g of gpus) if (g.canonical && !g.provider && !g.sku_glob && !alias.has(g.alias))
        alias.set(g.alias, g.canonical.toLowerCase());
    const known = new Set(['id', 'version', 'gpu', 'scope', 'min_tier', 'term', 'regions', 'providers',
                           'segments', 'skus', 'exclude_providers', 'covers', 'method', 'min_providers',
                           'error_factor', 'min_trade_volume', 'cap_floor', 'max_carry_days',
                           'adj_lookback_days', 'adj_min_days', 'restate_threshold', 'rounding']);
    const list = (g, k, w) => {
        if (g[k] === undefined) return null;
        if (!Array.isArray(g[k])) die(w + '.' + k + ': not a list');
        return g[k].includes('*') ? null : g[k].map(String);
    };
    const out = (doc.grades || []).map((g, i) => {
        const w = file + ': grades[' + i + ']';
        for (const k of Object.keys(g)) if (!known.has(k)) die(w + '.' + k + ': not supported by the DuckDB peer');
        if ((g.method || 'v1') !== 'v1') die(w + '.method: only v1 (got "' + g.method + '")');
        const gpu = (g.gpu || []).map((x) => {
            const l = String(x).toLowerCase();
            if (canon.has(l)) return l;
            const a = alias.get(foldGpu(String(x)));
            if (!a) die(w + '.gpu: unknown GPU model (got "' + x + '")');
            return a;
        });
        if (!gpu.length) die(w + '.gpu: required');
        const scopes = g.scope === undefined ? SCOPES : g.scope;
        let scopeMask = 0;
        for (const s of scopes) {
            const k = SCOPES.indexOf(String(s).toLowerCase());
            if (k < 0) die(w + '.scope: unknown scope (got "' + s + '")');
            scopeMask |= 1 << k;
        }
        let coversMask = 15;
        if (g.covers !== undefined) {
            coversMask = 0;
            for (const s of g.covers) {
                const k = COVERS.indexOf(String(s).toLowerCase());
                if (k < 0) die(w + '.covers: unknown (got "' + s + '")');
                coversMask |= 1 << k;
            }
        }
        const tier = TIERS.indexOf(String(g.min_tier || 'unrated').toLowerCase());
        if (tier < 0) die(w + '.min_tier: unknown tier (got "' + g.min_tier + '")');
        const termS = String(g.term || 'on-demand').toLowerCase();
        let term, mmin = 0, mmax = 0;
        const r = /^reserved:(\d+)-(\d+)$/.exec(termS);
        if (r) term = 2, mmin = +r[1], mmax = +r[2];
        else if ((term = TERMS.indexOf(termS)) < 0 || term === 2) die(w + '.term: unknown (got "' + g.term + '")');
        let regions = list(g, 'regions', w);
        if (regions) regions = regions.flatMap((e) => {
            const globs = rgroups.filter((x) => x.group.toLowerCase() === e.toLowerCase()).map((x) => x.region);
            return globs.length ? globs : [e];
        });
        const int = (k, d) => (g[k] === undefined ? d : Number(g[k]));
        return {
            id: String(g.id), gpu, scopeMask, coversMask, tier, term, mmin, mmax, regions,
            providers: list(g, 'providers', w), segments: list(g, 'segments', w),
            skus: list(g, 'skus', w), excl: g.exclude_providers ? g.exclude_providers.map(String) : null,
            minProv: int('min_providers', 3),
            fE6: g.error_factor === undefined ? 3000000n : units(g.error_factor, 6, w + '.error_factor'),
            minVol: g.min_trade_volume === undefined ? 1000000000n : units(g.min_trade_volume, 6, w + '.min_trade_volume'),
            capE6: g.cap_floor === undefined ? 300000n : units(g.cap_floor, 6, w + '.cap_floor'),
            maxCarry: int('max_carry_days', 5), lookback: int('adj_lookback_days', 30),
            minDays: int('adj_min_days', 5),
            stepE4: g.rounding === undefined ? 1n : units(g.rounding, 4, w + '.rounding'),
        };
    });
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out;
}

/* ---- SQL -------------------------------------------------------------------- */

const POW10 = '[' + Array.from({ length: 39 }, (_, i) => "'1" + '0'.repeat(i) + "'::HUGEINT").join(', ') + ']';

const POW10B = '[' + Array.from({ length: 19 }, (_, i) => '1' + '0'.repeat(i)).join(', ') + ']::BIGINT[]';

const MACROS = `
CREATE MACRO fold(s) AS lower(trim(regexp_replace(s, '[ \\t]+', ' ', 'g')));
CREATE MACRO gfold(s) AS lower(regexp_replace(s, '[ \\t_-]', '', 'g'));
CREATE MACRO p10(n) AS ${POW10}[n + 1];
CREATE MACRO p10b(n) AS (${POW10B})[n + 1];
-- a / b rounded half-up, a >= 0, b > 0 (gpi_div_round)
CREATE MACRO rdiv(a, b) AS (2 * CAST(a AS HUGEINT) + b) // (2 * CAST(b AS HUGEINT));
-- the scale of a decimal's text
CREATE MACRO dscale(s) AS CASE WHEN instr(s, '.') = 0 THEN 0 ELSE length(s) - instr(s, '.') END;
-- grade lists: case-insensitive names or globs (fnmatch FNM_CASEFOLD)
CREATE MACRO in_list(l, s) AS len(list_filter(l, lambda p: lower(coalesce(s, '')) GLOB lower(p))) > 0;
-- an enumeration's index, NULL when absent, -1 when not one of names
CREATE MACRO enum_code(s, names) AS CASE WHEN s IS NOT NULL THEN coalesce(list_position(names, lower(s)), 0) - 1 END;
CREATE MACRO fmt2(v) AS printf('%d.%02d', v // 100, v % 100);
CREATE MACRO fmt4(v) AS printf('%d.%04d', v // 10000, v % 10000);
CREATE MACRO fmt6(v) AS printf('%d.%06d', v // 1000000, v % 1000000);
`;

/* ---- loading: two passes over each file -----------------------------------
 * Materialising a CSV's text columns is most of the cost of a naive load, so
 * pass 1 reads only the distinct combinations of the categorical columns (a
 * 64-bit hash of them, like gpuidx's own key hashes, and one copy of each),
 * which are normalised once, as a small table; pass 2 reads the file again and
 * keeps per row only integers: the combination, time, offer key, exact price
 * and quantity.
 */
const ATTRS = ['kind', 'provider', 'region', 'gpu', 'sku', 'gpu_count', 'currency', 'unit', 'scope', 'tier',
               'term', 'term_months', 'buyer', 'status'];

/* The file with the columns the pipeline reads (absent ones NULL). */
function csvSource(file, have) {
    const cols = ['id', 'observed_at', 'source', 'price', 'quantity', ...ATTRS];
    const sel = cols.map((c) => (have.has(c) ? '"' + c + '"' : 'NULL::VARCHAR') + ' AS ' + c).join(', ');
    return `(SELECT ${sel} FROM read_csv(${q(file)}, header = true, all_varchar = true))`;
}

const ckey = (f, r) => `hash('${f}', ${ATTRS.map((c) => r + c).join(', ')})`;

function sqlAttrs(f, file, have) {
    return `
CREATE TABLE ${f}_attr AS
SELECT ${ckey(f, '')} AS ck, '${f}' AS f, ${ATTRS.map((c) => `first(${c}) AS ${c}`).join(', ')},
  count(*) AS n
FROM ${csvSource(file, have)} GROUP BY ck;`;
}

/* adim: every combination normalised (design note 6 says what is checked);
 * ag: the (combination, grade) pairs the grade's static filters admit. */
function sqlDims(admit, lo, hi) {
    return `
CREATE TABLE attr AS SELECT * FROM o_attr UNION ALL SELECT * FROM t_attr;

CREATE TABLE pdim AS
WITH names AS (SELECT provider AS raw FROM attr UNION SELECT buyer FROM attr WHERE buyer IS NOT NULL)
SELECT n.raw, coalesce(p.provider, fold(n.raw)) AS prov, coalesce(p.grp, fold(n.raw)) AS grp,
       coalesce(p.segment, 'unknown') AS seg, p.provider IS NOT NULL AS known
FROM names n LEFT JOIN prov_t p ON p.alias = fold(n.raw);

CREATE TABLE gdim AS
WITH d AS (SELECT DISTINCT a.gpu, p.prov, coalesce(a.sku, '') AS sku
           FROM attr a JOIN pdim p ON p.raw = a.provider),
hit AS (
  SELECT d.gpu, d.prov, d.sku, g.canonical, 0 AS pass, g.spec, g.glen, g.ord
  FROM d JOIN gpus_t g ON g.alias = gfold(d.gpu) AND NOT g.is_glob
  WHERE (g.provider IS NULL OR g.provider = d.prov) AND (g.sku_glob IS NULL OR lower(d.sku) GLOB g.sku_glob)
  UNION ALL
  SELECT d.gpu, d.prov, d.sku, g.canonical, 1, 0, 0, g.ord
  FROM d JOIN gpus_t g ON g.is_glob AND gfold(d.gpu) GLOB g.alias
  WHERE (g.provider IS NULL OR g.provider = d.prov) AND (g.sku_glob IS NULL OR lower(d.sku) GLOB g.sku_glob))
SELECT d.gpu, d.prov, d.sku,
       (SELECT lower(h.canonical) FROM hit h WHERE h.gpu = d.gpu AND h.prov = d.prov AND h.sku = d.sku
        ORDER BY h.pass, h.spec DESC, h.glen DESC, h.ord LIMIT 1) AS gpu_c
FROM d;

CREATE TABLE adim AS
WITH r AS (
  -- the skus.csv rule of each (provider, sku): the most specific, then the earlier row
  SELECT m.prov, m.sku, s.cnt AS r_cnt, s.covers AS r_covers, s.unit AS r_unit
  FROM (SELECT d.prov, d.sku, min(s.rk) AS rk
        FROM (SELECT DISTINCT p.prov, coalesce(a.sku, '') AS sku FROM attr a JOIN pdim p ON p.raw = a.provider) d
        JOIN skus_t s ON (s.prov IS NULL OR s.prov = d.prov) AND lower(d.sku) GLOB s.pat
        GROUP BY d.prov, d.sku) m
  JOIN skus_t s USING (rk)),
c AS (
  SELECT a.*, p.prov, p.grp, p.seg, p.known, g.gpu_c, r.r_cnt, r.r_covers, r.r_unit,
    enum_code(a.kind, ['offer', 'trade']) AS kind_c,
    CASE WHEN a.unit IS NOT NULL THEN enum_code(a.unit, ${qlist(UNITS)})
         ELSE coalesce(r.r_unit, 0) END AS unit_c,
    coalesce(enum_code(a.scope, ${qlist(SCOPES)}), 2) AS scope_c,
    enum_code(a.tier, ${qlist(TIERS)}) AS tier_g,
    coalesce(enum_code(a.term, ${qlist(TERMS)}), 0) AS term_c,
    coalesce(enum_code(a.status, ['ok', 'cancelled', 'affiliate']), 0) AS st_g,
    TRY_CAST(a.gpu_count AS DOUBLE) AS cnt_d, TRY_CAST(a.term_months AS DOUBLE) AS months_d,
    upper(coalesce(a.currency, 'USD')) AS cur, b.grp AS buyer_grp
  FROM attr a LEFT JOIN pdim p ON p.raw = a.provider LEFT JOIN pdim b ON b.raw = a.buyer
  LEFT JOIN gdim g ON g.gpu = a.gpu AND g.prov = p.prov AND g.sku = coalesce(a.sku, '')
  LEFT JOIN r ON r.prov = p.prov AND r.sku = coalesce(a.sku, ''))
SELECT ck, f, row_number() OVER () AS aid, prov, grp, dense_rank() OVER (ORDER BY grp) AS grp_id, seg,
  coalesce(region, '') AS region, sku, provider AS raw_provider, gpu AS raw_gpu, gpu_c,
  scope_c, tier_g, term_c, unit_c, coalesce(CAST(months_d AS INTEGER), 0) AS months,
  coalesce(r_covers, 0) AS covers_c, coalesce(CAST(cnt_d AS BIGINT), 1) AS cnt,
  (CASE WHEN unit_c IN (1, 3) THEN coalesce(r_cnt, CAST(cnt_d AS BIGINT), 1) ELSE 1 END) *
    (CASE WHEN unit_c IN (2, 3) THEN 730 ELSE 1 END) AS div,
  CASE WHEN cur <> 'USD' THEN cur END AS fx_cur,
  CASE WHEN st_g = 0 AND buyer_grp IS NOT NULL AND lower(buyer_grp) = lower(grp) THEN 2 ELSE st_g END AS st,
  gpu_c IS NOT NULL AND prov IS NOT NULL ${admit ? '' : 'AND known'}
    AND (kind_c IS NULL OR kind_c = (CASE f WHEN 'o' THEN 0 ELSE 1 END))
    AND unit_c >= 0 AND scope_c >= 0 AND (tier_g IS NULL OR tier_g >= 0) AND term_c >= 0 AND st_g >= 0
    AND (f = 't' OR st_g = 0)
    AND (term_c = 2) = (months_d IS NOT NULL) AND (term_c <> 2 OR months_d BETWEEN 1 AND 60)
    AND (cnt_d IS NULL OR cnt_d BETWEEN 1 AND 100000) AND (unit_c NOT IN (1, 3) OR cnt_d IS NOT NULL)
    AND (unit IS NOT NULL OR r_unit IS NOT NULL OR coalesce(cnt_d, 1) <= 1)
    AND (cur = 'USD' OR cur IN (SELECT cur FROM fx_t)) AS valid
FROM c;

CREATE TABLE ag AS
SELECT a.aid, g.gid, g.min_tier
FROM adim a JOIN ggpu g ON g.gpu = a.gpu_c AND g.term = a.term_c
WHERE a.valid AND ((g.scope_mask >> a.scope_c) & 1) = 1 AND ((g.covers_mask >> a.covers_c) & 1) = 1
  AND (a.term_c <> 2 OR a.months BETWEEN g.mmin AND g.mmax)
  AND (g.regions IS NULL OR in_list(g.regions, a.region))
  AND (g.providers IS NULL OR in_list(g.providers, a.prov) OR in_list(g.providers, a.grp))
  AND (g.segments IS NULL OR in_list(g.segments, a.seg))
  AND (g.excl IS NULL OR NOT (in_list(g.excl, a.prov) OR in_list(g.excl, a.grp)))
  AND (g.skus IS NULL OR in_list(g.skus, a.sku));

-- FX rates and fallback tiers (tiers.csv) by day, for the combinations that need them
CREATE TABLE fxd AS
SELECT c.cur, d.day, f.m AS fxm, f.s AS fxs
FROM (SELECT DISTINCT fx_cur AS cur FROM adim WHERE fx_cur IS NOT NULL) c
CROSS JOIN (SELECT CAST(unnest(range(${lo}, ${hi} + 1)) AS INTEGER) AS day) d
ASOF JOIN fx_t f ON f.cur = c.cur AND d.day >= f.day;

CREATE TABLE tierd AS
SELECT p.prov, d.day, t.tier
FROM (SELECT DISTINCT prov FROM adim WHERE tier_g IS NULL AND valid) p
CROSS JOIN (SELECT CAST(unnest(range(${lo}, ${hi} + 1)) AS INTEGER) AS day) d
ASOF JOIN tiers_t t ON t.prov = p.prov AND d.day >= t.day;`;
}

/* Pass 2: compact integer rows (offers: with their key; trades: quantity). */
function sqlRows(f, file, have, lo, hi) {
    const offer = f === 'o';
    const ident = `coalesce(r.id, concat_ws('|', fold(r.provider), coalesce(r.region, ''), r.gpu, coalesce(r.sku, ''),
        a.cnt, (${qlist(SCOPES)})[a.scope_c + 1], (${qlist(TERMS)})[a.term_c + 1], a.months,
        (${qlist(UNITS)})[a.unit_c + 1]))`;
    return `
CREATE TABLE ${f}_rows AS
WITH r AS (
  SELECT ${ckey(f, '')} AS ck, epoch_us(CAST(observed_at AS TIMESTAMPTZ)) // 1000000 AS ts, *
  FROM ${csvSource(file, have)}),
x AS (
  SELECT a.aid, CAST(r.ts // 86400 AS INTEGER) AS day, r.ts,
    ${offer ? `hash(coalesce(r.source, ${q(path.basename(file))}), ${ident}) AS key,` : ''}
    CASE WHEN NOT contains(lower(r.price), 'e') THEN TRY_CAST(replace(r.price, '.', '') AS BIGINT) END AS pm,
    dscale(r.price) AS ps,
    CASE WHEN NOT contains(lower(r.quantity), 'e') THEN TRY_CAST(replace(r.quantity, '.', '') AS BIGINT) END AS qm,
    dscale(r.quantity) AS qs, a.div, a.fx_cur, a.tier_g, a.prov
  FROM r JOIN adim a ON a.ck = r.ck AND a.valid
  WHERE r.ts // 86400 BETWEEN ${lo} AND ${hi})
SELECT * EXCLUDE (pm, ps, qm, qs, div, fx_cur, tier_g, prov, fxm, fxs, tier) FROM (
  SELECT x.*, fxd.fxm, fxd.fxs, td.tier,
    CAST(coalesce(x.tier_g, td.tier, 0) AS TINYINT) AS tier_c,
    -- exact micro-USD per GPU-hour, half-up (BIGINT when it cannot overflow)
    CASE WHEN fxd.fxm IS NULL AND x.ps <= 6 AND x.pm < 1000000000000
         THEN (2 * x.pm * p10b(6 - x.ps) + x.div) // (2 * x.div)
         ELSE CAST(rdiv(CAST(x.pm AS HUGEINT) * coalesce(fxd.fxm, 1) * 1000000,
                        p10(x.ps + coalesce(fxd.fxs, 0)) * x.div) AS BIGINT) END AS price
    ${offer ? '' : `, CASE WHEN x.qs <= 6 THEN x.qm * p10b(6 - x.qs)
                          ELSE CAST(rdiv(x.qm, p10(x.qs - 6)) AS BIGINT) END AS qty`}
  FROM x LEFT JOIN fxd ON fxd.cur = x.fx_cur AND fxd.day = x.day
  LEFT JOIN tierd td ON td.prov = x.prov AND td.day = x.day AND x.tier_g IS NULL
  WHERE x.pm > 0 AND (x.fx_cur IS NULL OR fxd.fxm IS NOT NULL) ${offer ? 'AND (x.qm IS NULL OR x.qm >= 0)' : 'AND x.qm > 0'})
WHERE price BETWEEN 1 AND 1000000000000 ${offer ? '' : 'AND qty > 0'};`;
}

const SQL_MEMBERS = `
-- the latest snapshot of each offer key within the day, before any grade filter
CREATE TABLE o_last AS
SELECT aid, day, tier_c, price FROM o_rows
QUALIFY row_number() OVER (PARTITION BY day, key ORDER BY ts DESC) = 1;

-- (grade, observation) pairs: kind 0 offer, 1 trade; st 0 ok, 1 cancelled, 2 affiliate
CREATE TABLE m AS
WITH obs AS (
  SELECT 0 AS kind, aid, day, tier_c, price, 0::BIGINT AS qty FROM o_last
  UNION ALL
  SELECT 1, aid, day, tier_c, price, qty FROM t_rows)
SELECT g.gid, o.kind, o.day, a.grp_id AS grp, o.price, o.qty, a.st
FROM obs o JOIN ag g USING (aid) JOIN adim a USING (aid)
WHERE o.tier_c >= g.min_tier;

-- error screen per (grade, kind, day, provider group): reason 0 used, 1 above, 2 below,
-- 3 cancelled or affiliate
CREATE TABLE m2 AS
WITH med AS (
  SELECT gid, kind, day, grp, CAST(2 * median(price) AS BIGINT) AS med2
  FROM m WHERE st = 0 GROUP BY ALL HAVING count(*) >= 3)
SELECT m.gid, m.kind, m.day, m.grp, m.price, m.qty,
  CASE WHEN m.st <> 0 THEN 3
       WHEN med.med2 IS NULL THEN 0
       WHEN CAST(m.price AS HUGEINT) * 2000000 > CAST(gr.f_e6 AS HUGEINT) * med.med2 THEN 1
       WHEN CAST(m.price AS HUGEINT) * 2 * gr.f_e6 < CAST(med.med2 AS HUGEINT) * 1000000 THEN 2
       ELSE 0 END AS reason
FROM m JOIN grades gr USING (gid) LEFT JOIN med USING (gid, kind, day, grp);
`;

const SQL_LEVELS = `
-- statistics of each level: counts, volume, top share, percentiles (GSL, exact)
CREATE TABLE st AS
WITH gs AS (
  SELECT gid, kind, day, grp,
    count(*) FILTER (WHERE reason <> 3) AS n_elig, count(*) FILTER (WHERE reason IN (1, 2)) AS n_exc,
    count(*) FILTER (WHERE reason = 0) AS n_ok, coalesce(sum(qty) FILTER (WHERE reason = 0), 0) AS vol
  FROM m2 GROUP BY ALL),
agg AS (
  SELECT gid, kind, day, sum(n_elig) AS n_obs, sum(n_exc) AS n_exc,
    count(*) FILTER (WHERE n_ok > 0) AS n_prov, sum(vol) AS vol,
    max(CASE WHEN kind = 1 THEN vol ELSE n_ok END) AS best, sum(CASE WHEN kind = 1 THEN vol ELSE n_ok END) AS tot
  FROM gs GROUP BY ALL),
px AS (
  SELECT gid, kind, day, list_sort(list(price)) AS v FROM m2 WHERE reason = 0 GROUP BY ALL),
qs AS (
  SELECT gid, kind, day, len(v) AS n, v,
    list_transform([10, 25, 50, 75, 90], lambda f:
      CASE WHEN (f * (len(v) - 1)) % 100 = 0 THEN v[f * (len(v) - 1) // 100 + 1]
           ELSE CAST(rdiv(100 * v[f * (len(v) - 1) // 100 + 1] + ((f * (len(v) - 1)) % 100) *
                          (v[f * (len(v) - 1) // 100 + 2] - v[f * (len(v) - 1) // 100 + 1]), 100) AS BIGINT) END) AS p
  FROM px)
SELECT a.gid, a.kind, a.day, a.n_obs, a.n_exc, a.n_prov, a.vol,
  CASE WHEN a.tot > 0 THEN CAST(rdiv(a.best * 1000000, a.tot) AS BIGINT) END AS top_e6,
  qs.p, qs.v[1] AS pmin, qs.v[-1] AS pmax
FROM agg a LEFT JOIN qs USING (gid, kind, day);

CREATE TABLE allst AS
SELECT gid, day, count(*) FILTER (WHERE reason <> 3) AS n_obs,
       count(DISTINCT grp) FILTER (WHERE reason <> 3) AS n_prov
FROM m2 GROUP BY ALL;

-- trades level: water-filled provider cap, exact weighted median (design note 2)
CREATE TABLE wm AS
WITH tq AS (SELECT gid, day, grp, price, qty FROM m2 WHERE kind = 1 AND reason = 0),
tday AS (
  SELECT gid, day, sum(qty) AS vol, count(DISTINCT grp) AS n,
         list_reduce(list(DISTINCT qty), lambda a, b: gcd(a, b)) AS g
  FROM tq GROUP BY ALL),
c AS (
  SELECT d.gid, d.day, d.n, d.g,
    CASE WHEN gr.cap_e6 * d.n >= 1000000 THEN gr.cap_e6 ELSE 1 END AS sn0,
    CASE WHEN gr.cap_e6 * d.n >= 1000000 THEN 1000000 ELSE d.n END AS sd0
  FROM tday d JOIN grades gr USING (gid)
  WHERE d.vol >= gr.min_vol AND d.vol > 0 AND d.n >= gr.min_prov),
c2 AS (SELECT gid, day, n, g, sn0 // gcd(sn0, sd0) AS sn, sd0 // gcd(sn0, sd0) AS sd FROM c),
gv AS (
  SELECT t.gid, t.day, t.grp, CAST(sum(t.qty // c2.g) AS HUGEINT) AS v, any_value(c2.sn) AS sn,
         any_value(c2.sd) AS sd, any_value(c2.n) AS n
  FROM tq t JOIN c2 USING (gid, day) GROUP BY t.gid, t.day, t.grp),
rk AS (
  SELECT *, row_number() OVER w - 1 AS r,
         sum(v) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS u_r
  FROM gv WINDOW w AS (PARTITION BY gid, day ORDER BY v DESC)),
kk AS (
  SELECT gid, day, coalesce(min(r) FILTER (WHERE NOT ((sd - r * sn) * v > sn * u_r)), any_value(n)) AS k
  FROM rk GROUP BY gid, day),
cls AS (SELECT rk.gid, rk.day, rk.grp, rk.v, rk.sn, rk.sd, kk.k, rk.r < kk.k AS capped
        FROM rk JOIN kk USING (gid, day)),
cs AS (
  SELECT gid, day, any_value(sn) AS sn, any_value(sd) AS sd, any_value(k) AS k,
    coalesce(list_reduce(list(v) FILTER (WHERE capped), lambda a, b: a * b), CAST(1 AS HUGEINT)) AS p,
    coalesce(sum(v) FILTER (WHERE NOT capped), CAST(1 AS HUGEINT)) AS u
  FROM cls GROUP BY gid, day),
coef AS (
  SELECT cls.gid, cls.day, cls.grp,
    CASE WHEN cls.capped THEN cs.sn * cs.u * (cs.p // cls.v) ELSE (cs.sd - cs.k * cs.sn) * cs.p END AS w,
    cs.sd * cs.u * cs.p AS rr
  FROM cls JOIN cs USING (gid, day)),
pr AS (
  SELECT t.gid, t.day, t.price, sum((t.qty // c2.g) * coef.w) AS s, any_value(coef.rr) AS rr
  FROM tq t JOIN c2 USING (gid, day) JOIN coef USING (gid, day, grp)
  GROUP BY t.gid, t.day, t.price),
cum AS (
  SELECT gid, day, price, rr, 2 * sum(s) OVER (PARTITION BY gid, day ORDER BY price ROWS UNBOUNDED PRECEDING) AS l
  FROM pr),
hit AS (SELECT gid, day, min(price) AS price, arg_min(l = rr, price) AS tie FROM cum WHERE l >= rr GROUP BY gid, day)
-- exactly half at a price: the mean with the next higher distinct price, if any
SELECT h.gid, h.day,
  CASE WHEN h.tie AND nx.price IS NOT NULL THEN 2 * (h.price + nx.price) ELSE 4 * h.price END AS t_q
FROM hit h LEFT JOIN LATERAL (SELECT min(p.price) AS price FROM pr p
                              WHERE p.gid = h.gid AND p.day = h.day AND p.price > h.price) nx ON true;

-- offers level: median of provider-group medians, quarter-micro
CREATE TABLE om AS
WITH og AS (SELECT gid, day, grp, CAST(2 * median(price) AS BIGINT) AS med2
            FROM m2 WHERE kind = 0 AND reason = 0 GROUP BY ALL)
SELECT gid, day, count(*) AS np, CAST(2 * median(med2) AS BIGINT) AS o_q FROM og GROUP BY ALL;

-- every grade-day with its raw values
CREATE TABLE raw AS
SELECT d.gid, d.day, w.t_q, CASE WHEN om.np >= gr.min_prov THEN om.o_q END AS o_q
FROM (SELECT gid, unnest(range(lo, hi + 1)) AS day FROM grades) d
JOIN grades gr USING (gid) LEFT JOIN wm w USING (gid, day) LEFT JOIN om USING (gid, day);

-- the offer-to-trade adjustment of each offers day (design note 3)
CREATE TABLE adj AS
WITH qd AS (SELECT gid, day, t_q, o_q FROM raw WHERE t_q IS NOT NULL AND o_q IS NOT NULL),
od AS (SELECT gid, day FROM raw WHERE t_q IS NULL AND o_q IS NOT NULL),
pairs AS (
  SELECT od.gid, od.day, qd.day AS k, CAST(qd.t_q AS HUGEINT) AS t, CAST(qd.o_q AS HUGEINT) AS o
  FROM od JOIN grades gr USING (gid)
  JOIN qd ON qd.gid = od.gid AND qd.day >= od.day - gr.lookback AND qd.day < od.day),
rk AS (
  SELECT a.gid, a.day, a.k, a.t, a.o, count(*) AS n,
    count(*) FILTER (WHERE b.t * a.o < a.t * b.o OR (b.t * a.o = a.t * b.o AND b.k < a.k)) AS r
  FROM pairs a JOIN pairs b USING (gid, day) GROUP BY a.gid, a.day, a.k, a.t, a.o),
mid AS (
  SELECT gid, day, any_value(n) AS n,
    any_value(t) FILTER (WHERE r = (n - 1) // 2) AS t1, any_value(o) FILTER (WHERE r = (n - 1) // 2) AS o1,
    any_value(t) FILTER (WHERE r = n // 2) AS t2, any_value(o) FILTER (WHERE r = n // 2) AS o2
  FROM rk GROUP BY gid, day)
SELECT od.gid, od.day, coalesce(mid.n, 0) AS n_adj,
  CASE WHEN coalesce(mid.n, 0) >= gr.min_days
       THEN CAST(rdiv((mid.t1 * mid.o2 + mid.t2 * mid.o1) * 1000000, 2 * mid.o1 * mid.o2) AS BIGINT)
       ELSE 1000000 END AS adj_e6
FROM od JOIN grades gr USING (gid) LEFT JOIN mid USING (gid, day);

-- levels, values and the carry (design note 4)
CREATE TABLE seq AS
WITH v AS (
  SELECT r.gid, r.day, r.t_q, r.o_q, a.adj_e6, gr.max_carry,
    CASE WHEN r.t_q IS NOT NULL THEN 'trades' WHEN r.o_q IS NOT NULL THEN 'offers' END AS fixed,
    CASE WHEN r.t_q IS NOT NULL THEN CAST(rdiv(r.t_q * 1000000, 400000000 * gr.step_e4) AS BIGINT) * gr.step_e4
         WHEN r.o_q IS NOT NULL THEN CAST(rdiv(CAST(r.o_q AS HUGEINT) * a.adj_e6, 400000000 * gr.step_e4) AS BIGINT) * gr.step_e4
    END AS fixed_e4
  FROM raw r JOIN grades gr USING (gid) LEFT JOIN adj a USING (gid, day)),
w AS (
  SELECT *, max(CASE WHEN fixed IS NOT NULL THEN day END) OVER x AS last_fix,
         last_value(fixed_e4 IGNORE NULLS) OVER x AS last_e4
  FROM v WINDOW x AS (PARTITION BY gid ORDER BY day ROWS UNBOUNDED PRECEDING))
SELECT gid, day, adj_e6,
  coalesce(fixed, CASE WHEN day - last_fix <= max_carry THEN 'carried' ELSE 'suspended' END) AS level,
  CASE WHEN fixed IS NOT NULL THEN fixed_e4 WHEN day - last_fix <= max_carry THEN last_e4 END AS value_e4
FROM w;
`;

function sqlOut(out, d0, d1) {
    return `
COPY (
  SELECT strftime(DATE '1970-01-01' + CAST(s.day AS INTEGER), '%Y-%m-%d') AS date, gr.id AS grade,
    fmt4(s.value_e4) AS value, s.level,
    CASE WHEN l.kind IS NULL THEN coalesce(al.n_obs, 0) ELSE l.n_obs END AS n_obs,
    coalesce(l.n_exc, 0) AS n_excluded,
    CASE WHEN l.kind IS NULL THEN coalesce(al.n_prov, 0) ELSE l.n_prov END AS n_providers,
    fmt2(CAST(rdiv(coalesce(tv.vol, 0), 10000) AS BIGINT)) AS trade_volume_gpu_hours,
    CASE WHEN s.level = 'offers' THEN fmt6(s.adj_e6) END AS adjustment,
    fmt6(l.p[1]) AS p10, fmt6(l.p[2]) AS p25, fmt6(l.p[3]) AS p50, fmt6(l.p[4]) AS p75,
    fmt6(l.p[5]) AS p90, fmt6(l.pmin) AS min, fmt6(l.pmax) AS max,
    fmt6(l.top_e6) AS top_provider_share
  FROM seq s JOIN grades gr USING (gid)
  LEFT JOIN st l ON l.gid = s.gid AND l.day = s.day
       AND l.kind = CASE s.level WHEN 'trades' THEN 1 WHEN 'offers' THEN 0 END
  LEFT JOIN st tv ON tv.gid = s.gid AND tv.day = s.day AND tv.kind = 1
  LEFT JOIN allst al ON al.gid = s.gid AND al.day = s.day
  WHERE s.day BETWEEN ${d0} AND ${d1}
  ORDER BY s.day, gr.id
) TO ${q(out)} (HEADER, DELIMITER ',');`;
}

/* ---- main ----------------------------------------------------------------- */

async function main() {
    const a = parseArgs(process.argv.slice(2));
    const duckdb = loadDuckDB();
    if (!duckdb) die('@duckdb/node-api is not installed in ' + duckdbDir() + ' (run sh bench/duckdb-setup)', 3);
    const db = await duckdb.api.DuckDBInstance.create(a.db || ':memory:');
    const con = await db.connect();
    const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjects()[0];
    if (a.version) {
        const v = await one('SELECT version() AS v');
        console.log('DuckDB ' + v.v + ' (@duckdb/node-api ' + duckdb.version + ')');
        return;
    }
    const t0 = Date.now();
    let tl = t0, cl = process.cpuUsage();
    /* runs the statements of sql one by one (timed with --verbose) */
    const step = async (sql) => {
        for (const st of sql.split(/;\n(?=\s*(?:--|CREATE|COPY))/)) {
            if (!st.trim()) continue;
            await con.run(st);
            const name = (/(?:CREATE TABLE|COPY) *(\w*)/.exec(st) || ['', '?'])[1] || 'copy';
            if (a.verbose) {
                const cu = process.cpuUsage(cl);
                process.stderr.write(`duckdb: ${name}: ${((Date.now() - tl) / 1000).toFixed(2)} s, ` +
                                     `cpu ${((cu.user + cu.system) / 1e6).toFixed(2)} s\n`);
            }
            tl = Date.now();
            cl = process.cpuUsage();
        }
    };
    const threads = a.threads ? +a.threads : os.availableParallelism();
    await con.run(`SET threads = ${threads}; SET TimeZone = 'UTC'; `);

    /* data/ tables and the grades, as small tables */
    const provs = readTable(path.join(a.data, 'providers.csv'));
    /* gpus.csv, tiers.csv and skus.csv name a provider by any alias */
    const canonOf = new Map(provs.map((r) => [foldName(r.alias), foldName(r.provider)]));
    const canonProv = (n) => canonOf.get(foldName(n)) || foldName(n);
    const gpus = readTable(path.join(a.data, 'gpus.csv')).map((r) => ({
        alias: foldGpu(r.alias), canonical: r.canonical === '-' ? null : r.canonical,
        provider: r.provider ? canonProv(r.provider) : null, sku_glob: r.sku_glob ? r.sku_glob.toLowerCase() : null,
        ord: r.line }));
    const tiers = fs.existsSync(path.join(a.data, 'tiers.csv')) ? readTable(path.join(a.data, 'tiers.csv')) : [];
    const fx = fs.existsSync(path.join(a.data, 'fx.csv')) ? readTable(path.join(a.data, 'fx.csv')) : [];
    const rg = fs.existsSync(path.join(a.data, 'regions.csv')) ? readTable(path.join(a.data, 'regions.csv')) : [];
    const skus = fs.existsSync(path.join(a.data, 'skus.csv')) ? readTable(path.join(a.data, 'skus.csv')) : [];
    const grades = loadGrades(a.grades, gpus, rg);
    const d0 = dayOf(a.from, '--from'), d1 = dayOf(a.to, '--to');
    if (d0 > d1) die('--from ' + a.from + ' is after --to ' + a.to, 2);
    const P = Math.max(...grades.map((g) => g.lookback + g.maxCarry + 1), 1);
    const values = (rows, f) => (rows.length ? 'VALUES ' + rows.map((r) => '(' + f(r).join(', ') + ')').join(',\n') : null);
    const table = async (name, cols, rows, f) => {
        const v = values(rows, f);
        await con.run(`CREATE TABLE ${name}(${cols})`);
        if (v) await con.run(`INSERT INTO ${name} ${v}`);
    };
    await con.run(MACROS);
    await table('prov_t', 'alias VARCHAR, provider VARCHAR, grp VARCHAR, segment VARCHAR', provs,
                (r) => [q(foldName(r.alias)), q(foldName(r.provider)), q(r.group), q(r.segment)]);
    await table('gpus_t', 'alias VARCHAR, canonical VARCHAR, provider VARCHAR, sku_glob VARCHAR, ord INTEGER, ' +
                'is_glob BOOLEAN, spec INTEGER, glen INTEGER', gpus,
                (r) => [q(r.alias), q(r.canonical), q(r.provider), q(r.sku_glob), r.ord, /[*?]/.test(r.alias),
                        (r.provider ? 2 : 0) + (r.sku_glob ? 1 : 0), r.sku_glob ? r.sku_glob.replace(/[*?]/g, '').length : 0]);
    await table('tiers_t', 'prov VARCHAR, tier INTEGER, day INTEGER', tiers,
                (r) => [q(canonProv(r.provider)), TIERS.indexOf(r.tier.toLowerCase()), dayOf(r.effective, 'tiers.csv')]);
    /* skus.csv: rk orders the rules as ingest tries them (provider rules first,
     * then more non-wildcard characters, then the earlier row) */
    const spec = (r) => (r.provider ? 1 << 20 : 0) + r.sku_glob.replace(/[*?]/g, '').length;
    const skuRows = skus.slice().sort((x, y) => spec(y) - spec(x) || x.line - y.line);
    const code = (names, v) => (v ? names.indexOf(v.toLowerCase()) : -1);
    await table('skus_t', 'prov VARCHAR, pat VARCHAR, cnt BIGINT, covers INTEGER, unit INTEGER, rk INTEGER', skuRows,
                (r) => [q(r.provider ? canonProv(r.provider) : null), q(r.sku_glob.toLowerCase()),
                        r.gpu_count ? +r.gpu_count : 'NULL', code(COVERS, r.covers) < 0 ? 'NULL' : code(COVERS, r.covers),
                        code(UNITS, r.unit) < 0 ? 'NULL' : code(UNITS, r.unit), skuRows.indexOf(r)]);
    await table('fx_t', 'cur VARCHAR, m HUGEINT, s INTEGER, day INTEGER', fx, (r) => {
        const [i, f = ''] = r.usd_per_unit.split('.');
        return [q(r.currency.toUpperCase()), `'${i}${f}'::HUGEINT`, f.length, dayOf(r.date, 'fx.csv')];
    });
    await table('grades', 'gid INTEGER, id VARCHAR, min_prov BIGINT, f_e6 BIGINT, min_vol BIGINT, cap_e6 BIGINT, ' +
                'max_carry INTEGER, lookback INTEGER, min_days INTEGER, step_e4 BIGINT, lo INTEGER, hi INTEGER',
                grades, (g, ) => [grades.indexOf(g), q(g.id), g.minProv, g.fE6, g.minVol, g.capE6, g.maxCarry,
                                  g.lookback, g.minDays, g.stepE4, d0 - P, d1]);
    await table('ggpu', 'gid INTEGER, gpu VARCHAR, term INTEGER, mmin INTEGER, mmax INTEGER, min_tier INTEGER, ' +
                'scope_mask INTEGER, covers_mask INTEGER, regions VARCHAR[], providers VARCHAR[], ' +
                'segments VARCHAR[], excl VARCHAR[], skus VARCHAR[]',
                grades.flatMap((g, i) => g.gpu.map((u) => [i, g, u])),
                ([i, g, u]) => [i, q(u), g.term, g.mmin, g.mmax, g.tier, g.scopeMask, g.coversMask,
                                qlist(g.regions), qlist(g.providers), qlist(g.segments), qlist(g.excl), qlist(g.skus)]);

    /* the observations */
    const header = async (file) => new Set((await con.runAndReadAll(
        `SELECT * FROM read_csv(${q(file)}, header = true, all_varchar = true) LIMIT 0`)).columnNames()
        .map((c) => c.toLowerCase()));
    const lo = d0 - P, hi = d1;
    const hO = await header(a.offers), hT = await header(a.trades);
    await step(sqlAttrs('o', a.offers, hO));
    await step(sqlAttrs('t', a.trades, hT));
    await step(sqlDims(a.admit, lo, hi));
    await step(sqlRows('o', a.offers, hO, lo, hi));
    await step(sqlRows('t', a.trades, hT, lo, hi));
    const cnt = async (sql) => Number((await one(sql)).n);
    const nBad = await cnt('SELECT coalesce(sum(t.n), 0) AS n FROM attr t JOIN adim a USING (ck) WHERE NOT a.valid');
    if (nBad) process.stderr.write(`duckdb: ${nBad} rows rejected (unknown GPU or provider, or a bad ` +
                                   'enumeration, GPU count, term or currency)\n');
    const nObs = await cnt('SELECT (SELECT count(*) FROM o_rows) + (SELECT count(*) FROM t_rows) AS n');
    await step(SQL_MEMBERS);
    await step(SQL_LEVELS);
    await step(sqlOut(a.out, d0, d1));
    const rows = await cnt('SELECT count(*) AS n FROM seq WHERE day BETWEEN ' + d0 + ' AND ' + d1);
    process.stderr.write(`duckdb: ${nObs} observations, ${grades.length} grades, ${rows} grade-days -> ` +
                         `${a.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s (${threads} thread${threads === 1 ? "" : "s"})\n`);
}

if (require.main === module) main().catch((e) => die(e.message));
module.exports = { sqlAttrs, sqlDims, sqlRows, SQL_MEMBERS, SQL_LEVELS, sqlOut, MACROS };
