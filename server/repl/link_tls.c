/*
 * repl/link_tls: the OpenSSL side of TLS on the replication link.
 *
 * A replica builds a client context at each connection from --primary-tls-ca
 * (else the system's CA paths), --primary-tls-cert and --primary-tls-key,
 * so that new files take effect at the next connection, as
 * --primary-auth-file does. It verifies the primary's certificate against
 * those CAs and the host it connects to (a DNS name, or an IP address in the
 * certificate's subjectAltName), TLS 1.2 at least. The handshake runs
 * before psync, bounded by a deadline.
 *
 * Reads and writes are non-blocking: a call that cannot go on says which
 * poll event it waits for; a write that could not finish is repeated with
 * the same bytes (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER: the caller's buffer
 * may move).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/settings.h"
#include "repl/link_tls.h"

struct link_tls {
    SSL *ssl;
    short wants;        /* POLLIN or POLLOUT: what the last call's EAGAIN waits for; 0 none */
    bool failed;        /* a fatal error: no close_notify */
    char error[256];    /* what the fatal error was */
};

bool link_tls_built(void) {
    return true;
}

/* OpenSSL's first queued error as text (the queue is emptied). */
static void link_tls_error(char *buf, size_t len) {
    unsigned long e = ERR_get_error();

    if (e != 0)
        ERR_error_string_n(e, buf, len);
    else
        snprintf(buf, len, "%s", errno != 0 ? strerror(errno) : "the connection was closed");
    ERR_clear_error();
}

/* Loads the CA list and the client certificate: 0, or -1 with why. */
static int link_tls_load(SSL_CTX *ctx, char *why, size_t len) {
    const char *ca = settings.primary_tls_ca, *cert = settings.primary_tls_cert;
    const char *key = settings.primary_tls_key;
    char err[256];

    if (ca != NULL ? !SSL_CTX_load_verify_locations(ctx, ca, NULL) : !SSL_CTX_set_default_verify_paths(ctx)) {
        link_tls_error(err, sizeof(err));
        snprintf(why, len, "the CA list %s does not load: %s", ca != NULL ? ca : "of the system", err);
        return -1;
    }
    if (cert == NULL)
        return 0;
    if (!SSL_CTX_use_certificate_chain_file(ctx, cert)) {
        link_tls_error(err, sizeof(err));
        snprintf(why, len, "--primary-tls-cert %s does not load: %s", cert, err);
    } else if (!SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM)) {
        link_tls_error(err, sizeof(err));
        snprintf(why, len, "--primary-tls-key %s does not load: %s", key, err);
    } else if (!SSL_CTX_check_private_key(ctx)) {
        link_tls_error(err, sizeof(err));
        snprintf(why, len, "--primary-tls-key does not match --primary-tls-cert: %s", err);
    } else {
        return 0;
    }
    return -1;
}

/* A client context from the --primary-tls files, or NULL with why. */
static SSL_CTX *link_tls_ctx(char *why, size_t len) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char err[256];

    if (ctx == NULL) {
        link_tls_error(err, sizeof(err));
        snprintf(why, len, "no TLS context: %s", err);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    if (link_tls_load(ctx, why, len) < 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int link_tls_check(void) {
    char why[512];
    SSL_CTX *ctx;

    if (!settings.primary_tls)
        return 0;
    if ((ctx = link_tls_ctx(why, sizeof(why))) == NULL) {
        log_msg(0, "replication: TLS to the primary: %s", why);
        return -1;
    }
    SSL_CTX_free(ctx);
    return 0;
}

/* The name the primary's certificate must carry: host, a DNS name or an
 * IP address. 0, or -1. */
static int link_tls_expect(SSL *ssl, const char *host) {
    unsigned char addr[sizeof(struct in6_addr)];

    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1)
        return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 ? 0 : -1;
    if (!SSL_set_tlsext_host_name(ssl, host))
        return -1;
    return SSL_set1_host(ssl, host) == 1 ? 0 : -1;
}

static int link_tls_ms_since(const struct timespec *t0) {
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int)((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000);
}

/* SSL_connect until done or ms pass: 0, or -1 with why. */
static int link_tls_handshake(struct link_tls *t, int fd, int ms, char *why, size_t len) {
    struct timespec t0;
    char err[256];
    int r;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd p = { fd, 0, 0 };
        int left = ms - link_tls_ms_since(&t0);
        ERR_clear_error();
        errno = 0;
        if ((r = SSL_connect(t->ssl)) == 1)
            return 0;
        switch (SSL_get_error(t->ssl, r)) {
        case SSL_ERROR_WANT_READ: p.events = POLLIN; break;
        case SSL_ERROR_WANT_WRITE: p.events = POLLOUT; break;
        default:
            t->failed = true;
            if (SSL_get_verify_result(t->ssl) != X509_V_OK) {
                snprintf(why, len, "the primary's certificate is refused: %s",
                         X509_verify_cert_error_string(SSL_get_verify_result(t->ssl)));
                ERR_clear_error();
            } else {
                link_tls_error(err, sizeof(err));
                snprintf(why, len, "the handshake failed: %s", err);
            }
            return -1;
        }
        if (left <= 0 || poll(&p, 1, left) == 0) {
            t->failed = true;
            snprintf(why, len, "the handshake took more than %d ms", ms);
            return -1;
        }
    }
}

