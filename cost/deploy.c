/* cost/deploy.c -- the deployments CSV, validated with file:line errors.
 *
 * The file goes through core's CSV reader (core/csv_reader.h): RFC 4180
 * quoting (commas, doubled quotes and line breaks inside quotes), spaces
 * around a field, a UTF-8 BOM, CRLF line ends and blank lines; a row is
 * placed at the line where it starts.  A row that holds a NUL byte or is
 * over 4095 bytes is refused.  The first row is the header; columns are found by
 * name (case-insensitive), so optional columns may be left out and the
 * order is free.  An unknown or repeated column is an error: a misspelt
 * optional column must not be dropped silently.
 *
 * Numbers are exact decimals, never rounded on the way in: a value with
 * more decimals than its unit holds is refused ("more than 3 decimals").
 *   tokens_per_s   (0, 1000000], 3 decimals       -> tps_milli
 *   acceptance     (0, 1], 6 decimals              -> accept_ppm
 *   gpus           whole number 1..10000000
 *   rent           (0, 1000] USD/GPU-hour, 6 dp    -> rent_micro
 *   other_cost     [0, 1000] USD/GPU-hour, 6 dp    -> other_micro
 *   api_price      [0, 1000000] USD per 1M tokens  -> api_micro
 * The bounds keep every product of the cost in 128-bit integers.
 *
 * Errors: the first bad field in file order wins; after all rows are read,
 * rows of one operator, deployment, workload and latency target that
 * share a day are reported at the later row ("overlaps line N").
 */
#include "cost/cost.h"
#include "core/csv_reader.h"
#include "core/vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LINE 4096
#define MAX_COLS 32
#define MAX_FILE_MIB 64
#define MAX_RANGE_DAYS 3660

enum { C_OPERATOR, C_DEPLOYMENT, C_WORKLOAD, C_LATENCY, C_GPU, C_GRADE, C_RENT, C_DATE,
       C_FROM, C_TO, C_TPS, C_ACCEPT, C_GPUS, C_OTHER, C_API, C__N };

static const char *const col_names[C__N] = {
    "operator", "deployment", "workload", "latency_target", "gpu",       "grade",
    "rent",     "date",       "from",     "to",             "tokens_per_s",
    "acceptance", "gpus",     "other_cost", "api_price"};

/* A name: 1..64 bytes, no control characters. */
static const char *parse_name(const char *s, int required, char out[COST_NAME_MAX + 1])
{
    size_t n = strlen(s);
    if (n == 0) return required ? "missing" : NULL;
    if (n > COST_NAME_MAX) return "longer than 64 bytes";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return "contains a control character";
    memcpy(out, s, n + 1);
    return NULL;
}

static const char *parse_grade(const char *s, char out[COST_NAME_MAX + 1])
{
    size_t n = strlen(s);
    if (n == 0) return NULL;
    if (n > COST_NAME_MAX || !gpi_grade_id_ok(s)) return "not a grade id";
    memcpy(out, s, n + 1);
    return NULL;
}

/* An exact decimal in units of 10^-digits within [lo, hi] (units), lo >= 0;
 * strict: lo itself is refused (a positive quantity). */
static const char *parse_units(const char *s, int digits, int64_t lo, int strict, int64_t hi,
                               int64_t *out)
{
    static const char *const too_fine[] = {"not a whole number", "more than 1 decimal",
                                           "more than 2 decimals", "more than 3 decimals",
                                           "more than 4 decimals", "more than 5 decimals",
                                           "more than 6 decimals"};
    if (!*s) return "missing";
    gpi_dec v;
    const char *why = gpi_dec_parse(s, &v);
    if (why) return why;
    int64_t mant = v.mant;
    int scale = v.scale;
    while (scale > digits && mant % 10 == 0) {
        mant /= 10;
        scale--;
    }
    if (scale > digits) return too_fine[digits];
    __int128 u = mant;
    for (int k = scale; k < digits; k++) u *= 10;
    if (strict && u <= lo) return lo == 0 ? "must be positive" : "too small";
    if (u < lo) return lo == 0 ? "must not be negative" : "too small";
    if (u > hi) return "too large";
    *out = (int64_t)u;
    return NULL;
}

static const char *parse_field(int c, const char *s, cost_deployment *r)
{
    switch (c) {
    case C_OPERATOR: return parse_name(s, 1, r->op);
    case C_DEPLOYMENT: return parse_name(s, 0, r->name);
    case C_WORKLOAD: return parse_name(s, 0, r->workload);
    case C_LATENCY: return parse_name(s, 1, r->latency);
    case C_GPU: return parse_name(s, 1, r->gpu);
    case C_GRADE: return parse_grade(s, r->grade);
    case C_RENT:
        if (!*s) return NULL;
        return parse_units(s, 6, 0, 1, 1000000000LL, &r->rent_micro);
    case C_DATE:
    case C_FROM:
        if (!*s) return "missing";
        return gpi_date_parse(s, &r->from);
    case C_TO:
        if (!*s) return NULL;
        return gpi_date_parse(s, &r->to);
    case C_TPS: return parse_units(s, 3, 0, 1, 1000000000LL, &r->tps_milli);
    case C_ACCEPT: return parse_units(s, 6, 0, 1, 1000000, &r->accept_ppm);
    case C_GPUS: return parse_units(s, 0, 0, 1, 10000000, &r->gpus);
    case C_OTHER:
        if (!*s) return NULL;
        return parse_units(s, 6, 0, 0, 1000000000LL, &r->other_micro);
    case C_API:
        if (!*s) return NULL;
        return parse_units(s, 6, 0, 0, 1000000000000LL, &r->api_micro);
    }
    return "unknown column";
}

