/* tests/test_settlement_files.c -- settlement/: contract files (valid,
 * every error with its exact message, BOM, the shipped data/contracts.json)
 * and positions files (valid, errors, bounded lines, many positions). */
#include "tests/testutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settlement/settlement.h"
#include "tests/settlement_helpers.h"


/* ---- contract and positions files ------------------------------------- */

static gpi_status known_grades(const char *grade, int *known, void *ud, gpi_diag *d)
{
    (void)ud;
    (void)d;
    /* the test files' grades, and those of the shipped data/contracts.json */
    *known = strcmp(grade, "H100-SXM.OD.GOLD+") == 0 || strcmp(grade, "A100-80GB.OD") == 0 ||
             strcmp(grade, "H100-SXM.OD") == 0 || strcmp(grade, "A100-SXM-80.OD") == 0;
    return GPI_OK;
}

static void test_contracts_load_valid(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("settle-contracts");
    char *path = tu_write(dir, "c.json",
                          "{\"contracts\": [\n"
                          " {\"symbol\": \"GPUH-2502\", \"grade\": \"H100-SXM.OD.GOLD+\","
                          " \"month\": \"2025-02\"},\n"
                          " {\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD.GOLD+\","
                          " \"month\": \"2025-03\", \"size\": 1000, \"tick\": 0.001,"
                          " \"min_published_days\": 20},\n"
                          " {\"symbol\": \"A.B_C-1\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-02\", \"size\": 40, \"tick\": \"0.0025\"},\n"
                          " {\"symbol\": \"E4\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-12\", \"size\": 1, \"tick\": 5e-2},\n"
                          " {\"symbol\": \"W\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-12\", \"size\": 2, \"tick\": 1}\n"
                          "]}\n");
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 5);
    /* defaults: size 1000, tick 0.0001 ($0.10 a tick), 15 days */
    assert_string_equal(cs[0].symbol, "GPUH-2502");
    assert_int_equal(cs[0].year, 2025);
    assert_int_equal(cs[0].month, 2);
    assert_int_equal(cs[0].size_gpu_hours, 1000);
    assert_int_equal(cs[0].tick.mant, 1);
    assert_int_equal(cs[0].tick.scale, 4);
    assert_int_equal(cs[0].tick_cents, 10);
    assert_int_equal(cs[0].min_published_days, 15);
    assert_int_equal(cs[1].tick.mant, 1);
    assert_int_equal(cs[1].tick.scale, 3);
    assert_int_equal(cs[1].tick_cents, 100);
    assert_int_equal(cs[1].min_published_days, 20);
    assert_int_equal(cs[2].tick.mant, 25);
    assert_int_equal(cs[2].tick.scale, 4);
    assert_int_equal(cs[2].tick_cents, 10);  /* 40 x 0.0025 = $0.10 */
    assert_int_equal(cs[3].tick.mant, 5);
    assert_int_equal(cs[3].tick.scale, 2);
    assert_int_equal(cs[3].tick_cents, 5);
    assert_int_equal(cs[4].tick.scale, 0);
    assert_int_equal(cs[4].tick_cents, 200);
    assert_int_equal(settle_listing_day(&cs[2]), day_of(2024, 1, 1));
    assert_int_equal(settle_last_day(&cs[2]), day_of(2024, 2, 29));
    assert_int_equal(settle_listing_day(&cs[0]), day_of(2025, 1, 1));
    settle_contract jan = cs[0];
    jan.year = 2025;
    jan.month = 1;
    assert_int_equal(settle_listing_day(&jan), day_of(2024, 12, 1));
    free(cs);
    free(path);
    free(dir);
}

static void test_contracts_load_bom(void **state)
{
    (void)state;
    /* a UTF-8 byte-order mark (as some editors save JSON) is skipped, as
     * in positions and rent files; errors keep their line:column */
    char *dir = tu_mkdtemp("settle-contracts-bom");
    char *path = tu_write(dir, "c.json",
                          "\xef\xbb\xbf{\"contracts\": [{\"symbol\": \"GPUH-2502\","
                          " \"grade\": \"H100-SXM.OD.GOLD+\", \"month\": \"2025-02\"}]}\n");
    settle_contract *cs = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 1);
    assert_string_equal(cs[0].symbol, "GPUH-2502");
    free(cs);
    free(path);
    path = tu_write(dir, "bad.json", "\xef\xbb\xbf{\"contracts\": x}");
    assert_int_equal(settle_contracts_load(path, known_grades, NULL, &cs, &n, &d), GPI_EINPUT);
    char want[4200];
    snprintf(want, sizeof want, "%s:1:15: invalid token near 'x'", path);
    assert_string_equal(d.msg, want);
    free(path);
    /* a directory says so, in the house form (file: reason) */
    assert_int_equal(settle_contracts_load(dir, known_grades, NULL, &cs, &n, &d), GPI_EIO);
    snprintf(want, sizeof want, "%s: is a directory, not a file", dir);
    assert_string_equal(d.msg, want);
    free(dir);
}

