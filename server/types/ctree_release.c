/*
 * types/ctree_release: deleted tree-counter subtrees after their delete
 * answered (ctree_int.h). The delete took out, at once, everything a
 * reader can see; here are the subtrees still holding memory, released
 * leaves first in bounded steps, each its own short hold of the ctree
 * lock, from a timer on the main thread (woken through a pipe when a
 * delete adds a subtree); the graves, released objects whose keys are
 * still to leave the keyspace (unlinked with no lock held); and the wait
 * of a reader that needs every release over (ctree_wrlock_released).
 */
#include <event2/event.h>
#include <stdint.h>

#include "base/kick.h"
#include "types/ctree.h"
#include "types/ctree_int.h"

/* Objects released per step (about 0.15 ms of the lock), and keys of
 * released objects unlinked per step. Steps are at least a millisecond
 * apart: back to back, the main thread took a whole core and increments
 * of other trees waited for one (doc/performance.md, "Tree counters"). */
#define CTREE_RELEASE_BATCH 256
#define CTREE_GRAVE_BATCH 256
#define CTREE_RELEASE_GAP_US 1000

uint64_t ctree_nreleasing;
static struct ctree_obj *ctree_deleted;     /* roots of subtrees to release, by grave_next */
static struct ctree_obj *ctree_graves;      /* released, keys still to go; each holds a reference */
static int64_t ctree_hold = -1;             /* debugctreehold: objects still released; -1: no hold */
static struct event *ctree_rel_timer;
static struct kick ctree_rel_kick = { { -1, -1 }, NULL, NULL, NULL };

/* ---- releasing (exclusive lock held) ---- */

static void ctree_grave_push(struct ctree_obj *o) {
    o->grave_next = ctree_graves;
    ctree_graves = o;
}

/* Releases up to max objects of the first deleted subtree, leaves first,
 * its root last (the subtree then leaves the list): how many. */
static size_t ctree_release_subtree(size_t max) {
    struct ctree_obj *root = ctree_deleted, *o = root;
    size_t n = 0;

    while (n < max) {
        struct ctree_obj *up;
        while (o->first_child != NULL)
            o = o->first_child;
        up = o->parent;
        ctree_retire(o);
        n++;
        if (o == root) {
            ctree_deleted = root->grave_next;
            ctree_grave_push(root);     /* the list's reference goes with it */
            break;
        }
        /* Its key still to leave the keyspace: a reference for the grave.
         * Unless the last one already went (a flush or delete of its key
         * on another thread, whose ctree_obj_free waits for this lock and
         * will find it released): no grave, and no reference taken on an
         * item that is being freed. */
        if (item_tryref(o->self))
            ctree_grave_push(o);
        o = up;
    }
    return n;
}

static size_t ctree_release_locked(size_t max) {
    size_t n = 0;

    while (n < max && ctree_deleted != NULL)
        n += ctree_release_subtree(max - n);
    return n;
}

/* ---- the main thread's timer ---- */

/* Asks the main thread for a step soon (the tick arms the timer too). */
static void ctree_release_kick(void) {
    kick_send(&ctree_rel_kick);
}

void ctree_release_add(struct ctree_obj *root) {
    bool first = ctree_deleted == NULL;     /* else a step is due already */

    item_incref(root->self);
    root->grave_next = ctree_deleted;
    ctree_deleted = root;
    ctree_nreleasing += root->nsub;
    if (first)
        ctree_release_kick();
}

/* Unlinks a batch of graves' keys (a key still holding that very item
 * goes) and lets their items go, with no lock held: whether more wait. */
static bool ctree_bury(void) {
    struct ctree_obj *batch[CTREE_GRAVE_BATCH];
    size_t n = 0, i;
    bool more;

    pthread_rwlock_wrlock(&ctree_lock);
    while (ctree_graves != NULL && n < CTREE_GRAVE_BATCH) {
        batch[n++] = ctree_graves;
        ctree_graves = ctree_graves->grave_next;
    }
    more = ctree_graves != NULL;
    pthread_rwlock_unlock(&ctree_lock);
    for (i = 0; i < n; i++) {
        ctree_key_unlink(batch[i]->self);
        item_release(batch[i]->self);
    }
    return more;
}

/* One step: a batch released (fewer under a debug hold), then a batch
 * of keys unlinked. Whether anything is left to do. */
static bool ctree_release_step(size_t batch) {
    bool more;
    size_t n;

    pthread_rwlock_wrlock(&ctree_lock);
    if (ctree_hold >= 0 && (uint64_t)ctree_hold < batch)
        batch = (size_t)ctree_hold;
    n = ctree_release_locked(batch);
    if (ctree_hold >= 0)
        ctree_hold -= (int64_t)n;
    more = ctree_deleted != NULL && ctree_hold != 0;
    pthread_rwlock_unlock(&ctree_lock);
    return ctree_bury() || more;
}

/* The next step in gap_us (0: on the main thread's next turn). */
static void ctree_release_arm(long gap_us) {
    struct timeval tv = { 0, gap_us };

    evtimer_add(ctree_rel_timer, &tv);
}

static void ctree_release_on_timer(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    if (ctree_release_step(CTREE_RELEASE_BATCH))
        ctree_release_arm(CTREE_RELEASE_GAP_US);
}

static void ctree_release_on_kick(void *arg) {
    (void)arg;
    if (!evtimer_pending(ctree_rel_timer, NULL))
        ctree_release_arm(0);
}

void ctree_release_tick(void) {
    if (ctree_rel_timer == NULL) {
        while (ctree_release_step(SIZE_MAX))
            continue;
    } else if (!evtimer_pending(ctree_rel_timer, NULL)) {
        ctree_release_arm(0);
    }
}

void ctree_release_init(struct event_base *base) {
    if (base == NULL)
        return;
    ctree_rel_timer = evtimer_new(base, ctree_release_on_timer, NULL);
    if (ctree_rel_timer != NULL)
        kick_init(&ctree_rel_kick, base, ctree_release_on_kick, NULL);
}

/* ---- readers that need the release over ---- */

void ctree_wrlock_released(void) {
    uint64_t steps;

    pthread_rwlock_wrlock(&ctree_lock);
    steps = ctree_nreleasing / CTREE_RELEASE_BATCH + 2;     /* then what deletes added meanwhile, at once */
    while (ctree_deleted != NULL && steps-- > 0) {
        ctree_release_locked(CTREE_RELEASE_BATCH);
        pthread_rwlock_unlock(&ctree_lock);
        pthread_rwlock_wrlock(&ctree_lock);
    }
    ctree_release_locked(SIZE_MAX);
}

void ctree_release_finish(void) {
    ctree_wrlock_released();
    pthread_rwlock_unlock(&ctree_lock);
    while (ctree_bury())
        continue;
}

void ctree_debug_hold(int64_t n) {
    pthread_rwlock_wrlock(&ctree_lock);
    ctree_hold = n < 0 ? -1 : n;
    pthread_rwlock_unlock(&ctree_lock);
    ctree_release_kick();
}

/* ---- shutdown ---- */

/* Lets go of the references a list holds (no lock: no other thread runs). */
static void ctree_release_let_go(struct ctree_obj **list) {
    while (*list != NULL) {
        struct ctree_obj *o = *list;
        *list = o->grave_next;
        item_release(o->self);
    }
}

void ctree_release_shutdown(void) {
    kick_free(&ctree_rel_kick);
    if (ctree_rel_timer != NULL)
        event_free(ctree_rel_timer);
    ctree_rel_timer = NULL;
    ctree_release_let_go(&ctree_graves);
    ctree_release_let_go(&ctree_deleted);
}
