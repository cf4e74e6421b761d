/*
 * persist/io: every file system call persistence makes to change its
 * files, in one place, so that tests can make them fail (debugfault, with
 * --debug): an errno such as ENOSPC or EIO, or a short write, on the next
 * calls of one kind. The kinds keep the log's calls (open, write, fsync)
 * apart from a snapshot's (snapopen, snapwrite, snapfsync), then rename
 * (a snapshot put in place) and unlink (files removed). A forked snapshot
 * child inherits what is armed at the fork.
 */
#ifndef MCDS_PERSIST_IO_H
#define MCDS_PERSIST_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

enum persist_io_op {
    PIO_OPEN, PIO_WRITE, PIO_FSYNC, PIO_SNAP_OPEN, PIO_SNAP_WRITE, PIO_SNAP_FSYNC, PIO_RENAME, PIO_UNLINK,
    PIO_NOPS
};

#define PIO_SHORT (-1)      /* the injected "error": a write that stops half way */

/* The log: */
int persist_io_open(const char *path, int flags, mode_t mode);
ssize_t persist_io_pwritev(int fd, const struct iovec *iov, int niov, off_t off);
int persist_io_fdatasync(int fd);
/* A snapshot: the file for writing; fwrite of n bytes (0, or -1 with
 * errno); fsync. */
FILE *persist_io_fopen(const char *path);
int persist_io_fwrite(FILE *f, const void *p, size_t n);
int persist_io_fsync(int fd);
int persist_io_rename(const char *from, const char *to);
int persist_io_unlink(const char *path);
/* fsync of a directory, a new or renamed file's name on disk: as the log
 * (PIO_FSYNC) or as a snapshot (PIO_SNAP_FSYNC). 0 or -1. */
int persist_io_sync_dir(const char *dir, enum persist_io_op kind);

/* debugfault: after skip calls of op succeed, the next count calls fail
 * with err (an errno, or PIO_SHORT for a write); count 0: every call until
 * persist_io_fault_clear(). */
void persist_io_fault(enum persist_io_op op, int err, uint32_t skip, uint32_t count);
void persist_io_fault_clear(void);
/* Names: open, write, fsync, snapopen, snapwrite, snapfsync, rename,
 * unlink; ENOSPC, EIO, EFBIG, EDQUOT, short. -1 (op) or 0 (err) when
 * unknown. */
int persist_io_op_named(const char *name);
int persist_io_err_named(const char *name);
/* Calls failed on purpose so far (stats: persist_faults_injected). */
uint64_t persist_io_faults_injected(void);

#endif
