/*
 * types/queue: a work queue held under one key of the keyspace.
 *
 * Messages are ready (a heap by priority, then push order), delayed (a
 * heap by due time), in flight (a heap by lease end, plus an id map for
 * ack/release/touch) or buried. A lease that runs out puts the message back
 * to ready, or, after max_deliveries, hands it to the dead-letter hook; a
 * message the hook cannot place (its dead-letter queue is full, holds
 * another type, or finds no memory) is buried: kept in this queue, never
 * delivered, and offered to the hook again a second later. A message
 * leaves only by an ack, a purge, the queue's own end, or an expiry on a
 * queue that drops expired messages (queue_expire.c).
 * Consumers that found nothing may wait: a waiter is served, in arrival
 * order, as soon as messages are ready, and woken through its callback.
 *
 * Every function locks the queue itself. Time comes from clock_now_ms().
 * One timer (on the main thread's event base) serves every queue's delays
 * and leases, so idle queues and idle waiters cost nothing.
 */
#ifndef MCDS_QUEUE_H
#define MCDS_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"
#include "types/qheap.h"

#define QUEUE_DEFAULT_LEASE_MS 30000
#define QUEUE_DEFAULT_PRI 1024
#define QUEUE_HELD UINT64_MAX       /* lease of a message held by a connection */
#define QUEUE_DEFAULT_DEDUP_MS 300000   /* how long a deduplication id is remembered */

struct event_base;

/* QMSG_GROUPED: a message of a FIFO group waiting behind the group's
 * head, in no heap (queue_group.h). */
enum qmsg_state { QMSG_READY, QMSG_DELAYED, QMSG_INFLIGHT, QMSG_BURIED, QMSG_GROUPED };

struct qmsg {
    uint64_t id;
    uint64_t seq;           /* push order: FIFO among equal priorities */
    uint64_t due_ms;        /* delayed: ready time; in flight: lease end */
    uint64_t pushed_ms;
    uint32_t pri;           /* lower is served first */
    uint32_t deliveries;    /* times leased */
    uint32_t hpos;          /* position in the heap that holds it */
    uint32_t apos;          /* ready: position in the by-age heap (32 bits:
                               88 bytes in all, a 96-byte malloc chunk) */
    struct qmsg *id_next;   /* in-flight id map chain */
    item *payload;          /* client flags and value with "\r\n" */
    uint8_t state;
    uint8_t ttl;            /* allocated as a struct qmsg_ttl (pushed with a
                               ttl, queue_expire.c); fits in what was padding */
    uint32_t src;           /* a dead letter: the queue it came from, an
                               index into its queue's source table (1 up;
                               0: none); fits in what was padding */
    /* What qinfo shows (not persisted, none of it is needed to deliver):
     * the first and the last delivery, as 1 + the ms after pushed_ms (at
     * most UINT32_MAX; 0: none since the server started); in flight, the
     * conn_names token of the connection that took it. */
    uint32_t first_delivery, last_delivery;
    uint64_t holder;
};

struct queue_opts {
    uint64_t lease_ms;          /* default lease (visibility timeout) */
    uint32_t max_deliveries;    /* 0: redeliver forever */
    uint64_t max_length;        /* ready + delayed + in flight; 0: unbounded */
    char dlq[ITEM_KEY_MAX];     /* dead-letter queue key */
    size_t ndlq;
    uint64_t max_age_ms;        /* a message not acked this long after its
                                   push is dead-lettered; 0: no limit */
    uint64_t dedup_window_ms;   /* how long a push's deduplication id is
                                   remembered (queue_dedup.h) */
    uint8_t expired;            /* where a message past its ttl or max_age_ms
                                   goes: QUEUE_EXPIRED_DEAD or _DROP */
};

enum queue_expired { QUEUE_EXPIRED_DEAD, QUEUE_EXPIRED_DROP };

/* Names one delivery of a message: its id and, when delivery is not 0,
 * which delivery (the message's delivery count when it was handed out).
 * A receipt whose delivery is no longer the current one names nothing. */
struct qreceipt {
    uint64_t id;
    uint32_t delivery;
};

/* One message handed to a consumer: it owns a payload reference. */
struct qdelivery {
    uint64_t id;
    uint32_t deliveries;
    uint64_t lease_left_ms;
    item *payload;
};

/* The waiters of one wait on several queues (a member on each): the
 * first queue to serve a member, or the end of the wait, claims the
 * group; every other member is then skipped (taken off, given nothing). */
struct queue_wait_group {
    int claimed;                /* atomic: 0 until claimed */
};
/* Claims g: true for the first caller only. */
bool queue_group_claim(struct queue_wait_group *g);

struct queue_waiter {
    struct queue_waiter *prev, *next;
    struct queue_wait_group *group; /* NULL: a wait on this queue alone */
    int want;                   /* most messages to take */
    uint64_t lease_ms;          /* lease of what it takes, or QUEUE_HELD */
    uint64_t holder;            /* who takes it: a conn_names token (0: none) */
    struct qdelivery *got;      /* room for want deliveries */
    int ngot;
    bool listed;
    /* Called with the queue locked once got is filled (ngot may be 0 if
     * the queue was deleted). Must not call back into the queue. */
    void (*wake)(struct queue_waiter *w);
    void *owner;
};

