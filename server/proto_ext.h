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

enum ext_kestrel {
    KESTREL_NOT_QUEUE,      /* the key is not a queue read: a plain miss */
    KESTREL_DONE,           /* answered (a VALUE queued, or nothing) */
    KESTREL_WAIT,           /* a /t= read waits; the wait writes END */
    KESTREL_CLOSE,          /* a Kestrel protocol error: close after ERROR */
};

/* get of key where key (or its part before '/') names a queue. q is the
 * queue's item when the whole key named it, else NULL. single: the get
 * had only this key (only then may it wait). */
enum ext_kestrel ext_kestrel_get(conn *c, const char *key, size_t nkey, item *q, bool single);

#endif
