/*
 * repl/fullsync: a replica's full resync (doc/replication.md, "What a
 * replica does"): the primary's snapshot written into the data directory
 * as the only snapshot, the other files removed, the primary's lineage
 * kept, and the process restarted in place (exec, same pid, same options)
 * so that its start-up loads the snapshot and continues from its
 * position. A primary made a replica restarts in place the same way.
 */
#ifndef MCDS_REPL_FULLSYNC_H
#define MCDS_REPL_FULLSYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "repl/stream.h"

/* The restart's arguments (main's argv). */
void fullsync_set_argv(char **argv);
/* fn runs right before the exec of a restart in place. */
void fullsync_set_exec_hook(void (*fn)(void));
/* Receives bytes of snapshot from in (the snapshot at pos of lineage),
 * installs it and restarts as a replica of primary ("HOST:PORT"); returns
 * only on failure (-1), or when *stop is set meanwhile. */
int fullsync_install(struct stream_in *in, const char *primary, const char *lineage, uint64_t pos,
                     uint64_t bytes, const bool *stop);
/* Holds every thread, closes the log and restarts as a replica of
 * primary; returns only on failure, or when *stop is set first. */
void fullsync_restart(const char *primary, const bool *stop);
/* The primary a restart in place was for (NULL: none). */
const char *fullsync_env(void);

#endif
