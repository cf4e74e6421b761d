/*
 * snapshot: writing and loading snapshot files.
 *
 * Writing walks the hash table bucket by bucket (the caller keeps the
 * table from growing): under a bucket's stripe lock it only takes a
 * reference on each item; each structure is then written by its type's
 * dump_item. It runs where nothing else changes the keyspace: in a child
 * forked at one instant (snap_fork.c), or at start-up before any client.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/hash.h"
#include "persist/io.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/crc32c.h"
#include "persist/persist.h"
#include "persist/persist_int.h"
#include "persist/records.h"
#include "persist/snapshot.h"
#include "persist/wal.h"

#define SNAP_VERSION 1
#define SNAP_BUF (1024 * 1024)

struct snap_writer {
    FILE *f;
    uint64_t entries;
    uint64_t bytes;
    bool failed;
};

int snap_put(struct snap_writer *w, uint8_t type, uint8_t op, const struct iovec *iov, int niov) {
    uint8_t h[WAL_HEADER];
    uint32_t crc;
    size_t plen = 0;
    int i;

    if (w->failed)
        return -1;
    for (i = 0; i < niov; i++)
        plen += iov[i].iov_len;
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
    if (persist_io_fwrite(w->f, h, WAL_HEADER) < 0)
        w->failed = true;
    for (i = 0; i < niov && !w->failed; i++) {
        if (iov[i].iov_len > 0 && persist_io_fwrite(w->f, iov[i].iov_base, iov[i].iov_len) < 0)
            w->failed = true;
    }
    w->entries++;
    w->bytes += WAL_HEADER + plen;
    return w->failed ? -1 : 0;
}

static int snap_put_meta(struct snap_writer *w, uint8_t op, const void *p, size_t n) {
    struct iovec v = { (void *)p, n };

    return snap_put(w, PERSIST_META, op, &v, 1);
}

/* ---- the walk ---- */

struct snap_refs {
    item **v;
    size_t n, cap;
    bool oom;
};

