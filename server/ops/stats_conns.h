/*
 * stats_conns: memcached's `stats conns`: for each listening socket and
 * each connection, its address, the address it came in on, its state and
 * the seconds since its last command.
 */
#ifndef MCDS_STATS_CONNS_H
#define MCDS_STATS_CONNS_H

#include "base/parse.h"
#include "net/conn.h"

enum conn_parse_result stats_conns_cmd(conn *c, struct cmd_line *l);

#endif
