/*
 * verb_scan: the key-scan verbs (kscan, kscanclose), as entries of
 * cmd.c's table.
 */
#ifndef MCDS_VERB_SCAN_H
#define MCDS_VERB_SCAN_H

#include "proto/cmd.h"

enum conn_parse_result sverb_scan(conn *c, struct cmd_line *t);
enum conn_parse_result sverb_close(conn *c, struct cmd_line *t);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def sverb_cmds[];

#endif
