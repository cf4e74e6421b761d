/*
 * list_park: a connection parked on a list. The list serves the waiter
 * under its own lock (list_waiter.wake), which only posts the answer to
 * the connection's worker (park_wake); the answer writes VALUE lines.
 * What a waiter took goes back to its end of the list if its connection
 * went meanwhile, or if its client is seen to have hung up when the answer
 * is about to be written (a hang-up not yet read). A pop served on another
 * thread than the waiter's worker is answered by that thread, on the
 * socket (lpark_send, park.h); what it wrote goes back only if the client
 * refused it with a reset (park_undelivered).
 *
 * A waiting move (lmove wait=) is a waiter of its source that names its
 * destination (held by dpin): the list moves the element itself, in one
 * step, so its answer only tells the client; nothing goes back if the
 * client is gone (the element is in the destination already).
 */
#include <stdlib.h>
#include <string.h>

#include "verbs/list_park.h"
#include "net/park.h"
#include "store/store_list.h"
#include "verbs/verb_list.h"

struct lpark {
    struct park park;           /* first: the ops get a struct park * */
    struct list_waiter lw;
    item *pin;                  /* the list */
    item *dpin;                 /* a move's destination; NULL for a pop */
    char key[ITEM_KEY_MAX];     /* the key the answer names */
    size_t nkey;
};

static struct lpark *lpark_of(struct park *p) {
    return (struct lpark *)p;
}

static bool lpark_unwait(struct park *p) {
    struct lpark *w = lpark_of(p);

    return list_unwait(store_list_of(w->pin), &w->lw);
}

static void lpark_answer(conn *c, struct park *p) {
    struct lpark *w = lpark_of(p);
    size_t off = 0, n;
    const char *v;
    int i;

    if (w->dpin == NULL && w->lw.ngot > 0 && park_undelivered(c, p))
        list_give_back(store_list_of(w->pin), &w->lw);
    if (w->dpin != NULL && w->lw.ngot == 0 && w->lw.result != LIST_OK && w->lw.result != LIST_GONE) {
        conn_out_reply(c, w->lw.result == LIST_FULL ? REPLY_NOT_STORED : REPLY_OOM_STORE);
        return;
    }
    for (i = 0; i < w->lw.ngot; i++) {
        off = list_unpack(w->lw.got, off, &v, &n);
        lverb_out_value(c, w->key, w->nkey, v, n);
    }
    free(w->lw.got);
    w->lw.got = NULL;
    w->lw.ngot = 0;
    conn_out_reply(c, REPLY_END);
    park_skip_sent(c, p);
}

static void lpark_give_back(struct park *p) {
    struct lpark *w = lpark_of(p);

    if (p->sent == 0 && w->dpin == NULL) {
        list_give_back(store_list_of(w->pin), &w->lw);
        return;
    }
    free(w->lw.got);            /* written to the client: not given back */
    w->lw.got = NULL;
    w->lw.ngot = 0;
}

static void lpark_release(struct park *p) {
    struct lpark *w = lpark_of(p);

    free(w->lw.got);
    item_release(w->pin);
    if (w->dpin != NULL)
        item_release(w->dpin);
    free(w);
}

static const struct park_ops lpark_ops = {
    .unwait = lpark_unwait,
    .answer = lpark_answer,
    .give_back = lpark_give_back,
    .release = lpark_release,
};

/* The bytes lpark_answer would queue, written by the serving thread
 * (park_send) when they are few enough. Under the list lock. */
static void lpark_send(struct lpark *w, int fd) {
    char head[PARK_DIRECT_MAX][LVERB_HEAD_MAX];
    struct iovec iov[PARK_DIRECT_MAX * 3 + 1];
    size_t off = 0, total = reply_lines[REPLY_END].len, len;
    const char *v;
    int i, n = 0;

    if (w->lw.ngot > PARK_DIRECT_MAX)
        return;
    for (i = 0; i < w->lw.ngot; i++) {
        off = list_unpack(w->lw.got, off, &v, &len);
        iov[n++] = (struct iovec){ head[i], lverb_value_head(head[i], w->key, w->nkey, len) };
        iov[n++] = (struct iovec){ (void *)v, len };
        iov[n++] = (struct iovec){ "\r\n", 2 };
        total += iov[n - 3].iov_len + len + 2;
    }
    iov[n++] = (struct iovec){ (void *)reply_lines[REPLY_END].text, reply_lines[REPLY_END].len };
    park_send(&w->park, fd, iov, n, total);
}

/* Runs under the list lock, on the thread that served the wait. */
static void lpark_on_wake(struct list_waiter *lw) {
    struct lpark *w = lw->owner;
    int fd;

    if (w->lw.ngot > 0 && (fd = park_direct_fd(&w->park)) >= 0)
        lpark_send(w, fd);
    park_wake(&w->park);
}

/* A new waiter on pin (and dpin, a move's destination, or NULL); NULL,
 * the pins released and OOM answered, without memory. */
static struct lpark *lpark_new(conn *c, item *pin, item *dpin, enum list_end e, int want,
                               const char *key, size_t nkey) {
    struct lpark *w = calloc(1, sizeof(*w));

    if (w == NULL || !park_init(&w->park, c, &lpark_ops)) {
        free(w);
        item_release(pin);
        if (dpin != NULL)
            item_release(dpin);
        conn_out_reply(c, REPLY_OOM);
        return NULL;
    }
    w->lw.end = e;
    w->lw.want = want;
    w->lw.wake = lpark_on_wake;
    w->lw.owner = w;
    w->pin = pin;
    w->dpin = dpin;
    memcpy(w->key, key, nkey);
    w->nkey = nkey;
    return w;
}

static void lpark_go(struct lpark *w, uint64_t wait_ms) {
    if (!list_wait(store_list_of(w->pin), &w->lw)) {
        park_refused(&w->park);
        return;
    }
    park_start(&w->park, wait_ms);
}

void lpark_start(conn *c, item *pin, enum list_end e, int want, uint64_t wait_ms,
                 const char *key, size_t nkey) {
    struct lpark *w = lpark_new(c, pin, NULL, e, want, key, nkey);

    if (w != NULL)
        lpark_go(w, wait_ms);
}

void lpark_start_move(conn *c, item *pin, enum list_end se, item *dpin, enum list_end de,
                      uint64_t wait_ms) {
    struct lpark *w = lpark_new(c, pin, dpin, se, 1, item_key(dpin), dpin->nkey);

    if (w == NULL)
        return;
    w->lw.dst = store_list_of(dpin);
    w->lw.dend = de;
    lpark_go(w, wait_ms);
}
