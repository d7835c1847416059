/* tests/test_ingest_json.c -- JSON observations (an array read an element
 * at a time, NDJSON a line at a time): values, rejects with their lines,
 * and the 1 MiB bound on a record (CSV, NDJSON line, array element) with
 * the errors it must not hide.  Syntax errors with their positions are in
 * tests/test_ingest.c (test_structural_errors). */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "tests/ingest_helpers.h"

static void test_record_too_long(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    size_t n = (1u << 20) + 4096;
    char *text = malloc(n + 128);
    strcpy(text, "observed_at,provider,gpu,price,kind\n2024-01-01,aws,H100,1,\"");
    size_t k = strlen(text);
    memset(text + k, 'x', n - k);
    text[n] = '\0';
    got g;
    gpi_diag d = {{0}};
    assert_int_equal(run(t, "t.csv", text, -1, &g, &d, NULL), GPI_EINPUT);
    assert_string_equal(d.msg, "t.csv:2:1: record longer than 1048576 bytes");
    /* the same bound for an NDJSON line */
    strcpy(text, "{\"observed_at\":\"2024-01-01\",\"kind\":\"offer\"}\n{\"region\":\"");
    k = strlen(text);
    memset(text + k, 'x', n - k);
    strcpy(text + n, "\"}\n");
    assert_int_equal(run(t, "t.ndjson", text, -1, &g, &d, NULL), GPI_EINPUT);
    assert_string_equal(d.msg, "t.ndjson:2:1: record longer than 1048576 bytes");
    /* and for an element of an array, at the place it starts */
    strcpy(text, "[{\"observed_at\":\"2024-01-01\"},\n  {\"region\":\"");
    k = strlen(text);
    memset(text + k, 'x', n - k);
    strcpy(text + n, "\"}]\n");
    assert_int_equal(run(t, "t.json", text, -1, &g, &d, NULL), GPI_EINPUT);
    assert_string_equal(d.msg, "t.json:2:3: record longer than 1048576 bytes");
    /* blanks after an element's value do not count towards the bound */
    strcpy(text, "[{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                 "\"price\":1,\"kind\":\"offer\"}");
    k = strlen(text);
    memset(text + k, ' ', n - k);
    strcpy(text + n, "]\n");
    assert_int_equal(run(t, "t.json", text, -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 1);
    /* an element left open by a syntax error is reported where the error
     * is, not as a record too long: 30,000 rows, the 3rd without its '}' */
    free(text);
    text = malloc(30000 * 80 + 16);
    char *p = text;
    p += sprintf(p, "[\n");
    for (int i = 0; i < 30000; i++)
        p += sprintf(p, "%s{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"price\":%d%s\n",
                     i ? "," : "", i + 1, i == 2 ? "" : "}");
    sprintf(p, "]\n");
    assert_true(strlen(text) > (1u << 20));
    assert_int_equal(run(t, "t.json", text, -1, &g, &d, NULL), GPI_EINPUT);
    assert_string_equal(d.msg, "t.json:5:2: invalid JSON: string or '}' expected near '{'"); /* ",{" */
    free(text);
    ingest_tables_free(t);
}

/* ---- JSON --------------------------------------------------------------------- */

static void test_json_array_and_ndjson(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    const char *arr = "[{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2.35,\"kind\":\"offer\",\"zzz\":1},\n"
                      " {\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":\"abc\",\"kind\":\"offer\",\"zzz\":2},\n"
                      " {\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":12,\"gpu_count\":8,\"unit\":\"instance-hour\",\"kind\":\"offer\"},\n"
                      " {\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":0.1,\"sku\":null,\"kind\":\"offer\"},\n"
                      " {\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":1e-7,\"kind\":\"offer\"},\n"
                      " {\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":1,\"gpu_count\":true,\"kind\":\"offer\"},\n"
                      " 7]\n";
    got g;
    gpi_diag d = {{0}};
    long rows;
    assert_int_equal(run(t, "t.json", arr, -1, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 7);
    assert_int_equal(g.n_obs, 3);
    assert_int_equal(g.obs[0].o.price_micro, 2350000);   /* exactly 2.35 */
    assert_int_equal(g.obs[0].o.line, 1);
    assert_int_equal(g.obs[1].o.price_micro, 1500000);   /* 12 / 8 */
    assert_int_equal(g.obs[2].o.price_micro, 100000);    /* exactly 0.1 */
    assert_int_equal(g.n_rej, 4);
    assert_string_equal(g.rej[0], "t.json:2: price: not a number (got \"abc\")");
    assert_string_equal(g.rej[1], "t.json:5: price: below 0.000001 USD per GPU-hour (got \"0.0000001\")");
    assert_string_equal(g.rej[2], "t.json:6: gpu_count: not a string or number");
    assert_string_equal(g.rej[3], "t.json:7: not a JSON object");
    assert_int_equal(g.n_warn, 1);
    assert_string_equal(g.warn[0], "t.json:1: unknown key \"zzz\" ignored" + 0);

    /* pretty-printed: each element is reported at the line where it starts */
    const char *pretty = "[\n  {\n    \"observed_at\": \"2024-01-01\",\n    \"provider\": \"aws\", \"gpu\": \"H100\",\n"
                         "    \"price\": \"abc\", \"region\": \"a,[b]{\\\"c\\\"\\n\"\n  },\n"
                         "  { \"observed_at\": \"2024-01-01\", \"provider\": \"aws\", \"gpu\": \"H100\",\n"
                         "    \"price\": 0 }, [1,\n 2], \"x\",\n  {\"observed_at\": \"2024-01-01\", \"provider\": \"aws\",\n"
                         "   \"gpu\": \"H100\", \"price\": \"x\"}\n]\n";
    assert_int_equal(run(t, "p.json", pretty, GPI_OFFER, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 5);
    assert_int_equal(g.n_rej, 5);
    assert_string_equal(g.rej[0], "p.json:2: price: not a number (got \"abc\")");
    assert_string_equal(g.rej[1], "p.json:7: price: must be > 0 (got \"0\")");
    assert_string_equal(g.rej[2], "p.json:8: not a JSON object");
    assert_string_equal(g.rej[3], "p.json:9: not a JSON object");
    assert_string_equal(g.rej[4], "p.json:10: price: not a number (got \"x\")");
    /* keys match case-insensitively: "Price" and "price" are one field twice */
    assert_int_equal(run(t, "k.ndjson", "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                                        "\"price\":\"abc\",\"Price\":2}\n", GPI_OFFER, &g, &d, &rows), GPI_OK);
    assert_int_equal(g.n_obs, 0);
    assert_int_equal(g.n_rej, 1);
    assert_string_equal(g.rej[0], "k.ndjson:1: Price: duplicate key (also \"price\")");

    const char *nd = "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2.35,\"kind\":\"offer\"}\n"
                     "\n"
                     "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":\"x\",\"kind\":\"offer\"}\r\n"
                     "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":\"19.999999999999999999\",\"kind\":\"offer\"}\n";
    assert_int_equal(run(t, "t.ndjson", nd, GPI_OFFER, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 3);
    assert_int_equal(g.n_obs, 1);
    assert_int_equal(g.obs[0].o.price_micro, 2350000);
    assert_int_equal(g.n_rej, 2);
    assert_string_equal(g.rej[0], "t.ndjson:3: price: not a number (got \"x\")");
    assert_string_equal(g.rej_raw[0], "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":\"x\",\"kind\":\"offer\"}");
    assert_string_equal(g.rej[1], "t.ndjson:4: price: too many digits (got \"19.999999999999999999\")");
    /* a number jansson cannot hold rejects its row, not the file */
    const char *huge = "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                       "\"price\":99999999999999999999}\n"
                       "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2}\n";
    assert_int_equal(run(t, "h.ndjson", huge, GPI_OFFER, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(g.n_obs, 1);
    assert_int_equal(g.n_rej, 1);
    assert_string_equal(g.rej[0], "h.ndjson:1: a number is out of range (got "
                                  "\"99999999999999999999\")");
    const char *huge_arr = "[{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                           "\"price\":1,\"gpu_count\":1e999},\n {\"observed_at\":\"2024-01-01\","
                           "\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":3}]\n";
    assert_int_equal(run(t, "h.json", huge_arr, GPI_OFFER, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(g.n_obs, 1);
    assert_int_equal(g.obs[0].o.price_micro, 3000000);
    assert_int_equal(g.n_rej, 1);
    assert_string_equal(g.rej[0], "h.json:1: a number is out of range (got \"1e999\")");
    assert_string_equal(g.rej_raw[0], "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\","
                                      "\"gpu\":\"H100\",\"price\":1,\"gpu_count\":1e999}");
    /* ... but a record that is also broken fails the file, as before */
    const char *broken = "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2}\n"
                         "{\"observed_at\":\"2024-01-01\",\"price\":1e999 oops\n";
    assert_int_equal(run(t, "b.ndjson", broken, GPI_OFFER, &g, &d, &rows), GPI_EINPUT);
    assert_string_equal(d.msg, "b.ndjson:2:46: invalid JSON: '}' expected near 'oops'");
    assert_int_equal(run(t, "b.json", "[{\"price\":1e999 \"x\"}]", GPI_OFFER, &g, &d, &rows),
                     GPI_EINPUT);
    assert_string_equal(d.msg, "b.json:1:19: invalid JSON: '}' expected near '\"x\"'");
    /* ']' ',' '{' and escaped quotes inside strings do not end an element */
    const char *tricky = "[{\"observed_at\":\"2024-01-01\",\"provider\":\"a],\\\"}b\",\"gpu\":\"H100\","
                         "\"price\":1,\"kind\":\"offer\"},\n\n {\"observed_at\":\"2024-01-01\",\"provider\":"
                         "\"aws\",\"gpu\":\"H100\",\"price\":2,\"kind\":\"offer\",\"zzz\":[1,{\"q\":[]}]}]";
    assert_int_equal(run(t, "t.json", tricky, -1, &g, &d, &rows), GPI_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(g.n_obs, 2);
    assert_string_equal(g.obs[0].provider, "a],\"}b");
    assert_int_equal(g.obs[1].o.line, 3);
    assert_int_equal(g.obs[1].o.price_micro, 2000000);
    ingest_tables_free(t);
}

/* Issue 12: unknown keys are named in at most 20 warnings per file, then
 * one line says more were ignored -- whatever the number of keys (a
 * record may hold thousands, every row new ones). */
static void test_unknown_keys_capped(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int row = 0; row < 10; row++) {
        n += (size_t)snprintf(text + n, cap - n,
                              "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\","
                              "\"gpu\":\"H100\",\"price\":1");
        for (int k = 0; k < 1000; k++) /* keys k0..k999 on row 0, then new ones */
            n += (size_t)snprintf(text + n, cap - n, ",\"k%d\":1", row * 500 + k);
        n += (size_t)snprintf(text + n, cap - n, "}\n");
    }
    char *dir = tu_mkdtemp("keys");
    char *path = tu_write(dir, "t.ndjson", text);
    warn_count w = {0};
    ingest_sink sink = {wc_obs, wc_rej, wc_warn, NULL, &w};
    ingest_opts opt = {path, GPI_OFFER, "feed", 1, 0, 0, 0};
    ingest_result res;
    gpi_diag d = {{0}};
    assert_int_equal(ingest_file(t, &opt, &sink, &res, &d), GPI_OK);
    assert_int_equal(res.rows_read, 10);
    if (w.n != 21) fail_msg("%ld warnings, want 21 (last: %s)", w.n, w.last);
    assert_string_equal(w.first[0], "t.ndjson:1: unknown key \"k0\" ignored");
    assert_string_equal(w.first[19], "t.ndjson:1: unknown key \"k19\" ignored");
    assert_string_equal(w.last, "t.ndjson:1: more unknown keys ignored (only the first 20 are named)");
    free(path);
    free(dir);
    free(text);
    ingest_tables_free(t);
}

/* Issue 12: the SHA-256 of a JSON file was taken by reading it again after
 * parsing, so bytes that changed in between were hashed but never parsed
 * (rows appended to the file: the next ingest of the whole file was
 * "already ingested" and they were never stored).  A FIFO that gives one
 * text to the first open and another to the second shows it exactly: the
 * hash must be that of the bytes parsed. */
static void test_hash_is_of_bytes_parsed(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    const char *row = "{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                      "\"price\":%d}";
    char a[512], b[768], r1[128], r2[128], r3[128];
    snprintf(r1, sizeof r1, row, 1);
    snprintf(r2, sizeof r2, row, 2);
    snprintf(r3, sizeof r3, row, 3);
    /* a BOM, an array, and a second line: none of it needs a seek */
    snprintf(a, sizeof a, "\xEF\xBB\xBF[%s,\n%s]\n", r1, r2);
    snprintf(b, sizeof b, "\xEF\xBB\xBF[%s,\n%s,\n%s]\n", r1, r2, r3);
    char *dir = tu_mkdtemp("fifo-hash");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.json", dir);
    const char *texts[2] = {a, b};
    tu_fifo w = tu_fifo_writer(path, texts, NULL, 2);
    got g;
    memset(&g, 0, sizeof g);
    ingest_sink sink = {g_obs, g_rej, g_warn, NULL, &g};
    ingest_opts opt = {path, GPI_OFFER, "feed", 1, 0, 0, 0};
    ingest_result res;
    gpi_diag d = {{0}};
    gpi_status rc = ingest_file(t, &opt, &sink, &res, &d);
    tu_fifo_release(path, w, 0);
    if (rc != GPI_OK) fail_msg("ingest: %s", d.msg);
    assert_int_equal(res.rows_read, 2);
    assert_int_equal(g.n_obs, 2);
    char want[65];
    gpi_sha256_hex(a, strlen(a), want);
    assert_string_equal(res.sha256, want);
    /* the same for NDJSON */
    snprintf(a, sizeof a, "%s\n%s\n", r1, r2);
    snprintf(b, sizeof b, "%s\n%s\n%s\n", r1, r2, r3);
    snprintf(path, sizeof path, "%s/t.ndjson", dir);
    w = tu_fifo_writer(path, texts, NULL, 2);
    memset(&g, 0, sizeof g);
    rc = ingest_file(t, &opt, &sink, &res, &d);
    tu_fifo_release(path, w, 0);
    if (rc != GPI_OK) fail_msg("ingest: %s", d.msg);
    assert_int_equal(res.rows_read, 2);
    gpi_sha256_hex(a, strlen(a), want);
    assert_string_equal(res.sha256, want);
    free(dir);
    ingest_tables_free(t);
}

/* Issue 12: an NDJSON line was read whole before the 1 MiB limit was
 * checked (a 400 MB line took 425 MB; from a pipe there is no bound).  The
 * limit holds while the line is read: the reader stops taking bytes soon
 * after 1 MiB (what the writer managed to write shows it). */
static void test_ndjson_line_bounded_while_read(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    size_t n = (size_t)64 << 20;
    char *text = malloc(n);
    assert_non_null(text);
    const char *head = "{\"observed_at\":\"2024-01-01\",\"region\":\"";
    memcpy(text, head, strlen(head));
    memset(text + strlen(head), 'x', n - strlen(head));
    char *dir = tu_mkdtemp("fifo-line");
    char path[4096];
    snprintf(path, sizeof path, "%s/l.ndjson", dir);
    const char *texts[1] = {text};
    tu_fifo w = tu_fifo_writer(path, texts, &n, 1);
    got g;
    memset(&g, 0, sizeof g);
    ingest_sink sink = {g_obs, g_rej, g_warn, NULL, &g};
    ingest_opts opt = {path, GPI_OFFER, "feed", 1, 0, 0, 0};
    ingest_result res;
    gpi_diag d = {{0}};
    gpi_status rc = ingest_file(t, &opt, &sink, &res, &d);
    long written = tu_fifo_release(path, w, 1);
    assert_int_equal(rc, GPI_EINPUT);
    char want[4200];
    snprintf(want, sizeof want, "%s:1:1: record longer than 1048576 bytes", path);
    assert_string_equal(d.msg, want);
    /* 1 MiB, a read chunk and the pipe's buffer; not the 64 MiB sent */
    if (written > 4L << 20) fail_msg("the reader took %ld bytes of a 64 MiB line", written);
    free(text);
    free(dir);
    ingest_tables_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_too_long),
        cmocka_unit_test(test_json_array_and_ndjson),
        cmocka_unit_test(test_unknown_keys_capped),
        cmocka_unit_test(test_hash_is_of_bytes_parsed),
        cmocka_unit_test(test_ndjson_line_bounded_while_read),
    };
    return cmocka_run_group_tests_name("ingest_json", tests, NULL, NULL);
}
