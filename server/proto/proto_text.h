/*
 * proto_text: memcached's classic text protocol (and, later, the extended
 * verbs that share its line format). A parser only: it turns request lines
 * into store calls and results into reply bytes.
 */
#ifndef MCDS_PROTO_TEXT_H
#define MCDS_PROTO_TEXT_H

#include "net/conn.h"

extern const struct conn_proto proto_text;

/* The protocol of a new connection, from its first byte. */
const struct conn_proto *proto_choose(char first);

#endif
