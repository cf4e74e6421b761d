/*
 * repl/sync: synchronous acknowledgement (doc/replication.md,
 * "Synchronous acknowledgement"): with --min-replicas-ack N a change is
 * answered once N replicas have acknowledged a log position at or past
 * its record, or after --min-replicas-timeout with an error; `wait`
 * counts the replicas that have a connection's last change. This file
 * answers "how many replicas have position P", wakes the workers when
 * that may have changed, and counts waits and timeouts for `stats`. The
 * workers hold the replies (net/conn_sync.c).
 */
#ifndef MCDS_REPL_SYNC_H
#define MCDS_REPL_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/stats.h"

/* What wakes the workers' held replies (given once at start-up). */
void sync_set_waker(void (*wake)(void));
/* An acknowledgement came, a replica went, or the server stops: the
 * workers look at their held replies again (any thread). */
void sync_wake(void);

/* Whether changes wait for replicas (--min-replicas-ack > 0, a primary). */
bool sync_on(void);
/* Whether enough replicas have lsn (always when sync is off). */
bool sync_confirmed(uint64_t lsn);
/* Whether waiting is pointless: fewer than N replicas are connected, or
 * the server stops. */
bool sync_hopeless(void);
/* The connected replicas whose acknowledged position is at or past lsn. */
int sync_count(uint64_t lsn);
/* Shutdown, or a restart in place, begins (on) or gave up (off): every
 * wait ends now, and none begins. */
void sync_set_stopping(bool on);
bool sync_stopping(void);
/* Waits (up to ms) until no connection waits for replicas any more: the
 * answers of sync_set_stopping have gone out. */
void sync_drain(unsigned ms);

/* Counting, for stats: a connection begins (+1) or ends (-1) a wait; a
 * change was answered unconfirmed. */
void sync_note_waiting(int delta);
/* Whether a connection waits for replicas now. */
bool sync_anyone_waiting(void);
void sync_note_timeout(void);
void sync_stats(stats_emit_fn emit, void *ctx);

#endif
