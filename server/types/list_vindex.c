/*
 * types/list_vindex: a list's value index. It maps the keyed hash of a
 * value to the chunks holding elements of that hash, with how many each
 * holds, so membership, removal by value and insertion at a value look
 * at those chunks only.
 *
 * Built the first time a list is asked something by value, a bounded
 * number of elements at a time (list_vindex_step: the request waits, and
 * its worker serves other connections between steps), then kept up to
 * date by every change of the sequence (list_seq.c calls list_vindex_add
 * for each element that enters or leaves a chunk the index covers; while
 * it is built, a chunk is covered once its elements are in it). It is a
 * cache: when it cannot grow (no memory, or no room under -m) it is
 * dropped, the request is answered by reading every chunk, and the next
 * by-value request starts it again. A value's chunks are kept in the order
 * they were first used, and looked up from both ends, so the chunks at
 * the list's ends (where pushes and pops happen) are found at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/hash.h"
#include "types/list_int.h"

#define LV_MIN_SLOTS 16

uint32_t list_vhash(const char *p, size_t n) {
    uint32_t h = hash_key(p, n);

    return h != 0 ? h : 1;
}

static void lv_charge(struct list *l, long bytes) {
    l->vindex->mem += (size_t)bytes;
    list_charge(l, bytes);
}

static bool lv_pow2(size_t n) {
    return n >= 2 && (n & (n - 1)) == 0;
}

/* Bytes of the hint array of an entry with n hints (0 when inline). */
static size_t lv_array_bytes(size_t n) {
    size_t cap = 2;

    if (n <= 1)
        return 0;
    while (cap < n)
        cap *= 2;
    return cap * sizeof(struct lvhint);
}

/* The slot of h, or (create) the empty slot it goes in; SIZE_MAX when
 * absent and not created. */
static size_t lv_slot(struct lvindex *x, uint32_t h, bool create) {
    size_t mask = x->nslots - 1, i = h & mask;

    while (x->slots[i].h != 0) {
        if (x->slots[i].h == h)
            return i;
        i = (i + 1) & mask;
    }
    if (!create)
        return SIZE_MAX;
    x->slots[i].h = h;
    x->slots[i].nhints = 0;
    x->used++;
    return i;
}

/* Whether home lies in the cyclic range (i, j]. */
static bool lv_between(size_t home, size_t i, size_t j) {
    return i <= j ? home > i && home <= j : home > i || home <= j;
}

/* Empties slot i, shifting back the entries that probed past it. */
static void lv_delete(struct lvindex *x, size_t i) {
    size_t mask = x->nslots - 1, j = i;

    for (;;) {
        j = (j + 1) & mask;
        if (x->slots[j].h == 0)
            break;
        if (!lv_between(x->slots[j].h & mask, i, j)) {
            x->slots[i] = x->slots[j];
            i = j;
        }
    }
    x->slots[i].h = 0;
    x->slots[i].nhints = 0;
    x->used--;
}

/* Doubles the table; false without memory. */
static bool lv_grow(struct list *l) {
    struct lvindex *x = l->vindex;
    struct lvent *old = x->slots;
    size_t n = x->nslots, i;

    x->slots = calloc(n * 2, sizeof(*old));
    if (x->slots == NULL) {
        x->slots = old;
        return false;
    }
    x->nslots = n * 2;
    x->used = 0;
    for (i = 0; i < n; i++) {
        if (old[i].h != 0)
            x->slots[lv_slot(x, old[i].h, true)] = old[i];
    }
    free(old);
    lv_charge(l, (long)(n * sizeof(*old)));
    return true;
}

static bool lv_new(struct list *l, size_t nslots) {
    struct lvindex *x = calloc(1, sizeof(*x));

    if (x != NULL)
        x->slots = calloc(nslots, sizeof(*x->slots));
    if (x == NULL || x->slots == NULL) {
        free(x);
        return false;
    }
    x->nslots = nslots;
    l->vindex = x;
    lv_charge(l, (long)(sizeof(*x) + nslots * sizeof(*x->slots)));
    return true;
}

void list_vindex_drop(struct list *l) {
    struct lvindex *x = l->vindex;
    size_t i;

    if (x == NULL)
        return;
    for (i = 0; i < x->nslots; i++)
        if (x->slots[i].h != 0 && x->slots[i].nhints > 1)
            free(x->slots[i].u.many);
    list_charge(l, -(long)x->mem);
    free(x->slots);
    free(x);
    l->vindex = NULL;
}

struct lvent *list_vindex_find(struct list *l, uint32_t h) {
    size_t i = lv_slot(l->vindex, h, false);

    return i == SIZE_MAX ? NULL : &l->vindex->slots[i];
}

/* The hint of chunk c in e, looked for from both ends; -1 if none. */
static long lv_hint_find(struct lvent *e, const struct lchunk *c) {
    struct lvhint *hs = list_vent_hints(e);
    size_t a = 0, b = e->nhints;

    while (a < b) {
        if (hs[a].c == c)
            return (long)a;
        if (hs[--b].c == c)
            return (long)b;
        a++;
    }
    return -1;
}

