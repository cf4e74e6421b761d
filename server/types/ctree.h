/*
 * types/ctree: tree counters, the hierarchical statistics engine.
 *
 * Counters are global definitions (an id, whether values aggregate up the
 * object hierarchy, a quantization step, the stored period types with how
 * many periods each keeps). Objects are keys of the keyspace (items of
 * type ITEM_CTREE) forming a forest: each has an optional parent, limits
 * per (counter, period type) and a quantization step, and holds its values
 * in a sparse table per counter: one sorted row of (period index, total)
 * per stored period type.
 *
 * An increment adds its delta to its period and to every coarser stored
 * period containing it, in the object and (aggregating counters) in every
 * ancestor, all or nothing: limits and int64 overflow are checked on the
 * whole path first. Values are kept exact; quantization only shapes what
 * is reported (value = total rounded towards zero to the step, fraction =
 * the rest), so remainders of children add up in their parent.
 *
 * Locking (types/ctree_int.h): a read-write lock over the whole world,
 * exclusive for definitions, objects, the trees' shape, retention and
 * listings across objects; increments and reads of one object take it
 * shared plus the lock of the object's tree, so increments of different
 * trees run on different workers at once (a request of several takes the
 * locks of all its trees, in one order). The world lock is taken under a
 * keyspace stripe lock (object creation, an object's key leaving the
 * keyspace) and never the other way round: nothing here takes a stripe
 * lock or drops an item reference while holding it.
 */
#ifndef MCDS_CTREE_H
#define MCDS_CTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

#define CTREE_TYPES_MAX 16          /* stored period types of one counter */
#define CTREE_NO_LIMIT INT64_MAX

enum ctree_result {
    CTREE_OK,
    CTREE_EXISTS,
    CTREE_NOT_FOUND,            /* the object is gone */
    CTREE_NO_COUNTER,
    CTREE_NO_TYPE,              /* the counter does not store that period type */
    CTREE_NOT_MANUAL,           /* that period type is computed, not changed directly */
    CTREE_BAD_TYPES,            /* period types that do not nest, or repeat */
    CTREE_LIMIT,                /* a limit refused the increment */
    CTREE_OVERFLOW,             /* a value would leave int64 */
    CTREE_IN_USE,               /* a counter that objects hold values or limits of */
    CTREE_PARENT_GONE,
    CTREE_NOMEM,
};

struct ctree_ptype {
    uint32_t code;              /* L*100+U */
    uint32_t keep;              /* periods kept back from now; 0: all */
    bool manual;                /* may be changed directly (the finest always is) */
};

struct ctree_def {
    uint32_t id;
    bool aggregate;
    int64_t quantize;           /* >= 1 */
    int ntypes;
    struct ctree_ptype types[CTREE_TYPES_MAX];  /* finest first */
};

struct ctree_limit {
    uint32_t counter, code;
    int64_t max;                /* CTREE_NO_LIMIT: none */
};

struct ctree_obj;

/* Where an increment was refused (CTREE_LIMIT), or a value reported. */
struct ctree_at {
    const char *key;
    size_t nkey;
    uint32_t code;
    int64_t idx;
};

struct ctree_incr {
    uint32_t counter, code;
    int64_t t;                  /* Unix time inside the period */
    int64_t delta;
    bool replay;                /* from the log: no limit or memory check */
    int64_t when;               /* replay: Unix time it was applied at */
};

/* Called for each value an operation reports, under the ctree locks. */
typedef void (*ctree_value_fn)(void *arg, const struct ctree_at *at, uint32_t counter,
                               int64_t value, int64_t fraction);

/* What tree counters need of the keyspace, given by the store at start-up
 * (store/store_ctree.c): room for values (evicting cache values), and the
 * removal of a key that still holds exactly that item (CAS). */
struct ctree_keyspace {
    bool (*reserve)(size_t need);
    void (*unlink)(const char *key, size_t nkey, uint64_t cas);
};
struct event_base;
/* base: the main thread's, where deleted subtrees are released in steps. */
void ctree_init(const struct ctree_keyspace *ks, struct event_base *base);
/* Before the keyspace is freed: removals stop, pending keys are let go. */
void ctree_shutdown(void);
/* After the keyspace is freed: the counter table. */
void ctree_destroy(void);
/* Once a second: retention of old periods, keys of deleted subtrees. */
void ctree_tick(void);
/* debugctreehold: the release of deleted subtrees stops after n more
 * objects (n < 0: goes on); what reads per counter still finishes it. */
void ctree_debug_hold(int64_t n);

/* ---- counters ---- */

/* Sorts d's types (finest first) and checks they nest; the finest
 * becomes manual. CTREE_BAD_TYPES, CTREE_EXISTS, CTREE_NOMEM. */
enum ctree_result ctree_counter_create(struct ctree_def *d);
/* false: no such counter. *objects: objects holding values or limits of it. */
bool ctree_counter_get(uint32_t id, struct ctree_def *d, uint64_t *objects);
/* The counter after id (first: *started false), false when none is left. */
bool ctree_counter_next(bool *started, uint32_t *id, struct ctree_def *d, uint64_t *objects);
enum ctree_result ctree_counter_delete(uint32_t id);
/* Validates one limit against the counters (CTREE_NO_COUNTER, CTREE_NO_TYPE). */
enum ctree_result ctree_limit_check(const struct ctree_limit *l);

