/*
 * mcds.h - libmcds, the mcds data structures as a C library over libmemcached.
 *
 * One public header. Every type is an opaque handle (mcds_t, mcds_lock_t ...)
 * or a plain result record (mcds_item_t, mcds_event_t). Every call returns an
 * mcds_status_t from the one table below; mcds_strerror() describes it.
 *
 * Keys: each structure lives under "mcds:<kind>:<name>..." and all keys of one
 * structure are sent to one server (libmemcached's *_by_key with the
 * structure's base key as group key), so its atomic steps stay atomic when the
 * handle spans a pool of servers with consistent hashing.
 *
 * Threads: a handle (mcds_t) and every object made from it belong to one
 * thread at a time. Give each thread its own handle (mcds_clone), or wrap a
 * memcached_st popped from libmemcached's memcached_pool_st (mcds_wrap).
 * See doc/libmcds.md for the full guide.
 */
#ifndef MCDS_H
#define MCDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCDS_VERSION "0.1.0"

/* ==== Status codes: one table, expanded into the enum and mcds_strerror ==== */

#define MCDS_STATUS_MAP(XX)                                                   \
    XX(OK, "success")                                                         \
    XX(NOT_FOUND, "not found")                                                \
    XX(EXISTS, "already exists")                                              \
    XX(BUSY, "lock is held by another owner")                                 \
    XX(TIMEOUT, "deadline passed before the operation could complete")       \
    XX(NOT_OWNER, "lock not held by this owner (expired or taken over)")      \
    XX(CONFLICT, "too much contention: compare-and-set retries ran out")      \
    XX(OUT_OF_RANGE, "counter would leave its range")                         \
    XX(KEY_TOO_LONG, "key too long (memcached keys are at most 250 bytes)")   \
    XX(TOO_LARGE, "value too large for the server's item size limit")         \
    XX(INVALID, "invalid argument")                                           \
    XX(SERVER_DOWN, "server unreachable or connection lost")                  \
    XX(SERVER_ERROR, "the server answered with an error")                     \
    XX(CORRUPT, "stored value is not in the format libmcds wrote")            \
    XX(NO_MEMORY, "out of memory")                                            \
    XX(UNSUPPORTED, "operation not supported by this server")                 \
    XX(FAILURE, "unexpected client library failure")                          \
    XX(FULL, "the queue or list is at its maximum length")                    \
    XX(WRONG_TYPE, "the key holds another type of value")                    \
    XX(LIMIT, "a limit refused the increment; nothing changed")

typedef enum {
#define MCDS_STATUS_ENUM(name, text) MCDS_##name,
    MCDS_STATUS_MAP(MCDS_STATUS_ENUM)
#undef MCDS_STATUS_ENUM
    MCDS_STATUS_COUNT
} mcds_status_t;

/* A sentence describing status; never NULL (unknown codes get a fixed text). */
const char *mcds_strerror(mcds_status_t status);
/* The code's name without prefix, e.g. "NOT_FOUND"; never NULL. */
const char *mcds_status_name(mcds_status_t status);

/* ==== Results ==== */

/* One element, member or field. data is NUL-terminated after len bytes. */
typedef struct mcds_item {
    const char *data;
    size_t len;
} mcds_item_t;

/* One event of an event log: its time (ms since the Unix epoch) and bytes. */
typedef struct mcds_event {
    int64_t time_ms;
    const char *data;
    size_t len;
} mcds_event_t;

/* Results are single allocations; free them with these (NULL is fine). */
void mcds_items_free(mcds_item_t *items);
void mcds_events_free(mcds_event_t *events);
void mcds_value_free(char *value);

/* ==== Handle ==== */

typedef struct mcds mcds_t;
struct memcached_st;

/* servers: "host:port[,host:port...]" (an entry may also be
 * host:port:weight, [IPv6]:port[:weight] or a UNIX socket path "/..."; port
 * 1..65535, weight 1..2^32-1; spaces around entries are ignored), or a
 * libmemcached configuration string starting with "--". Every entry of a
 * plain list is checked: MCDS_INVALID for an empty entry or any malformed
 * one. Keys are spread with ketama consistent hashing. No connection is
 * made until the first call.
 * An entry may name a replica set: its first address (the shard's service
 * address, with the weight if any), then up to 7 replicas, each after "="
 * ("10.0.0.9:11211=10.0.0.2:11211=10.0.0.3:11211"; a replica takes no
 * weight; a socket path member cannot hold "="). Keys are placed by the
 * first address alone, as a plain entry with it. Every request libmcds
 * sends for such a shard goes to its current primary (at first the service
 * address) and is sent again only when it surely was not applied: after a
 * failed connect (the other members are tried in list order, the service
 * address again last) or a refusal as a replica ("SERVER_ERROR read-only
 * replica of H:P" sends it to H:P), for up to the retry timeout
 * (mcds_set_retry_timeout); the member that accepts is the shard's
 * primary from then on, for this handle. A connection lost after the
 * request was written, a timeout and "not confirmed by enough replicas"
 * are returned, never retried. Entries without "=" behave as before. */
mcds_status_t mcds_open(mcds_t **out, const char *servers);
/* Use an existing memcached_st (borrowed: mcds_close does not free it).
 * Turns on CAS support; refuses handles set to noreply or buffering. */
mcds_status_t mcds_wrap(mcds_t **out, struct memcached_st *mc);
/* A new handle with its own connections and the same servers and settings. */
mcds_status_t mcds_clone(mcds_t **out, const mcds_t *h);
void mcds_close(mcds_t *h);

/* The underlying libmemcached handle, for plain cache operations. It knows
 * only the first address of each entry: requests made with it directly do
 * not follow a primary that changes address (on a replica set, make the
 * first address keepalived's service address, which moves with the
 * primary). */
struct memcached_st *mcds_memcached(mcds_t *h);
/* What happened to the last request libmcds sent on h, when it did not
 * succeed: "<host>:<port>: <the server's reply or the connection's
 * failure>", e.g. "127.0.0.1:11211: connect: Connection refused"; "" when
 * it succeeded. Calls that fail before sending anything leave it as it
 * was; requests made directly with libmemcached do not change it. */
const char *mcds_last_detail(mcds_t *h);
/* Bound on compare-and-set retry loops and internal lock waits (default
 * 5000 ms). Calls that run out of time return MCDS_CONFLICT or MCDS_TIMEOUT.
 * Also the bound on a call's attempts on a replica set (see mcds_open),
 * which then returns its last failure (MCDS_SERVER_DOWN, or the refusal as
 * MCDS_SERVER_ERROR). */
void mcds_set_retry_timeout(mcds_t *h, unsigned ms);
/* on non-zero: on the entries that name replicas, reads go to the replicas
 * (the members other than the shard's current primary), one after the
 * other; a replica that cannot be connected to or refuses as stale is
 * skipped, and the primary answers when none can. Replication is
 * asynchronous: such a read may not see the caller's own last write. The
 * reads are those of queues (stats, peeks, info, lists), lists (length,
 * ranges, positions, membership), tree counters, table rows (mcds_tget),
 * and mcds_counter_get,
 * mcds_array_fetch, mcds_table_has and mcds_hash_get. Pops and leases,
 * locks, sequences, table cursors (mcds_tselect, mcds_tscan, mcds_tnext)
 * and every read that goes with a later write stay on the primary. Off
 * (0) by default: every call goes to the primary (read-your-writes).
 * A replica that could not be reached (refused, unreachable, connect
 * timeout) or refused as stale is skipped by these reads for the reconnect
 * delay (mcds_set_reconnect_delay), then tried again by the next one: an
 * answer clears it, another failure doubles the delay (up to 30 s, or the
 * delay when longer). */
