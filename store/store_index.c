/* store/store_index.c -- index values and their publications.
 *
 * index_values holds the current (latest built) row of each grade-day;
 * index_published holds every published vintage of a grade-day's value.
 * Settlement reads "as first published" (vintage 1) where a day was
 * published, else the stored value (SPEC §8).
 */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SX_PUT_ROW = 0, SX_PUT_PUB, SX_SERIES_FIRST, SX_SERIES_LATEST, SX_ROWS_ALL, SX_ROWS_ONE,
    SX_GRADE_EXISTS
};

static const char *const sql_put_row =
    "INSERT OR REPLACE INTO index_values(grade, day, level, value_e4, n_obs, n_excluded,"
    " n_providers, trade_volume_e2, adjustment_e6, p10_micro, p25_micro, p50_micro,"
    " p75_micro, p90_micro, min_micro, max_micro, top_share_e6, methodology)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

static void bind_opt(sqlite3_stmt *s, int i, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int64(s, i, v);
}

static int64_t col_opt(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, i);
}

gpi_status store_index_put_row(store *st, const store_index_row *r, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, SX_PUT_ROW, sql_put_row, d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, r->grade, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, r->day);
    sqlite3_bind_int(s, 3, r->level);
    bind_opt(s, 4, r->level == GPI_LEVEL_SUSPENDED ? -1 : r->value_e4);
    sqlite3_bind_int64(s, 5, r->n_obs);
    sqlite3_bind_int64(s, 6, r->n_excluded);
    sqlite3_bind_int64(s, 7, r->n_providers);
    sqlite3_bind_int64(s, 8, r->trade_volume_e2);
    bind_opt(s, 9, r->adjustment_e6);
    bind_opt(s, 10, r->p10_micro);
    bind_opt(s, 11, r->p25_micro);
    bind_opt(s, 12, r->p50_micro);
    bind_opt(s, 13, r->p75_micro);
    bind_opt(s, 14, r->p90_micro);
    bind_opt(s, 15, r->min_micro);
    bind_opt(s, 16, r->max_micro);
    bind_opt(s, 17, r->top_share_e6);
    sqlite3_bind_text(s, 18, r->methodology, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "storing index row");
}

gpi_status store_index_put_published(store *st, const char *grade, int32_t day, int vintage,
                                     int level, int64_t value_e4, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, SX_PUT_PUB,
                                 "INSERT OR REPLACE INTO index_published(grade, day, vintage,"
                                 " level, value_e4) VALUES (?1, ?2, ?3, ?4, ?5)",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, grade, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, day);
    sqlite3_bind_int(s, 3, vintage);
    sqlite3_bind_int(s, 4, level);
    bind_opt(s, 5, level == GPI_LEVEL_SUSPENDED ? -1 : value_e4);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "storing published value");
}

gpi_status store_index_series(store *st, const char *grade, int32_t from, int32_t to,
                              int latest, store_index_day **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s =
        latest ? store_stmt(st, SX_SERIES_LATEST,
                            "SELECT day, level, value_e4 FROM index_values"
                            " WHERE grade = ?1 AND day BETWEEN ?2 AND ?3 ORDER BY day",
                            d)
               : store_stmt(st, SX_SERIES_FIRST,
                            "SELECT v.day, coalesce(p.level, v.level),"
                            " CASE WHEN p.level IS NULL THEN v.value_e4 ELSE p.value_e4 END"
                            " FROM index_values v LEFT JOIN index_published p"
                            " ON p.grade = v.grade AND p.day = v.day AND p.vintage = 1"
                            " WHERE v.grade = ?1 AND v.day BETWEEN ?2 AND ?3 ORDER BY v.day",
                            d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, grade, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, from);
    sqlite3_bind_int64(s, 3, to);
    size_t cap = 0;
    store_index_day *v = NULL;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            store_index_day *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                free(v);
                sqlite3_reset(s);
                *n = 0;
                return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
            }
            v = nv;
        }
        v[*n].day = (int32_t)sqlite3_column_int64(s, 0);
        v[*n].level = sqlite3_column_int(s, 1);
        v[*n].value_e4 = col_opt(s, 2);
        if (v[*n].value_e4 < 0) v[*n].level = GPI_LEVEL_SUSPENDED;
        (*n)++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        free(v);
        *n = 0;
        return store_err(st, d, "reading index series");
    }
    *out = v;
    return GPI_OK;
}

static const char *const rows_cols =
    "SELECT v.day, v.grade, v.level, v.value_e4, v.n_obs, v.n_excluded, v.n_providers,"
    " v.trade_volume_e2, v.adjustment_e6, v.p10_micro, v.p25_micro, v.p50_micro,"
    " v.p75_micro, v.p90_micro, v.min_micro, v.max_micro, v.top_share_e6, v.methodology,"
    " (SELECT max(vintage) FROM index_published p WHERE p.grade = v.grade AND p.day = v.day)"
    " FROM index_values v ";

gpi_status store_index_rows(store *st, const char *grade, int32_t from, int32_t to,
                            store_index_row_fn fn, void *ud, gpi_diag *d)
{
    char sql[1024];
    sqlite3_stmt *s;
    if (grade) {
        snprintf(sql, sizeof sql, "%s%s", rows_cols,
                 "WHERE v.grade = ?3 AND v.day BETWEEN ?1 AND ?2 ORDER BY v.day");
        s = store_stmt(st, SX_ROWS_ONE, sql, d);
    } else {
        snprintf(sql, sizeof sql, "%s%s", rows_cols,
                 "WHERE v.day BETWEEN ?1 AND ?2 ORDER BY v.day, v.grade");
        s = store_stmt(st, SX_ROWS_ALL, sql, d);
    }
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    if (grade) sqlite3_bind_text(s, 3, grade, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_index_row r;
        memset(&r, 0, sizeof r);
        r.day = (int32_t)sqlite3_column_int64(s, 0);
        const char *g = (const char *)sqlite3_column_text(s, 1);
        snprintf(r.grade, sizeof r.grade, "%s", g ? g : "");
        r.level = sqlite3_column_int(s, 2);
        r.value_e4 = col_opt(s, 3);
        r.n_obs = (long)sqlite3_column_int64(s, 4);
        r.n_excluded = (long)sqlite3_column_int64(s, 5);
        r.n_providers = (long)sqlite3_column_int64(s, 6);
        r.trade_volume_e2 = sqlite3_column_int64(s, 7);
        r.adjustment_e6 = col_opt(s, 8);
        r.p10_micro = col_opt(s, 9);
        r.p25_micro = col_opt(s, 10);
        r.p50_micro = col_opt(s, 11);
        r.p75_micro = col_opt(s, 12);
        r.p90_micro = col_opt(s, 13);
        r.min_micro = col_opt(s, 14);
        r.max_micro = col_opt(s, 15);
        r.top_share_e6 = col_opt(s, 16);
        const char *m = (const char *)sqlite3_column_text(s, 17);
        snprintf(r.methodology, sizeof r.methodology, "%s", m ? m : "");
        r.vintage = sqlite3_column_int(s, 18);
        if (fn(&r, ud)) break;
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "reading index rows");
}

gpi_status store_grade_exists(store *st, const char *grade, int *exists, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, SX_GRADE_EXISTS,
                                 "SELECT 1 FROM index_values WHERE grade = ?1 LIMIT 1", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, grade, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    *exists = rc == SQLITE_ROW;
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "finding grade");
}
