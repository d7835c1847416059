/* ingest/pipe.c -- ingest_file with the parser in a second thread.
 *
 * NOTES ON THE DESIGN
 * (1) Reading and normalizing a row costs about a quarter of what storing
 *     it costs (benchmark market: 4.0 s of 17.6 s for 6.9 M offers), and a
 *     database handle belongs to one thread.  So the parser runs in a
 *     worker thread and the caller's thread keeps the sink: every sink
 *     callback still happens in the caller's thread, in file order, with
 *     the same arguments as a one-thread ingest_file -- the caller cannot
 *     tell the difference except by the clock.
 * (2) The worker's sink copies each event (observation, reject, warning,
 *     progress) with its strings into a batch: a fixed array of events and
 *     a byte arena that never moves while the batch fills, so pointers
 *     into it stay valid.  A batch goes to the caller when either is full
 *     (an event larger than an empty batch's arena grows that arena).
 * (3) NBATCH batches circulate between a free list and a full list under
 *     one mutex and two condition variables: memory is bounded (a few MiB)
 *     whatever the file size, and the parser waits when the store lags.
 * (4) When a sink callback asks to stop, the caller sets `stop` (an atomic:
 *     the worker reads it for every event, a mutex there cost 2 %); the
 *     worker's next event sees it and ends its ingest_file with "stopped",
 *     and the caller drops what is still queued.  The status reported is
 *     the one a one-thread run would give: the stop, at the line of the
 *     event that stopped.
 * (5) The store's thread is the slower one, and a tenth of its work per
 *     row was finding the row's profile and, for offers, its interned
 *     identity: twelve hash lookups of texts.  So the worker numbers them
 *     (gpi_obs.profile_seq and ident_seq, core/obs.h): the n-th distinct
 *     profile (gpi_obs_profile) and the n-th distinct offer identity of
 *     the file, flagging the first row of each; the store resolves a
 *     number once and then reads it from an array.  A trade's identity
 *     is usually its own, so trades' are not numbered.  Each map holds at
 *     most MAP_MAX (131,072) entries, so a file of ever-new profiles or
 *     identities holds at most ~30 MB here (24-byte slots and the keys;
 *     the bench year's 58,760 profiles take ~11 MB); past that, rows go
 *     without hints, which only costs time.  Numbering starts after the
 *     first number_after observations (65,536 by default): a day's file,
 *     where each offer appears once (17,168 profiles in 18,796 rows on the
 *     bench market), saves nothing by it and spent ~15 ms of a 50 ms
 *     ingest building the maps; a year's file of the bench market is
 *     numbered from its fourth day on.  An offer mostly keeps its profile from one snapshot to the
 *     next, so each identity's number remembers its last profile, and a
 *     row's profile key is first compared with that one in place (equal:
 *     the same number, without hashing the key or probing the map).
 */
#include "ingest/internal.h"
#include "core/vec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { NBATCH = 4, BATCH_EVENTS = 2048, ARENA = 512u << 10, MAP_MAX = 1u << 17 };

typedef enum { EV_OBS, EV_REJECT, EV_WARN, EV_PROGRESS } ev_type;

typedef struct event {
    ev_type type;
    gpi_obs o;              /* EV_OBS */
    const char *raw;        /* EV_OBS, EV_REJECT */
    const char *column;     /* EV_REJECT */
    const char *msg;        /* EV_REJECT, EV_WARN */
    long line;              /* EV_REJECT */
    uint64_t done, total;   /* EV_PROGRESS */
} event;

typedef struct batch {
    event ev[BATCH_EVENTS];
    size_t n;
    char *arena;
    size_t used, cap;
    struct batch *next;
} batch;

/* Distinct keys (byte strings) -> their number, 1, 2, ... in order of
 * first sight (note 5).  Open addressing over 24-byte slots (a probe is one
 * cache line, not three arrays'); slot i is empty when its seq is 0.  The
 * keys lie end to end in one arena (no allocation per key). */
