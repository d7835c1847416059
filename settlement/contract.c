/* settlement/contract.c -- contract files (SPEC §8) and exact tick prices.
 *
 * A contract file is JSON read with jansson (duplicate keys refused; a
 * leading UTF-8 byte-order mark skipped, as in positions files).  Each
 * contract is validated field by field; the first problem stops loading
 * with a message naming the file, the contract's position and symbol, and
 * the field: `contracts.json: contract 2 (GPUH-2502): tick: must be greater
 * than 0 (got "-0.001")`.
 *
 * The tick must be exact.  jansson turns JSON numbers into doubles and
 * keeps no text, so a number is converted back to the shortest decimal
 * that reads back to the same double (printf "%.*e" with increasing
 * precision).  For every decimal of at most 15 significant digits that is
 * the decimal as written (DBL_DIG = 15); a tick that needs more digits is
 * refused rather than guessed.  A tick written as a JSON string is parsed
 * as written.  Either way the result goes through gpi_dec_parse, so the
 * tick is held as mantissa / 10^scale and never as a double.
 *
 * Grades are checked through a caller callback so this module needs no SQL.
 *
 * Lines.  jansson keeps no positions of values, so the reader keeps the
 * file's text and a small scanner (locate) finds the i-th element of the
 * top-level "contracts" array and a key inside it: every error says
 * `contracts.json:7: contract 2 (GPUH-2503): tick: ...` in the house form
 * `file:line: field: reason (got "...")` (issue 12; the text is JSON that
 * jansson accepted, so the scanner only tracks strings and nesting).
 *
 * Ranges (issue 12): month 2000-01 .. 2099-12, the days an index is built
 * for; min_published_days at most the settlement days of the delivery
 * month (31 for February could never settle, nor 23 business days in a
 * month of 20); and, when prices are known (settle.c), the tick at most
 * 1% of every value settled on.
 *
 * Settlement days (issue 26 item 6).  "fsp_days": "calendar" (the
 * default, so a file written before the field means what it meant) or
 * "business": Monday to Friday, less the holidays the file lists at its
 * top level ("holidays": ["2025-12-25", ...], weekdays, each once; a
 * file that lists holidays must have a business-day contract, so a
 * calendar that would change nothing is not silently ignored).  The
 * holidays are a field of the file, never a table hidden in the code:
 * each business-day contract keeps those of its own life.
 *
 * Extending: a contract's keys are the table `keys` below (the message
 * of an unknown key lists it); a new key gets a row there and a step in
 * load_one.
 */
#include "settlement/settlement.h"
#include "core/vec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SETTLE_GRADE_MAX == GPI_GRADE_ID_MAX, "a contract's grade holds any grade id");

/* ---- exact ticks and prices -------------------------------------------- */

static __int128 pow10_i128(int e)
{
    __int128 p = 1;
    for (int i = 0; i < e; i++) p *= 10;
    return p;
}

int64_t settle_round_value(const settle_contract *c, __int128 sum_e4, __int128 count)
{
    /* ticks = (sum_e4 / count) * 1e-4 / (mant * 10^-scale) */
    __int128 num = sum_e4 * pow10_i128(c->tick.scale);
    __int128 den = count * 10000 * (__int128)c->tick.mant;
    return gpi_div_round(num, den) * c->tick.mant;
}

const char *settle_price_parse(const settle_contract *c, const char *s, int64_t *units)
{
    gpi_dec p;
    const char *why = gpi_dec_parse(s, &p);
    if (why) return why;
    if (p.mant <= 0) return "must be greater than 0";
    __int128 u = p.mant;
    if (p.scale > c->tick.scale) {
        __int128 q = pow10_i128(p.scale - c->tick.scale);
        if (u % q != 0) return "not a whole number of ticks";
        u /= q;
    } else {
        u *= pow10_i128(c->tick.scale - p.scale);
    }
    if (u > INT64_MAX / 1000) return "too large";
    if (u % c->tick.mant != 0) return "not a whole number of ticks";
    *units = (int64_t)u;
    return NULL;
}

