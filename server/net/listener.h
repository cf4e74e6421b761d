/*
 * listener: the listening sockets (one TCP address or one UNIX socket),
 * accepting, the connection limit, and the hand-off to workers.
 */
#ifndef MCDS_LISTENER_H
#define MCDS_LISTENER_H

#include "net/conn.h"

struct event_base;

/* Opens the listening socket from settings and logs where it listens.
 * Returns 0, or -1 after logging why it could not. */
int listener_open(struct event_base *base);
/* A listening TCP socket (non-blocking, close-on-exec) on host:port, or
 * -1 (logged): -l's and --metrics-listen's. */
int listener_tcp_socket(const char *host, int portnum);
/* The protocols the connections it accepts speak (before it opens). */
void listener_set_protocol(conn_proto_choose_fn choose);
void listener_close(void);
/* The i-th listening socket, or -1 past the last. */
int listener_fd_at(int i);

#endif
