/*
 * proto_meta: memcached's meta commands (mg ms md ma mn me). They share
 * the text protocol's connection and line format, so proto_text hands
 * their lines here. A parser only: every keyspace access goes via store.
 */
#ifndef MCDS_PROTO_META_H
#define MCDS_PROTO_META_H

#include <stdbool.h>
#include <stddef.h>

#include "conn.h"

/* True if line (len bytes) starts with a meta verb: "mg", "ms" … */
bool meta_is_command(const char *line, size_t len);
/* Runs one meta command line (NUL-terminated at len). */
enum conn_parse_result meta_dispatch(conn *c, char *line, size_t len);
/* The data block of an ms has been read into c->nread.it. */
void meta_nread_done(conn *c);
/* Frees the per-connection meta state, if any. */
void meta_conn_free(conn *c);

#endif
