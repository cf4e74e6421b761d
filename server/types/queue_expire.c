/*
 * types/queue_expire: a message's own time to live (qpush and qpushn
 * ttl=) and where an expired message goes (qcreate expired=); its
 * functions are declared in queue_int.h.
 *
 * A message pushed with a ttl is allocated as a struct qmsg_ttl: a
 * struct qmsg with its expiry and a place in the queue's third ready heap
 * (ready_ttl, by expiry) after it, so a message without one keeps the
 * size of a struct qmsg. A message with a ttl is never packed. While
 * ready it is in ready_ttl besides the two other ready heaps; delayed, in
 * flight or waiting in its FIFO group it keeps its expiry and is looked
 * at again once it is ready, as max_age_ms is. A dead letter (buried ones
 * too) loses its ttl: in its dead-letter queue, and after a redrive or a
 * kick, only max_age_ms limits it.
 *
 * A message past its ttl or the queue's max_age_ms goes to the
 * dead-letter queue (expired=dead, the default; buried when that queue
 * cannot take it) or is dropped (expired=drop: freed, counted in
 * dropped, logged). Everything here expects the queue's lock held.
 */
#include <stddef.h>
#include <stdlib.h>

#include "types/queue_int.h"
#include "types/queue_persist.h"

/* ---- the message ---- */

struct qmsg_ttl {
    struct qmsg m;              /* first: a struct qmsg * points at both */
    uint64_t expires_ms;        /* server clock; 0: none (a dead letter loses it) */
    uint32_t xpos;              /* ready: position in the queue's ready_ttl heap */
};

static struct qmsg_ttl *queue_ttl_of(const struct qmsg *m) {
    return (struct qmsg_ttl *)m;
}

struct qmsg *queue_msg_alloc(uint64_t expires_ms) {
    struct qmsg_ttl *t;

    if (expires_ms == 0)
        return calloc(1, sizeof(struct qmsg));
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->m.ttl = 1;
    t->expires_ms = expires_ms;
    return &t->m;
}

size_t queue_msg_size(const struct qmsg *m) {
    return m->ttl ? sizeof(struct qmsg_ttl) : sizeof(struct qmsg);
}

uint64_t queue_msg_expires(const struct qmsg *m) {
    return m->ttl ? queue_ttl_of(m)->expires_ms : 0;
}

void queue_msg_forget_ttl(struct qmsg *m) {
    if (m->ttl)
        queue_ttl_of(m)->expires_ms = 0;
}

/* ---- the ready messages with a ttl, by expiry ---- */

static int queue_ttl_less(const struct qmsg *a, const struct qmsg *b) {
    uint64_t x = queue_msg_expires(a), y = queue_msg_expires(b);

    if (x != y)
        return x < y;
    return a->seq < b->seq;
}

void queue_ttl_init(struct qheap *h) {
    qheap_init(h, queue_ttl_less, offsetof(struct qmsg_ttl, xpos));
}

int queue_ttl_room(struct queue *q, size_t n) {
    return qheap_reserve(&q->ready_ttl, q->ready_ttl.n + q->move_reserved + n);
}

int queue_ttl_reserve(struct queue *q, const struct qmsg *m) {
    return queue_msg_expires(m) == 0 ? 0 : queue_ttl_room(q, 1);
}

void queue_ttl_add(struct queue *q, struct qmsg *m) {
    if (queue_msg_expires(m) != 0)
        qheap_push(&q->ready_ttl, m);
}

void queue_ttl_remove(struct queue *q, struct qmsg *m) {
    if (queue_msg_expires(m) != 0)
        qheap_remove(&q->ready_ttl, m);
}

uint64_t queue_ttl_due(const struct queue *q) {
    struct qmsg *m = qheap_top(&q->ready_ttl);

    return m != NULL ? queue_msg_expires(m) : UINT64_MAX;
}

/* ---- where an expired message goes ---- */

static bool queue_expire_drops(const struct queue *q) {
    return q->opts.expired == QUEUE_EXPIRED_DROP;
}

bool queue_expire_room(struct queue *q, struct queue_dead_list *dl) {
    return queue_expire_drops(q) || queue_dead_room(q, dl);
}

void queue_expire_send(struct queue *q, struct qmsg *m, struct queue_dead_list *dl, uint64_t now) {
    if (!queue_expire_drops(q)) {
        queue_dead_add(q, m, dl, now);
        return;
    }
    q->counts.dropped++;
    qlog_expire(q, m->id);
    queue_group_left(q, m->id);     /* a dropped head lets its group go on */
    queue_src_unref(q, m->src);
    queue_msg_free(m);
}

bool queue_expire_ttl_one(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    struct qmsg *m = qheap_top(&q->ready_ttl);

    if (m == NULL || queue_msg_expires(m) > now || !queue_expire_room(q, dl))
        return false;
    queue_msg_detach(q, m);
    q->counts.expired_ttl++;
    queue_expire_send(q, m, dl, now);
    return true;
}
