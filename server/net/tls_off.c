/*
 * tls_off: the TLS functions of a build configured with --disable-tls (or
 * without OpenSSL): -Z is refused at start-up, and no connection is ever
 * TLS, so the session functions are never called.
 */
#include <errno.h>
#include <stdio.h>

#include "base/log.h"
#include "net/tls.h"
#include "base/tls_opts.h"

bool tls_built(void) {
    return false;
}

int tls_init(void) {
    if (!tls_opts.enabled)
        return 0;
    log_msg(0, "TLS: this mcds-server was built without TLS (configure found no OpenSSL, "
               "or --disable-tls); -Z cannot be used");
    return -1;
}

void tls_free(void) {
}

int tls_refresh(char *msg, size_t len) {
    snprintf(msg, len, "Error TLS not enabled");
    return -1;
}

struct tls_conn *tls_conn_new(int fd) {
    return NULL;
}

void *tls_conn_take(struct tls_conn *t) {
    return NULL;
}

void tls_conn_free(struct tls_conn *t) {
}

ssize_t tls_read(struct conn *c, char *buf, size_t n) {
    errno = EIO;
    return -1;
}

ssize_t tls_writev(struct conn *c, const struct iovec *iov, int n) {
    errno = EIO;
    return -1;
}

short tls_events(const struct tls_conn *t) {
    return 0;
}

