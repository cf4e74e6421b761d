/*
 * verb_operator: memcached's tuning verbs that operators' scripts send
 * (lru_crawler, slabs, lru), answered as memcached 1.6.18 answers them
 * where they apply, and as it does with those parts switched off where
 * mcds has no such part (slab classes, a segmented LRU).
 */
#ifndef MCDS_VERB_OPERATOR_H
#define MCDS_VERB_OPERATOR_H

#include "proto/cmd.h"

/* What lru_crawler sleep|tocrawl and slabs automove set (stats settings). */
enum conn_parse_result oper_lru_crawler(conn *c, struct cmd_line *l);
enum conn_parse_result oper_slabs(conn *c, struct cmd_line *l);
enum conn_parse_result oper_lru(conn *c, struct cmd_line *l);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def oper_cmds[];

#endif
