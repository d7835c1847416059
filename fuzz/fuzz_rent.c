/* fuzz/fuzz_rent.c -- the hedge analyzer's rent histories and forward
 * prices (hedge/rent.c): CSV date,price[,quantity] and month,price. */
#include "fuzz/fuzz.h"

#include "hedge/hedge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const char *path = fuzz_file("r.csv", data + 1, size - 1);
    gpi_diag d = {{0}};
    if (data[0] & 1) {
        hedge_forward f;
        memset(&f, 0, sizeof f);
        gpi_status rc = hedge_forward_load(path, &f, &d);
        if (rc != GPI_OK && !d.msg[0]) abort();
        if (rc == GPI_OK) hedge_forward_free(&f);
    } else {
        hedge_rent r;
        memset(&r, 0, sizeof r);
        gpi_status rc = hedge_rent_load(path, &r, &d);
        if (rc != GPI_OK && !d.msg[0]) abort();
        if (rc == GPI_OK) {
            for (size_t i = 1; i < r.n; i++)
                if (r.rows[i].day <= r.rows[i - 1].day) abort(); /* sorted, one a day */
            hedge_rent_free(&r);
        }
    }
    return 0;
}
