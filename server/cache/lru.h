/*
 * lru: the eviction order of cache items, S3-FIFO (doc/protocol.md,
 * "Memory and eviction"): a small queue new items enter, a main queue,
 * and the ghost set (ghost.c) of keys evicted unread from the small one.
 *
 * A queue is a list of segments of small items and of large items, oldest
 * first (lru.c). A read only counts itself in the item (no lock); the
 * eviction scan moves items (lru_keep_locked) instead of evicting them.
 * An item's eviction state (it->lru) changes only under its hash stripe.
 * Lock order is always hash stripe, then the LRU lock; code that holds the
 * LRU lock may only trylock a stripe, and never releases an item.
 */
#ifndef MCDS_LRU_H
#define MCDS_LRU_H

#include <stdbool.h>

#include "cache/item.h"

#define LRU_READS_MAX 3      /* a read count stops there */
#define LRU_TRIPS_MAX 3      /* extra trips an idle item may take */

void lru_init(void);
void lru_destroy(void);
/* A new item enters (stripe lock held, hv its hash value): the main
 * queue if lru_follow() put it there or the ghost set holds hv, else the
 * small queue. A small item is copied into a segment (seg.h). Returns the
 * item the table is to hold, flagged ITEM_LINKED, with the table's
 * reference: it or its copy; the caller's references stay on it. */
item *lru_link(item *it, uint32_t hv);
/* A copy of it, an item in a segment, with CAS number cas and everything
 * else kept, takes its place in the table at its queue's newest end
 * (stripe lock held; the room is the caller's to make). it keeps the
 * table's reference, for the caller to release. NULL (nothing done) if no
 * segment can be had. */
item *lru_recas(item *it, uint32_t hv, uint64_t cas);
/* it left the table (stripe lock held): a large item leaves its queue; a
 * small one's place becomes a hole in its segment. */
void lru_unlink(item *it);
/* A thread that links items calls lru_thread_tick now and then (a worker:
 * at the end of each turn): a segment it fills (seg.h) whose items are all
 * gone is filled again from its start. It calls lru_thread_end once it
 * links no more, to let its segments go. */
void lru_thread_tick(void);
void lru_thread_end(void);
/* it is about to replace old (both unlinked from the LRU or not yet
 * linked, stripe lock held): it will enter the main queue if old is in it. */
void lru_follow(item *it, const item *old);
/* Counts a read (at most LRU_READS_MAX). Takes no lock; the caller holds
 * the item's stripe. */
void lru_bump(item *it, rel_time_t now);

/* Walks up to `tries` linked items from the tail of the queue that gives
 * (the small one while it holds more than a tenth of both queues' bytes
 * or the main one is empty; the other one if that one has nothing to
 * offer), with the LRU lock held, calling pick(it, arg) on each until it
 * returns 1. pick may unlink the item with lru_unlink_locked(), or move
 * it (lru_keep_locked, lru_move_locked). A segment is walked in order; an
 * item pick leaves where it is (its stripe busy) stops its segment's walk
 * until a later scan, and holes count a try for every 64. Returns
 * LRU_SCAN_TAKEN if some call returned 1, LRU_SCAN_ADVANCED if none did
 * but the walk moved on (items moved, holes walked, segments passed), and
 * LRU_SCAN_NOTHING otherwise. */
enum { LRU_SCAN_NOTHING, LRU_SCAN_TAKEN, LRU_SCAN_ADVANCED };
int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg);
void lru_unlink_locked(item *it);
/* A second chance (LRU lock and stripe held): a read item of the small
 * queue moves to the main queue; a read item of the main queue goes back
 * to its head with one read less; an idle one takes an extra trip back to
 * its queue's head if it has taken fewer than `trips`. A small item moves
 * as a copy that takes its place in the table (hv: its hash value); the
 * scan releases the old one's table reference. Returns whether the item
 * was kept; if not, the caller may evict it. */
bool lru_keep_locked(item *it, unsigned trips, uint32_t hv);
/* Moves a small item to its queue's newest end as it is (-M: the scan
 * passes its segment and frees its holes without evicting). */
bool lru_move_locked(item *it, uint32_t hv);
/* it, live, is being evicted (LRU lock and stripe held): if it leaves the
 * small queue, its key goes into the ghost set. */
void lru_note_evicted_locked(const item *it, uint32_t hv);
/* Last-access time of the oldest item at a queue's tail, 0 if none. */
rel_time_t lru_oldest_time(void);

#endif
