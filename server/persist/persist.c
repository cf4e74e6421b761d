/*
 * persist: the policy around the log and snapshots.
 *
 *  - start-up: recovery (recover.c), then the log opens where it ended and
 *    the sync thread starts;
 *  - replies: persist_commit() writes a connection's records to the kernel
 *    before its replies go (everysec, no), or asks the sync thread for an
 *    fdatasync and lets the replies wait for it (always: group commit, one
 *    fdatasync for every reply waiting when it starts);
 *  - the sync thread: once a second writes what is pending and (everysec)
 *    syncs; retries after a write error; starts a snapshot when the log has
 *    grown enough;
 *  - snapshots: their own thread holds every thread that changes the
 *    keyspace for a moment (quiesce.h), takes the log position P, cuts the
 *    log into a new file there, and forks: the child writes the keyspace
 *    as it was at P (snap_fork.c) while the server goes on. Once the file
 *    is on disk the files it makes useless are removed. So the snapshot at
 *    P plus every record after P is exactly the server's state, whatever
 *    changed while the copy was written;
 *  - a start-up that skipped anything (a record that did not apply, damage
 *    --recover-partial stepped over) writes a snapshot before it serves,
 *    so that the next start-up reads what this one has, not the damage.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/hash.h"
#include "base/log.h"
#include "base/quiesce.h"
#include "base/settings.h"
#include "persist/codec.h"
#include "persist/files.h"
#include "persist/io.h"
#include "persist/persist.h"
#include "persist/persist_int.h"
#include "persist/snap_fork.h"
#include "persist/snapshot.h"
#include "persist/wal.h"

#define PERSIST_MARK_GAP (1ULL << 32)   /* a restart continues this far above the marks */
#define PERSIST_HOLD_MS 2000            /* how long a snapshot waits for every thread to pause */

static const struct persist_type_ops *persist_types[PERSIST_NTYPES];
static const struct persist_host *persist_host;     /* what the layers above give */
static const struct persist_type_ops *persist_by_item[ITEM_NTYPES];

static struct {
    bool on;
    bool replaying;
    int lock_fd;
    struct persist_recovered rec;
    /* the sync thread */
    pthread_t sync_thread;
    bool sync_running;
    bool stop;
    uint64_t sync_wanted;           /* always: the LSN a sync is asked for */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* snapshots */
    pthread_t snap_thread;
    bool snap_running;              /* atomic */
    bool snap_joinable;
    bool serving;                   /* atomic: the server's loops run (snapshots may start) */
    pid_t snap_pid;                 /* atomic: the child writing one, 0: none */
    uint64_t snap_lsn;              /* the newest complete snapshot's position */
    uint64_t snap_bytes;
    uint64_t snap_last_ms, snap_last_time, snap_count, snap_failures;
    /* marks */
    uint64_t cas_mark, id_mark;     /* atomics */
    /* a replica (follow.c): its log is its primary's, it logs nothing */
    bool follow;                    /* atomic */
    uint64_t local_dropped;         /* atomic: records it would have logged itself */
} persist = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .lock_fd = -1 };

/* ---- the registry ---- */

static void persist_stats(stats_emit_fn emit, void *ctx);

static const struct stats_provider persist_stats_provider = { "persistence", STATS_PLACE_MCDS, 40, persist_stats };

void persist_init(const struct persist_host *h) {
    persist_host = h;
    stats_provide(&persist_stats_provider);
}

void persist_register(enum persist_type t, enum item_type it, const struct persist_type_ops *ops) {
    persist_types[t] = ops;
    if (it < ITEM_NTYPES)
        persist_by_item[it] = ops;
}

const char *persist_type_name(uint8_t type) {
    if (type == PERSIST_META)
        return "meta";
    return type < PERSIST_NTYPES && persist_types[type] != NULL ? persist_types[type]->name : "unknown";
}

