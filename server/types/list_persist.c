/*
 * types/list_persist: the list type's three persistence functions —
 * encoding its changes as log records, applying a record at replay, and
 * dumping a list into a snapshot (and loading it back).
 *
 * Record payloads (after the list's key, one length byte and the bytes):
 *   L_CREATE  max_len u64
 *   L_DROP    -
 *   L_TTL     exptime (Unix seconds, 0 never) u64
 *   L_PUSH    end u8, length u32, value
 *   L_POP     end u8, count u32
 *   L_SET     position u64, length u32, value
 *   L_INSERT  position u64, length u32, value
 *   L_REM     count (signed) u64, length u32, value
 *   L_TRIM    start u64, end u64 (the elements kept)
 * Snapshot entries: S_LIST (key, max_len, exptime, the log position it
 * was dumped at) and S_ELEMS (key, then elements packed as in a chunk: a
 * varint length, the bytes, the length again reversed), in order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "store/store.h"
#include "store/store_list.h"
#include "types/list_int.h"
#include "types/list_persist.h"

enum lp_op {
    L_CREATE = 1, L_DROP, L_TTL, L_PUSH, L_POP, L_SET, L_INSERT, L_REM, L_TRIM,
    S_LIST = 20, S_ELEMS
};

#define LP_FIXED 320                /* room for a key and the fixed fields */
#define LP_SLICE 65536              /* packed bytes per S_ELEMS entry, about */

/* ---- encoding ---- */

static void lp_start(struct codec_out *o, uint8_t *buf, const struct list *l) {
    codec_out_init(o, buf, LP_FIXED);
    codec_put_key(o, l->name, l->nname);
}

/* Logs fixed part o, then v's bytes if v. */
static void lp_log(uint8_t op, struct codec_out *o, const struct list_val *v) {
    struct iovec iov[2] = { { o->p, o->n }, { NULL, 0 } };

    if (v != NULL) {
        iov[1].iov_base = (void *)v->p;
        iov[1].iov_len = v->n;
    }
    persist_log(PERSIST_LIST, op, iov, v != NULL ? 2 : 1);
}

void llog_create(struct list *l) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u64(&o, l->opts.max_len);
    lp_log(L_CREATE, &o, NULL);
}

void llog_drop(struct list *l) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    lp_log(L_DROP, &o, NULL);
}

void llog_ttl(const char *name, size_t nname, rel_time_t exptime) {
    persist_log_ttl(PERSIST_LIST, L_TTL, name, nname, clock_exptime_to_unix(exptime));
}

void llog_push(struct list *l, enum list_end e, const struct list_val *v) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u8(&o, (uint8_t)e);
    codec_put_u32(&o, (uint32_t)v->n);
    lp_log(L_PUSH, &o, v);
}

void llog_pop(struct list *l, enum list_end e, int n) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on() || n <= 0)
        return;
    lp_start(&o, buf, l);
    codec_put_u8(&o, (uint8_t)e);
    codec_put_u32(&o, (uint32_t)n);
    lp_log(L_POP, &o, NULL);
}

/* L_SET, L_INSERT, L_REM: a number, then a value. */
static void lp_log_at(struct list *l, uint8_t op, uint64_t num, const struct list_val *v) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u64(&o, num);
    codec_put_u32(&o, (uint32_t)v->n);
    lp_log(op, &o, v);
}

void llog_set(struct list *l, uint64_t at, const struct list_val *v) {
    lp_log_at(l, L_SET, at, v);
}

void llog_insert(struct list *l, uint64_t at, const struct list_val *v) {
    lp_log_at(l, L_INSERT, at, v);
}

void llog_rem(struct list *l, int64_t count, const struct list_val *v) {
    lp_log_at(l, L_REM, (uint64_t)count, v);
}