static gpi_status read_header(const char *path, long line, const char *const *f, int nf,
                              int *colpos,
                              gpi_diag *d)
{
    for (int c = 0; c < C__N; c++) colpos[c] = -1;
    if (nf > MAX_COLS)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: more than %d columns", path, line,
                            MAX_COLS);
    for (int i = 0; i < nf; i++) {
        int c = 0;
        while (c < C__N && strcasecmp(f[i], col_names[c]) != 0) c++;
        if (c == C__N)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: unknown column (got \"%s\")",
                                path, line, f[i]);
        if (colpos[c] >= 0)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: column given twice (got \"%s\")",
                                path, line, f[i]);
        colpos[c] = i;
    }
    static const int required[] = {C_OPERATOR, C_GPU, C_LATENCY, C_TPS, C_ACCEPT, C_GPUS};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (colpos[required[k]] < 0)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: missing column %s", path, line,
                                col_names[required[k]]);
    if (colpos[C_DATE] >= 0 && (colpos[C_FROM] >= 0 || colpos[C_TO] >= 0))
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: header: date and from/to are alternatives, not both", path,
                            line);
    if (colpos[C_DATE] < 0 && colpos[C_FROM] < 0)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: missing column date (or from[,to])",
                            path, line);
    if (colpos[C_GRADE] < 0 && colpos[C_RENT] < 0)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: header: missing column grade (or rent)", path,
                            line);
    return GPI_OK;
}

/* Parses one data row into *r; returns GPI_OK or an error naming the
 * column by its header spelling. */
static gpi_status read_row(const char *path, long line, const char *const *f, int nf,
                           const char *const *hdr,
                           const int *colpos, cost_deployment *r, gpi_diag *d)
{
    memset(r, 0, sizeof *r);
    r->line = line;
    r->rent_micro = r->other_micro = r->api_micro = -1;
    r->to = INT32_MIN;
    for (int i = 0; i < nf; i++) { /* in the file's column order */
        int c = 0;
        while (colpos[c] != i) c++;
        const char *why = parse_field(c, f[i], r);
        if (why)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%s\")", path, line,
                                hdr[i], why, f[i]);
    }
    if ((__int128)r->tps_milli * r->accept_ppm < 1000000) {
        int c = colpos[C_ACCEPT];
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: %s: tokens_per_s x acceptance below 0.001 tokens/s (got \"%s\")",
                            path, line, hdr[c], f[c]);
    }
    if (!r->grade[0] && r->rent_micro < 0) {
        int c = colpos[C_GRADE] >= 0 ? C_GRADE : C_RENT;
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: %s: a grade or an own rent price is needed (got \"\")", path,
                            line, hdr[colpos[c]]);
    }
    int tc = colpos[C_TO];
    if (r->to == INT32_MIN) {
        r->to = r->from;
        return GPI_OK;
    }
    if (r->to < r->from)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: before from (got \"%s\")", path, line,
                            hdr[tc], f[tc]);
    if ((int64_t)r->to - r->from >= MAX_RANGE_DAYS)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: range longer than %d days (got \"%s\")",
                            path, line, hdr[tc], MAX_RANGE_DAYS, f[tc]);
    return GPI_OK;
}

static int same_key(const cost_deployment *a, const cost_deployment *b)
{
    return strcmp(a->op, b->op) == 0 && strcmp(a->name, b->name) == 0 &&
           strcmp(a->workload, b->workload) == 0 && strcmp(a->latency, b->latency) == 0;
}

static int key_cmp(const void *pa, const void *pb)
{
    const cost_deployment *a = *(const cost_deployment *const *)pa,
                          *b = *(const cost_deployment *const *)pb;
    int c = strcmp(a->op, b->op);
    if (!c) c = strcmp(a->name, b->name);
    if (!c) c = strcmp(a->workload, b->workload);
    if (!c) c = strcmp(a->latency, b->latency);
    if (!c) c = (a->from > b->from) - (a->from < b->from);
    if (!c) c = (a->line > b->line) - (a->line < b->line);
    return c;
}

/* Rows of one key may not share a day; the reported pair is the one whose
 * later row comes first in the file. */
