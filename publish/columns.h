/* publish/columns.h -- the columns of every published CSV, in one table
 * per file: what the header of each file format is, and what
 * datapackage.json (Frictionless Data, written with each publication)
 * says of each column -- its type, unit and meaning.
 *
 * One entry per column, in file order, each with the file format that
 * added it: a column added to a published CSV is one entry here (and the
 * code that writes its field); the header of every format, the receipt's
 * column list of observations.csv, gpuidx verify's header checks and the
 * data package all follow from it.  Columns are only ever appended.
 *
 * No store, no I/O but the FILE given: verify/ and site/ use it too.
 */
#ifndef GPI_PUBLISH_COLUMNS_H
#define GPI_PUBLISH_COLUMNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The file format new vintages are written in: 2 added methodology v2's
 * columns, 3 the manipulation figures and the receipts, 4 the units
 * (observations.csv's quantity split by unit; index.json's currency,
 * unit, licence, methodology versions and the grade definition as an
 * object) and the administration (index.json's input commitments, the
 * signing key's fingerprint, each row's cut-off; index.csv's interval,
 * confidence flag and stale share, computed at publication:
 * publish/commit.c) and methodology v3 (index.csv's price index,
 * composition gaps and panel counts, stored with the row; index.json's
 * v3 keys; observations.csv's imputed flag); older ones are how vintages
 * published before them are regenerated. */
enum { PUB_FORMAT_CURRENT = 4 };
/* The index.csv columns of `index show` and the site's per-grade CSVs:
 * those of file format 4, the four computed at publication (ci_low ..
 * stale_share) empty -- only a vintage's index.csv has them -- and
 * methodology v3's, stored with the row, after them (publish/format.c). */
enum { PUB_FORMAT_ROWS = 4 };

typedef struct pub_column {
    int since;              /* the file format that added it */
    const char *name;
    const char *type;       /* Frictionless: string, integer, number, boolean, date, datetime */
    const char *unit;       /* e.g. "USD per GPU-hour"; NULL: none */
    const char *values;     /* the values it may hold, "|"-separated, or NULL */
    const char *desc;
} pub_column;

typedef struct pub_table {
    const char *file;       /* "index.csv" */
    const char *title;
    const pub_column *cols;
    size_t n;
    const char *key;        /* primary key columns, ","-separated, or NULL */
} pub_table;

extern const pub_table pub_index_csv;        /* index.csv (index show, site: format 4) */
extern const pub_table pub_observations_csv; /* observations.csv */
extern const pub_table pub_restatements_csv; /* DIR/restatements.csv */
extern const pub_table pub_curve_csv;        /* curve.csv (file format 4, the term curve) */

/* The number of columns of t in file format `format` (its first ones). */
size_t pub_columns_n(const pub_table *t, int format);
/* The header line of t in file format `format` (with its LF). */
void pub_columns_header(FILE *f, const pub_table *t, int format);

/* A data package (datapackage.json) describing the CSV files of tables
 * t[0..n) (each read at its path) in file format `format`, with the
 * name, title and, when json is set, index.json as a resource beside
 * them.  One JSON object with its LF, keys in a fixed order: the same
 * arguments give the same bytes. */
void pub_datapackage(FILE *f, const char *name, const char *title, const pub_table *const *t,
                     const char *const *paths, size_t n, int format, int json);
/* The same with a resource name per table (names[i]; the site's one table
 * per grade), where pub_datapackage names a resource after its file. */
void pub_datapackage_named(FILE *f, const char *name, const char *title,
                           const pub_table *const *t, const char *const *paths,
                           const char *const *names, size_t n, int format, int json);

/* What `json` of pub_datapackage lists beside the tables, bit by bit:
 * index.json (1, as before), a signed vintage's signature.json and a
 * signed DIR's restatements.signature.json, each described by its schema
 * (schema/index, schema/signature.schema.json). */
#define PUB_PKG_INDEX_JSON 1
#define PUB_PKG_SIGNATURE 2
#define PUB_PKG_RESTATEMENTS_SIG 4

/* The datapackage.json of a published day's folder, file format 4 and
 * later: vintage k of day, or k 0 for the current files (DIR/D), listing
 * its signature.json when is_signed (the vintage's index.json names a
 * key); and DIR's, describing restatements.csv, listing
 * restatements.signature.json when is_signed (DIR holds one).  They follow
 * from the format and those flags alone: publish/ writes them, verify/
 * makes them again and compares the bytes. */
void pub_datapackage_day(FILE *f, int32_t day, int k, int format, int is_signed);
void pub_datapackage_restatements(FILE *f, int is_signed);

/* The licence named in index.json and datapackage.json (SPDX id) and the
 * currency and unit of every price of the published files. */
#define PUB_LICENSE "Apache-2.0"
#define PUB_CURRENCY "USD"
#define PUB_UNIT "GPU-hour"

#endif
