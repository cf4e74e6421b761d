/*
 * verb_queue: the queue verbs (qcreate qpush qpop qack qrelease qtouch
 * qpeek qpending qstats qpurge) as entries of the command table, and the
 * pieces of their replies that the Kestrel dialect and blocking reads
 * share.
 */
#ifndef MCDS_VERB_QUEUE_H
#define MCDS_VERB_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/cmd.h"
#include "types/queue.h"

enum conn_parse_result qverb_create(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_push(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_pop(conn *c, struct cmd_line *l);
/* qack, qrelease, qtouch: the table's arg says which. */
enum { QVERB_ACK, QVERB_RELEASE, QVERB_TOUCH };
enum conn_parse_result qverb_by_id(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_peek(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_pending(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_stats(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_purge(conn *c, struct cmd_line *l);
enum conn_parse_result qverb_pause(conn *c, struct cmd_line *l);

/* "ITEM <id> <flags> <bytes> <deliveries>\r\n<data>\r\n"; takes over the
 * delivery's payload reference. */
void qverb_out_delivery(conn *c, struct qdelivery *d);
#define QVERB_HEAD_MAX 96
/* The delivery's ITEM line into buf (QVERB_HEAD_MAX bytes); its length. */
size_t qverb_delivery_head(char *buf, const struct qdelivery *d);
/* A receipt "<id>" or "<id>:<delivery>" (delivery 1 to 2^32-1). */
bool qverb_parse_receipt(const char *s, struct qreceipt *r);
/* Whether r may act on a delivery: not a bare id under --receipts-only. */
bool qverb_receipt_allowed(const struct qreceipt *r);
/* The queue under the line's key (token 1), pinned (with create, made if
 * missing); NULL, and the reply made (missing: the reply for no queue),
 * when there is none. *st (may be NULL): STORE_NOT_FOUND when missing. */
item *qverb_queue(conn *c, struct cmd_line *t, bool create, enum reply_id missing,
                  enum store_status *st);
/* A delay in exptime terms (0 now, up to 30 days relative, above that a
 * Unix time) in milliseconds from now. */
uint64_t qverb_delay_ms(int32_t delay);
/* A push's ttl=<secs> into *ttl_ms (0 until given): false when it is not
 * 0.001 to 100000000 seconds, or was given already. */
bool qverb_parse_ttl(const char *v, uint64_t *ttl_ms);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def qverb_cmds[];

#endif
