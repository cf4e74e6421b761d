/*
 * lru: the eviction order of cache items, S3-FIFO (doc/protocol.md,
 * "Memory and eviction"): a small queue new items enter, a main queue,
 * and the ghost set (ghost.c) of keys evicted unread from the small one.
 *
 * Each queue's head is its newest end, its tail the next to give. A read
 * only counts itself in the item (no lock); the eviction scan moves items
 * (lru_keep_locked) instead of evicting them. An item's eviction state
 * (it->lru) changes only under its hash stripe, or once it has left the
 * table (a replaced item waiting for lru_settle) under the LRU lock alone:
 * no lookup can find it then. Lock order is always hash stripe, then the
 * LRU lock; code that holds the LRU lock may only trylock a stripe.
 */
#ifndef MCDS_LRU_H
#define MCDS_LRU_H

#include <stdbool.h>

#include "item.h"

#define LRU_READS_MAX 3      /* a read count stops there */
#define LRU_TRIPS_MAX 3      /* extra trips an idle item may take */

void lru_init(void);
void lru_destroy(void);
/* Links a new item (stripe lock held, hv its hash value): into the main
 * queue if lru_follow() put it there or the ghost set holds hv, else into
 * the small queue. */
void lru_link(item *it, uint32_t hv);
void lru_unlink(item *it);
/* A replacement (stripe lock held; old is out of the table): links it as
 * lru_link, and takes old out of its queue, now or, on a thread that
 * settles (lru_thread_settles), with the next lru_settle. old's reference
 * (the table's) passes to the LRU, which releases it once old is out. */
void lru_replace(item *old, item *it, uint32_t hv);
/* The calling thread (a worker) calls lru_settle at the end of each turn:
 * its replacements of small items then take their old items out of the
 * queues in batches, whose neighbours are fetched together. */
void lru_thread_settles(void);
/* Takes this thread's replaced items out of the queues and releases them
 * (no lock held, or only stripe locks). */
void lru_settle(void);
/* it is about to replace old (both unlinked from the LRU or not yet
 * linked, stripe lock held): it will enter the main queue if old is in it. */
void lru_follow(item *it, const item *old);
/* Counts a read (at most LRU_READS_MAX). Takes no lock; the caller holds
 * the item's stripe. */
void lru_bump(item *it, rel_time_t now);

/* Walks up to `tries` items from the tail of the queue that gives (the
 * small one while it holds more than a tenth of both queues' bytes or the
 * main one is empty), with the LRU lock held, calling pick(it, arg) on
 * each until it returns 1; replaced items waiting for lru_settle are
 * passed over and not counted. pick may unlink the item with
 * lru_unlink_locked(). Returns 1 if some call returned 1. */
int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg);
void lru_unlink_locked(item *it);
/* A second chance (LRU lock and stripe held): a read item of the small
 * queue moves to the main queue; a read item of the main queue goes back
 * to its head with one read less; an idle one takes an extra trip back to
 * its queue's head if it has taken fewer than `trips`. Returns whether the
 * item was kept; if not, the caller may evict it. */
bool lru_keep_locked(item *it, unsigned trips);
/* it, live, is being evicted (LRU lock and stripe held): if it leaves the
 * small queue, its key goes into the ghost set. */
void lru_note_evicted_locked(const item *it, uint32_t hv);
/* Last-access time of the oldest item at a queue's tail, 0 if none. */
rel_time_t lru_oldest_time(void);

#endif
