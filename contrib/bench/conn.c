/*
 * One client connection: connect, encode requests, parse replies.
 *
 * Encoding, per protocol (Redis and beanstalkd: resp.c, beanstalk.c):
 *   text  get k / get k1 k2 ... / set k 0 0 <n> + data
 *         queues: qpush q 0 0 <n> + data / qpop q [1 wait=<s>] / qack q <id>
 *         / get q[/t=<ms>] (take, Kestrel)
 *   meta  mg k v / mg k1 v q ... mn / ms k <n> + data
 * Replies are matched to the oldest request in flight.  Anything that is not
 * the expected reply for that request counts as an error; a reply that cannot
 * be framed (no request in flight, a value without its "\r\n") also drops
 * the connection, since the stream can no longer be trusted.  Queue
 * workloads see every reply (workload reply()), which tells when a message's
 * cycle ends; the first bytes of a popped message are kept for that.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto.h"
#include "tls.h"

#ifndef IOV_MAX
#define IOV_MAX 1024                   /* Linux's UIO_MAXIOV */
#endif

#define CONN_RBUF_SIZE     (128 * 1024)
#define CONN_CONNECT_MS    3000

/* ---- connecting ---- */

static int conn_connect_addr(const struct addrinfo *ai)
{
    struct pollfd pfd;
    int fd, err = 0, one = 1;
    socklen_t len = sizeof(err);

    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS)
            goto fail;
        pfd.fd = fd;
        pfd.events = POLLOUT;
        if (poll(&pfd, 1, CONN_CONNECT_MS) != 1) {
            errno = ETIMEDOUT;
            goto fail;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            goto fail;
        if (err) {
            errno = err;
            goto fail;
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
fail:
    err = errno;
    close(fd);
    errno = err;
    return -1;
}

static int conn_connect(const struct bench_server *srv)
{
    struct addrinfo hints, *res, *ai;
    int fd = -1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(srv->host, srv->port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "mcds-bench: %s:%s: %s\n", srv->host, srv->port,
                gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next)
        fd = conn_connect_addr(ai);
    if (fd < 0)
        fprintf(stderr, "mcds-bench: connect %s:%s: %s\n", srv->host,
                srv->port, strerror(errno));
    freeaddrinfo(res);
    return fd;
}

/* --pop-wait in the three forms the protocols take. */
static void conn_wait_args(struct conn *c, double secs)
{
    double whole = (double)(uint64_t)secs;

    snprintf(c->wait_secs, sizeof(c->wait_secs), "%.3f", secs);
    snprintf(c->wait_ms, sizeof(c->wait_ms), "%llu",
             (unsigned long long)(secs * 1000 + 0.5));
    snprintf(c->wait_whole, sizeof(c->wait_whole), "%llu",
             (unsigned long long)(whole < secs ? whole + 1 : whole));
}

int conn_open(struct conn *c, struct bench_shared *sh, struct bench_stats *st,
              int server, int g, uint64_t seed)
{
    const struct bench_opts *o = sh->opts;
    size_t plen = strlen(o->prefix);

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->sh = sh;
    c->st = st;
    c->more = 1;
    c->depth = o->depth;
    conn_wait_args(c, o->pop_wait);
    if (workload_conn_init(&c->wl, sh, server, g, seed) < 0)
        return -1;

    /* Longest request header: a multi-get line, a set line plus "mn", or a
     * queue request naming two keys (Redis LMOVE) with a message's tag. */
    c->op_max = (size_t)o->multiget * (plen + 21 + 8) + 2 * (plen + 21) + 160;
    c->ocap = c->op_max * (size_t)o->depth;
    if (c->ocap < 16384)
        c->ocap = 16384;
    c->iov_cap = 3 * o->depth + 4;
    c->rcap = CONN_RBUF_SIZE;
    c->pend = calloc((size_t)o->depth, sizeof(*c->pend));
    c->obuf = malloc(c->ocap);
    c->iov = calloc((size_t)c->iov_cap, sizeof(*c->iov));
    c->rbuf = malloc(c->rcap);
    if (!c->pend || !c->obuf || !c->iov || !c->rbuf) {
        fprintf(stderr, "mcds-bench: out of memory\n");
        return -1;
    }
    c->fd = conn_connect(&o->servers[server]);
    if (c->fd < 0)
        return -1;
    if (o->tls && (c->tls = bench_tls_connect(c->fd, CONN_CONNECT_MS)) == NULL)
        return -1;
    c->state = CONN_OPEN;
    return 0;
}

void conn_close(struct conn *c)
{
    bench_tls_free(c->tls);
    c->tls = NULL;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    if (c->state == CONN_OPEN)
        c->state = CONN_DEAD;
}

void conn_free(struct conn *c)
{
    conn_close(c);
    workload_conn_free(&c->wl);
    free(c->pend);
    free(c->obuf);
    free(c->iov);
    free(c->rbuf);
    c->pend = NULL;
    c->obuf = c->rbuf = NULL;
    c->iov = NULL;
}

/* ---- output buffer ---- */

/* Append header bytes; they join the last iovec when it ends right here. */
void conn_out_bytes(struct conn *c, const char *p, size_t n)
{
    char *dst = c->obuf + c->oused;
    struct iovec *last = c->iov_n > c->iov_head ? &c->iov[c->iov_n - 1] : NULL;

    memcpy(dst, p, n);
    if (last && (char *)last->iov_base + last->iov_len == dst) {
        last->iov_len += n;
    } else {
        c->iov[c->iov_n].iov_base = dst;
        c->iov[c->iov_n].iov_len = n;
        c->iov_n++;
    }
    c->oused += n;
}

/* Append a reference to bytes that outlive the write (the value buffer). */
void conn_out_ref(struct conn *c, const char *p, size_t n)
{
    if (n == 0)
        return;
    c->iov[c->iov_n].iov_base = (void *)p;
    c->iov[c->iov_n].iov_len = n;
    c->iov_n++;
}

void conn_out_message(struct conn *c, const char *tag)
{
    const struct bench_opts *o = c->sh->opts;

    conn_out_bytes(c, tag, BENCH_TAG_LEN);
    conn_out_ref(c, c->sh->value + BENCH_TAG_LEN, o->value_size - BENCH_TAG_LEN);
}

int conn_has_output(const struct conn *c)
{
    return c->iov_head < c->iov_n;
}

int conn_flush(struct conn *c)
{
    ssize_t n;
    int cnt;

    while (c->iov_head < c->iov_n) {
        cnt = c->iov_n - c->iov_head;
        if (cnt > IOV_MAX)
            cnt = IOV_MAX;
        n = c->tls != NULL ? bench_tls_writev(c->tls, &c->iov[c->iov_head], cnt)
                           : writev(c->fd, &c->iov[c->iov_head], cnt);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        while (n > 0) {
            struct iovec *v = &c->iov[c->iov_head];
            if ((size_t)n >= v->iov_len) {
                n -= (ssize_t)v->iov_len;
                c->iov_head++;
            } else {
                v->iov_base = (char *)v->iov_base + n;
                v->iov_len -= (size_t)n;
                n = 0;
            }
        }
    }
    c->iov_head = c->iov_n = 0;
    c->oused = 0;
    return 0;
}

/* ---- encoding ---- */

size_t conn_fmt_u64(char *dst, uint64_t v)
{
    char tmp[20];
    size_t n = 0, i;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        dst[i] = tmp[n - 1 - i];
    return n;
}

size_t conn_fmt_key(const struct conn *c, char *dst, uint64_t k)
{
    const char *prefix = c->sh->opts->prefix;
    size_t plen = strlen(prefix);

    memcpy(dst, prefix, plen);
    return plen + conn_fmt_u64(dst + plen, k);
}

static void conn_encode_get(struct conn *c, const struct bench_op *op)
{
    char line[CONN_KEY_MAX + 32];
    size_t n;
    int i;

    if (c->sh->opts->proto == PROTO_META) {
        for (i = 0; i < op->nkeys; i++) {
            memcpy(line, "mg ", 3);
            n = 3 + conn_fmt_key(c, line + 3, op->keys[i]);
            if (op->kind == OP_MGET) {
                memcpy(line + n, " v q\r\n", 6);
                n += 6;
            } else {
                memcpy(line + n, " v\r\n", 4);
                n += 4;
            }
            conn_out_bytes(c, line, n);
        }
        if (op->kind == OP_MGET)
            conn_out_bytes(c, "mn\r\n", 4);
        return;
    }
    conn_out_bytes(c, "get", 3);
    for (i = 0; i < op->nkeys; i++) {
        line[0] = ' ';
        n = 1 + conn_fmt_key(c, line + 1, op->keys[i]);
        conn_out_bytes(c, line, n);
    }
    conn_out_bytes(c, "\r\n", 2);
}

static void conn_encode_set(struct conn *c, const struct bench_op *op)
{
    const struct bench_opts *o = c->sh->opts;
    char line[CONN_KEY_MAX + 64];
    size_t n;

    if (o->proto == PROTO_META) {
        memcpy(line, "ms ", 3);
        n = 3 + conn_fmt_key(c, line + 3, op->keys[0]);
        line[n++] = ' ';
    } else {
        memcpy(line, "set ", 4);
        n = 4 + conn_fmt_key(c, line + 4, op->keys[0]);
        memcpy(line + n, " 0 0 ", 5);
        n += 5;
    }
    n += conn_fmt_u64(line + n, o->value_size);
    memcpy(line + n, "\r\n", 2);
    n += 2;
    conn_out_bytes(c, line, n);
    conn_out_ref(c, c->sh->value, o->value_size);
    conn_out_bytes(c, "\r\n", 2);
}

/* Queue verbs, text protocol (mcds). */
static void conn_encode_queue(struct conn *c, const struct bench_op *op)
{
    char line[CONN_KEY_MAX + 96], tag[BENCH_TAG_LEN];
    size_t n = 0;

    switch (op->kind) {
    case OP_PUSH:
        memcpy(line, "qpush ", 6);
        n = 6 + conn_fmt_key(c, line + 6, op->keys[0]);
        memcpy(line + n, " 0 0 ", 5);
        n += 5;
        n += conn_fmt_u64(line + n, c->sh->opts->value_size);
        if (c->sh->opts->groups > 0) {
            memcpy(line + n, " group=g", 8);
            n += 8 + conn_fmt_u64(line + n + 8, c->pushes++ % c->sh->opts->groups);
        }
        memcpy(line + n, "\r\n", 2);
        conn_out_bytes(c, line, n + 2);
        bench_tag_put(tag, op->stamp);
        conn_out_message(c, tag);
        conn_out_bytes(c, "\r\n", 2);
        return;
    case OP_POP:
        memcpy(line, "qpop ", 5);
        n = 5 + conn_fmt_key(c, line + 5, op->keys[0]);
        if (op->block)
            n += (size_t)sprintf(line + n, " 1 wait=%s", c->wait_secs);
        if (op->id != 0) {
            memcpy(line + n, " ack=", 5);
            n += 5 + conn_fmt_u64(line + n + 5, op->id);
        }
        break;
    case OP_ACK:
        memcpy(line, "qack ", 5);
        n = 5 + conn_fmt_key(c, line + 5, op->keys[0]);
        line[n++] = ' ';
        n += conn_fmt_u64(line + n, op->id);
        break;
    case OP_TAKE:
        memcpy(line, "get ", 4);
        n = 4 + conn_fmt_key(c, line + 4, op->keys[0]);
        if (op->block)
            n += (size_t)sprintf(line + n, "/t=%s", c->wait_ms);
        break;
    default:
        return;                          /* no preamble in this protocol */
    }
    memcpy(line + n, "\r\n", 2);
    conn_out_bytes(c, line, n + 2);
}

static void conn_encode(struct conn *c, const struct bench_op *op)
{
    switch (c->sh->opts->proto) {
    case PROTO_REDIS:
        resp_encode(c, op);
        return;
    case PROTO_BEANSTALK:
        bs_encode(c, op);
        return;
    default:
        break;
    }
    switch (op->kind) {
    case OP_SET:
        conn_encode_set(c, op);
        break;
    case OP_GET:
    case OP_MGET:
        conn_encode_get(c, op);
        break;
    default:
        conn_encode_queue(c, op);
        break;
    }
}

void conn_fill(struct conn *c, uint64_t now)
{
    const struct bench_workload *wl = c->sh->opts->workload;
    struct conn_pending *p;
    int rc = 1;

    if (c->state != CONN_OPEN)
        return;
    c->wl.ending = now >= c->sh->t_end;
    while (c->more && c->pend_count < c->depth && now < c->sh->t_drain) {
        if (c->iov_head == c->iov_n) {           /* all written: reuse */
            c->iov_head = c->iov_n = 0;
            c->oused = 0;
        }
        if (c->ocap - c->oused < c->op_max || c->iov_cap - c->iov_n < 4)
            break;                               /* wait for a write */
        rc = wl->next(&c->wl, &c->op);
        if (rc == 0) {
            c->more = 0;
            break;
        }
        if (rc == WL_WAIT)
            break;
        if (c->op.kind == OP_PUSH) {             /* distinct, increasing */
            c->last_stamp = now > c->last_stamp ? now : c->last_stamp + 1;
            c->op.stamp = c->last_stamp;
        }
        conn_encode(c, &c->op);
        p = &c->pend[(c->pend_head + c->pend_count) % c->depth];
        p->t_start = now;
        p->nkeys = (uint32_t)c->op.nkeys;
        p->kind = (uint8_t)c->op.kind;
        c->pend_count++;
    }
    c->starved = rc == WL_WAIT && c->pend_count == 0;
    if (!c->more && c->pend_count == 0 && c->iov_head == c->iov_n)
        c->state = CONN_DONE;
}

/* ---- replies ---- */

/* Tell a queue workload what the head request's reply said; 1 when it
 * completed a message's cycle (*stamp: the message's push time or 0). */
static int conn_tell_workload(struct conn *c, int ok, uint64_t *stamp)
{
    const struct bench_workload *wl = c->sh->opts->workload;
    struct bench_reply r;

    *stamp = 0;
    if (!wl->reply)
        return 0;
    r.kind = (enum bench_op_kind)c->pend[c->pend_head].kind;
    r.ok = ok;
    r.items = (int)c->cur_hits;
    r.id = c->cur_id;
    memcpy(r.tag, c->cap, c->cap_len);
    r.taglen = c->cap_len;
    r.acked = c->cur_acked;
    return wl->reply(&c->wl, &r, stamp);
}

/* The head request is complete: count it. */
void conn_finish(struct conn *c, int error, uint64_t now)
{
    struct conn_pending *p = &c->pend[c->pend_head];
    struct bench_stats *st = c->st;
    int ok = !error && !c->cur_error;       /* cur_error: counted already */
    int cycle;
    uint64_t stamp;

    if (error)
        st->errors++;
    cycle = conn_tell_workload(c, ok, &stamp);
    if (ok && p->kind != OP_SETUP) {
        if (p->kind == OP_SET)
            st->stored++;
        if (p->t_start >= c->sh->t_measure && now <= c->sh->t_end) {
            st->ops[p->kind]++;
            hist_record(&st->lat[p->kind], now - p->t_start);
            if (p->kind == OP_GET || p->kind == OP_MGET ||
                p->kind == OP_POP || p->kind == OP_TAKE) {
                st->hits += c->cur_hits;
                st->misses += p->nkeys > c->cur_hits ? p->nkeys - c->cur_hits : 0;
            }
            if (cycle) {
                st->cycles++;
                if (stamp && stamp <= now)
                    hist_record(&st->cycle_lat, now - stamp);
            }
        }
    }
    c->pend_head = (c->pend_head + 1) % c->depth;
    c->pend_count--;
    c->cur_hits = 0;
    c->cur_error = 0;
    c->cur_id = 0;
    c->cur_acked = 0;
    c->cap_len = c->cap_want = 0;
    c->resp_left = c->resp_array = 0;
}

int conn_line_is(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);

    return len >= n && memcmp(line, word, n) == 0 &&
           (len == n || line[n] == ' ');
}

