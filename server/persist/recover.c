/*
 * recover: what a restart does with the data directory.
 *
 *  1. takes the directory's lock (a second server on it refuses to start);
 *  2. loads the newest complete snapshot, at log position P, if any;
 *  3. replays the log from P on: the file holding P is read from P (what
 *     comes before is in the snapshot), and every later file after it, in
 *     order, checking each record's length and checksum, and that each
 *     file starts where the one before it ends (a missing range before P
 *     is in the snapshot and does not matter). A bad record with no valid
 *     record after it in the last file is a torn tail (the crash cut a
 *     write short): the file is cut there and the cut is logged. A bad
 *     record with valid records after it is corruption: start-up stops,
 *     naming the file and the offset, unless --recover-partial asks to
 *     step over the damage and go on with the records after it. A record
 *     that is whole but does not apply is handled by replay.c;
 *  4. says where the log goes on.
 * Files whose records all come before P, older snapshots and leftover
 * temporary files are removed. In check mode (--check-data-dir) nothing
 * is locked, cut or removed, and each file's figures go to a callback.
 */
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

#include "base/log.h"
#include "persist/codec.h"
#include "persist/files.h"
#include "persist/persist.h"
#include "persist/persist_int.h"
#include "persist/records.h"
#include "persist/replay.h"
#include "persist/snapshot.h"

