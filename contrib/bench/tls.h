/*
 * --tls: mcds-bench's connections speak TLS (OpenSSL), to measure what TLS
 * costs a server (compare.sh --tls). The server's certificate is not
 * checked: this measures, it does not secure. A build without OpenSSL
 * refuses --tls.
 */
#ifndef MCDS_BENCH_TLS_H
#define MCDS_BENCH_TLS_H

#include <sys/types.h>
#include <sys/uio.h>

struct bench_tls;

/* The client context, once before any connection; 0 or -1 (said why). */
int bench_tls_init(void);
void bench_tls_shutdown(void);
/* A session over the connected non-blocking socket fd, its handshake done
 * (waiting at most ms); NULL (said why) on failure. */
struct bench_tls *bench_tls_connect(int fd, int ms);
void bench_tls_free(struct bench_tls *t);
/* As read(2) and writev(2) on the socket: -1 with EAGAIN to wait. A write
 * that could not finish is repeated with the same leading bytes, which
 * the caller keeps queued. A read fills the buffer while the session has
 * bytes, so none is left waiting for a socket event. */
ssize_t bench_tls_read(struct bench_tls *t, void *buf, size_t n);
ssize_t bench_tls_writev(struct bench_tls *t, const struct iovec *iov, int n);
/* Decrypted bytes the session holds (a read that filled its buffer). */
int bench_tls_pending(const struct bench_tls *t);

#endif