int32_t settle_listing_day(const settle_contract *c)
{
    int y = c->year, m = c->month - 1;
    if (m == 0) {
        m = 12;
        y--;
    }
    return gpi_days_from_civil(y, m, 1);
}

int32_t settle_last_day(const settle_contract *c)
{
    return gpi_days_from_civil(c->year, c->month, gpi_month_days(c->year, c->month));
}

const char *settle_days_name(int fsp_days)
{
    return fsp_days == SETTLE_DAYS_BUSINESS ? "business" : "calendar";
}

int settle_is_day(const settle_contract *c, int32_t day)
{
    if (c->fsp_days != SETTLE_DAYS_BUSINESS) return 1;
    if (gpi_iso_weekday(day) > 5) return 0;
    for (int i = 0; i < c->n_holidays; i++)
        if (c->holidays[i] == day) return 0;
    return 1;
}

int settle_month_days(const settle_contract *c)
{
    int n = 0;
    for (int32_t t = gpi_days_from_civil(c->year, c->month, 1); t <= settle_last_day(c); t++)
        n += settle_is_day(c, t);
    return n;
}

int32_t settle_final_day(const settle_contract *c)
{
    const int32_t first = gpi_days_from_civil(c->year, c->month, 1);
    for (int32_t t = settle_last_day(c); t >= first; t--)
        if (settle_is_day(c, t)) return t;
    return settle_last_day(c);
}

/* ---- reading JSON numbers exactly -------------------------------------- */

/* Shortest "%.*e" text of v that reads back to v, rewritten as a plain
 * decimal ("1e-04" -> "0.0001") into out (at most 1 + 2 + 20 + 15 bytes
 * and a NUL for the accepted range).  NULL, or a static reason. */
static const char *double_to_plain(double v, char out[64])
{
    char e[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    if (prec > 15) return "more than 15 significant digits (write it as a string)";
    /* e = [-]d[.ddd]e±XX */
    const char *p = e;
    int neg = *p == '-';
    if (neg) p++;
    char digs[32];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digs[nd++] = *p;
    int ex = atoi(p + 1);
    while (nd > 1 && digs[nd - 1] == '0') nd--;
    if (ex > 20 || ex < -20) return "out of range";
    /* value = digs[0].digs[1..] x 10^ex */
    size_t o = 0;
    if (neg) out[o++] = '-';
    if (ex < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -ex - 1; i++) out[o++] = '0';
        for (size_t i = 0; i < nd; i++) out[o++] = digs[i];
    } else {
        size_t intlen = (size_t)ex + 1;
        for (size_t i = 0; i < intlen; i++) out[o++] = i < nd ? digs[i] : '0';
        if (nd > intlen) {
            out[o++] = '.';
            for (size_t i = intlen; i < nd; i++) out[o++] = digs[i];
        }
    }
    out[o] = '\0';
    return NULL;
}

/* Short text of a JSON value for "(got ...)". */
static void got_text(const json_t *v, char out[80])
{
    if (json_is_string(v)) {
        snprintf(out, 80, "%s", json_string_value(v));
        return;
    }
    if (json_is_real(v)) { /* plain decimal, else the shortest %g that reads back */
        double x = json_real_value(v);
        char plain[64];
        if (!double_to_plain(x, plain)) {
            snprintf(out, 80, "%s", plain);
            return;
        }
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(out, 80, "%.*g", prec, x);
            if (strtod(out, NULL) == x) break;
        }
        return;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    snprintf(out, 80, "%s", s ? s : "?");
    free(s);
}

/* ---- lines in the file's text ------------------------------------------ */

typedef struct text_buf {
    char *p;
    size_t n, cap;
} text_buf;

#define MAX_CONTRACT_FILE (64u << 20)

/* Line (1-based) of byte off of t (the end: the last line). */
static int line_at(const text_buf *t, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && i < t->n; i++) line += t->p[i] == '\n';
    return line;
}

/* Offset in t of element idx (0-based) of the top-level object's
 * "contracts" array or, when key is non-NULL, of that key of the element
 * (of the element itself when it has none); SIZE_MAX when not found. */