static int conn_is_error_line(const char *line, size_t len)
{
    return conn_line_is(line, len, "ERROR") ||
           conn_line_is(line, len, "CLIENT_ERROR") ||
           conn_line_is(line, len, "SERVER_ERROR");
}

/* Parse the n-th (0-based) space-separated token of line as a size. */
int conn_token_u64(const char *line, size_t len, int nth, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    int digits = 0;

    while (nth > 0) {
        while (i < len && line[i] != ' ')
            i++;
        while (i < len && line[i] == ' ')
            i++;
        nth--;
    }
    while (i < len && line[i] >= '0' && line[i] <= '9' && digits < 19) {
        v = v * 10 + (uint64_t)(line[i++] - '0');
        digits++;
    }
    if (digits == 0 || (i < len && line[i] != ' '))
        return -1;
    *out = v;
    return 0;
}

/* A data block of size bytes comes: skip it (keeping a popped message's
 * first bytes), then its "\r\n"; hit counts it as a value found. */
void conn_expect_value(struct conn *c, uint64_t size, int ends_request, int hit)
{
    uint8_t kind = c->pend[c->pend_head].kind;

    c->cur_hits += (uint32_t)hit;
    c->skip = size;
    c->need_crlf = 1;
    c->value_ends = ends_request;
    c->cap_len = 0;
    c->cap_want = 0;
    if (kind == OP_POP || kind == OP_TAKE)
        c->cap_want = size < BENCH_TAG_LEN ? (size_t)size : BENCH_TAG_LEN;
}

