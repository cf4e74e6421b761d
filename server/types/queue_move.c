/*
 * types/queue_move: messages going back where they can be delivered —
 * a dead-letter queue's redrive (each dead letter back to the queue it
 * came from, as beanstalkd's kick and SQS's redrive) and a queue's kick
 * (its buried messages ready again) — and the source table that lets a
 * dead letter name where it came from.
 *
 * The source table: a dead letter names its source queue by an index
 * (qmsg.src) into its queue's table of names, counted by the messages
 * that name each entry, so a million dead letters from one queue share
 * one copy of its name and an entry goes when its last message does.
 *
 * A redrive never holds two queue locks: it takes a batch of messages out
 * of the dead-letter queue (room kept there for them: move_reserved),
 * places each in its source under the source's lock, and gives back at
 * the end those that could not go, where they were in the order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "types/queue.h"
#include "types/queue_int.h"
#include "types/queue_persist.h"

#define QUEUE_MOVE_BATCH 256        /* most messages moved under one lock hold */

/* ---- the source table ---- */

uint32_t queue_src_ref(struct queue *q, const char *name, size_t n) {
    uint32_t i, free_slot = UINT32_MAX;
    struct queue_src *s;

    for (i = 0; i < q->nsrcs; i++) {
        s = q->srcs[i];
        if (s == NULL) {
            if (free_slot == UINT32_MAX)
                free_slot = i;
        } else if (s->nname == n && memcmp(s->name, name, n) == 0) {
            s->refs++;
            return i + 1;
        }
    }
    if (free_slot == UINT32_MAX) {
        struct queue_src **v = realloc(q->srcs, (q->nsrcs + 1) * sizeof(*v));
        if (v == NULL)
            return 0;
        q->srcs = v;
        v[q->nsrcs] = NULL;
        free_slot = q->nsrcs++;
        item_mem_charge((long)sizeof(*v));
    }
    s = malloc(sizeof(*s));
    if (s == NULL)
        return 0;
    s->refs = 1;
    s->nname = n;
    memcpy(s->name, name, n);
    q->srcs[free_slot] = s;
    item_mem_charge((long)sizeof(*s));
    return free_slot + 1;
}

void queue_src_unref(struct queue *q, uint32_t src) {
    struct queue_src *s;

    if (src == 0 || src > q->nsrcs || (s = q->srcs[src - 1]) == NULL)
        return;
    if (--s->refs > 0)
        return;
    q->srcs[src - 1] = NULL;
    item_mem_charge(-(long)sizeof(*s));
    free(s);
}

const struct queue_src *queue_src_get(const struct queue *q, uint32_t src) {
    if (src == 0 || src > q->nsrcs)
        return NULL;
    return q->srcs[src - 1];
}

void queue_src_free_all(struct queue *q) {
    uint32_t i;

    for (i = 0; i < q->nsrcs; i++) {
        if (q->srcs[i] != NULL) {
            item_mem_charge(-(long)sizeof(*q->srcs[i]));
            free(q->srcs[i]);
        }
    }
    item_mem_charge(-(long)(q->nsrcs * sizeof(*q->srcs)));
    free(q->srcs);
    q->srcs = NULL;
    q->nsrcs = 0;
}

/* ---- redrive ---- */

/* Room in l for more messages; q locked (a snapshot reads l under it). */
static bool queue_move_room(struct queue_move_list *l, size_t more) {
    size_t cap = l->cap;
    struct qmsg **v;
    uint32_t *src;

    if (l->n + more <= l->cap)
        return true;
    while (cap < l->n + more)
        cap = cap ? cap * 2 : QUEUE_MOVE_BATCH;
    v = realloc(l->v, cap * sizeof(*v));
    if (v != NULL)
        l->v = v;
    src = realloc(l->src, cap * sizeof(*src));
    if (src != NULL)
        l->src = src;
    if (v == NULL || src == NULL)
        return false;
    l->cap = cap;
    return true;
}

static void queue_move_register(struct queue *q, struct queue_move_list *l, bool on) {
    struct queue_move_list **p = &q->moving;

    if (on) {
        l->next = q->moving;
        q->moving = l;
        return;
    }
    while (*p != l)
        p = &(*p)->next;
    *p = l->next;
}

/* Takes up to max ready messages out of q onto out, keeping room in q's
 * ready heaps (ready_ttl too: a message pushed onto q with a ttl) for
 * each to come back; returns how many. */
static size_t queue_redrive_take(struct queue *q, size_t max, struct queue_move_list *out) {
    struct queue_dead_list dl;
    size_t n = 0, room;
    struct qmsg *m;

    queue_lock(q, clock_now_ms(), &dl);
    room = q->ready.n + q->move_reserved + max;    /* packed ones come back to the heaps */
    if (!q->closed && queue_move_room(out, max) && qheap_reserve(&q->ready, room) == 0 &&
        qheap_reserve(&q->ready_age, room) == 0 && queue_ttl_room(q, max) == 0) {
        while (n < max && (m = queue_ready_take(q)) != NULL) {
            m->state = QMSG_READY;
            out->v[out->n] = m;
            out->src[out->n++] = m->src;
            q->move_reserved++;
            n++;
        }
    }
    queue_unlock(q, &dl);
    return n;
}

/* Locks a and b (two queues) in address order, so that two redrives
 * meeting each other's queues cannot wait on each other. */
static void queue_lock_pair(struct queue *a, struct queue *b) {
    pthread_mutex_lock(&(a < b ? a : b)->lock);
    pthread_mutex_lock(&(a < b ? b : a)->lock);
}

/* Places l->v[i], out of dead-letter queue q on a redrive, in q's source
 * dest, both locked: ready now, its id, priority and data kept, its
 * delivery count and age starting again. One change for a snapshot: the
 * message is in q until this moment and in dest after it. */
