/*
 * types/ctree_persist: tree counters' log records, their replay, and the
 * snapshot of the whole tree-counter world (dump and load).
 *
 * Record payloads (keys: one length byte and the bytes):
 *   C_DEF     a counter: id u32, aggregate u8, quantize u64, ntypes u8,
 *             then per type code u32, keep u32, manual u8
 *   C_UNDEF   id u32
 *   C_OBJ     key, parent key (length 0: none), quantize u64, limits
 *   C_LIMITS  key, raise u8, quantize u64 (-1: unchanged), limits
 *   C_INCR    key, counter u32, type u32, time (Unix) u64, delta u64,
 *             applied at (Unix, the objects' last change) u64
 *   C_DROP    key (the object and its subtree were removed)
 *   C_TTL     key, exptime (Unix seconds, 0 never) u64
 * Limits: count u32, then per limit counter u32, type u32, max u64.
 * Snapshot entries: S_HEAD (the log position of the copy) u64; S_DEF as
 * C_DEF; S_OBJ key, parent key, quantize u64, changed u64, exptime u64,
 * count u32 of counters, then per counter id u32, ntypes u8 and per type
 * limit u64, count u32, cells (period index u64, total u64). Objects come
 * after their parents.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "store/store.h"
#include "types/ctree_int.h"
#include "types/ctree_persist.h"

enum cp_op {
    C_DEF = 1, C_UNDEF, C_OBJ, C_LIMITS, C_INCR, C_DROP, C_TTL,
    S_HEAD = 20, S_DEF, S_OBJ
};

#define CP_FIXED (2 * 256 + 64 + 256 * 16)   /* two keys and 256 limits */

static uint64_t cp_replay_lsn;              /* records before it are in the snapshot */

static bool cp_logging(void) {
    return persist_on() && !persist_replaying();
}

/* Starts a record in buf; false when nothing is to be logged. */
static bool cp_start(struct codec_out *o, uint8_t *buf, size_t cap) {
    if (!cp_logging())
        return false;
    codec_out_init(o, buf, cap);
    return true;
}

static void cp_log(uint8_t op, const struct codec_out *o) {
    struct iovec v = { o->p, o->n };

    persist_log(PERSIST_CTREE, op, &v, 1);
}

/* ---- encoding ---- */

static void cp_put_def(struct codec_out *o, const struct ctree_def *d) {
    int i;

    codec_put_u32(o, d->id);
    codec_put_u8(o, d->aggregate ? 1 : 0);
    codec_put_u64(o, (uint64_t)d->quantize);
    codec_put_u8(o, (uint8_t)d->ntypes);
    for (i = 0; i < d->ntypes; i++) {
        codec_put_u32(o, d->types[i].code);
        codec_put_u32(o, d->types[i].keep);
        codec_put_u8(o, d->types[i].manual ? 1 : 0);
    }
}

static void cp_put_limits(struct codec_out *o, const struct ctree_limit *l, size_t n) {
    size_t i;

    codec_put_u32(o, (uint32_t)n);
    for (i = 0; i < n; i++) {
        codec_put_u32(o, l[i].counter);
        codec_put_u32(o, l[i].code);
        codec_put_u64(o, (uint64_t)l[i].max);
    }
}

void ctlog_def(const struct ctree_def *d) {
    uint8_t buf[CP_FIXED];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    cp_put_def(&o, d);
    cp_log(C_DEF, &o);
}

void ctlog_undef(uint32_t id) {
    uint8_t buf[8];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_u32(&o, id);
    cp_log(C_UNDEF, &o);
}

void ctlog_obj(const char *key, size_t nkey, const char *parent, size_t nparent, int64_t quantize,
               const struct ctree_limit *l, size_t n) {
    uint8_t buf[CP_FIXED];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_key(&o, key, nkey);
    codec_put_key(&o, parent, nparent);
    codec_put_u64(&o, (uint64_t)quantize);
    cp_put_limits(&o, l, n);
    cp_log(C_OBJ, &o);
}

