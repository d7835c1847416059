/* verify/internal.h -- shared by the verify module's own files only.
 *
 *   load.c    a published day: its files read, index.json's numbers kept as
 *             the text written, observations.csv's lines parsed per grade;
 *             the days of DIR kept in a cache.
 *   check.c   the checker of one row: first difference, unverifiable inputs.
 *   xs.c      the cross-section (methodology v1): screen, statistics, level,
 *             adjustment, carry.
 *   chain.c   methodology v2: matched sample, relative, chain, event,
 *             anchor, splice, and the inputs taken from other days.
 *   verify.c  a day: receipts, index.csv against index.json, the rows.
 *   settle.c  settlement prices from published days.
 *   sign.c    a day's signature (file format 4).
 *   inputs.c  `verify --inputs`: the observations against the raw files.
 *   uncert.c  the bootstrap interval and confidence flag (file format 4).
 *   files.c   reading a published file within limits.
 *   package.c the datapackage.json files, made again and compared.
 *   vintage.c a day's vintages: which files other days' inputs are checked
 *             against, the commitments and links of file format 4.
 */
#ifndef GPI_VERIFY_INTERNAL_H
#define GPI_VERIFY_INTERNAL_H

#include <jansson.h>

#include "index/index.h"
#include "verify/verify.h"

/* One line of observations.csv. */
typedef struct vobs {
    long line;
    int kind;                   /* GPI_OFFER, GPI_TRADE; -1 unreadable */
    const char *grade, *group, *key; /* the day's strings */
    int64_t price;              /* micro-USD */
    int64_t qty;                /* micro-GPU-hours; -1 empty */
    int used;                   /* role: 1 used, 0 excluded */
    int reason;                 /* IDX_OK or IDX_EX_* */
    int matched;                /* -1 empty */
    int64_t ref_e8, base_e8, rel_e12; /* -1 empty */
    int candidate;              /* role candidate (v3: a group not in the panel) */
    int imputed;                /* file format 4: -1 empty, 0, 1 (v3: a carried observation) */
    const char *why;            /* the reason as written */
    const char *bad;            /* "field: reason (got ...)" of an unreadable line, or NULL */
} vobs;

/* The most observations.csv columns a receipt is checked for (the
 * receipt's own limit, publish/receipt.c). */
#define VOBS_MAX_COLS 32

/* One row of index.json with its grade's lines. */
typedef struct vrow {
    json_t *j;                  /* the row object (numbers as strings: load.c) */
    const char *grade;
    int v2;                     /* methodology v2 */
    int v3;                     /* methodology v3 */
    size_t *obs;                /* indices into the day's obs, in file order */
    size_t n_obs;
    gpi_sha256 col_sha[VOBS_MAX_COLS]; /* the receipt of its lines, as read */
    gpi_sha256 lines_sha;
    char **csv;                 /* its line of index.csv (fields), NULL when none */
    int n_csv;
    long csv_line;
    /* a revision published with the value standing (publish/format4.c
     * note 3): "value" of j is then the row's own (revision.value), the
     * value published is stands_value, as of vintage stands_since (-1
     * unreadable) */
    int stands;
    char stands_value[32];
    int stands_since;
} vrow;

typedef struct vstrings vstrings;

typedef struct vday {
    int32_t day;
    int vintage;                /* 0: the current files DIR/D; k: DIR/D/v<k>; -1: none */
    int present;                /* 0: not published in DIR */
    char path[4096];            /* DIR/D or DIR/D/v<k> */
    int n_vintage;              /* index.json's "vintage" (0: unreadable) */
    int64_t seq;                /* format 4: "sequence", else -1 */
    char json_sha[65], csv_sha[65]; /* of index.json and index.csv as read */
    json_t *root;
    int format;
    vrow *rows;
    size_t n_rows;
    vobs *obs;
    size_t n_obs;
    char obs_sha[65];           /* of observations.csv as read (vday_receipts) */
    char *obs_text;             /* observations.csv as read */
    size_t obs_len;
    int receipts;               /* obs_sha and the rows' receipts computed */
    int obs_loaded;             /* observations.csv read (vday_obs) */
    struct vstrings *strings;   /* the obs' strings (load.c) */
    char **csv_header;          /* index.csv's header fields */
    int n_csv_header;
    char note[512];             /* a problem of the files as a whole */
    size_t max_file;            /* the directory's limit (files.c) */
    uint64_t last_use;          /* verify_dir.tick when last asked for */
} vday;

/* The observations.csv bytes the days kept in memory may hold together
 * (files.c note 3): past it, the least recently used days' observations
 * are dropped between days (read again when needed). */
#define VERIFY_OBS_BUDGET ((size_t)64 << 20)

/* verify_dir.view_seq: cross-day inputs from the current files, or as
 * of a publication's sequence number (vintage.c note 1) */
/* the newest file format verify reads (publish/format4.c) */
#define VERIFY_FORMAT_MAX 4
#define VIEW_CURRENT INT64_MAX
#define VIEW_NONE INT64_MIN       /* no other day (an older vintage of before format 4) */

