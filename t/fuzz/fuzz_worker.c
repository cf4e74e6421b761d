/*
 * fuzz_worker: a stand-in for server/net/worker.c (the same functions, so the
 * server's library links against it instead): one worker, no thread, no
 * notify pipe. Its connections run on the harness's event base; posted
 * calls wait in a list until the harness runs them (fuzz_run), as the
 * real worker runs them on its next turn of the loop.
 */
#include "net/conn.h"
#include "base/clock.h"
#include "base/stats.h"
#include "net/listener.h"
#include "net/rbuf_cache.h"
#include "net/worker.h"
#include "proto/proto_text.h"
#include "fuzz_server.h"

struct worker {
    conn *conns;
    int nconns;
    struct worker_call *calls, *calls_tail;
    struct rbuf_cache rbufs;
    conn *held;
};

static struct worker fuzz_the_worker;

struct event_base *worker_base(struct worker *w) {
    return fuzz_base();
}

void fuzz_worker_add(int fd) {
    struct worker *w = &fuzz_the_worker;
    conn *c;

    stats_global_add(STATS_CURR_CONNECTIONS, 1);
    stats_global_add(STATS_TOTAL_CONNECTIONS, 1);
    c = conn_new(fd, w, false, proto_choose);
    if (c == NULL)
        fuzz_fail("conn_new failed");
    c->next = w->conns;
    if (w->conns != NULL)
        w->conns->prev = c;
    w->conns = c;
    w->nconns++;
    c->last_cmd = clock_now();
}

void worker_forget(struct worker *w, conn *c) {
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        w->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    w->nconns--;
    stats_global_add(STATS_CURR_CONNECTIONS, -1);
}

int fuzz_worker_nconns(void) {
    return fuzz_the_worker.nconns;
}

char *worker_rbuf_get(struct worker *w) {
    return rbuf_cache_get(&w->rbufs);
}

void worker_rbuf_put(struct worker *w, char *buf) {
    rbuf_cache_put(&w->rbufs, buf);
}

/* Persistence is off in the harness: nothing is ever held. */
void worker_hold(struct worker *w, conn *c) {
    fuzz_fail("a connection was held with persistence off");
}

void worker_unhold(struct worker *w, conn *c) {
    fuzz_fail("a connection was unheld with persistence off");
}

void workers_wake_held(void) {
}

void worker_post(struct worker *w, struct worker_call *call) {
    call->next = NULL;
    if (w->calls_tail != NULL)
        w->calls_tail->next = call;
    else
        w->calls = call;
    w->calls_tail = call;
}

/* One worker, one thread. */
bool worker_is_current(const struct worker *w) {
    return true;
}

/* As the server does after each connection's event. */
void worker_run_posted(struct worker *w) {
    fuzz_worker_run_calls();
}

int fuzz_worker_run_calls(void) {
    struct worker *w = &fuzz_the_worker;
    struct worker_call *call = w->calls;
    int n = 0;

    w->calls = w->calls_tail = NULL;
    while (call != NULL) {
        struct worker_call *next = call->next;
        call->next = NULL;
        call->fn(call->arg);
        call = next;
        n++;
    }
    return n;
}

/* No listener either (stats conns lists the listening sockets). */
int listener_fd_at(int k) {
    return -1;
}

int worker_count(void) {
    return 1;
}

struct worker *worker_at(int i) {
    return &fuzz_the_worker;
}

void worker_each_conn(struct worker *w, void (*fn)(conn *c, void *arg), void *arg) {
    conn *c;

    for (c = w->conns; c != NULL; c = c->next)
        fn(c, arg);
}

void fuzz_worker_finish(void) {
    struct worker *w = &fuzz_the_worker;

    if (w->conns != NULL || w->nconns != 0)
        fuzz_fail("%d connection(s) still open after every client hung up (fd %d, state %d)", w->nconns,
                  w->conns != NULL ? w->conns->fd : -1, w->conns != NULL ? (int)w->conns->state : -1);
    if (w->calls != NULL)
        fuzz_fail("posted calls left after the run");
    rbuf_cache_free(&w->rbufs);
}
