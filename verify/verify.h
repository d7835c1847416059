/* verify/verify.h -- `gpuidx verify`: every published fix recomputed from
 * the published files alone, without the database (METHODOLOGY.md §7),
 * and a contract's settlement prices from the published days.
 *
 * Usage:
 *     verify_dir *v;  verify_dir_open("pub", &v, &d);
 *     verify_day_report r;  verify_day(v, day, &r, &d);   ... print r ...
 *     verify_day_report_free(&r);  verify_dir_close(v);
 *
 * A published day DIR/D holds index.json (file format 3: the rows with
 * their grade definitions and receipts), index.csv and observations.csv.
 * verify_day reads them (and, for what the day took from other days, the
 * files of those days when DIR has them) and, per row (grade):
 *   - checks the receipt: observations.csv's SHA-256, the grade's lines
 *     (count, SHA-256, one SHA-256 per column: the column whose bytes
 *     changed is named), and the grade definition against grade_hash;
 *   - checks index.csv against index.json, column by column;
 *   - recomputes the fix from the grade's lines and the definition's
 *     parameters: the error screen (every line's role and reason), the
 *     statistics, the level, the adjustment, the carry, the value, and
 *     for methodology v2 the matched sample, the relative, the chain, the
 *     event, the anchor value and the splice;
 *   - checks every input taken from another day (the chain and carry of
 *     the day before, reference and base prices, carried trades, the
 *     adjustment's days, the anchor's window) against that day's files
 *     when DIR has them, and lists the days it does not have.
 * The result of a row is ok, ok but partly unverifiable (inputs of days
 * DIR does not have), or the first difference, naming the field.
 * A day of file format 4 also has the term curve (curve.csv, curve.json;
 * verify/curve.c): its files against index.json's curve_sha256, and per
 * grade the curve recomputed from its published inputs and the day's fix
 * (every input's restatement, the points, the fit, every tenor), and the
 * inputs' references against observations.csv where it lists them.
 *
 * The arithmetic is the method's: integers and exact rationals, the pure
 * statistics of index/index.h (method.c), published numbers compared digit
 * for digit.  JSON numbers are read as the decimal text written (never
 * through binary floating point).
 *
 * Ownership: verify_dir_open returns a handle freed with
 * verify_dir_close(); reports are freed with verify_day_report_free().
 * The module never prints.
 */
#ifndef GPI_VERIFY_H
#define GPI_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "settlement/settlement.h"

enum { VERIFY_OK = 0, VERIFY_PARTIAL, VERIFY_DIFFERS };

typedef struct verify_result {
    char grade[65];
    int vintage;                /* the vintage checked (every kept one, newest first) */
    int latest;                 /* 1: the day's latest vintage (its current files) */
    int status;                 /* VERIFY_OK, VERIFY_PARTIAL, VERIFY_DIFFERS */
    char differs[768];          /* the first differences (receipt; recomputation), "" none */
    char unverified[768];       /* what needs days DIR does not have, "" none */
} verify_result;

typedef struct verify_day_report {
    int32_t day;
    char file_note[2048];       /* differences of the day's files as a whole ("; "), "" none */
    char partial_note[512];     /* what of the day as a whole is not verifiable, "" none */
    size_t n;
    verify_result *g;           /* in index.json order */
    /* file format 4: the term curve (verify/curve.c) -- a difference of its
     * files as a whole, and each grade's curve in curve.json order */
    char curve_note[512];
    size_t n_curves;
    verify_result *curves;
} verify_day_report;

typedef struct verify_dir verify_dir;

/* A day's signature (sign.c, METHODOLOGY.md §7.3). */
enum { VERIFY_SIG_UNSIGNED = 0, VERIFY_SIG_OK, VERIFY_SIG_UNCHECKED, VERIFY_SIG_MISSING,
       VERIFY_SIG_CHANGED, VERIFY_SIG_WRONG_KEY, VERIFY_SIG_BAD };
/* 1 for a verdict that fails the day. */
#define VERIFY_SIG_FAILED(s) ((s) >= VERIFY_SIG_MISSING)
/* Checks DIR/day's signature with the raw Ed25519 public key key[32]
 * (NULL: none given; core/sig.h's gpi_sig_public_key reads one): the
 * verdict, and in sig (of v's report) its words.  GPI_EINPUT when the
 * day cannot be read. */