void mcds_set_read_replicas(mcds_t *h, int on);
/* Connect and per-request I/O timeout in ms (default 2000). */
mcds_status_t mcds_set_io_timeout(mcds_t *h, unsigned ms);
/* How long a server that failed (refused, reset, timed out) is left alone:
 * meanwhile calls for its keys return MCDS_SERVER_DOWN at once, without
 * trying it, even if it is back. libmemcached counts whole seconds of the
 * wall clock, so the wait is between seconds and seconds + 1 (default 2: a
 * restarted server is used again 2 to 3 s after the failure). 0: every call
 * tries the server again (a server that is down then costs each call a
 * connect: at once when refused, up to the I/O timeout when the host does
 * not answer). At most 86400; MCDS_INVALID above. Queue calls are not
 * affected: they always try again. On an entry that names replicas it is
 * how long replica reads (mcds_set_read_replicas) skip a member that could
 * not be reached or refused as stale (0: never skipped); no call there
 * fails at once for it. */
mcds_status_t mcds_set_reconnect_delay(mcds_t *h, unsigned seconds);

/* ==== Lock: add with a TTL, an owner token, compare-and-delete release ==== */

typedef struct mcds_lock mcds_lock_t;

/* A lock object for name; ttl_s (>= 2) bounds how long a crashed holder can
 * block others. Makes no request. */
mcds_status_t mcds_lock_new(mcds_t *h, const char *name, unsigned ttl_s,
                            mcds_lock_t **out);
/* One attempt: MCDS_OK (now held) or MCDS_BUSY. Not recursive. */
mcds_status_t mcds_lock_try(mcds_lock_t *lock);
/* Attempts until held or timeout_ms passed (backoff with jitter, 1..100 ms
 * between attempts): MCDS_OK or MCDS_TIMEOUT. */
mcds_status_t mcds_lock_acquire(mcds_lock_t *lock, unsigned timeout_ms);
/* Releases only if this object still owns the lock: MCDS_OK, or
 * MCDS_NOT_OWNER when it expired (and perhaps was taken by another). */
mcds_status_t mcds_lock_release(mcds_lock_t *lock);
/* Sets a new TTL from now if still owned: MCDS_OK or MCDS_NOT_OWNER. */
mcds_status_t mcds_lock_extend(mcds_lock_t *lock, unsigned ttl_s);
/* The owner token of the current acquisition ("" when not held). */
const char *mcds_lock_token(const mcds_lock_t *lock);
/* Frees the object; does not release a held lock (it expires). */
void mcds_lock_free(mcds_lock_t *lock);

/* ==== Counter: signed, created race-free ==== */

/* The range of a counter: [-2^61, 2^61 - 1]. */
#define MCDS_COUNTER_MIN (-INT64_C(2305843009213693952))
#define MCDS_COUNTER_MAX INT64_C(2305843009213693951)

/* Adds delta (may be negative) and returns the new value. A missing counter
 * starts at 0. Values are stored offset by 2^61, so memcached's unsigned
 * incr/decr give signed results and the stored number never reaches 2^63
 * (memcached misreads such numbers at random). The two ends differ, as
 * memcached's do: going below MCDS_COUNTER_MIN stops there silently
 * (memcached's decr stops at 0 in one step and answers 0 either way, so
 * libmcds cannot tell it happened); an increment past MCDS_COUNTER_MAX is
 * seen in its result, undone with a decr, and returns MCDS_OUT_OF_RANGE.
 * Until the undo lands (one round trip), other clients may read the
 * overshoot (mcds_counter_get: MCDS_CORRUPT) or get MCDS_OUT_OF_RANGE for
 * an increment that would have fitted. See doc/libmcds.md. */
mcds_status_t mcds_counter_incr(mcds_t *h, const char *name, int64_t delta,
                                int64_t *value);
/* The current value; MCDS_NOT_FOUND if the counter does not exist. */
mcds_status_t mcds_counter_get(mcds_t *h, const char *name, int64_t *value);
/* MCDS_OUT_OF_RANGE for a value outside the counter range. */
mcds_status_t mcds_counter_set(mcds_t *h, const char *name, int64_t value);
mcds_status_t mcds_counter_delete(mcds_t *h, const char *name);

/* ==== Sequence: unique IDs from reserved blocks ==== */

typedef struct mcds_seq mcds_seq_t;

/* A generator that reserves block IDs per server round trip (1..1000000). */
mcds_status_t mcds_seq_new(mcds_t *h, const char *name, uint32_t block,
                           mcds_seq_t **out);
/* The next ID (IDs start at 1). Unique across all processes; unused IDs of
 * a block are lost when the generator is freed or its process dies. */
mcds_status_t mcds_seq_next(mcds_seq_t *seq, uint64_t *id);
void mcds_seq_free(mcds_seq_t *seq);
/* Raises the sequence to floor (gets/cas; never lowers it), so that every
 * block reserved after it returns holds IDs greater than floor; for
 * seeding after the key was lost, e.g. from the largest ID in your
 * database. Blocks that generators already hold, in this process or any
 * other, are not affected: they hand out the rest of their IDs, which may
 * be <= floor. Free those generators (or raise before making them). */
mcds_status_t mcds_seq_raise(mcds_t *h, const char *name, uint64_t floor);

/* ==== Event log: a ring of chunk keys, each time_chunk_s long ====
 *
 * With n = num_chunks and C = time_chunk_s, an event belongs to the chunk
 * p = time_ms / (C * 1000). Guarantees, counted by the server's
 * whole-second clock, for clients whose clocks agree to well under a
 * second (a clock off by e moves each bound by e):
 *  - an accepted event is readable from the return of its mcds_log_put
 *    until at least the end of its chunk plus n-1 chunks, (p + n) * C s:
 *    at least (n-1)*C seconds after its time, the retention;
 *  - it is gone 3 s after that at the latest (plus any delay of the
 *    server's clock tick): at most n*C + 3 seconds after its time;
 *  - mcds_log_put accepts a time in the current chunk of this machine's
 *    clock or in one of the n-2 chunks before it: an event may be late by
 *    (n-2)*C s and, depending on where the current chunk is, up to
 *    (n-1)*C s; it then stays readable for more than C s after its put
 *    (and for (n-1)*C - L s when it is L s late);
 *  - so a reader that reads at least once every C seconds gets every event
 *    exactly once, late ones included (with events at most L s late, once
 *    every (n-1)*C - L s is enough).
 * The ring has n + ceil(4 / C) keys: the spare ones keep a slot unused for
 * 4 s or more after its chunk's guarantee ends. */

typedef struct mcds_log mcds_log_t;
typedef struct mcds_log_reader mcds_log_reader_t;

/* num_chunks 2..1000, a retention (num_chunks-1)*time_chunk_s of at least
 * 4 s, and num_chunks*time_chunk_s at most 2591998 s (a chunk's TTL must
 * stay within memcached's 30 days), else MCDS_INVALID. Makes no request. */
mcds_status_t mcds_log_new(mcds_t *h, const char *name, unsigned time_chunk_s,
                           unsigned num_chunks, mcds_log_t **out);
/* Appends one event: MCDS_INVALID for a time outside the chunks above,
 * MCDS_TOO_LARGE when its chunk would exceed the server's item size. */
mcds_status_t mcds_log_put(mcds_log_t *log, int64_t time_ms, const void *data,
                           size_t len);
/* Exactly the retained events with first_ms <= time <= last_ms, sorted by
 * time (ties in append order), read with one multi-get. */
mcds_status_t mcds_log_fetch(mcds_log_t *log, int64_t first_ms,
                             int64_t last_ms, mcds_event_t **events,
                             size_t *count);
