/*
 * types/queue_dedup: a queue's deduplication ids, their table and their
 * expiry (queue_dedup.h says what an entry means).
 */
#include <stdlib.h>
#include <string.h>

#include "cache/item.h"
#include "types/queue_dedup.h"

#define QDEDUP_BUCKETS_INIT 16

void qdedup_init(struct qdedup *d) {
    memset(d, 0, sizeof(*d));
}

static size_t qdedup_entry_size(size_t n) {
    return sizeof(struct qdedup_entry) + n;
}

static uint64_t qdedup_hash(const char *id, size_t n, uint8_t index) {
    uint64_t h = 14695981039346656037ULL ^ index;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)id[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static struct qdedup_entry **qdedup_slot(struct qdedup *d, const char *id, size_t n, uint8_t index) {
    struct qdedup_entry **p = &d->buckets[qdedup_hash(id, n, index) & (d->nbuckets - 1)];

    while (*p != NULL && !((*p)->index == index && (*p)->n == n && memcmp((*p)->id, id, n) == 0))
        p = &(*p)->hnext;
    return p;
}

static void qdedup_free_buckets(struct qdedup *d) {
    item_mem_charge(-(long)(d->nbuckets * sizeof(*d->buckets)));
    free(d->buckets);
    d->buckets = NULL;
    d->nbuckets = 0;
}

void qdedup_free(struct qdedup *d) {
    struct qdedup_entry *e = d->head, *next;

    for (; e != NULL; e = next) {
        next = e->next;
        item_mem_charge(-(long)qdedup_entry_size(e->n));
        free(e);
    }
    qdedup_free_buckets(d);
    qdedup_init(d);
}

bool qdedup_find(struct qdedup *d, const char *id, size_t n, uint8_t index, uint64_t now,
                 uint64_t *msg_id) {
    struct qdedup_entry *e;

    if (d->n == 0)
        return false;
    e = *qdedup_slot(d, id, n, index);
    if (e == NULL || e->expires_ms <= now)
        return false;
    *msg_id = e->msg_id;
    return true;
}

/* A table of nb buckets (a power of two) for every entry: -1 without memory. */
static int qdedup_rehash(struct qdedup *d, size_t nb) {
    struct qdedup_entry **b = calloc(nb, sizeof(*b)), *e;

    if (b == NULL)
        return -1;
    qdedup_free_buckets(d);
    d->buckets = b;
    d->nbuckets = nb;
    item_mem_charge((long)(nb * sizeof(*b)));
    for (e = d->head; e != NULL; e = e->next) {
        struct qdedup_entry **slot = &b[qdedup_hash(e->id, e->n, e->index) & (nb - 1)];
        e->hnext = *slot;
        *slot = e;
    }
    return 0;
}

/* Takes e (at *slot in its chain) out of the table and the order. */
static void qdedup_unlink(struct qdedup *d, struct qdedup_entry **slot, struct qdedup_entry *e) {
    *slot = e->hnext;
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        d->head = e->next;
    if (e->next != NULL)
        e->next->prev = e->prev;
    else
        d->tail = e->prev;
    d->n--;
    item_mem_charge(-(long)qdedup_entry_size(e->n));
    free(e);
}

int qdedup_reserve(struct qdedup *d) {
    return d->nbuckets > 0 ? 0 : qdedup_rehash(d, QDEDUP_BUCKETS_INIT);
}

struct qdedup_entry *qdedup_entry_new(const char *id, size_t n, uint8_t index) {
    struct qdedup_entry *e;

    if (n == 0 || n > QDEDUP_ID_MAX || (e = malloc(qdedup_entry_size(n))) == NULL)
        return NULL;
    memset(e, 0, sizeof(*e));
    e->index = index;
    e->n = (uint8_t)n;
    memcpy(e->id, id, n);
    return e;
}

void qdedup_entry_drop(struct qdedup_entry *e) {
    free(e);
}

void qdedup_insert(struct qdedup *d, struct qdedup_entry *e, uint64_t msg_id, uint64_t expires_ms) {
    struct qdedup_entry **slot;

    if (d->n >= d->nbuckets)
        (void)qdedup_rehash(d, d->nbuckets * 2);    /* a full table still works */
    slot = qdedup_slot(d, e->id, e->n, e->index);
    if (*slot != NULL)
        qdedup_unlink(d, slot, *slot);
    slot = &d->buckets[qdedup_hash(e->id, e->n, e->index) & (d->nbuckets - 1)];
    e->hnext = *slot;
    *slot = e;
    e->next = NULL;
    e->prev = d->tail;
    e->expires_ms = expires_ms;
    e->msg_id = msg_id;
    if (d->tail != NULL)
        d->tail->next = e;
    else
        d->head = e;
    d->tail = e;
    d->n++;
    item_mem_charge((long)qdedup_entry_size(e->n));
}

int qdedup_add(struct qdedup *d, const char *id, size_t n, uint8_t index, uint64_t msg_id,
               uint64_t expires_ms) {
    struct qdedup_entry *e;

    if (qdedup_reserve(d) < 0 || (e = qdedup_entry_new(id, n, index)) == NULL)
        return -1;
    qdedup_insert(d, e, msg_id, expires_ms);
    return 0;
}

/* Halves the table (in one step, as far as it goes) while an eighth or
 * less of it is used; without memory it stays as it is. */
static void qdedup_shrink(struct qdedup *d) {
    size_t nb = d->nbuckets;

    while (nb > QDEDUP_BUCKETS_INIT && d->n * 8 <= nb)
        nb /= 2;
    if (nb != d->nbuckets)
        (void)qdedup_rehash(d, nb);
}

size_t qdedup_expire(struct qdedup *d, uint64_t now, size_t max) {
    size_t done = 0;

    while (done < max && d->head != NULL && d->head->expires_ms <= now) {
        struct qdedup_entry *e = d->head;
        qdedup_unlink(d, qdedup_slot(d, e->id, e->n, e->index), e);
        done++;
    }
    if (d->n == 0 && d->nbuckets > 0)
        qdedup_free_buckets(d);
    else if (done > 0)
        qdedup_shrink(d);
    return done;
}

uint64_t qdedup_next_expiry(const struct qdedup *d) {
    return d->head != NULL ? d->head->expires_ms : UINT64_MAX;
}