/* Appends a hint; false without memory. */
static bool lv_hint_append(struct list *l, struct lvent *e, struct lchunk *c, uint32_t n) {
    size_t before = lv_array_bytes(e->nhints), after = lv_array_bytes(e->nhints + 1);
    struct lvhint *hs;

    if (e->nhints == 1) {
        hs = malloc(after);
        if (hs == NULL)
            return false;
        hs[0] = e->u.one;
        e->u.many = hs;
    } else if (e->nhints >= 2 && lv_pow2(e->nhints)) {
        hs = realloc(e->u.many, after);
        if (hs == NULL)
            return false;
        e->u.many = hs;
    }
    lv_charge(l, (long)after - (long)before);
    hs = e->nhints == 0 ? &e->u.one : e->u.many;
    hs[e->nhints].c = c;
    hs[e->nhints].n = n;
    e->nhints++;
    return true;
}

/* Takes hint k out of e, keeping the order of the others. */
static void lv_hint_remove(struct list *l, struct lvent *e, size_t k) {
    size_t before = lv_array_bytes(e->nhints), after = lv_array_bytes(e->nhints - 1);
    struct lvhint *hs = list_vent_hints(e), *smaller;

    memmove(hs + k, hs + k + 1, (e->nhints - k - 1) * sizeof(*hs));
    e->nhints--;
    if (e->nhints == 1) {
        struct lvhint one = hs[0];
        free(hs);
        e->u.one = one;
    } else if (lv_pow2(e->nhints) && (smaller = realloc(hs, after)) != NULL) {
        e->u.many = smaller;
    } else if (lv_pow2(e->nhints)) {
        after = before;
    }
    lv_charge(l, (long)after - (long)before);
}

void list_vindex_add(struct list *l, uint32_t h, struct lchunk *c, int d) {
    struct lvindex *x = l->vindex;
    struct lvent *e;
    size_t i;
    long k;

    if (d > 0 && (x->used + 1) * 4 > x->nslots * 3 &&
        (!list_room_for(x->nslots * sizeof(*x->slots)) || !lv_grow(l))) {
        list_vindex_drop(l);
        return;
    }
    i = lv_slot(x, h, d > 0);
    if (i == SIZE_MAX)
        return;
    e = &x->slots[i];
    k = lv_hint_find(e, c);
    if (k >= 0) {
        struct lvhint *hs = list_vent_hints(e);
        hs[k].n = (uint32_t)((int64_t)hs[k].n + d);
        if (hs[k].n == 0 && e->nhints == 1)
            lv_delete(x, i);
        else if (hs[k].n == 0)
            lv_hint_remove(l, e, (size_t)k);
    } else if (d > 0 && !lv_hint_append(l, e, c, (uint32_t)d)) {
        if (e->nhints == 0)
            lv_delete(x, i);
        list_vindex_drop(l);
    }
}

/* Indexes every element of c, which the index did not cover; false when
 * the index had to be dropped. */
static bool lv_index_chunk(struct list *l, struct lchunk *c) {
    uint32_t off = c->lo, j;
    size_t n, k;

    c->vgen = l->vindex->gen;
    for (j = 0; j < c->count && l->vindex != NULL; j++) {
        k = list_var_get(c->buf + off, &n);
        list_vindex_add(l, list_vhash(c->buf + off + k, n), c, 1);
        off += (uint32_t)(2 * k + n);
    }
    return l->vindex != NULL;
}

/* A new, empty index sized for the list, under a gen no chunk has. */
static bool lv_start(struct list *l) {
    size_t nslots = LV_MIN_SLOTS;

    while (nslots * 3 < l->count * 4)
        nslots *= 2;
    if (!list_room_for(nslots * sizeof(struct lvent)) || !lv_new(l, nslots))
        return false;
    if (++l->vgen_seq == 0)
        l->vgen_seq = 1;
    l->vindex->gen = l->vgen_seq;
    return true;
}

static uint64_t lv_now_us(void) {
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Chunks are visited in order, the covered ones skipped: a chunk made
 * while the index exists is covered from the start (list_seq.c), so once a
 * walk reaches the end uncovered chunks are gone for good. */
enum lv_step list_vindex_step(struct list *l, size_t budget) {
    uint64_t until = budget == SIZE_MAX ? UINT64_MAX : lv_now_us() + LIST_VINDEX_STEP_US;
    struct lchunk *c;
    size_t spent = 0;

    if (l->vindex == NULL && !lv_start(l))
        return LV_NOMEM;
    if (l->vindex->complete)
        return LV_DONE;
    for (c = list_chunk_first(l->root); c != NULL && spent < budget; c = list_chunk_next(c)) {
        if (list_vindex_covers(l, c))
            continue;
        if (spent > 0 && until != UINT64_MAX && lv_now_us() >= until)
            break;
        if (!lv_index_chunk(l, c))
            return LV_NOMEM;
        spent += c->count;
    }
    if (c != NULL)
        return LV_MORE;
    l->vindex->complete = true;
    return LV_DONE;
}
