/*
 * store/list_replay: lists back into the keyspace at start-up, from the
 * log records and snapshot entries types/list_persist.c writes (their
 * formats are described there): each record applied to the list it
 * names, each snapshot entry loaded; and the list type's registration
 * with persistence.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "store/list_replay.h"
#include "store/store.h"
#include "store/store_list.h"
#include "types/list_int.h"
#include "types/list_persist.h"

/* ---- replay ---- */

static item *lp_list(const char *key, size_t nkey, bool make, const struct list_opts *o) {
    enum store_status st;

    return store_list_open(key, nkey, make, o, &st);
}

static bool lp_ignore(const char *p, size_t n, void *arg) {
    (void)p;
    (void)n;
    (void)arg;
    return true;
}

/* A value after a u32 length. */
static bool lp_get_val(struct codec_in *in, struct list_val *v) {
    v->n = codec_get_u32(in);
    v->p = (const char *)codec_get_bytes(in, v->n);
    return !in->bad;
}

/* Applies a record to list l (locked). -1: it makes no sense. */
static int lp_apply_to(struct list *l, uint8_t op, struct codec_in *in) {
    struct list_val v;
    uint64_t a, b, removed;
    uint8_t e;

    switch (op) {
    case LR_PUSH:
        e = codec_get_u8(in);
        if (!lp_get_val(in, &v) || e > LIST_TAIL)
            return -1;
        return list_put_at(l, e == LIST_HEAD ? 0 : l->count, v.p, v.n) == LIST_OK ? 0 : -1;
    case LR_POP:
        e = codec_get_u8(in);
        a = codec_get_u32(in);
        if (in->bad || e > LIST_TAIL)
            return -1;
        list_pop_locked(l, (enum list_end)e, (int)a, lp_ignore, NULL);
        return 0;
    case LR_SET:
    case LR_INSERT:
        a = codec_get_u64(in);
        if (!lp_get_val(in, &v) || a > l->count || (op == LR_SET && a == l->count))
            return -1;
        if (list_put_at(l, a, v.p, v.n) != LIST_OK)
            return -1;
        if (op == LR_SET)
            list_cut_at(l, a + 1);
        return 0;
    case LR_REM:
        a = codec_get_u64(in);
        if (!lp_get_val(in, &v))
            return -1;
        return list_remove_locked(l, (int64_t)a, &v, SIZE_MAX, &removed) == LIST_OK ? 0 : -1;
    case LR_TRIM:
        a = codec_get_u64(in);
        b = codec_get_u64(in);
        if (in->bad || a > b || b > l->count)
            return -1;
        list_keep(l, a, b);
        return 0;
    }
    return -1;
}

/* The element at end e of l (locked) equals v. */
static bool lp_end_is(struct list *l, enum list_end e, const struct list_val *v) {
    struct lchunk *c = e == LIST_HEAD ? list_chunk_first(l->root) : list_chunk_last(l->root);
    const char *p;
    size_t n;

    if (l->count == 0)
        return false;
    list_elem_read(c, list_chunk_at(c, e == LIST_HEAD ? 0 : c->count - 1), &p, &n);
    return n == v->n && memcmp(p, v->p, n) == 0;
}

/* LR_MOVE: out of the source (key), whose element at its end must be the
 * value, into the destination (made if missing, as a push makes it),
 * each unless its snapshot holds the move already. Either both sides or
 * neither. */
static int lp_apply_move(const char *key, size_t nkey, struct codec_in *in, uint64_t lsn) {
    struct list_val v;
    size_t ndst;
    const char *dst = codec_get_key(in, &ndst);
    uint8_t se = codec_get_u8(in), de = codec_get_u8(in);
    item *pin;
    int rc = 0;

    if (dst == NULL || ndst == 0 || !lp_get_val(in, &v) || se > LIST_TAIL || de > LIST_TAIL)
        return -1;
    if ((pin = lp_list(key, nkey, false, NULL)) != NULL) {
        struct list *l = store_list_of(pin);
        pthread_mutex_lock(&l->lock);
        if (lsn >= l->replay_lsn && !lp_end_is(l, (enum list_end)se, &v))
            rc = -1;
        else if (lsn >= l->replay_lsn)
            list_pop_locked(l, (enum list_end)se, 1, lp_ignore, NULL);
        pthread_mutex_unlock(&l->lock);
        item_release(pin);
    }
    if (rc == 0 && (pin = lp_list(dst, ndst, true, NULL)) != NULL) {
        struct list *l = store_list_of(pin);
        pthread_mutex_lock(&l->lock);
        if (lsn >= l->replay_lsn)
            rc = list_put_at(l, de == LIST_HEAD ? 0 : l->count, v.p, v.n) == LIST_OK ? 0 : -1;
        pthread_mutex_unlock(&l->lock);
        item_release(pin);
    }
    return rc;
}

