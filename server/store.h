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

#include "item.h"

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
};

void store_init(void);
void store_destroy(void);

/* An unlinked item ready to receive nbytes of value (including "\r\n").
 * On failure returns NULL and sets *status to STORE_TOO_LARGE or
 * STORE_NO_MEMORY. May evict cache items to make room. */
item *store_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime,
                  size_t nbytes, enum store_status *status);

/* Links it according to op. cas_in is the client's CAS for STORE_CAS (and
 * for append/prepend when non-zero). On success *cas_out is the new CAS.
 * The caller keeps (and must release) its own reference to it. */
enum store_status store_item(item *it, enum store_op op, uint64_t cas_in, uint64_t *cas_out);

/* A live item with a reference, or NULL. */
item *store_get(const char *key, size_t nkey);
/* Like store_get, and sets the item's exptime (gat, touch). */
item *store_get_touch(const char *key, size_t nkey, rel_time_t exptime);
enum store_status store_touch(const char *key, size_t nkey, rel_time_t exptime);

/* cas_in 0 deletes unconditionally. */
enum store_status store_delete(const char *key, size_t nkey, uint64_t cas_in);
/* Unlinks whatever is under key, without stats (used after a too-large set). */
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

/* flush_all: delay 0 invalidates everything now; otherwise at that time. */
void store_flush(int64_t delay);
/* Background work (expired item reclaim), called once a second. */
void store_tick(void);

/* CAS shown to clients (0 when -C disabled it). */
uint64_t store_client_cas(const item *it);

#endif
