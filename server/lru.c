/*
 * lru: S3-FIFO's two queues, doubly linked lists under one mutex, and
 * each item's eviction state.
 *
 * Taking an item out of a list writes its two neighbours, random items
 * in memory, and the unlock that follows waits for those writes. A worker
 * therefore takes the old items of its replacements out in batches at the
 * end of its turn (lru_settle): their neighbours are fetched together, so
 * the waits overlap, under one hold of the lock. Until then a replaced
 * item stays in its queue, out of the table (not ITEM_LINKED): the
 * eviction scan passes over it.
 *
 * it->lru packs the state: the read count (2 bits), the extra trips taken
 * since the item's last read (2 bits), and whether it is in the main
 * queue. Reads never take the lock: they add to the count under the
 * item's stripe, which the eviction scan also holds (trylock) when it
 * reads or changes the state.
 */
#include <pthread.h>

#include "ghost.h"
#include "lru.h"

#define LRU_READS 0x03
#define LRU_TRIP_ONE 0x04
#define LRU_TRIPS 0x0c
#define LRU_MAIN 0x10
#define LRU_SMALL_SHARE 10   /* the small queue gives above 1/10 of the bytes */
#define LRU_BATCH 16         /* replaced items a thread holds before settling */
#define LRU_BATCH_SIZE 1024  /* larger items are taken out at once */

struct lru_queue {
    item *head;
    item *tail;
    size_t bytes;            /* item_size() of its items */
    size_t items;
};

static pthread_mutex_t lru_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lru_queue lru_small, lru_main;

/* A thread's replaced items waiting to leave their queues. */
static __thread struct {
    bool on;
    int n;
    item *v[LRU_BATCH];
} lru_batch;

void lru_init(void) {
    lru_small = (struct lru_queue){0};
    lru_main = (struct lru_queue){0};
}

void lru_destroy(void) {
    lru_init();
    ghost_destroy();
}

static unsigned lru_reads(const item *it) { return it->lru & LRU_READS; }
static unsigned lru_trips(const item *it) { return (it->lru & LRU_TRIPS) / LRU_TRIP_ONE; }

static struct lru_queue *lru_queue_of(const item *it) {
    return (it->lru & LRU_MAIN) ? &lru_main : &lru_small;
}

static inline void lru_push_head(struct lru_queue *q, item *it) {
    if (q == &lru_main)
        it->lru |= LRU_MAIN;
    else
        it->lru &= (uint8_t)~LRU_MAIN;
    it->prev = NULL;
    it->next = q->head;
    if (q->head != NULL)
        q->head->prev = it;
    q->head = it;
    if (q->tail == NULL)
        q->tail = it;
    q->bytes += item_size(it->nkey, it->nbytes);
    q->items++;
}

static inline void lru_remove(item *it) {
    struct lru_queue *q = lru_queue_of(it);

    if (it->prev == NULL && it->next == NULL && q->head != it)
        return;                      /* not in a queue */
    if (it->prev != NULL)
        it->prev->next = it->next;
    else
        q->head = it->next;
    if (it->next != NULL)
        it->next->prev = it->prev;
    else
        q->tail = it->prev;
    it->prev = it->next = NULL;
    q->bytes -= item_size(it->nkey, it->nbytes);
    q->items--;
}

void lru_unlink_locked(item *it) {
    lru_remove(it);
}

static void lru_link_locked(item *it, uint32_t hv) {
    if (ghost_take(hv))
        it->lru |= LRU_MAIN;
    lru_push_head(lru_queue_of(it), it);
}

void lru_link(item *it, uint32_t hv) {
    pthread_mutex_lock(&lru_lock);
    lru_link_locked(it, hv);
    pthread_mutex_unlock(&lru_lock);
}

