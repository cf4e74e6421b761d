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
 * What one client can make the server hold is bounded:
 *  - the read buffer has a fixed size (CONN_RBUF_SIZE) and is lent from the
 *    worker's cache only while there is input to parse; longer lines than
 *    it holds are refused, except multi-gets, which the text protocol
 *    answers key by key as they arrive;
 *  - once more than settings.conn_output_max bytes of replies are queued,
 *    the connection stops executing (and reading) until the client drains
 *    them; a command with a long answer (a multi-get) pauses itself at that
 *    point (c->resume) and goes on when the socket drains;
 *  - every buffer allocation is counted against settings.conn_buffer_limit,
 *    and one that fails or would pass it drops that connection (never the
 *    server).
 *
 * A connection from a TLS listener reads and writes through tls.c's
 * wrappers (tls_read, tls_writev) instead of read and writev, and waits
 * for the extra events its session asks for (tls_events); nothing else
 * here knows about TLS.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "net/conn.h"
#include "net/conn_sync.h"
#include "net/conn_names.h"
#include "base/log.h"
#include "net/park.h"
#include "persist/persist.h"
#include "cache/seg.h"
#include "base/settings.h"
#include "base/stats.h"
#include "net/tls.h"
#include "net/worker.h"

#define CONN_WBUF_INIT 2048
#define CONN_WBUF_KEEP 65536
#define CONN_SEGS_INIT 16
#define CONN_SEGS_KEEP 1024
#define CONN_SEGS_HIGH 65536            /* segments queued before a pause */
#define CONN_IOV_MAX 256
#define CONN_DIRECT_READ 4096
#define CONN_SCRATCH 65536              /* largest single reserve */

/* Where the output of a connection whose buffers could not grow goes
 * (discarded); the connection is closed before anything is sent. */
static __thread char conn_scratch[CONN_SCRATCH];

static void conn_event(evutil_socket_t fd, short what, void *arg);
static void conn_drive(conn *c);
static int conn_flush(conn *c);

/* ---- buffer memory ---- */

/* Grows a connection buffer from old to n bytes (counted against
 * settings.conn_buffer_limit); NULL when it cannot. */
static void *conn_buf_realloc(void *p, size_t old, size_t n) {
    size_t limit = settings.conn_buffer_limit;
    void *q;

    if (n > old && limit != 0 && stats_global_get(STATS_RESPONSE_OBJ_BYTES) +
                                 stats_global_get(STATS_READ_BUF_BYTES) + (n - old) > limit)
        return NULL;
    if (n == 0) {
        /* realloc(p, 0) frees p but may return NULL: give it back here. */
        free(p);
        stats_global_add(STATS_RESPONSE_OBJ_BYTES, -(int64_t)old);
        return NULL;
    }
    q = realloc(p, n);
    if (q != NULL)
        stats_global_add(STATS_RESPONSE_OBJ_BYTES, (int64_t)n - (int64_t)old);
    return q;
}

/* An allocation for this connection failed: it is closed before anything
 * more is sent. */
static void conn_break(conn *c, const char *what) {
    if (!c->broken)
        log_msg(1, "<%d no memory for its %s, closing", c->fd, what);
    c->broken = true;
    stats_global_add(STATS_RESPONSE_OBJ_OOM, 1);
}

#define CONN_HOOKS_MAX 16

static const struct conn_hooks *conn_hooks[CONN_HOOKS_MAX];
static int conn_nhooks;

void conn_add_hooks(const struct conn_hooks *h) {
    if (conn_nhooks < CONN_HOOKS_MAX)
        conn_hooks[conn_nhooks++] = h;
}

static void conn_run_closed(conn *c) {
    int i;

    for (i = 0; i < conn_nhooks; i++)
        if (conn_hooks[i]->closed != NULL)
            conn_hooks[i]->closed(c);
}

static void conn_input_moved(conn *c) {
    int i;

    for (i = 0; i < conn_nhooks; i++)
        if (conn_hooks[i]->input_moved != NULL)
            conn_hooks[i]->input_moved(c);
}

