/*
 * queue.c - wrappers for mcds-server's queue verbs (doc/protocol.md,
 * "3. Queues"), and the small text-protocol client they need.
 *
 * libmemcached cannot send custom commands, so the handle keeps
 * connections of its own, one per server: opened on first use, probed once
 * for the queue verbs, closed after any transport or protocol error and
 * reopened by the next call. A request is one line (plus a data block for
 * qpush) and every reply is read in full, so a connection is idle between
 * calls; a connection found readable while idle has been closed by the
 * server (or is out of step) and is reopened before use. Timeouts come from
 * the memcached_st's CONNECT_TIMEOUT and POLL_TIMEOUT behaviors, which
 * mcds_set_io_timeout sets.
 *
 * The server of a queue is the one libmemcached picks for the queue's key
 * (memcached_server_by_key), so a pool places queues exactly as it places
 * the other structures and plain keys; a "{tag}" in the name hashes by the
 * tag alone (twemproxy's hash_tag), which keeps a queue and its dead-letter
 * queue together.
 *
 * Memory: requests are built on the stack and sent with sendmsg; replies
 * are read into the connection's buffer, which persists between calls
 * (shrunk back after an unusually large reply); the only allocation a call
 * makes is the result it returns (mcds_queue_pop's messages).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "mcds_int.h"

#define BUF_INITIAL 16384        /* reply buffer, kept between calls */
#define BUF_KEEP (1024 * 1024)   /* larger buffers are freed after a call */
#define LINE_MAX_LEN 4096        /* a reply line longer than this is bogus */
#define DEFAULT_TIMEOUT_MS 2000  /* when the behaviors hold no usable value */

struct mcds__xconn {
    char *name;       /* host name, or the socket path */
    unsigned port;    /* 0 for a UNIX socket */
    int fd;           /* -1 when closed */
    char *buf;        /* reply bytes [pos, len) not consumed yet */
    size_t cap, len, pos;
};

/* One call in progress. */
typedef struct xcall {
    mcds_t *h;
    mcds__xconn_t *c;
    int io_ms;        /* per step of I/O */
    int first_ms;     /* extra wait for the first reply byte (qpop wait=) */
} xcall_t;

/* ---- details for mcds_last_detail ---- */

static void set_detail(xcall_t *x, const char *what, const char *text,
                       size_t len)
{
    mcds_t *h = x->h;

    if (x->c != NULL)
        snprintf(h->detail, sizeof h->detail, "%s:%u: %s%.*s",
                 x->c->name, x->c->port, what, (int)len, text);
    else
        snprintf(h->detail, sizeof h->detail, "%s%.*s", what, (int)len,
                 text);
}

static void detail(xcall_t *x, const char *text)
{
    set_detail(x, "", text, strlen(text));
}

static void set_errno_detail(xcall_t *x, const char *what, int err)
{
    char text[128];
    snprintf(text, sizeof text, "%s: %s", what, strerror(err));
    detail(x, text);
}

/* ---- connections ---- */

static void conn_close(mcds__xconn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->len = c->pos = 0;
}

void mcds__xconns_free(mcds_t *h)
{
    size_t i;

    for (i = 0; i < h->nxconns; i++) {
        conn_close(&h->xconns[i]);
        free(h->xconns[i].name);
        free(h->xconns[i].buf);
    }
    free(h->xconns);
    h->xconns = NULL;
    h->nxconns = 0;
}

/* A timeout behavior in ms, or the default when unset or absurd. */
static int behavior_ms(memcached_st *mc, memcached_behavior_t b)
{
    uint64_t v = memcached_behavior_get(mc, b);
    if (v == 0 || v > 3600 * 1000)
        return DEFAULT_TIMEOUT_MS;
    return (int)v;
}

