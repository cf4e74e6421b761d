/*
 * store/store_ctree: tree-counter objects in the keyspace (see
 * store_ctree.c).
 */
#ifndef MCDS_STORE_CTREE_H
#define MCDS_STORE_CTREE_H

#include <stddef.h>

#include "store/store.h"
#include "types/ctree.h"

/* Starts tree counters with the store's functions they need; base: the
 * main thread's, where deleted subtrees are released (NULL: at the tick). */
void store_ctree_init(struct event_base *base);
/* Finds or makes the object under key (pinned; *st STORE_STORED when it
 * was made, STORE_EXISTS when it was there). A key still holding an
 * object removed with its parent's subtree (not yet cleared away) is
 * deleted and made again, by a client's ctobj as by replay. */
item *store_ctree_obj(const char *key, size_t nkey, struct ctree_new *nw, enum store_status *st);

#endif
