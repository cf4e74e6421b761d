/*
 * conn: per-connection buffers and the state machine.
 *
 * conn_drive() runs whenever the socket is ready. It parses and executes
 * every complete command in the read buffer (yielding after
 * reqs_per_event), reads values straight into their items, and then writes
 * all queued replies with one writev. Output is a list of segments: small
 * bytes in the write buffer and item values sent from the items
 * themselves, each holding a reference until written.
 *
 * A slow reader is bounded: once CONN_OUT_HIGH bytes are queued the
 * connection stops reading (and so stops executing commands) until the
 * client drains its replies.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "proto_ext.h"
#include "proto_meta.h"
#include "proto_text.h"
#include "settings.h"
#include "stats.h"
#include "worker.h"

#define CONN_RBUF_INIT 16384
#define CONN_RBUF_MAX (8 * 1024 * 1024)
#define CONN_WBUF_INIT 2048
#define CONN_WBUF_KEEP 65536
#define CONN_SEGS_INIT 16
#define CONN_SEGS_KEEP 1024
#define CONN_OUT_HIGH (1024 * 1024)
#define CONN_IOV_MAX 256
#define CONN_DIRECT_READ 4096

static void conn_event(evutil_socket_t fd, short what, void *arg);

static void *conn_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);

    if (q == NULL) {
        log_msg(0, "out of memory (%zu bytes)", n);
        abort();
    }
    return q;
}

conn *conn_new(int fd, struct worker *w) {
    conn *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->fd = fd;
    c->worker = w;
    c->state = CONN_PARSE;
    c->rsize = CONN_RBUF_INIT;
    c->rbuf = malloc(c->rsize);
    c->wsize = CONN_WBUF_INIT;
    c->wbuf = malloc(c->wsize);
    c->segcap = CONN_SEGS_INIT;
    c->segs = malloc(sizeof(struct conn_seg) * (size_t)c->segcap);
    c->ev_flags = EV_READ | EV_PERSIST;
    c->ev = event_new(worker_base(w), fd, c->ev_flags, conn_event, c);
    if (c->rbuf == NULL || c->wbuf == NULL || c->segs == NULL || c->ev == NULL ||
        event_add(c->ev, NULL) < 0) {
        if (c->ev != NULL)
            event_free(c->ev);
        free(c->rbuf);
        free(c->wbuf);
        free(c->segs);
        free(c);
        return NULL;
    }
    if (settings.protocol == PROTO_ASCII)
        c->proto = &proto_text;
    return c;
}

static void conn_release_output(conn *c) {
    int i;

    for (i = c->wseg; i < c->nsegs; i++) {
        if (c->segs[i].it != NULL)
            item_release(c->segs[i].it);
    }
    c->nsegs = c->wseg = 0;
    c->wseg_off = 0;
    c->wlen = 0;
    c->out_bytes = 0;
}

void conn_close(conn *c) {
    log_msg(2, "<%d connection closed", c->fd);
    event_free(c->ev);
    close(c->fd);
    conn_release_output(c);
    if (c->nread.it != NULL)
        item_release(c->nread.it);
    meta_conn_free(c);
    ext_conn_closed(c);
    worker_forget(c->worker, c);
    free(c->rbuf);
    free(c->wbuf);
    free(c->segs);
    free(c);
}

void conn_set_state(conn *c, enum conn_state s) {
    c->state = s;
}

static void conn_update_event(conn *c, short flags) {
    flags |= EV_PERSIST;
    if (c->ev_flags == flags)
        return;
    event_del(c->ev);
    event_assign(c->ev, worker_base(c->worker), c->fd, flags, conn_event, c);
    event_add(c->ev, NULL);
    c->ev_flags = flags;
}

/* ---- output queue ---- */

static void conn_wbuf_need(conn *c, size_t n) {
    if (c->wlen + n <= c->wsize)
        return;
    while (c->wlen + n > c->wsize)
        c->wsize *= 2;
    c->wbuf = conn_xrealloc(c->wbuf, c->wsize);
}

static struct conn_seg *conn_seg_add(conn *c) {
    if (c->nsegs == c->segcap) {
        c->segcap *= 2;
        c->segs = conn_xrealloc(c->segs, sizeof(struct conn_seg) * (size_t)c->segcap);
    }
    return &c->segs[c->nsegs++];
}

char *conn_out_reserve(conn *c, size_t n) {
    conn_wbuf_need(c, n);
    return c->wbuf + c->wlen;
}

void conn_out_commit(conn *c, size_t used) {
    struct conn_seg *last = c->nsegs > c->wseg ? &c->segs[c->nsegs - 1] : NULL;

    if (last != NULL && last->it == NULL && last->off + last->len == c->wlen) {
        last->len += used;
    } else {
        struct conn_seg *s = conn_seg_add(c);
        s->it = NULL;
        s->ptr = NULL;
        s->off = c->wlen;
        s->len = used;
    }
    c->wlen += used;
    c->out_bytes += used;
}

void conn_out(conn *c, const char *s, size_t n) {
    memcpy(conn_out_reserve(c, n), s, n);
    conn_out_commit(c, n);
}