void llog_trim(struct list *l, uint64_t start, uint64_t end) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u64(&o, start);
    codec_put_u64(&o, end);
    lp_log(L_TRIM, &o, NULL);
}

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
    case L_PUSH:
        e = codec_get_u8(in);
        if (!lp_get_val(in, &v) || e > LIST_TAIL)
            return -1;
        return list_put_at(l, e == LIST_HEAD ? 0 : l->count, v.p, v.n) == LIST_OK ? 0 : -1;
    case L_POP:
        e = codec_get_u8(in);
        a = codec_get_u32(in);
        if (in->bad || e > LIST_TAIL)
            return -1;
        list_pop_locked(l, (enum list_end)e, (int)a, lp_ignore, NULL);
        return 0;
    case L_SET:
    case L_INSERT:
        a = codec_get_u64(in);
        if (!lp_get_val(in, &v) || a > l->count || (op == L_SET && a == l->count))
            return -1;
        if (list_put_at(l, a, v.p, v.n) != LIST_OK)
            return -1;
        if (op == L_SET)
            list_cut_at(l, a + 1);
        return 0;
    case L_REM:
        a = codec_get_u64(in);
        if (!lp_get_val(in, &v))
            return -1;
        return list_remove_locked(l, (int64_t)a, &v, &removed) == LIST_OK ? 0 : -1;
    case L_TRIM:
        a = codec_get_u64(in);
        b = codec_get_u64(in);
        if (in->bad || a > b || b > l->count)
            return -1;
        list_keep(l, a, b);
        return 0;
    }
    return -1;
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
    case L_CREATE:
        o.max_len = codec_get_u64(&in);
        if (in.bad)
            return -1;
        break;
    case L_DROP:
        return lp_apply_drop(key, nkey, lsn);
    case L_TTL:
        o.max_len = codec_get_u64(&in);
        if (in.bad)
            return -1;
        store_touch(key, nkey, clock_exptime_from_unix(o.max_len));
        return 0;
    }
    /* A push may meet a list that is gone now (it is dropped later on). */
    pin = lp_list(key, nkey, op == L_CREATE || op == L_PUSH, &o);
    if (pin == NULL || op == L_CREATE) {
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

/* ---- snapshots ---- */

/* What dump copies under the list's lock. */
struct lp_copy {
    uint8_t head[LP_FIXED];
    size_t nhead;
    char *packed;               /* every element, packed, in order */
    size_t npacked;
};

static size_t lp_packed_bytes(const struct lchunk *c) {
    return c == NULL ? 0 : c->hi - c->lo + lp_packed_bytes(c->left) + lp_packed_bytes(c->right);
}

static void lp_copy_chunks(const struct lchunk *c, struct lp_copy *cp) {
    if (c == NULL)
        return;
    lp_copy_chunks(c->left, cp);
    memcpy(cp->packed + cp->npacked, c->buf + c->lo, c->hi - c->lo);
    cp->npacked += c->hi - c->lo;
    lp_copy_chunks(c->right, cp);
}

/* Copies l under its lock: 0, 1 when l is gone, -1 without memory. */
static int lp_copy(struct list *l, item *self, struct lp_copy *cp) {
    struct codec_out o;
    int rc = 0;

    pthread_mutex_lock(&l->lock);
    if (l->closed) {
        rc = 1;
    } else if ((cp->packed = malloc(lp_packed_bytes(l->root) + 1)) == NULL) {
        rc = -1;
    } else {
        codec_out_init(&o, cp->head, sizeof(cp->head));
        codec_put_key(&o, l->name, l->nname);
        codec_put_u64(&o, l->opts.max_len);
        codec_put_u64(&o, clock_exptime_to_unix(item_exptime(self)));
        codec_put_u64(&o, persist_position());
        cp->nhead = o.n;
        cp->npacked = 0;
        lp_copy_chunks(l->root, cp);
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}

/* The header, then the elements in slices cut at element boundaries. */
static int lp_write_copy(struct snap_writer *w, const struct list *l, const struct lp_copy *cp) {
    uint8_t key[ITEM_KEY_MAX + 1];
    struct codec_out ko;
    struct iovec v = { (void *)cp->head, cp->nhead };
    size_t start = 0, off = 0, n;
    const char *p;
    int rc = snap_put(w, PERSIST_LIST, S_LIST, &v, 1);

    codec_out_init(&ko, key, sizeof(key));
    codec_put_key(&ko, l->name, l->nname);
    while (rc == 0 && start < cp->npacked) {
        struct iovec e[2];
        do
            off = list_unpack(cp->packed, off, &p, &n);
        while (off < cp->npacked && off - start < LP_SLICE);
        e[0].iov_base = key;
        e[0].iov_len = ko.n;
        e[1].iov_base = cp->packed + start;
        e[1].iov_len = off - start;
        rc = snap_put(w, PERSIST_LIST, S_ELEMS, e, 2);
        start = off;
    }
    return rc;
}

static int lp_dump_item(struct snap_writer *w, item *it) {
    struct list *l = store_struct_of(it);
    struct lp_copy cp = { .packed = NULL };
    int rc = lp_copy(l, it, &cp);

    if (rc == 0)
        rc = lp_write_copy(w, l, &cp);
    else if (rc == 1)
        rc = 0;
    free(cp.packed);
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
    .dump_item = lp_dump_item,
};

void list_persist_init(void) {
    persist_register(PERSIST_LIST, ITEM_LIST, &lp_ops);
}
