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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_too_long),
        cmocka_unit_test(test_json_array_and_ndjson),
    };
    return cmocka_run_group_tests_name("ingest_json", tests, NULL, NULL);
}
