/* publish/format4.c -- what file format 4 adds to a vintage's index.json
 * (METHODOLOGY.md §6.2 and §7.1; issue 31): the commitments and links
 * that let `gpuidx verify` check a publication as a whole, and a row
 * whose value stands while its other fields are revised.
 *
 * NOTES ON THE DESIGN
 * (1) The members, after "index_csv_sha256" (the SHA-256 of the vintage's
 *     index.csv, written by files.c, which makes index.csv first):
 *       "sequence": the vintage's number in the order of the database's
 *         publications (1, 2, ...).  `verify` checks a vintage's inputs
 *         from other days against the vintages those days had when it
 *         was published: for each day, its latest vintage of a lower
 *         sequence (a vintage of before format 4 counts as earlier than
 *         any) -- the vintage they were computed from (publish.c refuses
 *         to publish rows computed from rows not published yet).
 *       "grade_set_sha256" and "grades_without_row": the day's grade list
 *         committed: the SHA-256 of the lines "GRADE,GRADE_HASH\n" of the
 *         rows and of the published grades without a row that day
 *         (listed), sorted by grade as the rows are.
 *       "previous_vintage": {"vintage", "index_json_sha256"} of the day's
 *         vintage before (null for vintage 1);
 *       "previous_day": {"date", "vintage", "index_json_sha256"} of the
 *         latest vintage of the latest day published before this one when
 *         this vintage was (null for none).
 *     Each vintage so links to what was published before it, by hash: a
 *     day changed after a later one was published, a vintage or a day
 *     folder deleted, breaks a link `verify` follows; a day that was
 *     never published is stated by the link that skips it.
 * (2) The members are stored as written (index_vintages.head, with the
 *     sequence number): an older vintage regenerates byte for byte.
 * (3) A row whose value stands (vintage.c note 4) is the built row with
 *     its value replaced by the value published before, in index.csv and
 *     index.json, and the member "revision": {"value": the built row's
 *     own value, "stands_since_vintage": k}, the vintage where the value
 *     that stands was computed.  The database keeps the built text and
 *     the standing value apart (index_standing), so the published text is
 *     made here, the same way every time.
 */
#include "publish/internal.h"
#include "store/vintages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- note 1: the members ------------------------------------------------------ */

typedef struct gline {
    const char *grade, *hash;
    int row;                    /* 1: a row of the vintage */
} gline;

static int cmp_gline(const void *a, const void *b)
{
    return strcasecmp(((const gline *)a)->grade, ((const gline *)b)->grade);
}

static void put_link(FILE *f, const char *key, const char *date, int vintage, const char *sha)
{
    fprintf(f, "\"%s\":", key);
    if (!vintage) {
        fputs("null,", f);
        return;
    }
    fputc('{', f);
    if (date) fprintf(f, "\"date\":\"%s\",", date);
    fprintf(f, "\"vintage\":%d,\"index_json_sha256\":\"%s\"},", vintage, sha);
}