typedef struct seq_slot {
    uint64_t hash;
    uint32_t seq, len;
    size_t off; /* the key's bytes: keys + off */
} seq_slot;

typedef struct seq_map {
    seq_slot *slot;
    size_t cap, n;
    unsigned char *keys;
    size_t keys_len, keys_cap;
} seq_map;

/* An identity's last profile: its number and where its key lies in the
 * profiles' arena (note 5). */
typedef struct ident_profile {
    uint32_t seq, len;
    size_t off;
} ident_profile;

typedef struct pipe_ctx {
    pthread_mutex_t mu;
    pthread_cond_t has_free, has_full;
    batch *free_list, *full_head, *full_tail;
    int finished;           /* the worker is done; its status is in rc */
    atomic_int stop;        /* the caller's sink asked to stop */
    int oom;                /* worker: an event could not be copied */
    batch *cur;             /* worker: the batch being filled */
    seq_map profiles, idents; /* worker: note 5 */
    ident_profile *last;    /* worker: per identity number, its last profile */
    size_t cap_last;
    long unnumbered, number_after; /* worker: observations before numbering */
    unsigned char *scratch; /* worker: a profile's key being built */
    size_t scratch_cap;
    /* the worker's call */
    const ingest_tables *t;
    const ingest_opts *opt;
    ingest_result res;
    gpi_status rc;
    gpi_diag d;
} pipe_ctx;

/* ---- batches ---------------------------------------------------------------- */

static batch *take_free(pipe_ctx *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->free_list) pthread_cond_wait(&p->has_free, &p->mu);
    batch *b = p->free_list;
    p->free_list = b->next;
    pthread_mutex_unlock(&p->mu);
    b->n = b->used = 0;
    b->next = NULL;
    return b;
}

static void put_full(pipe_ctx *p, batch *b)
{
    pthread_mutex_lock(&p->mu);
    if (p->full_tail) p->full_tail->next = b;
    else p->full_head = b;
    p->full_tail = b;
    pthread_cond_signal(&p->has_full);
    pthread_mutex_unlock(&p->mu);
}

static int stopped(pipe_ctx *p)
{
    return atomic_load_explicit(&p->stop, memory_order_relaxed);
}

/* Sizes of the n strings src (0 for NULL, else length + 1) into len;
 * returns their sum. */
static size_t sizes(const char *const *src, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += len[i] = src[i] ? strlen(src[i]) + 1 : 0;
    return total;
}

/* Copies the n strings src into b's arena (room was made) and points the
 * event's fields dst at the copies. */
static void keep(batch *b, const char **const *dst, const char *const *src, const size_t *len,
                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!src[i]) {
            *dst[i] = NULL;
            continue;
        }
        char *t = b->arena + b->used;
        memcpy(t, src[i], len[i]);
        b->used += len[i];
        *dst[i] = t;
    }
}

/* The batch to append an event of `bytes` string bytes to; NULL when out
 * of memory. */
static batch *room(pipe_ctx *p, size_t bytes)
{
    batch *b = p->cur;
    if (b && b->n < BATCH_EVENTS && b->cap - b->used >= bytes) return b;
    if (b && b->n > 0) {
        put_full(p, b);
        b = p->cur = NULL;
    }
    if (!b) b = p->cur = take_free(p);
    /* one event larger than an arena: b is empty */
    if (GPI_VEC_RESERVE(b->arena, b->cap, bytes) != 0) {
        p->oom = 1;
        return NULL;
    }
    return b;
}

/* ---- numbering (note 5) ------------------------------------------------------ */

static uint64_t key_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15u ^ n;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h ^= w; /* splitmix64's finalizer: every bit reaches the low ones (the slot) */
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

