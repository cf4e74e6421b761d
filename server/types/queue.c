/*
 * types/queue: queue state, its locking, leases, delays, dead letters,
 * waiters, and the one timer that drives every queue.
 *
 * Threads: the timer lives on the main thread's event base; another
 * thread that needs it earlier writes a byte to the main thread's kick
 * pipe instead of touching the base (libevent runs without locks). A heap
 * of the queues that have something due, by their next due time, tells
 * the timer which queues to catch up: a timer run costs O(log n) per due
 * queue, whatever the number of queues.
 *
 * Lock order: a queue's lock may be taken while holding nothing or the
 * registry lock (stats totals); the registry lock is never taken while a
 * queue lock is held. The timer heap's lock is taken last (under a queue
 * lock, to move that queue in it) and nothing is locked under it. The timer never touches a queue it has not first
 * pinned with a reference on the queue's item, so a queue deleted and
 * freed on another thread meanwhile is never used.
 */
#include <event2/event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/kick.h"
#include "base/reaper.h"
#include "base/stats.h"
#include "types/queue.h"
#include "types/queue_int.h"
#include "types/queue_names.h"
#include "types/queue_persist.h"

static pthread_mutex_t queue_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct queue *queue_reg;
static uint64_t queue_nqueues;
static uint64_t queue_ids;
static void (*queue_id_block_hook)(uint64_t upto);
static struct event *queue_timer;
static bool queue_frozen;           /* atomic: a replica's queues change only by records */
static struct kick queue_kick_w = { { -1, -1 }, NULL, NULL, NULL };
static pthread_t queue_main_thread;
static uint64_t queue_armed_at = UINT64_MAX;
static queue_dead_fn queue_dead_hook;

/* ---- message ids ---- */

static uint64_t queue_next_id(void) {
    uint64_t v = __atomic_add_fetch(&queue_ids, 1, __ATOMIC_RELAXED);

    if ((v & (QUEUE_ID_BLOCK - 1)) == 0 && queue_id_block_hook != NULL)
        queue_id_block_hook(v + QUEUE_ID_BLOCK);
    return v;
}

