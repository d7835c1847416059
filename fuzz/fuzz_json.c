/* fuzz/fuzz_json.c -- a JSON or NDJSON file through ingest_file
 * (fuzz_ingest.h): ingest/json.c's streaming reader, the record limit,
 * the byte-order mark and encodings, normalization. */
#include "fuzz/fuzz_ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_ingest(data, size, "in.json");
}
