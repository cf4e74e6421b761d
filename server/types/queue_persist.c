/*
 * types/queue_persist: a queue's log records and snapshot entries as it
 * writes them: each change it logs, and the copy of a queue a snapshot
 * holds. Reading them back into the keyspace is the store's
 * (store/queue_replay.c); the formats below are the contract between the
 * two.
 *
 * Record payloads (after the queue's key, one length byte and the bytes):
 *   Q_CREATE  lease_ms u64, max_deliveries u32, max_length u64, dlq key,
 *             max_age_ms u64 (left out by logs written before it existed:
 *             read as 0, no limit), dedup_window_ms u64 (likewise: read
 *             as the default), expired u8 (likewise: read as 0, dead)
 *   Q_DROP    -
 *   Q_TTL     exptime (Unix seconds, 0 never) u64
 *   Q_PUSH    a message (below), then, for a push with a deduplication
 *             id: the id (as a key), its index in the push u8, when it
 *             expires (Unix ms) u64
 *   Q_STATE   id u64, state u8, deliveries u32, due (Unix ms) u64
 *   Q_ACK     id u64
 *   Q_PURGE   -
 *   Q_DEAD    source queue key, then a message (the key is where the
 *             dead letter came from: it is its source until it leaves)
 *   Q_REDRIVE dead-letter queue key, then a message: out of that queue,
 *             back into this one (its source)
 *   Q_KICK    id u64, pushed (Unix ms) u64: buried, now ready with no
 *             delivery counted
 *   Q_BURY    a message: refused by its dead-letter queue, buried back in
 *             this one (added if missing: a snapshot written while it was
 *             on its way does not hold it)
 *   Q_PAUSE   paused until (Unix ms; 0: resumed) u64
 *   Q_GPUSH   a push into a FIFO group: the group id (as a key), then as
 *             Q_PUSH (the message's state is QMSG_GROUPED when it waits
 *             behind the group's head)
 *   Q_GNEXT   the group id (as a key): the group's first waiting message
 *             is now its head, ready
 *   Q_PUSH_TTL, Q_GPUSH_TTL  the push of a message with a ttl: as Q_PUSH
 *             and Q_GPUSH with, right after the message, when its ttl
 *             ends (Unix ms) u64
 *   Q_EXPIRE  id u64: expired (its ttl or max_age_ms) and dropped
 * A message: id u64, seq u64, state u8, priority u32, deliveries u32,
 * due u64 (Unix ms; a lease end for in-flight, UINT64_MAX when held by a
 * Kestrel open read), pushed (Unix ms) u64, flags u32, data length u32,
 * data. Snapshot entries: S_QUEUE (the Q_CREATE fields but max_age_ms,
 * exptime, seq, totals, the log position it was dumped at, then max_age_ms,
 * dedup_window_ms, paused until (Unix ms, 0: not paused), expired u8 and
 * the dropped total u64, which older snapshots leave out), S_MSG (queue key,
 * message, then for a dead letter the key of its source queue, which older
 * snapshots and messages with none leave out), S_MSG_TTL (S_MSG with
 * the message's expiry, Unix ms u64, after the message) and S_DEDUP (queue key, a
 * deduplication id as a key, its index u8, its message's id u64, when it
 * expires (Unix ms) u64), in the order the queue remembers them, and
 * S_GMSG (queue key, group id as a key, message) for each message of a
 * FIFO group: its head (in whatever state) and, after every S_MSG and
 * S_GMSG of a head, each group's waiting messages in their order;
 * S_GMSG_TTL is S_GMSG with the message's expiry after it, as S_MSG_TTL.
 */

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "types/queue_int.h"
#include "types/queue_persist.h"

/* An S_DEDUP entry but its queue key: id (key), index, message id, expiry. */
#define QP_DEDUP_ENTRY (1 + QDEDUP_ID_MAX + 1 + 8 + 8)

/* ---- times ---- */

