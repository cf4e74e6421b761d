/*
 * verb_queue_move: the verbs that move several queued messages in one
 * request (qpushn, qpopany, qredrive, qkick), as entries of the command table.
 */
#ifndef MCDS_VERB_QUEUE_MOVE_H
#define MCDS_VERB_QUEUE_MOVE_H

#include "proto/cmd.h"
#include "types/queue.h"

enum conn_parse_result qmverb_pushn(conn *c, struct cmd_line *l);
enum conn_parse_result qmverb_popany(conn *c, struct cmd_line *l);
enum conn_parse_result qmverb_redrive(conn *c, struct cmd_line *l);
enum conn_parse_result qmverb_kick(conn *c, struct cmd_line *l);

/* "ITEM <id> <flags> <bytes> <deliveries> <queue>\r\n<data>\r\n" (a pop
 * over several queues); takes the delivery's payload reference. */
void qmverb_out_delivery(conn *c, struct qdelivery *d, const char *queue, size_t nqueue);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def qmverb_cmds[];

#endif
