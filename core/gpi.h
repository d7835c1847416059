/* core/gpi.h -- shared types of gpuidx: status codes, located diagnostics,
 * UTC calendar days, exact decimal money, and the enumerations of SPEC §3.
 *
 * Everything here is pure: no global state, no allocation, and no I/O but
 * the FILE a caller passes (CSV fields, the encoding check).  Every
 * module includes this header and nothing else from core/.
 *
 * Money is fixed point.  Prices are int64 micro-USD per GPU-hour
 * (1 USD = 1,000,000 µUSD); cash amounts are int64 cents.  Decimal text is
 * parsed exactly (gpi_dec_parse) and rounded half-up exactly
 * (gpi_round_half_up); binary floating point never touches a stored or
 * published amount.
 *
 * Days are int32 counts since 1970-01-01 (UTC), so "the next day" is +1 and
 * a range of days is a pair of integers.
 */
#ifndef GPI_GPI_H
#define GPI_GPI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define GPUIDX_VERSION "0.1.0"

/* ---- status codes and diagnostics -------------------------------------- */

typedef enum gpi_status {
    GPI_OK = 0,
    GPI_EINPUT,   /* bad input data: the message says what and where        */
    GPI_EUSAGE,   /* bad arguments                                          */
    GPI_ESTORE,   /* the database failed (message carries sqlite3_errmsg)   */
    GPI_EIO,      /* a file could not be read or written                    */
    GPI_EMATH,    /* a numerical routine failed (GSL status in message)     */
    GPI_ENOMEM
} gpi_status;

/* A diagnostic is a caller-owned buffer; functions that fail fill it once,
 * with the location first ("file:line: field: reason (got "...")"). */
typedef struct gpi_diag {
    char msg[512];
} gpi_diag;