struct recover_ctx {
    const char *dir;
    const struct recover_opts *o;
    struct replay *replay;
    struct persist_recovered *out;
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

static int recover_snapshot(struct recover_ctx *x, const struct persist_files *f) {
    char path[PATH_MAX + 40];
    struct snap_loaded s;
    struct stat st;

    if (f->nsnaps == 0)
        return 0;
    files_path(path, sizeof(path), x->dir, "snap", f->snaps[f->nsnaps - 1]);
    if (snapshot_load(path, x->o->partial, &s) < 0) {
        log_msg(0, "persistence: start-up stopped: snapshot %s is damaged at offset %llu; "
                "--recover-partial starts from what precedes it", path, (unsigned long long)s.bad_off);
        return -1;
    }
    x->out->snapshot_lsn = f->snaps[f->nsnaps - 1];
    x->out->snapshot_entries = s.entries;
    if (stat(path, &st) == 0 && !s.complete)
        x->out->damaged += (uint64_t)st.st_size - s.bad_off;     /* --recover-partial kept what precedes */
    x->out->cas_mark = s.cas_mark;
    x->out->id_mark = s.id_mark;
    if (stat(path, &st) == 0)
        x->out->snapshot_bytes = (uint64_t)st.st_size;
    if (x->o->on_file != NULL) {
        struct recover_file_report r = { .kind = "snap", .lsn = x->out->snapshot_lsn,
                                         .bytes = x->out->snapshot_bytes, .records = s.entries,
                                         .bad = s.complete ? NULL : "no end entry", .bad_off = s.bad_off };
        x->o->on_file(&r, x->o->arg);
    }
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

/* One log file being read. */
struct recover_file {
    char path[PATH_MAX + 40];
    uint64_t lsn;               /* its first position */
    bool last;
    struct rec_file rf;
    struct recover_file_report rep;
};

/* A bad record at *off: 0 when the replay of this file ends at *off (a
 * torn tail, cut; or damage to the end of the file stepped over), 1 when
 * it goes on at rf's new position (--recover-partial stepped over the
 * damage), -1 to refuse. */
static int recover_bad_record(struct recover_ctx *x, struct recover_file *lf, uint64_t *off) {
    uint64_t next = 0, at = *off;
    bool more = rec_next_valid(lf->path, at, &next);

    if (lf->rep.bad == NULL) {
        lf->rep.bad = more ? "corrupt record, valid records follow" : lf->last ? "torn tail" : "corrupt end";
        lf->rep.bad_off = at;
    }
    if (!more && lf->last) {
        lf->rep.torn = true;
        if (!x->o->check && truncate(lf->path, (off_t)at) < 0) {
            log_msg(0, "persistence: cannot cut %s at offset %llu: %s", lf->path, (unsigned long long)at,
                    strerror(errno));
            return -1;
        }
        x->out->torn += lf->rf.size - at;
        log_msg(0, "persistence: %s: torn tail at offset %llu %s (%llu bytes)", lf->path,
                (unsigned long long)at, x->o->check ? "(a start-up cuts it)" : "cut",
                (unsigned long long)(lf->rf.size - at));
        return 0;
    }
    if (!x->o->partial) {
        log_msg(0, "persistence: start-up stopped: %s is corrupt at offset %llu (%s); --recover-partial "
                   "steps over the damage and keeps what follows", lf->path, (unsigned long long)at,
                more ? "valid records follow" : "later files follow");
        return -1;
    }
    if (!more)
        next = lf->rf.size;
    log_msg(0, "persistence: %s: %llu damaged bytes at offset %llu stepped over%s; a change they held is lost",
            lf->path, (unsigned long long)(next - at), (unsigned long long)at,
            x->o->check ? "" : " (--recover-partial)");
    x->out->damaged += next - at;
    if (!more) {
        *off = next;
        return 0;
    }
    return rec_file_seek(&lf->rf, next) < 0 ? -1 : 1;
}

/* Replays lf from offset skip (the snapshot holds what precedes it);
 * *end is where its records end. 0, or -1 to refuse. */
static int recover_log(struct recover_ctx *x, struct recover_file *lf, uint64_t skip, uint64_t *end) {
    struct rec r;
    uint64_t off = skip;
    int rc = 0;

    if (rec_file_open(&lf->rf, lf->path) < 0) {
        log_msg(0, "persistence: cannot read %s: %s", lf->path, strerror(errno));
        return -1;
    }
    lf->rep.bytes = lf->rf.size;
    if (skip >= lf->rf.size) {
        *end = lf->lsn + lf->rf.size;     /* all of it is in the snapshot */
        rec_file_close(&lf->rf);
        return 0;
    }
    if (skip > 0 && rec_file_seek(&lf->rf, skip) < 0)
        rc = -2;
    while (rc == 0 && (rc = rec_next(&lf->rf, &r, &off)) != 0) {
        if (rc == 1) {
            lf->rep.records++;
            if (r.type == PERSIST_META)
                recover_meta(&r, x->out);
            else
                lf->rep.by_type[r.type < PERSIST_NTYPES ? r.type : 0]++;
            if (r.type != PERSIST_META && replay_record(x->replay, &r, lf->lsn + off, lf->path, off) < 0)
                break;
            x->out->records++;
            rc = 0;
        } else if (rc == -1) {
            rc = recover_bad_record(x, lf, &off);
            if (rc == 0)
                break;          /* the file ends at off */
            rc = rc == 1 ? 0 : -1;
        }
    }
    if (rc == -2)
        log_msg(0, "persistence: cannot read %s: %s", lf->path, strerror(errno));
    rec_file_close(&lf->rf);
    *end = lf->lsn + off;
    return rc == 0 ? 0 : -1;
}

/* Whether the file at lsn may follow a log that ended at expect: it
 * starts there, or further on but not past the snapshot's position (the
 * range between is in the snapshot). */
static bool recover_follows(uint64_t lsn, uint64_t expect, uint64_t snap) {
    return lsn == expect || (lsn > expect && lsn <= snap);
}

/* Replays the log files from the snapshot's position on. */
static int recover_logs(struct recover_ctx *x, const struct persist_files *f, bool have_snap) {
    uint64_t snap = x->out->snapshot_lsn, expect, end = 0;
    int i, first = 0;

    while (first + 1 < f->nlogs && f->logs[first + 1] <= snap) {
        if (!x->o->check)
            files_remove(x->dir, "log", f->logs[first]);    /* all of it is in the snapshot */
        first++;
    }
    expect = have_snap ? snap : first < f->nlogs ? f->logs[first] : 0;
    if (first < f->nlogs && have_snap && f->logs[first] < snap)
        expect = f->logs[first];
    for (i = first; i < f->nlogs; i++) {
        struct recover_file *lf = calloc(1, sizeof(*lf));
        int rc;
        if (lf == NULL)
            return -1;
        lf->lsn = f->logs[i];
        lf->last = i == f->nlogs - 1;
        files_path(lf->path, sizeof(lf->path), x->dir, "log", lf->lsn);
        lf->rep.kind = "log";
        lf->rep.lsn = lf->lsn;
        if (!recover_follows(lf->lsn, expect, snap)) {
            log_msg(0, "persistence: %sthe log jumps from %llu to file log.%016llx (%s)",
                    x->o->check ? "" : x->o->partial ? "--recover-partial: " : "start-up stopped: ",
                    (unsigned long long)expect,
                    (unsigned long long)lf->lsn, lf->lsn > expect ? "a file is missing" : "files overlap");
            if (!x->o->partial || lf->lsn < expect) {
                free(lf);
                return -1;
            }
            x->out->damaged += lf->lsn - expect;
        }
        rc = recover_log(x, lf, snap > lf->lsn ? snap - lf->lsn : 0, &end);
        if (x->o->on_file != NULL)
            x->o->on_file(&lf->rep, x->o->arg);
        free(lf);
        if (rc < 0)
            return -1;
        x->out->log_files++;
        x->out->file_lsn = f->logs[i];
        expect = end;
    }
    if (expect < snap || f->nlogs == first) {
        expect = snap;                  /* the log goes on in a new file at the snapshot */
        x->out->file_lsn = snap;
    }
    x->out->next_lsn = expect;
    return 0;
}

int recover_run(const char *dir, const struct recover_opts *o, int *lock_fd, struct persist_recovered *out) {
    struct recover_ctx x = { dir, o, NULL, out };
    struct persist_files *f = malloc(sizeof(*f));
    struct timespec t0, t1;
    int i, rc = -1;

    memset(out, 0, sizeof(*out));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    x.replay = replay_new(o->strict);
    if (f == NULL || x.replay == NULL || (!o->check && recover_lock(dir, lock_fd) < 0))
        goto done;
    if (files_list(dir, f, !o->check) < 0) {
        log_msg(0, "persistence: cannot read %s: %s", dir, strerror(errno));
        goto done;
    }
    if (recover_snapshot(&x, f) < 0 || recover_logs(&x, f, f->nsnaps > 0) < 0)
        goto done;
    for (i = 0; !o->check && i + 1 < f->nsnaps; i++)
        files_remove(dir, "snap", f->snaps[i]);
    rc = 0;
done:
    if (x.replay != NULL) {
        out->skipped = replay_skipped(x.replay);
        out->quarantined = replay_quarantined(x.replay);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->ms = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    replay_free(x.replay);
    free(f);
    return rc;
}