/* Deletes every chunk of the log. */
mcds_status_t mcds_log_clear(mcds_log_t *log);
void mcds_log_free(mcds_log_t *log);

/* An incremental reader: each mcds_log_read returns the events with time >=
 * since_ms appended after the previous read, each event exactly once, late
 * events included, when it reads at least once every time_chunk_s
 * seconds (see above). */
mcds_status_t mcds_log_reader_new(mcds_log_t *log, int64_t since_ms,
                                  mcds_log_reader_t **out);
mcds_status_t mcds_log_read(mcds_log_reader_t *reader, mcds_event_t **events,
                            size_t *count);
void mcds_log_reader_free(mcds_log_reader_t *reader);

/* ==== Array, rarely written: one key, changed with gets/cas ==== */

/* The whole array (empty if it does not exist). */
mcds_status_t mcds_array_fetch(mcds_t *h, const char *name,
                               mcds_item_t **items, size_t *count);
/* Atomically removes every element equal to one of del, then appends add. */
mcds_status_t mcds_array_change(mcds_t *h, const char *name,
                                const mcds_item_t *add, size_t nadd,
                                const mcds_item_t *del, size_t ndel);
mcds_status_t mcds_array_delete(mcds_t *h, const char *name);

/* ==== Array, often appended: a log of +x / -x operations ==== */

typedef struct mcds_oparray mcds_oparray_t;

/* shards (1..256) spreads elements over that many keys by hash. */
mcds_status_t mcds_oparray_new(mcds_t *h, const char *name, unsigned shards,
                               mcds_oparray_t **out);
/* A shard whose log is longer than bytes (default 65536) is compacted by
 * the next fetch when compaction would make it at least a quarter smaller. */
void mcds_oparray_set_compact_threshold(mcds_oparray_t *arr, size_t bytes);
/* Appends "+x"; never locks, never reads. */
mcds_status_t mcds_oparray_add(mcds_oparray_t *arr, const void *data,
                               size_t len);
/* Appends "-x": removes every earlier x. */
mcds_status_t mcds_oparray_remove(mcds_oparray_t *arr, const void *data,
                                  size_t len);
/* Replays the log (insertion order within a shard). */
mcds_status_t mcds_oparray_fetch(mcds_oparray_t *arr, mcds_item_t **items,
                                 size_t *count);
/* Rewrites every shard that has removals as its live elements (cas). */
mcds_status_t mcds_oparray_compact(mcds_oparray_t *arr);
mcds_status_t mcds_oparray_delete(mcds_oparray_t *arr);
void mcds_oparray_free(mcds_oparray_t *arr);

/* ==== Table: set of strings, shadow key per member + member list ==== */

/* MCDS_OK when added, MCDS_EXISTS when already a member. */
mcds_status_t mcds_table_add(mcds_t *h, const char *name, const void *member,
                             size_t len);
/* MCDS_OK when removed, MCDS_NOT_FOUND when not a member. */
mcds_status_t mcds_table_delete(mcds_t *h, const char *name,
                                const void *member, size_t len);
/* One get of the shadow key: MCDS_OK (member) or MCDS_NOT_FOUND. */
mcds_status_t mcds_table_has(mcds_t *h, const char *name, const void *member,
                             size_t len);
/* The member list (empty if the table does not exist). */
mcds_status_t mcds_table_fetch(mcds_t *h, const char *name,
                               mcds_item_t **members, size_t *count);
/* Removes every member and the table itself. */
mcds_status_t mcds_table_drop(mcds_t *h, const char *name);

/* ==== Hash: the table variant with a value per member (field) ==== */

/* Creates or replaces field's value. */
mcds_status_t mcds_hash_set(mcds_t *h, const char *name, const void *field,
                            size_t flen, const void *value, size_t vlen);
/* One get: *value is NUL-terminated, free it with mcds_value_free. */
mcds_status_t mcds_hash_get(mcds_t *h, const char *name, const void *field,
                            size_t flen, char **value, size_t *vlen);
mcds_status_t mcds_hash_delete(mcds_t *h, const char *name, const void *field,
                               size_t flen);
/* The field names. */
mcds_status_t mcds_hash_fields(mcds_t *h, const char *name,
                               mcds_item_t **fields, size_t *count);
/* Fields and values in one multi-get: items[2i] is a field, items[2i+1] its
 * value; *count is the number of pairs. */
mcds_status_t mcds_hash_fetch(mcds_t *h, const char *name,
                              mcds_item_t **items, size_t *count);
mcds_status_t mcds_hash_drop(mcds_t *h, const char *name);

/* ==== Extended verbs of mcds-server ====
 *
 * Wrappers for mcds's own verbs (queues and lists now; tree counters later)
 * are declared here. They speak mcds's text protocol over connections of
 * their own, one per server, kept in the handle (opened on first use,
 * reopened after an error, bounded by mcds_set_io_timeout), to the server
 * that owns the key (memcached_server_by_key). A server without the verb
 * (stock memcached) gives MCDS_UNSUPPORTED. See doc/libmcds.md. */

/* ---- Queue: mcds-server's queue verbs (doc/protocol.md, "3. Queues") ----
 *
 * queue is the key itself (not escaped, so any client can use the queue):
 * 1..250 bytes, no space or control character (MCDS_INVALID,
 * MCDS_KEY_TOO_LONG). It picks its server like any key; a name holding
 * "{tag}" is placed by tag alone, so "{jobs}" and its dead letters in
 * "{jobs}:dead" share a server. */

#define MCDS_QUEUE_NAME_MAX 250
#define MCDS_QUEUE_POP_MAX 100          /* messages per mcds_queue_pop */
#define MCDS_QUEUE_PRIORITY_DEFAULT 1024u

/* Options of mcds_queue_create; a zero field (or NULL opts) keeps the
 * server's default. */
typedef struct mcds_queue_opts {
    unsigned lease_ms;        /* default lease (server default 30 s) */
    uint32_t max_deliveries;  /* dead-letter a message after this many */
    uint64_t max_length;      /* bound on ready + delayed + in flight */
    const char *dlq;          /* dead-letter queue (default "<queue>:dead") */
    unsigned max_age_ms;      /* dead-letter a message not acked this long
                                 after its push (0: no maximum age) */
    unsigned dedup_window_ms; /* how long a push's deduplication id is
                                 remembered (0: the server's 300 s) */
    int expired_drop;         /* non-zero: a message past its ttl or
                                 max_age_ms is dropped, not dead-lettered
                                 (qcreate expired=drop) */
} mcds_queue_opts_t;

/* One leased message. data is NUL-terminated after len bytes. */
typedef struct mcds_queue_msg {
    uint64_t id;
    uint32_t flags;
    uint32_t deliveries;      /* 1 on the first delivery */
    const char *data;
    size_t len;
} mcds_queue_msg_t;

/* A queue's counters and options (qstats). */
typedef struct mcds_queue_stats {
    uint64_t ready, delayed, in_flight, waiters;
    uint64_t pushed, popped, acked, released, lease_expired, dead, purged;
    uint64_t age_oldest_ready_s;
    uint64_t lease_ms, max_deliveries, max_length; /* 0: no limit */
    char dlq[MCDS_QUEUE_NAME_MAX + 1];
    uint64_t max_age_ms;      /* 0: no maximum age */
    uint64_t expired_age;     /* dead-lettered for their age */
    uint64_t buried;          /* dead letters waiting for room in the dlq */
    uint64_t redriven;        /* sent from this queue back to their sources
                                 (qredrive; since the last restart) */
    uint64_t kicked;          /* buried, made ready again (qkick; since the
                                 last restart) */
    uint64_t dedup_window_ms; /* how long deduplication ids are remembered */
    uint64_t dedup_entries;   /* deduplication ids remembered now */
    uint64_t deduplicated;    /* pushes not queued again because of one
                                 (since the last restart) */
    uint64_t paused_ms_left;  /* until deliveries resume (0: not paused) */
    uint64_t grouped;         /* messages waiting behind their FIFO group's
                                 head (mcds_push_opts_t.group) */
    uint64_t groups;          /* FIFO groups with messages */
    uint64_t expired_ttl;     /* sent off past their own ttl (since the
                                 last restart) */
    uint64_t dropped;         /* expired and dropped (expired=drop) */
    int expired_drop;         /* expired messages are dropped (expired=drop) */
} mcds_queue_stats_t;

