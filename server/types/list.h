/*
 * types/list: a list of byte strings held under one key of the keyspace,
 * with pushes and pops at both ends, positions counted from either end,
 * and search by value.
 *
 * The sequence is a treap of chunks of packed elements (a varint length,
 * then the bytes), each node counting the elements below it, so that the
 * element at any position is found in O(log n), and a push or pop at an
 * end costs O(log n) with no element moved but its neighbours in one
 * chunk. Beside it a value index (list_vindex.c), built the first time
 * the list is asked something by value, maps each value's hash to the
 * chunks that hold it: membership and removal by value then look only at
 * those chunks, never at the whole list.
 *
 * Every function locks the list itself. A list that is freed (its key was
 * deleted, it expired or was flushed) goes to a reclaimer thread that
 * frees its chunks in the background, so deleting a list of any length
 * costs O(1) to the deleting client.
 */
#ifndef MCDS_LIST_H
#define MCDS_LIST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIST_CHUNK_BYTES 4096       /* a chunk splits beyond this many bytes */

struct list_opts {
    uint64_t max_len;           /* most elements; 0: unbounded */
};

enum list_end { LIST_HEAD = 0, LIST_TAIL = 1 };

enum list_result { LIST_OK, LIST_FULL, LIST_NOMEM, LIST_GONE, LIST_NOT_FOUND, LIST_BUSY };

/* A by-value request indexes at most this many elements, and for at most
 * LIST_VINDEX_STEP_US (checked after each chunk), before it answers
 * LIST_BUSY: it is asked again later, and its worker serves other
 * connections meanwhile. The time bound matters most in the first steps,
 * whose writes fault in the new index's pages. */
#define LIST_VINDEX_STEP 65536
#define LIST_VINDEX_STEP_US 1000

struct list_val {
    const char *p;
    size_t n;
};

/* Called under the list lock for each element read, in order; returns
 * false to stop. */
typedef bool (*list_each_fn)(const char *p, size_t n, void *arg);

/* A blocking pop: served, in arrival order, as soon as the list has
 * elements, and woken through its callback (under the list lock: it must
 * not call back into the list). */
struct list_waiter {
    struct list_waiter *prev, *next;
    enum list_end end;          /* which end it pops */
    int want;                   /* most elements to take */
    int ngot;                   /* taken (0 if the list was closed) */
    char *got;                  /* what it took: varint length, bytes, each */
    size_t ngotbytes;
    bool listed;
    void (*wake)(struct list_waiter *w);
    void *owner;
    /* A mover (lmove wait=): the list it moves into (NULL: a pop), and at
     * which end. It takes one element, moved in one step (list_move.c);
     * result: LIST_OK (got holds the element), or why nothing moved
     * (LIST_FULL, LIST_NOMEM, LIST_GONE: the destination was deleted). */
    struct list *dst;
    enum list_end dend;
    enum list_result result;
    /* A wait on several lists (lmpop wait=) shares one flag: the first
     * list that serves it (or the end of the wait) claims it, and every
     * other list then skips its waiter (list_group_claim). NULL: alone. */
    int *group;
};

/* Claims a waiters' group (atomic): false when it was claimed already. */
bool list_group_claim(int *group);

struct list;

/* room(need) makes room for need more bytes under -m (evicting cache
 * values) and says whether it could. */
void list_system_init(bool (*room)(size_t need));
/* Frees every list still waiting to be reclaimed; stops the reclaimer. */
void list_system_shutdown(void);

/* A new list under key name (its log records name it). */
struct list *list_new(const char *name, size_t nname, const struct list_opts *o);
/* Hands l to the reclaimer. */
void list_free(struct list *l);
/* The list's key went: waiters are woken empty, changes refused. */
void list_close(struct list *l);
/* flush_all: every list that exists now is closed. */
void list_close_all(void);
/* Calls fn with the key of every list that exists now (a delayed
 * flush_all come due: store.c looks at each). */
void list_each_key(void (*fn)(const char *key, size_t nkey));
/* Calls fn on every open list with its length, read under the list's lock;
 * fn runs with the registry locked: it must be quick and call nothing of
 * the lists. */
