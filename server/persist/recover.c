/*
 * recover: what a restart does with the data directory.
 *
 *  1. takes the directory's lock (a second server on it refuses to start);
 *  2. loads the newest complete snapshot, if any;
 *  3. replays every log file from the snapshot's position on, in order,
 *     checking each record's length and checksum. A bad record with no
 *     valid record after it is a torn tail (the crash cut a write short):
 *     the file is cut there and the cut is logged. A bad record with valid
 *     records after it is corruption: start-up stops, naming the file and
 *     the offset, unless --recover-partial asks to start from what
 *     precedes it (the rest of that file and later files are removed);
 *  4. says where the log goes on.
 * Files older than the snapshot and leftover temporary files are removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../log.h"
#include "codec.h"
#include "persist.h"
#include "persist_int.h"
#include "records.h"
#include "snapshot.h"

#define RECOVER_MAX_FILES 4096

struct recover_dir {
    uint64_t snaps[RECOVER_MAX_FILES], logs[RECOVER_MAX_FILES];
    int nsnaps, nlogs;
};

static int recover_lock(const char *dir, int *lock_fd) {
    char path[PATH_MAX + 16], pid[24];
    int fd;

    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        log_msg(0, "persistence: cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/LOCK", dir);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_msg(0, "persistence: cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        log_msg(0, "persistence: %s is in use by another mcds-server (%s is locked)", dir, path);
        close(fd);
        return -1;
    }
    snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || write(fd, pid, strlen(pid)) < 0)
        log_msg(1, "persistence: cannot write the pid into %s", path);
    *lock_fd = fd;
    return 0;
}

static int recover_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Lists snap.<lsn> and log.<lsn>; removes leftover *.tmp files. */
static int recover_scan(const char *dir, struct recover_dir *d) {
    char path[PATH_MAX + 300];
    struct dirent *e;
    DIR *dh = opendir(dir);

    memset(d, 0, sizeof(*d));
    if (dh == NULL) {
        log_msg(0, "persistence: cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(dh)) != NULL) {
        unsigned long long v;
        char tail;
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        } else if (sscanf(e->d_name, "snap.%16llx%c", &v, &tail) == 1 && n == 21 &&
                   d->nsnaps < RECOVER_MAX_FILES) {
            d->snaps[d->nsnaps++] = v;
        } else if (sscanf(e->d_name, "log.%16llx%c", &v, &tail) == 1 && n == 20 &&
                   d->nlogs < RECOVER_MAX_FILES) {
            d->logs[d->nlogs++] = v;
        }
    }
    closedir(dh);
    qsort(d->snaps, (size_t)d->nsnaps, sizeof(uint64_t), recover_cmp);
    qsort(d->logs, (size_t)d->nlogs, sizeof(uint64_t), recover_cmp);
    return 0;
}

static void recover_unlink(const char *dir, const char *kind, uint64_t lsn) {
    char path[PATH_MAX + 40];

    snprintf(path, sizeof(path), "%s/%s.%016llx", dir, kind, (unsigned long long)lsn);
    unlink(path);
}

static int recover_snapshot(const char *dir, const struct recover_dir *d, bool partial,
                            struct persist_recovered *out) {
    char path[PATH_MAX + 40];
    struct snap_loaded s;
    struct stat st;

    if (d->nsnaps == 0)
        return 0;
    snprintf(path, sizeof(path), "%s/snap.%016llx", dir, (unsigned long long)d->snaps[d->nsnaps - 1]);
    if (snapshot_load(path, partial, &s) < 0) {
        log_msg(0, "persistence: start-up stopped: snapshot %s is damaged at offset %llu; "
                "--recover-partial starts from what precedes it", path, (unsigned long long)s.bad_off);
        return -1;
    }
    out->snapshot_lsn = d->snaps[d->nsnaps - 1];
    out->snapshot_entries = s.entries;
    out->cas_mark = s.cas_mark;
    out->id_mark = s.id_mark;
    if (stat(path, &st) == 0)
        out->snapshot_bytes = (uint64_t)st.st_size;
    return 0;
}

static void recover_meta(const struct rec *r, struct persist_recovered *out) {
    struct codec_in in;
    uint64_t v;

    codec_in_init(&in, r->payload, r->len);
    v = codec_get_u64(&in);
    if (r->op == META_CAS_MARK && v > out->cas_mark)
        out->cas_mark = v;
    else if (r->op == META_ID_MARK && v > out->id_mark)
        out->id_mark = v;
}

