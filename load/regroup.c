/* load/regroup.c -- the stored rows moved to the provider groups of the
 * current providers.csv (`gpuidx ingest --regroup`; the protocol is
 * store/regroup.c's: one transaction, recorded as a batch): each raw
 * provider name is resolved as ingest resolves it (ingest/tables.c), and
 * a name providers.csv does not list keeps its rows where they are (they
 * were admitted as their own group, or rejected). */
#include "load/load.h"
#include "store/batches.h"

#include <string.h>
#include <time.h>

typedef struct resolve_ctx {
    const ingest_tables *t;
    char buf[256];
} resolve_ctx;

static int resolve(void *ud, const char *raw, const char **provider, const char **group,
                   const char **segment)
{
    resolve_ctx *c = ud;
    return ingest_provider_resolve(c->t, raw, c->buf, sizeof c->buf, provider, group, segment) == 1;
}

gpi_status load_regroup(store *st, const ingest_tables *t, store_regroup_result *out, gpi_diag *d)
{
    resolve_ctx c = {t, ""};
    store_batch_info info = {"regroup (providers.csv)", "pending", NULL, NULL,
                             ingest_tables_sha256(t), (int64_t)time(NULL), -1, NULL};
    return store_obs_regroup(st, &info, resolve, &c, out, d);
}
