/*
 * table: the registry of tables (their own namespace, a hash of names
 * under one mutex, each table referenced while in use), a table's
 * creation, its indexes' creation and removal, tinfo, tlist, memory
 * accounting and `stats`.
 *
 * Locks: the registry's mutex guards names and references only; each
 * table has a read-write lock for its rows and indexes (writers
 * exclusive, readers shared). A dropped table leaves the registry at once
 * and is freed by whoever gives back its last reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "cache/item.h"
#include "persist/persist.h"
#include "types/table_int.h"

#define TBL_BUCKETS 1024

static pthread_mutex_t table_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct table *table_buckets[TBL_BUCKETS];
static bool (*table_room_fn)(size_t need);

/* Atomic counters for `stats`. */
static uint64_t table_ntables, table_nrows, table_nentries, table_nbytes, table_ncursors, table_nexpired,
    table_nbuild_failed, table_ids;

uint64_t table_new_id(void) {
    return __atomic_add_fetch(&table_ids, 1, __ATOMIC_RELAXED);
}

bool table_room(size_t need) {
    return table_room_fn == NULL || table_room_fn(need);
}

void table_charge(struct table *t, long bytes) {
    t->mem += (size_t)bytes;
    __atomic_add_fetch(&table_nbytes, (uint64_t)bytes, __ATOMIC_RELAXED);
    item_mem_charge(bytes);
}

void table_stat_rows(long d) {
    __atomic_add_fetch(&table_nrows, (uint64_t)d, __ATOMIC_RELAXED);
}

void table_stat_entries(long d) {
    __atomic_add_fetch(&table_nentries, (uint64_t)d, __ATOMIC_RELAXED);
}

void table_stat_cursors(long d) {
    __atomic_add_fetch(&table_ncursors, (uint64_t)d, __ATOMIC_RELAXED);
}

void table_stat_expired(void) {
    __atomic_add_fetch(&table_nexpired, 1, __ATOMIC_RELAXED);
}

void table_stat_build_failed(void) {
    __atomic_add_fetch(&table_nbuild_failed, 1, __ATOMIC_RELAXED);
}

static uint64_t table_load(uint64_t *v) {
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static void table_stats_emit(stats_emit_fn emit, void *ctx) {
    stats_emit_u64(emit, ctx, "tables", table_load(&table_ntables));
    stats_emit_u64(emit, ctx, "table_rows", table_load(&table_nrows));
    stats_emit_u64(emit, ctx, "table_index_entries", table_load(&table_nentries));
    stats_emit_u64(emit, ctx, "table_bytes", table_load(&table_nbytes));
    stats_emit_u64(emit, ctx, "table_cursors", table_cursor_count());
    stats_emit_u64(emit, ctx, "table_cursors_expired", table_load(&table_nexpired));
    stats_emit_u64(emit, ctx, "table_index_builds_failed", table_load(&table_nbuild_failed));
}

static const struct stats_provider table_stats_provider = { "tables", STATS_PLACE_MCDS, 25, table_stats_emit };

void table_system_init(bool (*room)(size_t need)) {
    stats_provide(&table_stats_provider);
    table_room_fn = room;
}

/* ---- indexes ---- */

struct tbl_index *table_index_new(struct table *t, const struct tbl_index_def *d) {
    struct tbl_index *ix = calloc(1, sizeof(*ix));

    if (ix == NULL)
        return NULL;
    if (!tskip_init(&ix->sl, (uint32_t)table_new_id() * 2654435761u)) {
        free(ix);
        return NULL;
    }
    ix->def = *d;
    ix->id = table_new_id();
    table_charge(t, (long)(sizeof(*ix) + tskip_node_size(ix->sl.head)));
    return ix;
}

/* Frees ix and its entries (not the rows they point to). */
void table_index_free(struct table *t, struct tbl_index *ix) {
    struct tskip_node *n;
    long bytes = (long)(sizeof(*ix) + tskip_node_size(ix->sl.head));

    for (n = tskip_seek(&ix->sl, NULL, 0, false); n != NULL; n = tskip_next(n))
        bytes += (long)tskip_node_size(n);
    table_stat_entries(-(long)ix->sl.n);
    table_charge(t, -bytes);
    tskip_destroy(&ix->sl, NULL);
    free(ix->built);
    free(ix);
}

/* ---- the registry ---- */

static uint32_t table_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h % TBL_BUCKETS;
}

static struct table **table_slot(const char *name, size_t nname) {
    struct table **p = &table_buckets[table_hash(name, nname)];

    while (*p != NULL && ((*p)->nname != nname || memcmp((*p)->name, name, nname) != 0))
        p = &(*p)->hnext;
    return p;
}