static void test_contracts_load_errors(void **state)
{
    (void)state;
#define C1(body) "{\"contracts\": [{\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD.GOLD+\"," body "}]}"
    static const struct {
        const char *name, *json, *msg;
    } cases[] = {
        {"unknown grade",
         "{\"contracts\": [{\"symbol\": \"GPUB-2503\", \"grade\": \"B200.OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1 (GPUB-2503): grade: unknown grade (not built in the database) (got \"B200.OD\")"},
        {"bad month", C1("\"month\": \"2025-13\""),
         "1: contract 1 (GPUH-2503): month: no such month (got \"2025-13\")"},
        {"month not text", C1("\"month\": 202503"),
         "1: contract 1 (GPUH-2503): month: not a month YYYY-MM (got \"202503\")"},
        {"month format", C1("\"month\": \"2025-3\""),
         "1: contract 1 (GPUH-2503): month: not a month YYYY-MM (got \"2025-3\")"},
        {"missing month", C1("\"size\": 1000"), "1: contract 1 (GPUH-2503): month: missing"},
        {"tick zero", C1("\"month\": \"2025-03\", \"tick\": 0"),
         "1: contract 1 (GPUH-2503): tick: must be greater than 0 (got \"0\")"},
        {"tick negative", C1("\"month\": \"2025-03\", \"tick\": -0.001"),
         "1: contract 1 (GPUH-2503): tick: must be greater than 0 (got \"-0.001\")"},
        {"tick text", C1("\"month\": \"2025-03\", \"tick\": \"0.00a\""),
         "1: contract 1 (GPUH-2503): tick: not a number (got \"0.00a\")"},
        {"tick 16 digits", C1("\"month\": \"2025-03\", \"tick\": 0.1234567890123456"),
         "1: contract 1 (GPUH-2503): tick: more than 15 significant digits (write it as a string)"
         " (got \"0.1234567890123456\")"},
        /* 64 characters: once cut to 63 they read as tick 1 */
        {"tick 64 characters", C1("\"month\": \"2025-03\", \"tick\": \"0000000000000000000000000000000000000000000000000000000000000015\""),
         "1: contract 1 (GPUH-2503): tick: longer than 63 characters (got \"0000000000000000000000000000000000000000000000000000000000000015\")"},
        {"tick huge", C1("\"month\": \"2025-03\", \"tick\": 1e300"),
         "1: contract 1 (GPUH-2503): tick: out of range (got \"1e+300\")"},
        {"tick tiny", C1("\"month\": \"2025-03\", \"tick\": 1e-30"),
         "1: contract 1 (GPUH-2503): tick: out of range (got \"1e-30\")"},
        {"tick over 1000", C1("\"month\": \"2025-03\", \"tick\": 1000.5"),
         "1: contract 1 (GPUH-2503): tick: must be at most 1000 (got \"1000.5\")"},
        {"month before 2000", C1("\"month\": \"1999-12\""),
         "1: contract 1 (GPUH-2503): month: must be from 2000-01 to 2099-12 (the days an index is"
         " built for) (got \"1999-12\")"},
        {"month after 2099", C1("\"month\": \"2100-01\""),
         "1: contract 1 (GPUH-2503): month: must be from 2000-01 to 2099-12 (the days an index is"
         " built for) (got \"2100-01\")"},
        {"min days over the month", C1("\"month\": \"2025-02\", \"min_published_days\": 29"),
         "1: contract 1 (GPUH-2503): min_published_days: must be at most 28, the days of 2025-02"
         " (it could never settle) (got \"29\")"},
        {"size x tick", C1("\"month\": \"2025-03\", \"tick\": 0.000001"),
         "1: contract 1 (GPUH-2503): size x tick: not a whole number of cents (got 1000 x 0.000001 USD)"},
        {"size x tick small size", C1("\"month\": \"2025-03\", \"size\": 5, \"tick\": \"0.001\""),
         "1: contract 1 (GPUH-2503): size x tick: not a whole number of cents (got 5 x 0.001 USD)"},
        {"size zero", C1("\"month\": \"2025-03\", \"size\": 0"),
         "1: contract 1 (GPUH-2503): size: must be from 1 to 1000000000 GPU-hours (got \"0\")"},
        {"size fraction", C1("\"month\": \"2025-03\", \"size\": 1.5"),
         "1: contract 1 (GPUH-2503): size: not a whole number (got \"1.5\")"},
        /* 1e10 is a whole number (JSON has one number type), shown plain */
        {"size whole real", C1("\"month\": \"2025-03\", \"size\": 1e10"),
         "1: contract 1 (GPUH-2503): size: must be from 1 to 1000000000 GPU-hours (got "
         "\"10000000000\")"},
        {"min days zero", C1("\"month\": \"2025-03\", \"min_published_days\": 0"),
         "1: contract 1 (GPUH-2503): min_published_days: must be from 1 to 31 (got \"0\")"},
        {"lower-case symbol",
         "{\"contracts\": [{\"symbol\": \"gpuh-2503\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"gpuh-2503\")"},
        {"symbol starts with dash",
         "{\"contracts\": [{\"symbol\": \"-GPUH\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"-GPUH\")"},
        {"symbol 33 chars",
         "{\"contracts\": [{\"symbol\": \"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456\", \"grade\": \"A100-80GB.OD\","
         " \"month\": \"2025-03\"}]}",
         "1: contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456\")"},
        {"symbol with slash",
         "{\"contracts\": [{\"symbol\": \"A/B\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"A/B\")"},
        /* the one grade-id rule of core (gpi_grade_id_ok), as everywhere else:
         * a text no grade can have is refused as such, not as unknown */
        {"grade with slash",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \"H100/SXM\", \"month\": \"2025-03\"}]}",
         "1: contract 1 (A1): grade: not a grade id (got \"H100/SXM\")"},
        {"grade starts with dot",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \".OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1 (A1): grade: not a grade id (got \".OD\")"},
        {"missing symbol", "{\"contracts\": [{\"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "1: contract 1: symbol: missing"},
        {"unknown key", C1("\"month\": \"2025-03\", \"expiry\": \"2025-03-31\""),
         "1: contract 1 (GPUH-2503): unknown key \"expiry\" (expected symbol, grade, month, size,"
         " tick, min_published_days, fsp_days, fallback)"},
        {"second contract",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"},"
         " {\"symbol\": \"A2\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-04\", \"tick\": -1}]}",
         "1: contract 2 (A2): tick: must be greater than 0 (got \"-1\")"},
        {"duplicate symbol",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"},"
         " {\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-04\"}]}",
         "1: contract 2 (A1): symbol: duplicate (also contract 1, line 1)"},
        {"not an object", "{\"contracts\": [42]}", "1: contract 1: contract: not a JSON object (got \"42\")"},
        {"empty list", "{\"contracts\": []}", "1: contracts: empty list"},
        {"top-level key", "{\"contracts\": [], \"version\": 1}",
         "1: unknown key \"version\" (expected \"contracts\" or \"holidays\")"},
        {"fsp_days", C1("\"month\": \"2025-03\", \"fsp_days\": \"trading\""),
         "1: contract 1 (GPUH-2503): fsp_days: must be \"calendar\" or \"business\" (got \"trading\")"},
        {"fsp_days not a string", C1("\"month\": \"2025-03\", \"fsp_days\": 1"),
         "1: contract 1 (GPUH-2503): fsp_days: must be \"calendar\" or \"business\" (got \"1\")"},
        /* March 2025 has 21 business days (and 20 less a holiday) */
        {"min days over business days",
         C1("\"month\": \"2025-03\", \"fsp_days\": \"business\", \"min_published_days\": 22"),
         "1: contract 1 (GPUH-2503): min_published_days: must be at most 21, the business days of "
         "2025-03 (it could never settle) (got \"22\")"},
        {"min days over business days less a holiday",
         "{\"holidays\": [\"2025-03-17\"], \"contracts\": [{\"symbol\": \"A1\", \"grade\": "
         "\"A100-80GB.OD\", \"month\": \"2025-03\", \"fsp_days\": \"business\", "
         "\"min_published_days\": 21}]}",
         "1: contract 1 (A1): min_published_days: must be at most 20, the business days of 2025-03 "
         "(it could never settle) (got \"21\")"},
        {"holiday on a Saturday",
         "{\"holidays\": [\"2025-12-25\", \"2025-12-27\"], \"contracts\": [{\"symbol\": \"A1\", "
         "\"grade\": \"A100-80GB.OD\", \"month\": \"2025-12\", \"fsp_days\": \"business\"}]}",
         "1: holidays[1]: a Saturday, not a business day anyway (got \"2025-12-27\")"},
        {"holiday not a date",
         "{\"holidays\": [\"2025-12-32\"], \"contracts\": [{\"symbol\": \"A1\", "
         "\"grade\": \"A100-80GB.OD\", \"month\": \"2025-12\", \"fsp_days\": \"business\"}]}",
         "1: holidays[0]: no such calendar date (got \"2025-12-32\")"},
        {"holiday twice",
         "{\"holidays\": [\"2025-12-25\", \"2025-12-25\"], \"contracts\": [{\"symbol\": \"A1\", "
         "\"grade\": \"A100-80GB.OD\", \"month\": \"2025-12\", \"fsp_days\": \"business\"}]}",
         "1: holidays[1]: given twice (got \"2025-12-25\")"},
        {"holidays not a list", "{\"holidays\": \"2025-12-25\", \"contracts\": [{\"symbol\": \"A1\", "
         "\"grade\": \"A100-80GB.OD\", \"month\": \"2025-12\", \"fsp_days\": \"business\"}]}",
         "1: holidays: not a list of dates"},
        {"holidays without a business-day contract",
         "{\"holidays\": [\"2025-12-25\"], \"contracts\": [{\"symbol\": \"A1\", "
         "\"grade\": \"A100-80GB.OD\", \"month\": \"2025-12\"}]}",
         "1: holidays: no contract settles on business days (\"fsp_days\": \"business\"), so they "
         "would change nothing"},
        {"no contracts", "[1, 2]", "1: not a contract file (want {\"contracts\": [...]})"},
        {"syntax", "{\"contracts\": [\n{\"symbol\": \"A\",,}]}", "2:16: string or '}' expected near ','"},
        {"duplicate key", C1("\"month\": \"2025-03\", \"month\": \"2025-04\""),
         "1:95: duplicate object key near '\"month\"'"},
    };
#undef C1
    char *dir = tu_mkdtemp("settle-bad-contracts");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write(dir, "c.json", cases[i].json);
        settle_contract *cs = NULL;
        size_t n = 0;
        gpi_diag d = {""};
        gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
        char want[600];
        const char *sep = isdigit((unsigned char)cases[i].msg[0]) ? ":" : ": ";
        snprintf(want, sizeof want, "%s%s%s", path, sep, cases[i].msg);
        if (st != GPI_EINPUT) fail_msg("%s: status %d (%s)", cases[i].name, st, d.msg);
        if (strcmp(d.msg, want) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, d.msg, want);
        assert_null(cs);
        assert_int_equal(n, 0);
        free(path);
    }
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    assert_int_equal(settle_contracts_load(missing, NULL, NULL, &cs, &n, &d), GPI_EIO);
    char want[4300];
    snprintf(want, sizeof want, "%s: no such file", missing);
    assert_string_equal(d.msg, want);
    free(dir);
}

