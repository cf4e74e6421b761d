/*
 * worker: worker threads, the hand-off queue, and per-worker connection
 * lists (so shutdown can close every connection and free its memory).
 *
 * Hand-off: the listener appends the socket to the worker's queue under
 * the queue mutex and writes one byte to the worker's pipe; the worker's
 * pipe event drains the queue. A 'p' byte says calls were posted for the
 * worker's thread (waking a blocked consumer); a 'q' byte asks it to stop.
 * A worker wakes another only once for any number of calls posted before
 * it looks (one 'p' byte in the pipe at a time), and posts to itself
 * through an event of its own base: no pipe, no lock, no system call.
 *
 * A worker that has run for WORKER_SLICE_US without sleeping (every turn
 * of its loop found more ready connections) yields its core once, so that
 * whatever else is runnable there (the other worker, clients on the same
 * machine) waits at most about that long, not a whole scheduler time
 * slice: see doc/performance.md, "Tail latency".
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "net/conn.h"
#include "net/conn_sync.h"
#include "cache/item_cache.h"
#include "base/log.h"
#include "cache/lru.h"
#include "persist/persist.h"
#include "base/quiesce.h"
#include "net/rbuf_cache.h"
#include "base/settings.h"
#include "base/stats.h"
#include "net/worker.h"

#define WORKER_SLICE_US 50

/* An accepted socket on its way to a worker. */
struct worker_newconn {
    int fd;
    bool tls;               /* accepted on a TLS listener */
    conn_proto_choose_fn choose;    /* the listener's protocols */
};

struct worker {
    int index;
    pthread_t thread;
    struct event_base *base;
    struct event *notify_ev;
    struct event *idle_ev;  /* -o idle_timeout: once a second, closes idle connections */
    int notify_rd, notify_wr;
    pthread_mutex_t qlock;
    struct worker_newconn *queue;   /* sockets waiting to become connections */
    int qlen, qcap;
    conn *conns;            /* this worker's open connections */
    struct worker_call *calls, *calls_tail;  /* posted, under qlock (calls also read without) */
    struct rbuf_cache rbufs;                  /* idle read buffers */
    conn *held;                 /* connections waiting for the log */
    struct worker_call held_call;
    int held_posted;            /* atomic: held_call is queued */
    struct event *commit_ev;    /* runs worker_commit once more, soon */
    struct event *sync_ev;      /* the first wait for replicas gives up (conn_sync.h) */
    int notified;               /* atomic: a 'p' byte is on its way */
    struct worker_call *own, *own_tail;     /* posted by w's own thread */
    struct event *own_ev;       /* runs them */
    struct quiesce_member *quiesce;     /* held here while a snapshot forks */
};

static __thread struct worker *worker_self;     /* the worker of this thread */
static uint64_t workers_nheld;          /* atomic: connections waiting for the log */
static uint64_t workers_nstalled;       /* atomic: closed after --log-stall-timeout */

static struct worker *workers;
static int nworkers;
static unsigned next_worker;

struct event_base *worker_base(struct worker *w) {
    return w->base;
}

static void worker_add_conn(struct worker *w, const struct worker_newconn *nc) {
    int fd = nc->fd;
    conn *c = conn_new(fd, w, nc->tls, nc->choose);

    if (c == NULL) {
        log_msg(0, "cannot set up a connection for fd %d", fd);
        close(fd);
        stats_global_add(STATS_CURR_CONNECTIONS, -1);
        return;
    }
    c->next = w->conns;
    if (w->conns != NULL)
        w->conns->prev = c;
    w->conns = c;
    c->last_cmd = clock_now();
    log_msg(1, "<%d new client connection", fd);
}

void worker_forget(struct worker *w, conn *c) {
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        w->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    stats_global_add(STATS_CURR_CONNECTIONS, -1);
}

char *worker_rbuf_get(struct worker *w) {
    return rbuf_cache_get(&w->rbufs);
}

void worker_rbuf_put(struct worker *w, char *buf) {
    rbuf_cache_put(&w->rbufs, buf);
}

void worker_hold(struct worker *w, conn *c) {
    __atomic_add_fetch(&workers_nheld, 1, __ATOMIC_RELAXED);
    c->held_prev = NULL;
    c->held_next = w->held;
    if (w->held != NULL)
        w->held->held_prev = c;
    w->held = c;
}

void worker_unhold(struct worker *w, conn *c) {
    __atomic_sub_fetch(&workers_nheld, 1, __ATOMIC_RELAXED);
    if (c->held_prev != NULL)
        c->held_prev->held_next = c->held_next;
    else
        w->held = c->held_next;
    if (c->held_next != NULL)
        c->held_next->held_prev = c->held_prev;
    c->held_prev = c->held_next = NULL;
}

