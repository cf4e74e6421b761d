/*
 * types/ctree_persist: tree counters in the write-ahead log and in
 * snapshots.
 *
 * Every accepted increment and every definition change is one record,
 * logged by types/ctree.c under the ctree lock (so records keep the order
 * in which changes were made): counter created or deleted, object
 * created, limits redefined or raised, an object removed with its subtree,
 * an object's TTL (store/ctree_replay.c runs the same operations again).
 * A snapshot holds the whole tree-counter world copied at one instant
 * under the ctree lock, with the log position of that instant.
 */
#ifndef MCDS_CTREE_PERSIST_H
#define MCDS_CTREE_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "types/ctree.h"

struct snap_writer;

/* The operations of records (C_) and snapshot entries (S_). */
enum cp_op {
    C_DEF = 1, C_UNDEF, C_OBJ, C_LIMITS, C_INCR, C_DROP, C_TTL, C_INCRN,
    S_HEAD = 20, S_DEF, S_OBJ
};


/* The whole tree-counter world into a snapshot (before the keyspace is
 * walked), and an object's item (nothing: dump_all holds it): 0, or -1 on
 * a write error. */
int ctree_persist_dump_all(struct snap_writer *w);
int ctree_persist_dump_item(struct snap_writer *w, item *it);

/* No-ops without persistence and while the log is replayed. */
void ctlog_def(const struct ctree_def *d);
void ctlog_undef(uint32_t id);
void ctlog_obj(const char *key, size_t nkey, const char *parent, size_t nparent, int64_t quantize,
               const struct ctree_limit *l, size_t n);
void ctlog_limits(const char *key, size_t nkey, bool raise, int64_t quantize, const struct ctree_limit *l,
                  size_t n);
/* now: the Unix time it was applied at (the objects' last change). */
void ctlog_incr(const char *key, size_t nkey, const struct ctree_incr *in, int64_t now);
/* The increments of one ctree_incr_many, as one record. */
void ctlog_incr_many(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n, int64_t now);
void ctlog_drop(const char *key, size_t nkey);
void ctlog_ttl(const char *key, size_t nkey, rel_time_t exptime);

#endif
