/*
 * item_cache: freed blocks of large items, kept by the worker thread that
 * freed them for its next item of about the same size, so that the new
 * item is built on warm pages instead of memory malloc may just have
 * handed back to the kernel (doc/performance.md, "Large values: kept
 * blocks").
 *
 * A kept block stays in the item account (item_mem_used, total_malloced,
 * the -m limit); the store gives back its own thread's blocks before it
 * evicts anything. Only threads that called item_cache_thread_start (the
 * workers) keep blocks; each keeps at most ITEM_CACHE_SLOTS, and all
 * together at most 1/ITEM_CACHE_SHARE of -m. Every function but
 * item_cache_bytes works on the calling thread's blocks.
 */
#ifndef MCDS_ITEM_CACHE_H
#define MCDS_ITEM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define ITEM_CACHE_MIN 16384    /* smaller blocks go straight back to malloc */
#define ITEM_CACHE_SLOTS 8      /* blocks one thread keeps */
#define ITEM_CACHE_SHARE 64     /* all threads keep at most -m / this */

/* Whether an item of size bytes might fit a kept block (no block of
 * ITEM_CACHE_MIN bytes or more holds less than 8/9 of itself). */
static inline bool item_cache_may_take(size_t size) {
    return size >= ITEM_CACHE_MIN / 9 * 8;
}

/* The calling thread keeps blocks from now on (a worker, as it starts). */
void item_cache_thread_start(void);
/* Frees the calling thread's blocks; it keeps none from now on. */
void item_cache_thread_end(void);
/* Whether a kept block holds size bytes, wasting at most an eighth. */
bool item_cache_has(size_t size);
/* Takes such a block out of the cache (the most recently kept); NULL if
 * there is none. It is still counted in the item account. */
void *item_cache_take(size_t size);
/* Keeps blk (malloc_usable_size usable, counted in the item account);
 * false if it is not kept (the caller frees it). */
bool item_cache_put(void *blk, size_t usable);
/* Frees one kept block, the oldest that cannot hold size bytes, else the
 * oldest; false if the thread keeps none. */
bool item_cache_drop_one(size_t size);
/* Bytes (footprints) of every thread's kept blocks. */
size_t item_cache_bytes(void);

#endif
