/*
 * store: semantics of every keyspace operation, and the few mutation
 * points (store_link_locked / store_swap_locked / store_unlink_locked)
 * every change goes through.
 *
 * Locking: a key's hash stripe is held for the whole of an operation on
 * it, so each operation is atomic with respect to every other on that key.
 * Allocation may evict other keys; it only ever trylocks their stripes.
 *
 * Liveness: an item is dead when its exptime has passed or a flush_all
 * covers it. Dead items are unlinked when met (lazily), when the LRU tail
 * is scanned for room, and by the once-a-second crawl in store_tick().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/expiry.h"
#include "cache/hash.h"
#include "cache/item_cache.h"
#include "cache/lru.h"
#include "cache/seg.h"
#include "base/reaper.h"
#include "base/settings.h"
#include "store/item_persist.h"
#include "persist/persist.h"
#include "base/stats.h"
#include "store/store.h"
#include "types/ctree.h"
#include "types/ctree_persist.h"
#include "types/list.h"
#include "types/list_persist.h"
#include "types/queue.h"
#include "types/queue_persist.h"

#define STORE_EVICT_TRIES 50        /* LRU tail items looked at per attempt */
#define STORE_EVICT_ROUNDS 1000     /* attempts before giving up, plus two
                                       segments' worth (store_evict_budget) */
#define STORE_EVICT_RESCUES 1000    /* the same for second chances one store may give; past
                                       them the tail goes, read or not */
#define STORE_LIVE_SHARE 7           /* eviction starts once live items take */
#define STORE_LIVE_DIV 8             /* 7/8 of -m; below, holes are cleared */
#define STORE_CRAWL_MIN 1024        /* buckets crawled per tick, at least */
#define STORE_CRAWL_MAX 65536
#define STORE_ARITH_MAX 4096        /* longest value incr/decr will parse */
#define STORE_FLUSH_SLICE 256      /* buckets a flush takes out per turn of its worker */
#define STORE_EXPIRY_SHARE 256      /* expiry index: one 8-byte entry per 256 bytes of -m */

/* How a cache value leaving the keyspace leaves the LRU. */
enum store_lru {
    STORE_LRU_TAKE,     /* takes the LRU lock to unlink it */
    STORE_LRU_HELD,     /* the caller holds the LRU lock */
};

/* An immediate flush: items with a CAS below store_flush_cas are dead
 * until its walk has taken them all out (a CAS chosen with E can be below
 * it too, so the walk ends the rule); store_flush_gen counts the flushes
 * begun, both under store_flush_lock. */
static pthread_mutex_t store_flush_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t store_flush_cas;
static uint64_t store_flush_gen;
static void (*store_evict_hook)(const item *it);   /* watch evictions */
static bool store_restoring;         /* start-up: -m does not apply, TTLs end nothing */
static bool store_follower;          /* atomic: a replica's structures end only by records */
static rel_time_t store_flush_time;  /* delayed flush: time it takes effect */
static rel_time_t store_flush_time_noted; /* the delayed flush the tick has
                                             looked at the structures for */
static size_t store_crawl_cursor;

void store_on_evict(void (*fn)(const item *it)) {
    store_evict_hook = fn;
}

void store_init(void) {
    store_flush_cas = 0;
    store_flush_time = 0;
    store_flush_time_noted = 0;
    store_crawl_cursor = 0;
    expiry_init(settings.maxbytes / STORE_EXPIRY_SHARE);
}

uint64_t store_client_cas(const item *it) {
    return settings.cas_enabled ? item_cas(it) : 0;
}

/* Whether a CAS a client sent matches it: with -C, as in memcached, none
 * does (a cas command is EXISTS, a delete or incr with a CAS too). */
static bool store_client_cas_matches(const item *it, uint64_t cas_in) {
    return settings.cas_enabled && item_cas(it) == cas_in;
}

static int store_is_flushed(const item *it, rel_time_t now) {
    uint64_t fc = __atomic_load_n(&store_flush_cas, __ATOMIC_RELAXED);
    rel_time_t ft = __atomic_load_n(&store_flush_time, __ATOMIC_RELAXED);

    if (it->type != ITEM_STRING && __atomic_load_n(&store_follower, __ATOMIC_RELAXED))
        return 0;
    if (fc != 0 && item_cas(it) < fc)
        return 1;
    return ft != 0 && ft <= now && item_time(it) <= ft;
}

/* While restoring, no TTL ends a key: each record was made while its key
 * lived, whatever the clock says now; the keys whose TTL has passed go
 * once the replay is over. */
static int store_is_expired(const item *it, rel_time_t now) {
    if (it->type != ITEM_STRING && __atomic_load_n(&store_follower, __ATOMIC_RELAXED))
        return 0;
    return !store_restoring && item_exptime(it) != 0 && item_exptime(it) <= now;
}

/* Notes an item's expiry second in the index (expiry.c): a cache value's,
 * and a structure's, whose waiters hear and whose memory comes back once
 * the tick or a store needing room sweeps that second. */
static void store_index_expiry(const item *it, uint32_t hv) {
    if (item_exptime(it) != 0)
        expiry_add(hv, item_exptime(it));
}

/* What every item entering the keyspace gets (stripe lock held): its
 * flags, CAS (new_cas: an explicit one, meta E; 0 for the next) and
 * access time. */
static void store_enter_locked(item *it, uint64_t new_cas) {
    item_clear_flag(it, ITEM_FETCHED);
    item_set_cas(it, new_cas != 0 ? new_cas : item_next_cas());
    item_set_time(it, clock_now());
}

/* The item the table is to hold, flagged ITEM_LINKED, with the table's
 * reference: a cache value enters the LRU, which may copy it into a
 * segment (lru.h); the caller's references stay on it. */
static item *store_take_in_locked(item *it, uint32_t hv) {
    if (it->type == ITEM_STRING)
        return lru_link(it, hv);
    item_set_flag(it, ITEM_LINKED);
    item_incref(it);
    return it;
}

/* Links it under its stripe lock (held): the one place items enter,
 * except the replacement of a cache value by another (store_swap_locked).
 * Returns the item linked (it, or its copy in a segment). */
