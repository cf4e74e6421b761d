/*
 * store/ctree_replay: tree counters back into the keyspace at start-up,
 * from the log records and snapshot entries types/ctree_persist.c writes
 * (their formats are described there): replay runs the same operations
 * again (increments without their limit check: they were accepted); and
 * the tree-counter type's registration with persistence.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "store/ctree_replay.h"
#include "store/store.h"
#include "store/store_ctree.h"
#include "types/ctree_int.h"
#include "types/ctree_persist.h"

static uint64_t cp_replay_lsn;              /* records before it are in the snapshot */

/* ---- decoding and replay ---- */

static void cp_get_def(struct codec_in *in, struct ctree_def *d) {
    int i;

    memset(d, 0, sizeof(*d));
    d->id = codec_get_u32(in);
    d->aggregate = codec_get_u8(in) != 0;
    d->quantize = (int64_t)codec_get_u64(in);
    d->ntypes = codec_get_u8(in);
    if (d->ntypes > CTREE_TYPES_MAX) {
        in->bad = true;
        return;
    }
    for (i = 0; i < d->ntypes; i++) {
        d->types[i].code = codec_get_u32(in);
        d->types[i].keep = codec_get_u32(in);
        d->types[i].manual = codec_get_u8(in) != 0;
    }
}

/* Limits into l (room for CP_LIMITS_MAX). */
#define CP_LIMITS_MAX 256
static size_t cp_get_limits(struct codec_in *in, struct ctree_limit *l) {
    uint32_t n = codec_get_u32(in), i;

    if (n > CP_LIMITS_MAX) {
        in->bad = true;
        return 0;
    }
    for (i = 0; i < n; i++) {
        l[i].counter = codec_get_u32(in);
        l[i].code = codec_get_u32(in);
        l[i].max = (int64_t)codec_get_u64(in);
    }
    return n;
}

/* The live object under key, pinned, or NULL. A record may name an
 * object that is gone at replay: one removed (with everything it
 * counted) before a snapshot that found the tree-counter world empty and
 * so did not mark where replay starts; such records are skipped. */
static item *cp_find(const char *key, size_t nkey) {
    enum store_status st;
    item *pin = store_struct_find(key, nkey, ITEM_CTREE, NULL, NULL, &st);

    if (pin != NULL && !ctree_obj_live(item_struct(pin))) {
        item_release(pin);
        pin = NULL;
    }
    return pin;
}

/* Creates an object as a record or snapshot entry says; pinned, or NULL. */
static item *cp_make(const char *key, size_t nkey, const char *parent, size_t nparent, int64_t quantize,
                     const struct ctree_limit *l, size_t n) {
    struct ctree_new nw = { NULL, quantize, l, n, CTREE_OK };
    enum store_status st = STORE_NOT_FOUND;
    item *ppin = nparent > 0 ? cp_find(parent, nparent) : NULL, *pin = NULL;

    if (nparent == 0 || ppin != NULL) {
        nw.parent = ppin != NULL ? item_struct(ppin) : NULL;
        pin = store_ctree_obj(key, nkey, &nw, &st);
    }
    if (ppin != NULL)
        item_release(ppin);
    if (pin != NULL && st != STORE_STORED) {
        item_release(pin);
        pin = NULL;
    }
    if (pin == NULL)
        log_msg(1, "persistence: tree-counter object %.*s not restored (parent gone or no memory)",
                (int)nkey, key);
    return pin;
}

static int cp_run_obj(struct codec_in *in, bool limits_op) {
    static struct ctree_limit l[CP_LIMITS_MAX];
    const char *key, *parent = NULL;
    size_t nkey, nparent = 0, n;
    int64_t quantize;
    bool raise = false;
    item *pin;
    int rc = 0;

    key = codec_get_key(in, &nkey);
    if (limits_op)
        raise = codec_get_u8(in) != 0;
    else
        parent = codec_get_key(in, &nparent);
    quantize = (int64_t)codec_get_u64(in);
    n = cp_get_limits(in, l);
    if (in->bad || nkey == 0)
        return -1;
    if (!limits_op) {
        pin = cp_make(key, nkey, parent, nparent, quantize, l, n);
        if (pin != NULL)
            item_release(pin);
        return 0;
    }
    if ((pin = cp_find(key, nkey)) == NULL)
        return 0;
    rc = ctree_obj_set(item_struct(pin), l, n, raise, quantize) == CTREE_OK ? 0 : -1;
    item_release(pin);
    return rc;
}