/* The timer of the first held connection to give up waiting for
 * replicas (conn_sync.h), if any. */
static void worker_arm_sync(struct worker *w, uint64_t now) {
    uint64_t first = 0, d;
    struct timeval tv;
    conn *c;

    for (c = w->held; c != NULL; c = c->held_next)
        if ((d = conn_sync_deadline(c)) != 0 && (first == 0 || d < first))
            first = d;
    if (first == 0)
        return;
    d = first > now ? first - now : 0;
    tv.tv_sec = (time_t)(d / 1000000);
    tv.tv_usec = (suseconds_t)(d % 1000000);
    evtimer_add(w->sync_ev, &tv);
}

/* On w's thread: drives every held connection whose records are durable
 * (and, with replicas to wait for, confirmed or given up: conn_sync.h),
 * and closes those that waited --log-stall-timeout for a log that cannot
 * be written. */
static void worker_release_held(struct worker *w) {
    conn *c = w->held, *next;
    uint64_t now = clock_mono_us(), limit = (uint64_t)settings.log_stall_timeout * 1000000;

    for (; c != NULL; c = next) {
        next = c->held_next;
        if (persist_durable(c->persist_need)) {
            if (conn_sync_ready(c) || conn_sync_expire(c, now))
                conn_unhold(c);
        } else if (persist_stalled()) {
            if (now - c->held_since_us >= limit) {
                __atomic_add_fetch(&workers_nstalled, 1, __ATOMIC_RELAXED);
                conn_fail_stalled(c);
            }
        }
    }
    worker_arm_sync(w, now);
}

static void worker_sync_cb(evutil_socket_t fd, short what, void *arg) {
    worker_release_held(arg);
}

/* held_call, posted by workers_wake_held: only its own run says it is no
 * longer queued (a direct worker_release_held meanwhile must not, or a
 * second post would link the queued call into the list again). */
static void worker_held_posted(void *arg) {
    struct worker *w = arg;

    __atomic_store_n(&w->held_posted, 0, __ATOMIC_SEQ_CST);
    worker_release_held(w);
}

uint64_t workers_held_count(void) {
    return __atomic_load_n(&workers_nheld, __ATOMIC_RELAXED);
}

uint64_t workers_stalled_closes(void) {
    return __atomic_load_n(&workers_nstalled, __ATOMIC_RELAXED);
}

/* The largest log position a held connection waits for. */
static uint64_t worker_held_need(struct worker *w) {
    uint64_t need = 0;
    conn *c;

    for (c = w->held; c != NULL; c = c->held_next)
        if (c->persist_need > need)
            need = c->persist_need;
    return need;
}

/* After each turn of the event loop, like Redis's beforeSleep: the log
 * records of every reply this turn produced are written with one write
 * (group write), then those replies go out. Released connections may
 * run more commands and be held again: a few rounds here, then the loop
 * turns again (commit_ev) so that other connections are not starved.
 * With --fsync always the sync thread releases them (workers_wake_held). */
static void worker_commit(struct worker *w) {
    uint64_t need;
    int round;

    for (round = 0; round < 4 && w->held != NULL; round++) {
        need = worker_held_need(w);
        if (round > 0 && persist_durable(need))
            return;     /* the rest wait for replicas: their acknowledgements wake them */
        if (!persist_commit(need))
            return;
        worker_release_held(w);
    }
    if (w->held != NULL && !persist_durable(worker_held_need(w)))
        event_active(w->commit_ev, 0, 0);
}

static void worker_commit_cb(evutil_socket_t fd, short what, void *arg) {
    worker_commit(arg);
}

void workers_wake_held(void) {
    int i;

    for (i = 0; i < nworkers; i++) {
        struct worker *w = &workers[i];
        if (__atomic_exchange_n(&w->held_posted, 1, __ATOMIC_SEQ_CST) == 0)
            worker_post(w, &w->held_call);
    }
}

static void worker_take_queue(struct worker *w) {
    struct worker_newconn *fds;
    int n, i;

    pthread_mutex_lock(&w->qlock);
    fds = w->queue;
    n = w->qlen;
    w->queue = NULL;
    w->qlen = w->qcap = 0;
    pthread_mutex_unlock(&w->qlock);
    for (i = 0; i < n; i++)
        worker_add_conn(w, &fds[i]);
    free(fds);
}

static void worker_run_calls(struct worker *w) {
    struct worker_call *call;

    pthread_mutex_lock(&w->qlock);
    call = w->calls;
    __atomic_store_n(&w->calls, NULL, __ATOMIC_RELAXED);
    w->calls_tail = NULL;
    pthread_mutex_unlock(&w->qlock);
    while (call != NULL) {
        struct worker_call *next = call->next;
        call->next = NULL;
        call->fn(call->arg);
        call = next;
    }
}

