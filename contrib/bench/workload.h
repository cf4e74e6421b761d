/*
 * Workloads: what a connection sends next.
 *
 * A workload is a row in the table in workload.c: a name, a line of help, a
 * setup() that checks and adjusts the options once, and a next() that fills
 * the next bench_op for one connection.  Keys are sharded over the servers
 * (key k lives on server k % nservers), so a connection only asks its own
 * server for keys it can have.
 */
#ifndef MCDS_BENCH_WORKLOAD_H
#define MCDS_BENCH_WORKLOAD_H

#include <stdio.h>
#include "bench.h"

/* Per-connection workload state. */
struct wl_conn {
    uint64_t rng;
    int      server;                 /* this connection's server index */
    struct bench_shared *sh;
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
};

const struct bench_workload *workload_find(const char *name);
void workload_list(FILE *f);
void workload_conn_init(struct wl_conn *w, struct bench_shared *sh,
                        int server, uint64_t seed);

#endif