static item *store_link_locked(item *it, uint32_t hv, uint64_t new_cas) {
    store_enter_locked(it, new_cas);
    it = store_take_in_locked(it, hv);
    hash_insert(it, hv);
    stats_global_add(STATS_CURR_ITEMS, 1);
    stats_global_add(STATS_TOTAL_ITEMS, 1);
    stats_global_add(STATS_BYTES, (int64_t)item_bytes(it));
    store_index_expiry(it, hv);
    ilog_set(it);
    return it;
}

/* The caller's reference moves from it to linked, the item the table
 * holds for it. */
static item *store_hold_linked(item *it, item *linked) {
    if (linked != it) {
        item_incref(linked);
        item_release(it);
    }
    return linked;
}

/* A structure's item left the keyspace: its structure stops serving. */
static void store_struct_closed(item *it) {
    if (it->type == ITEM_QUEUE)
        queue_close(item_struct(it));
    else if (it->type == ITEM_CTREE)
        ctree_obj_closed(item_struct(it));
    else if (it->type == ITEM_LIST)
        list_close(item_struct(it));
}

/* Everything about leaving the keyspace but the hash chain; the stripe
 * lock is held, and lru says how a cache value leaves the LRU. */
static void store_detach_locked(item *it, enum store_lru lru) {
    item_clear_flag(it, ITEM_LINKED);
    if (it->type != ITEM_STRING)
        store_struct_closed(it);
    else if (lru == STORE_LRU_HELD)
        lru_unlink_locked(it);
    else if (lru == STORE_LRU_TAKE)
        lru_unlink(it);
    stats_global_add(STATS_CURR_ITEMS, -1);
    stats_global_add(STATS_BYTES, -(int64_t)item_bytes(it));
}

/* Takes it out of the table and LRU; the stripe lock is held (and the LRU
 * lock with STORE_LRU_HELD). The table's reference is returned to the
 * caller, who must item_release() it (outside the LRU lock). */
static void store_unhook_locked(item *it, uint32_t hv, enum store_lru lru) {
    hash_remove(it, hv);
    store_detach_locked(it, lru);
}

/* The one place items leave (stripe lock held). */
static void store_unlink_locked(item *it, uint32_t hv) {
    store_unhook_locked(it, hv, STORE_LRU_TAKE);
    item_release(it);
}

/* A delete asked for by a client (delete, md, binary delete). */
static void store_delete_locked(item *it, uint32_t hv) {
    if (it->type == ITEM_STRING)
        ilog_del(item_key(it), it->nkey);
    store_unlink_locked(it, hv);
}

/* Whether a change to it (NULL: a new cache value) may be made: with
 * --data-dir, a change the log must record waits for the log to work. */
static bool store_log_ok(const item *it) {
    if (!persist_on())
        return true;
    if ((it == NULL || it->type == ITEM_STRING) && !settings.persist_items)
        return true;
    return persist_writable();
}

static void store_count_dead(const item *it, rel_time_t now) {
    if (!item_has_flag(it, ITEM_FETCHED) && store_is_expired(it, now))
        stats_global_add(STATS_EXPIRED_UNFETCHED, 1);
    stats_global_add(STATS_RECLAIMED, 1);
}

/* The live item under key, or NULL; a dead one met here is unlinked.
 * count says whether a dead hit counts as get_expired/get_flushed. */
static item *store_find_live(const char *key, size_t nkey, uint32_t hv, int count) {
    rel_time_t now = clock_now();
    item *it = hash_find(key, nkey, hv);

    if (it == NULL)
        return NULL;
    if (store_is_flushed(it, now)) {
        if (count)
            stats_incr(STATS_GET_FLUSHED);
    } else if (store_is_expired(it, now)) {
        if (count)
            stats_incr(STATS_GET_EXPIRED);
    } else {
        return it;
    }
    store_count_dead(it, now);
    store_unlink_locked(it, hv);
    return NULL;
}

struct store_victim {
    int may_evict;          /* live items may go (not -M) */
    int compact;            /* holes hold the room: live small items move
                               up instead of going (store_holes_hold) */
    int force;              /* enough second chances given: evict the tail */
    int rescued;            /* items kept (moved to main, sent back) */
    item *victim;
};

/* Extra trips through its queue an idle item may take: the mean item
 * size over its own (lru.c stops at LRU_TRIPS_MAX). Read or not, a small
 * item then stays longer than a large one: when popularity does not
 * depend on size, a byte spent on a small item buys more hits
 * (doc/performance.md, "Hit ratio at equal memory"). Items all of one
 * size keep their order. */
static unsigned store_small_trips(const item *it) {
    uint64_t n = stats_global_get(STATS_CURR_ITEMS);
    uint64_t t = n > 0 ? stats_global_get(STATS_BYTES) / n / item_bytes(it) : 0;

    return t > LRU_TRIPS_MAX ? LRU_TRIPS_MAX : (unsigned)t;
}

/* Whether moving small item it up (its copy to its queue's newest end)
 * frees room: its segment goes once every live item has left it, giving
 * back its holes. While holes hold the room, yes; under -M, also while
 * its segment has holes enough (seg_holes_worth_moving). A segment without
 * holes gives back only what the copies of its items take. */
static bool store_move_frees(item *it, const struct store_victim *v) {
    if (v->may_evict)
        return v->compact && !v->force;
    return v->compact || seg_holes_worth_moving(seg_of(it));
}

/* A live item the scan met (its stripe and the LRU lock held): whether it
 * stays. A large item still being read would keep its memory, and -M
 * evicts nothing; S3-FIFO keeps a read or small item (lru_keep_locked);
 * a small item moves up when that frees room (store_move_frees). */
static bool store_live_stays(item *it, uint32_t hv, struct store_victim *v) {
    bool seg = item_has_flag(it, ITEM_SEG);

    if (!seg && (!v->may_evict || item_refs(it) != 1))
        return true;
    if (v->may_evict && !v->force && lru_keep_locked(it, store_small_trips(it), hv)) {
        v->rescued++;
        return true;
    }
    if (seg && store_move_frees(it, v) && lru_move_locked(it, hv)) {
        v->rescued++;
        return true;
    }
    return !v->may_evict;
}

/* LRU scan callback (LRU lock held): unhooks a dead item, or the first
 * one lru_keep_locked() does not keep when eviction is allowed (with
 * v->force, the tail's first, read or not). */
