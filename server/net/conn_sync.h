/*
 * net/conn_sync: a connection's replies held for its primary's replicas
 * (doc/replication.md, "Synchronous acknowledgement"). With
 * --min-replicas-ack N a connection stops running commands after each
 * one that changed something (its log records) and is held, as
 * --fsync always holds it for the fsync, until N replicas acknowledge a
 * position at or past its last record, or --min-replicas-timeout passes,
 * or too few replicas are connected: then that command's reply is taken
 * back and replaced by the protocol's "not confirmed" error. `wait`
 * holds a connection the same way until enough replicas have its last
 * change, and answers their number. The holding itself is the worker's
 * (worker.c) and conn.c's; this file decides.
 */
#ifndef MCDS_CONN_SYNC_H
#define MCDS_CONN_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "net/conn.h"

/* A command is about to start: its output starts here. */
void conn_sync_begin(conn *c);
/* After a step of the command (step_mark: the thread's log end before
 * it): whether the connection stops here, its replies held (a finished
 * change that waits for replicas, or a `wait`). */
bool conn_sync_stop(conn *c, uint64_t step_mark);
/* The command running on c logs records of the server's own (the marks
 * of a promotion), not a client's change: its reply waits for no replica. */
void conn_sync_exempt(conn *c);
/* Whether c's held replies wait on replicas at all. */
bool conn_sync_pending(const conn *c);
/* Whether they may go as far as replicas go (a `wait` done is answered). */
bool conn_sync_ready(conn *c);
/* If waiting is over (its time has passed, too few replicas are
 * connected, the server stops): the change's reply becomes the error, a
 * `wait` is answered; true. now: monotonic microseconds. */
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
