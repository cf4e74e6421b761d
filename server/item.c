/*
 * item: allocation, reference counts, CAS numbers and the memory account.
 *
 * Items are malloc'd whole. The account (item_mem_used) adds each item's
 * real footprint from malloc_usable_size plus the allocator's chunk header,
 * so -m limits what items really cost. A worker keeps the blocks of large
 * items it frees for its next ones (item_cache.h); they stay counted.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "item.h"
#include "item_cache.h"

static size_t item_used;
static size_t item_limit;
static uint64_t item_cas_counter;
static void (*item_free_hooks[ITEM_NTYPES])(item *it);
static void (*item_cas_block_hook)(uint64_t upto);

void item_init(size_t limit_bytes) {
    item_used = 0;
    item_limit = limit_bytes;
    item_cas_counter = 0;
}

size_t item_size(size_t nkey, size_t nbytes) {
    return offsetof(item, data) + nkey + nbytes;
}

size_t item_footprint(size_t nkey, size_t nbytes) {
    size_t n = item_size(nkey, nbytes) + ITEM_MALLOC_OVERHEAD;
    return (n + 15) & ~(size_t)15;
}

item *item_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, size_t nbytes) {
    size_t size = item_size(nkey, nbytes);
    item *it = item_cache_may_take(size) ? item_cache_take(size) : NULL;

    if (it == NULL) {
        it = malloc(size);
        if (it == NULL)
            return NULL;
        __atomic_add_fetch(&item_used, malloc_usable_size(it) + ITEM_MALLOC_OVERHEAD, __ATOMIC_RELAXED);
    }
    it->h_next = it->prev = it->next = NULL;
    it->cas = 0;
    it->time = clock_now();
    it->exptime = exptime;
    it->nbytes = (uint32_t)nbytes;
    it->flags = flags;
    it->refcount = 1;
    it->nkey = (uint8_t)nkey;
    it->iflags = 0;
    it->type = ITEM_STRING;
    it->lru = 0;
    memcpy(it->data, key, nkey);
    return it;
}

void item_incref(item *it) {
    __atomic_add_fetch(&it->refcount, 1, __ATOMIC_RELAXED);
}

bool item_tryref(item *it) {
    uint32_t n = __atomic_load_n(&it->refcount, __ATOMIC_ACQUIRE);

    do {
        if (n == 0)
            return false;
    } while (!__atomic_compare_exchange_n(&it->refcount, &n, n + 1, false,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return true;
}

void item_set_free_hook(enum item_type type, void (*fn)(item *it)) {
    item_free_hooks[type] = fn;
}

void item_mem_charge(long bytes) {
    __atomic_add_fetch(&item_used, (size_t)bytes, __ATOMIC_RELAXED);
}

static void item_free_usable(void *blk, size_t usable) {
    __atomic_sub_fetch(&item_used, usable + ITEM_MALLOC_OVERHEAD, __ATOMIC_RELAXED);
    free(blk);
}

void item_release(item *it) {
    size_t usable;

    if (__atomic_sub_fetch(&it->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (item_free_hooks[it->type] != NULL)
        item_free_hooks[it->type](it);
    usable = malloc_usable_size(it);
    if (usable < ITEM_CACHE_MIN || !item_cache_put(it, usable))
        item_free_usable(it, usable);
}

void item_free_block(void *blk) {
    item_free_usable(blk, malloc_usable_size(blk));
}

uint64_t item_next_cas(void) {
    uint64_t v = __atomic_add_fetch(&item_cas_counter, 1, __ATOMIC_RELAXED);

    if ((v & (ITEM_CAS_BLOCK - 1)) == 0 && item_cas_block_hook != NULL)
        item_cas_block_hook(v + ITEM_CAS_BLOCK);
    return v;
}

void item_cas_floor(uint64_t v) {
    uint64_t cur = __atomic_load_n(&item_cas_counter, __ATOMIC_RELAXED);

    while (cur < v && !__atomic_compare_exchange_n(&item_cas_counter, &cur, v, false,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void item_on_cas_block(void (*fn)(uint64_t upto)) {
    item_cas_block_hook = fn;
}

uint64_t item_peek_cas(void) {
    return __atomic_load_n(&item_cas_counter, __ATOMIC_RELAXED);
}

size_t item_mem_used(void) {
    return __atomic_load_n(&item_used, __ATOMIC_RELAXED);
}

size_t item_mem_limit(void) {
    return __atomic_load_n(&item_limit, __ATOMIC_RELAXED);
}

void item_set_mem_limit(size_t bytes) {
    __atomic_store_n(&item_limit, bytes, __ATOMIC_RELAXED);
}