static int store_pick_victim(item *it, void *arg) {
    struct store_victim *v = arg;
    rel_time_t now = clock_now();
    uint32_t hv = hash_key(item_key(it), it->nkey);
    int dead;

    if (!hash_trylock(hv))
        return 0;
    dead = store_is_expired(it, now) || store_is_flushed(it, now);
    if (!item_has_flag(it, ITEM_LINKED) || (!dead && store_live_stays(it, hv, v))) {
        hash_unlock(hv);
        return 0;
    }
    if (dead) {
        store_count_dead(it, now);
    } else {
        lru_note_evicted_locked(it, hv);
        ilog_del(item_key(it), it->nkey);
        if (store_evict_hook != NULL)
            store_evict_hook(it);
        stats_global_add(STATS_EVICTIONS, 1);
        if (!item_has_flag(it, ITEM_FETCHED))
            stats_global_add(STATS_EVICTED_UNFETCHED, 1);
        else if (item_time(it) + 60 > now)
            stats_global_add(STATS_EVICTED_ACTIVE, 1);
    }
    store_unhook_locked(it, hv, STORE_LRU_HELD);
    hash_unlock(hv);
    v->victim = it;
    return 1;
}

/* Crawl callback, stripe lock held: detaches a dead item (the crawl takes
 * it off the hash chain). */
static int store_dead_pick(item *it) {
    rel_time_t now = clock_now();

    if (!store_is_expired(it, now) && !store_is_flushed(it, now))
        return 0;
    store_detach_locked(it, STORE_LRU_TAKE);
    store_count_dead(it, now);
    return 1;
}

/* Takes the dead items out of hash value hv's bucket (expiry index);
 * false if its stripe was busy. Only trylocks: a store that needs room
 * may hold a stripe. */
static bool store_reap_bucket(uint32_t hv) {
    return hash_crawl_try(hv, store_dead_pick, item_release);
}

/* Crawl callback: an item a flush_all just covered goes (uncounted): one
 * below its CAS, and a cache value whose CAS, chosen with E, is above
 * every number handed out so far (it was stored before, or meanwhile). The
 * log hears of the latter, which a replay of the flush would keep. */
static int store_flushed_pick(item *it) {
    bool above = it->type == ITEM_STRING && item_cas(it) > item_peek_cas();

    if (!above && !store_is_flushed(it, clock_now()))
        return 0;
    if (above)
        ilog_del(item_key(it), it->nkey);
    store_detach_locked(it, STORE_LRU_TAKE);
    return 1;
}

/* The walk of flush gen is over: without a flush begun since, no item it
 * covered is left, and the CAS rule would only hide items stored since
 * with a lower CAS chosen with E. */
static void store_flush_walked(uint64_t gen) {
    pthread_mutex_lock(&store_flush_lock);
    if (gen == store_flush_gen)
        __atomic_store_n(&store_flush_cas, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&store_flush_lock);
}

/* After flush_all the whole table is walked, a slice per call, so
 * curr_items, bytes and the queue totals have dropped before OK is sent,
 * and the flushing connection's worker serves its other connections
 * between slices. A table that doubles between slices still has every
 * item not yet visited in a bucket at or past the cursor; while it
 * doubles, the walk waits. */
bool store_flush_reap_step(size_t *cursor, uint64_t gen) {
    size_t size = (size_t)1 << hash_power(), n;

    n = size - *cursor < STORE_FLUSH_SLICE ? size - *cursor : STORE_FLUSH_SLICE;
    if (hash_crawl(cursor, n, store_flushed_pick, item_release) < n || *cursor != 0)
        return false;   /* the table grows, or buckets are left; hash_crawl
                           wraps the cursor past the last one */
    store_flush_walked(gen);
    return true;
}

/* Whether there is room: for need more bytes, or (size > 0) a block this
 * thread kept (item_cache.h) that an item of size bytes can reuse, which
 * adds nothing to the account. */
static bool store_room(size_t need, size_t size) {
    if (size > 0 && item_mem_used() <= item_mem_limit() && item_cache_has(size))
        return true;
    return item_mem_used() + need <= item_mem_limit();
}

/* Gives this thread's kept blocks back to malloc while there is no room,
 * those an item of size bytes cannot reuse first: nothing live is evicted
 * while a kept block takes its place. */
static bool store_room_after_drops(size_t need, size_t size) {
    while (!store_room(need, size))
        if (!item_cache_drop_one(size))
            return false;
    return true;
}

/* Whether the room is short because of holes (seg.h) rather than live
 * items: live items then take less than STORE_LIVE_SHARE of -m, and the
 * scan moves the small ones it meets instead of evicting them, so their
 * segments and holes go and nothing that fits is lost. */
static bool store_holes_hold(void) {
    return stats_global_get(STATS_BYTES) < item_mem_limit() / STORE_LIVE_DIV * STORE_LIVE_SHARE;
}

/* Memory comes back a segment at a time (seg.h): a store may have to walk
 * every item of one, evicting or moving each, before it finds room. */
static int store_evict_budget(int base) {
    return base + 2 * (int)seg_items_max();
}

/* Whether there is room now; kept blocks go first unless holes hold the
 * room (compact): no live item is evicted then, and the scan passing a
 * segment gives back far more than this thread's kept blocks, which its
 * next stores would only have to malloc again. */
static bool store_room_now(size_t need, size_t size, bool compact) {
    return compact ? store_room(need, size) : store_room_after_drops(need, size);
}

/* store_make_room's work once the room is short: kept blocks go first
 * (unless holes hold the room), then the dead, then victims. */
static int store_evict_for(size_t need, size_t size) {
    struct store_victim v;
    int round, scan, rescues = 0;

    v.compact = store_holes_hold();
    if (store_room_now(need, size, v.compact))
        return 0;
    v.may_evict = settings.evict_to_free;
    v.force = 0;
    expiry_sweep(clock_now(), store_reap_bucket);   /* the dead go first */
    for (round = 0; round < store_evict_budget(STORE_EVICT_ROUNDS); round++) {
        if (store_room_now(need, size, v.compact))
            return 0;
        v.victim = NULL;
        v.rescued = 0;
        scan = lru_scan_tail(STORE_EVICT_TRIES, store_pick_victim, &v);
        if (scan == LRU_SCAN_TAKEN)
            item_release(v.victim);
        else if (scan == LRU_SCAN_NOTHING && v.rescued == 0)
            break;
        rescues += v.rescued;
        v.force = rescues >= store_evict_budget(STORE_EVICT_RESCUES);
    }
    return store_room_after_drops(need, size) ? 0 : -1;
}

