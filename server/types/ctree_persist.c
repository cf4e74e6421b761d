/*
 * types/ctree_persist: tree counters' log records and the snapshot of the
 * whole tree-counter world, as tree counters write them. Reading them
 * back into the keyspace is the store's (store/ctree_replay.c); the
 * formats below are the contract between the two.
 *
 * Record payloads (keys: one length byte and the bytes):
 *   C_DEF     a counter: id u32, aggregate u8, quantize u64, ntypes u8,
 *             then per type code u32, keep u32, manual u8
 *   C_UNDEF   id u32
 *   C_OBJ     key, parent key (length 0: none), quantize u64, limits
 *   C_LIMITS  key, raise u8, quantize u64 (-1: unchanged), limits
 *   C_INCR    key, counter u32, type u32, time (Unix) u64, delta u64,
 *             applied at (Unix, the objects' last change) u64
 *   C_INCRN   applied at u64, count u32, then per increment as C_INCR
 *             without its time applied at (one request's increments,
 *             all or none: ctincrn)
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
#include "types/ctree_int.h"
#include "types/ctree_persist.h"

#define CP_FIXED (2 * 256 + 64 + 256 * 16)   /* two keys and 256 limits */

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

void ctlog_incr_many(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n, int64_t now) {
    uint8_t buf[CTREE_INCR_MANY_MAX * (2 + ITEM_KEY_MAX + 24) + 16];
    struct codec_out o;
    size_t i;

    if (n > CTREE_INCR_MANY_MAX || !cp_start(&o, buf, sizeof(buf)))
        return;
    codec_put_u64(&o, (uint64_t)now);
    codec_put_u32(&o, (uint32_t)n);
    for (i = 0; i < n; i++) {
        codec_put_key(&o, item_key(objs[i]->self), objs[i]->self->nkey);
        codec_put_u32(&o, ins[i].counter);
        codec_put_u32(&o, ins[i].code);
        codec_put_u64(&o, (uint64_t)ins[i].t);
        codec_put_u64(&o, (uint64_t)ins[i].delta);
    }
    cp_log(C_INCRN, &o);
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

/* Every live object, parents before children (pre-order from each root).
 * A deleted subtree not yet released is still on the active list, but
 * out of its parent's children: only its root, when that was a root of
 * the forest, needs passing over. */
static void cp_dump_objs(struct cp_buf *b) {
    struct ctree_obj *root, *n;

    for (root = ctree_act_head; root != NULL && !b->oom; root = root->act_next) {
        if (root->parent != NULL || root->closed)
            continue;
        for (n = root; n != NULL && !b->oom; n = ctree_preorder_next(n, root))
            cp_dump_obj(b, n);
    }
}

/* Copies the world under the lock, then writes it with no lock held. */
int ctree_persist_dump_all(struct snap_writer *w) {
    struct cp_buf b = { NULL, 0, 0, false };
    uint8_t fixed[CP_FIXED];
    struct codec_out o;
    size_t i, at;
    int rc = 0;

    pthread_rwlock_wrlock(&ctree_lock);
    if (ctree_ncounters == 0 && ctree_act_head == NULL) {
        /* nothing to hold: replaying every record after the snapshot's
         * start again leads to the same empty world */
        pthread_rwlock_unlock(&ctree_lock);
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
    pthread_rwlock_unlock(&ctree_lock);
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
int ctree_persist_dump_item(struct snap_writer *w, item *it) {
    (void)w;
    (void)it;
    return 0;
}
