/*
 * item: allocation, reference counts, CAS numbers and the memory account.
 *
 * Items are malloc'd whole. The account (item_mem_used) adds each item's
 * real footprint from malloc_usable_size plus the allocator's chunk header,
 * so -m limits what items really cost. A worker keeps the blocks of large
 * items it frees for its next ones (item_cache.h); they stay counted.
 *
 * A small block is nearly always exactly the size malloc rounds its request
 * to (item_footprint). Its size is asked once, as it is allocated (its
 * header is in the cache then); a block of another size, and every large
 * block (item_cache may keep it), is marked ITEM_ASK_BLOCK, and only those
 * are asked again when they are freed. Asking reads the block's header and
 * the next block's, lines that have often left the cache by the time an
 * item is freed.
 *
 * The account is kept in slots, one per worker plus a shared one, each on
 * a cache line of its own: a worker adds to its slot with a plain load and
 * store, other threads add to the shared slot atomically, and readers sum
 * them. A slot may run below zero (an item freed by another worker than
 * the one that made it); unsigned wrap-around keeps the sum exact.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cache/item.h"
#include "cache/item_cache.h"
#include "cache/seg.h"

#define ITEM_SLOTS 16          /* workers past these use the shared slot */

struct item_slot {
    size_t used;
} __attribute__((aligned(64)));

static struct item_slot item_shared;
static struct item_slot item_slots[ITEM_SLOTS];
static int item_nslots;        /* slots in use: highest worker index + 1 */
static __thread struct item_slot *item_mine;
static size_t item_limit;
static struct {
    uint64_t next;              /* the last CAS handed out */
} __attribute__((aligned(64))) item_cas_counter;   /* a cache line of its own */
static void (*item_free_hooks[ITEM_NTYPES])(item *it);
static void (*item_cas_block_hook)(uint64_t upto);
static void (*item_seg_empty_hook)(struct seg *s);

void item_init(size_t limit_bytes) {
    memset(item_slots, 0, sizeof(item_slots));
    item_shared.used = 0;
    item_nslots = 0;
    item_limit = limit_bytes;
    item_cas_counter.next = 0;
}