conn *conn_new(int fd, struct worker *w, bool tls, conn_proto_choose_fn choose) {
    conn *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    if (tls && (c->tls = tls_conn_new(fd)) == NULL) {
        free(c);
        return NULL;
    }
    c->fd = fd;
    c->worker = w;
    c->state = CONN_PARSE;
    c->wbuf = conn_buf_realloc(NULL, 0, CONN_WBUF_INIT);
    c->wsize = c->wbuf != NULL ? CONN_WBUF_INIT : 0;
    c->segs = conn_buf_realloc(NULL, 0, sizeof(struct conn_seg) * CONN_SEGS_INIT);
    c->segcap = c->segs != NULL ? CONN_SEGS_INIT : 0;
    c->ev_flags = EV_READ | EV_CLOSED | EV_PERSIST;
    c->ev = event_new(worker_base(w), fd, c->ev_flags, conn_event, c);
    if (c->wbuf == NULL || c->segs == NULL || c->ev == NULL || event_add(c->ev, NULL) < 0) {
        if (c->ev != NULL)
            event_free(c->ev);
        conn_buf_realloc(c->wbuf, c->wsize, 0);
        conn_buf_realloc(c->segs, sizeof(struct conn_seg) * (size_t)c->segcap, 0);
        if (c->tls != NULL)
            tls_conn_free(c->tls);
        free(c);
        return NULL;
    }
    c->choose = choose;
    c->name_token = conn_names_open(fd);
    return c;
}

/* Frees the side chunks: no segment points into them any more. */
static void conn_side_free(conn *c) {
    while (c->side != NULL) {
        struct conn_side *next = c->side->next;
        free(c->side);
        c->side = next;
    }
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
    c->seg_fence = 0;
    conn_side_free(c);
}

/* Lends the connection a read buffer from its worker, if it has none. */
static bool conn_rbuf_take(conn *c) {
    if (c->rbuf == NULL) {
        c->rbuf = worker_rbuf_get(c->worker);
        c->rpos = c->rlen = 0;
    }
    return c->rbuf != NULL;
}

/* Gives an empty read buffer back to the worker: an idle connection holds
 * none. Not while a paused command still points into it. */
static void conn_rbuf_give(conn *c) {
    if (c->rbuf != NULL && c->rpos == c->rlen && c->resume == NULL) {
        worker_rbuf_put(c->worker, c->rbuf);
        conn_input_moved(c);
        c->rbuf = NULL;
        c->rpos = c->rlen = 0;
    }
}

void conn_close(conn *c) {
    log_msg(1, "<%d connection closed", c->fd);
    if (c->held)
        worker_unhold(c->worker, c);
    conn_sync_forget(c);
    event_free(c->ev);
    if (c->tls != NULL)
        tls_conn_free(c->tls);
    conn_names_close(c->name_token);
    park_conn_closed(c);    /* before the socket closes: see park.h */
    close(c->fd);
    conn_release_output(c);
    if (c->nread.it != NULL)
        item_release(c->nread.it);
    conn_run_closed(c);
    worker_forget(c->worker, c);
    if (c->rbuf != NULL)
        worker_rbuf_put(c->worker, c->rbuf);
    conn_buf_realloc(c->wbuf, c->wsize, 0);
    conn_buf_realloc(c->segs, sizeof(struct conn_seg) * (size_t)c->segcap, 0);
    free(c);
}

void conn_shutdown(conn *c) {
    if (conn_sync_pending(c))
        conn_sync_expire(c, UINT64_MAX);    /* a change not confirmed says so, a `wait` is answered */
    conn_flush(c);          /* what the socket takes now; never waits */
    conn_close(c);
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
    stats_incr(STATS_CONN_EVENT_CHANGES);
}

/* ---- output queue ---- */

static bool conn_wbuf_need(conn *c, size_t n) {
    size_t size = c->wsize;
    char *p;

    if (c->wlen + n <= c->wsize)
        return true;
    while (c->wlen + n > size)
        size *= 2;
    p = conn_buf_realloc(c->wbuf, c->wsize, size);
    if (p == NULL)
        return false;
    c->wbuf = p;
    c->wsize = size;
    return true;
}

static struct conn_seg *conn_seg_add(conn *c) {
    if (c->nsegs == c->segcap) {
        size_t old = sizeof(struct conn_seg) * (size_t)c->segcap;
        struct conn_seg *s = conn_buf_realloc(c->segs, old, old * 2);
        if (s == NULL)
            return NULL;
        c->segs = s;
        c->segcap *= 2;
    }
    return &c->segs[c->nsegs++];
}

char *conn_out_reserve(conn *c, size_t n) {
    if (!c->broken && (n > CONN_SCRATCH || !conn_wbuf_need(c, n)))
        conn_break(c, "replies");
    return c->broken ? conn_scratch : c->wbuf + c->wlen;
}

