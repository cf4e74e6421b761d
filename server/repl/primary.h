/*
 * repl/primary: a primary's side of replication (doc/replication.md,
 * "What the primary does"). A connection that sent `psync` is handed
 * over here: a sender thread of its own answers CONTINUE or FULLSYNC,
 * then streams the log files from disk (never more than the log has
 * written), woken by each write of the log, sends a PING each second,
 * and reads the replica's REPLACKs. The workers never wait for a replica
 * (only replies may: repl/sync.h).
 */
#ifndef MCDS_REPL_PRIMARY_H
#define MCDS_REPL_PRIMARY_H

#include <stdint.h>

#include "base/stats.h"

struct link_tls;

/* Takes over socket fd (its connection is closed by the caller), and its
 * TLS session tls (NULL: plain), of a replica that asked for lineage
 * (NULL: none) from pos: 0, or -1 (the socket and session are freed). */
int primary_attach(int fd, struct link_tls *tls, const char *lineage, uint64_t pos);
/* Cuts every replica off and waits for their threads. */
void primary_stop(void);
/* The log was written further (persist's hook, any thread, often): each
 * sender waiting for more is woken. */
void primary_log_written(void);
/* Connected replicas whose acknowledged position is at or past lsn; all
 * the connected ones. */
int primary_acked_count(uint64_t lsn);
int primary_connected(void);
/* stats: repl_replicas and a repl_replica_<i> line each. */
void primary_stats(stats_emit_fn emit, void *ctx);

#endif