/* A grade version's definition as first seen (vintage.c note 3). */
typedef struct vdef {
    char grade[65];
    int64_t version;
    char hash[65];
    int32_t day;
} vdef;

struct verify_dir {
    char dir[4096];
    int64_t view_seq;           /* VIEW_CURRENT, or a sequence number */
    int32_t *all_days;          /* the published days of DIR (vintage.c), once read */
    size_t n_all_days;
    int all_days_read;
    vdef *defs;                 /* vintage.c note 3 */
    size_t n_defs, cap_defs;
    uint64_t tick;              /* uses of days, for the observations kept */
    size_t max_file;            /* files.c: the largest file read, in bytes */
    vday **days;                /* cache, any order */
    size_t n_days, cap_days;
};

/* files.c: path read whole when it is a regular file of at most max
 * bytes (design notes there): *buf malloc'd and NUL-terminated. */
gpi_status vfile_read(const char *path, size_t max, char **buf, size_t *len, gpi_diag *d);
/* GPI_OK when something is at path. */
gpi_status vfile_exists(const char *path);
/* The SHA-256 (hex) of the file at path, read in blocks under the rules of
 * vfile_read (a regular file of at most max bytes). */
gpi_status vfile_sha256(const char *path, size_t max, char out[65], gpi_diag *d);

/* load.c (design notes there) */
/* The day as another day's row takes it: its current files, or, while a
 * vintage is checked (v->view_seq), its vintage of that time (vintage.c
 * note 1).  Loaded on first use; present = 0 when DIR has no such day.
 * GPI_EINPUT when it exists but cannot be read. */
gpi_status vday_get(verify_dir *v, int32_t day, vday **out, gpi_diag *d);
/* The day's files: vintage 0 the current ones (DIR/D), k DIR/D/v<k>. */
gpi_status vday_get_vintage(verify_dir *v, int32_t day, int vintage, vday **out, gpi_diag *d);
/* vintage.c note 1: the day as of publication seq: its latest vintage of
 * a lower sequence number (one of before format 4 counts as lower than
 * any); when none, present = 0 if strict, else its first vintage (a day
 * published after the one that took its rows). */
gpi_status vday_as_of(verify_dir *v, int32_t day, int64_t seq, int strict, vday **out,
                      gpi_diag *d);
/* vjson_load, and the SHA-256 of the file's bytes into sha (may be NULL). */
gpi_status vjson_load_sha(const verify_dir *v, const char *path, json_t **out, char sha[65],
                          gpi_diag *d);
vrow *vday_row(vday *dy, const char *grade);
/* Reads the day's observations.csv into dy->obs and the rows' lines, once
 * (index.json and index.csv are read by vday_get; many days are needed
 * for their numbers only). */
gpi_status vday_obs(vday *dy, gpi_diag *d);
/* Computes the SHA-256 of observations.csv and of each row's lines (the
 * day verified; the days it links to need none). */
void vday_receipts(vday *dy);
/* A member of a row as the exact decimal text written: digits decimals
 * (0: an integer); *out -1 for null.  Returns NULL or a reason
 * ("missing", "not a number with 4 decimals (got \"x\")"). */
const char *vj_fixed(json_t *obj, const char *key, int digits, int64_t *out);
/* The same for a JSON value itself. */
const char *vj_fixed_value(json_t *v, int digits, int64_t *out);
/* A string member ("" for null; NULL when missing or not a string). */
const char *vj_str(json_t *obj, const char *key);
/* A date member: INT32_MIN for null; NULL or a reason. */
const char *vj_date(json_t *obj, const char *key, int32_t *out);
/* Reads a published JSON file with its numbers kept as text (load.c
 * design note 1).  GPI_EINPUT "path:line:col: reason". */
gpi_status vjson_load(const verify_dir *v, const char *path, json_t **out, gpi_diag *d);
/* JSON text parsed as vjson_load parses a file (numbers kept as their
 * text); NULL when it is not JSON. */
json_t *vjson_parse(const char *text);
/* vjson_load from text in memory (name for messages). */
gpi_status vjson_parse_text(const char *name, const char *text, size_t len, json_t **out,
                            gpi_diag *d);
/* Parses exactly digits decimals from text; NULL or a reason. */
const char *v_fixed_text(const char *s, int digits, int64_t *out);
/* The observations.csv columns (file format 2 and 3; every format's:
 * publish/columns.h's pub_observations_csv). */
extern const char *const vobs_cols[17];

/* vintage.c: a vintage's commitments and links (format 4), into note
 * (cap bytes, "; "-separated), what of them DIR cannot show into partial
 * (a day before its first one); batches across a day's vintages (ks, nk);
 * one definition per grade version across the days verified. */
gpi_status vvintage_check(verify_dir *v, vday *dy, char *note, size_t cap, char *partial,
                          size_t pcap, gpi_diag *d);
void vday_check_batches(vday *const *ks, size_t nk, char *note, size_t cap);
void vday_check_definitions(verify_dir *v, const vday *dy, char *note, size_t cap);

