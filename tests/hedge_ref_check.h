/* tests/hedge_ref_check.h -- `gpuidx hedge analyze --json` against the
 * independent statsmodels reference, tests/ref/hedge_oos.py (header-only,
 * a static function; used by the hedge end-to-end tests).
 *
 * hedge_ref_check() runs analyze for one rent and grade at freq in the
 * folder work (db_args: "--db x.db"), runs the reference on its periods
 * (the aligned series, not gpuidx's figures) and compares h, R², the
 * walk-forward effectiveness and its periods, the block bootstrap's
 * resamples, block and interval and the Chow test at the largest index
 * move within a relative 1e-6 (the JSON prints 10 significant digits).
 * Returns the number of changes, so a caller can require enough of them
 * for the bootstrap and the break test to be exercised.
 */
#ifndef GPI_TESTS_HEDGE_REF_CHECK_H
#define GPI_TESTS_HEDGE_REF_CHECK_H

#include <jansson.h>
#include <stdlib.h>

#include "tests/testutil.h"

static double hrc_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s: not a number", key);
    return json_number_value(v);
}

static double hedge_ref_check(const char *work, const char *db_args, const char *rent,
                              const char *grade, const char *freq)
{
    tu_run r = tu_gpuidx(work, "%s hedge analyze --rent %s --grade %s --freq %s --json", db_args,
                         rent, grade, freq);
    if (r.status != 0) fail_msg("analyze: %s", r.err);
    char *path = tu_write(work, "hedge-ref-a.json", r.out);
    json_t *a = json_loads(r.out, 0, NULL);
    assert_non_null(a);
    tu_run_free(&r);
    r = tu_sh(work, "/usr/bin/python3 '%s/tests/ref/hedge_oos.py' hedge-ref-a.json", tu_srcdir());
    if (r.status != 0) fail_msg("reference: %s", r.err);
    json_t *ref = json_loads(r.out, 0, NULL);
    assert_non_null(ref);
    json_t *oos = json_object_get(a, "out_of_sample");
    json_t *wf = json_object_get(oos, "walk_forward"), *bt = json_object_get(oos, "bootstrap");
    json_t *st = json_object_get(oos, "stability");
    double n = hrc_num(a, "n_changes");
    assert_int_equal(n, hrc_num(ref, "n_changes"));
    tu_assert_close(hrc_num(a, "h"), hrc_num(ref, "h"), 1e-6, "h");
    tu_assert_close(hrc_num(a, "r2"), hrc_num(ref, "r2"), 1e-6, "R2");
    tu_assert_close(hrc_num(wf, "he"), hrc_num(ref, "walk_he"), 1e-6, "walk-forward");
    assert_int_equal(hrc_num(wf, "n"), hrc_num(ref, "walk_n"));
    assert_int_equal(hrc_num(bt, "used"), hrc_num(ref, "boot_used"));
    assert_int_equal(hrc_num(bt, "block"), hrc_num(ref, "block"));
    json_t *iv = json_object_get(bt, "h_interval");
    tu_assert_close(json_number_value(json_array_get(iv, 0)), hrc_num(ref, "boot_lo"), 1e-6,
                    "bootstrap lo");
    tu_assert_close(json_number_value(json_array_get(iv, 1)), hrc_num(ref, "boot_hi"), 1e-6,
                    "bootstrap hi");
    if (json_is_number(json_object_get(ref, "chow_f"))) {
        tu_assert_close(hrc_num(st, "f"), hrc_num(ref, "chow_f"), 1e-6, "Chow F");
        tu_assert_close(hrc_num(st, "p"), hrc_num(ref, "chow_p"), 1e-6, "Chow p");
    } else {
        assert_true(json_is_false(json_object_get(st, "testable")));
    }
    json_decref(ref);
    json_decref(a);
    tu_run_free(&r);
    free(path);
    return n;
}

#endif
