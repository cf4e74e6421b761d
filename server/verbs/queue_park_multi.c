/*
 * queue_park_multi: a connection parked on several queues at once. Each
 * queue gets a waiter of its own; the waiters share a group, and the
 * first queue to serve one of them claims the group (an atomic flag), so
 * every other queue skips its waiter, leasing it nothing: the wait takes
 * exactly one delivery, from one queue. The end of the wait (time out,
 * hang-up, close) claims the group too, so no queue serves it after that.
 * Waiters other queues still list are taken off before the wait is freed
 * (on the connection's worker, no queue locked).
 */
#include <stdlib.h>
#include <string.h>

#include "net/park.h"
#include "verbs/queue_park_multi.h"
#include "store/store_queue.h"
#include "verbs/verb_queue_move.h"

struct qmpark {
    struct park park;           /* first: the ops get a struct park * */
    struct queue_wait_group group;
    int n;
    int served;                 /* the queue that served the wait; -1 none */
    item *pins[QPARK_MULTI_MAX];
    struct queue_waiter qw[QPARK_MULTI_MAX];
    struct qdelivery got[];
};

static struct qmpark *qmpark_of(struct park *p) {
    return (struct qmpark *)p;
}

/* Takes every waiter of w off its queue (those still listed). */
static void qmpark_unlist_all(struct qmpark *w) {
    int i;

    for (i = 0; i < w->n; i++)
        queue_unwait(store_queue_of(w->pins[i]), &w->qw[i]);
}

/* Ends the wait before any queue served it: false when one did (its wake
 * is on its way). */
static bool qmpark_unwait(struct park *p) {
    struct qmpark *w = qmpark_of(p);
    bool mine = queue_group_claim(&w->group);

    qmpark_unlist_all(w);
    return mine;
}

static void qmpark_give_back(struct park *p) {
    struct qmpark *w = qmpark_of(p);
    int i;

    if (w->served < 0)
        return;
    for (i = 0; i < w->qw[w->served].ngot; i++) {
        struct qreceipt r = { w->got[i].id, w->got[i].deliveries };
        store_queue_unlease(w->pins[w->served], &r);
        item_release(w->got[i].payload);
    }
    w->qw[w->served].ngot = 0;
}

static void qmpark_answer(conn *c, struct park *p) {
    struct qmpark *w = qmpark_of(p);
    int i, ngot;

    if (w->served >= 0 && park_peer_gone(c))
        qmpark_give_back(p);
    ngot = w->served >= 0 ? w->qw[w->served].ngot : 0;

    for (i = 0; i < ngot; i++) {
        item *q = w->pins[w->served];
        qmverb_out_delivery(c, &w->got[i], item_key(q), q->nkey);
    }
    if (w->served >= 0)
        w->qw[w->served].ngot = 0;
    conn_out_reply(c, REPLY_END);
}

static void qmpark_release(struct park *p) {
    struct qmpark *w = qmpark_of(p);
    int i;

    qmpark_unlist_all(w);
    for (i = 0; i < w->n; i++)
        item_release(w->pins[i]);
    free(w);
}

static const struct park_ops qmpark_ops = {
    .unwait = qmpark_unwait,
    .answer = qmpark_answer,
    .give_back = qmpark_give_back,
    .release = qmpark_release,
};

/* Runs under the serving queue's lock, once, for the one waiter that
 * claimed the group. */
static void qmpark_on_wake(struct queue_waiter *qw) {
    struct qmpark *w = qw->owner;

    w->served = (int)(qw - w->qw);
    park_wake(&w->park);
}

/* Lists w on its queues in order, until one serves it: false when a
 * queue is closed and the wait was not served (nothing is then listed). */
static bool qmpark_list(struct qmpark *w) {
    int i;

    for (i = 0; i < w->n && !__atomic_load_n(&w->group.claimed, __ATOMIC_ACQUIRE); i++) {
        if (!queue_wait(store_queue_of(w->pins[i]), &w->qw[i]))
            return !qmpark_unwait(&w->park);
    }
    return true;
}

void qmpark_start(conn *c, item **pins, int n, int want, const uint64_t *lease_ms, uint64_t wait_ms) {
    struct qmpark *w = calloc(1, sizeof(*w) + (size_t)want * sizeof(struct qdelivery));
    int i;

    if (w == NULL || !park_init(&w->park, c, &qmpark_ops)) {
        free(w);
        for (i = 0; i < n; i++)
            item_release(pins[i]);
        conn_out_reply(c, REPLY_OOM);
        return;
    }
    w->n = n;
    w->served = -1;
    for (i = 0; i < n; i++) {
        w->pins[i] = pins[i];
        w->qw[i].group = &w->group;
        w->qw[i].want = want;
        w->qw[i].lease_ms = lease_ms[i];
        w->qw[i].holder = c->name_token;
        w->qw[i].got = w->got;
        w->qw[i].wake = qmpark_on_wake;
        w->qw[i].owner = w;
    }
    if (!qmpark_list(w)) {
        park_refused(&w->park);
        return;
    }
    park_start(&w->park, wait_ms);
}
