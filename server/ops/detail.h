/*
 * detail: memcached's per-prefix counters (`stats detail on|off|dump`):
 * for each key prefix (the part before the first ':'), how many gets,
 * hits, sets and deletes the classic commands made. Off by default; the
 * number of prefixes is bounded, and `stats reset` clears them.
 */
#ifndef MCDS_DETAIL_H
#define MCDS_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

#include "net/conn.h"

#define DETAIL_MAX_PREFIXES 1024    /* prefixes beyond this are not counted */

bool detail_enabled(void);
void detail_set_enabled(bool on);
/* Counting hooks; they do nothing while detail is off. */
void detail_get(const char *key, size_t nkey, bool hit);
void detail_set(const char *key, size_t nkey);
void detail_delete(const char *key, size_t nkey);
/* Queues "PREFIX <p> get <n> hit <n> set <n> del <n>" lines and END. */
void detail_dump(conn *c);
/* Forgets every prefix (stats reset, shutdown). */
void detail_reset(void);

#endif
