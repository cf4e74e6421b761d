/*
 * repl/stream: log files read in whole records, and buffered I/O for the
 * replication link, over a plain socket or its TLS session.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "persist/files.h"
#include "persist/records.h"
#include "persist/wal.h"
#include "repl/link_tls.h"
#include "repl/stream.h"

#define STREAM_LINE_MAX 1024

uint64_t stream_now_ms(void) {
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- the log files ---- */

static int stream_log_file(struct stream_log *l, uint64_t file_lsn) {
    char path[PATH_MAX + 40];
    int fd;

    files_path(path, sizeof(path), l->dir, "log", file_lsn);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (l->fd >= 0)
        close(l->fd);
    l->fd = fd;
    l->file_lsn = file_lsn;
    return 0;
}

int stream_log_open(struct stream_log *l, const char *dir, uint64_t pos) {
    struct persist_files *f = malloc(sizeof(*f));
    int i, rc = -1;

    memset(l, 0, sizeof(*l));
    l->dir = dir;
    l->fd = -1;
    l->pos = pos;
    if (f == NULL || files_list(dir, f, false) < 0) {
        free(f);
        return -1;
    }
    for (i = f->nlogs - 1; i >= 0 && rc < 0; i--)
        if (f->logs[i] <= pos)
            rc = stream_log_file(l, f->logs[i]);
    free(f);
    return rc;
}

void stream_log_close(struct stream_log *l) {
    if (l->fd >= 0)
        close(l->fd);
    free(l->buf);
    l->fd = -1;
    l->buf = NULL;
}

static int stream_log_grow(struct stream_log *l, size_t want) {
    uint8_t *b;

    if (want <= l->cap)
        return 0;
    if ((b = realloc(l->buf, want)) == NULL)
        return -1;
    l->buf = b;
    l->cap = want;
    return 0;
}

/* Reads up to want bytes at l->pos into l->buf: bytes read, 0 at the end
 * of every file, -1 on an error. A file that ends before limit goes on
 * in the next file, which starts where it ends. */
static ssize_t stream_log_pread(struct stream_log *l, size_t want, uint64_t limit) {
    ssize_t r;

    for (;;) {
        r = pread(l->fd, l->buf, want, (off_t)(l->pos - l->file_lsn));
        if (r < 0 && errno == EINTR)
            continue;
        if (r != 0 || l->pos >= limit)
            return r;
        if (stream_log_file(l, l->pos) < 0)
            return -1;      /* the next file is gone: a snapshot removed it */
    }
}

ssize_t stream_log_read(struct stream_log *l, uint64_t limit, uint64_t *records) {
    size_t want = STREAM_CHUNK, off = 0, size = 0;
    ssize_t n;
    int rc;

    *records = 0;
    if (limit <= l->pos)
        return 0;
    for (;;) {
        if (want > limit - l->pos)
            want = (size_t)(limit - l->pos);
        if (stream_log_grow(l, want) < 0 || (n = stream_log_pread(l, want, limit)) < 0)
            return -1;
        off = 0;
        while ((rc = rec_frame(l->buf + off, (size_t)n - off, &size)) == 1) {
            off += size;
            (*records)++;
        }
        if (rc < 0)
            return -1;
        if (off > 0 || (size_t)n < want || size <= want)
            break;
        want = size;        /* one record bigger than a chunk */
    }
    l->pos += off;
    return (ssize_t)off;
}

bool stream_log_record_at(const char *dir, uint64_t pos) {
    struct stream_log l;
    uint64_t records = 0;
    struct rec r;
    size_t size;
    ssize_t n;
    bool ok;

    if (stream_log_open(&l, dir, pos) < 0)
        return false;
    n = stream_log_read(&l, UINT64_MAX, &records);
    ok = n > 0 && rec_parse(l.buf, (size_t)n, &r, &size) == 1;     /* its checksum too */
    stream_log_close(&l);
    return ok;
}

/* ---- the link ---- */

bool stream_sock_pending(const struct stream_sock *s) {
    return s->tls != NULL && link_tls_pending(s->tls);
}

