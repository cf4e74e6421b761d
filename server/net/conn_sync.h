/*
 * net/conn_sync: a connection's replies held for its primary's replicas
 * (doc/replication.md, "Synchronous acknowledgement"). With
 * --min-replicas-ack N a connection runs the commands it has read, as
 * --fsync always lets it, and holds their replies until N replicas
 * acknowledge a position at or past the records of its last change, so
 * a pipeline of changes waits for one round trip, not one per change.
 * At --min-replicas-timeout, or when too few replicas are connected, the
 * reply of each change they do not have is replaced, where it stands in
 * the output, by the protocol's "not confirmed" error; the other replies
 * go as they are. `wait` holds a connection the same way until enough
 * replicas have its last change, and answers their number. The holding
 * itself is the worker's (worker.c) and conn.c's; this file decides.
 */
#ifndef MCDS_CONN_SYNC_H
#define MCDS_CONN_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "net/conn.h"

/* The changes a connection's held replies may answer for before it stops
 * running commands and waits: bounds what a pipelining client makes the
 * server keep for it. */
#define CONN_SYNC_BATCH 32

/* A command is about to start: its output starts here. */
void conn_sync_begin(conn *c);
/* After a step of the command (step_mark: the thread's log end before
 * it): whether the connection stops here, its replies held (a batch of
 * changes that wait for replicas is full, or a `wait`). */
bool conn_sync_stop(conn *c, uint64_t step_mark);
/* The command running on c logs records of the server's own (the marks
 * of a promotion), not a client's change: its reply waits for no replica. */
void conn_sync_exempt(conn *c);
/* Whether c's held replies wait on replicas at all. */
bool conn_sync_pending(const conn *c);
/* Whether they may go as far as replicas go (a `wait` done is answered). */
bool conn_sync_ready(conn *c);
/* If waiting is over (its time has passed, too few replicas are
 * connected, the server stops): each change's reply the replicas do not
 * confirm becomes the error, a `wait` is answered; true if something
 * ended. now: monotonic microseconds. */
bool conn_sync_expire(conn *c, uint64_t now);
/* When it gives up (monotonic microseconds; 0 when it does not wait). */
uint64_t conn_sync_deadline(const conn *c);
/* It closes, or the server stops: the wait ends uncounted or answered. */
void conn_sync_forget(conn *c);
/* `wait <n> <timeout_ms>`: answers at once when n replicas have c's last
 * change or timeout_ms is 0, else holds c until they do or the time is
 * up. */
void conn_sync_wait(conn *c, int n, uint64_t timeout_ms);

#endif
