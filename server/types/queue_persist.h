/*
 * types/queue_persist: a queue's log records and snapshot entries, as the
 * queue writes them (store/queue_replay.c reads them back).
 *
 * Every change to a queue is logged by the queue itself, under its lock,
 * by one of the qlog_* calls below (no-ops without persistence). Records
 * say what a message *is* after the change (its state, delivery count and
 * due time, or that it is gone), never "one more".
 */
#ifndef MCDS_QUEUE_PERSIST_H
#define MCDS_QUEUE_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

struct queue;
struct qmsg;
struct qdedup_entry;
struct qgroup;
struct snap_writer;

/* The operations of records (Q_) and snapshot entries (S_). */
enum qp_op {
    Q_CREATE = 1, Q_DROP, Q_TTL, Q_PUSH, Q_STATE, Q_ACK, Q_PURGE, Q_DEAD,
    Q_REDRIVE, Q_KICK, Q_BURY, Q_PAUSE, Q_GPUSH, Q_GNEXT, Q_PUSH_TTL, Q_EXPIRE, Q_GPUSH_TTL,
    S_QUEUE = 20, S_MSG, S_DEDUP, S_GMSG, S_MSG_TTL, S_GMSG_TTL
};

#define QP_FIXED 640                /* room for every fixed part (two keys) */
#define QP_HELD UINT64_MAX

/* Writes queue item it into a snapshot: 0, or -1 on a write error. */
int queue_persist_dump(struct snap_writer *w, item *it);

void qlog_create(struct queue *q);
void qlog_drop(struct queue *q);
/* A push of m, in group g (NULL: none), remembered under deduplication
 * entry e (NULL: none). */
void qlog_push(struct queue *q, const struct qmsg *m, const struct qgroup *g, const struct qdedup_entry *e);
/* g's first waiting message became its head, ready. */
void qlog_gnext(struct queue *q, const struct qgroup *g);
/* m's state, delivery count or due time changed (lease, release, touch,
 * a lease running out, a delivery given back, burial). */
void qlog_state(struct queue *q, const struct qmsg *m);
/* m, refused by its dead-letter queue, is buried back in q: logged whole,
 * since a snapshot may have been written while it was on its way. */
void qlog_bury(struct queue *q, const struct qmsg *m);
void qlog_ack(struct queue *q, uint64_t id);
/* Message id expired and was dropped (expired=drop). */
void qlog_expire(struct queue *q, uint64_t id);
void qlog_purge(struct queue *q);
/* q's pops were paused until q->paused_until (0: resumed). */
void qlog_pause(struct queue *q);
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