/* MCDS_OK (created) or MCDS_EXISTS (already there; options unchanged). */
mcds_status_t mcds_queue_create(mcds_t *h, const char *queue,
                                const mcds_queue_opts_t *opts);
/* Queues a message (creating the queue if missing); *id (may be NULL) is
 * its id. delay_s follows exptime rules (0 now, up to 2592000 relative
 * seconds, larger an absolute Unix time). Lower priority is served first.
 * MCDS_FULL at max_length, MCDS_TOO_LARGE over the item size, MCDS_NO_MEMORY
 * when the server has no room. */
mcds_status_t mcds_queue_push(mcds_t *h, const char *queue, const void *data,
                              size_t len, uint32_t flags, uint32_t delay_s,
                              uint32_t priority, uint64_t *id);
/* mcds_queue_push with a deduplication id (qpush dedup=): dedup is 1 to
 * MCDS_QUEUE_DEDUP_MAX bytes with no space or control character
 * (MCDS_INVALID otherwise). A push of an id the queue still remembers (its
 * window: mcds_queue_opts_t.dedup_window_ms, default 300 s) queues nothing
 * and *id gets the id of the message the first push queued: a producer
 * that did not get its reply pushes again with the same id, and the
 * message is in the queue once. */
#define MCDS_QUEUE_DEDUP_MAX 128
mcds_status_t mcds_queue_push_dedup(mcds_t *h, const char *queue, const void *data,
                                    size_t len, uint32_t flags, uint32_t delay_s,
                                    uint32_t priority, const char *dedup, uint64_t *id);
/* What else a push may say, for mcds_queue_push_opts and
 * mcds_queue_push_many_opts: zero it ({0}), then set what is wanted.
 * - dedup: a deduplication id, as mcds_queue_push_dedup (NULL: none);
 * - group: a FIFO group (qpush group=): 1 to MCDS_QUEUE_GROUP_MAX bytes
 *   with no space or control character (NULL: none). The messages of one
 *   group are delivered one at a time, in push order: the next only once
 *   the one before it is acked, dead-lettered or purged; other groups are
 *   served meanwhile. A grouped push takes no delay (delay_s must be 0);
 * - ttl_ms: each message's time to live (qpush ttl=; 0: none, at most
 *   MCDS_QUEUE_TTL_MAX_MS): not acked this long after its push, it goes
 *   to the dead-letter queue, or is dropped (mcds_queue_opts_t.expired_drop);
 * - reserved: 0 (room for options to come; anything else is MCDS_INVALID). */
#define MCDS_QUEUE_GROUP_MAX 128
#define MCDS_QUEUE_TTL_MAX_MS 100000000000ULL
typedef struct {
    const char *dedup;
    const char *group;
    uint64_t ttl_ms;
    uint64_t reserved[3];
} mcds_push_opts_t;
mcds_status_t mcds_queue_push_opts(mcds_t *h, const char *queue, const void *data,
                                   size_t len, uint32_t flags, uint32_t delay_s,
                                   uint32_t priority, const mcds_push_opts_t *opts,
                                   uint64_t *id);
/* Pauses the queue's deliveries for pause_ms (qpause; 0 resumes): pops
 * find nothing (a waiting pop waits for the end of the pause), pushes and
 * leases go on. MCDS_NOT_FOUND for no such queue. */
mcds_status_t mcds_queue_pause(mcds_t *h, const char *queue, unsigned pause_ms);
/* Leases up to max (1..MCDS_QUEUE_POP_MAX) ready messages for lease_ms (0:
 * the queue's lease). With none ready, waits up to wait_ms for one (0: no
 * wait). MCDS_OK with *count 0 when there is nothing (or no queue). Free
 * *msgs with mcds_queue_msgs_free. */
mcds_status_t mcds_queue_pop(mcds_t *h, const char *queue, unsigned max,
                             unsigned lease_ms, unsigned wait_ms,
                             mcds_queue_msg_t **msgs, size_t *count);
void mcds_queue_msgs_free(mcds_queue_msg_t *msgs);
/* Confirms a leased message: MCDS_OK, or MCDS_NOT_FOUND (unknown id, acked
 * already, lease ran out, no such queue). */
mcds_status_t mcds_queue_ack(mcds_t *h, const char *queue, uint64_t id);
/* Gives a leased message back, ready again after delay_s (exptime rules). */
mcds_status_t mcds_queue_release(mcds_t *h, const char *queue, uint64_t id,
                                 uint32_t delay_s);
/* Extends a lease to lease_ms from now (0: the queue's lease). */
mcds_status_t mcds_queue_touch(mcds_t *h, const char *queue, uint64_t id,
                               unsigned lease_ms);
/* Batches of up to MCDS_QUEUE_BATCH_MAX ids in one request (each acts as
 * the single call above): results[i] (n of them) gets MCDS_OK or
 * MCDS_NOT_FOUND for ids[i]; a repeated id is MCDS_NOT_FOUND the second
 * time. The call returns MCDS_OK when every id got its result, MCDS_INVALID
 * for n 0 or over the maximum, or the error that refused the whole batch
 * (then nothing was done and results[] is not set). */
#define MCDS_QUEUE_BATCH_MAX 100
mcds_status_t mcds_queue_ack_many(mcds_t *h, const char *queue,
                                  const uint64_t *ids, size_t n,
                                  mcds_status_t *results);
mcds_status_t mcds_queue_release_many(mcds_t *h, const char *queue,
                                      const uint64_t *ids, size_t n,
                                      uint32_t delay_s, mcds_status_t *results);
/* lease_ms 0: the queue's lease. */
mcds_status_t mcds_queue_touch_many(mcds_t *h, const char *queue,
                                    const uint64_t *ids, size_t n,
                                    unsigned lease_ms, mcds_status_t *results);
/* Receipts (doc/protocol.md, "Receipts"): the *_msg and *_msgs calls act
 * on the delivery a message from mcds_queue_pop names (its id and
 * deliveries), and answer MCDS_NOT_FOUND, changing nothing, once that
 * delivery is over: its lease ran out, even if the message has since been
 * leased again (to this consumer or another). The calls by bare id above
 * act on whatever delivery of the message is in flight now: use them only
 * where a lease cannot run out under you. MCDS_INVALID for a NULL msg. */
mcds_status_t mcds_queue_ack_msg(mcds_t *h, const char *queue,
                                 const mcds_queue_msg_t *msg);
mcds_status_t mcds_queue_release_msg(mcds_t *h, const char *queue,
                                     const mcds_queue_msg_t *msg,
                                     uint32_t delay_s);
mcds_status_t mcds_queue_touch_msg(mcds_t *h, const char *queue,
                                   const mcds_queue_msg_t *msg,
                                   unsigned lease_ms);
/* The batches of the calls above: msgs[0..n) (n up to
 * MCDS_QUEUE_BATCH_MAX), results as for mcds_queue_ack_many. */
