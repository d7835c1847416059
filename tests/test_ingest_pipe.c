/* tests/test_ingest_pipe.c -- ingest_file with the parser in a second
 * thread (opt.threads = 2, ingest/pipe.c) against the one-thread run.
 *
 * The sink records every callback as one line of text (kind, line, every
 * field of the observation, column, message, raw row); the two runs must
 * give the same transcript, the same status and message, the same row
 * count and file hash -- on files that cross many batches, carry rejects
 * and warnings, hold one event larger than a batch's arena, end in a
 * structural error, or are stopped by the sink.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "core/vec.h"
#include "tests/ingest_helpers.h"

typedef struct trace {
    char *buf;
    size_t len, cap;
    long events;
    long stop_at;    /* stop at this observation (1-based), 0 never */
    long n_obs;
    long stop_rej;   /* stop at this reject (1-based), 0 never */
    long n_rej;
} trace;

static void add(trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_int_equal(GPI_VEC_RESERVE(t->buf, t->cap, t->len + (size_t)n + 1), 0);
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
    t->events++;
}

static const char *z(const char *s)
{
    return s ? s : "(null)";
}

static int t_obs(void *ud, const gpi_obs *o, const char *raw)
{
    trace *t = ud;
    add(t,
        "obs %ld k%d s%d t%d %d/%d st%d u%d at%lld d%d h%016llx p%lld q%lld n%d %s|%s|%s|%s|%s|"
        "%s|%s|%s|%s|%s|%s|%s|%s|%s raw=%s\n",
        o->line, o->kind, o->scope, o->tier, o->term, o->term_months, o->status, o->unit,
        (long long)o->observed_at, o->day, (unsigned long long)o->key_hash,
        (long long)o->price_micro, (long long)o->quantity_micro, o->gpu_count, z(o->gpu),
        z(o->provider), z(o->group), z(o->segment), z(o->region), z(o->source), z(o->id),
        z(o->ident), z(o->buyer), z(o->raw_gpu), z(o->raw_provider), z(o->raw_price),
        z(o->currency), z(o->sku), z(raw));
    return t->stop_at > 0 && ++t->n_obs >= t->stop_at;
}

static int t_rej(void *ud, long line, const char *col, const char *raw, const char *msg)
{
    trace *t = ud;
    add(t, "reject %ld %s %s raw=%s\n", line, z(col), msg, z(raw));
    return t->stop_rej > 0 && ++t->n_rej >= t->stop_rej;
}

static void t_warn(void *ud, const char *msg)
{
    add(ud, "warn %s\n", msg);
}

static void t_progress(void *ud, uint64_t done, uint64_t total)
{
    add(ud, "progress %llu/%llu\n", (unsigned long long)done, (unsigned long long)total);
}

typedef struct outcome {
    gpi_status rc;
    char msg[sizeof ((gpi_diag *)0)->msg];
    ingest_result res;
    trace tr;
} outcome;

static void run_mode(const ingest_tables *t, const char *path, int kind, int threads, long stop_at,
                     outcome *out)
{
    memset(out, 0, sizeof *out);
    if (stop_at > 0) out->tr.stop_at = stop_at;
    else out->tr.stop_rej = -stop_at;
    ingest_sink sink = {t_obs, t_rej, t_warn, t_progress, &out->tr};
    ingest_opts opt = {.path = path, .kind = kind, .threads = threads};
    gpi_diag d = {{0}};
    out->rc = ingest_file(t, &opt, &sink, &out->res, &d);
    snprintf(out->msg, sizeof out->msg, "%s", out->rc == GPI_OK ? "" : d.msg);
}

/* Runs path with one and two threads and requires the same outcome;
 * returns the events of the one-thread run. */
static long same_both_ways(const ingest_tables *t, const char *path, int kind, long stop_at,
                           gpi_status want_rc, const char *want_msg)
{
    outcome *one = malloc(sizeof *one), *two = malloc(sizeof *two);
    assert_non_null(one);
    assert_non_null(two);
    run_mode(t, path, kind, 1, stop_at, one);
    run_mode(t, path, kind, 2, stop_at, two);
    if (one->rc != want_rc) fail_msg("%s: status %d, want %d (%s)", path, one->rc, want_rc, one->msg);
    assert_int_equal(two->rc, one->rc);
    if (want_msg) assert_string_equal(one->msg, want_msg);
    assert_string_equal(two->msg, one->msg);
    assert_int_equal(two->tr.events, one->tr.events);
    assert_true(one->tr.len == two->tr.len);
    if (one->tr.len && memcmp(one->tr.buf, two->tr.buf, one->tr.len) != 0) {
        size_t i = 0;
        while (one->tr.buf[i] == two->tr.buf[i]) i++;
        fail_msg("%s: transcripts differ at byte %zu: \"%.80s\" vs \"%.80s\"", path, i,
                 one->tr.buf + i, two->tr.buf + i);
    }
    assert_int_equal(two->res.rows_read, one->res.rows_read);
    assert_string_equal(two->res.sha256, one->res.sha256);
    assert_true((want_rc == GPI_OK) == (one->res.sha256[0] != '\0'));
    long events = one->tr.events;
    free(one->tr.buf);
    free(two->tr.buf);
    free(one);
    free(two);
    return events;
}

