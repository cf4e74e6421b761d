/*
 * persist/snap_fork: a snapshot's copy of memory. While every thread that
 * changes the keyspace is held (quiesce.h), the snapshot thread forks:
 * the child holds the keyspace exactly as it was at log position P and
 * writes it to snap.<P>.tmp at its own pace, while the server goes on.
 */
#ifndef MCDS_SNAP_FORK_H
#define MCDS_SNAP_FORK_H

#include <stdint.h>
#include <sys/types.h>

#include "persist/snapshot.h"

struct snap_child {
    pid_t pid;
    int fd;                 /* the child's log lines and result */
};

/* Forks the child that writes dir/snap.<lsn>.tmp (after pause_ms, a test
 * hook). 0 in the parent; -1 (logged) when it cannot fork. The child never
 * returns. */
int snap_fork(const char *dir, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark, unsigned pause_ms,
              struct snap_child *ch);
/* Logs the child's lines and waits for it: 0 when snap.<lsn>.tmp is
 * complete and on disk (res says what it holds), -1 otherwise. */
int snap_wait(struct snap_child *ch, struct snap_result *res);
/* Shutdown: stops the child (its file is left for recovery to remove). */
void snap_kill(pid_t pid);

#endif