void conn_out_reply(conn *c, enum reply_id r) {
    conn_out(c, reply_lines[r].text, reply_lines[r].len);
}

void conn_out_item(conn *c, item *it, const char *ptr, size_t len) {
    struct conn_seg *s = conn_seg_add(c);

    s->it = it;
    s->ptr = ptr;
    s->off = 0;
    s->len = len;
    c->out_bytes += len;
}

void conn_mark_out(conn *c, struct conn_mark *m) {
    m->nsegs = c->nsegs;
    m->wlen = c->wlen;
    m->out_bytes = c->out_bytes;
}

void conn_rollback(conn *c, const struct conn_mark *m) {
    int i;

    for (i = m->nsegs; i < c->nsegs; i++) {
        if (c->segs[i].it != NULL)
            item_release(c->segs[i].it);
    }
    c->nsegs = m->nsegs;
    if (c->nsegs > c->wseg) {
        struct conn_seg *last = &c->segs[c->nsegs - 1];
        if (last->it == NULL && last->off + last->len > m->wlen)
            last->len = m->wlen - last->off;
    }
    c->wlen = m->wlen;
    c->out_bytes = m->out_bytes;
}

/* Drops buffers that grew for one big reply back to their usual size. */
static void conn_shrink_output(conn *c) {
    if (c->wsize > CONN_WBUF_KEEP) {
        c->wsize = CONN_WBUF_INIT;
        c->wbuf = conn_xrealloc(c->wbuf, c->wsize);
    }
    if (c->segcap > CONN_SEGS_KEEP) {
        c->segcap = CONN_SEGS_INIT;
        c->segs = conn_xrealloc(c->segs, sizeof(struct conn_seg) * (size_t)c->segcap);
    }
}

static int conn_fill_iov(conn *c, struct iovec *iov) {
    int n = 0, i;

    for (i = c->wseg; i < c->nsegs && n < CONN_IOV_MAX; i++) {
        struct conn_seg *s = &c->segs[i];
        const char *base = s->it != NULL ? s->ptr : c->wbuf + s->off;
        size_t skip = i == c->wseg ? c->wseg_off : 0;
        iov[n].iov_base = (void *)(base + skip);
        iov[n].iov_len = s->len - skip;
        n++;
    }
    return n;
}

static void conn_advance(conn *c, size_t w) {
    while (w > 0) {
        struct conn_seg *s = &c->segs[c->wseg];
        size_t left = s->len - c->wseg_off;
        if (w < left) {
            c->wseg_off += w;
            return;
        }
        w -= left;
        if (s->it != NULL)
            item_release(s->it);
        c->wseg++;
        c->wseg_off = 0;
    }
}

