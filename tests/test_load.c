/* tests/test_load.c -- load/: the ingest-to-store protocol, through the
 * library, on real files and a fresh database per case (no child
 * processes, no kills, no sleeps).
 *
 * Each case is a sequence of files loaded in turn with load_file; after
 * each, the outcome, batch, counts and message are checked, and after the
 * last, what the database holds (batches, observations, rejects), what
 * reached the rejects CSV, and which rejects the caller heard:
 *
 *   - a file is stored with its rejects recorded in the rejects table and
 *     the CSV, and every reject heard;
 *   - a file with the bytes of a stored one is skipped: hashed first when
 *     its size is known, otherwise (a gzip of it) read in full and rolled
 *     back, its buffered rejects dropped;
 *   - the same file read with other options is read again: all duplicates;
 *   - a row that conflicts with a stored observation becomes a reject;
 *   - a structurally broken file, or one whose counts do not add up (a
 *     reader that miscounts), leaves nothing in the database or the CSV;
 *   - a rejects CSV that cannot be written leaves the file stored and says
 *     so.
 *
 * Fixtures: tests/fixtures/tables; the expected messages are the SPEC's
 * forms written out by hand.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "load/load.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/testing.h"

#define HDR "observed_at,provider,gpu,sku,gpu_count,price,currency,unit,tier,term,term_months,quantity,buyer,status,kind,id\n"
#define ROW1 "2024-03-01,aws,H100,,,2.5,,gpu-hour,,,,,,,offer,o1\n"
#define ROW2 "2024-03-01,aws,H100,,,2.75,,gpu-hour,,,,,,,offer,o2\n"
#define BAD3 "2024-03-01,aws,H100,,,abc,,gpu-hour,,,,,,,offer,o3\n"
/* o1 again at the same time with another price */
#define ROW1_OTHER "2024-03-01,aws,H100,,,3,,gpu-hour,,,,,,,offer,o1\n"

#define GOOD HDR ROW1 ROW2 BAD3
#define BAD3_MSG "price: not a number (got \"abc\")"

/* A reader that reports one row more than it handed over. */
static gpi_status miscount(const ingest_tables *t, const ingest_opts *opt,
                           const ingest_sink *sink, ingest_result *res, gpi_diag *d)
{
    gpi_status rc = ingest_file(t, opt, sink, res, d);
    res->rows_read++;
    return rc;
}

typedef struct step {
    const char *file;       /* in the case's directory */
    const char *text;       /* written before the load (gz: compressed); NULL: as is */
    int gz, admit;
    load_read_fn reader;
    gpi_status rc;
    load_outcome outcome;
    int64_t batch;          /* STORED or SKIPPED */
    long read, stored, dup, rej;
    const char *msg;        /* d.msg, or NULL when d must stay empty */
} step;

typedef struct lcase {
    const char *name;
    step steps[3];
    int dev_full;           /* the rejects CSV is /dev/full */
    long batches, obs, rejects;
    const char *csv;        /* the rejects CSV at the end */
    const char *heard;      /* the reject events, one per line */
} lcase;

#define CSV_HDR "file,line,column,reason,raw_row\n"
/* a.csv's reject as a CSV row: every text field quoted, quotes doubled */
#define A_REJ                                                                                   \
    "\"a.csv\",4,\"price\",\"not a number (got \"\"abc\"\")\","                \
    "\"2024-03-01,aws,H100,,,abc,,gpu-hour,,,,,,,offer,o3\"\n"

