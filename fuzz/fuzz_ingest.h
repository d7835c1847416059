/* fuzz/fuzz_ingest.h -- one input through ingest_file (source, CSV or
 * JSON, normalization, hygiene) with the shipped tables; shared by
 * fuzz_ingest_csv.c and fuzz_ingest_json.c.  The rows are counted and
 * dropped; the first input byte picks the kind (offers, trades, or the
 * file's kind column), whether unknown providers are admitted, and one
 * thread or two (ingest/pipe.c). */
#ifndef GPI_FUZZ_INGEST_H
#define GPI_FUZZ_INGEST_H

#include "fuzz/fuzz.h"

#include "ingest/ingest.h"

static ingest_tables *tables;

static int on_obs(void *ud, const gpi_obs *o, const char *raw)
{
    (void)o;
    (void)raw;
    ++*(long *)ud;
    return 0;
}

static int on_reject(void *ud, long line, const char *col, const char *raw, const char *msg)
{
    (void)line;
    (void)col;
    (void)raw;
    if (!msg || !*msg) abort(); /* a reject always says why */
    ++*(long *)ud;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpi_diag d = {{0}};
    if (ingest_tables_load(fuzz_data_dir(), &tables, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        abort();
    }
    return 0;
}

static int fuzz_ingest(const uint8_t *data, size_t size, const char *name)
{
    if (size == 0) return 0;
    const char *path = fuzz_file(name, data + 1, size - 1);
    long n = 0;
    ingest_sink sink = {on_obs, on_reject, NULL, NULL, &n};
    static const int kinds[3] = {GPI_OFFER, GPI_TRADE, -1};
    /* the first byte chooses the kind, one or two threads, admitting
     * providers, and whether a last line without a line end is read
     * (ingest --complete) or held back */
    ingest_opts opt = {.path = path,
                       .kind = kinds[data[0] % 3],
                       .source = "fuzz",
                       .threads = 1 + (data[0] >> 2 & 1),
                       .admit_providers = data[0] >> 3 & 1,
                       .complete = data[0] >> 4 & 1};
    ingest_result res;
    gpi_diag d = {{0}};
    gpi_status rc = ingest_file(tables, &opt, &sink, &res, &d);
    if (rc != GPI_OK && !d.msg[0]) abort(); /* every failure says why */
    if (rc == GPI_OK && res.rows_read < 0) abort();
    return 0;
}

#endif
