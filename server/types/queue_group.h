/*
 * types/queue_group: FIFO message groups (qpush/qpushn group=<id>).
 *
 * A group hands out its messages one at a time, in push order. Its head
 * is the one message of the group the queue may deliver: ready, delayed
 * or in flight like any other message, in the queue's heaps. The group's
 * other messages are held (state QMSG_GROUPED, in no heap), in push order,
 * until the head leaves the queue (acked, sent to the dead-letter queue,
 * purged): the first held message then becomes the head, ready. A group
 * exists while it has a head or held messages. Two tables find a group:
 * by name (a push), and by its head's id (a message leaving the queue).
 *
 * Every function expects the queue's lock held.
 */
#ifndef MCDS_QUEUE_GROUP_H
#define MCDS_QUEUE_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QGROUP_ID_MAX 128           /* most bytes of a group id */

struct qmsg;
struct queue;

struct qgroup {
    struct qgroup *name_next, *head_next;   /* chains of the two tables */
    uint64_t head;                  /* the head's id (0: none) */
    struct qmsg **held;             /* a ring of the held messages, in push order */
    uint32_t first, n, cap;
    bool headed;                    /* in the by-head table */
    uint32_t mark;                  /* a snapshot's number for it */
    uint8_t nname;
    char name[];
};

struct qgroups {
    struct qgroup **by_name, **by_head;
    size_t nbuckets;                /* a power of two; 0 before the first group */
    size_t n;                       /* groups */
    uint64_t nheld;                 /* held messages, every group's */
    size_t nheadless;               /* groups with held messages and no head
                                       (no memory to make one ready yet) */
    bool walking;                   /* qgroup_each runs: the tables keep their size */
};

void qgroups_init(struct qgroups *gs);

/* ---- the queue's rules (q locked) ---- */

/* The group (gid, ngid) of q for a push of n messages, made if missing,
 * with room to hold them all: NULL without memory (nothing changed). */
struct qgroup *queue_group_prepare(struct queue *q, const char *gid, size_t ngid, int n);
/* Places fresh message m (ready, in no heap) of a push into g: the head
 * when g has none and holds nothing, else held. Room was made by
 * queue_group_prepare and in the ready heaps. */
void queue_group_add(struct queue *q, struct qgroup *g, struct qmsg *m);
/* A push that prepared g failed: g goes if it holds nothing. */
void queue_group_unprepare(struct queue *q, struct qgroup *g);
/* Message id left q (acked, taken, sent to a dead-letter queue, purged):
 * if it was a group's head, the group's next message becomes ready. */
void queue_group_left(struct queue *q, uint64_t id);
/* The same in replay: the group only forgets its head (the next one is
 * made ready by its own record, or when replay is done). */
void queue_group_forget(struct queue *q, uint64_t id);
/* Makes ready the next message of every group left without a head (no
 * memory earlier, or replay stopped between the two records). */
void queue_group_retry(struct queue *q);
/* Frees every held message (a purge); returns how many. */
uint64_t queue_group_purge(struct queue *q);
/* Frees every group and held message (the queue is freed). */
void queue_group_free_all(struct queue *q);
/* The held message id, or NULL: a walk of every group. */
struct qmsg *queue_group_find_held(struct queue *q, uint64_t id);
/* The name of the group message m belongs to (as its head, or held), in
 * *n; NULL when it has none. */
const char *queue_group_name_of(struct queue *q, const struct qmsg *m, size_t *n);
/* Takes held message m out of its group (a walk; replay only): its
 * group, NULL when no group holds it. */
struct qgroup *queue_group_unhold(struct queue *q, struct qmsg *m);
/* The group whose head is message id (NULL: none). */
struct qgroup *queue_group_of_head(const struct queue *q, uint64_t id);

/* ---- replay and snapshots ---- */

/* Group (gid, ngid) of q, made if missing: NULL without memory. */
struct qgroup *qgroup_get(struct queue *q, const char *gid, size_t ngid);
struct qgroup *qgroup_find(const struct queue *q, const char *gid, size_t ngid);
/* Appends m (state QMSG_GROUPED) to g's held messages: -1 without memory. */
int qgroup_hold(struct queue *q, struct qgroup *g, struct qmsg *m);
/* Makes message id g's head (the message is in q's heaps). */
void qgroup_set_head(struct queue *q, struct qgroup *g, uint64_t id);
/* Takes g's first held message off its list (NULL: none). */
struct qmsg *qgroup_unhold_first(struct queue *q, struct qgroup *g);
/* Calls fn on every group of q. */
void qgroup_each(struct queue *q, void (*fn)(struct qgroup *g, void *arg), void *arg);
/* Held message i (0 first) of g. */
struct qmsg *qgroup_held_at(const struct qgroup *g, uint32_t i);
/* Frees g if it has neither head nor held messages. */
void qgroup_drop_if_empty(struct queue *q, struct qgroup *g);

#endif
