/*
 * expiry: an index of cache items by the second they expire, so that
 * expired items can be taken out before any live item is evicted.
 *
 * The index holds no item pointers: each entry is the key's hash value and
 * the expiry second, in a wheel of one slot per second (EXPIRY_SLOTS
 * seconds round). Sweeping a second hands each due entry's hash value to
 * the caller, who looks in that hash bucket for dead items. An entry whose
 * item was deleted, replaced or touched since finds nothing dead: it costs
 * one bucket walk and is dropped. The number of entries is bounded (a share
 * of -m); when the index is full a new entry is not kept, and that item is
 * left to the once-a-second crawl of the whole table.
 */
#ifndef MCDS_EXPIRY_H
#define MCDS_EXPIRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"

/* Sets the index up; max_entries bounds it (at least a small minimum). */
void expiry_init(size_t max_entries);
/* Frees the index (shutdown). */
void expiry_destroy(void);
/* Notes that the item under hash value hv expires at exptime (not 0). */
void expiry_add(uint32_t hv, rel_time_t exptime);
/* Hands the hash value of every entry due by now to reap, once each;
 * entries not yet due (a later turn of the wheel) stay, and so do those
 * reap could not do now (it returned false: they go to the next sweep).
 * Safe from any thread; a second is swept by one caller only. */
void expiry_sweep(rel_time_t now, bool (*reap)(uint32_t hv));
/* Entries held now, and entries not kept because the index was full. */
size_t expiry_entries(void);
uint64_t expiry_dropped(void);

#endif
