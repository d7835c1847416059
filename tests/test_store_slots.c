/* tests/test_store_slots.c -- the store's extra statement slots (store.c,
 * store_stmt): a slot prepared with one query refuses another, naming
 * both, so two files that took the same slot number fail at once instead
 * of running each other's query (one did: a vintage's signature read the
 * chain states' first day); the same text from another buffer (a query
 * written into a local array, as store_index_rows does) is the same query.
 * A caller passing text at the address it passed last time is taken to
 * pass the same query unread (string literals, static tables): the texts
 * here each live at an address of their own. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/testing.h"
#include "tests/store_helpers.h"

typedef struct step {
    int slot;
    const char *sql;
    gpi_status want;
    const char *msg; /* the error's text, "" when none */
} step;

static void test_a_slot_holds_one_query(void **state)
{
    (void)state;
    static const step steps[] = {
        {10, "SELECT 1", GPI_OK, ""},
        {10, "SELECT 1", GPI_OK, ""}, /* again, copied into another buffer below */
        {10, "SELECT 2", GPI_ESTORE,
         "store: statement slot 10 holds another query (\"SELECT 1\"), not \"SELECT 2\""},
        {11, "SELECT 2", GPI_OK, ""},
        {10, "SELECT 1", GPI_OK, ""}, /* the slot is still the first query's */
        {80, "SELECT 1", GPI_ESTORE, "store: statement slot 80 out of range"},
        /* store_count's slot (the last), taken by the count of batches */
        {79, "SELECT count(*) FROM observations", GPI_ESTORE,
         "store: statement slot 79 holds another query (\"SELECT count(*) FROM batches\"), "
         "not \"SELECT count(*) FROM observations\""},
    };
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    long n = -1;
    assert_int_equal(store_count(st, "batches", &n, &d), GPI_OK);
    assert_int_equal(n, 0);
    enum { N = sizeof steps / sizeof steps[0] };
    char *copy[N]; /* each step's text at an address of its own, alive throughout */
    for (size_t i = 0; i < N; i++) {
        copy[i] = strdup(steps[i].sql);
        memset(&d, 0, sizeof d);
        gpi_status rc = store_testing_slot(st, steps[i].slot, copy[i], &d);
        if (rc != steps[i].want || strcmp(d.msg, steps[i].msg) != 0)
            fail_msg("step %zu: rc %d, \"%s\"; want %d, \"%s\"", i, rc, d.msg, steps[i].want,
                     steps[i].msg);
    }
    for (size_t i = 0; i < N; i++) free(copy[i]);
    store_close(st);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_slot_holds_one_query),
    };
    return cmocka_run_group_tests_name("store_slots", tests, NULL, NULL);
}
