/* fuzz/fuzz_ingest_csv.c -- a CSV file through ingest_file (fuzz_ingest.h). */
#include "fuzz/fuzz_ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_ingest(data, size, "in.csv");
}
