/*
 * types/queue_dedup: a queue's deduplication ids (qpush/qpushn dedup=).
 *
 * An entry says "the push named <id> (message <index> of its batch) was
 * message <msg_id>" until it expires, the push's time plus the queue's
 * dedup window. Entries sit in a hash table by (id, index) and in a list
 * in the order they were added, which is their expiry order while the
 * window stays the same: expiry takes them from the list's head, a bounded
 * number at a time. A lookup ignores an expired entry, so what a client
 * sees never depends on when the sweep last ran. The table doubles when
 * it holds as many entries as buckets and halves when an eighth or less
 * is used. Entries and table are counted against -m. The queue's lock
 * covers all of it.
 */
#ifndef MCDS_QUEUE_DEDUP_H
#define MCDS_QUEUE_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QDEDUP_ID_MAX 128           /* most bytes of a deduplication id */
#define QDEDUP_SWEEP_MAX 256        /* most expired entries freed at once */

struct qdedup_entry {
    struct qdedup_entry *hnext;     /* hash chain */
    struct qdedup_entry *prev, *next;   /* the order entries were added in */
    uint64_t expires_ms;            /* server clock */
    uint64_t msg_id;
    uint8_t index;                  /* the message's place in its batch */
    uint8_t n;
    char id[];
};

struct qdedup {
    struct qdedup_entry **buckets;
    size_t nbuckets;
    size_t n;
    struct qdedup_entry *head, *tail;
};

void qdedup_init(struct qdedup *d);
/* Frees every entry and the table. */
void qdedup_free(struct qdedup *d);
/* The message the push named (id, index) was, if its entry has not
 * expired at now. */
bool qdedup_find(struct qdedup *d, const char *id, size_t n, uint8_t index, uint64_t now,
                 uint64_t *msg_id);
/* A push adds its entries in steps that cannot fail once it has
 * started: qdedup_reserve (the table exists) and qdedup_entry_new (each
 * entry, NULL without memory or for an id of 0 or over QDEDUP_ID_MAX
 * bytes; qdedup_entry_drop frees one never inserted) before it changes
 * anything, then qdedup_insert (an entry of the same name is replaced). */
int qdedup_reserve(struct qdedup *d);
struct qdedup_entry *qdedup_entry_new(const char *id, size_t n, uint8_t index);
void qdedup_entry_drop(struct qdedup_entry *e);
void qdedup_insert(struct qdedup *d, struct qdedup_entry *e, uint64_t msg_id, uint64_t expires_ms);
/* All three steps (replay, snapshot loading): 0, or -1 without memory. */
int qdedup_add(struct qdedup *d, const char *id, size_t n, uint8_t index, uint64_t msg_id,
               uint64_t expires_ms);
/* Frees up to max entries expired at now, from the head of the order;
 * returns how many. */
size_t qdedup_expire(struct qdedup *d, uint64_t now, size_t max);
/* When the head of the order expires (UINT64_MAX: no entry). */
uint64_t qdedup_next_expiry(const struct qdedup *d);

#endif