/* Frees room for need more bytes, or for an item of size bytes (0: not
 * an item) in a kept block; 0 on success, -1 if nothing can go. A victim
 * of the item's size is kept and then reused. */
static int store_make_room(size_t need, size_t size) {
    if (store_restoring || item_mem_used() + need <= item_mem_limit())
        return 0;
    return store_evict_for(need, size);
}

bool store_reserve(size_t need) {
    if (store_make_room(need, 0) == 0)
        return true;
    stats_global_add(STATS_OUTOFMEMORY, 1);
    return false;
}

/* A new item of nbytes (checked against -I by the caller); drain: when
 * there is no room, wait for the memory the reaper is still giving back
 * (a delete, a purge) and try again, which only a caller holding no lock
 * may do. */
static item *store_new_item(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                            size_t nbytes, bool drain, enum store_status *status) {
    size_t need = item_footprint(nkey, nbytes), size = item_block_size(nkey, nbytes);
    item *it;

    if (store_make_room(need, size) < 0 && (!drain || !reaper_drain() || store_make_room(need, size) < 0)) {
        stats_global_add(STATS_OUTOFMEMORY, 1);
        *status = STORE_NO_MEMORY;
        return NULL;
    }
    it = item_alloc(key, nkey, flags, exptime, nbytes);
    if (it == NULL) {
        *status = STORE_NO_MEMORY;
        return NULL;
    }
    return it;
}

/* store_alloc under a stripe lock: no waiting for the reaper. */
static item *store_alloc_locked(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                                size_t nbytes, enum store_status *status) {
    if (item_size(nkey, nbytes) > settings.item_size_max) {
        *status = STORE_TOO_LARGE;
        return NULL;
    }
    return store_new_item(key, nkey, flags, exptime, nbytes, false, status);
}

item *store_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                  size_t nbytes, enum store_status *status) {
    if (item_size(nkey, nbytes) > settings.item_size_max) {
        *status = STORE_TOO_LARGE;
        return NULL;
    }
    return store_new_item(key, nkey, flags, exptime, nbytes, true, status);
}

item *store_alloc_sized(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                        size_t nbytes, enum store_status *status) {
    return store_new_item(key, nkey, flags, exptime, nbytes, true, status);
}

/* A new item holding old's value with it's value added before or after. */
static item *store_concat(item *old, item *it, enum store_op op) {
    enum store_status st;
    size_t oldlen = old->nbytes - 2, addlen = it->nbytes - 2;
    item *n = store_alloc_locked(item_key(it), it->nkey, item_flags(old), item_exptime(old), oldlen + addlen + 2, &st);

    if (n == NULL)
        return NULL;
    if (op == STORE_APPEND) {
        memcpy(item_value(n), item_value(old), oldlen);
        memcpy(item_value(n) + oldlen, item_value(it), addlen);
    } else {
        memcpy(item_value(n), item_value(it), addlen);
        memcpy(item_value(n) + addlen, item_value(old), oldlen);
    }
    memcpy(item_value(n) + oldlen + addlen, "\r\n", 2);
    return n;
}

/* A cache value replaced by another (stripe lock held): the item linked
 * for it takes old's place in the hash chain, and old leaves the LRU.
 * curr_items does not change. Returns the item linked. */
static item *store_swap_locked(item *old, item *it, uint32_t hv, uint64_t new_cas) {
    store_enter_locked(it, new_cas);
    lru_follow(it, old);
    it = lru_link(it, hv);
    hash_replace(old, it, hv);
    item_clear_flag(old, ITEM_LINKED);
    stats_global_add(STATS_TOTAL_ITEMS, 1);
    stats_global_add(STATS_BYTES, (int64_t)item_bytes(it) - (int64_t)item_bytes(old));
    store_index_expiry(it, hv);
    ilog_set(it);
    lru_unlink(old);
    item_release(old);      /* the table's reference */
    return it;
}

/* Replaces old (may be NULL) by it; stripe lock held. Returns the item
 * linked. */
static item *store_replace_locked(item *old, item *it, uint32_t hv, uint64_t new_cas) {
    if (old != NULL && old->type == ITEM_STRING && it->type == ITEM_STRING)
        return store_swap_locked(old, it, hv, new_cas);
    if (old != NULL) {
        store_unhook_locked(old, hv, STORE_LRU_TAKE);
        item_release(old);
    }
    return store_link_locked(it, hv, new_cas);
}

static enum store_status store_append_locked(item *old, item *it, const struct store_req *req,
                                             uint32_t hv, uint64_t *cas_out) {
    item *n;

    if (old == NULL && req->vivify) {
        item_set_exptime(it, req->viv_exptime);
        store_link_locked(it, hv, req->new_cas);
        *cas_out = item_cas(it);
        if (req->stored != NULL)
            *req->stored = it->nbytes;
        return STORE_STORED;
    }
    if (old == NULL)
        return STORE_NOT_STORED;
    if (req->cas_in != 0 && !store_client_cas_matches(old, req->cas_in))
        return STORE_EXISTS;
    n = store_concat(old, it, req->op);
    if (n == NULL)
        return STORE_NOT_STORED;
    store_replace_locked(old, n, hv, req->new_cas);
    *cas_out = item_cas(n);
    if (req->stored != NULL)
        *req->stored = n->nbytes;
    item_release(n);
    return STORE_STORED;
}

/* The CAS rule: a match stores; with set_stale (meta I) an older CAS
 * stores the new value as stale, keeping the old TTL and win token. */
static enum store_status store_cas_check(item *old, item *it, const struct store_req *req) {
    if (old == NULL) {
        stats_incr(STATS_CAS_MISSES);
        return STORE_NOT_FOUND;
    }
    if (store_client_cas_matches(old, req->cas_in)) {
        stats_incr(STATS_CAS_HITS);
        return STORE_STORED;
    }
    if (req->set_stale && req->cas_in < item_cas(old)) {
        item_set_exptime(it, item_exptime(old));
        item_set_flag(it, ITEM_STALE);
        if (item_has_flag(old, ITEM_TOKEN_SENT))
            item_set_flag(it, ITEM_TOKEN_SENT);
        return STORE_STORED;
    }
    stats_incr(STATS_CAS_BADVAL);
    return STORE_EXISTS;
}

