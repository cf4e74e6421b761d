/*
 * main: start-up, the main thread's event loop (listener, clock, signals)
 * and clean shutdown.
 *
 * Shutdown order: stop accepting, stop the workers (each closes its
 * connections, releasing every item reference), then free the keyspace
 * and everything else, so valgrind finds no leak.
 */
#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "config.h"
#include "proto/auth.h"
#include "base/clock.h"
#include "base/crash.h"
#include "proto/readonly.h"
#include "proto/proto_text.h"
#include "verbs/verbs.h"
#include "net/conn_names.h"
#include "ops/daemon.h"
#include "cache/hash.h"
#include "cache/item.h"
#include "store/item_persist.h"
#include "net/listener.h"
#include "base/log.h"
#include "cache/lru.h"
#include "cache/seg.h"
#include "persist/check.h"
#include "persist/persist.h"
#include "base/quiesce.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store.h"
#include "store/store_ctree.h"
#include "store/scan.h"
#include "store/store_list.h"
#include "store/store_queue.h"
#include "types/ctree.h"
#include "types/table.h"
#include "net/tls.h"
#include "repl/repl.h"
#include "repl/sync.h"
#include "store/ctree_replay.h"
#include "store/list_replay.h"
#include "store/queue_replay.h"
#include "types/queue_persist.h"
#include "net/worker.h"
#include "ops/detail.h"
#include "ops/metrics_http.h"
#include "ops/watch.h"
#include "types/queue.h"

#define MAIN_FD_RESERVE 64     /* descriptors beyond -c: listeners, pipes, files */

static struct event_base *main_base;
static struct quiesce_member *main_quiesce;    /* the timers run here */

#ifdef __SANITIZE_THREAD__
/* A ThreadSanitizer build (--enable-sanitizers=thread): its deadlock
 * detector tracks at most 64 locks held at once, and the hash table's
 * growth holds all of its stripes for a moment by design. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) {
    return "detect_deadlocks=0";
}
#endif

/* What each handled signal does. Every other signal keeps its default. */
enum main_sig_action { MAIN_SIG_STOP, MAIN_SIG_GRACEFUL, MAIN_SIG_REOPEN_LOG, MAIN_SIG_IGNORE };

static const struct {
    int sig;
    enum main_sig_action action;
} main_signals[] = {
    { SIGTERM, MAIN_SIG_STOP },
    { SIGINT, MAIN_SIG_STOP },
    { SIGQUIT, MAIN_SIG_STOP },
    { SIGUSR1, MAIN_SIG_GRACEFUL },
    { SIGHUP, MAIN_SIG_REOPEN_LOG },
    { SIGUSR2, MAIN_SIG_IGNORE },
};

#define MAIN_NSIGNALS (sizeof(main_signals) / sizeof(main_signals[0]))

static struct event *main_sig_events[MAIN_NSIGNALS];

static void main_on_signal(evutil_socket_t sig, short what, void *arg) {
    enum main_sig_action action = (enum main_sig_action)(intptr_t)arg;

    switch (action) {
    case MAIN_SIG_STOP:
        log_msg(0, "caught signal %d (%s), shutting down", (int)sig, strsignal((int)sig));
        event_base_loopbreak(main_base);
        break;
    case MAIN_SIG_GRACEFUL:
        log_msg(0, "caught SIGUSR1: graceful stop (no new connections; replies already queued are sent)");
        event_base_loopbreak(main_base);
        break;
    case MAIN_SIG_REOPEN_LOG:
        log_reopen();
        auth_reload();
        break;
    case MAIN_SIG_IGNORE:
        log_msg(0, "caught signal %d (%s): ignored", (int)sig, strsignal((int)sig));
        break;
    }
}

static int main_watch_signals(void) {
    size_t i;

    for (i = 0; i < MAIN_NSIGNALS; i++) {
        main_sig_events[i] = evsignal_new(main_base, main_signals[i].sig, main_on_signal,
                                          (void *)(intptr_t)main_signals[i].action);
        if (main_sig_events[i] == NULL || event_add(main_sig_events[i], NULL) < 0)
            return -1;
    }
    return 0;
}

static void main_unwatch_signals(void) {
    size_t i;

    for (i = 0; i < MAIN_NSIGNALS; i++) {
        if (main_sig_events[i] != NULL)
            event_free(main_sig_events[i]);
        main_sig_events[i] = NULL;
    }
}

/* Raises the open-file limit to fit -c clients plus a reserve, as far as
 * the hard limit allows (memcached refuses to start otherwise, and so do
 * we: clients past the limit would wait unanswered in the backlog). */
static int main_fd_limit(void) {
    rlim_t need = (rlim_t)settings.maxconns + MAIN_FD_RESERVE;
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        log_msg(0, "failed to set rlimit for open files: -c %d needs %llu descriptors, the hard "
                "limit is %llu; raise it (ulimit -Hn, LimitNOFILE=) or start with a smaller -c",
                settings.maxconns, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
        log_msg(0, "failed to set rlimit for open files to %llu: %s", (unsigned long long)need,
                strerror(errno));
        return -1;
    }
    return 0;
}

static void main_on_tick(evutil_socket_t fd, short what, void *arg) {
    clock_tick();
    store_tick();       /* on a replica, no structure ends here (store_set_follower) */
    ctree_tick();
}