typedef void (*list_length_fn)(const char *name, size_t nname, uint64_t length, void *arg);
void list_each_length(list_length_fn fn, void *arg);
const struct list_opts *list_options(const struct list *l);

/* Pushes n values at end e, each in turn (at the head, the last value
 * ends first). All or nothing: LIST_FULL (past max_len), LIST_NOMEM,
 * LIST_GONE (closed). *len: the new length. */
enum list_result list_push(struct list *l, enum list_end e, const struct list_val *v, int n,
                           uint64_t *len);
/* Removes up to max elements from end e, calling fn on each first;
 * returns how many. */
int list_pop(struct list *l, enum list_end e, int max, list_each_fn fn, void *arg);
uint64_t list_length(struct list *l);
/* Calls fn on up to limit elements from position off (negative: from
 * the end, -1 the last); returns how many. */
size_t list_range(struct list *l, int64_t off, size_t limit, list_each_fn fn, void *arg);
/* Calls fn on the element at idx (negative: from the end); false when
 * out of range. */
bool list_get(struct list *l, int64_t idx, list_each_fn fn, void *arg);
/* Replaces the element at idx: LIST_NOT_FOUND when out of range. */
enum list_result list_set(struct list *l, int64_t idx, const struct list_val *v);
/* The by-value requests (list_insert, list_remove, list_contains) answer
 * LIST_BUSY, having changed nothing, while the list's value index is
 * still being built: the caller asks again. */
/* Inserts v before or after the first element equal to pivot:
 * LIST_NOT_FOUND when there is none. */
enum list_result list_insert(struct list *l, bool after, const struct list_val *pivot,
                             const struct list_val *v, uint64_t *len);
/* Keeps limit elements from off (as list_range); returns how many went. */
uint64_t list_trim(struct list *l, int64_t off, uint64_t limit);
/* Removes elements equal to v: count > 0 the first count from the head,
 * count < 0 the last -count, 0 all of them. */
enum list_result list_remove(struct list *l, int64_t count, const struct list_val *v,
                             uint64_t *removed);
/* Whether an element equals v. */
enum list_result list_contains(struct list *l, const struct list_val *v, bool *yes);

/* lpos: the positions of elements equal to v, in the order met, at most
 * cap of them into pos (*npos): from the head (rank > 0) or the tail
 * (rank < 0), passing over the first |rank| - 1 matches, looking only at
 * the first maxlen elements met (0: every one). rank is not 0. */
enum list_result list_positions(struct list *l, const struct list_val *v, int64_t rank,
                                uint64_t maxlen, uint64_t *pos, size_t cap, size_t *npos);

/* The element packed at buf + off (as in list_waiter.got): its bytes in
 * *p, *n; returns the next offset. */
size_t list_unpack(const char *buf, size_t off, const char **p, size_t *n);

/* Parks w (served at once if the list has elements). False: closed. */
bool list_wait(struct list *l, struct list_waiter *w);
/* Takes w off the wait list; false if it was served already. */
bool list_unwait(struct list *l, struct list_waiter *w);
/* A served waiter's connection went: what it took goes back to its end,
 * in its order (dropped if the list is closed). Frees w->got. */
void list_give_back(struct list *l, struct list_waiter *w);

/* Moves the element at end se of src to end de of dst (src may be dst: a
 * rotation), in one step and one log record: LIST_OK with a packed copy
 * of it in *copy (list_unpack; the caller frees it), or, nothing
 * changed, LIST_NOT_FOUND (src empty or deleted), LIST_FULL (dst at its
 * max_len), LIST_NOMEM, LIST_GONE (dst deleted). */
enum list_result list_move(struct list *src, enum list_end se, struct list *dst, enum list_end de,
                           char **copy, size_t *ncopy);
/* Server-wide totals for `stats`: lists, their elements, waiting pops,
 * and deleted lists whose memory is not given back yet. */
void list_totals(uint64_t *nlists, uint64_t *nelems, uint64_t *nwaiters, uint64_t *nreclaiming);

#endif
