/*
 * queue_batch.c - the batch forms of qack, qrelease and qtouch
 * (doc/protocol.md, "Several receipts at once"): up to
 * MCDS_QUEUE_BATCH_MAX ids (or receipts, the *_msgs calls) in one
 * request, one result per id. No
 * allocation: the request line is built on the stack.
 */
#include <stdio.h>
#include <string.h>

#include "xconn.h"

/* "qxxx " + queue + " <id>:<deliveries>" per message + " delay=<n>" /
 * " lease=<s>" + "\r\n". */
#define QB_LINE_MAX (16 + MCDS_QUEUE_NAME_MAX + MCDS_QUEUE_BATCH_MAX * 32 + 32)

/* The messages a batch acts on: bare ids, or the receipts of deliveries. */
typedef struct qb_what {
    const uint64_t *ids;
    const mcds_queue_msg_t *msgs;
} qb_what_t;

/* " <id>" or " <id>:<deliveries>" for the i-th message of w at line + len. */
static size_t qb_fmt(char *line, size_t len, const qb_what_t *w, size_t i)
{
    if (w->ids != NULL)
        return (size_t)snprintf(line + len, QB_LINE_MAX - len, " %llu",
                                (unsigned long long)w->ids[i]);
    if (w->msgs[i].deliveries == 0)
        return (size_t)snprintf(line + len, QB_LINE_MAX - len, " %llu",
                                (unsigned long long)w->msgs[i].id);
    return (size_t)snprintf(line + len, QB_LINE_MAX - len, " %llu:%u",
                            (unsigned long long)w->msgs[i].id,
                            (unsigned)w->msgs[i].deliveries);
}

/* Sends "<verb> <queue> <ids...>[ <opt>]" and reads one line per id into
 * results[]: MCDS_OK for ok_word, MCDS_NOT_FOUND for NOT_FOUND. An error
 * line (it comes alone, in place of them all) is the call's status. */
static mcds_status_t batch(mcds_t *h, const char *queue, const char *verb,
                           qb_what_t w, size_t n, const char *opt,
                           const char *ok_word, mcds_status_t *results)
{
    char line[QB_LINE_MAX];
    size_t len, i, off, llen;
    xcall_t x;
    mcds_status_t st;

    if ((w.ids == NULL && w.msgs == NULL) || results == NULL || n == 0 ||
        n > MCDS_QUEUE_BATCH_MAX)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    len = (size_t)snprintf(line, sizeof line, "%s %s", verb, queue);
    for (i = 0; i < n; i++)
        len += qb_fmt(line, len, &w, i);
    len += (size_t)snprintf(line + len, sizeof line - len, "%s%s\r\n",
                            opt != NULL ? " " : "", opt != NULL ? opt : "");
    st = mcds__x_send_line(&x, line, len);
    for (i = 0; i < n && st == MCDS_OK; i++) {
        st = mcds__x_read_line(&x, &off, &llen);
        if (st != MCDS_OK)
            break;
        if (mcds__x_line_is(x.c->buf + off, llen, ok_word))
            results[i] = MCDS_OK;
        else if (mcds__x_line_is(x.c->buf + off, llen, "NOT_FOUND"))
            results[i] = MCDS_NOT_FOUND;
        else
            st = mcds__x_reply_error(&x, off, llen, 0, 0);
    }
    return mcds__x_end(&x, st);
}

static mcds_status_t release(mcds_t *h, const char *queue, qb_what_t w,
                             size_t n, uint32_t delay_s, mcds_status_t *results)
{
    char opt[32];

    if (delay_s > INT32_MAX)
        return MCDS_INVALID;
    snprintf(opt, sizeof opt, "delay=%u", (unsigned)delay_s);
    return batch(h, queue, "qrelease", w, n, opt, "RELEASED", results);
}

static mcds_status_t touch(mcds_t *h, const char *queue, qb_what_t w,
                           size_t n, unsigned lease_ms, mcds_status_t *results)
{
    char opt[40] = "lease=";

    if (lease_ms == 0)
        return batch(h, queue, "qtouch", w, n, NULL, "TOUCHED", results);
    mcds__x_fmt_secs(opt + 6, sizeof opt - 6, lease_ms);
    return batch(h, queue, "qtouch", w, n, opt, "TOUCHED", results);
}

mcds_status_t mcds_queue_ack_many(mcds_t *h, const char *queue,
                                  const uint64_t *ids, size_t n,
                                  mcds_status_t *results)
{
    qb_what_t w = {ids, NULL};

    return batch(h, queue, "qack", w, n, NULL, "ACKED", results);
}

mcds_status_t mcds_queue_release_many(mcds_t *h, const char *queue,
                                      const uint64_t *ids, size_t n,
                                      uint32_t delay_s, mcds_status_t *results)
{
    qb_what_t w = {ids, NULL};

    return release(h, queue, w, n, delay_s, results);
}

mcds_status_t mcds_queue_touch_many(mcds_t *h, const char *queue,
                                    const uint64_t *ids, size_t n,
                                    unsigned lease_ms, mcds_status_t *results)
{
    qb_what_t w = {ids, NULL};

    return touch(h, queue, w, n, lease_ms, results);
}

mcds_status_t mcds_queue_ack_msgs(mcds_t *h, const char *queue,
                                  const mcds_queue_msg_t *msgs, size_t n,
                                  mcds_status_t *results)
{
    qb_what_t w = {NULL, msgs};

    return batch(h, queue, "qack", w, n, NULL, "ACKED", results);
}

mcds_status_t mcds_queue_release_msgs(mcds_t *h, const char *queue,
                                      const mcds_queue_msg_t *msgs, size_t n,
                                      uint32_t delay_s, mcds_status_t *results)
{
    qb_what_t w = {NULL, msgs};

    return release(h, queue, w, n, delay_s, results);
}

mcds_status_t mcds_queue_touch_msgs(mcds_t *h, const char *queue,
                                    const mcds_queue_msg_t *msgs, size_t n,
                                    unsigned lease_ms, mcds_status_t *results)
{
    qb_what_t w = {NULL, msgs};

    return touch(h, queue, w, n, lease_ms, results);
}