static size_t locate(const text_buf *t, size_t idx, const char *key)
{
    const char *s = t->p;
    size_t n = t->n, elem_off = SIZE_MAX;
    int depth = 0, in_arr = 0, pending = 0, expect = 0;
    long elem = -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':') continue;
        if (in_arr && depth == 2 && c == ',') {
            expect = 1;
            continue;
        }
        if (in_arr && depth == 2 && expect && c != ']') { /* an element starts */
            expect = 0;
            if (elem_off != SIZE_MAX && elem == (long)idx) return elem_off; /* no such key */
            elem++;
            if (elem == (long)idx) {
                if (!key) return i;
                elem_off = i;
            }
        }
        if (c == '"') {
            size_t a = ++i;
            while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
            size_t len = i - a, j = i + 1;
            while (j < n && strchr(" \t\r\n", s[j])) j++;
            if (j < n && s[j] == ':') { /* a key */
                if (depth == 1 && len == 9 && memcmp(s + a, "contracts", 9) == 0) pending = 1;
                if (depth == 3 && in_arr && elem == (long)idx && key && strlen(key) == len &&
                    memcmp(s + a, key, len) == 0)
                    return a - 1;
            } else {
                pending = 0;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
            if (c == '[' && depth == 2 && pending) in_arr = expect = 1;
            pending = 0;
        } else if (c == '}' || c == ']') {
            depth--;
            if (depth == 1 && in_arr) {
                in_arr = 0;
                if (elem_off != SIZE_MAX) return elem_off;
            }
        } else {
            pending = 0;
        }
    }
    return elem_off;
}

/* Line of a key of the top-level object (1 when not found). */
static int root_key_line(const text_buf *t, const char *key)
{
    size_t n = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < t->n; i++) {
        char c = t->p[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == '"') {
            size_t a = ++i;
            while (i < t->n && t->p[i] != '"') i += t->p[i] == '\\' ? 2 : 1;
            if (depth == 1 && i - a == n && memcmp(t->p + a, key, n) == 0) return line_at(t, a);
        }
    }
    return 1;
}

/* ---- validating one contract ------------------------------------------- */

typedef struct ctx {
    const char *path;
    size_t idx;          /* 1-based position in the array */
    const char *symbol;  /* once known */
    const text_buf *text;
    gpi_diag *d;
} ctx;

/* Line of contract x->idx's key (its own line when key is NULL or absent). */
static int line_of(const ctx *x, const char *key)
{
    size_t off = locate(x->text, x->idx - 1, key);
    return off == SIZE_MAX ? 1 : line_at(x->text, off);
}

static gpi_status cerr_at(const ctx *x, int line, const char *field, const char *why,
                          const json_t *got)
{
    char who[80];
    if (x->symbol)
        snprintf(who, sizeof who, "contract %zu (%s)", x->idx, x->symbol);
    else
        snprintf(who, sizeof who, "contract %zu", x->idx);
    if (!field) return gpi_diag_set(x->d, GPI_EINPUT, "%s:%d: %s: %s", x->path, line, who, why);
    if (got) {
        char g[80];
        got_text(got, g);
        return gpi_diag_set(x->d, GPI_EINPUT, "%s:%d: %s: %s: %s (got \"%s\")", x->path, line,
                            who, field, why, g);
    }
    return gpi_diag_set(x->d, GPI_EINPUT, "%s:%d: %s: %s: %s", x->path, line, who, field, why);
}

/* The error of field (at its key's line). */
static gpi_status cerr(const ctx *x, const char *field, const char *why, const json_t *got)
{
    return cerr_at(x, line_of(x, field), field, why, got);
}

static int symbol_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > SETTLE_SYMBOL_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int alnum = (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && (i == 0 || (ch != '.' && ch != '_' && ch != '-'))) return 0;
    }
    return 1;
}

