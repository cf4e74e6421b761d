/*
 * types/list_persist: a list's log records and snapshot entries.
 *
 * Every change to a list is logged by the list itself, under its lock, by
 * one of the llog_* calls below (no-ops without persistence). A record
 * names an operation on the list as it was then (a push at an end, a pop
 * of n at an end, a value set or inserted at a position, a removal by
 * value, a trim to positions), so replaying the records in order rebuilds
 * the list exactly (store/list_replay.c reads them back).
 */
#ifndef MCDS_LIST_PERSIST_H
#define MCDS_LIST_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"
#include "types/list.h"

struct list;
struct snap_writer;

/* The operations of records (L_) and snapshot entries (S_). */
enum lp_op {
    LR_CREATE = 1, LR_DROP, LR_TTL, LR_PUSH, LR_POP, LR_SET, LR_INSERT, LR_REM, LR_TRIM,
    LR_MOVE,
    S_LIST = 20, S_ELEMS
};


#define LP_FIXED 600                /* room for two keys and the fixed fields */

/* Writes list item it into a snapshot: 0, or -1 on a write error. */
int list_persist_dump(struct snap_writer *w, item *it);

void llog_create(struct list *l);
void llog_drop(struct list *l);
/* The list item under name got a new exptime (touch, gat). */
void llog_ttl(const char *name, size_t nname, rel_time_t exptime);
void llog_push(struct list *l, enum list_end e, const struct list_val *v);
void llog_pop(struct list *l, enum list_end e, int n);
void llog_set(struct list *l, uint64_t at, const struct list_val *v);
void llog_insert(struct list *l, uint64_t at, const struct list_val *v);
void llog_rem(struct list *l, int64_t count, const struct list_val *v);
void llog_trim(struct list *l, uint64_t start, uint64_t end);
/* v went from end se of s to end de of d (s may be d): one record, so a
 * replay finds it in exactly one of them. */
void llog_move(struct list *s, enum list_end se, struct list *d, enum list_end de,
               const struct list_val *v);

#endif
