/*
 * auth_throttle: failed logins, bounded (-Y). A connection that fails
 * AUTH_CONN_FAILS times is closed after the reply to the last one. An
 * address (a client's IP; every UNIX-socket client shares one) that fails
 * AUTH_ADDR_FAILS times without a success is refused for a while, whatever
 * it presents, the time doubling with each further failure from 1 s up to
 * AUTH_LOCK_MAX_MS; a success clears it, and so do ten minutes without a
 * failure. The log gets at most one line a second about failures, with
 * the count of those it left out. `stats`: auth_throttled (attempts
 * refused while their address was locked out), auth_locked_addresses.
 */
#ifndef MCDS_AUTH_THROTTLE_H
#define MCDS_AUTH_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>

#include "net/conn.h"

#define AUTH_CONN_FAILS 5
#define AUTH_ADDR_FAILS 10
#define AUTH_LOCK_MAX_MS 60000

void auth_throttle_init(void);
/* The same for a peer that is not a connection of the protocols (the
 * metrics listener's): fd is its socket. */
bool auth_throttle_fd_refused(int fd);
void auth_throttle_fd_failed(int fd, const char *user, size_t nuser);
void auth_throttle_fd_passed(int fd);
/* Before a password is checked: whether c's address is locked out now
 * (the attempt then fails, and counts as a failure of c). */
bool auth_throttle_refused(conn *c);
/* A failed attempt by c as user (for the log). */
void auth_throttle_failed(conn *c, const char *user, size_t nuser);
/* c authenticated: its address starts again from nothing. */
void auth_throttle_passed(conn *c);
/* Whether c has failed too often: close it after the reply. */
bool auth_throttle_conn_done(const conn *c);

#endif
