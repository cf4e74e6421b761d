/*
 * Worker threads: each owns --conns connections and drives them with its own
 * epoll loop until the run's end time (or, for a load, until its connections
 * have no more work).  Counters are per thread and merged after the join.
 */
#ifndef MCDS_BENCH_WORKER_H
#define MCDS_BENCH_WORKER_H

#include <pthread.h>
#include "bench.h"
#include "conn.h"

struct worker {
    int id;
    pthread_t tid;
    struct bench_shared *sh;
    struct conn *conns;
    int nconns;
    int ep;                          /* epoll fd */
    uint64_t t_done;                 /* ns when the loop ended */
    int starved;                     /* a connection waits to be offered work */
    struct bench_stats stats;
};

/* Connect every connection of thread id; 0 or -1 (message printed). */
int  worker_setup(struct worker *w, int id, struct bench_shared *sh);
int  worker_start(struct worker *w);
void worker_join(struct worker *w);
void worker_free(struct worker *w);

#endif
