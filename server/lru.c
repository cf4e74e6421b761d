/*
 * lru: one doubly linked recency list under one mutex.
 *
 * Items enter at the head when stored. Hits never take the lock: they
 * set ITEM_ACTIVE, and the eviction scan gives active items a second
 * chance (CLOCK-style), so recently read items outlive untouched ones.
 */
#include <pthread.h>

#include "lru.h"

static pthread_mutex_t lru_lock = PTHREAD_MUTEX_INITIALIZER;
static item *lru_head;
static item *lru_tail;

void lru_init(void) {
    lru_head = lru_tail = NULL;
}

void lru_destroy(void) {
    lru_head = lru_tail = NULL;
}

static void lru_push_head(item *it) {
    it->prev = NULL;
    it->next = lru_head;
    if (lru_head != NULL)
        lru_head->prev = it;
    lru_head = it;
    if (lru_tail == NULL)
        lru_tail = it;
}

void lru_unlink_locked(item *it) {
    if (it->prev != NULL)
        it->prev->next = it->next;
    else if (lru_head == it)
        lru_head = it->next;
    if (it->next != NULL)
        it->next->prev = it->prev;
    else if (lru_tail == it)
        lru_tail = it->prev;
    it->prev = it->next = NULL;
}

void lru_link(item *it) {
    pthread_mutex_lock(&lru_lock);
    lru_push_head(it);
    pthread_mutex_unlock(&lru_lock);
}

void lru_unlink(item *it) {
    pthread_mutex_lock(&lru_lock);
    lru_unlink_locked(it);
    pthread_mutex_unlock(&lru_lock);
}

void lru_bump(item *it, rel_time_t now) {
    item_set_time(it, now);
    item_set_flag(it, ITEM_ACTIVE);
}

void lru_requeue_locked(item *it) {
    item_clear_flag(it, ITEM_ACTIVE);
    lru_unlink_locked(it);
    lru_push_head(it);
}

int lru_scan_tail(int tries, int (*pick)(item *it, void *arg), void *arg) {
    item *it, *prev;
    int found = 0;

    pthread_mutex_lock(&lru_lock);
    for (it = lru_tail; it != NULL && tries-- > 0; it = prev) {
        prev = it->prev;
        if (pick(it, arg)) {
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&lru_lock);
    return found;
}

rel_time_t lru_oldest_time(void) {
    rel_time_t t;

    pthread_mutex_lock(&lru_lock);
    t = lru_tail != NULL ? item_time(lru_tail) : 0;
    pthread_mutex_unlock(&lru_lock);
    return t;
}
