/* store/names.c -- interned text for the observations table.
 *
 * Observations repeat a few hundred distinct strings millions of times
 * (gpu, provider, group, segment, region, source, sku, ...).  They are
 * stored once in `names` and referenced by integer id, which keeps a row
 * small (faster ingest, smaller file) and lets the duplicate check compare
 * integers.  The handle keeps every name in memory in both directions:
 * id -> text (an array; ids are INTEGER PRIMARY KEY values) and text -> id
 * (an open-addressing table), loaded lazily from the table.  The texts
 * lie in 64 KiB chunks (one allocation per chunk, not per name: every
 * process of a daily job loads the bench market's 18,515 names), which
 * never move or go before a reset, so a text handed out stays valid.
 *
 * Names inserted inside a transaction that is rolled back disappear from
 * the database, so store_rollback() drops the cache (store_names_reset);
 * it is reloaded on next use.  Another process may add names at any time:
 * a text missing from the cache is looked up in the table before it is
 * inserted, and an id missing from the cache triggers a reload.
 */
#include "store/internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

enum { NS_LOAD, NS_FIND, NS_INSERT };
static const char *const ns_sql[] = {
    [NS_LOAD] = "SELECT name_id, name FROM names",
    [NS_FIND] = "SELECT name_id FROM names WHERE name = ?1",
    [NS_INSERT] = "INSERT INTO names(name) VALUES (?1)",
};
/* extra statement slots used here (store_stmt) */
#define NS_SLOT(i) (STORE_EXTRA_STMTS - 8 + (i))

static uint64_t hash(const char *s)
{
    return gpi_fnv1a64(s, strlen(s), GPI_FNV_SEED);
}

void store_names_reset(store *st)
{
    store_names *nm = &st->names;
    for (size_t i = 0; i < nm->n_chunks; i++) free(nm->chunks[i]);
    free(nm->chunks);
    free(nm->text);
    free(nm->slots);
    memset(nm, 0, sizeof *nm);
}

static int slot_insert(store_names *nm, int64_t id)
{
    if ((nm->n + 1) * 2 > nm->nslots) {
        size_t ns = nm->nslots ? nm->nslots * 2 : 1024;
        store_name_slot *s = calloc(ns, sizeof *s);
        if (!s) return -1;
        for (size_t i = 0; i < nm->nslots; i++) {
            if (!nm->slots[i].id) continue;
            size_t j = nm->slots[i].hash & (ns - 1);
            while (s[j].id) j = (j + 1) & (ns - 1);
            s[j] = nm->slots[i];
        }
        free(nm->slots);
        nm->slots = s;
        nm->nslots = ns;
    }
    uint64_t h = hash(nm->text[id]);
    size_t j = h & (nm->nslots - 1);
    while (nm->slots[j].id) j = (j + 1) & (nm->nslots - 1);
    nm->slots[j].hash = h;
    nm->slots[j].id = id;
    nm->n++;
    return 0;
}

enum { CHUNK = 64 << 10 };

/* Room for n bytes of text: the current chunk's end, or a new chunk (of
 * its own when n is larger than a chunk); NULL out of memory.  One
 * allocation per 64 KiB instead of one per name (18,515 names on the bench
 * market, loaded by every process). */
static char *text_room(store_names *nm, size_t n)
{
    if (n > nm->chunk_left) {
        size_t size = n > CHUNK ? n : CHUNK;
        if (GPI_VEC_RESERVE(nm->chunks, nm->cap_chunks, nm->n_chunks + 1) != 0) return NULL;
        char *c = malloc(size);
        if (!c) return NULL;
        nm->chunks[nm->n_chunks++] = c;
        if (n > CHUNK) return c; /* a chunk of its own; the current one stays */
        nm->chunk_at = c;
        nm->chunk_left = size;
    }
    char *at = nm->chunk_at;
    nm->chunk_at += n;
    nm->chunk_left -= n;
    return at;
}

/* Records id -> text in the cache (and text -> id once a lookup by text
 * asked for that table: a reading handle never does). */