static uint64_t qp_due_out(const struct qmsg *m) {
    if (m->due_ms == QUEUE_HELD)
        return QP_HELD;
    return m->state == QMSG_READY || m->state == QMSG_GROUPED ? 0 : clock_to_unix_ms(m->due_ms);
}

/* ---- encoding ---- */

static void qp_put_msg(struct codec_out *o, const struct qmsg *m) {
    codec_put_u64(o, m->id);
    codec_put_u64(o, m->seq);
    codec_put_u8(o, m->state);
    codec_put_u32(o, m->pri);
    codec_put_u32(o, m->deliveries);
    codec_put_u64(o, qp_due_out(m));
    codec_put_u64(o, clock_to_unix_ms(m->pushed_ms));
    codec_put_u32(o, item_flags(m->payload));
    codec_put_u32(o, m->payload->nbytes - 2);
}

/* The same for a packed message: ready, the default priority, never
 * delivered. */
static void qp_put_packed(struct codec_out *o, const struct qpack_entry *e) {
    codec_put_u64(o, e->id);
    codec_put_u64(o, e->seq);
    codec_put_u8(o, QMSG_READY);
    codec_put_u32(o, QUEUE_DEFAULT_PRI);
    codec_put_u32(o, 0);
    codec_put_u64(o, 0);
    codec_put_u64(o, clock_to_unix_ms(e->pushed_ms));
    codec_put_u32(o, e->flags);
    codec_put_u32(o, e->len);
}

/* Logs fixed part o, then (m not NULL) m's data, then tail t (if any). */
static void qp_log_tail(uint8_t op, struct codec_out *o, const struct qmsg *m, const struct codec_out *t) {
    struct iovec v[3] = { { o->p, o->n }, { NULL, 0 }, { NULL, 0 } };
    int n = 1;

    if (m != NULL) {
        v[n].iov_base = item_value(m->payload);
        v[n++].iov_len = m->payload->nbytes - 2;
    }
    if (t != NULL) {
        v[n].iov_base = t->p;
        v[n++].iov_len = t->n;
    }
    persist_log(PERSIST_QUEUE, op, v, n);
}

static void qp_log(uint8_t op, struct codec_out *o, const struct qmsg *m) {
    qp_log_tail(op, o, m, NULL);
}

static void qp_start(struct codec_out *o, uint8_t *buf, const struct queue *q) {
    codec_out_init(o, buf, QP_FIXED);
    codec_put_key(o, q->name, q->nname);
}

static void qp_put_opts(struct codec_out *o, const struct queue_opts *op) {
    codec_put_u64(o, op->lease_ms);
    codec_put_u32(o, op->max_deliveries);
    codec_put_u64(o, op->max_length);
    codec_put_key(o, op->dlq, op->ndlq);
}

void qlog_create(struct queue *q) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    qp_put_opts(&o, &q->opts);
    codec_put_u64(&o, q->opts.max_age_ms);
    codec_put_u64(&o, q->opts.dedup_window_ms);
    codec_put_u8(&o, q->opts.expired);
    qp_log(Q_CREATE, &o, NULL);
}

void qlog_drop(struct queue *q) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    qp_log(Q_DROP, &o, NULL);
}

void qlog_ttl(const char *name, size_t nname, rel_time_t exptime) {
    persist_log_ttl(PERSIST_QUEUE, Q_TTL, name, nname, clock_exptime_to_unix(exptime));
}

/* Q_PUSH or Q_BURY: the whole message m in q. */
static void qp_log_msg(uint8_t op, struct queue *q, const struct qmsg *m) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    qp_put_msg(&o, m);
    qp_log(op, &o, m);
}

/* The push op of m into group g (NULL: none): with or without a ttl. */
static uint8_t qp_push_op(const struct qmsg *m, const struct qgroup *g) {
    if (queue_msg_expires(m) != 0)
        return g != NULL ? Q_GPUSH_TTL : Q_PUSH_TTL;
    return g != NULL ? Q_GPUSH : Q_PUSH;
}

