/* index/segments.h -- the grade lab's provider segments (segments.c): is a
 * grade's panel bimodal, and which segment-only grades split it
 * (METHODOLOGY.md, Grade lab; issue 26 item 4).  Internal to index/: the
 * grade lab (evaluate.c) is its only user.
 *
 * Ownership: an idx_segmap owns its texts (idx_segmap_free); an
 * idx_segacc owns its daily arrays (idx_segacc_free); an idx_segcache its
 * scratch (idx_segcache_free).  Every *_free takes a zeroed or used
 * object and leaves it zeroed.
 */
#ifndef GPI_INDEX_SEGMENTS_H
#define GPI_INDEX_SEGMENTS_H

#include "index/day.h"
#include "index/index.h"

/* Every stored provider group's segment (data/providers.csv at ingest),
 * from the store's facets: groups sorted, each with the index of its
 * segment in `name` (sorted).  A group stored under two segments counts
 * in the first in byte order. */
typedef struct idx_segmap {
    char **group;
    int *seg;
    size_t n_group;
    char **name;
    size_t n_name;
} idx_segmap;

gpi_status idx_segmap_load(store *st, idx_segmap *m, gpi_diag *d);
void idx_segmap_free(idx_segmap *m);
/* The segment index of group, -1 when the store has none. */
int idx_segmap_find(const idx_segmap *m, const char *group);

/* What a batch of grades shares while its days are read: the segment of
 * each group interned in the day buffer, and scratch. */
typedef struct idx_segcache {
    int *gseg;                  /* per interned group id: its segment + 2; 0 not looked up */
    size_t cap_gseg;
    idx_item *items;
    size_t cap_items;
    double *stat;               /* provider statistics, then a segment's */
    size_t cap_stat;
    int *slot;                  /* the statistics' segment slots */
    size_t cap_slot;
} idx_segcache;

void idx_segcache_free(idx_segcache *c);

/* One grade over the range: per segment seen (in first-seen order, at
 * most IDX_SEG_MAX), its days, providers and daily median provider
 * statistic; per day, the ratio of the highest to the lowest segment
 * median. */
typedef struct idx_segacc {
    long days;
    int n;
    int seg[IDX_SEG_MAX];
    long present[IDX_SEG_MAX], min_days[IDX_SEG_MAX], max_prov[IDX_SEG_MAX];
    double sum_prov[IDX_SEG_MAX];
    int32_t first[IDX_SEG_MAX], last[IDX_SEG_MAX]; /* of the min_days */
    /* per day (floats: lab figures over a range of up to a century, for
     * EVAL_BATCH grades at a time) */
    float *level[IDX_SEG_MAX];   /* the segment's median statistic, micro; NAN none */
    float *spread[IDX_SEG_MAX];  /* its highest / lowest statistic; NAN < 2 providers */
    double *ratio;               /* per day: highest / lowest segment median; NAN < 2 segments */
} idx_segacc;

gpi_status idx_segacc_init(idx_segacc *a, long days);
void idx_segacc_free(idx_segacc *a);

/* Day k of the range (a fixed day of the grade's cross-section): the
 * screened items of the level used, b, reduced to provider statistics
 * (the median of each group's IDX_OK prices) and those to segments. */
gpi_status idx_seg_day(idx_segacc *a, idx_segcache *c, const idx_day *dy,
                       const idx_segmap *m, const idx_buf *b, int min_providers, int32_t day,
                       long k, gpi_diag *d);

/* The figures of a into ge (its segments, ratio and verdict); x holds
 * a->days doubles of scratch. */
void idx_seg_finish(const idx_segacc *a, const idx_segmap *m, idx_grade_eval *ge, double *x);

/* The id of grade `id`'s segment-only split: id + "." + HYP, NEO, MKT
 * (hyperscaler, neocloud, marketplace) or the segment upper-cased, cut to
 * IDX_NAME_MAX characters. */
void idx_seg_split_id(const char *id, const char *segment, char out[IDX_NAME_MAX + 1]);

#endif
