/*
 * lru: S3-FIFO's two queues, under one mutex, and each item's eviction
 * state.
 *
 * A queue is a list of places, oldest first: segments (seg.h), each
 * holding many small items in the order they entered, and large items,
 * each behind its own seg_node. A small item enters a queue by being
 * copied, as it is linked, into the segment the linking thread fills for
 * that queue (no lock but to start a segment); it goes back to a queue's
 * newest end the same way, so a second chance for a small item is one
 * copy, and the item a lookup finds changes address (hash_replace) with
 * nothing else about it changed. Taking an item out of the table leaves
 * a hole in its segment. The eviction scan walks a segment front to back,
 * item by item, and takes it out of its queue at its end (passing over a
 * segment another thread is still filling); the segment goes back to
 * malloc once its last item is released, or at once when every item it
 * held is gone.
 *
 * it->lru packs the state: the read count (2 bits), the extra trips taken
 * since the item's last read (2 bits), and whether it is in the main
 * queue. Reads never take the lock: they add to the count under the
 * item's stripe, which the eviction scan also holds (trylock) when it
 * reads or changes the state.
 */
#include <pthread.h>

#include "cache/ghost.h"
#include "cache/hash.h"
#include "cache/lru.h"
#include "cache/seg.h"
#include "base/stats.h"

#define LRU_READS 0x03
#define LRU_TRIP_ONE 0x04
#define LRU_TRIPS 0x0c
#define LRU_MAIN 0x10
#define LRU_SMALL_SHARE 10   /* the small queue gives above 1/10 of the bytes */
#define LRU_SCAN_MAX 64      /* items one scan looks at, at most */
#define LRU_HOLES_PER_TRY 64 /* holes a scan walks for each item it may look at */

enum lru_qid { LRU_Q_SMALL, LRU_Q_MAIN };

struct lru_queue {
    struct seg_node *oldest, *newest;
    size_t bytes;            /* its segments' and large items' bytes */
    size_t items;            /* items written to its sealed segments (holes
                                included) and its large items */
};

static pthread_mutex_t lru_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lru_queue lru_q[2];
/* The segment this thread fills for each queue (seg.h: its owner). */
static __thread struct seg *lru_open[2];

/* An eviction scan (lru_scan_tail). */
struct lru_scan {
    int tries;
    int holes;                  /* holes walked since the last try counted */
    bool advanced;              /* a hole or an item walked past */
    int (*pick)(item *it, void *arg);
    void *arg;
    struct seg_node *next;      /* the place the walk goes to next */
    int nmoved;
    item *moved[LRU_SCAN_MAX];  /* old copies of items moved in the table,
                                   whose table references go after */
};

/* The eviction scan under way (LRU lock held), NULL if none. */
static struct lru_scan *lru_cur_scan;

void lru_seg_empty(struct seg *s);

void lru_init(void) {
    lru_q[LRU_Q_SMALL] = (struct lru_queue){0};
    lru_q[LRU_Q_MAIN] = (struct lru_queue){0};
    item_on_seg_empty(lru_seg_empty);
}

static unsigned lru_reads(const item *it) { return it->lru & LRU_READS; }
static unsigned lru_trips(const item *it) { return (it->lru & LRU_TRIPS) / LRU_TRIP_ONE; }

static enum lru_qid lru_qid_of(const item *it) {
    return (it->lru & LRU_MAIN) ? LRU_Q_MAIN : LRU_Q_SMALL;
}

static void lru_push(enum lru_qid id, struct seg_node *n) {
    struct lru_queue *q = &lru_q[id];

    n->queue = (uint8_t)id;
    n->queued = true;
    n->newer = NULL;
    n->older = q->newest;
    if (q->newest != NULL)
        q->newest->newer = n;
    else
        q->oldest = n;
    q->newest = n;
}

static void lru_take_out(struct seg_node *n) {
    struct lru_queue *q = &lru_q[n->queue];

    if (n->older != NULL)
        n->older->newer = n->newer;
    else
        q->oldest = n->newer;
    if (n->newer != NULL)
        n->newer->older = n->older;
    else
        q->newest = n->older;
    n->newer = n->older = NULL;
    n->queued = false;
}

static void lru_set_queue_bit(item *it, enum lru_qid id) {
    if (id == LRU_Q_MAIN)
        it->lru |= LRU_MAIN;
    else
        it->lru &= (uint8_t)~LRU_MAIN;
}

/* No more items go into s; its queue counts the ones it holds. */
static void lru_seal_locked(struct seg *s) {
    if (seg_sealed(s))
        return;
    seg_seal(s);
    s->counted = __atomic_load_n(&s->items, __ATOMIC_RELAXED);
    lru_q[s->node.queue].items += s->counted;
}