/* Runs the calls w's thread posted to itself, and those they post. */
static void worker_run_own(struct worker *w) {
    while (w->own != NULL) {
        struct worker_call *call = w->own;
        w->own = call->next;
        if (w->own == NULL)
            w->own_tail = NULL;
        call->next = NULL;
        call->fn(call->arg);
    }
}

/* A wake posted during a turn of the loop runs right after the
 * connection whose command posted it (a push serving a waiter on this
 * worker), or once this worker gets to it when another thread posted it,
 * not after every other connection ready in that turn: the woken
 * consumer's answer leaves before the replies of unrelated connections.
 * The list of other threads' calls is looked at without its lock, which
 * is taken only when there are some; the wake byte that came with them
 * is still read later, and finds nothing. */
void worker_run_posted(struct worker *w) {
    worker_run_own(w);
    if (__atomic_load_n(&w->calls, __ATOMIC_ACQUIRE) != NULL)
        worker_run_calls(w);
}

static void worker_own_cb(evutil_socket_t fd, short what, void *arg) {
    worker_run_own(arg);
}

static void worker_close_all(struct worker *w) {
    while (w->conns != NULL)
        conn_shutdown(w->conns);
}

static void worker_notified(evutil_socket_t fd, short what, void *arg) {
    struct worker *w = arg;
    char buf[64];
    ssize_t n, i;

    n = read(fd, buf, sizeof(buf));
    /* Before taking the calls: one posted after this writes a new byte. */
    __atomic_store_n(&w->notified, 0, __ATOMIC_SEQ_CST);
    for (i = 0; i < n; i++) {
        if (buf[i] == 'q') {
            worker_take_queue(w);
            worker_run_calls(w);
            worker_close_all(w);
            worker_run_calls(w);
            worker_run_own(w);
            event_base_loopbreak(w->base);
            return;
        }
    }
    worker_take_queue(w);
    worker_run_calls(w);
}

/* Whether c sits between commands with nothing in flight. */
static bool worker_conn_idle(const conn *c) {
    return c->state == CONN_PARSE && c->resume == NULL && c->out_bytes == 0 && !c->held && c->dump == NULL;
}

/* -o idle_timeout: closes connections that sent no command for longer
 * (a connection waiting in a blocking read is not idle). */
static void worker_idle_check(evutil_socket_t fd, short what, void *arg) {
    struct worker *w = arg;
    rel_time_t now = clock_now();
    conn *c, *next;

    for (c = w->conns; c != NULL; c = next) {
        next = c->next;
        if (worker_conn_idle(c) && now - c->last_cmd > (rel_time_t)settings.idle_timeout) {
            log_msg(1, "<%d idle for over %d s, closing", c->fd, settings.idle_timeout);
            stats_global_add(STATS_IDLE_KICKS, 1);
            conn_close(c);
        }
    }
}

static int worker_idle_setup(struct worker *w) {
    struct timeval second = { 1, 0 };

    if (settings.idle_timeout <= 0)
        return 0;
    w->idle_ev = event_new(w->base, -1, EV_PERSIST, worker_idle_check, w);
    return w->idle_ev != NULL && event_add(w->idle_ev, &second) == 0 ? 0 : -1;
}

/* Where the current slice of a worker's work began, and how often its
 * thread had slept by then. */
struct worker_slice {
    uint64_t start_us;
    long slept;
};

/* After a turn of the loop: yields if the thread has not slept (no
 * voluntary context switch) for WORKER_SLICE_US. A yield with nothing
 * else runnable returns at once. */
static void worker_slice_end(struct worker_slice *s) {
    uint64_t now = clock_mono_us();
    struct rusage ru;

    if (now - s->start_us < WORKER_SLICE_US || getrusage(RUSAGE_THREAD, &ru) != 0)
        return;
    if (ru.ru_nvcsw == s->slept) {
        sched_yield();
        now = clock_mono_us();
    }
    s->slept = ru.ru_nvcsw;
    s->start_us = now;
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    struct worker_slice slice = { clock_mono_us(), -1 };

    worker_self = w;
    stats_thread_init(w->index);
    item_thread_init(w->index);
    item_cache_thread_start(w->index);
    while (event_base_loop(w->base, EVLOOP_ONCE) == 0 && !event_base_got_break(w->base)) {
        worker_run_posted(w);
        lru_thread_tick();
        worker_commit(w);
        worker_slice_end(&slice);
    }
    lru_thread_end();
    item_cache_thread_end();
    return NULL;
}

