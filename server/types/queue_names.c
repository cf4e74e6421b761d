/*
 * types/queue_names: an array of every queue sorted by name (then by
 * address: a deleted queue that a reader still pins may share its name
 * with the one made after it), under a lock of its own that nothing else
 * is taken under. A queue enters it when made and leaves it when freed; a
 * page holds the lock for a binary search and one page of entries, never
 * for a walk of every queue. The array counts toward -m.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "types/queue_int.h"
#include "types/queue_names.h"

#define QN_INIT 16

static pthread_mutex_t qn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct queue **qn_v;
static size_t qn_n, qn_cap;

/* Name order, then address order. */
static int qn_cmp_name(const struct queue *q, const char *name, size_t nname) {
    int c = memcmp(q->name, name, q->nname < nname ? q->nname : nname);

    if (c != 0)
        return c;
    return q->nname < nname ? -1 : q->nname > nname ? 1 : 0;
}

/* The first index whose queue comes after (name, q) (q NULL: after every
 * queue of that name when past, before every one otherwise). */
static size_t qn_search(const char *name, size_t nname, const struct queue *q, bool past) {
    size_t lo = 0, hi = qn_n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = qn_cmp_name(qn_v[mid], name, nname);
        if (c == 0 && q != NULL)
            c = qn_v[mid] < q ? -1 : qn_v[mid] > q ? 1 : 0;
        if (c < 0 || (c == 0 && past))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool qn_room(void) {
    size_t cap = qn_cap ? qn_cap * 2 : QN_INIT;
    struct queue **v;

    if (qn_n < qn_cap)
        return true;
    v = realloc(qn_v, cap * sizeof(*v));
    if (v == NULL)
        return false;
    item_mem_charge((long)((cap - qn_cap) * sizeof(*v)));
    qn_v = v;
    qn_cap = cap;
    return true;
}

int queue_names_add(struct queue *q) {
    size_t at;
    int r = -1;

    pthread_mutex_lock(&qn_lock);
    if (qn_room()) {
        at = qn_search(q->name, q->nname, q, true);
        memmove(&qn_v[at + 1], &qn_v[at], (qn_n - at) * sizeof(*qn_v));
        qn_v[at] = q;
        qn_n++;
        r = 0;
    }
    pthread_mutex_unlock(&qn_lock);
    return r;
}

void queue_names_remove(struct queue *q) {
    size_t at;

    pthread_mutex_lock(&qn_lock);
    at = qn_search(q->name, q->nname, q, false);
    if (at < qn_n && qn_v[at] == q) {
        memmove(&qn_v[at], &qn_v[at + 1], (qn_n - at - 1) * sizeof(*qn_v));
        qn_n--;
    }
    if (qn_n == 0) {        /* no queue left: give the array back */
        item_mem_charge(-(long)(qn_cap * sizeof(*qn_v)));
        free(qn_v);
        qn_v = NULL;
        qn_cap = 0;
    }
    pthread_mutex_unlock(&qn_lock);
}

size_t queue_names_page(const char *after, size_t nafter, size_t max, size_t cap, struct queue **qs,
                        char *last_name, size_t *nlast) {
    const struct queue *last = NULL;
    size_t i, n = 0;

    pthread_mutex_lock(&qn_lock);
    i = nafter > 0 ? qn_search(after, nafter, NULL, true) : 0;
    for (; i < qn_n && n < cap; i++) {
        if (n >= max && (last == NULL || qn_cmp_name(qn_v[i], last->name, last->nname) != 0))
            break;
        last = qn_v[i];
        if (item_tryref(qn_v[i]->self))
            qs[n++] = qn_v[i];
    }
    *nlast = 0;
    if (i < qn_n && last != NULL) {
        memcpy(last_name, last->name, last->nname);
        *nlast = last->nname;
    }
    pthread_mutex_unlock(&qn_lock);
    return n;
}

item *queue_names_item(const struct queue *q) {
    return q->self;
}
