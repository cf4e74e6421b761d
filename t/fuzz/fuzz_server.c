/*
 * fuzz_server: one run of the server per input (see fuzz_server.h): the
 * keyspace built and freed around it, the event loop run until nothing
 * happens, the clients' sockets, and the invariant checks.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "proto/cmd.h"
#include "verbs/verbs.h"
#include "net/conn.h"
#include "ops/detail.h"
#include "cache/hash.h"
#include "cache/item.h"
#include "base/log.h"
#include "cache/lru.h"
#include "cache/seg.h"
#include "store/scan.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store.h"
#include "store/store_list.h"
#include "store/store_queue.h"
#include "store/store_ctree.h"
#include "types/ctree.h"
#include "types/list.h"
#include "types/queue.h"
#include "fuzz_server.h"

#define FUZZ_MAXBYTES (16 * 1024)       /* -m: eviction and out-of-memory are near */
#define FUZZ_ITEM_MAX (8 * 1024)        /* -I */
#define FUZZ_HASHPOWER 12
#define FUZZ_OUTPUT_MAX (64 * 1024)
#define FUZZ_BUFFER_LIMIT (1024 * 1024)
#define FUZZ_MAX_PASSES 100000          /* a run that never settles is a bug */
#define FUZZ_READ_MAX (1 << 20)         /* replies kept per client */

static struct event_base *fuzz_evbase;

