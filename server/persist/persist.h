/*
 * persist: durability, when the server runs with --data-dir. The one
 * interface the rest of the server sees: structures log their mutations
 * here, workers ask here whether a connection's replies may go out, and
 * each structure type registers how to replay its records and dump itself
 * into a snapshot.
 *
 * A structure type supplies three things (its own file, e.g.
 * types/queue_persist.c): an encoder its mutations call (which ends in
 * persist_log), apply() for a record at replay, and dump_item() (with
 * load()) for snapshots. Adding a type touches nothing else here but the
 * enum below.
 */
#ifndef MCDS_PERSIST_H
#define MCDS_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cache/item.h"
#include "base/stats.h"

/* The structure type of a record: one byte in every record. */
enum persist_type {
    PERSIST_META = 1,       /* counters' marks, snapshot framing */
    PERSIST_ITEM = 2,       /* cache values (--persist-items) */
    PERSIST_QUEUE = 3,
    PERSIST_LIST = 4,
    PERSIST_CTREE = 5,
    PERSIST_TABLE = 6,
    PERSIST_NTYPES
};

enum persist_fsync { PERSIST_FSYNC_ALWAYS, PERSIST_FSYNC_EVERYSEC, PERSIST_FSYNC_NO };

struct snap_writer;

struct persist_type_ops {
    const char *name;
    /* Replays one log record (at start-up, one thread, before serving).
     * lsn is the record's position. 0, or -1: the record does not apply
     * (a writer's bug: its key is quarantined, persist/replay.h). */
    int (*apply)(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn);
    /* The key a record changes (*nkey its length), NULL for a record of
     * no key (a counter definition, a flush). persist_key_first reads the
     * key every keyed record of the built-in types starts with. */
    const char *(*key_of)(uint8_t op, const uint8_t *p, size_t n, size_t *nkey);
    /* Loads one snapshot entry; 0 or -1 as apply. */
    int (*load)(uint8_t op, const uint8_t *p, size_t n);
    /* Writes the structure held by it (an item of this type, referenced
     * by the caller) into the snapshot: 0, or -1 on a write error. */
    int (*dump_item)(struct snap_writer *w, item *it);
    /* Optional: writes what the type holds outside the keyspace (tree
     * counters: their whole world, at one instant) before the keyspace
     * is walked: 0, or -1 on a write error. */
    int (*dump_all)(struct snap_writer *w);
};

/* it: the item type whose items dump_item writes; ITEM_NTYPES for a type
 * that holds nothing in the keyspace (tables). */
void persist_register(enum persist_type t, enum item_type it, const struct persist_type_ops *ops);

/* What persistence needs from the layers above it (the workers, the
 * queues), given once at start-up, before persist_start (persist_init
 * also adds persistence's figures to `stats`). */
struct persist_host {
    /* More of the log is durable: replies held for it may go (any thread). */
    void (*wake_held)(void);
    /* Connections whose replies wait for the log; those closed after
     * --log-stall-timeout (for stats). */
    uint64_t (*held_count)(void);
    uint64_t (*stalled_closes)(void);
    /* Message ids go on above v. */
    void (*id_floor)(uint64_t v);
};
void persist_init(const struct persist_host *h);
const char *persist_key_first(const uint8_t *p, size_t n, size_t *nkey);

/* ---- configuration and life ---- */

/* Recovers from settings.data_dir (newest snapshot, then the log after
 * it), opens the log and starts the sync thread. Nothing happens without
 * --data-dir. -1: start-up must stop (the reason is logged). */
int persist_start(void);
/* The server's loops run: automatic snapshots may start (one needs every
 * loop to pause). */
void persist_serving(void);
/* Writes and syncs the log, stops the threads, closes files. */
void persist_stop(void);
bool persist_on(void);
/* True while records are replayed at start-up: nothing is logged then. */
bool persist_replaying(void);

/* ---- logging mutations ---- */

/* Whether a mutation may go ahead: false when the log cannot be written
 * (disk full, I/O error): the command answers SERVER_ERROR and changes
 * nothing. Always true without --data-dir. */
bool persist_writable(void);
/* Appends a record; call it under the lock of the structure changed, so
 * that the records of one structure keep their order. No-op when off. */
