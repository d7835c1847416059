/* fuzz/fuzz_v3_state.c -- the methodology v3 states a build stores
 * (index/v3_state.c), read back from whatever bytes the database holds:
 * decoding never reads past the bytes or allocates by an unchecked count,
 * and a state that decodes encodes to bytes that decode and encode to
 * themselves (the seed corpus holds states of the demo market's grades, state format 4). */
#include "fuzz/fuzz.h"

#include "index/index.h"
#include "index/v3.h"

static idx_grades *gs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpi_diag d = {{0}};
    /* the parameters of the demo's published grades */
    if (idx_grades_parse("{\"grades\": [{\"id\": \"F\", \"gpu\": \"H100-SXM-80GB\","
                         " \"method\": \"v3\", \"admission_days\": 7, \"absence_days\": 7}]}",
                         "f.json", NULL, IDX_TRUST_GPUS, &gs, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        abort();
    }
    return 0;
}

/* decode(p) into a fresh state and encode it again; 1 when it decoded */
static int round_trip(const uint8_t *p, size_t n, unsigned char **out, size_t *out_n)
{
    idx_v3 *s = idx_v3_new(&gs->g[0]);
    gpi_diag d = {{0}};
    if (!s) abort();
    gpi_status rc = idx_v3_decode(s, p, n, &d);
    if (rc != GPI_OK && !d.msg[0]) abort();
    int ok = rc == GPI_OK;
    if (ok && idx_v3_encode(s, out, out_n, &d) != GPI_OK) abort();
    idx_v3_free(s);
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