void conn_out_commit(conn *c, size_t used) {
    struct conn_seg *last = c->nsegs > c->wseg ? &c->segs[c->nsegs - 1] : NULL;
    struct conn_seg *s;

    if (c->broken)
        return;
    if (last != NULL && last->ptr == NULL && last->off + last->len == c->wlen && c->nsegs > c->seg_fence) {
        last->len += used;
    } else if ((s = conn_seg_add(c)) != NULL) {
        s->it = NULL;
        s->ptr = NULL;
        s->off = c->wlen;
        s->len = used;
    } else {
        conn_break(c, "replies");
        return;
    }
    c->wlen += used;
    c->out_bytes += used;
}

/* Copies n bytes of any length out, in pieces a reserve can take. */
void conn_out(conn *c, const char *s, size_t n) {
    do {
        size_t part = n < CONN_SCRATCH ? n : CONN_SCRATCH;
        memcpy(conn_out_reserve(c, part), s, part);
        conn_out_commit(c, part);
        s += part;
        n -= part;
    } while (n > 0 && !c->broken);
}

void conn_out_reply(conn *c, enum reply_id r) {
    const struct reply_line *l = reply_line_of(r);

    if (log_level() >= 2)   /* -vv: memcached's ">fd REPLY" lines */
        log_msg(2, ">%d %.*s", c->fd, (int)l->len - 2, l->text);
    memcpy(conn_out_reserve(c, l->len), l->text, l->len);
    conn_out_commit(c, l->len);
}

/* Values small enough for a segment (seg.h) are always copied here, so
 * no reply holds a reference to an item in a segment past its turn. */
_Static_assert(SEG_VALUE_MAX <= CONN_COPY_MAX, "segment values must be copied into replies");

/* A small value is copied into the output buffer and the item released
 * at once: a pipeline of small replies goes out as one buffer, with no
 * segment or reference per value. A larger one is sent from the item. */
void conn_out_item(conn *c, item *it, const char *ptr, size_t len) {
    struct conn_seg *s;

    if (len <= CONN_COPY_MAX) {
        conn_out(c, ptr, len);
        item_release(it);
        return;
    }
    s = c->broken ? NULL : conn_seg_add(c);

    if (s == NULL) {
        conn_break(c, "replies");
        item_release(it);
        return;
    }
    s->it = it;
    s->ptr = ptr;
    s->off = 0;
    s->len = len;
    c->out_bytes += len;
}

bool conn_out_full(const conn *c) {
    return c->out_bytes > settings.conn_output_max || c->nsegs - c->wseg > CONN_SEGS_HIGH ||
           c->broken;
}

void conn_mark_out(conn *c, struct conn_mark *m) {
    m->nsegs = c->nsegs;
    m->wlen = c->wlen;
    m->out_bytes = c->out_bytes;
}

void conn_rollback(conn *c, const struct conn_mark *m) {
    int i;

    /* out_bytes loses what goes (not restored from m: a reply replaced
     * before m may have changed the bytes queued before it) */
    for (i = m->nsegs; i < c->nsegs; i++) {
        c->out_bytes -= c->segs[i].len;
        if (c->segs[i].it != NULL)
            item_release(c->segs[i].it);
    }
    c->nsegs = m->nsegs;
    if (c->nsegs > c->wseg) {
        struct conn_seg *last = &c->segs[c->nsegs - 1];
        if (last->ptr == NULL && last->off + last->len > m->wlen) {
            c->out_bytes -= last->off + last->len - m->wlen;
            last->len = m->wlen - last->off;
        }
    }
    c->wlen = m->wlen;
    if (c->seg_fence > c->nsegs)
        c->seg_fence = c->nsegs;
}

void conn_out_fence(conn *c) {
    c->seg_fence = c->nsegs;
}

/* Output bytes m left in the segment it ended in (merged into it since)
 * move to a segment of their own, inserted after it. */
