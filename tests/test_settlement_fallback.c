/* tests/test_settlement_fallback.c -- cessation in contracts
 * (settlement/fallback.c; METHODOLOGY.md "Cessation and fallback").
 *
 * A March 2025 contract (listed 2025-02-01, tick 0.0001) on a grade worth
 * 2.0000 every day through 2025-03-10 and without a value from 2025-03-11;
 * after_days 2, so the fallback applies from 2025-03-13.  By hand:
 *   - rule grade, the fallback grade at 3.0000 every day: the month's
 *     values are 10 x 2 + 21 x 3 = 83 over 31 days: FSP 2.6774 (83/31 =
 *     2.677419...); the trigger day's daily price is the same, (10 x 2 +
 *     3 x 3 + 18 x 3) / 31; the day before it (no fallback yet) is
 *     (10 x 2 + 19 x 2) / 29 = 2.0000;
 *   - rule last_value: every day is 2.0000: FSP 2.0000;
 *   - rule suspend: daily rows through 2025-03-12, then one `suspended`
 *     row on 2025-03-13 and no final price;
 *   - a gap of two days only (after_days 2) changes nothing.
 * And the file's fallback object is read with its errors named.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "settlement/settlement.h"
#include "tests/settlement_helpers.h"

/* Days from 2025-02-01 to 2025-03-31 at e4, suspended from `gap` on
 * (through gap_end, or to the end when gap_end is 0). */
static gpi_index_day *series(int64_t e4, int32_t gap, int32_t gap_end, size_t *n)
{
    int32_t a = day_of(2025, 2, 1), b = day_of(2025, 3, 31);
    *n = (size_t)(b - a + 1);
    gpi_index_day *v = calloc(*n, sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        int32_t d = a + (int32_t)i;
        int off = gap && d >= gap && (!gap_end || d <= gap_end);
        v[i] = (gpi_index_day){d, off ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_OFFERS, off ? -1 : e4};
    }
    return v;
}

static const settle_price *row_of(const settle_result *r, int32_t day, int kind)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].day == day && r->rows[i].kind == kind) return &r->rows[i];
    return NULL;
}

static void test_rules(void **state)
{
    (void)state;
    static const struct {
        int rule;
        int64_t fsp;          /* -1: none */
        int64_t trigger_daily;
        const char *trigger_kind;
    } cases[] = {
        {SETTLE_FB_GRADE, 26774, 26774, "fallback-daily"},
        {SETTLE_FB_LAST, 20000, 20000, "fallback-daily"},
        {SETTLE_FB_SUSPEND, -1, -1, "suspended"},
    };
    size_t n, nf;
    gpi_index_day *g = series(20000, day_of(2025, 3, 11), 0, &n);
    gpi_index_day *fb = series(30000, 0, 0, &nf);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        settle_contract c = contract("C1", 2025, 3, 1000, 1, 4, 15);
        c.fallback.rule = cases[k].rule;
        c.fallback.after_days = 2;
        snprintf(c.fallback.grade, sizeof c.fallback.grade, "FB");
        settle_result r;
        settle_fb_note note;
        gpi_diag d = {{0}};
        assert_int_equal(settle_run_fallback(&c, g, n, fb, nf, INT32_MAX, &r, &note, &d), GPI_OK);
        assert_int_equal(note.applied, 1);
        assert_int_equal(note.start, day_of(2025, 3, 11));
        assert_int_equal(note.trigger, day_of(2025, 3, 13));
        /* the day before the trigger stands as it was */
        const settle_price *p = row_of(&r, day_of(2025, 3, 12), SETTLE_DAILY);
        assert_non_null(p);
        assert_int_equal(p->price_units, 20000);
        assert_int_equal(p->fallback, 0);
        assert_string_equal(settle_row_kind(p), "daily");
        const settle_price *t = &r.rows[r.n - 1];
        if (cases[k].fsp < 0) {
            assert_int_equal(t->day, day_of(2025, 3, 13));
            assert_string_equal(settle_row_kind(t), "suspended");
            assert_int_equal(r.insufficient, 1);
            assert_null(row_of(&r, day_of(2025, 3, 14), SETTLE_DAILY));
        } else {
            p = row_of(&r, day_of(2025, 3, 13), SETTLE_DAILY);
            assert_non_null(p);
            assert_int_equal(p->price_units, cases[k].trigger_daily);
            assert_string_equal(settle_row_kind(p), cases[k].trigger_kind);
            assert_int_equal(t->kind, SETTLE_FINAL);
            assert_string_equal(settle_row_kind(t), "fallback-final");
            assert_int_equal(t->price_units, cases[k].fsp);
        }
        settle_result_free(&r);
    }
    free(g);
    free(fb);
}

/* A gap no longer than after_days is no cessation: settle_run's rows. */
static void test_short_gap(void **state)
{
    (void)state;
    size_t n;
    gpi_index_day *g = series(20000, day_of(2025, 3, 11), day_of(2025, 3, 12), &n);
    settle_contract c = contract("C1", 2025, 3, 1000, 1, 4, 15);
    c.fallback.rule = SETTLE_FB_SUSPEND;
    c.fallback.after_days = 2;
    settle_result r, plain;
    settle_fb_note note;
    gpi_diag d = {{0}};
    assert_int_equal(settle_run_fallback(&c, g, n, NULL, 0, INT32_MAX, &r, &note, &d), GPI_OK);
    assert_int_equal(settle_run(&c, g, n, INT32_MAX, &plain, &d), GPI_OK);
    assert_int_equal(note.applied, 0);
    assert_int_equal(r.n, plain.n);
    assert_memory_equal(r.rows, plain.rows, r.n * sizeof *r.rows);
    settle_result_free(&r);
    settle_result_free(&plain);
    free(g);
}

