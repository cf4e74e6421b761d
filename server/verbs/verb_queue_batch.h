/*
 * verb_queue_batch: qack, qrelease and qtouch over several receipts in one
 * request (one reply line per receipt); the single-receipt form is passed
 * on to verb_queue.c.
 */
#ifndef MCDS_VERB_QUEUE_BATCH_H
#define MCDS_VERB_QUEUE_BATCH_H

#include "proto/cmd.h"

#define QBATCH_MAX 100              /* most receipts in one request */

/* qack, qrelease, qtouch (arg: QVERB_ACK, _RELEASE or _TOUCH); CMD_RAW. */
enum conn_parse_result qbatch_run(conn *c, struct cmd_line *l);

#endif
