/*
 * types/list_move: an element moved from one end of a list to an end of
 * another (or the same) list in one step, under both lists' locks and in
 * one log record (LR_MOVE), so that no reader and no replay ever sees it
 * in both lists or in neither; and the waiting movers (lmove wait=),
 * served in their turn among their source's waiters.
 *
 * Two list locks are always taken in address order (list_lock2). A list
 * operation that finds a mover into another list at the head of its
 * waiters holds only its own list's lock, so it cannot serve it: it
 * queues the list (list_movers_queue), and once it has let go of its lock
 * it serves the queue (list_movers_drain), taking both locks in order. A
 * queued list is held (list_hold) so that its memory stays while no lock
 * is held on it; a mover's destination is held by its waiter.
 */
#include <stdlib.h>
#include <string.h>

#include "types/list.h"
#include "types/list_int.h"
#include "types/list_persist.h"

/* The lists whose head waiter is a mover into another list. */
static pthread_mutex_t list_mq_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list *list_mq_head, *list_mq_tail;

static void list_lock2(struct list *a, struct list *b) {
    if (a == b) {
        pthread_mutex_lock(&a->lock);
    } else if (a < b) {
        pthread_mutex_lock(&a->lock);
        pthread_mutex_lock(&b->lock);
    } else {
        pthread_mutex_lock(&b->lock);
        pthread_mutex_lock(&a->lock);
    }
}

static void list_unlock2(struct list *a, struct list *b) {
    pthread_mutex_unlock(&a->lock);
    if (a != b)
        pthread_mutex_unlock(&b->lock);
}

/* The element at end e of l (not empty): its bytes and its place. */
static const char *list_end_elem(struct list *l, enum list_end e, size_t *n) {
    struct lchunk *c = e == LIST_HEAD ? list_chunk_first(l->root) : list_chunk_last(l->root);
    const char *p;

    list_elem_read(c, list_chunk_at(c, e == LIST_HEAD ? 0 : c->count - 1), &p, n);
    return p;
}

/* The move itself, both lists locked (s may be d); see list_move. The
 * element is copied first: its bytes live in a chunk the push may
 * change. */
static enum list_result list_move_locked(struct list *s, enum list_end se, struct list *d,
                                         enum list_end de, char **copy, size_t *ncopy) {
    struct list_val v;
    uint64_t at;

    *copy = NULL;
    *ncopy = 0;
    if (s->closed || s->count == 0)
        return LIST_NOT_FOUND;
    if (d->closed)
        return LIST_GONE;
    if (d != s && d->opts.max_len != 0 && d->count >= d->opts.max_len)
        return LIST_FULL;
    v.p = list_end_elem(s, se, &v.n);
    *copy = malloc(list_elem_size(v.n));
    if (*copy == NULL)
        return LIST_NOMEM;
    list_elem_write(*copy, v.p, v.n);
    *ncopy = list_elem_size(v.n);
    list_unpack(*copy, 0, &v.p, &v.n);
    if (list_put_at(d, de == LIST_HEAD ? 0 : d->count, v.p, v.n) != LIST_OK) {
        free(*copy);
        *copy = NULL;
        *ncopy = 0;
        return LIST_NOMEM;
    }
    /* Where the element is now in s: a push at the head of s moved it. */
    if (se == LIST_HEAD)
        at = d == s && de == LIST_HEAD ? 1 : 0;
    else
        at = s->count - (d == s && de == LIST_TAIL ? 2 : 1);
    list_cut_at(s, at);
    llog_move(s, se, d, de, &v);
    if (d != s)                 /* (within s, the caller serves s's waiters) */
        list_serve(d);
    return LIST_OK;
}

enum list_result list_move(struct list *src, enum list_end se, struct list *dst, enum list_end de,
                           char **copy, size_t *ncopy) {
    enum list_result r;
    size_t n = 0;

    pthread_mutex_lock(&src->lock);
    if (!src->closed && src->count > 0)
        list_end_elem(src, se, &n);
    pthread_mutex_unlock(&src->lock);
    if (!list_room_for(list_elem_need(n))) {
        *copy = NULL;
        *ncopy = 0;
        return LIST_NOMEM;
    }
    list_lock2(src, dst);
    r = list_move_locked(src, se, dst, de, copy, ncopy);
    list_unlock2(src, dst);
    list_movers_drain();
    return r;
}

/* Mover w, the head waiter of s, is served (s and w->dst locked): it takes
 * the element, or learns why it could not (the element then stays for the
 * waiters behind it). */
static void list_mover_take(struct list *s, struct list_waiter *w, bool room) {
    list_unlist(s, w);
    w->ngot = 0;
    w->result = room ? list_move_locked(s, w->end, w->dst, w->dend, &w->got, &w->ngotbytes)
                     : LIST_NOMEM;
    if (w->result == LIST_OK)
        w->ngot = 1;
    w->wake(w);
}

void list_move_serve(struct list *l, struct list_waiter *w) {
    list_mover_take(l, w, true);
}

void list_movers_queue(struct list *l) {
    if (l->mq_queued)
        return;
    l->mq_queued = true;
    list_hold(l);
    pthread_mutex_lock(&list_mq_lock);
    l->mq_next = NULL;
    if (list_mq_tail != NULL)
        list_mq_tail->mq_next = l;
    else
        __atomic_store_n(&list_mq_head, l, __ATOMIC_RELAXED);   /* drain peeks without the lock */
    list_mq_tail = l;
    pthread_mutex_unlock(&list_mq_lock);
}

/* Serves the movers at the head of s until none is (or s is empty). The
 * room an element needs under -m is made before any lock is taken. */
static void list_movers_serve(struct list *s) {
    for (;;) {
        struct list_waiter *w;
        struct list *d;
        size_t n;
        bool room;

        pthread_mutex_lock(&s->lock);
        w = s->whead;
        if (s->closed || s->count == 0 || w == NULL || w->dst == NULL || w->dst == s) {
            s->mq_queued = false;
            list_serve(s);      /* pops, or a rotation, now at the head */
            pthread_mutex_unlock(&s->lock);
            return;
        }
        d = w->dst;
        list_hold(d);
        list_end_elem(s, w->end, &n);
        pthread_mutex_unlock(&s->lock);
        room = list_room_for(list_elem_need(n));
        list_lock2(s, d);
        w = s->whead;
        if (!s->closed && s->count > 0 && w != NULL && w->dst == d) {
            list_mover_take(s, w, room);
        }
        list_unlock2(s, d);
        list_let_go(d);
    }
}

void list_movers_drain(void) {
    for (;;) {
        struct list *l;

        if (__atomic_load_n(&list_mq_head, __ATOMIC_RELAXED) == NULL)
            return;
        pthread_mutex_lock(&list_mq_lock);
        l = list_mq_head;
        if (l != NULL) {
            __atomic_store_n(&list_mq_head, l->mq_next, __ATOMIC_RELAXED);
            if (l->mq_next == NULL)
                list_mq_tail = NULL;
        }
        pthread_mutex_unlock(&list_mq_lock);
        if (l == NULL)
            return;
        list_movers_serve(l);
        list_let_go(l);
    }
}