void persist_log(enum persist_type t, uint8_t op, const struct iovec *iov, int niov);
/* The record every type logs for a key's TTL: the key, then the Unix time
 * it expires at (0: never). */
void persist_log_ttl(enum persist_type t, uint8_t op, const char *key, size_t nkey, uint64_t unix_time);
/* debugrecord (--debug): appends a raw record, as a writer with a bug
 * would. */
void persist_debug_record(uint8_t type, uint8_t op, const void *p, size_t n);
/* The log position now (a snapshot of a structure records it). */
uint64_t persist_position(void);

/* ---- replies ---- */

/* End position of the last record this thread logged. */
uint64_t persist_thread_end(void);
/* Around one command: the records it logs reach the file together, so
 * that a crash keeps all of them or none (doc/persistence.md, "What each
 * --fsync policy guarantees"). */
void persist_cmd_begin(void);
void persist_cmd_end(void);
/* debuggrouppause (--debug): the next command that logs waits ms after
 * its first record, its records held back from the file meanwhile. */
void persist_debug_cmd_pause(unsigned ms);
/* Makes the records up to lsn durable enough for a reply under the fsync
 * policy: written to the kernel (everysec, no), or on disk (always).
 * true: the reply may go now. false: it waits; persist calls
 * workers_wake_held() once more is durable. */
bool persist_commit(uint64_t lsn);
/* Whether the records up to lsn are durable enough for a reply now. */
bool persist_durable(uint64_t lsn);
/* Whether the log cannot be written now (replies waiting for it stall). */
bool persist_stalled(void);

/* ---- snapshots ---- */

/* Starts a snapshot in the background: 0, or -1 (one is running, or
 * persistence is off; *why says which). */
int persist_snapshot(const char **why);
/* debugsnappause (--debug): the next snapshot waits ms after choosing its
 * log position P, before the log is cut at P (CUT) or before anything is
 * copied (COPY). */
enum persist_pause_stage { PERSIST_PAUSE_CUT, PERSIST_PAUSE_COPY, PERSIST_PAUSE_NSTAGES };
void persist_debug_snapshot_pause(enum persist_pause_stage stage, unsigned ms);


/* ---- replication (doc/replication.md) ---- */

/* A replica (before persist_start, or at run time): its log holds only
 * its primary's records, appended by persist_follow_apply; anything else
 * would log is dropped and counted (a bug: the log must stay the
 * primary's byte for byte), and a start-up logs no marks. */
void persist_follow(bool on);
uint64_t persist_local_dropped(void);
/* Applies the whole records of p[0, n) (a primary's log from this
 * server's position on) and appends each to the log: 0, or -1 when the
 * bytes are not records, a record could not be appended at its primary's
 * position, or replay must stop (no memory). *records counts those
 * applied. The caller holds every thread that changes the keyspace. */
int persist_follow_apply(const uint8_t *p, size_t n, uint64_t *records);
/* The highest CAS and id marks the records applied so far held. */
void persist_follow_marks(uint64_t *cas, uint64_t *ids);
/* Records applied that did not apply (or were of a quarantined key), and
 * keys quarantined, as a restart's replay counts them (replay.h). */
void persist_follow_skipped(uint64_t *skipped, uint64_t *quarantined);
/* Shutdown: frees what applying kept (persist_stop calls it). */
void persist_follow_free(void);
/* Records up to lsn written (and synced under --fsync always): 0 or -1. */
int persist_flush_to(uint64_t lsn);
/* Promotion: logging resumes, and CAS numbers and message ids go on 2^32
 * above the highest marks seen (cas_seen, id_seen, and the start-up's),
 * as after a restart. */
void persist_promote(uint64_t cas_seen, uint64_t id_seen);
/* The log written to the kernel up to here (what a primary may send). */
uint64_t persist_written(void);
/* fn runs each time more of the log is written (any thread, often: it
 * must be short; a primary's senders are woken by it). */
void persist_set_written_hook(void (*fn)(void));
/* Bytes of torn tail the start-up cut off the log (0: none). */
uint64_t persist_torn_cut(void);
bool persist_snapshot_running(void);

/* Unique-number high-water marks (CAS, message ids): a restart continues
 * above anything handed out before it. */
void persist_mark_cas(uint64_t upto);
void persist_mark_ids(uint64_t upto);

#endif
