/*
 * Workloads: what a connection sends next.
 *
 * A workload is a row in the table in workload.c: a name, a line of help, a
 * setup() that checks and adjusts the options once, and a next() that fills
 * the next bench_op for one connection.  Keys are sharded over the servers
 * (key k lives on server k % nservers), so a connection only asks its own
 * server for keys it can have.
 *
 * Queue workloads also have a reply() that learns what each reply said (the
 * id and first bytes of a popped message, to ack it next) and tells conn.c
 * when a message's cycle is complete.  Their per-connection state is a ring
 * of popped messages awaiting an ack, allocated once per connection.
 */
#ifndef MCDS_BENCH_WORKLOAD_H
#define MCDS_BENCH_WORKLOAD_H

#include <stdio.h>
#include "bench.h"

/* next() has nothing to send until a reply comes (or, for a producer held
 * back by --backlog, until the worker asks again). */
#define WL_WAIT (-1)

/* What a connection does in a queue workload. */
enum wl_role {
    WL_CYCLE,                        /* push, pop, ack: whole cycles */
    WL_PRODUCER,                     /* push only (--producers) */
    WL_CONSUMER                      /* blocking pop + ack only */
};

/* A popped message to ack: its id, and its first bytes (Redis acks by
 * value). */
struct wl_ack {
    uint64_t id;
    char     tag[BENCH_TAG_LEN];
};

/* Per-connection workload state. */
struct wl_conn {
    uint64_t rng;
    int      server;                 /* this connection's server index */
    struct bench_shared *sh;

    /* queue workloads */
    int      global;                 /* connection number over all threads */
    int      ending;                 /* the window is over: only finish the
                                        open cycles (set by conn_fill) */
    enum wl_role role;
    uint64_t queue;                  /* this connection's queue number */
    enum bench_op_kind pop_kind;     /* OP_POP (then ack) or OP_TAKE */
    int      setup_total, setup_sent;/* preamble lines (beanstalkd tubes) */
    int      open;                   /* WL_CYCLE: cycles begun, not ended */
    int      pops_owed;              /* WL_CYCLE: pushes awaiting their pop */
    int      pop_out;                /* WL_CONSUMER: a pop is in flight */
    struct wl_ack *acks;             /* ring: [head, head+count) popped;
                                        the last `unsent` not acked yet */
    int      ack_cap, ack_head, ack_count, ack_unsent;
};

struct bench_workload {
    const char *name;
    const char *help;
    /* Check or adjust the options; print a message and return -1 to refuse. */
    int (*setup)(struct bench_opts *o);
    /* Fill *op; return 0 when this connection has no more work. */
    int (*next)(struct wl_conn *w, struct bench_op *op);
    /* Load-style workloads end by themselves instead of after --duration. */
    int finite;
    /* Queue workloads: see every reply (errors included, in order); return
     * 1 when it completes a message's cycle, with *stamp the time of its
     * push (0 when unknown). */
    int (*reply)(struct wl_conn *w, const struct bench_reply *r,
                 uint64_t *stamp);
};

const struct bench_workload *workload_find(const char *name);
void workload_list(FILE *f);
/* State of connection number g (over all threads), talking to server. */
int  workload_conn_init(struct wl_conn *w, struct bench_shared *sh,
                        int server, int g, uint64_t seed);
void workload_conn_free(struct wl_conn *w);

#endif