/* Errors named only the contract; they now say its line (the key's, or
 * the contract's), across a file of several lines (issue 12). */
static void test_contracts_errors_name_lines(void **state)
{
    (void)state;
    static const char head[] = "{\n  \"contracts\": [\n"
                               "    {\"symbol\": \"A1\", \"grade\": \"H100-SXM.OD.GOLD+\",\n"
                               "     \"month\": \"2025-03\"},\n"; /* lines 1-4 */
    static const struct {
        const char *name, *rest, *msg;
    } cases[] = {
        {"tick of the second",
         "    {\"symbol\": \"A2\",\n     \"grade\": \"H100-SXM.OD.GOLD+\",\n"
         "     \"month\": \"2025-04\",\n     \"tick\": \"-1\"}\n  ]\n}\n",
         "8: contract 2 (A2): tick: must be greater than 0 (got \"-1\")"},
        {"unknown key at its line",
         "    {\"symbol\": \"A2\", \"grade\": \"H100-SXM.OD.GOLD+\", \"month\": \"2025-04\",\n"
         "\n     \"expiry\": 1}]}\n",
         "7: contract 2 (A2): unknown key \"expiry\" (expected symbol, grade, month, size, tick,"
         " min_published_days, fsp_days, fallback)"},
        {"missing key: the contract's line",
         "\n\n    {\"symbol\": \"A2\", \"grade\": \"H100-SXM.OD.GOLD+\"}]}\n",
         "7: contract 2 (A2): month: missing"},
        {"not an object", "    [1,\n 2]]}\n", "5: contract 2: contract: not a JSON object (got \"[1,2]\")"},
        {"duplicate symbol",
         "    {\"grade\": \"H100-SXM.OD.GOLD+\", \"month\": \"2025-04\",\n"
         "     \"symbol\": \"A1\"}]}\n",
         "6: contract 2 (A1): symbol: duplicate (also contract 1, line 3)"},
        {"escaped text before", /* a quote and brackets inside strings */
         "    {\"symbol\": \"A2\", \"grade\": \"H100-SXM.OD.GOLD+\",\n"
         "     \"month\": \"2025-04\", \"size\": 0}]}\n",
         "6: contract 2 (A2): size: must be from 1 to 1000000000 GPU-hours (got \"0\")"},
        {"min days of February",
         "    {\"symbol\": \"A2\", \"grade\": \"H100-SXM.OD.GOLD+\", \"month\": \"2024-02\",\n"
         "     \"min_published_days\": 30}]}\n",
         "6: contract 2 (A2): min_published_days: must be at most 29, the days of 2024-02 (it could"
         " never settle) (got \"30\")"},
    };
    char *dir = tu_mkdtemp("settle-lines");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", head, cases[i].rest);
        char *path = tu_write(dir, "c.json", text);
        settle_contract *cs = NULL;
        size_t n = 0;
        gpi_diag d = {""};
        gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
        char want[700];
        snprintf(want, sizeof want, "%s:%s", path, cases[i].msg);
        if (st != GPI_EINPUT || strcmp(d.msg, want) != 0)
            fail_msg("%s: status %d\n got  %s\n want %s", cases[i].name, st, d.msg, want);
        free(path);
    }
    /* a loaded contract knows its lines */
    char text[1024];
    snprintf(text, sizeof text, "%s    {\"symbol\": \"A2\", \"grade\": \"H100-SXM.OD.GOLD+\",\n"
                                "     \"month\": \"2025-04\",\n     \"tick\": 0.001}]}\n", head);
    char *path = tu_write(dir, "c.json", text);
    settle_contract *cs = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_contracts_load(path, known_grades, NULL, &cs, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    assert_int_equal(cs[0].line, 3);
    assert_int_equal(cs[0].tick_line, 3); /* the default tick: the contract's line */
    assert_int_equal(cs[1].line, 5);
    assert_int_equal(cs[1].tick_line, 7);
    assert_int_equal(cs[1].index, 2);
    assert_string_equal(cs[1].path, path);
    free(cs);
    free(path);
    free(dir);
}

