/* tests/test_core.c -- dates, exact decimals, rounding, SHA-256, CSV cells. */
#include "tests/testutil.h"

#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/csv_reader.h"
#include "core/gpi.h"
#include "core/lines.h"
#include "core/obs.h"
#include "core/strbuf.h"
#include "core/vec.h"

static void test_date_parse_table(void **state)
{
    (void)state;
    static const struct {
        const char *name, *in, *why;
        int y, m, d;
    } cases[] = {
        {"epoch", "1970-01-01", NULL, 1970, 1, 1},
        {"leap day", "2024-02-29", NULL, 2024, 2, 29},
        {"not a leap year", "2023-02-29", "no such calendar date", 0, 0, 0},
        {"century leap", "2000-02-29", NULL, 2000, 2, 29},
        {"century non-leap", "1900-02-29", "no such calendar date", 0, 0, 0},
        {"month 13", "2024-13-01", "no such calendar date", 0, 0, 0},
        {"slashes", "2024/01/01", "not a date YYYY-MM-DD", 0, 0, 0},
        {"short", "2024-1-01", "not a date YYYY-MM-DD", 0, 0, 0},
        {"trailing", "2024-01-01x", "not a date YYYY-MM-DD", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t day = -1;
        const char *why = gpi_date_parse(cases[i].in, &day);
        if (cases[i].why) {
            if (!why || strcmp(why, cases[i].why) != 0)
                fail_msg("%s: got reason %s", cases[i].name, why ? why : "(none)");
            continue;
        }
        if (why) fail_msg("%s: unexpected reason %s", cases[i].name, why);
        int y, m, d;
        gpi_civil_from_days(day, &y, &m, &d);
        if (y != cases[i].y || m != cases[i].m || d != cases[i].d)
            fail_msg("%s: round trip gave %d-%d-%d", cases[i].name, y, m, d);
        char buf[11];
        gpi_date_format(day, buf);
        assert_string_equal(buf, cases[i].in);
    }
    int32_t day;
    assert_null(gpi_date_parse("1970-01-01", &day));
    assert_int_equal(day, 0);
    assert_null(gpi_date_parse("2000-03-01", &day));
    assert_int_equal(day, 11017); /* computed with Python date.toordinal() - 719163 */
}

static void test_time_parse_table(void **state)
{
    (void)state;
    /* expected values: Python datetime(...).timestamp() in UTC */
    static const struct {
        const char *name, *in;
        int64_t want;
        const char *why;
    } cases[] = {
        {"date only", "2024-03-01", 1709251200, NULL},
        {"zulu", "2024-03-01T12:34:56Z", 1709296496, NULL},
        {"offset plus", "2024-03-01T01:00:00+02:00", 1709247600, NULL},
        {"offset minus crosses day", "2024-02-29T23:30:00-01:00", 1709253000, NULL},
        {"fraction", "2024-03-01T00:00:00.999Z", 1709251200, NULL},
        {"no seconds", "2024-03-01T10:00Z", 1709287200, NULL},
        {"space separator", "2024-03-01 10:00:00", 1709287200, NULL},
        {"bad hour", "2024-03-01T25:00:00Z", 0, "time of day out of range"},
        {"bad offset", "2024-03-01T10:00:00+2", 0, "bad UTC offset (want Z or ±hh:mm)"},
        {"garbage", "yesterday", 0, "not a date or ISO-8601 timestamp"},
        {"bad date", "2023-02-30T00:00:00Z", 0, "no such calendar date"},
        {"last second", "9999-12-31T23:59:59Z", 253402300799, NULL},
        {"first second", "0001-01-01T00:00:00Z", -62135596800, NULL},
        {"offset past 9999", "9999-12-31T23:00:00-05:00", 0, "outside the years 0001-9999 in UTC"},
        {"offset before 0001", "0001-01-01T00:00:00+01:00", 0, "outside the years 0001-9999 in UTC"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t t = 0;
        const char *why = gpi_time_parse(cases[i].in, &t);
        if (cases[i].why) {
            if (!why || strcmp(why, cases[i].why) != 0)
                fail_msg("%s: got reason %s", cases[i].name, why ? why : "(none)");
        } else if (why || t != cases[i].want) {
            fail_msg("%s: got %lld (%s)", cases[i].name, (long long)t, why ? why : "ok");
        }
    }
    assert_int_equal(gpi_day_of_time(-1), -1);
    assert_int_equal(gpi_iso_weekday(0), 4);     /* 1970-01-01 Thursday */
    int32_t d;
    gpi_date_parse("2024-12-30", &d);
    assert_int_equal(gpi_iso_weekday(d), 1);     /* Monday */
}

static void test_dec_parse_and_round(void **state)
{
    (void)state;
    static const struct {
        const char *name, *in;
        int digits;
        int64_t units;
        const char *why;
    } cases[] = {
        {"integer", "12", 6, 12000000, NULL},
        {"plain", "2.3645", 3, 2365, NULL},            /* decimal midpoint rounds up */
        {"midpoint 4dp", "2.36455", 4, 23646, NULL},
        {"below midpoint", "2.364499999", 3, 2364, NULL},
        {"negative half away", "-2.3645", 3, -2365, NULL},
        {"leading dot", ".5", 0, 1, NULL},
        {"trailing zeros beyond 12", "1.0000000000000", 6, 1000000, NULL},
        {"empty", "", 0, 0, "empty"},
        {"letters", "abc", 0, 0, "not a number"},
        {"exponent refused", "1e3", 0, 0, "not a number"},
        {"two dots", "1.2.3", 0, 0, "not a number"},
        {"lone dot", ".", 0, 0, "not a number"},
        {"too long", "1234567890123456789", 0, 0, "too many digits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpi_dec d;
        const char *why = gpi_dec_parse(cases[i].in, &d);
        if (cases[i].why) {
            if (!why || strcmp(why, cases[i].why) != 0)
                fail_msg("%s: got reason %s", cases[i].name, why ? why : "(none)");
            continue;
        }
        if (why) fail_msg("%s: unexpected reason %s", cases[i].name, why);
        int64_t u = gpi_dec_to_units(d, cases[i].digits);
        if (u != cases[i].units)
            fail_msg("%s: got %lld want %lld", cases[i].name, (long long)u,
                     (long long)cases[i].units);
    }
}

static void test_div_round_and_format(void **state)
{
    (void)state;
    assert_int_equal(gpi_div_round(5, 2), 3);
    assert_int_equal(gpi_div_round(-5, 2), -3);
    assert_int_equal(gpi_div_round(4, 3), 1);
    assert_int_equal(gpi_div_round(47290, 20), 2365); /* §6F: 47.290/20 at 0.001 */
    char buf[32];
    assert_string_equal(gpi_fixed_format(23645, 4, buf), "2.3645");
    assert_string_equal(gpi_fixed_format(-5, 4, buf), "-0.0005");
    assert_string_equal(gpi_fixed_format(7, 0, buf), "7");
    /* binary 2.3645 is 2.36449999999999982...; exact-decimal correction */
    assert_int_equal(gpi_double_to_units(2.3645, 3), 2365);
    assert_int_equal(gpi_double_to_units(47.290 / 20, 3), 2365);
    assert_int_equal(gpi_double_to_units(1.0000499, 4), 10000);
    assert_int_equal(gpi_double_to_units(-0.00005, 4), -1);
    assert_int_equal(gpi_double_to_units(123456.78905, 4), 1234567891);
    /* the doubled median index/ and verify/ share: sorts in place */
    int64_t odd[3] = {7, -2, 5}, even[4] = {9, 1, 4, INT64_C(4000000000000)}, one[1] = {-3};
    assert_int_equal(gpi_median2(odd, 3), 10);
    assert_true(odd[0] == -2 && odd[1] == 5 && odd[2] == 7);
    assert_int_equal(gpi_median2(even, 4), 13); /* 4 + 9: the mean 6.5, doubled */
    assert_int_equal(gpi_median2(one, 1), -6);
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    char out[65];
    gpi_sha256_hex("", 0, out);
    assert_string_equal(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    gpi_sha256_hex("abc", 3, out);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gpi_sha256_hex(m, strlen(m), out);
    assert_string_equal(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* streaming in odd pieces gives the same digest */
    gpi_sha256 s;
    gpi_sha256_init(&s);
    for (size_t i = 0; i < strlen(m); i += 7)
        gpi_sha256_update(&s, m + i, strlen(m) - i < 7 ? strlen(m) - i : 7);
    /* a state is a value: a copy taken half-way finishes on its own (verify/
     * finishes copies), and the original goes on unchanged */
    gpi_sha256 half;
    gpi_sha256_init(&half);
    gpi_sha256_update(&half, "ab", 2);
    gpi_sha256 copy = half;
    gpi_sha256_update(&copy, "c", 1);
    char out3[65];
    gpi_sha256_final(&copy, out3);
    assert_string_equal(out3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char out2[65];
    gpi_sha256_final(&s, out2);
    assert_string_equal(out2, out);
    gpi_sha256_update(&half, "c", 1);
    gpi_sha256_final(&half, out3);
    assert_string_equal(out3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* The growable array: every element pushed is kept, in order, through
 * each growth; the capacity never falls below what was asked; a growth
 * that cannot be (a size overflowing size_t) fails with the array and its
 * capacity untouched. */
static void test_vec_reserve(void **state)
{
    (void)state;
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    for (int64_t i = 0; i < 100000; i++) {
        assert_int_equal(GPI_VEC_RESERVE(v, cap, n + 1), 0);
        assert_true(cap >= n + 1);
        v[n++] = i * 7 - 3;
    }
    for (size_t i = 0; i < n; i++) assert_int_equal(v[i], (int64_t)i * 7 - 3);
    size_t before = cap;
    assert_int_equal(GPI_VEC_RESERVE(v, cap, cap), 0); /* no growth needed */
    assert_int_equal(cap, before);
    int64_t *same = v;
    assert_int_equal(GPI_VEC_RESERVE(v, cap, SIZE_MAX / 4), -1);
    assert_ptr_equal(v, same);
    assert_int_equal(cap, before);
    assert_int_equal(v[n - 1], (int64_t)(n - 1) * 7 - 3);
    free(v);
    /* a jump past double the capacity gets at least what was asked */
    char *c = NULL;
    size_t ccap = 0;
    assert_int_equal(GPI_VEC_RESERVE(c, ccap, 1000), 0);
    assert_true(ccap >= 1000);
    c[999] = 'x';
    free(c);
}

/* The filled growth: after each growth every element past those in use
 * holds the fill (0, or all bytes -1) and every element in use keeps its
 * value; elements of a size known only at run time are filled whole; a
 * failed growth touches nothing. */
static void test_vec_reserve_fill(void **state)
{
    (void)state;
    int32_t *z = NULL;
    size_t cap = 0;
    for (size_t id = 0; id < 5000; id += 37) { /* ids arrive sparse */
        assert_int_equal(GPI_VEC_RESERVE_ZERO(z, cap, id + 1), 0);
        assert_true(cap >= id + 1);
        for (size_t k = 0; k < cap; k++)
            assert_int_equal(z[k], k % 37 == 0 && k < id ? (int32_t)k + 1 : 0);
        z[id] = (int32_t)id + 1;
    }
    size_t before = cap;
    int32_t *same = z;
    assert_int_equal(GPI_VEC_RESERVE_ZERO(z, cap, SIZE_MAX / 2), -1);
    assert_ptr_equal(z, same);
    assert_int_equal(cap, before);
    assert_int_equal(z[37], 38);
    free(z);
    /* rows of 3 bytes, new rows all -1 */
    signed char *rows = NULL;
    size_t rcap = 0;
    for (size_t id = 0; id < 300; id++) {
        assert_int_equal(gpi_vec_reserve_fill(&rows, &rcap, id + 1, 3, -1), 0);
        for (size_t k = 3 * id; k < 3 * rcap; k++) assert_int_equal(rows[k], -1);
        for (size_t k = 0; k < 3 * id; k++) assert_int_equal(rows[k], (signed char)(k % 100));
        for (size_t k = 3 * id; k < 3 * id + 3; k++) rows[k] = (signed char)(k % 100);
    }
    free(rows);
}

/* The grade-id rule (SPEC §3), the one every reader applies. */
static void test_grade_id_rule(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        int ok;
    } cases[] = {
        {"H100-SXM.OD", 1}, {"a", 1}, {"9x", 1}, {"A100_80+spot", 1},
        {"", 0}, {"-H100", 0}, {".hidden", 0}, {"_x", 0}, {"+x", 0},
        {"H100 SXM", 0}, {"H100/OD", 0}, {"H100,OD", 0},
        {"h\xc3\xa9", 0}, {"a\tb", 0},
        {"0123456789012345678901234567890123456789012345678901234567890123", 1},
        {"01234567890123456789012345678901234567890123456789012345678901234", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (gpi_grade_id_ok(cases[i].id) != cases[i].ok)
            fail_msg("gpi_grade_id_ok(\"%s\") = %d", cases[i].id, !cases[i].ok);
    assert_int_equal(gpi_grade_id_ok(NULL), 0);
}

/* CSV cells: plain fields as written; text from the input also has a cell
 * a spreadsheet would run as a formula neutralized (issue 12). */
static void test_csv_cells(void **state)
{
    (void)state;
    static const struct {
        const char *in, *field, *text;
    } cases[] = {
        {"aws", "aws", "aws"},
        {"", "", ""},
        {"a,b", "\"a,b\"", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\"", "\"say \"\"hi\"\"\""},
        {"=1+1", "=1+1", "'=1+1"},
        {"+31 20", "+31 20", "'+31 20"},
        {"-us", "-us", "'-us"},
        {"@SUM(A1)", "@SUM(A1)", "'@SUM(A1)"},
        {"\tx", "\tx", "'\tx"},
        {"\rx", "\"\rx\"", "\"'\rx\""},
        {"=HYPERLINK(\"http://x\",\"y\")", "\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
         "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
        {"a=1", "a=1", "a=1"},     /* only the first character counts */
        {" =1", " =1", " =1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        gpi_csv_field(f, cases[i].in);
        fputc('|', f);
        gpi_csv_text(f, cases[i].in);
        fclose(f);
        char want[256];
        snprintf(want, sizeof want, "%s|%s", cases[i].field, cases[i].text);
        if (strcmp(buf, want) != 0) fail_msg("case %zu: got %s, want %s", i, buf, want);
        free(buf);
    }
}

/* The always-quoted field of the rejects file writes what libcsv's
 * csv_fwrite (its writer before) wrote for every text: the rejects file
 * stays byte for byte the same. */
static void test_csv_quoted(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "", "aws", "a,b", "say \"hi\"", "\"", "\"\"", "x\ny", "x\r\ny", "=1+1", " pad ",
        "good.csv:3: price: not a number (got \"abc\")",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = NULL, *want = NULL;
        size_t ng = 0, nw = 0;
        FILE *f = open_memstream(&got, &ng);
        gpi_csv_quoted(f, cases[i]);
        fclose(f);
        f = open_memstream(&want, &nw);
        csv_fwrite(f, cases[i], strlen(cases[i]));
        fclose(f);
        if (strcmp(got, want) != 0) fail_msg("case %zu: got %s, want %s", i, got, want);
        free(got);
        free(want);
    }
    char *got = NULL;
    size_t ng = 0;
    FILE *f = open_memstream(&got, &ng);
    gpi_csv_quoted(f, NULL);
    fclose(f);
    assert_string_equal(got, "\"\"");
    free(got);
}

/* The records the small readers get: "line:field|field;" each, "!" after
 * a record with a NUL byte (gpi_csv_rec_nul). */
static gpi_status rec_dump(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    (void)d;
    char *out = ud;
    size_t o = strlen(out);
    o += (size_t)snprintf(out + o, 512 - o, "%ld:", r->line);
    for (int i = 0; i < r->n; i++) {
        const char *sep = i ? "|" : "";
        if (r->len[i] > 40) o += (size_t)snprintf(out + o, 512 - o, "%s<%zu>", sep, r->len[i]);
        else o += (size_t)snprintf(out + o, 512 - o, "%s%s", sep, r->f[i]);
    }
    snprintf(out + o, 512 - o, "%s;", gpi_csv_rec_nul(r) ? "!" : "");
    return GPI_OK;
}

/* gpi_csv_read_recs (memory) and gpi_csv_read_stream (a file, in 64 KiB
 * pieces) give the same records: quoting, BOM, CRLF, blank lines,
 * comments, a record across the pieces, NUL bytes flagged. */
static void test_csv_read_helpers(void **state)
{
    (void)state;
    static char big[70010];
    memset(big, 'a', 70000);
    memcpy(big + 70000, ",\"b\nc\"\n", 7);
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        int comments;
        const char *want;
    } cases[] = {
        {"a,b\n\"x,y\",\"q\"\"\"\n", 0, 0, "1:a|b;2:x,y|q\";"},
        {"\xEF\xBB\xBFh\r\n\r\n v ,w\r\n", 0, 0, "1:h;3:v|w;"},
        {"# c,\"\nx\n#y\n", 0, 1, "2:x;"},
        {"a\0b,c\nd\n", 8, 0, "1:a|c!;2:d;"},
        {big, 70007, 0, "1:<70000>|b\nc;"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        char got[512] = "";
        gpi_diag d = {{0}};
        if (gpi_csv_read_recs("t.csv", cases[i].text, len, cases[i].comments, rec_dump, got, &d) !=
            GPI_OK)
            fail_msg("case %zu: %s", i, d.msg);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: recs %s, want %s", i, got, cases[i].want);
        FILE *f = tmpfile();
        assert_non_null(f);
        assert_int_equal(fwrite(cases[i].text, 1, len, f), len);
        rewind(f);
        got[0] = '\0';
        if (gpi_csv_read_stream(f, "t.csv", cases[i].comments, rec_dump, got, &d) != GPI_OK)
            fail_msg("case %zu: %s", i, d.msg);
        fclose(f);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: stream %s, want %s", i, got, cases[i].want);
    }
    /* errors keep the reader's place */
    FILE *f = tmpfile();
    fputs("a\n\"b\n", f);
    rewind(f);
    char got[512] = "";
    gpi_diag d = {{0}};
    assert_int_equal(gpi_csv_read_stream(f, "t.csv", 0, rec_dump, got, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "t.csv:2:1: unterminated quoted field");
    fclose(f);
}

/* gpi_text_read: the whole file, NUL-terminated; the refusals in words. */
static void test_text_read(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("text-read");
    char path[4200];
    static const struct {
        const char *name, *text;
        size_t len, max_mib;
        gpi_status st;
        const char *msg; /* after "path" */
    } cases[] = {
        {"a.csv", "a,b\nc\n", 6, 1, GPI_OK, ""},
        {"empty.csv", "", 0, 1, GPI_OK, ""},
        {"u16.csv", "\xff\xfe" "a\0", 4, 1, GPI_EINPUT,
         ":1:1: the file is UTF-16LE; gpuidx reads UTF-8 (convert it first, e.g. iconv -f "
         "UTF-16LE -t UTF-8)"},
        {"big.csv", NULL, 1 << 20, 1, GPI_EINPUT, ": file too large (over 1 MiB)"},
        {"under.csv", NULL, (1 << 20) - 1, 1, GPI_OK, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        for (size_t k = 0; k < cases[i].len; k++) fputc(cases[i].text ? cases[i].text[k] : 'x', f);
        fclose(f);
        char *buf = NULL;
        size_t len = 0;
        gpi_diag d = {{0}};
        gpi_status st = gpi_text_read(path, cases[i].max_mib, &buf, &len, &d);
        char want[4400];
        snprintf(want, sizeof want, "%s%s", path, cases[i].msg);
        if (st != cases[i].st || (st != GPI_OK && strcmp(d.msg, want) != 0))
            fail_msg("%s: status %d, %s", cases[i].name, (int)st, d.msg);
        if (st == GPI_OK) {
            assert_int_equal(len, cases[i].len);
            assert_int_equal(buf[len], '\0');
            if (cases[i].text) assert_memory_equal(buf, cases[i].text, len);
        } else {
            assert_null(buf);
        }
        free(buf);
    }
    snprintf(path, sizeof path, "%s/none.csv", dir);
    char *buf = NULL;
    size_t len = 0;
    gpi_diag d = {{0}};
    assert_int_equal(gpi_text_read(path, 1, &buf, &len, &d), GPI_EIO);
    char want[4400];
    snprintf(want, sizeof want, "%s: no such file", path);
    assert_string_equal(d.msg, want);
    /* a folder given for a file (--rent, --deployments, --grades) */
    assert_int_equal(gpi_text_read(dir, 1, &buf, &len, &d), GPI_EIO);
    snprintf(want, sizeof want, "%s: is a directory, not a file", dir);
    assert_string_equal(d.msg, want);
    free(dir);
}

static void test_enums(void **state)
{
    (void)state;
    assert_int_equal(gpi_tier_parse("GOLD"), GPI_TIER_GOLD);
    assert_true(GPI_TIER_PLATINUM > GPI_TIER_GOLD && GPI_TIER_BRONZE > GPI_TIER_UNDERPERFORM);
    assert_int_equal(gpi_scope_parse("Bare-Metal"), GPI_SCOPE_BARE_METAL);
    assert_int_equal(gpi_term_parse("spot"), GPI_TERM_SPOT);
    assert_int_equal(gpi_unit_parse("instance-month"), GPI_UNIT_INSTANCE_MONTH);
    assert_int_equal(gpi_kind_parse("bid"), -1);
    assert_string_equal(gpi_term_name(GPI_TERM_ON_DEMAND), "on-demand");
}

/* The encodings gpuidx refuses, from the first bytes (core/text.c). */
static void test_wide_encoding(void **state)
{
    (void)state;
    static const struct {
        const char *head;
        size_t n;
        const char *want;
    } cases[] = {
        {"\xFF\xFE" "d\0", 4, "UTF-16LE"},        {"\xFE\xFF\0" "d", 4, "UTF-16BE"},
        {"\xFF\xFE\0\0", 4, "UTF-32LE"},          {"\0\0\xFE\xFF", 4, "UTF-32BE"},
        {"d\0a\0", 4, "UTF-16LE"},                 {"\0d\0a", 4, "UTF-16BE"},
        {"d\0\0\0", 4, "UTF-32LE"},                {"\0\0\0d", 4, "UTF-32BE"},
        {"\xFF\xFE", 2, "UTF-16LE"},               {"d\0", 2, "UTF-16LE"},
        {"date", 4, NULL},                         {"\xEF\xBB\xBF" "d", 4, NULL},
        {"[{", 2, NULL},                           {"d", 1, NULL},
        {"", 0, NULL},                             {"\xFF\xFF", 2, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = gpi_wide_encoding(cases[i].head, cases[i].n);
        if (!cases[i].want != !got || (got && strcmp(got, cases[i].want) != 0))
            fail_msg("case %zu: got %s, want %s", i, got ? got : "NULL",
                     cases[i].want ? cases[i].want : "NULL");
    }
    gpi_diag d;
    assert_int_equal(gpi_diag_encoding(&d, "f.csv", "UTF-16LE"), GPI_EINPUT);
    assert_string_equal(d.msg, "f.csv:1:1: the file is UTF-16LE; gpuidx reads UTF-8 (convert it "
                               "first, e.g. iconv -f UTF-16LE -t UTF-8)");
    /* gpi_text_check puts the bytes back */
    char buf[] = "date,price\n";
    FILE *f = fmemopen(buf, strlen(buf), "rb");
    assert_non_null(f);
    assert_int_equal(gpi_text_check(f, "f.csv", &d), GPI_OK);
    char back[16] = "";
    assert_non_null(fgets(back, sizeof back, f));
    assert_string_equal(back, "date,price\n");
    fclose(f);
}


/* core/strbuf.c: appends keep everything across growth (the first buffer
 * is 8 KiB), XML escaping of the five characters that need it in text and
 * double-quoted attributes, NULL appends nothing. */
static void test_strbuf(void **state)
{
    (void)state;
    gpi_sbuf b = {0};
    gpi_sbuf_xml(&b, NULL);
    assert_int_equal(b.n, 0);
    gpi_sbuf_xml(&b, "<a href=\"x&y\">it's</a>");
    assert_string_equal(b.p, "&lt;a href=&quot;x&amp;y&quot;&gt;it's&lt;/a&gt;");
    size_t n0 = b.n;
    for (int i = 0; i < 3000; i++) gpi_sbuf_printf(&b, "%04d|", i); /* 15,000 bytes */
    assert_false(b.oom);
    assert_int_equal(b.n, n0 + 15000);
    assert_int_equal(strlen(b.p), b.n);
    assert_memory_equal(b.p + n0, "0000|0001|", 10);
    assert_memory_equal(b.p + b.n - 5, "2999|", 5);
    assert_true(b.cap >= b.n + 1 && b.cap % 8192 == 0);
    free(b.p);
}

/* The formatters observations.csv writes by hand (publish/files.c note 4)
 * give printf's text: gpi_fixed_format against "%llu.%0*llu", and
 * gpi_time_format against gmtime_r's fields in "%04d-...Z" cut to 20
 * characters, on values of every size (a fixed xorshift sequence). */
static void test_formatters_by_hand(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    char got[32], want[96];
    static const int64_t edges[] = {0, 1, -1, 9, 10, -10, 999999, 1000000, -1000000,
                                    INT64_MAX, INT64_MIN, INT64_MIN + 1};
    for (int i = 0; i < 50000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = i < 12 ? edges[i] : (int64_t)(x >> (x % 64)) * ((x & 1) ? -1 : 1);
        for (int digits = 0; digits <= 18; digits++) {
            uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, p = 1;
            for (int k = 0; k < digits; k++) p *= 10;
            if (digits == 0)
                snprintf(want, sizeof want, "%s%llu", v < 0 ? "-" : "", (unsigned long long)a);
            else
                snprintf(want, sizeof want, "%s%llu.%0*llu", v < 0 ? "-" : "",
                         (unsigned long long)(a / p), digits, (unsigned long long)(a % p));
            if (strcmp(gpi_fixed_format(v, digits, got), want) != 0)
                fail_msg("gpi_fixed_format(%lld, %d): %s, want %s", (long long)v, digits, got,
                         want);
        }
        /* times from year -100 to 10100 */
        int64_t lo = -65309356800LL, hi = 256557312000LL;
        int64_t t = i < 12 ? edges[i] % 100000 : lo + (int64_t)(x % (uint64_t)(hi - lo));
        if (i == 12) t = 253402300799LL; /* 9999-12-31T23:59:59Z */
        if (i == 13) t = -62167219200LL; /* 0000-01-01T00:00:00Z */
        time_t tt = (time_t)t;
        struct tm tm;
        assert_non_null(gmtime_r(&tt, &tm));
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        want[20] = '\0';
        gpi_time_format(t, got);
        if (strcmp(got, want) != 0) fail_msg("gpi_time_format(%lld): %s, want %s", (long long)t, got, want);
    }
}

/* gpi_format_1f writes printf's "%.1f" (site/svg.c's coordinates): on
 * the ties that printf rounds to even on the exact binary value (0.25,
 * 0.35, 2.675 ...), numbers a hair off a tie, every k/20 up to 2,000,
 * values outside [0, 1e6) and odd ones, and a million random values of
 * every scale up to 2^20. */
static void test_format_1f(void **state)
{
    (void)state;
    char got[32], want[64];
    static const double edges[] = {0.0, -0.0, 0.05, 0.15, 0.25, 0.35, 0.45, 1.05, 2.675,
                                   0.04999999999, 0.0500000001, 12.349999999999, 12.35,
                                   733.15, 999999999.95, 999999999.94, 1e9, 1e9 + 0.05, -0.04,
                                   -1.25, -733.15, 1e-300, 5e-324, 1e20, 0.95, 9.95, 99.95,
                                   999999.95, 999999.94, 1e6, 1e6 + 0.05,
                                   HUGE_VAL, -HUGE_VAL, NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        snprintf(want, sizeof want, "%.1f", edges[i]);
        if (strcmp(gpi_format_1f(edges[i], got), want) != 0)
            fail_msg("gpi_format_1f(%.17g): %s, want %s", edges[i], got, want);
    }
    for (int k = 0; k <= 40000; k++) {
        double v = k / 20.0;
        snprintf(want, sizeof want, "%.1f", v);
        if (strcmp(gpi_format_1f(v, got), want) != 0)
            fail_msg("gpi_format_1f(%.17g): %s, want %s", v, got, want);
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double scale = (double)(1ull << (x % 31)) / 1024.0; /* 2^-10 .. 2^20 */
        double v = (double)(x >> 11) * 0x1p-53 * scale;
        snprintf(want, sizeof want, "%.1f", v);
        if (strcmp(gpi_format_1f(v, got), want) != 0)
            fail_msg("gpi_format_1f(%.17g): %s, want %s", v, got, want);
    }
}

/* The CSV cells appended to a gpi_sbuf are the bytes the FILE writers
 * write, on random texts of the characters that matter (quotes, commas,
 * line ends, formula starters); gpi_sbuf_put and gpi_sbuf_room append. */
static void test_strbuf_csv(void **state)
{
    (void)state;
    static const char alpha[] = "a,\"\r\n=+-@\t' x";
    uint64_t x = 2463534242ull;
    for (int i = 0; i < 20000; i++) {
        char in[12];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = x % sizeof in;
        for (size_t k = 0; k < n; k++) in[k] = alpha[(x >> (4 * k + 4)) % (sizeof alpha - 1)];
        in[n] = '\0';
        const char *s = i == 0 ? NULL : in;
        char *fb = NULL;
        size_t fn = 0;
        FILE *f = open_memstream(&fb, &fn);
        assert_non_null(f);
        gpi_csv_field(f, s);
        fputc('|', f);
        gpi_csv_text(f, s);
        fclose(f);
        gpi_sbuf b = {0};
        gpi_sbuf_csv_field(&b, s);
        gpi_sbuf_put(&b, "|", 1);
        gpi_sbuf_csv_text(&b, s);
        assert_false(b.oom);
        if (b.n != fn || memcmp(b.p, fb, fn) != 0)
            fail_msg("case %d (%s): sbuf %.*s, FILE %s", i, in, (int)b.n, b.p, fb);
        free(fb);
        free(b.p);
    }
    gpi_sbuf b = {0};
    char *w = gpi_sbuf_room(&b, 3);
    assert_non_null(w);
    memcpy(w, "abc", 3);
    b.n += 3;
    gpi_sbuf_put(&b, "de", 2);
    assert_int_equal(b.n, 5);
    assert_memory_equal(b.p, "abcde", 5);
    assert_null(gpi_sbuf_room(&b, SIZE_MAX)); /* too much: oom, nothing changes */
    assert_true(b.oom);
    assert_int_equal(b.n, 5);
    free(b.p);
}

/* core/lines.c: LF and CRLF ends, a last line without one, a NUL byte and
 * a line that does not fit refused in words (with its number), the text
 * never changed. */
static void test_lines(void **state)
{
    (void)state;
    static const char text[] = "a,b\r\nsecond\n\nx\0y\n0123456789\nlast";
    static const struct { const char *line, *bad; } want[] = {
        {"a,b", NULL}, {"second", NULL}, {"", NULL}, {"x", "contains a NUL byte"},
        {"0123456", "longer than 7 bytes"}, {"last", NULL},
    };
    gpi_lines it;
    gpi_lines_init(&it, text, sizeof text - 1);
    char buf[8];
    const char *bad;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        assert_int_equal(gpi_lines_next(&it, buf, sizeof buf, &bad), 1);
        assert_int_equal(it.line, (long)k + 1);
        if (strcmp(buf, want[k].line) != 0) fail_msg("line %zu: \"%s\"", k + 1, buf);
        if (want[k].bad) assert_string_equal(bad, want[k].bad);
        else assert_null(bad);
    }
    assert_int_equal(gpi_lines_next(&it, buf, sizeof buf, &bad), 0);
    assert_int_equal(gpi_lines_next(&it, buf, sizeof buf, &bad), 0);
    gpi_lines_init(&it, "", 0);
    assert_int_equal(gpi_lines_next(&it, buf, sizeof buf, &bad), 0);
}

/* gpi_file_read_all: the bytes to the end (across its 64 KiB reads),
 * NUL-terminated, a NUL byte read like any other; and a stream that fails
 * (a folder opened for reading: fread sets the error) is a read error, not
 * an empty file.  (Its limit: test_text_read, through gpi_text_read.) */
static void test_file_read_all(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("core-file");
    size_t big = 200000;
    char *text = malloc(big + 1);
    for (size_t i = 0; i < big; i++) text[i] = (char)('a' + i % 26);
    text[5] = '\0';
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/f.txt", dir);
    FILE *w = fopen(path, "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(text, 1, big, w), big);
    fclose(w);
    FILE *f = fopen(path, "rb");
    char *out = NULL;
    size_t n = 7;
    gpi_diag d = {{0}};
    assert_int_equal(gpi_file_read_all(f, path, 1, &out, &n, &d), GPI_OK);
    fclose(f);
    assert_int_equal(n, big);
    assert_memory_equal(out, text, big);
    assert_int_equal(out[big], '\0');
    free(out);
    f = fopen(dir, "rb");
    assert_non_null(f);
    out = (char *)"x";
    assert_int_equal(gpi_file_read_all(f, dir, 0, &out, &n, &d), GPI_EIO);
    fclose(f);
    assert_null(out);
    assert_int_equal(n, 0);
    char want[4200];
    snprintf(want, sizeof want, "%s: read error: Is a directory", dir);
    assert_string_equal(d.msg, want);
    free(text);
    free(path);
    free(dir);
}

/* The two name folds of core/ident.c, which ingest and the grade files
 * share (a grade names a GPU as a feed or gpus.csv does): providers keep
 * one blank between words, GPUs lose blanks, '-' and '_'; -1 when the
 * fold does not fit. */
static void test_name_folds(void **state)
{
    (void)state;
    static const struct {
        int gpu;
        const char *in;
        size_t cap;
        int n;
        const char *out;
    } cases[] = {
        {1, "H100 SXM", 32, 7, "h100sxm"},
        {1, "A100-SXM_80GB\t", 32, 11, "a100sxm80gb"},
        {1, " - _ ", 32, 0, ""},
        {1, "H100-80GB", 8, -1, "h10080g"},
        {1, "H100", 5, 4, "h100"},
        {0, "  Lambda   Labs ", 32, 11, "lambda labs"},
        {0, "AWS", 32, 3, "aws"},
        {0, "Lambda Labs", 8, -1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        int n = cases[i].gpu ? gpi_fold_gpu(cases[i].in, out, cases[i].cap)
                             : gpi_fold_name(cases[i].in, out, cases[i].cap);
        if (n != cases[i].n) fail_msg("case %zu (\"%s\"): %d, want %d", i, cases[i].in, n, cases[i].n);
        if (cases[i].out) assert_string_equal(out, cases[i].out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_date_parse_table),  cmocka_unit_test(test_time_parse_table),
        cmocka_unit_test(test_dec_parse_and_round), cmocka_unit_test(test_div_round_and_format),
        cmocka_unit_test(test_sha256_vectors),     cmocka_unit_test(test_enums),
        cmocka_unit_test(test_csv_cells),         cmocka_unit_test(test_csv_quoted),
        cmocka_unit_test(test_csv_read_helpers),  cmocka_unit_test(test_text_read),
        cmocka_unit_test(test_wide_encoding),
        cmocka_unit_test(test_strbuf),            cmocka_unit_test(test_lines),
        cmocka_unit_test(test_formatters_by_hand), cmocka_unit_test(test_strbuf_csv),
        cmocka_unit_test(test_format_1f),
        cmocka_unit_test(test_grade_id_rule),     cmocka_unit_test(test_vec_reserve),
        cmocka_unit_test(test_vec_reserve_fill),  cmocka_unit_test(test_file_read_all), cmocka_unit_test(test_name_folds),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