mcds_status_t mcds_queue_ack_msgs(mcds_t *h, const char *queue,
                                  const mcds_queue_msg_t *msgs, size_t n,
                                  mcds_status_t *results);
mcds_status_t mcds_queue_release_msgs(mcds_t *h, const char *queue,
                                      const mcds_queue_msg_t *msgs, size_t n,
                                      uint32_t delay_s, mcds_status_t *results);
mcds_status_t mcds_queue_touch_msgs(mcds_t *h, const char *queue,
                                    const mcds_queue_msg_t *msgs, size_t n,
                                    unsigned lease_ms, mcds_status_t *results);
/* Acks ack's delivery and leases the next messages in one round trip (qpop
 * ack=): *acked gets MCDS_OK or MCDS_NOT_FOUND (as mcds_queue_ack_msg),
 * then the pop goes on as mcds_queue_pop, even when the ack found nothing.
 * The call's status is the pop's (or the error that refused the whole
 * request; then *acked is not set). */
mcds_status_t mcds_queue_pop_ack(mcds_t *h, const char *queue,
                                 const mcds_queue_msg_t *ack,
                                 mcds_status_t *acked, unsigned max,
                                 unsigned lease_ms, unsigned wait_ms,
                                 mcds_queue_msg_t **msgs, size_t *count);
/* MCDS_NOT_FOUND for no such queue. */
mcds_status_t mcds_queue_stats(mcds_t *h, const char *queue,
                               mcds_queue_stats_t *stats);
/* Drops every ready and delayed message; *purged (may be NULL) counts them. */
mcds_status_t mcds_queue_purge(mcds_t *h, const char *queue,
                               uint64_t *purged);
/* A plain delete of the key (whatever it holds): MCDS_OK or MCDS_NOT_FOUND.
 * Consumers waiting on the queue get nothing. */
mcds_status_t mcds_queue_delete(mcds_t *h, const char *queue);
/* Queues n (1..MCDS_QUEUE_PUSH_MAX) messages in one request (qpushn), all
 * or none, with the same flags, delay_s and priority (as mcds_queue_push):
 * message i is lens[i] bytes at data[i]; ids[i] (ids may be NULL) gets
 * its id. MCDS_FULL, MCDS_NO_MEMORY, MCDS_TOO_LARGE (the data together over
 * the server's item size) queue nothing. */
#define MCDS_QUEUE_PUSH_MAX 100
mcds_status_t mcds_queue_push_many(mcds_t *h, const char *queue,
                                   const void *const *data, const size_t *lens,
                                   size_t n, uint32_t flags, uint32_t delay_s,
                                   uint32_t priority, uint64_t *ids);
/* mcds_queue_push_many with a deduplication id (qpushn dedup=; as for
 * mcds_queue_push_dedup): message i is remembered as (dedup, i), so a
 * batch pushed again whole queues only the messages the queue does not
 * remember, and ids[i] gets the id of each, remembered or new. */
mcds_status_t mcds_queue_push_many_dedup(mcds_t *h, const char *queue,
                                         const void *const *data, const size_t *lens,
                                         size_t n, uint32_t flags, uint32_t delay_s,
                                         uint32_t priority, const char *dedup, uint64_t *ids);
/* mcds_queue_push_many with the options of mcds_push_opts_t (opts may be
 * NULL): with a group, the batch joins it in order. */
mcds_status_t mcds_queue_push_many_opts(mcds_t *h, const char *queue,
                                        const void *const *data, const size_t *lens,
                                        size_t n, uint32_t flags, uint32_t delay_s,
                                        uint32_t priority, const mcds_push_opts_t *opts,
                                        uint64_t *ids);
/* Leases up to max (1..MCDS_QUEUE_POP_MAX) messages from the first of
 * queues[0..nqueues) (1..MCDS_QUEUE_ANY_MAX queues, all on one server:
 * give them one {tag}) that has a message ready (qpopany); with none
 * ready, waits up to wait_ms for a message in any of them. All come from
 * one queue: *which (may be NULL) is its index. lease_ms 0: each queue's
 * lease. MCDS_OK with *count 0 when there is nothing. Free *msgs with
 * mcds_queue_msgs_free. */
#define MCDS_QUEUE_ANY_MAX 16
mcds_status_t mcds_queue_pop_any(mcds_t *h, const char *const *queues, size_t nqueues,
                                 unsigned max, unsigned lease_ms, unsigned wait_ms,
                                 mcds_queue_msg_t **msgs, size_t *count, size_t *which);
/* Moving messages back (qredrive, qkick). max: at most that many messages
 * (1..MCDS_QUEUE_MOVE_MAX; 0: the server's bound, MCDS_QUEUE_MOVE_MAX);
 * more than that is MCDS_INVALID. MCDS_NOT_FOUND for no such queue. */
#define MCDS_QUEUE_MOVE_MAX 10000
/* Sends ready messages of dead-letter queue dlq back to the queue each
 * came from (ids kept, delivery counts starting again): *moved (may be
 * NULL) went back, *left (may be NULL) stayed in dlq because their queue
 * is gone, full, holds another type, or they have none. */
mcds_status_t mcds_queue_redrive(mcds_t *h, const char *dlq, unsigned max,
                                 uint64_t *moved, uint64_t *left);
/* Makes buried messages of queue ready again; *kicked (may be NULL)
 * counts them. */
mcds_status_t mcds_queue_kick(mcds_t *h, const char *queue, unsigned max,
                              uint64_t *kicked);

/* ---- Queue views: read-only looks at queues and their messages
 * (doc/protocol.md, "3. Queues": qinfo, qpeek, qlist) ---- */

typedef enum mcds_queue_msg_state {
    MCDS_QUEUE_READY,
    MCDS_QUEUE_DELAYED,
    MCDS_QUEUE_IN_FLIGHT,
    MCDS_QUEUE_BURIED
} mcds_queue_msg_state_t;

#define MCDS_QUEUE_HOLDER_MAX 200
/* One message's figures (qinfo), as beanstalkd's stats-job. */
typedef struct mcds_queue_msg_info {
    uint64_t id;
    mcds_queue_msg_state_t state;
    uint32_t priority, flags;
    uint64_t bytes;
    uint32_t deliveries;          /* times leased (0: never) */
    uint64_t age_ms;              /* since its push (into this queue) */
    uint64_t first_delivery_ms;   /* Unix ms; 0: none known */
    uint64_t last_delivery_ms;    /* Unix ms; 0: none known */
    uint64_t delay_ms_left;       /* delayed: until it is ready */
    int64_t lease_ms_left;        /* in flight; -1: a Kestrel open read */
    /* In flight: "<fd> <address>" of the connection holding the lease (as
     * stats conns names it; "kestrel " before it for an open read), or
     * "gone" once it has closed; "-" otherwise. */
    char holder[MCDS_QUEUE_HOLDER_MAX];
    int64_t ttl_ms_left;          /* until its ttl runs out (0: ran out, it
                                     expires once ready); -1: no ttl */
} mcds_queue_msg_info_t;

/* Message id of queue in whatever state it is: MCDS_OK, or MCDS_NOT_FOUND
 * (no such message or queue). Changes nothing. */
mcds_status_t mcds_queue_info(mcds_t *h, const char *queue, uint64_t id,
                              mcds_queue_msg_info_t *info);
/* Message id of queue in whatever state it is, with its data, without
 * leasing it (qpeek id=): MCDS_OK with *msg (free it with
 * mcds_queue_msgs_free), or MCDS_NOT_FOUND (no such message or queue). */
mcds_status_t mcds_queue_peek_id(mcds_t *h, const char *queue, uint64_t id,
                                 mcds_queue_msg_t **msg);