static int cp_run_incr(struct codec_in *in) {
    struct ctree_incr inc;
    struct ctree_at refused;
    const char *key;
    size_t nkey;
    item *pin;
    int rc;

    memset(&inc, 0, sizeof(inc));
    key = codec_get_key(in, &nkey);
    inc.counter = codec_get_u32(in);
    inc.code = codec_get_u32(in);
    inc.t = (int64_t)codec_get_u64(in);
    inc.delta = (int64_t)codec_get_u64(in);
    inc.when = (int64_t)codec_get_u64(in);
    inc.replay = true;
    if (in->bad)
        return -1;
    if ((pin = cp_find(key, nkey)) == NULL)
        return 0;
    rc = ctree_incr(item_struct(pin), &inc, &refused, NULL, NULL) == CTREE_OK ? 0 : -1;
    item_release(pin);
    return rc;
}

/* One request's increments: the record is read whole before any is
 * applied; an object missing now is passed over, as for C_INCR. */
static int cp_run_incr_many(struct codec_in *in) {
    struct ctree_incr inc[CTREE_INCR_MANY_MAX];
    const char *keys[CTREE_INCR_MANY_MAX];
    size_t nkeys[CTREE_INCR_MANY_MAX], i;
    struct ctree_at refused;
    int64_t when = (int64_t)codec_get_u64(in);
    uint32_t n = codec_get_u32(in);
    int rc = 0;

    if (in->bad || n == 0 || n > CTREE_INCR_MANY_MAX)
        return -1;
    memset(inc, 0, sizeof(inc));
    for (i = 0; i < n; i++) {
        keys[i] = codec_get_key(in, &nkeys[i]);
        inc[i].counter = codec_get_u32(in);
        inc[i].code = codec_get_u32(in);
        inc[i].t = (int64_t)codec_get_u64(in);
        inc[i].delta = (int64_t)codec_get_u64(in);
        inc[i].when = when;
        inc[i].replay = true;
    }
    if (in->bad)
        return -1;
    for (i = 0; i < n && rc == 0; i++) {
        item *pin = cp_find(keys[i], nkeys[i]);
        if (pin == NULL)
            continue;
        rc = ctree_incr(item_struct(pin), &inc[i], &refused, NULL, NULL) == CTREE_OK ? 0 : -1;
        item_release(pin);
    }
    return rc;
}

static int cp_run_key(struct codec_in *in, uint8_t op) {
    const char *key;
    size_t nkey;
    uint64_t exptime;

    key = codec_get_key(in, &nkey);
    exptime = op == C_TTL ? codec_get_u64(in) : 0;
    if (in->bad)
        return -1;
    if (op == C_DROP)
        store_delete(key, nkey, 0);
    else
        store_touch(key, nkey, clock_exptime_from_unix(exptime));
    return 0;
}

static int cp_run_def(struct codec_in *in) {
    struct ctree_def d;
    enum ctree_result r;

    cp_get_def(in, &d);
    if (in->bad)
        return -1;
    r = ctree_counter_create(&d);
    return r == CTREE_OK || r == CTREE_EXISTS ? 0 : -1;
}

static int cp_apply(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn) {
    struct codec_in in;
    int rc = -1;

    if (lsn < cp_replay_lsn)
        return 0;
    codec_in_init(&in, p, n);
    switch (op) {
    case C_DEF: rc = cp_run_def(&in); break;
    case C_UNDEF:
        ctree_counter_delete(codec_get_u32(&in));
        rc = in.bad ? -1 : 0;
        break;
    case C_OBJ: rc = cp_run_obj(&in, false); break;
    case C_LIMITS: rc = cp_run_obj(&in, true); break;
    case C_INCR: rc = cp_run_incr(&in); break;
    case C_INCRN: rc = cp_run_incr_many(&in); break;
    case C_DROP:
    case C_TTL: rc = cp_run_key(&in, op); break;
    }
    if (rc < 0)
        log_msg(0, "persistence: bad tree-counter record (op %u)", op);
    return rc;
}

