/*
 * types/list_persist: a list's log records and snapshot entries as it
 * writes them: each change it logs, and the copy of a list a snapshot
 * holds. Reading them back into the keyspace is the store's
 * (store/list_replay.c); the formats below are the contract between the
 * two.
 *
 * Record payloads (after the list's key, one length byte and the bytes):
 *   LR_CREATE  max_len u64
 *   LR_DROP    -
 *   LR_TTL     exptime (Unix seconds, 0 never) u64
 *   LR_PUSH    end u8, length u32, value
 *   LR_POP     end u8, count u32
 *   LR_SET     position u64, length u32, value
 *   LR_INSERT  position u64, length u32, value
 *   LR_REM     count (signed) u64, length u32, value
 *   LR_TRIM    start u64, end u64 (the elements kept)
 *   LR_MOVE    the destination's key (a length byte, the bytes), source
 *              end u8, destination end u8, length u32, value: the element
 *              at that end of this list went to that end of the other
 *              (or of this one), in one record
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
#include "types/list_int.h"
#include "types/list_persist.h"

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
    lp_log(LR_CREATE, &o, NULL);
}

void llog_drop(struct list *l) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    lp_log(LR_DROP, &o, NULL);
}

void llog_ttl(const char *name, size_t nname, rel_time_t exptime) {
    persist_log_ttl(PERSIST_LIST, LR_TTL, name, nname, clock_exptime_to_unix(exptime));
}

void llog_push(struct list *l, enum list_end e, const struct list_val *v) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u8(&o, (uint8_t)e);
    codec_put_u32(&o, (uint32_t)v->n);
    lp_log(LR_PUSH, &o, v);
}

void llog_pop(struct list *l, enum list_end e, int n) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on() || n <= 0)
        return;
    lp_start(&o, buf, l);
    codec_put_u8(&o, (uint8_t)e);
    codec_put_u32(&o, (uint32_t)n);
    lp_log(LR_POP, &o, NULL);
}

/* LR_SET, LR_INSERT, LR_REM: a number, then a value. */
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
    lp_log_at(l, LR_SET, at, v);
}

void llog_insert(struct list *l, uint64_t at, const struct list_val *v) {
    lp_log_at(l, LR_INSERT, at, v);
}

void llog_rem(struct list *l, int64_t count, const struct list_val *v) {
    lp_log_at(l, LR_REM, (uint64_t)count, v);
}

void llog_trim(struct list *l, uint64_t start, uint64_t end) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, l);
    codec_put_u64(&o, start);
    codec_put_u64(&o, end);
    lp_log(LR_TRIM, &o, NULL);
}

void llog_move(struct list *s, enum list_end se, struct list *d, enum list_end de,
               const struct list_val *v) {
    uint8_t buf[LP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    lp_start(&o, buf, s);
    codec_put_key(&o, d->name, d->nname);
    codec_put_u8(&o, (uint8_t)se);
    codec_put_u8(&o, (uint8_t)de);
    codec_put_u32(&o, (uint32_t)v->n);
    lp_log(LR_MOVE, &o, v);
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

int list_persist_dump(struct snap_writer *w, item *it) {
    struct list *l = item_struct(it);
    struct lp_copy cp = { .packed = NULL };
    int rc = lp_copy(l, it, &cp);

    if (rc == 0)
        rc = lp_write_copy(w, l, &cp);
    else if (rc == 1)
        rc = 0;
    free(cp.packed);
    return rc;
}