/* Up to max (1..MCDS_QUEUE_POP_MAX) delayed messages, earliest due first
 * (qpeek delayed): MCDS_OK with *count 0 when there are none (or no
 * queue). Free *msgs with mcds_queue_msgs_free. */
mcds_status_t mcds_queue_peek_delayed(mcds_t *h, const char *queue, unsigned max,
                                      mcds_queue_msg_t **msgs, size_t *count);

#define MCDS_QUEUE_LIST_MAX 1000        /* queues per mcds_queue_list */
/* One queue and its sizes (qlist). */
typedef struct mcds_queue_entry {
    char name[MCDS_QUEUE_NAME_MAX + 1];
    uint64_t ready, delayed, in_flight, buried, waiters;
} mcds_queue_entry_t;
/* The queues of the server that holds key route ("{tag}" routes by tag),
 * in name order: up to max (1..MCDS_QUEUE_LIST_MAX; a few more when
 * several share the last name) after the name after (NULL: from the
 * first). next (MCDS_QUEUE_NAME_MAX + 1 bytes, may be NULL) gets the name
 * to pass as after to go on, "" when no more follow (a page may be empty
 * and still have a next). Free *queues (NULL when there are none) with
 * mcds_queue_entries_free. */
mcds_status_t mcds_queue_list(mcds_t *h, const char *route, const char *after,
                              unsigned max, mcds_queue_entry_t **queues,
                              size_t *count, char *next);
void mcds_queue_entries_free(mcds_queue_entry_t *queues);

/* ---- Tree counters: mcds-server's ct* verbs (doc/protocol.md, "5. Tree
 * counters") ----
 *
 * An object is a key itself (not escaped; 1..250 bytes, no space or control
 * character). A whole hierarchy must live on one server, since an
 * increment rolls up to the root atomically there: every call names the
 * hierarchy's placement key, group (say the root's key), and goes to the
 * server libmemcached picks for group (memcached_server_by_key), as the
 * *_by_key calls of libmemcached place related keys. Use the same group
 * for every object of one tree. Counter definitions are global: the
 * counter calls go to every server of the handle. A period (or a time) is
 * text in the period type's format ("2021031514" for an hour, "202103"
 * for a month, "1" for all time) or "@<unix seconds>". */

#define MCDS_CTREE_TYPES_MAX 16
#define MCDS_CTREE_PERIOD_MAX 16        /* period text with its NUL */
#define MCDS_CTREE_CURSOR_MAX 40        /* a continuation cursor with its NUL */

/* A stored period type of a counter: code L*100+U, periods kept (0: all),
 * manual (a coarser type changed directly, not fed from finer ones). */
typedef struct mcds_ctree_type {
    uint32_t code;
    uint32_t keep;
    int manual;
} mcds_ctree_type_t;

/* A limit of an object: max (or, for a raise, the amount) for one counter
 * and period type. INT64_MAX: no limit. */
typedef struct mcds_ctree_limit {
    uint32_t counter, code;
    int64_t max;
} mcds_ctree_limit_t;

/* One value (or, from mcds_ctree_periods, one active period: key is "" and
 * value the number of objects holding a non-zero value there). The exact
 * total is value + fraction (value is rounded towards zero to the step). */
typedef struct mcds_ctree_value {
    const char *key;                     /* NUL-terminated */
    uint32_t counter, code;
    char period[MCDS_CTREE_PERIOD_MAX];
    int64_t value, fraction;
} mcds_ctree_value_t;

/* Where an increment was refused (MCDS_LIMIT). */
typedef struct mcds_ctree_refusal {
    char key[MCDS_QUEUE_NAME_MAX + 1];
    uint32_t code;
    char period[MCDS_CTREE_PERIOD_MAX];
} mcds_ctree_refusal_t;

/* An object's settings (ctinfo); limits in *limits (free with free()). */
typedef struct mcds_ctree_info {
    char parent[MCDS_QUEUE_NAME_MAX + 1];  /* "" for a root */
    int64_t quantize;
    uint64_t children;
    int64_t changed;                     /* Unix time of the last increment, 0 never */
} mcds_ctree_info_t;

/* Defines a counter on every server: MCDS_OK, MCDS_EXISTS (everywhere
 * already), MCDS_SERVER_ERROR for types that do not nest (detail says). */
mcds_status_t mcds_ctree_define(mcds_t *h, uint32_t counter,
                                const mcds_ctree_type_t *types, size_t ntypes,
                                int aggregate, int64_t quantize);
/* Deletes a counter no object uses, on every server: MCDS_OK,
 * MCDS_NOT_FOUND, MCDS_SERVER_ERROR when in use. */
mcds_status_t mcds_ctree_undefine(mcds_t *h, uint32_t counter);
/* Creates object under parent (NULL: a root), with its own step
 * (0: the counters') and limits. MCDS_OK, MCDS_EXISTS, MCDS_NOT_FOUND (no
 * such parent), MCDS_WRONG_TYPE, MCDS_SERVER_ERROR (unknown counter or
 * type in a limit). */
mcds_status_t mcds_ctree_create(mcds_t *h, const char *group,
                                const char *object, const char *parent,
                                int64_t quantize,
                                const mcds_ctree_limit_t *limits, size_t n);
/* raise 0: the object's limits become exactly these (and its step, unless
 * quantize < 0); raise 1: each limit grows by its amount. */
mcds_status_t mcds_ctree_limits(mcds_t *h, const char *group,
                                const char *object, int raise,
                                const mcds_ctree_limit_t *limits, size_t n,
                                int64_t quantize);
/* An object's settings and (limits may be NULL) its limits. */
mcds_status_t mcds_ctree_info(mcds_t *h, const char *group,
                              const char *object, mcds_ctree_info_t *info,
                              mcds_ctree_limit_t **limits, size_t *nlimits);
/* Adds delta to the period of type code holding time, rolled up into the
 * coarser types and the ancestors, all or nothing. MCDS_LIMIT: refused
 * (*refused, may be NULL, says where). With values non-NULL, the new value
 * of that period in the object and each ancestor (free with
 * mcds_ctree_values_free). */
mcds_status_t mcds_ctree_incr(mcds_t *h, const char *group, const char *object,
                              uint32_t counter, uint32_t code,
                              const char *time, int64_t delta,
                              mcds_ctree_refusal_t *refused,
                              mcds_ctree_value_t **values, size_t *count);
/* One increment of mcds_ctree_incr_many. */
typedef struct mcds_ctree_incr {
    const char *object;
    uint32_t counter, code;
    const char *time;
    int64_t delta;
} mcds_ctree_incr_t;

#define MCDS_CTREE_INCR_MANY_MAX 100

/* Several increments as one unit (ctincrn): 1 to MCDS_CTREE_INCR_MANY_MAX
 * of them, each checked against the values the ones before it leave, then
 * all applied or none, one log record on the server. MCDS_LIMIT: a limit
 * refused increment *failed (*refused says where); MCDS_NOT_FOUND:
 * increment *failed's object is missing (failed and refused may be NULL).
 * With values non-NULL, for each increment the new value of its period in
 * its object and each ancestor (free with mcds_ctree_values_free). */
mcds_status_t mcds_ctree_incr_many(mcds_t *h, const char *group,
                                   const mcds_ctree_incr_t *incrs, size_t n,
                                   mcds_ctree_refusal_t *refused, size_t *failed,
                                   mcds_ctree_value_t **values, size_t *count);

/* One value: *value and *fraction (0 0 for a period never changed). */
mcds_status_t mcds_ctree_get(mcds_t *h, const char *group, const char *object,
                             uint32_t counter, uint32_t code,
                             const char *period, int64_t *value,
                             int64_t *fraction);
