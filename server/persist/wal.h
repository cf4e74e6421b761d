/*
 * wal: the write-ahead log. Records go into one shared ring buffer in the
 * order their mutations happened, then to the current log file, then to
 * disk.
 *
 * Positions are LSNs: byte offsets in the one endless log, which is cut
 * into files named log.<first LSN, 16 hex digits>. A record is a 12-byte
 * header (magic, structure type, operation, length, CRC-32C over header
 * and payload) and its payload.
 *
 * Appending takes no lock: a thread reserves its place with one atomic
 * add, made while it holds the lock of the structure it changed, so the
 * records of one structure are in the order of its changes. The bytes are
 * written to the file in batches, by whichever thread needs them written
 * first (a worker before it sends replies, or the sync thread), under the
 * writer's mutex; fdatasync happens on the sync thread.
 */
#ifndef MCDS_WAL_H
#define MCDS_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define WAL_MAGIC 0xA7
#define WAL_HEADER 12
#define WAL_RECORD_MAX (1024UL * 1024 * 1024 + 4096)   /* a 1 GB value and its fields */

/* Opens dir/log.<file_lsn> for appending at next_lsn (the file's valid
 * length is next_lsn - file_lsn; anything after it is cut), with a ring
 * of ring_bytes (a power of two). -1 with a logged reason on failure. */
int wal_open(const char *dir, uint64_t file_lsn, uint64_t next_lsn, size_t ring_bytes);
/* Writes and syncs everything, closes the file, frees the ring. */
void wal_close(void);

/* Appends one record (its payload gathered from iov); returns its end
 * LSN. Never fails: when the ring is full it waits for the writer. */
uint64_t wal_append(uint8_t type, uint8_t op, const struct iovec *iov, int niov);
/* End LSN of the last record the calling thread appended (0: none). */
uint64_t wal_thread_end(void);
/* The calling thread's records from here to wal_group_end (a command's)
 * reach the file together: none is written before all are in the ring
 * (unless they must make room in it), so a crash keeps all or none. */
void wal_group_begin(void);
void wal_group_end(void);
/* debuggrouppause (--debug): the first record of the next group waits ms
 * in the ring, the group held, before its command goes on. */
void wal_debug_group_pause(unsigned ms);

/* Writes the ring to the file up to at least lsn: 0, or -1 when the file
 * cannot be written (disk full, I/O error: wal_failed() then says so). */
int wal_write_upto(uint64_t lsn);
/* Writes what is complete, as far as it goes (never waits). */
void wal_write_some(void);
/* fdatasync of everything written so far: 0 or -1. */
int wal_sync(void);

/* fn runs each time more of the log is written to the file (on the
 * writing thread, the writer's mutex held: it must be short). */
void wal_set_written_hook(void (*fn)(void));

uint64_t wal_reserved(void);
uint64_t wal_written(void);
uint64_t wal_synced(void);
/* Whether the log takes no changes now: the last write failed (cleared
 * by the next success), or it is broken. */
bool wal_failed(void);
/* Whether an fsync failed: no change is taken until a restart. */
bool wal_broken(void);
/* Bytes of ring in use (reserved, not yet written). */
uint64_t wal_backlog(void);

/* From lsn on, records go to a new file log.<lsn> (a snapshot starts
 * there); lsn must be a record boundary (a value wal_reserved() gave) that
 * nothing after has been reserved past (every appending thread held):
 * -1 when a record after lsn is written already (nothing changes). */
int wal_rotate_at(uint64_t lsn);
/* First LSN of the current file. */
uint64_t wal_file_lsn(void);

/* Duration of the last fdatasync, microseconds; time it ended (Unix). */
uint64_t wal_last_sync_us(void);
uint64_t wal_last_sync_time(void);

#endif