#define HDR "observed_at,provider,gpu,sku,gpu_count,price,currency,unit,term,region,quantity,junk\n"

/* n data rows; every 97th has a bad price, every 1000th a quoted region
 * with a comma and a newline; the junk column is warned about. */
static char *market(long n, long broken_at)
{
    size_t cap = (size_t)n * 160 + 256;
    char *s = malloc(cap), *p = s;
    assert_non_null(s);
    p += sprintf(p, HDR);
    for (long i = 1; i <= n; i++) {
        if (i == broken_at) {
            p += sprintf(p, "2024-03-01T00:00:00Z,aws,H100,p5,8,\"1.5,USD\n");
            break;
        }
        const char *region = i % 1000 == 0 ? "\"us-east,\n1\"" : "us-east-1";
        if (i % 97 == 0)
            p += sprintf(p, "2024-03-%02ldT%02ld:00:00Z,lambda,H100,,1,abc,USD,gpu-hour,spot,%s,,x\n",
                         1 + i % 28, i % 24, region);
        else
            p += sprintf(p, "2024-03-%02ldT%02ld:%02ld:00Z,%s,H100,sku%ld,%d,%ld.%03ld,USD,%s,%s,%s,%ld,x\n",
                         1 + i % 28, i % 24, i % 60, i % 2 ? "aws" : "lambda", i % 50, 1 + (int)(i % 8),
                         1 + i % 40, i % 1000, i % 3 ? "gpu-hour" : "instance-hour",
                         i % 5 ? "on-demand" : "spot", region, 1 + i % 64);
    }
    return s;
}

static void test_pipe_matches_one_thread(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    static const long sizes[] = {0, 1, 2047, 2048, 2049, 30000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *text = market(sizes[i], 0), name[64];
        snprintf(name, sizeof name, "m%zu.csv", i);
        char *path = tu_write(dir, name, text);
        long events = same_both_ways(t, path, GPI_OFFER, 0, GPI_OK, NULL);
        assert_true(events >= sizes[i] + 1); /* every row, and the warning */
        free(path);
        free(text);
    }
    ingest_tables_free(t);
    free(dir);
}

/* A row larger than a batch's 512 KiB arena (its region and its raw row
 * are both copied) among ordinary rows. */
static void test_pipe_event_larger_than_arena(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    char *head = market(3000, 0);
    size_t big = 700u << 10, n = strlen(head);
    char *text = malloc(n + big + 256);
    memcpy(text, head, n);
    char *p = text + n;
    p += sprintf(p, "2024-03-05T00:00:00Z,aws,H100,,1,2.5,USD,gpu-hour,on-demand,");
    memset(p, 'r', big);
    p += big;
    strcpy(p, ",5,x\n2024-03-05T00:00:00Z,aws,H100,,1,2.5,USD,gpu-hour,spot,eu,5,x\n");
    char *path = tu_write(dir, "big.csv", text);
    same_both_ways(t, path, GPI_OFFER, 0, GPI_OK, NULL);
    free(path);
    free(text);
    free(head);
    ingest_tables_free(t);
    free(dir);
}

/* An unterminated quote deep in the file: the events before it arrive in
 * both modes, and the error is the same. */
static void test_pipe_structural_error(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    char *text = market(20000, 15000);
    char *path = tu_write(dir, "broken.csv", text);
    char want[4200];
    snprintf(want, sizeof want, "%s:", path);
    long events = same_both_ways(t, path, GPI_OFFER, 0, GPI_EINPUT, NULL);
    assert_true(events > 2048);
    outcome *o = malloc(sizeof *o);
    run_mode(t, path, GPI_OFFER, 2, 0, o);
    assert_true(strncmp(o->msg, want, strlen(want)) == 0);
    assert_non_null(strstr(o->msg, "unterminated"));
    free(o->tr.buf);
    free(o);
    free(path);
    free(text);
    ingest_tables_free(t);
    free(dir);
}

