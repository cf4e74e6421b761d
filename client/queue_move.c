/*
 * queue_move.c - the queue verbs that move several messages in one
 * request (doc/protocol.md, "qpushn" and "Moving messages back"): a batch
 * push, a dead-letter queue's messages back to the queues they came from,
 * a queue's buried messages ready again. No allocation: requests are
 * built on the stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "xconn.h"

/* "qpushn " + queue + flags, delay, priority + " <len>" per message +
 * the options (" dedup=<id> group=<id>") + "\r\n". */
#define PUSHN_LINE_MAX (16 + MCDS_QUEUE_NAME_MAX + 3 * 11 + MCDS_QUEUE_PUSH_MAX * 11 + \
                        MCDS__PUSH_OPTS_MAX + 2)

/* "PUSHED <id> ..." (n ids) into ids (may be NULL): 0, or -1 if the line
 * is not that. */
static int parse_pushed(const char *p, size_t len, size_t n, uint64_t *ids)
{
    char buf[8 + MCDS_QUEUE_PUSH_MAX * 21], *s, *e;
    size_t i;

    if (len >= sizeof buf || !mcds__x_line_starts(p, len, "PUSHED "))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    s = buf + 6;
    for (i = 0; i < n; i++) {
        uint64_t v;
        if (s[0] != ' ' || s[1] < '0' || s[1] > '9')
            return -1;
        errno = 0;
        v = strtoull(s + 1, &e, 10);
        if (errno != 0)
            return -1;
        if (ids != NULL)
            ids[i] = v;
        s = e;
    }
    return *s == '\0' ? 0 : -1;
}

/* The "qpushn" line and iov (line, then each block and its "\r\n"). */
static mcds_status_t pushn_request(char *line, struct iovec *iov, const char *queue,
                                   const void *const *data, const size_t *lens,
                                   size_t n, uint32_t flags, uint32_t delay_s,
                                   uint32_t priority, const char *opts)
{
    size_t len, i, total = 0;

    len = (size_t)snprintf(line, PUSHN_LINE_MAX, "qpushn %s %u %u %u", queue,
                           (unsigned)flags, (unsigned)delay_s, (unsigned)priority);
    for (i = 0; i < n; i++) {
        if ((data[i] == NULL && lens[i] > 0) || lens[i] > INT32_MAX - 2)
            return lens[i] > INT32_MAX - 2 ? MCDS_TOO_LARGE : MCDS_INVALID;
        total += lens[i];
        if (total > INT32_MAX)
            return MCDS_TOO_LARGE; /* more than any server takes in one request */
        len += (size_t)snprintf(line + len, PUSHN_LINE_MAX - len, " %zu", lens[i]);
        iov[1 + 2 * i].iov_base = (void *)data[i];
        iov[1 + 2 * i].iov_len = lens[i];
        iov[2 + 2 * i].iov_base = (void *)"\r\n";
        iov[2 + 2 * i].iov_len = 2;
    }
    len += (size_t)snprintf(line + len, PUSHN_LINE_MAX - len, "%s", opts);
    memcpy(line + len, "\r\n", 2);
    iov[0].iov_base = line;
    iov[0].iov_len = len + 2;
    return MCDS_OK;
}

mcds_status_t mcds_queue_push_many(mcds_t *h, const char *queue,
                                   const void *const *data, const size_t *lens,
                                   size_t n, uint32_t flags, uint32_t delay_s,
                                   uint32_t priority, uint64_t *ids)
{
    return mcds_queue_push_many_opts(h, queue, data, lens, n, flags, delay_s, priority,
                                     NULL, ids);
}

mcds_status_t mcds_queue_push_many_dedup(mcds_t *h, const char *queue,
                                         const void *const *data, const size_t *lens,
                                         size_t n, uint32_t flags, uint32_t delay_s,
                                         uint32_t priority, const char *dedup, uint64_t *ids)
{
    mcds_push_opts_t o = { 0 };

    o.dedup = dedup;           /* NULL: a plain push */
    return mcds_queue_push_many_opts(h, queue, data, lens, n, flags, delay_s, priority, &o, ids);
}