void ctlog_limits(const char *key, size_t nkey, bool raise, int64_t quantize, const struct ctree_limit *l,
                  size_t n) {
    uint8_t buf[CP_FIXED];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_key(&o, key, nkey);
    codec_put_u8(&o, raise ? 1 : 0);
    codec_put_u64(&o, (uint64_t)quantize);
    cp_put_limits(&o, l, n);
    cp_log(C_LIMITS, &o);
}

void ctlog_incr(const char *key, size_t nkey, const struct ctree_incr *in, int64_t now) {
    uint8_t buf[320];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_key(&o, key, nkey);
    codec_put_u32(&o, in->counter);
    codec_put_u32(&o, in->code);
    codec_put_u64(&o, (uint64_t)in->t);
    codec_put_u64(&o, (uint64_t)in->delta);
    codec_put_u64(&o, (uint64_t)now);
    cp_log(C_INCR, &o);
}

void ctlog_drop(const char *key, size_t nkey) {
    uint8_t buf[300];
    struct codec_out o;

    if (!cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_key(&o, key, nkey);
    cp_log(C_DROP, &o);
}

void ctlog_ttl(const char *key, size_t nkey, rel_time_t exptime) {
    persist_log_ttl(PERSIST_CTREE, C_TTL, key, nkey, clock_exptime_to_unix(exptime));
}

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

    if (pin != NULL && !ctree_obj_live(store_struct_of(pin))) {
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
        nw.parent = ppin != NULL ? store_struct_of(ppin) : NULL;
        pin = ctree_obj_create(key, nkey, &nw, &st);
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
    rc = ctree_obj_set(store_struct_of(pin), l, n, raise, quantize) == CTREE_OK ? 0 : -1;
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
    rc = ctree_incr(store_struct_of(pin), &inc, &refused, NULL, NULL) == CTREE_OK ? 0 : -1;
    item_release(pin);
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
    case C_DROP:
    case C_TTL: rc = cp_run_key(&in, op); break;
    }
    if (rc < 0)
        log_msg(0, "persistence: bad tree-counter record (op %u)", op);
    return rc;
}

/* ---- snapshots: dump ---- */

/* Entries built under the ctree lock, written out after it. */
struct cp_buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
};