/* As recv(2) with MSG_DONTWAIT, on the socket or its session. */
static ssize_t stream_recv(const struct stream_sock *s, void *buf, size_t n) {
    return s->tls != NULL ? link_tls_recv(s->tls, buf, n) : recv(s->fd, buf, n, MSG_DONTWAIT);
}

/* As send(2) with MSG_DONTWAIT, on the socket or its session. */
static ssize_t stream_send(const struct stream_sock *s, const void *buf, size_t n) {
    return s->tls != NULL ? link_tls_send(s->tls, buf, n) : send(s->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* The poll event that the last EAGAIN of s's session waits for, else want. */
static short stream_wants(const struct stream_sock *s, short want) {
    short w = s->tls != NULL ? link_tls_wants(s->tls) : 0;

    return w != 0 ? w : want;
}

void stream_in_init(struct stream_in *in, const struct stream_sock *s) {
    memset(in, 0, sizeof(*in));
    in->sock = *s;
}

void stream_in_free(struct stream_in *in) {
    free(in->buf);
    memset(in, 0, sizeof(*in));
    in->sock.fd = -1;
}

/* Room for n more bytes after end. */
static int stream_in_room(struct stream_in *in, size_t n) {
    uint8_t *b;
    size_t cap;

    if (in->start > 0 && in->start == in->end)
        in->start = in->end = 0;
    if (in->end + n <= in->cap)
        return 0;
    if (in->start > 0) {
        memmove(in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->start = 0;
        if (in->end + n <= in->cap)
            return 0;
    }
    cap = in->cap ? in->cap : 64 * 1024;
    while (cap < in->end + n)
        cap *= 2;
    if ((b = realloc(in->buf, cap)) == NULL)
        return -1;
    in->buf = b;
    in->cap = cap;
    return 0;
}

ssize_t stream_in_fill(struct stream_in *in, int timeout_ms) {
    struct pollfd p = { in->sock.fd, stream_wants(&in->sock, POLLIN), 0 };
    ssize_t r;
    int pr = 1;

    if (stream_in_room(in, 64 * 1024) < 0)
        return -1;
    if (!stream_sock_pending(&in->sock))
        pr = poll(&p, 1, timeout_ms);
    if (pr < 0)
        return errno == EINTR ? -2 : -1;
    if (pr == 0)
        return -2;
    r = stream_recv(&in->sock, in->buf + in->end, in->cap - in->end);
    if (r < 0)
        return errno == EINTR || errno == EAGAIN ? -2 : -1;
    in->end += (size_t)r;
    return r;
}

char *stream_in_line(struct stream_in *in, bool *bad) {
    uint8_t *nl;
    char *line;

    *bad = false;
    nl = in->end > in->start ? memchr(in->buf + in->start, '\n', in->end - in->start) : NULL;
    if (nl == NULL) {
        *bad = in->end - in->start > STREAM_LINE_MAX;
        return NULL;
    }
    line = (char *)in->buf + in->start;
    *nl = '\0';
    if (nl > in->buf + in->start && nl[-1] == '\r')
        nl[-1] = '\0';
    in->start = (size_t)(nl - in->buf) + 1;
    *bad = strlen(line) > STREAM_LINE_MAX;
    return line;
}

const uint8_t *stream_in_block(struct stream_in *in, size_t n) {
    const uint8_t *p;

    if (in->end - in->start < n) {
        stream_in_room(in, n - (in->end - in->start));
        return NULL;
    }
    p = in->buf + in->start;
    in->start += n;
    return p;
}

int stream_write(const struct stream_sock *s, const void *p, size_t n, int timeout_ms) {
    const uint8_t *b = p;

    while (n > 0) {
        struct pollfd pf = { s->fd, POLLOUT, 0 };
        ssize_t w = stream_send(s, b, n);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        pf.events = stream_wants(s, POLLOUT);
        if (poll(&pf, 1, timeout_ms) == 0)
            return -1;      /* the peer takes nothing */
    }
    return 0;
}

int stream_printf(const struct stream_sock *s, int timeout_ms, const char *fmt, ...) {
    char line[STREAM_LINE_MAX];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(line))
        return -1;
    return stream_write(s, line, (size_t)n, timeout_ms);
}