const char *persist_record_key(const struct rec *r, size_t *nkey) {
    const struct persist_type_ops *ops = r->type < PERSIST_NTYPES ? persist_types[r->type] : NULL;

    *nkey = 0;
    if (ops == NULL || ops->key_of == NULL)
        return NULL;
    return ops->key_of(r->op, r->payload, r->len, nkey);
}

const char *persist_key_first(const uint8_t *p, size_t n, size_t *nkey) {
    struct codec_in in;
    const char *key;

    codec_in_init(&in, p, n);
    key = codec_get_key(&in, nkey);
    return key != NULL && *nkey > 0 ? key : NULL;
}

int persist_load_entry(const struct rec *r) {
    const struct persist_type_ops *ops = r->type < PERSIST_NTYPES ? persist_types[r->type] : NULL;

    if (ops == NULL || ops->load == NULL) {
        log_msg(0, "persistence: snapshot entry of unknown type %u", r->type);
        return -1;
    }
    return ops->load(r->op, r->payload, r->len);
}

int persist_apply_record(const struct rec *r, uint64_t lsn) {
    const struct persist_type_ops *ops = r->type < PERSIST_NTYPES ? persist_types[r->type] : NULL;

    if (ops == NULL || ops->apply == NULL) {
        log_msg(0, "persistence: log record of unknown type %u", r->type);
        return -1;
    }
    return ops->apply(r->op, r->payload, r->len, lsn);
}

int persist_dump_item(struct snap_writer *w, item *it) {
    const struct persist_type_ops *ops = persist_by_item[it->type];

    if (ops == NULL || ops->dump_item == NULL)
        return 0;       /* not persisted (cache values without --persist-items) */
    return ops->dump_item(w, it);
}

int persist_dump_all(struct snap_writer *w) {
    int t;

    for (t = 0; t < PERSIST_NTYPES; t++)
        if (persist_types[t] != NULL && persist_types[t]->dump_all != NULL && persist_types[t]->dump_all(w) < 0)
            return -1;
    return 0;
}

/* ---- state ---- */

bool persist_on(void) {
    return persist.on;
}

bool persist_replaying(void) {
    return persist.replaying;
}

void persist_replay_mode(bool on) {
    persist.on = on;
    persist.replaying = on;
}

void persist_set_replaying(bool on) {
    persist.replaying = on;
}

bool persist_writable(void) {
    if (!persist.on || persist.replaying)
        return true;
    return !wal_failed() && wal_backlog() < settings.log_buffer / 2;
}

void persist_log(enum persist_type t, uint8_t op, const struct iovec *iov, int niov) {
    if (!persist.on || persist.replaying)
        return;
    if (__atomic_load_n(&persist.follow, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&persist.local_dropped, 1, __ATOMIC_RELAXED);   /* a bug: see persist.h */
        return;
    }
    wal_append((uint8_t)t, op, iov, niov);
}

void persist_log_ttl(enum persist_type t, uint8_t op, const char *key, size_t nkey, uint64_t unix_time) {
    uint8_t buf[16 + ITEM_KEY_MAX];
    struct codec_out o;
    struct iovec v;

    if (!persist.on || persist.replaying)
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, key, nkey);
    codec_put_u64(&o, unix_time);
    v.iov_base = o.p;
    v.iov_len = o.n;
    persist_log(t, op, &v, 1);
}

void persist_debug_record(uint8_t type, uint8_t op, const void *p, size_t n) {
    struct iovec v = { (void *)p, n };

    persist_log((enum persist_type)type, op, &v, 1);
}

uint64_t persist_position(void) {
    return persist.on ? wal_reserved() : 0;
}

uint64_t persist_thread_end(void) {
    return persist.on ? wal_thread_end() : 0;
}

void persist_cmd_begin(void) {
    if (persist.on)
        wal_group_begin();
}

void persist_cmd_end(void) {
    if (persist.on)
        wal_group_end();
}

