/*
 * persist_int: what the pieces of persistence (persist, recover,
 * snapshot) share and the rest of the server does not see.
 */
#ifndef MCDS_PERSIST_INT_H
#define MCDS_PERSIST_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../item.h"
#include "records.h"

struct snap_writer;

/* Hands a snapshot entry, a replayed record, or an item to dump, to the
 * registered type (META records are handled by the caller). */
int persist_load_entry(const struct rec *r);
int persist_apply_record(const struct rec *r, uint64_t lsn);
int persist_dump_item(struct snap_writer *w, item *it);
/* Every registered type's dump_all, before the keyspace walk. */
int persist_dump_all(struct snap_writer *w);

/* What recovery found, for `stats` and the start-up log line. */
struct persist_recovered {
    uint64_t snapshot_lsn;      /* 0: no snapshot */
    uint64_t snapshot_entries;
    uint64_t snapshot_bytes;
    uint64_t records;           /* log records replayed */
    uint64_t log_files;
    uint64_t file_lsn;          /* the last log file: its first LSN */
    uint64_t next_lsn;          /* where the log goes on */
    uint64_t cas_mark, id_mark; /* highest marks seen */
    uint64_t ms;                /* how long it took */
};

/* Recovery: takes dir's lock file (fd in *lock_fd), loads the newest
 * snapshot, replays the log after it (cutting a torn tail), and says where
 * the log goes on. -1: start-up must stop (logged). */
int recover_run(const char *dir, bool partial, int *lock_fd, struct persist_recovered *out);

#endif
