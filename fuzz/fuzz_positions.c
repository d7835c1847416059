/* fuzz/fuzz_positions.c -- positions files (settlement/ledger.c): the
 * bounded CSV reader, header, accounts, signed contracts, entry prices in
 * whole ticks, duplicates; against the shipped contracts.  Loaded
 * positions then get a ledger on a made-up settlement. */
#include "fuzz/fuzz.h"

#include "settlement/settlement.h"

static settle_contract *cs;
static size_t nc;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char path[600];
    snprintf(path, sizeof path, "%s/contracts.json", fuzz_data_dir());
    gpi_diag d = {{0}};
    if (settle_contracts_load(path, NULL, NULL, &cs, &nc, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("p.csv", data, size);
    settle_position *pos = NULL;
    size_t np = 0;
    gpi_diag d = {{0}};
    gpi_status rc = settle_positions_load(path, cs, nc, &pos, &np, &d);
    if (rc != GPI_OK && !d.msg[0]) abort();
    if (rc != GPI_OK) return 0;
    for (size_t i = 0; i < np; i++) {
        if (pos[i].contract >= nc || pos[i].contracts == 0) abort();
        const settle_contract *c = &cs[pos[i].contract];
        settle_price rows[3] = {{settle_listing_day(c), SETTLE_DAILY, 24000, 0},
                                {settle_listing_day(c) + 1, SETTLE_DAILY, 24100, 0},
                                {settle_last_day(c), SETTLE_FINAL, 23900, 0}};
        settle_result r = {rows, 3, 1, 0, 20};
        settle_ledger_row *lr = NULL;
        size_t nr = 0;
        int64_t entry;
        if (settle_ledger(c, &r, &pos[i], &lr, &nr, &entry, &d) == GPI_OK) free(lr);
    }
    free(pos);
    return 0;
}
