/*
 * repl/link_tls: TLS on the replication link (doc/replication.md, "TLS on
 * the link"), with OpenSSL (link_tls.c), or stubs in a build configured
 * with --disable-tls (link_tls_off.c).
 *
 * A replica makes a client session of its own at each connection
 * (--primary-tls and its files, read again each time); a primary takes
 * over the server session of the connection that sent psync (net/tls.c
 * hands it over). Both ends use the session from one thread only: the
 * replica's link thread, the primary's sender.
 */
#ifndef MCDS_REPL_LINK_TLS_H
#define MCDS_REPL_LINK_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct link_tls;

/* Whether this binary was built with TLS. */
bool link_tls_built(void);
/* Checks the replica's --primary-tls files once at start-up (they are
 * read again at each connection): 0, or -1 after logging why. */
int link_tls_check(void);

/* A replica's session over the connected socket fd to its primary, host
 * as --replicaof names it: the handshake done within ms and the primary's
 * certificate verified (its CA, its name or address). NULL after logging
 * why. */
struct link_tls *link_tls_connect(int fd, const char *host, int port, int ms);
/* A primary's session: an established server session (OpenSSL's SSL *)
 * taken from a client connection, now reading and writing fd. NULL when
 * no memory. */
struct link_tls *link_tls_adopt(void *ssl, int fd);
/* Sends close_notify when the session is sound (never waits), frees it. */
void link_tls_free(struct link_tls *t);

/* As recv(2) with MSG_DONTWAIT: bytes (> 0), 0 at the end of the stream,
 * -1 with errno EAGAIN to wait for link_tls_wants, or another errno. */
ssize_t link_tls_recv(struct link_tls *t, void *buf, size_t n);
/* As send(2) with MSG_DONTWAIT; after EAGAIN the same bytes must be sent
 * again. */
ssize_t link_tls_send(struct link_tls *t, const void *buf, size_t n);
/* The poll event the last call's EAGAIN waits for (POLLIN or POLLOUT),
 * 0 when the last call did not stop on one. */
short link_tls_wants(const struct link_tls *t);
/* What ended the session when a read or write failed ("" when none did):
 * an alert of the peer, a bad record. */
const char *link_tls_failure(const struct link_tls *t);
/* Whether decrypted bytes wait in the session (no poll would see them). */
bool link_tls_pending(const struct link_tls *t);

#endif
