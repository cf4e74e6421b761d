/*
 * mcds-bench: shared types.
 *
 * The options of a run (bench_opts), the operations a workload can ask for
 * (bench_op), and the counters one worker thread keeps (bench_stats).  The
 * modules: main.c (options, run), worker.c (threads and their epoll loop),
 * conn.c (protocol I/O of one connection), workload.c (what to send next),
 * hist.c (latency histogram), report.c (human table, CSV, JSON).
 */
#ifndef MCDS_BENCH_H
#define MCDS_BENCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>

#include "hist.h"

#define BENCH_MAX_SERVERS  16
#define BENCH_MAX_MGET     1000   /* keys in one multi-get */
#define BENCH_MAX_PREFIX   200    /* key prefix; memcached keys are <= 250 */

enum bench_proto { PROTO_TEXT, PROTO_META };

/* Operation kinds.  A new verb adds a kind here, its encoding and its reply
 * handling in conn.c, and its row name in bench_op_names (report.c). */
enum bench_op_kind {
    OP_GET,     /* one key: get / mg */
    OP_MGET,    /* several keys: get k1 k2 ... / mg ... q + mn */
    OP_SET,     /* set / ms */
    OP__COUNT
};

extern const char *const bench_op_names[OP__COUNT];

/* One request as chosen by a workload; keys are indexes into the key space. */
struct bench_op {
    enum bench_op_kind kind;
    int                nkeys;
    uint64_t           keys[BENCH_MAX_MGET];
};

struct bench_server {
    char host[256];
    char port[16];
};

struct bench_opts {
    struct bench_server servers[BENCH_MAX_SERVERS];
    int      nservers;
    int      threads;
    int      conns;          /* per thread */
    int      depth;          /* requests in flight per connection */
    uint64_t keyspace;
    char     prefix[BENCH_MAX_PREFIX + 1];
    size_t   value_size;
    unsigned get_weight, set_weight;
    int      multiget;       /* keys per get; 1 = plain get */
    double   duration;       /* measured seconds */
    double   warmup;         /* unmeasured seconds before */
    double   max_time;       /* load mode: give up after this */
    double   timeout;        /* a reply later than this is an error */
    enum bench_proto proto;
    const struct bench_workload *workload;
    uint64_t load_items;     /* load mode: items to store */
    uint64_t seed;
    int      csv, json, quiet;
    const char *label;
};

/* Per-thread counters; merged by main after the threads end. */
struct bench_stats {
    uint64_t ops[OP__COUNT];       /* completed in the measured window */
    uint64_t hits, misses;         /* keys, measured window */
    uint64_t errors;               /* unexpected replies, whole run */
    uint64_t closed;               /* connections lost, whole run */
    uint64_t timeouts;             /* requests unanswered for --timeout */
    uint64_t stored;               /* successful sets, whole run (load mode) */
    struct hist lat[OP__COUNT];    /* latency in ns, measured window */
};

/* Shared, read-only during the run except the load counters. */
struct bench_shared {
    const struct bench_opts *opts;
    const char *value;             /* value_size bytes sent by every set */
    uint64_t t_start;              /* ns, CLOCK_MONOTONIC */
    uint64_t t_measure;            /* measured window [t_measure, t_end) */
    uint64_t t_end;
    _Atomic uint64_t load_next[BENCH_MAX_SERVERS];  /* load mode cursors */
};

uint64_t bench_now_ns(void);
void bench_stats_merge(struct bench_stats *into, const struct bench_stats *from);

#endif
