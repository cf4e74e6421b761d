/*
 * persist/files: the names in a data directory. log.<16 hex digits> holds
 * the log from that position on, snap.<16 hex digits> the keyspace at
 * that position, *.tmp a file not finished. This file lists them, names
 * them, and removes the ones a snapshot makes useless.
 */
#ifndef MCDS_PERSIST_FILES_H
#define MCDS_PERSIST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FILES_MAX 4096

struct persist_files {
    uint64_t snaps[FILES_MAX], logs[FILES_MAX];     /* ascending */
    int nsnaps, nlogs;
    int ntmp;                   /* *.tmp files seen (removed when asked) */
    bool truncated;             /* more than FILES_MAX of a kind */
};

/* Lists dir (removing *.tmp files when remove_tmp): 0, or -1 (errno). */
int files_list(const char *dir, struct persist_files *f, bool remove_tmp);
/* dir/<kind>.<lsn>, kind "log" or "snap". */
void files_path(char *buf, size_t n, const char *dir, const char *kind, uint64_t lsn);
void files_remove(const char *dir, const char *kind, uint64_t lsn);
/* What the snapshot at lsn makes useless: older snapshots, and each log
 * file whose records all come before lsn (the next file starts at or
 * before lsn). A file that may hold records at or after lsn stays. */
void files_remove_before(const char *dir, uint64_t lsn);

#endif
