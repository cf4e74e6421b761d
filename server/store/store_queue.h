/*
 * store_queue: queues in the keyspace. Finding or creating the queue
 * under a key, and every operation that changes a queue, pass through
 * here, so that (like store.c for cache items) one layer sees every queue
 * mutation — the point where persistence hooks in.
 *
 * A pinned queue is the queue's item with a reference held by the caller:
 * release it with item_release() when done.
 */
#ifndef MCDS_STORE_QUEUE_H
#define MCDS_STORE_QUEUE_H

#include "store/store.h"
#include "types/queue.h"

struct event_base;

void store_queue_init(struct event_base *timer_base);
void store_queue_shutdown(void);

/* Fills o with the defaults for a queue named key. */
void store_queue_defaults(const char *key, size_t nkey, struct queue_opts *o);

/* What qcreate's options may not say: a delivery limit needs a
 * dead-letter queue other than the queue itself, on a key that does not
 * hold another type. */
enum store_queue_check {
    STORE_QUEUE_OPTS_OK,
    STORE_QUEUE_DLQ_NEEDED,     /* the name is too long for "<name>:dead" */
    STORE_QUEUE_DLQ_SELF,
    STORE_QUEUE_DLQ_WRONG_TYPE,
};
enum store_queue_check store_queue_check_opts(const char *key, size_t nkey, const struct queue_opts *o);

/* The queue under key, pinned. With create, a missing one is made with o
 * (the defaults if o is NULL). *st as store_struct_find's. */
item *store_queue_open(const char *key, size_t nkey, bool create, const struct queue_opts *o,
                       enum store_status *st);
struct queue *store_queue_of(item *pin);

enum queue_result store_queue_push(item *pin, item *payload, uint32_t pri, uint64_t due_ms, uint64_t *id);
/* Pushes with a deduplication id and a FIFO group (queue_push_dedup), and
 * a time to live (queue_push_ttl; 0: none): dup[i] set for a message
 * already queued by an earlier push of the same id. */
enum queue_result store_queue_push_dedup(item *pin, item **payloads, int n, uint32_t pri, uint64_t due_ms,
                                         const struct queue_dedup_id *dd, const struct queue_group_id *grp,
                                         uint64_t ttl_ms,
                                         uint64_t *ids, bool *dup);
int store_queue_pop(item *pin, int max, uint64_t lease_ms, uint64_t holder, struct qdelivery *out);
int store_queue_take(item *pin, struct qdelivery *out);
enum queue_result store_queue_ack(item *pin, const struct qreceipt *r, bool held);
enum queue_result store_queue_release(item *pin, const struct qreceipt *r, bool held, uint64_t delay_ms);
enum queue_result store_queue_touch(item *pin, const struct qreceipt *r, bool held, uint64_t lease_ms);
void store_queue_unlease(item *pin, const struct qreceipt *r);
uint64_t store_queue_purge(item *pin);
enum queue_result store_queue_pause(item *pin, uint64_t until_ms);
/* Dead letters back to their sources (queue_redrive), buried messages
 * ready again (queue_kick_buried). */
void store_queue_redrive(item *pin, uint64_t max, uint64_t *moved, uint64_t *left);
uint64_t store_queue_kick(item *pin, uint64_t max);

#endif
