/*
 * repl/link_tls_off: TLS on the replication link in a build configured
 * with --disable-tls (or without OpenSSL): --primary-tls is refused at
 * start-up, and no connection is ever TLS, so a primary never adopts a
 * session and the session functions are never called.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/settings.h"
#include "repl/link_tls.h"

bool link_tls_built(void) {
    return false;
}

int link_tls_check(void) {
    if (!settings.primary_tls)
        return 0;
    log_msg(0, "replication: this mcds-server was built without TLS (configure found no OpenSSL, "
               "or --disable-tls); --primary-tls cannot be used");
    return -1;
}

struct link_tls *link_tls_connect(int fd, const char *host, int port, int ms) {
    return NULL;
}

struct link_tls *link_tls_adopt(void *ssl, int fd) {
    return NULL;
}

void link_tls_free(struct link_tls *t) {
}

ssize_t link_tls_recv(struct link_tls *t, void *buf, size_t n) {
    errno = EIO;
    return -1;
}

ssize_t link_tls_send(struct link_tls *t, const void *buf, size_t n) {
    errno = EIO;
    return -1;
}

short link_tls_wants(const struct link_tls *t) {
    return 0;
}

const char *link_tls_failure(const struct link_tls *t) {
    return "";
}

bool link_tls_pending(const struct link_tls *t) {
    return false;
}