static void snap_take_ref(item *it, void *arg) {
    struct snap_refs *r = arg;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        item **v = realloc(r->v, cap * sizeof(*v));
        if (v == NULL) {
            r->oom = true;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    item_incref(it);
    r->v[r->n++] = it;
}

/* Dumps every structure of the keyspace; -1 on a write error or when a
 * bucket's references could not be held (no memory). */
static int snap_walk(struct snap_writer *w) {
    struct snap_refs refs = { NULL, 0, 0, false };
    uint32_t b, n;
    size_t i;
    int rc = 0;

    n = hash_buckets();
    for (b = 0; b < n && rc == 0; b++) {
        refs.n = 0;
        hash_visit_bucket(b, snap_take_ref, &refs);
        if (refs.oom)
            rc = -1;
        for (i = 0; i < refs.n; i++) {
            if (rc == 0 && persist_dump_item(w, refs.v[i]) < 0)
                rc = -1;
            item_release(refs.v[i]);
        }
    }
    free(refs.v);
    return rc;
}

/* ---- the file ---- */

static int snap_header(struct snap_writer *w, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark) {
    uint8_t buf[64];
    struct codec_out o;

    codec_out_init(&o, buf, sizeof(buf));
    codec_put_u32(&o, SNAP_VERSION);
    codec_put_u64(&o, lsn);
    codec_put_u64(&o, (uint64_t)time(NULL));
    codec_put_u64(&o, cas_mark);
    codec_put_u64(&o, id_mark);
    return snap_put_meta(w, META_SNAP_HEADER, buf, o.n);
}

/* The end entry, then the file on disk. */
static int snap_finish(struct snap_writer *w) {
    uint8_t buf[8];
    struct codec_out o;
    int rc;

    codec_out_init(&o, buf, sizeof(buf));
    codec_put_u64(&o, w->entries);
    rc = snap_put_meta(w, META_SNAP_END, buf, o.n);
    if (fflush(w->f) != 0 || persist_io_fsync(fileno(w->f)) != 0)
        rc = -1;
    if (fclose(w->f) != 0)
        rc = -1;
    w->f = NULL;
    return rc;
}

static void snap_paths(const char *dir, uint64_t lsn, char *path, size_t npath, char *tmp, size_t ntmp) {
    snprintf(path, npath, "%s/snap.%016llx", dir, (unsigned long long)lsn);
    snprintf(tmp, ntmp, "%s.tmp", path);
}

int snapshot_write_tmp(const char *dir, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark,
                       struct snap_result *res) {
    char tmp[PATH_MAX + 48], path[PATH_MAX + 40];
    struct snap_writer w = { NULL, 0, 0, false };
    char *buf = malloc(SNAP_BUF);

    snap_paths(dir, lsn, path, sizeof(path), tmp, sizeof(tmp));
    w.f = persist_io_fopen(tmp);
    if (w.f == NULL || buf == NULL) {
        log_msg(0, "persistence: cannot write %s: %s", tmp, strerror(errno));
        if (w.f != NULL)
            fclose(w.f);
        free(buf);
        return -1;
    }
    setvbuf(w.f, buf, _IOFBF, SNAP_BUF);
    if (snap_header(&w, lsn, cas_mark, id_mark) < 0 || persist_dump_all(&w) < 0 || snap_walk(&w) < 0 ||
        snap_finish(&w) < 0) {
        log_msg(0, "persistence: snapshot %s failed: %s", tmp, strerror(errno));
        if (w.f != NULL)
            fclose(w.f);
        persist_io_unlink(tmp);
        free(buf);
        return -1;
    }
    free(buf);
    res->entries = w.entries;
    res->bytes = w.bytes;
    return 0;
}

int snapshot_commit(const char *dir, uint64_t lsn) {
    char tmp[PATH_MAX + 48], path[PATH_MAX + 40];

    snap_paths(dir, lsn, path, sizeof(path), tmp, sizeof(tmp));
    if (persist_io_rename(tmp, path) != 0) {
        log_msg(0, "persistence: cannot rename %s: %s", tmp, strerror(errno));
        persist_io_unlink(tmp);
        return -1;
    }
    return persist_io_sync_dir(dir, PIO_SNAP_FSYNC);
}

void snapshot_discard(const char *dir, uint64_t lsn) {
    char tmp[PATH_MAX + 48], path[PATH_MAX + 40];

    snap_paths(dir, lsn, path, sizeof(path), tmp, sizeof(tmp));
    persist_io_unlink(tmp);
}

/* ---- loading ---- */

static int snap_load_meta(const struct rec *r, struct snap_loaded *out) {
    struct codec_in in;

    codec_in_init(&in, r->payload, r->len);
    if (r->op == META_SNAP_HEADER) {
        if (codec_get_u32(&in) != SNAP_VERSION)
            return -1;
        out->lsn = codec_get_u64(&in);
        codec_get_u64(&in);     /* written at */
        out->cas_mark = codec_get_u64(&in);
        out->id_mark = codec_get_u64(&in);
    } else if (r->op == META_SNAP_END) {
        out->complete = codec_get_u64(&in) == out->entries;
    }
    return in.bad ? -1 : 0;
}

int snapshot_load(const char *path, bool partial, struct snap_loaded *out) {
    struct rec_file f;
    struct rec r;
    uint64_t off;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (rec_file_open(&f, path) < 0) {
        log_msg(0, "persistence: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while (!out->complete && (rc = rec_next(&f, &r, &off)) == 1) {
        int ok = r.type == PERSIST_META ? snap_load_meta(&r, out) : persist_load_entry(&r);
        if (ok < 0) {
            rc = -1;
            break;
        }
        if (r.type != PERSIST_META || r.op != META_SNAP_END)
            out->entries++;
    }
    rec_file_close(&f);
    if (out->complete)
        return 0;
    out->bad_off = off;
    if (rc == 0 && !out->complete)
        log_msg(0, "persistence: snapshot %s has no end entry (offset %llu)", path,
                (unsigned long long)off);
    else
        log_msg(0, "persistence: snapshot %s: bad entry at offset %llu%s", path, (unsigned long long)off,
                partial ? "; --recover-partial: keeping what precedes it" : "");
    return partial ? 0 : -1;
}
