/*
 * verb_list_move: lmove and lmpop, as entries of cmd.c's table.
 */
#ifndef MCDS_VERB_LIST_MOVE_H
#define MCDS_VERB_LIST_MOVE_H

#include "proto/cmd.h"

enum conn_parse_result lmverb_lmove(conn *c, struct cmd_line *t);
enum conn_parse_result lmverb_lmpop(conn *c, struct cmd_line *l);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def lmverb_cmds[];

#endif
