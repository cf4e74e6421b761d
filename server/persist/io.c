/*
 * persist/io: the system calls of io.h, each first asking whether a fault
 * is armed for its kind (one relaxed load when none is).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "persist/io.h"

struct pio_fault {
    bool armed;             /* atomic: read without the lock */
    int err;
    uint32_t skip, count;   /* count 0: until cleared */
};

static struct pio_fault pio_faults[PIO_NOPS];
static pthread_mutex_t pio_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pio_injected;   /* atomic */

static const char *const pio_op_names[PIO_NOPS] = {
    "open", "write", "fsync", "snapopen", "snapwrite", "snapfsync", "rename", "unlink",
};

static const struct {
    const char *name;
    int err;
} pio_errs[] = {
    { "ENOSPC", ENOSPC }, { "EIO", EIO }, { "EFBIG", EFBIG }, { "EDQUOT", EDQUOT }, { "short", PIO_SHORT },
};

/* 0: go ahead; else the error to inject (errno value, or PIO_SHORT). */
static int pio_fault_now(enum persist_io_op op) {
    struct pio_fault *f = &pio_faults[op];
    int err = 0;

    if (!__atomic_load_n(&f->armed, __ATOMIC_RELAXED))
        return 0;
    pthread_mutex_lock(&pio_lock);
    if (f->armed) {
        if (f->skip > 0) {
            f->skip--;
        } else {
            err = f->err;
            if (f->count > 0 && --f->count == 0)
                __atomic_store_n(&f->armed, false, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&pio_lock);
    if (err != 0)
        __atomic_add_fetch(&pio_injected, 1, __ATOMIC_RELAXED);
    return err;
}

/* Fails the call with err (a short write is no failure here). */
static int pio_fail(int err) {
    errno = err;
    return -1;
}

int persist_io_open(const char *path, int flags, mode_t mode) {
    int err = pio_fault_now(PIO_OPEN);

    if (err > 0)
        return pio_fail(err);
    return open(path, flags, mode);
}

FILE *persist_io_fopen(const char *path) {
    int err = pio_fault_now(PIO_SNAP_OPEN);

    if (err > 0) {
        errno = err;
        return NULL;
    }
    return fopen(path, "w");
}

/* A write of only the first half of the first iovec (at least 1 byte). */
static ssize_t pio_short_pwritev(int fd, const struct iovec *iov, int niov, off_t off) {
    size_t n = iov[0].iov_len / 2;

    if (niov == 0 || iov[0].iov_len == 0)
        return pwritev(fd, iov, niov, off);
    return pwrite(fd, iov[0].iov_base, n > 0 ? n : 1, off);
}

ssize_t persist_io_pwritev(int fd, const struct iovec *iov, int niov, off_t off) {
    int err = pio_fault_now(PIO_WRITE);

    if (err == PIO_SHORT)
        return pio_short_pwritev(fd, iov, niov, off);
    if (err > 0)
        return pio_fail(err);
    return pwritev(fd, iov, niov, off);
}

int persist_io_fwrite(FILE *f, const void *p, size_t n) {
    int err = pio_fault_now(PIO_SNAP_WRITE);

    if (err == PIO_SHORT && n > 1) {
        fwrite(p, 1, n / 2, f);
        err = EIO;      /* stdio has no short write to retry: the file is bad */
    }
    if (err > 0)
        return pio_fail(err);
    return fwrite(p, 1, n, f) == n ? 0 : -1;
}

int persist_io_fdatasync(int fd) {
    int err = pio_fault_now(PIO_FSYNC);

    if (err > 0)
        return pio_fail(err);
    return fdatasync(fd);
}

int persist_io_fsync(int fd) {
    int err = pio_fault_now(PIO_SNAP_FSYNC);

    if (err > 0)
        return pio_fail(err);
    return fsync(fd);
}

int persist_io_rename(const char *from, const char *to) {
    int err = pio_fault_now(PIO_RENAME);

    if (err > 0)
        return pio_fail(err);
    return rename(from, to);
}

int persist_io_unlink(const char *path) {
    int err = pio_fault_now(PIO_UNLINK);

    if (err > 0)
        return pio_fail(err);
    return unlink(path);
}

int persist_io_sync_dir(const char *dir, enum persist_io_op kind) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = pio_fault_now(kind), rc;

    if (dfd < 0)
        return -1;
    rc = err > 0 ? pio_fail(err) : fsync(dfd);
    close(dfd);
    return rc;
}

void persist_io_fault(enum persist_io_op op, int err, uint32_t skip, uint32_t count) {
    pthread_mutex_lock(&pio_lock);
    pio_faults[op].err = err;
    pio_faults[op].skip = skip;
    pio_faults[op].count = count;
    __atomic_store_n(&pio_faults[op].armed, true, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pio_lock);
}

void persist_io_fault_clear(void) {
    int i;

    pthread_mutex_lock(&pio_lock);
    for (i = 0; i < PIO_NOPS; i++)
        __atomic_store_n(&pio_faults[i].armed, false, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pio_lock);
}

int persist_io_op_named(const char *name) {
    int i;

    for (i = 0; i < PIO_NOPS; i++)
        if (strcmp(name, pio_op_names[i]) == 0)
            return i;
    return -1;
}

int persist_io_err_named(const char *name) {
    size_t i;

    for (i = 0; i < sizeof(pio_errs) / sizeof(pio_errs[0]); i++)
        if (strcmp(name, pio_errs[i].name) == 0)
            return pio_errs[i].err;
    return 0;
}

uint64_t persist_io_faults_injected(void) {
    return __atomic_load_n(&pio_injected, __ATOMIC_RELAXED);
}