/* Found by fuzz/fuzz_contracts.c: an empty file made the reader that keeps
 * the text (for the lines of errors) add 0 bytes to a NULL buffer,
 * undefined behaviour that the sanitizer build (make check) stops on. */
static void test_contracts_empty_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("settle-empty");
    char *path = tu_write(dir, "c.json", "");
    settle_contract *cs = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_contracts_load(path, known_grades, NULL, &cs, &n, &d), GPI_EINPUT);
    char want[4300];
    snprintf(want, sizeof want, "%s:1:0: '[' or '{' expected near end of file", path);
    assert_string_equal(d.msg, want);
    assert_null(cs);
    free(path);
    free(dir);
}

static void test_contracts_shipped_file(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/data/contracts.json", tu_srcdir());
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_true(n >= 11);
    /* a strip: the first eleven are consecutive months of one grade,
     * 2025-02 .. 2025-12, all listed inside a demo year from 2025-01-01 */
    assert_int_equal(settle_listing_day(&cs[0]), day_of(2025, 1, 1));
    assert_int_equal(settle_last_day(&cs[10]), day_of(2025, 12, 31));
    for (size_t i = 0; i < 11; i++) {
        assert_string_equal(cs[i].grade, cs[0].grade);
        assert_int_equal((cs[i].year * 12 + cs[i].month) - (cs[0].year * 12 + cs[0].month),
                         (int)i);
    }
    free(cs);
}

