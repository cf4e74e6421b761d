/*
 * store: the one command layer every protocol calls, and the single place
 * through which every mutation of the keyspace passes.
 *
 * Items returned to callers carry a reference the caller must drop with
 * item_release(). Store takes care of expiry, flush, the memory limit and
 * eviction, CAS numbers and the item-level stats.
 */
#ifndef MCDS_STORE_H
#define MCDS_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/item.h"

enum store_op {
    STORE_SET, STORE_ADD, STORE_REPLACE, STORE_APPEND, STORE_PREPEND, STORE_CAS
};

enum store_status {
    STORE_STORED,
    STORE_NOT_STORED,
    STORE_EXISTS,
    STORE_NOT_FOUND,
    STORE_DELETED,
    STORE_TOUCHED,
    STORE_TOO_LARGE,
    STORE_NO_MEMORY,
    STORE_NON_NUMERIC,
    STORE_WRONG_TYPE,       /* the key holds a structure the command does not work on */
    STORE_LOG_FAILED,       /* the log cannot be written (--data-dir): nothing changed */
    STORE_OK_FLUSHED,       /* flush_all done */
};

void store_init(void);
/* fn hears of each live item evicted (stripe lock held): `watch
 * evictions`. */
void store_on_evict(void (*fn)(const item *it));
void store_destroy(void);

/* An unlinked item ready to receive nbytes of value (including "\r\n").
 * On failure returns NULL and sets *status to STORE_TOO_LARGE or
 * STORE_NO_MEMORY. May evict cache items to make room, and waits for the
 * memory a delete or a purge is giving back on the reaper thread before
 * it answers no memory: the caller must hold no lock. */
item *store_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                  size_t nbytes, enum store_status *status);

/* Makes room for need more bytes a structure will take (evicting cache
 * values as store_alloc does); false when they do not fit under -m. */
bool store_reserve(size_t need);

/* The same without the -I check, for a caller that applied its own size
 * rule (a queue message counts only its data against -I). */
item *store_alloc_sized(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                        size_t nbytes, enum store_status *status);

/* A store request with every option the protocols can ask for. */
struct store_req {
    enum store_op op;
    uint64_t cas_in;        /* compare: STORE_CAS, or append/prepend if non-zero */
    uint64_t new_cas;       /* explicit CAS for the stored item (meta E); 0 = next */
    bool set_stale;         /* meta I: a CAS older than the item's stores it as stale */
    bool vivify;            /* meta N: append/prepend on a miss stores it as new */
    rel_time_t viv_exptime;
    bool has_hv;            /* hv is hash_key() of the item's key */
    uint32_t hv;
    uint32_t *stored;       /* if set, told the value bytes (with "\r\n") of
                               what an append or prepend stored */
};

enum store_status store_item_req(item *it, const struct store_req *req, uint64_t *cas_out);

/* Links it according to op. cas_in is the client's CAS for STORE_CAS (and
 * for append/prepend when non-zero). On success *cas_out is the new CAS.
 * The caller keeps (and must release) its own reference to it. */
enum store_status store_item(item *it, enum store_op op, uint64_t cas_in, uint64_t *cas_out);
/* The same, with hv = hash_key() of it's key already computed. */
enum store_status store_item_hv(item *it, uint32_t hv, enum store_op op, uint64_t cas_in,
                                uint64_t *cas_out);

/* A live cache string with a reference, or NULL (a structure under the
 * key reads as a miss). */
item *store_get(const char *key, size_t nkey);
/* A live item of any type with a reference, or NULL. */
item *store_get_any(const char *key, size_t nkey);
/* The same, with hv = hash_key(key, nkey) already computed. */
item *store_get_any_hv(const char *key, size_t nkey, uint32_t hv);
/* Like store_get, and sets the item's exptime (gat, touch). */
item *store_get_touch(const char *key, size_t nkey, rel_time_t exptime);
enum store_status store_touch(const char *key, size_t nkey, rel_time_t exptime);

/* cas_in 0 deletes unconditionally; else it is a client's CAS (with -C
 * none matches). store_delete_exact compares the item's own number. */
enum store_status store_delete(const char *key, size_t nkey, uint64_t cas_in);
enum store_status store_delete_exact(const char *key, size_t nkey, uint64_t cas);
/* Unlinks the cache string under key, without stats (memcached's rule
 * after a failed set). A structure under the key is never touched: a
 * failed store must not lose queued data. */
void store_unlink_key(const char *key, size_t nkey);

/* incr/decr. On STORE_STORED *value and *cas_out hold the new value and CAS. */
enum store_status store_arith(const char *key, size_t nkey, bool incr, uint64_t delta,
                              uint64_t cas_in, uint64_t *value, uint64_t *cas_out);

/* What store_arith_create does with a missing key. */
struct store_arith_init {
    uint64_t initial;       /* stored as the value */
    rel_time_t exptime;
    uint32_t flags;
};

/* incr/decr that, on a missing key, atomically stores init->initial
 * instead (binary increment with an initial value, meta ma N).
 * *created tells which happened. */
enum store_status store_arith_create(const char *key, size_t nkey, bool incr, uint64_t delta,
                                     uint64_t cas_in, const struct store_arith_init *init,
                                     uint64_t *value, uint64_t *cas_out, bool *created);

