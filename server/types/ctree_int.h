/*
 * types/ctree_int: the inside of tree counters, shared by the files of
 * the type (ctree.c, the structure; ctree_incr.c, increments;
 * ctree_persist.c, its records and snapshots) and no one else.
 *
 * Locking. ctree_lock is a read-write lock over the whole world. Taken
 * for writing (exclusive) by everything that changes counters, objects or
 * the shape of the trees, by retention, snapshots and listings across
 * objects. Increments and reads of one object take it for reading plus
 * the lock of the object's tree (ctree_tree_lock: a mutex per root,
 * striped), so increments of different trees run at once. What they share
 * across trees is guarded apart: a counter's active rows by its act_lock,
 * the active list by a mutex of its own (ctree_touched), the counts by
 * atomics. Everything here expects ctree_lock held, for writing or for
 * reading with the tree's lock.
 *
 * A deleted subtree leaves in two parts (ctree_release.c). At once, under
 * the exclusive lock: its root's values leave the ancestors, the root
 * leaves its parent's children and is marked closed, and the subtree's
 * counts (objects, values) leave the totals; every object under a closed
 * one is gone from then on (ctree_gone). Then, in bounded steps on the
 * main thread, each its own short hold of the lock, its objects are
 * released, leaves first: values freed (out of the counters' active rows
 * and object counts), off the active list, out of their parent's children.
 * What reads per counter (active periods, a counter's objects) finishes
 * the release first (ctree_wrlock_released).
 */
#ifndef MCDS_CTREE_INT_H
#define MCDS_CTREE_INT_H

#include <pthread.h>

#include "types/ctree.h"

struct event_base;

/* One stored value: a period and its exact total. */
struct ctree_cell {
    int64_t idx;
    int64_t total;
};

/* The values of one period type, sorted by period; cells are never 0. */
struct ctree_row {
    struct ctree_cell *v;
    uint32_t n, cap;
    int64_t limit;
};

struct ctree_counter {
    struct ctree_def def;
    uint64_t nobjs;                         /* objects holding a cval of it (atomic) */
    /* act_lock guards active and reserved: increments of different trees
     * change them at once. reserved[j]: cells of active[j] that running
     * increments made room for and may still add (n + reserved <= cap). */
    pthread_mutex_t act_lock;
    struct ctree_row active[CTREE_TYPES_MAX]; /* per period: objects with a non-zero value */
    uint32_t reserved[CTREE_TYPES_MAX];
};

/* One object's values and limits of one counter: a row per stored type. */
struct ctree_cval {
    struct ctree_counter *c;
    struct ctree_row rows[];
};

struct ctree_obj {
    item *self;
    struct ctree_obj *parent;               /* holds a reference on its item */
    struct ctree_obj *first_child, *next_sib, *prev_sib;
    uint64_t nchildren;
    /* While in a tree: objects (itself included) and non-zero values in
     * its subtree, so that a subtree leaves the totals at once. */
    uint64_t nsub, nsubvals;
    int64_t quantize;                       /* 0: each counter's step */
    int64_t changed;                        /* Unix time of the last change */
    struct ctree_cval **cv;                 /* sorted by counter id */
    uint32_t ncv, capcv;
    struct ctree_obj *act_prev, *act_next;  /* the active list, newest first */
    struct ctree_obj *grave_next;           /* the deleted or the graves list */
    /* closed: out of its tree (a deleted subtree's root, or released);
     * released: values and links let go, only the struct is left. */
    bool closed, released, attached;
};

extern pthread_rwlock_t ctree_lock;

/* The lock of o's tree (its root's stripe); ctree_lock held for reading. */
pthread_mutex_t *ctree_tree_lock(const struct ctree_obj *o);
/* Makes room in c's active rows js[i] for ks[i] more cells each, which a
 * running increment may add, kept until ctree_active_release (i < n):
 * -1 (nothing kept) without memory. */
int ctree_active_reserve(struct ctree_counter *c, const int *js, const uint32_t *ks, int n);
void ctree_active_release(struct ctree_counter *c, const int *js, const uint32_t *ks, int n);
extern struct ctree_counter **ctree_counters;   /* sorted by id */
extern size_t ctree_ncounters;
extern struct ctree_obj *ctree_act_head;        /* every live object */

