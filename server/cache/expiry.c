/*
 * expiry: the index of cache items by expiry second (see expiry.h).
 *
 * One mutex per slot; expiry_add is called under a stripe lock, and the
 * sweep takes a slot's entries out under its mutex and reaps them with
 * no slot mutex held, so the two lock orders never cross.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cache/expiry.h"

#define EXPIRY_SLOTS 4096           /* seconds in one turn of the wheel */
#define EXPIRY_MIN_ENTRIES 65536

struct expiry_entry {
    uint32_t hv;
    rel_time_t exptime;
};

struct expiry_slot {
    pthread_mutex_t lock;
    struct expiry_entry *v;
    size_t n, cap;
};

static struct expiry_slot expiry_slots[EXPIRY_SLOTS];
static size_t expiry_max;
static size_t expiry_count;         /* atomic: entries held */
static uint64_t expiry_drops;       /* atomic */
static rel_time_t expiry_next;      /* atomic: the next second to sweep */

void expiry_init(size_t max_entries) {
    size_t i;

    for (i = 0; i < EXPIRY_SLOTS; i++) {
        pthread_mutex_init(&expiry_slots[i].lock, NULL);
        expiry_slots[i].v = NULL;
        expiry_slots[i].n = expiry_slots[i].cap = 0;
    }
    expiry_max = max_entries > EXPIRY_MIN_ENTRIES ? max_entries : EXPIRY_MIN_ENTRIES;
    expiry_count = 0;
    expiry_drops = 0;
    expiry_next = clock_now();
}

void expiry_destroy(void) {
    size_t i;

    for (i = 0; i < EXPIRY_SLOTS; i++) {
        free(expiry_slots[i].v);
        expiry_slots[i].v = NULL;
        expiry_slots[i].n = expiry_slots[i].cap = 0;
        pthread_mutex_destroy(&expiry_slots[i].lock);
    }
}

/* Appends e to s (its lock held); false if there is no room. */
static bool expiry_push(struct expiry_slot *s, struct expiry_entry e) {
    if (s->n == s->cap) {
        size_t cap = s->cap == 0 ? 16 : s->cap * 2;
        struct expiry_entry *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = e;
    return true;
}

void expiry_add(uint32_t hv, rel_time_t exptime) {
    rel_time_t next = __atomic_load_n(&expiry_next, __ATOMIC_RELAXED);
    struct expiry_entry e = { hv, exptime };
    struct expiry_slot *s;
    bool kept;

    if (__atomic_add_fetch(&expiry_count, 1, __ATOMIC_RELAXED) > expiry_max) {
        __atomic_sub_fetch(&expiry_count, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&expiry_drops, 1, __ATOMIC_RELAXED);
        return;
    }
    /* Already due: into the slot swept next, not one swept a turn later. */
    s = &expiry_slots[(exptime < next ? next : exptime) % EXPIRY_SLOTS];
    pthread_mutex_lock(&s->lock);
    kept = expiry_push(s, e);
    pthread_mutex_unlock(&s->lock);
    if (!kept) {
        __atomic_sub_fetch(&expiry_count, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&expiry_drops, 1, __ATOMIC_RELAXED);
    }
}

/* Puts back an entry (not due yet, or its bucket was busy) into slot s;
 * an entry that finds no memory is dropped (the crawl will find it). */
static size_t expiry_put_back(struct expiry_slot *s, struct expiry_entry e) {
    bool kept;

    pthread_mutex_lock(&s->lock);
    kept = expiry_push(s, e);
    pthread_mutex_unlock(&s->lock);
    if (kept)
        return 0;
    __atomic_add_fetch(&expiry_drops, 1, __ATOMIC_RELAXED);
    return 1;
}

/* Sweeps one slot: due entries are reaped, the others put back (a busy
 * bucket's into the slot swept next). */
static void expiry_sweep_slot(struct expiry_slot *s, rel_time_t now, bool (*reap)(uint32_t hv)) {
    struct expiry_slot *later = &expiry_slots[(now + 1) % EXPIRY_SLOTS];
    struct expiry_entry *v;
    size_t n, i, reaped = 0;

    pthread_mutex_lock(&s->lock);
    v = s->v;
    n = s->n;
    s->v = NULL;
    s->n = s->cap = 0;
    pthread_mutex_unlock(&s->lock);
    for (i = 0; i < n; i++) {
        if (v[i].exptime > now)
            reaped += expiry_put_back(s, v[i]);
        else if (reap(v[i].hv))
            reaped++;
        else
            reaped += expiry_put_back(later, v[i]);
    }
    __atomic_sub_fetch(&expiry_count, reaped, __ATOMIC_RELAXED);
    free(v);
}

void expiry_sweep(rel_time_t now, bool (*reap)(uint32_t hv)) {
    rel_time_t next = __atomic_load_n(&expiry_next, __ATOMIC_RELAXED);
    rel_time_t swept = 0;

    while (next <= now && swept < EXPIRY_SLOTS) {
        /* Claim second next; another thread may have taken it first. */
        if (!__atomic_compare_exchange_n(&expiry_next, &next, next + 1, false, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED))
            continue;
        expiry_sweep_slot(&expiry_slots[next % EXPIRY_SLOTS], now, reap);
        next++;
        swept++;
    }
    if (next <= now)            /* a jump of more than a turn: every slot was swept */
        __atomic_compare_exchange_n(&expiry_next, &next, now + 1, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}

size_t expiry_entries(void) {
    return __atomic_load_n(&expiry_count, __ATOMIC_RELAXED);
}

uint64_t expiry_dropped(void) {
    return __atomic_load_n(&expiry_drops, __ATOMIC_RELAXED);
}
