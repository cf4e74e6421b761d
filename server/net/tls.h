/*
 * tls: TLS connections with OpenSSL (tls.c), or stubs that refuse -Z in a
 * build configured with --disable-tls (tls_off.c).
 *
 * One server context, built at start-up from tls_opts and rebuilt whole by
 * refresh_certs; each connection accepted on a TLS listener gets its own
 * session. The handshake runs inside the first reads and writes, so a
 * connection never blocks its worker on it.
 */
#ifndef MCDS_TLS_H
#define MCDS_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "base/stats.h"

struct conn;
struct tls_conn;

/* Builds the server context when -Z is given; -1 after logging why (a
 * build without TLS, a file that does not load). */
int tls_init(void);
void tls_free(void);
/* Whether this binary was built with TLS. */
bool tls_built(void);

/* A session for an accepted socket, NULL when none can be had. */
struct tls_conn *tls_conn_new(int fd);
/* Sends close_notify when the session is sound (never waits), frees it. */
void tls_conn_free(struct tls_conn *t);
/* Hands t's OpenSSL session (SSL *) over to its new owner, a replication
 * sender (repl/link_tls.h): t keeps no session, its reads and writes fail
 * with EPIPE, and its free sends nothing. */
void *tls_conn_take(struct tls_conn *t);

/* As read(2): bytes read (> 0), 0 at the end of the stream, -1 with errno
 * EAGAIN to wait for an event, or another errno on a failure. A read
 * shorter than n leaves no byte in the session: the rest, if any, is in
 * the socket. */
ssize_t tls_read(struct conn *c, char *buf, size_t n);
/* As writev(2), in records of up to ssl_wbuf_size bytes. After EAGAIN the
 * same leading bytes must still be queued for the next call: it sets
 * c->out_sent so no reply is taken back. */
ssize_t tls_writev(struct conn *c, const struct iovec *iov, int n);
/* Events the session waits for besides the connection's own (a write
 * that needs to read, or a read that needs to write). */
short tls_events(const struct tls_conn *t);

/* refresh_certs: reloads the certificate, key and CA files into a new
 * context; on failure the old one stays and msg holds memcached's line
 * (without "\r\n"). */
int tls_refresh(char *msg, size_t len);


#endif
