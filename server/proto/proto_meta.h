/*
 * proto_meta: memcached's meta commands (mg ms md ma mn me), entries of
 * the command table that parse their own flags. A parser only: every
 * keyspace access goes via store.
 */
#ifndef MCDS_PROTO_META_H
#define MCDS_PROTO_META_H

#include "proto/cmd.h"

/* Runs one meta command line (the verb is its first two bytes). */
enum conn_parse_result meta_cmd(conn *c, struct cmd_line *l);
/* A closing connection's meta request state goes (net/conn.h). */
extern const struct conn_hooks meta_conn_hooks;

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def meta_cmds[];

#endif