void fuzz_fail(const char *fmt, ...) {
    va_list ap;

    fprintf(stderr, "fuzz: broken invariant: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}

struct event_base *fuzz_base(void) {
    return fuzz_evbase;
}

/* Once per process: what outlives the runs. */
static void fuzz_server_once(void) {
    settings_init();
    signal(SIGPIPE, SIG_IGN);
    if (getenv("MCDS_FUZZ_LOG") == NULL && log_open("/dev/null") < 0)
        fuzz_fail("cannot open /dev/null");
    stats_init(1);
    stats_thread_init(0);
    verbs_init();
    store_ctree_init(NULL);
    /* The list reaper thread is stopped at once: lists are freed inline. */
    store_list_init();
    store_list_shutdown();
    fuzz_evbase = event_base_new();
    if (fuzz_evbase == NULL)
        fuzz_fail("no event base");
}

/* The settings a verb may have changed, back to the harness's. */
static void fuzz_settings_reset(const struct fuzz_limits *l) {
    settings.maxbytes = FUZZ_MAXBYTES;
    settings.item_size_max = FUZZ_ITEM_MAX;
    settings.hashpower_init = FUZZ_HASHPOWER;
    settings.conn_output_max = l->output_max != 0 ? l->output_max : FUZZ_OUTPUT_MAX;
    settings.conn_buffer_limit = l->buffer_limit != 0 ? l->buffer_limit : FUZZ_BUFFER_LIMIT;
    settings.reqs_per_event = l->reqs_per_event != 0 ? l->reqs_per_event : 20;
    settings.verbose = 0;
    settings.evict_to_free = true;
    settings.flush_enabled = true;
    settings.cas_enabled = true;
    settings.shutdown_enabled = false;
    settings.debug = true;
    settings.protocol = PROTO_AUTO;
    settings.idle_timeout = 0;
    log_set_level(getenv("MCDS_FUZZ_LOG") != NULL ? atoi(getenv("MCDS_FUZZ_LOG")) : 0);
}

void fuzz_server_start(const struct fuzz_limits *l) {
    if (fuzz_evbase == NULL)
        fuzz_server_once();
    fuzz_settings_reset(l);
    clock_init();
    item_init(settings.maxbytes);
    seg_init(settings.maxbytes, 1);
    hash_init(settings.hashpower_init);
    lru_init();
    store_init();
    store_set_crawler(true);
    detail_set_enabled(false);
    detail_reset();
    store_queue_init(fuzz_evbase);
    queue_debug_dead_pause(0);      /* a debugdeadpause of the last input */
}

struct fuzz_walk {
    uint64_t items, bytes;
};

static void fuzz_walk_item(item *it, void *arg) {
    struct fuzz_walk *w = arg;

    w->items++;
    w->bytes += item_bytes(it);
}

/* Every count the keyspace keeps agrees with the table. */
static void fuzz_check_store(void) {
    uint64_t items = stats_global_get(STATS_CURR_ITEMS), bytes = stats_global_get(STATS_BYTES);
    struct fuzz_walk w = { 0, 0 };
    uint32_t b;

    for (b = 0; b < hash_buckets(); b++)
        hash_visit_bucket(b, fuzz_walk_item, &w);
    if (hash_count() != items || w.items != items)
        fuzz_fail("hash table holds %llu items (%llu counted), curr_items says %llu",
                  (unsigned long long)w.items, (unsigned long long)hash_count(), (unsigned long long)items);
    if (w.bytes != bytes)
        fuzz_fail("items in the table take %llu bytes, stats bytes says %llu", (unsigned long long)w.bytes,
                  (unsigned long long)bytes);
}

static void fuzz_check_buffers(void) {
    uint64_t rb = stats_global_get(STATS_READ_BUF_BYTES), ro = stats_global_get(STATS_RESPONSE_OBJ_BYTES);
    uint64_t rf = stats_global_get(STATS_READ_BUF_BYTES_FREE);

    if (rb != 0 || ro != 0 || rf != 0)
        fuzz_fail("connection buffers not back to 0: read_buf_bytes %llu, read_buf_bytes_free %llu, "
                  "response_obj_bytes %llu", (unsigned long long)rb, (unsigned long long)rf,
                  (unsigned long long)ro);
    if (stats_global_get(STATS_CURR_CONNECTIONS) != 0)
        fuzz_fail("curr_connections %llu with no connection",
                  (unsigned long long)stats_global_get(STATS_CURR_CONNECTIONS));
}

/* After the keyspace was freed: nothing left anywhere. */
static void fuzz_check_freed(void) {
    uint64_t nlists, nelems, nwaiters, nreclaiming, nqueues;
    struct queue_stats qs;

    if (item_mem_used() != 0)
        fuzz_fail("item memory %zu bytes after every item was freed", item_mem_used());
    list_totals(&nlists, &nelems, &nwaiters, &nreclaiming);
    if (nlists != 0 || nwaiters != 0)
        fuzz_fail("%llu lists, %llu list waiters after every item was freed", (unsigned long long)nlists,
                  (unsigned long long)nwaiters);
    queue_totals(&qs, &nqueues);
    if (nqueues != 0)
        fuzz_fail("%llu queues after every item was freed", (unsigned long long)nqueues);
    if (event_base_get_num_events(fuzz_evbase, EVENT_BASE_COUNT_ADDED) != 0)
        fuzz_fail("%d events left on the loop after the run",
                  event_base_get_num_events(fuzz_evbase, EVENT_BASE_COUNT_ADDED));
}

/* The gauges that freeing the table does not count down. */
static void fuzz_stats_zero(void) {
    stats_global_add(STATS_CURR_ITEMS, -(int64_t)stats_global_get(STATS_CURR_ITEMS));
    stats_global_add(STATS_BYTES, -(int64_t)stats_global_get(STATS_BYTES));
}

void fuzz_server_stop(void) {
    fuzz_run(NULL, 0);
    fuzz_worker_finish();
    fuzz_check_buffers();
    fuzz_check_store();
    store_queue_shutdown();
    ctree_debug_hold(-1);   /* a debugctreehold of the last input */
    ctree_tick();           /* releases deleted subtrees, buries their objects */
    scan_shutdown();
    store_destroy();
    ctree_destroy();
    fuzz_stats_zero();
    fuzz_check_freed();
}

bool fuzz_client_open(struct fuzz_client *c, int sockbuf) {
    int sv[2], i;

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return false;
    for (i = 0; i < 2; i++) {
        fcntl(sv[i], F_SETFL, O_NONBLOCK);
        if (sockbuf > 0) {
            setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf));
            setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf));
        }
    }
    c->fd = sv[0];
    fuzz_worker_add(sv[1]);
    return true;
}

