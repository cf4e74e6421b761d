/*
 * qheap: array-backed binary heap with position tracking. qheap_first
 * walks the k smallest in order with a small side heap of indices, so a
 * peek of k items costs O(k log k), not a sort of the whole queue.
 *
 * The array is counted under -m (item_mem_charge) for as long as it is
 * held: it grows by doubling, halves once a quarter or less of it is used
 * (qheap_fit, called by the queue where no room is reserved), and is
 * given back whole by qheap_free.
 */
#include <stdlib.h>

#include "types/qheap.h"
#include "types/queue.h"

#define QHEAP_MIN 16        /* the smallest array, in messages */

void qheap_init(struct qheap *h, int (*less)(const struct qmsg *, const struct qmsg *), size_t pos_off) {
    h->v = NULL;
    h->n = h->cap = 0;
    h->less = less;
    h->pos_off = pos_off;
}

static uint32_t *qheap_pos(const struct qheap *h, struct qmsg *m) {
    return (uint32_t *)((char *)m + h->pos_off);
}

void qheap_free(struct qheap *h) {
    item_mem_charge(-(long)(h->cap * sizeof(*h->v)));
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

static void qheap_set(struct qheap *h, size_t i, struct qmsg *m) {
    h->v[i] = m;
    *qheap_pos(h, m) = (uint32_t)i;
}

static void qheap_up(struct qheap *h, size_t i) {
    struct qmsg *m = h->v[i];

    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!h->less(m, h->v[parent]))
            break;
        qheap_set(h, i, h->v[parent]);
        i = parent;
    }
    qheap_set(h, i, m);
}

static void qheap_down(struct qheap *h, size_t i) {
    struct qmsg *m = h->v[i];

    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n)
            break;
        if (child + 1 < h->n && h->less(h->v[child + 1], h->v[child]))
            child++;
        if (!h->less(h->v[child], m))
            break;
        qheap_set(h, i, h->v[child]);
        i = child;
    }
    qheap_set(h, i, m);
}

int qheap_reserve(struct qheap *h, size_t n) {
    size_t cap = h->cap ? h->cap : QHEAP_MIN;
    struct qmsg **v;

    if (n <= h->cap)
        return 0;
    if (n > UINT32_MAX)
        return -1;      /* positions are 32 bits */
    while (cap < n)
        cap *= 2;
    v = realloc(h->v, cap * sizeof(*v));
    if (v == NULL)
        return -1;
    item_mem_charge((long)((cap - h->cap) * sizeof(*v)));
    h->v = v;
    h->cap = cap;
    return 0;
}

void qheap_fit(struct qheap *h, size_t keep) {
    size_t cap = h->cap;
    struct qmsg **v;

    while (cap > QHEAP_MIN && h->n + keep <= cap / 4)
        cap /= 2;
    if (cap == h->cap || (v = realloc(h->v, cap * sizeof(*v))) == NULL)
        return;     /* a failed shrink leaves the larger array */
    item_mem_charge(-(long)((h->cap - cap) * sizeof(*v)));
    h->v = v;
    h->cap = cap;
}

int qheap_push(struct qheap *h, struct qmsg *m) {
    if (h->n == h->cap && qheap_reserve(h, h->n + 1) < 0)
        return -1;
    qheap_set(h, h->n, m);
    h->n++;
    qheap_up(h, h->n - 1);
    return 0;
}

struct qmsg *qheap_top(const struct qheap *h) {
    return h->n > 0 ? h->v[0] : NULL;
}

void qheap_remove(struct qheap *h, struct qmsg *m) {
    size_t i = *qheap_pos(h, m);

    h->n--;
    if (i != h->n) {
        struct qmsg *moved = h->v[h->n];
        qheap_set(h, i, moved);
        qheap_down(h, i);
        qheap_up(h, *qheap_pos(h, moved));
    }
}

struct qmsg *qheap_pop(struct qheap *h) {
    struct qmsg *m = qheap_top(h);

    if (m != NULL)
        qheap_remove(h, m);
    return m;
}

/* Side heap of positions in h, ordered by the messages they hold. */
static void qheap_first_push(const struct qheap *h, size_t *side, size_t *n, size_t pos) {
    size_t i = (*n)++;

    while (i > 0 && h->less(h->v[pos], h->v[side[(i - 1) / 2]])) {
        side[i] = side[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    side[i] = pos;
}

static size_t qheap_first_pop(const struct qheap *h, size_t *side, size_t *n) {
    size_t top = side[0], last = side[--(*n)], i = 0;

    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= *n)
            break;
        if (child + 1 < *n && h->less(h->v[side[child + 1]], h->v[side[child]]))
            child++;
        if (!h->less(h->v[side[child]], h->v[last]))
            break;
        side[i] = side[child];
        i = child;
    }
    side[i] = last;
    return top;
}

void qheap_first(const struct qheap *h, size_t k, void (*fn)(struct qmsg *m, void *arg), void *arg) {
    size_t *side, n = 0, done = 0;

    if (h->n == 0 || k == 0)
        return;
    if (k > h->n)
        k = h->n;
    side = malloc((k + 2) * sizeof(size_t));  /* each step pops 1, pushes <= 2 */
    if (side == NULL)
        return;
    qheap_first_push(h, side, &n, 0);
    while (n > 0 && done < k) {
        size_t pos = qheap_first_pop(h, side, &n);
        fn(h->v[pos], arg);
        done++;
        if (2 * pos + 1 < h->n)
            qheap_first_push(h, side, &n, 2 * pos + 1);
        if (2 * pos + 2 < h->n)
            qheap_first_push(h, side, &n, 2 * pos + 2);
    }
    free(side);
}
