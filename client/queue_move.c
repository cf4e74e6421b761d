/*
 * queue_move.c - qredrive and qkick (doc/protocol.md, "Moving messages
 * back"): a dead-letter queue's messages back to the queues they came
 * from, a queue's buried messages ready again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

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