/* The sink stops the file at its 5,000th observation, or at its 30th
 * reject: no callback after that one, the message names its line, and the
 * rows read count up to it, in both modes. */
static void test_pipe_sink_stops(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    char *text = market(20000, 0);
    char *path = tu_write(dir, "stop.csv", text);
    outcome *o = malloc(sizeof *o);
    run_mode(t, path, GPI_OFFER, 1, 5000, o);
    const char *last = o->tr.buf + o->tr.len - 1;
    while (last > o->tr.buf && last[-1] != '\n') last--;
    long line = 0;
    assert_int_equal(sscanf(last, "obs %ld", &line), 1);
    char want[4200];
    snprintf(want, sizeof want, "%s:%ld: stopped by the store", path, line);
    same_both_ways(t, path, GPI_OFFER, 5000, GPI_ESTORE, want);
    free(o->tr.buf);
    /* stopped by its 30th reject (a bad price: every 97th row) */
    run_mode(t, path, GPI_OFFER, 1, -30, o);
    assert_int_equal(o->res.rows_read, 30 * 97);
    /* row 2910 is on physical line 2913: the header, and rows 1000 and
     * 2000 each span two lines */
    snprintf(want, sizeof want, "%s:%d: stopped by the store", path, 30 * 97 + 3);
    same_both_ways(t, path, GPI_OFFER, -30, GPI_ESTORE, want);
    free(o->tr.buf);
    free(o);
    free(path);
    free(text);
    ingest_tables_free(t);
    free(dir);
}

/* Note 5 of ingest/pipe.c: what the numbers promise, on the two-thread
 * run of a market with repeats.  Profiles and offer identities are
 * numbered 1, 2, ... in order of first sight, the first row of each
 * number says so, every later row with a number has that first row's
 * profile (identity), and two numbers never share one. */
typedef struct numbers {
    char *profile[4096], *ident[4096];
    uint32_t n_profile, n_ident;
    long rows, bad;
    long after; /* the first `after` observations carry no numbers */
    char why[256];
} numbers;