/* A fallback grade suspended itself from 2025-03-20: its rows are there,
 * so the month settles by the one rule, and the note counts its days with
 * a value, 2025-03-11 .. 2025-03-19: 9 of the 21 from the cessation. */
static void test_fallback_grade_suspended(void **state)
{
    (void)state;
    size_t n, nf;
    gpi_index_day *g = series(20000, day_of(2025, 3, 11), 0, &n);
    gpi_index_day *fb = series(30000, day_of(2025, 3, 20), 0, &nf);
    settle_contract c = contract("C1", 2025, 3, 1000, 1, 4, 15);
    c.fallback.rule = SETTLE_FB_GRADE;
    c.fallback.after_days = 2;
    snprintf(c.fallback.grade, sizeof c.fallback.grade, "FB");
    settle_result r;
    settle_fb_note note;
    gpi_diag d = {{0}};
    assert_int_equal(settle_run_fallback(&c, g, n, fb, nf, INT32_MAX, &r, &note, &d), GPI_OK);
    assert_int_equal(note.applied, 1);
    assert_int_equal(note.start, day_of(2025, 3, 11));
    assert_int_equal(note.end, day_of(2025, 3, 31));
    assert_int_equal(note.fb_values, 9);
    /* 10 x 2 + 9 x 3 over 19 values: 47/19 = 2.473684... */
    assert_int_equal(r.rows[r.n - 1].kind, SETTLE_FINAL);
    assert_int_equal(r.rows[r.n - 1].price_units, 24737);
    settle_result_free(&r);
    /* in full: note.fb_values counts every day (test_rules' grade) */
    free(fb);
    fb = series(30000, 0, 0, &nf);
    assert_int_equal(settle_run_fallback(&c, g, n, fb, nf, INT32_MAX, &r, &note, &d), GPI_OK);
    assert_int_equal(note.fb_values, 21);
    settle_result_free(&r);
    free(g);
    free(fb);
}

/* The fallback grade must cover the days it replaces. */
static void test_fallback_grade_missing_day(void **state)
{
    (void)state;
    size_t n, nf;
    gpi_index_day *g = series(20000, day_of(2025, 3, 11), 0, &n);
    gpi_index_day *fb = series(30000, 0, 0, &nf);
    nf -= 5; /* through 2025-03-26 */
    settle_contract c = contract("C1", 2025, 3, 1000, 1, 4, 15);
    c.fallback.rule = SETTLE_FB_GRADE;
    c.fallback.after_days = 2;
    snprintf(c.fallback.grade, sizeof c.fallback.grade, "FB");
    settle_result r;
    settle_fb_note note;
    gpi_diag d = {{0}};
    assert_int_equal(settle_run_fallback(&c, g, n, fb, nf, INT32_MAX, &r, &note, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "C1: fallback grade FB has no index row for 2025-03-27 (the "
                               "contract's grade H100-SXM.OD.GOLD+ ceased; build the fallback "
                               "grade)");
    free(g);
    free(fb);
}

static void test_parse(void **state)
{
    (void)state;
    static const struct {
        const char *json, *field, *why;
        int rule, after;
    } cases[] = {
        {"{\"rule\":\"grade\",\"grade\":\"A100.OD\",\"after_days\":4}", "fallback", NULL,
         SETTLE_FB_GRADE, 4},
        {"{\"rule\":\"last_value\"}", "fallback", NULL, SETTLE_FB_LAST, 3},
        {"{\"rule\":\"suspend\",\"after_days\":31}", "fallback", NULL, SETTLE_FB_SUSPEND, 31},
        {"{\"rule\":\"nearest\"}", "fallback.rule", "not grade, last_value or suspend", 0, 0},
        {"{}", "fallback.rule", "missing: grade, last_value or suspend", 0, 0},
        {"{\"rule\":\"grade\"}", "fallback.grade", "a grade id is needed with rule grade", 0, 0},
        {"{\"rule\":\"grade\",\"grade\":\"h100-sxm.od.gold+\"}", "fallback.grade",
         "the contract's own grade", 0, 0},
        {"{\"rule\":\"suspend\",\"grade\":\"A\"}", "fallback.grade", "only with rule grade", 0, 0},
        {"{\"rule\":\"suspend\",\"after_days\":0}", "fallback.after_days",
         "must be a whole number from 1 to 31", 0, 0},
        {"{\"rule\":\"suspend\",\"days\":3}", "fallback",
         "unknown key (expected rule, grade, after_days)", 0, 0},
        {"\"suspend\"", "fallback", "not an object {\"rule\", \"grade\", \"after_days\"}", 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_t *j = json_loads(cases[k].json, JSON_DECODE_ANY, NULL);
        assert_non_null(j);
        settle_contract c = contract("C1", 2025, 3, 1000, 1, 4, 15);
        const char *field = NULL, *why = settle_fallback_parse(j, &c, &field);
        json_decref(j);
        assert_string_equal(field, cases[k].field);
        if (!cases[k].why) {
            assert_null(why);
            assert_int_equal(c.fallback.rule, cases[k].rule);
            assert_int_equal(c.fallback.after_days, cases[k].after);
        } else {
            if (!why) fail_msg("%s: accepted", cases[k].json);
            assert_string_equal(why, cases[k].why);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_short_gap),
        cmocka_unit_test(test_fallback_grade_missing_day),
        cmocka_unit_test(test_fallback_grade_suspended),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests_name("settlement_fallback", tests, NULL, NULL);
}