struct queue_stats {
    uint64_t ready, delayed, inflight, buried, waiters;
    uint64_t pushed, popped, acked, released, expired, dead, purged;
    uint64_t oldest_ready_ms;   /* age of the oldest ready message */
    uint64_t expired_age;       /* sent off for their age (max_age_ms; dead or dropped) */
    uint64_t redriven, kicked;  /* sent back by queue_redrive, made ready by queue_kick */
    uint64_t deduplicated;      /* pushed messages a deduplication id found
                                   already queued (not pushed again) */
    uint64_t dedup_entries;     /* deduplication ids remembered now */
    uint64_t paused_ms_left;    /* until pops deliver again (0: not paused) */
    uint64_t expired_ttl;       /* sent off past their own ttl (dead or dropped) */
    uint64_t dropped;           /* expired and dropped (expired=drop) */
    uint64_t grouped;           /* messages waiting behind their group's head */
    uint64_t groups;            /* FIFO groups with messages */
};

enum queue_result { QUEUE_OK, QUEUE_FULL, QUEUE_NOMEM, QUEUE_NOT_FOUND, QUEUE_GONE };

struct queue;

/* dead_hook receives messages past max_deliveries, after the queue lock
 * is released. It returns true when it took the message over (into its
 * dead-letter queue, with queue_push_msg); false leaves it with its queue,
 * which buries it and offers it again later. */
typedef bool (*queue_dead_fn)(const char *src, size_t nsrc, const char *dlq, size_t ndlq, struct qmsg *m);
void queue_system_init(struct event_base *timer_base, queue_dead_fn dead_hook);
/* A replica's queues (on): no catch-up (leases running out, delays coming
 * due, maximum ages, unburying, deduplication windows) and no timer runs;
 * their changes come only as the primary's records. Off: they run again,
 * at once for what came due meanwhile. */
void queue_set_frozen(bool on);
void queue_system_shutdown(void);
/* The clock jumped (debugtime): run the timer now. */
void queue_clock_shifted(void);
/* Tests (--debug): the next dead letters wait ms on their way. */
void queue_debug_dead_pause(unsigned ms);

struct queue *queue_new(const char *name, size_t nname, const struct queue_opts *o, item *self);
void queue_free(struct queue *q);
/* The queue's key was deleted: waiters are woken empty, pushes refused. */
void queue_close(struct queue *q);
/* flush_all: every queue that exists now is closed. */
void queue_close_all(void);
/* Calls fn with the key of every queue that exists now (a delayed
 * flush_all come due: store.c looks at each). */
void queue_each_key(void (*fn)(const char *key, size_t nkey));
void queue_msg_free(struct qmsg *m);
/* When m's ttl runs out (server clock), 0: never (queue_expire.c). */
uint64_t queue_msg_expires(const struct qmsg *m);
const struct queue_opts *queue_options(const struct queue *q);

/* On QUEUE_OK the queue owns the payload reference. */
enum queue_result queue_push(struct queue *q, item *payload, uint32_t pri, uint64_t due_ms, uint64_t *id);
/* Several messages (1 to QUEUE_PUSH_MAX) with the same priority and due
 * time, all or none: on QUEUE_OK the queue owns every payload reference
 * and ids[i] is payloads[i]'s id; otherwise nothing was queued. */
#define QUEUE_PUSH_MAX 100
enum queue_result queue_push_many(struct queue *q, item **payloads, int n, uint32_t pri,
                                  uint64_t due_ms, uint64_t *ids);
/* A push's deduplication id (qpush and qpushn dedup=): message i of the
 * push is known as (id, i) for the queue's dedup window. */
struct queue_dedup_id {
    const char *id;
    size_t n;                   /* 1 to QDEDUP_ID_MAX bytes */
};
/* A push's FIFO group (qpush and qpushn group=): its messages are
 * delivered one at a time, in push order (queue_group.h). */
struct queue_group_id {
    const char *id;
    size_t n;                   /* 1 to QGROUP_ID_MAX bytes */
};
/* queue_push_many with a deduplication id (dd NULL: none) and a group
 * (grp NULL: none; the push is then ready now, due_ms ignored). A message
 * whose (id, i) the queue still remembers is not pushed: dup[i] is set,
 * ids[i] is the message that push queued, and the caller keeps payloads[i]
 * (every other payload is the queue's on QUEUE_OK). The others are pushed
 * all or none, each remembered under its (id, i) in the same log record. */
enum queue_result queue_push_dedup(struct queue *q, item **payloads, int n, uint32_t pri,
                                   uint64_t due_ms, const struct queue_dedup_id *dd,
                                   const struct queue_group_id *grp, uint64_t *ids, bool *dup);
/* queue_push_dedup with a time to live (qpush and qpushn ttl=): each
 * message pushed expires ttl_ms after the push (0: never) unless it is
 * acked first, as for the queue's max_age_ms. */
