/*
 * seg: the memory small cache items live in once linked. A segment is
 * one aligned block of seg_size() bytes that one thread, its owner, fills
 * front to back with copies of items, without a lock; it is given back
 * whole.
 *
 * An item in a segment is never freed alone: releasing its last
 * reference leaves a hole. A segment goes back to malloc once it has left
 * its eviction queue (lru.c: the scan passed it, or every item in it was
 * released), its owner has let it go, and every item in it has been
 * released. Until then every byte written to it stays in the item
 * account, holes included, so -m counts what segments hold.
 *
 * Items too large for a segment stay in their own malloc'd block, behind
 * a seg_node that puts them in the eviction queues as a segment is.
 */
#ifndef MCDS_SEG_H
#define MCDS_SEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

/* Values up to this many bytes (with their "\r\n") go into segments:
 * replies copy them (CONN_COPY_MAX), so no reply holds a segment item past
 * its turn. */
#define SEG_VALUE_MAX 512

enum seg_kind { SEG_KIND_SEGMENT = 1, SEG_KIND_ITEM };

/* A place in an eviction queue: a segment, or one large item. */
struct seg_node {
    struct seg_node *newer, *older;
    uint8_t kind;
    uint8_t queue;          /* lru.c's queue number */
    bool queued;            /* in a queue */
};

struct seg {
    struct seg_node node;
    uint64_t fill;          /* atomic: bytes written, header included;
                               SEG_SEALED once nothing more may be */
    uint32_t scan;          /* where the eviction scan stands (lru lock) */
    uint32_t items;         /* atomic: items written */
    uint32_t counted;       /* items its queue counts (lru lock) */
    uint32_t charged;       /* bytes in the item account (owner) */
    uint64_t pending;       /* atomic: items not yet released, plus a
                               token for its queue and one for its owner */
    uint64_t cas_base;      /* the CAS counter when it was (re)started:
                               its items' CAS numbers are kept as the
                               difference (item.h) */
} __attribute__((aligned(64)));

/* Chooses the segment size for a memory limit and the number of threads
 * that fill segments (before any item): the segments being filled, which
 * the eviction scan passes over, stay a small share of the limit. */
void seg_init(size_t limit_bytes, int threads);
size_t seg_size(void);
/* Whether an item of this key and value length goes into a segment when
 * linked (otherwise it is allocated behind a seg_node: ITEM_NODE). */
bool seg_holds(size_t nkey, size_t nbytes);
/* The most items a segment holds (one-byte keys, empty values). */
size_t seg_items_max(void);
/* Bytes an item in a segment takes there. */
size_t seg_item_bytes(const item *it);
static inline uint64_t seg_cas_base(const struct seg *s) {
    return s->cas_base;
}
/* Whether an item of s can keep CAS number cas as a difference from s's
 * base; if so, *delta is it. */
bool seg_cas_fits(const struct seg *s, uint64_t cas, int32_t *delta);

/* A new segment, owned by the calling thread and about to be queued;
 * NULL if malloc fails. */
struct seg *seg_new(void);
/* The owner copies it into s as a linked item with the table's one
 * reference, flagged ITEM_SEG, with CAS number cas (item_cas(it) to keep
 * its own) and everything else about it kept; client flags of 0 and a CAS
 * the header can hold as a difference from s's base take no room. NULL
 * (nothing done) if s is sealed or has no room left. Takes no lock. */
item *seg_append(struct seg *s, const item *it, uint64_t cas);
/* No more items go into s (its owner, letting it go). */
void seg_seal(struct seg *s);
bool seg_sealed(const struct seg *s);
/* Bytes written to s, its header included. */
uint32_t seg_used(const struct seg *s);
/* The owner empties s (not sealed), whose every item was released, to
 * fill it again. */
void seg_rewind(struct seg *s);
/* s left its queue / its owner lets it go; it is freed once both have
 * and its items are all released. */
void seg_dequeue(struct seg *s);
void seg_disown(struct seg *s);
/* An item of a segment lost its last reference. True if it was the last
 * live item of a queued segment no thread owns: then it is not counted
 * down yet, and the caller must call lru's seg_empty hook, which does
 * that under its lock (seg_drop_last). */
bool seg_item_gone(item *it);
/* Counts down that last item; true if s is then all holes and still
 * queued (false: s was dequeued meanwhile, and may be gone). */
bool seg_drop_last(struct seg *s);
/* The segment an item in one lives in. */
struct seg *seg_of(const item *it);
/* The item at offset off of a sealed s, NULL at its end. */
item *seg_item_at(struct seg *s, uint32_t off);
/* Items of s not yet released. */
uint64_t seg_live(const struct seg *s);
/* Whether at least one item in SEG_HOLES_WORTH written to s is released
 * (a hole): moving every live item out of s then copies at most that many
 * items for each item's room it gives back. */
#define SEG_HOLES_WORTH 64
static inline bool seg_holes_worth_moving(const struct seg *s) {
    uint64_t items = __atomic_load_n(&s->items, __ATOMIC_RELAXED), live = seg_live(s);

    return live < items && (items - live) * SEG_HOLES_WORTH >= items;
}

/* A large item's place in the queues: just before its header. */
static inline struct seg_node *seg_node_of(item *it) {
    return (struct seg_node *)it - 1;
}
static inline item *seg_node_item(struct seg_node *n) {
    return (item *)(n + 1);
}

#endif
