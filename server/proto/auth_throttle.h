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
/* A login by the peer on socket fd (auth.c's auth_peer_login, which
 * protocol logins go through too): before the password is checked,
 * whether the address is locked out now; a failed attempt as user (for the
 * log); a success, after which the address starts again from nothing. */
bool auth_throttle_fd_refused(int fd);
void auth_throttle_fd_failed(int fd, const char *user, size_t nuser);
void auth_throttle_fd_passed(int fd);
/* A malformed attempt by c (it counts as a failure of c and its address). */
void auth_throttle_failed(conn *c, const char *user, size_t nuser);
/* Whether c has failed too often: close it after the reply. */
bool auth_throttle_conn_done(const conn *c);

#endif