static gpi_status parse_tick(const ctx *x, const json_t *v, settle_contract *c)
{
    char text[64];
    if (json_is_string(v)) {
        /* a longer text would be cut short here and read as another
         * number (issue 12): refuse it */
        if (json_string_length(v) >= sizeof text)
            return cerr(x, "tick", "longer than 63 characters", v);
        snprintf(text, sizeof text, "%s", json_string_value(v));
    } else if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        const char *why = double_to_plain(json_real_value(v), text);
        if (why) return cerr(x, "tick", why, v);
    } else {
        return cerr(x, "tick", "not a number", v);
    }
    const char *why = gpi_dec_parse(text, &c->tick);
    if (why) return cerr(x, "tick", why, v);
    if (c->tick.mant <= 0) return cerr(x, "tick", "must be greater than 0", v);
    /* at most 1000 USD per GPU-hour keeps every product inside 64 bits */
    if ((__int128)c->tick.mant > 1000 * pow10_i128(c->tick.scale))
        return cerr(x, "tick", "must be at most 1000", v);
    return GPI_OK;
}

static gpi_status parse_int(const ctx *x, const json_t *v, const char *field, int64_t lo,
                            int64_t hi, const char *range, int64_t *out)
{
    /* JSON has one number type: 1000.0 is a whole number too */
    json_int_t k;
    if (json_is_integer(v))
        k = json_integer_value(v);
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 9007199254740992.0) /* 2^53: exact */
        k = (json_int_t)json_real_value(v);
    else
        return cerr(x, field, "not a whole number", v);
    if (k < lo || k > hi) return cerr(x, field, range, v);
    *out = (int64_t)k;
    return GPI_OK;
}

/* A contract's keys, in the order of the message of an unknown key. */
static const char *const keys[] = {"symbol", "grade", "month", "size", "tick",
                                   "min_published_days", "fsp_days", "fallback"};
#define N_KEYS (sizeof keys / sizeof keys[0])

/* The file's holidays (top-level "holidays"), ascending. */
typedef struct holiday_list {
    int32_t *day;
    size_t n;
} holiday_list;

static gpi_status parse_fsp_days(const ctx *x, const json_t *v, settle_contract *c)
{
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (s && strcmp(s, "calendar") == 0)
        c->fsp_days = SETTLE_DAYS_CALENDAR;
    else if (s && strcmp(s, "business") == 0)
        c->fsp_days = SETTLE_DAYS_BUSINESS;
    else
        return cerr(x, "fsp_days", "must be \"calendar\" or \"business\"", v);
    return GPI_OK;
}

/* The holidays of hl inside c's life, into c. */
static void keep_holidays(settle_contract *c, const holiday_list *hl)
{
    c->n_holidays = 0;
    if (c->fsp_days != SETTLE_DAYS_BUSINESS) return;
    int32_t from = settle_listing_day(c), to = settle_last_day(c);
    for (size_t i = 0; i < hl->n && c->n_holidays < SETTLE_MAX_HOLIDAYS; i++)
        if (hl->day[i] >= from && hl->day[i] <= to) c->holidays[c->n_holidays++] = hl->day[i];
}