static void map_free(seq_map *m)
{
    free(m->slot);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

/* Doubles m (or makes it); -1 out of memory. */
static int map_grow(seq_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 4096;
    seq_slot *g = calloc(cap, sizeof *g);
    if (!g) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slot[i].seq) continue;
        size_t j = m->slot[i].hash & (cap - 1);
        while (g[j].seq) j = (j + 1) & (cap - 1);
        g[j] = m->slot[i];
    }
    free(m->slot);
    m->slot = g;
    m->cap = cap;
    return 0;
}

/* The number of key k (n bytes), *first = 1 when it is new, *off where
 * the map keeps its bytes; 0 when the map is full or out of memory (no
 * hint). */
static uint32_t seq_of(seq_map *m, const unsigned char *k, size_t n, unsigned char *first,
                       size_t *off)
{
    *first = 0;
    if (n > UINT32_MAX || (!m->cap && map_grow(m) != 0)) return 0;
    uint64_t h = key_hash(k, n);
    size_t j = h & (m->cap - 1);
    for (; m->slot[j].seq; j = (j + 1) & (m->cap - 1)) {
        const seq_slot *e = &m->slot[j];
        if (e->hash == h && e->len == n && memcmp(m->keys + e->off, k, n) == 0) {
            *off = e->off;
            return e->seq;
        }
    }
    if ((m->n + 1) * 2 > m->cap) { /* full: known keys keep their numbers */
        if (m->n >= MAP_MAX || map_grow(m) != 0) return 0;
        for (j = h & (m->cap - 1); m->slot[j].seq; j = (j + 1) & (m->cap - 1)) {}
    }
    if (GPI_VEC_RESERVE(m->keys, m->keys_cap, m->keys_len + n + 1) != 0) return 0;
    memcpy(m->keys + m->keys_len, k, n);
    m->slot[j] = (seq_slot){h, (uint32_t)++m->n, (uint32_t)n, m->keys_len};
    *off = m->keys_len;
    m->keys_len += n;
    *first = 1;
    return m->slot[j].seq;
}

/* w_obs's strings (their order there) that are the profile's texts, in
 * gpi_obs_profile's order, and the identity */
static const int profile_src[GPI_PROFILE_TEXTS] = {0, 1, 2, 3, 4, 5, 9, 10, 12, 13, 15};
enum { IDENT_SRC = 7 };

/* Numbers o's profile and, for an offer, its identity (note 5); slen:
 * the lengths w_obs measured of its strings (length + 1, 0 for NULL). */
static void number(pipe_ctx *p, gpi_obs *o, const size_t *slen)
{
    if (p->unnumbered < p->number_after) {
        p->unnumbered++;
        return;
    }
    const char *text[GPI_PROFILE_TEXTS];
    int32_t ints[GPI_PROFILE_INTS];
    gpi_obs_profile(o, text, ints);
    size_t len[GPI_PROFILE_TEXTS], n = sizeof ints;
    for (int i = 0; i < GPI_PROFILE_TEXTS; i++) {
        size_t l = slen[profile_src[i]];
        len[i] = text[i] && !l ? 1 : l; /* a NULL region is "" */
        n += 1 + len[i];
    }
    if (GPI_VEC_RESERVE(p->scratch, p->scratch_cap, n) != 0) return;
    unsigned char *k = p->scratch;
    memcpy(k, ints, sizeof ints);
    size_t at = sizeof ints;
    for (int i = 0; i < GPI_PROFILE_TEXTS; i++) { /* NULL and "" differ */
        k[at++] = text[i] != NULL;
        memcpy(k + at, text[i] ? text[i] : "", len[i]);
        at += len[i];
    }
    size_t off = 0;
    uint32_t iseq = 0;
    if (o->kind == GPI_OFFER && o->ident)
        iseq = o->ident_seq = seq_of(&p->idents, (const unsigned char *)o->ident,
                                     slen[IDENT_SRC] - 1, &o->ident_first, &off);
    /* the profile the identity had last time, compared in place: an offer
     * mostly keeps its profile, and this skips the hash and the probe */
    const ident_profile *ip = iseq && iseq < p->cap_last ? &p->last[iseq] : NULL;
    if (ip && ip->seq && ip->len == at && memcmp(p->profiles.keys + ip->off, k, at) == 0) {
        o->profile_seq = ip->seq;
        o->profile_first = 0;
        return;
    }
    o->profile_seq = seq_of(&p->profiles, k, at, &o->profile_first, &off);
    if (iseq && o->profile_seq &&
        GPI_VEC_RESERVE_ZERO(p->last, p->cap_last, (size_t)iseq + 1) == 0)
        p->last[iseq] = (ident_profile){o->profile_seq, (uint32_t)at, off};
}