void qlog_push(struct queue *q, const struct qmsg *m, const struct qgroup *g, const struct qdedup_entry *e) {
    uint8_t buf[QP_FIXED + QGROUP_ID_MAX + 1], tail[8 + QDEDUP_ID_MAX + 16];
    uint64_t expires = queue_msg_expires(m);
    struct codec_out o, t;

    if (!persist_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, q->name, q->nname);
    if (g != NULL)
        codec_put_key(&o, g->name, g->nname);
    qp_put_msg(&o, m);
    codec_out_init(&t, tail, sizeof(tail));
    if (expires != 0)
        codec_put_u64(&t, clock_to_unix_ms(expires));
    if (e != NULL) {
        codec_put_key(&t, e->id, e->n);
        codec_put_u8(&t, e->index);
        codec_put_u64(&t, clock_to_unix_ms(e->expires_ms));
    }
    qp_log_tail(qp_push_op(m, g), &o, m, t.n > 0 ? &t : NULL);
}

void qlog_gnext(struct queue *q, const struct qgroup *g) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_key(&o, g->name, g->nname);
    qp_log(Q_GNEXT, &o, NULL);
}

void qlog_state(struct queue *q, const struct qmsg *m) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_u64(&o, m->id);
    codec_put_u8(&o, m->state);
    codec_put_u32(&o, m->deliveries);
    codec_put_u64(&o, qp_due_out(m));
    qp_log(Q_STATE, &o, NULL);
}

void qlog_bury(struct queue *q, const struct qmsg *m) {
    qp_log_msg(Q_BURY, q, m);
}

/* Q_ACK or Q_EXPIRE: message id left q. */
static void qp_log_gone(uint8_t op, struct queue *q, uint64_t id) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_u64(&o, id);
    qp_log(op, &o, NULL);
}

void qlog_ack(struct queue *q, uint64_t id) {
    qp_log_gone(Q_ACK, q, id);
}

void qlog_expire(struct queue *q, uint64_t id) {
    qp_log_gone(Q_EXPIRE, q, id);
}

/* The end of q's pause as Unix ms (0: none). */
static uint64_t qp_paused_out(const struct queue *q) {
    return q->paused_until != 0 ? clock_to_unix_ms(q->paused_until) : 0;
}

void qlog_pause(struct queue *q) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_u64(&o, qp_paused_out(q));
    qp_log(Q_PAUSE, &o, NULL);
}

void qlog_purge(struct queue *q) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    qp_log(Q_PURGE, &o, NULL);
}

/* Q_DEAD or Q_REDRIVE: m, out of queue src, into q. */
static void qp_log_move(uint8_t op, struct queue *q, const char *src, size_t nsrc, const struct qmsg *m) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_key(&o, src, nsrc);
    qp_put_msg(&o, m);
    qp_log(op, &o, m);
}

void qlog_dead(struct queue *q, const char *src, size_t nsrc, const struct qmsg *m) {
    qp_log_move(Q_DEAD, q, src, nsrc, m);
}

void qlog_redrive(struct queue *q, const char *from, size_t nfrom, const struct qmsg *m) {
    qp_log_move(Q_REDRIVE, q, from, nfrom, m);
}

void qlog_kick(struct queue *q, const struct qmsg *m) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_u64(&o, m->id);
    codec_put_u64(&o, clock_to_unix_ms(m->pushed_ms));
    qp_log(Q_KICK, &o, NULL);
}

/* ---- snapshots ---- */