/* Waits for events on fd up to ms: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, int ms)
{
    struct pollfd p;
    int64_t deadline = mcds__mono_ms() + ms;

    for (;;) {
        int r, left = (int)(deadline - mcds__mono_ms());
        if (left < 0)
            left = 0;
        p.fd = fd;
        p.events = events;
        p.revents = 0;
        r = poll(&p, 1, left);
        if (r > 0)
            return 1;
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

/* Non-blocking connect bounded by ms: 0, or an errno value. */
static int connect_addr(int fd, const struct sockaddr *sa, socklen_t salen,
                        int ms)
{
    int err = 0;
    socklen_t elen = sizeof err;

    if (connect(fd, sa, salen) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EINTR)
        return errno;
    switch (wait_fd(fd, POLLOUT, ms)) {
    case 0:
        return ETIMEDOUT;
    case -1:
        return errno;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
        return errno;
    return err;
}

static int new_socket(int family)
{
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static mcds_status_t open_unix(xcall_t *x, int ms)
{
    struct sockaddr_un sa;
    int fd, err;

    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(x->c->name) >= sizeof sa.sun_path) {
        detail(x, "socket path too long");
        return MCDS_INVALID;
    }
    strcpy(sa.sun_path, x->c->name);
    fd = new_socket(AF_UNIX);
    if (fd < 0) {
        set_errno_detail(x, "socket", errno);
        return MCDS_SERVER_DOWN;
    }
    err = connect_addr(fd, (struct sockaddr *)&sa, sizeof sa, ms);
    if (err != 0) {
        close(fd);
        set_errno_detail(x, "connect", err);
        return MCDS_SERVER_DOWN;
    }
    x->c->fd = fd;
    return MCDS_OK;
}

static mcds_status_t open_tcp(xcall_t *x, int ms)
{
    struct addrinfo hints, *res = NULL, *ai;
    char port[16];
    int rc, err = ECONNREFUSED, one = 1;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%u", x->c->port);
    rc = getaddrinfo(x->c->name, port, &hints, &res);
    if (rc != 0) {
        set_detail(x, "host lookup: ", gai_strerror(rc),
                   strlen(gai_strerror(rc)));
        return rc == EAI_MEMORY ? MCDS_NO_MEMORY : MCDS_SERVER_DOWN;
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        int fd = new_socket(ai->ai_family);
        if (fd < 0) {
            err = errno;
            continue;
        }
        err = connect_addr(fd, ai->ai_addr, ai->ai_addrlen, ms);
        if (err == 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            x->c->fd = fd;
            break;
        }
        close(fd);
    }
    freeaddrinfo(res);
    if (x->c->fd < 0) {
        set_errno_detail(x, "connect", err);
        return MCDS_SERVER_DOWN;
    }
    return MCDS_OK;
}

/* Makes room for more bytes: drops nothing (offsets stay valid during a
 * call), grows the buffer when full. */
static mcds_status_t buf_room(mcds__xconn_t *c)
{
    char *p;
    size_t cap;

    if (c->len < c->cap)
        return MCDS_OK;
    cap = c->cap ? c->cap * 2 : BUF_INITIAL;
    p = realloc(c->buf, cap);
    if (p == NULL)
        return MCDS_NO_MEMORY;
    c->buf = p;
    c->cap = cap;
    return MCDS_OK;
}

/* Reads what is there (waiting up to the step timeout): MCDS_OK with at
 * least one more byte, or an error (the connection is then closed). */
static mcds_status_t fill(xcall_t *x)
{
    mcds__xconn_t *c = x->c;
    mcds_status_t st = buf_room(c);
    int ms = x->io_ms + x->first_ms;

    if (st != MCDS_OK) {
        detail(x, "no memory for the reply");
        conn_close(c);
        return st;
    }
    for (;;) {
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (n > 0) {
            c->len += (size_t)n;
            x->first_ms = 0;
            return MCDS_OK;
        }
        if (n == 0) {
            detail(x, "connection closed by the server");
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            set_errno_detail(x, "recv", errno);
            break;
        }
        n = wait_fd(c->fd, POLLIN, ms);
        if (n == 0) {
            detail(x, "timed out waiting for the reply");
            break;
        }
        if (n < 0) {
            set_errno_detail(x, "poll", errno);
            break;
        }
    }
    conn_close(c);
    return MCDS_SERVER_DOWN;
}

/* The next reply line: its offset in the buffer and length (without the
 * "\r\n"); consumed. */
static mcds_status_t read_line(xcall_t *x, size_t *off, size_t *len)
{
    mcds__xconn_t *c = x->c;
    size_t scan = c->pos;

    for (;;) {
        /* memchr must not see a NULL buffer, even for 0 bytes */
        char *nl = c->len > scan ? memchr(c->buf + scan, '\n', c->len - scan) : NULL;
        if (nl != NULL) {
            size_t end = (size_t)(nl - c->buf);
            if (end == c->pos || nl[-1] != '\r')
                break; /* replies end in \r\n */
            *off = c->pos;
            *len = end - 1 - c->pos;
            c->pos = end + 1;
            return MCDS_OK;
        }
        scan = c->len;
        if (c->len - c->pos > LINE_MAX_LEN)
            break;
        mcds_status_t st = fill(x);
        if (st != MCDS_OK)
            return st;
    }
    detail(x, "malformed reply line");
    conn_close(c);
    return MCDS_SERVER_ERROR;
}

/* Makes the n bytes at the read position available; not consumed. */
static mcds_status_t need(xcall_t *x, size_t n)
{
    while (x->c->len - x->c->pos < n) {
        mcds_status_t st = fill(x);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

/* Sends every byte of iov (which it modifies). */
static mcds_status_t send_all(xcall_t *x, struct iovec *iov, int n)
{
    struct msghdr m;

    memset(&m, 0, sizeof m);
    while (n > 0) {
        ssize_t w;
        m.msg_iov = iov;
        m.msg_iovlen = (size_t)n;
        w = sendmsg(x->c->fd, &m, MSG_NOSIGNAL);
        if (w < 0) {
            int r;
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                set_errno_detail(x, "send", errno);
                conn_close(x->c);
                return MCDS_SERVER_DOWN;
            }
            r = wait_fd(x->c->fd, POLLOUT, x->io_ms);
            if (r <= 0) {
                if (r == 0)
                    detail(x, "timed out sending the request");
                else
                    set_errno_detail(x, "poll", errno);
                conn_close(x->c);
                return MCDS_SERVER_DOWN;
            }
            continue;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return MCDS_OK;
}

static mcds_status_t send_line(xcall_t *x, const char *line, size_t len)
{
    struct iovec iov = {(void *)line, len};
    return send_all(x, &iov, 1);
}

static int line_is(const char *p, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(p, word, len) == 0;
}

static int line_starts(const char *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(p, prefix, n) == 0;
}

/* The status of a reply line that is not the verb's success line. Lines a
 * verb never gets (NOT_STORED from qack, say) and garbage are protocol
 * errors; after those and after ERROR (the server does not know the verb,
 * and may read our data block as commands) the connection is closed. */
static mcds_status_t reply_error(xcall_t *x, size_t off, size_t len,
                                 int not_found_ok, int not_stored_ok)
{
    const char *p = x->c->buf + off;
    mcds_status_t st;
    int keep = 1;

    if (not_found_ok && line_is(p, len, "NOT_FOUND"))
        st = MCDS_NOT_FOUND;
    else if (not_stored_ok && line_is(p, len, "NOT_STORED"))
        st = MCDS_FULL;
    else if (line_is(p, len, "CLIENT_ERROR key holds another type of value"))
        st = MCDS_WRONG_TYPE;
    else if (line_starts(p, len, "SERVER_ERROR object too large"))
        st = MCDS_TOO_LARGE;
    else if (line_starts(p, len, "SERVER_ERROR out of memory"))
        st = MCDS_NO_MEMORY;
    else if (line_starts(p, len, "SERVER_ERROR") ||
             line_starts(p, len, "CLIENT_ERROR"))
        st = MCDS_SERVER_ERROR;
    else if (line_is(p, len, "ERROR") || line_starts(p, len, "ERROR ")) {
        st = MCDS_UNSUPPORTED;
        keep = 0;
    } else {
        st = MCDS_SERVER_ERROR;
        keep = 0;
    }
    set_detail(x, keep ? "" : "unexpected reply: ", p,
               len > 200 ? 200 : len);
    if (!keep)
        conn_close(x->c);
    return st;
}

/* Asks once per connection whether the server has the queue verbs (a
 * server without them would answer qpush's line with ERROR and then read
 * its data block as commands). Any answer but ERROR means yes. */
static mcds_status_t probe(xcall_t *x)
{
    static const char cmd[] = "qstats mcds:probe\r\n";
    size_t off, len;
    mcds_status_t st = send_line(x, cmd, sizeof cmd - 1);

    while (st == MCDS_OK) {
        st = read_line(x, &off, &len);
        if (st != MCDS_OK)
            break;
        if (line_starts(x->c->buf + off, len, "STAT "))
            continue;   /* someone made it a queue: read up to END */
        if (line_is(x->c->buf + off, len, "ERROR")) {
            detail(x, "the server has no queue verbs (ERROR)");
            conn_close(x->c);
            return MCDS_UNSUPPORTED;
        }
        break;
    }
    return st;
}

/* The connection to server s, opened (and probed) if need be. */
static mcds_status_t conn_for(xcall_t *x, const memcached_instance_st *s)
{
    mcds_t *h = x->h;
    const char *name = memcached_server_name(s);
    const char *type = memcached_server_type(s);
    int is_unix = type != NULL && strcmp(type, "SOCKET") == 0;
    unsigned port = is_unix ? 0 : (unsigned)memcached_server_port(s);
    mcds__xconn_t *c = NULL;
    mcds_status_t st;
    size_t i;

    if (name == NULL)
        return MCDS_FAILURE;
    for (i = 0; i < h->nxconns && c == NULL; i++) {
        if (h->xconns[i].port == port && strcmp(h->xconns[i].name, name) == 0)
            c = &h->xconns[i];
    }
    if (c == NULL) {
        mcds__xconn_t *v = realloc(h->xconns, (h->nxconns + 1) * sizeof *v);
        if (v == NULL)
            return MCDS_NO_MEMORY;
        h->xconns = v;
        c = &v[h->nxconns];
        memset(c, 0, sizeof *c);
        c->fd = -1;
        c->port = port;
        c->name = strdup(name);
        if (c->name == NULL)
            return MCDS_NO_MEMORY;
        h->nxconns++;
    }
    x->c = c;
    c->len = c->pos = 0;
    if (c->fd >= 0 && wait_fd(c->fd, POLLIN, 0) != 0)
        conn_close(c); /* closed by the server while idle (or out of step) */
    if (c->fd >= 0)
        return MCDS_OK;
    {
        int ms = behavior_ms(h->mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT);
        st = is_unix ? open_unix(x, ms) : open_tcp(x, ms);
    }
    if (st == MCDS_OK)
        st = probe(x);
    c->len = c->pos = 0;
    return st;
}

/* "{tag}" in a name: the server is chosen by tag alone. */
static void route_key(const char *q, size_t qlen, const char **key,
                      size_t *klen)
{
    const char *open = memchr(q, '{', qlen), *close;

    *key = q;
    *klen = qlen;
    if (open == NULL)
        return;
    close = memchr(open + 1, '}', qlen - (size_t)(open + 1 - q));
    if (close != NULL && close > open + 1) {
        *key = open + 1;
        *klen = (size_t)(close - open - 1);
    }
}

static mcds_status_t check_name(const char *q, size_t *len)
{
    size_t i;

    if (q == NULL || q[0] == '\0')
        return MCDS_INVALID;
    *len = strlen(q);
    if (*len > MCDS_QUEUE_NAME_MAX)
        return MCDS_KEY_TOO_LONG;
    for (i = 0; i < *len; i++) {
        unsigned char ch = (unsigned char)q[i];
        if (ch <= ' ' || ch == 0x7f)
            return MCDS_INVALID;
    }
    return MCDS_OK;
}

/* Starts a call on queue q: checks the name, finds its server and makes
 * sure the connection is open. */
static mcds_status_t begin(xcall_t *x, mcds_t *h, const char *q)
{
    const memcached_instance_st *s;
    memcached_return_t rc = MEMCACHED_SUCCESS;
    const char *key;
    size_t qlen, klen;
    mcds_status_t st;

    memset(x, 0, sizeof *x);
    if (h == NULL)
        return MCDS_INVALID;
    x->h = h;
    h->detail[0] = '\0';
    st = check_name(q, &qlen);
    if (st != MCDS_OK)
        return st;
    x->io_ms = behavior_ms(h->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT);
    route_key(q, qlen, &key, &klen);
    s = memcached_server_by_key(h->mc, key, klen, &rc);
    if (s == NULL) {
        st = mcds__from_memcached(rc);
        set_detail(x, "no server for the key: ", memcached_strerror(h->mc, rc),
                   strlen(memcached_strerror(h->mc, rc)));
        return st == MCDS_OK ? MCDS_FAILURE : st;
    }
    return conn_for(x, s);
}

/* Ends a call: remembers its failure for mcds_last_detail (or forgets the
 * previous one), and lets go of a large reply buffer. */
static mcds_status_t end(xcall_t *x, mcds_status_t st)
{
    mcds__xconn_t *c = x->c;

    if (x->h == NULL)
        return st;
    if (st == MCDS_OK || st == MCDS_EXISTS)
        x->h->detail[0] = '\0';
    else if (x->h->detail[0] == '\0')
        detail(x, mcds_strerror(st));
    if (c != NULL) {
        if (c->fd >= 0 && c->pos != c->len) {
            conn_close(c); /* bytes nobody asked for: out of step */
        }
        c->len = c->pos = 0;
        if (c->cap > BUF_KEEP) {
            free(c->buf);
            c->buf = NULL;
            c->cap = 0;
        }
    }
    return st;
}

/* Sends line and reads a one-line reply: MCDS_OK when it is ok_word
 * (exactly, or followed by a space when *arg is wanted: the number after
 * it goes to *arg), else the mapped error. */
static mcds_status_t simple(xcall_t *x, const char *line, size_t llen,
                            const char *ok_word, uint64_t *arg,
                            int not_found_ok)
{
    size_t off, len, wlen = strlen(ok_word);
    mcds_status_t st = send_line(x, line, llen);
    const char *p;

    if (st == MCDS_OK)
        st = read_line(x, &off, &len);
    if (st != MCDS_OK)
        return st;
    p = x->c->buf + off;
    if (arg == NULL && line_is(p, len, ok_word))
        return MCDS_OK;
    if (arg != NULL && len > wlen + 1 && memcmp(p, ok_word, wlen) == 0 &&
        p[wlen] == ' ') {
        char num[24], *e;
        size_t n = len - wlen - 1;
        if (n < sizeof num) {
            memcpy(num, p + wlen + 1, n);
            num[n] = '\0';
            errno = 0;
            *arg = strtoull(num, &e, 10);
            if (*e == '\0' && errno == 0 && num[0] >= '0' && num[0] <= '9')
                return MCDS_OK;
        }
    }
    return reply_error(x, off, len, not_found_ok, 0);
}

/* "<secs>.<ms>" for a duration in ms. */
static void fmt_secs(char *out, size_t size, unsigned ms)
{
    snprintf(out, size, "%u.%03u", ms / 1000, ms % 1000);
}

/* ---- the verbs ---- */

mcds_status_t mcds_queue_create(mcds_t *h, const char *queue,
                                const mcds_queue_opts_t *opts)
{
    char line[640], secs[24];
    size_t n, dlen;
    xcall_t x;
    mcds_status_t st;

    if (opts != NULL && opts->dlq != NULL) {
        st = check_name(opts->dlq, &dlen);
        if (st != MCDS_OK)
            return st;
    }
    st = begin(&x, h, queue);
    if (st != MCDS_OK)
        return end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qcreate %s", queue);
    if (opts != NULL && opts->lease_ms > 0) {
        fmt_secs(secs, sizeof secs, opts->lease_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " lease=%s", secs);
    }
    if (opts != NULL && opts->max_deliveries > 0)
        n += (size_t)snprintf(line + n, sizeof line - n, " maxdeliver=%u",
                              (unsigned)opts->max_deliveries);
    if (opts != NULL && opts->max_length > 0)
        n += (size_t)snprintf(line + n, sizeof line - n, " maxlen=%llu",
                              (unsigned long long)opts->max_length);
    if (opts != NULL && opts->dlq != NULL)
        n += (size_t)snprintf(line + n, sizeof line - n, " dlq=%s", opts->dlq);
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = send_line(&x, line, n);
    if (st == MCDS_OK) {
        size_t off, len;
        st = read_line(&x, &off, &len);
        if (st == MCDS_OK && line_is(x.c->buf + off, len, "EXISTS"))
            st = MCDS_EXISTS;
        else if (st == MCDS_OK && !line_is(x.c->buf + off, len, "CREATED"))
            st = reply_error(&x, off, len, 0, 0);
    }
    return end(&x, st);
}

mcds_status_t mcds_queue_push(mcds_t *h, const char *queue, const void *data,
                              size_t len, uint32_t flags, uint32_t delay_s,
                              uint32_t priority, uint64_t *id)
{
    char line[320];
    struct iovec iov[3];
    uint64_t got = 0;
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;
    const char *p;

    if ((data == NULL && len > 0) || delay_s > INT32_MAX)
        return MCDS_INVALID;
    if (len > INT32_MAX - 2)
        return MCDS_TOO_LARGE; /* more than the protocol can say */
    st = begin(&x, h, queue);
    if (st != MCDS_OK)
        return end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qpush %s %u %u %zu %u\r\n",
                         queue, (unsigned)flags, (unsigned)delay_s, len,
                         (unsigned)priority);
    iov[0].iov_base = line;
    iov[0].iov_len = n;
    iov[1].iov_base = (void *)data;
    iov[1].iov_len = len;
    iov[2].iov_base = (void *)"\r\n";
    iov[2].iov_len = 2;
    st = send_all(&x, iov, 3);
    if (st == MCDS_OK)
        st = read_line(&x, &off, &llen);
    if (st == MCDS_OK) {
        p = x.c->buf + off;
        if (llen > 7 && memcmp(p, "PUSHED ", 7) == 0) {
            char num[24], *e;
            size_t k = llen - 7;
            st = MCDS_SERVER_ERROR;
            if (k < sizeof num && p[7] >= '0' && p[7] <= '9') {
                memcpy(num, p + 7, k);
                num[k] = '\0';
                errno = 0;
                got = strtoull(num, &e, 10);
                if (*e == '\0' && errno == 0)
                    st = MCDS_OK;
            }
            if (st != MCDS_OK)
                st = reply_error(&x, off, llen, 0, 0);
        } else {
            st = reply_error(&x, off, llen, 0, 1);
        }
    }
    if (st == MCDS_OK && id != NULL)
        *id = got;
    return end(&x, st);
}

/* A parsed ITEM header: where its data sits in the reply buffer. */
typedef struct msg_at {
    uint64_t id;
    uint32_t flags, deliveries;
    size_t len, off;
} msg_at_t;

/* "ITEM <id> <flags> <bytes> <deliveries>" into m; 0 or -1. */
static int parse_item(const char *p, size_t len, msg_at_t *m)
{
    char tmp[LINE_MAX_LEN + 1], *s, *e;
    unsigned long long v[4];
    int i;

    if (len < 5 || len > LINE_MAX_LEN || memcmp(p, "ITEM ", 5) != 0)
        return -1;
    memcpy(tmp, p + 5, len - 5);
    tmp[len - 5] = '\0';
    s = tmp;
    for (i = 0; i < 4; i++) {
        if (*s < '0' || *s > '9')
            return -1;
        errno = 0;
        v[i] = strtoull(s, &e, 10);
        if (errno != 0 || (i < 3 && *e != ' ') || (i == 3 && *e != '\0'))
            return -1;
        s = e + 1;
    }
    if (v[1] > UINT32_MAX || v[3] > UINT32_MAX || v[2] > SIZE_MAX / 2)
        return -1;
    m->id = v[0];
    m->flags = (uint32_t)v[1];
    m->len = (size_t)v[2];
    m->deliveries = (uint32_t)v[3];
    return 0;
}

/* Copies the parsed messages out of the reply buffer into one block. */
static mcds_status_t pack_msgs(const xcall_t *x, const msg_at_t *at, size_t n,
                               mcds_queue_msg_t **out)
{
    size_t bytes = n * sizeof(mcds_queue_msg_t), i;
    mcds_queue_msg_t *m;
    char *text;

    for (i = 0; i < n; i++)
        bytes += at[i].len + 1;
    m = malloc(bytes);
    if (m == NULL)
        return MCDS_NO_MEMORY;
    text = (char *)(m + n);
    for (i = 0; i < n; i++) {
        m[i].id = at[i].id;
        m[i].flags = at[i].flags;
        m[i].deliveries = at[i].deliveries;
        m[i].len = at[i].len;
        m[i].data = text;
        if (at[i].len > 0)
            memcpy(text, x->c->buf + at[i].off, at[i].len);
        text[at[i].len] = '\0';
        text += at[i].len + 1;
    }
    *out = m;
    return MCDS_OK;
}

mcds_status_t mcds_queue_pop(mcds_t *h, const char *queue, unsigned max,
                             unsigned lease_ms, unsigned wait_ms,
                             mcds_queue_msg_t **msgs, size_t *count)
{
    msg_at_t at[MCDS_QUEUE_POP_MAX];
    char line[360], secs[24];
    size_t n, got = 0, off, len;
    xcall_t x;
    mcds_status_t st;

    if (msgs == NULL || count == NULL)
        return MCDS_INVALID;
    *msgs = NULL;
    *count = 0;
    if (max < 1 || max > MCDS_QUEUE_POP_MAX)
        return MCDS_INVALID;
    st = begin(&x, h, queue);
    if (st != MCDS_OK)
        return end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qpop %s %u", queue, max);
    if (lease_ms > 0) {
        fmt_secs(secs, sizeof secs, lease_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " lease=%s", secs);
    }
    if (wait_ms > 0) {
        fmt_secs(secs, sizeof secs, wait_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " wait=%s", secs);
        x.first_ms = (int)(wait_ms > INT32_MAX / 2 ? INT32_MAX / 2 : wait_ms);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = send_line(&x, line, n);
    while (st == MCDS_OK) {
        const char *p;
        st = read_line(&x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x.c->buf + off;
        if (line_is(p, len, "END"))
            break;
        if (got == max || parse_item(p, len, &at[got]) != 0) {
            st = reply_error(&x, off, len, 0, 0);
            break;
        }
        st = need(&x, at[got].len + 2);
        if (st != MCDS_OK)
            break;
        at[got].off = x.c->pos;
        if (memcmp(x.c->buf + x.c->pos + at[got].len, "\r\n", 2) != 0) {
            detail(&x, "data block not ended by \\r\\n");
            conn_close(x.c);
            st = MCDS_SERVER_ERROR;
            break;
        }
        x.c->pos += at[got].len + 2;
        got++;
    }
    if (st == MCDS_OK && got > 0) {
        st = pack_msgs(&x, at, got, msgs);
        if (st == MCDS_OK)
            *count = got;
    }
    return end(&x, st);
}

void mcds_queue_msgs_free(mcds_queue_msg_t *msgs)
{
    free(msgs);
}

/* qack / qrelease / qtouch: "<verb> <queue> <id>[ <arg>]". */
static mcds_status_t by_id(mcds_t *h, const char *queue, const char *verb,
                           uint64_t id, const char *arg, const char *ok)
{
    char line[340];
    size_t n;
    xcall_t x;
    mcds_status_t st = begin(&x, h, queue);

    if (st != MCDS_OK)
        return end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "%s %s %llu%s%s\r\n", verb, queue,
                         (unsigned long long)id, arg ? " " : "",
                         arg ? arg : "");
    return end(&x, simple(&x, line, n, ok, NULL, 1));
}

mcds_status_t mcds_queue_ack(mcds_t *h, const char *queue, uint64_t id)
{
    return by_id(h, queue, "qack", id, NULL, "ACKED");
}

mcds_status_t mcds_queue_release(mcds_t *h, const char *queue, uint64_t id,
                                 uint32_t delay_s)
{
    char arg[16];

    if (delay_s > INT32_MAX)
        return MCDS_INVALID;
    snprintf(arg, sizeof arg, "%u", (unsigned)delay_s);
    return by_id(h, queue, "qrelease", id, delay_s ? arg : NULL, "RELEASED");
}

mcds_status_t mcds_queue_touch(mcds_t *h, const char *queue, uint64_t id,
                               unsigned lease_ms)
{
    char arg[24];

    fmt_secs(arg, sizeof arg, lease_ms);
    return by_id(h, queue, "qtouch", id, lease_ms ? arg : NULL, "TOUCHED");
}

/* One "STAT <name> <value>" line into st; unknown names are skipped. */
static void stat_line(const char *p, size_t len, mcds_queue_stats_t *s)
{
    static const struct {
        const char *name;
        size_t at;
    } fields[] = {
#define F(n) {#n, offsetof(mcds_queue_stats_t, n)}
        F(ready), F(delayed), F(in_flight), F(waiters), F(pushed),
        F(popped), F(acked), F(released), F(lease_expired), F(dead),
        F(purged), {"age_oldest_ready", offsetof(mcds_queue_stats_t,
                                                 age_oldest_ready_s)},
        F(lease_ms), F(max_deliveries), F(max_length),
#undef F
    };
    const char *name = p + 5, *sp;
    size_t nlen, vlen, i;

    sp = memchr(name, ' ', len - 5);
    if (sp == NULL)
        return;
    nlen = (size_t)(sp - name);
    vlen = len - 5 - nlen - 1;
    if (nlen == 3 && memcmp(name, "dlq", 3) == 0) {
        if (vlen > MCDS_QUEUE_NAME_MAX)
            vlen = MCDS_QUEUE_NAME_MAX;
        memcpy(s->dlq, sp + 1, vlen);
        s->dlq[vlen] = '\0';
        return;
    }
    for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strlen(fields[i].name) == nlen &&
            memcmp(fields[i].name, name, nlen) == 0) {
            char num[24];
            if (vlen == 0 || vlen >= sizeof num)
                return;
            memcpy(num, sp + 1, vlen);
            num[vlen] = '\0';
            *(uint64_t *)((char *)s + fields[i].at) = strtoull(num, NULL, 10);
            return;
        }
    }
}

mcds_status_t mcds_queue_stats(mcds_t *h, const char *queue,
                               mcds_queue_stats_t *stats)
{
    char line[280];
    size_t n, off, len;
    xcall_t x;
    mcds_status_t st;
    int lines = 0;

    if (stats == NULL)
        return MCDS_INVALID;
    memset(stats, 0, sizeof *stats);
    st = begin(&x, h, queue);
    if (st != MCDS_OK)
        return end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qstats %s\r\n", queue);
    st = send_line(&x, line, n);
    while (st == MCDS_OK) {
        const char *p;
        st = read_line(&x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x.c->buf + off;
        if (line_starts(p, len, "STAT ")) {
            stat_line(p, len, stats);
            lines++;
        } else if (lines > 0 && line_is(p, len, "END")) {
            break;
        } else {
            st = reply_error(&x, off, len, lines == 0, 0);
        }
    }
    if (st != MCDS_OK)
        memset(stats, 0, sizeof *stats);
    return end(&x, st);
}

mcds_status_t mcds_queue_purge(mcds_t *h, const char *queue, uint64_t *purged)
{
    char line[280];
    uint64_t n = 0;
    size_t len;
    xcall_t x;
    mcds_status_t st = begin(&x, h, queue);

    if (st != MCDS_OK)
        return end(&x, st);
    len = (size_t)snprintf(line, sizeof line, "qpurge %s\r\n", queue);
    st = simple(&x, line, len, "PURGED", &n, 1);
    if (st == MCDS_OK && purged != NULL)
        *purged = n;
    return end(&x, st);
}

mcds_status_t mcds_queue_delete(mcds_t *h, const char *queue)
{
    char line[280];
    size_t len;
    xcall_t x;
    mcds_status_t st = begin(&x, h, queue);

    if (st != MCDS_OK)
        return end(&x, st);
    len = (size_t)snprintf(line, sizeof line, "delete %s\r\n", queue);
    return end(&x, simple(&x, line, len, "DELETED", NULL, 1));
}

/* ---- requests of other structures' verbs (mcds_int.h) ---- */

/* Sends line on x's connection and hands the reply lines to fn. */
static mcds_status_t xrequest_on(xcall_t *x, const char *line, size_t len,
                                 mcds__xline_fn fn, void *arg)
{
    mcds_status_t st = send_line(x, line, len);
    size_t off, n;

    while (st == MCDS_OK) {
        int r;
        st = read_line(x, &off, &n);
        if (st != MCDS_OK)
            break;
        r = fn(arg, x->c->buf + off, n);
        if (r == MCDS__XDONE)
            break;
        if (r == MCDS__XERROR)
            st = reply_error(x, off, n, 1, 0);
    }
    return st;
}

mcds_status_t mcds__xrequest(mcds_t *h, const char *route, const char *line,
                             size_t len, mcds__xline_fn fn, void *arg)
{
    xcall_t x;
    mcds_status_t st;
    uint32_t i, n;

    if (route != NULL) {
        st = begin(&x, h, route);
        if (st == MCDS_OK)
            st = xrequest_on(&x, line, len, fn, arg);
        return end(&x, st);
    }
    if (h == NULL)
        return MCDS_INVALID;
    n = memcached_server_count(h->mc);
    st = n > 0 ? MCDS_OK : MCDS_INVALID;
    for (i = 0; i < n && st == MCDS_OK; i++) {
        memset(&x, 0, sizeof x);
        x.h = h;
        h->detail[0] = '\0';
        x.io_ms = behavior_ms(h->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT);
        st = conn_for(&x, memcached_server_instance_by_position(h->mc, i));
        if (st == MCDS_OK)
            st = xrequest_on(&x, line, len, fn, arg);
        st = end(&x, st);
    }
    return st;
}
