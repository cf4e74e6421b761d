/*
 * oparray.c - an array that is appended to often: a log of operations.
 *
 * Adding x appends the record "+x", removing x appends "-x" (a record is
 * the op byte and a blob). Writers never read and never lock: append, and
 * if the key is missing, add; if that add lost to another writer, append
 * again. Reading replays the log: "-x" removes every x added before it,
 * the survivors keep their order.
 *
 * A log that grows past the compaction threshold is rewritten by the next
 * reader as just its survivors, with cas against the CAS value it read, so
 * an append that lands in between makes the cas fail and is never lost.
 *
 * With shards > 1 an element x lives in key ":<hash(x) % shards>", so each
 * key stays small; "+x" and "-x" always meet in the same shard. All shards
 * are on one server and are read with one multi-get.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define MAX_SHARDS 256u
#define DEFAULT_THRESHOLD 65536
#define APPEND_ATTEMPTS 3
#define OP_ADD '+'
#define OP_DEL '-'

struct mcds_oparray {
    mcds_t *h;
    mcds__key_t base;
    unsigned shards;
    size_t threshold;
};

/* A shard's log, replayed. */
typedef struct replay {
    mcds__list_t live; /* survivors, pointing into the fetched value */
    size_t removals;   /* number of "-x" records */
} replay_t;

mcds_status_t mcds_oparray_new(mcds_t *h, const char *name, unsigned shards,
                               mcds_oparray_t **out)
{
    mcds_oparray_t *a;
    mcds_status_t st;

    if (h == NULL || out == NULL || shards == 0 || shards > MAX_SHARDS)
        return MCDS_INVALID;
    *out = NULL;
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return MCDS_NO_MEMORY;
    st = mcds__key_base(&a->base, "ops", name);
    if (st == MCDS_OK)
        st = mcds__key_add(&a->base, ":999"); /* room for any shard key */
    if (st != MCDS_OK) {
        free(a);
        return st;
    }
    a->base.len -= 4;
    a->base.s[a->base.len] = '\0';
    a->h = h;
    a->shards = shards;
    a->threshold = DEFAULT_THRESHOLD;
    *out = a;
    return MCDS_OK;
}

void mcds_oparray_set_compact_threshold(mcds_oparray_t *a, size_t bytes)
{
    if (a != NULL)
        a->threshold = bytes;
}

void mcds_oparray_free(mcds_oparray_t *a)
{
    free(a);
}

static void shard_key(const mcds_oparray_t *a, unsigned shard, mcds__key_t *k)
{
    *k = a->base;
    mcds__key_add(k, ":");
    mcds__key_add_uint(k, shard);
}

/* ---- writing ---- */

static mcds_status_t append_op(mcds_oparray_t *a, char op, const void *data,
                               size_t len)
{
    unsigned shard = (unsigned)(mcds__hash(data, len) % a->shards);
    mcds__key_t key;
    mcds__buf_t rec;
    mcds_status_t st;
    int attempt;

    shard_key(a, shard, &key);
    mcds__buf_init(&rec);
    st = mcds__buf_put(&rec, &op, 1);
    if (st == MCDS_OK)
        st = mcds__buf_put_blob(&rec, data, len);
    for (attempt = 0; st == MCDS_OK && attempt < APPEND_ATTEMPTS; attempt++) {
        st = mcds__append(a->h, &a->base, &key, rec.p, rec.len);
        if (st != MCDS_NOT_FOUND)
            break;
        st = mcds__add(a->h, &a->base, &key, rec.p, rec.len, 0);
        if (st != MCDS_EXISTS)
            break;
        st = MCDS_OK;
    }
    /* The key exists but append keeps failing: the item size limit. */
    if (st == MCDS_OK && attempt == APPEND_ATTEMPTS)
        st = MCDS_TOO_LARGE;
    mcds__buf_free(&rec);
    return st;
}

