/*
 * queue_park: a connection parked on a queue. The queue serves the
 * waiter under its own lock (queue_waiter.wake), which only posts the
 * answer to the connection's worker (park_wake); the answer writes ITEM
 * lines (qpop) or a Kestrel VALUE line (taken for good, or the open read).
 * What a waiter got goes back uncounted if its connection went meanwhile.
 * A qpop served on another thread than the waiter's worker is answered by
 * that thread, on the socket (qpark_send, park.h).
 */
#include <stdlib.h>
#include <string.h>

#include "verbs/kestrel.h"
#include "net/park.h"
#include "verbs/queue_park.h"
#include "store/store_queue.h"
#include "verbs/verb_queue.h"

struct qpark {
    struct park park;           /* first: the ops get a struct park * */
    struct queue_waiter qw;
    item *pin;                  /* the queue */
    enum qpark_mode mode;
    bool with_cas;
    char key[ITEM_KEY_MAX];     /* Kestrel: the key as asked, for VALUE */
    size_t nkey;
    struct qdelivery got[];
};

static struct qpark *qpark_of(struct park *p) {
    return (struct qpark *)p;
}

static bool qpark_unwait(struct park *p) {
    struct qpark *w = qpark_of(p);

    return queue_unwait(store_queue_of(w->pin), &w->qw);
}

/* An answer the serving thread wrote (p->sent, reset to 0 when the
 * client refused it) is not given back: its messages stay leased, as when
 * the worker writes the answer and the client hangs up after it. */
static void qpark_give_back(struct park *p) {
    struct qpark *w = qpark_of(p);
    int i;

    for (i = 0; i < w->qw.ngot; i++) {
        struct qreceipt r = { w->got[i].id, w->got[i].deliveries };
        if (p->sent == 0)
            store_queue_unlease(w->pin, &r);
        item_release(w->got[i].payload);
    }
    w->qw.ngot = 0;
}

static void qpark_answer(conn *c, struct park *p) {
    struct qpark *w = qpark_of(p);
    int i;

    if (w->qw.ngot > 0 && park_undelivered(c, p))
        qpark_give_back(p);
    for (i = 0; i < w->qw.ngot; i++) {
        struct qdelivery *d = &w->got[i];
        struct qreceipt r = { d->id, d->deliveries };
        if (w->mode == QPARK_POP) {
            qverb_out_delivery(c, d);
            continue;
        }
        kestrel_out_value(c, w->key, w->nkey, d->payload, w->with_cas);
        if (w->mode == QPARK_KESTREL_TAKE)
            store_queue_ack(w->pin, &r, true);
        else
            kestrel_opened(c, w->pin, d->id);
    }
    w->qw.ngot = 0;
    conn_out_reply(c, REPLY_END);
    park_skip_sent(c, p);
}

static void qpark_release(struct park *p) {
    struct qpark *w = qpark_of(p);

    item_release(w->pin);
    free(w);
}

static const struct park_ops qpark_ops = {
    .unwait = qpark_unwait,
    .answer = qpark_answer,
    .give_back = qpark_give_back,
    .release = qpark_release,
};

/* The bytes qpark_answer would queue for a qpop, written by the serving
 * thread (park_send) when they are few enough. Under the queue lock. */
static void qpark_send(struct qpark *w, int fd) {
    char head[PARK_DIRECT_MAX][QVERB_HEAD_MAX];
    struct iovec iov[PARK_DIRECT_MAX * 2 + 1];
    size_t total = reply_lines[REPLY_END].len;
    int i, n = 0;

    if (w->qw.ngot > PARK_DIRECT_MAX)
        return;
    for (i = 0; i < w->qw.ngot; i++) {
        item *it = w->got[i].payload;
        iov[n++] = (struct iovec){ head[i], qverb_delivery_head(head[i], &w->got[i]) };
        iov[n++] = (struct iovec){ item_value(it), it->nbytes };
        total += iov[n - 2].iov_len + it->nbytes;
    }
    iov[n++] = (struct iovec){ (void *)reply_lines[REPLY_END].text, reply_lines[REPLY_END].len };
    park_send(&w->park, fd, iov, n, total);
}

/* Runs under the queue lock, on the thread that served the wait. */
static void qpark_on_wake(struct queue_waiter *qw) {
    struct qpark *w = qw->owner;
    int fd;

    if (w->mode == QPARK_POP && w->qw.ngot > 0 && (fd = park_direct_fd(&w->park)) >= 0)
        qpark_send(w, fd);
    park_wake(&w->park);
}

void qpark_start(conn *c, item *pin, int want, uint64_t lease_ms, uint64_t wait_ms,
                 enum qpark_mode mode, const char *key, size_t nkey, bool with_cas) {
    struct qpark *w = calloc(1, sizeof(*w) + (size_t)want * sizeof(struct qdelivery));

    if (w == NULL || !park_init(&w->park, c, &qpark_ops)) {
        free(w);
        item_release(pin);
        conn_out_reply(c, REPLY_OOM);
        return;
    }
    w->qw.want = want;
    w->qw.lease_ms = lease_ms;
    w->qw.holder = c->name_token;
    w->qw.got = w->got;
    w->qw.wake = qpark_on_wake;
    w->qw.owner = w;
    w->pin = pin;
    w->mode = mode;
    w->with_cas = with_cas;
    memcpy(w->key, key, nkey);
    w->nkey = nkey;
    if (!queue_wait(store_queue_of(pin), &w->qw)) {
        park_refused(&w->park);
        return;
    }
    park_start(&w->park, wait_ms);
}
