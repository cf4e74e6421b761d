/*
 * verb_queue_move: the verbs that move several queued messages in one
 * request (qpushn, qredrive, qkick), as entries of the command table.
 */
#ifndef MCDS_VERB_QUEUE_MOVE_H
#define MCDS_VERB_QUEUE_MOVE_H

#include "cmd.h"

enum conn_parse_result qmverb_pushn(conn *c, struct cmd_line *l);
enum conn_parse_result qmverb_redrive(conn *c, struct cmd_line *l);
enum conn_parse_result qmverb_kick(conn *c, struct cmd_line *l);

#endif