/* Meta get: options, and what happened under the item's lock. */
struct store_mget {
    bool touch;             /* T: set exptime */
    rel_time_t exptime;
    bool vivify;            /* N: on a miss, create an empty item and win */
    rel_time_t viv_exptime;
    bool recache;           /* R: win if the item expires before recache_time */
    rel_time_t recache_time;
    bool no_bump;           /* u: leave LRU state and the fetched mark alone */
    uint64_t new_cas;       /* E: CAS of a vivified item */
    uint32_t hv;            /* hash_key(key, nkey) */
};

struct store_mget_out {
    bool created;           /* vivified by this request */
    bool won;               /* W: this client should recache */
    bool stale;             /* X */
    bool token_seen;        /* Z: a win was already handed out */
    bool fetched_before;    /* h */
    rel_time_t last_access; /* l: before this request */
    rel_time_t old_exptime; /* before T changed it */
};

item *store_meta_get(const char *key, size_t nkey, const struct store_mget *req,
                     struct store_mget_out *out);

/* Meta delete. */
struct store_mdel {
    uint64_t cas_in;        /* C */
    uint64_t new_cas;       /* E */
    bool stale;             /* I: mark stale instead of deleting */
    bool touch;             /* T (with I) */
    rel_time_t exptime;
    bool drop_value;        /* x: keep the item, empty its value */
};

enum store_status store_meta_delete(const char *key, size_t nkey, const struct store_mdel *req);

/* Arithmetic with every option (meta ma, binary incr/decr). */
struct store_arith_req {
    bool incr;
    uint64_t delta;
    uint64_t cas_in;        /* C */
    uint64_t new_cas;       /* E */
    bool create;            /* create a missing key with initial */
    uint64_t initial;
    uint32_t flags;
    rel_time_t create_exptime;
    bool touch;             /* T: set exptime on success */
    rel_time_t exptime;
};

struct store_arith_out {
    uint64_t value;
    uint64_t cas;
    rel_time_t exptime;
    bool created;
    bool absent;        /* the key held no live item */
};

enum store_status store_arith_ex(const char *key, size_t nkey, const struct store_arith_req *req,
                                 struct store_arith_out *out);

/* The live item under key with a reference, and no side effect (meta me). */
item *store_peek(const char *key, size_t nkey);

/* The structure item of type under key, with a reference. If absent and
 * make is given, make(key, nkey, self, arg) builds the structure for the
 * new item self and returns its pointer (NULL: out of memory); the item
 * is then linked. *st: STORE_STORED (created), STORE_EXISTS (found),
 * STORE_NOT_FOUND, STORE_WRONG_TYPE or STORE_NO_MEMORY. */
item *store_struct_find(const char *key, size_t nkey, enum item_type type,
                        void *(*make)(const char *key, size_t nkey, item *self, void *arg),
                        void *arg, enum store_status *st);

/* flush_all: delay 0 (or less, or a time within the next second)
 * invalidates everything now; otherwise at that time. STORE_LOG_FAILED
 * (nothing done) when the log cannot take it. After an immediate flush
 * (*gen names it; 0 for none) the caller takes the flushed items out with
 * store_flush_reap_step. */
enum store_status store_flush(int64_t delay, uint64_t *gen);
/* Takes the items flush gen covers out of a slice (256 buckets) of the
 * table from *cursor (0 to start) on, one stripe at a time: every item
 * stored before it, whatever CAS E gave it. False while the table grows
 * (call again later). True once the whole table has been walked: if no
 * flush began since, the items stored after it are then live whatever
 * CAS E gave them. */
bool store_flush_reap_step(size_t *cursor, uint64_t gen);
/* Background work (expired item reclaim), called once a second. */
void store_tick(void);
/* The tick's crawl of the table (lru_crawler enable|disable, -o no_lru_crawler). */
bool store_crawler_enabled(void);
void store_set_crawler(bool on);

/* ---- restoring at start-up (persistence) ---- */

/* Whether it is neither expired nor flushed. */
bool store_item_live(const item *it);
/* While on (start-up), restored data is not held to -m (nothing is
 * evicted or refused for it), and no TTL ends a key: a log record was made
 * while its key lived; keys whose TTL has passed go once it is off. */
void store_set_restoring(bool on);
/* A replica (on): no TTL and no flush ends a structure (queue, list, tree
 * counter): its end comes as its primary's record. Cache values expire
 * and are flushed as always (their times are absolute: no record needed). */
void store_set_follower(bool on);
/* A cache value as a log record or snapshot says, with its own CAS; a
 * key holding a structure is left alone. 0, or -1 without memory. */
int store_restore_set(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, uint64_t cas,
                      bool stale, const char *value, size_t n);
/* Deletes the cache value under key, or sets its exptime (touch). */
void store_restore_del_touch(const char *key, size_t nkey, bool touch, rel_time_t exptime);
/* flush_all: cache values below flush_cas go now; or (flush_time) a
 * delayed flush is set. */
void store_restore_flush(uint64_t flush_cas, rel_time_t flush_time);

/* CAS shown to clients (0 when -C disabled it). */
uint64_t store_client_cas(const item *it);

#endif
