/*
 * verb_classic: memcached's keyed text verbs (set add replace append
 * prepend cas incr decr delete touch), as entries of the command table.
 */
#ifndef MCDS_VERB_CLASSIC_H
#define MCDS_VERB_CLASSIC_H

#include "proto/ahead.h"
#include "proto/cmd.h"

/* set add replace append prepend cas (arg: the store_op) */
enum conn_parse_result classic_store(conn *c, struct cmd_line *l);
/* A plain set line that ahead.c noted and read (its key's hash and its
 * numbers), answered as classic_store would answer it. */
void classic_set_quick(conn *c, const struct ahead_set *s);
/* incr (arg 1), decr (arg 0) */
enum conn_parse_result classic_arith(conn *c, struct cmd_line *l);
enum conn_parse_result classic_delete(conn *c, struct cmd_line *l);
enum conn_parse_result classic_touch(conn *c, struct cmd_line *l);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def classic_cmds[];

#endif