static void table_free(struct table *t) {
    int i;

    for (i = t->nidx - 1; i >= 1; i--)
        table_index_free(t, t->idx[i]);
    if (t->nidx > 0) {
        struct tskip_node *n;

        for (n = tskip_seek(&t->idx[0]->sl, NULL, 0, false); n != NULL; n = tskip_next(n))
            table_row_free(t, n->val);
        table_stat_rows(-(long)t->idx[0]->sl.n);
        table_index_free(t, t->idx[0]);
    }
    table_charge(t, -(long)sizeof(*t));
    pthread_rwlock_destroy(&t->lock);
    free(t);
}

struct table *table_get(const char *name, size_t nname) {
    struct table *t;

    pthread_mutex_lock(&table_reg_lock);
    t = *table_slot(name, nname);
    if (t != NULL)
        t->refs++;
    pthread_mutex_unlock(&table_reg_lock);
    return t;
}

void table_ref(struct table *t) {
    pthread_mutex_lock(&table_reg_lock);
    t->refs++;
    pthread_mutex_unlock(&table_reg_lock);
}

void table_put(struct table *t) {
    bool last;

    pthread_mutex_lock(&table_reg_lock);
    last = --t->refs == 0;
    pthread_mutex_unlock(&table_reg_lock);
    if (last)
        table_free(t);
}

/* A new table of schema s with its indexes, not registered; NULL when
 * there is no memory. */
static struct table *table_new(const char *name, size_t nname, const struct tbl_schema *s) {
    struct table *t = calloc(1, sizeof(*t));
    struct tbl_index_def pk = { .name = "primary" };
    int i;

    if (t == NULL)
        return NULL;
    memcpy(t->name, name, nname);
    t->nname = nname;
    t->id = table_new_id();
    t->refs = 1;
    t->s = *s;
    pthread_rwlock_init(&t->lock, NULL);
    table_charge(t, (long)sizeof(*t));
    pk.nparts = s->nkey;
    for (i = 0; i < s->nkey; i++)
        pk.part[i].field = s->key[i];
    for (i = 0; i <= s->nidx; i++) {
        if ((t->idx[i] = table_index_new(t, i == 0 ? &pk : &s->idx[i - 1])) == NULL) {
            table_free(t);
            return NULL;
        }
        t->nidx++;
    }
    return t;
}

enum tbl_result table_create(const char *name, size_t nname, const struct tbl_schema *s) {
    struct table *t, **p;

    if (!table_room(sizeof(*t) + (size_t)(s->nidx + 1) * 512))
        return TBL_NOMEM;
    if ((t = table_new(name, nname, s)) == NULL)
        return TBL_NOMEM;
    pthread_mutex_lock(&table_reg_lock);
    p = table_slot(name, nname);
    if (*p == NULL) {
        *p = t;
        __atomic_add_fetch(&table_ntables, 1, __ATOMIC_RELAXED);
        table_persist_create(t);
    }
    pthread_mutex_unlock(&table_reg_lock);
    if (*p != t) {
        table_free(t);
        return TBL_EXISTS;
    }
    return TBL_OK;
}

/* Takes the table out of the registry (logging its drop when log) and
 * gives back the registry's reference. */
static enum tbl_result table_unregister(const char *name, size_t nname, bool log) {
    struct table *t, **p;

    pthread_mutex_lock(&table_reg_lock);
    p = table_slot(name, nname);
    if ((t = *p) != NULL) {
        *p = t->hnext;
        t->dropped = true;
        __atomic_sub_fetch(&table_ntables, 1, __ATOMIC_RELAXED);
        if (log)
            table_persist_drop(t);
    }
    pthread_mutex_unlock(&table_reg_lock);
    if (t == NULL)
        return TBL_NOT_FOUND;
    table_put(t);
    return TBL_OK;
}

enum tbl_result table_drop(const char *name, size_t nname) {
    return table_unregister(name, nname, true);
}

/* Frees every table; a shutdown logs nothing. */
void table_system_shutdown(void) {
    int b;

    table_build_shutdown();
    table_cursor_shutdown();
    for (b = 0; b < TBL_BUCKETS; b++)
        while (table_buckets[b] != NULL) {
            struct table *t = table_buckets[b];

            table_unregister(t->name, t->nname, false);
        }
}

int table_each(int (*fn)(void *arg, struct table *t), void *arg) {
    struct table *t;
    int b, rc = 0;

    pthread_mutex_lock(&table_reg_lock);
    for (b = 0; b < TBL_BUCKETS && rc == 0; b++)
        for (t = table_buckets[b]; t != NULL && rc == 0; t = t->hnext)
            rc = fn(arg, t);
    pthread_mutex_unlock(&table_reg_lock);
    return rc;
}