/* ---- snapshots: load ---- */

/* Restores one counter's rows of a loaded object (ctree lock held). */
static void cp_load_rows(struct codec_in *in, struct ctree_obj *o) {
    struct ctree_counter *c = ctree_counter_find(codec_get_u32(in));
    int ntypes = codec_get_u8(in), j;
    struct ctree_cval *cv = c != NULL && c->def.ntypes == ntypes ? ctree_cv_get(o, c) : NULL;
    int64_t added = 0;
    uint32_t n, k;

    if (cv == NULL) {
        in->bad = true;
        return;
    }
    for (j = 0; j < ntypes && !in->bad; j++) {
        cv->rows[j].limit = (int64_t)codec_get_u64(in);
        n = codec_get_u32(in);
        for (k = 0; k < n && !in->bad; k++) {
            int64_t idx = (int64_t)codec_get_u64(in), total = (int64_t)codec_get_u64(in);
            int change;
            if (ctree_row_reserve_at(&cv->rows[j], idx) < 0 || ctree_row_reserve_at(&c->active[j], idx) < 0) {
                in->bad = true;
                break;
            }
            change = ctree_row_add(&cv->rows[j], idx, total);
            ctree_value_moved(c, j, idx, change);
            added -= change;
        }
    }
    ctree_subvals_add(o, added);
}

static int cp_load_obj(struct codec_in *in) {
    const char *key, *parent;
    size_t nkey, nparent;
    int64_t quantize, changed;
    uint64_t exptime;
    uint32_t ncv, i;
    struct ctree_obj *o;
    item *pin;

    key = codec_get_key(in, &nkey);
    parent = codec_get_key(in, &nparent);
    quantize = (int64_t)codec_get_u64(in);
    changed = (int64_t)codec_get_u64(in);
    exptime = codec_get_u64(in);
    ncv = codec_get_u32(in);
    if (in->bad || nkey == 0 || (pin = cp_make(key, nkey, parent, nparent, quantize, NULL, 0)) == NULL)
        return -1;
    o = item_struct(pin);
    pthread_rwlock_wrlock(&ctree_lock);
    for (i = 0; i < ncv && !in->bad; i++)
        cp_load_rows(in, o);
    o->changed = changed;
    pthread_rwlock_unlock(&ctree_lock);
    item_release(pin);
    if (exptime != 0)
        store_touch(key, nkey, clock_exptime_from_unix(exptime));
    return in->bad ? -1 : 0;
}

static int cp_load(uint8_t op, const uint8_t *p, size_t n) {
    struct codec_in in;
    int rc = -1;

    codec_in_init(&in, p, n);
    switch (op) {
    case S_HEAD:
        cp_replay_lsn = codec_get_u64(&in);
        rc = in.bad ? -1 : 0;
        break;
    case S_DEF: rc = cp_run_def(&in); break;
    case S_OBJ: rc = cp_load_obj(&in); break;
    }
    if (rc < 0)
        log_msg(0, "persistence: bad tree-counter snapshot entry (op %u)", op);
    return rc;
}

/* A record starts with its object's key, but a counter's definition. */
static const char *cp_key_of(uint8_t op, const uint8_t *p, size_t n, size_t *nkey) {
    *nkey = 0;
    return op == C_DEF || op == C_UNDEF ? NULL : persist_key_first(p, n, nkey);
}

static const struct persist_type_ops cp_ops = {
    .name = "ctree",
    .apply = cp_apply,
    .key_of = cp_key_of,
    .load = cp_load,
    .dump_item = ctree_persist_dump_item,
    .dump_all = ctree_persist_dump_all,
};

void ctree_replay_init(void) {
    persist_register(PERSIST_CTREE, ITEM_CTREE, &cp_ops);
}

void ctree_replay_done(void) {
    ctree_active_sort();
}
