/* ingest/strmap.c -- a bump arena and an open-addressing string map.
 *
 * Both exist so the tables are built once and every row's lookups cost a
 * hash and a compare, with no allocation.  The map uses linear probing at
 * a load factor of at most 1/2 and FNV-1a as its hash.
 */
#include "ingest/internal.h"

#include <stdlib.h>
#include <string.h>

struct arena_blk {
    arena_blk *next;
    size_t used, cap;
    max_align_t data[];
};

void *arena_alloc(arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_blk *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void arena_free(arena *a)
{
    while (a->head) {
        arena_blk *n = a->head->next;
        free(a->head);
        a->head = n;
    }
}

static size_t slot_of(const strmap *m, const char *key, size_t len)
{
    uint64_t h = gpi_fnv1a64(key, len, GPI_FNV_SEED);
    size_t i = (size_t)h & (m->cap - 1);
    while (m->keys[i] && !(m->lens[i] == len && memcmp(m->keys[i], key, len) == 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    strmap nm = {calloc(cap, sizeof *nm.keys), calloc(cap, sizeof *nm.lens),
                 calloc(cap, sizeof *nm.vals), cap, 0};
    if (!nm.keys || !nm.lens || !nm.vals) {
        strmap_free(&nm);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = slot_of(&nm, m->keys[i], m->lens[i]);
        nm.keys[j] = m->keys[i];
        nm.lens[j] = m->lens[i];
        nm.vals[j] = m->vals[i];
        nm.n++;
    }
    strmap_free(m);
    *m = nm;
    return 0;
}

int strmap_put(strmap *m, const char *key, size_t len, int val)
{
    if (len > UINT32_MAX) return -1;
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0) return -1;
    size_t i = slot_of(m, key, len);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->lens[i] = (uint32_t)len;
        m->n++;
    }
    m->vals[i] = val;
    return 0;
}

int strmap_get(const strmap *m, const char *key, size_t len)
{
    if (!m->cap) return -1;
    size_t i = slot_of(m, key, len);
    return m->keys[i] ? m->vals[i] : -1;
}

void strmap_free(strmap *m)
{
    free(m->keys);
    free(m->lens);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
