/*
 * types/queue_expire: a message's own time to live (qpush and qpushn
 * ttl=) and where an expired message goes (qcreate expired=).
 *
 * A message pushed with a ttl is allocated as a struct qmsg_ttl: a
 * struct qmsg with its expiry and a place in the queue's third ready heap
 * (ready_ttl, by expiry) after it, so a message without one keeps the
 * size of a struct qmsg. A message with a ttl is never packed. While
 * ready it is in ready_ttl besides the two other ready heaps; delayed, in
 * flight or buried it keeps its expiry and is looked at again once it is
 * ready, as max_age_ms is. A dead letter loses its ttl: in its dead-letter
 * queue, and after a redrive or a kick, only max_age_ms limits it.
 *
 * A message past its ttl or the queue's max_age_ms goes to the
 * dead-letter queue (expired=dead, the default; buried when that queue
 * cannot take it) or is dropped (expired=drop: freed, counted in
 * dropped, logged). Everything here expects the queue's lock held.
 */
#ifndef MCDS_QUEUE_EXPIRE_H
#define MCDS_QUEUE_EXPIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/qheap.h"
#include "types/queue.h"

struct queue_dead_list;

struct qmsg_ttl {
    struct qmsg m;              /* first: a struct qmsg * points at both */
    uint64_t expires_ms;        /* server clock; 0: none (a dead letter loses it) */
    uint32_t xpos;              /* ready: position in the queue's ready_ttl heap */
};

/* A new message, zeroed: a struct qmsg_ttl expiring at expires_ms, or a
 * struct qmsg when expires_ms is 0. NULL without memory; not charged. */
struct qmsg *queue_msg_alloc(uint64_t expires_ms);
/* The bytes m was allocated with (what -m is charged for it). */
size_t queue_msg_size(const struct qmsg *m);
/* m, in no ready heap, no longer expires (it is a dead letter now). */
void queue_msg_forget_ttl(struct qmsg *m);

/* q's ready_ttl heap (queue_int.h), made empty. */
void queue_ttl_init(struct qheap *h);
/* Room in q's ready_ttl for n more messages (and those out on a move). */
int queue_ttl_room(struct queue *q, size_t n);
/* ready_ttl's side of queue_ready_add and queue_ready_take: a message
 * without a ttl is not in it. queue_ttl_add needs the room made first. */
int queue_ttl_reserve(struct queue *q, const struct qmsg *m);
void queue_ttl_add(struct queue *q, struct qmsg *m);
void queue_ttl_remove(struct queue *q, struct qmsg *m);
/* When the first ready message with a ttl expires (UINT64_MAX: none). */
uint64_t queue_ttl_due(const struct queue *q);

/* Whether an expired message can be sent off now (dropping needs no
 * room; a dead letter needs room in dl and in buried). */
bool queue_expire_room(struct queue *q, struct queue_dead_list *dl);
/* m, out of every heap of q, expired: onto dl, or dropped (after
 * queue_expire_room said yes). */
void queue_expire_send(struct queue *q, struct qmsg *m, struct queue_dead_list *dl, uint64_t now);
/* Sends off the first ready message past its ttl at now: false when
 * none is, or there is no room to. */
bool queue_expire_ttl_one(struct queue *q, uint64_t now, struct queue_dead_list *dl);

#endif