static bool conn_seg_split(conn *c, const struct conn_mark *m) {
    struct conn_seg *s = m->nsegs > c->wseg ? &c->segs[m->nsegs - 1] : NULL;
    size_t end;

    if (s == NULL || s->ptr != NULL || s->off >= m->wlen || s->off + s->len <= m->wlen)
        return true;
    end = s->off + s->len;
    if (conn_seg_add(c) == NULL)
        return false;
    s = &c->segs[m->nsegs - 1];     /* the array may have moved */
    memmove(&c->segs[m->nsegs + 1], &c->segs[m->nsegs], sizeof(struct conn_seg) * (size_t)(c->nsegs - 1 - m->nsegs));
    s->len = m->wlen - s->off;
    c->segs[m->nsegs] = (struct conn_seg){ .it = NULL, .ptr = NULL, .off = m->wlen, .len = end - m->wlen };
    return true;
}

static const char conn_nothing[1];

int conn_out_isolate(conn *c, const struct conn_mark *m) {
    struct conn_seg *s;

    if (c->broken)
        return -1;
    if (!conn_seg_split(c, m)) {
        conn_break(c, "replies");
        return -1;
    }
    if (c->nsegs == m->nsegs) {     /* no reply (a quiet one): an empty segment to replace later */
        if ((s = conn_seg_add(c)) == NULL) {
            conn_break(c, "replies");
            return -1;
        }
        *s = (struct conn_seg){ .it = NULL, .ptr = conn_nothing, .off = 0, .len = 0 };
    }
    conn_out_fence(c);
    return m->nsegs;
}

void conn_out_replace(conn *c, int first, int end, const struct conn_mark *m) {
    size_t n = c->wlen - m->wlen;
    struct conn_side *side;
    int i;

    if (c->broken)
        return;
    if ((side = malloc(sizeof(*side) + (n > 0 ? n : 1))) == NULL) {
        conn_break(c, "replies");
        return;
    }
    memcpy(side->bytes, c->wbuf + m->wlen, n);
    side->next = c->side;
    c->side = side;
    conn_rollback(c, m);
    for (i = first; i < end; i++) {
        c->out_bytes -= c->segs[i].len;
        if (c->segs[i].it != NULL)
            item_release(c->segs[i].it);
        c->segs[i] = (struct conn_seg){ .it = NULL, .ptr = side->bytes, .off = 0, .len = i == first ? n : 0 };
    }
    c->out_bytes += n;
}

/* Drops buffers that grew for one big reply back to their usual size. */
static void conn_shrink_output(conn *c) {
    if (c->wsize > CONN_WBUF_KEEP) {
        char *p = conn_buf_realloc(c->wbuf, c->wsize, CONN_WBUF_INIT);
        if (p != NULL) {
            c->wbuf = p;
            c->wsize = CONN_WBUF_INIT;
        }
    }
    if (c->segcap > CONN_SEGS_KEEP) {
        struct conn_seg *s = conn_buf_realloc(c->segs, sizeof(struct conn_seg) * (size_t)c->segcap,
                                              sizeof(struct conn_seg) * CONN_SEGS_INIT);
        if (s != NULL) {
            c->segs = s;
            c->segcap = CONN_SEGS_INIT;
        }
    }
}

static int conn_fill_iov(conn *c, struct iovec *iov) {
    int n = 0, i;

    for (i = c->wseg; i < c->nsegs && n < CONN_IOV_MAX; i++) {
        struct conn_seg *s = &c->segs[i];
        const char *base = s->ptr != NULL ? s->ptr : c->wbuf + s->off;
        size_t skip = i == c->wseg ? c->wseg_off : 0;
        iov[n].iov_base = (void *)(base + skip);
        iov[n].iov_len = s->len - skip;
        n++;
    }
    return n;
}