/* data/contracts-h100-exchange.json twins the exchange-listed H100 rental
 * futures (issue 26 item 6): 36 consecutive monthly contracts on the
 * published H100 on-demand grade, 730 GPU-hours each, a $0.01 tick ($7.30
 * a tick), settled on the average of the delivery month's business days. */
static void test_contracts_exchange_twin(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/data/contracts-h100-exchange.json", tu_srcdir());
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    if (settle_contracts_load(path, known_grades, NULL, &cs, &n, &d) != GPI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(n, 36);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(cs[i].grade, "H100-SXM.OD");
        assert_int_equal(cs[i].size_gpu_hours, 730);
        assert_int_equal(cs[i].tick.mant, 1);
        assert_int_equal(cs[i].tick.scale, 2);
        assert_int_equal(cs[i].tick_cents, 730);
        assert_int_equal(cs[i].fsp_days, SETTLE_DAYS_BUSINESS);
        assert_int_equal(cs[i].n_holidays, 0);
        assert_int_equal((cs[i].year * 12 + cs[i].month) - (cs[0].year * 12 + cs[0].month),
                         (int)i);
    }
    /* listed inside the demo year, as the strip of data/contracts.json */
    assert_int_equal(settle_listing_day(&cs[0]), day_of(2025, 1, 1));
    free(cs);
}