/* ---- the worker's sink ------------------------------------------------------- */

static int w_obs(void *ud, const gpi_obs *o, const char *raw)
{
    pipe_ctx *p = ud;
    if (stopped(p)) return 1;
    enum { N = 16 };
    const char *src[N] = {o->gpu,      o->provider,     o->group,     o->segment, o->region,
                          o->source,   o->id,           o->ident,     o->buyer,   o->raw_gpu,
                          o->raw_provider, o->raw_price, o->currency, o->sku,     raw,
                          o->correction};
    size_t len[N];
    batch *b = room(p, sizes(src, N, len));
    if (!b) return 1;
    event *e = &b->ev[b->n++];
    e->type = EV_OBS;
    e->o = *o;
    number(p, &e->o, len);
    const char **dst[N] = {&e->o.gpu,      &e->o.provider,     &e->o.group,     &e->o.segment,
                           &e->o.region,   &e->o.source,       &e->o.id,        &e->o.ident,
                           &e->o.buyer,    &e->o.raw_gpu,      &e->o.raw_provider,
                           &e->o.raw_price, &e->o.currency,    &e->o.sku,       &e->raw,
                           &e->o.correction};
    keep(b, dst, src, len, N);
    return 0;
}

static int w_reject(void *ud, long line, const char *column, const char *raw, const char *msg)
{
    pipe_ctx *p = ud;
    if (stopped(p)) return 1;
    const char *src[3] = {column, raw, msg};
    size_t len[3];
    batch *b = room(p, sizes(src, 3, len));
    if (!b) return 1;
    event *e = &b->ev[b->n++];
    e->type = EV_REJECT;
    e->line = line;
    const char **dst[3] = {&e->column, &e->raw, &e->msg};
    keep(b, dst, src, len, 3);
    return 0;
}

static void w_warn(void *ud, const char *msg)
{
    pipe_ctx *p = ud;
    size_t len;
    batch *b = room(p, sizes(&msg, 1, &len));
    if (!b) return;
    event *e = &b->ev[b->n++];
    e->type = EV_WARN;
    const char **dst = &e->msg;
    keep(b, &dst, &msg, &len, 1);
}

static void w_progress(void *ud, uint64_t done, uint64_t total)
{
    pipe_ctx *p = ud;
    batch *b = room(p, 0);
    if (!b) return;
    event *e = &b->ev[b->n++];
    e->type = EV_PROGRESS;
    e->done = done;
    e->total = total;
}

