/*
 * verb_queue_info: read-only views of queues (qinfo, the id= and delayed
 * forms of qpeek, qlist) as entries of the command table.
 */
#ifndef MCDS_VERB_QUEUE_INFO_H
#define MCDS_VERB_QUEUE_INFO_H

#include "proto/cmd.h"
#include "types/queue.h"

enum conn_parse_result qinfo_msg(conn *c, struct cmd_line *l);
/* qpeek, every form (the plain one is verb_queue.c's qverb_peek). */
enum conn_parse_result qinfo_peek(conn *c, struct cmd_line *l);
enum conn_parse_result qinfo_list(conn *c, struct cmd_line *l);
/* " <holder>" of in-flight message m, as qinfo names it (qpending holders). */
void qinfo_out_holder(conn *c, const struct qmsg *m);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def qinfo_cmds[];

#endif
