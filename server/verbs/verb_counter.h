/*
 * verb_counter: the tree-counter verbs (ct*), as entries of the command
 * table. See doc/protocol.md, "Tree counters".
 */
#ifndef MCDS_VERB_COUNTER_H
#define MCDS_VERB_COUNTER_H

#include "proto/cmd.h"

enum conn_parse_result ctverb_def(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_counter(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_counters(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_undef(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_obj(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_limits(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_info(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_children(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_incr(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_incr_many(conn *c, struct cmd_line *l);
enum conn_parse_result ctverb_get(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_values(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_active(conn *c, struct cmd_line *t);
enum conn_parse_result ctverb_periods(conn *c, struct cmd_line *t);

/* cmd table arg of ctverb_limits */
#define CTVERB_REDEFINE 0
#define CTVERB_RAISE 1

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def ctverb_cmds[];

#endif
