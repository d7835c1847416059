/* fuzz/fuzz_chain_state.c -- the v2 chain states a build stores
 * (index/chain_state.c), read back from whatever bytes the database holds:
 * decoding never reads past the bytes or allocates by an unchecked count,
 * and a state that decodes encodes to bytes that decode and encode to
 * themselves (the seed corpus holds states of the demo market's grades). */
#include "fuzz/fuzz.h"

#include "index/chain.h"

static idx_grades *gs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpi_diag d = {{0}};
    /* the default anchor_days, as the demo's published grades */
    if (idx_grades_parse("{\"grades\": [{\"id\": \"F\", \"gpu\": \"H100-SXM-80GB\","
                         " \"method\": \"v2\"}]}",
                         "f.json", NULL, IDX_TRUST_GPUS, &gs, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        abort();
    }
    return 0;
}

/* decode(p) into a fresh chain and encode it again; 1 when it decoded */
static int round_trip(const uint8_t *p, size_t n, unsigned char **out, size_t *out_n)
{
    idx_chain c;
    gpi_diag d = {{0}};
    if (idx_chain_init(&c, &gs->g[0]) != GPI_OK) abort();
    gpi_status rc = idx_chain_decode(&c, p, n, &d);
    if (rc != GPI_OK && !d.msg[0]) abort();
    int ok = rc == GPI_OK;
    if (ok && idx_chain_encode(&c, out, out_n, &d) != GPI_OK) abort();
    idx_chain_free(&c);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *e1 = NULL, *e2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (round_trip(data, size, &e1, &n1)) {
        if (!round_trip(e1, n1, &e2, &n2) || n1 != n2 || memcmp(e1, e2, n1) != 0) {
            fprintf(stderr, "a decoded state does not encode to itself\n");
            abort();
        }
    }
    free(e1);
    free(e2);
    return 0;
}
