/*
 * proto_ext: mcds's extended verbs (queues: qcreate qpush qpop qack
 * qrelease qtouch qpeek qpending qstats qpurge), Kestrel-style reads of a
 * queue through get, and the waiting that blocking reads need. Same line
 * format as the text protocol, which hands these lines here.
 */
#ifndef MCDS_PROTO_EXT_H
#define MCDS_PROTO_EXT_H

#include <stdbool.h>
#include <stddef.h>

#include "conn.h"

bool ext_is_command(const char *line, size_t len);
enum conn_parse_result ext_dispatch(conn *c, char *line, size_t len);
/* The data block of a qpush has been read into c->nread.it. */
void ext_nread_done(conn *c);
/* The connection is closing: forget its wait, return its open read. */
void ext_conn_closed(conn *c);
/* The client hung up while c waits: end the wait now with its empty
 * answer, without resuming c. False when the answer is already on its
 * way (the wake then finishes the wait). */
bool ext_wait_abandon(conn *c);

enum ext_kestrel {
    KESTREL_NOT_QUEUE,      /* the key is not a queue read: a plain miss */
    KESTREL_DONE,           /* answered (a VALUE queued, or nothing) */
    KESTREL_WAIT,           /* a /t= read waits; the wait writes END */
};

/* Before a get line runs: whether key, as a Kestrel read, would be a
 * protocol error (/peek mixed with /open, /close or /abort; /open, /close
 * or /abort beside other keys; a second open read; a plain read of the
 * queue this connection has open). Returns REPLY_COUNT when it is fine,
 * else the error line to answer instead of the whole get. Changes
 * nothing. single: the get has only this key. */
enum reply_id ext_kestrel_check(conn *c, const char *key, size_t nkey, bool single);

/* get of key where key (or its part before '/') names a queue, after
 * ext_kestrel_check passed. q is the queue's item when the whole key named
 * it, else NULL. single: the get had only this key (only then may it
 * wait). with_cas: a gets, whose VALUE lines carry a CAS (0). */
enum ext_kestrel ext_kestrel_get(conn *c, const char *key, size_t nkey, item *q, bool single,
                                 bool with_cas);

#endif
