/*
 * ghost: the fingerprints of keys evicted unread from the small queue, in
 * a direct-mapped table that follows the main queue's size.
 *
 * Slot = the hash value's low bits, fingerprint = 16 bits of a mix of the
 * whole hash value (never 0, which marks a free slot). Growing doubles
 * the table, each slot copied to both of its halves; shrinking to half
 * keeps one of each pair. Both are rare (the main queue's size crossing a
 * power of two) and cost one pass over the table.
 */
#include <stdlib.h>
#include <string.h>

#include "cache/ghost.h"
#include "cache/item.h"

static uint16_t *ghost_slots;
static size_t ghost_size;            /* slots, a power of two (0: none yet) */

static uint16_t ghost_fp(uint32_t hv) {
    uint16_t f = (uint16_t)((hv * 2654435761u) >> 16);

    return f != 0 ? f : 1;
}

static void ghost_set_table(uint16_t *slots, size_t size) {
    item_mem_charge((long)(size * sizeof(*slots)) - (long)(ghost_size * sizeof(*slots)));
    ghost_slots = slots;
    __atomic_store_n(&ghost_size, size, __ATOMIC_RELAXED);
}

static void ghost_grow(size_t want) {
    uint16_t *s = realloc(ghost_slots, want * sizeof(*s));
    size_t i;

    if (s == NULL)
        return;                      /* a hint: the smaller table serves */
    if (ghost_size == 0)
        memset(s, 0, want * sizeof(*s));
    for (i = ghost_size; ghost_size != 0 && i < want; i++)
        s[i] = s[i & (ghost_size - 1)];
    ghost_set_table(s, want);
}

static void ghost_shrink(void) {
    size_t half = ghost_size / 2, i;
    uint16_t *s = malloc(half * sizeof(*s));

    if (s == NULL)
        return;
    for (i = 0; i < half; i++)
        s[i] = ghost_slots[i] != 0 ? ghost_slots[i] : ghost_slots[i + half];
    free(ghost_slots);
    ghost_set_table(s, half);
}

/* Sizes the table for main_items: one slot per item, a power of two. */
static void ghost_fit(size_t main_items) {
    size_t want = GHOST_MIN;

    while (want < main_items)
        want *= 2;
    if (want > ghost_size)
        ghost_grow(want);
    else if (want * 4 <= ghost_size)
        ghost_shrink();
}

void ghost_add(uint32_t hv, size_t main_items) {
    ghost_fit(main_items);
    if (ghost_size != 0)
        ghost_slots[hv & (ghost_size - 1)] = ghost_fp(hv);
}

bool ghost_take(uint32_t hv) {
    uint16_t *slot;

    if (ghost_size == 0)
        return false;
    slot = &ghost_slots[hv & (ghost_size - 1)];
    if (*slot != ghost_fp(hv))
        return false;
    *slot = 0;
    return true;
}

bool ghost_active(void) {
    return __atomic_load_n(&ghost_size, __ATOMIC_RELAXED) != 0;
}

size_t ghost_bytes(void) {
    return ghost_size * sizeof(*ghost_slots);
}

void ghost_destroy(void) {
    free(ghost_slots);
    ghost_set_table(NULL, 0);
}