void table_list(void (*fn)(void *arg, const char *name, size_t nname, uint64_t rows), void *arg) {
    struct table *t;
    int b;

    pthread_mutex_lock(&table_reg_lock);
    for (b = 0; b < TBL_BUCKETS; b++)
        for (t = table_buckets[b]; t != NULL; t = t->hnext)
            fn(arg, t->name, t->nname, __atomic_load_n(&t->idx[0]->sl.n, __ATOMIC_RELAXED));
    pthread_mutex_unlock(&table_reg_lock);
}

/* ---- indexes added and dropped ---- */

static int table_index_find(const struct table *t, const char *name) {
    int i;

    for (i = 0; i < t->nidx; i++)
        if (strcmp(t->idx[i]->def.name, name) == 0)
            return i;
    return -1;
}

bool table_index_lookup(struct table *t, const char *n, struct tbl_index_def *d, bool *building) {
    int i;

    pthread_rwlock_rdlock(&t->lock);
    i = table_index_find(t, n);
    if (i >= 0) {
        *d = t->idx[i]->def;
        *building = t->idx[i]->building;
    }
    pthread_rwlock_unlock(&t->lock);
    return i >= 0;
}

enum tbl_result table_add_index(struct table *t, const struct tbl_index_def *d) {
    struct tbl_index *ix;
    enum tbl_result r = TBL_OK;

    if (!table_room(sizeof(*ix) + 512))
        return TBL_NOMEM;
    pthread_rwlock_wrlock(&t->lock);
    if (table_index_find(t, d->name) >= 0 || t->nidx == TBL_INDEXES_MAX)
        r = TBL_BAD;
    else if ((ix = table_index_new(t, d)) == NULL)
        r = TBL_NOMEM;
    else {
        ix->building = t->idx[0]->sl.n > 0;
        t->idx[t->nidx++] = ix;
        table_persist_index(t, d, true);
        if (ix->building && persist_replaying())
            table_build_now(t, ix);
        else if (ix->building)
            table_build_start(t, ix);
    }
    pthread_rwlock_unlock(&t->lock);
    return r;
}

enum tbl_result table_drop_index(struct table *t, const char *name) {
    int i;

    pthread_rwlock_wrlock(&t->lock);
    i = table_index_find(t, name);
    if (i > 0) {
        table_persist_index(t, &t->idx[i]->def, false);
        table_index_free(t, t->idx[i]);
        memmove(&t->idx[i], &t->idx[i + 1], (size_t)(t->nidx - i - 1) * sizeof(t->idx[0]));
        t->nidx--;
    }
    pthread_rwlock_unlock(&t->lock);
    return i < 0 ? TBL_NOT_FOUND : i == 0 ? TBL_BAD : TBL_OK;
}

/* ---- tinfo ---- */

static size_t table_parts_text(const struct table *t, const struct tbl_index_def *d, char *out, size_t cap) {
    size_t n = 0;
    int i;

    for (i = 0; i < d->nparts && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s", i > 0 ? "+" : "", t->s.name[d->part[i].field],
                              d->part[i].desc ? ":desc" : "", d->part[i].nulls_last ? ":nullslast" : "");
    return n < cap ? n : cap - 1;
}

void table_info(struct table *t, void (*line)(void *arg, const char *s, size_t n), void *arg) {
    char buf[TBL_PARTS_MAX * (TBL_NAME_MAX + 16) + TBL_NAME_MAX + 80], parts[TBL_PARTS_MAX * (TBL_NAME_MAX + 16)];
    int f, i, k;
    bool key;

    pthread_rwlock_rdlock(&t->lock);
    for (f = 0; f < t->s.nf; f++) {
        for (key = false, k = 0; k < t->s.nkey; k++)
            key = key || t->s.key[k] == f;
        line(arg, buf, (size_t)snprintf(buf, sizeof(buf), "FIELD %s %s%s\r\n", t->s.name[f],
                                        t->s.type[f] == TBL_INT ? "int" : "bytes", key ? " key" : ""));
    }
    for (i = 0; i < t->nidx; i++) {
        parts[table_parts_text(t, &t->idx[i]->def, parts, sizeof(parts))] = '\0';
        line(arg, buf, (size_t)snprintf(buf, sizeof(buf), "INDEX %s %s %s %llu\r\n", t->idx[i]->def.name, parts,
                                        t->idx[i]->building ? "building" : "ready",
                                        (unsigned long long)t->idx[i]->sl.n));
    }
    line(arg, buf, (size_t)snprintf(buf, sizeof(buf), "STAT rows %llu\r\nSTAT bytes %llu\r\nSTAT version %llu\r\n",
                                    (unsigned long long)t->idx[0]->sl.n, (unsigned long long)t->mem,
                                    (unsigned long long)t->ver));
    pthread_rwlock_unlock(&t->lock);
}