static bool queue_redrive_place(struct queue *q, struct queue *dest, struct queue_move_list *l, size_t i) {
    struct qmsg *m = l->v[i], saved = *m;

    if (q->closed || dest->closed ||
        (dest->opts.max_length != 0 && queue_length(dest) >= dest->opts.max_length))
        return false;
    m->seq = dest->seq;
    m->deliveries = 0;
    m->first_delivery = m->last_delivery = 0;
    m->due_ms = 0;
    m->pushed_ms = clock_now_ms();
    m->src = 0;
    if (queue_ready_add(dest, m) < 0) {
        *m = saved;
        return false;
    }
    dest->seq++;
    dest->counts.pushed++;
    qlog_redrive(dest, q->name, q->nname, m);
    l->v[i] = NULL;
    q->move_reserved--;
    q->counts.redriven++;
    queue_src_unref(q, l->src[i]);
    queue_serve(dest);
    queue_update_due(dest);
    return true;
}

/* Sends l's messages from first on, out of dead-letter queue q, back to
 * their sources; returns how many went. */
static size_t queue_redrive_send(struct queue *q, struct queue_move_list *l, size_t first,
                                 queue_open_fn open) {
    size_t i, moved = 0;

    for (i = first; i < l->n; i++) {
        const struct queue_src *s;
        struct queue *dest;
        item *pin = NULL;
        /* The entry stays while l->v[i] holds its reference. */
        pthread_mutex_lock(&q->lock);
        s = queue_src_get(q, l->src[i]);
        pthread_mutex_unlock(&q->lock);
        if (s == NULL || (dest = open(s->name, s->nname, &pin)) == NULL)
            continue;
        if (dest != q) {
            queue_lock_pair(q, dest);
            moved += queue_redrive_place(q, dest, l, i);
            pthread_mutex_unlock(&dest->lock);
            pthread_mutex_unlock(&q->lock);
        }
        item_release(pin);
    }
    return moved;
}

/* Forgets the messages of l from first on that were placed. */
static void queue_redrive_compact(struct queue *q, struct queue_move_list *l, size_t first) {
    size_t i, kept = first;

    pthread_mutex_lock(&q->lock);
    for (i = first; i < l->n; i++) {
        if (l->v[i] != NULL) {
            l->v[kept] = l->v[i];
            l->src[kept++] = l->src[i];
        }
    }
    l->n = kept;
    pthread_mutex_unlock(&q->lock);
}

/* Gives the messages of l back to q's ready heaps, where they were in its
 * order (the room was kept), a batch at a time; with q deleted
 * meanwhile, they go with it. */
static void queue_redrive_return(struct queue *q, struct queue_move_list *l) {
    struct queue_dead_list dl;

    do {
        queue_lock(q, clock_now_ms(), &dl);
        while (l->n > 0) {
            struct qmsg *m = l->v[--l->n];
            q->move_reserved--;
            if (q->closed) {
                queue_src_unref(q, m->src);
                queue_msg_free(m);
            } else {
                queue_ready_add(q, m);
            }
            if (l->n % QUEUE_MOVE_BATCH == 0)
                break;
        }
        if (l->n == 0)
            queue_move_register(q, l, false);
        queue_unlock(q, &dl);
    } while (l->n > 0);
}

void queue_redrive(struct queue *q, uint64_t max, queue_open_fn open, uint64_t *moved, uint64_t *left) {
    struct queue_move_list l = { NULL, NULL, 0, 0, NULL };
    uint64_t tried = 0;

    *moved = 0;
    if (max > QUEUE_MOVE_MAX)
        max = QUEUE_MOVE_MAX;
    pthread_mutex_lock(&q->lock);
    queue_move_register(q, &l, true);
    pthread_mutex_unlock(&q->lock);
    while (tried < max) {
        size_t first = l.n;
        size_t want = max - tried < QUEUE_MOVE_BATCH ? (size_t)(max - tried) : QUEUE_MOVE_BATCH;
        size_t n = queue_redrive_take(q, want, &l);
        if (n == 0)
            break;
        tried += n;
        *moved += queue_redrive_send(q, &l, first, open);
        queue_redrive_compact(q, &l, first);
    }
    *left = l.n;
    queue_redrive_return(q, &l);
    free(l.v);
    free(l.src);
}

/* ---- kick ---- */

/* Makes the first buried message of q ready again; false when there is
 * none or no room for it in the ready heaps. q locked. */
static bool queue_kick_one(struct queue *q, uint64_t now) {
    struct qmsg *m = qheap_top(&q->buried);
    struct qmsg saved;

    if (m == NULL)
        return false;
    saved = *m;
    qheap_pop(&q->buried);
    m->deliveries = 0;
    m->first_delivery = m->last_delivery = 0;
    m->pushed_ms = now;
    m->due_ms = 0;
    m->state = QMSG_READY;
    if (queue_ready_add(q, m) < 0) {
        *m = saved;
        qheap_push(&q->buried, m);      /* the room it just left */
        return false;
    }
    q->counts.kicked++;
    qlog_kick(q, m);
    return true;
}

uint64_t queue_kick_buried(struct queue *q, uint64_t max) {
    struct queue_dead_list dl;
    uint64_t done = 0, now;
    bool more = true;
    int n;

    if (max > QUEUE_MOVE_MAX)
        max = QUEUE_MOVE_MAX;
    while (more && done < max) {
        now = clock_now_ms();
        queue_lock(q, now, &dl);
        for (n = 0; n < QUEUE_MOVE_BATCH && done < max && (more = queue_kick_one(q, now)); n++)
            done++;
        queue_unlock(q, &dl);
    }
    return done;
}