static void *worker(void *arg)
{
    pipe_ctx *p = arg;
    ingest_sink sink = {w_obs, w_reject, w_warn, w_progress, p};
    ingest_opts opt = *p->opt;
    opt.threads = 1;
    gpi_status rc = ingest_file(p->t, &opt, &sink, &p->res, &p->d);
    if (p->oom) rc = gpi_diag_set(&p->d, GPI_ENOMEM, "%s: out of memory", opt.path);
    if (p->cur && p->cur->n > 0) put_full(p, p->cur);
    else if (p->cur) { /* an empty batch goes back */
        pthread_mutex_lock(&p->mu);
        p->cur->next = p->free_list;
        p->free_list = p->cur;
        pthread_mutex_unlock(&p->mu);
    }
    p->cur = NULL;
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    p->finished = 1;
    pthread_cond_signal(&p->has_full);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the caller's side ----------------------------------------------------------- */

/* Delivers b's events, counting rows (observations and rejects) in
 * *rows; returns the line of the event whose callback asked to stop
 * (>= 0), or -1. */
static long deliver(const ingest_sink *sink, const batch *b, long *rows)
{
    for (size_t i = 0; i < b->n; i++) {
        const event *e = &b->ev[i];
        switch (e->type) {
        case EV_OBS:
            ++*rows;
            if (sink->obs(sink->ud, &e->o, e->raw)) return e->o.line;
            break;
        case EV_REJECT:
            ++*rows;
            if (sink->reject(sink->ud, e->line, e->column, e->raw, e->msg)) return e->line;
            break;
        case EV_WARN:
            if (sink->warn) sink->warn(sink->ud, e->msg);
            break;
        case EV_PROGRESS:
            if (sink->progress) sink->progress(sink->ud, e->done, e->total);
            break;
        }
    }
    return -1;
}

gpi_status ingest_file_piped(const ingest_tables *t, const ingest_opts *opt,
                             const ingest_sink *sink, ingest_result *res, gpi_diag *d)
{
    pipe_ctx *p = calloc(1, sizeof *p);
    batch *all[NBATCH] = {0};
    if (!p) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", opt->path);
    int ok = 1;
    for (int i = 0; i < NBATCH && ok; i++) {
        all[i] = calloc(1, sizeof *all[i]);
        ok = all[i] && (all[i]->arena = malloc(ARENA)) != NULL;
        if (ok) {
            all[i]->cap = ARENA;
            all[i]->next = p->free_list;
            p->free_list = all[i];
        }
    }
    pthread_t th;
    int started = 0;
    if (ok) {
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->has_free, NULL);
        pthread_cond_init(&p->has_full, NULL);
        p->t = t;
        p->opt = opt;
        p->number_after = opt->number_after > 0 ? opt->number_after : INGEST_NUMBER_AFTER;
        started = pthread_create(&th, NULL, worker, p) == 0;
        if (!started) {
            pthread_mutex_destroy(&p->mu);
            pthread_cond_destroy(&p->has_free);
            pthread_cond_destroy(&p->has_full);
        }
    }
    gpi_status rc = GPI_OK;
    if (!started) { /* no memory for the batches, or no thread: one thread */
        for (int i = 0; i < NBATCH; i++)
            if (all[i]) {
                free(all[i]->arena);
                free(all[i]);
            }
        free(p);
        ingest_opts one = *opt;
        one.threads = 1;
        return ingest_file(t, &one, sink, res, d);
    }
    long stop_line = -1, rows = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->full_head && !p->finished) pthread_cond_wait(&p->has_full, &p->mu);
        batch *b = p->full_head;
        if (b) {
            p->full_head = b->next;
            if (!p->full_head) p->full_tail = NULL;
        }
        pthread_mutex_unlock(&p->mu);
        if (!b) break; /* finished and drained */
        if (stop_line < 0) {
            stop_line = deliver(sink, b, &rows);
            if (stop_line >= 0) atomic_store(&p->stop, 1);
        }
        pthread_mutex_lock(&p->mu);
        b->next = p->free_list;
        p->free_list = b;
        pthread_cond_signal(&p->has_free);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_join(th, NULL);
    *res = p->res;
    if (stop_line >= 0) {
        /* what a one-thread run reports: the rows up to the stop */
        res->rows_read = rows;
        res->sha256[0] = '\0';
        rc = gpi_diag_set(d, GPI_ESTORE, "%s:%ld: stopped by the store", opt->path, stop_line);
    } else if (p->rc != GPI_OK) {
        rc = p->rc;
        if (d) *d = p->d;
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->has_free);
    pthread_cond_destroy(&p->has_full);
    for (int i = 0; i < NBATCH; i++)
        if (all[i]) {
            free(all[i]->arena);
            free(all[i]);
        }
    map_free(&p->profiles);
    map_free(&p->idents);
    free(p->last);
    free(p->scratch);
    free(p);
    return rc;
}
