/*
 * item_cache: a worker's kept blocks of freed items (see item_cache.h).
 * Large blocks: slot 0 is the oldest; a full cache drops it for a new
 * one. Small blocks: one stack per footprint (a multiple of 16 bytes).
 */
#include <string.h>

#include "cache/item.h"
#include "cache/item_cache.h"
#include "base/stats.h"

#define ITEM_SMALL_CLASSES (ITEM_SMALL_MAX / 16 + 1)

struct item_cache {
    bool on;
    struct item_cache_slot *slot;   /* NULL: this thread keeps no small blocks */
    int n;
    void *blk[ITEM_CACHE_SLOTS];
    size_t usable[ITEM_CACHE_SLOTS];
    struct {
        int n;
        void *blk[ITEM_SMALL_KEEP];
    } small[ITEM_SMALL_CLASSES];    /* by footprint / 16 */
};

static __thread struct item_cache item_cache_mine;
static size_t item_cache_total;     /* footprints of all kept large blocks */

/* Each worker's small blocks' footprints, on a line of their own: only
 * their owner writes them, item_cache_bytes sums them. */
struct item_cache_slot {
    size_t bytes;
} __attribute__((aligned(64)));

static struct item_cache_slot item_cache_slots[ITEM_SMALL_THREADS];
static int item_cache_nslots;

static bool item_cache_fits(size_t usable, size_t size) {
    return usable >= size && usable - size <= size / 8;
}

/* Adds delta (negative to take out) to this thread's small blocks. */
static void item_cache_small_add(struct item_cache *ic, size_t delta) {
    __atomic_store_n(&ic->slot->bytes, ic->slot->bytes + delta, __ATOMIC_RELAXED);
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

void item_cache_thread_start(int index) {
    int n = __atomic_load_n(&item_cache_nslots, __ATOMIC_RELAXED);

    item_cache_mine.on = true;
    if (index < 0 || index >= ITEM_SMALL_THREADS)
        return;
    item_cache_mine.slot = &item_cache_slots[index];
    while (n < index + 1 && !__atomic_compare_exchange_n(&item_cache_nslots, &n, index + 1, false,
                                                          __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

void item_cache_thread_end(void) {
    while (item_cache_drop_one(0))
        ;
    item_cache_mine.on = false;
    item_cache_mine.slot = NULL;
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
    size_t fp = item_block_footprint(size);

    if (fp <= ITEM_SMALL_MAX)
        return item_cache_mine.small[fp / 16].n > 0;
    return item_cache_mine.n > 0 && item_cache_find(size) >= 0;
}

void *item_cache_take_small(size_t footprint) {
    struct item_cache *ic = &item_cache_mine;
    int c = (int)(footprint / 16);

    if (footprint > ITEM_SMALL_MAX || ic->small[c].n == 0)
        return NULL;
    item_cache_small_add(ic, -footprint);
    stats_incr(STATS_ITEM_KEPT_REUSES);
    return ic->small[c].blk[--ic->small[c].n];
}

bool item_cache_put_small(void *blk, size_t footprint) {
    struct item_cache *ic = &item_cache_mine;
    int c = (int)(footprint / 16);

    if (ic->slot == NULL || footprint > ITEM_SMALL_MAX || ic->small[c].n == ITEM_SMALL_KEEP ||
        ic->slot->bytes + footprint > item_mem_limit() / ITEM_SMALL_SHARE)
        return false;
    item_cache_small_add(ic, footprint);
    ic->small[c].blk[ic->small[c].n++] = blk;
    return true;
}

/* Frees one kept small block whose footprint is not fp; false if there
 * is none. */
static bool item_cache_drop_small(size_t fp) {
    struct item_cache *ic = &item_cache_mine;
    int c;

    for (c = 0; c < ITEM_SMALL_CLASSES; c++)
        if (ic->small[c].n > 0 && (size_t)c * 16 != fp) {
            item_cache_small_add(ic, -((size_t)c * 16));
            item_free_block(ic->small[c].blk[--ic->small[c].n]);
            return true;
        }
    return false;
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
    if (item_cache_bytes() + fp > item_mem_limit() / ITEM_CACHE_SHARE)
        return false;
    __atomic_add_fetch(&item_cache_total, fp, __ATOMIC_RELAXED);
    ic->blk[ic->n] = blk;
    ic->usable[ic->n++] = usable;
    return true;
}

bool item_cache_drop_one(size_t size) {
    struct item_cache *ic = &item_cache_mine;
    size_t fp = item_block_footprint(size);
    int i;

    if (item_cache_drop_small(fp))
        return true;
    if (ic->n == 0)
        return item_cache_drop_small(0);
    for (i = 0; i < ic->n; i++)
        if (!item_cache_fits(ic->usable[i], size))
            break;
    item_free_block(item_cache_remove(i < ic->n ? i : 0));
    return true;
}

size_t item_cache_bytes(void) {
    size_t sum = __atomic_load_n(&item_cache_total, __ATOMIC_RELAXED);
    int i, n = __atomic_load_n(&item_cache_nslots, __ATOMIC_ACQUIRE);

    for (i = 0; i < n; i++)
        sum += __atomic_load_n(&item_cache_slots[i].bytes, __ATOMIC_RELAXED);
    return sum;
}
