/*
 * types/queue_persist: the queue type's three persistence functions —
 * encoding its changes as log records, applying a record at replay, and
 * dumping a queue into a snapshot (and loading it back).
 *
 * Record payloads (after the queue's key, one length byte and the bytes):
 *   Q_CREATE  lease_ms u64, max_deliveries u32, max_length u64, dlq key,
 *             max_age_ms u64 (left out by logs written before it existed:
 *             read as 0, no limit)
 *   Q_DROP    -
 *   Q_TTL     exptime (Unix seconds, 0 never) u64
 *   Q_PUSH    a message (below)
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
 * A message: id u64, seq u64, state u8, priority u32, deliveries u32,
 * due u64 (Unix ms; a lease end for in-flight, UINT64_MAX when held by a
 * Kestrel open read), pushed (Unix ms) u64, flags u32, data length u32,
 * data. Snapshot entries: S_QUEUE (the Q_CREATE fields but max_age_ms,
 * exptime, seq, totals, the log position it was dumped at, then max_age_ms,
 * which older snapshots leave out) and S_MSG (queue key, message, then
 * for a dead letter the key of its source queue, which older snapshots
 * and messages with none leave out).
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "store/store.h"
#include "store/store_queue.h"
#include "types/queue_int.h"
#include "types/queue_persist.h"

enum qp_op {
    Q_CREATE = 1, Q_DROP, Q_TTL, Q_PUSH, Q_STATE, Q_ACK, Q_PURGE, Q_DEAD,
    Q_REDRIVE, Q_KICK, Q_BURY,
    S_QUEUE = 20, S_MSG
};

#define QP_FIXED 640                /* room for every fixed part (two keys) */
#define QP_HELD UINT64_MAX

/* ---- times ---- */

static uint64_t qp_due_out(const struct qmsg *m) {
    if (m->due_ms == QUEUE_HELD)
        return QP_HELD;
    return m->state == QMSG_READY ? 0 : clock_to_unix_ms(m->due_ms);
}

