/*
 * worker: the worker threads. Each owns an event_base and the connections
 * handed to it; the listener passes accepted sockets through a queue and a
 * notify pipe. Connections never move between workers.
 */
#ifndef MCDS_WORKER_H
#define MCDS_WORKER_H

struct worker;
struct conn;
struct event_base;

int workers_start(int n);
/* Closes every connection, stops and joins every worker, frees them. */
void workers_stop(void);
/* Hands an accepted socket to the next worker, round-robin. */
void worker_dispatch(int fd);

struct event_base *worker_base(struct worker *w);
/* A connection of w closed: drop it from w's list. */
void worker_forget(struct worker *w, struct conn *c);

#endif
