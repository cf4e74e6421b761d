/*
 * stats_conns: memcached's `stats conns`: for each listening socket and
 * each connection, its address, the address it came in on, its state and
 * the seconds since its last command.
 */
#ifndef MCDS_STATS_CONNS_H
#define MCDS_STATS_CONNS_H

#include "proto/cmd.h"

enum conn_parse_result stats_conns_cmd(conn *c, struct cmd_line *l);
/* "tcp:1.2.3.4:5", "tcp6:[::1]:5" or "unix:<path>": fd's peer (or local)
 * address, as `stats conns` shows it. */
void stats_conns_addr(int fd, bool peer, char *out, size_t cap);

#endif
