/*
 * persist_int: what the pieces of persistence (persist, recover,
 * snapshot) share and the rest of the server does not see.
 */
#ifndef MCDS_PERSIST_INT_H
#define MCDS_PERSIST_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/item.h"
#include "persist/persist.h"
#include "persist/records.h"

struct snap_writer;

/* Hands a snapshot entry, a replayed record, or an item to dump, to the
 * registered type (META records are handled by the caller). */
int persist_load_entry(const struct rec *r);
/* The registered type's name ("list", "queue", ...); a record's key. */
const char *persist_type_name(uint8_t type);
const char *persist_record_key(const struct rec *r, size_t *nkey);
int persist_apply_record(const struct rec *r, uint64_t lsn);
int persist_dump_item(struct snap_writer *w, item *it);
/* Every registered type's dump_all, before the keyspace walk. */
int persist_dump_all(struct snap_writer *w);

/* The checker's replay: records apply, nothing is logged. */
void persist_replay_mode(bool on);
/* A replica's batch (follow.c): records apply, only it appends them. */
void persist_set_replaying(bool on);

/* What recovery found, for `stats` and the start-up log line. */
struct persist_recovered {
    uint64_t snapshot_lsn;      /* 0: no snapshot */
    uint64_t snapshot_entries;
    uint64_t snapshot_bytes;
    uint64_t records;           /* log records replayed */
    uint64_t skipped;           /* valid records that did not apply, or of quarantined keys */
    uint64_t quarantined;       /* keys whose records stopped applying */
    uint64_t damaged;           /* bytes --recover-partial stepped over */
    uint64_t torn;              /* bytes of a torn tail cut off */
    uint64_t log_files;
    uint64_t file_lsn;          /* the last log file: its first LSN */
    uint64_t next_lsn;          /* where the log goes on */
    uint64_t cas_mark, id_mark; /* highest marks seen */
    uint64_t ms;                /* how long it took */
};

/* What one file held, for --check-data-dir. */
struct recover_file_report {
    const char *kind;           /* "snap" or "log" */
    uint64_t lsn;               /* its position */
    uint64_t bytes;
    uint64_t records;           /* entries of a snapshot */
    uint64_t by_type[PERSIST_NTYPES];   /* log records by structure type */
    const char *bad;            /* NULL: sound; else what is wrong at bad_off */
    uint64_t bad_off;
    bool torn;                  /* the bad spot is a torn tail (normal after a crash) */
};

struct recover_opts {
    bool partial;               /* step over damage, keep what follows */
    bool strict;                /* a record that does not apply stops it */
    bool check;                 /* --check-data-dir: lock, cut and remove nothing */
    void (*on_file)(const struct recover_file_report *r, void *arg);
    void *arg;
};

/* Recovery: takes dir's lock file (fd in *lock_fd), loads the newest
 * snapshot, replays the log after it (cutting a torn tail), and says where
 * the log goes on. -1: start-up must stop (logged). */
int recover_run(const char *dir, const struct recover_opts *o, int *lock_fd, struct persist_recovered *out);

#endif