void persist_debug_cmd_pause(unsigned ms) {
    wal_debug_group_pause(ms);
}

static void persist_mark(uint8_t op, uint64_t *mark, uint64_t upto) {
    uint8_t buf[8];
    struct codec_out o;
    struct iovec v;

    if (!persist.on)
        return;
    __atomic_store_n(mark, upto, __ATOMIC_RELAXED);
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_u64(&o, upto);
    v.iov_base = buf;
    v.iov_len = o.n;
    persist_log(PERSIST_META, op, &v, 1);
}

void persist_mark_cas(uint64_t upto) {
    persist_mark(META_CAS_MARK, &persist.cas_mark, upto);
}

void persist_mark_ids(uint64_t upto) {
    persist_mark(META_ID_MARK, &persist.id_mark, upto);
}

/* ---- replies ---- */

bool persist_stalled(void) {
    return persist.on && wal_failed();
}

bool persist_durable(uint64_t lsn) {
    if (settings.fsync_policy == PERSIST_FSYNC_ALWAYS)
        return wal_synced() >= lsn;
    return wal_written() >= lsn;
}

bool persist_commit(uint64_t lsn) {
    if (wal_write_upto(lsn) < 0)
        return false;       /* the sync thread retries and wakes the workers */
    if (settings.fsync_policy != PERSIST_FSYNC_ALWAYS || wal_synced() >= lsn)
        return true;
    pthread_mutex_lock(&persist.lock);
    if (lsn > persist.sync_wanted)
        persist.sync_wanted = lsn;
    pthread_cond_signal(&persist.cond);
    pthread_mutex_unlock(&persist.lock);
    return false;
}

/* ---- snapshots ---- */

/* debugsnappause (tests, --debug): the next snapshot waits this long
 * after choosing its position, before the log is cut there (PERSIST_PAUSE_CUT,
 * every thread held meanwhile) and before anything is copied
 * (PERSIST_PAUSE_COPY, in the child). */
static unsigned persist_snap_pause_ms[PERSIST_PAUSE_NSTAGES];

void persist_debug_snapshot_pause(enum persist_pause_stage stage, unsigned ms) {
    __atomic_store_n(&persist_snap_pause_ms[stage], ms, __ATOMIC_RELAXED);
}

static unsigned persist_debug_pause_take(enum persist_pause_stage stage) {
    return __atomic_exchange_n(&persist_snap_pause_ms[stage], 0, __ATOMIC_RELAXED);
}

/* Holds every thread that changes the keyspace, takes the log position,
 * cuts the log there and forks the child that writes the snapshot: 0,
 * or -1 (logged) when none was started. */
static int persist_snap_fork(uint64_t *lsn, struct snap_child *ch) {
    unsigned copy_pause = persist_debug_pause_take(PERSIST_PAUSE_COPY), cut_pause;
    int rc = -1;

    hash_pause_growth();
    if (quiesce_hold(PERSIST_HOLD_MS) < 0) {
        log_msg(0, "persistence: snapshot not started: the server's threads could not all be paused "
                   "within %d ms (a long command, or a log that cannot be written); it is tried again later",
                PERSIST_HOLD_MS);
    } else {
        *lsn = wal_reserved();
        cut_pause = persist_debug_pause_take(PERSIST_PAUSE_CUT);
        if (cut_pause > 0)
            usleep(cut_pause * 1000u);
        if (wal_rotate_at(*lsn) < 0)
            log_msg(0, "persistence: snapshot not started: the log went past its position %llu",
                    (unsigned long long)*lsn);
        else
            rc = snap_fork(settings.data_dir, *lsn, __atomic_load_n(&persist.cas_mark, __ATOMIC_RELAXED),
                           __atomic_load_n(&persist.id_mark, __ATOMIC_RELAXED), copy_pause, ch);
        quiesce_release();
    }
    hash_resume_growth();
    return rc;
}

