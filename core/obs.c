/* core/obs.c -- the profile of an observation (core/obs.h): the one list
 * of what the store keeps once for the rows that share it, so that the
 * store (store_obs_put) and a producer numbering profiles (ingest/pipe.c)
 * cannot disagree on it.
 */
#include "core/obs.h"

void gpi_obs_profile(const gpi_obs *o, const char *text[GPI_PROFILE_TEXTS],
                     int32_t ints[GPI_PROFILE_INTS])
{
    /* the order of store/internal.h's STORE_P_* */
    text[0] = o->gpu;
    text[1] = o->provider;
    text[2] = o->group;
    text[3] = o->segment;
    text[4] = o->region ? o->region : "";
    text[5] = o->source;
    text[6] = o->raw_gpu;
    text[7] = o->raw_provider;
    text[8] = o->currency;
    text[9] = o->sku;
    text[10] = o->correction;
    /* what store.c packs into attrs, and the gpu count */
    ints[0] = o->kind;
    ints[1] = o->scope;
    ints[2] = o->tier;
    ints[3] = o->term;
    ints[4] = o->status;
    ints[5] = o->unit;
    ints[6] = o->term_months;
    ints[7] = o->covers;
    ints[8] = o->tier_given;
    ints[9] = o->status_given;
    ints[10] = o->gpu_count;
}
