/*
 * dump: memcached's key dumps, `stats cachedump <class> <limit>` and
 * `lru_crawler metadump all|<classes>|hash`, streamed as the client reads.
 *
 * Only cache values are listed: a queue is a structure, and a dump tool
 * reads each key back with get, which would pop its messages.
 */
#ifndef MCDS_DUMP_H
#define MCDS_DUMP_H

#include "base/parse.h"
#include "net/conn.h"

/* stats cachedump <class> <limit> (t->v[1] is "cachedump"). */
enum conn_parse_result dump_cachedump(conn *c, struct cmd_line *t);
/* lru_crawler metadump <all|hash|class[,class...]> (t->v[1] is "metadump"). */
enum conn_parse_result dump_metadump(conn *c, struct cmd_line *t);
/* Writes key percent-encoded as memcached's metadump and watch do (RFC
 * 3986 unreserved characters as they are); p needs 3 * n bytes. Returns
 * the bytes written. */
size_t dump_uri_key(char *p, const char *key, size_t n);
/* A closing connection's dump in progress is dropped (net/conn.h). */
extern const struct conn_hooks dump_conn_hooks;

#endif
