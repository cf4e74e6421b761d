/*
 * repl/replica: a replica's link to its primary (doc/replication.md,
 * "What a replica does"): a thread that connects, asks for the log from
 * this server's position (`psync`), takes a full resync when told, and
 * applies each LOG frame in one batch while every thread that changes the
 * keyspace is held, then acknowledges its position. It connects again
 * after any failure, waiting 1 s, then twice as long each time, up to 30 s.
 */
#ifndef MCDS_REPL_REPLICA_H
#define MCDS_REPL_REPLICA_H

#include <stdbool.h>

#include "base/stats.h"

/* Starts following host:port: 0, or -1 (no thread). */
int replica_start(const char *host, int port);
/* Stops following and waits for the thread (at most about a second). */
void replica_stop(void);
/* stats: the link, the primary's position, lag, counts. */
void replica_stats(stats_emit_fn emit, void *ctx);
/* Whether the link to the primary is up (applying its log). */
bool replica_link_up(void);
/* Whether it has been behind its primary for more than secs: the
 * primary last said it had written more than the replica has, and the
 * replica last had all the primary had said more than secs ago (stats
 * repl_lag_seconds). */
bool replica_behind_for(unsigned secs);

#endif