static settle_contract file_contracts[2];

static void setup_file_contracts(void)
{
    file_contracts[0] = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    file_contracts[1] = contract("GPUA-2503", 2025, 3, 100, 1, 4, 15);
}

static void test_positions_load_valid(void **state)
{
    (void)state;
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos");
    char *path = tu_write(dir, "p.csv",
                          "account,symbol,contracts,entry_price\r\n"
                          "hedger,GPUH-2503,-740,2.450\r\n"
                          "\"fund, inc\",GPUH-2503,740,\r\n"
                          "hedger,GPUA-2503,3\r\n"
                          "\r\n"
                          "mm,GPUA-2503,+12,2.1235");
    settle_position *p;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_positions_load(path, file_contracts, 2, &p, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 4);
    assert_string_equal(p[0].account, "hedger");
    assert_int_equal(p[0].contract, 0);
    assert_int_equal(p[0].contracts, -740);
    assert_true(p[0].has_entry);
    assert_int_equal(p[0].entry_units, 2450);
    assert_int_equal(p[0].line, 2);
    assert_string_equal(p[1].account, "fund, inc");
    assert_false(p[1].has_entry);
    assert_int_equal(p[2].contract, 1);
    assert_int_equal(p[2].contracts, 3);
    assert_false(p[2].has_entry);
    assert_int_equal(p[3].contracts, 12);
    assert_int_equal(p[3].entry_units, 21235);
    assert_int_equal(p[3].line, 6);
    free(p);
    free(path);
    /* header without entry_price, after a UTF-8 byte-order mark */
    path = tu_write(dir, "p3.csv", "\xef\xbb\xbf" "account,symbol,contracts\nx,GPUH-2503,1\n");
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 1);
    free(p);
    free(path);
    /* a missing file and a directory are named in the house form (file: reason) */
    char missing[4200], want[4300];
    snprintf(missing, sizeof missing, "%s/none.csv", dir);
    assert_int_equal(settle_positions_load(missing, file_contracts, 2, &p, &n, &d), GPI_EIO);
    snprintf(want, sizeof want, "%s: no such file", missing);
    assert_string_equal(d.msg, want);
    assert_int_equal(settle_positions_load(dir, file_contracts, 2, &p, &n, &d), GPI_EIO);
    snprintf(want, sizeof want, "%s: is a directory, not a file", dir);
    assert_string_equal(d.msg, want);
    free(dir);
}

