/* tests/test_e2e_hedge_privacy.c -- the rent history is private (SPEC §9):
 * after `hedge analyze`, `simulate` and `compare --suggest` the database is
 * byte for byte what it was, and neither it (nor its journal files) nor
 * any file written holds the rent's prices, quantities or description, as
 * text, integers or doubles; and privacy by types: hedge/ has no store
 * handle, so none of its objects refers to the store or SQLite and no
 * hedge source includes a store header.  Through the real binary.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "tests/hedge_e2e.h"

static char *read_bytes(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    *n = 0;
    if (!fp) return NULL;
    char *b = NULL;
    size_t cap = 0, k;
    char chunk[65536];
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (GPI_VEC_RESERVE(b, cap, *n + k) != 0) fail_msg("out of memory");
        memcpy(b + *n, chunk, k);
        *n += k;
    }
    fclose(fp);
    return b;
}

static int contains(const char *b, size_t n, const void *needle, size_t len)
{
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(b + i, needle, len) == 0) return 1;
    return 0;
}

static void assert_absent(const char *path, const void *needle, size_t len, const char *what)
{
    size_t n;
    char *b = read_bytes(path, &n);
    if (!b) return;
    if (contains(b, n, needle, len)) fail_msg("%s found in %s", what, path);
    free(b);
}

static void test_privacy_rent_never_stored(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-priv");
    char csv[2048] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-15,%s,%d\n", m + 1,
                 m == 4 ? "2.7137" : m % 2 ? "2.6151" : "2.5183", 31337 + m);
    char *rent = tu_write(f.dir, "private-rent.csv", csv);
    size_t n0;
    char *db0 = read_bytes(f.db, &n0);
    assert_non_null(db0);
    tu_run r = tu_gpuidx(f.dir, "--db '%s' hedge analyze --rent '%s' --grade %s --svg chart.svg",
                         f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(f.dir, "--db '%s' hedge simulate --rent '%s' --grade %s --json", f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    /* grades built around the rent are computed, not stored */
    r = tu_gpuidx(f.dir, "--db '%s' hedge compare --rent '%s' --grade %s --suggest --gpu H100 "
                         "--provider Rentco --region private-zone-7",
                  f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    /* the database is byte for byte what it was */
    size_t n1;
    char *db1 = read_bytes(f.db, &n1);
    assert_non_null(db1);
    assert_int_equal(n1, n0);
    assert_memory_equal(db1, db0, n0);
    free(db0);
    free(db1);
    /* the database (and its WAL / journal files) and every other file in
     * the scratch directory but the rent file itself: no rent price as
     * text, as micro-USD integer or as a double, no quantity */
    const int64_t micro = 2713700;
    const double dv = 2.7137;
    const char *files[] = {"idx.db", "idx.db-wal", "idx.db-shm", "idx.db-journal", "idx.db.lock",
                           "chart.svg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", f.dir, files[i]);
        assert_absent(p, "2.7137", 6, "price text");
        assert_absent(p, "27137", 5, "price digits");
        assert_absent(p, "31337", 5, "quantity digits");
        assert_absent(p, "Rentco", 6, "the rent's provider");
        assert_absent(p, "private-zone-7", 14, "the rent's region");
        assert_absent(p, &micro, sizeof micro, "price as micro-USD");
        assert_absent(p, &dv, sizeof dv, "price as double");
    }
    tu_run ls = tu_sh(f.dir, "ls -A");
    /* idx.db.lock: the writers' lock file, empty (store/store.c note 6) */
    assert_string_equal(ls.out, "chart.svg\nidx.db\nidx.db.lock\nprivate-rent.csv\nrent.csv\n");
    tu_run_free(&ls);
    /* the rent file was not modified either */
    char *back = tu_read(rent);
    assert_string_equal(back, csv);
    free(back);
    free(rent);
    teardown(&f);
}

/* Privacy by types: hedge/ gets the index as data and has no store
 * handle, so none of its objects can refer to the store or to SQLite.
 * Checked on the objects the binary under test was built from. */
static void test_privacy_by_types(void **state)
{
    (void)state;
    const char *bin = getenv("GPUIDX_BIN");
    assert_non_null(bin);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", bin);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0';
    /* the objects are there and nm reads them: simulate.o settles at
     * settlement's FSP, the one FSP rule */
    tu_run r = tu_sh(NULL, "nm -u '%s'/hedge/simulate.o", dir);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "settle_fsp"));
    tu_run_free(&r);
    r = tu_sh(NULL, "ls '%s'/hedge/*.o | wc -l; nm -u '%s'/hedge/*.o | grep -E ' (store_|sqlite3_)' "
                    "|| true",
              dir, dir);
    assert_int_equal(r.status, 0);
    if (atoi(r.out) < 8) fail_msg("hedge objects: %s", r.out);
    if (strchr(r.out, '\n') != strrchr(r.out, '\n'))
        fail_msg("hedge/ refers to the store: %s", strchr(r.out, '\n') + 1);
    tu_run_free(&r);
    /* and no hedge source includes a store header, directly or through
     * another header (settlement/settlement.h once brought store.h in) */
    r = tu_sh(GPUIDX_SRCDIR, "grep -l 'include \"store/' hedge/*.c hedge/*.h || true");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    r = tu_sh(GPUIDX_SRCDIR, "for f in hedge/*.c; do ${CC:-cc} -I. -MM \"$f\" || echo FAIL; done "
                             "| tr ' \\\\' '\\n\\n' | grep -E '^(store/|FAIL)' | sort -u || true");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_privacy_rent_never_stored),
        cmocka_unit_test(test_privacy_by_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
