/*
 * list_park_multi: a connection parked on several lists at once (lmpop
 * wait=). Each list gets a waiter of its own; the waiters share a group
 * flag, and the first list to serve one of them claims it (under that
 * list's lock), so every other list skips its waiter: the wait takes
 * elements from exactly one list. The end of the wait (time out, hang-up,
 * close) claims the group too, so no list serves it after that. Waiters
 * other lists still hold are taken off before the wait is freed (on the
 * connection's worker, no list locked). What the serving list handed to
 * a client that is gone goes back to its end of that list, as for lpop.
 */
#include <stdlib.h>
#include <string.h>

#include "net/park.h"
#include "store/store_list.h"
#include "verbs/list_park_multi.h"
#include "verbs/verb_list.h"

struct lmpark {
    struct park park;           /* first: the ops get a struct park * */
    int group;                  /* atomic: the waiters' claim */
    int n;
    int served;                 /* the list that served the wait; -1 none */
    item *pins[LPARK_MULTI_MAX];
    struct list_waiter lw[LPARK_MULTI_MAX];
};

static struct lmpark *lmpark_of(struct park *p) {
    return (struct lmpark *)p;
}

static void lmpark_unlist_all(struct lmpark *w) {
    int i;

    for (i = 0; i < w->n; i++)
        list_unwait(store_list_of(w->pins[i]), &w->lw[i]);
}

/* Ends the wait before any list served it: false when one did (its wake
 * is on its way). */
static bool lmpark_unwait(struct park *p) {
    struct lmpark *w = lmpark_of(p);
    bool mine = list_group_claim(&w->group);

    lmpark_unlist_all(w);
    return mine;
}

static void lmpark_give_back(struct park *p) {
    struct lmpark *w = lmpark_of(p);

    if (w->served >= 0 && w->lw[w->served].ngot > 0)
        list_give_back(store_list_of(w->pins[w->served]), &w->lw[w->served]);
}

static void lmpark_answer(conn *c, struct park *p) {
    struct lmpark *w = lmpark_of(p);
    struct list_waiter *lw = w->served >= 0 ? &w->lw[w->served] : NULL;
    size_t off = 0, n;
    const char *v;
    int i;

    if (lw != NULL && lw->ngot > 0 && park_undelivered(c, p))
        lmpark_give_back(p);
    for (i = 0; lw != NULL && i < lw->ngot; i++) {
        item *l = w->pins[w->served];
        off = list_unpack(lw->got, off, &v, &n);
        lverb_out_value(c, item_key(l), l->nkey, v, n);
    }
    if (lw != NULL) {
        free(lw->got);
        lw->got = NULL;
        lw->ngot = 0;
    }
    conn_out_reply(c, REPLY_END);
}

static void lmpark_release(struct park *p) {
    struct lmpark *w = lmpark_of(p);
    int i;

    lmpark_unlist_all(w);
    for (i = 0; i < w->n; i++) {
        free(w->lw[i].got);
        item_release(w->pins[i]);
    }
    free(w);
}

static const struct park_ops lmpark_ops = {
    .unwait = lmpark_unwait,
    .answer = lmpark_answer,
    .give_back = lmpark_give_back,
    .release = lmpark_release,
};

/* Under the serving list's lock, once, for the waiter that claimed the
 * group (or whose list was deleted or flushed). */
static void lmpark_on_wake(struct list_waiter *lw) {
    struct lmpark *w = lw->owner;

    w->served = (int)(lw - w->lw);
    park_wake(&w->park);
}

/* Lists w on its lists in order until one serves it: false when a list
 * is closed and the wait was not served (nothing is then listed). */
static bool lmpark_list(struct lmpark *w) {
    int i;

    for (i = 0; i < w->n && !__atomic_load_n(&w->group, __ATOMIC_ACQUIRE); i++) {
        if (!list_wait(store_list_of(w->pins[i]), &w->lw[i]))
            return !lmpark_unwait(&w->park);
    }
    return true;
}

void lmpark_start(conn *c, item **pins, int n, enum list_end e, int want, uint64_t wait_ms) {
    struct lmpark *w = calloc(1, sizeof(*w));
    int i;

    if (w == NULL || !park_init(&w->park, c, &lmpark_ops)) {
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
        w->lw[i].end = e;
        w->lw[i].want = want;
        w->lw[i].group = &w->group;
        w->lw[i].wake = lmpark_on_wake;
        w->lw[i].owner = w;
    }
    if (!lmpark_list(w)) {
        park_refused(&w->park);
        return;
    }
    park_start(&w->park, wait_ms);
}