/* ---- objects ---- */

/* The arguments of ctree_obj_make (for store_struct_find). */
struct ctree_new {
    struct ctree_obj *parent;   /* NULL: a root */
    int64_t quantize;           /* 0: the counter's step */
    const struct ctree_limit *limits;
    size_t nlimits;
    enum ctree_result r;        /* why make returned NULL */
};

void *ctree_obj_make(const char *key, size_t nkey, item *self, void *arg);
/* The object's key left the keyspace (delete, flush, TTL): the object and
 * its whole subtree are removed, and what they counted is taken out of
 * the ancestors, at once; their memory is released later, in steps.
 * Called with the key's stripe lock held. */
void ctree_obj_closed(struct ctree_obj *o);
/* Whether o is still in its tree (not removed with a subtree). */
bool ctree_obj_live(struct ctree_obj *o);

/* Limits: raise (add amounts to existing limits; a missing one is set)
 * or redefine (replace every limit). quantize < 0 leaves it unchanged. */
enum ctree_result ctree_obj_set(struct ctree_obj *o, const struct ctree_limit *l, size_t n,
                                bool raise, int64_t quantize);

struct ctree_info {
    char parent[ITEM_KEY_MAX];
    size_t nparent;             /* 0: a root */
    int64_t quantize;
    uint64_t children;
    int64_t changed;            /* Unix time of the last change, 0: never */
};

/* Calls fn for each limit (counter, code, max). */
enum ctree_result ctree_obj_info(struct ctree_obj *o, struct ctree_info *info,
                                 void (*fn)(void *arg, const struct ctree_limit *l), void *arg);

/* The increment; on CTREE_LIMIT *refused names the object and period.
 * With fn, the new value of the increment's own period is reported for
 * the object and each ancestor it reached. */
enum ctree_result ctree_incr(struct ctree_obj *o, const struct ctree_incr *in, struct ctree_at *refused,
                             ctree_value_fn fn, void *arg);

/* The most increments one ctree_incr_many takes. */
#define CTREE_INCR_MANY_MAX 100

/* Several increments as one: each is checked (object, counter, type,
 * limits, overflow) against the values the ones before it leave, then all
 * are applied or none, and logged as one record. ins[i] is an increment
 * of objs[i]. On an error *failed is the index of the increment it
 * concerns (on CTREE_LIMIT *refused names the object and period that
 * refused it). With fn, once all are applied, the value of each
 * increment's own period is reported for its object and each ancestor it
 * reached, in the order of the increments. */
enum ctree_result ctree_incr_many(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n,
                                  struct ctree_at *refused, size_t *failed, ctree_value_fn fn, void *arg);

/* ---- reads ---- */

enum ctree_result ctree_get(struct ctree_obj *o, uint32_t counter, uint32_t code, int64_t idx,
                            int64_t *value, int64_t *fraction);

struct ctree_filter {
    uint32_t clo, chi;          /* counter ids in [clo, chi] … */
    const int64_t *clist;       /* … or in this sorted list (nclist > 0) */
    size_t nclist;
    uint32_t code;              /* 0: every period type */
    int64_t plo, phi;           /* period indexes in [plo, phi] (with code) … */
    const int64_t *plist;       /* … or in this sorted list (nplist > 0) */
    size_t nplist;
    uint64_t scan_max;          /* values looked at */
    uint64_t count_max;         /* values reported */
    bool after;                 /* continue after this position */
    uint32_t after_counter, after_code;
    int64_t after_idx;
};

/* Where a read stopped early (more may follow): a position for after. */
struct ctree_cursor {
    bool more;
    uint32_t counter, code;
    int64_t idx;
};

/* Every value of o the filter passes, in counter, period type (finest
 * first), period order. */
enum ctree_result ctree_values(struct ctree_obj *o, const struct ctree_filter *f, ctree_value_fn fn,
                               void *arg, struct ctree_cursor *cur);
/* Active periods (some object holds a non-zero value there): fn gets
 * counter, code, period and the number of objects in value and fraction 0. */
void ctree_periods(const struct ctree_filter *f, ctree_value_fn fn, void *arg, struct ctree_cursor *cur);

/* Up to max children of o, after the child after (NULL: from the
 * first); *more tells whether others follow. */
enum ctree_result ctree_children(struct ctree_obj *o, struct ctree_obj *after, uint64_t max,
                                 void (*fn)(void *arg, const char *key, size_t nkey), void *arg,
                                 bool *more);
/* Objects changed at or after since (Unix time), most recent first, up
 * to max, after the object after (NULL: from the most recent). */
void ctree_active(int64_t since, struct ctree_obj *after, uint64_t max,
                  void (*fn)(void *arg, const char *key, size_t nkey, int64_t changed), void *arg,
                  bool *more);

/* Memory and counts for `stats` (releasing: objects of deleted subtrees
 * whose memory is not yet released). */
void ctree_totals(uint64_t *counters, uint64_t *objects, uint64_t *values, uint64_t *releasing);

/* Unix time now, on the server clock (debugtime moves it). */
int64_t ctree_now(void);

#endif