/* A classic store on a key that holds a queue: set enqueues (Kestrel's
 * way), add finds the key taken, the rest do not apply. Stripe lock held. */
static enum store_status store_onto_queue(item *old, item *it, enum store_op op, uint64_t *cas_out) {
    uint64_t id;

    if (old->type != ITEM_QUEUE || (op != STORE_SET && op != STORE_ADD))
        return STORE_WRONG_TYPE;
    if (op == STORE_ADD)
        return STORE_NOT_STORED;
    if (!store_log_ok(old))
        return STORE_LOG_FAILED;
    item_incref(it);
    switch (queue_push(item_struct(old), it, QUEUE_DEFAULT_PRI, 0, &id)) {
    case QUEUE_OK:
        *cas_out = 0;
        return STORE_STORED;
    case QUEUE_NOMEM:
        item_release(it);
        return STORE_NO_MEMORY;
    default:
        item_release(it);
        return STORE_NOT_STORED;
    }
}

enum store_status store_item_req(item *it, const struct store_req *req, uint64_t *cas_out) {
    uint32_t hv = req->has_hv ? req->hv : hash_key(item_key(it), it->nkey);
    enum store_status st = STORE_STORED;
    item *old;

    if (!store_log_ok(NULL))
        return STORE_LOG_FAILED;
    hash_lock(hv);
    old = store_find_live(item_key(it), it->nkey, hv, 0);
    if (old != NULL && old->type != ITEM_STRING) {
        st = store_onto_queue(old, it, req->op, cas_out);
        hash_unlock(hv);
        return st;
    }
    switch (req->op) {
    case STORE_ADD:
        if (old != NULL)
            st = STORE_NOT_STORED;
        break;
    case STORE_REPLACE:
        if (old == NULL)
            st = STORE_NOT_STORED;
        break;
    case STORE_CAS:
        st = store_cas_check(old, it, req);
        break;
    case STORE_APPEND:
    case STORE_PREPEND:
        st = store_append_locked(old, it, req, hv, cas_out);
        hash_unlock(hv);
        return st;
    case STORE_SET:
        break;
    }
    if (st == STORE_STORED) {
        store_replace_locked(old, it, hv, req->new_cas);
        *cas_out = item_cas(it);
    }
    hash_unlock(hv);
    return st;
}

enum store_status store_item(item *it, enum store_op op, uint64_t cas_in, uint64_t *cas_out) {
    struct store_req req = { .op = op, .cas_in = cas_in };

    return store_item_req(it, &req, cas_out);
}

enum store_status store_item_hv(item *it, uint32_t hv, enum store_op op, uint64_t cas_in,
                                uint64_t *cas_out) {
    struct store_req req = { .op = op, .cas_in = cas_in, .has_hv = true, .hv = hv };

    return store_item_req(it, &req, cas_out);
}

/* A new exptime for a linked item (touch, gat, mg T), logged; stripe lock
 * held. */
static void store_set_exptime_locked(item *it, rel_time_t exptime) {
    item_set_exptime(it, exptime);
    store_index_expiry(it, hash_key(item_key(it), it->nkey));
    if (it->type == ITEM_STRING)
        ilog_touch(item_key(it), it->nkey, exptime);
    else if (it->type == ITEM_QUEUE)
        qlog_ttl(item_key(it), it->nkey, exptime);
    else if (it->type == ITEM_CTREE)
        ctlog_ttl(item_key(it), it->nkey, exptime);
    else if (it->type == ITEM_LIST)
        llog_ttl(item_key(it), it->nkey, exptime);
}

/* any: return items of every type (touch, Kestrel reads); otherwise a
 * structure under the key reads as a miss. A touch the log cannot take
 * changes nothing and sets *refused. */
static item *store_lookup_hv(const char *key, size_t nkey, uint32_t hv, int touch,
                             rel_time_t exptime, int any, bool *refused) {
    item *it;

    *refused = false;
    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 1);
    if (it != NULL && !any && it->type != ITEM_STRING)
        it = NULL;
    if (it != NULL) {
        if (touch && !store_log_ok(it))
            *refused = true;
        else if (touch)
            store_set_exptime_locked(it, exptime);
        item_incref(it);
        item_set_flag(it, ITEM_FETCHED);
        lru_bump(it, clock_now());
    }
    hash_unlock(hv);
    return it;
}

static item *store_lookup(const char *key, size_t nkey, int touch, rel_time_t exptime, int any,
                          bool *refused) {
    return store_lookup_hv(key, nkey, hash_key(key, nkey), touch, exptime, any, refused);
}

item *store_get(const char *key, size_t nkey) {
    bool refused;

    return store_lookup(key, nkey, 0, 0, 0, &refused);
}

item *store_get_any(const char *key, size_t nkey) {
    bool refused;

    return store_lookup(key, nkey, 0, 0, 1, &refused);
}

item *store_get_any_hv(const char *key, size_t nkey, uint32_t hv) {
    bool refused;

    return store_lookup_hv(key, nkey, hv, 0, 0, 1, &refused);
}

item *store_get_touch(const char *key, size_t nkey, rel_time_t exptime) {
    bool refused;

    return store_lookup(key, nkey, 1, exptime, 0, &refused);
}

enum store_status store_touch(const char *key, size_t nkey, rel_time_t exptime) {
    bool refused;
    item *it = store_lookup(key, nkey, 1, exptime, 1, &refused);

    if (it == NULL)
        return STORE_NOT_FOUND;
    item_release(it);
    if (refused)
        return STORE_LOG_FAILED;
    return STORE_TOUCHED;
}

/* client: cas_in is a client's (store_client_cas_matches), else the
 * item's own number. */
static enum store_status store_delete_as(const char *key, size_t nkey, uint64_t cas_in, bool client) {
    uint32_t hv = hash_key(key, nkey);
    enum store_status st = STORE_DELETED;
    item *it;

    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 0);
    if (it == NULL)
        st = STORE_NOT_FOUND;
    else if (cas_in != 0 && (client ? !store_client_cas_matches(it, cas_in) : item_cas(it) != cas_in))
        st = STORE_EXISTS;
    else if (!store_log_ok(it))
        st = STORE_LOG_FAILED;
    else
        store_delete_locked(it, hv);
    hash_unlock(hv);
    return st;
}

enum store_status store_delete(const char *key, size_t nkey, uint64_t cas_in) {
    return store_delete_as(key, nkey, cas_in, true);
}