mcds_status_t mcds_oparray_add(mcds_oparray_t *a, const void *data,
                               size_t len)
{
    if (a == NULL || (data == NULL && len > 0))
        return MCDS_INVALID;
    return append_op(a, OP_ADD, data, len);
}

mcds_status_t mcds_oparray_remove(mcds_oparray_t *a, const void *data,
                                  size_t len)
{
    if (a == NULL || (data == NULL && len > 0))
        return MCDS_INVALID;
    return append_op(a, OP_DEL, data, len);
}

/* ---- replaying ---- */

/* Splits a log into its records: ops[i] is the op byte of items[i]. */
static mcds_status_t split_ops(const char *p, size_t len, mcds__list_t *items,
                               mcds__buf_t *ops)
{
    size_t pos = 0;

    while (pos < len) {
        char op = p[pos++];
        const char *data;
        size_t dlen;
        mcds_status_t st;

        if ((op != OP_ADD && op != OP_DEL) ||
            mcds__get_blob(p, len, &pos, &data, &dlen) != 0)
            return MCDS_CORRUPT;
        st = mcds__list_push(items, data, dlen);
        if (st == MCDS_OK)
            st = mcds__buf_put(ops, &op, 1);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

/* An add survives unless the same element is removed later: walk the log
 * backwards remembering removed elements, then keep the order. */
static mcds_status_t keep_survivors(const mcds__list_t *items,
                                    const char *ops, replay_t *r)
{
    mcds__strset_t *removed = mcds__strset_new(items->n);
    char *keep = calloc(items->n + 1, 1);
    mcds_status_t st = MCDS_OK;
    size_t i;

    if (removed == NULL || keep == NULL)
        st = MCDS_NO_MEMORY;
    for (i = items->n; st == MCDS_OK && i-- > 0;) {
        const mcds_item_t *it = &items->v[i];
        if (ops[i] == OP_DEL) {
            r->removals++;
            if (mcds__strset_add(removed, it->data, it->len) != 0)
                st = MCDS_NO_MEMORY;
        } else {
            keep[i] = !mcds__strset_has(removed, it->data, it->len);
        }
    }
    for (i = 0; st == MCDS_OK && i < items->n; i++) {
        if (keep[i])
            st = mcds__list_push(&r->live, items->v[i].data, items->v[i].len);
    }
    mcds__strset_free(removed);
    free(keep);
    return st;
}

static mcds_status_t replay(const char *p, size_t len, replay_t *r)
{
    mcds__list_t items;
    mcds__buf_t ops;
    mcds_status_t st;

    mcds__list_init(&r->live);
    r->removals = 0;
    mcds__list_init(&items);
    mcds__buf_init(&ops);
    st = split_ops(p, len, &items, &ops);
    if (st == MCDS_OK)
        st = keep_survivors(&items, ops.p, r);
    mcds__list_free(&items);
    mcds__buf_free(&ops);
    return st;
}

/* ---- compaction ---- */

/* The survivors as a log of adds. */
static mcds_status_t encode_adds(const mcds__list_t *live, mcds__buf_t *b)
{
    char op = OP_ADD;
    mcds_status_t st = MCDS_OK;
    size_t i;

    for (i = 0; st == MCDS_OK && i < live->n; i++) {
        st = mcds__buf_put(b, &op, 1);
        if (st == MCDS_OK)
            st = mcds__buf_put_blob(b, live->v[i].data, live->v[i].len);
    }
    return st;
}

/* Rewrites a shard when force, or when its log is past the threshold and
 * the rewrite saves a quarter. A lost cas race is not an error. */
static mcds_status_t compact_shard(mcds_oparray_t *a, const mcds__key_t *key,
                                   const mcds__val_t *v, const replay_t *r,
                                   int force)
{
    mcds__buf_t b;
    mcds_status_t st;

    if (r->removals == 0 || (!force && v->len <= a->threshold))
        return MCDS_OK;
    mcds__buf_init(&b);
    st = encode_adds(&r->live, &b);
    if (st == MCDS_OK && (force || b.len <= v->len / 4 * 3))
        st = mcds__cas(a->h, &a->base, key, b.p, b.len, 0, v->cas);
    mcds__buf_free(&b);
    return st == MCDS_EXISTS || st == MCDS_NOT_FOUND ? MCDS_OK : st;
}

/* ---- reading ---- */

static mcds_status_t get_shards(mcds_oparray_t *a, mcds__key_t **keys,
                                mcds__val_t **vals)
{
    unsigned i;

    *keys = malloc(a->shards * sizeof **keys);
    *vals = calloc(a->shards, sizeof **vals);
    if (*keys == NULL || *vals == NULL)
        return MCDS_NO_MEMORY;
    for (i = 0; i < a->shards; i++)
        shard_key(a, i, &(*keys)[i]);
    return mcds__mget(a->h, &a->base, *keys, a->shards, *vals);
}

static void free_shards(mcds_oparray_t *a, mcds__key_t *keys,
                        mcds__val_t *vals)
{
    unsigned i;

    for (i = 0; vals != NULL && i < a->shards; i++)
        mcds__val_free(&vals[i]);
    free(vals);
    free(keys);
}

/* Replays every shard into all; compacts as allowed (force: always). */
static mcds_status_t replay_shards(mcds_oparray_t *a, const mcds__key_t *keys,
                                   const mcds__val_t *vals, int force,
                                   mcds__list_t *all)
{
    mcds_status_t st = MCDS_OK, cst = MCDS_OK;
    unsigned i;
    size_t j;

    for (i = 0; st == MCDS_OK && i < a->shards; i++) {
        replay_t r;
        if (!vals[i].found)
            continue;
        st = replay(vals[i].data, vals[i].len, &r);
        for (j = 0; st == MCDS_OK && j < r.live.n; j++)
            st = mcds__list_push(all, r.live.v[j].data, r.live.v[j].len);
        if (st == MCDS_OK && cst == MCDS_OK)
            cst = compact_shard(a, &keys[i], &vals[i], &r, force);
        mcds__list_free(&r.live);
    }
    /* A failed opportunistic compaction does not spoil a good read. */
    return st != MCDS_OK ? st : (force ? cst : MCDS_OK);
}

mcds_status_t mcds_oparray_fetch(mcds_oparray_t *a, mcds_item_t **items,
                                 size_t *count)
{
    mcds__key_t *keys = NULL;
    mcds__val_t *vals = NULL;
    mcds__list_t all;
    mcds_status_t st;

    if (a == NULL || items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    mcds__list_init(&all);
    st = get_shards(a, &keys, &vals);
    if (st == MCDS_OK)
        st = replay_shards(a, keys, vals, 0, &all);
    if (st == MCDS_OK)
        st = mcds__items_pack(all.v, all.n, items);
    if (st == MCDS_OK)
        *count = all.n;
    mcds__list_free(&all);
    free_shards(a, keys, vals);
    return st;
}

mcds_status_t mcds_oparray_compact(mcds_oparray_t *a)
{
    mcds__key_t *keys = NULL;
    mcds__val_t *vals = NULL;
    mcds__list_t all;
    mcds_status_t st;

    if (a == NULL)
        return MCDS_INVALID;
    mcds__list_init(&all);
    st = get_shards(a, &keys, &vals);
    if (st == MCDS_OK)
        st = replay_shards(a, keys, vals, 1, &all);
    mcds__list_free(&all);
    free_shards(a, keys, vals);
    return st;
}

mcds_status_t mcds_oparray_delete(mcds_oparray_t *a)
{
    unsigned i;

    if (a == NULL)
        return MCDS_INVALID;
    for (i = 0; i < a->shards; i++) {
        mcds__key_t key;
        mcds_status_t st;
        shard_key(a, i, &key);
        st = mcds__delete(a->h, &a->base, &key);
        if (st != MCDS_OK && st != MCDS_NOT_FOUND)
            return st;
    }
    return MCDS_OK;
}
