/*
 * seg: segments of small cache items (see seg.h).
 *
 * Only the owner writes items, charged and fill, and only the owner seals
 * its segment (lru.c, under its lock, when it stops filling it); the
 * eviction scan reads a segment only once it is sealed, so every item
 * below fill is wholly written by then. pending counts the items not yet
 * released, plus SEG_QUEUED while the segment is in its queue and
 * SEG_OWNED while its owner may still write to it; whoever takes it to 0
 * frees the segment. The release of the last item of a queued segment
 * nobody owns does not count itself down: lru.c does, under its lock
 * (seg_drop_last), so that the segment cannot be dequeued and freed while
 * the caller is on its way to that lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/seg.h"

#define SEG_MIN (16 * 1024)
#define SEG_MAX (1024 * 1024)
#define SEG_PER_LIMIT 64        /* a segment is at most -m / this */
#define SEG_OPEN_SHARE 8        /* and the segments threads fill, two each,
                                   at most -m / this together */
#define SEG_ITEM_SHARE 4        /* items up to a quarter of a segment go in one */
#define SEG_QUEUED (1ULL << 40)
#define SEG_OWNED (1ULL << 41)
#define SEG_SEALED (1ULL << 63)

static size_t seg_bytes = SEG_MAX;

void seg_init(size_t limit_bytes, int threads) {
    size_t s = SEG_MAX, open = 2 * (size_t)(threads > 0 ? threads : 1) * SEG_OPEN_SHARE;

    while (s > SEG_MIN && (s > limit_bytes / SEG_PER_LIMIT || s > limit_bytes / open))
        s /= 2;
    seg_bytes = s;
}

size_t seg_size(void) {
    return seg_bytes;
}

static size_t seg_round(size_t n) {
    return (n + 7) & ~(size_t)7;
}

bool seg_holds(size_t nkey, size_t nbytes) {
    return nbytes <= SEG_VALUE_MAX && seg_round(item_size(nkey, nbytes)) <= seg_bytes / SEG_ITEM_SHARE;
}

size_t seg_items_max(void) {
    return seg_bytes / seg_round(offsetof(item, data) + 1 + 2);
}

size_t seg_item_bytes(const item *it) {
    return seg_round(item_bytes(it));
}

bool seg_cas_fits(const struct seg *s, uint64_t cas, int32_t *delta) {
    int64_t d = (int64_t)(cas - s->cas_base);

    if (d < INT32_MIN || d > INT32_MAX)
        return false;
    *delta = (int32_t)d;
    return true;
}

struct seg *seg_new(void) {
    void *p;
    struct seg *s;

    if (posix_memalign(&p, seg_bytes, seg_bytes) != 0)
        return NULL;
    s = p;
    memset(s, 0, sizeof(*s));
    s->node.kind = SEG_KIND_SEGMENT;
    s->fill = s->scan = sizeof(*s);
    s->pending = SEG_QUEUED | SEG_OWNED;
    s->cas_base = item_peek_cas();
    return s;
}

item *seg_append(struct seg *s, const item *it, uint64_t cas) {
    uint64_t f = __atomic_load_n(&s->fill, __ATOMIC_RELAXED);
    uint32_t flags = item_flags(it);
    int32_t delta = 0;
    bool wide = !seg_cas_fits(s, cas, &delta);
    size_t extra = (wide ? sizeof(cas) : 0) + (flags != 0 ? sizeof(flags) : 0);
    size_t size = seg_round(offsetof(item, data) + extra + it->nkey + it->nbytes);
    item *c;
    char *p;

    if ((f & SEG_SEALED) || f + size > seg_bytes)
        return NULL;
    __atomic_add_fetch(&s->pending, 1, __ATOMIC_RELAXED);
    c = (item *)((char *)s + f);
    /* All but the reference count, which readers may change meanwhile. */
    memcpy(c, it, offsetof(item, refcount));
    c->h_next = NULL;
    c->cas_delta = delta;
    c->wide_cas = wide;
    c->has_flags = flags != 0;
    c->refcount = 1;
    c->iflags = (uint8_t)((it->iflags & ~(ITEM_ASK_BLOCK | ITEM_NODE)) | ITEM_SEG | ITEM_LINKED);
    p = c->data;
    if (wide) {
        memcpy(p, &cas, sizeof(cas));
        p += sizeof(cas);
    }
    if (flags != 0) {
        memcpy(p, &flags, sizeof(flags));
        p += sizeof(flags);
    }
    memcpy(p, item_key(it), (size_t)it->nkey + it->nbytes);
    s->charged += (uint32_t)size;
    item_mem_charge((long)size);
    __atomic_add_fetch(&s->items, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->fill, f + size, __ATOMIC_RELEASE);
    return c;
}

void seg_seal(struct seg *s) {
    __atomic_or_fetch(&s->fill, SEG_SEALED, __ATOMIC_ACQ_REL);
}

bool seg_sealed(const struct seg *s) {
    return (__atomic_load_n(&s->fill, __ATOMIC_ACQUIRE) & SEG_SEALED) != 0;
}

uint32_t seg_used(const struct seg *s) {
    return (uint32_t)(__atomic_load_n(&s->fill, __ATOMIC_ACQUIRE) & ~SEG_SEALED);
}

void seg_rewind(struct seg *s) {
    item_mem_charge(-(long)s->charged);
    s->charged = 0;
    s->cas_base = item_peek_cas();
    __atomic_store_n(&s->items, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->fill, sizeof(*s), __ATOMIC_RELEASE);
}

_Static_assert(sizeof(struct seg) == 64, "a segment header is one cache line");

static void seg_free(struct seg *s) {
    item_mem_charge(-(long)s->charged);
    free(s);
}

static void seg_put(struct seg *s, uint64_t token) {
    if (__atomic_sub_fetch(&s->pending, token, __ATOMIC_ACQ_REL) == 0)
        seg_free(s);
}

void seg_dequeue(struct seg *s) {
    seg_put(s, SEG_QUEUED);
}

void seg_disown(struct seg *s) {
    seg_put(s, SEG_OWNED);
}

struct seg *seg_of(const item *it) {
    return (struct seg *)((uintptr_t)it & ~(uintptr_t)(seg_bytes - 1));
}

bool seg_item_gone(item *it) {
    struct seg *s = seg_of(it);
    uint64_t n = __atomic_load_n(&s->pending, __ATOMIC_ACQUIRE);

    do {
        if (n == SEG_QUEUED + 1)
            return true;
    } while (!__atomic_compare_exchange_n(&s->pending, &n, n - 1, false, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    if (n - 1 == 0)
        seg_free(s);
    return false;
}

bool seg_drop_last(struct seg *s) {
    uint64_t n = __atomic_sub_fetch(&s->pending, 1, __ATOMIC_ACQ_REL);

    if (n == 0)
        seg_free(s);
    return n == SEG_QUEUED;
}

item *seg_item_at(struct seg *s, uint32_t off) {
    return off < seg_used(s) ? (item *)((char *)s + off) : NULL;
}

uint64_t seg_live(const struct seg *s) {
    return __atomic_load_n(&s->pending, __ATOMIC_ACQUIRE) & (SEG_QUEUED - 1);
}