/* Formats fmt into d (if d is non-NULL) and returns st.  Never fails. */
gpi_status gpi_diag_set(gpi_diag *d, gpi_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exit code of the CLI for a status: 0 ok, 2 usage, 1 everything else. */
int gpi_exit_code(gpi_status st);

/* ---- text encoding of input files (core/text.c) ------------------------- */

/* "UTF-16LE", "UTF-16BE", "UTF-32LE" or "UTF-32BE" when the first bytes of
 * a file (head[0..n), n <= 4 used) are in that encoding, else NULL (UTF-8
 * or too short to tell). */
const char *gpi_wide_encoding(const void *head, size_t n);
/* Sets "path:1:1: the file is ENC; gpuidx reads UTF-8 (...)"; GPI_EINPUT. */
gpi_status gpi_diag_encoding(gpi_diag *d, const char *path, const char *enc);
/* Peeks at the first bytes of f (put back with ungetc, so it also works on
 * pipes) and refuses a UTF-16 or UTF-32 file with gpi_diag_encoding. */
gpi_status gpi_text_check(FILE *f, const char *path, gpi_diag *d);
/* fopen(path, "rb") of an input file the user named; NULL with, in d
 * (GPI_EIO), "path: no such file", "path: is a directory, not a file"
 * (fopen opens one; its reads fail) or "path: cannot open: reason". */
FILE *gpi_open_input(const char *path, gpi_diag *d);
/* The whole text file at path (after gpi_text_check) in *buf, NUL-terminated
 * (free()), *len bytes, for the small inputs read into memory (rent,
 * forward prices, deployments): gpi_open_input, then gpi_file_read_all. */
gpi_status gpi_text_read(const char *path, size_t max_mib, char **buf, size_t *len, gpi_diag *d);
/* The rest of the open file f in *buf, NUL-terminated (free(); NULL on an
 * error), *len bytes -- the one read-to-the-end loop, for callers that open
 * the file themselves (their own "cannot open" message and checks: grade
 * files, verify's published JSON, publish's kept files, gpi_text_read).  A
 * failing stream is "path: read error", never taken for the end of the
 * file (a folder opened for reading is one); a file of max_mib MiB or more
 * (0: no limit) is "path: file too large (over N MiB)". */
gpi_status gpi_file_read_all(FILE *f, const char *path, size_t max_mib, char **buf, size_t *len,
                             gpi_diag *d);

/* ---- enumerations of SPEC §3 ------------------------------------------- */

typedef enum { GPI_OFFER = 0, GPI_TRADE = 1 } gpi_kind;
typedef enum { GPI_SCOPE_BARE_METAL = 0, GPI_SCOPE_MANAGED, GPI_SCOPE_VM,
               GPI_SCOPE_CONTAINER, GPI_SCOPE__N } gpi_scope;
/* Tiers are ordered: a larger number is a better tier. */
typedef enum { GPI_TIER_UNRATED = 0, GPI_TIER_UNDERPERFORM, GPI_TIER_BRONZE,
               GPI_TIER_SILVER, GPI_TIER_GOLD, GPI_TIER_PLATINUM,
               GPI_TIER__N } gpi_tier;
typedef enum { GPI_TERM_ON_DEMAND = 0, GPI_TERM_SPOT, GPI_TERM_RESERVED,
               GPI_TERM__N } gpi_term;
typedef enum { GPI_STATUS_OK = 0, GPI_STATUS_CANCELLED, GPI_STATUS_AFFILIATE,
               GPI_STATUS__N } gpi_trade_status;
typedef enum { GPI_UNIT_GPU_HOUR = 0, GPI_UNIT_INSTANCE_HOUR,
               GPI_UNIT_GPU_MONTH, GPI_UNIT_INSTANCE_MONTH, GPI_UNIT__N } gpi_unit;

/* What an offer's price covers (data/skus.csv): the whole instance, the
 * GPUs alone (the host is priced separately, e.g. GCP's accelerator
 * prices), a whole instance whose host CPU and memory are at least half of
 * the price, or a slice of one GPU. */
typedef enum { GPI_COVERS_INSTANCE = 0, GPI_COVERS_GPU_ONLY, GPI_COVERS_CPU_HEAVY,
               GPI_COVERS_PARTIAL, GPI_COVERS__N } gpi_covers;

/* Level of a day's index value (SPEC §6): which rule produced it. */
typedef enum { GPI_LEVEL_TRADES = 0, GPI_LEVEL_OFFERS, GPI_LEVEL_CARRIED,
               GPI_LEVEL_SUSPENDED, GPI_LEVEL__N } gpi_level;

/* Name <-> value (core/names.c).  Parsing is case-insensitive and returns -1 when unknown;
 * names are the lower-case canonical spellings of SPEC §3. */
int gpi_kind_parse(const char *s);
int gpi_scope_parse(const char *s);
int gpi_tier_parse(const char *s);
int gpi_term_parse(const char *s);
int gpi_trade_status_parse(const char *s);
int gpi_unit_parse(const char *s);
int gpi_level_parse(const char *s);
int gpi_covers_parse(const char *s);
const char *gpi_kind_name(int v);
const char *gpi_scope_name(int v);
const char *gpi_tier_name(int v);
const char *gpi_term_name(int v);
const char *gpi_trade_status_name(int v);
const char *gpi_unit_name(int v);
const char *gpi_level_name(int v);
const char *gpi_covers_name(int v);

/* A grade id (SPEC §3): 1 to GPI_GRADE_ID_MAX bytes of ASCII letters,
 * digits and "._+-", starting with a letter or a digit (so it is also a
 * file name).  1 when s (NULL: no) is one.  core/names.c. */
#define GPI_GRADE_ID_MAX 64
int gpi_grade_id_ok(const char *s);

/* ---- UTC days and timestamps ------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (no validation). */
int32_t gpi_days_from_civil(int y, int m, int d);
void gpi_civil_from_days(int32_t day, int *y, int *m, int *d);
/* 1 when y-m-d is a real calendar date with 1 <= y <= 9999. */
int gpi_date_valid(int y, int m, int d);
/* Days in month m of year y. */
int gpi_month_days(int y, int m);

/* Parses exactly "YYYY-MM-DD" into *day.  Returns NULL on success, else a
 * static reason ("not a date YYYY-MM-DD", "no such calendar date"). */
const char *gpi_date_parse(const char *s, int32_t *day);
/* Parses "YYYY-MM-DD" or an ISO-8601 timestamp "YYYY-MM-DDTHH:MM[:SS[.f]]"
 * with "Z" or "±hh:mm" (a space may replace "T"; no zone means UTC) into
 * Unix seconds UTC (fraction truncated).  Returns NULL or a static reason. */
const char *gpi_time_parse(const char *s, int64_t *unix_s);
/* Day of a Unix time (floor division, correct before 1970). */
int32_t gpi_day_of_time(int64_t unix_s);
/* Writes "YYYY-MM-DD" (11 bytes with NUL) into out. */
void gpi_date_format(int32_t day, char out[11]);
/* Writes "YYYY-MM-DDTHH:MM:SSZ" (21 bytes with NUL) into out. */
void gpi_time_format(int64_t unix_s, char out[21]);
/* Parses "YYYY-MM" into year and month; NULL or a static reason. */
const char *gpi_month_parse(const char *s, int *y, int *m);
/* ISO weekday, Monday = 1 .. Sunday = 7. */
int gpi_iso_weekday(int32_t day);

/* ---- exact decimals ----------------------------------------------------- */

/* A decimal number = mant / 10^scale, exactly as written.  Up to 18
 * significant digits and 12 decimals. */
typedef struct gpi_dec {
    int64_t mant;
    int scale;
} gpi_dec;

/* Parses a plain decimal ("12", "-0.5", "2.3645", "1e3" is refused).
 * Leading/trailing spaces are not allowed.  Returns NULL or a static reason:
 * "empty", "not a number", "too many digits". */
const char *gpi_dec_parse(const char *s, gpi_dec *out);
/* The same with up to max_scale (<= 18) decimals; digits beyond it are
 * accepted only when they are zeros (feeds print binary floats in full). */
const char *gpi_dec_parse_scale(const char *s, int max_scale, gpi_dec *out);

/* Rounds num/den to the nearest integer, halves away from zero ("half-up"
 * for positive values, the convention of SPEC §6.7 and §8), exactly.
 * den must be > 0.  Uses 128-bit intermediates. */
int64_t gpi_div_round(__int128 num, __int128 den);

/* qsort's comparison of int64_t values, ascending. */
int gpi_cmp_i64(const void *a, const void *b);
/* 2 x the median of v[0..n) (n >= 1), sorting v in place: exact in half
 * units (an even count's median is the sum of its middle two). */
int64_t gpi_median2(int64_t *v, size_t n);

/* Value of d in units of 10^-digits, rounded half-up exactly
 * (e.g. d = 2.36455, digits = 4 -> 23646). */
int64_t gpi_dec_to_units(gpi_dec d, int digits);

/* Formats v / 10^digits with exactly `digits` decimals ("-1.2300").  out
 * must hold 32 bytes. Returns out. */
char *gpi_fixed_format(int64_t v, int digits, char out[32]);

/* printf's "%.1f" of v, the same bytes (the SVG charts write ~25,000
 * coordinates a year of 8 grades): by integers when v * 10 lies clearly
 * off a tie in [0, 1e6), which rounds the exact value the same way; by
 * printf otherwise.  out must hold 32 bytes: a text longer than 31 (|v|
 * of 1e29 and more) is cut.  Returns out. */
char *gpi_format_1f(double v, char out[32]);

/* Rounds a double to the nearest multiple of 10^-digits, halves up, and
 * returns it in those units, correcting binary error: the value is first
 * rounded to 12 significant decimals, so 2.36449999999999 (binary for
 * 2.3645) rounds to 2.365 at 3 digits.  Only for statistics outputs
 * (hedge, evaluation) -- money never goes through doubles. */
int64_t gpi_double_to_units(double v, int digits);

/* ---- CSV fields (core/csv.c) -------------------------------------------- */

/* Writes s (NULL as "") to f as one CSV field: as is, or in double quotes
 * with quotes doubled when it holds a comma, a quote, CR or LF. */
void gpi_csv_field(FILE *f, const char *s);
/* The same, always in double quotes (the text fields of the rejects file,
 * whose raw rows and messages are quoted whatever they hold). */
void gpi_csv_quoted(FILE *f, const char *s);
/* The same for free text from the input (provider, group, source, region,
 * account) in a file people open in spreadsheets: a text that starts with
 * '=', '+', '-', '@', TAB or CR -- which a spreadsheet would run as a
 * formula ("=HYPERLINK(...)") -- is written with a leading apostrophe
 * ("'=HYPERLINK(...)"), so it shows as the text it is.  Only the output
 * changes: the database keeps the text as received. */
void gpi_csv_text(FILE *f, const char *s);
/* 1 when gpi_csv_text would prefix s with an apostrophe. */
int gpi_csv_text_risky(const char *s);

/* ---- hashing ------------------------------------------------------------ */

/* SHA-256 of a buffer as 64 lower-case hex digits + NUL. */
void gpi_sha256_hex(const void *buf, size_t n, char out[65]);

/* Incremental SHA-256 for streaming files (core/sha256.c: libcrypto's).
 * A plain value: no free, and a copy of a state can be finished on its
 * own. */
typedef struct gpi_sha256 {
    _Alignas(16) unsigned char state[128];
} gpi_sha256;
void gpi_sha256_init(gpi_sha256 *s);
void gpi_sha256_update(gpi_sha256 *s, const void *buf, size_t n);
void gpi_sha256_final(gpi_sha256 *s, char out[65]);

/* 64-bit FNV-1a (core/ident.c), for compact identity keys (collisions are checked by the
 * store against the stored key text, never assumed away). */
uint64_t gpi_fnv1a64(const void *buf, size_t n, uint64_t seed);
#define GPI_FNV_SEED 0xcbf29ce484222325ULL

#endif
