/* fuzz/fuzz_contracts.c -- contract files (settlement/contract.c): JSON,
 * exact ticks, ranges, the line scanner of the error messages.  A
 * contract that loads has whole-cent ticks and settles a made-up series
 * (settle_run) without a sanitizer report. */
#include "fuzz/fuzz.h"

#include "settlement/settlement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("c.json", data, size);
    settle_contract *cs = NULL;
    size_t n = 0;
    gpi_diag d = {{0}};
    gpi_status rc = settle_contracts_load(path, NULL, NULL, &cs, &n, &d);
    if (rc != GPI_OK && !d.msg[0]) abort();
    if (rc != GPI_OK) return 0;
    if (n == 0 || !cs) abort();
    for (size_t i = 0; i < n; i++) {
        if (cs[i].tick.mant <= 0 || cs[i].tick_cents <= 0 || cs[i].line < 1) abort();
        /* a series from 40 days before the listing to the month's end */
        int32_t from = settle_listing_day(&cs[i]) - 40, to = settle_last_day(&cs[i]);
        size_t m = (size_t)(to - from + 1);
        store_index_day *v = calloc(m, sizeof *v);
        if (!v) abort();
        for (size_t k = 0; k < m; k++) {
            v[k].day = from + (int32_t)k;
            v[k].level = k % 5 == 4 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES;
            v[k].value_e4 = k % 5 == 4 ? -1 : 20000 + (int64_t)(k * 37 % 5000);
        }
        settle_result r;
        if (settle_run(&cs[i], v, m, to, &r, &d) == GPI_OK) settle_result_free(&r);
        free(v);
    }
    free(cs);
    return 0;
}
