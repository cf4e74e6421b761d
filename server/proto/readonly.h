/*
 * proto/readonly: what a replica refuses (doc/replication.md,
 * "Read-only"): the text verbs and binary opcodes that change the
 * keyspace, each refused with "SERVER_ERROR read-only replica of
 * HOST:PORT"; a refused command's data blocks are read and dropped.
 */
#ifndef MCDS_READONLY_H
#define MCDS_READONLY_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/cmd.h"

/* On a replica, a write verb (named by d) is refused here: true, with
 * *res the parse result (its blocks skipped, or the connection closed
 * when their lengths cannot be read). l: its line, not yet tokenized. */
bool readonly_refuse(conn *c, const struct cmd_def *d, struct cmd_line *l, enum conn_parse_result *res);
/* A replica started with --replica-serve-stale no whose link is not up:
 * its reads are refused (readonly_refuse), so none takes a quick path. */
bool readonly_stale_replica(void);
/* The registered verbs in neither list (each logged as a bug): 0. */
int readonly_check(void);
/* Whether binary opcode cmd (quiet ones folded) reads the keyspace on a
 * replica that serves no stale reads and whose link is not up. */
bool readonly_bin_stale_read(uint8_t cmd);
/* Whether binary opcode cmd (quiet ones folded) changes the keyspace. */
bool readonly_bin_write(uint8_t cmd);

#endif