int64_t ctree_row_value(const struct ctree_row *r, int64_t idx);
/* Room for a cell at idx, if it is not there yet; -1 without memory. */
int ctree_row_reserve_at(struct ctree_row *r, int64_t idx);
/* Room for k more cells; -1 (nothing changed) without memory. */
int ctree_row_reserve_n(struct ctree_row *r, uint32_t k);
/* Adds delta at idx (room reserved). -1: the cell went from zero to
 * non-zero, 1: from non-zero to zero, 0: neither. */
int ctree_row_add(struct ctree_row *r, int64_t idx, int64_t delta);
/* Applies a ctree_row_add result to the value and active-period counts
 * (the subtrees' value counts are the caller's: ctree_subvals_add). */
void ctree_value_moved(struct ctree_counter *c, int j, int64_t idx, int change);
/* d more non-zero values in the subtrees of o and of each ancestor. */
void ctree_subvals_add(struct ctree_obj *o, int64_t d);
/* Whether o is gone: closed, or under a closed object (a deleted subtree
 * not yet released). */
bool ctree_gone(const struct ctree_obj *o);
struct ctree_counter *ctree_counter_find(uint32_t id);
int ctree_type_index(const struct ctree_counter *c, uint32_t code);
/* The object after n in a pre-order walk of root's subtree (children
 * before their next sibling), NULL after the last. */
struct ctree_obj *ctree_preorder_next(struct ctree_obj *n, struct ctree_obj *root);
/* Puts the active-object list back in order of last change (after a
 * snapshot load set the objects' times); takes the lock itself. */
void ctree_active_sort(void);
/* o's cval of c, made if missing; NULL without memory. */
struct ctree_cval *ctree_cv_get(struct ctree_obj *o, struct ctree_counter *c);
/* o's cval of c, or NULL. */
struct ctree_cval *ctree_cv_find(const struct ctree_obj *o, const struct ctree_counter *c);
/* Bytes a new cval of c in o would take. */
size_t ctree_cv_need(const struct ctree_obj *o, const struct ctree_counter *c);
/* Frees o's cval of c once it holds no value and no limit. */
void ctree_cv_prune(struct ctree_obj *o, const struct ctree_counter *c);
/* Bytes one more cell in r would take (0 when it has room). */
size_t ctree_row_grow_need(const struct ctree_row *r);
/* Whether period idx of type j of c is still kept at time now. */
bool ctree_kept(const struct ctree_counter *c, int j, int64_t idx, int64_t now);
/* Drops the periods of row j that are too old: how many (the caller
 * takes them out of the subtrees' value counts). */
uint32_t ctree_row_expire(struct ctree_counter *c, int j, struct ctree_row *r, int64_t now);
/* o changed at now: first in the active list. */
void ctree_touched(struct ctree_obj *o, int64_t now);
/* o's reporting step of c (its own quantize, else the counter's). */
int64_t ctree_step(const struct ctree_obj *o, const struct ctree_counter *c);
/* Reports one value (rounded to o's step, with the rest) to fn. */
void ctree_report(const struct ctree_obj *o, const struct ctree_counter *c, uint32_t code, int64_t idx,
                  int64_t total, ctree_value_fn fn, void *arg);
/* Makes room for need bytes in the keyspace (releasing deleted subtrees,
 * then evicting cache values); call without the lock. */
bool ctree_make_room(size_t need);

/* ---- deleted subtrees (ctree_release.c) ---- */

/* Objects of deleted subtrees not yet released (exclusive lock). */
extern uint64_t ctree_nreleasing;
/* Releases gone object o (exclusive lock): its values (the counts left
 * with its subtree's root), the active list, its parent's children. */
void ctree_retire(struct ctree_obj *o);
/* Root (just closed, its counts gone) joins the deleted subtrees;
 * exclusive lock held. */
void ctree_release_add(struct ctree_obj *root);
/* Takes ctree_lock for writing once every deleted subtree is released,
 * releasing them first in steps (other threads run between them). */
void ctree_wrlock_released(void);
/* Releases every deleted subtree and unlinks every grave now, in steps
 * (debugctreehold or not); no lock held. */
void ctree_release_finish(void);
/* Once a second (the main thread): the keys of released objects. */
void ctree_release_tick(void);
/* Steps run from a timer on base (the main thread's); NULL (the fuzz
 * harness): from ctree_tick, all at once. */
void ctree_release_init(struct event_base *base);
/* Shutdown: the deleted subtrees' and the graves' references let go. */
void ctree_release_shutdown(void);
/* The store's removal of it's key, if the key still holds it; no ctree
 * lock held. */
void ctree_key_unlink(item *it);

#endif
