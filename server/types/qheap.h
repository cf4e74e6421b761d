/*
 * qheap: a binary min-heap of queue messages. Each message records its
 * position in a field of its own (pos_off: offsetof the field), so any
 * message can be removed in O(log n) — an ack or a release takes a message
 * out of the middle of the in-flight heap. A message may be in two heaps
 * that use two different position fields. Positions are 32 bits (a
 * uint32_t field): a heap holds at most UINT32_MAX messages.
 */
#ifndef MCDS_QHEAP_H
#define MCDS_QHEAP_H

#include <stddef.h>

struct qmsg;

struct qheap {
    struct qmsg **v;
    size_t n, cap;
    int (*less)(const struct qmsg *a, const struct qmsg *b);
    size_t pos_off;
};

void qheap_init(struct qheap *h, int (*less)(const struct qmsg *, const struct qmsg *), size_t pos_off);
void qheap_free(struct qheap *h);
/* Room for n messages without growing: 0, or -1 when it cannot grow. */
int qheap_reserve(struct qheap *h, size_t n);
/* Gives back spare room: while its messages and the keep more the caller
 * has promised room for fill a quarter of the array or less, the array
 * halves, down to 16 messages (a busy queue going from 0 to 1 and back
 * never reallocates). Only where no other room is reserved. */
void qheap_fit(struct qheap *h, size_t keep);
/* 0, or -1 when the array cannot grow. */
int qheap_push(struct qheap *h, struct qmsg *m);
struct qmsg *qheap_top(const struct qheap *h);
struct qmsg *qheap_pop(struct qheap *h);
void qheap_remove(struct qheap *h, struct qmsg *m);
/* Calls fn on the k smallest messages in order, without changing the heap. */
void qheap_first(const struct qheap *h, size_t k, void (*fn)(struct qmsg *m, void *arg), void *arg);

#endif