mcds_status_t mcds_queue_push_many_opts(mcds_t *h, const char *queue,
                                        const void *const *data, const size_t *lens,
                                        size_t n, uint32_t flags, uint32_t delay_s,
                                        uint32_t priority, const mcds_push_opts_t *opts,
                                        uint64_t *ids)
{
    char line[PUSHN_LINE_MAX], tail[MCDS__PUSH_OPTS_MAX + 1];
    struct iovec iov[1 + 2 * MCDS_QUEUE_PUSH_MAX];
    size_t off, llen;
    xcall_t x;
    mcds_status_t st;

    if (data == NULL || lens == NULL || n == 0 || n > MCDS_QUEUE_PUSH_MAX ||
        delay_s > INT32_MAX || mcds__queue_push_opts(tail, opts, delay_s) < 0)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, queue);
    if (st == MCDS_OK)
        st = pushn_request(line, iov, queue, data, lens, n, flags, delay_s, priority, tail);
    if (st == MCDS_OK)
        st = mcds__x_send_all(&x, iov, 1 + 2 * (int)n);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
    if (st == MCDS_OK && parse_pushed(x.c->buf + off, llen, n, ids) < 0)
        st = mcds__x_reply_error(&x, off, llen, 0, 1);
    return mcds__x_end(&x, st);
}

/* "<verb> <queue>[ <max>]\r\n" into line; MCDS_INVALID for max over the
 * server's bound. */
static mcds_status_t move_line(char *line, size_t size, const char *verb,
                               const char *queue, unsigned max, size_t *len)
{
    if (max > MCDS_QUEUE_MOVE_MAX)
        return MCDS_INVALID;
    if (max == 0)
        *len = (size_t)snprintf(line, size, "%s %s\r\n", verb, queue);
    else
        *len = (size_t)snprintf(line, size, "%s %s %u\r\n", verb, queue, max);
    return MCDS_OK;
}

/* "REDRIVEN <moved> <left>" into its two numbers: 0, or -1 if the line
 * is not that. */
static int parse_redriven(const char *p, size_t len, uint64_t *moved,
                          uint64_t *left)
{
    char buf[64], tail;
    unsigned long long a, b;

    if (len >= sizeof buf || !mcds__x_line_starts(p, len, "REDRIVEN "))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (sscanf(buf, "REDRIVEN %llu %llu%c", &a, &b, &tail) != 2)
        return -1;
    *moved = a;
    *left = b;
    return 0;
}

/* ---- qpopany ---- */

/* "ITEM <id> <flags> <bytes> <deliveries> <queue>" into m and the index
 * of <queue> in queues: 0, or -1 if the line is not that. */
static int parse_item_q(const char *p, size_t len, const char *const *queues,
                        size_t nq, msg_at_t *m, size_t *which)
{
    size_t cut = len, i, nname;
    const char *name;

    while (cut > 0 && p[cut - 1] != ' ')
        cut--;
    if (cut == 0 || mcds__queue_parse_item(p, cut - 1, m) != 0)
        return -1;
    name = p + cut;
    nname = len - cut;
    for (i = 0; i < nq; i++) {
        if (strlen(queues[i]) == nname && memcmp(queues[i], name, nname) == 0) {
            *which = i;
            return 0;
        }
    }
    return -1;
}

/* "qpopany <queues...> count=<max>[ lease=][ wait=]\r\n" into line. */
static size_t popany_line(char *line, size_t size, const char *const *queues,
                          size_t nq, unsigned max, unsigned lease_ms, unsigned wait_ms)
{
    char secs[24];
    size_t n = (size_t)snprintf(line, size, "qpopany"), i;

    for (i = 0; i < nq; i++)
        n += (size_t)snprintf(line + n, size - n, " %s", queues[i]);
    n += (size_t)snprintf(line + n, size - n, " count=%u", max);
    if (lease_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, lease_ms);
        n += (size_t)snprintf(line + n, size - n, " lease=%s", secs);
    }
    if (wait_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, wait_ms);
        n += (size_t)snprintf(line + n, size - n, " wait=%s", secs);
    }
    n += (size_t)snprintf(line + n, size - n, "\r\n");
    return n;
}

