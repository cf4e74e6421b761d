/*
 * park: blocking reads. See park.h for the life of a wait; the rules that
 * make it safe are here:
 *  - the structure calls park_wake under its own lock, on any thread; the
 *    wake only posts a call to the connection's worker (no lock, no
 *    allocation);
 *  - everything else (answer, timeout, hang-up, close) runs on that
 *    worker's thread, so the connection is never touched elsewhere, with
 *    one exception: the serving thread may write the answer to the socket
 *    (park_direct_fd), never to the connection's buffers, and only while
 *    the waiter is on the structure, under its lock;
 *  - a wait that was served is always answered or given back, never both:
 *    an answer written (even in part) by the serving thread is given back
 *    only if the client refused it with a reset (it had closed before the
 *    answer came), and then counts as never written.
 */
#include <errno.h>
#include <event2/event.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "net/park.h"
#include "base/stats.h"

static void park_put(struct park *p) {
    if (--p->refs > 0)
        return;
    event_free(p->timer);
    p->ops->release(p);
}

/* Ends c's wait p: answers, detaches, lets c parse again. */
static void park_finish(conn *c, struct park *p) {
    p->ops->answer(c, p);
    c->park = NULL;
    p->c = NULL;
    park_put(p);            /* the connection's reference */
    conn_resume(c);
}

/* The posted wake, on the connection's worker. */
static void park_woken(void *arg) {
    struct park *p = arg;
    conn *c = p->c;

    if (c == NULL) {
        p->ops->give_back(p);
        park_put(p);        /* the wake's reference */
        return;
    }
    evtimer_del(p->timer);
    p->refs--;              /* the wake's reference; c still holds one */
    park_finish(c, p);
}

void park_idle(conn *c) {
    if (c->park != NULL && c->out_bytes == 0 && !c->held)
        __atomic_store_n(&c->park->idle, 1, __ATOMIC_RELEASE);
}

/* Whether the kernel still holds bytes of the socket's earlier replies
 * (unsent or not yet acknowledged): then the answer is left to the worker,
 * so that the serving thread's one write is never cut short. */
static bool park_socket_busy(int fd) {
    int queued = 0;

    return ioctl(fd, SIOCOUTQ, &queued) != 0 || queued != 0;
}

/* A peek at the socket: 0 at the end (the client closed its side), -1
 * with errno, or 1. */
static ssize_t park_peek(int fd) {
    char b;

    return recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
}

/* Whether the client has closed its side, or reset the connection. */
static bool park_fd_gone(int fd) {
    ssize_t r = park_peek(fd);

    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Whether the connection was reset: a client that closed its socket
 * before reading all that was sent to it (or before it came) answers the
 * bytes with a reset, one that read them all and then closed does not. */
static bool park_fd_reset(int fd) {
    return park_peek(fd) < 0 && (errno == ECONNRESET || errno == EPIPE);
}

int park_direct_fd(struct park *p) {
    if (p->fd < 0 || worker_is_current(p->worker) || !__atomic_load_n(&p->idle, __ATOMIC_ACQUIRE))
        return -1;
    if (park_socket_busy(p->fd) || park_fd_gone(p->fd))
        return -1;
    return p->fd;
}

void park_send(struct park *p, int fd, struct iovec *iov, int n, size_t total) {
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
    ssize_t r;

    if (total > PARK_DIRECT_BYTES)
        return;
    do
        r = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        return;
    p->sent = (size_t)r;
    stats_incr(STATS_PARK_WAKES_DIRECT);
    stats_add(STATS_BYTES_WRITTEN, (uint64_t)r);
}

bool park_undelivered(conn *c, struct park *p) {
    if (p->sent > 0 && park_fd_reset(c->fd))
        p->sent = 0;
    return p->sent == 0 && park_peer_gone(c);
}

void park_skip_sent(conn *c, struct park *p) {
    conn_out_skip(c, p->sent);
}

bool park_peer_gone(const conn *c) {
    return c->eof || park_fd_gone(c->fd);
}

/* Counts the wake (park_wakes), and those that cross to another thread
 * (park_wakes_remote: the waiter's worker must be woken to answer). */
void park_wake(struct park *p) {
    stats_incr(STATS_PARK_WAKES);
    if (!worker_is_current(p->worker))
        stats_incr(STATS_PARK_WAKES_REMOTE);
    worker_post(p->worker, &p->call);
}

/* Takes p off its structure before it was served; false when it was
 * served meanwhile (the wake is on its way). */
static bool park_cancel(struct park *p) {
    if (p->c == NULL || !p->ops->unwait(p))
        return false;
    evtimer_del(p->timer);
    p->refs--;              /* it will never be woken */
    return true;
}

static void park_on_timeout(evutil_socket_t fd, short what, void *arg) {
    struct park *p = arg;

    if (park_cancel(p))
        park_finish(p->c, p);
}

bool park_init(struct park *p, conn *c, const struct park_ops *ops) {
    p->ops = ops;
    p->call.fn = park_woken;
    p->call.arg = p;
    p->c = c;
    p->worker = c->worker;
    p->refs = 2;
    p->fd = c->tls == NULL ? c->fd : -1;
    p->idle = 0;
    p->sent = 0;
    p->timer = evtimer_new(worker_base(c->worker), park_on_timeout, p);
    return p->timer != NULL;
}

void park_refused(struct park *p) {
    conn *c = p->c;

    p->refs = 1;
    p->c = NULL;
    park_put(p);
    conn_out_reply(c, REPLY_END);
}

void park_start(struct park *p, uint64_t wait_ms) {
    struct timeval tv = { (time_t)(wait_ms / 1000), (suseconds_t)(wait_ms % 1000) * 1000 };
    conn *c = p->c;

    /* Even when served at once, the answer comes through the posted wake. */
    c->park = p;
    conn_set_state(c, CONN_WAITING);
    evtimer_add(p->timer, &tv);
}

bool park_abandon(conn *c) {
    struct park *p = c->park;

    if (p == NULL || !park_cancel(p))
        return false;
    p->ops->answer(c, p);
    c->park = NULL;
    p->c = NULL;
    park_put(p);            /* the connection's reference */
    return true;
}

bool park_owed(const conn *c) {
    return c->park != NULL && c->park->ops->owed;
}

void park_conn_closed(conn *c) {
    struct park *p = c->park;

    if (p == NULL)
        return;
    evtimer_del(p->timer);
    if (p->ops->unwait(p))
        p->refs--;
    else if (p->sent > 0 && park_fd_reset(c->fd))
        p->sent = 0;        /* never read: the wake gives it back */
    p->c = NULL;
    c->park = NULL;
    park_put(p);
}
