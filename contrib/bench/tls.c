/*
 * --tls with OpenSSL: one client context, one session per connection.
 * Records are written 16 KB at a time, gathered from the request's
 * iovecs (in place when one iovec holds them).
 */
#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tls.h"

#define BENCH_TLS_RECORD 16384

struct bench_tls {
    SSL *ssl;
    size_t retry;               /* bytes of an unfinished SSL_write */
    char wbuf[BENCH_TLS_RECORD];
};

static SSL_CTX *bench_tls_ctx;

int bench_tls_init(void)
{
    bench_tls_ctx = SSL_CTX_new(TLS_client_method());
    if (bench_tls_ctx == NULL) {
        fprintf(stderr, "mcds-bench: no TLS context: %s\n", ERR_error_string(ERR_get_error(), NULL));
        return -1;
    }
    SSL_CTX_set_verify(bench_tls_ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_mode(bench_tls_ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return 0;
}

void bench_tls_shutdown(void)
{
    SSL_CTX_free(bench_tls_ctx);
    bench_tls_ctx = NULL;
}

static long bench_tls_ms_left(const struct timespec *t0, int ms)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return ms - ((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000);
}

struct bench_tls *bench_tls_connect(int fd, int ms)
{
    struct bench_tls *t = calloc(1, sizeof(*t));
    struct timespec t0;
    int r;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (t == NULL || (t->ssl = SSL_new(bench_tls_ctx)) == NULL || !SSL_set_fd(t->ssl, fd))
        goto fail;
    while ((r = SSL_connect(t->ssl)) != 1) {
        struct pollfd p = { .fd = fd };
        int e = SSL_get_error(t->ssl, r);
        long left = bench_tls_ms_left(&t0, ms);
        if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) || left <= 0)
            goto fail;
        p.events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        poll(&p, 1, (int)left);
    }
    return t;
fail:
    fprintf(stderr, "mcds-bench: TLS handshake failed: %s\n", ERR_error_string(ERR_get_error(), NULL));
    bench_tls_free(t);
    return NULL;
}

void bench_tls_free(struct bench_tls *t)
{
    if (t == NULL)
        return;
    SSL_free(t->ssl);
    free(t);
}

ssize_t bench_tls_read(struct bench_tls *t, void *buf, size_t n)
{
    size_t got = 0;
    int r = 0;

    while (got < n) {
        int want = n - got > INT_MAX ? INT_MAX : (int)(n - got);
        r = SSL_read(t->ssl, (char *)buf + got, want);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got > 0)
        return (ssize_t)got;
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ: case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    default: errno = EIO; return -1;
    }
}

int bench_tls_pending(const struct bench_tls *t)
{
    return SSL_pending(t->ssl);
}

/* The next len bytes of iov: in place, or copied into t->wbuf. */
static const char *bench_tls_gather(struct bench_tls *t, const struct iovec *iov, int n, size_t len)
{
    size_t have = 0;
    int i;

    if (n > 0 && iov[0].iov_len >= len)
        return iov[0].iov_base;
    for (i = 0; i < n && have < len; i++) {
        size_t part = iov[i].iov_len < len - have ? iov[i].iov_len : len - have;
        memcpy(t->wbuf + have, iov[i].iov_base, part);
        have += part;
    }
    return have == len ? t->wbuf : NULL;
}

ssize_t bench_tls_writev(struct bench_tls *t, const struct iovec *iov, int n)
{
    size_t total = 0, len;
    const char *src;
    int i, r;

    for (i = 0; i < n; i++)
        total += iov[i].iov_len;
    len = t->retry != 0 ? t->retry : total < BENCH_TLS_RECORD ? total : BENCH_TLS_RECORD;
    if (len == 0)
        return 0;
    src = bench_tls_gather(t, iov, n, len);
    if (src == NULL) {
        errno = EIO;
        return -1;
    }
    r = SSL_write(t->ssl, src, (int)len);
    if (r > 0) {
        t->retry = 0;
        return r;
    }
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ: case SSL_ERROR_WANT_WRITE:
        t->retry = len;
        errno = EAGAIN;
        return -1;
    default:
        errno = EIO;
        return -1;
    }
}