/* s leaves its queue: back to malloc once its owner lets it go and its
 * last item is released. */
static void lru_dequeue_locked(struct seg *s) {
    struct lru_queue *q = &lru_q[s->node.queue];

    q->bytes -= seg_size();
    q->items -= s->counted;
    lru_take_out(&s->node);
    seg_dequeue(s);
}

/* This thread stops filling s. If every item of s is gone by then (a
 * release may count itself down while s is still owned), s leaves its
 * queue now, as no release will see to it; unless it is the place an
 * eviction scan walks next, which then passes it. */
static void lru_retire_locked(struct seg *s) {
    bool queued = s->node.queued;

    lru_seal_locked(s);
    seg_disown(s);          /* frees s if it is out of its queue and empty */
    if (queued && seg_live(s) == 0 && (lru_cur_scan == NULL || lru_cur_scan->next != &s->node))
        lru_dequeue_locked(s);
}

/* s (NULL: none could be had) becomes the segment this thread fills for
 * queue id. */
static struct seg *lru_open_new_locked(enum lru_qid id, struct seg *s) {
    if (lru_open[id] != NULL)
        lru_retire_locked(lru_open[id]);
    lru_open[id] = s;
    if (s != NULL) {
        lru_push(id, &s->node);
        lru_q[id].bytes += seg_size();
    }
    return s;
}

/* A large item enters queue id at its newest end. */
static void lru_push_large(enum lru_qid id, item *it) {
    lru_set_queue_bit(it, id);
    lru_push(id, seg_node_of(it));
    lru_q[id].bytes += item_size(it->nkey, it->nbytes);
    lru_q[id].items++;
}

static void lru_unqueue_large(item *it) {
    struct seg_node *n = seg_node_of(it);

    if (!n->queued)
        return;
    lru_q[n->queue].bytes -= item_size(it->nkey, it->nbytes);
    lru_q[n->queue].items--;
    lru_take_out(n);
}

/* A copy of small item it, with CAS number cas, at queue id's newest end,
 * or NULL if no segment can be had. Takes the LRU lock only to queue a new
 * segment (allocated before, so that no system call runs under the lock),
 * unless the caller, an eviction scan, holds it (locked). */
static item *lru_copy_in(enum lru_qid id, item *it, uint64_t cas, bool locked) {
    struct seg *s = lru_open[id];
    uint8_t was = it->lru;
    item *c;

    lru_set_queue_bit(it, id);
    if (s != NULL && (c = seg_append(s, it, cas)) != NULL)
        return c;
    if (locked) {
        s = lru_open_new_locked(id, seg_new());
    } else {
        s = seg_new();
        pthread_mutex_lock(&lru_lock);
        lru_open_new_locked(id, s);
        pthread_mutex_unlock(&lru_lock);
    }
    if (s != NULL && (c = seg_append(s, it, cas)) != NULL)
        return c;
    it->lru = was;
    return NULL;
}

item *lru_link(item *it, uint32_t hv) {
    enum lru_qid id = lru_qid_of(it);
    item *c;

    if (ghost_active()) {
        pthread_mutex_lock(&lru_lock);
        if (ghost_take(hv))
            id = LRU_Q_MAIN;
        pthread_mutex_unlock(&lru_lock);
    }
    if (item_has_flag(it, ITEM_NODE)) {
        pthread_mutex_lock(&lru_lock);
        lru_push_large(id, it);
        pthread_mutex_unlock(&lru_lock);
    } else if ((c = lru_copy_in(id, it, item_cas(it), false)) != NULL) {
        return c;
    }
    /* Large, or no segment to be had (malloc failed): it stays in its own
     * block; without a node it is never evicted. */
    item_set_flag(it, ITEM_LINKED);
    item_incref(it);
    return it;
}

void lru_unlink_locked(item *it) {
    if (item_has_flag(it, ITEM_NODE))
        lru_unqueue_large(it);
}

void lru_unlink(item *it) {
    if (!item_has_flag(it, ITEM_NODE))
        return;     /* a hole in its segment, or never queued */
    pthread_mutex_lock(&lru_lock);
    lru_unqueue_large(it);
    pthread_mutex_unlock(&lru_lock);
}

/* c takes its place in the table (stripe lock held); the bytes stat
 * follows its size. */
static void lru_replaced(item *it, item *c, uint32_t hv) {
    hash_replace(it, c, hv);
    item_clear_flag(it, ITEM_LINKED);
    stats_global_add(STATS_BYTES, (int64_t)item_bytes(c) - (int64_t)item_bytes(it));
}

item *lru_recas(item *it, uint32_t hv, uint64_t cas) {
    item *c = lru_copy_in(lru_qid_of(it), it, cas, false);

    if (c != NULL)
        lru_replaced(it, c, hv);
    return c;
}

