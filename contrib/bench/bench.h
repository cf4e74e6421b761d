/*
 * mcds-bench: shared types.
 *
 * The options of a run (bench_opts), the operations a workload can ask for
 * (bench_op), what a reply told it (bench_reply), and the counters one
 * worker thread keeps (bench_stats).  The modules: main.c (options, run),
 * worker.c (threads and their epoll loop), conn.c (I/O of one connection and
 * the memcached text and meta protocols), resp.c (Redis), beanstalk.c
 * (beanstalkd), workload.c (what to send next), hist.c (latency histogram),
 * report.c (human table, CSV, JSON).
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
#define BENCH_TAG_LEN      16     /* a queued message starts with its push
                                     time: 16 hex digits of ns, monotonic */

enum bench_proto { PROTO_TEXT, PROTO_META, PROTO_REDIS, PROTO_BEANSTALK };

/* Operation kinds.  A new verb adds a kind here, its encoding and its reply
 * handling in conn.c (and resp.c, beanstalk.c), and its row name in
 * bench_op_names (report.c). */
enum bench_op_kind {
    OP_GET,     /* one key: get / mg / GET */
    OP_MGET,    /* several keys: get k1 k2 ... / mg ... q + mn / MGET */
    OP_SET,     /* set / ms / SET */
    OP_PUSH,    /* queue push: qpush / LPUSH / put */
    OP_POP,     /* leased pop: qpop / LMOVE to a processing list / reserve */
    OP_ACK,     /* confirm a pop: qack / LREM from it / delete */
    OP_TAKE,    /* pop for good, no ack: get <queue> (Kestrel) / RPOP */
    OP_SETUP,   /* per-connection preamble (beanstalkd use/watch/ignore);
                   never counted as an op, only its errors */
    OP__COUNT
};

extern const char *const bench_op_names[OP__COUNT];

/* One request as chosen by a workload; keys are indexes into the key space
 * (for queue ops, keys[0] is the queue's number). */
struct bench_op {
    enum bench_op_kind kind;
    int                nkeys;
    int                step;              /* OP_SETUP: which preamble line */
    int                block;             /* OP_POP, OP_TAKE: wait for one */
    uint64_t           id;                /* OP_ACK: the popped message's id;
                                             OP_POP: an id to ack first, or 0 */
    uint64_t           stamp;             /* OP_PUSH: set by conn_fill, the
                                             message's first bytes */
    char               tag[BENCH_TAG_LEN];/* OP_ACK: the popped message's
                                             first bytes (Redis LREM) */
    uint64_t           keys[BENCH_MAX_MGET];
};

/* What a reply said, for workloads that react to replies (queues). */
struct bench_reply {
    enum bench_op_kind kind;
    int      ok;                          /* the expected reply */
    int      items;                       /* messages a pop or take returned */
    uint64_t id;                          /* the popped message's id */
    char     tag[BENCH_TAG_LEN];          /* its first bytes */
    size_t   taglen;
    int      acked;                       /* qpop ack=: 1 ACKED, 2 NOT_FOUND */
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
    uint64_t queues;         /* queue workloads: queues PREFIX0.. */
    int      producers;      /* per thread; 0 = every conn runs whole cycles */
    int64_t  backlog;        /* split mode: producers pause above this */
    double   pop_wait;       /* split mode: a consumer's blocking wait */
    int      ack_with_pop;   /* mcds: a cycle's ack rides on the next qpop
                                (qpop ack=<id>): two round trips a cycle */
    uint64_t groups;         /* mcds: pushes rotate over this many FIFO
                                groups (qpush group=); 0: none */
    double   duration;       /* measured seconds */
    double   warmup;         /* unmeasured seconds before */
    double   max_time;       /* load mode: give up after this */
    double   timeout;        /* a reply later than this is an error */
    enum bench_proto proto;
    const struct bench_workload *workload;
    uint64_t load_items;     /* load mode: items to store */
    uint64_t seed;
    int      csv, json, quiet;
    int      tls;            /* --tls: connections speak TLS */
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
    uint64_t cycles;               /* queue messages acked (or taken) */
    struct hist lat[OP__COUNT];    /* latency in ns, measured window */
    struct hist cycle_lat;         /* a message's push to its ack, ns */
};

/* Shared, read-only during the run except the load counters. */
struct bench_shared {
    const struct bench_opts *opts;
    const char *value;             /* value_size bytes sent by every set */
    uint64_t t_start;              /* ns, CLOCK_MONOTONIC */
    uint64_t t_measure;            /* measured window [t_measure, t_end) */
    uint64_t t_end;
    uint64_t t_drain;              /* queue workloads finish their open
                                      cycles until then (no new pushes) */
    _Atomic uint64_t load_next[BENCH_MAX_SERVERS];  /* load mode cursors */
    _Atomic int64_t backlog;       /* split mode: pushed - popped messages */
};

uint64_t bench_now_ns(void);
/* A message's first bytes: its push time as 16 lowercase hex digits; and
 * back (0 when the bytes are not such a time). */
void     bench_tag_put(char *dst, uint64_t stamp);
uint64_t bench_tag_get(const char *tag, size_t len);
void bench_stats_merge(struct bench_stats *into, const struct bench_stats *from);

#endif
