/*
 * repl: the role, the lineage, `replicaof`, and replication's `stats`.
 * The role changes only here: at start-up (--replicaof, or a restart in
 * place), by a promotion, or by a restart in place as a replica.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/settings.h"
#include "base/stats.h"
#include "persist/persist.h"
#include "repl/fullsync.h"
#include "repl/lineage.h"
#include "repl/link_tls.h"
#include "repl/primary.h"
#include "repl/replica.h"
#include "repl/repl.h"
#include "repl/sync.h"
#include "store/ctree_replay.h"
#include "store/store.h"
#include "types/queue.h"
#include "types/queue_persist.h"

#define REPL_DRAIN_MS 1000     /* a restart in place waits this long for the answers of waiting changes */

static struct {
    pthread_mutex_t lock;
    bool replica;               /* atomic */
    bool restarting;            /* a restart in place is on its way */
    bool stopping;              /* atomic: the server stops (a restart gives up) */
    bool unsaved;               /* the lineage is not in DIR/lineage yet */
    char host[REPL_HOST_MAX];
    int port;
    struct lineage lineage;
} repl = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void repl_stats(stats_emit_fn emit, void *ctx);
static const struct stats_provider repl_stats_provider = { "replication", STATS_PLACE_MCDS, 45, repl_stats };

/* "HOST:PORT" into host and port: 0 or -1. */
static int repl_parse_hostport(const char *s, char *host, int *port) {
    const char *colon = strrchr(s, ':');
    char *end;
    long p;

    if (colon == NULL || colon == s || (size_t)(colon - s) >= REPL_HOST_MAX)
        return -1;
    p = strtol(colon + 1, &end, 10);
    if (*end != '\0' || p < 1 || p > 65535)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    *port = (int)p;
    return 0;
}

void repl_set_exec_hook(void (*fn)(void)) {
    fullsync_set_exec_hook(fn);
}

int repl_configure(char **argv) {
    char primary[REPL_HOST_MAX + 8];
    const char *to = fullsync_env() != NULL ? fullsync_env() : settings.replicaof;

    fullsync_set_argv(argv);
    if (link_tls_check() < 0)
        return -1;
    if (settings.data_dir != NULL) {
        stats_provide(&repl_stats_provider);
        persist_set_written_hook(primary_log_written);     /* senders wake on the log's writes */
    }
    if (to == NULL)
        return 0;
    if (settings.data_dir == NULL || repl_parse_hostport(to, repl.host, &repl.port) < 0) {
        log_msg(0, "replication: bad primary '%s' (HOST:PORT, with --data-dir)", to);
        return -1;
    }
    snprintf(primary, sizeof(primary), "%s:%d", repl.host, repl.port);
    reply_set_primary(primary);
    __atomic_store_n(&repl.replica, true, __ATOMIC_RELEASE);
    persist_follow(true);
    queue_set_frozen(true);
    store_set_follower(true);
    return 0;
}

/* The lineage at start-up. A primary starts a new one at every start-up,
 * at the position its log ends at, the one before ending there: what the
 * restart replayed is all of the old history a replica may continue from
 * (a machine that died may have lost the end of a log its replicas had;
 * a replica past that end resyncs in full). It goes into the directory
 * now if replication used the directory before, else once replication
 * uses it (repl_lineage_keep): a server that never replicates keeps no
 * file. A replica keeps its primary's. */
static int repl_load_lineage(void) {
    bool have = lineage_load(settings.data_dir, &repl.lineage) == 0;

    if (repl.replica)
        return 0;
    lineage_fork(&repl.lineage, persist_position());
    if (!have) {
        repl.unsaved = true;
        return 0;
    }
    log_msg(0, "replication: lineage %s starts at %llu; %s ends there%s", repl.lineage.id,
            (unsigned long long)repl.lineage.start, repl.lineage.prev,
            persist_torn_cut() > 0 ? " (the start-up cut a torn tail off the log)" : "");
    return lineage_save(settings.data_dir, &repl.lineage);
}

int repl_lineage_keep(void) {
    int rc = 0;

    pthread_mutex_lock(&repl.lock);
    if (repl.unsaved && (rc = lineage_save(settings.data_dir, &repl.lineage)) == 0)
        repl.unsaved = false;
    pthread_mutex_unlock(&repl.lock);
    return rc;
}

int repl_start(void) {
    if (settings.data_dir == NULL)
        return 0;
    if (repl_load_lineage() < 0)
        return -1;
    if (repl.replica && replica_start(repl.host, repl.port) < 0) {
        log_msg(0, "replication: cannot start the link thread");
        return -1;
    }
    if (repl.replica)
        log_msg(0, "replication: a read-only replica of %s:%d", repl.host, repl.port);
    return 0;
}

void repl_stop(void) {
    __atomic_store_n(&repl.stopping, true, __ATOMIC_RELEASE);
    sync_set_stopping(true);    /* changes waiting for replicas are answered, unconfirmed */
    replica_stop();
    primary_stop();
}

bool repl_is_replica(void) {
    return __atomic_load_n(&repl.replica, __ATOMIC_ACQUIRE);
}