enum store_status store_delete_exact(const char *key, size_t nkey, uint64_t cas) {
    return store_delete_as(key, nkey, cas, false);
}

void store_unlink_key(const char *key, size_t nkey) {
    uint32_t hv = hash_key(key, nkey);
    item *it;

    hash_lock(hv);
    it = hash_find(key, nkey, hv);
    if (it != NULL && it->type == ITEM_STRING)
        store_unlink_locked(it, hv);
    hash_unlock(hv);
}

/* memcached's safe_strtoull on an item value: leading blanks, digits,
 * then a blank or the end; a '-' makes huge values invalid. */
static int store_parse_u64(const item *it, uint64_t *out) {
    char buf[STORE_ARITH_MAX + 1];
    size_t len = it->nbytes - 2;
    unsigned long long v;
    char *end;

    if (len == 0 || len > STORE_ARITH_MAX)
        return -1;
    memcpy(buf, item_value(it), len);
    buf[len] = '\0';
    errno = 0;
    v = strtoull(buf, &end, 10);
    if (errno == ERANGE || end == buf)
        return -1;
    if (*end != '\0' && *end != ' ' && (*end < '\t' || *end > '\r'))
        return -1;
    if ((long long)v < 0 && memchr(buf, '-', (size_t)(end - buf)) != NULL)
        return -1;
    *out = v;
    return 0;
}

/* Writes the new number into it, right-padded with spaces to the old
 * length when it is not longer (as memcached does). In place when nobody
 * else holds the item; otherwise (a reply still being written, say) into
 * a copy that replaces it, so earlier readers keep the old bytes. Stripe
 * lock held. exptime is its expiry after the write (a touch's, or its own).
 * Returns the item now holding the number; NULL without memory, the item
 * then unchanged. */
static item *store_arith_write(item *it, uint32_t hv, uint64_t value, uint64_t new_cas,
                               rel_time_t exptime) {
    char buf[24];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
    size_t vlen = len + 2 <= it->nbytes ? it->nbytes - 2 : len;
    uint64_t cas = new_cas != 0 ? new_cas : item_next_cas();
    enum store_status st;
    item *n;

    if (len + 2 <= it->nbytes && item_refs(it) == 1 && item_set_cas(it, cas)) {
        memset(item_value(it) + len, ' ', it->nbytes - 2 - len);
        memcpy(item_value(it), buf, len);
        item_set_exptime(it, exptime);
        item_set_flag(it, ITEM_FETCHED);
        ilog_set(it);
        return it;
    }
    n = store_alloc_locked(item_key(it), it->nkey, item_flags(it), exptime, vlen + 2, &st);
    if (n == NULL)
        return NULL;
    memset(item_value(n), ' ', vlen);
    memcpy(item_value(n), buf, len);
    memcpy(item_value(n) + vlen, "\r\n", 2);
    item_set_flag(n, ITEM_FETCHED);
    it = store_replace_locked(it, n, hv, cas);
    item_release(n);
    return it;      /* the table's reference keeps it while the stripe is held */
}

/* Stores a new number item under key; stripe lock held, key absent. */
static enum store_status store_arith_new(const char *key, size_t nkey, uint32_t hv,
                                         const struct store_arith_req *req, struct store_arith_out *out) {
    char buf[24];
    int len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)req->initial);
    enum store_status st;
    item *n = store_alloc_locked(key, nkey, req->flags, req->create_exptime, (size_t)len + 2, &st);

    if (n == NULL)
        return STORE_NO_MEMORY;
    memcpy(item_value(n), buf, (size_t)len);
    memcpy(item_value(n) + len, "\r\n", 2);
    store_link_locked(n, hv, req->new_cas);
    out->value = req->initial;
    out->cas = item_cas(n);
    out->exptime = item_exptime(n);
    out->created = true;
    item_release(n);
    return STORE_STORED;
}

/* Applies the delta to a live item; stripe lock held. */
static enum store_status store_arith_apply(item *it, uint32_t hv, const struct store_arith_req *req,
                                           struct store_arith_out *out) {
    uint64_t v;

    if (req->cas_in != 0 && !store_client_cas_matches(it, req->cas_in))
        return STORE_EXISTS;
    if (it->type != ITEM_STRING || store_parse_u64(it, &v) < 0)
        return STORE_NON_NUMERIC;
    if (req->incr)
        v += req->delta;
    else
        v = req->delta > v ? 0 : v - req->delta;
    it = store_arith_write(it, hv, v, req->new_cas, req->touch ? req->exptime : item_exptime(it));
    if (it == NULL)
        return STORE_NO_MEMORY;     /* the item as it was */
    if (req->touch)
        store_index_expiry(it, hv);
    out->value = v;
    out->cas = item_cas(it);
    out->exptime = item_exptime(it);
    return STORE_STORED;
}

enum store_status store_arith_ex(const char *key, size_t nkey, const struct store_arith_req *req,
                                 struct store_arith_out *out) {
    uint32_t hv = hash_key(key, nkey);
    enum store_status st;
    item *it;

    out->created = false;
    if (!store_log_ok(NULL))
        return STORE_LOG_FAILED;
    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 0);
    out->absent = it == NULL;
    if (it != NULL)
        st = store_arith_apply(it, hv, req, out);
    else if (req->create)
        st = store_arith_new(key, nkey, hv, req, out);
    else
        st = STORE_NOT_FOUND;
    hash_unlock(hv);
    return st;
}

enum store_status store_arith_create(const char *key, size_t nkey, bool incr, uint64_t delta,
                                     uint64_t cas_in, const struct store_arith_init *init,
                                     uint64_t *value, uint64_t *cas_out, bool *created) {
    struct store_arith_req req = { .incr = incr, .delta = delta, .cas_in = cas_in };
    struct store_arith_out out = { 0 };
    enum store_status st;

    if (init != NULL) {
        req.create = true;
        req.initial = init->initial;
        req.flags = init->flags;
        req.create_exptime = init->exptime;
    }
    st = store_arith_ex(key, nkey, &req, &out);
    *value = out.value;
    *cas_out = out.cas;
    *created = out.created;
    return st;
}

enum store_status store_arith(const char *key, size_t nkey, bool incr, uint64_t delta,
                              uint64_t cas_in, uint64_t *value, uint64_t *cas_out) {
    bool created;

    return store_arith_create(key, nkey, incr, delta, cas_in, NULL, value, cas_out, &created);
}

