/*
 * item_persist: cache values in the log and snapshots (--persist-items).
 * store.c calls the ilog_* functions under the key's stripe lock, after
 * the change; each is a no-op unless cache values are persisted.
 */
#ifndef MCDS_ITEM_PERSIST_H
#define MCDS_ITEM_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"

void item_persist_init(void);

/* it (a cache value) is now what its key holds. */
void ilog_set(item *it);
/* key holds nothing any more (delete, eviction). */
void ilog_del(const char *key, size_t nkey);
void ilog_touch(const char *key, size_t nkey, rel_time_t exptime);
/* flush_all: values with a CAS below flush_cas are gone; or, delayed,
 * values last used before flush_time go when it comes. */
void ilog_flush(uint64_t flush_cas, rel_time_t flush_time);

#endif