static void conn_advance(conn *c, size_t w) {
    while (c->wseg < c->nsegs) {     /* also past empty segments when w is 0 */
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

void conn_out_skip(conn *c, size_t n) {
    if (n > c->out_bytes)
        n = c->out_bytes;
    c->out_bytes -= n;
    c->out_sent = c->out_sent || n > 0;
    conn_advance(c, n);
}

/* Writes queued output: 0 when done or the socket is full, -1 on error. */
static int conn_flush(conn *c) {
    struct iovec iov[CONN_IOV_MAX];

    while (c->wseg < c->nsegs) {
        int n = conn_fill_iov(c, iov);
        ssize_t w = c->tls != NULL ? tls_writev(c, iov, n) : writev(c->fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        stats_add(STATS_BYTES_WRITTEN, (uint64_t)w);
        c->out_bytes -= (size_t)w;
        c->out_sent = true;
        conn_advance(c, (size_t)w);
    }
    c->nsegs = c->wseg = 0;
    c->wseg_off = 0;
    c->wlen = 0;
    c->out_bytes = 0;
    c->seg_fence = 0;
    conn_side_free(c);
    conn_mark_out(c, &c->sync_mark);    /* the current command's output starts at 0 now */
    conn_shrink_output(c);
    return 0;
}

/* ---- input ---- */

/* Makes room at the end of the read buffer. -1 if it is full of one
 * unfinished command (which no parser lets happen but a multi-get) or
 * none can be had. */
static int conn_rbuf_room(conn *c) {
    if (!conn_rbuf_take(c))
        return -1;
    conn_input_moved(c);
    if (c->rpos == c->rlen) {
        c->rpos = c->rlen = 0;
    } else if (c->rpos > 0) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    return c->rlen < CONN_RBUF_SIZE ? 0 : -1;
}

/* Reads into iov[0..n) (TLS: iov[0] only). Bytes read (> 0), 0 if the
 * socket has nothing, -1 on EOF or error. */
static ssize_t conn_readv(conn *c, struct iovec *iov, int n) {
    for (;;) {
        ssize_t r = c->tls != NULL ? tls_read(c, iov[0].iov_base, iov[0].iov_len)
                  : n == 1     ? read(c->fd, iov[0].iov_base, iov[0].iov_len)
                               : readv(c->fd, iov, n);
        if (r > 0) {
            stats_add(STATS_BYTES_READ, (uint64_t)r);
            return r;
        }
        if (r == 0) {
            c->eof = true;
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
}

static ssize_t conn_read_into(conn *c, char *dst, size_t n) {
    struct iovec v = { dst, n };

    return conn_readv(c, &v, 1);
}

/* 1 if something was read into rbuf, 0 to wait, -1 on EOF/error/overflow.
 * A read that fills less than the room it had means the socket is empty:
 * the next read waits for the next read event instead of a sure EAGAIN. */
static int conn_read(conn *c) {
    size_t room;
    ssize_t r;

    if (c->eof)
        return -1;
    if (c->drained)
        return 0;
    if (conn_rbuf_room(c) < 0) {
        if (c->rbuf == NULL) {
            stats_global_add(STATS_READ_BUF_OOM, 1);
            conn_out_reply(c, REPLY_OOM_READING);
            log_msg(1, "<%d no read buffer to be had, closing", c->fd);
        } else {
            log_msg(1, "<%d request line too long, closing", c->fd);
        }
        return -1;
    }
    room = CONN_RBUF_SIZE - c->rlen;
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
    c->nread.finish = NULL;
    c->state = CONN_NREAD;
}

void conn_start_swallow(conn *c, size_t n) {
    c->swallow = n;
    c->state = CONN_SWALLOW;
}

/* Reads the rest of a value (need bytes) straight into the item, and
 * in the same readv whatever follows it into the emptied read buffer (a
 * pipelined command, or nothing): a value that ends the input then leaves
 * the socket seen empty, so no read ends in a sure EAGAIN after its
 * reply. Bytes of the value read (> 0), 0 if the socket has nothing, -1
 * on EOF/error. TLS, or no read buffer to be had: the value only. */
static ssize_t conn_read_tail(conn *c, char *dst, size_t need) {
    struct iovec iov[2] = { { dst, need }, { NULL, 0 } };
    int n = 1;
    ssize_t r;

    if (c->tls == NULL && conn_rbuf_room(c) == 0) {
        iov[1].iov_base = c->rbuf + c->rlen;
        iov[1].iov_len = CONN_RBUF_SIZE - c->rlen;
        n = 2;
    }
    r = conn_readv(c, iov, n);
    if (r <= 0)
        return r;
    c->drained = (size_t)r < need + iov[1].iov_len;
    if ((size_t)r > need) {
        c->rlen += (size_t)r - need;
        return (ssize_t)need;
    }
    return r;
}

/* Moves value bytes into the item being read: 1 progress, 0 wait, -1 close. */
static int conn_step_nread(conn *c) {
    item *it = c->nread.it;
    size_t need = c->nread.want - c->nread.done;
    size_t have = c->rbuf != NULL ? c->rlen - c->rpos : 0;

    if (have > 0) {
        size_t n = have < need ? have : need;
        memcpy(item_value(it) + c->nread.done, c->rbuf + c->rpos, n);
        c->rpos += n;
        c->nread.done += n;
    } else if (need >= CONN_DIRECT_READ) {
        ssize_t r = c->drained ? 0 : conn_read_tail(c, item_value(it) + c->nread.done, need);
        if (r <= 0)
            return (int)r;
        c->nread.done += (size_t)r;
    } else {
        return conn_read(c);
    }
    if (c->nread.done == c->nread.want) {
        c->state = CONN_PARSE;
        c->proto->nread_done(c);    /* counted in reqs when its line was */
    }
    return 1;
}

static int conn_step_swallow(conn *c) {
    size_t have = c->rbuf != NULL ? c->rlen - c->rpos : 0;

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
 * once the buffer is full, reading stops and only a hang-up is watched
 * for (EV_CLOSED). */
static bool conn_read_paused(conn *c) {
    return c->state == CONN_WAITING && c->rbuf != NULL && c->rlen - c->rpos >= CONN_RBUF_SIZE / 2;
}

/* The client hung up (or shut down its side) while its command waited:
 * the wait ends at once with its empty answer, and whatever it pipelined
 * after it is answered before the connection closes (1). If the answer
 * was already on its way, the connection closes now (-1): what the wait
 * got goes back to the queue uncounted, never to a client that is gone.
 * A wait whose answer is owed anyway (park_owed) goes on (0): nothing more
 * is read or watched for until its wake resumes c, which then sends the
 * answer and closes. */
static int conn_waiting_eof(conn *c) {
    if (park_owed(c))
        return 0;
    if (park_abandon(c)) {
        c->state = CONN_PARSE;
        return 1;
    }
    return -1;
}

static int conn_step_waiting(conn *c) {
    int r;

    if (c->eof)
        return conn_waiting_eof(c);
    if (conn_read_paused(c))
        return 0;
    r = conn_read(c);
    if (r < 0 && c->eof)
        return conn_waiting_eof(c);
    return r;
}

static int conn_step_parse(conn *c) {
    if (c->rbuf != NULL && c->rpos < c->rlen) {
        enum conn_parse_result r;
        if (c->proto == NULL)
            c->proto = c->choose(c->rbuf[c->rpos]);
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

/* After reqs_per_event commands with more input waiting, or when a
 * command asked (conn_yield_turn), let other connections of this worker
 * run first. */
static int conn_should_yield(conn *c) {
    if (c->yield_turn)
        return 1;
    if (c->reqs < settings.reqs_per_event)
        return 0;
    if (c->state == CONN_PARSE && c->resume == NULL && (c->rbuf == NULL || c->rpos == c->rlen))
        return 0;
    return 1;
}

/* Runs a command that paused itself because its output was full. */
static int conn_step_resume(conn *c) {
    void (*fn)(conn *c) = c->resume;

    c->resume = NULL;
    fn(c);
    c->reqs++;
    return 1;
}

static int conn_step(conn *c) {
    if (c->resume != NULL)
        return conn_step_resume(c);
    switch (c->state) {
    case CONN_PARSE: return conn_step_parse(c);
    case CONN_NREAD: return conn_step_nread(c);
    case CONN_SWALLOW: return conn_step_swallow(c);
    case CONN_WAITING: return conn_step_waiting(c);
    case CONN_CLOSING: return 1;
    }
    return 1;
}

/* The events to wait for once conn_drive has done what it can. A
 * hang-up (EV_CLOSED) is watched for whenever input is, not only while a
 * command waits, so that starting and ending a wait changes nothing (each
 * change costs epoll_ctl calls); while reading, a hang-up is also seen as
 * the end of the input. */
static short conn_events(conn *c) {
    short ev = 0;

    if (c->out_bytes > 0)
        ev |= EV_WRITE;
    if (c->eof)
        return c->tls != NULL ? ev | tls_events(c->tls) : ev;    /* nothing more to read */
    if (c->state == CONN_WAITING)
        ev |= EV_CLOSED;
    if (!conn_read_paused(c) && !conn_out_full(c) && c->resume == NULL)
        ev |= EV_READ | EV_CLOSED;
    if (c->tls != NULL)
        ev |= tls_events(c->tls);
    return ev;
}

/* With persistence, a connection whose replies answer for log records
 * that are not durable yet sends and reads nothing until they are. Most
 * holds end at the end of this turn of the event loop, so its events are
 * left as they are; one that fires while it is still held switches them
 * off (conn_event). */
static void conn_hold(conn *c) {
    if (!c->held) {
        c->held_since_us = clock_mono_us();
        c->held = true;
        worker_hold(c->worker, c);
    }
}

void conn_unhold(conn *c) {
    c->held = false;
    worker_unhold(c->worker, c);
    conn_drive(c);
}

void conn_fail_stalled(conn *c) {
    log_msg(0, "<%d its replies waited %d s for the log, which cannot be written: closed unanswered "
               "(its changes stay, and are logged once the disk has room)", c->fd, settings.log_stall_timeout);
    c->held = false;
    worker_unhold(c->worker, c);
    c->persist_need = 0;
    conn_release_output(c);
    if (c->proto != NULL && c->proto->reply_lines)
        conn_out_reply(c, REPLY_LOG_STALLED);
    conn_flush(c);
    conn_close(c);
}

/* Writes the queued replies once the log records they answer for are
 * durable under the fsync policy: until then the connection is held, and
 * its worker writes the log for all of its held connections at once at
 * the end of the event loop's turn (worker_commit). 0 written (or the
 * socket is full), 1 held until the log catches up, -1 on error. */
static int conn_send(conn *c, uint64_t log_mark) {
    if (persist_thread_end() != log_mark)
        c->persist_need = persist_thread_end();
    if (c->persist_need != 0 || conn_sync_pending(c)) {
        if (!persist_durable(c->persist_need) || !conn_sync_ready(c)) {
            conn_hold(c);
            return 1;
        }
        c->persist_need = 0;
    }
    return conn_flush(c);
}

/* c yielded: it runs again after the other connections ready now and
 * those that become ready meanwhile. The loop looks for new events before
 * it runs c again: an event made active from its own callback would
 * otherwise run again before the loop polls, and a client whose pipeline
 * is all in its socket would keep the worker until it ran dry. */
static void conn_requeue(conn *c) {
    c->yield_turn = false;
    event_active(c->ev, EV_READ, 0);
    event_base_loopcontinue(worker_base(c->worker));
}

static void conn_drive(conn *c) {
    uint64_t log_mark = persist_thread_end(), step_mark;
    int r = 0, yield = 0, sent;

    c->reqs = 0;
    for (;;) {
        if (c->broken) {
            conn_close(c);
            return;
        }
        if (conn_out_full(c) || c->state == CONN_CLOSING) {
            sent = conn_send(c, log_mark);
            if (sent > 0)
                return;
            if (sent < 0 || (c->state == CONN_CLOSING && c->out_bytes == 0)) {
                conn_close(c);
                return;
            }
            if (conn_out_full(c) || (c->state == CONN_CLOSING && c->out_bytes > 0)) {
                conn_update_event(c, conn_events(c));
                return;
            }
        }
        if (conn_should_yield(c)) {
            if (!c->yield_turn)     /* as memcached: only -R's yields count */
                stats_incr(STATS_CONN_YIELDS);
            yield = 1;
            break;
        }
        if (c->state == CONN_PARSE && c->resume == NULL)
            conn_sync_begin(c);
        step_mark = persist_thread_end();
        persist_cmd_begin();
        r = conn_step(c);
        persist_cmd_end();
        if (r < 0) {
            /* EOF or a read error: send what is queued, then close. */
            c->state = CONN_CLOSING;
            continue;
        }
        if (conn_sync_stop(c, step_mark) || r == 0)
            break;
    }
    conn_rbuf_give(c);
    sent = conn_send(c, log_mark);
    if (sent > 0)
        return;
    if (sent < 0 || c->broken) {
        conn_close(c);
        return;
    }
    if (c->state == CONN_WAITING)
        park_idle(c);
    conn_update_event(c, conn_events(c));
    if (yield)
        conn_requeue(c);
}

static void conn_event(evutil_socket_t fd, short what, void *arg) {
    conn *c = arg;
    struct worker *w = c->worker;

    if (what & EV_READ)
        c->drained = false;
    if ((what & EV_CLOSED) && c->state == CONN_WAITING)
        c->eof = true;      /* the rest of its input is not read */
    if (c->held) {
        conn_update_event(c, 0);    /* conn_unhold drives it */
        return;
    }
    conn_drive(c);
    worker_run_posted(w);   /* a waiter c's command served answers now */
}

void conn_yield_turn(conn *c) {
    c->yield_turn = true;
}

void conn_kick(conn *c) {
    conn_drive(c);
}

void conn_resume(conn *c) {
    c->state = CONN_PARSE;
    conn_drive(c);
}
