/*
 * types/queue_int: the inside of a queue, shared by the files of the queue
 * type (queue.c, the structure; queue_persist.c, its records and
 * snapshots; queue_info.c, its read-only views) and no one else. Every
 * function here expects the queue's lock held, but queue_lock.
 */
#ifndef MCDS_QUEUE_INT_H
#define MCDS_QUEUE_INT_H

#include "base/reaper.h"
#include "types/queue.h"
#include "types/queue_dedup.h"
#include "types/queue_group.h"
#include "types/queue_pack.h"

#define QUEUE_IDMAP_INIT 64
#define QUEUE_BURY_RETRY_MS 1000    /* buried messages are offered again after */
#define QUEUE_BURY_BATCH 256        /* most buried messages offered at once */
#define QUEUE_NO_TIMER SIZE_MAX

struct queue {
    pthread_mutex_t lock;
    char name[ITEM_KEY_MAX];
    size_t nname;
    struct queue_opts opts;
    struct qpack pack;          /* ready messages pushed with no delay at the
                                   default priority, never delivered: packed,
                                   in push order (queue_pack.h) */
    struct qheap ready;         /* every other ready message: by priority,
                                   then push order */
    struct qheap ready_age;     /* the same messages by push order (oldest first) */
    struct qheap ready_ttl;     /* those of them with a ttl, by expiry (queue_expire.c) */
    struct qheap delayed;       /* by due time */
    struct qheap inflight;      /* by lease end */
    struct qheap buried;        /* dead letters not yet placed: by priority, push order */
    size_t bury_reserved;       /* room kept in buried for messages being placed */
    size_t move_reserved;       /* room kept in ready for messages out on a
                                   redrive, which may come back */
    struct queue_move_list *moving; /* messages out on redrives (queue_move.c) */
    struct queue_src **srcs;    /* where dead letters came from (queue_move.c) */
    uint32_t nsrcs;             /* slots in srcs (a free one is NULL) */
    uint64_t bury_retry_at;     /* when buried messages are offered again */
    struct qmsg **ids;          /* in-flight messages by id (all of them while
                                   the log is replayed at start-up) */
    size_t nbuckets;
    size_t nids;                /* messages in ids */
    uint64_t replay_lsn;        /* replay skips this queue's records before it */
    uint64_t seq;
    struct queue_waiter *whead, *wtail;
    uint64_t nwaiters;
    struct queue_stats counts;  /* the running totals (pushed, acked …) */
    struct qdedup dedup;        /* deduplication ids of recent pushes */
    struct qgroups groups;      /* FIFO groups and their held messages */
    uint64_t paused_until;      /* pops answer nothing before this time (0: not paused) */
    bool closed;
    uint64_t next_due;          /* earliest delay or lease end; atomic */
    size_t tpos;                /* place in the timer heap (QUEUE_NO_TIMER: none) */
    uint64_t theap_due;         /* when the timer heap will visit it; atomic,
                                   changed under the heap's lock */
    item *self;                 /* the keyspace item holding this queue */
    struct queue *reg_prev, *reg_next;
    struct reaper_job reap;     /* once deleted: freed by the reaper */
};

/* Messages past max_deliveries, moved out under the queue lock and
 * handed to the dead-letter hook once it is released. */
struct queue_dead {
    struct qmsg *m;
    uint32_t src;               /* m's source in its queue until it is placed */
    char dlq[ITEM_KEY_MAX];
    size_t ndlq;
};

struct queue_dead_list {
    struct queue_dead *v;
    size_t n, cap;
};

/* Messages in q, counted against max_length (those out on a redrive too). */
size_t queue_length(const struct queue *q);
/* Hands ready messages to waiters, first come first served. */
void queue_serve(struct queue *q);
/* Locks q and catches it up; queue_unlock() serves waiters, rearms the
 * timer, unlocks and buries the dead. */
void queue_lock(struct queue *q, uint64_t now, struct queue_dead_list *dl);
void queue_unlock(struct queue *q, struct queue_dead_list *dl);

/* The source table of a dead-letter queue (queue_move.c): a message names
 * the queue it came from by an index into it, so many dead letters share
 * one copy of a name. An entry lives while messages name it. */
struct queue_src {
    uint32_t refs;              /* messages naming it */
    size_t nname;
    char name[ITEM_KEY_MAX];
};
/* The index (1 up) of name in q's table, counted once more; 0 without
 * memory. */
uint32_t queue_src_ref(struct queue *q, const char *name, size_t n);
/* A message naming src (0: none) leaves q or is freed. */
void queue_src_unref(struct queue *q, uint32_t src);
const struct queue_src *queue_src_get(const struct queue *q, uint32_t src);
void queue_src_free_all(struct queue *q);

/* Messages a redrive took out of q's ready heaps: still q's (a snapshot
 * copies them as ready messages of q) until each is placed in its source
 * under both queues' locks (its slot then NULL) or given back. */
struct queue_move_list {
    struct qmsg **v;
    uint32_t *src;              /* each one's source entry in q */
    size_t n, cap;
    struct queue_move_list *next;   /* q's other redrives under way */
};

/* The ready messages: the pack, the ready heap and its by-age twin. A
 * message comes back to ready (a release, a redrive, a kick) in the heap;
 * only queue_push_many adds to the pack. */
int queue_ready_add(struct queue *q, struct qmsg *m);
/* The first ready message in delivery order, out of the pack or the
 * heaps (a packed one built into a message of its own): NULL when none
 * is ready or there is no memory to build it. */
struct qmsg *queue_ready_take(struct queue *q);
size_t queue_ready_count(const struct queue *q);
/* Fills m (not allocated, in no heap) with packed message e and a new
 * payload item for read-only views; the caller releases m->payload.
 * False without memory. */
bool queue_msg_from_pack(struct queue *q, const struct qpack_entry *e, struct qmsg *m);
/* The id map. */
struct qmsg **queue_id_slot(struct queue *q, uint64_t id);
void queue_id_add(struct queue *q, struct qmsg *m);
struct qmsg *queue_id_take(struct queue *q, uint64_t id);
/* Puts m (in no heap) back: ready now, or delayed until due_ms. */
void queue_requeue(struct queue *q, struct qmsg *m, uint64_t due_ms, uint64_t now);
/* Takes m out of the heap its state says it is in (not the id map). */
void queue_msg_detach(struct queue *q, struct qmsg *m);
/* Room in dl, and in buried, for one more dead letter; m (in no heap)
 * onto dl as a dead letter (back to ready without that room), its ttl
 * forgotten. */
bool queue_dead_room(struct queue *q, struct queue_dead_list *dl);
void queue_dead_add(struct queue *q, struct qmsg *m, struct queue_dead_list *dl, uint64_t now);
/* Recomputes when q next needs the timer. */
void queue_update_due(struct queue *q);

/* ---- messages with a ttl and where expired messages go (queue_expire.c) ---- */

/* A new message, zeroed: a struct qmsg_ttl expiring at expires_ms, or a
 * struct qmsg when expires_ms is 0. NULL without memory; not charged. */
struct qmsg *queue_msg_alloc(uint64_t expires_ms);
/* The bytes m was allocated with (what -m is charged for it). */
size_t queue_msg_size(const struct qmsg *m);
/* m, in no ready heap, no longer expires (it is a dead letter now). */
void queue_msg_forget_ttl(struct qmsg *m);

/* q's ready_ttl heap, made empty. */
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
