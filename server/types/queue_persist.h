/*
 * types/queue_persist: a queue's log records and snapshot entries.
 *
 * Every change to a queue is logged by the queue itself, under its lock,
 * by one of the qlog_* calls below (no-ops without persistence). Records
 * say what a message *is* after the change (its state, delivery count and
 * due time, or that it is gone), never "one more", so replaying a record
 * that a snapshot already reflects changes nothing, and records a queue's
 * snapshot already holds are skipped by position (replay_lsn).
 */
#ifndef MCDS_QUEUE_PERSIST_H
#define MCDS_QUEUE_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

struct queue;
struct qmsg;

/* Registers the queue type with persistence. */
void queue_persist_init(void);

void qlog_create(struct queue *q);
void qlog_drop(struct queue *q);
void qlog_push(struct queue *q, const struct qmsg *m);
/* m's state, delivery count or due time changed (lease, release, touch,
 * a lease running out, a delivery given back, burial). */
void qlog_state(struct queue *q, const struct qmsg *m);
/* m, refused by its dead-letter queue, is buried back in q: logged whole,
 * since a snapshot may have been written while it was on its way. */
void qlog_bury(struct queue *q, const struct qmsg *m);
void qlog_ack(struct queue *q, uint64_t id);
void qlog_purge(struct queue *q);
/* m moved from queue src into dead-letter queue q. */
void qlog_dead(struct queue *q, const char *src, size_t nsrc, const struct qmsg *m);
/* m moved from dead-letter queue from back into q (a redrive). */
void qlog_redrive(struct queue *q, const char *from, size_t nfrom, const struct qmsg *m);
/* m, buried in q, is ready again, its count and age starting again (a kick). */
void qlog_kick(struct queue *q, const struct qmsg *m);
/* The queue item under name got a new exptime (touch, gat). */
void qlog_ttl(const char *name, size_t nname, rel_time_t exptime);

/* After replay: only in-flight messages stay in the id maps. */
void queue_persist_replay_done(void);

#endif