/* ---- meta get and delete ---- */

/* An empty item under key, linked, its win token handed out (mg N). */
static item *store_vivify_locked(const char *key, size_t nkey, uint32_t hv, const struct store_mget *req) {
    enum store_status st;
    item *it = store_alloc_locked(key, nkey, 0, req->viv_exptime, 2, &st);

    if (it == NULL)
        return NULL;
    memcpy(item_value(it), "\r\n", 2);
    return store_hold_linked(it, store_link_locked(it, hv, req->new_cas));
}

/* The recache rules of memcached's mg: a vivified item or one expiring
 * before R wins if no win was handed out yet; a stale item always wins
 * once. Stripe lock held. */
static void store_mget_win(item *it, const struct store_mget *req, struct store_mget_out *out) {
    out->token_seen = item_has_flag(it, ITEM_TOKEN_SENT) != 0;
    out->stale = item_has_flag(it, ITEM_STALE) != 0;
    out->won = out->created;
    if (req->recache && !out->token_seen && !out->created && item_exptime(it) != 0 &&
        item_exptime(it) < req->recache_time)
        out->won = true;
    if (out->stale && !out->token_seen)
        out->won = true;
    if (out->won)
        item_set_flag(it, ITEM_TOKEN_SENT);
}

item *store_meta_get(const char *key, size_t nkey, const struct store_mget *req,
                     struct store_mget_out *out) {
    uint32_t hv = req->hv;
    item *it;

    memset(out, 0, sizeof(*out));
    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 1);
    if (it != NULL && it->type != ITEM_STRING) {
        hash_unlock(hv);
        return NULL;
    }
    if (it == NULL && req->vivify && store_log_ok(NULL)) {
        it = store_vivify_locked(key, nkey, hv, req);
        out->created = it != NULL;
    } else if (it != NULL) {
        item_incref(it);
    }
    if (it != NULL) {
        out->fetched_before = item_has_flag(it, ITEM_FETCHED) != 0;
        out->last_access = item_time(it);
        out->old_exptime = item_exptime(it);
        if (req->touch && store_log_ok(it))
            store_set_exptime_locked(it, req->exptime);
        store_mget_win(it, req, out);
        if (!req->no_bump) {
            item_set_flag(it, ITEM_FETCHED);
            lru_bump(it, clock_now());
        }
    }
    hash_unlock(hv);
    return it;
}

item *store_peek(const char *key, size_t nkey) {
    uint32_t hv = hash_key(key, nkey);
    item *it;

    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 0);
    if (it != NULL)
        item_incref(it);
    hash_unlock(hv);
    return it;
}

/* A new structure item under key; stripe lock held, key absent. */
static item *store_struct_new(const char *key, size_t nkey, uint32_t hv, enum item_type type,
                              void *(*make)(const char *, size_t, item *, void *), void *arg,
                              enum store_status *st) {
    item *it = store_alloc_locked(key, nkey, 0, 0, sizeof(void *), st);
    void *p;

    if (it == NULL)
        return NULL;
    it->type = (uint8_t)type;
    p = make(key, nkey, it, arg);
    if (p == NULL) {
        it->type = ITEM_STRING;
        item_release(it);
        *st = STORE_NO_MEMORY;
        return NULL;
    }
    memcpy(item_value(it), &p, sizeof(p));
    store_link_locked(it, hv, 0);
    *st = STORE_STORED;
    return it;
}

item *store_struct_find(const char *key, size_t nkey, enum item_type type,
                        void *(*make)(const char *key, size_t nkey, item *self, void *arg),
                        void *arg, enum store_status *st) {
    uint32_t hv = hash_key(key, nkey);
    item *it;

    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 0);
    if (it != NULL && it->type != type) {
        it = NULL;
        *st = STORE_WRONG_TYPE;
    } else if (it != NULL) {
        item_incref(it);
        *st = STORE_EXISTS;
    } else if (make != NULL) {
        it = store_struct_new(key, nkey, hv, type, make, arg, st);
    } else {
        *st = STORE_NOT_FOUND;
    }
    hash_unlock(hv);
    return it;
}

/* it takes CAS number cas (stripe lock held): in place, unless it is in a
 * segment too far from that number for its header (item_set_cas); then a
 * copy with everything else kept takes its place. Returns the item that
 * holds cas, NULL (nothing changed) without memory. */
static item *store_set_cas_locked(item *it, uint32_t hv, uint64_t cas) {
    item *c;

    if (item_set_cas(it, cas))
        return it;
    if (!store_reserve(item_footprint(it->nkey, it->nbytes)) || (c = lru_recas(it, hv, cas)) == NULL)
        return NULL;
    item_release(it);       /* the table's reference, now c's */
    return c;
}

/* md x: the item stays, with an empty value and a new CAS. */
static enum store_status store_drop_value_locked(item *it, uint32_t hv, uint64_t new_cas) {
    enum store_status st;
    item *n = store_alloc_locked(item_key(it), it->nkey, item_flags(it), item_exptime(it), 2, &st);

    if (n == NULL)
        return STORE_NO_MEMORY;
    memcpy(item_value(n), "\r\n", 2);
    store_replace_locked(it, n, hv, new_cas);
    item_release(n);
    return STORE_DELETED;
}

enum store_status store_meta_delete(const char *key, size_t nkey, const struct store_mdel *req) {
    uint32_t hv = hash_key(key, nkey);
    enum store_status st = STORE_DELETED;
    item *it;

    hash_lock(hv);
    it = store_find_live(key, nkey, hv, 0);
    if (it == NULL) {
        st = STORE_NOT_FOUND;
    } else if (req->cas_in != 0 && !store_client_cas_matches(it, req->cas_in)) {
        st = STORE_EXISTS;
    } else if (!store_log_ok(it)) {
        st = STORE_LOG_FAILED;
    } else if (it->type != ITEM_STRING && (req->stale || req->drop_value)) {
        st = STORE_WRONG_TYPE;
    } else if (req->stale) {
        /* Stale items keep serving; the next reader wins the recache. */
        it = store_set_cas_locked(it, hv, req->new_cas != 0 ? req->new_cas : item_next_cas());
        if (it == NULL) {
            st = STORE_NO_MEMORY;
        } else {
            if (req->touch) {
                item_set_exptime(it, req->exptime);
                store_index_expiry(it, hv);
            }
            item_set_flag(it, ITEM_STALE);
            item_clear_flag(it, ITEM_TOKEN_SENT);
            ilog_set(it);
        }
    } else if (req->drop_value) {
        st = store_drop_value_locked(it, hv, req->new_cas);
    } else {
        store_delete_locked(it, hv);
    }
    hash_unlock(hv);
    return st;
}

