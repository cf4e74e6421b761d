/*
 * xconn.c - the small text-protocol client that the wrappers of
 * mcds-server's own verbs (queue.c, list.c) share.
 *
 * libmemcached cannot send custom commands, so the handle keeps
 * connections of its own, one per server: opened on first use, probed once
 * for the extended verbs, closed after any transport or protocol error and
 * reopened by the next call. A request is one line (plus data blocks) and
 * every reply is read in full, so a connection is idle between calls; a
 * connection found readable while idle has been closed by the server (or
 * is out of step) and is reopened before use. Timeouts come from the
 * memcached_st's CONNECT_TIMEOUT and POLL_TIMEOUT behaviors, which
 * mcds_set_io_timeout sets.
 *
 * The server of a structure is the one libmemcached picks for its key
 * (memcached_server_by_key), so a pool places queues and lists exactly as
 * it places the other structures and plain keys; a "{tag}" in the name
 * hashes by the tag alone (twemproxy's hash_tag), which keeps a queue and
 * its dead-letter queue together. When that server is the service address
 * of an entry that names replicas, the call's member is picked by
 * xroute.c when its request is sent, and a refusal as a replica in the
 * first reply line sends the request again elsewhere (mcds__xr_*).
 *
 * Memory: requests are built on the stack and sent with sendmsg; replies
 * are read into the connection's buffer, which persists between calls
 * (shrunk back after an unusually large reply).
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

#include "xconn.h"

#define BUF_INITIAL 16384        /* reply buffer, kept between calls */
#define BUF_KEEP (1024 * 1024)   /* larger buffers are freed after a call */
#define DEFAULT_TIMEOUT_MS 2000  /* when the behaviors hold no usable value */

/* ---- details for mcds_last_detail ---- */

void mcds__x_set_detail(xcall_t *x, const char *what, const char *text,
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

void mcds__x_detail(xcall_t *x, const char *text)
{
    mcds__x_set_detail(x, "", text, strlen(text));
}

static void set_errno_detail(xcall_t *x, const char *what, int err)
{
    char text[128];
    snprintf(text, sizeof text, "%s: %s", what, strerror(err));
    mcds__x_detail(x, text);
}

/* ---- connections ---- */

void mcds__x_conn_close(mcds__xconn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->len = c->pos = 0;
}

mcds__xconn_t *mcds__xconn_new(const char *name, unsigned port)
{
    mcds__xconn_t *c = calloc(1, sizeof *c);

    if (c == NULL)
        return NULL;
    c->fd = -1;
    c->port = port;
    c->name = strdup(name);
    if (c->name == NULL) {
        free(c);
        return NULL;
    }
    return c;
}

void mcds__xconn_free(mcds__xconn_t *c)
{
    if (c == NULL)
        return;
    mcds__x_conn_close(c);
    free(c->name);
    free(c->buf);
    free(c);
}

void mcds__xconns_free(mcds_t *h)
{
    size_t i;

    for (i = 0; i < h->nxconns; i++)
        mcds__xconn_free(h->xconns[i]);
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
        mcds__x_detail(x, "socket path too long");
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
        mcds__x_set_detail(x, "host lookup: ", gai_strerror(rc),
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
        mcds__x_detail(x, "no memory for the reply");
        mcds__x_conn_close(c);
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
            mcds__x_detail(x, "connection closed by the server");
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
            mcds__x_detail(x, "timed out waiting for the reply");
            break;
        }
        if (n < 0) {
            set_errno_detail(x, "poll", errno);
            break;
        }
    }
    mcds__x_conn_close(c);
    return MCDS_SERVER_DOWN;
}

/* The next reply line: its offset in the buffer and length (without the
 * "\r\n"); consumed. The first line of a request's reply on a replica set
 * is checked for a refusal (xroute.c). */
mcds_status_t mcds__x_read_line(xcall_t *x, size_t *off, size_t *len)
{
    mcds_status_t st = mcds__x_read_line_raw(x, off, len);

    if (st == MCDS_OK && x->rs != NULL && x->waiting)
        st = mcds__xr_first_line(x, off, len);
    return st;
}