enum queue_result queue_push_ttl(struct queue *q, item **payloads, int n, uint32_t pri,
                                 uint64_t due_ms, const struct queue_dedup_id *dd,
                                 const struct queue_group_id *grp, uint64_t ttl_ms,
                                 uint64_t *ids, bool *dup);
/* Takes over a whole message from queue src (a dead letter): ready now,
 * its id kept, its delivery count starting again. */
enum queue_result queue_push_msg(struct queue *q, struct qmsg *m, const char *src, size_t nsrc);
/* Leases up to max ready messages to holder (a conn_names token, 0:
 * none); returns how many were filled in. */
int queue_pop(struct queue *q, int max, uint64_t lease_ms, uint64_t holder, struct qdelivery *out);
/* Takes one ready message for good (pop and ack): 1 or 0. */
int queue_take(struct queue *q, struct qdelivery *out);
/* ack, release and touch act on the in-flight delivery r names. A message
 * held by a Kestrel open read (leased with QUEUE_HELD) answers only to a
 * caller that says it is the holder (held); any other is QUEUE_NOT_FOUND. */
enum queue_result queue_ack(struct queue *q, const struct qreceipt *r, bool held);
enum queue_result queue_release(struct queue *q, const struct qreceipt *r, bool held, uint64_t delay_ms);
enum queue_result queue_touch(struct queue *q, const struct qreceipt *r, bool held, uint64_t lease_ms);
/* Gives back a delivery that never reached a client (its waiter hung
 * up): ready again, and the delivery is not counted. */
void queue_unlease(struct queue *q, const struct qreceipt *r);
/* Pauses q's pops until until_ms on the server clock (0, or a time
 * passed: resumes now): pops, takes and waiters are given nothing until
 * then, pushes and leases go on. QUEUE_GONE once q is deleted. */
enum queue_result queue_pause(struct queue *q, uint64_t until_ms);
/* Drops ready, delayed and buried messages; returns how many. */
uint64_t queue_purge(struct queue *q);

/* Calls fn on up to max ready messages in delivery order (peek), or on up
 * to max in-flight messages by lease end (pending). The queue is locked. */
void queue_peek(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg);
void queue_pending(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg);
void queue_get_stats(struct queue *q, struct queue_stats *st);

/* Read-only views for qinfo and qpeek (queue_info.c); fn runs with q
 * locked. queue_find calls fn on message id in whatever state it is and
 * says whether there is one: O(1) for a message in flight, a walk of the
 * queue's other messages otherwise. queue_peek_delayed calls fn on up to
 * max delayed messages, earliest due first. */
bool queue_find(struct queue *q, uint64_t id, void (*fn)(const struct qmsg *m, void *arg), void *arg);
void queue_peek_delayed(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg);
/* The FIFO group of message id into out (room for QGROUP_ID_MAX bytes):
 * its length, 0 when the message has none (or is not in q). */
size_t queue_msg_group(struct queue *q, uint64_t id, char *out);
/* queue_get_stats, unless q was deleted (closed): false then. */
bool queue_open_stats(struct queue *q, struct queue_stats *st);

/* Parks w until messages are ready (served at once if some are).
 * Returns false if the queue is closed. */
bool queue_wait(struct queue *q, struct queue_waiter *w);
/* Takes w off the wait list; false if it was already served. */
bool queue_unwait(struct queue *q, struct queue_waiter *w);

/* Message ids are handed out in blocks of QUEUE_ID_BLOCK: fn hears of
 * each new block before an id in it is used (persistence records the high
 * water mark); queue_id_floor makes the next ids larger than v. */
#define QUEUE_ID_BLOCK (1ULL << 20)
void queue_on_id_block(void (*fn)(uint64_t upto));
void queue_id_floor(uint64_t v);

/* ---- moving messages back (queue_move.c) ---- */

#define QUEUE_MOVE_MAX 10000        /* most messages one redrive or kick considers */

/* Opens the queue named name for a redrive, pinned (*pin to release), or
 * NULL when there is none (missing, or the key holds another type). */
typedef struct queue *(*queue_open_fn)(const char *name, size_t n, item **pin);
/* Sends up to max ready messages of dead-letter queue q (in delivery
 * order) back to the queue each came from, in batches: ready there now,
 * id, priority and data kept, delivery count and age starting again.
 * One whose source is unknown, gone, full or out of memory stays in q
 * where it was. *moved and *left count both kinds. */
void queue_redrive(struct queue *q, uint64_t max, queue_open_fn open, uint64_t *moved, uint64_t *left);
/* Makes up to max buried messages of q ready again, in their order, with
 * their delivery count and age starting again; returns how many. */
uint64_t queue_kick_buried(struct queue *q, uint64_t max);

/* Server-wide totals for `stats`. */
void queue_totals(struct queue_stats *st, uint64_t *nqueues);
/* Calls fn on every queue with its figures, each read under the queue's
 * lock; fn runs with the registry locked (no queue can be made or freed
 * meanwhile): it must be quick and call nothing of the queues. */
typedef void (*queue_stats_fn)(const char *name, size_t nname, const struct queue_stats *st, void *arg);
void queue_each_stats(queue_stats_fn fn, void *arg);

#endif