static void test_positions_load_errors(void **state)
{
    (void)state;
    setup_file_contracts();
    static const struct {
        const char *name, *csv, *msg;
    } cases[] = {
        {"header", "acct,sym,n\nx,GPUH-2503,1\n",
         ":1: header: want account,symbol,contracts[,entry_price] (got \"acct,sym,n\")"},
        {"unknown symbol", "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH-9999,1\n",
         ":3: symbol: no such contract in the contract file (got \"GPUH-9999\")"},
        {"contracts text", "account,symbol,contracts\nx,GPUH-2503,ten\n",
         ":2: contracts: not a whole number (got \"ten\")"},
        {"contracts fraction", "account,symbol,contracts\nx,GPUH-2503,1.5\n",
         ":2: contracts: not a whole number (got \"1.5\")"},
        {"contracts zero", "account,symbol,contracts\nx,GPUH-2503,0\n",
         ":2: contracts: must not be 0 (got \"0\")"},
        {"contracts huge", "account,symbol,contracts\nx,GPUH-2503,2000000000\n",
         ":2: contracts: more than 1000000000 in absolute value (got \"2000000000\")"},
        {"entry off tick", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,2.4505\n",
         ":2: entry_price: not a whole number of ticks of 0.001 (got \"2.4505\")"},
        {"entry negative", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,-2.45\n",
         ":2: entry_price: must be greater than 0 (got \"-2.45\")"},
        {"entry text", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,2,45\n",
         ":2: row: want 4 fields, got 5"},
        {"empty account", "account,symbol,contracts\n,GPUH-2503,1\n",
         ":2: account: empty or has control characters (got \"\")"},
        {"duplicate", "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH-2503,1\nx,GPUH-2503,-1\n",
         ":4: account: duplicate position in GPUH-2503 (first at line 2) (got \"x\")"},
        {"account 65 chars",
         "account,symbol,contracts\nABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc,GPUH-2503,1\n",
         ":2: account: longer than 64 (got \"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc\")"},
        {"entry too large", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,10000000000000\n",
         ":2: entry_price: too large (got \"10000000000000\")"},
        {"too few fields", "account,symbol,contracts\nx,GPUH-2503\n",
         ":2: row: want 3 fields, got 2"},
        /* quoting is core's CSV reader's (its messages give the column) */
        {"unterminated quote", "account,symbol,contracts\n\"x,GPUH-2503,1\n",
         ":2:1: unterminated quoted field"},
        {"quote inside a field", "account,symbol,contracts\nx\"y,GPUH-2503,1\n",
         ":2:2: malformed quoting (a quote inside an unquoted field, or text after a closing "
         "quote)"},
        {"text after a quote", "account,symbol,contracts\n\"x\"y,GPUH-2503,1\n",
         ":2:4: malformed quoting (a quote inside an unquoted field, or text after a closing "
         "quote)"},
        /* a row is placed at the line where it starts */
        {"field over two lines", "account,symbol,contracts\n\"a\nb\",GPUH-2503,1\n",
         ":2: account: empty or has control characters (got \"a\nb\")"},
    };
    char *dir = tu_mkdtemp("settle-bad-pos");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write(dir, "p.csv", cases[i].csv);
        settle_position *p = NULL;
        size_t n = 0;
        gpi_diag d = {""};
        gpi_status st = settle_positions_load(path, file_contracts, 2, &p, &n, &d);
        char want[600];
        snprintf(want, sizeof want, "%s%s", path, cases[i].msg);
        if (st != GPI_EINPUT) fail_msg("%s: status %d (%s)", cases[i].name, st, d.msg);
        if (strcmp(d.msg, want) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, d.msg, want);
        assert_null(p);
        free(path);
    }
    char *path = tu_write(dir, "empty.csv", "");
    settle_position *p;
    size_t n;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s: empty (want a header account,symbol,contracts[,entry_price])",
             path);
    assert_string_equal(d.msg, want);
    free(path);
    free(dir);
}

/* Issue 12: a header of 8 fields of 40 bytes overflowed the 256-byte
 * buffer its message was built in (a segfault).  The message shows at
 * most 8 fields of at most 40 bytes each, then ",...". */
static void test_positions_load_long_header(void **state)
{
    (void)state;
    setup_file_contracts();
    static const struct {
        int nf, len;           /* fields in the header, bytes per field */
        int shown_nf, shown_len;
    } cases[] = {{8, 40, 8, 40}, {10, 40, 8, 40}, {8, 300, 8, 40}, {3, 41, 3, 40}};
    char *dir = tu_mkdtemp("settle-long-header");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char csv[4096] = "", got[1024] = "";
        size_t n = 0, g = 0;
        for (int k = 0; k < cases[i].nf; k++) {
            if (k) csv[n++] = ',';
            for (int b = 0; b < cases[i].len; b++) csv[n++] = (char)('A' + k);
            if (k < cases[i].shown_nf) {
                if (k) got[g++] = ',';
                for (int b = 0; b < cases[i].shown_len; b++) got[g++] = (char)('A' + k);
            }
        }
        snprintf(csv + n, sizeof csv - n, "\nx,GPUH-2503,1\n");
        if (cases[i].nf > cases[i].shown_nf) snprintf(got + g, sizeof got - g, ",...");
        char *path = tu_write(dir, "p.csv", csv);
        settle_position *p = NULL;
        size_t np = 0;
        gpi_diag d = {""};
        assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &np, &d), GPI_EINPUT);
        char want[2048];
        snprintf(want, sizeof want,
                 "%s:1: header: want account,symbol,contracts[,entry_price] (got \"%s\")", path,
                 got);
        want[sizeof d.msg - 1] = '\0'; /* a diagnostic holds 511 bytes */
        if (strcmp(d.msg, want) != 0)
            fail_msg("case %zu:\n got  %s\n want %s", i, d.msg, want);
        assert_null(p);
        free(path);
    }
    free(dir);
}

