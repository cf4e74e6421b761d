/*
 * kestrel: queues through plain get and set (Kestrel's dialect):
 * get <queue>[/open][/close][/abort][/peek][/t=<ms>], and the connection's
 * one open read.
 */
#ifndef MCDS_KESTREL_H
#define MCDS_KESTREL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/conn.h"
#include "proto/proto_get.h"

/* Before a get line runs: whether key, as a Kestrel read, would be a
 * protocol error (/peek mixed with /open, /close or /abort; /open, /close
 * or /abort beside other keys; a second open read; a plain read of the
 * queue this connection has open). Returns REPLY_COUNT when it is fine,
 * else the error line to answer instead of the whole get. Changes
 * nothing. single: the get has only this key. */
enum reply_id kestrel_check(conn *c, const char *key, size_t nkey, bool single);

/* get of key where key (or its part before '/') names a queue, after
 * kestrel_check passed. q is the queue's item when the whole key named
 * it, else NULL. single: the get had only this key (only then may it
 * wait). with_cas: a gets, whose VALUE lines carry a CAS (0). */
enum get_queue_result kestrel_get(conn *c, const char *key, size_t nkey, item *q, bool single,
                                  bool with_cas);
/* At start-up: `get` reads queues through kestrel_check and kestrel_get. */
void kestrel_init(void);

/* "VALUE <key as asked> <flags> <bytes>[ 0]\r\n<data>\r\n"; takes over a
 * reference to it. */
void kestrel_out_value(conn *c, const char *key, size_t nkey, item *it, bool with_cas);
/* A blocking /open read was served message id of queue pin: it is now
 * the connection's open read. */
void kestrel_opened(conn *c, item *pin, uint64_t id);
/* A closing connection's open read goes back to its queue (net/conn.h). */
extern const struct conn_hooks kestrel_conn_hooks;

#endif
