/* tests/hedge_e2e.h -- the scratch database of the `gpuidx hedge` end to
 * end tests (tests/test_e2e_hedge.c, tests/test_e2e_hedge_privacy.c): two
 * grades over 2024 stored with store_index_put_row (the index module is
 * not needed), the §6 monthly rent, and a JSON number getter. */
#ifndef GPI_TESTS_HEDGE_E2E_H
#define GPI_TESTS_HEDGE_E2E_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/index_values.h"
#include "store/grades.h"
#include "tests/testutil.h"

#define GRADE "H100-SXM.OD.GOLD+"
#define GRADE2 "A100-SXM.OD.SILVER+"

static const double vec_index[12] = {2.95, 2.88, 2.80, 2.74, 2.70, 2.62,
                                     2.55, 2.58, 2.49, 2.41, 2.38, 2.30};
static const double vec_rent[12] = {2.71, 2.67, 2.58, 2.55, 2.49, 2.45,
                                    2.36, 2.40, 2.33, 2.24, 2.23, 2.13};

typedef struct fixture {
    char *dir, *db, *rent;
} fixture;

/* Grade 1: every day of 2024 at its month's §6 value; grade 2 the same
 * with +0.05 / -0.03 on alternate months (a worse hedge). */
static inline void put_index(const char *db)
{
    store *st;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int g = 0; g < 2; g++)
        for (int m = 0; m < 12; m++)
            for (int k = 0; k < gpi_month_days(2024, m + 1); k++) {
                store_index_row r;
                memset(&r, 0, sizeof r);
                snprintf(r.grade, sizeof r.grade, "%s", g ? GRADE2 : GRADE);
                snprintf(r.methodology, sizeof r.methodology, "v1");
                r.day = gpi_days_from_civil(2024, m + 1, 1) + k;
                r.level = GPI_LEVEL_TRADES;
                r.value_e4 = (int64_t)llround(vec_index[m] * 1e4) + (g ? (m % 2 ? 500 : -300) : 0);
                r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = -1;
                r.p90_micro = r.min_micro = r.max_micro = r.top_share_e6 = -1;
                if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put: %s", d.msg);
            }
    /* registered as a build registers them (grades list, did-you-mean) */
    for (int g = 0; g < 2; g++) {
        int conflict = 0;
        char stored[65];
        if (store_grade_register(st, g ? GRADE2 : GRADE, 1, g ? "h2" : "h1", "{}", 0, &conflict,
                                 stored, &d) != GPI_OK)
            fail_msg("register: %s", d.msg);
    }
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
}

static inline void setup(fixture *f, const char *tag)
{
    f->dir = tu_mkdtemp(tag);
    size_t n = strlen(f->dir) + 16;
    f->db = malloc(n);
    snprintf(f->db, n, "%s/idx.db", f->dir);
    put_index(f->db);
    char csv[2048] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-15,%.2f,720000\n", m + 1,
                 vec_rent[m]);
    f->rent = tu_write(f->dir, "rent.csv", csv);
}

static inline void teardown(fixture *f)
{
    free(f->dir);
    free(f->db);
    free(f->rent);
}

static inline double jnum(json_t *o, const char *path)
{
    /* path "a" or "a.b" */
    char key[64];
    snprintf(key, sizeof key, "%s", path);
    char *dot = strchr(key, '.');
    if (dot) {
        *dot = '\0';
        o = json_object_get(o, key);
        return jnum(o, dot + 1);
    }
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s: not a number", path);
    return json_number_value(v);
}

#endif
