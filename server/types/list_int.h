/*
 * types/list_int: the inside of a list, shared by the files of the list
 * type (list_seq.c, the sequence; list.c, its operations; list_vindex.c,
 * the value index; list_persist.c, its records and snapshots) and no one
 * else.
 * Every function here but list_charge and list_room_for expects the
 * list's lock held.
 */
#ifndef MCDS_LIST_INT_H
#define MCDS_LIST_INT_H

#include "base/reaper.h"
#include "cache/item.h"
#include "types/list.h"

/* One chunk: a treap node (by position; a max-heap on prio) holding
 * packed elements in buf[lo, hi). sum counts the elements of its subtree. */
struct lchunk {
    struct lchunk *left, *right, *up;
    uint32_t prio;
    uint32_t count;
    uint64_t sum;
    char *buf;
    uint32_t lo, hi, cap;
    uint32_t vgen;              /* == the index's gen: its elements are indexed */
};

/* The value index: open addressing (linear probing, backward-shift
 * deletion) from a value's 32-bit keyed hash to the chunks holding
 * elements of that hash and how many each holds. Values of equal hash
 * share an entry; chunks are always checked byte for byte. */
struct lvhint {
    struct lchunk *c;
    uint32_t n;
};

struct lvent {
    uint32_t h;                 /* 0: empty slot */
    uint32_t nhints;            /* up to 1 the hint is inline; beyond, an
                                   array of the next power of two */
    union {
        struct lvhint one;
        struct lvhint *many;
    } u;
};

struct lvindex {
    struct lvent *slots;
    size_t nslots;              /* a power of two */
    size_t used;
    size_t mem;                 /* bytes charged */
    uint32_t gen;               /* chunks of this vgen are indexed */
    bool complete;              /* every chunk is */
};

struct list {
    pthread_mutex_t lock;
    char name[ITEM_KEY_MAX];    /* its key, for its log records */
    size_t nname;
    uint64_t replay_lsn;        /* replay skips its records before it */
    struct lchunk *root;
    uint64_t count;
    size_t mem;                 /* bytes charged under -m */
    struct list_opts opts;
    struct lvindex *vindex;     /* NULL until asked by value */
    uint32_t vgen_seq;          /* the last index's gen */
    uint32_t rng;               /* treap priorities */
    struct list_waiter *whead, *wtail;
    uint64_t nwaiters;
    bool closed;
    struct list *reg_prev, *reg_next;
    int refs;                   /* atomic: the item's, and list_hold's */
    bool mq_queued;             /* on the movers' queue (list_move.c) */
    struct list *mq_next;
    struct reaper_job reap;     /* once deleted and let go: freed by the reaper */
};

/* Keeps l's memory while no lock is held on it (list_move.c); list_let_go
 * gives it back (the last of a freed list hands it to the reaper). */
void list_hold(struct list *l);
void list_let_go(struct list *l);

/* Serves l's waiters while it has elements (l locked). A mover at the
 * head (to another list) is left to list_movers_drain. */
void list_serve(struct list *l);
/* Takes waiter w off l's wait list (l locked). */
void list_unlist(struct list *l, struct list_waiter *w);

/* ---- list_move.c ---- */

/* The head waiter of l (locked) is a mover into another list: l is queued
 * for list_movers_drain, which takes both locks in order. */
void list_movers_queue(struct list *l);
/* Serves every queued mover; called with no list locked, after each
 * operation that may have queued one. */
void list_movers_drain(void);
/* A mover into l itself (a rotation), served under l's lock. */
void list_move_serve(struct list *l, struct list_waiter *w);

/* Counts bytes of l under -m (negative: given back). */
void list_charge(struct list *l, long bytes);
/* Whether need more bytes fit under -m (cache values may be evicted). */
bool list_room_for(size_t need);

#define LIST_MALLOC_OVERHEAD 16     /* counted per allocation under -m */

/* ---- list_seq.c: the sequence (the list locked) ---- */

/* Packed elements: the bytes one of n bytes takes; writing one at dst;
 * reading the one at off of c (returns the next offset). */