static void test_positions_load_many(void **state)
{
    (void)state;
    /* 60,000 positions: every account in both contracts (not duplicates),
     * then account a12345 again in GPUA-2503, which first appeared on line
     * 2 + 2 x 12345 + 1.  (The duplicate check was a scan of all earlier
     * rows: 100,000 positions took 20 s; it is a hash now.) */
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos-many");
    char path[4200];
    snprintf(path, sizeof path, "%s/many.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("account,symbol,contracts\n", f);
    for (int i = 0; i < 30000; i++) fprintf(f, "a%d,GPUH-2503,%d\na%d,GPUA-2503,-%d\n", i, i % 9 + 1, i, i % 5 + 1);
    fclose(f);
    settle_position *p = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 60000);
    assert_string_equal(p[59999].account, "a29999");
    assert_int_equal(p[59999].contract, 1);
    assert_int_equal(p[59999].contracts, -(29999 % 5 + 1));
    assert_int_equal(p[59999].line, 60001);
    free(p);
    f = fopen(path, "ab");
    assert_non_null(f);
    fputs("a12345,GPUA-2503,7\n", f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[4400];
    snprintf(want, sizeof want,
             "%s:60002: account: duplicate position in GPUA-2503 (first at line 24693) (got \"a12345\")",
             path);
    assert_string_equal(d.msg, want);
    assert_null(p);
    free(dir);
}

static void test_positions_load_bounded(void **state)
{
    (void)state;
    /* A positions file is read in bounded pieces: a line over 1 MiB (an
     * endless stream without a newline would otherwise be buffered whole)
     * and a NUL byte are refused at their line. */
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos-bounded");
    char path[4200];
    snprintf(path, sizeof path, "%s/long.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("account,symbol,contracts\n", f);
    for (int i = 0; i < 3 * 1024 * 1024; i++) fputc('a', f);
    fputs(",GPUH-2503,1\n", f);
    fclose(f);
    settle_position *p = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[4400];
    snprintf(want, sizeof want, "%s:2:1: record longer than 1048576 bytes", path);
    assert_string_equal(d.msg, want);
    assert_null(p);

    snprintf(path, sizeof path, "%s/nul.csv", dir);
    static const char nul[] = "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH\0-2503,1\n";
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(nul, 1, sizeof nul - 1, f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    snprintf(want, sizeof want, "%s:3: row: contains a NUL byte", path);
    assert_string_equal(d.msg, want);

    /* CRLF, a BOM and a last line without a newline still read as before */
    snprintf(path, sizeof path, "%s/crlf.csv", dir);
    static const char crlf[] = "\xef\xbb\xbf" "account,symbol,contracts\r\nx,GPUH-2503,1\r\n"
                               "\"y,z\",GPUH-2503,-1";
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(crlf, 1, sizeof crlf - 1, f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].account, "y,z");
    assert_int_equal(p[1].contracts, -1);
    assert_int_equal(p[1].line, 3);
    free(p);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contracts_load_valid),
        cmocka_unit_test(test_contracts_load_errors),
        cmocka_unit_test(test_contracts_errors_name_lines),
        cmocka_unit_test(test_contracts_empty_file),
        cmocka_unit_test(test_contracts_load_bom),
        cmocka_unit_test(test_contracts_shipped_file),
        cmocka_unit_test(test_contracts_exchange_twin),
        cmocka_unit_test(test_positions_load_valid),
        cmocka_unit_test(test_positions_load_errors),
        cmocka_unit_test(test_positions_load_bounded),
        cmocka_unit_test(test_positions_load_long_header),
        cmocka_unit_test(test_positions_load_many),
    };
    return cmocka_run_group_tests_name("settlement files", tests, NULL, NULL);
}
