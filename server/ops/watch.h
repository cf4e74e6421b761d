/*
 * watch: memcached's log streaming (`watch [fetchers] [mutations]
 * [evictions]`): a watching connection gets one line per event, in
 * memcached's format, until it hangs up.
 *
 * At most WATCH_MAX watchers. Each has a buffer of -o watcher_logbuf_size
 * bytes: events that do not fit (the client reads too slowly) are counted
 * and reported as one "skipped=N" line when there is room again. With no
 * watcher, logging an event costs one atomic load.
 */
#ifndef MCDS_WATCH_H
#define MCDS_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/parse.h"
#include "net/conn.h"
#include "cache/item.h"
#include "store/store.h"

#define WATCH_MAX 8

enum conn_parse_result watch_cmd(conn *c, struct cmd_line *l);
/* A closing connection's watcher goes (net/conn.h). */
extern const struct conn_hooks watch_conn_hooks;
/* Watchers registered now. */
int watch_count(void);
/* At start-up: `stats` shows log_watchers, evictions are heard. */
void watch_init(void);

/* Events (cheap when nobody watches). it is NULL for a miss. */
void watch_fetch(const conn *c, const char *key, size_t nkey, const item *it);
/* A store op of it ended as st (named in memcached's words). */
void watch_store(const conn *c, const item *it, enum store_op op, enum store_status st);
void watch_evict(const item *it);

#endif
