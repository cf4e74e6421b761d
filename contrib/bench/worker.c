/*
 * Worker threads: one epoll loop per thread over its connections.
 *
 * Level-triggered: a readable connection gets one read and parse, then is
 * topped up to --depth requests in flight and flushed; EPOLLOUT is asked for
 * only while a write is incomplete.  The loop wakes at least every 100 ms to
 * look at the clock, so a run ends on time even if a server stops answering.
 * A connection with nothing in flight whose workload holds it back (a queue
 * producer above --backlog) gets no event: while there is one, the loop
 * wakes every millisecond to offer it work again.  Queue workloads go on
 * past the window's end until their connections have finished their open
 * cycles, or until the drain time (--timeout) is up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "worker.h"

#define WORKER_MAX_EVENTS 256
#define WORKER_TICK_MS    100
#define WORKER_STARVED_MS 1

int worker_setup(struct worker *w, int id, struct bench_shared *sh)
{
    const struct bench_opts *o = sh->opts;
    struct epoll_event ev;
    int i, g;

    memset(w, 0, sizeof(*w));
    w->id = id;
    w->sh = sh;
    w->ep = -1;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->conns = calloc((size_t)o->conns, sizeof(*w->conns));
    if (w->ep < 0 || !w->conns) {
        perror("mcds-bench: worker");
        return -1;
    }
    for (i = 0; i < o->conns; i++) {
        struct conn *c = &w->conns[i];

        g = id * o->conns + i;                 /* global connection number */
        w->nconns++;
        if (conn_open(c, sh, &w->stats, g % o->nservers, g,
                      o->seed * 1000003u + (uint64_t)g) < 0)
            return -1;
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
            perror("mcds-bench: epoll_ctl");
            return -1;
        }
    }
    return 0;
}

/* Ask for EPOLLOUT exactly while output is pending. */
static void worker_watch(struct worker *w, struct conn *c)
{
    struct epoll_event ev;
    int want = conn_has_output(c);

    if (want == c->want_write)
        return;
    ev.events = EPOLLIN | (want ? EPOLLOUT : 0);
    ev.data.ptr = c;
    if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
        c->want_write = want;
}

/* Returns 1 while the connection is still working. */
static int worker_service(struct worker *w, struct conn *c, uint32_t events,
                          uint64_t now)
{
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        if (conn_read(c) < 0)
            goto lost;
        now = bench_now_ns();
    }
    conn_fill(c, now);
    if (conn_flush(c) < 0) {
        c->st->errors++;
        goto lost;
    }
    if (c->state == CONN_DONE) {
        conn_close(c);
        return 0;
    }
    if (c->starved)
        w->starved = 1;
    worker_watch(w, c);
    return 1;
lost:
    w->stats.closed++;
    conn_close(c);
    return 0;
}

/* A connection whose oldest request waited --timeout without an answer
 * lost it (or the server hung): one error per such connection. */
static void worker_count_timeouts(struct worker *w)
{
    uint64_t limit = (uint64_t)(w->sh->opts->timeout * 1e9);
    int i;

    for (i = 0; i < w->nconns; i++) {
        struct conn *c = &w->conns[i];

        if (c->fd >= 0 && c->pend_count > 0 &&
            w->t_done - c->pend[c->pend_head].t_start >= limit) {
            w->stats.timeouts++;
            w->stats.errors++;
        }
    }
}

/* Offer work again to the connections their workload held back. */
static int worker_unstarve(struct worker *w, uint64_t now)
{
    int i, ended = 0;

    w->starved = 0;
    for (i = 0; i < w->nconns; i++) {
        struct conn *c = &w->conns[i];

        if (c->fd >= 0 && c->starved && !worker_service(w, c, 0, now))
            ended++;
    }
    return ended;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct bench_shared *sh = w->sh;
    struct epoll_event evs[WORKER_MAX_EVENTS];
    uint64_t now = bench_now_ns(), left;
    int i, n, active = 0, timeout, ending = 0;

    for (i = 0; i < w->nconns; i++)
        active += worker_service(w, &w->conns[i], 0, now);
    while (active > 0) {
        now = bench_now_ns();
        if (now >= sh->t_drain)
            break;
        if (now >= sh->t_end && !ending) {
            ending = 1;                  /* tell every connection once */
            for (i = 0; i < w->nconns; i++)
                if (w->conns[i].fd >= 0 && !worker_service(w, &w->conns[i], 0, now))
                    active--;
            continue;
        }
        left = ((now < sh->t_end ? sh->t_end : sh->t_drain) - now) / 1000000 + 1;
        timeout = left < WORKER_TICK_MS ? (int)left : WORKER_TICK_MS;
        if (w->starved)
            timeout = WORKER_STARVED_MS;
        n = epoll_wait(w->ep, evs, WORKER_MAX_EVENTS, timeout);
        if (n < 0 && errno != EINTR) {
            perror("mcds-bench: epoll_wait");
            break;
        }
        now = bench_now_ns();
        for (i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;

            if (c->fd >= 0 && !worker_service(w, c, evs[i].events, now))
                active--;
        }
        if (w->starved)
            active -= worker_unstarve(w, bench_now_ns());
    }
    w->t_done = bench_now_ns();
    worker_count_timeouts(w);
    return NULL;
}

int worker_start(struct worker *w)
{
    int rc = pthread_create(&w->tid, NULL, worker_main, w);

    if (rc != 0) {
        fprintf(stderr, "mcds-bench: pthread_create: %s\n", strerror(rc));
        return -1;
    }
    return 0;
}

void worker_join(struct worker *w)
{
    pthread_join(w->tid, NULL);
}

void worker_free(struct worker *w)
{
    int i;

    for (i = 0; i < w->nconns; i++)
        conn_free(&w->conns[i]);
    free(w->conns);
    if (w->ep >= 0)
        close(w->ep);
}