/* As memcached: a delay that arrives within a second flushes now, and an
 * absolute time before the server started (1) flushes nothing and ends a
 * delayed flush still to come. */
enum store_status store_flush(int64_t delay, uint64_t *gen) {
    rel_time_t ft = delay > 0 ? clock_exptime(delay) : 0;
    uint64_t fc;

    *gen = 0;
    if (persist_on() && !persist_writable())
        return STORE_LOG_FAILED;      /* queues go too: their ends must be logged */
    if (ft == 1) {
        __atomic_store_n(&store_flush_time, 0, __ATOMIC_RELAXED);
        ilog_flush(0, 0);
    } else if (ft > clock_now() + 1) {
        __atomic_store_n(&store_flush_time, ft, __ATOMIC_RELAXED);
        ilog_flush(0, ft);
    } else {
        __atomic_store_n(&store_flush_time, 0, __ATOMIC_RELAXED);
        pthread_mutex_lock(&store_flush_lock);
        fc = item_peek_cas() + 1;
        __atomic_store_n(&store_flush_cas, fc, __ATOMIC_RELAXED);
        *gen = ++store_flush_gen;
        pthread_mutex_unlock(&store_flush_lock);
        ilog_flush(fc, 0);
        queue_close_all();      /* their waiters hear now, not at next use */
        list_close_all();
    }
    return STORE_OK_FLUSHED;
}

/* ---- restoring at start-up (persistence) ---- */

bool store_item_live(const item *it) {
    rel_time_t now = clock_now();

    return !store_is_expired(it, now) && !store_is_flushed(it, now);
}

void store_set_restoring(bool on) {
    store_restoring = on;
}

void store_set_follower(bool on) {
    __atomic_store_n(&store_follower, on, __ATOMIC_RELAXED);
}

int store_restore_set(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, uint64_t cas,
                      bool stale, const char *value, size_t n) {
    uint32_t hv = hash_key(key, nkey);
    item *it = item_alloc(key, nkey, flags, exptime, n + 2), *old;

    if (it == NULL)
        return -1;
    memcpy(item_value(it), value, n);
    memcpy(item_value(it) + n, "\r\n", 2);
    if (stale)
        item_set_flag(it, ITEM_STALE);
    hash_lock(hv);
    old = hash_find(key, nkey, hv);
    if (old == NULL || old->type == ITEM_STRING)
        store_replace_locked(old, it, hv, cas);
    hash_unlock(hv);
    item_release(it);
    return 0;
}

void store_restore_del_touch(const char *key, size_t nkey, bool touch, rel_time_t exptime) {
    uint32_t hv = hash_key(key, nkey);
    item *it;

    hash_lock(hv);
    it = hash_find(key, nkey, hv);
    if (it != NULL && it->type == ITEM_STRING) {
        if (touch)
            item_set_exptime(it, exptime);
        else
            store_unlink_locked(it, hv);
    }
    hash_unlock(hv);
}

/* Crawl callback: a cache value below the restored flush's CAS goes. */
static uint64_t store_restore_flush_cas;

static int store_restore_flush_pick(item *it) {
    if (it->type != ITEM_STRING || item_cas(it) >= store_restore_flush_cas)
        return 0;
    store_detach_locked(it, STORE_LRU_TAKE);
    return 1;
}

void store_restore_flush(uint64_t flush_cas, rel_time_t flush_time) {
    size_t cursor = 0;

    if (flush_time != 0 || flush_cas == 0) {    /* delayed, or one ended */
        __atomic_store_n(&store_flush_time, flush_time, __ATOMIC_RELAXED);
        return;
    }
    store_restore_flush_cas = flush_cas;
    hash_crawl(&cursor, (size_t)1 << hash_power(), store_restore_flush_pick, item_release);
}

/* Crawl callback, stripe lock held: detaches dead items (the crawl
 * takes them off the hash chain). */
static int store_crawl_pick(item *it) {
    if (!store_dead_pick(it))
        return 0;
    stats_global_add(STATS_CRAWLER_RECLAIMED, 1);
    return 1;
}

static bool store_crawler_on = true;  /* the tick's crawl (lru_crawler enable|disable) */

bool store_crawler_enabled(void) {
    return __atomic_load_n(&store_crawler_on, __ATOMIC_RELAXED);
}

void store_set_crawler(bool on) {
    __atomic_store_n(&store_crawler_on, on, __ATOMIC_RELAXED);
}

/* A delayed flush come due: the keys of the queues and lists it may
 * cover go into the expiry index as due now, so the sweep below takes the
 * covered ones out (their waiters hear, their memory comes back) without
 * waiting for the crawl to reach them. */
static void store_note_due(const char *key, size_t nkey) {
    expiry_add(hash_key(key, nkey), clock_now());
}

static void store_note_flushed_structs(void) {
    rel_time_t ft = __atomic_load_n(&store_flush_time, __ATOMIC_RELAXED);

    if (ft == 0 || ft > clock_now() || ft == store_flush_time_noted)
        return;
    store_flush_time_noted = ft;
    queue_each_key(store_note_due);
    list_each_key(store_note_due);
}

void store_tick(void) {
    size_t n = (size_t)1 << hash_power();

    n /= 32;
    if (n < STORE_CRAWL_MIN)
        n = STORE_CRAWL_MIN;
    if (n > STORE_CRAWL_MAX)
        n = STORE_CRAWL_MAX;
    store_note_flushed_structs();
    expiry_sweep(clock_now(), store_reap_bucket);
    if (store_crawler_enabled())
        hash_crawl(&store_crawl_cursor, n, store_crawl_pick, item_release);
}

static void store_free_linked(item *it) {
    item_clear_flag(it, ITEM_LINKED);
    if (it->type == ITEM_STRING)
        lru_unlink(it);
    item_release(it);
}

void store_destroy(void) {
    hash_destroy(store_free_linked);
    lru_destroy();
    expiry_destroy();
}