/* A value header line: its size is the size_token-th token. */
static int conn_expect_value_tok(struct conn *c, const char *line, size_t len,
                                 int size_token, int ends_request)
{
    uint64_t size;

    if (conn_token_u64(line, len, size_token, &size) < 0)
        return -1;
    conn_expect_value(c, size, ends_request, 1);
    return 0;
}

/* One reply line for the head request; -1 drops the connection. */
static int conn_reply_line(struct conn *c, const char *line, size_t len,
                           uint64_t now)
{
    struct conn_pending *p = &c->pend[c->pend_head];
    int meta = c->sh->opts->proto == PROTO_META;

    switch (c->sh->opts->proto) {
    case PROTO_REDIS:
        return resp_reply_line(c, line, len, now);
    case PROTO_BEANSTALK:
        return bs_reply_line(c, line, len, now);
    default:
        break;
    }
    switch (p->kind) {
    case OP_GET:
    case OP_MGET:
    case OP_TAKE:
        if (!meta) {
            if (conn_line_is(line, len, "VALUE"))
                return conn_expect_value_tok(c, line, len, 3, 0);
            conn_finish(c, !conn_line_is(line, len, "END"), now);
            return 0;
        }
        if (conn_line_is(line, len, "VA"))
            return conn_expect_value_tok(c, line, len, 1, p->kind == OP_GET);
        if (p->kind == OP_GET) {
            conn_finish(c, !conn_line_is(line, len, "EN"), now);
            return 0;
        }
        if (conn_line_is(line, len, "MN")) {
            conn_finish(c, 0, now);
            return 0;
        }
        if (conn_is_error_line(line, len)) {     /* MN still follows */
            c->st->errors++;
            c->cur_error = 1;
            return 0;
        }
        return -1;
    case OP_SET:
        conn_finish(c, !conn_line_is(line, len, meta ? "HD" : "STORED"), now);
        return 0;
    case OP_PUSH:
        conn_finish(c, !conn_line_is(line, len, "PUSHED"), now);
        return 0;
    case OP_POP:
        if (conn_line_is(line, len, "ITEM")) {
            if (conn_token_u64(line, len, 1, &c->cur_id) < 0)
                return -1;
            return conn_expect_value_tok(c, line, len, 3, 0);
        }
        if (conn_line_is(line, len, "ACKED") || conn_line_is(line, len, "NOT_FOUND")) {
            c->cur_acked = line[0] == 'A' ? 1 : 2;    /* qpop ack=: then the items */
            return 0;
        }
        conn_finish(c, !conn_line_is(line, len, "END"), now);
        return 0;
    case OP_ACK:
        conn_finish(c, !conn_line_is(line, len, "ACKED"), now);
        return 0;
    default:
        return -1;
    }
}