void queue_id_floor(uint64_t v) {
    uint64_t cur = __atomic_load_n(&queue_ids, __ATOMIC_RELAXED);

    while (cur < v && !__atomic_compare_exchange_n(&queue_ids, &cur, v, false,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void queue_on_id_block(void (*fn)(uint64_t upto)) {
    queue_id_block_hook = fn;
}

/* ---- ordering ---- */

static int queue_ready_less(const struct qmsg *a, const struct qmsg *b) {
    if (a->pri != b->pri)
        return a->pri < b->pri;
    return a->seq < b->seq;
}

static int queue_age_less(const struct qmsg *a, const struct qmsg *b) {
    return a->seq < b->seq;
}

static int queue_due_less(const struct qmsg *a, const struct qmsg *b) {
    if (a->due_ms != b->due_ms)
        return a->due_ms < b->due_ms;
    return a->seq < b->seq;
}

/* ---- the ready messages, by order and by age ---- */

/* 0, or -1 (nothing changed) when a heap cannot grow. */
int queue_ready_add(struct queue *q, struct qmsg *m) {
    size_t room = q->ready.n + q->move_reserved + 1;

    if (qheap_reserve(&q->ready_age, room) < 0 || qheap_reserve(&q->ready, room) < 0 ||
        queue_ttl_reserve(q, m) < 0 || qheap_push(&q->ready, m) < 0)
        return -1;
    qheap_push(&q->ready_age, m);
    queue_ttl_add(q, m);
    return 0;
}

size_t queue_ready_count(const struct queue *q) {
    return q->ready.n + q->pack.n;
}

/* Whether packed message e comes before heap message m (NULL: none) in
 * delivery order: priority, then push order. */
static bool queue_pack_first(const struct qpack_entry *e, const struct qmsg *m) {
    if (m == NULL || m->pri != QUEUE_DEFAULT_PRI)
        return m == NULL || m->pri > QUEUE_DEFAULT_PRI;
    return e->seq < m->seq;
}

bool queue_msg_from_pack(struct queue *q, const struct qpack_entry *e, struct qmsg *m) {
    item *it = item_alloc(q->name, q->nname, e->flags, 0, (size_t)e->len + 2);

    if (it == NULL)
        return false;
    if (e->len > 0)
        memcpy(item_value(it), e->data, e->len);
    memcpy(item_value(it) + e->len, "\r\n", 2);
    memset(m, 0, sizeof(*m));
    m->id = e->id;
    m->seq = e->seq;
    m->pushed_ms = e->pushed_ms;
    m->pri = QUEUE_DEFAULT_PRI;
    m->payload = it;
    m->state = QMSG_READY;
    return true;
}

/* The pack's head e as a message of its own, out of the pack: NULL (the
 * pack unchanged) without memory. */
static struct qmsg *queue_unpack_head(struct queue *q, const struct qpack_entry *e) {
    struct qmsg *m = malloc(sizeof(*m));

    if (m == NULL)
        return NULL;
    if (!queue_msg_from_pack(q, e, m)) {
        free(m);
        return NULL;
    }
    item_mem_charge((long)sizeof(*m));
    qpack_pop(&q->pack);
    return m;
}

struct qmsg *queue_ready_take(struct queue *q) {
    struct qmsg *m = qheap_top(&q->ready);
    struct qpack_entry e;

    if (qpack_head(&q->pack, &e) && queue_pack_first(&e, m))
        return queue_unpack_head(q, &e);
    if (m != NULL) {
        qheap_pop(&q->ready);
        qheap_remove(&q->ready_age, m);
        queue_ttl_remove(q, m);
    }
    return m;
}

/* The push time of the oldest ready message in *ms; false when none is
 * ready. The pack and the by-age heap are each in push order. */
static bool queue_oldest_ready(const struct queue *q, uint64_t *ms) {
    struct qmsg *a = qheap_top(&q->ready_age);
    struct qpack_entry e;
    bool packed = qpack_head(&q->pack, &e);

    if (a == NULL && !packed)
        return false;
    *ms = a == NULL || (packed && e.pushed_ms <= a->pushed_ms) ? e.pushed_ms : a->pushed_ms;
    return true;
}

/* ---- the in-flight id map ---- */

/* Fibonacci hashing: the top bits of id * 2^64/phi spread consecutive ids
 * evenly over the buckets (nbuckets is a power of two, at least 2). */
static struct qmsg **queue_id_bucket(struct queue *q, uint64_t id) {
    unsigned shift = 64 - (unsigned)__builtin_ctzll((unsigned long long)q->nbuckets);

    return &q->ids[(id * 0x9E3779B97F4A7C15ULL) >> shift];
}

struct qmsg **queue_id_slot(struct queue *q, uint64_t id) {
    struct qmsg **p = queue_id_bucket(q, id);

    while (*p != NULL && (*p)->id != id)
        p = &(*p)->id_next;
    return p;
}

/* Links m (whose id is not in the map) at the head of its bucket. */
static void queue_id_link(struct queue *q, struct qmsg *m) {
    struct qmsg **b = queue_id_bucket(q, m->id);

    m->id_next = *b;
    *b = m;
}

/* Rehashes the map into n buckets (a power of two); on no memory the map
 * stays as it is (its chains just get longer). */
static void queue_id_resize(struct queue *q, size_t n) {
    size_t old = q->nbuckets, i;
    struct qmsg **oldids = q->ids;
    struct qmsg **ids = calloc(n, sizeof(*ids));

    if (ids == NULL)
        return;
    q->ids = ids;
    q->nbuckets = n;
    for (i = 0; i < old; i++) {
        struct qmsg *m = oldids[i], *next;
        for (; m != NULL; m = next) {
            next = m->id_next;
            queue_id_link(q, m);
        }
    }
    free(oldids);
    item_mem_charge(((long)n - (long)old) * (long)sizeof(*ids));
}

/* Halves the map while an eighth of it or less is used: a burst of
 * in-flight messages does not keep its buckets once it is acked. */
static void queue_id_fit(struct queue *q) {
    size_t n = q->nbuckets;

    while (n > QUEUE_IDMAP_INIT && q->nids <= n / 8)
        n /= 2;
    if (n != q->nbuckets)
        queue_id_resize(q, n);
}

void queue_id_add(struct queue *q, struct qmsg *m) {
    if (q->nids >= q->nbuckets)
        queue_id_resize(q, q->nbuckets * 2);
    queue_id_link(q, m);
    q->nids++;
}

struct qmsg *queue_id_take(struct queue *q, uint64_t id) {
    struct qmsg **p = queue_id_slot(q, id);
    struct qmsg *m = *p;

    if (m != NULL) {
        *p = m->id_next;
        m->id_next = NULL;
        q->nids--;
        if (q->nbuckets > QUEUE_IDMAP_INIT && q->nids <= q->nbuckets / 8)
            queue_id_fit(q);
    }
    return m;
}

void queue_msg_detach(struct queue *q, struct qmsg *m) {
    switch (m->state) {
    case QMSG_READY:
        qheap_remove(&q->ready, m);
        qheap_remove(&q->ready_age, m);
        queue_ttl_remove(q, m);
        break;
    case QMSG_DELAYED: qheap_remove(&q->delayed, m); break;
    case QMSG_INFLIGHT: qheap_remove(&q->inflight, m); break;
    case QMSG_BURIED: qheap_remove(&q->buried, m); break;
    case QMSG_GROUPED: queue_group_unhold(q, m); break;
    }
}

/* ---- the timer heap: every queue that has something due, by when ---- */

struct queue_theap {
    struct queue **v;
    size_t n, cap;
};

static pthread_mutex_t queue_theap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct queue_theap queue_theap;

static void queue_theap_set(size_t i, struct queue *q) {
    queue_theap.v[i] = q;
    q->tpos = i;
}

static uint64_t queue_theap_due(size_t i) {
    return queue_theap.v[i]->theap_due;
}

static void queue_theap_up(size_t i) {
    struct queue *q = queue_theap.v[i];

    while (i > 0 && q->theap_due < queue_theap_due((i - 1) / 2)) {
        queue_theap_set(i, queue_theap.v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    queue_theap_set(i, q);
}

static void queue_theap_down(size_t i) {
    struct queue *q = queue_theap.v[i];
    uint64_t due = q->theap_due;

    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= queue_theap.n)
            break;
        if (child + 1 < queue_theap.n && queue_theap_due(child + 1) < queue_theap_due(child))
            child++;
        if (queue_theap_due(child) >= due)
            break;
        queue_theap_set(i, queue_theap.v[child]);
        i = child;
    }
    queue_theap_set(i, q);
}

static void queue_theap_remove(struct queue *q) {
    size_t i = q->tpos;

    q->tpos = QUEUE_NO_TIMER;
    __atomic_store_n(&q->theap_due, UINT64_MAX, __ATOMIC_RELAXED);
    if (--queue_theap.n == i)
        return;
    queue_theap_set(i, queue_theap.v[queue_theap.n]);
    queue_theap_down(i);
    queue_theap_up(queue_theap.v[i]->tpos);
}

/* Makes the timer heap visit q by next at the latest; its lock held.
 * Without memory to grow, q stays out and is caught up at its next use. */
static void queue_theap_update(struct queue *q, uint64_t next) {
    if (next >= q->theap_due)
        return;
    if (q->tpos == QUEUE_NO_TIMER) {
        if (queue_theap.n == queue_theap.cap) {
            size_t cap = queue_theap.cap ? queue_theap.cap * 2 : 64;
            struct queue **v = realloc(queue_theap.v, cap * sizeof(*v));
            if (v == NULL)
                return;
            queue_theap.v = v;
            queue_theap.cap = cap;
        }
        queue_theap_set(queue_theap.n++, q);
    }
    __atomic_store_n(&q->theap_due, next, __ATOMIC_RELAXED);
    queue_theap_up(q->tpos);
}

/* ---- the timer ---- */

/* Sets the timer for due; main thread only. */
static void queue_timer_set(uint64_t due) {
    uint64_t now = clock_now_ms();
    struct timeval tv;

    due = due > now ? due - now : 0;
    tv.tv_sec = (time_t)(due / 1000);
    tv.tv_usec = (suseconds_t)(due % 1000) * 1000;
    evtimer_add(queue_timer, &tv);
}

static bool queue_on_main(void) {
    return pthread_equal(pthread_self(), queue_main_thread);
}

/* Asks the main thread to re-arm the timer. */
static void queue_kick(void) {
    kick_send(&queue_kick_w);
}

static void queue_arm(uint64_t due) {
    uint64_t cur = __atomic_load_n(&queue_armed_at, __ATOMIC_ACQUIRE);

    do {
        if (due >= cur)
            return;
    } while (!__atomic_compare_exchange_n(&queue_armed_at, &cur, due, false,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (queue_on_main())
        queue_timer_set(due);
    else
        queue_kick();
}

/* When the oldest ready message reaches the queue's max_age_ms (UINT64_MAX:
 * no limit, or nothing ready); q locked. */
static uint64_t queue_age_due(const struct queue *q) {
    uint64_t oldest;

    if (q->opts.max_age_ms == 0 || !queue_oldest_ready(q, &oldest))
        return UINT64_MAX;
    return oldest + q->opts.max_age_ms;
}

/* Recomputes when q next needs the timer; q locked. */
void queue_update_due(struct queue *q) {
    struct qmsg *d = qheap_top(&q->delayed), *f = qheap_top(&q->inflight);
    uint64_t next = UINT64_MAX;

    if (d != NULL)
        next = d->due_ms;
    if (f != NULL && f->due_ms != QUEUE_HELD && f->due_ms < next)
        next = f->due_ms;
    if (q->buried.n > 0 && q->bury_retry_at < next)
        next = q->bury_retry_at;
    if (queue_age_due(q) < next)
        next = queue_age_due(q);
    if (queue_ttl_due(q) < next)
        next = queue_ttl_due(q);
    if (qdedup_next_expiry(&q->dedup) < next)
        next = qdedup_next_expiry(&q->dedup);
    if (q->paused_until != 0 && q->paused_until < next)
        next = q->paused_until;     /* its end serves the waiters */
    __atomic_store_n(&q->next_due, next, __ATOMIC_RELEASE);
    /* The heap only needs to hear of a time earlier than the one it has:
     * a later one is found when the timer visits (and finds nothing due). */
    if (next < __atomic_load_n(&q->theap_due, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&queue_theap_lock);
        queue_theap_update(q, next);
        pthread_mutex_unlock(&queue_theap_lock);
    }
    if (next != UINT64_MAX)
        queue_arm(next);
}

/* ---- waiters ---- */

/* Notes a delivery of m to holder at now, for qinfo. */
static void queue_note_delivery(struct qmsg *m, uint64_t holder, uint64_t now) {
    uint64_t after = now > m->pushed_ms ? now - m->pushed_ms : 0;

    m->last_delivery = after < UINT32_MAX - 1 ? (uint32_t)after + 1 : UINT32_MAX;
    if (m->first_delivery == 0)
        m->first_delivery = m->last_delivery;
    m->holder = holder;
}

/* Leases the first ready message into out; without memory (to track it
 * in flight, or to build it out of the pack) nothing moves and
 * out->payload is NULL. */
static void queue_lease(struct queue *q, uint64_t lease_ms, uint64_t holder, uint64_t now,
                        struct qdelivery *out) {
    struct qmsg *m;

    out->payload = NULL;
    if (qheap_reserve(&q->inflight, q->inflight.n + 1) < 0 || (m = queue_ready_take(q)) == NULL)
        return;
    queue_note_delivery(m, holder, now);
    m->deliveries++;
    m->due_ms = lease_ms == QUEUE_HELD ? QUEUE_HELD : now + lease_ms;
    m->state = QMSG_INFLIGHT;
    qheap_push(&q->inflight, m);        /* room was made above */
    queue_id_add(q, m);
    q->counts.popped++;
    qlog_state(q, m);
    out->id = m->id;
    out->deliveries = m->deliveries;
    out->lease_left_ms = lease_ms;
    out->payload = m->payload;
    item_incref(m->payload);
}

static void queue_unlist(struct queue *q, struct queue_waiter *w) {
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        q->whead = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
    else
        q->wtail = w->prev;
    w->prev = w->next = NULL;
    w->listed = false;
    q->nwaiters--;
}

bool queue_group_claim(struct queue_wait_group *g) {
    int free_ = 0;

    return __atomic_compare_exchange_n(&g->claimed, &free_, 1, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* Whether w may be served: it waits on this queue alone, or this queue
 * is the first to claim its group (another member was not served). */
static bool queue_waiter_claim(struct queue_waiter *w) {
    return w->group == NULL || queue_group_claim(w->group);
}

/* Whether q's pops are paused at now; q locked. */
static bool queue_paused(const struct queue *q, uint64_t now) {
    return q->paused_until > now;
}

/* Hands ready messages to waiters, first come first served; q locked. A
 * member of a group served by another queue is taken off, given nothing. */
void queue_serve(struct queue *q) {
    uint64_t now = clock_now_ms();

    if (queue_paused(q, now))
        return;

    while (q->whead != NULL && queue_ready_count(q) > 0) {
        struct queue_waiter *w = q->whead;
        queue_unlist(q, w);
        if (!queue_waiter_claim(w))
            continue;
        w->ngot = 0;
        while (w->ngot < w->want && queue_ready_count(q) > 0) {
            queue_lease(q, w->lease_ms, w->holder, now, &w->got[w->ngot]);
            if (w->got[w->ngot].payload == NULL)
                break;
            w->ngot++;
        }
        w->wake(w);
    }
}

/* Puts an in-flight message back: ready now, or delayed; q locked. */
void queue_requeue(struct queue *q, struct qmsg *m, uint64_t due_ms, uint64_t now) {
    m->due_ms = due_ms;
    m->state = due_ms > now ? QMSG_DELAYED : QMSG_READY;
    if ((m->state == QMSG_DELAYED ? qheap_push(&q->delayed, m) : queue_ready_add(q, m)) < 0) {
        /* Out of memory for the heap array: keep it in flight, due now. */
        m->state = QMSG_INFLIGHT;
        m->due_ms = now;
        qheap_push(&q->inflight, m);
        queue_id_add(q, m);
    }
}

/* Room in dl for one more, and in buried for every message on its way to
 * a dead-letter queue, so one that comes back can always be buried. */
bool queue_dead_room(struct queue *q, struct queue_dead_list *dl) {
    if (dl->n == dl->cap) {
        size_t cap = dl->cap ? dl->cap * 2 : 8;
        struct queue_dead *v = realloc(dl->v, cap * sizeof(*v));
        if (v == NULL)
            return false;
        dl->v = v;
        dl->cap = cap;
    }
    return qheap_reserve(&q->buried, q->buried.n + q->bury_reserved + 1) == 0;
}

/* Puts m on its way to the dead-letter queue; without room for that it
 * goes back to ready and tries again after its next delivery. */
void queue_dead_add(struct queue *q, struct qmsg *m, struct queue_dead_list *dl, uint64_t now) {
    if (!queue_dead_room(q, dl)) {
        queue_requeue(q, m, now, now);
        return;
    }
    queue_msg_forget_ttl(m);
    dl->v[dl->n].m = m;
    dl->v[dl->n].src = m->src;
    memcpy(dl->v[dl->n].dlq, q->opts.dlq, q->opts.ndlq);
    dl->v[dl->n].ndlq = q->opts.ndlq;
    dl->n++;
    q->bury_reserved++;
    q->counts.dead++;
    queue_group_left(q, m->id);     /* a dead letter leaves its group */
}

/* Offers due buried messages to their dead-letter queue again. q locked. */
static void queue_unbury(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    struct qmsg *m;
    int n = 0;

    if (q->buried.n == 0 || q->bury_retry_at > now)
        return;
    while (n++ < QUEUE_BURY_BATCH && (m = qheap_top(&q->buried)) != NULL) {
        if (!queue_dead_room(q, dl))
            break;
        qheap_pop(&q->buried);
        dl->v[dl->n].m = m;
        dl->v[dl->n].src = m->src;
        memcpy(dl->v[dl->n].dlq, q->opts.dlq, q->opts.ndlq);
        dl->v[dl->n].ndlq = q->opts.ndlq;
        dl->n++;
        q->bury_reserved++;
        q->counts.dead++;
    }
}

/* Sends off the oldest ready message (past the queue's max_age_ms):
 * false without room or memory to, tried again at the next catch-up. */
static bool queue_expire_aged_one(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    struct qmsg *m = qheap_top(&q->ready_age);
    struct qpack_entry e;

    if (!queue_expire_room(q, dl))
        return false;
    if (qpack_head(&q->pack, &e) && (m == NULL || e.pushed_ms <= m->pushed_ms)) {
        if ((m = queue_unpack_head(q, &e)) == NULL)
            return false;
    } else {
        queue_msg_detach(q, m);
    }
    q->counts.expired_age++;
    queue_expire_send(q, m, dl, now);
    return true;
}

/* Ready messages past the queue's max_age_ms or their own ttl, whichever
 * comes first, go to dl as dead letters past max_deliveries do, or are
 * dropped (queue_expire.c). A delayed one is checked when it comes due,
 * an in-flight one when its lease runs out or it is released. */
static void queue_expire_ready(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    if (__atomic_load_n(&queue_frozen, __ATOMIC_ACQUIRE))
        return;     /* a replica: expiries come as its primary's records */
    for (;;) {
        uint64_t age = queue_age_due(q), ttl = queue_ttl_due(q);
        if (age > now && ttl > now)
            return;
        if (!(ttl < age ? queue_expire_ttl_one(q, now, dl) : queue_expire_aged_one(q, now, dl)))
            return;
    }
}

/* Brings q up to now: due delays become ready, run-out leases go back to
 * ready or, past max_deliveries, to dl. Every access does this first, so
 * what a client sees never depends on when the timer last ran. q locked. */
static void queue_catch_up(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    struct qmsg *m;

    if (__atomic_load_n(&queue_frozen, __ATOMIC_ACQUIRE))
        return;     /* a replica: these changes come as its primary's records */

    while ((m = qheap_top(&q->delayed)) != NULL && m->due_ms <= now) {
        qheap_pop(&q->delayed);
        queue_requeue(q, m, now, now);
    }
    while ((m = qheap_top(&q->inflight)) != NULL && m->due_ms <= now) {
        qheap_pop(&q->inflight);
        queue_id_take(q, m->id);
        q->counts.expired++;
        if (q->opts.max_deliveries == 0 || m->deliveries < q->opts.max_deliveries) {
            queue_requeue(q, m, now, now);
            qlog_state(q, m);
        } else {
            queue_dead_add(q, m, dl, now);
        }
    }
    queue_expire_ready(q, now, dl);
    queue_unbury(q, now, dl);
    queue_group_retry(q);
    qdedup_expire(&q->dedup, now, QDEDUP_SWEEP_MAX);
    if (q->paused_until != 0 && q->paused_until <= now)
        q->paused_until = 0;        /* the pause is over: nothing to log */
}

/* Hands dead letters to the hook, with the queue lock not held (the
 * caller keeps q alive with a reference). Once one is refused the rest
 * are not offered: they would meet the same dead-letter queue. Refused
 * ones are buried in q (room was reserved), unless q has been deleted
 * meanwhile, in which case they go with it. Each was counted in `dead`
 * when it was sent off, before a reader of the dead-letter queue could
 * see it; a refused one is un-counted. */
/* debugdeadpause (tests, --debug): the next dead letters wait this long
 * on their way, out of every heap of their queue, before they are offered. */
static unsigned queue_dead_pause_ms;

void queue_debug_dead_pause(unsigned ms) {
    __atomic_store_n(&queue_dead_pause_ms, ms, __ATOMIC_RELAXED);
}

static void queue_bury(struct queue *q, struct queue_dead_list *dl) {
    unsigned pause = __atomic_exchange_n(&queue_dead_pause_ms, 0, __ATOMIC_RELAXED);
    uint64_t kept = 0;
    bool refused = false;
    size_t i;

    if (pause > 0)
        usleep(pause * 1000u);

    for (i = 0; i < dl->n; i++) {
        if (!refused && queue_dead_hook(q->name, q->nname, dl->v[i].dlq, dl->v[i].ndlq, dl->v[i].m)) {
            dl->v[i].m = NULL;      /* it left q: its source entry here goes */
        } else {
            refused = true;
            kept++;
        }
    }
    pthread_mutex_lock(&q->lock);
    q->counts.dead -= kept;
    q->bury_reserved -= dl->n;
    for (i = 0; i < dl->n; i++) {
        struct qmsg *m = dl->v[i].m;
        if (m == NULL) {
            queue_src_unref(q, dl->v[i].src);
            continue;
        }
        if (q->closed) {
            queue_msg_free(m);
            continue;
        }
        m->state = QMSG_BURIED;
        qheap_push(&q->buried, m);
        qlog_bury(q, m);
    }
    q->bury_retry_at = clock_now_ms() + (refused ? QUEUE_BURY_RETRY_MS : 0);
    queue_update_due(q);
    pthread_mutex_unlock(&q->lock);
    free(dl->v);
    dl->v = NULL;
    dl->n = dl->cap = 0;
}

void queue_lock(struct queue *q, uint64_t now, struct queue_dead_list *dl) {
    memset(dl, 0, sizeof(*dl));
    pthread_mutex_lock(&q->lock);
    queue_catch_up(q, now, dl);
}

/* Gives back the heaps' spare room once a burst has gone. At the end of
 * an operation no room is reserved but the room q keeps for messages out
 * on a move (ready) and for dead letters being placed (buried). q locked. */
static void queue_heaps_fit(struct queue *q) {
    qheap_fit(&q->ready, q->move_reserved);
    qheap_fit(&q->ready_age, q->move_reserved);
    qheap_fit(&q->ready_ttl, q->move_reserved);
    qheap_fit(&q->delayed, 0);
    qheap_fit(&q->inflight, 0);
    qheap_fit(&q->buried, q->bury_reserved);
}

void queue_unlock(struct queue *q, struct queue_dead_list *dl) {
    queue_expire_ready(q, clock_now_ms(), dl);  /* a release may have brought back an expired one */
    queue_serve(q);
    queue_update_due(q);
    queue_heaps_fit(q);
    pthread_mutex_unlock(&q->lock);
    if (dl->n > 0)
        queue_bury(q, dl);
    free(dl->v);
}

bool queue_wait(struct queue *q, struct queue_waiter *w) {
    struct queue_dead_list dl;

    queue_lock(q, clock_now_ms(), &dl);
    if (q->closed) {
        queue_unlock(q, &dl);
        return false;
    }
    w->next = NULL;
    w->prev = q->wtail;
    if (q->wtail != NULL)
        q->wtail->next = w;
    else
        q->whead = w;
    q->wtail = w;
    w->listed = true;
    q->nwaiters++;
    queue_unlock(q, &dl);
    return true;
}

bool queue_unwait(struct queue *q, struct queue_waiter *w) {
    bool was;

    pthread_mutex_lock(&q->lock);
    was = w->listed;
    if (was)
        queue_unlist(q, w);
    pthread_mutex_unlock(&q->lock);
    return was;
}

/* ---- life cycle ---- */

static void queue_free_unlisted(struct queue *q);

struct queue *queue_new(const char *name, size_t nname, const struct queue_opts *o, item *self) {
    struct queue *q = calloc(1, sizeof(*q));

    if (q == NULL)
        return NULL;
    q->ids = calloc(QUEUE_IDMAP_INIT, sizeof(*q->ids));
    if (q->ids == NULL) {
        free(q);
        return NULL;
    }
    q->nbuckets = QUEUE_IDMAP_INIT;
    q->nids = 0;
    item_mem_charge((long)(sizeof(*q) + q->nbuckets * sizeof(*q->ids)));
    pthread_mutex_init(&q->lock, NULL);
    memcpy(q->name, name, nname);
    q->nname = nname;
    q->opts = *o;
    qpack_init(&q->pack);
    qheap_init(&q->ready, queue_ready_less, offsetof(struct qmsg, hpos));
    qheap_init(&q->ready_age, queue_age_less, offsetof(struct qmsg, apos));
    queue_ttl_init(&q->ready_ttl);
    qheap_init(&q->delayed, queue_due_less, offsetof(struct qmsg, hpos));
    qheap_init(&q->inflight, queue_due_less, offsetof(struct qmsg, hpos));
    qheap_init(&q->buried, queue_ready_less, offsetof(struct qmsg, hpos));
    q->next_due = UINT64_MAX;
    q->theap_due = UINT64_MAX;
    q->tpos = QUEUE_NO_TIMER;
    q->self = self;
    if (queue_names_add(q) < 0) {
        queue_free_unlisted(q);
        return NULL;
    }
    pthread_mutex_lock(&queue_reg_lock);
    q->reg_next = queue_reg;
    if (queue_reg != NULL)
        queue_reg->reg_prev = q;
    queue_reg = q;
    queue_nqueues++;
    pthread_mutex_unlock(&queue_reg_lock);
    qlog_create(q);
    return q;
}

void queue_msg_free(struct qmsg *m) {
    item_release(m->payload);
    item_mem_charge(-(long)queue_msg_size(m));
    free(m);
}

static void queue_free_heap(struct qheap *h) {
    size_t i;

    for (i = 0; i < h->n; i++)
        queue_msg_free(h->v[i]);
    qheap_free(h);
}

/* Frees q and its messages, once it is in no list. */
static void queue_free_unlisted(struct queue *q) {
    qpack_clear(&q->pack);
    qheap_free(&q->ready_age);
    qheap_free(&q->ready_ttl);
    queue_free_heap(&q->ready);
    queue_free_heap(&q->delayed);
    queue_free_heap(&q->inflight);
    queue_free_heap(&q->buried);
    queue_group_free_all(q);
    queue_src_free_all(q);
    qdedup_free(&q->dedup);
    item_mem_charge(-(long)(sizeof(*q) + q->nbuckets * sizeof(*q->ids)));
    free(q->ids);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

/* Deleted queues and purged messages not yet freed by the reaper. Atomic. */
static uint64_t queue_nreclaiming;

/* The reaper frees a deleted queue and its messages. */
static void queue_reap(struct reaper_job *j) {
    queue_free_unlisted((struct queue *)((char *)j - offsetof(struct queue, reap)));
    __atomic_sub_fetch(&queue_nreclaiming, 1, __ATOMIC_RELAXED);
}

/* Takes q out of every table now; its memory goes on the reaper thread. */
void queue_free(struct queue *q) {
    queue_names_remove(q);
    pthread_mutex_lock(&queue_reg_lock);
    if (q->reg_prev != NULL)
        q->reg_prev->reg_next = q->reg_next;
    else
        queue_reg = q->reg_next;
    if (q->reg_next != NULL)
        q->reg_next->reg_prev = q->reg_prev;
    queue_nqueues--;
    pthread_mutex_unlock(&queue_reg_lock);
    pthread_mutex_lock(&queue_theap_lock);
    if (q->tpos != QUEUE_NO_TIMER)
        queue_theap_remove(q);
    if (queue_theap.n == 0) {   /* nothing due anywhere: give the array back */
        free(queue_theap.v);
        queue_theap.v = NULL;
        queue_theap.cap = 0;
    }
    pthread_mutex_unlock(&queue_theap_lock);
    __atomic_add_fetch(&queue_nreclaiming, 1, __ATOMIC_RELAXED);
    q->reap.run = queue_reap;
    reaper_put(&q->reap);
}

void queue_close(struct queue *q) {
    pthread_mutex_lock(&q->lock);
    if (!q->closed)
        qlog_drop(q);
    q->closed = true;
    while (q->whead != NULL) {
        struct queue_waiter *w = q->whead;
        queue_unlist(q, w);
        if (!queue_waiter_claim(w))
            continue;
        w->ngot = 0;
        w->wake(w);
    }
    pthread_mutex_unlock(&q->lock);
}

void queue_close_all(void) {
    struct queue *q;

    pthread_mutex_lock(&queue_reg_lock);
    for (q = queue_reg; q != NULL; q = q->reg_next)
        queue_close(q);
    pthread_mutex_unlock(&queue_reg_lock);
}

void queue_each_key(void (*fn)(const char *key, size_t nkey)) {
    struct queue *q;

    pthread_mutex_lock(&queue_reg_lock);
    for (q = queue_reg; q != NULL; q = q->reg_next)
        fn(q->name, q->nname);
    pthread_mutex_unlock(&queue_reg_lock);
}

/* Keeps only in-flight messages in q's id map (replay put every message
 * there); q locked. */
static void queue_rebuild_ids(struct queue *q) {
    size_t i;

    memset(q->ids, 0, q->nbuckets * sizeof(*q->ids));
    q->nids = 0;
    queue_id_fit(q);
    for (i = 0; i < q->inflight.n; i++)
        queue_id_add(q, q->inflight.v[i]);
}

static int queue_seq_cmp(const void *a, const void *b) {
    const struct qmsg *x = *(struct qmsg *const *)a, *y = *(struct qmsg *const *)b;

    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether ready message m is one a push would have packed. */
static bool queue_packable(const struct qmsg *m) {
    return m->pri == QUEUE_DEFAULT_PRI && m->deliveries == 0 && m->src == 0 && queue_msg_expires(m) == 0;
}

/* Replay restores every message whole, in the heaps: once it is done,
 * the ready ones a push would have packed go into the (empty) pack, in
 * push order while their ids rise. Those that cannot (a redriven one's
 * foreign id; all of them without memory) stay in the heaps, whose order
 * merges with the pack's. q locked. */
static void queue_repack(struct queue *q) {
    struct qmsg **v;
    size_t n = 0, i;

    if (q->ready.n == 0 || (v = malloc(q->ready.n * sizeof(*v))) == NULL)
        return;
    for (i = 0; i < q->ready.n; i++)
        if (queue_packable(q->ready.v[i]))
            v[n++] = q->ready.v[i];
    qsort(v, n, sizeof(*v), queue_seq_cmp);
    for (i = 0; i < n; i++) {
        struct qmsg *m = v[i];
        struct qpack_entry e = {
            .id = m->id, .seq = m->seq, .pushed_ms = m->pushed_ms, .flags = item_flags(m->payload),
            .len = m->payload->nbytes - 2, .data = (const uint8_t *)item_value(m->payload),
        };
        if (m->id <= q->pack.last_id || queue_group_of_head(q, m->id) != NULL)
            continue;
        if (qpack_push(&q->pack, &e) < 0)
            break;
        queue_msg_detach(q, m);
        queue_msg_free(m);
    }
    free(v);
}

/* The first message of q held by a Kestrel open read, or NULL. */
static struct qmsg *queue_held_msg(struct queue *q) {
    size_t i;

    for (i = 0; i < q->inflight.n; i++)
        if (q->inflight.v[i]->due_ms == QUEUE_HELD)
            return q->inflight.v[i];
    return NULL;
}

/* Messages a Kestrel open read held when the server stopped: the
 * connection that held each is gone, so it goes back to the queue as when
 * that connection closes (released, its delivery counted), by a record
 * (replicas apply it; the next start-up finds it back). q locked, before
 * its id map is rebuilt. */
static void queue_release_held(struct queue *q, uint64_t now) {
    struct qmsg *m;

    while ((m = queue_held_msg(q)) != NULL) {
        qheap_remove(&q->inflight, m);
        queue_requeue(q, m, now, now);
        q->counts.released++;
        qlog_state(q, m);
    }
}

void queue_persist_replay_done(void) {
    uint64_t now = clock_now_ms();
    struct queue *q;

    pthread_mutex_lock(&queue_reg_lock);
    for (q = queue_reg; q != NULL; q = q->reg_next) {
        pthread_mutex_lock(&q->lock);
        queue_release_held(q, now);
        queue_rebuild_ids(q);
        queue_repack(q);
        q->groups.nheadless = q->groups.n;  /* a group left without its head */
        queue_group_retry(q);
        q->replay_lsn = 0;
        queue_update_due(q);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_unlock(&queue_reg_lock);
}

size_t queue_length(const struct queue *q) {
    return queue_ready_count(q) + q->delayed.n + q->inflight.n + q->buried.n + q->move_reserved
           + q->groups.nheld;
}

const struct queue_opts *queue_options(const struct queue *q) {
    return &q->opts;
}

/* ---- operations ---- */

enum queue_result queue_push(struct queue *q, item *payload, uint32_t pri, uint64_t due_ms, uint64_t *id) {
    return queue_push_many(q, &payload, 1, pri, due_ms, id);
}

/* ---- several messages in one push ---- */

/* n new messages expiring at expires_ms (0: never), or none (NULL in
 * m[0]) without memory. */
static bool queue_new_msgs(struct qmsg **m, int n, uint64_t expires_ms) {
    int i;

    for (i = 0; i < n; i++) {
        if ((m[i] = queue_msg_alloc(expires_ms)) == NULL) {
            while (i > 0)
                free(m[--i]);
            return false;
        }
    }
    return true;
}

/* Room for n more messages in the heap(s) a push due at due_ms goes to
 * (ready_ttl too for messages with a ttl). */
static bool queue_push_room(struct queue *q, int n, bool delayed, bool ttl) {
    size_t room = q->ready.n + q->move_reserved + (size_t)n;

    if (delayed)
        return qheap_reserve(&q->delayed, q->delayed.n + (size_t)n) == 0;
    return qheap_reserve(&q->ready, room) == 0 && qheap_reserve(&q->ready_age, room) == 0 &&
           (!ttl || queue_ttl_room(q, (size_t)n) == 0);
}

/* What a push remembers of its deduplication id: the entry of each
 * message it pushes (NULL: none), made before anything changes, and when
 * they expire. */
struct queue_push_dedup {
    struct qdedup_entry *e[QUEUE_PUSH_MAX];
    uint64_t expires_ms;
};

/* Logs message m of a push (in group g, if any), remembered under its
 * entry i of pd (if any). */
static void queue_push_log(struct queue *q, const struct qmsg *m, const struct qgroup *g,
                           struct queue_push_dedup *pd, int i) {
    struct qdedup_entry *e = pd != NULL ? pd->e[i] : NULL;

    if (e != NULL) {
        qdedup_insert(&q->dedup, e, m->id, pd->expires_ms);
        pd->e[i] = NULL;
    }
    qlog_push(q, m, g, e);
}

/* Pushes n messages into the pack, all or none (q->seq, the counts and
 * the log change only once they are all in): false without memory. The
 * queue then owns the payloads, whose bytes were copied and released.
 * q locked. */
static bool queue_push_packed(struct queue *q, item **payloads, int n, uint64_t now, uint64_t *ids,
                              struct queue_push_dedup *pd) {
    struct qpack_mark mark;
    struct qmsg m;
    int i;

    qpack_mark(&q->pack, &mark);
    for (i = 0; i < n; i++) {
        struct qpack_entry e = {
            .id = queue_next_id(), .seq = q->seq + (uint64_t)i, .pushed_ms = now,
            .flags = item_flags(payloads[i]), .len = payloads[i]->nbytes - 2,
            .data = (const uint8_t *)item_value(payloads[i]),
        };
        if (qpack_push(&q->pack, &e) < 0) {
            qpack_rollback(&q->pack, &mark);
            return false;
        }
        ids[i] = e.id;
    }
    memset(&m, 0, sizeof(m));
    m.pri = QUEUE_DEFAULT_PRI;
    m.pushed_ms = now;
    m.state = QMSG_READY;
    for (i = 0; i < n; i++) {
        m.id = ids[i];
        m.seq = q->seq++;
        m.payload = payloads[i];
        q->counts.pushed++;
        queue_push_log(q, &m, NULL, pd, i);
        item_release(payloads[i]);
    }
    return true;
}

/* Whether a push of pri due at due_ms goes to the pack: ready now, at the
 * default priority, and no one waiting (a waiter takes it at once). */
static bool queue_packs(const struct queue *q, uint32_t pri, bool delayed) {
    return !delayed && pri == QUEUE_DEFAULT_PRI && q->whead == NULL;
}

/* Pushes n messages, expiring at expires_ms (0: never), into the heaps,
 * all or none, or into group grp (not NULL: ready now, or held behind the
 * group's head); q locked. */
static enum queue_result queue_push_heaps(struct queue *q, item **payloads, int n, uint32_t pri,
                                          uint64_t due_ms, uint64_t expires_ms, uint64_t now,
                                          uint64_t *ids, const struct queue_group_id *grp,
                                          struct queue_push_dedup *pd) {
    bool delayed = grp == NULL && due_ms > now;
    struct qmsg *m[QUEUE_PUSH_MAX];
    struct qgroup *g = NULL;
    int i;

    if (!queue_push_room(q, n, delayed, expires_ms != 0))
        return QUEUE_NOMEM;
    if (grp != NULL && (g = queue_group_prepare(q, grp->id, grp->n, n)) == NULL)
        return QUEUE_NOMEM;
    if (!queue_new_msgs(m, n, expires_ms)) {
        if (g != NULL)
            queue_group_unprepare(q, g);
        return QUEUE_NOMEM;
    }
    for (i = 0; i < n; i++) {
        m[i]->id = queue_next_id();
        m[i]->seq = q->seq++;
        m[i]->pri = pri;
        m[i]->due_ms = due_ms;
        m[i]->pushed_ms = now;
        m[i]->payload = payloads[i];
        m[i]->state = delayed ? QMSG_DELAYED : QMSG_READY;
        if (g != NULL)
            queue_group_add(q, g, m[i]);        /* room was made above */
        else if (delayed)
            qheap_push(&q->delayed, m[i]);
        else
            queue_ready_add(q, m[i]);
        item_mem_charge((long)queue_msg_size(m[i]));
        q->counts.pushed++;
        queue_push_log(q, m[i], g, pd, i);
        ids[i] = m[i]->id;
    }
    queue_serve(q);
    return QUEUE_OK;
}

/* Pushes n fresh messages (none of them a duplicate) living ttl_ms (0:
 * no limit); q locked. A message with a ttl is never packed. */
static enum queue_result queue_push_fresh(struct queue *q, item **payloads, int n, uint32_t pri,
                                          uint64_t due_ms, uint64_t ttl_ms, uint64_t *ids,
                                          const struct queue_group_id *grp,
                                          struct queue_push_dedup *pd) {
    uint64_t now = clock_now_ms();

    if (q->opts.max_length != 0 && queue_length(q) + (size_t)n > q->opts.max_length)
        return QUEUE_FULL;
    if (ttl_ms == 0 && grp == NULL && queue_packs(q, pri, due_ms > now))
        return queue_push_packed(q, payloads, n, now, ids, pd) ? QUEUE_OK : QUEUE_NOMEM;
    return queue_push_heaps(q, payloads, n, pri, due_ms, ttl_ms != 0 ? now + ttl_ms : 0, now, ids, grp, pd);
}

enum queue_result queue_push_many(struct queue *q, item **payloads, int n, uint32_t pri,
                                  uint64_t due_ms, uint64_t *ids) {
    return queue_push_dedup(q, payloads, n, pri, due_ms, NULL, NULL, ids, NULL);
}

enum queue_result queue_push_dedup(struct queue *q, item **payloads, int n, uint32_t pri,
                                   uint64_t due_ms, const struct queue_dedup_id *dd,
                                   const struct queue_group_id *grp, uint64_t *ids, bool *dup) {
    return queue_push_ttl(q, payloads, n, pri, due_ms, dd, grp, 0, ids, dup);
}

/* The entries of dd for the messages of a push that are not duplicates
 * (fresh[j] is message pos[j] of the push): false without memory, none
 * made. q locked. */
static bool queue_dedup_prepare(struct queue *q, const struct queue_dedup_id *dd, const int *pos,
                                int nfresh, struct queue_push_dedup *pd) {
    int j;

    pd->expires_ms = clock_now_ms() + q->opts.dedup_window_ms;
    if (nfresh > 0 && qdedup_reserve(&q->dedup) < 0)
        return false;
    for (j = 0; j < nfresh; j++) {
        if ((pd->e[j] = qdedup_entry_new(dd->id, dd->n, (uint8_t)pos[j])) == NULL) {
            while (j > 0)
                qdedup_entry_drop(pd->e[--j]);
            return false;
        }
    }
    return true;
}

/* Frees the entries a refused push did not insert. */
static void queue_dedup_unused(struct queue_push_dedup *pd, int n) {
    int j;

    for (j = 0; j < n; j++)
        if (pd->e[j] != NULL)
            qdedup_entry_drop(pd->e[j]);
}

enum queue_result queue_push_ttl(struct queue *q, item **payloads, int n, uint32_t pri,
                                 uint64_t due_ms, const struct queue_dedup_id *dd,
                                 const struct queue_group_id *grp, uint64_t ttl_ms,
                                 uint64_t *ids, bool *dup) {
    item *fresh[QUEUE_PUSH_MAX];
    uint64_t fids[QUEUE_PUSH_MAX];
    int pos[QUEUE_PUSH_MAX], nfresh = 0, i;
    struct queue_push_dedup pd;
    enum queue_result r;

    if (n < 1 || n > QUEUE_PUSH_MAX)
        return QUEUE_FULL;
    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return QUEUE_GONE;
    }
    for (i = 0; i < n; i++) {
        bool d = dd != NULL && qdedup_find(&q->dedup, dd->id, dd->n, (uint8_t)i, clock_now_ms(), &ids[i]);
        if (dup != NULL)
            dup[i] = d;
        if (!d) {
            pos[nfresh] = i;
            fresh[nfresh++] = payloads[i];
        }
    }
    r = QUEUE_OK;
    if (nfresh > 0 && dd != NULL && !queue_dedup_prepare(q, dd, pos, nfresh, &pd)) {
        r = QUEUE_NOMEM;
    } else if (nfresh > 0) {
        r = queue_push_fresh(q, fresh, nfresh, pri, due_ms, ttl_ms, fids, grp, dd != NULL ? &pd : NULL);
        if (dd != NULL && r != QUEUE_OK)
            queue_dedup_unused(&pd, nfresh);
    }
    if (r == QUEUE_OK) {
        for (i = 0; i < nfresh; i++)
            ids[pos[i]] = fids[i];
        q->counts.deduplicated += (uint64_t)(n - nfresh);
    }
    queue_update_due(q);
    pthread_mutex_unlock(&q->lock);
    return r;
}

enum queue_result queue_push_msg(struct queue *q, struct qmsg *m, const char *src, size_t nsrc) {
    enum queue_result r = QUEUE_OK;
    uint32_t src_ix = 0;

    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        r = QUEUE_GONE;
    } else if (q->opts.max_length != 0 && queue_length(q) >= q->opts.max_length) {
        r = QUEUE_FULL;
    } else if ((src_ix = queue_src_ref(q, src, nsrc)) == 0) {
        r = QUEUE_NOMEM;
    } else {
        m->seq = q->seq++;
        m->deliveries = 0;
        m->first_delivery = m->last_delivery = 0;
        m->due_ms = 0;
        m->pushed_ms = clock_now_ms();
        m->state = QMSG_READY;
        if (queue_ready_add(q, m) < 0) {
            queue_src_unref(q, src_ix);
            r = QUEUE_NOMEM;
        }
    }
    if (r == QUEUE_OK) {
        m->src = src_ix;
        q->counts.pushed++;
        qlog_dead(q, src, nsrc, m);
        queue_serve(q);
    }
    pthread_mutex_unlock(&q->lock);
    return r;
}

int queue_pop(struct queue *q, int max, uint64_t lease_ms, uint64_t holder, struct qdelivery *out) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    int n = 0;

    queue_lock(q, now, &dl);
    while (n < max && !queue_paused(q, now) && queue_ready_count(q) > 0) {
        queue_lease(q, lease_ms, holder, now, &out[n]);
        if (out[n].payload == NULL)
            break;
        n++;
    }
    queue_unlock(q, &dl);
    return n;
}

int queue_take(struct queue *q, struct qdelivery *out) {
    struct queue_dead_list dl;
    struct qmsg *m;

    queue_lock(q, clock_now_ms(), &dl);
    m = queue_paused(q, clock_now_ms()) ? NULL : queue_ready_take(q);
    if (m != NULL) {
        q->counts.popped++;
        q->counts.acked++;
        queue_src_unref(q, m->src);
        qlog_ack(q, m->id);
        queue_group_left(q, m->id);
        out->id = m->id;
        out->deliveries = m->deliveries + 1;
        out->lease_left_ms = 0;
        out->payload = m->payload;
        item_mem_charge(-(long)queue_msg_size(m));
        free(m);
    }
    queue_unlock(q, &dl);
    return m != NULL;
}

enum queue_result queue_pause(struct queue *q, uint64_t until_ms) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    enum queue_result r = QUEUE_GONE;

    queue_lock(q, now, &dl);
    if (!q->closed) {
        q->paused_until = until_ms > now ? until_ms : 0;
        qlog_pause(q);
        r = QUEUE_OK;
    }
    queue_unlock(q, &dl);       /* a resume serves the waiters now */
    return r;
}

/* The in-flight message r names, if the caller may act on it (see
 * queue_ack); q locked. */
static struct qmsg *queue_find_lease(struct queue *q, const struct qreceipt *r, bool held) {
    struct qmsg *m = *queue_id_slot(q, r->id);

    if (m == NULL || (r->delivery != 0 && m->deliveries != r->delivery))
        return NULL;
    if ((m->due_ms == QUEUE_HELD) != held)
        return NULL;
    return m;
}

/* Takes the message r names out of flight; q locked. */
static struct qmsg *queue_take_lease(struct queue *q, const struct qreceipt *r, bool held) {
    struct qmsg *m = queue_find_lease(q, r, held);

    if (m != NULL) {
        queue_id_take(q, m->id);
        qheap_remove(&q->inflight, m);
    }
    return m;
}

enum queue_result queue_ack(struct queue *q, const struct qreceipt *r, bool held) {
    struct queue_dead_list dl;
    struct qmsg *m;

    queue_lock(q, clock_now_ms(), &dl);
    m = queue_take_lease(q, r, held);
    if (m != NULL) {
        q->counts.acked++;
        queue_src_unref(q, m->src);
        qlog_ack(q, m->id);
        queue_group_left(q, m->id);
    }
    queue_unlock(q, &dl);
    if (m == NULL)
        return QUEUE_NOT_FOUND;
    queue_msg_free(m);
    return QUEUE_OK;
}

enum queue_result queue_release(struct queue *q, const struct qreceipt *r, bool held, uint64_t delay_ms) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    struct qmsg *m;

    queue_lock(q, now, &dl);
    m = queue_take_lease(q, r, held);
    if (m != NULL) {
        queue_requeue(q, m, now + delay_ms, now);
        q->counts.released++;
        qlog_state(q, m);
    }
    queue_unlock(q, &dl);
    return m != NULL ? QUEUE_OK : QUEUE_NOT_FOUND;
}

void queue_unlease(struct queue *q, const struct qreceipt *r) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    struct qmsg *m;

    queue_lock(q, now, &dl);
    m = *queue_id_slot(q, r->id);
    if (m != NULL && m->deliveries == r->delivery) {
        queue_id_take(q, m->id);
        qheap_remove(&q->inflight, m);
        m->deliveries--;
        if (m->deliveries == 0)
            m->first_delivery = m->last_delivery = 0;  /* never delivered after all */
        q->counts.popped--;
        queue_requeue(q, m, now, now);
        qlog_state(q, m);
    }
    queue_unlock(q, &dl);
}

enum queue_result queue_touch(struct queue *q, const struct qreceipt *r, bool held, uint64_t lease_ms) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    struct qmsg *m;

    queue_lock(q, now, &dl);
    m = queue_find_lease(q, r, held);
    if (m != NULL) {
        qheap_remove(&q->inflight, m);
        m->due_ms = lease_ms == QUEUE_HELD ? QUEUE_HELD : now + lease_ms;
        qheap_push(&q->inflight, m);
        qlog_state(q, m);
    }
    queue_unlock(q, &dl);
    return m != NULL ? QUEUE_OK : QUEUE_NOT_FOUND;
}

/* Frees m, out of every heap of q, its source entry and its place in a
 * group (every held message was purged first); q locked. */
static void queue_drop_msg(struct queue *q, struct qmsg *m) {
    queue_group_left(q, m->id);
    queue_src_unref(q, m->src);
    queue_msg_free(m);
}

/* A purge's messages on their way to the reaper. */
struct queue_bag {
    struct reaper_job reap;
    struct qpack pack;
    struct qheap ready, ready_age, delayed, buried;
};

static void queue_bag_reap(struct reaper_job *j) {
    struct queue_bag *b = (struct queue_bag *)j;

    qpack_clear(&b->pack);
    qheap_free(&b->ready_age);
    queue_free_heap(&b->ready);
    queue_free_heap(&b->delayed);
    queue_free_heap(&b->buried);
    free(b);
    __atomic_sub_fetch(&queue_nreclaiming, 1, __ATOMIC_RELAXED);
}

/* Moves h's messages into *into and leaves h empty, as made. */
static void queue_heap_hand_over(struct qheap *h, struct qheap *into) {
    *into = *h;
    qheap_init(h, into->less, into->pos_off);
}

/* Hands every ready, delayed and buried message of q to the reaper in
 * O(1): false (nothing done) when the queue keeps room in its heaps for
 * messages out on a move or a dead-letter placement, or counts where dead
 * letters came from (each message's source would have to be let go of
 * here), or has FIFO groups (each message's group likewise), or without
 * memory. q locked. */
static bool queue_purge_to_reaper(struct queue *q) {
    struct queue_bag *b;

    if (q->move_reserved > 0 || q->bury_reserved > 0 || q->nsrcs > 0 || q->groups.n > 0
        || (b = malloc(sizeof(*b))) == NULL)
        return false;
    b->pack = q->pack;
    q->pack.head = q->pack.tail = NULL;     /* its last id, seq and time stay */
    q->pack.n = 0;
    q->pack.bytes = 0;
    queue_heap_hand_over(&q->ready, &b->ready);
    queue_heap_hand_over(&q->ready_age, &b->ready_age);
    qheap_free(&q->ready_ttl);      /* its messages are in ready */
    queue_heap_hand_over(&q->delayed, &b->delayed);
    queue_heap_hand_over(&q->buried, &b->buried);
    __atomic_add_fetch(&queue_nreclaiming, 1, __ATOMIC_RELAXED);
    b->reap.run = queue_bag_reap;
    reaper_put(&b->reap);
    return true;
}

uint64_t queue_purge(struct queue *q) {
    uint64_t n;
    struct qmsg *m;

    pthread_mutex_lock(&q->lock);
    n = queue_ready_count(q) + q->delayed.n + q->buried.n + q->groups.nheld;
    if (!queue_purge_to_reaper(q)) {
        queue_group_purge(q);
        qpack_clear(&q->pack);
        while ((m = queue_ready_take(q)) != NULL)
            queue_drop_msg(q, m);
        while ((m = qheap_pop(&q->delayed)) != NULL)
            queue_drop_msg(q, m);
        while ((m = qheap_pop(&q->buried)) != NULL)
            queue_drop_msg(q, m);
    }
    q->counts.purged += n;
    qlog_purge(q);
    queue_update_due(q);
    queue_heaps_fit(q);
    pthread_mutex_unlock(&q->lock);
    return n;
}

/* The first heap messages of a peek, in order. */
struct queue_peek_list {
    struct qmsg **v;
    size_t n;
};

static void queue_peek_collect(struct qmsg *m, void *arg) {
    struct queue_peek_list *l = arg;

    l->v[l->n++] = m;
}

/* Calls fn on up to max ready messages in delivery order, merging the
 * heap's first ones with the pack's (each built for the call, then
 * released); stops early without memory. q locked. */
static void queue_peek_ready(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg),
                             void *arg) {
    struct queue_peek_list l = { NULL, 0 };
    size_t k = max < q->ready.n ? max : q->ready.n, i = 0, done = 0;
    struct qpack_iter it;
    struct qpack_entry e;
    bool packed;

    if (k > 0 && (l.v = malloc(k * sizeof(*l.v))) == NULL)
        return;
    qheap_first(&q->ready, k, queue_peek_collect, &l);
    qpack_iter_start(&q->pack, &it);
    packed = qpack_iter_next(&it, &e);
    for (; done < max && (packed || i < l.n); done++) {
        struct qmsg m;
        if (!packed || (i < l.n && !queue_pack_first(&e, l.v[i]))) {
            fn(l.v[i++], arg);
            continue;
        }
        if (!queue_msg_from_pack(q, &e, &m))
            break;
        fn(&m, arg);
        item_release(m.payload);
        packed = qpack_iter_next(&it, &e);
    }
    free(l.v);
}

void queue_peek(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg) {
    struct queue_dead_list dl;

    queue_lock(q, clock_now_ms(), &dl);
    queue_peek_ready(q, max, fn, arg);
    queue_unlock(q, &dl);
}

void queue_pending(struct queue *q, size_t max, void (*fn)(const struct qmsg *m, void *arg), void *arg) {
    struct queue_dead_list dl;

    queue_lock(q, clock_now_ms(), &dl);
    qheap_first(&q->inflight, max, (void (*)(struct qmsg *, void *))fn, arg);
    queue_unlock(q, &dl);
}

static void queue_stats_locked(struct queue *q, struct queue_stats *st, uint64_t now) {
    uint64_t oldest = 0;
    bool any = queue_oldest_ready(q, &oldest);

    *st = q->counts;
    st->ready = queue_ready_count(q);
    st->delayed = q->delayed.n;
    st->inflight = q->inflight.n;
    st->buried = q->buried.n;
    st->waiters = q->nwaiters;
    st->dedup_entries = q->dedup.n;
    st->paused_ms_left = queue_paused(q, now) ? q->paused_until - now : 0;
    st->grouped = q->groups.nheld;
    st->groups = q->groups.n;
    st->oldest_ready_ms = any && now > oldest ? now - oldest : 0;
}

void queue_get_stats(struct queue *q, struct queue_stats *st) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;

    queue_lock(q, now, &dl);
    queue_stats_locked(q, st, now);
    queue_unlock(q, &dl);
}

void queue_each_stats(queue_stats_fn fn, void *arg) {
    uint64_t now = clock_now_ms();
    struct queue *q;

    pthread_mutex_lock(&queue_reg_lock);
    for (q = queue_reg; q != NULL; q = q->reg_next) {
        struct queue_stats st;
        pthread_mutex_lock(&q->lock);
        queue_stats_locked(q, &st, now);
        pthread_mutex_unlock(&q->lock);
        fn(q->name, q->nname, &st, arg);
    }
    pthread_mutex_unlock(&queue_reg_lock);
}

static void queue_totals_add(const char *name, size_t nname, const struct queue_stats *st, void *arg) {
    struct queue_stats *total = arg;

    (void)name;
    (void)nname;
    total->ready += st->ready;
    total->delayed += st->delayed;
    total->inflight += st->inflight;
    total->buried += st->buried;
    total->waiters += st->waiters;
    total->pushed += st->pushed;
    total->popped += st->popped;
    total->acked += st->acked;
    total->released += st->released;
    total->expired += st->expired;
    total->dead += st->dead;
    total->purged += st->purged;
    total->expired_age += st->expired_age;
    total->expired_ttl += st->expired_ttl;
    total->dropped += st->dropped;
    total->redriven += st->redriven;
    total->kicked += st->kicked;
    total->grouped += st->grouped;
    total->groups += st->groups;
}

void queue_totals(struct queue_stats *total, uint64_t *nqueues) {
    memset(total, 0, sizeof(*total));
    pthread_mutex_lock(&queue_reg_lock);
    *nqueues = queue_nqueues;
    pthread_mutex_unlock(&queue_reg_lock);
    queue_each_stats(queue_totals_add, total);
}

/* ---- time: delays come due, leases run out ---- */

/* Takes the queues whose next event is due out of the timer heap, pinned
 * (a reference on each item; one being freed is skipped). */
static size_t queue_collect_due(uint64_t now, struct queue ***out) {
    size_t n = 0, cap = 0;

    *out = NULL;
    pthread_mutex_lock(&queue_theap_lock);
    while (queue_theap.n > 0 && queue_theap_due(0) <= now) {
        struct queue *q = queue_theap.v[0];
        if (n == cap) {
            struct queue **v = realloc(*out, (cap ? cap * 2 : 16) * sizeof(*v));
            if (v == NULL)
                break;      /* the rest stay in the heap for the next run */
            *out = v;
            cap = cap ? cap * 2 : 16;
        }
        queue_theap_remove(q);
        if (item_tryref(q->self))
            (*out)[n++] = q;
    }
    pthread_mutex_unlock(&queue_theap_lock);
    return n;
}

static uint64_t queue_earliest(void) {
    uint64_t next = UINT64_MAX;

    pthread_mutex_lock(&queue_theap_lock);
    if (queue_theap.n > 0)
        next = queue_theap_due(0);
    pthread_mutex_unlock(&queue_theap_lock);
    return next;
}

/* Catches up every queue that has something due; any thread. */
static void queue_run_due(void) {
    uint64_t now = clock_now_ms();
    struct queue_dead_list dl;
    struct queue **due;
    size_t n, i;

    __atomic_store_n(&queue_armed_at, UINT64_MAX, __ATOMIC_RELEASE);
    if (__atomic_load_n(&queue_frozen, __ATOMIC_ACQUIRE))
        return;     /* re-armed when thawed */
    n = queue_collect_due(now, &due);
    for (i = 0; i < n; i++) {
        queue_lock(due[i], now, &dl);
        queue_unlock(due[i], &dl);      /* puts it back in the heap if due later */
        item_release(due[i]->self);
    }
    free(due);
    queue_arm(queue_earliest());
}

void queue_set_frozen(bool on) {
    __atomic_store_n(&queue_frozen, on, __ATOMIC_RELEASE);
    if (!on)
        queue_arm(clock_now_ms());      /* what came due meanwhile runs now */
}

static void queue_on_timer(evutil_socket_t fd, short what, void *arg) {
    queue_run_due();
}

static void queue_on_kick(void *arg) {
    uint64_t due;

    (void)arg;
    due = __atomic_load_n(&queue_armed_at, __ATOMIC_ACQUIRE);
    if (due != UINT64_MAX)
        queue_timer_set(due);
}

/* `stats`: totals over every queue. */
static void queue_stats_emit(stats_emit_fn emit, void *ctx) {
    struct queue_stats q;
    uint64_t n;

    queue_totals(&q, &n);
    stats_emit_u64(emit, ctx, "queues", n);
    stats_emit_u64(emit, ctx, "queue_ready", q.ready);
    stats_emit_u64(emit, ctx, "queue_delayed", q.delayed);
    stats_emit_u64(emit, ctx, "queue_in_flight", q.inflight);
    stats_emit_u64(emit, ctx, "queue_buried", q.buried);
    stats_emit_u64(emit, ctx, "queue_waiters", q.waiters);
    stats_emit_u64(emit, ctx, "queue_pushed", q.pushed);
    stats_emit_u64(emit, ctx, "queue_popped", q.popped);
    stats_emit_u64(emit, ctx, "queue_acked", q.acked);
    stats_emit_u64(emit, ctx, "queue_released", q.released);
    stats_emit_u64(emit, ctx, "queue_lease_expired", q.expired);
    stats_emit_u64(emit, ctx, "queue_dead", q.dead);
    stats_emit_u64(emit, ctx, "queue_expired_ttl", q.expired_ttl);
    stats_emit_u64(emit, ctx, "queue_dropped", q.dropped);
    stats_emit_u64(emit, ctx, "queue_reclaiming", __atomic_load_n(&queue_nreclaiming, __ATOMIC_RELAXED));
    stats_emit_u64(emit, ctx, "queue_grouped", q.grouped);
    stats_emit_u64(emit, ctx, "queue_groups", q.groups);
}

static const struct stats_provider queue_stats_provider = { "queues", STATS_PLACE_MCDS, 10, queue_stats_emit };

void queue_system_init(struct event_base *timer_base, queue_dead_fn dead_hook) {
    stats_provide(&queue_stats_provider);
    queue_main_thread = pthread_self();
    queue_ids = 0;          /* message ids start anew with the keyspace (the fuzz harness rebuilds it) */
    queue_timer = evtimer_new(timer_base, queue_on_timer, NULL);
    kick_init(&queue_kick_w, timer_base, queue_on_kick, NULL);
    queue_dead_hook = dead_hook;
    queue_armed_at = UINT64_MAX;
    reaper_start();
}

void queue_system_shutdown(void) {
    if (queue_timer != NULL)
        event_free(queue_timer);
    kick_free(&queue_kick_w);
    queue_timer = NULL;
    reaper_stop();
}

/* debugtime moved the clock: everything now due happens before the verb
 * answers, so tests see its effects in order. */
void queue_clock_shifted(void) {
    if (queue_timer != NULL)
        queue_run_due();
}
