/*
 * stats_conns: `stats conns` (see stats_conns.h).
 *
 * A connection is only ever touched by its own worker, so the answer is
 * gathered like a blocking read (park.c): the asking connection parks,
 * every worker is posted a call that writes the lines of its own
 * connections into the shared collection, and the last one to report
 * wakes the asker, whose worker writes the answer. The collection lives
 * until the park and every posted call are done with it (refs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "net/conn_names.h"
#include "net/listener.h"
#include "net/park.h"
#include "base/settings.h"
#include "ops/stats_conns.h"
#include "net/worker.h"

#define SC_WAIT_MS 5000             /* a worker that does not report by then is left out */
#define SC_LINE_MAX 400

struct sc_line {
    int fd;
    char text[SC_LINE_MAX];         /* the fd's STAT lines */
};

struct sc_wait;

struct sc_call {
    struct worker_call call;
    struct sc_wait *wait;
    struct worker *worker;
};

struct sc_wait {
    struct park park;
    pthread_mutex_t lock;
    int asker_fd;
    int pending;                    /* workers yet to report */
    bool cancelled;                 /* timed out or the asker went */
    int refs;                       /* atomic: the park, each call */
    struct sc_line *lines;
    size_t n, cap;
    bool oom;
    int ncalls;
    struct sc_call calls[];
};

static void sc_put(struct sc_wait *w) {
    if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    pthread_mutex_destroy(&w->lock);
    free(w->lines);
    free(w);
}

/* memcached's name for what c is doing. */
static const char *sc_state(const struct sc_wait *w, const conn *c) {
    if (c->fd == w->asker_fd)
        return "conn_parse_cmd";
    switch (c->state) {
    case CONN_NREAD: return "conn_nread";
    case CONN_SWALLOW: return "conn_swallow";
    case CONN_CLOSING: return "conn_closing";
    case CONN_WAITING: return c->park != NULL ? "conn_waiting" : "conn_watch";
    default: return c->rbuf != NULL && c->rpos < c->rlen ? "conn_parse_cmd" : "conn_read";
    }
}

/* Adds one fd's lines (lock held); a failed allocation is noted. */
static void sc_add_locked(struct sc_wait *w, int fd, const char *text) {
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        struct sc_line *v = realloc(w->lines, cap * sizeof(*v));
        if (v == NULL) {
            w->oom = true;
            return;
        }
        w->lines = v;
        w->cap = cap;
    }
    w->lines[w->n].fd = fd;
    snprintf(w->lines[w->n].text, SC_LINE_MAX, "%s", text);
    w->n++;
}

/* On c's worker: its lines. */
static void sc_add_conn(conn *c, void *arg) {
    struct sc_wait *w = arg;
    char addr[128], local[128], text[SC_LINE_MAX];
    rel_time_t now = clock_now();

    conn_names_addr(c->fd, true, addr, sizeof(addr));
    conn_names_addr(c->fd, false, local, sizeof(local));
    snprintf(text, sizeof(text),
             "STAT %d:addr %s\r\nSTAT %d:listen_addr %s\r\nSTAT %d:state %s\r\nSTAT %d:secs_since_last_cmd %u\r\n",
             c->fd, addr, c->fd, local, c->fd, sc_state(w, c), c->fd, now > c->last_cmd ? now - c->last_cmd : 0);
    pthread_mutex_lock(&w->lock);
    sc_add_locked(w, c->fd, text);
    pthread_mutex_unlock(&w->lock);
}

/* Posted to each worker: reports its connections; the last wakes the asker. */
static void sc_collect(void *arg) {
    struct sc_call *call = arg;
    struct sc_wait *w = call->wait;
    bool last;

    pthread_mutex_lock(&w->lock);
    last = w->cancelled;
    pthread_mutex_unlock(&w->lock);
    if (!last)
        worker_each_conn(call->worker, sc_add_conn, w);
    pthread_mutex_lock(&w->lock);
    last = --w->pending == 0 && !w->cancelled;
    pthread_mutex_unlock(&w->lock);
    if (last)
        park_wake(&w->park);
    sc_put(w);
}

static bool sc_unwait(struct park *p) {
    struct sc_wait *w = (struct sc_wait *)p;
    bool cancelled;

    pthread_mutex_lock(&w->lock);
    cancelled = w->pending > 0;
    w->cancelled = w->cancelled || cancelled;
    pthread_mutex_unlock(&w->lock);
    return cancelled;
}

static int sc_by_fd(const void *a, const void *b) {
    return ((const struct sc_line *)a)->fd - ((const struct sc_line *)b)->fd;
}

/* On the asker's worker: the listeners, then the connections by fd. */
static void sc_answer(conn *c, struct park *p) {
    struct sc_wait *w = (struct sc_wait *)p;
    char addr[128], text[SC_LINE_MAX];
    size_t i;
    int fd, k;

    pthread_mutex_lock(&w->lock);
    for (k = 0; (fd = listener_fd_at(k)) >= 0; k++) {
        conn_names_addr(fd, false, addr, sizeof(addr));
        snprintf(text, sizeof(text), "STAT %d:addr %s\r\nSTAT %d:state conn_listening\r\n"
                 "STAT %d:secs_since_last_cmd %u\r\n", fd, addr, fd, fd, clock_now());
        sc_add_locked(w, fd, text);
    }
    if (w->n > 1)           /* no lines at all: lines is NULL (no memory, or abandoned) */
        qsort(w->lines, w->n, sizeof(*w->lines), sc_by_fd);
    for (i = 0; i < w->n; i++)
        conn_out(c, w->lines[i].text, strlen(w->lines[i].text));
    pthread_mutex_unlock(&w->lock);
    conn_out_reply(c, w->oom ? REPLY_OOM : REPLY_END);
}

static void sc_give_back(struct park *p) {
}

static void sc_release(struct park *p) {
    sc_put((struct sc_wait *)p);
}

static const struct park_ops sc_ops = {
    .unwait = sc_unwait,
    .answer = sc_answer,
    .give_back = sc_give_back,
    .release = sc_release,
    .owed = true,       /* a half-closed client still reads the report */
};

enum conn_parse_result stats_conns_cmd(conn *c, struct cmd_line *l) {
    int n = worker_count(), i;
    struct sc_wait *w = calloc(1, sizeof(*w) + (size_t)n * sizeof(struct sc_call));

    if (w == NULL || !park_init(&w->park, c, &sc_ops)) {
        free(w);
        conn_out_reply(c, REPLY_OOM);
        return PARSE_DONE;
    }
    pthread_mutex_init(&w->lock, NULL);
    w->asker_fd = c->fd;
    w->pending = n;
    w->ncalls = n;
    w->refs = 1 + n;
    park_start(&w->park, SC_WAIT_MS);
    for (i = 0; i < n; i++) {
        w->calls[i].call.fn = sc_collect;
        w->calls[i].call.arg = &w->calls[i];
        w->calls[i].wait = w;
        w->calls[i].worker = worker_at(i);
        worker_post(worker_at(i), &w->calls[i].call);
    }
    return PARSE_DONE;
}
