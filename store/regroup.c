/* store/regroup.c -- stored rows moved to their provider's group after
 * providers.csv changed (`gpuidx ingest --regroup`; issue 31: after an
 * alias was added, one seller counted as two provider groups until every
 * file was ingested again).
 *
 * NOTES ON THE DESIGN
 * (1) Provider, group and segment are a row's profile (profiles.c), found
 *     from the raw provider name as written (kept in the profile) through
 *     providers.csv at ingest.  Regrouping asks the caller what the raw
 *     name resolves to now; a profile whose provider, group or segment
 *     differ gets the profile with the new ones (found or added: profiles
 *     are never changed, profiles.c note 2), and its rows move to it in
 *     one pass over the observations (a temporary map of old to new
 *     profile).  Keys do not move: the identity of a row without an id
 *     takes the provider as written (core/ident.c note 1).
 * (2) It is one transaction, recorded as a batch ("regroup", no file) whose
 *     first and last day are those of the rows moved: builds and
 *     publications see it as they see late data (publish/late.c, the chain
 *     states' test of store/chain_states.h), so the days it changed are
 *     built again and named.  Nothing to move: nothing is recorded.
 * (3) What the tables gave per row is not revisited: a row's tier
 *     (tiers.csv, by provider and day) and a trade's affiliate status keep
 *     the values they were ingested with.
 */
#include "store/internal.h"
#include "core/vec.h"
#include "store/batches.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct moved {
    int64_t old_id, new_id;
} moved;

typedef struct collect_ctx {
    store_profile *v;
    int64_t *id;
    size_t n, cap;
    int oom;
} collect_ctx;

static int collect(const store_profile *p, void *ud)
{
    collect_ctx *c = ud;
    if (GPI_VEC_RESERVE(c->v, c->cap, c->n + 1) != 0) {
        c->oom = 1;
        return 1;
    }
    c->v[c->n++] = *p;
    return 0;
}

static gpi_status exec(store *st, const char *sql, gpi_diag *d)
{
    return sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK ? GPI_OK
                                                                     : store_err(st, d, "regrouping");
}

gpi_status store_obs_regroup(store *st, const store_batch_info *info, store_regroup_fn fn,
                             void *ud, store_regroup_result *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    int64_t batch = 0;
    gpi_status rc = store_batch_begin(st, info, &batch, d);
    if (rc != GPI_OK) return rc;
    collect_ctx c = {0};
    rc = store_profiles_each(st, collect, &c, d);
    if (rc == GPI_OK && c.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    /* the profiles' ids: profiles.c keeps them dense, v[id] in id order */
    moved *mv = NULL;
    size_t n_mv = 0, cap_mv = 0;
    size_t k = 0;
    for (int64_t id = 1; rc == GPI_OK && k < c.n; id++) {
        store_profile *p = store_profile_get(st, id);
        if (!p) continue;
        store_profile old = *p;
        k++;
        const char *raw = store_name_text(st, old.name[STORE_P_RAW_PROVIDER]);
        const char *prov = NULL, *grp = NULL, *seg = NULL;
        if (!raw || !fn(ud, raw, &prov, &grp, &seg)) continue;
        int64_t ids[3];
        const char *text[3] = {prov, grp, seg};
        for (int i = 0; i < 3 && rc == GPI_OK; i++) rc = store_name_id(st, text[i], &ids[i], d);
        if (rc != GPI_OK) break;
        if (ids[0] == old.name[STORE_P_PROVIDER] && ids[1] == old.name[STORE_P_GRP] &&
            ids[2] == old.name[STORE_P_SEGMENT])
            continue;
        store_profile np = old;
        np.name[STORE_P_PROVIDER] = (int32_t)ids[0];
        np.name[STORE_P_GRP] = (int32_t)ids[1];
        np.name[STORE_P_SEGMENT] = (int32_t)ids[2];
        int64_t nid = 0;
        rc = store_profile_id(st, &np, &nid, d);
        if (rc == GPI_OK && GPI_VEC_RESERVE(mv, cap_mv, n_mv + 1) != 0)
            rc = gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
        if (rc == GPI_OK) mv[n_mv++] = (moved){id, nid};
    }
    free(c.v);
    if (rc == GPI_OK && n_mv) {
        rc = exec(st, "CREATE TEMP TABLE IF NOT EXISTS regroup_map(old INTEGER PRIMARY KEY,"
                      " new INTEGER NOT NULL); DELETE FROM temp.regroup_map", d);
        sqlite3_stmt *s = NULL;
        if (rc == GPI_OK &&
            sqlite3_prepare_v2(st->db, "INSERT INTO temp.regroup_map(old, new) VALUES (?1, ?2)",
                               -1, &s, NULL) != SQLITE_OK)
            rc = store_err(st, d, "regrouping");
        for (size_t i = 0; i < n_mv && rc == GPI_OK; i++) {
            sqlite3_bind_int64(s, 1, mv[i].old_id);
            sqlite3_bind_int64(s, 2, mv[i].new_id);
            if (sqlite3_step(s) != SQLITE_DONE) rc = store_err(st, d, "regrouping");
            sqlite3_reset(s);
        }
        sqlite3_finalize(s);
        s = NULL;
        if (rc == GPI_OK &&
            sqlite3_prepare_v2(st->db, "SELECT count(*), min(day), max(day) FROM observations"
                                       " WHERE profile IN (SELECT old FROM temp.regroup_map)",
                               -1, &s, NULL) != SQLITE_OK)
            rc = store_err(st, d, "regrouping");
        if (rc == GPI_OK && sqlite3_step(s) == SQLITE_ROW) {
            out->rows = sqlite3_column_int64(s, 0);
            out->first_day = (int32_t)sqlite3_column_int64(s, 1);
            out->last_day = (int32_t)sqlite3_column_int64(s, 2);
        }
        sqlite3_finalize(s);
        if (rc == GPI_OK)
            rc = exec(st, "UPDATE observations SET profile = (SELECT new FROM temp.regroup_map m"
                          " WHERE m.old = observations.profile)"
                          " WHERE profile IN (SELECT old FROM temp.regroup_map)", d);
        /* the rows' new profiles are stored ones now (profiles.c note 6) */
        for (size_t i = 0; i < n_mv && rc == GPI_OK; i++)
            rc = store_profile_noted(st, mv[i].new_id, d);
        if (rc == GPI_OK) rc = exec(st, "DROP TABLE temp.regroup_map", d);
    }
    free(mv);
    if (rc != GPI_OK || out->rows == 0) { /* note 2: nothing moved, nothing recorded */
        store_batch_rollback(st);
        if (rc == GPI_OK) out->profiles = 0;
        return rc;
    }
    out->profiles = (long)n_mv;
    out->batch = batch;
    st->batch_min_day = out->first_day;
    st->batch_max_day = out->last_day;
    store_batch_counts n = {out->rows, out->rows, 0, 0};
    char sha[65];
    snprintf(sha, sizeof sha, "regroup-%lld", (long long)batch);
    rc = store_batch_set_sha256(st, batch, sha, 0, d);
    if (rc == GPI_OK) rc = store_batch_commit(st, batch, &n, info->ingested_at, d);
    else store_batch_rollback(st);
    return rc;
}