/* Reads what the server sent c: bytes read (0: nothing now). */
static size_t fuzz_client_read(struct fuzz_client *c) {
    char buf[4096];
    size_t total = 0;

    while (c->fd >= 0) {
        size_t want = sizeof(buf);
        ssize_t r;
        if (c->read_chunk != 0 && c->read_chunk - total < want)
            want = c->read_chunk - total;
        if (want == 0)
            break;
        r = read(c->fd, buf, want);
        if (r <= 0)
            break;
        total += (size_t)r;
        if (c->nreplies + (size_t)r > c->cap && c->cap < FUZZ_READ_MAX) {
            size_t cap = c->cap ? c->cap * 2 : 4096;
            while (cap < c->nreplies + (size_t)r)
                cap *= 2;
            c->replies = realloc(c->replies, cap);
            if (c->replies == NULL)
                fuzz_fail("out of memory for replies");
            c->cap = cap;
        }
        if (c->nreplies + (size_t)r <= c->cap) {
            memcpy(c->replies + c->nreplies, buf, (size_t)r);
            c->nreplies += (size_t)r;
        }
    }
    return total;
}

/* One pass of the loop: true if anything happened. */
static bool fuzz_pass(struct fuzz_client **clients, int n) {
    uint64_t io = stats_counter_total(STATS_BYTES_READ) + stats_counter_total(STATS_BYTES_WRITTEN);
    bool busy = false;
    int i;

    event_base_loop(fuzz_evbase, EVLOOP_NONBLOCK);
    if (fuzz_worker_run_calls() > 0)
        busy = true;
    for (i = 0; i < n; i++)
        if (clients[i] != NULL && fuzz_client_read(clients[i]) > 0)
            busy = true;
    if (stats_counter_total(STATS_BYTES_READ) + stats_counter_total(STATS_BYTES_WRITTEN) != io)
        busy = true;
    return busy || event_base_get_num_events(fuzz_evbase, EVENT_BASE_COUNT_ACTIVE) > 0;
}

void fuzz_run(struct fuzz_client **clients, int n) {
    int pass;

    for (pass = 0; pass < FUZZ_MAX_PASSES; pass++)
        if (!fuzz_pass(clients, n))
            return;
    fuzz_fail("the server never settled (%d passes)", FUZZ_MAX_PASSES);
}

void fuzz_client_write(struct fuzz_client *c, const uint8_t *data, size_t n) {
    struct fuzz_client *one[1] = { c };
    int stuck = 0;

    while (n > 0 && c->fd >= 0 && stuck < 3) {
        ssize_t w = write(c->fd, data, n);
        if (w > 0) {
            data += w;
            n -= (size_t)w;
            stuck = 0;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return;     /* the server closed it */
        /* The socket is full: let the server read it. */
        stuck += fuzz_pass(one, 1) ? 0 : 1;
    }
}

void fuzz_client_hangup(struct fuzz_client *c) {
    if (c->fd >= 0) {
        fuzz_client_read(c);
        close(c->fd);
        c->fd = -1;
    }
}

void fuzz_client_free(struct fuzz_client *c) {
    fuzz_client_hangup(c);
    if (getenv("MCDS_FUZZ_SHOW") != NULL && c->nreplies > 0) {   /* to look at a reproducer */
        fprintf(stderr, "---- replies to one client:\n");
        fwrite(c->replies, 1, c->nreplies, stderr);
    }
    free(c->replies);
    c->replies = NULL;
    c->nreplies = c->cap = 0;
}
