/*
 * lru: the recency list of evictable (cache) items.
 *
 * Head = most recently used, tail = next to evict. Lock order is always
 * hash stripe, then the LRU lock; code that holds the LRU lock may only
 * trylock a stripe.
 */
#ifndef MCDS_LRU_H
#define MCDS_LRU_H

#include "item.h"

void lru_init(void);
void lru_destroy(void);
void lru_link(item *it);
void lru_unlink(item *it);
/* Moves a hit item to the head, at most once per LRU_BUMP_SECONDS. */
void lru_bump(item *it, rel_time_t now);

/* Walks up to `tries` items from the tail with the LRU lock held, calling
 * pick(it, arg) on each until it returns 1. pick may unlink the item with
 * lru_unlink_locked(). Returns 1 if some call returned 1. */
int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg);
void lru_unlink_locked(item *it);
/* Last-access time of the least recently used item, 0 if none. */
rel_time_t lru_oldest_time(void);

#endif
