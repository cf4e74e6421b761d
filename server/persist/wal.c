/*
 * wal: the ring buffer, lock-free appends, batched file writes, syncs and
 * file rotation.
 *
 * Appending (any thread): a thread announces in its slot a lower bound of
 * the position it is about to take, reserves [L, L+len) with one atomic
 * add on `reserved`, waits while the ring has no room (the writer frees
 * it), copies the record to ring[L mod size], then clears its slot. The
 * writer's safe limit is the smallest of `reserved` and every announced
 * slot: all bytes below it are complete. All of this is sequentially
 * consistent, so a reservation is either below the writer's reading of
 * `reserved` and visible in its slot, or above it.
 *
 * A command's records go out together (wal_group_begin/end): its thread
 * keeps its slot at the first record's position until the command ends,
 * so the writer writes none of them before all are in the ring, and a
 * crash leaves the whole command in the file or none of it. A group that
 * must wait for room in the ring (its records near the ring's size) lets
 * go of what it appended so far, which can then be written.
 *
 * Writing (under write_lock): from `written` to the safe limit, with
 * pwritev at the file offset LSN - file_lsn, so a failed or short write is
 * simply retried from where it stopped. A record too big for the ring is
 * written straight to the file once everything before it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "persist/crc32c.h"
#include "persist/io.h"
#include "persist/wal.h"

#define WAL_SLOTS 512               /* threads that may append */
#define WAL_NO_SLOT UINT64_MAX

static struct {
    char dir[PATH_MAX];
    int fd;
    uint64_t file_lsn;              /* first LSN of fd's file */
    uint64_t rotate_lsn;            /* next file starts here; UINT64_MAX: none */
    uint8_t *ring;
    size_t size;
    uint64_t reserved, written, synced;     /* atomics */
    uint64_t slots[WAL_SLOTS];              /* atomics */
    int nslots;                             /* atomic */
    bool failed;                            /* atomic: the last write failed */
    bool broken;                            /* atomic: an fsync failed (until restart) */
    pthread_mutex_t write_lock;
    pthread_mutex_t sync_lock;
    uint64_t last_sync_us, last_sync_time;  /* atomics */
} wal = { .fd = -1, .write_lock = PTHREAD_MUTEX_INITIALIZER, .sync_lock = PTHREAD_MUTEX_INITIALIZER };

static __thread int wal_my_slot = -1;
static __thread uint64_t wal_my_end;
static __thread bool wal_grouping;      /* wal_group_begin: the records go out together */
static __thread bool wal_group_held;    /* ... and the slot holds the group's first position */
static unsigned wal_debug_pause_ms;     /* atomic: debuggrouppause */

/* ---- files ---- */

static void wal_path(char *buf, size_t n, uint64_t lsn) {
    snprintf(buf, n, "%s/log.%016llx", wal.dir, (unsigned long long)lsn);
}

static void wal_set_failed(const char *what);
static void wal_set_broken(const char *what);

static void wal_sync_dir(void) {
    if (persist_io_sync_dir(wal.dir, PIO_FSYNC) < 0)
        wal_set_broken("fsync of the directory");
}