static int remember(store_names *nm, int64_t id, const char *text, size_t len)
{
    if (id <= 0 || id > INT32_MAX) return -1;
    if (GPI_VEC_RESERVE_ZERO(nm->text, nm->cap_ids, (size_t)id + 1) != 0) return -1;
    if (nm->text[id]) return 0;
    nm->text[id] = text_room(nm, len + 1);
    if (!nm->text[id]) return -1;
    memcpy(nm->text[id], text, len + 1);
    nm->n_text++;
    return nm->indexed ? slot_insert(nm, id) : 0;
}

/* Builds the text -> id table of every known name (the first lookup by
 * text); -1 out of memory. */
static int index_all(store_names *nm)
{
    nm->indexed = 1;
    size_t ns = 1024; /* at its size at once, not doubled 1,024 -> 65,536 */
    while (ns < 2 * (nm->n_text + 1)) ns *= 2;
    if (ns > nm->nslots) {
        free(nm->slots); /* nothing slotted yet */
        nm->slots = calloc(ns, sizeof *nm->slots);
        if (!nm->slots) return -1;
        nm->nslots = ns;
        nm->n = 0;
    }
    for (size_t id = 1; id < nm->cap_ids; id++)
        if (nm->text[id] && slot_insert(nm, (int64_t)id) != 0) return -1;
    return 0;
}

/* Adds every stored name missing from the cache; never frees one, so
 * texts handed out stay valid. */
static gpi_status load(store *st, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, NS_SLOT(NS_LOAD), ns_sql[NS_LOAD], d);
    if (!s) return GPI_ESTORE;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (remember(&st->names, sqlite3_column_int64(s, 0),
                     (const char *)sqlite3_column_text(s, 1),
                     (size_t)sqlite3_column_bytes(s, 1)) != 0) {
            sqlite3_reset(s);
            return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
        }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "reading names");
    st->names.loaded = 1;
    return GPI_OK;
}

gpi_status store_name_id(store *st, const char *text, int64_t *id, gpi_diag *d)
{
    store_names *nm = &st->names;
    *id = 0;
    if (!text) return GPI_OK;
    if (!nm->loaded) {
        gpi_status rc = load(st, d);
        if (rc != GPI_OK) return rc;
    }
    if (!nm->indexed && index_all(nm) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    if (nm->nslots) {
        uint64_t h = hash(text);
        size_t j = h & (nm->nslots - 1);
        for (; nm->slots[j].id; j = (j + 1) & (nm->nslots - 1))
            if (nm->slots[j].hash == h && strcmp(nm->text[nm->slots[j].id], text) == 0) {
                *id = nm->slots[j].id;
                return GPI_OK;
            }
    }
    sqlite3_stmt *s = store_stmt(st, NS_SLOT(NS_FIND), ns_sql[NS_FIND], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_err(st, d, "finding a name");
    if (rc == SQLITE_DONE) {
        s = store_stmt(st, NS_SLOT(NS_INSERT), ns_sql[NS_INSERT], d);
        if (!s) return GPI_ESTORE;
        sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
        rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) return store_err(st, d, "storing a name");
        *id = sqlite3_last_insert_rowid(st->db);
    }
    if (remember(nm, *id, text, strlen(text)) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    return GPI_OK;
}

gpi_status store_name_id_memo(store *st, int k, const char *text, int64_t *id, gpi_diag *d)
{
    store_names *nm = &st->names;
    if (text && nm->memo_id[k] && strcmp(nm->memo_text[k], text) == 0) {
        *id = nm->memo_id[k];
        return GPI_OK;
    }
    gpi_status rc = store_name_id(st, text, id, d);
    if (rc == GPI_OK && text) {
        size_t n = strlen(text);
        nm->memo_id[k] = n < STORE_MEMO_LEN ? *id : 0;
        if (n < STORE_MEMO_LEN) memcpy(nm->memo_text[k], text, n + 1);
    }
    return rc;
}

const char *store_name_text(store *st, int64_t id)
{
    store_names *nm = &st->names;
    if (id <= 0) return NULL;
    if (!nm->loaded || (size_t)id >= nm->cap_ids || !nm->text[id])
        if (load(st, NULL) != GPI_OK) return NULL;
    return (size_t)id < nm->cap_ids ? nm->text[id] : NULL;
}
