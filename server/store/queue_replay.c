/*
 * store/queue_replay: queues back into the keyspace at start-up, from the
 * log records and snapshot entries types/queue_persist.c writes (their
 * formats are described there): each record applied to the queue it
 * names, each snapshot entry loaded; and the queue type's registration
 * with persistence.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "store/queue_replay.h"
#include "store/store.h"
#include "store/store_queue.h"
#include "types/queue_int.h"
#include "types/queue_persist.h"

static uint64_t qp_due_in(uint64_t v) {
    return v == QP_HELD ? QUEUE_HELD : clock_from_unix_ms(v);
}

/* ---- decoding ---- */

struct qp_msg {
    uint64_t id, seq, due, pushed;
    uint64_t expires;           /* Unix ms; 0: no ttl */
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
    m->expires = 0;
    return !in->bad && m->state <= QMSG_GROUPED;
}

/* A message, then its expiry when op says it has one (Q_PUSH_TTL,
 * S_MSG_TTL). */
static bool qp_get_msg_ttl(struct codec_in *in, struct qp_msg *m, bool ttl) {
    if (!qp_get_msg(in, m))
        return false;
    if (ttl)
        m->expires = codec_get_u64(in);
    return !in->bad && (!ttl || m->expires != 0);
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

/* The dedup_window_ms after it: the default when the record ends first. */
static uint64_t qp_get_dedup_window(struct codec_in *in) {
    return in->n == 0 ? QUEUE_DEFAULT_DEDUP_MS : codec_get_u64(in);
}

/* The expired option after it (S_QUEUE: after the pause): dead when the
 * record ends first. */
static uint8_t qp_get_expired(struct codec_in *in) {
    uint8_t v = in->n == 0 ? QUEUE_EXPIRED_DEAD : codec_get_u8(in);

    return v == QUEUE_EXPIRED_DROP ? QUEUE_EXPIRED_DROP : QUEUE_EXPIRED_DEAD;
}

/* When q's pops are paused until (server clock), from Unix ms v (0: not
 * paused; a time already passed: not paused either). */
static uint64_t qp_paused_in(uint64_t v) {
    uint64_t until = v != 0 ? clock_from_unix_ms(v) : 0;

    return until > clock_now_ms() ? until : 0;
}

/* Remembers a deduplication id of q (a push's tail, an S_DEDUP entry)
 * unless it expired before now; q locked. */
static int qp_remember(struct queue *q, const char *id, size_t n, uint8_t index, uint64_t msg_id,
                       uint64_t expires_unix_ms) {
    uint64_t expires = clock_from_unix_ms(expires_unix_ms);

    if (expires <= clock_now_ms())
        return 0;
    if (qdedup_add(&q->dedup, id, n, index, msg_id, expires) < 0) {
        log_msg(0, "persistence: no memory to remember deduplication id of message %llu",
                (unsigned long long)msg_id);
        return -1;
    }
    return 0;
}

/* The deduplication id at the end of a Q_PUSH (d->n 0: none). */
struct qp_dedup {
    const char *id;
    size_t n;
    uint8_t index;
    uint64_t expires;
};

static bool qp_get_push_dedup(struct codec_in *in, struct qp_dedup *d) {
    d->n = 0;
    if (in->n == 0)
        return true;
    d->id = codec_get_key(in, &d->n);
    d->index = codec_get_u8(in);
    d->expires = codec_get_u64(in);
    return !in->bad && in->n == 0 && d->n > 0 && d->n <= QDEDUP_ID_MAX;
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
    case QMSG_GROUPED: break;      /* qp_add_grouped holds it in its group */
    }
    queue_id_add(q, m);
}

/* When a message expiring at Unix ms v expires on the server clock (0:
 * never; at least 1, so one that ran out while the server was down still
 * expires, right after the replay). */
static uint64_t qp_expires_in(uint64_t v) {
    uint64_t at = clock_from_unix_ms(v);

    return v == 0 ? 0 : at > 0 ? at : 1;
}

/* A new message of q from its record; q locked. NULL without memory. */
static struct qmsg *qp_new_msg(struct queue *q, const struct qp_msg *r) {
    struct qmsg *m = queue_msg_alloc(qp_expires_in(r->expires));
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
    item_mem_charge((long)queue_msg_size(m));
    if (m->seq >= q->seq)
        q->seq = m->seq + 1;
    queue_id_floor(m->id);
    return m;
}

/* Adds message r to q unless an id of it is there already, a dead letter
 * from queue src when nsrc > 0; q locked. */
