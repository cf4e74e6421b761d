/*
 * item_cache: freed blocks of large items, kept by the worker thread that
 * freed them for its next item of about the same size, so that the new
 * item is built on warm pages instead of memory malloc may just have
 * handed back to the kernel (doc/performance.md, "Large values: kept
 * blocks").
 *
 * Blocks of small items (a footprint of ITEM_SMALL_MAX bytes or less) are
 * kept too, up to ITEM_SMALL_KEEP of each footprint, and reused only by an
 * item of exactly that footprint: a worker that replaces items frees a
 * batch of them at the end of its turn and allocates as many in its next
 * one, and keeping them spares malloc's shared lists, which the other
 * worker's frees write to (doc/performance.md, "Small blocks").
 *
 * A kept block stays in the item account (item_mem_used, total_malloced,
 * the -m limit); the store gives back its own thread's blocks before it
 * evicts anything. Only threads that called item_cache_thread_start (the
 * workers) keep blocks. Each keeps at most ITEM_CACHE_SLOTS large ones,
 * kept only while all kept blocks together stay under 1/ITEM_CACHE_SHARE
 * of -m, and small ones up to 1/ITEM_SMALL_SHARE of -m. Every function
 * but item_cache_bytes works on the calling thread's blocks.
 */
#ifndef MCDS_ITEM_CACHE_H
#define MCDS_ITEM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define ITEM_CACHE_MIN 16384    /* smaller blocks go straight back to malloc */
#define ITEM_CACHE_SLOTS 8      /* blocks one thread keeps */
#define ITEM_CACHE_SHARE 64     /* all threads keep at most -m / this */
#define ITEM_SMALL_MAX 1024     /* footprints of small blocks kept */
#define ITEM_SMALL_KEEP 32      /* small blocks of one footprint one thread keeps */
#define ITEM_SMALL_SHARE 1024   /* one thread keeps small blocks up to -m / this */
#define ITEM_SMALL_THREADS 64   /* workers past these keep no small blocks */

/* Whether an item of size bytes might fit a kept block (no block of
 * ITEM_CACHE_MIN bytes or more holds less than 8/9 of itself). */
static inline bool item_cache_may_take(size_t size) {
    return size >= ITEM_CACHE_MIN / 9 * 8;
}

/* The calling thread keeps blocks from now on (a worker, as it starts,
 * with its index). */
void item_cache_thread_start(int index);
/* Frees the calling thread's blocks; it keeps none from now on. */
void item_cache_thread_end(void);
/* Whether a kept block holds size bytes: a large one wasting at most an
 * eighth, or a small one of exactly its footprint. */
bool item_cache_has(size_t size);
/* Takes such a block out of the cache (the most recently kept); NULL if
 * there is none. It is still counted in the item account. */
void *item_cache_take(size_t size);
/* Keeps blk (malloc_usable_size usable, counted in the item account);
 * false if it is not kept (the caller frees it). */
bool item_cache_put(void *blk, size_t usable);
/* A kept small block of exactly footprint bytes, taken out of the cache;
 * NULL if there is none. */
void *item_cache_take_small(size_t footprint);
/* Keeps the small block blk of footprint bytes (counted in the item
 * account); false if it is not kept (the caller frees it). */
bool item_cache_put_small(void *blk, size_t footprint);
/* Frees one kept block: a small one that cannot hold size bytes, else
 * the oldest large one that cannot, else any; false if the thread keeps
 * none. */
bool item_cache_drop_one(size_t size);
/* Bytes (footprints) of every thread's kept blocks. */
size_t item_cache_bytes(void);

#endif