void lru_replace(item *old, item *it, uint32_t hv) {
    bool later = lru_batch.on && item_size(old->nkey, old->nbytes) <= LRU_BATCH_SIZE;

    pthread_mutex_lock(&lru_lock);
    if (!later)
        lru_remove(old);
    lru_link_locked(it, hv);
    pthread_mutex_unlock(&lru_lock);
    if (!later) {
        item_release(old);
        return;
    }
    lru_batch.v[lru_batch.n++] = old;
    if (lru_batch.n == LRU_BATCH)
        lru_settle();
}

void lru_thread_settles(void) {
    lru_batch.on = true;
}

/* A prefetch, for writing, of the neighbours of it, read without the LRU lock:
 * a stale address only fetches a useless line. */
__attribute__((no_sanitize("thread")))
static void lru_prefetch_neighbours(const item *it) {
    const volatile item *v = it;

    __builtin_prefetch(v->prev, 1);
    __builtin_prefetch(v->next, 1);
}

void lru_settle(void) {
    int i, n = lru_batch.n;

    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        lru_prefetch_neighbours(lru_batch.v[i]);
    pthread_mutex_lock(&lru_lock);
    for (i = 0; i < n; i++)
        lru_remove(lru_batch.v[i]);
    pthread_mutex_unlock(&lru_lock);
    lru_batch.n = 0;
    for (i = 0; i < n; i++)
        item_release(lru_batch.v[i]);
}

void lru_unlink(item *it) {
    pthread_mutex_lock(&lru_lock);
    lru_remove(it);
    pthread_mutex_unlock(&lru_lock);
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

/* Back to the head of q with no extra trips taken (a read starts the
 * count again). */
static void lru_requeue(struct lru_queue *q, item *it) {
    lru_unlink_locked(it);
    it->lru &= (uint8_t)~LRU_TRIPS;
    lru_push_head(q, it);
}

bool lru_keep_locked(item *it, unsigned trips) {
    unsigned taken = lru_trips(it);

    if (!(it->lru & LRU_MAIN) && lru_reads(it) > 0) {
        it->lru &= (uint8_t)~LRU_READS;
        lru_requeue(&lru_main, it);
    } else if (lru_reads(it) > 0) {
        it->lru--;
        lru_requeue(&lru_main, it);
    } else if (taken < trips && taken < LRU_TRIPS_MAX) {
        lru_requeue(lru_queue_of(it), it);
        it->lru += (uint8_t)((taken + 1) * LRU_TRIP_ONE);
    } else {
        return false;
    }
    return true;
}

void lru_note_evicted_locked(const item *it, uint32_t hv) {
    if (!(it->lru & LRU_MAIN))
        ghost_add(hv, lru_main.items);
}

/* The queue an eviction takes from. */
static struct lru_queue *lru_giver(void) {
    if (lru_main.tail == NULL)
        return &lru_small;
    if (lru_small.tail == NULL)
        return &lru_main;
    return lru_small.bytes * LRU_SMALL_SHARE > lru_small.bytes + lru_main.bytes ? &lru_small
                                                                                  : &lru_main;
}

int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg) {
    item *it, *prev;
    int found = 0;

    pthread_mutex_lock(&lru_lock);
    for (it = lru_giver()->tail; it != NULL && tries > 0; it = prev) {
        prev = it->prev;
        if (!item_has_flag(it, ITEM_LINKED))
            continue;       /* replaced, leaving with its thread's lru_settle */
        tries--;
        if (pick(it, arg)) {
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&lru_lock);
    return found;
}

static rel_time_t lru_tail_time(const struct lru_queue *q) {
    return q->tail != NULL ? item_time(q->tail) : 0;
}

rel_time_t lru_oldest_time(void) {
    rel_time_t s, m;

    pthread_mutex_lock(&lru_lock);
    s = lru_tail_time(&lru_small);
    m = lru_tail_time(&lru_main);
    pthread_mutex_unlock(&lru_lock);
    return s == 0 ? m : m == 0 || s < m ? s : m;
}