static int worker_setup(struct worker *w, int index) {
    int fds[2];

    w->index = index;
    w->held_call.fn = worker_held_posted;
    w->held_call.arg = w;
    pthread_mutex_init(&w->qlock, NULL);
    if (pipe(fds) < 0)
        return -1;
    w->notify_rd = fds[0];
    w->notify_wr = fds[1];
    fcntl(w->notify_rd, F_SETFL, O_NONBLOCK);
    w->base = event_base_new();
    if (w->base == NULL)
        return -1;
    w->notify_ev = event_new(w->base, w->notify_rd, EV_READ | EV_PERSIST, worker_notified, w);
    if (w->notify_ev == NULL || event_add(w->notify_ev, NULL) < 0)
        return -1;
    w->commit_ev = event_new(w->base, -1, 0, worker_commit_cb, w);
    w->own_ev = event_new(w->base, -1, 0, worker_own_cb, w);
    w->sync_ev = evtimer_new(w->base, worker_sync_cb, w);
    if (w->commit_ev == NULL || w->own_ev == NULL || w->sync_ev == NULL)
        return -1;
    w->quiesce = quiesce_join(w->base);
    if (w->quiesce == NULL)
        return -1;
    return worker_idle_setup(w);
}

int workers_start(int n) {
    int i;

    workers = calloc((size_t)n, sizeof(struct worker));
    if (workers == NULL)
        return -1;
    nworkers = n;
    for (i = 0; i < n; i++) {
        if (worker_setup(&workers[i], i) < 0)
            return -1;
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
            return -1;
    }
    return 0;
}

static void worker_notify(struct worker *w, char what) {
    while (write(w->notify_wr, &what, 1) < 0 && errno == EINTR)
        ;
}

void worker_dispatch(int fd, bool tls, conn_proto_choose_fn choose) {
    struct worker *w = &workers[next_worker++ % (unsigned)nworkers];

    pthread_mutex_lock(&w->qlock);
    if (w->qlen == w->qcap) {
        int cap = w->qcap ? w->qcap * 2 : 16;
        struct worker_newconn *q = realloc(w->queue, sizeof(*q) * (size_t)cap);
        if (q == NULL) {
            pthread_mutex_unlock(&w->qlock);
            close(fd);
            stats_global_add(STATS_CURR_CONNECTIONS, -1);
            return;
        }
        w->queue = q;
        w->qcap = cap;
    }
    w->queue[w->qlen].fd = fd;
    w->queue[w->qlen].choose = choose;
    w->queue[w->qlen++].tls = tls;
    pthread_mutex_unlock(&w->qlock);
    worker_notify(w, 'c');
}

int worker_count(void) {
    return nworkers;
}

struct worker *worker_at(int i) {
    return &workers[i];
}

void worker_each_conn(struct worker *w, void (*fn)(conn *c, void *arg), void *arg) {
    conn *c;

    for (c = w->conns; c != NULL; c = c->next)
        fn(c, arg);
}

bool worker_is_current(const struct worker *w) {
    return worker_self == w;
}

void worker_post(struct worker *w, struct worker_call *call) {
    call->next = NULL;
    if (worker_self == w) {
        if (w->own_tail != NULL)
            w->own_tail->next = call;
        else
            w->own = call;
        w->own_tail = call;
        event_active(w->own_ev, 0, 0);
        return;
    }
    pthread_mutex_lock(&w->qlock);
    if (w->calls_tail != NULL)
        w->calls_tail->next = call;
    else
        __atomic_store_n(&w->calls, call, __ATOMIC_RELEASE);   /* seen unlocked */
    w->calls_tail = call;
    pthread_mutex_unlock(&w->qlock);
    if (__atomic_exchange_n(&w->notified, 1, __ATOMIC_SEQ_CST) == 0) {
        stats_incr(STATS_WORKER_NOTIFIES);
        worker_notify(w, 'p');
    }
}

void workers_stop(void) {
    int i;

    for (i = 0; i < nworkers; i++)
        worker_notify(&workers[i], 'q');
    for (i = 0; i < nworkers; i++) {
        pthread_join(workers[i].thread, NULL);
        worker_run_calls(&workers[i]);  /* posted after it stopped: its conns are gone */
    }
}

void workers_free(void) {
    int i;

    for (i = 0; i < nworkers; i++) {
        struct worker *w = &workers[i];
        worker_run_calls(w);
        event_free(w->notify_ev);
        if (w->commit_ev != NULL)
            event_free(w->commit_ev);
        if (w->sync_ev != NULL)
            event_free(w->sync_ev);
        if (w->own_ev != NULL)
            event_free(w->own_ev);
        if (w->idle_ev != NULL)
            event_free(w->idle_ev);
        quiesce_leave(w->quiesce);
        event_base_free(w->base);
        close(w->notify_rd);
        close(w->notify_wr);
        pthread_mutex_destroy(&w->qlock);
        free(w->queue);
        rbuf_cache_free(&w->rbufs);
    }
    free(workers);
    workers = NULL;
    nworkers = 0;
}