gpi_status pub_head4(store *st, int32_t day, int vintage, const pub_rows *next,
                     const pub_set *set, int64_t *seq, char **out, gpi_diag *d)
{
    *out = NULL;
    size_t n = next->n + (set && set->hashes ? set->n : 0);
    gline *g = calloc(n ? n : 1, sizeof *g);
    if (!g) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < next->n; i++) g[m++] = (gline){next->v[i].grade, next->v[i].hash, 1};
    for (size_t i = 0; set && set->hashes && i < set->n; i++) {
        int found = 0;
        for (size_t j = 0; j < next->n && !found; j++)
            found = strcasecmp(next->v[j].grade, set->ids[i]) == 0;
        if (!found) g[m++] = (gline){set->ids[i], set->hashes[i], 0};
    }
    if (m > 1) qsort(g, m, sizeof *g, cmp_gline);
    gpi_sha256 h;
    gpi_sha256_init(&h);
    for (size_t i = 0; i < m; i++) {
        gpi_sha256_update(&h, g[i].grade, strlen(g[i].grade));
        gpi_sha256_update(&h, ",", 1);
        gpi_sha256_update(&h, g[i].hash, strlen(g[i].hash));
        gpi_sha256_update(&h, "\n", 1);
    }
    char set_sha[65];
    gpi_sha256_final(&h, set_sha);
    gpi_status rc = store_vintage_next_seq(st, seq, d);
    char pv_sha[3][65], pd_sha[3][65], date[11];
    int32_t prev = INT32_MIN;
    int pv = 0;
    if (rc == GPI_OK && vintage > 1)
        rc = store_vintage_sha(st, day, vintage - 1, pv_sha[0], pv_sha[1], pv_sha[2], d);
    if (rc == GPI_OK) rc = store_vintage_day_before(st, day, &prev, &pv, d);
    if (rc == GPI_OK && pv) rc = store_vintage_sha(st, prev, pv, pd_sha[0], pd_sha[1], pd_sha[2], d);
    size_t len = 0;
    FILE *f = rc == GPI_OK ? open_memstream(out, &len) : NULL;
    if (rc == GPI_OK && !f) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (f) {
        fprintf(f, "\"sequence\":%lld,\"grade_set_sha256\":\"%s\",\"grades_without_row\":[",
                (long long)*seq, set_sha);
        int k = 0;
        for (size_t i = 0; i < m; i++)
            if (!g[i].row)
                fprintf(f, "%s{\"grade\":\"%s\",\"grade_hash\":\"%s\"}", k++ ? "," : "",
                        g[i].grade, g[i].hash);
        fputs("],", f);
        put_link(f, "previous_vintage", NULL, vintage > 1 ? vintage - 1 : 0, pv_sha[1]);
        if (pv) gpi_date_format(prev, date);
        put_link(f, "previous_day", date, pv, pd_sha[1]);
        if (fclose(f) != 0 || !*out) {
            free(*out);
            *out = NULL;
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        }
    }
    free(g);
    return rc;
}

/* ---- note 3: a standing value ------------------------------------------------- */

gpi_status pub_row_published(const pub_row *r, char **csv, char **json, gpi_diag *d)
{
    *csv = *json = NULL;
    if (!r->stands_since) {
        *csv = strdup(r->csv);
        *json = strdup(r->json);
    } else {
        char stands[32] = "", own[32] = "null";
        if (r->stands_e4 >= 0) gpi_fixed_format(r->stands_e4, 4, stands);
        if (r->value_e4 >= 0) gpi_fixed_format(r->value_e4, 4, own);
        /* index.csv: date,grade,value,... */
        const char *c1 = strchr(r->csv, ',');
        const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        const char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        /* index.json: "date":"..","grade":"..","value":X,... */
        const char *v = strstr(r->json, "\"value\":");
        const char *ve = v ? strchr(v, ',') : NULL;
        if (!c3 || !ve) return gpi_diag_set(d, GPI_ESTORE, "publish: row %s: unexpected text", r->grade);
        size_t n1 = (size_t)(c2 + 1 - r->csv), n2 = (size_t)(v + 8 - r->json);
        size_t lc = n1 + strlen(stands) + strlen(c3) + 1;
        size_t lj = n2 + strlen(stands[0] ? stands : "null") + strlen(ve) + 96 + strlen(own);
        *csv = malloc(lc);
        *json = malloc(lj);
        if (*csv) snprintf(*csv, lc, "%.*s%s%s", (int)n1, r->csv, stands, c3);
        if (*json)
            snprintf(*json, lj, "%.*s%s%s,\"revision\":{\"value\":%s,\"stands_since_vintage\":%d}",
                     (int)n2, r->json, stands[0] ? stands : "null", ve, own, r->stands_since);
    }
    if (!*csv || !*json) {
        free(*csv);
        free(*json);
        *csv = *json = NULL;
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    return GPI_OK;
}