static int wal_open_file(uint64_t lsn, uint64_t length, bool truncate) {
    char path[PATH_MAX + 32];
    int fd;

    wal_path(path, sizeof(path), lsn);
    fd = persist_io_open(path, O_RDWR | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
    if (fd < 0 || ftruncate(fd, (off_t)length) < 0) {
        log_msg(0, "persistence: cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int wal_open(const char *dir, uint64_t file_lsn, uint64_t next_lsn, size_t ring_bytes) {
    int i;

    snprintf(wal.dir, sizeof(wal.dir), "%s", dir);
    wal.ring = malloc(ring_bytes);
    if (wal.ring == NULL) {
        log_msg(0, "persistence: no memory for a %zu-byte log buffer", ring_bytes);
        return -1;
    }
    wal.size = ring_bytes;
    wal.fd = wal_open_file(file_lsn, next_lsn - file_lsn, false);
    if (wal.fd < 0) {
        free(wal.ring);
        wal.ring = NULL;
        return -1;
    }
    wal_sync_dir();
    wal.file_lsn = file_lsn;
    wal.rotate_lsn = UINT64_MAX;
    wal.reserved = wal.written = wal.synced = next_lsn;
    for (i = 0; i < WAL_SLOTS; i++)
        wal.slots[i] = WAL_NO_SLOT;
    wal.failed = false;
    wal.broken = false;
    return 0;
}

void wal_close(void) {
    if (wal.ring == NULL)
        return;
    wal_write_upto(__atomic_load_n(&wal.reserved, __ATOMIC_SEQ_CST));
    wal_sync();
    close(wal.fd);
    wal.fd = -1;
    free(wal.ring);
    wal.ring = NULL;
}

/* ---- appending ---- */

static int wal_slot(void) {
    if (wal_my_slot < 0) {
        int s = __atomic_fetch_add(&wal.nslots, 1, __ATOMIC_SEQ_CST);
        wal_my_slot = s < WAL_SLOTS ? s : WAL_SLOTS - 1;
    }
    return wal_my_slot;
}

static void wal_ring_copy(uint64_t lsn, const void *p, size_t n) {
    size_t at = (size_t)(lsn & (wal.size - 1)), first = wal.size - at;

    if (first >= n) {
        memcpy(wal.ring + at, p, n);
    } else {
        memcpy(wal.ring + at, p, first);
        memcpy(wal.ring, (const uint8_t *)p + first, n - first);
    }
}

static void wal_header(uint8_t *h, uint8_t type, uint8_t op, const struct iovec *iov, int niov,
                       size_t plen) {
    uint32_t crc;
    int i;

    h[0] = WAL_MAGIC;
    h[1] = type;
    h[2] = op;
    h[3] = 0;
    for (i = 0; i < 4; i++)
        h[4 + i] = (uint8_t)(plen >> (8 * i));
    crc = crc32c(0, h, 8);
    for (i = 0; i < niov; i++)
        crc = crc32c(crc, iov[i].iov_base, iov[i].iov_len);
    for (i = 0; i < 4; i++)
        h[8 + i] = (uint8_t)(crc >> (8 * i));
}

/* Waits until the ring has room for [lsn, lsn+len), writing to make it. */
static void wal_wait_room(uint64_t lsn, uint64_t len) {
    while (lsn + len - __atomic_load_n(&wal.written, __ATOMIC_ACQUIRE) > wal.size) {
        wal_write_some();
        if (lsn + len - __atomic_load_n(&wal.written, __ATOMIC_ACQUIRE) > wal.size)
            sched_yield();
    }
}

static int wal_write_big(uint64_t lsn, const uint8_t *h, const struct iovec *iov, int niov);

/* Whether [lsn, lsn+len) fits in the ring without waiting for the writer. */
static bool wal_has_room(uint64_t lsn, uint64_t len) {
    return lsn + len - __atomic_load_n(&wal.written, __ATOMIC_ACQUIRE) <= wal.size;
}

/* The calling thread's group lets go of the records it appended so far
 * (they may be written): before it waits on the writer itself. */
static void wal_group_yield(void) {
    if (!wal_group_held)
        return;
    wal_group_held = false;
    __atomic_store_n(&wal.slots[wal_slot()], WAL_NO_SLOT, __ATOMIC_SEQ_CST);
}

void wal_group_begin(void) {
    wal_grouping = true;
}

void wal_group_end(void) {
    wal_grouping = false;
    wal_group_yield();
}

void wal_debug_group_pause(unsigned ms) {
    __atomic_store_n(&wal_debug_pause_ms, ms, __ATOMIC_SEQ_CST);
}

/* debuggrouppause: the first record of the next group waits here. */
static void wal_debug_pause(void) {
    unsigned ms;

    if (__atomic_load_n(&wal_debug_pause_ms, __ATOMIC_RELAXED) == 0)
        return;     /* the usual case: a read, no write to a line every worker shares */
    ms = __atomic_exchange_n(&wal_debug_pause_ms, 0, __ATOMIC_SEQ_CST);
    if (ms > 0)
        usleep(ms * 1000U);
}

/* After a record at lsn is in the ring: its slot is cleared, or, in a
 * group, keeps the group's first position. */
static void wal_appended(int slot, uint64_t lsn) {
    if (!wal_grouping) {
        __atomic_store_n(&wal.slots[slot], WAL_NO_SLOT, __ATOMIC_SEQ_CST);
        return;
    }
    if (!wal_group_held) {
        wal_group_held = true;
        __atomic_store_n(&wal.slots[slot], lsn, __ATOMIC_SEQ_CST);
        wal_debug_pause();
    }
}

uint64_t wal_append(uint8_t type, uint8_t op, const struct iovec *iov, int niov) {
    uint8_t h[WAL_HEADER];
    size_t plen = 0;
    uint64_t lsn, len;
    int slot = wal_slot(), i;

    for (i = 0; i < niov; i++)
        plen += iov[i].iov_len;
    wal_header(h, type, op, iov, niov, plen);
    len = WAL_HEADER + plen;
    if (!wal_group_held)
        __atomic_store_n(&wal.slots[slot], __atomic_load_n(&wal.reserved, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);
    lsn = __atomic_fetch_add(&wal.reserved, len, __ATOMIC_SEQ_CST);
    if (wal_group_held && (len > wal.size / 2 || !wal_has_room(lsn, len)))
        wal_group_held = false;     /* the group's earlier records may go: the writer must make room */
    if (!wal_group_held)
        __atomic_store_n(&wal.slots[slot], lsn, __ATOMIC_SEQ_CST);
    if (len > wal.size / 2) {
        while (wal_write_big(lsn, h, iov, niov) < 0)
            sched_yield();      /* disk full: the record waits for room */
    } else {
        wal_wait_room(lsn, len);
        wal_ring_copy(lsn, h, WAL_HEADER);
        lsn += WAL_HEADER;
        for (i = 0; i < niov; i++) {
            wal_ring_copy(lsn, iov[i].iov_base, iov[i].iov_len);
            lsn += iov[i].iov_len;
        }
        lsn -= len;
    }
    wal_appended(slot, lsn);
    wal_my_end = lsn + len;
    return wal_my_end;
}

uint64_t wal_thread_end(void) {
    return wal_my_end;
}

/* ---- writing ---- */

/* The LSN below which every reserved byte is in the ring. */
static uint64_t wal_safe(void) {
    uint64_t safe = __atomic_load_n(&wal.reserved, __ATOMIC_SEQ_CST);
    int n = __atomic_load_n(&wal.nslots, __ATOMIC_SEQ_CST), i;

    if (n > WAL_SLOTS)
        n = WAL_SLOTS;
    for (i = 0; i < n; i++) {
        uint64_t s = __atomic_load_n(&wal.slots[i], __ATOMIC_SEQ_CST);
        if (s < safe)
            safe = s;
    }
    return safe;
}

static void wal_set_failed(const char *what) {
    if (!__atomic_exchange_n(&wal.failed, true, __ATOMIC_SEQ_CST))
        log_msg(0, "persistence: %s failed: %s; writes that need the log are refused until it works again",
                what, strerror(errno));
}

/* An fsync failed: what was written may not be on disk, and a retry
 * cannot tell (the kernel may have dropped the pages it could not write),
 * so the log takes no more changes until a restart replays what is on
 * disk. */
static void wal_set_broken(const char *what) {
    if (!__atomic_exchange_n(&wal.broken, true, __ATOMIC_SEQ_CST))
        log_msg(0, "persistence: %s failed: %s; what was written may not be on disk, so no more "
                   "changes are taken: restart the server (it replays what the disk holds)",
                what, strerror(errno));
}

static void wal_clear_failed(void) {
    if (__atomic_exchange_n(&wal.failed, false, __ATOMIC_SEQ_CST) && !wal_broken())
        log_msg(0, "persistence: the log can be written again; writes resume");
}

/* Starts the next file at wal.written (== rotate_lsn); write_lock held. */
static int wal_rotate_locked(void) {
    int fd;

    if (persist_io_fdatasync(wal.fd) < 0) {
        wal_set_broken("fdatasync of the log before the next file");
        return -1;
    }
    fd = wal_open_file(wal.rotate_lsn, 0, true);
    if (fd < 0) {
        wal_set_failed("opening the next log file");
        return -1;
    }
    wal_sync_dir();
    close(wal.fd);
    wal.fd = fd;
    wal.file_lsn = wal.rotate_lsn;
    wal.rotate_lsn = UINT64_MAX;
    return 0;
}

/* pwritev of ring bytes [from, to) at their place in the file. */
static ssize_t wal_pwrite_ring(uint64_t from, uint64_t to) {
    size_t at = (size_t)(from & (wal.size - 1)), n = (size_t)(to - from);
    struct iovec iov[2];
    int niov = 1;

    iov[0].iov_base = wal.ring + at;
    iov[0].iov_len = n;
    if (at + n > wal.size) {
        iov[0].iov_len = wal.size - at;
        iov[1].iov_base = wal.ring;
        iov[1].iov_len = n - iov[0].iov_len;
        niov = 2;
    }
    return persist_io_pwritev(wal.fd, iov, niov, (off_t)(from - wal.file_lsn));
}

static void (*wal_written_hook)(void);

void wal_set_written_hook(void (*fn)(void)) {
    wal_written_hook = fn;
}

/* Writes [written, limit) (limit at most the safe limit); write_lock held. */
static int wal_write_locked(uint64_t limit) {
    uint64_t written = wal.written;

    while (written < limit) {
        uint64_t end = limit;
        ssize_t w;
        if (written == wal.rotate_lsn && wal_rotate_locked() < 0)
            return -1;
        if (wal.rotate_lsn > written && wal.rotate_lsn < end)
            end = wal.rotate_lsn;
        w = wal_pwrite_ring(written, end);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            wal_set_failed("writing the log");
            return -1;
        }
        written += (uint64_t)w;
        __atomic_store_n(&wal.written, written, __ATOMIC_RELEASE);
        if (wal_written_hook != NULL)
            wal_written_hook();
    }
    if (written == wal.rotate_lsn && wal_rotate_locked() < 0)
        return -1;
    wal_clear_failed();
    return 0;
}

void wal_write_some(void) {
    pthread_mutex_lock(&wal.write_lock);
    wal_write_locked(wal_safe());
    pthread_mutex_unlock(&wal.write_lock);
}

int wal_write_upto(uint64_t lsn) {
    int rc = 0;

    wal_group_yield();      /* a group of this thread's own would hold the writer below lsn */
    while (rc == 0 && __atomic_load_n(&wal.written, __ATOMIC_ACQUIRE) < lsn) {
        uint64_t safe;
        pthread_mutex_lock(&wal.write_lock);
        safe = wal_safe();
        rc = wal_write_locked(safe);
        pthread_mutex_unlock(&wal.write_lock);
        if (rc == 0 && safe < lsn)
            sched_yield();      /* another thread is still copying a record below lsn */
    }
    return rc;
}

/* Writes a record bigger than half the ring straight to the file, once
 * everything before it is written. -1 when the file cannot be written. */
static int wal_write_big(uint64_t lsn, const uint8_t *h, const struct iovec *iov, int niov) {
    struct iovec v[1 + 16];
    uint64_t len = WAL_HEADER, off;
    int i, n = 0, rc = 0;

    if (wal_write_upto(lsn) < 0)
        return -1;
    v[n].iov_base = (void *)h;
    v[n++].iov_len = WAL_HEADER;
    for (i = 0; i < niov && n < 17; i++) {
        v[n++] = iov[i];
        len += iov[i].iov_len;
    }
    pthread_mutex_lock(&wal.write_lock);
    if (lsn == wal.rotate_lsn && wal_rotate_locked() < 0)
        rc = -1;
    for (off = 0; rc == 0 && off < len;) {
        struct iovec rest[17];
        uint64_t skip = off;
        int m = 0;
        ssize_t w;
        for (i = 0; i < n; i++) {
            if (skip >= v[i].iov_len) {
                skip -= v[i].iov_len;
                continue;
            }
            rest[m].iov_base = (uint8_t *)v[i].iov_base + skip;
            rest[m++].iov_len = v[i].iov_len - skip;
            skip = 0;
        }
        w = persist_io_pwritev(wal.fd, rest, m, (off_t)(lsn + off - wal.file_lsn));
        if (w < 0 && errno != EINTR) {
            wal_set_failed("writing the log");
            rc = -1;
        } else if (w > 0) {
            off += (uint64_t)w;
        }
    }
    if (rc == 0) {
        __atomic_store_n(&wal.written, lsn + len, __ATOMIC_RELEASE);
        wal_clear_failed();
    }
    pthread_mutex_unlock(&wal.write_lock);
    return rc;
}

int wal_sync(void) {
    struct timespec t0, t1;
    uint64_t target;
    int fd, rc;

    if (wal_broken())
        return -1;      /* a later fsync that succeeds proves nothing about the pages lost */
    pthread_mutex_lock(&wal.sync_lock);
    pthread_mutex_lock(&wal.write_lock);
    target = wal.written;
    fd = dup(wal.fd);
    pthread_mutex_unlock(&wal.write_lock);
    if (fd < 0) {
        pthread_mutex_unlock(&wal.sync_lock);
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = persist_io_fdatasync(fd);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    if (rc < 0) {
        wal_set_broken("fdatasync of the log");
    } else {
        if (target > __atomic_load_n(&wal.synced, __ATOMIC_ACQUIRE))
            __atomic_store_n(&wal.synced, target, __ATOMIC_RELEASE);
        __atomic_store_n(&wal.last_sync_us, (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000LL +
                                                      (t1.tv_nsec - t0.tv_nsec) / 1000), __ATOMIC_RELAXED);
        __atomic_store_n(&wal.last_sync_time, (uint64_t)time(NULL), __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&wal.sync_lock);
    return rc;
}

/* ---- facts ---- */

uint64_t wal_reserved(void) { return __atomic_load_n(&wal.reserved, __ATOMIC_SEQ_CST); }
uint64_t wal_written(void) { return __atomic_load_n(&wal.written, __ATOMIC_ACQUIRE); }
uint64_t wal_synced(void) { return __atomic_load_n(&wal.synced, __ATOMIC_ACQUIRE); }
bool wal_failed(void) {
    return __atomic_load_n(&wal.failed, __ATOMIC_SEQ_CST) || __atomic_load_n(&wal.broken, __ATOMIC_SEQ_CST);
}
bool wal_broken(void) { return __atomic_load_n(&wal.broken, __ATOMIC_SEQ_CST); }
/* written is read first: reserved only grows and is never below written,
 * so the difference cannot wrap (read the other way round, a write landing
 * between the two loads made it huge, and a busy log refused changes). */
uint64_t wal_backlog(void) {
    uint64_t written = wal_written();

    return wal_reserved() - written;
}
uint64_t wal_last_sync_us(void) { return __atomic_load_n(&wal.last_sync_us, __ATOMIC_RELAXED); }
uint64_t wal_last_sync_time(void) { return __atomic_load_n(&wal.last_sync_time, __ATOMIC_RELAXED); }

int wal_rotate_at(uint64_t lsn) {
    int rc = 0;

    pthread_mutex_lock(&wal.write_lock);
    if (wal.written > lsn) {
        rc = -1;        /* records after lsn are in this file already */
    } else {
        wal.rotate_lsn = lsn;
        if (wal.written == lsn)
            wal_rotate_locked();    /* on failure, the next write tries again */
    }
    pthread_mutex_unlock(&wal.write_lock);
    return rc;
}

uint64_t wal_file_lsn(void) {
    uint64_t lsn;

    pthread_mutex_lock(&wal.write_lock);
    lsn = wal.file_lsn;
    pthread_mutex_unlock(&wal.write_lock);
    return lsn;
}