/* Writes queued output: 0 when done or the socket is full, -1 on error. */
static int conn_flush(conn *c) {
    struct iovec iov[CONN_IOV_MAX];

    while (c->wseg < c->nsegs) {
        int n = conn_fill_iov(c, iov);
        ssize_t w = writev(c->fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        stats_add(STATS_BYTES_WRITTEN, (uint64_t)w);
        c->out_bytes -= (size_t)w;
        conn_advance(c, (size_t)w);
    }
    c->nsegs = c->wseg = 0;
    c->wseg_off = 0;
    c->wlen = 0;
    c->out_bytes = 0;
    conn_shrink_output(c);
    return 0;
}

/* ---- input ---- */

/* Makes room at the end of the read buffer. -1 if it cannot grow. */
static int conn_rbuf_room(conn *c) {
    if (c->rpos == c->rlen) {
        c->rpos = c->rlen = 0;
        if (c->rsize > CONN_RBUF_INIT) {
            c->rsize = CONN_RBUF_INIT;
            c->rbuf = conn_xrealloc(c->rbuf, c->rsize);
        }
    } else if (c->rpos > 0) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    if (c->rlen < c->rsize)
        return 0;
    if (c->rsize >= CONN_RBUF_MAX)
        return -1;
    c->rsize *= 2;
    c->rbuf = conn_xrealloc(c->rbuf, c->rsize);
    return 0;
}

/* Bytes read (> 0), 0 if the socket has nothing, -1 on EOF or error. */
static ssize_t conn_read_into(conn *c, char *dst, size_t n) {
    for (;;) {
        ssize_t r = read(c->fd, dst, n);
        if (r > 0) {
            stats_add(STATS_BYTES_READ, (uint64_t)r);
            return r;
        }
        if (r == 0)
            return -1;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
}

/* 1 if something was read into rbuf, 0 to wait, -1 on EOF/error/overflow.
 * A read that fills less than the room it had means the socket is empty:
 * the next read waits for the next read event instead of a sure EAGAIN. */
static int conn_read(conn *c) {
    size_t room;
    ssize_t r;

    if (c->drained)
        return 0;
    if (conn_rbuf_room(c) < 0) {
        log_msg(1, "<%d request line too long, closing", c->fd);
        return -1;
    }
    room = c->rsize - c->rlen;
    r = conn_read_into(c, c->rbuf + c->rlen, room);
    if (r > 0) {
        c->rlen += (size_t)r;
        c->drained = (size_t)r < room;
    }
    return r > 0 ? 1 : (int)r;
}

void conn_start_nread(conn *c, item *it, enum store_op op, uint64_t cas, bool noreply) {
    c->nread.it = it;
    c->nread.done = 0;
    c->nread.want = it->nbytes;
    c->nread.op = op;
    c->nread.cas = cas;
    c->nread.noreply = noreply;
    c->nread.meta = false;
    c->nread.ext = false;
    c->state = CONN_NREAD;
}

void conn_start_swallow(conn *c, size_t n) {
    c->swallow = n;
    c->state = CONN_SWALLOW;
}

/* Moves value bytes into the item being read: 1 progress, 0 wait, -1 close. */
static int conn_step_nread(conn *c) {
    item *it = c->nread.it;
    size_t need = c->nread.want - c->nread.done;
    size_t have = c->rlen - c->rpos;

    if (have > 0) {
        size_t n = have < need ? have : need;
        memcpy(item_value(it) + c->nread.done, c->rbuf + c->rpos, n);
        c->rpos += n;
        c->nread.done += n;
    } else if (need >= CONN_DIRECT_READ) {
        ssize_t r = c->drained ? 0 : conn_read_into(c, item_value(it) + c->nread.done, need);
        if (r <= 0)
            return (int)r;
        c->nread.done += (size_t)r;
        c->drained = (size_t)r < need;
    } else {
        return conn_read(c);
    }
    if (c->nread.done == c->nread.want) {
        c->state = CONN_PARSE;
        c->proto->nread_done(c);
        c->reqs++;
    }
    return 1;
}

static int conn_step_swallow(conn *c) {
    size_t have = c->rlen - c->rpos;

    if (have == 0)
        return conn_read(c);
    if (have >= c->swallow) {
        c->rpos += c->swallow;
        c->swallow = 0;
        c->state = CONN_PARSE;
    } else {
        c->swallow -= have;
        c->rpos = c->rlen;
    }
    return 1;
}

/* While a command waits, input is only buffered (so a hang-up is seen);
 * past CONN_RBUF_INIT buffered bytes reading stops until the wait ends. */
static bool conn_read_paused(conn *c) {
    return c->state == CONN_WAITING && c->rlen - c->rpos >= CONN_RBUF_INIT;
}

static int conn_step_waiting(conn *c) {
    if (conn_read_paused(c))
        return 0;
    return conn_read(c);
}

static int conn_step_parse(conn *c) {
    if (c->rpos < c->rlen) {
        enum conn_parse_result r;
        if (c->proto == NULL)
            c->proto = proto_choose(c->rbuf[c->rpos]);
        r = c->proto->parse(c);
        if (r == PARSE_DONE) {
            c->reqs++;
            return 1;
        }
        if (r == PARSE_CLOSE) {
            c->state = CONN_CLOSING;
            return 1;
        }
    }
    return conn_read(c);
}

/* After reqs_per_event commands with more input waiting, let other
 * connections of this worker run first. */
static int conn_should_yield(conn *c) {
    if (c->reqs < settings.reqs_per_event)
        return 0;
    if (c->state == CONN_PARSE && c->rpos == c->rlen)
        return 0;
    return 1;
}

static void conn_drive(conn *c) {
    int r = 0, yield = 0;

    c->reqs = 0;
    for (;;) {
        if (c->out_bytes > CONN_OUT_HIGH || c->state == CONN_CLOSING) {
            if (conn_flush(c) < 0 || (c->state == CONN_CLOSING && c->out_bytes == 0)) {
                conn_close(c);
                return;
            }
            if (c->out_bytes > 0) {
                conn_update_event(c, EV_WRITE);
                return;
            }
        }
        if (conn_should_yield(c)) {
            stats_incr(STATS_CONN_YIELDS);
            yield = 1;
            break;
        }
        switch (c->state) {
        case CONN_PARSE: r = conn_step_parse(c); break;
        case CONN_NREAD: r = conn_step_nread(c); break;
        case CONN_SWALLOW: r = conn_step_swallow(c); break;
        case CONN_WAITING: r = conn_step_waiting(c); break;
        case CONN_CLOSING: r = 1; break;
        }
        if (r < 0) {
            /* EOF or a read error: send what is queued, then close. */
            c->state = CONN_CLOSING;
            continue;
        }
        if (r == 0)
            break;
    }
    if (conn_flush(c) < 0) {
        conn_close(c);
        return;
    }
    conn_update_event(c, (short)((conn_read_paused(c) ? 0 : EV_READ) | (c->out_bytes > 0 ? EV_WRITE : 0)));
    if (yield)
        event_active(c->ev, EV_READ, 0);
}

static void conn_event(evutil_socket_t fd, short what, void *arg) {
    conn *c = arg;

    if (what & EV_READ)
        c->drained = false;
    conn_drive(c);
}

void conn_resume(conn *c) {
    c->state = CONN_PARSE;
    conn_drive(c);
}
