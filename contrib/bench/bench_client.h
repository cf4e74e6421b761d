/*
 * bench_client.h: what the single-file C drivers of contrib/bench
 * (ctree_bench.c, table_bench.c) share: a TCP connection with a read
 * buffer (lines and exact byte counts), the clock, the seeded random
 * stream, and the p50/p99 of the latencies their connections recorded.
 * Included, not linked: each driver is built by its script with one cc.
 */
#ifndef BENCH_CLIENT_H
#define BENCH_CLIENT_H

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct bc_sock {
    int fd;
    char buf[1 << 16];
    size_t have, pos;
};

/* "HOST:PORT" into host (cap bytes); the port's text, or NULL. */
static inline const char *bc_split(const char *addr, char *host, size_t cap)
{
    const char *colon = strrchr(addr, ':');

    if (colon == NULL || (size_t)(colon - addr) >= cap)
        return NULL;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    return colon + 1;
}

static inline int bc_connect_tcp(const char *addr)
{
    char host[256];
    const char *port = bc_split(addr, host, sizeof host);
    struct addrinfo hints = { 0 }, *ai;
    int fd, one = 1;

    hints.ai_socktype = SOCK_STREAM;
    if (port == NULL || getaddrinfo(host, port, &hints, &ai) != 0)
        return -1;
    fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static inline int bc_send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Makes at least one unread byte available; -1 on a closed socket. */
static inline int bc_fill(struct bc_sock *s)
{
    ssize_t r;

    if (s->pos < s->have)
        return 0;
    r = read(s->fd, s->buf, sizeof s->buf);
    if (r <= 0)
        return -1;
    s->have = (size_t)r;
    s->pos = 0;
    return 0;
}

/* Reads exactly n bytes into out. */
static inline int bc_read(struct bc_sock *s, char *out, size_t n)
{
    while (n > 0) {
        size_t k;
        if (bc_fill(s) < 0)
            return -1;
        k = s->have - s->pos < n ? s->have - s->pos : n;
        memcpy(out, s->buf + s->pos, k);
        s->pos += k;
        out += k;
        n -= k;
    }
    return 0;
}

/* The next line (without "\r\n") into line, cut to cap - 1 bytes. */
static inline int bc_line(struct bc_sock *s, char *line, size_t cap)
{
    size_t n = 0;

    for (;;) {
        if (bc_fill(s) < 0)
            return -1;
        while (s->pos < s->have) {
            char ch = s->buf[s->pos++];
            if (ch == '\n') {
                if (n > 0 && line[n - 1] == '\r')
                    n--;
                line[n] = '\0';
                return 0;
            }
            if (n + 1 < cap)
                line[n++] = ch;
        }
    }
}

static inline double bc_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline uint64_t bc_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline int bc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* p50 and p99, in ms, of the latencies (s) of n connections: lat[k] holds
 * nlat[k] of them. */
static inline void bc_percentiles(double *const *lat, const long *nlat, int n, double *p50, double *p99)
{
    long total = 0, i, at = 0;
    double *all;
    int k;

    for (k = 0; k < n; k++)
        total += nlat[k];
    *p50 = *p99 = 0;
    if (total == 0 || (all = malloc((size_t)total * sizeof *all)) == NULL)
        return;
    for (k = 0; k < n; k++)
        for (i = 0; i < nlat[k]; i++)
            all[at++] = lat[k][i];
    qsort(all, (size_t)total, sizeof *all, bc_cmp_double);
    *p50 = all[total / 2] * 1000;
    *p99 = all[(long)((double)total * 0.99)] * 1000;
    free(all);
}

#endif /* BENCH_CLIENT_H */
