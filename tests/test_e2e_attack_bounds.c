/* tests/test_e2e_attack_bounds.c -- issue 26 item 5 on the real catalogue
 * (../shared/data/real; skipped, with a message, when it or
 * /usr/bin/python3 is absent): the published manipulation figures
 * (index.json v3.manipulation.fsp_move, METHODOLOGY.md §11.4) bound every
 * move of a month's FSP that tools/attack_suite.py measures.
 *
 * The suite runs on the H100 rows (--gpu-filter H100) with --bounds over
 * the shipped H100 on-demand grades (v3, A = K = 7: the suite moves none
 * of their months) and twins with a short discipline (A = K = 3, A = K =
 * 1), which the suite's four- and five-day attacks do move -- so the
 * check is not vacuous: H100-SXM.OD.A3's March FSP moves 0.4519 USD under
 * the new seller of 02-27..03-01 (four days: A + 1) and its published
 * "new" figure is 0.45182, rounded up to the tick 0.4519: the bound is
 * reached.  Attacks longer than the figures' scope (an absence of more
 * than K + 1 days, a listing of more than A + 1) are left out and counted.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp, *out_text;
static int status;

static const char grades_json[] =
    "{\"grades\": [\n"
    "  {\"id\": \"H100-SXM.OD\", \"version\": 2, \"method\": \"v3\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"], \"admission_days\": 7,\n"
    "   \"absence_days\": 7},\n"
    "  {\"id\": \"H100-SXM.OD.NEO\", \"version\": 1, \"method\": \"v3\",\n"
    "   \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\", \"covers\": [\"instance\"],\n"
    "   \"segments\": [\"neocloud\"], \"admission_days\": 7, \"absence_days\": 7},\n"
    "  {\"id\": \"H100-PCIE.OD\", \"version\": 2, \"method\": \"v3\", \"gpu\": [\"H100-PCIE-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"], \"admission_days\": 7,\n"
    "   \"absence_days\": 7},\n"
    "  {\"id\": \"H100-SXM.OD.A3\", \"method\": \"v3\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"], \"admission_days\": 3,\n"
    "   \"absence_days\": 3},\n"
    "  {\"id\": \"H100-PCIE.OD.A3\", \"method\": \"v3\", \"gpu\": [\"H100-PCIE-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"], \"admission_days\": 3,\n"
    "   \"absence_days\": 3},\n"
    "  {\"id\": \"H100-SXM.OD.A1\", \"method\": \"v3\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"], \"admission_days\": 1,\n"
    "   \"absence_days\": 1}\n"
    "]}\n";

static int setup(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        printf("skip: /usr/bin/python3 is not installed (tools/deps.sh installs it)\n");
        return 0;
    }
    if (!tu_real_data()) return 0;
    tmp = tu_mkdtemp("e2e-attack-bounds");
    free(tu_write(tmp, "g.json", grades_json));
    tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tools/attack_suite.py' --bin \"$GPUIDX_BIN\" "
                          "--grades g.json --gpu-filter H100 --work work --bounds",
                     tu_srcdir());
    status = r.status;
    out_text = strdup(r.out);
    if (status != 0 && status != 1) fail_msg("attack_suite: exit %d\n%s%s", status, r.out, r.err);
    tu_run_free(&r);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (tmp) {
        tu_run r = tu_sh(tmp, "rm -rf work");
        tu_run_free(&r);
    }
    free(tmp);
    free(out_text);
    return 0;
}

static void test_figures_bound_the_suite(void **state)
{
    (void)state;
    if (!out_text) {
        skip();
        return;
    }
    if (status != 0 || !strstr(out_text, "every measured move is within its figure"))
        fail_msg("a measured move exceeds its published figure:\n%s", out_text);
    /* the shipped grades: nothing moves, and their figures are published */
    assert_non_null(strstr(out_text, "H100-SXM.OD: largest measured move 0.0000 USD"));
    assert_non_null(strstr(out_text, "H100-PCIE.OD: largest measured move 0.0000 USD"));
    /* the short discipline is moved, and the bound is reached to the tick */
    assert_non_null(strstr(out_text, "H100-SXM.OD.A3: largest measured move 0.4519 USD (new "
                                     "neocloud 2024-02-27..03-01, 2024-03)"));
    assert_non_null(strstr(out_text, "new 0.45182"));
    assert_non_null(strstr(out_text, "bound check: 226 (attack, grade, month) moves"));
    assert_non_null(strstr(out_text, "60 left out"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_bound_the_suite),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
