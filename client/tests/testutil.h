/*
 * testutil.h - small helpers shared by the libmcds test programs.
 *
 * Each program takes one argument, the server list ("host:port[,...]"),
 * prints what it checks, and exits 0 only if every check passed. CHECK and
 * CHECK_ST stop the process at the first failure with file:line. Worker
 * processes (tu_run_workers) get their own handle and report through their
 * exit status.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mcds.h"

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond))                                                         \
            tu_fail(__FILE__, __LINE__, #cond, NULL);                        \
    } while (0)

#define CHECK_ST(expr, want)                                                 \
    do {                                                                     \
        mcds_status_t tu_st_ = (expr);                                       \
        if (tu_st_ != (want))                                                \
            tu_fail_st(__FILE__, __LINE__, #expr, tu_st_, (want));           \
    } while (0)

void tu_fail(const char *file, int line, const char *what, const char *more);
void tu_fail_st(const char *file, int line, const char *what,
                mcds_status_t got, mcds_status_t want);

/* Parses argv (exits 2 on misuse), sets a watchdog alarm of timeout_s
 * (or $MCDS_TEST_TIMEOUT) seconds, returns the server list. */
const char *tu_init(int argc, char **argv, unsigned timeout_s);
/* Opens a handle or fails the test; with MCDS_TEST_PROTOCOL=binary the
 * handle speaks memcached's binary protocol instead of text. */
mcds_t *tu_open(const char *servers);
/* A name unique to this run: "<prefix>-<pid>-<counter>-<time>". */
const char *tu_name(const char *prefix);
/* Prints "ok - what". */
void tu_ok(const char *what);
int64_t tu_now_ms(void);

/* Runs fn(i, servers, arg) in n forked processes, all released at once;
 * returns the number of workers that failed. A worker passes by returning. */
typedef void (*tu_worker_fn)(int i, const char *servers, void *arg);
int tu_run_workers(int n, tu_worker_fn fn, const char *servers, void *arg);

/* Moves the clock of every server in the list forward by seconds with the
 * "debugtime" verb (mcds-server --debug). Returns 1 when every server
 * answered OK, 0 when one does not know the verb (stock memcached); fails
 * the test when a server cannot be reached. */
int tu_debugtime(const char *servers, int seconds);
/* Sleeps until the wall clock (tu_now_ms) reaches ms. */
void tu_sleep_until(int64_t ms);
/* Pops and acks every ready message of queue q; returns how many. */
size_t tu_queue_drain(mcds_t *h, const char *q);

/* A TCP proxy in a thread of this process, from 127.0.0.1:port to one
 * server: it forwards (TU_PROXY_FORWARD) or swallows what clients send
 * (TU_PROXY_BLACKHOLE, a server that stops answering). */
enum { TU_PROXY_FORWARD, TU_PROXY_BLACKHOLE };

typedef struct tu_proxy {
    int lfd, port;
    struct sockaddr_in up;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int mode, cut, stop; /* under mu */
    int pair[16][2];
} tu_proxy_t;

/* Starts a proxy to target ("host:port", IPv4) listening on port (0: any;
 * p->port tells which). */
void tu_proxy_start(tu_proxy_t *p, const char *target, int port);
/* Sets the mode; cut closes every connection (and waits until done). */
void tu_proxy_set(tu_proxy_t *p, int mode, int cut);
/* Closes every connection and the listening socket: connections to its
 * port are refused from then on, until tu_proxy_start on the same port. */
void tu_proxy_stop(tu_proxy_t *p);

/* Sorting and comparing helpers. */
int tu_cmp_u64(const void *a, const void *b);
int tu_cmp_items(const void *a, const void *b);

#endif