void lru_follow(item *it, const item *old) {
    if (old->lru & LRU_MAIN)
        it->lru |= LRU_MAIN;
}

void lru_bump(item *it, rel_time_t now) {
    item_set_time(it, now);
    if (lru_reads(it) < LRU_READS_MAX)
        it->lru++;
}

/* it goes to queue id's newest end (LRU lock and stripe held, within an
 * eviction scan): a large item's node moves; a small item is copied there
 * and the copy takes its place in the table, it keeping the table's
 * reference for the scan to release once it has let the lock go. False
 * (nothing done) if no segment can be had. */
static bool lru_requeue(enum lru_qid id, item *it, uint32_t hv) {
    item *c;

    if (item_has_flag(it, ITEM_NODE)) {
        lru_unqueue_large(it);
        lru_push_large(id, it);
        return true;
    }
    if (!item_has_flag(it, ITEM_SEG) || lru_cur_scan == NULL ||
        lru_cur_scan->nmoved == LRU_SCAN_MAX || (c = lru_copy_in(id, it, item_cas(it), true)) == NULL)
        return false;
    lru_replaced(it, c, hv);
    lru_cur_scan->moved[lru_cur_scan->nmoved++] = it;
    stats_incr(STATS_ITEM_MOVES);
    return true;
}

bool lru_keep_locked(item *it, unsigned trips, uint32_t hv) {
    unsigned taken = lru_trips(it);
    uint8_t was = it->lru;

    if (!(it->lru & LRU_MAIN) && lru_reads(it) > 0) {
        it->lru &= (uint8_t)~(LRU_READS | LRU_TRIPS);
        if (lru_requeue(LRU_Q_MAIN, it, hv))
            return true;
    } else if (lru_reads(it) > 0) {
        it->lru = (uint8_t)((it->lru - 1) & ~LRU_TRIPS);
        if (lru_requeue(LRU_Q_MAIN, it, hv))
            return true;
    } else if (taken < trips && taken < LRU_TRIPS_MAX) {
        it->lru = (uint8_t)((it->lru & ~LRU_TRIPS) | (taken + 1) * LRU_TRIP_ONE);
        if (lru_requeue(lru_qid_of(it), it, hv))
            return true;
    }
    it->lru = was;
    return false;
}

bool lru_move_locked(item *it, uint32_t hv) {
    return lru_requeue(lru_qid_of(it), it, hv);
}

void lru_note_evicted_locked(const item *it, uint32_t hv) {
    if (!(it->lru & LRU_MAIN))
        ghost_add(hv, lru_q[LRU_Q_MAIN].items);
}

/* The queue an eviction takes from. */
static struct lru_queue *lru_giver(void) {
    struct lru_queue *s = &lru_q[LRU_Q_SMALL], *m = &lru_q[LRU_Q_MAIN];

    if (m->oldest == NULL)
        return s;
    if (s->oldest == NULL)
        return m;
    return s->bytes * LRU_SMALL_SHARE > s->bytes + m->bytes ? s : m;
}


/* Offers one linked item to pick: 1 if it was taken; 0, with *stuck, if
 * it is still linked where it was (its stripe busy, or not to be moved). */
static int lru_offer(struct lru_scan *sc, item *it, bool *stuck) {
    int found;

    sc->tries--;
    found = sc->pick(it, sc->arg);
    *stuck = !found && item_has_flag(it, ITEM_LINKED);
    return found;
}

/* Walks segment s from where its scan stands; takes it out of its queue
 * at its end. A segment another thread is filling is passed over; this
 * thread's own is sealed first (it starts another). */
static int lru_scan_segment(struct lru_scan *sc, struct seg *s) {
    enum lru_qid id = s->node.queue;
    bool stuck = false;
    int found = 0;
    item *it;

    if (!seg_sealed(s)) {
        if (s != lru_open[id] || seg_live(s) == 0)
            return 0;
        lru_seal_locked(s);
        seg_disown(s);      /* still queued: the walk passes it at its end */
        lru_open[id] = NULL;
    }
    while (!found && sc->tries > 0 && (it = seg_item_at(s, s->scan)) != NULL) {
        if (item_refs(it) != 0 && item_has_flag(it, ITEM_LINKED)) {
            found = lru_offer(sc, it, &stuck);
            if (stuck)
                return 0;   /* left for a later scan; the next place goes first */
        } else if (++sc->holes == LRU_HOLES_PER_TRY) {
            sc->holes = 0;
            sc->tries--;
        }
        s->scan += (uint32_t)seg_item_bytes(it);
        sc->advanced = true;
    }
    if (s->scan >= seg_used(s))
        lru_dequeue_locked(s);
    return found;
}

