/*
 * lru: the recency list of evictable (cache) items.
 *
 * Head = most recently stored or rescued, tail = next to evict. A read
 * only sets ITEM_ACTIVE (no lock); the eviction scan moves active items
 * back to the head instead of evicting them (second chance). Lock order is always
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
/* Notes a hit: the item gets a second chance when it reaches the tail.
 * Takes no lock; the caller holds the item's stripe. */
void lru_bump(item *it, rel_time_t now);

/* Walks up to `tries` items from the tail with the LRU lock held, calling
 * pick(it, arg) on each until it returns 1. pick may unlink the item with
 * lru_unlink_locked(). Returns 1 if some call returned 1. */
int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg);
void lru_unlink_locked(item *it);
/* Moves it back to the head (LRU lock held), clearing ITEM_ACTIVE. */
void lru_requeue_locked(item *it);
/* Last-access time of the least recently used item, 0 if none. */
rel_time_t lru_oldest_time(void);

#endif
