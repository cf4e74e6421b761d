/*
 * hash: the key -> item table, its striped locks, and online growth.
 *
 * Every access to a key goes: hv = hash_key(key); hash_lock(hv); find /
 * insert / remove; hash_unlock(hv). The table doubles in a background
 * thread, one bucket at a time under that bucket's stripe lock, so lookups
 * never stop while it grows. Keys are hashed with SipHash-1-3 under a
 * random key chosen at start-up.
 */
#ifndef MCDS_HASH_H
#define MCDS_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

void hash_init(int power);
/* Stops the growth thread, then calls fn on every item and empties the table. */
void hash_destroy(void (*fn)(item *it));
void hash_start_maintainer(void);

uint32_t hash_key(const char *key, size_t nkey);
void hash_lock(uint32_t hv);
int hash_trylock(uint32_t hv);
void hash_unlock(uint32_t hv);

/* Ask the CPU to fetch, ahead of a lookup of hv: its bucket and lock
 * stripe; the first 192 bytes of its bucket's first item (header, key and
 * a small value, which a reply copies). Neither takes a lock: they may
 * fetch the wrong thing while the table grows, never read freed memory. */
void hash_prefetch(uint32_t hv);
void hash_prefetch_item(uint32_t hv);
/* The caller holds hash_lock(hv) for these four. */
item *hash_find(const char *key, size_t nkey, uint32_t hv);
void hash_insert(item *it, uint32_t hv);
void hash_remove(item *it, uint32_t hv);
/* it takes old's place in its chain (one walk, and the count, which
 * every thread shares, is not touched). */
void hash_replace(item *old, item *it, uint32_t hv);

unsigned hash_power(void);
uint64_t hash_bytes(void);
int hash_is_expanding(void);
/* debughashpause (--debug): the next growth waits ms once it has begun,
 * before it moves any bucket (tests of what runs during a growth). */
void hash_debug_pause(unsigned ms);
uint64_t hash_count(void);
/* The most items in one bucket: a walk of the whole table, one stripe at
 * a time (0 while it grows). For tests and debugging only. */
uint64_t hash_longest_chain(void);
/* Calls fn (the bucket's stripe held) on every item of the bucket(s)
 * scan cursor v names, and returns the next cursor (0: the scan is over).
 * A scan from 0 to 0 visits every item that was in the table for its
 * whole duration at least once, even while the table grows. */
uint64_t hash_scan(uint64_t v, void (*fn)(item *it, void *arg), void *arg);

/* Holds off the table's growth (waiting for one in progress to end), so
 * that a walk of every bucket sees each item once; and lets it go on. */
void hash_pause_growth(void);
void hash_resume_growth(void);
/* Buckets of the table (stable while growth is paused). */
uint32_t hash_buckets(void);
/* Calls fn on every item of bucket b with b's stripe lock held (fn may
 * take a reference; it must not block). Growth must be paused. */
void hash_visit_bucket(uint32_t b, void (*fn)(item *it, void *arg), void *arg);

/* The same for the one bucket of hash value hv, with the stripe only
 * trylocked (callers may hold another stripe): false, and nothing done,
 * if the stripe is busy or the table is growing. */
bool hash_crawl_try(uint32_t hv, int (*fn)(item *it), void (*done)(item *it));
/* Visits buckets [*cursor, *cursor + n) with each bucket's lock held,
 * calling fn on every item; fn returns 1 to have the item removed from the
 * table (its table reference is then given to fn's caller via done()).
 * Advances *cursor past each bucket visited, wrapping, and returns how
 * many it visited: it stops at the first bucket it finds the table
 * growing (none while it grows). */
size_t hash_crawl(size_t *cursor, size_t n, int (*fn)(item *it), void (*done)(item *it));

#endif
