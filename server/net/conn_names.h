/*
 * conn_names: connections named the way `stats conns` names them
 * ("<fd> <address>"), from a token that outlives the connection.
 *
 * A queue lease records the token of the connection that took it
 * (types/queue.h, qmsg.holder); `qinfo` turns it back into a name while
 * that connection is open, and into nothing once it has closed, even if
 * its fd now serves another connection.
 */
#ifndef MCDS_CONN_NAMES_H
#define MCDS_CONN_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The token of a new connection on fd: its fd and a generation, never 0
 * (0: none, when the table could not grow). */
uint64_t conn_names_open(int fd);
/* The connection of token is closing (before its fd is closed). */
void conn_names_close(uint64_t token);
/* "<fd> <address>" of token's connection into out; false once it has
 * closed (or for token 0). */
bool conn_names_format(uint64_t token, char *out, size_t cap);
void conn_names_free(void);
/* "tcp:1.2.3.4:5", "tcp6:[::1]:5" or "unix:<path>": fd's peer (or local)
 * address, as `stats conns` shows it. */
void conn_names_addr(int fd, bool peer, char *out, size_t cap);

#endif