/* Whether every queue lives on the server of queues[0] (x's). */
static mcds_status_t same_server(xcall_t *x, const char *const *queues, size_t nq)
{
    xcall_t y;
    mcds_status_t st;
    size_t i;

    for (i = 1; i < nq; i++) {
        st = mcds__x_begin(&y, x->h, queues[i]);
        if (st != MCDS_OK)
            return st;
        if (!mcds__x_same_server(x, &y)) {
            mcds__x_detail(x, "the queues are on different servers (give them one {tag})");
            return MCDS_INVALID;
        }
    }
    return MCDS_OK;
}

/* Reads the ITEM lines and END of a qpopany reply into m (room for max). */
static mcds_status_t popany_read(xcall_t *x, const char *const *queues, size_t nq,
                                 unsigned max, msg_at_t *m, size_t *got,
                                 size_t *which)
{
    size_t off, len;
    mcds_status_t st = MCDS_OK;

    while (st == MCDS_OK) {
        st = mcds__x_read_line(x, &off, &len);
        if (st != MCDS_OK || mcds__x_line_is(x->c->buf + off, len, "END"))
            break;
        if (*got == max || parse_item_q(x->c->buf + off, len, queues, nq, &m[*got], which) != 0)
            return mcds__x_reply_error(x, off, len, 0, 0);
        st = mcds__x_data_block(x, m[*got].len, &m[*got].off);
        if (st != MCDS_OK)
            break;
        (*got)++;
    }
    return st;
}

mcds_status_t mcds_queue_pop_any(mcds_t *h, const char *const *queues, size_t nqueues,
                                 unsigned max, unsigned lease_ms, unsigned wait_ms,
                                 mcds_queue_msg_t **msgs, size_t *count, size_t *which)
{
    char line[16 + MCDS_QUEUE_ANY_MAX * (MCDS_QUEUE_NAME_MAX + 1) + 96];
    msg_at_t at[MCDS_QUEUE_POP_MAX];
    size_t got = 0, n, w = 0;
    xcall_t x;
    mcds_status_t st;

    if (msgs == NULL || count == NULL || queues == NULL)
        return MCDS_INVALID;
    *msgs = NULL;
    *count = 0;
    if (nqueues < 1 || nqueues > MCDS_QUEUE_ANY_MAX || max < 1 || max > MCDS_QUEUE_POP_MAX)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, queues[0]);
    if (st == MCDS_OK)
        st = same_server(&x, queues, nqueues);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = popany_line(line, sizeof line, queues, nqueues, max, lease_ms, wait_ms);
    if (n >= 2048)
        return mcds__x_end(&x, MCDS_INVALID);      /* longer than a server line */
    x.first_ms = (int)(wait_ms > INT32_MAX / 2 ? INT32_MAX / 2 : wait_ms);
    st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK)
        st = popany_read(&x, queues, nqueues, max, at, &got, &w);
    if (st == MCDS_OK && got > 0)
        st = mcds__queue_pack_msgs(&x, at, got, msgs);
    if (st == MCDS_OK) {
        *count = got;
        if (which != NULL)
            *which = w;
    }
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_queue_redrive(mcds_t *h, const char *dlq, unsigned max,
                                 uint64_t *moved, uint64_t *left)
{
    char line[280];
    uint64_t a = 0, b = 0;
    size_t len, off, llen;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, dlq);

    if (st == MCDS_OK)
        st = move_line(line, sizeof line, "qredrive", dlq, max, &len);
    if (st == MCDS_OK)
        st = mcds__x_send_line(&x, line, len);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
    if (st == MCDS_OK && parse_redriven(x.c->buf + off, llen, &a, &b) < 0)
        st = mcds__x_reply_error(&x, off, llen, 1, 0);
    if (st == MCDS_OK && moved != NULL)
        *moved = a;
    if (st == MCDS_OK && left != NULL)
        *left = b;
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_queue_kick(mcds_t *h, const char *queue, unsigned max,
                              uint64_t *kicked)
{
    char line[280];
    uint64_t n = 0;
    size_t len;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, queue);

    if (st == MCDS_OK)
        st = move_line(line, sizeof line, "qkick", queue, max, &len);
    if (st == MCDS_OK)
        st = mcds__x_simple(&x, line, len, "KICKED", &n, 1);
    if (st == MCDS_OK && kicked != NULL)
        *kicked = n;
    return mcds__x_end(&x, st);
}
