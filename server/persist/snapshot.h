/*
 * snapshot: the keyspace written to one file, so the log before it can go.
 *
 * dir/snap.<lsn> holds every structure (and, with --persist-items, every
 * cache value) as it was when the snapshot walked it, each at a moment
 * after log position lsn: recovery loads it and replays the log from lsn.
 * Entries are framed like log records: a header entry, the structures, an
 * end entry with their count (a file without it is not complete).
 */
#ifndef MCDS_SNAPSHOT_H
#define MCDS_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct snap_writer;

/* Writes one entry of a structure type: 0, or -1 on a write error. */
int snap_put(struct snap_writer *w, uint8_t type, uint8_t op, const struct iovec *iov, int niov);

struct snap_result {
    uint64_t entries;
    uint64_t bytes;
};

/* Writes the keyspace into dir/snap.<lsn>.tmp and fsyncs it: 0, or -1
 * (logged) with the file removed. Nothing else may change the keyspace
 * meanwhile (a forked child, or start-up), and the table must not grow. */
int snapshot_write_tmp(const char *dir, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark,
                       struct snap_result *res);
/* Renames snap.<lsn>.tmp to snap.<lsn> and fsyncs dir: the snapshot
 * counts from now on. 0, or -1 (logged; the file is removed). */
int snapshot_commit(const char *dir, uint64_t lsn);
/* Removes snap.<lsn>.tmp (a snapshot given up). */
void snapshot_discard(const char *dir, uint64_t lsn);

struct snap_loaded {
    uint64_t lsn, cas_mark, id_mark, entries;
    uint64_t bad_off;           /* where a bad entry starts, on failure */
    bool complete;              /* the end entry was found */
};

/* Loads path, handing every structure entry to its type's load; a bad
 * entry stops it (-1; with partial, what came before stays loaded). */
int snapshot_load(const char *path, bool partial, struct snap_loaded *out);

/* META entries and records (type PERSIST_META). */
enum snap_meta_op { META_CAS_MARK = 1, META_ID_MARK = 2, META_SNAP_HEADER = 3, META_SNAP_END = 4 };

#endif
