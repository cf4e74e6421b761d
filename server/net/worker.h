/*
 * worker: the worker threads. Each owns an event_base and the connections
 * handed to it; the listener passes accepted sockets through a queue and a
 * notify pipe. Connections never move between workers.
 */
#ifndef MCDS_WORKER_H
#define MCDS_WORKER_H

#include <stdbool.h>

#include "net/conn.h"

struct worker;
struct conn;
struct event_base;

/* A call to run on a worker's own thread (embedded in its caller's
 * struct, so posting allocates nothing). */
struct worker_call {
    struct worker_call *next;
    void (*fn)(void *arg);
    void *arg;
};

int workers_start(int n);
/* Closes every connection, stops and joins every worker. Other threads may
 * still post to the workers until workers_free(). */
void workers_stop(void);
/* Frees the workers; nothing may post to them any more. */
void workers_free(void);
/* Hands an accepted socket to the next worker, round-robin; tls: it came
 * from a TLS listener; choose: the protocols its listener speaks. */
void worker_dispatch(int fd, bool tls, conn_proto_choose_fn choose);

struct event_base *worker_base(struct worker *w);
/* A connection of w closed: drop it from w's list. */
void worker_forget(struct worker *w, struct conn *c);
/* A read buffer of CONN_RBUF_SIZE bytes from w's cache (or a new one,
 * counted against the connection buffer limit), NULL when none can be
 * had; and back. w's thread only. */
char *worker_rbuf_get(struct worker *w);
void worker_rbuf_put(struct worker *w, char *buf);
/* c's replies wait for its log records to be durable (persistence). */
void worker_hold(struct worker *w, struct conn *c);
void worker_unhold(struct worker *w, struct conn *c);
/* More of the log is durable: every worker looks at its held connections
 * (callable from any thread). */
void workers_wake_held(void);
/* Connections waiting for the log now; connections closed because the
 * log could not be written for --log-stall-timeout. */
uint64_t workers_held_count(void);
uint64_t workers_stalled_closes(void);
/* Whether the calling thread is w's. */
bool worker_is_current(const struct worker *w);
/* Runs call->fn(call->arg) on w's thread soon; callable from any thread. */
void worker_post(struct worker *w, struct worker_call *call);
/* On w's thread, between events: runs what was posted to w so far. */
void worker_run_posted(struct worker *w);
/* The workers (stats conns asks each for its connections). */
int worker_count(void);
struct worker *worker_at(int i);
/* Calls fn on each of w's connections; w's thread only. */
void worker_each_conn(struct worker *w, void (*fn)(struct conn *c, void *arg), void *arg);

#endif
