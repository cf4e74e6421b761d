/*
 * auth: who may talk to the server. With -Y/--auth-file <file> (memcached's
 * format: one "user:password" per line) a connection must authenticate
 * before anything else it sends is served: in the text protocol with
 * memcached's "set <any key> <flags> <exptime> <bytes>" whose data is
 * "<user> <password>", in the binary protocol with SASL PLAIN. The same
 * credentials serve both. The file is read at start and again on SIGHUP.
 * With --admin-users only the users it lists may run admin commands.
 */
#ifndef MCDS_AUTH_H
#define MCDS_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "net/conn.h"

#define AUTH_TOKEN_MAX 1024     /* longest "<user> <password>" or SASL value */

/* Reads settings.auth_file (nothing without it). -1: unreadable or
 * malformed (logged); at start-up the server then refuses to run. */
int auth_load(void);
/* SIGHUP: reads the file again; on an error the old credentials stay. */
void auth_reload(void);
void auth_free(void);
/* Whether connections must authenticate. */
bool auth_on(void);

/* Whether user and password match a line of the file (the password is
 * compared in constant time). */
bool auth_check(const char *user, size_t nuser, const char *pass, size_t npass);

/* One login by a peer outside the protocols (the metrics listener's HTTP
 * Basic authentication) on socket fd: refused at once while its address
 * is locked out, else checked; failures count toward the address's
 * lock-out as a connection's do (auth_throttle.h). */
bool auth_peer_login(int fd, const char *user, size_t nuser, const char *pass, size_t npass);

/* The text protocol before authentication: line[0..len) is the request
 * line (without its "\n"), avail the bytes from line on. Answers as
 * memcached does and authenticates c on success. */
enum conn_parse_result auth_text(conn *c, char *line, size_t len, size_t avail);

/* SASL PLAIN: mech is the mechanism named in the key, v the client's
 * message ([authzid] NUL user NUL password). True when it authenticates c. */
bool auth_sasl_plain(conn *c, const char *mech, size_t nmech, const char *v, size_t n);

/* Whether c may run admin commands (flush_all, shutdown, verbosity,
 * cache_memlimit, debugtime, snapshot): always, unless --admin-users
 * names who may. */
bool auth_may_admin(const conn *c);

#endif