static void profile_text(const gpi_obs *o, char *out, size_t cap)
{
    const char *text[GPI_PROFILE_TEXTS];
    int32_t ints[GPI_PROFILE_INTS];
    gpi_obs_profile(o, text, ints);
    size_t at = 0;
    for (int i = 0; i < GPI_PROFILE_INTS; i++)
        at += (size_t)snprintf(out + at, cap - at, "%d,", ints[i]);
    for (int i = 0; i < GPI_PROFILE_TEXTS; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s|", text[i] ? text[i] : "(null)");
}

/* Checks one number against its map; 0 when it breaks the promise. */
static int check_number(char **seen, uint32_t *n, uint32_t seq, unsigned char first,
                        const char *value)
{
    if (seq == 0 || seq > 4096) return 0;
    if (first) {
        if (seq != *n + 1) return 0; /* in order of first sight */
        for (uint32_t i = 1; i <= *n; i++)
            if (strcmp(seen[i - 1], value) == 0) return 0; /* one value, one number */
        seen[(*n)++] = strdup(value);
        return 1;
    }
    return seq <= *n && strcmp(seen[seq - 1], value) == 0;
}

static int n_obs(void *ud, const gpi_obs *o, const char *raw)
{
    (void)raw;
    numbers *nb = ud;
    char text[1024];
    profile_text(o, text, sizeof text);
    if (++nb->rows <= nb->after) {
        if ((o->profile_seq || o->profile_first || o->ident_seq || o->ident_first) && !nb->bad++)
            snprintf(nb->why, sizeof nb->why, "line %ld: numbered before row %ld", o->line,
                     nb->after);
        return 0;
    }
    int ok = check_number(nb->profile, &nb->n_profile, o->profile_seq, o->profile_first, text);
    if (ok && o->kind == GPI_OFFER)
        ok = check_number(nb->ident, &nb->n_ident, o->ident_seq, o->ident_first, o->ident);
    if (!ok && !nb->bad++)
        snprintf(nb->why, sizeof nb->why, "line %ld: profile %u%s ident %u%s", o->line,
                 o->profile_seq, o->profile_first ? " (first)" : "", o->ident_seq,
                 o->ident_first ? " (first)" : "");
    return 0;
}

static int n_rej(void *ud, long line, const char *col, const char *raw, const char *msg)
{
    (void)ud, (void)line, (void)col, (void)raw, (void)msg;
    return 0;
}

/* The numbers of file `text` read in two threads, numbered after
 * number_after observations (0: the default), each checked row by row by
 * n_obs against `after` unnumbered rows first (fails the test when one
 * breaks them).  Free with numbers_free. */
static numbers *read_numbers(const char *text, long number_after, long after)
{
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    char *path = tu_write(dir, "n.csv", text);
    numbers *nb = calloc(1, sizeof *nb);
    assert_non_null(nb);
    nb->after = after;
    ingest_sink sink = {n_obs, n_rej, NULL, NULL, nb};
    ingest_opts opt = {.path = path, .kind = GPI_OFFER, .threads = 2,
                       .number_after = number_after};
    ingest_result res;
    gpi_diag d = {{0}};
    assert_int_equal(ingest_file(t, &opt, &sink, &res, &d), GPI_OK);
    if (nb->bad) fail_msg("%ld rows break the numbering; first: %s", nb->bad, nb->why);
    free(path);
    ingest_tables_free(t);
    free(dir);
    return nb;
}

static void numbers_free(numbers *nb)
{
    for (uint32_t i = 0; i < nb->n_profile; i++) free(nb->profile[i]);
    for (uint32_t i = 0; i < nb->n_ident; i++) free(nb->ident[i]);
    free(nb);
}

static void test_pipe_numbers(void **state)
{
    (void)state;
    char *text = market(30000, 0);
    /* numbered after the first 1,000 observations: repeats, so fewer
     * numbers than rows, and more than one */
    numbers *nb = read_numbers(text, 1000, 1000);
    assert_true(nb->rows > 29000);
    assert_true(nb->n_profile > 10 && nb->n_profile < 2000);
    assert_true(nb->n_ident > 10 && (long)nb->n_ident < nb->rows);
    numbers_free(nb);
    /* by default (65,536) not at all in a file this size */
    nb = read_numbers(text, 0, 1L << 30);
    assert_true(nb->rows > 29000);
    assert_int_equal(nb->n_profile, 0);
    assert_int_equal(nb->n_ident, 0);
    numbers_free(nb);
    free(text);
}

/* An offer whose profile changes under the same identity (pipe.c note 5:
 * the identity's last profile is compared before the profile map is
 * asked): the numbers still follow the profiles, row by row. */
static void test_pipe_numbers_profile_moves(void **state)
{
    (void)state;
    size_t cap = 6000 * 120 + 128;
    char *text = malloc(cap), *p = text;
    assert_non_null(text);
    p += sprintf(p, "id,observed_at,provider,gpu,sku,gpu_count,price,currency,unit,term,region\n");
    /* 20 offers a day for 300 days; offer k moves region every 7th day
     * and sku every 11th, and moves back */
    for (int day = 0; day < 300; day++)
        for (int k = 0; k < 20; k++)
            p += sprintf(p, "o%d,2024-%02d-%02dT00:00:00Z,aws,H100,sku%d,8,%d.5,USD,gpu-hour,"
                            "on-demand,%s\n",
                         k, 1 + day / 28 % 12, 1 + day % 28, (day + k) % 11 == 0 ? 99 : k,
                         1 + k, (day + k) % 7 == 0 ? "eu-west-1" : "us-east-1");
    numbers *nb = read_numbers(text, 10, 10);
    assert_int_equal(nb->rows, 6000);
    assert_int_equal(nb->n_ident, 20);
    assert_true(nb->n_profile > 20); /* each offer had more than one */
    numbers_free(nb);
    free(text);
}

/* NDJSON goes through the same pipe. */
static void test_pipe_ndjson(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    char *dir = tu_mkdtemp("pipe");
    size_t cap = 5000 * 120;
    char *text = malloc(cap), *p = text;
    for (int i = 1; i <= 5000; i++)
        p += sprintf(p,
                     "{\"observed_at\":\"2024-03-01T00:00:%02dZ\",\"kind\":\"offer\",\"provider\":"
                     "\"aws\",\"gpu\":\"H100\",\"price\":%s,\"sku\":\"s%d\"}\n",
                     i % 60, i % 101 ? "2.5" : "\"bad\"", i);
    char *path = tu_write(dir, "m.ndjson", text);
    assert_true(same_both_ways(t, path, -1, 0, GPI_OK, NULL) >= 5000);
    free(path);
    free(text);
    ingest_tables_free(t);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipe_matches_one_thread),
        cmocka_unit_test(test_pipe_event_larger_than_arena),
        cmocka_unit_test(test_pipe_structural_error),
        cmocka_unit_test(test_pipe_sink_stops),
        cmocka_unit_test(test_pipe_ndjson),
        cmocka_unit_test(test_pipe_numbers),
        cmocka_unit_test(test_pipe_numbers_profile_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
