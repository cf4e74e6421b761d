/*
 * repl: replication's state and its one interface to the rest of the
 * server (doc/replication.md): the role (primary or replica of
 * HOST:PORT), the lineage, start and stop, `replicaof`, and `stats`.
 */
#ifndef MCDS_REPL_H
#define MCDS_REPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/reply.h"
#include "repl/lineage.h"

#define REPL_HOST_MAX 256

/* Before the keyspace is restored: the role from --replicaof (or from a
 * restart in place), argv for such a restart. -1 when HOST:PORT is bad. */
int repl_configure(char **argv);
/* fn runs right before the exec of a restart in place (the daemon's
 * mark that the new image is the same process). */
void repl_set_exec_hook(void (*fn)(void));
/* After the restore, once the server serves: the lineage, and the link
 * to the primary of a replica. -1 when the lineage cannot be written. */
int repl_start(void);
/* Shutdown: the link and every replica's sender go. */
void repl_stop(void);

bool repl_is_replica(void);
/* "HOST:PORT" of the primary into buf (a replica). */
void repl_primary_name(char *buf, size_t n);
/* The lineage now. */
void repl_lineage(struct lineage *l);
/* The lineage goes into DIR/lineage if it is not there yet (a replica
 * is about to hold it): 0 or -1. */
int repl_lineage_keep(void);
/* A full resync or a restart took lineage l (a replica). */
void repl_take_lineage(const struct lineage *l);

/* replicaof HOST PORT: REPLY_OK, or the reply that says why not. A
 * primary restarts in place as a replica, soon after the reply. */
enum reply_id repl_replicaof(const char *host, int port);
/* replicaof no one: promotion (nothing to do on a primary): REPLY_OK. */
enum reply_id repl_promote(void);

#endif