/* What to do with a bad record at off in log file lsn (path): 0 when the
 * replay may end there (torn tail, or --recover-partial), -1 to refuse. */
static int recover_bad_record(const char *path, uint64_t off, bool last, bool partial) {
    struct stat st;
    bool torn = last && !rec_any_after(path, off);

    if (!torn && !partial) {
        log_msg(0, "persistence: start-up stopped: %s is corrupt at offset %llu (valid records follow); "
                "--recover-partial starts from what precedes it, losing the rest", path,
                (unsigned long long)off);
        return -1;
    }
    if (stat(path, &st) < 0 || truncate(path, (off_t)off) < 0) {
        log_msg(0, "persistence: cannot cut %s at offset %llu: %s", path, (unsigned long long)off,
                strerror(errno));
        return -1;
    }
    log_msg(0, "persistence: %s: %s at offset %llu cut (%llu bytes)", path,
            torn ? "torn tail" : "corrupt record and what follows (--recover-partial)",
            (unsigned long long)off, (unsigned long long)((uint64_t)st.st_size - off));
    return 0;
}

/* Replays log file lsn; *end is where it ends (its valid length). 1 when
 * it was cut short (nothing after it may be replayed), 0, or -1. */
static int recover_log(const char *dir, uint64_t lsn, bool last, bool partial,
                       struct persist_recovered *out, uint64_t *end) {
    char path[PATH_MAX + 40];
    struct rec_file f;
    struct rec r;
    uint64_t off = 0;
    int rc;

    snprintf(path, sizeof(path), "%s/log.%016llx", dir, (unsigned long long)lsn);
    if (rec_file_open(&f, path) < 0) {
        log_msg(0, "persistence: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while ((rc = rec_next(&f, &r, &off)) == 1) {
        if (r.type == PERSIST_META) {
            recover_meta(&r, out);
        } else if (persist_apply_record(&r, lsn + off) < 0) {
            log_msg(0, "persistence: %s: the record at offset %llu cannot be applied", path,
                    (unsigned long long)off);
            rc = -1;
            break;
        }
        out->records++;
    }
    rec_file_close(&f);
    *end = lsn + off;
    if (rc == 0)
        return 0;
    if (rc == -2) {
        log_msg(0, "persistence: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    return recover_bad_record(path, off, last, partial) < 0 ? -1 : 1;
}

/* Replays the log files from the snapshot's position on. */
static int recover_logs(const char *dir, const struct recover_dir *d, bool partial,
                        struct persist_recovered *out) {
    uint64_t expect = out->snapshot_lsn, end = expect;
    int i, first = 0, rc = 0;

    while (first < d->nlogs && d->logs[first] < out->snapshot_lsn)
        recover_unlink(dir, "log", d->logs[first++]);   /* older than the snapshot */
    if (first == d->nlogs) {
        out->file_lsn = out->next_lsn = out->snapshot_lsn;
        return 0;
    }
    if (out->snapshot_lsn == 0 && d->nsnaps == 0)
        expect = d->logs[first];
    for (i = first; i < d->nlogs; i++) {
        if (rc == 1) {
            recover_unlink(dir, "log", d->logs[i]);     /* after a cut */
            continue;
        }
        if (d->logs[i] != expect && !partial) {
            log_msg(0, "persistence: start-up stopped: the log jumps from %llu to file log.%016llx "
                    "(a file is missing); --recover-partial starts from what precedes it",
                    (unsigned long long)expect, (unsigned long long)d->logs[i]);
            return -1;
        }
        if (d->logs[i] != expect) {
            rc = 1;
            i--;
            continue;
        }
        rc = recover_log(dir, d->logs[i], i == d->nlogs - 1, partial, out, &end);
        if (rc < 0)
            return -1;
        out->log_files++;
        out->file_lsn = d->logs[i];
        expect = end;
    }
    out->next_lsn = expect;
    return 0;
}

int recover_run(const char *dir, bool partial, int *lock_fd, struct persist_recovered *out) {
    struct recover_dir *d = malloc(sizeof(*d));
    struct timespec t0, t1;
    int i, rc = -1;

    memset(out, 0, sizeof(*out));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (d == NULL || recover_lock(dir, lock_fd) < 0 || recover_scan(dir, d) < 0)
        goto done;
    if (recover_snapshot(dir, d, partial, out) < 0 || recover_logs(dir, d, partial, out) < 0)
        goto done;
    for (i = 0; i + 1 < d->nsnaps; i++)
        recover_unlink(dir, "snap", d->snaps[i]);
    rc = 0;
done:
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->ms = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    free(d);
    return rc;
}