/* package.c: a folder's datapackage.json (format 4) against the one its
 * format gives, and DIR's (of restatements.csv, days[0..n) the days of
 * DIR); differences into out ("; "-separated). */
gpi_status vday_check_package(const vday *dy, char *out, size_t cap, gpi_diag *d);
gpi_status vdir_check_package(verify_dir *v, const int32_t *days, size_t n_days, char *out,
                              size_t cap, gpi_diag *d);

/* check.c: one row's checker */
typedef struct vchk {
    const char *dir;
    int32_t day;
    const char *grade;
    char differs[768];
    int n_diff;                 /* recorded differences (at most 2: receipt, recomputation) */
    int diff_recomputed;        /* a recomputation difference is recorded */
    int32_t missing[64];        /* days DIR does not have whose inputs were needed, */
    const char *missing_what[64]; /* and what of each (static text) */
    int n_missing;
    int anchor_missing;
} vchk;

/* Records a difference in field `field` (printf text) unless one of that
 * kind is already recorded; receipt = 1 for a receipt difference. */
void vchk_diff(vchk *c, int receipt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Compares published with recomputed fixed-point numbers (-1 = none). */
void vchk_num(vchk *c, const char *field, int64_t published, int64_t recomputed, int digits);
void vchk_int(vchk *c, const char *field, long published, long recomputed);
void vchk_text(vchk *c, const char *field, const char *published, const char *recomputed);
/* An input of another day that DIR does not have (what: static text). */
void vchk_missing(vchk *c, int32_t day, const char *what);
/* "what not verifiable without DIR/D1..D2, D3; ..." of c's missing inputs. */
void vchk_missing_text(const vchk *c, const char *dir, char *out, size_t n);
/* 1 when a recomputation difference is recorded (later checks are moot). */
int vchk_failed(const vchk *c);

/* xs.c: the cross-section of a row (methodology v1 statistic) */
typedef struct vxs {
    int level;                  /* gpi_level of the cross-section */
    int64_t value_e4, adj_e6;   /* -1 none */
    int64_t trades_q, offers_q; /* raw values, quarter-micro; -1 none */
    int carry;
    int complete;               /* 1: both levels' observations are listed (v2) */
    long n_obs, n_excluded, n_providers;
    long all_obs, all_providers, trade_providers, offer_providers;
    int64_t trade_volume_micro;
    int64_t spread[7], band[7], top_share_e6;
    int exhausted;              /* suspended: 1 a carry ran out, 0 nothing to carry, -1 unknown */
    char note[400];             /* the v1 note (why carried or suspended; v2 rows) */
} vxs;
/* Recomputes and checks the cross-section of row r of day dy with grade
 * definition g (v1 rows: the row itself; v2 rows: xs_value, xs_level and
 * the statistics).  *out holds what it recomputed. */
gpi_status vxs_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c, vxs *out,
                     gpi_diag *d);
/* The items of a row's lines of one kind that entered the statistics (role
 * used), as idx_items with group ids interned per row (names[] kept). */
typedef struct vitems {
    idx_item *v;
    size_t n, cap;
    const char **names;         /* group id -> name */
    size_t n_names, cap_names;
} vitems;
int vitems_group(vitems *it, const char *name);
void vitems_free(vitems *it);

/* sign.c: the signature of a day (DIR/D, its index.json root; max the
 * largest file read); the verdict (VERIFY_SIG_*) and its words in out. */
int verify_signature(const char *daydir, json_t *root, const unsigned char *key, size_t max,
                     char *out, size_t cap);
/* signature.json is a few hundred bytes; read at most this much of it */
#define VERIFY_SIG_MAX_BYTES ((size_t)1 << 20)

/* uncert.c: the bootstrap interval and confidence flag of a row of file
 * format 4, recomputed (index/bootstrap.c) from its lines. */
gpi_status vuncert_check(const vday *dy, const vrow *r, const idx_grade *g, vchk *c,
                         gpi_diag *d);

/* chain.c: methodology v2 */
gpi_status vchain_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, const vxs *xs,
                        vchk *c, gpi_diag *d);

/* xs.c: the adjustment of an offers day from the row's published
 * adjustment_days, each checked against its day in DIR; -2 after a
 * difference (recorded in c). */
int64_t vxs_adjustment(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c,
                       gpi_diag *d, gpi_status *rc);
/* A signed member with digits decimals (*out INT64_MIN for null); NULL or a reason. */
const char *vj_signed(json_t *obj, const char *key, int digits, int64_t *out);

/* v3.c: methodology v3 (METHODOLOGY.md §13): the panel's fix, the roles,
 * the carried observations, the price index's step and the composition
 * gaps, and the inputs taken from other days. */
gpi_status vv3_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c, gpi_diag *d);
/* curve.c: the term curve's files of a format-4 day (curve.csv,
 * curve.json): their receipt in index.json, every grade's curve recomputed
 * from its published inputs, the inputs' references against
 * observations.csv; results into out->curves. */
gpi_status vcurve_day(verify_dir *v, vday *dy, verify_day_report *out, gpi_diag *d);

#endif
