/*
 * ops/metrics_http: the metrics listener (--metrics-port, off by default):
 * a thread with its own event loop that answers GET and HEAD /metrics
 * over HTTP/1.x with ops/metrics's text, one request per connection.
 */
#ifndef MCDS_METRICS_HTTP_H
#define MCDS_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* Who may scrape: given by main.c, since the users are the protocols'
 * (proto/auth). login says whether user and password, presented by the
 * peer on socket fd, are good (and counts a failure toward the peer's
 * lock-out). */
struct metrics_auth {
    bool (*on)(void);
    bool (*login)(int fd, const char *user, size_t nuser, const char *pass, size_t npass);
};

/* Binds --metrics-listen:--metrics-port and starts the thread (nothing
 * when the port is 0). -1 when it cannot (logged). */
int metrics_http_start(const struct metrics_auth *auth);
/* Stops the thread and frees its connections (after a start or none). */
void metrics_http_stop(void);

#endif