size_t list_elem_size(size_t n);
void list_elem_write(char *dst, const char *p, size_t n);
uint32_t list_elem_read(const struct lchunk *c, uint32_t off, const char **p, size_t *n);
/* Bytes an element of n bytes may take, counted against -m first. */
size_t list_elem_need(size_t n);
/* Chunks in order; the one holding element idx (< count), *i its place. */
struct lchunk *list_chunk_first(struct lchunk *root);
struct lchunk *list_chunk_last(struct lchunk *root);
struct lchunk *list_chunk_next(struct lchunk *c);
struct lchunk *list_chunk_of(struct list *l, uint64_t idx, uint32_t *i);
/* Removes element i of c; frees c when it empties. */
void list_cut(struct list *l, struct lchunk *c, uint32_t i);
/* Bytes the first *k elements at end e take, packed; *k is lowered to
 * the elements that fit in budget (at least one). */
size_t list_end_bytes(struct list *l, enum list_end e, int *k, size_t budget);
/* Frees the chunks under c. */
void list_free_chunks(struct list *l, struct lchunk *c);
/* The first element of c equal to v (the last if last), or -1. */
int64_t list_chunk_find(const struct lchunk *c, const struct list_val *v, bool last);
/* Removes from c up to quota elements equal to v (from the back if
 * back), in one pass; returns how many. Frees c if it empties. */
uint64_t list_chunk_remove(struct list *l, struct lchunk *c, const struct list_val *v,
                           uint64_t quota, bool back);
/* By position (the rest of the sequence's operations). */
enum list_result list_put_at(struct list *l, uint64_t idx, const char *p, size_t n);
void list_cut_at(struct list *l, uint64_t idx);
int list_pop_locked(struct list *l, enum list_end e, int max, list_each_fn fn, void *arg);
/* Removes k elements at end e. */
void list_drop_end(struct list *l, enum list_end e, uint64_t k);
/* Removes by value (list_remove), indexing up to budget elements first
 * (SIZE_MAX: the whole list, never LIST_BUSY). */
enum list_result list_remove_locked(struct list *l, int64_t count, const struct list_val *v,
                                    size_t budget, uint64_t *removed);
/* Keeps elements [start, end). */
void list_keep(struct list *l, uint64_t start, uint64_t end);

/* ---- list.c ---- */

/* The 32-bit hash a value is indexed under (never 0). */
uint32_t list_vhash(const char *p, size_t n);
/* Indexes up to budget more elements of l (starting the index if there
 * is none), for LIST_VINDEX_STEP_US at most unless budget is SIZE_MAX
 * (the whole list): LV_DONE once every chunk is indexed, LV_MORE while
 * some are not, LV_NOMEM when the index could not grow (it is then
 * dropped). */
enum lv_step { LV_DONE, LV_MORE, LV_NOMEM };
enum lv_step list_vindex_step(struct list *l, size_t budget);
/* Whether c's elements are in the index (the index must exist). */
static inline bool list_vindex_covers(const struct list *l, const struct lchunk *c) {
    return c->vgen == l->vindex->gen;
}
/* Frees the index (it is rebuilt when next needed). */
void list_vindex_drop(struct list *l);
/* One element of hash h entered (n > 0) or left (n < 0) chunk c, which the
 * index covers. Without memory the index is dropped: it is a cache of the
 * sequence. */
void list_vindex_add(struct list *l, uint32_t h, struct lchunk *c, int n);
/* The entry for h, or NULL. */
struct lvent *list_vindex_find(struct list *l, uint32_t h);
/* The hints of an entry. */
static inline struct lvhint *list_vent_hints(struct lvent *e) {
    return e->nhints <= 1 ? &e->u.one : e->u.many;
}

/* Chunks and elements. */
size_t list_var_get(const char *p, size_t *n);
/* The start of the packed element ending at end of buf; *n its length. */
size_t list_var_back(const char *buf, size_t end, size_t *n);
/* Offset in c->buf of element i of c. */
uint32_t list_chunk_at(const struct lchunk *c, uint32_t i);
/* Rank of c's first element in the list. */
uint64_t list_chunk_rank(const struct lchunk *c);

#endif