static int main_setup(void) {
    clock_init();
    stats_init(settings.num_threads);
    item_init(settings.maxbytes);
    seg_init(settings.maxbytes, settings.num_threads);
    hash_init(settings.hashpower_init);
    lru_init();
    store_init();
    verbs_init();
    if (readonly_check() > 0 && settings.debug) {
        log_msg(0, "--debug: every verb must be a read or a write for replicas");
        return -1;
    }
    listener_set_protocol(proto_choose);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);   /* a log past the file size limit is a write error, not a kill */
    /* Every event base is used by its own thread only (other threads reach
     * a worker or the main thread through its pipe), so libevent runs
     * without its locks. */
    main_base = event_base_new();
    if (main_base == NULL || (main_quiesce = quiesce_join(main_base)) == NULL) {
        log_msg(0, "cannot create the main event base");
        return -1;
    }
    watch_init();
    store_queue_init(main_base);
    store_ctree_init(main_base);
    store_list_init();
    table_system_init(store_reserve);
    return 0;
}

/* The metrics listener scrapes with the protocols' users. */
static const struct metrics_auth main_metrics_auth = {
    .on = auth_on,
    .login = auth_peer_login,
};

static const struct persist_host main_persist_host = {
    .wake_held = workers_wake_held,
    .held_count = workers_held_count,
    .stalled_closes = workers_stalled_closes,
    .id_floor = queue_id_floor,
};

static void main_persist_types(void) {
    persist_init(&main_persist_host);
    sync_set_waker(workers_wake_held);
    queue_replay_init();
    list_replay_init();
    item_persist_init();
    ctree_replay_init();
    table_persist_init();
}

/* With --data-dir: restores the keyspace (not held to -m: what was stored
 * is never dropped at a restart) and opens the log. */
static int main_restore(void) {
    int rc;

    main_persist_types();
    store_set_restoring(true);
    rc = persist_start();
    store_set_restoring(false);
    lru_thread_end();       /* the segments restored items went into */
    if (!repl_is_replica())     /* a replica's queues stay as replay leaves them */
        queue_persist_replay_done();
    ctree_replay_done();
    if (rc == 0 && item_mem_used() > item_mem_limit())
        log_msg(0, "persistence: the restored data takes %zu MB, over -m (%zu MB): "
                "cache values go first, structures are kept", item_mem_used() >> 20, item_mem_limit() >> 20);
    return rc;
}

static void main_teardown(void) {
    quiesce_close();
    repl_stop();
    workers_stop();
    persist_stop();         /* its sync thread wakes workers until it stops */
    workers_free();
    store_queue_shutdown();
    ctree_shutdown();
    store_list_shutdown();
    table_system_shutdown();
    scan_shutdown();
    conn_names_free();
    store_destroy();
    ctree_destroy();
    detail_reset();         /* stats detail's prefixes */
    stats_free();
    auth_free();
    tls_free();
    quiesce_leave(main_quiesce);
    event_base_free(main_base);
    settings_free();
    libevent_global_shutdown();
}

/* --check-data-dir: the offline checker; nothing listens. */
static int main_check(void) {
    int rc = 1;

    if (main_setup() == 0) {
        main_persist_types();
        store_set_restoring(true);
        rc = persist_check(settings.check_dir);
    }
    main_teardown();
    log_close();
    return rc;
}

int main(int argc, char **argv) {
    struct event *ev_tick;
    struct timeval second = { 1, 0 };
    int rc;

    settings_init();
    rc = settings_parse(argc, argv);
    if (rc != 0) {
        settings_free();
        return rc > 0 ? 0 : 64;
    }
    log_set_level(settings.verbose);
    crash_init();
    if (settings.check_dir != NULL)
        return main_check();
    if (settings.log_file != NULL && log_open(settings.log_file) < 0) {
        fprintf(stderr, "mcds-server: cannot open log file %s: %s\n", settings.log_file, strerror(errno));
        settings_free();
        return 1;
    }
    /* Signals are watched before the port opens: one sent as soon as the
     * server says it listens is handled once the loop runs, never by the
     * default action. */
    repl_set_exec_hook(daemon_mark_in_place);
    if (daemon_start() < 0 || main_fd_limit() < 0 || auth_load() < 0 || main_setup() < 0 ||
        main_watch_signals() < 0 || tls_init() < 0 || repl_configure(argv) < 0 || main_restore() < 0 ||
        metrics_http_start(&main_metrics_auth) < 0 || listener_open(main_base) < 0 || daemon_write_pid() < 0 ||
        daemon_drop_root() < 0 || workers_start(settings.num_threads) < 0 || repl_start() < 0) {
        log_msg(0, "start-up failed");
        return 1;
    }
    store_set_crawler(settings.lru_crawler);
    hash_start_maintainer();
    ev_tick = event_new(main_base, -1, EV_PERSIST, main_on_tick, NULL);
    event_add(ev_tick, &second);
    log_msg(0, "mcds-server %s ready: %d threads, %zu MB, max %d connections",
            PACKAGE_VERSION, settings.num_threads, settings.maxbytes / (1024 * 1024), settings.maxconns);

    daemon_ready();
    persist_serving();
    event_base_dispatch(main_base);

    metrics_http_stop();
    listener_close();
    main_unwatch_signals();
    event_free(ev_tick);
    daemon_stop();
    main_teardown();
    log_msg(0, "stopped");
    log_close();
    return 0;
}