static uint8_t *cp_room(struct cp_buf *b, size_t need) {
    if (b->n + need > b->cap) {
        size_t cap = b->cap * 2 + need + 4096;
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->n;
}

/* One entry: op u8, length u32, payload from fixed part o. */
static void cp_entry(struct cp_buf *b, uint8_t op, const struct codec_out *o) {
    uint8_t *p = cp_room(b, 5 + o->n);

    if (p == NULL)
        return;
    p[0] = op;
    memcpy(p + 1, &o->n, 4);
    memcpy(p + 5, o->p, o->n);
    b->n += 5 + o->n;
}

static size_t cp_obj_size(const struct ctree_obj *o) {
    size_t n = 600;
    uint32_t i;
    int j;

    for (i = 0; i < o->ncv; i++) {
        n += 8;
        for (j = 0; j < o->cv[i]->c->def.ntypes; j++)
            n += 12 + (size_t)o->cv[i]->rows[j].n * 16;
    }
    return n;
}

static void cp_dump_obj(struct cp_buf *b, const struct ctree_obj *o) {
    size_t cap = cp_obj_size(o);
    uint8_t *buf = malloc(cap);
    struct codec_out out;
    uint32_t i, k;
    int j;

    if (buf == NULL) {
        b->oom = true;
        return;
    }
    codec_out_init(&out, buf, cap);
    codec_put_key(&out, item_key(o->self), o->self->nkey);
    if (o->parent != NULL)
        codec_put_key(&out, item_key(o->parent->self), o->parent->self->nkey);
    else
        codec_put_key(&out, NULL, 0);
    codec_put_u64(&out, (uint64_t)o->quantize);
    codec_put_u64(&out, (uint64_t)o->changed);
    codec_put_u64(&out, clock_exptime_to_unix(item_exptime(o->self)));
    codec_put_u32(&out, o->ncv);
    for (i = 0; i < o->ncv; i++) {
        const struct ctree_cval *cv = o->cv[i];
        codec_put_u32(&out, cv->c->def.id);
        codec_put_u8(&out, (uint8_t)cv->c->def.ntypes);
        for (j = 0; j < cv->c->def.ntypes; j++) {
            codec_put_u64(&out, (uint64_t)cv->rows[j].limit);
            codec_put_u32(&out, cv->rows[j].n);
            for (k = 0; k < cv->rows[j].n; k++) {
                codec_put_u64(&out, (uint64_t)cv->rows[j].v[k].idx);
                codec_put_u64(&out, (uint64_t)cv->rows[j].v[k].total);
            }
        }
    }
    cp_entry(b, S_OBJ, &out);
    free(buf);
}

/* Every live object, parents before children (pre-order from each root). */
static void cp_dump_objs(struct cp_buf *b) {
    struct ctree_obj *root, *n;

    for (root = ctree_act_head; root != NULL && !b->oom; root = root->act_next) {
        if (root->parent != NULL)
            continue;
        for (n = root; n != NULL && !b->oom; n = ctree_preorder_next(n, root))
            cp_dump_obj(b, n);
    }
}

/* Copies the world under the lock, then writes it with no lock held. */
static int cp_dump_all(struct snap_writer *w) {
    struct cp_buf b = { NULL, 0, 0, false };
    uint8_t fixed[CP_FIXED];
    struct codec_out o;
    size_t i, at;
    int rc = 0;

    pthread_mutex_lock(&ctree_lock);
    if (ctree_ncounters == 0 && ctree_act_head == NULL) {
        /* nothing to hold: replaying every record after the snapshot's
         * start again leads to the same empty world */
        pthread_mutex_unlock(&ctree_lock);
        return 0;
    }
    codec_out_init(&o, fixed, sizeof(fixed));
    codec_put_u64(&o, persist_position());
    cp_entry(&b, S_HEAD, &o);
    for (i = 0; i < ctree_ncounters; i++) {
        codec_out_init(&o, fixed, sizeof(fixed));
        cp_put_def(&o, &ctree_counters[i]->def);
        cp_entry(&b, S_DEF, &o);
    }
    cp_dump_objs(&b);
    pthread_mutex_unlock(&ctree_lock);
    for (at = 0; at < b.n && !b.oom && rc == 0;) {
        uint32_t len;
        struct iovec v;
        memcpy(&len, b.p + at + 1, 4);
        v.iov_base = b.p + at + 5;
        v.iov_len = len;
        rc = snap_put(w, PERSIST_CTREE, b.p[at], &v, 1);
        at += 5 + len;
    }
    free(b.p);
    if (b.oom)
        log_msg(0, "persistence: no memory to copy the tree counters for a snapshot");
    return b.oom ? -1 : rc;
}

/* Objects are in the snapshot through dump_all. */
static int cp_dump_item(struct snap_writer *w, item *it) {
    (void)w;
    (void)it;
    return 0;
}

/* ---- snapshots: load ---- */

/* Restores one counter's rows of a loaded object (ctree lock held). */
static void cp_load_rows(struct codec_in *in, struct ctree_obj *o) {
    struct ctree_counter *c = ctree_counter_find(codec_get_u32(in));
    int ntypes = codec_get_u8(in), j;
    struct ctree_cval *cv = c != NULL && c->def.ntypes == ntypes ? ctree_cv_get(o, c) : NULL;
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
            if (ctree_row_reserve_at(&cv->rows[j], idx) < 0 || ctree_row_reserve_at(&c->active[j], idx) < 0) {
                in->bad = true;
                break;
            }
            ctree_value_moved(c, j, idx, ctree_row_add(&cv->rows[j], idx, total));
        }
    }
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
    o = store_struct_of(pin);
    pthread_mutex_lock(&ctree_lock);
    for (i = 0; i < ncv && !in->bad; i++)
        cp_load_rows(in, o);
    o->changed = changed;
    pthread_mutex_unlock(&ctree_lock);
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
    .dump_item = cp_dump_item,
    .dump_all = cp_dump_all,
};

void ctree_persist_init(void) {
    persist_register(PERSIST_CTREE, ITEM_CTREE, &cp_ops);
}

void ctree_persist_replay_done(void) {
    ctree_active_sort();
}