static uint64_t qp_due_in(uint64_t v) {
    return v == QP_HELD ? QUEUE_HELD : clock_from_unix_ms(v);
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

/* Logs fixed part o, then (with_data) m's data. */
static void qp_log(uint8_t op, struct codec_out *o, const struct qmsg *m) {
    struct iovec v[2] = { { o->p, o->n }, { NULL, 0 } };

    if (m != NULL) {
        v[1].iov_base = item_value(m->payload);
        v[1].iov_len = m->payload->nbytes - 2;
    }
    persist_log(PERSIST_QUEUE, op, v, m != NULL ? 2 : 1);
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

void qlog_push(struct queue *q, const struct qmsg *m) {
    qp_log_msg(Q_PUSH, q, m);
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

void qlog_ack(struct queue *q, uint64_t id) {
    uint8_t buf[QP_FIXED];
    struct codec_out o;

    if (!persist_on())
        return;
    qp_start(&o, buf, q);
    codec_put_u64(&o, id);
    qp_log(Q_ACK, &o, NULL);
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

/* ---- decoding ---- */

struct qp_msg {
    uint64_t id, seq, due, pushed;
    uint8_t state;
    uint32_t pri, deliveries, flags, len;
    const uint8_t *data;
};

static bool qp_get_msg(struct codec_in *in, struct qp_msg *m) {
    m->id = codec_get_u64(in);
    m->seq = codec_get_u64(in);
    m->state = codec_get_u8(in);
    m->pri = codec_get_u32(in);
    m->deliveries = codec_get_u32(in);
    m->due = codec_get_u64(in);
    m->pushed = codec_get_u64(in);
    m->flags = codec_get_u32(in);
    m->len = codec_get_u32(in);
    m->data = codec_get_bytes(in, m->len);
    return !in->bad && m->state <= QMSG_BURIED;
}

static bool qp_get_opts(struct codec_in *in, struct queue_opts *o) {
    const char *dlq;

    memset(o, 0, sizeof(*o));
    o->lease_ms = codec_get_u64(in);
    o->max_deliveries = codec_get_u32(in);
    o->max_length = codec_get_u64(in);
    dlq = codec_get_key(in, &o->ndlq);
    if (in->bad || o->ndlq > ITEM_KEY_MAX)
        return false;
    memcpy(o->dlq, dlq, o->ndlq);
    return true;
}

/* The max_age_ms at the end of a Q_CREATE or S_QUEUE: 0 when the record
 * ends before it (written before the field existed). */
static uint64_t qp_get_max_age(struct codec_in *in) {
    return in->n == 0 ? 0 : codec_get_u64(in);
}

/* ---- replay ---- */

/* The queue under key, pinned (created with o, or the defaults, when
 * make), or NULL. */
static item *qp_queue(const char *key, size_t nkey, bool make, const struct queue_opts *o) {
    enum store_status st;

    return store_queue_open(key, nkey, make, o, &st);
}

/* Puts m where its state says, and in the id map (every message is there
 * while the log is replayed). q locked. */
static void qp_place(struct queue *q, struct qmsg *m) {
    switch (m->state) {
    case QMSG_READY: queue_ready_add(q, m); break;
    case QMSG_DELAYED: qheap_push(&q->delayed, m); break;
    case QMSG_INFLIGHT: qheap_push(&q->inflight, m); break;
    case QMSG_BURIED: qheap_push(&q->buried, m); break;
    }
    queue_id_add(q, m);
}

/* A new message of q from its record; q locked. NULL without memory. */
static struct qmsg *qp_new_msg(struct queue *q, const struct qp_msg *r) {
    struct qmsg *m = calloc(1, sizeof(*m));
    item *payload = item_alloc(q->name, q->nname, r->flags, 0, (size_t)r->len + 2);

    if (m == NULL || payload == NULL) {
        free(m);
        if (payload != NULL)
            item_release(payload);
        return NULL;
    }
    memcpy(item_value(payload), r->data, r->len);
    memcpy(item_value(payload) + r->len, "\r\n", 2);
    m->id = r->id;
    m->seq = r->seq;
    m->state = r->state;
    m->pri = r->pri;
    m->deliveries = r->deliveries;
    m->due_ms = r->state == QMSG_READY ? 0 : qp_due_in(r->due);
    m->pushed_ms = clock_from_unix_ms(r->pushed);
    m->payload = payload;
    item_mem_charge((long)sizeof(*m));
    if (m->seq >= q->seq)
        q->seq = m->seq + 1;
    queue_id_floor(m->id);
    return m;
}

/* Adds message r to q unless an id of it is there already, a dead letter
 * from queue src when nsrc > 0; q locked. */
static int qp_add_msg(struct queue *q, const struct qp_msg *r, const char *src, size_t nsrc) {
    struct qmsg *m;

    if (*queue_id_slot(q, r->id) != NULL)
        return 0;
    m = qp_new_msg(q, r);
    if (m == NULL) {
        log_msg(0, "persistence: no memory to restore message %llu", (unsigned long long)r->id);
        return -1;
    }
    if (nsrc > 0 && (m->src = queue_src_ref(q, src, nsrc)) == 0)
        log_msg(0, "persistence: no memory to keep where message %llu came from",
                (unsigned long long)r->id);
    qp_place(q, m);
    return 0;
}

static void qp_free_msg(struct queue *q, struct qmsg *m) {
    queue_src_unref(q, m->src);
    queue_msg_free(m);
}

static void qp_remove_msg(struct queue *q, uint64_t id) {
    struct qmsg *m = queue_id_take(q, id);

    if (m != NULL) {
        queue_msg_detach(q, m);
        qp_free_msg(q, m);
    }
}

/* Q_KICK: the buried message id is ready again, no delivery counted. */
static void qp_kick(struct queue *q, uint64_t id, uint64_t pushed) {
    struct qmsg *m = *queue_id_slot(q, id);

    if (m == NULL)
        return;
    queue_msg_detach(q, m);
    queue_id_take(q, id);
    m->state = QMSG_READY;
    m->deliveries = 0;
    m->due_ms = 0;
    m->pushed_ms = clock_from_unix_ms(pushed);
    qp_place(q, m);
}

static void qp_purge(struct queue *q) {
    struct qheap *heaps[] = { &q->delayed, &q->buried };
    struct qmsg *m;
    size_t i;

    while ((m = queue_ready_take(q)) != NULL) {
        queue_id_take(q, m->id);
        qp_free_msg(q, m);
    }
    for (i = 0; i < 2; i++) {
        while ((m = qheap_pop(heaps[i])) != NULL) {
            queue_id_take(q, m->id);
            qp_free_msg(q, m);
        }
    }
}

static void qp_set_state(struct queue *q, uint64_t id, uint8_t state, uint32_t deliveries, uint64_t due) {
    struct qmsg *m = *queue_id_slot(q, id);

    if (m == NULL || state > QMSG_BURIED)
        return;
    queue_msg_detach(q, m);
    queue_id_take(q, id);
    m->state = state;
    m->deliveries = deliveries;
    m->due_ms = state == QMSG_READY ? 0 : qp_due_in(due);
    qp_place(q, m);
}

/* Applies a record to the queue under key, already pinned. */
static int qp_apply_to(struct queue *q, uint8_t op, struct codec_in *in) {
    struct qp_msg r;
    int rc = 0;

    switch (op) {
    case Q_PUSH:
        if (!qp_get_msg(in, &r))
            return -1;
        rc = qp_add_msg(q, &r, NULL, 0);
        q->counts.pushed++;
        return rc;
    case Q_BURY:
        if (!qp_get_msg(in, &r))
            return -1;
        if (*queue_id_slot(q, r.id) != NULL) {
            qp_set_state(q, r.id, r.state, r.deliveries, r.due);
            return 0;
        }
        return qp_add_msg(q, &r, NULL, 0);
    case Q_STATE:
        r.id = codec_get_u64(in);
        r.state = codec_get_u8(in);
        r.deliveries = codec_get_u32(in);
        r.due = codec_get_u64(in);
        if (in->bad)
            return -1;
        qp_set_state(q, r.id, r.state, r.deliveries, r.due);
        return 0;
    case Q_ACK:
        r.id = codec_get_u64(in);
        if (in->bad)
            return -1;
        qp_remove_msg(q, r.id);
        q->counts.acked++;
        return 0;
    case Q_PURGE:
        qp_purge(q);
        return 0;
    case Q_KICK:
        r.id = codec_get_u64(in);
        r.pushed = codec_get_u64(in);
        if (in->bad)
            return -1;
        qp_kick(q, r.id, r.pushed);
        return 0;
    }
    return -1;
}

/* Q_DEAD: out of its source (when the source has not seen it), into the
 * dead-letter queue q (likewise), naming its source there. Q_REDRIVE
 * (redrive): the same from the dead-letter queue back to its source,
 * counted as no dead letter and naming no source. */
static int qp_apply_move(const char *key, size_t nkey, struct codec_in *in, uint64_t lsn, bool redrive) {
    size_t nsrc;
    const char *src = codec_get_key(in, &nsrc);
    struct qp_msg r;
    item *pin;
    int rc = 0;

    if (src == NULL || !qp_get_msg(in, &r))
        return -1;
    if ((pin = qp_queue(src, nsrc, false, NULL)) != NULL) {
        struct queue *s = store_queue_of(pin);
        pthread_mutex_lock(&s->lock);
        if (lsn >= s->replay_lsn) {
            qp_remove_msg(s, r.id);
            s->counts.dead += redrive ? 0 : 1;
        }
        pthread_mutex_unlock(&s->lock);
        item_release(pin);
    }
    if ((pin = qp_queue(key, nkey, true, NULL)) != NULL) {
        struct queue *q = store_queue_of(pin);
        pthread_mutex_lock(&q->lock);
        if (lsn >= q->replay_lsn) {
            rc = qp_add_msg(q, &r, src, redrive ? 0 : nsrc);
            q->counts.pushed += redrive ? 1 : 0;
        }
        pthread_mutex_unlock(&q->lock);
        item_release(pin);
    }
    return rc;
}

static int qp_apply_create(const char *key, size_t nkey, struct codec_in *in) {
    struct queue_opts o;
    item *pin;

    if (!qp_get_opts(in, &o))
        return -1;
    o.max_age_ms = qp_get_max_age(in);
    if (in->bad)
        return -1;
    pin = qp_queue(key, nkey, true, &o);
    if (pin != NULL)
        item_release(pin);
    return 0;
}

static int qp_apply_drop(const char *key, size_t nkey, uint64_t lsn) {
    item *pin = qp_queue(key, nkey, false, NULL);
    bool drop;

    if (pin == NULL)
        return 0;
    drop = lsn >= store_queue_of(pin)->replay_lsn;
    item_release(pin);
    if (drop)
        store_delete(key, nkey, 0);
    return 0;
}

static int qp_apply_ttl(const char *key, size_t nkey, struct codec_in *in) {
    uint64_t exp = codec_get_u64(in);

    if (in->bad)
        return -1;
    store_touch(key, nkey, clock_exptime_from_unix(exp));
    return 0;
}

static int qp_apply(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn) {
    struct codec_in in;
    const char *key;
    size_t nkey;
    item *pin;
    int rc = 0;

    codec_in_init(&in, p, n);
    key = codec_get_key(&in, &nkey);
    if (key == NULL || nkey == 0)
        return -1;
    switch (op) {
    case Q_CREATE: return qp_apply_create(key, nkey, &in);
    case Q_DROP: return qp_apply_drop(key, nkey, lsn);
    case Q_TTL: return qp_apply_ttl(key, nkey, &in);
    case Q_DEAD: return qp_apply_move(key, nkey, &in, lsn, false);
    case Q_REDRIVE: return qp_apply_move(key, nkey, &in, lsn, true);
    }
    /* A push may meet a queue that is gone now (it is dropped later on). */
    pin = qp_queue(key, nkey, op == Q_PUSH, NULL);
    if (pin == NULL)
        return 0;
    pthread_mutex_lock(&store_queue_of(pin)->lock);
    if (lsn >= store_queue_of(pin)->replay_lsn)
        rc = qp_apply_to(store_queue_of(pin), op, &in);
    pthread_mutex_unlock(&store_queue_of(pin)->lock);
    item_release(pin);
    return rc;
}

/* ---- snapshots ---- */

/* What dump copies under the queue's lock. */
struct qp_copy {
    uint8_t head[QP_FIXED + 128];
    size_t nhead;
    uint8_t (*fixed)[64];           /* each message's fixed part */
    item **payloads;
    uint32_t *src;                  /* each message's source (index into srcs) */
    struct queue_src *srcs;         /* the queue's source table */
    uint32_t nsrcs;
    size_t n;
    struct qpack pack;              /* a copy of the queue's packed messages */
};

/* Every message of q in its heaps, and out on a redrive (still q's);
 * the packed ones are copied apart. */
static size_t qp_heap_total(const struct queue *q) {
    return q->ready.n + q->delayed.n + q->inflight.n + q->buried.n + q->move_reserved;
}

static void qp_copy_msgs(struct qp_copy *c, struct qmsg *const *v, size_t n) {
    size_t i;

    for (i = 0; i < n; i++) {
        struct codec_out o;
        if (v[i] == NULL)       /* placed in its source by a redrive */
            continue;
        codec_out_init(&o, c->fixed[c->n], sizeof(c->fixed[c->n]));
        qp_put_msg(&o, v[i]);
        item_incref(v[i]->payload);
        c->src[c->n] = v[i]->src;
        c->payloads[c->n++] = v[i]->payload;
    }
}

static void qp_copy_heap(struct qp_copy *c, const struct qheap *h) {
    qp_copy_msgs(c, h->v, h->n);
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
    total = qp_heap_total(q);
    c->fixed = malloc((total + 1) * sizeof(*c->fixed));
    c->payloads = malloc((total + 1) * sizeof(*c->payloads));
    c->src = malloc((total + 1) * sizeof(*c->src));
    c->srcs = malloc((q->nsrcs + 1) * sizeof(*c->srcs));
    if (c->fixed == NULL || c->payloads == NULL || c->src == NULL || c->srcs == NULL) {
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
    c->nhead = o.n;
    c->n = 0;
    qp_copy_heap(c, &q->ready);
    qp_copy_heap(c, &q->delayed);
    qp_copy_heap(c, &q->inflight);
    qp_copy_heap(c, &q->buried);
    for (l = q->moving; l != NULL; l = l->next)
        qp_copy_msgs(c, l->v, l->n);
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

static int qp_write_copy(struct snap_writer *w, const struct queue *q, struct qp_copy *c) {
    uint8_t key[ITEM_KEY_MAX + 1];
    struct codec_out ko;
    struct iovec v = { c->head, c->nhead };
    size_t i;
    int rc = snap_put(w, PERSIST_QUEUE, S_QUEUE, &v, 1);

    codec_out_init(&ko, key, sizeof(key));
    codec_put_key(&ko, q->name, q->nname);
    for (i = 0; i < c->n && rc == 0; i++) {
        uint8_t src[ITEM_KEY_MAX + 1];
        struct codec_out so;
        struct iovec m[4] = {
            { key, ko.n },
            { c->fixed[i], 8 + 8 + 1 + 4 + 4 + 8 + 8 + 4 + 4 },
            { item_value(c->payloads[i]), c->payloads[i]->nbytes - 2 },
            { src, 0 },
        };
        codec_out_init(&so, src, sizeof(src));
        if (c->src[i] != 0 && c->src[i] <= c->nsrcs && c->srcs[c->src[i] - 1].nname > 0) {
            codec_put_key(&so, c->srcs[c->src[i] - 1].name, c->srcs[c->src[i] - 1].nname);
            m[3].iov_len = so.n;
        }
        rc = snap_put(w, PERSIST_QUEUE, S_MSG, m, 4);
    }
    if (rc == 0)
        rc = qp_write_packed(w, key, ko.n, &c->pack);
    return rc;
}

static int qp_dump_item(struct snap_writer *w, item *it) {
    struct queue *q = store_struct_of(it);
    struct qp_copy c = { .fixed = NULL, .payloads = NULL, .src = NULL, .srcs = NULL, .n = 0 };
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
    free(c.srcs);
    qpack_clear(&c.pack);
    return rc;
}

static int qp_load_queue(struct codec_in *in) {
    size_t nkey;
    const char *key = codec_get_key(in, &nkey);
    struct queue_opts o;
    uint64_t exp, seq, pushed, acked, dead, purged, lsn;
    struct queue *q;
    item *pin;

    if (key == NULL || !qp_get_opts(in, &o))
        return -1;
    exp = codec_get_u64(in);
    seq = codec_get_u64(in);
    pushed = codec_get_u64(in);
    acked = codec_get_u64(in);
    dead = codec_get_u64(in);
    purged = codec_get_u64(in);
    lsn = codec_get_u64(in);
    o.max_age_ms = qp_get_max_age(in);
    if (in->bad || (pin = qp_queue(key, nkey, true, &o)) == NULL)
        return -1;
    q = store_queue_of(pin);
    q->seq = seq;
    q->counts.pushed = pushed;
    q->counts.acked = acked;
    q->counts.dead = dead;
    q->counts.purged = purged;
    q->replay_lsn = lsn;
    if (exp != 0)
        store_touch(key, nkey, clock_exptime_from_unix(exp));
    item_release(pin);
    return 0;
}

static int qp_load(uint8_t op, const uint8_t *p, size_t n) {
    struct codec_in in;
    struct qp_msg r;
    const char *key, *src;
    size_t nkey, nsrc = 0;
    item *pin;
    int rc;

    codec_in_init(&in, p, n);
    if (op == S_QUEUE)
        return qp_load_queue(&in);
    if (op != S_MSG)
        return -1;
    key = codec_get_key(&in, &nkey);
    if (key == NULL || !qp_get_msg(&in, &r))
        return -1;
    src = in.n > 0 ? codec_get_key(&in, &nsrc) : NULL;     /* older snapshots: none */
    if (in.bad || (pin = qp_queue(key, nkey, false, NULL)) == NULL)
        return -1;
    pthread_mutex_lock(&store_queue_of(pin)->lock);
    rc = qp_add_msg(store_queue_of(pin), &r, src, src != NULL ? nsrc : 0);
    pthread_mutex_unlock(&store_queue_of(pin)->lock);
    item_release(pin);
    return rc;
}

/* Every queue record starts with its queue's key. */
static const char *qp_key_of(uint8_t op, const uint8_t *p, size_t n, size_t *nkey) {
    (void)op;
    return persist_key_first(p, n, nkey);
}

static const struct persist_type_ops qp_ops = {
    .name = "queue",
    .apply = qp_apply,
    .key_of = qp_key_of,
    .load = qp_load,
    .dump_item = qp_dump_item,
};

static void qp_mark_ids(uint64_t upto) {
    persist_mark_ids(upto);
}

void queue_persist_init(void) {
    persist_register(PERSIST_QUEUE, ITEM_QUEUE, &qp_ops);
    queue_on_id_block(qp_mark_ids);
}
