/*
 * --tls in a build without OpenSSL: refused.
 */
#include <errno.h>
#include <stdio.h>

#include "tls.h"

int bench_tls_init(void)
{
    fprintf(stderr, "mcds-bench: built without TLS (no OpenSSL at configure time): --tls cannot be used\n");
    return -1;
}

void bench_tls_shutdown(void)
{
}

struct bench_tls *bench_tls_connect(int fd, int ms)
{
    return NULL;
}

void bench_tls_free(struct bench_tls *t)
{
}

ssize_t bench_tls_read(struct bench_tls *t, void *buf, size_t n)
{
    errno = EIO;
    return -1;
}

ssize_t bench_tls_writev(struct bench_tls *t, const struct iovec *iov, int n)
{
    errno = EIO;
    return -1;
}

int bench_tls_pending(const struct bench_tls *t)
{
    return 0;
}