mcds_status_t mcds__x_read_line_raw(xcall_t *x, size_t *off, size_t *len)
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
    mcds__x_detail(x, "malformed reply line");
    mcds__x_conn_close(c);
    return MCDS_SERVER_ERROR;
}

/* Makes the n bytes at the read position available; not consumed. */
mcds_status_t mcds__x_need(xcall_t *x, size_t n)
{
    while (x->c->len - x->c->pos < n) {
        mcds_status_t st = fill(x);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

/* Reads a data block of len bytes and its "\r\n": *off is where its
 * bytes start in the buffer; consumed. A block not ended by "\r\n" closes
 * the connection (MCDS_SERVER_ERROR). */
mcds_status_t mcds__x_data_block(xcall_t *x, size_t len, size_t *off)
{
    mcds_status_t st = mcds__x_need(x, len + 2);

    if (st != MCDS_OK)
        return st;
    if (memcmp(x->c->buf + x->c->pos + len, "\r\n", 2) != 0) {
        mcds__x_detail(x, "data block not ended by \\r\\n");
        mcds__x_conn_close(x->c);
        return MCDS_SERVER_ERROR;
    }
    *off = x->c->pos;
    x->c->pos += len + 2;
    return MCDS_OK;
}

/* Sends every byte of iov (which it modifies); on a replica set through
 * xroute.c, which picks the member first. */
mcds_status_t mcds__x_send_all(xcall_t *x, struct iovec *iov, int n)
{
    if (x->rs != NULL)
        return mcds__xr_send(x, iov, n);
    return mcds__x_send_raw(x, iov, n);
}

mcds_status_t mcds__x_send_raw(xcall_t *x, struct iovec *iov, int n)
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
                mcds__x_conn_close(x->c);
                return MCDS_SERVER_DOWN;
            }
            r = wait_fd(x->c->fd, POLLOUT, x->io_ms);
            if (r <= 0) {
                if (r == 0)
                    mcds__x_detail(x, "timed out sending the request");
                else
                    set_errno_detail(x, "poll", errno);
                mcds__x_conn_close(x->c);
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

mcds_status_t mcds__x_send_line(xcall_t *x, const char *line, size_t len)
{
    struct iovec iov = {(void *)line, len};
    return mcds__x_send_all(x, &iov, 1);
}

mcds_status_t mcds__x_send_block(xcall_t *x, const char *line, size_t len,
                                 const void *data, size_t dlen)
{
    struct iovec iov[3] = {
        {(void *)line, len}, {(void *)data, dlen}, {(void *)"\r\n", 2}
    };
    return mcds__x_send_all(x, iov, 3);
}

int mcds__x_line_is(const char *p, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(p, word, len) == 0;
}

int mcds__x_line_starts(const char *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(p, prefix, n) == 0;
}

int mcds__x_parse_u64(const char *p, size_t len, uint64_t *v)
{
    char num[24], *e;

    if (len == 0 || len >= sizeof num || p[0] < '0' || p[0] > '9')
        return -1;
    memcpy(num, p, len);
    num[len] = '\0';
    errno = 0;
    *v = strtoull(num, &e, 10);
    return *e == '\0' && errno == 0 ? 0 : -1;
}

/* The status of a reply line that is not the verb's success line. Lines a
 * verb never gets (NOT_STORED from qack, say) and garbage are protocol
 * errors; after those and after ERROR (the server does not know the verb,
 * and may read our data block as commands) the connection is closed. */
mcds_status_t mcds__x_reply_error(xcall_t *x, size_t off, size_t len,
                                 int not_found_ok, int not_stored_ok)
{
    const char *p = x->c->buf + off;
    mcds_status_t st;
    int keep = 1;

    if (not_found_ok && mcds__x_line_is(p, len, "NOT_FOUND"))
        st = MCDS_NOT_FOUND;
    else if (not_stored_ok && mcds__x_line_is(p, len, "NOT_STORED"))
        st = MCDS_FULL;
    else if (mcds__x_line_is(p, len, "CLIENT_ERROR key holds another type of value"))
        st = MCDS_WRONG_TYPE;
    else if (mcds__x_line_starts(p, len, "SERVER_ERROR object too large"))
        st = MCDS_TOO_LARGE;
    else if (mcds__x_line_starts(p, len, "SERVER_ERROR out of memory"))
        st = MCDS_NO_MEMORY;
    else if (mcds__x_line_starts(p, len, "SERVER_ERROR") ||
             mcds__x_line_starts(p, len, "CLIENT_ERROR"))
        st = MCDS_SERVER_ERROR;
    else if (mcds__x_line_is(p, len, "ERROR") || mcds__x_line_starts(p, len, "ERROR ")) {
        st = MCDS_UNSUPPORTED;
        keep = 0;
    } else {
        st = MCDS_SERVER_ERROR;
        keep = 0;
    }
    mcds__x_set_detail(x, keep ? "" : "unexpected reply: ", p,
               len > 200 ? 200 : len);
    if (!keep)
        mcds__x_conn_close(x->c);
    return st;
}

/* Asks once per connection whether the server has the queue verbs (a
 * server without them would answer qpush's line with ERROR and then read
 * its data block as commands). Any answer but ERROR means yes. */
static mcds_status_t probe(xcall_t *x)
{
    static const char cmd[] = "qstats mcds:probe\r\n";
    struct iovec iov = {(void *)cmd, sizeof cmd - 1};
    size_t off, len;
    mcds_status_t st = mcds__x_send_raw(x, &iov, 1);

    while (st == MCDS_OK) {
        st = mcds__x_read_line_raw(x, &off, &len);
        if (st != MCDS_OK)
            break;
        if (mcds__x_line_starts(x->c->buf + off, len, "STAT "))
            continue;   /* someone made it a queue: read up to END */
        if (mcds__x_line_is(x->c->buf + off, len, "ERROR")) {
            mcds__x_detail(x, "the server has no queue verbs (ERROR)");
            mcds__x_conn_close(x->c);
            return MCDS_UNSUPPORTED;
        }
        break;
    }
    return st;
}

mcds_status_t mcds__x_open(xcall_t *x, mcds__xconn_t *c)
{
    mcds_status_t st;
    int ms;

    x->c = c;
    c->len = c->pos = 0;
    if (c->fd >= 0 && wait_fd(c->fd, POLLIN, 0) != 0)
        mcds__x_conn_close(c); /* closed by the server while idle (or out of step) */
    if (c->fd >= 0)
        return MCDS_OK;
    ms = behavior_ms(x->h->mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT);
    st = c->port == 0 ? open_unix(x, ms) : open_tcp(x, ms);
    if (st == MCDS_OK)
        st = probe(x);
    c->len = c->pos = 0;
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
    size_t i;

    if (name == NULL)
        return MCDS_FAILURE;
    for (i = 0; i < h->nxconns && c == NULL; i++) {
        if (h->xconns[i]->port == port && strcmp(h->xconns[i]->name, name) == 0)
            c = h->xconns[i];
    }
    if (c == NULL) {
        mcds__xconn_t **v = realloc(h->xconns, (h->nxconns + 1) * sizeof *v);
        if (v == NULL)
            return MCDS_NO_MEMORY;
        h->xconns = v;
        if ((c = mcds__xconn_new(name, port)) == NULL)
            return MCDS_NO_MEMORY;
        v[h->nxconns++] = c;
    }
    return mcds__x_open(x, c);
}

/* Starts a call on server s: a replica set's member is picked later. */
static mcds_status_t begin_on(xcall_t *x, const memcached_instance_st *s)
{
    x->rs = mcds__rset_of_server(x->h, s);
    if (x->rs != NULL)
        return MCDS_OK;
    return conn_for(x, s);
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

mcds_status_t mcds__x_check_name(const char *q, size_t *len)
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
mcds_status_t mcds__x_begin(xcall_t *x, mcds_t *h, const char *q)
{
    const char *key;
    size_t qlen, klen;
    mcds_status_t st;

    memset(x, 0, sizeof *x);
    if (h == NULL)
        return MCDS_INVALID;
    st = mcds__x_check_name(q, &qlen);
    if (st != MCDS_OK)
        return st;      /* nothing sent: x->h stays NULL, the detail as it was */
    route_key(q, qlen, &key, &klen);
    return mcds__x_begin_key(x, h, key, klen);
}

mcds_status_t mcds__x_begin_key(xcall_t *x, mcds_t *h, const char *key,
                                size_t len)
{
    const memcached_instance_st *s;
    memcached_return_t rc = MEMCACHED_SUCCESS;
    mcds_status_t st;

    memset(x, 0, sizeof *x);
    x->h = h;
    h->detail[0] = '\0';
    x->io_ms = behavior_ms(h->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT);
    s = memcached_server_by_key(h->mc, key, len, &rc);
    if (s == NULL) {
        st = mcds__from_memcached(rc);
        mcds__x_set_detail(x, "no server for the key: ", memcached_strerror(h->mc, rc),
                   strlen(memcached_strerror(h->mc, rc)));
        return st == MCDS_OK ? MCDS_FAILURE : st;
    }
    return begin_on(x, s);
}

int mcds__x_same_server(const xcall_t *x, const xcall_t *y)
{
    if (x->rs != NULL || y->rs != NULL)
        return x->rs == y->rs;
    return x->c == y->c;
}

/* Ends a call: remembers its failure for mcds_last_detail (or forgets the
 * previous one), and lets go of a large reply buffer. */
mcds_status_t mcds__x_end(xcall_t *x, mcds_status_t st)
{
    mcds__xconn_t *c = x->c;

    mcds__buf_free(&x->req);
    if (x->h == NULL)
        return st;
    if (st == MCDS_OK || st == MCDS_EXISTS)
        x->h->detail[0] = '\0';
    else if (x->h->detail[0] == '\0')
        mcds__x_detail(x, mcds_strerror(st));
    if (c != NULL) {
        if (c->fd >= 0 && c->pos != c->len) {
            mcds__x_conn_close(c); /* bytes nobody asked for: out of step */
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
mcds_status_t mcds__x_simple(xcall_t *x, const char *line, size_t llen,
                            const char *ok_word, uint64_t *arg,
                            int not_found_ok)
{
    size_t off, len, wlen = strlen(ok_word);
    mcds_status_t st = mcds__x_send_line(x, line, llen);
    const char *p;

    if (st == MCDS_OK)
        st = mcds__x_read_line(x, &off, &len);
    if (st != MCDS_OK)
        return st;
    p = x->c->buf + off;
    if (arg == NULL && mcds__x_line_is(p, len, ok_word))
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
    return mcds__x_reply_error(x, off, len, not_found_ok, 0);
}

/* "<secs>.<ms>" for a duration in ms. */
void mcds__x_fmt_secs(char *out, size_t size, unsigned ms)
{
    snprintf(out, size, "%u.%03u", ms / 1000, ms % 1000);
}

/* ---- requests of other structures' verbs (mcds_int.h) ---- */

/* Sends line on x's connection and hands the reply lines to fn. */
static mcds_status_t xrequest_on(xcall_t *x, const char *line, size_t len,
                                 mcds__xline_fn fn, void *arg)
{
    mcds_status_t st = mcds__x_send_line(x, line, len);
    size_t off, n;

    while (st == MCDS_OK) {
        int r;
        st = mcds__x_read_line(x, &off, &n);
        if (st != MCDS_OK)
            break;
        r = fn(arg, x->c->buf + off, n);
        if (r == MCDS__XDONE)
            break;
        if (r == MCDS__XERROR)
            st = mcds__x_reply_error(x, off, n, 1, 0);
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
        st = mcds__x_begin(&x, h, route);
        if (st == MCDS_OK)
            st = xrequest_on(&x, line, len, fn, arg);
        return mcds__x_end(&x, st);
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
        st = begin_on(&x, memcached_server_instance_by_position(h->mc, i));
        if (st == MCDS_OK)
            st = xrequest_on(&x, line, len, fn, arg);
        st = mcds__x_end(&x, st);
    }
    return st;
}