static gpi_status load_one(const ctx *x0, const json_t *o, settle_grade_fn grade_fn, void *ud,
                           const holiday_list *hl, settle_contract *c)
{
    ctx x = *x0;
    memset(c, 0, sizeof *c);
    if (!json_is_object(o)) return cerr_at(&x, line_of(&x, NULL), "contract", "not a JSON object", o);

    const json_t *sym = json_object_get(o, "symbol");
    if (!sym) return cerr(&x, "symbol", "missing", NULL);
    if (!json_is_string(sym) || !symbol_ok(json_string_value(sym)))
        return cerr(&x, "symbol", "not a symbol [A-Z0-9][A-Z0-9._-]{0,31}", sym);
    snprintf(c->symbol, sizeof c->symbol, "%s", json_string_value(sym));
    x.symbol = c->symbol;

    const char *key;
    json_t *val;
    json_object_foreach((json_t *)o, key, val) {
        size_t k = 0;
        while (k < N_KEYS && strcmp(keys[k], key) != 0) k++;
        if (k == N_KEYS) {
            char msg[300];
            int len = snprintf(msg, sizeof msg, "unknown key \"%.64s\" (expected", key);
            for (size_t j = 0; j < N_KEYS && len > 0 && (size_t)len < sizeof msg; j++)
                len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %s", j ? "," : "",
                                keys[j]);
            if (len > 0 && (size_t)len < sizeof msg) snprintf(msg + len, sizeof msg - (size_t)len, ")");
            return cerr_at(&x, line_of(&x, key), NULL, msg, NULL);
        }
    }

    const json_t *g = json_object_get(o, "grade");
    if (!g) return cerr(&x, "grade", "missing", NULL);
    /* the grade-id rule of core (SPEC §3; c->grade holds GPI_GRADE_ID_MAX) */
    if (!json_is_string(g) || !gpi_grade_id_ok(json_string_value(g)))
        return cerr(&x, "grade", "not a grade id", g);
    snprintf(c->grade, sizeof c->grade, "%s", json_string_value(g));

    const json_t *m = json_object_get(o, "month");
    if (!m) return cerr(&x, "month", "missing", NULL);
    if (!json_is_string(m)) return cerr(&x, "month", "not a month YYYY-MM", m);
    const char *why = gpi_month_parse(json_string_value(m), &c->year, &c->month);
    if (why) return cerr(&x, "month", why, m);
    if (c->year < 2000 || c->year > 2099)
        return cerr(&x, "month", "must be from 2000-01 to 2099-12 (the days an index is built for)",
                    m);

    const json_t *v;
    c->size_gpu_hours = SETTLE_DEFAULT_SIZE;
    if ((v = json_object_get(o, "size"))) {
        gpi_status st = parse_int(&x, v, "size", 1, 1000000000,
                                  "must be from 1 to 1000000000 GPU-hours", &c->size_gpu_hours);
        if (st != GPI_OK) return st;
    }
    c->tick.mant = 1;
    c->tick.scale = 4;
    if ((v = json_object_get(o, "tick"))) {
        gpi_status st = parse_tick(&x, v, c);
        if (st != GPI_OK) return st;
    }
    if ((v = json_object_get(o, "fsp_days"))) {
        gpi_status st = parse_fsp_days(&x, v, c);
        if (st != GPI_OK) return st;
    }
    keep_holidays(c, hl);
    int64_t mpd = SETTLE_DEFAULT_MIN_DAYS;
    if ((v = json_object_get(o, "min_published_days"))) {
        gpi_status st = parse_int(&x, v, "min_published_days", 1, 31, "must be from 1 to 31",
                                  &mpd);
        if (st != GPI_OK) return st;
        int days = settle_month_days(c);
        if (mpd > days) {
            char msg[128];
            if (c->fsp_days == SETTLE_DAYS_BUSINESS)
                snprintf(msg, sizeof msg, "must be at most %d, the business days of %04d-%02d "
                         "(it could never settle)", days, c->year, c->month);
            else
                snprintf(msg, sizeof msg, "must be at most %d, the days of %04d-%02d (it could "
                         "never settle)", days, c->year, c->month);
            return cerr(&x, "min_published_days", msg, v);
        }
    }
    c->min_published_days = (int)mpd;
    if ((v = json_object_get(o, "fallback"))) { /* fallback.c */
        const char *field = "fallback", *fwhy = settle_fallback_parse(v, c, &field);
        if (fwhy) return cerr_at(&x, line_of(&x, "fallback"), field, fwhy, NULL);
    }

    /* size x tick in cents = size * mant * 100 / 10^scale, whole */
    __int128 num = (__int128)c->size_gpu_hours * c->tick.mant * 100;
    __int128 den = pow10_i128(c->tick.scale);
    if (num % den != 0) {
        char tick[32], msg[160];
        gpi_fixed_format(c->tick.mant, c->tick.scale, tick);
        snprintf(msg, sizeof msg, "not a whole number of cents (got %lld x %s USD)",
                 (long long)c->size_gpu_hours, tick);
        return cerr_at(&x, line_of(&x, json_object_get(o, "tick") ? "tick" : "size"),
                       "size x tick", msg, NULL);
    }
    c->tick_cents = (int64_t)(num / den);

    if (grade_fn) {
        int known = 0;
        gpi_status st = grade_fn(c->grade, &known, ud, x.d);
        if (st != GPI_OK) return st;
        if (!known)
            return cerr(&x, "grade", "unknown grade (not built in the database)", g);
        if (c->fallback.rule == SETTLE_FB_GRADE) {
            st = grade_fn(c->fallback.grade, &known, ud, x.d);
            if (st != GPI_OK) return st;
            if (!known)
                return cerr_at(&x, line_of(&x, "fallback"), "fallback.grade",
                               "unknown grade (not built in the database)", NULL);
        }
    }
    c->path = x.path;
    c->index = x.idx;
    c->line = line_of(&x, NULL);
    c->tick_line = line_of(&x, "tick");
    return GPI_OK;
}