/* What dump copies under the queue's lock. */
struct qp_copy {
    uint8_t head[QP_FIXED + 128];
    size_t nhead;
    uint8_t (*fixed)[64];           /* each message's fixed part */
    item **payloads;
    uint32_t *src;                  /* each message's source (index into srcs) */
    uint64_t *expires;              /* each message's expiry (Unix ms, 0: none) */
    struct queue_src *srcs;         /* the queue's source table */
    uint32_t nsrcs;
    size_t n;
    struct qpack pack;              /* a copy of the queue's packed messages */
    uint8_t (*dedup)[QP_DEDUP_ENTRY]; /* each deduplication entry, encoded */
    size_t *ndedup_entry;
    size_t ndedup;
    uint32_t *gix;                  /* each message's group (1 up, 0: none) */
    uint8_t (*gkey)[QGROUP_ID_MAX + 1]; /* each group's id, encoded as a key */
    uint32_t ngroups;
};

/* Every message of q in its heaps, and out on a redrive (still q's);
 * the packed ones are copied apart. */
static size_t qp_heap_total(const struct queue *q) {
    return q->ready.n + q->delayed.n + q->inflight.n + q->buried.n + q->move_reserved;
}

/* Copies message m of group g (NULL: none). */
static void qp_copy_one(struct qp_copy *c, const struct qmsg *m, const struct qgroup *g) {
    struct codec_out o;

    codec_out_init(&o, c->fixed[c->n], sizeof(c->fixed[c->n]));
    qp_put_msg(&o, m);
    item_incref(m->payload);
    c->src[c->n] = m->src;
    c->expires[c->n] = queue_msg_expires(m) != 0 ? clock_to_unix_ms(queue_msg_expires(m)) : 0;
    c->gix[c->n] = g != NULL ? g->mark : 0;
    c->payloads[c->n++] = m->payload;
}

static void qp_copy_msgs(struct qp_copy *c, const struct queue *q, struct qmsg *const *v, size_t n) {
    size_t i;

    for (i = 0; i < n; i++)
        if (v[i] != NULL)       /* NULL: placed in its source by a redrive */
            qp_copy_one(c, v[i], queue_group_of_head(q, v[i]->id));
}

static void qp_copy_heap(struct qp_copy *c, const struct queue *q, const struct qheap *h) {
    qp_copy_msgs(c, q, h->v, h->n);
}

/* Numbers group g for the copy and encodes its id. */
static void qp_copy_group_name(struct qgroup *g, void *arg) {
    struct qp_copy *c = arg;
    struct codec_out o;

    codec_out_init(&o, c->gkey[c->ngroups], sizeof(c->gkey[c->ngroups]));
    codec_put_key(&o, g->name, g->nname);
    g->mark = ++c->ngroups;
}

/* Copies g's waiting messages, in their order. */
static void qp_copy_group_waiting(struct qgroup *g, void *arg) {
    struct qp_copy *c = arg;
    uint32_t i;

    for (i = 0; i < g->n; i++)
        qp_copy_one(c, qgroup_held_at(g, i), g);
}

/* Copies q's source table (a free slot as an empty name); q locked. */
static void qp_copy_srcs(const struct queue *q, struct qp_copy *c) {
    uint32_t i;

    for (i = 0; i < q->nsrcs; i++) {
        c->srcs[i].nname = 0;
        if (q->srcs[i] != NULL)
            c->srcs[i] = *q->srcs[i];
    }
    c->nsrcs = q->nsrcs;
}

/* Encodes q's deduplication entries, in their order, into c; q locked. */
static void qp_copy_dedup(const struct queue *q, struct qp_copy *c) {
    const struct qdedup_entry *e;

    c->ndedup = 0;
    for (e = q->dedup.head; e != NULL; e = e->next) {
        struct codec_out o;
        codec_out_init(&o, c->dedup[c->ndedup], QP_DEDUP_ENTRY);
        codec_put_key(&o, e->id, e->n);
        codec_put_u8(&o, e->index);
        codec_put_u64(&o, e->msg_id);
        codec_put_u64(&o, clock_to_unix_ms(e->expires_ms));
        c->ndedup_entry[c->ndedup++] = o.n;
    }
}