void item_thread_init(int index) {
    int n;

    if (index < 0 || index >= ITEM_SLOTS)
        return;
    item_mine = &item_slots[index];
    n = __atomic_load_n(&item_nslots, __ATOMIC_RELAXED);
    while (n < index + 1 && !__atomic_compare_exchange_n(&item_nslots, &n, index + 1, false,
                                                          __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

static void item_account(size_t delta) {
    struct item_slot *s = item_mine;

    if (s != NULL)
        __atomic_store_n(&s->used, __atomic_load_n(&s->used, __ATOMIC_RELAXED) + delta, __ATOMIC_RELAXED);
    else
        __atomic_add_fetch(&item_shared.used, delta, __ATOMIC_RELAXED);
}

_Static_assert(sizeof(item) == 32, "the item header is 32 bytes");

size_t item_size(size_t nkey, size_t nbytes) {
    return offsetof(item, data) + sizeof(uint64_t) + nkey + nbytes;
}

size_t item_block_size(size_t nkey, size_t nbytes) {
    return item_size(nkey, nbytes) + sizeof(uint32_t);
}

size_t item_block_footprint(size_t size) {
    return (size + ITEM_MALLOC_OVERHEAD + 15) & ~(size_t)15;
}

size_t item_footprint(size_t nkey, size_t nbytes) {
    return item_block_footprint(item_block_size(nkey, nbytes));
}

/* A block for an item of size bytes: a kept one, or a new one added to
 * the account. *ask: freeing it must ask malloc its size. */
static void *item_block(size_t size, bool *ask) {
    size_t want = item_block_footprint(size), got;
    void *blk;

    if (item_cache_may_take(size)) {
        *ask = true;    /* a large block: item_cache may keep it */
        if ((blk = item_cache_take(size)) != NULL)
            return blk;
    } else if ((blk = item_cache_take_small(want)) != NULL) {
        *ask = false;   /* only blocks of their exact footprint are kept */
        return blk;
    }
    if ((blk = malloc(size)) == NULL)
        return NULL;
    got = malloc_usable_size(blk) + ITEM_MALLOC_OVERHEAD;
    item_account(got);
    *ask = *ask || got != want;
    return blk;
}

/* The block of an item too large for a segment starts with its seg_node. */
static item *item_block_node(size_t size, bool *ask) {
    struct seg_node *n = item_block(sizeof(*n) + size, ask);

    if (n == NULL)
        return NULL;
    memset(n, 0, sizeof(*n));
    n->kind = SEG_KIND_ITEM;
    *ask = true;
    return seg_node_item(n);
}

item *item_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, size_t nbytes) {
    bool ask = false, node = !seg_holds(nkey, nbytes);
    item *it = node ? item_block_node(item_block_size(nkey, nbytes), &ask)
                    : item_block(item_block_size(nkey, nbytes), &ask);

    if (it == NULL)
        return NULL;
    it->h_next = NULL;
    it->time = clock_now();
    it->exptime = exptime;
    it->nbytes = (uint32_t)nbytes;
    it->cas_delta = 0;
    it->refcount = 1;
    it->nkey = (uint8_t)nkey;
    it->iflags = (uint8_t)((ask ? ITEM_ASK_BLOCK : 0) | (node ? ITEM_NODE : 0));
    it->type = ITEM_STRING;
    it->wide_cas = 1;
    it->has_flags = 1;
    it->lru = 0;
    memset(it->data, 0, sizeof(uint64_t));
    memcpy(it->data + sizeof(uint64_t), &flags, sizeof(flags));
    memcpy(item_key(it), key, nkey);
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
    item_account((size_t)bytes);
}

static void item_free_usable(void *blk, size_t usable) {
    item_account(-(usable + ITEM_MALLOC_OVERHEAD));
    free(blk);
}

void item_on_seg_empty(void (*fn)(struct seg *s)) {
    item_seg_empty_hook = fn;
}

void item_release(item *it) {
    void *blk = it;
    size_t usable;

    if (__atomic_sub_fetch(&it->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (item_free_hooks[it->type] != NULL)
        item_free_hooks[it->type](it);
    if (item_has_flag(it, ITEM_SEG)) {
        struct seg *s = seg_of(it);
        if (seg_item_gone(it) && item_seg_empty_hook != NULL)
            item_seg_empty_hook(s);
        return;
    }
    if (item_has_flag(it, ITEM_NODE))
        blk = seg_node_of(it);
    if (!item_has_flag(it, ITEM_ASK_BLOCK)) {
        size_t footprint = item_footprint(it->nkey, it->nbytes);
        if (!item_cache_put_small(it, footprint))
            item_free_usable(it, footprint - ITEM_MALLOC_OVERHEAD);
        return;
    }
    usable = malloc_usable_size(blk);
    if (usable < ITEM_CACHE_MIN || !item_cache_put(blk, usable))
        item_free_usable(blk, usable);
}

void item_free_block(void *blk) {
    item_free_usable(blk, malloc_usable_size(blk));
}

/* A wide CAS sits first after the header, 8-byte aligned (items are). */
static uint64_t *item_wide_cas(const item *it) {
    return (uint64_t *)(void *)it->data;
}

uint64_t item_cas(const item *it) {
    if (it->wide_cas)
        return __atomic_load_n(item_wide_cas(it), __ATOMIC_RELAXED);
    return seg_cas_base(seg_of(it)) + (uint64_t)(int64_t)__atomic_load_n(&it->cas_delta, __ATOMIC_RELAXED);
}

bool item_set_cas(item *it, uint64_t cas) {
    int32_t d;

    if (it->wide_cas) {
        __atomic_store_n(item_wide_cas(it), cas, __ATOMIC_RELAXED);
        return true;
    }
    if (!seg_cas_fits(seg_of(it), cas, &d))
        return false;
    __atomic_store_n(&it->cas_delta, d, __ATOMIC_RELAXED);
    return true;
}

uint64_t item_next_cas(void) {
    uint64_t v = __atomic_add_fetch(&item_cas_counter.next, 1, __ATOMIC_RELAXED);

    if ((v & (ITEM_CAS_BLOCK - 1)) == 0 && item_cas_block_hook != NULL)
        item_cas_block_hook(v + ITEM_CAS_BLOCK);
    return v;
}

void item_cas_floor(uint64_t v) {
    uint64_t cur = __atomic_load_n(&item_cas_counter.next, __ATOMIC_RELAXED);

    while (cur < v && !__atomic_compare_exchange_n(&item_cas_counter.next, &cur, v, false,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void item_on_cas_block(void (*fn)(uint64_t upto)) {
    item_cas_block_hook = fn;
}

uint64_t item_peek_cas(void) {
    return __atomic_load_n(&item_cas_counter.next, __ATOMIC_RELAXED);
}

size_t item_mem_used(void) {
    size_t sum = __atomic_load_n(&item_shared.used, __ATOMIC_RELAXED);
    int i, n = __atomic_load_n(&item_nslots, __ATOMIC_ACQUIRE);

    for (i = 0; i < n; i++)
        sum += __atomic_load_n(&item_slots[i].used, __ATOMIC_RELAXED);
    return sum;
}

size_t item_mem_limit(void) {
    return __atomic_load_n(&item_limit, __ATOMIC_RELAXED);
}

void item_set_mem_limit(size_t bytes) {
    __atomic_store_n(&item_limit, bytes, __ATOMIC_RELAXED);
}
