/*
 * types/queue_info: read-only views of a queue's messages, for qinfo and
 * the qpeek forms of verb_queue_info.c: one message by id, whatever its
 * state, and the delayed messages by due time; and a queue's sizes for
 * qlist unless it was deleted. Nothing here changes a queue beyond the
 * catch-up that every access makes (queue_lock).
 */
#include <string.h>

#include "base/clock.h"
#include "types/queue.h"
#include "types/queue_int.h"

/* The message id in heap h, or NULL: a walk of the heap's array. */
static struct qmsg *queue_info_in(const struct qheap *h, uint64_t id) {
    size_t i;

    for (i = 0; i < h->n; i++)
        if (h->v[i]->id == id)
            return h->v[i];
    return NULL;
}

/* In flight through the id map; ready (in the heaps), delayed and buried
 * by a walk. The pack is searched by queue_info_packed. */
static struct qmsg *queue_info_find(struct queue *q, uint64_t id) {
    struct qmsg *m = *queue_id_slot(q, id);

    if (m == NULL)
        m = queue_info_in(&q->delayed, id);
    if (m == NULL)
        m = queue_info_in(&q->buried, id);
    if (m == NULL)
        m = queue_info_in(&q->ready, id);
    if (m == NULL)
        m = queue_group_find_held(q, id);
    return m;
}

/* Calls fn on packed message id, built for the call: false when it is
 * not packed (or there is no memory to build it). */
static bool queue_info_packed(struct queue *q, uint64_t id, void (*fn)(const struct qmsg *m, void *arg),
                              void *arg) {
    struct qpack_entry e;
    struct qmsg m;

    if (!qpack_find(&q->pack, id, &e) || !queue_msg_from_pack(q, &e, &m))
        return false;
    fn(&m, arg);
    item_release(m.payload);
    return true;
}

bool queue_find(struct queue *q, uint64_t id, void (*fn)(const struct qmsg *m, void *arg), void *arg) {
    struct queue_dead_list dl;
    struct qmsg *m;
    bool found;

    queue_lock(q, clock_now_ms(), &dl);
    m = queue_info_find(q, id);
    if (m != NULL)
        fn(m, arg);
    found = m != NULL || queue_info_packed(q, id, fn, arg);
    queue_unlock(q, &dl);
    return found;
}

size_t queue_msg_group(struct queue *q, uint64_t id, char *out) {
    struct queue_dead_list dl;
    const char *name = NULL;
    struct qmsg *m;
    size_t n = 0;

    queue_lock(q, clock_now_ms(), &dl);
    m = queue_info_find(q, id);
    if (m != NULL && (name = queue_group_name_of(q, m, &n)) != NULL)
        memcpy(out, name, n);
    queue_unlock(q, &dl);
    return name != NULL ? n : 0;
}

void queue_peek_delayed(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg) {
    struct queue_dead_list dl;

    queue_lock(q, clock_now_ms(), &dl);
    qheap_first(&q->delayed, max, (void (*)(struct qmsg *, void *))fn, arg);
    queue_unlock(q, &dl);
}

bool queue_open_stats(struct queue *q, struct queue_stats *st) {
    bool open;

    pthread_mutex_lock(&q->lock);
    open = !q->closed;
    pthread_mutex_unlock(&q->lock);
    if (open)
        queue_get_stats(q, st);
    return open;
}