static int qp_add_msg(struct queue *q, const struct qp_msg *r, const char *src, size_t nsrc) {
    struct qmsg *m;

    if (r->state == QMSG_GROUPED)
        return -1;              /* waiting behind a group it does not name */
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

/* Adds message r of group (gid, ngid) to q unless an id of it is there
 * already: the group's head, or (state QMSG_GROUPED) waiting behind it in
 * the order added; q locked. */
static int qp_add_grouped(struct queue *q, const struct qp_msg *r, const char *gid, size_t ngid) {
    struct qgroup *g;
    struct qmsg *m = NULL;

    if (gid == NULL || ngid == 0 || ngid > QGROUP_ID_MAX)
        return -1;
    if (*queue_id_slot(q, r->id) != NULL)
        return 0;
    g = qgroup_get(q, gid, ngid);
    if (g == NULL || (m = qp_new_msg(q, r)) == NULL || (r->state == QMSG_GROUPED && qgroup_hold(q, g, m) < 0)) {
        log_msg(0, "persistence: no memory to restore message %llu of a group", (unsigned long long)r->id);
        if (m != NULL)
            queue_msg_free(m);
        if (g != NULL)
            qgroup_drop_if_empty(q, g);
        return -1;
    }
    if (r->state == QMSG_GROUPED) {
        queue_id_add(q, m);
        return 0;
    }
    qp_place(q, m);
    qgroup_set_head(q, g, m->id);
    return 0;
}

/* Q_GNEXT: the first waiting message of group (gid, ngid) is its head,
 * ready (it is in the id map already); q locked. */
static int qp_group_next(struct queue *q, const char *gid, size_t ngid) {
    struct qgroup *g = gid != NULL ? qgroup_find(q, gid, ngid) : NULL;
    struct qmsg *m = g != NULL && g->n > 0 ? qgroup_held_at(g, 0) : NULL;

    if (m == NULL)
        return gid != NULL ? 0 : -1;
    m->state = QMSG_READY;
    m->due_ms = 0;
    if (queue_ready_add(q, m) < 0) {
        /* It stays first in its group: the end of replay makes it the head. */
        m->state = QMSG_GROUPED;
        log_msg(0, "persistence: no memory yet to make message %llu ready", (unsigned long long)m->id);
        return 0;
    }
    qgroup_unhold_first(q, g);
    qgroup_set_head(q, g, m->id);
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
        queue_group_forget(q, id);
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

/* Takes g's waiting messages out of the id map (a purge frees them). */
static void qp_unmap_waiting(struct qgroup *g, void *arg) {
    uint32_t i;

    for (i = 0; i < g->n; i++)
        queue_id_take(arg, qgroup_held_at(g, i)->id);
}

static void qp_purge(struct queue *q) {
    struct qheap *heaps[] = { &q->delayed, &q->buried };
    struct qmsg *m;
    size_t i;

    qgroup_each(q, qp_unmap_waiting, q);
    queue_group_purge(q);
    while ((m = queue_ready_take(q)) != NULL) {
        queue_id_take(q, m->id);
        queue_group_forget(q, m->id);
        qp_free_msg(q, m);
    }
    for (i = 0; i < 2; i++) {
        while ((m = qheap_pop(heaps[i])) != NULL) {
            queue_id_take(q, m->id);
            queue_group_forget(q, m->id);
            qp_free_msg(q, m);
        }
    }
}

/* A message waiting in a group that a record moves on has become the
 * group's head (its Q_GNEXT was lost, or came later). */
static void qp_set_state(struct queue *q, uint64_t id, uint8_t state, uint32_t deliveries, uint64_t due) {
    struct qmsg *m = *queue_id_slot(q, id);
    struct qgroup *g = NULL;

    if (m == NULL || state > QMSG_BURIED)
        return;
    if (m->state == QMSG_GROUPED)
        g = queue_group_unhold(q, m);
    else
        queue_msg_detach(q, m);
    queue_id_take(q, id);
    m->state = state;
    m->deliveries = deliveries;
    m->due_ms = state == QMSG_READY ? 0 : qp_due_in(due);
    qp_place(q, m);
    if (g != NULL)
        qgroup_set_head(q, g, m->id);
}

/* Whether push record op names its FIFO group (Q_GPUSH, Q_GPUSH_TTL). */
static bool qp_op_grouped(uint8_t op) {
    return op == Q_GPUSH || op == Q_GPUSH_TTL;
}

/* Applies a record to the queue under key, already pinned. */
static int qp_apply_to(struct queue *q, uint8_t op, struct codec_in *in) {
    struct qp_dedup dd;
    struct qp_msg r;
    const char *gid;
    size_t ngid = 0;
    int rc = 0;

    switch (op) {
    case Q_PUSH:
    case Q_GPUSH:
    case Q_PUSH_TTL:
    case Q_GPUSH_TTL:
        /* Read whole before anything changes: the record applies as one. */
        gid = qp_op_grouped(op) ? codec_get_key(in, &ngid) : NULL;
        if (!qp_get_msg_ttl(in, &r, op == Q_PUSH_TTL || op == Q_GPUSH_TTL) || !qp_get_push_dedup(in, &dd))
            return -1;
        rc = qp_op_grouped(op) ? qp_add_grouped(q, &r, gid, ngid) : qp_add_msg(q, &r, NULL, 0);
        q->counts.pushed++;
        if (rc == 0 && dd.n > 0)
            rc = qp_remember(q, dd.id, dd.n, dd.index, r.id, dd.expires);
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
    case Q_EXPIRE:      /* dropped on expiry */
        r.id = codec_get_u64(in);
        if (in->bad)
            return -1;
        qp_remove_msg(q, r.id);
        if (op == Q_ACK)
            q->counts.acked++;
        else
            q->counts.dropped++;
        return 0;
    case Q_PURGE:
        qp_purge(q);
        return 0;
    case Q_GNEXT:
        gid = codec_get_key(in, &ngid);
        return in->bad ? -1 : qp_group_next(q, gid, ngid);
    case Q_PAUSE:
        r.due = codec_get_u64(in);
        if (in->bad)
            return -1;
        q->paused_until = qp_paused_in(r.due);
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
            q->counts.pushed++;     /* as live: a dead letter and a redriven message count as pushed where they arrive */
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
    o.dedup_window_ms = qp_get_dedup_window(in);
    o.expired = qp_get_expired(in);
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
    pin = qp_queue(key, nkey, op == Q_PUSH || op == Q_GPUSH || op == Q_PUSH_TTL || op == Q_GPUSH_TTL, NULL);
    if (pin == NULL)
        return 0;
    pthread_mutex_lock(&store_queue_of(pin)->lock);
    if (lsn >= store_queue_of(pin)->replay_lsn)
        rc = qp_apply_to(store_queue_of(pin), op, &in);
    pthread_mutex_unlock(&store_queue_of(pin)->lock);
    item_release(pin);
    return rc;
}

static int qp_load_queue(struct codec_in *in) {
    size_t nkey;
    const char *key = codec_get_key(in, &nkey);
    struct queue_opts o;
    uint64_t exp, seq, pushed, acked, dead, purged, lsn, paused, dropped;
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
    o.dedup_window_ms = qp_get_dedup_window(in);
    paused = in->n == 0 ? 0 : codec_get_u64(in);
    o.expired = qp_get_expired(in);
    dropped = in->n == 0 ? 0 : codec_get_u64(in);
    if (in->bad || (pin = qp_queue(key, nkey, true, &o)) == NULL)
        return -1;
    q = store_queue_of(pin);
    q->paused_until = qp_paused_in(paused);
    q->seq = seq;
    q->counts.pushed = pushed;
    q->counts.acked = acked;
    q->counts.dead = dead;
    q->counts.purged = purged;
    q->counts.dropped = dropped;
    q->replay_lsn = lsn;
    if (exp != 0)
        store_touch(key, nkey, clock_exptime_from_unix(exp));
    item_release(pin);
    return 0;
}

/* S_DEDUP: a deduplication id its queue remembered. */
static int qp_load_dedup(struct codec_in *in) {
    size_t nkey, n;
    const char *key = codec_get_key(in, &nkey);
    const char *did = codec_get_key(in, &n);
    uint8_t index = codec_get_u8(in);
    uint64_t msg_id = codec_get_u64(in), expires = codec_get_u64(in);
    item *pin;
    int rc;

    if (key == NULL || in->bad || n == 0 || n > QDEDUP_ID_MAX
        || (pin = qp_queue(key, nkey, false, NULL)) == NULL)
        return -1;
    pthread_mutex_lock(&store_queue_of(pin)->lock);
    rc = qp_remember(store_queue_of(pin), did, n, index, msg_id, expires);
    pthread_mutex_unlock(&store_queue_of(pin)->lock);
    item_release(pin);
    return rc;
}

/* S_GMSG (S_GMSG_TTL with ttl): a message of a FIFO group, its head or
 * waiting behind it. */
static int qp_load_grouped(struct codec_in *in, bool ttl) {
    size_t nkey, ngid;
    const char *key = codec_get_key(in, &nkey);
    const char *gid = codec_get_key(in, &ngid);
    struct qp_msg r;
    item *pin;
    int rc;

    if (key == NULL || gid == NULL || !qp_get_msg_ttl(in, &r, ttl) || (pin = qp_queue(key, nkey, false, NULL)) == NULL)
        return -1;
    pthread_mutex_lock(&store_queue_of(pin)->lock);
    rc = qp_add_grouped(store_queue_of(pin), &r, gid, ngid);
    pthread_mutex_unlock(&store_queue_of(pin)->lock);
    item_release(pin);
    return rc;
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
    if (op == S_DEDUP)
        return qp_load_dedup(&in);
    if (op == S_GMSG || op == S_GMSG_TTL)
        return qp_load_grouped(&in, op == S_GMSG_TTL);
    if (op != S_MSG && op != S_MSG_TTL)
        return -1;
    key = codec_get_key(&in, &nkey);
    if (key == NULL || !qp_get_msg_ttl(&in, &r, op == S_MSG_TTL))
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
    .dump_item = queue_persist_dump,
};

static void qp_mark_ids(uint64_t upto) {
    persist_mark_ids(upto);
}

void queue_replay_init(void) {
    persist_register(PERSIST_QUEUE, ITEM_QUEUE, &qp_ops);
    queue_on_id_block(qp_mark_ids);
}