/* An object's values; filter holds ctvalues options as text ("counters=1-5
 * type=104 periods=20210101-20210131 count=100", NULL or "" for none) and
 * cursor (may be NULL; MCDS_CTREE_CURSOR_MAX bytes) receives the "after="
 * value to continue from, "" when the listing is complete. */
mcds_status_t mcds_ctree_values(mcds_t *h, const char *group,
                                const char *object, const char *filter,
                                mcds_ctree_value_t **values, size_t *count,
                                char *cursor);
/* Active periods of the server of group (same filter and cursor). */
mcds_status_t mcds_ctree_periods(mcds_t *h, const char *group,
                                 const char *filter,
                                 mcds_ctree_value_t **values, size_t *count,
                                 char *cursor);
void mcds_ctree_values_free(mcds_ctree_value_t *values);
/* Up to max (1..10000) children of object after the child after (NULL:
 * from the first); *more tells whether others follow. Free with
 * mcds_items_free. */
mcds_status_t mcds_ctree_children(mcds_t *h, const char *group,
                                  const char *object, const char *after,
                                  unsigned max, mcds_item_t **children,
                                  size_t *count, int *more);
/* Objects of the server of group changed at or after since (Unix time),
 * newest first, up to max after the object after (NULL: the newest). */
mcds_status_t mcds_ctree_active(mcds_t *h, const char *group, int64_t since,
                                const char *after, unsigned max,
                                mcds_item_t **objects, size_t *count,
                                int *more);
/* Removes object and its whole subtree, taking what they counted out of
 * the ancestors (a delete of its key): MCDS_OK or MCDS_NOT_FOUND. */
mcds_status_t mcds_ctree_delete(mcds_t *h, const char *group,
                                const char *object);

/* ---- List: mcds-server's list verbs (doc/protocol.md, "6. Lists") ----
 *
 * list is the key itself, named as a queue is (1..250 bytes, no space or
 * control character; "{tag}" places it by tag). Elements are byte strings;
 * positions count from 0 at the head, or from -1 at the tail. Elements
 * read come back in one block: free *items with mcds_items_free. A list
 * verb on a key holding another type is MCDS_WRONG_TYPE. */

#define MCDS_LIST_PUSH_MAX 64           /* values per mcds_list_push */
#define MCDS_LIST_READ_MAX 1000         /* elements per pop or range */

typedef enum { MCDS_LIST_HEAD = 0, MCDS_LIST_TAIL = 1 } mcds_list_end_t;

/* MCDS_OK (created) or MCDS_EXISTS (already there; its cap unchanged).
 * max_len caps the number of elements (0: none). */
mcds_status_t mcds_list_create(mcds_t *h, const char *list, uint64_t max_len);
/* Pushes n (1..MCDS_LIST_PUSH_MAX) values at end, each in turn, creating
 * the list if missing; *len (may be NULL) is the new length. All or
 * nothing: MCDS_FULL past the list's cap, MCDS_TOO_LARGE over the item
 * size, MCDS_NO_MEMORY when the server has no room. */
mcds_status_t mcds_list_push(mcds_t *h, const char *list, mcds_list_end_t end,
                             const mcds_item_t *values, size_t n, uint64_t *len);
/* Removes and returns up to max (1..MCDS_LIST_READ_MAX) elements from end
 * (nearest first). With none there, waits up to wait_ms for a push (0: no
 * wait). MCDS_OK with *count 0 when there is nothing (or no list). */
mcds_status_t mcds_list_pop(mcds_t *h, const char *list, mcds_list_end_t end,
                            unsigned max, unsigned wait_ms,
                            mcds_item_t **items, size_t *count);
/* MCDS_NOT_FOUND for no such list. */
mcds_status_t mcds_list_len(mcds_t *h, const char *list, uint64_t *len);
/* Up to limit (0..MCDS_LIST_READ_MAX) elements from offset towards the
 * tail (an offset before the head counts as 0). */
mcds_status_t mcds_list_range(mcds_t *h, const char *list, int64_t offset,
                              unsigned limit, mcds_item_t **items,
                              size_t *count);
/* The element at index: MCDS_NOT_FOUND when out of range or no list. */
mcds_status_t mcds_list_index(mcds_t *h, const char *list, int64_t index,
                              mcds_item_t **item);
/* Replaces the element at index: MCDS_NOT_FOUND when out of range. */
mcds_status_t mcds_list_set(mcds_t *h, const char *list, int64_t index,
                            const void *data, size_t len);
/* Inserts data before (after: after) the first element equal to pivot;
 * *len (may be NULL) the new length. MCDS_NOT_FOUND: no such element or
 * list; MCDS_FULL at the list's cap. */
mcds_status_t mcds_list_insert(mcds_t *h, const char *list, int after,
                               const void *pivot, size_t plen,
                               const void *data, size_t len, uint64_t *newlen);
/* Keeps limit elements from offset; *removed (may be NULL) counts the rest. */
mcds_status_t mcds_list_trim(mcds_t *h, const char *list, int64_t offset,
                             uint64_t limit, uint64_t *removed);
/* Removes elements equal to data: count > 0 the first count, < 0 the last
 * -count, 0 all; *removed (may be NULL) counts them. */
mcds_status_t mcds_list_remove(mcds_t *h, const char *list, int64_t count,
                               const void *data, size_t len,
                               uint64_t *removed);
/* *found: whether an element equals data. MCDS_NOT_FOUND for no list. */
mcds_status_t mcds_list_contains(mcds_t *h, const char *list,
                                 const void *data, size_t len, int *found);
/* Deletes the list (its memory is reclaimed in the background): MCDS_OK or
 * MCDS_NOT_FOUND. Pops waiting on it get nothing. */
mcds_status_t mcds_list_delete(mcds_t *h, const char *list);
/* As mcds_list_push, only to a list that exists: MCDS_NOT_FOUND (nothing
 * created) when there is none. */
mcds_status_t mcds_list_pushx(mcds_t *h, const char *list, mcds_list_end_t end,
                              const mcds_item_t *values, size_t n, uint64_t *len);
/* Moves the element at end from of src to end to of dst (src may be dst: a
 * rotation) in one step, so it is never in both lists nor in neither.
 * Both lists must be on one server (in a pool, give them one "{tag}"); the
 * call goes to src's. With src empty, waits up to wait_ms for an element
 * (0: no wait). MCDS_OK with *item (may be NULL; free with
 * mcds_items_free) the element moved; MCDS_NOT_FOUND when none moved (src
 * empty or missing, the wait ended, or dst was deleted meanwhile);
 * MCDS_FULL when dst is at its cap and MCDS_NO_MEMORY when the server has
 * no room (the element stays in src). */
mcds_status_t mcds_list_move(mcds_t *h, const char *src, const char *dst,
                             mcds_list_end_t from, mcds_list_end_t to, unsigned wait_ms,
                             mcds_item_t **item);
#define MCDS_LIST_MPOP_MAX 64           /* lists per mcds_list_mpop */
/* Pops up to max (1..MCDS_LIST_READ_MAX) elements from end of the first
 * of the nlists (1..MCDS_LIST_MPOP_MAX) lists, in their order, that has
 * elements, all from that one; *which (may be NULL) is its index in lists
 * (SIZE_MAX when nothing came). With all empty, waits up to wait_ms for a
 * push to any of them (0: no wait). The lists must be on one server (one
 * "{tag}"); the call goes to the first one's. MCDS_OK with *count 0 when
 * nothing came. */
mcds_status_t mcds_list_mpop(mcds_t *h, const char *const *lists, size_t nlists,
                             mcds_list_end_t end, unsigned max, unsigned wait_ms,
                             mcds_item_t **items, size_t *count, size_t *which);