struct link_tls *link_tls_connect(int fd, const char *host, int port, int ms) {
    struct link_tls *t = calloc(1, sizeof(*t));
    char why[512] = "no memory";
    SSL_CTX *ctx = NULL;

    if (t == NULL || (ctx = link_tls_ctx(why, sizeof(why))) == NULL)
        goto fail;
    if ((t->ssl = SSL_new(ctx)) == NULL || !SSL_set_fd(t->ssl, fd) || link_tls_expect(t->ssl, host) < 0) {
        link_tls_error(why, sizeof(why));
        goto fail;
    }
    SSL_CTX_free(ctx);      /* the session keeps its reference */
    ctx = NULL;
    if (link_tls_handshake(t, fd, ms, why, sizeof(why)) < 0)
        goto fail;
    log_msg(1, "replication: TLS to %s:%d: %s, %s", host, port, SSL_get_version(t->ssl), SSL_get_cipher(t->ssl));
    return t;
fail:
    log_msg(0, "replication: TLS to %s:%d: %s", host, port, why);
    SSL_CTX_free(ctx);
    if (t != NULL)
        link_tls_free(t);
    return NULL;
}

struct link_tls *link_tls_adopt(void *ssl, int fd) {
    struct link_tls *t = calloc(1, sizeof(*t));

    if (t == NULL || !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    t->ssl = ssl;
    return t;
}

void link_tls_free(struct link_tls *t) {
    if (t->ssl != NULL && !t->failed && SSL_is_init_finished(t->ssl))
        SSL_shutdown(t->ssl);
    SSL_free(t->ssl);
    ERR_clear_error();
    free(t);
}

/* What an SSL call that returned r <= 0 means, as recv(2) and send(2)
 * answer: 0 at the end of the stream, -1 with errno. */
static ssize_t link_tls_outcome(struct link_tls *t, int r) {
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ: t->wants = POLLIN; errno = EAGAIN; return -1;
    case SSL_ERROR_WANT_WRITE: t->wants = POLLOUT; errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0)
            return 0;       /* the peer closed the socket */
        break;
    default:
        break;
    }
    t->failed = true;
    link_tls_error(t->error, sizeof(t->error));
    errno = EPROTO;
    return -1;
}

ssize_t link_tls_recv(struct link_tls *t, void *buf, size_t n) {
    int r;

    t->wants = 0;
    ERR_clear_error();
    errno = 0;
    r = SSL_read(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
    return r > 0 ? r : link_tls_outcome(t, r);
}

ssize_t link_tls_send(struct link_tls *t, const void *buf, size_t n) {
    int r;

    t->wants = 0;
    ERR_clear_error();
    errno = 0;
    r = SSL_write(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
    if (r > 0)
        return r;
    if (link_tls_outcome(t, r) == 0)
        errno = EPIPE;      /* a write has no end of stream */
    return -1;
}

short link_tls_wants(const struct link_tls *t) {
    return t->wants;
}

const char *link_tls_failure(const struct link_tls *t) {
    return t->error;
}

bool link_tls_pending(const struct link_tls *t) {
    return SSL_pending(t->ssl) > 0;
}