static const lcase cases[] = {
    {"stored, with a reject recorded",
     {{"a.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 3, 2, 0, 1, NULL}},
     0, 1, 2, 1,
     CSV_HDR A_REJ,
     "a.csv:4: " BAD3_MSG "\n"},
    {"same bytes again: hashed first, skipped",
     {{"a.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 3, 2, 0, 1, NULL},
      {"b.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_SKIPPED, 1, 0, 0, 0, 0, NULL},
      {"a.csv", NULL, 0, 0, NULL, GPI_OK, LOAD_SKIPPED, 1, 0, 0, 0, 0, NULL}},
     0, 1, 2, 1,
     CSV_HDR A_REJ,
     "a.csv:4: " BAD3_MSG "\n"},
    {"a gzip of a stored file: read, rolled back, skipped; its rejects dropped",
     {{"a.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 3, 2, 0, 1, NULL},
      {"a.csv.gz", GOOD, 1, 0, NULL, GPI_OK, LOAD_SKIPPED, 1, 0, 0, 0, 0, NULL}},
     0, 1, 2, 1,
     CSV_HDR A_REJ,
     "a.csv:4: " BAD3_MSG "\na.csv.gz:4: " BAD3_MSG "\n"},
    {"other options: read again, all duplicates",
     {{"a.csv", HDR ROW1 ROW2, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 2, 2, 0, 0, NULL},
      {"a.csv", NULL, 0, 1, NULL, GPI_OK, LOAD_STORED, 2, 2, 0, 2, 0, NULL}},
     0, 2, 2, 0, CSV_HDR, ""},
    {"a conflicting row is a reject",
     {{"a.csv", HDR ROW1, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 1, 1, 0, 0, NULL},
      {"b.csv", HDR ROW1_OTHER ROW2, 0, 0, NULL, GPI_OK, LOAD_STORED, 2, 2, 1, 0, 1, NULL}},
     0, 2, 2, 1,
     CSV_HDR "\"b.csv\",2,\"\",\"conflicts with a stored observation\","
             "\"2024-03-01,aws,H100,,,3,,gpu-hour,,,,,,,offer,o1\"\n",
     "b.csv:2: conflicts with a stored observation\n"},
    {"a broken file leaves nothing",
     {{"x.csv", HDR ROW1 BAD3 "2024-03-01,\"aws,H100\n", 0, 0, NULL, GPI_EINPUT, LOAD_FAILED, 0,
       0, 0, 0, 0, "x.csv:4:12: unterminated quoted field"}},
     0, 0, 0, 0, CSV_HDR, "x.csv:3: " BAD3_MSG "\n"},
    {"a broken file after a stored one changes nothing",
     {{"a.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 3, 2, 0, 1, NULL},
      {"x.csv", HDR ROW1_OTHER BAD3 "\"\n", 0, 0, NULL, GPI_EINPUT, LOAD_FAILED, 0, 0, 0, 0, 0,
       "x.csv:4:1: unterminated quoted field"}},
     0, 1, 2, 1,
     CSV_HDR A_REJ,
     "a.csv:4: " BAD3_MSG "\nx.csv:2: conflicts with a stored observation\nx.csv:3: " BAD3_MSG "\n"},
    {"counts that do not add up: nothing stored",
     {{"c.csv", GOOD, 0, 0, miscount, GPI_EINPUT, LOAD_FAILED, 0, 0, 0, 0, 0,
       "c.csv: internal error: counts do not add up"}},
     0, 0, 0, 0, CSV_HDR, "c.csv:4: " BAD3_MSG "\n"},
    {"a rejects CSV that cannot be written: the file is stored",
     {{"a.csv", GOOD, 0, 0, NULL, GPI_OK, LOAD_STORED, 1, 3, 2, 0, 1,
       "a.csv: cannot write the rejects file (the file itself is stored)"}},
     1, 1, 2, 1, NULL, "a.csv:4: " BAD3_MSG "\n"},
};

static void heard(void *ud, const char *msg)
{
    char *buf = ud;
    size_t n = strlen(buf);
    snprintf(buf + n, 4096 - n, "%s\n", msg);
}

static long count(store *st, const char *table)
{
    long n = -1;
    gpi_diag d = {{0}};
    if (store_count(st, table, &n, &d) != GPI_OK) fail_msg("%s", d.msg);
    return n;
}

static void write_file(const char *path, const char *text, int gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb");
        if (!g || gzputs(g, text) < 0 || gzclose(g) != Z_OK) fail_msg("%s: cannot write", path);
    } else {
        FILE *f = fopen(path, "wb");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) fail_msg("%s: cannot write", path);
    }
}

static void run_case(const lcase *c, const ingest_tables *t)
{
    char *dir = tu_mkdtemp("load");
    if (chdir(dir) != 0) fail_msg("%s: chdir", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open("t.db", &st, &d) != GPI_OK) fail_msg("%s: %s", c->name, d.msg);
    FILE *rej = c->dev_full ? fopen("/dev/full", "w") : fopen("rejects.csv", "w+");
    if (!rej) fail_msg("%s: rejects file", c->name);
    load_rejects_header(rej);
    static char got[4096];
    got[0] = '\0';
    load_events ev = {heard, NULL, NULL, got};
    for (int i = 0; i < 3 && c->steps[i].file; i++) {
        const step *s = &c->steps[i];
        if (s->text) write_file(s->file, s->text, s->gz);
        /* two threads on every other step, numbering profiles from the
         * second observation (pipe.c note 5): the same pinned results */
        ingest_opts in = {s->file, -1, "feed", 1 + i % 2, s->admit, 1, 0};
        load_opts lo = {NULL, rej, s->reader};
        load_result r;
        memset(&d, 0, sizeof d);
        gpi_status rc = load_file(st, t, &in, &lo, &ev, &r, &d);
        if (rc != s->rc || r.outcome != s->outcome)
            fail_msg("%s, step %d: status %d, outcome %d, want %d, %d (%s)", c->name, i + 1, rc,
                     r.outcome, s->rc, s->outcome, d.msg);
        if (strcmp(d.msg, s->msg ? s->msg : "") != 0)
            fail_msg("%s, step %d:\n got  \"%s\"\n want \"%s\"", c->name, i + 1, d.msg,
                     s->msg ? s->msg : "");
        assert_string_equal(r.name, s->file);
        assert_int_equal(r.rejects_unwritten, c->dev_full);
        if (s->outcome == LOAD_FAILED) continue;
        if (r.batch != s->batch)
            fail_msg("%s, step %d: batch %lld, want %lld", c->name, i + 1, (long long)r.batch,
                     (long long)s->batch);
        if (r.n.read != s->read || r.n.stored != s->stored || r.n.duplicates != s->dup ||
            r.n.rejected != s->rej)
            fail_msg("%s, step %d: read %ld stored %ld dup %ld rejected %ld, want %ld %ld %ld %ld",
                     c->name, i + 1, r.n.read, r.n.stored, r.n.duplicates, r.n.rejected,
                     s->read, s->stored, s->dup, s->rej);
    }
    long nb = count(st, "batches"), no = count(st, "observations"), nr = count(st, "rejects");
    if (nb != c->batches || no != c->obs || nr != c->rejects)
        fail_msg("%s: the database holds %ld batches, %ld observations, %ld rejects; want %ld, "
                 "%ld, %ld",
                 c->name, nb, no, nr, c->batches, c->obs, c->rejects);
    if (c->csv) {
        fflush(rej);
        char *csv = tu_read("rejects.csv");
        if (!csv || strcmp(csv, c->csv) != 0)
            fail_msg("%s: rejects CSV\n got  %s\n want %s", c->name, csv ? csv : "(none)",
                     c->csv);
        free(csv);
    }
    if (strcmp(got, c->heard) != 0)
        fail_msg("%s: rejects heard\n got  %s\n want %s", c->name, got, c->heard);
    fclose(rej);
    store_close(st);
    free(dir);
}

static void test_protocol(void **state)
{
    (void)state;
    char tables[4096];
    snprintf(tables, sizeof tables, "%s/tests/fixtures/tables", tu_srcdir());
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(tables, &t, &d) != GPI_OK) fail_msg("tables: %s", d.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], t);
    ingest_tables_free(t);
    if (chdir(tu_srcdir()) != 0) fail_msg("chdir back");
}

/* The batch records what the caller said of the file; the rejects CSV's
 * header is the documented one. */
static void test_batch_and_header(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("load-batch");
    char db[4096], *path = tu_write(dir, "o.csv", HDR ROW1);
    char tables[4096];
    snprintf(tables, sizeof tables, "%s/tests/fixtures/tables", tu_srcdir());
    ingest_tables *t = NULL;
    store *st = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(tables, &t, &d) != GPI_OK) fail_msg("tables: %s", d.msg);
    snprintf(db, sizeof db, "%s/t.db", dir);
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    ingest_opts in = {path, GPI_OFFER, NULL, 2, 0, 0, 0};
    load_opts lo = {"offers", NULL, NULL};
    load_result r;
    assert_int_equal(load_file(st, t, &in, &lo, NULL, &r, &d), GPI_OK);
    assert_int_equal(r.outcome, LOAD_STORED);
    assert_int_equal(r.n.stored, 1);
    int found = 0;
    int64_t batch = 0;
    char sha[65];
    assert_int_equal(ingest_file_sha256(path, sha, &d), GPI_OK);
    assert_int_equal(store_batch_find_same(st, sha, ingest_tables_sha256(t), NULL, &found, &batch,
                                           &d),
                     GPI_OK);
    assert_int_equal(found, 1);
    assert_int_equal(batch, r.batch);
    /* a small plain file keeps the small page cache; a gzip file is begun
     * as of unknown size, which takes the large one (store.c note 10) */
    assert_int_equal(store_cache_kib(st), 2048);
    tu_run z = tu_sh(dir, "gzip -c o.csv > z.csv.gz");
    assert_int_equal(z.status, 0);
    tu_run_free(&z);
    char gz[4200];
    snprintf(gz, sizeof gz, "%s/z.csv.gz", dir);
    ingest_opts zin = {gz, GPI_OFFER, NULL, 2, 0, 0, 0};
    assert_int_equal(load_file(st, t, &zin, &lo, NULL, &r, &d), GPI_OK);
    assert_int_equal(store_cache_kib(st), 16384);
    store_close(st);
    ingest_tables_free(t);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(load_rejects_header(f), 0);
    rewind(f);
    char line[128] = "";
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, CSV_HDR);
    fclose(f);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol),
        cmocka_unit_test(test_batch_and_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