gpi_status verify_day_signature(verify_dir *v, int32_t day, const unsigned char *key,
                                int *verdict, char *words, size_t cap, gpi_diag *d);

/* Checks DIR/restatements.csv's signature of v
 * (DIR/restatements.signature.json, sign.c note 4) with key (NULL: none given), reading within v's limits
 * (verify/files.c): the verdict (VERIFY_SIG_*; VERIFY_SIG_UNSIGNED also
 * when DIR has no restatements.csv) and its words in out. */
int verify_restatements_signature(verify_dir *v, const unsigned char *key, char *out,
                                  size_t cap);

/* Opens DIR (a folder of published days, DIR/YYYY-MM-DD/). */
gpi_status verify_dir_open(const char *dir, verify_dir **out, gpi_diag *d);
/* The largest published file verify reads (verify/files.c): a bigger one,
 * and anything not a regular file (a FIFO, a device), is refused.  0 sets
 * the default, VERIFY_MAX_FILE_MIB MiB. */
#define VERIFY_MAX_FILE_MIB 128
void verify_dir_set_max_file(verify_dir *v, size_t bytes);
void verify_dir_close(verify_dir *v);
/* The days published in DIR (folders YYYY-MM-DD holding an index.json),
 * ascending; *days is malloc'd. */
gpi_status verify_dir_days(verify_dir *v, int32_t **days, size_t *n, gpi_diag *d);
/* Verifies DIR/day.  GPI_EINPUT when its files cannot be read at all
 * ("DIR/D/index.json: ..."); differences are reported in *out, not as an
 * error. */
gpi_status verify_day(verify_dir *v, int32_t day, verify_day_report *out, gpi_diag *d);
void verify_day_report_free(verify_day_report *r);
/* Forgets the days before `day` read so far (memory when verifying a
 * long run of days in order). */
void verify_dir_forget_before(verify_dir *v, int32_t day);

/* `verify --inputs RAW` (inputs.c): the published observations of file
 * format 4 checked against the raw files each vintage commits to,
 * re-ingested into a scratch store ($TMPDIR or /tmp, removed on close) with the
 * tables of data_dir.  Open hashes every file under raw_dir; prepare
 * re-ingests the files the given days commit to, in their order; day
 * adds to each grade's result of r (from verify_day) what differs
 * ("inputs: ...", the line named) or cannot be checked. */
typedef struct verify_inputs verify_inputs;
gpi_status verify_inputs_open(const char *raw_dir, const char *data_dir, verify_inputs **out,
                              gpi_diag *d);
gpi_status verify_inputs_prepare(verify_inputs *vi, verify_dir *v, const int32_t *days, size_t n,
                                 gpi_diag *d);
gpi_status verify_inputs_day(verify_inputs *vi, verify_dir *v, int32_t day, verify_day_report *r,
                             gpi_diag *d);
/* Files of RAW no verified day committed to (of *n_files). */
size_t verify_inputs_unused(const verify_inputs *vi, size_t *n_files);
void verify_inputs_close(verify_inputs *vi);
/* DIR/restatements.csv against the vintages it speaks of, and every
 * change of a published value against it (verify/restatements.c):
 * differences into differs, what is not verifiable into partial ("; "
 * separated, "" none), *lines the restatements read.  GPI_EINPUT only when
 * a file cannot be read at all. */
gpi_status verify_dir_restatements(verify_dir *v, char *differs, size_t cap, char *partial,
                                   size_t pcap, long *lines, gpi_diag *d);

/* Settles contract c (settlement/) on the values of its grade as first
 * published in DIR: each day's vintage 1 (DIR/D/v1/index.json).  Every day
 * from the listing through min(through, the month's last day) must be
 * published (GPI_EINPUT naming the first that is not), and the days
 * before the listing are read back to the latest with a value. */
gpi_status verify_settlement(verify_dir *v, const settle_contract *c, int32_t through,
                             settle_result *out, gpi_diag *d);

#endif