void repl_primary_name(char *buf, size_t n) {
    pthread_mutex_lock(&repl.lock);
    snprintf(buf, n, "%s:%d", repl.host, repl.port);
    pthread_mutex_unlock(&repl.lock);
}

void repl_lineage(struct lineage *l) {
    pthread_mutex_lock(&repl.lock);
    *l = repl.lineage;
    pthread_mutex_unlock(&repl.lock);
}

void repl_take_lineage(const struct lineage *l) {
    pthread_mutex_lock(&repl.lock);
    repl.lineage = *l;
    repl.unsaved = lineage_save(settings.data_dir, &repl.lineage) < 0;
    pthread_mutex_unlock(&repl.lock);
}

/* ---- changing the role ---- */

static void *repl_restart_main(void *arg) {
    char *to = arg;

    sync_set_stopping(true);    /* changes waiting for replicas are answered before the restart */
    sync_drain(REPL_DRAIN_MS);
    fullsync_restart(to, &repl.stopping);
    if (!__atomic_load_n(&repl.stopping, __ATOMIC_ACQUIRE)) {
        log_msg(0, "replication: the restart in place as a replica of %s failed", to);
        sync_set_stopping(false);
    }
    free(to);
    return NULL;
}

enum reply_id repl_replicaof(const char *host, int port) {
    char *to, primary[REPL_HOST_MAX + 8];
    pthread_t t;

    if (settings.data_dir == NULL)
        return REPLY_REPL_NO_DATA_DIR;
    if (repl_is_replica()) {
        replica_stop();
        pthread_mutex_lock(&repl.lock);
        snprintf(repl.host, sizeof(repl.host), "%s", host);
        repl.port = port;
        pthread_mutex_unlock(&repl.lock);
        snprintf(primary, sizeof(primary), "%s:%d", host, port);
        reply_set_primary(primary);
        log_msg(0, "replication: now a replica of %s:%d", host, port);
        return replica_start(host, port) == 0 ? REPLY_OK : REPLY_REPL_NO_THREAD;
    }
    pthread_mutex_lock(&repl.lock);
    if (repl.restarting) {
        pthread_mutex_unlock(&repl.lock);
        return REPLY_REPL_RESTARTING;
    }
    if ((to = malloc(REPL_HOST_MAX + 8)) == NULL) {
        pthread_mutex_unlock(&repl.lock);
        return REPLY_OOM;
    }
    snprintf(to, REPL_HOST_MAX + 8, "%s:%d", host, port);
    repl.restarting = true;
    pthread_mutex_unlock(&repl.lock);
    /* The restart holds every thread: not from this worker, which must
     * reach the end of its turn (its reply goes then). */
    if (pthread_create(&t, NULL, repl_restart_main, to) != 0) {
        free(to);
        pthread_mutex_lock(&repl.lock);
        repl.restarting = false;
        pthread_mutex_unlock(&repl.lock);
        return REPLY_REPL_NO_THREAD;
    }
    pthread_detach(t);
    return REPLY_OK;
}

enum reply_id repl_promote(void) {
    uint64_t cas, ids, pos;

    if (settings.data_dir == NULL)
        return REPLY_REPL_NO_DATA_DIR;
    if (!repl_is_replica())
        return REPLY_OK;
    replica_stop();
    pos = persist_position();
    persist_flush_to(pos);
    persist_follow_marks(&cas, &ids);
    persist_promote(cas, ids);
    /* finished as a start-up finishes its replay; each takes its own locks */
    queue_persist_replay_done();
    ctree_replay_done();
    pthread_mutex_lock(&repl.lock);
    lineage_fork(&repl.lineage, pos);
    repl.unsaved = lineage_save(settings.data_dir, &repl.lineage) < 0;
    pthread_mutex_unlock(&repl.lock);
    queue_set_frozen(false);
    store_set_follower(false);
    __atomic_store_n(&repl.replica, false, __ATOMIC_RELEASE);
    log_msg(0, "replication: promoted at %llu: lineage %s (the one before, %s, ends there)",
            (unsigned long long)pos, repl.lineage.id, repl.lineage.prev);
    return REPLY_OK;
}

/* ---- stats ---- */

static void repl_stats(stats_emit_fn emit, void *ctx) {
    struct lineage l;
    char primary[REPL_HOST_MAX + 8];

    repl_lineage(&l);
    emit(ctx, "repl_role", repl_is_replica() ? "replica" : "primary");
    emit(ctx, "repl_lineage", l.id[0] != '\0' ? l.id : "-");     /* a replica that has none yet */
    stats_emit_u64(emit, ctx, "repl_position", persist_position());
    stats_emit_u64(emit, ctx, "repl_local_records", persist_local_dropped());
    if (repl_is_replica()) {
        repl_primary_name(primary, sizeof(primary));
        emit(ctx, "repl_primary", primary);
        emit(ctx, "repl_serve_stale", settings.repl_serve_stale ? "yes" : "no");
        stats_emit_u64(emit, ctx, "repl_max_lag", settings.repl_max_lag);
        replica_stats(emit, ctx);
    }
    primary_stats(emit, ctx);
    sync_stats(emit, ctx);
}