/* Copies q (header and every message's fixed part, payloads referenced)
 * under its lock: 0, 1 when q is gone, -1 without memory. */
static int qp_copy(struct queue *q, item *self, struct qp_copy *c) {
    const struct queue_move_list *l;
    struct codec_out o;
    size_t total;

    pthread_mutex_lock(&q->lock);
    if (q->closed) {            /* deleted since the walk found it */
        pthread_mutex_unlock(&q->lock);
        return 1;
    }
    total = qp_heap_total(q) + q->groups.nheld;
    c->gix = malloc((total + 1) * sizeof(*c->gix));
    c->gkey = malloc((q->groups.n + 1) * sizeof(*c->gkey));
    c->fixed = malloc((total + 1) * sizeof(*c->fixed));
    c->payloads = malloc((total + 1) * sizeof(*c->payloads));
    c->src = malloc((total + 1) * sizeof(*c->src));
    c->expires = malloc((total + 1) * sizeof(*c->expires));
    c->srcs = malloc((q->nsrcs + 1) * sizeof(*c->srcs));
    c->dedup = malloc((q->dedup.n + 1) * sizeof(*c->dedup));
    c->ndedup_entry = malloc((q->dedup.n + 1) * sizeof(*c->ndedup_entry));
    if (c->fixed == NULL || c->payloads == NULL || c->src == NULL || c->expires == NULL || c->srcs == NULL
        || c->dedup == NULL || c->ndedup_entry == NULL || c->gix == NULL || c->gkey == NULL) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    qp_copy_srcs(q, c);
    codec_out_init(&o, c->head, sizeof(c->head));
    codec_put_key(&o, q->name, q->nname);
    qp_put_opts(&o, &q->opts);
    codec_put_u64(&o, clock_exptime_to_unix(item_exptime(self)));
    codec_put_u64(&o, q->seq);
    codec_put_u64(&o, q->counts.pushed);
    codec_put_u64(&o, q->counts.acked);
    codec_put_u64(&o, q->counts.dead);
    codec_put_u64(&o, q->counts.purged);
    codec_put_u64(&o, persist_position());
    codec_put_u64(&o, q->opts.max_age_ms);
    codec_put_u64(&o, q->opts.dedup_window_ms);
    codec_put_u64(&o, qp_paused_out(q));
    codec_put_u8(&o, q->opts.expired);
    codec_put_u64(&o, q->counts.dropped);
    c->nhead = o.n;
    qp_copy_dedup(q, c);
    c->n = 0;
    c->ngroups = 0;
    qgroup_each(q, qp_copy_group_name, c);
    qp_copy_heap(c, q, &q->ready);
    qp_copy_heap(c, q, &q->delayed);
    qp_copy_heap(c, q, &q->inflight);
    qp_copy_heap(c, q, &q->buried);
    for (l = q->moving; l != NULL; l = l->next)
        qp_copy_msgs(c, q, l->v, l->n);
    qgroup_each(q, qp_copy_group_waiting, c);
    if (qpack_copy(&q->pack, &c->pack) < 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    pthread_mutex_unlock(&q->lock);
    return 0;
}

/* An S_MSG for every message of the copied pack p of the queue whose
 * encoded key is key (nkey bytes). */
static int qp_write_packed(struct snap_writer *w, uint8_t *key, size_t nkey, const struct qpack *p) {
    struct qpack_iter it;
    struct qpack_entry e;
    int rc = 0;

    qpack_iter_start(p, &it);
    while (rc == 0 && qpack_iter_next(&it, &e)) {
        uint8_t fixed[64];
        struct codec_out o;
        struct iovec m[3] = { { key, nkey }, { fixed, 0 }, { (void *)e.data, e.len } };
        codec_out_init(&o, fixed, sizeof(fixed));
        qp_put_packed(&o, &e);
        m[1].iov_len = o.n;
        rc = snap_put(w, PERSIST_QUEUE, S_MSG, m, 3);
    }
    return rc;
}

/* The snapshot entry of copied message i: S_MSG, S_GMSG in a group, and
 * their _TTL forms for a message with a ttl. */
static uint8_t qp_msg_op(const struct qp_copy *c, size_t i) {
    if (c->expires[i] != 0)
        return c->gix[i] != 0 ? S_GMSG_TTL : S_MSG_TTL;
    return c->gix[i] != 0 ? S_GMSG : S_MSG;
}

/* The entry (qp_msg_op) of copied message i of the queue whose encoded
 * key is key (nkey bytes). */
static int qp_write_msg(struct snap_writer *w, uint8_t *key, size_t nkey, const struct qp_copy *c, size_t i) {
    uint8_t src[8 + ITEM_KEY_MAX + 1];
    struct codec_out so;
    uint32_t g = c->gix[i];
    struct iovec m[5] = {
        { key, nkey },
        { g != 0 ? (void *)c->gkey[g - 1] : NULL, g != 0 ? 1 + (size_t)c->gkey[g - 1][0] : 0 },
        { (void *)c->fixed[i], 8 + 8 + 1 + 4 + 4 + 8 + 8 + 4 + 4 },
        { item_value(c->payloads[i]), c->payloads[i]->nbytes - 2 },
        { src, 0 },
    };

    codec_out_init(&so, src, sizeof(src));
    if (c->expires[i] != 0)
        codec_put_u64(&so, c->expires[i]);
    if (c->src[i] != 0 && c->src[i] <= c->nsrcs && c->srcs[c->src[i] - 1].nname > 0)
        codec_put_key(&so, c->srcs[c->src[i] - 1].name, c->srcs[c->src[i] - 1].nname);
    m[4].iov_len = so.n;
    return snap_put(w, PERSIST_QUEUE, qp_msg_op(c, i), m, 5);
}

static int qp_write_copy(struct snap_writer *w, const struct queue *q, struct qp_copy *c) {
    uint8_t key[ITEM_KEY_MAX + 1];
    struct codec_out ko;
    struct iovec v = { c->head, c->nhead };
    size_t i;
    int rc = snap_put(w, PERSIST_QUEUE, S_QUEUE, &v, 1);

    codec_out_init(&ko, key, sizeof(key));
    codec_put_key(&ko, q->name, q->nname);
    for (i = 0; i < c->n && rc == 0; i++)
        rc = qp_write_msg(w, key, ko.n, c, i);
    if (rc == 0)
        rc = qp_write_packed(w, key, ko.n, &c->pack);
    for (i = 0; i < c->ndedup && rc == 0; i++) {
        struct iovec d[2] = { { key, ko.n }, { c->dedup[i], c->ndedup_entry[i] } };
        rc = snap_put(w, PERSIST_QUEUE, S_DEDUP, d, 2);
    }
    return rc;
}

int queue_persist_dump(struct snap_writer *w, item *it) {
    struct queue *q = item_struct(it);
    struct qp_copy c = { .fixed = NULL, .payloads = NULL, .src = NULL, .expires = NULL, .srcs = NULL, .n = 0,
                         .dedup = NULL, .ndedup_entry = NULL, .ndedup = 0, .gix = NULL, .gkey = NULL };
    size_t i;
    int rc;

    qpack_init(&c.pack);
    rc = qp_copy(q, it, &c);
    if (rc == 0)
        rc = qp_write_copy(w, q, &c);
    else if (rc == 1)
        rc = 0;
    for (i = 0; i < c.n; i++)
        item_release(c.payloads[i]);
    free(c.fixed);
    free(c.payloads);
    free(c.src);
    free(c.expires);
    free(c.srcs);
    free(c.dedup);
    free(c.ndedup_entry);
    free(c.gix);
    free(c.gkey);
    qpack_clear(&c.pack);
    return rc;
}

