/* fuzz/fuzz_grades.c -- grade files (index/grades.c) with the shipped
 * tables (gpus.csv, regions.csv): parse, validate, canonicalize, hash.  A
 * file that loads must load again from its own canonical definitions
 * (what the database stores) with the same hash. */
#include "fuzz/fuzz.h"

#include "index/index.h"

static idx_grade_tables tb;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpi_diag d = {{0}};
    if (idx_grade_tables_load(fuzz_data_dir(), &tb, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    gpi_status rc = idx_grades_parse_tables(text, "g.json", &tb, &gs, &d);
    if (rc != GPI_OK && !d.msg[0]) abort();
    if (rc == GPI_OK) {
        for (size_t i = 0; i < gs->n; i++) {
            /* the stored definition reads back to the same grade */
            char *one = malloc(strlen(gs->g[i].canon) + 32);
            if (!one) abort();
            sprintf(one, "{\"grades\": [%s]}", gs->g[i].canon);
            idx_grades *back = NULL;
            if (idx_grades_parse(one, "canon", NULL, IDX_TRUST_GPUS, &back, &d) != GPI_OK) {
                fprintf(stderr, "canonical form does not load: %s\n%s\n", d.msg, one);
                abort();
            }
            if (back->n != 1 || strcmp(back->g[0].hash, gs->g[i].hash) != 0) {
                fprintf(stderr, "canonical form changes the hash:\n%s\n", one);
                abort();
            }
            idx_grades_free(back);
            free(one);
        }
        idx_grades_free(gs);
    }
    free(text);
    return 0;
}
