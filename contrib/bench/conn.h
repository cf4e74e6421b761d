/*
 * One client connection: request encoding and reply parsing (memcached text
 * and meta here, Redis in resp.c, beanstalkd in beanstalk.c), with up to
 * --depth requests in flight.
 *
 * Requests are built into a fixed output buffer (headers) and an iovec list
 * that points at the shared value buffer for set payloads, so a set of a
 * 100 KB value copies nothing.  Replies are parsed from a fixed read buffer;
 * value bytes are skipped, never stored.  Nothing is allocated per request.
 */
#ifndef MCDS_BENCH_CONN_H
#define MCDS_BENCH_CONN_H

#include <sys/uio.h>
#include "bench.h"
#include "workload.h"

enum conn_state { CONN_OPEN, CONN_DONE, CONN_DEAD };

/* A request in flight. */
struct conn_pending {
    uint64_t t_start;                /* ns when it was queued */
    uint32_t nkeys;
    uint8_t  kind;                   /* enum bench_op_kind */
};

struct conn {
    int fd;
    struct bench_tls *tls;           /* --tls: its session (tls.c) */
    enum conn_state state;
    int more;                        /* the workload has more to send */
    struct bench_shared *sh;
    struct bench_stats  *st;         /* the owning thread's counters */
    struct wl_conn wl;
    struct bench_op op;              /* scratch for the next request */

    struct conn_pending *pend;       /* ring of depth entries */
    int pend_head, pend_count, depth;

    char  *rbuf;                     /* replies */
    size_t rpos, rlen, rcap;
    uint64_t skip;                   /* value bytes still to skip */
    int need_crlf;                   /* a value's "\r\n" comes next */
    int value_ends;                  /* the request ends with this value */
    uint32_t cur_hits;               /* values seen for the head request */
    int cur_error;                   /* an error line came (counted) */
    uint64_t cur_id;                 /* id of a popped message */
    int cur_acked;                   /* qpop ack=: 1 ACKED, 2 NOT_FOUND */
    char   cap[BENCH_TAG_LEN];       /* first bytes of a popped message */
    size_t cap_len, cap_want;
    int resp_left;                   /* Redis: array elements still to come */
    int resp_array;                  /* Redis: the reply is an array */
    uint64_t last_stamp;             /* pushes get distinct stamps */
    uint64_t pushes;                 /* --groups: picks each push's group */
    char wait_secs[24];              /* blocking pops: --pop-wait as seconds */
    char wait_ms[24];                /*   as milliseconds */
    char wait_whole[24];             /*   as whole seconds, rounded up */
    int starved;                     /* nothing in flight, and the workload
                                        waits: the worker must ask again */

    char  *obuf;                     /* request headers */
    size_t oused, ocap, op_max;
    struct iovec *iov;               /* what is still to be written */
    int iov_head, iov_n, iov_cap;
    int want_write;                  /* registered for EPOLLOUT */
};

/* Allocate buffers and connect (blocking, with a timeout) connection number
 * g (over all threads) to server. 0 or -1. */
int  conn_open(struct conn *c, struct bench_shared *sh, struct bench_stats *st,
               int server, int g, uint64_t seed);
/* Queue requests until --depth are in flight (none after the run's end). */
void conn_fill(struct conn *c, uint64_t now);
/* Write what is queued; 0 (maybe with bytes left) or -1 on a socket error. */
int  conn_flush(struct conn *c);
/* Read and parse replies; -1 when the connection is lost or desynced. */
int  conn_read(struct conn *c);
int  conn_has_output(const struct conn *c);
void conn_close(struct conn *c);
void conn_free(struct conn *c);

#endif