static int cmp_day(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The top-level "holidays" (NULL: none): dates YYYY-MM-DD of weekdays,
 * each once, into hl (ascending).  Errors name the line of the key and the
 * element: `FILE:LINE: holidays[2]: ... (got "...")`. */
static gpi_status load_holidays(const char *path, const text_buf *t, const json_t *v,
                                holiday_list *hl, gpi_diag *d)
{
    static const char *const wd[8] = {"", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                      "Saturday", "Sunday"};
    hl->day = NULL;
    hl->n = 0;
    if (!v) return GPI_OK;
    int line = root_key_line(t, "holidays");
    if (!json_is_array(v))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%d: holidays: not a list of dates", path, line);
    size_t n = json_array_size(v);
    if (n > 10000) /* a century of holidays is some 1,000 */
        return gpi_diag_set(d, GPI_EINPUT, "%s:%d: holidays: more than 10000 dates", path, line);
    hl->day = malloc((n ? n : 1) * sizeof *hl->day);
    if (!hl->day) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(v, i);
        char got[80];
        got_text(e, got);
        const char *why = json_is_string(e) ? gpi_date_parse(json_string_value(e), &hl->day[i])
                                            : "not a date YYYY-MM-DD";
        if (!why && gpi_iso_weekday(hl->day[i]) > 5) {
            char msg[64];
            snprintf(msg, sizeof msg, "a %s, not a business day anyway",
                     wd[gpi_iso_weekday(hl->day[i])]);
            return gpi_diag_set(d, GPI_EINPUT, "%s:%d: holidays[%zu]: %s (got \"%s\")", path,
                                line, i, msg, got);
        }
        if (!why)
            for (size_t j = 0; j < i; j++)
                if (hl->day[j] == hl->day[i]) why = "given twice";
        if (why)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%d: holidays[%zu]: %s (got \"%s\")", path,
                                line, i, why, got);
    }
    hl->n = n;
    qsort(hl->day, n, sizeof *hl->day, cmp_day);
    return GPI_OK;
}

/* jansson reader over a FILE that drops a leading UTF-8 byte-order mark
 * (which json_loadf refuses), also from pipes where nothing can be put
 * back. */
typedef struct bom_reader {
    FILE *f;
    unsigned char head[3];
    size_t nhead, ihead;
    int started;
    text_buf *text;     /* what it returned, for the lines of errors */
    int too_large, oom;
} bom_reader;

static size_t bom_read(void *buf, size_t len, void *data)
{
    bom_reader *b = data;
    if (!b->started) {
        b->started = 1;
        b->nhead = fread(b->head, 1, 3, b->f);
        if (b->nhead == 3 && memcmp(b->head, "\xef\xbb\xbf", 3) == 0) b->nhead = 0;
    }
    size_t k = 0;
    while (k < len && b->ihead < b->nhead) ((unsigned char *)buf)[k++] = b->head[b->ihead++];
    if (k < len) k += fread((unsigned char *)buf + k, 1, len - k, b->f);
    if (k == 0 && ferror(b->f)) return (size_t)-1;
    text_buf *t = b->text;
    if (k == 0) return 0; /* the end (t->p may still be NULL) */
    if (t->n + k > MAX_CONTRACT_FILE) {
        b->too_large = 1;
        return (size_t)-1;
    }
    if (GPI_VEC_RESERVE(t->p, t->cap, t->n + k) != 0) {
        b->oom = 1;
        return (size_t)-1;
    }
    memcpy(t->p + t->n, buf, k);
    t->n += k;
    return k;
}