static gpi_status check_overlaps(const char *path, const cost_deployments *ds, gpi_diag *d)
{
    if (ds->n < 2) return GPI_OK;
    const cost_deployment **p = malloc(ds->n * sizeof *p);
    if (!p) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < ds->n; i++) p[i] = &ds->v[i];
    qsort(p, ds->n, sizeof *p, key_cmp);
    long bad_line = 0, other = 0;
    const cost_deployment *reach = p[0]; /* the row reaching furthest so far */
    for (size_t i = 1; i < ds->n; i++) {
        if (!same_key(p[i], reach)) {
            reach = p[i];
            continue;
        }
        if (p[i]->from <= reach->to) {
            long later = p[i]->line > reach->line ? p[i]->line : reach->line;
            long earlier = p[i]->line > reach->line ? reach->line : p[i]->line;
            if (!bad_line || later < bad_line) bad_line = later, other = earlier;
        }
        if (p[i]->to > reach->to) reach = p[i];
    }
    free(p);
    if (bad_line)
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: row: overlaps line %ld (same operator, deployment, workload "
                            "and latency target on a common day)",
                            path, bad_line, other);
    return GPI_OK;
}

typedef struct deploy_ctx {
    const char *path;
    cost_deployments *out;
    size_t cap;
    int colpos[C__N], ncol;     /* ncol 0 until the header is read */
    const char *hdr[MAX_COLS];  /* the header's names, in hdrbuf */
    char hdrbuf[MAX_LINE];
} deploy_ctx;

static gpi_status deploy_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    deploy_ctx *c = ud;
    if (gpi_csv_rec_nul(r))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: contains a NUL byte", c->path, r->line);
    if (r->raw_len >= MAX_LINE)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: longer than %d bytes", c->path, r->line,
                            MAX_LINE - 1);
    if (c->ncol == 0) {
        gpi_status st = read_header(c->path, r->line, r->f, r->n, c->colpos, d);
        if (st != GPI_OK) return st;
        size_t o = 0; /* the names fit: their bytes and NULs are at most raw_len + 1 */
        for (int i = 0; i < r->n; i++) {
            memcpy(c->hdrbuf + o, r->f[i], r->len[i] + 1);
            c->hdr[i] = c->hdrbuf + o;
            o += r->len[i] + 1;
        }
        c->ncol = r->n;
        return GPI_OK;
    }
    if (r->n != c->ncol)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: row: expected %d fields, found %d", c->path,
                            r->line, c->ncol, r->n);
    cost_deployments *out = c->out;
    if (GPI_VEC_RESERVE(out->v, c->cap, out->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->path);
    gpi_status st =
        read_row(c->path, r->line, r->f, r->n, c->hdr, c->colpos, &out->v[out->n], d);
    if (st == GPI_OK) out->n++;
    return st;
}

gpi_status cost_deployments_parse(const char *path, const char *text, size_t len,
                                  cost_deployments *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!path || (!text && len))
        return gpi_diag_set(d, GPI_EUSAGE, "cost_deployments_parse: bad arguments");
    deploy_ctx *c = calloc(1, sizeof *c);
    if (!c) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    c->path = path;
    c->out = out;
    gpi_status st = gpi_csv_read_recs(path, text ? text : "", len, 0, deploy_rec, c, d);
    if (st == GPI_OK && c->ncol == 0)
        st = gpi_diag_set(d, GPI_EINPUT, "%s: empty file (no header)", path);
    else if (st == GPI_OK && out->n == 0)
        st = gpi_diag_set(d, GPI_EINPUT, "%s: no deployment rows", path);
    if (st == GPI_OK) st = check_overlaps(path, out, d);
    if (st == GPI_OK) {
        out->has_other = c->colpos[C_OTHER] >= 0;
        out->has_api = c->colpos[C_API] >= 0;
    } else {
        cost_deployments_free(out);
    }
    free(c);
    return st;
}

gpi_status cost_deployments_load(const char *path, cost_deployments *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    gpi_status st = gpi_text_read(path, MAX_FILE_MIB, &text, &len, d);
    if (st != GPI_OK) return st;
    st = cost_deployments_parse(path, text, len, out, d);
    free(text);
    return st;
}

void cost_deployments_free(cost_deployments *ds)
{
    if (!ds) return;
    free(ds->v);
    memset(ds, 0, sizeof *ds);
}

const char *cost_label(const cost_deployment *dep, char out[2 * COST_NAME_MAX + 2])
{
    if (dep->name[0])
        snprintf(out, 2 * COST_NAME_MAX + 2, "%s/%s", dep->op, dep->name);
    else
        snprintf(out, 2 * COST_NAME_MAX + 2, "%s", dep->op);
    return out;
}

/* Next character of a GPU name that counts in comparison, lower-cased;
 * '\0' at the end. */
static int gpu_next(const char **p)
{
    while (**p == ' ' || **p == '-' || **p == '_') (*p)++;
    if (!**p) return 0;
    return tolower((unsigned char)*(*p)++);
}

int cost_gpu_in(const char *gpu, const char *const *gpus, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *a = gpu, *b = gpus[i];
        int ca, cb;
        do {
            ca = gpu_next(&a);
            cb = gpu_next(&b);
        } while (ca && ca == cb);
        if (ca == cb) return 1;
    }
    return 0;
}
