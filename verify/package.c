/* verify/package.c -- the datapackage.json files of a publication
 * (file format 4 and later).
 *
 * Each folder of files of format 4 (DIR/D and its v<k>/) holds
 * datapackage.json, and DIR one describing restatements.csv
 * (publish/publish.c note 4).  They follow from the format alone
 * (publish/columns.c), so verify makes them again and compares them byte
 * for byte: a changed unit, type or column meaning is a difference, and
 * so is a missing file.  DIR's own is required beside restatements.csv
 * once DIR's latest day is of format 4 (older publications had none).
 * Signature files are listed too (publish/publish.c note 5): a folder's
 * signature.json when its index.json names a key, DIR's
 * restatements.signature.json when DIR holds one.
 */
#include "verify/internal.h"
#include "publish/columns.h"
#include "core/sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(char *out, size_t cap, const char *what)
{
    size_t k = strlen(out);
    if (k + 4 < cap) snprintf(out + k, cap - k, "%s%s", k ? "; " : "", what);
}

/* path against the bytes want (len n); the difference into out. */
static gpi_status compare(const char *path, const char *name, size_t max, const char *want,
                          size_t n, char *out, size_t cap, gpi_diag *d)
{
    char w[512];
    if (vfile_exists(path) != GPI_OK) {
        snprintf(w, sizeof w, "%s: missing", name);
        note(out, cap, w);
        return GPI_OK;
    }
    char *text = NULL;
    size_t len = 0;
    gpi_diag e = {{0}};
    gpi_status rc = vfile_read(path, max, &text, &len, &e);
    if (rc == GPI_ENOMEM) return gpi_diag_set(d, rc, "%s", e.msg);
    if (rc != GPI_OK) {
        snprintf(w, sizeof w, "%s: %s", name, e.msg);
        note(out, cap, w);
    } else if (len != n || memcmp(text, want, n) != 0) {
        size_t at = 0;
        while (at < len && at < n && text[at] == want[at]) at++;
        snprintf(w, sizeof w, "%s: not the data package file format 4 gives (it changed after "
                              "publication; first difference at byte %zu)",
                 name, at);
        note(out, cap, w);
    }
    free(text);
    return GPI_OK;
}

gpi_status vday_check_package(const vday *dy, char *out, size_t cap, gpi_diag *d)
{
    if (!dy->present || dy->format < 4) return GPI_OK;
    char *want = NULL, path[4200];
    size_t n = 0;
    FILE *f = open_memstream(&want, &n);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    /* a vintage whose index.json names a key lists its signature.json */
    json_t *fp = json_object_get(dy->root, "key_fingerprint");
    pub_datapackage_day(f, dy->day, dy->vintage > 0 ? dy->vintage : 0, dy->format,
                        json_is_string(fp));
    if (fclose(f) != 0 || !want) {
        free(want);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    snprintf(path, sizeof path, "%s/datapackage.json", dy->path);
    gpi_status rc = compare(path, "datapackage.json", dy->max_file, want, n, out, cap, d);
    free(want);
    return rc;
}

gpi_status vdir_check_package(verify_dir *v, const int32_t *days, size_t n_days, char *out,
                              size_t cap, gpi_diag *d)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/datapackage.json", v->dir);
    if (vfile_exists(path) != GPI_OK) {
        /* without restatements.csv (said by restatements.c) nothing to describe */
        char rs[4200];
        snprintf(rs, sizeof rs, "%s/restatements.csv", v->dir);
        if (vfile_exists(rs) != GPI_OK) return GPI_OK;
        int format4 = 0; /* a publication that writes it */
        for (size_t i = n_days; i-- > 0 && !format4;) {
            vday *dy = NULL;
            gpi_status rc = vday_get_vintage(v, days[i], 0, &dy, d);
            if (rc != GPI_OK) return rc;
            format4 = dy->present && dy->format >= 4;
            break; /* the latest day says which program published last */
        }
        if (format4) note(out, cap, "datapackage.json (of restatements.csv): missing");
        return GPI_OK;
    }
    char *want = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&want, &n);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    /* listed by a DIR that holds restatements.signature.json (a signed
     * publication writes it, publish/publish.c note 5) */
    char sp[4200];
    snprintf(sp, sizeof sp, "%s/%s", v->dir, GPI_SIG_RESTATEMENTS_FILE);
    pub_datapackage_restatements(f, vfile_exists(sp) == GPI_OK);
    if (fclose(f) != 0 || !want) {
        free(want);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    gpi_status rc = compare(path, "datapackage.json (of restatements.csv)", v->max_file, want, n,
                            out, cap, d);
    free(want);
    return rc;
}
