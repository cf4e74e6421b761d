/*
 * main: start-up, the main thread's event loop (listener, clock, signals)
 * and clean shutdown.
 *
 * Shutdown order: stop accepting, stop the workers (each closes its
 * connections, releasing every item reference), then free the keyspace
 * and everything else, so valgrind finds no leak.
 */
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "clock.h"
#include "hash.h"
#include "item.h"
#include "listener.h"
#include "log.h"
#include "lru.h"
#include "settings.h"
#include "stats.h"
#include "store.h"
#include "store_queue.h"
#include "worker.h"

static struct event_base *main_base;

static void main_on_signal(evutil_socket_t sig, short what, void *arg) {
    log_msg(0, "caught signal %d, shutting down", (int)sig);
    event_base_loopbreak(main_base);
}

static void main_on_tick(evutil_socket_t fd, short what, void *arg) {
    clock_tick();
    store_tick();
}

static int main_setup(void) {
    clock_init();
    stats_init(settings.num_threads);
    item_init(settings.maxbytes);
    hash_init(settings.hashpower_init);
    lru_init();
    store_init();
    signal(SIGPIPE, SIG_IGN);
    /* Every event base is used by its own thread only (other threads reach
     * a worker or the main thread through its pipe), so libevent runs
     * without its locks. */
    main_base = event_base_new();
    if (main_base == NULL) {
        log_msg(0, "cannot create the main event base");
        return -1;
    }
    store_queue_init(main_base);
    return 0;
}

static void main_teardown(void) {
    workers_stop();
    store_queue_shutdown();
    store_destroy();
    stats_free();
    event_base_free(main_base);
    settings_free();
    libevent_global_shutdown();
}

int main(int argc, char **argv) {
    struct event *ev_term, *ev_int, *ev_tick;
    struct timeval second = { 1, 0 };
    int rc;

    settings_init();
    rc = settings_parse(argc, argv);
    if (rc != 0) {
        settings_free();
        return rc > 0 ? 0 : 64;
    }
    log_set_level(settings.verbose);
    if (main_setup() < 0 || listener_open(main_base) < 0 ||
        workers_start(settings.num_threads) < 0) {
        log_msg(0, "start-up failed");
        return 1;
    }
    hash_start_maintainer();
    ev_term = evsignal_new(main_base, SIGTERM, main_on_signal, NULL);
    ev_int = evsignal_new(main_base, SIGINT, main_on_signal, NULL);
    ev_tick = event_new(main_base, -1, EV_PERSIST, main_on_tick, NULL);
    event_add(ev_term, NULL);
    event_add(ev_int, NULL);
    event_add(ev_tick, &second);
    log_msg(0, "mcds-server %s ready: %d threads, %zu MB, max %d connections",
            PACKAGE_VERSION, settings.num_threads, settings.maxbytes / (1024 * 1024), settings.maxconns);

    event_base_dispatch(main_base);

    listener_close();
    event_free(ev_term);
    event_free(ev_int);
    event_free(ev_tick);
    main_teardown();
    fprintf(stderr, "mcds-server: stopped\n");
    return 0;
}
