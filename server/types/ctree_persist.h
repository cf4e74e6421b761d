/*
 * types/ctree_persist: tree counters in the write-ahead log and in
 * snapshots: one record per accepted increment and per definition change
 * (counter created or deleted, object created, limits changed, object
 * removed), their replay, and the snapshot dump of every counter and
 * object.
 */
#ifndef MCDS_CTREE_PERSIST_H
#define MCDS_CTREE_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctree.h"

void ctlog_def(const struct ctree_def *d);
void ctlog_undef(uint32_t id);
void ctlog_obj(const char *key, size_t nkey, const char *parent, size_t nparent, int64_t quantize,
               const struct ctree_limit *l, size_t n);
void ctlog_limits(const char *key, size_t nkey, bool raise, int64_t quantize, const struct ctree_limit *l,
                  size_t n);
void ctlog_incr(const char *key, size_t nkey, const struct ctree_incr *in);

#endif