static int lp_apply_drop(const char *key, size_t nkey, uint64_t lsn) {
    item *pin = lp_list(key, nkey, false, NULL);
    bool drop;

    if (pin == NULL)
        return 0;
    drop = lsn >= store_list_of(pin)->replay_lsn;
    item_release(pin);
    if (drop)
        store_delete(key, nkey, 0);
    return 0;
}

static int lp_apply(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn) {
    struct list_opts o = { 0 };
    struct codec_in in;
    struct list *l;
    const char *key;
    size_t nkey;
    item *pin;
    int rc = 0;

    codec_in_init(&in, p, n);
    key = codec_get_key(&in, &nkey);
    if (key == NULL || nkey == 0)
        return -1;
    switch (op) {
    case LR_CREATE:
        o.max_len = codec_get_u64(&in);
        if (in.bad)
            return -1;
        break;
    case LR_DROP:
        return lp_apply_drop(key, nkey, lsn);
    case LR_MOVE:
        rc = lp_apply_move(key, nkey, &in, lsn);
        if (rc < 0)
            log_msg(0, "persistence: list %.*s: a move record does not fit the list", (int)nkey, key);
        return rc;
    case LR_TTL:
        o.max_len = codec_get_u64(&in);
        if (in.bad)
            return -1;
        store_touch(key, nkey, clock_exptime_from_unix(o.max_len));
        return 0;
    }
    /* A push may meet a list that is gone now (it is dropped later on). */
    pin = lp_list(key, nkey, op == LR_CREATE || op == LR_PUSH, &o);
    if (pin == NULL || op == LR_CREATE) {
        if (pin != NULL)
            item_release(pin);
        return 0;
    }
    l = store_list_of(pin);
    pthread_mutex_lock(&l->lock);
    if (lsn >= l->replay_lsn)
        rc = lp_apply_to(l, op, &in);
    pthread_mutex_unlock(&l->lock);
    item_release(pin);
    if (rc < 0)
        log_msg(0, "persistence: list %.*s: record %u does not fit the list", (int)nkey, key, op);
    return rc;
}

static int lp_load_list(struct codec_in *in) {
    struct list_opts o = { 0 };
    uint64_t exp, lsn;
    size_t nkey;
    const char *key = codec_get_key(in, &nkey);
    item *pin;

    o.max_len = codec_get_u64(in);
    exp = codec_get_u64(in);
    lsn = codec_get_u64(in);
    if (key == NULL || in->bad || (pin = lp_list(key, nkey, true, &o)) == NULL)
        return -1;
    store_list_of(pin)->replay_lsn = lsn;
    if (exp != 0)
        store_touch(key, nkey, clock_exptime_from_unix(exp));
    item_release(pin);
    return 0;
}

/* Appends the packed elements p[0..n) to l (locked). */
static int lp_load_elems(struct list *l, const char *p, size_t n) {
    size_t off = 0, len;
    const char *v;

    while (off < n) {
        size_t next = list_unpack(p, off, &v, &len);
        if (next > n || next <= off)
            return -1;
        if (list_put_at(l, l->count, v, len) != LIST_OK)
            return -1;
        off = next;
    }
    return 0;
}

static int lp_load(uint8_t op, const uint8_t *p, size_t n) {
    struct codec_in in;
    const char *key;
    size_t nkey;
    item *pin;
    int rc;

    codec_in_init(&in, p, n);
    if (op == S_LIST)
        return lp_load_list(&in);
    if (op != S_ELEMS)
        return -1;
    key = codec_get_key(&in, &nkey);
    if (key == NULL || (pin = lp_list(key, nkey, false, NULL)) == NULL)
        return -1;
    pthread_mutex_lock(&store_list_of(pin)->lock);
    rc = lp_load_elems(store_list_of(pin), (const char *)in.p, in.n);
    pthread_mutex_unlock(&store_list_of(pin)->lock);
    item_release(pin);
    return rc;
}

/* Every list record starts with its list's key. */
static const char *lp_key_of(uint8_t op, const uint8_t *p, size_t n, size_t *nkey) {
    (void)op;
    return persist_key_first(p, n, nkey);
}

static const struct persist_type_ops lp_ops = {
    .name = "list",
    .apply = lp_apply,
    .key_of = lp_key_of,
    .load = lp_load,
    .dump_item = list_persist_dump,
};

void list_replay_init(void) {
    persist_register(PERSIST_LIST, ITEM_LIST, &lp_ops);
}
