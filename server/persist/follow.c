/*
 * persist/follow: a replica applying its primary's log records while it
 * serves (doc/replication.md). Each record is checked (framing,
 * checksum), applied through its type's apply, as a restart replays it
 * (replay.c: one that does not apply quarantines its key), and appended
 * as is to this server's log, which thereby stays the primary's log byte
 * for byte, at the same positions. The caller holds every thread that
 * changes the keyspace (base/quiesce.h) for the batch.
 */
#include <stdio.h>

#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/persist_int.h"
#include "persist/records.h"
#include "persist/replay.h"
#include "persist/snapshot.h"
#include "persist/wal.h"

static struct {
    struct replay *replay;      /* quarantined keys, for the server's life */
    uint64_t cas_seen, id_seen;
} follow;

static void follow_meta(const struct rec *r) {
    struct codec_in in;
    uint64_t v;

    codec_in_init(&in, r->payload, r->len);
    v = codec_get_u64(&in);
    if (r->op == META_CAS_MARK && v > follow.cas_seen)
        follow.cas_seen = v;
    else if (r->op == META_ID_MARK && v > follow.id_seen)
        follow.id_seen = v;
}

/* Applies r at lsn and appends it there: 0, or -1. */
static int follow_one(const struct rec *r, uint64_t lsn) {
    struct iovec v = { (void *)r->payload, r->len };
    char where[48];

    if (r->type == PERSIST_META) {
        follow_meta(r);
    } else {
        snprintf(where, sizeof(where), "replication at %llu", (unsigned long long)lsn);
        if (replay_record(follow.replay, r, lsn, where, lsn) < 0)
            return -1;
    }
    if (wal_append(r->type, r->op, &v, 1) != lsn + WAL_HEADER + r->len) {
        log_msg(0, "replication: the record at %llu did not go to the same position of this log",
                (unsigned long long)lsn);
        return -1;
    }
    return 0;
}

int persist_follow_apply(const uint8_t *p, size_t n, uint64_t *records) {
    size_t off = 0, size = 0;
    struct rec r;
    int rc = 0;

    *records = 0;
    if (!persist_on())
        return -1;
    if (follow.replay == NULL && (follow.replay = replay_new(false)) == NULL)
        return -1;
    persist_set_replaying(true);
    while (rc == 0 && off < n) {
        if (rec_parse(p + off, n - off, &r, &size) != 1) {
            log_msg(0, "replication: the bytes at %llu are not a whole log record",
                    (unsigned long long)wal_reserved());
            rc = -1;
        } else if ((rc = follow_one(&r, wal_reserved())) == 0) {
            off += size;
            (*records)++;
        }
    }
    persist_set_replaying(false);
    return rc;
}

void persist_follow_marks(uint64_t *cas, uint64_t *ids) {
    *cas = follow.cas_seen;
    *ids = follow.id_seen;
}

void persist_follow_skipped(uint64_t *skipped, uint64_t *quarantined) {
    *skipped = follow.replay != NULL ? replay_skipped(follow.replay) : 0;
    *quarantined = follow.replay != NULL ? replay_quarantined(follow.replay) : 0;
}

void persist_follow_free(void) {
    replay_free(follow.replay);
    follow.replay = NULL;
}