/* Walks queue q from its oldest end. */
static int lru_scan_queue(struct lru_scan *sc, struct lru_queue *q) {
    struct seg_node *n;
    bool stuck;
    int found = 0;

    for (n = q->oldest; n != NULL && !found && sc->tries > 0; n = sc->next) {
        sc->next = n->newer;
        if (n->kind == SEG_KIND_SEGMENT)
            found = lru_scan_segment(sc, (struct seg *)n);
        else if (item_has_flag(seg_node_item(n), ITEM_LINKED))
            found = lru_offer(sc, seg_node_item(n), &stuck);
    }
    sc->next = NULL;
    return found;
}

int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg) {
    struct lru_scan sc = {.tries = tries < LRU_SCAN_MAX ? tries : LRU_SCAN_MAX, .pick = pick, .arg = arg};
    struct lru_queue *q;
    int found, i;

    pthread_mutex_lock(&lru_lock);
    lru_cur_scan = &sc;
    q = lru_giver();
    found = lru_scan_queue(&sc, q);
    /* Nothing the giver could give (its places being filled or busy):
     * the other queue gives instead. */
    if (!found && !sc.advanced && sc.nmoved == 0 && sc.tries > 0)
        found = lru_scan_queue(&sc, q == &lru_q[LRU_Q_SMALL] ? &lru_q[LRU_Q_MAIN] : &lru_q[LRU_Q_SMALL]);
    lru_cur_scan = NULL;
    pthread_mutex_unlock(&lru_lock);
    for (i = 0; i < sc.nmoved; i++)
        item_release(sc.moved[i]);
    if (found)
        return LRU_SCAN_TAKEN;
    return sc.advanced || sc.nmoved > 0 ? LRU_SCAN_ADVANCED : LRU_SCAN_NOTHING;
}

/* Called (no LRU lock held) as the last live item of s, queued and
 * owned by no thread, is released: s leaves its queue at once. */
void lru_seg_empty(struct seg *s) {
    pthread_mutex_lock(&lru_lock);
    if (seg_drop_last(s) && seg_live(s) == 0)
        lru_dequeue_locked(s);
    pthread_mutex_unlock(&lru_lock);
}

void lru_thread_tick(void) {
    int id;

    for (id = LRU_Q_SMALL; id <= LRU_Q_MAIN; id++) {
        struct seg *s = lru_open[id];
        if (s == NULL || seg_live(s) != 0 || seg_used(s) == sizeof(*s))
            continue;
        /* Emptied: filled again from its start, and from its queue's
         * newest end, so that its next items are not taken for old. */
        pthread_mutex_lock(&lru_lock);
        seg_rewind(s);
        lru_take_out(&s->node);
        lru_push(id, &s->node);
        pthread_mutex_unlock(&lru_lock);
    }
}

void lru_thread_end(void) {
    int id;

    pthread_mutex_lock(&lru_lock);
    for (id = LRU_Q_SMALL; id <= LRU_Q_MAIN; id++) {
        if (lru_open[id] != NULL)
            lru_retire_locked(lru_open[id]);
        lru_open[id] = NULL;
    }
    pthread_mutex_unlock(&lru_lock);
}

/* Access time of the item a queue gives next, 0 if none. */
static rel_time_t lru_oldest_of(const struct lru_queue *q) {
    struct seg_node *n = q->oldest;
    item *it;

    if (n == NULL)
        return 0;
    if (n->kind == SEG_KIND_ITEM)
        return item_time(seg_node_item(n));
    if (!seg_sealed((struct seg *)n))
        return 0;
    it = seg_item_at((struct seg *)n, ((struct seg *)n)->scan);
    return it != NULL ? item_time(it) : 0;
}

rel_time_t lru_oldest_time(void) {
    rel_time_t s, m;

    pthread_mutex_lock(&lru_lock);
    s = lru_oldest_of(&lru_q[LRU_Q_SMALL]);
    m = lru_oldest_of(&lru_q[LRU_Q_MAIN]);
    pthread_mutex_unlock(&lru_lock);
    return s == 0 ? m : m == 0 || s < m ? s : m;
}

/* At shutdown, every item released and every other thread gone: the
 * segments go. */
void lru_destroy(void) {
    int id;

    lru_thread_end();
    for (id = LRU_Q_SMALL; id <= LRU_Q_MAIN; id++) {
        while (lru_q[id].oldest != NULL) {
            struct seg_node *n = lru_q[id].oldest;
            lru_take_out(n);
            if (n->kind == SEG_KIND_SEGMENT)
                seg_dequeue((struct seg *)n);
        }
    }
    lru_init();
    ghost_destroy();
}