/* The snapshot at lsn is written (rc 0) or given up: figures, log, and the
 * files it makes useless. */
static void persist_snap_done(int rc, uint64_t lsn, const struct snap_result *res, uint64_t ms) {
    pthread_mutex_lock(&persist.lock);
    persist.snap_last_ms = ms;
    persist.snap_last_time = (uint64_t)time(NULL);
    if (rc == 0) {
        persist.snap_lsn = lsn;
        persist.snap_bytes = res->bytes;
        persist.snap_count++;
    } else {
        persist.snap_failures++;
    }
    pthread_mutex_unlock(&persist.lock);
    if (rc == 0) {
        files_remove_before(settings.data_dir, lsn);
        log_msg(1, "persistence: snapshot at %llu written: %llu entries, %llu bytes, %llu ms",
                (unsigned long long)lsn, (unsigned long long)res->entries, (unsigned long long)res->bytes,
                (unsigned long long)ms);
    }
}

static void *persist_snap_main(void *arg) {
    struct snap_result res = { 0, 0 };
    struct snap_child ch = { 0, -1 };
    struct timespec t0, t1;
    uint64_t lsn = 0;
    int rc;

    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = persist_snap_fork(&lsn, &ch);
    if (rc == 0) {
        __atomic_store_n(&persist.snap_pid, ch.pid, __ATOMIC_RELEASE);
        if (__atomic_load_n(&persist.stop, __ATOMIC_ACQUIRE))
            snap_kill(ch.pid);      /* the server stops: the log holds everything */
        rc = snap_wait(&ch, &res);
        __atomic_store_n(&persist.snap_pid, 0, __ATOMIC_RELEASE);
        if (rc == 0)
            rc = snapshot_commit(settings.data_dir, lsn);
        else
            snapshot_discard(settings.data_dir, lsn);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    persist_snap_done(rc, lsn, &res,
                      (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
    __atomic_store_n(&persist.snap_running, false, __ATOMIC_RELEASE);
    return NULL;
}

int persist_snapshot(const char **why) {
    if (!persist.on) {
        *why = "persistence is off";
        return -1;
    }
    pthread_mutex_lock(&persist.lock);
    if (__atomic_load_n(&persist.snap_running, __ATOMIC_ACQUIRE)) {
        pthread_mutex_unlock(&persist.lock);
        *why = "a snapshot is being written";
        return -1;
    }
    if (persist.snap_joinable)
        pthread_join(persist.snap_thread, NULL);
    persist.snap_joinable = false;
    __atomic_store_n(&persist.snap_running, true, __ATOMIC_RELEASE);
    if (pthread_create(&persist.snap_thread, NULL, persist_snap_main, NULL) != 0) {
        __atomic_store_n(&persist.snap_running, false, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&persist.lock);
        *why = "cannot start the snapshot thread";
        return -1;
    }
    persist.snap_joinable = true;
    pthread_mutex_unlock(&persist.lock);
    return 0;
}

/* Whether the log has grown enough since the last snapshot to start one. */
static bool persist_snapshot_due(void) {
    uint64_t grown, need;

    if (settings.snapshot_min == 0 || __atomic_load_n(&persist.snap_running, __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&persist.serving, __ATOMIC_ACQUIRE))
        return false;
    pthread_mutex_lock(&persist.lock);
    grown = wal_reserved() - persist.snap_lsn;
    need = persist.snap_bytes * (uint64_t)settings.snapshot_growth / 100;
    pthread_mutex_unlock(&persist.lock);
    if (need < settings.snapshot_min)
        need = settings.snapshot_min;
    return grown >= need;
}

/* ---- the sync thread ---- */

/* One round of the sync thread; tick: its second came (not a request).
 * Under --fsync always, records no reply waits for (the start-up's
 * marks, time-driven changes: a lease that ran out) are written and
 * synced on the tick, so that they reach the disk and a primary's
 * replicas within a second, not only with the next client's change. */
static void persist_sync_round(bool tick) {
    bool was_failed = wal_failed();

    if (settings.fsync_policy == PERSIST_FSYNC_ALWAYS) {
        uint64_t want;
        pthread_mutex_lock(&persist.lock);
        want = persist.sync_wanted;
        pthread_mutex_unlock(&persist.lock);
        if (want > wal_synced() && wal_write_upto(want) == 0) {
            wal_sync();
        } else if (tick && wal_reserved() > wal_synced()) {
            wal_write_some();
            wal_sync();
        }
    } else {
        wal_write_some();
        if (settings.fsync_policy == PERSIST_FSYNC_EVERYSEC && wal_written() > wal_synced())
            wal_sync();
    }
    if (settings.fsync_policy == PERSIST_FSYNC_ALWAYS || was_failed)
        persist_host->wake_held();
}

static void *persist_sync_main(void *arg) {
    struct timespec next;
    const char *why;

    clock_gettime(CLOCK_REALTIME, &next);
    pthread_mutex_lock(&persist.lock);
    while (!persist.stop) {
        struct timespec now;
        bool tick = false;
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec))
            next.tv_sec = now.tv_sec + 1;
        /* an fsync owed goes at once; a log that cannot be written is
         * tried again once a second, not in a loop */
        if (!(settings.fsync_policy == PERSIST_FSYNC_ALWAYS && persist.sync_wanted > wal_synced() && !wal_failed()))
            tick = pthread_cond_timedwait(&persist.cond, &persist.lock, &next) == ETIMEDOUT;
        pthread_mutex_unlock(&persist.lock);
        persist_sync_round(tick);
        if (persist_snapshot_due())
            persist_snapshot(&why);
        pthread_mutex_lock(&persist.lock);
    }
    pthread_mutex_unlock(&persist.lock);
    return NULL;
}

/* ---- start and stop ---- */

static void persist_log_start(const struct persist_recovered *r) {
    log_msg(0, "persistence: %s loaded in %llu ms: snapshot at %llu (%llu entries), "
               "%llu log records replayed from %llu file(s); the log goes on at %llu; fsync %s%s",
            settings.data_dir, (unsigned long long)r->ms, (unsigned long long)r->snapshot_lsn,
            (unsigned long long)r->snapshot_entries, (unsigned long long)r->records,
            (unsigned long long)r->log_files, (unsigned long long)r->next_lsn,
            settings.fsync_policy == PERSIST_FSYNC_ALWAYS ? "always"
            : settings.fsync_policy == PERSIST_FSYNC_EVERYSEC ? "everysec" : "no",
            settings.persist_items ? ", cache values too" : "");
}

/* After a start-up that skipped something (records that did not apply,
 * damage --recover-partial stepped over), the keyspace as replayed is
 * written as a snapshot at the log's end before any client comes, and the
 * log goes on in a new file there: the next start-up reads this state,
 * not the damage again. */
static int persist_repair(struct persist_recovered *r) {
    struct snap_result res = { 0, 0 };
    uint64_t lsn = r->next_lsn;

    if (snapshot_write_tmp(settings.data_dir, lsn, persist.cas_mark, persist.id_mark, &res) < 0 ||
        snapshot_commit(settings.data_dir, lsn) < 0) {
        log_msg(0, "persistence: start-up stopped: the snapshot that replaces what was skipped cannot be written");
        return -1;
    }
    log_msg(0, "persistence: %llu record(s) skipped, %llu key(s) quarantined, %llu damaged byte(s) stepped "
               "over: the state as replayed is written as snapshot %016llx; the files before it go",
            (unsigned long long)r->skipped, (unsigned long long)r->quarantined, (unsigned long long)r->damaged,
            (unsigned long long)lsn);
    r->file_lsn = lsn;
    r->snapshot_lsn = lsn;
    r->snapshot_bytes = res.bytes;
    r->snapshot_entries = res.entries;
    return 0;
}

int persist_start(void) {
    struct recover_opts o = { .partial = settings.recover_partial, .strict = settings.strict_replay };
    bool repaired;

    if (settings.data_dir == NULL)
        return 0;
    persist.replaying = true;
    persist.on = true;
    if (recover_run(settings.data_dir, &o, &persist.lock_fd, &persist.rec) < 0) {
        persist.on = false;
        return -1;
    }
    persist.replaying = false;
    /* Numbers handed out before a crash may not all be in the log: after a
     * restart they go on far above the highest recorded. */
    if (persist.rec.records > 0 || persist.rec.snapshot_lsn > 0 || persist.rec.snapshot_entries > 0) {
        persist.cas_mark = persist.rec.cas_mark + PERSIST_MARK_GAP;
        persist.id_mark = persist.rec.id_mark + PERSIST_MARK_GAP;
    }
    item_cas_floor(persist.cas_mark);
    persist_host->id_floor(persist.id_mark);
    repaired = persist.rec.skipped > 0 || persist.rec.damaged > 0;
    if (repaired && persist_repair(&persist.rec) < 0) {
        persist.on = false;
        return -1;
    }
    persist.snap_lsn = persist.rec.snapshot_lsn;
    persist.snap_bytes = persist.rec.snapshot_bytes;
    if (wal_open(settings.data_dir, persist.rec.file_lsn, persist.rec.next_lsn, settings.log_buffer) < 0) {
        persist.on = false;
        return -1;
    }
    if (repaired)
        files_remove_before(settings.data_dir, persist.rec.snapshot_lsn);
    if (!persist.follow) {      /* a replica's log holds its primary's marks only */
        persist_mark_cas(persist.cas_mark);
        persist_mark_ids(persist.id_mark);
    }
    if (pthread_create(&persist.sync_thread, NULL, persist_sync_main, NULL) != 0) {
        log_msg(0, "persistence: cannot start the sync thread");
        return -1;
    }
    persist.sync_running = true;
    persist_log_start(&persist.rec);
    return 0;
}

void persist_serving(void) {
    __atomic_store_n(&persist.serving, true, __ATOMIC_RELEASE);
}

void persist_stop(void) {
    if (!persist.on)
        return;
    pthread_mutex_lock(&persist.lock);
    __atomic_store_n(&persist.stop, true, __ATOMIC_RELEASE);
    pthread_cond_signal(&persist.cond);
    pthread_mutex_unlock(&persist.lock);
    snap_kill(__atomic_load_n(&persist.snap_pid, __ATOMIC_ACQUIRE));  /* the log holds everything */
    if (persist.sync_running)
        pthread_join(persist.sync_thread, NULL);
    if (persist.snap_joinable)
        pthread_join(persist.snap_thread, NULL);
    wal_close();
    persist_follow_free();
    if (persist.lock_fd >= 0)
        close(persist.lock_fd);
    persist.on = false;
}

/* ---- replication ---- */

void persist_follow(bool on) {
    __atomic_store_n(&persist.follow, on, __ATOMIC_RELEASE);
}

uint64_t persist_local_dropped(void) {
    return __atomic_load_n(&persist.local_dropped, __ATOMIC_RELAXED);
}

uint64_t persist_written(void) {
    return persist.on ? wal_written() : 0;
}

void persist_set_written_hook(void (*fn)(void)) {
    wal_set_written_hook(fn);
}

uint64_t persist_torn_cut(void) {
    return persist.rec.torn;
}

bool persist_snapshot_running(void) {
    return __atomic_load_n(&persist.snap_running, __ATOMIC_ACQUIRE);
}

int persist_flush_to(uint64_t lsn) {
    if (!persist.on || wal_write_upto(lsn) < 0)
        return -1;
    if (settings.fsync_policy == PERSIST_FSYNC_ALWAYS && wal_synced() < lsn)
        return wal_sync();
    return 0;
}

void persist_promote(uint64_t cas_seen, uint64_t id_seen) {
    uint64_t cas = cas_seen > persist.rec.cas_mark ? cas_seen : persist.rec.cas_mark;
    uint64_t ids = id_seen > persist.rec.id_mark ? id_seen : persist.rec.id_mark;

    __atomic_store_n(&persist.follow, false, __ATOMIC_RELEASE);
    if (!persist.on)
        return;
    persist.cas_mark = cas + PERSIST_MARK_GAP;
    persist.id_mark = ids + PERSIST_MARK_GAP;
    item_cas_floor(persist.cas_mark);
    persist_host->id_floor(persist.id_mark);
    persist_mark_cas(persist.cas_mark);
    persist_mark_ids(persist.id_mark);
}

/* ---- stats ---- */

static void persist_emit(stats_emit_fn emit, void *ctx, const char *name, uint64_t v) {
    char buf[24];

    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    emit(ctx, name, buf);
}

static void persist_stats(stats_emit_fn emit, void *ctx) {
    uint64_t file_lsn, snap_lsn, reserved;

    emit(ctx, "persistence", persist.on ? "on" : "off");
    if (!persist.on)
        return;
    /* positions below reserved first, so that the differences cannot wrap */
    file_lsn = wal_file_lsn();
    pthread_mutex_lock(&persist.lock);
    snap_lsn = persist.snap_lsn;
    pthread_mutex_unlock(&persist.lock);
    reserved = wal_reserved();
    persist_emit(emit, ctx, "persist_log_position", reserved);
    persist_emit(emit, ctx, "persist_log_written", wal_written());
    persist_emit(emit, ctx, "persist_log_synced", wal_synced());
    persist_emit(emit, ctx, "persist_log_bytes", reserved - file_lsn);
    persist_emit(emit, ctx, "persist_log_since_snapshot", reserved - snap_lsn);
    persist_emit(emit, ctx, "persist_last_fsync", wal_last_sync_time());
    persist_emit(emit, ctx, "persist_fsync_latency_us", wal_last_sync_us());
    emit(ctx, "persist_write_error", wal_failed() ? "1" : "0");
    emit(ctx, "persist_log_broken", wal_broken() ? "1" : "0");
    persist_emit(emit, ctx, "persist_replies_waiting", persist_host->held_count());
    persist_emit(emit, ctx, "persist_stalled_closes", persist_host->stalled_closes());
    emit(ctx, "persist_snapshot_in_progress", __atomic_load_n(&persist.snap_running, __ATOMIC_ACQUIRE) ? "1" : "0");
    pthread_mutex_lock(&persist.lock);
    persist_emit(emit, ctx, "persist_snapshots", persist.snap_count);
    persist_emit(emit, ctx, "persist_snapshot_failures", persist.snap_failures);
    persist_emit(emit, ctx, "persist_snapshot_position", persist.snap_lsn);
    persist_emit(emit, ctx, "persist_snapshot_bytes", persist.snap_bytes);
    persist_emit(emit, ctx, "persist_last_snapshot", persist.snap_last_time);
    persist_emit(emit, ctx, "persist_last_snapshot_ms", persist.snap_last_ms);
    pthread_mutex_unlock(&persist.lock);
    persist_emit(emit, ctx, "persist_recovery_ms", persist.rec.ms);
    persist_emit(emit, ctx, "persist_records_replayed", persist.rec.records);
    persist_emit(emit, ctx, "persist_snapshot_entries_loaded", persist.rec.snapshot_entries);
    persist_emit(emit, ctx, "persist_replay_skipped", persist.rec.skipped);
    persist_emit(emit, ctx, "persist_replay_quarantined", persist.rec.quarantined);
    persist_emit(emit, ctx, "persist_recovery_damaged_bytes", persist.rec.damaged);
    persist_emit(emit, ctx, "persist_faults_injected", persist_io_faults_injected());
}