/* Consume what the read buffer holds. */
static int conn_parse(struct conn *c, uint64_t now)
{
    char *line, *nl;
    size_t avail, len;

    for (;;) {
        avail = c->rlen - c->rpos;
        if (c->skip > 0) {
            len = avail < c->skip ? avail : (size_t)c->skip;
            if (c->cap_len < c->cap_want) {
                size_t n = c->cap_want - c->cap_len;

                if (n > len)
                    n = len;
                memcpy(c->cap + c->cap_len, c->rbuf + c->rpos, n);
                c->cap_len += n;
            }
            c->rpos += len;
            c->skip -= len;
            if (c->skip > 0)
                return 0;
            continue;
        }
        if (c->need_crlf) {
            if (avail < 2)
                return 0;
            if (c->rbuf[c->rpos] != '\r' || c->rbuf[c->rpos + 1] != '\n')
                return -1;
            c->rpos += 2;
            c->need_crlf = 0;
            if (c->value_ends)
                conn_finish(c, 0, now);
            continue;
        }
        if (avail == 0)
            return 0;
        line = c->rbuf + c->rpos;
        nl = memchr(line, '\n', avail);
        if (!nl)
            return avail == c->rcap ? -1 : 0;    /* a line longer than 128 KB */
        len = (size_t)(nl - line);
        c->rpos += len + 1;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (c->pend_count == 0)
            return -1;                           /* a reply nobody asked for */
        if (conn_reply_line(c, line, len, now) < 0)
            return -1;
    }
}

/* One read into rbuf, then the replies it completes. */
static int conn_read_once(struct conn *c)
{
    ssize_t n;

    for (;;) {
        if (c->rpos == c->rlen) {
            c->rpos = c->rlen = 0;
        } else if (c->rpos > 0 && c->rcap - c->rlen < 4096) {
            memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
            c->rlen -= c->rpos;
            c->rpos = 0;
        }
        n = c->tls != NULL ? bench_tls_read(c->tls, c->rbuf + c->rlen, c->rcap - c->rlen)
                           : read(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen);
        if (n > 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        c->st->errors++;                         /* closed or failed */
        return -1;
    }
    c->rlen += (size_t)n;
    if (conn_parse(c, bench_now_ns()) < 0) {
        c->st->errors++;
        return -1;
    }
    return 0;
}

/* With TLS, bytes the session already decrypted raise no socket event:
 * read until it holds none. */
int conn_read(struct conn *c)
{
    do {
        if (conn_read_once(c) < 0)
            return -1;
    } while (c->tls != NULL && bench_tls_pending(c->tls) > 0);
    return 0;
}