gpi_status settle_contracts_load(const char *path, settle_grade_fn grade_fn, void *ud,
                                 settle_contract **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    FILE *f = gpi_open_input(path, d); /* "no such file", "is a directory" (core/text.c) */
    if (!f) return GPI_EIO;
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    json_error_t je;
    text_buf text = {NULL, 0, 0};
    bom_reader br = {f, {0}, 0, 0, 0, &text, 0, 0};
    json_t *root = json_load_callback(bom_read, &br, JSON_REJECT_DUPLICATES, &je);
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (read_errno || br.too_large || br.oom) {
        json_decref(root);
        free(text.p);
        if (br.too_large)
            return gpi_diag_set(d, GPI_EINPUT, "%s: larger than %u bytes", path, MAX_CONTRACT_FILE);
        if (br.oom) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
        return gpi_diag_set(d, GPI_EIO, "%s: cannot read: %s", path, strerror(read_errno));
    }
    if (!root) {
        free(text.p);
        if (je.line < 0) return gpi_diag_set(d, GPI_EIO, "%s: %s", path, je.text);
        return gpi_diag_set(d, GPI_EINPUT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    gpi_status st = GPI_OK;
    settle_contract *cs = NULL;
    holiday_list hl = {NULL, 0};
    const json_t *arr = json_object_get(root, "contracts");
    if (!json_is_object(root) || !json_is_array(arr)) {
        st = gpi_diag_set(d, GPI_EINPUT,
                          "%s:1: not a contract file (want {\"contracts\": [...]})", path);
        goto done;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (strcmp(key, "contracts") != 0 && strcmp(key, "holidays") != 0) {
            st = gpi_diag_set(d, GPI_EINPUT,
                              "%s:%d: unknown key \"%s\" (expected \"contracts\" or \"holidays\")",
                              path, root_key_line(&text, key), key);
            goto done;
        }
    }
    size_t na = json_array_size(arr);
    if (na == 0) {
        st = gpi_diag_set(d, GPI_EINPUT, "%s:%d: contracts: empty list", path,
                          root_key_line(&text, "contracts"));
        goto done;
    }
    if ((st = load_holidays(path, &text, json_object_get(root, "holidays"), &hl, d)) != GPI_OK)
        goto done;
    cs = calloc(na, sizeof *cs);
    if (!cs) {
        st = gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < na; i++) {
        ctx x = {path, i + 1, NULL, &text, d};
        st = load_one(&x, json_array_get(arr, i), grade_fn, ud, &hl, &cs[i]);
        if (st != GPI_OK) goto done;
        for (size_t j = 0; j < i; j++)
            if (strcmp(cs[j].symbol, cs[i].symbol) == 0) {
                st = gpi_diag_set(d, GPI_EINPUT,
                                  "%s:%d: contract %zu (%s): symbol: duplicate (also contract %zu,"
                                  " line %d)",
                                  path, line_of(&x, "symbol"), i + 1, cs[i].symbol, j + 1,
                                  cs[j].line);
                goto done;
            }
    }
    if (hl.n) {
        size_t business = 0;
        for (size_t i = 0; i < na; i++) business += cs[i].fsp_days == SETTLE_DAYS_BUSINESS;
        if (!business) {
            st = gpi_diag_set(d, GPI_EINPUT, "%s:%d: holidays: no contract settles on business "
                              "days (\"fsp_days\": \"business\"), so they would change nothing",
                              path, root_key_line(&text, "holidays"));
            goto done;
        }
    }
    *out = cs;
    *n = na;
    cs = NULL;
done:
    free(cs);
    free(hl.day);
    free(text.p);
    json_decref(root);
    return st;
}
