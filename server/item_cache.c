/*
 * item_cache: a worker's kept blocks of freed large items (see
 * item_cache.h). Slot 0 is the oldest block; a full cache drops it for a
 * new one.
 */
#include <string.h>

#include "item.h"
#include "item_cache.h"
#include "stats.h"

struct item_cache {
    bool on;
    int n;
    void *blk[ITEM_CACHE_SLOTS];
    size_t usable[ITEM_CACHE_SLOTS];
};

static __thread struct item_cache item_cache_mine;
static size_t item_cache_total;     /* footprints of all kept blocks */

static bool item_cache_fits(size_t usable, size_t size) {
    return usable >= size && usable - size <= size / 8;
}

/* Takes slot i out of the cache and returns its block. */
static void *item_cache_remove(int i) {
    struct item_cache *ic = &item_cache_mine;
    void *blk = ic->blk[i];

    __atomic_sub_fetch(&item_cache_total, ic->usable[i] + ITEM_MALLOC_OVERHEAD, __ATOMIC_RELAXED);
    ic->n--;
    memmove(&ic->blk[i], &ic->blk[i + 1], sizeof(ic->blk[0]) * (size_t)(ic->n - i));
    memmove(&ic->usable[i], &ic->usable[i + 1], sizeof(ic->usable[0]) * (size_t)(ic->n - i));
    return blk;
}

void item_cache_thread_start(void) {
    item_cache_mine.on = true;
}

void item_cache_thread_end(void) {
    while (item_cache_drop_one(0))
        ;
    item_cache_mine.on = false;
}

/* The slot of the most recently kept block that fits size; -1 if none. */
static int item_cache_find(size_t size) {
    struct item_cache *ic = &item_cache_mine;
    int i;

    for (i = ic->n - 1; i >= 0; i--)
        if (item_cache_fits(ic->usable[i], size))
            return i;
    return -1;
}

bool item_cache_has(size_t size) {
    return item_cache_mine.n > 0 && item_cache_find(size) >= 0;
}

void *item_cache_take(size_t size) {
    int i;

    if (item_cache_mine.n == 0 || (i = item_cache_find(size)) < 0)
        return NULL;
    stats_incr(STATS_ITEM_KEPT_REUSES);
    return item_cache_remove(i);
}

bool item_cache_put(void *blk, size_t usable) {
    struct item_cache *ic = &item_cache_mine;
    size_t fp = usable + ITEM_MALLOC_OVERHEAD;

    if (!ic->on || usable < ITEM_CACHE_MIN)
        return false;
    if (ic->n == ITEM_CACHE_SLOTS)
        item_free_block(item_cache_remove(0));
    if (__atomic_load_n(&item_cache_total, __ATOMIC_RELAXED) + fp > item_mem_limit() / ITEM_CACHE_SHARE)
        return false;
    __atomic_add_fetch(&item_cache_total, fp, __ATOMIC_RELAXED);
    ic->blk[ic->n] = blk;
    ic->usable[ic->n++] = usable;
    return true;
}

bool item_cache_drop_one(size_t size) {
    struct item_cache *ic = &item_cache_mine;
    int i;

    if (ic->n == 0)
        return false;
    for (i = 0; i < ic->n; i++)
        if (!item_cache_fits(ic->usable[i], size))
            break;
    item_free_block(item_cache_remove(i < ic->n ? i : 0));
    return true;
}

size_t item_cache_bytes(void) {
    return __atomic_load_n(&item_cache_total, __ATOMIC_RELAXED);
}
