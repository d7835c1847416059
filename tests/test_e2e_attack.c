/* tests/test_e2e_attack.c -- issue 26's attack suite (tools/attack_suite.py)
 * on the real catalogue (../shared/data/real; skipped, with a message,
 * when it or /usr/bin/python3 is absent).
 *
 * The suite is run once, on the H100 rows of the catalogue (--gpu-filter
 * H100: the same figures as on the whole catalogue, checked when the tool
 * was written), for the H100 SXM on-demand grade as shipped before v3
 * (method v2) and its v1 twin, over the contracts 2024-01 .. 2024-04:
 *
 *  - the issue's figures, to the tick of the FSP: FluidStack absent on
 *    2024-02-27..03-01 raises the March v2 FSP from 5.2868 to 8.4900
 *    (+60.6 %), one new seller's 1000 USD offer on those days to 8.7884
 *    (+66.2 %); under v1 FluidStack absent on 03-01 moves March from
 *    5.4900 to 5.5934 (+1.9 %), the new seller on 03-01 to 5.6030
 *    (+2.1 %); RunPod relisting its H100 ids from 02-10 moves the v2
 *    February FSP from 12.2900 to 10.3245 (-16.0 %);
 *  - what must hold whatever the method: no attack moves January (every
 *    attack day is later), and relisting moves no v1 month (a v1 fix is
 *    of provider groups, blind to ids);
 *  - --limit 0.5 fails (exit 1) and names the months over it;
 *  - methodology v3 (the shipped grades' since issue 26, its defaults
 *    A = K = 7: H100-SXM.OD.V3): no attack moves any month's FSP at all,
 *    and --limit names none of its months.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;
static char *out_text, *csv_text;
static int status;

static const char grades_json[] =
    "{\"grades\": [\n"
    "  {\"id\": \"H100-SXM.OD\", \"method\": \"v2\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"]},\n"
    "  {\"id\": \"H100-SXM.OD.V1\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"]},\n"
    "  {\"id\": \"H100-SXM.OD.V3\", \"method\": \"v3\", \"gpu\": [\"H100-SXM-80GB\"],\n"
    "   \"term\": \"on-demand\", \"covers\": [\"instance\"]}\n"
    "]}\n";

static int setup(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        printf("skip: /usr/bin/python3 is not installed (tools/deps.sh installs it)\n");
        return 0;
    }
    if (!tu_real_data()) return 0;
    tmp = tu_mkdtemp("e2e-attack");
    free(tu_write(tmp, "g.json", grades_json));
    tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tools/attack_suite.py' --bin \"$GPUIDX_BIN\" "
                          "--grades g.json --gpu-filter H100 --work work --csv moves.csv "
                          "--limit 0.5 --limit-grades 'H100-SXM[.]OD.*'",
                     tu_srcdir());
    status = r.status;
    out_text = strdup(r.out);
    if (status != 0 && status != 1) fail_msg("attack_suite: exit %d\n%s%s", status, r.out, r.err);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/moves.csv", tmp);
    csv_text = tu_read(path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (tmp) {
        tu_run r = tu_sh(tmp, "rm -rf work moves.csv");
        tu_run_free(&r);
    }
    free(tmp);
    free(out_text);
    free(csv_text);
    return 0;
}

static int need_data(void)
{
    if (csv_text) return 1;
    skip();
    return 0;
}

/* The row "attack,grade,month,..." of moves.csv: FSP and attacked FSP
 * texts into base and hit; 0 when there is none. */
static int find(const char *attack, const char *grade, const char *month, char *base,
                char *hit)
{
    char key[256];
    snprintf(key, sizeof key, "\n%s,%s,%s,", attack, grade, month);
    const char *p = strstr(csv_text, key);
    if (!p) return 0;
    p += strlen(key);
    size_t n = strcspn(p, ",");
    snprintf(base, 16, "%.*s", (int)n, p);
    p += n + 1;
    n = strcspn(p, ",");
    snprintf(hit, 16, "%.*s", (int)n, p);
    return 1;
}

static void expect(const char *attack, const char *grade, const char *month, const char *base,
                   const char *hit)
{
    char b[16], h[16];
    if (!find(attack, grade, month, b, h)) fail_msg("no row %s %s %s", attack, grade, month);
    if (strcmp(b, base) != 0 || strcmp(h, hit) != 0)
        fail_msg("%s %s %s: FSP %s -> %s, want %s -> %s", attack, grade, month, b, h, base, hit);
}

static void test_the_issues_figures(void **state)
{
    (void)state;
    if (!need_data()) return;
    expect("absent 2024-02-27..03-01", "H100-SXM.OD", "2024-03", "5.2868", "8.4900");
    expect("new neocloud 2024-02-27..03-01", "H100-SXM.OD", "2024-03", "5.2868", "8.7884");
    expect("absent 2024-03-01", "H100-SXM.OD.V1", "2024-03", "5.4900", "5.5934");
    expect("new neocloud 2024-03-01", "H100-SXM.OD.V1", "2024-03", "5.4900", "5.6030");
    expect("relist 2024-02-10..", "H100-SXM.OD", "2024-02", "12.2900", "10.3245");
    /* the moves as the tool prints them */
    assert_non_null(strstr(csv_text, "absent 2024-02-27..03-01,H100-SXM.OD,2024-03,5.2868,"
                                     "8.4900,0.60588636\n"));
    assert_non_null(strstr(out_text, "H100-SXM.OD: +66.23 % (new neocloud 2024-02-27..03-01, "
                                     "2024-03)"));
}

static void test_what_holds_whatever_the_method(void **state)
{
    (void)state;
    if (!need_data()) return;
    long rows = 0, jan = 0, relist_v1 = 0, v3 = 0;
    for (const char *p = strchr(csv_text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *line = p + 1;
        size_t len = strcspn(line, "\n");
        char l[256];
        snprintf(l, sizeof l, "%.*s", (int)len, line);
        rows++;
        const char *mv = strrchr(l, ',') + 1;
        int zero = strcmp(mv, "0.00000000") == 0;
        if (strstr(l, ",2024-01,")) {
            jan++;
            if (!zero) fail_msg("January moved: %s", l);
        }
        if (strncmp(l, "relist", 6) == 0 && strstr(l, ",H100-SXM.OD.V1,")) {
            relist_v1++;
            if (!zero) fail_msg("relisting moved v1: %s", l);
        }
        if (strstr(l, ",H100-SXM.OD.V3,")) {
            v3++;
            if (!zero) fail_msg("an attack moved v3: %s", l);
        }
    }
    /* 3 grades x 4 months x 13 attacks (4 absences, 2 x 4 new sellers,
     * a relisting) */
    assert_int_equal(rows, 3 * 4 * 13);
    assert_int_equal(jan, 3 * 13);
    assert_int_equal(relist_v1, 4);
    assert_int_equal(v3, 4 * 13);
}

static void test_the_limit(void **state)
{
    (void)state;
    if (!need_data()) return;
    assert_int_equal(status, 1);
    assert_non_null(strstr(out_text, "over the limit (0.5 %): H100-SXM.OD 2024-03 absent "
                                     "2024-02-27..03-01: +60.59 %\n"));
    assert_non_null(strstr(out_text, "over the limit (0.5 %): H100-SXM.OD.V1 2024-02 new "
                                     "neocloud 2024-02-26..03-01: +6.47 %\n"));
    assert_null(strstr(out_text, "over the limit (0.5 %): H100-SXM.OD.V3 "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_issues_figures),
        cmocka_unit_test(test_what_holds_whatever_the_method),
        cmocka_unit_test(test_the_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