/* The positions (0 the head) of elements equal to data, up to max
 * (1..MCDS_LIST_READ_MAX) of them into pos (*npos), in the order found:
 * from the head from the rank-th match (rank > 0), or from the tail
 * (rank < 0, -1 the last match); rank 0 is MCDS_INVALID. maxlen > 0
 * compares only that many elements from where the search starts.
 * MCDS_NOT_FOUND for no list; MCDS_OK with *npos 0 for no match. */
mcds_status_t mcds_list_pos(mcds_t *h, const char *list, const void *data, size_t len,
                            int64_t rank, uint64_t maxlen, uint64_t *pos, size_t max,
                            size_t *npos);

/* ---- Tables: mcds-server's table verbs (doc/protocol.md, "9. Tables") ----
 *
 * table is a table's name (1..250 bytes, no space or control character);
 * tables have a namespace of their own on the server, and a name picks its
 * server in a pool as a key does ("{tag}" places it by tag). A value is
 * bytes: an int field's is its decimal digits ("-42"); data NULL is NULL
 * (SQL's). The library escapes values for the request line itself, so
 * any bytes may be sent. Rows read come back in one block, freed with
 * mcds_trows_free: each row's fields in the table's order (or those
 * asked for), each value NUL-terminated after len bytes, data NULL for
 * NULL. A selection or scan answers a page and a cursor; cursor->id 0
 * means it is complete, any other continues it with mcds_tnext (from any
 * handle on the same servers) or is given back with mcds_tclose. */

#define MCDS_TLINE_MAX 16384            /* a request line, as the server reads it */
#define MCDS_TPAGE_MAX 1000             /* rows per page */

/* One field of a write (name=value), or of a row read. */
typedef struct mcds_tfield {
    const char *name;
    const char *data;         /* NULL: NULL */
    size_t len;
} mcds_tfield_t;

/* One row read: its version (changes on each write of it) and fields. */
typedef struct mcds_trow {
    uint64_t version;
    const mcds_tfield_t *fields;
    size_t nfields;
} mcds_trow_t;

/* Where a selection or scan stands: id 0 when complete. */
typedef struct mcds_tcursor {
    uint64_t id;
    char table[MCDS_QUEUE_NAME_MAX + 1]; /* routes mcds_tnext to its server */
    unsigned count;           /* rows a page it was started with (0: default) */
} mcds_tcursor_t;

/* What a selection asks for: zero it ({0}), then set what is wanted.
 * eq: values of the index's first neq parts, in order (data NULL selects
 * NULLs); ge/gt and le/lt (NULL: none, at most one of each pair) bound the
 * part after them; desc walks backwards; count rows a page (0: the
 * server's 100; at most MCDS_TPAGE_MAX); fields "f1,f2" (NULL: all);
 * ttl_s the cursor's lifetime unused (0: the server's 60 s); nocursor
 * non-zero: the first page only, no cursor kept (cursor->id is 0 whether
 * or not rows remain: "the first count rows"). */
typedef struct mcds_tselect {
    const mcds_item_t *eq;
    size_t neq;
    const mcds_item_t *ge, *gt, *le, *lt;
    int desc;
    unsigned count;
    const char *fields;
    unsigned ttl_s;
    int nocursor;
} mcds_tselect_t;

/* Creates a table: schema is the rest of tcreate's line, "<field>:<type>,...
 * key=<field>[,...] [index=<name>:<parts>]...". MCDS_OK, MCDS_EXISTS (the
 * table is there, whatever its schema), MCDS_SERVER_ERROR for a schema the
 * server refuses (mcds_last_detail says why). */
mcds_status_t mcds_tcreate(mcds_t *h, const char *table, const char *schema);
/* Deletes the table, its rows and indexes: MCDS_OK or MCDS_NOT_FOUND. */
mcds_status_t mcds_tdrop(mcds_t *h, const char *table);
/* Adds an index (parts as in tcreate: "city+age:desc"), built in the
 * background on a table with rows: MCDS_OK. */
mcds_status_t mcds_tindex(mcds_t *h, const char *table, const char *name,
                          const char *parts);
/* MCDS_OK or MCDS_NOT_FOUND (no such index). */
mcds_status_t mcds_tdropindex(mcds_t *h, const char *table, const char *name);
/* Stores a new row of n fields (every key field given; others NULL):
 * MCDS_OK with *version (may be NULL) its version, MCDS_EXISTS when a row
 * has that key, MCDS_NOT_FOUND when there is no table. */
mcds_status_t mcds_tinsert(mcds_t *h, const char *table,
                           const mcds_tfield_t *fields, size_t n,
                           uint64_t *version);
/* Stores the row whole, replacing one with that key: MCDS_OK. */
mcds_status_t mcds_tput(mcds_t *h, const char *table,
                        const mcds_tfield_t *fields, size_t n,
                        uint64_t *version);
/* Changes the fields given of the row the key fields (all given) name;
 * with ver non-zero only if the row's version is still ver. MCDS_OK,
 * MCDS_NOT_FOUND (no such row or table), MCDS_EXISTS (version differs). */
mcds_status_t mcds_tupdate(mcds_t *h, const char *table,
                           const mcds_tfield_t *fields, size_t n,
                           uint64_t ver, uint64_t *version);
/* Deletes the row whose key fields have the nkeys values given, in the
 * key's order (ver as in mcds_tupdate): MCDS_OK, MCDS_NOT_FOUND,
 * MCDS_EXISTS. */
mcds_status_t mcds_tdel(mcds_t *h, const char *table, const mcds_item_t *keys,
                        size_t nkeys, uint64_t ver);
/* The row with that key (its fields, or those of fields "f1,f2"; NULL:
 * all): MCDS_OK with *row, or MCDS_NOT_FOUND (no row or no table). */
mcds_status_t mcds_tget(mcds_t *h, const char *table, const mcds_item_t *keys,
                        size_t nkeys, const char *fields, mcds_trow_t **row);
/* The first page of a selection through index ("primary" for the key):
 * *rows (*count of them) and *cursor. MCDS_NOT_FOUND: no table. */
mcds_status_t mcds_tselect(mcds_t *h, const char *table, const char *index,
                           const mcds_tselect_t *sel, mcds_trow_t **rows,
                           size_t *count, mcds_tcursor_t *cursor);
/* The first page of a predicate scan, in primary key order: where is the
 * predicate as tscan takes it ("age >= 30 and ( city = Paris or city is
 * null )", values escaped as the protocol says; NULL: every row); of opts
 * (may be NULL) only count, fields, ttl_s and nocursor apply (MCDS_INVALID
 * for the others). A page examines at most 10,000 rows, so it may hold no
 * row and still have a cursor to continue. */
mcds_status_t mcds_tscan(mcds_t *h, const char *table, const char *where,
                         const mcds_tselect_t *opts, mcds_trow_t **rows,
                         size_t *count, mcds_tcursor_t *cursor);
/* The next page of cursor (page rows; 0: the count it was started with,
 * cursor->count), which it advances; MCDS_NOT_FOUND when the cursor is
 * closed or expired. */
mcds_status_t mcds_tnext(mcds_t *h, mcds_tcursor_t *cursor, unsigned page,
                         mcds_trow_t **rows, size_t *count);
/* Gives a cursor back before its end: MCDS_OK or MCDS_NOT_FOUND. */
mcds_status_t mcds_tclose(mcds_t *h, mcds_tcursor_t *cursor);
/* The field named name of row, or NULL. */
const mcds_tfield_t *mcds_trow_field(const mcds_trow_t *row, const char *name);
void mcds_trows_free(mcds_trow_t *rows);

#ifdef __cplusplus
}
#endif

#endif /* MCDS_H */
