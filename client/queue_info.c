/*
 * queue_info.c - wrappers for mcds-server's read-only queue views
 * (doc/protocol.md, "3. Queues": qinfo, qpeek id= and delayed, qlist),
 * over the text-protocol client of xconn.c. They change nothing on the
 * server.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

/* ---- qinfo ---- */

static const char *const info_states[] = { "ready", "delayed", "in_flight", "buried" };

/* Copies the len bytes at p, NUL-terminated, into out (cut to fit). */
static void copy_text(char *out, size_t cap, const char *p, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

/* One "STAT <name> <value>" line of qinfo into info; unknown names are
 * skipped (a newer server may add some). */
static void info_line(const char *name, size_t nlen, const char *v, size_t vlen,
                      mcds_queue_msg_info_t *info)
{
    static const struct {
        const char *name;
        size_t at, size;
    } nums[] = {
#define F(n) {#n, offsetof(mcds_queue_msg_info_t, n), sizeof(((mcds_queue_msg_info_t *)0)->n)}
        F(id), F(priority), F(flags), F(bytes), F(deliveries), F(age_ms),
        F(first_delivery_ms), F(last_delivery_ms), F(delay_ms_left),
        F(lease_ms_left), F(ttl_ms_left),
#undef F
    };
    char text[MCDS_QUEUE_HOLDER_MAX];
    size_t i;

    copy_text(text, sizeof text, v, vlen);
    if (nlen == 6 && memcmp(name, "holder", 6) == 0) {
        copy_text(info->holder, sizeof info->holder, v, vlen);
        return;
    }
    if (nlen == 5 && memcmp(name, "state", 5) == 0) {
        for (i = 0; i < 4; i++)
            if (strcmp(text, info_states[i]) == 0)
                info->state = (mcds_queue_msg_state_t)i;
        return;
    }
    for (i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char *at = (char *)info + nums[i].at;
        long long sv = strtoll(text, NULL, 10);
        unsigned long long uv = strtoull(text, NULL, 10);
        if (strlen(nums[i].name) != nlen || memcmp(nums[i].name, name, nlen) != 0)
            continue;
        if (nums[i].at == offsetof(mcds_queue_msg_info_t, lease_ms_left) ||
            nums[i].at == offsetof(mcds_queue_msg_info_t, ttl_ms_left))
            *(int64_t *)at = sv;
        else if (nums[i].size == sizeof(uint32_t))
            *(uint32_t *)at = (uint32_t)uv;
        else
            *(uint64_t *)at = uv;
        return;
    }
}

struct info_rd {
    mcds_queue_msg_info_t *info;
    int lines;
};

/* A line of qinfo's reply: STAT lines, then END. */
static int info_reply_line(void *arg, const char *p, size_t len)
{
    struct info_rd *r = arg;
    const char *sp;

    if (r->lines > 0 && mcds__x_line_is(p, len, "END"))
        return MCDS__XDONE;
    if (!mcds__x_line_starts(p, len, "STAT ") || (sp = memchr(p + 5, ' ', len - 5)) == NULL)
        return MCDS__XERROR;
    info_line(p + 5, (size_t)(sp - p - 5), sp + 1, len - (size_t)(sp + 1 - p), r->info);
    r->lines++;
    return MCDS__XMORE;
}

mcds_status_t mcds_queue_info(mcds_t *h, const char *queue, uint64_t id,
                              mcds_queue_msg_info_t *info)
{
    char line[300];
    struct info_rd r = { info, 0 };
    size_t n, qlen;
    mcds_status_t st;

    if (info == NULL)
        return MCDS_INVALID;
    memset(info, 0, sizeof *info);
    st = mcds__x_check_name(queue, &qlen);
    if (st != MCDS_OK)
        return st;
    n = (size_t)snprintf(line, sizeof line, "qinfo %s %llu\r\n", queue, (unsigned long long)id);
    st = mcds__xrequest(h, queue, line, n, info_reply_line, &r);
    if (st != MCDS_OK)
        memset(info, 0, sizeof *info);
    return st;
}

/* ---- qpeek id= and delayed ---- */

/* Sends line and reads its ITEM lines (at most max) into *msgs. */
static mcds_status_t peek(mcds_t *h, const char *queue, const char *line, size_t len,
                          size_t max, mcds_queue_msg_t **msgs, size_t *count)
{
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, queue);

    if (st == MCDS_OK)
        st = mcds__x_send_line(&x, line, len);
    if (st == MCDS_OK)
        st = mcds__x_read_items(&x, max, msgs, count);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_queue_peek_id(mcds_t *h, const char *queue, uint64_t id,
                                 mcds_queue_msg_t **msg)
{
    char line[300];
    size_t n, count = 0;
    mcds_status_t st;

    if (msg == NULL)
        return MCDS_INVALID;
    *msg = NULL;
    n = (size_t)snprintf(line, sizeof line, "qpeek %s id=%llu\r\n", queue,
                         (unsigned long long)id);
    st = peek(h, queue, line, n, 1, msg, &count);
    return st == MCDS_OK && count == 0 ? MCDS_NOT_FOUND : st;
}

mcds_status_t mcds_queue_peek_delayed(mcds_t *h, const char *queue, unsigned max,
                                      mcds_queue_msg_t **msgs, size_t *count)
{
    char line[300];
    size_t n;

    if (msgs == NULL || count == NULL)
        return MCDS_INVALID;
    *msgs = NULL;
    *count = 0;
    if (max < 1 || max > MCDS_QUEUE_POP_MAX)
        return MCDS_INVALID;
    n = (size_t)snprintf(line, sizeof line, "qpeek %s delayed %u\r\n", queue, max);
    return peek(h, queue, line, n, max, msgs, count);
}

/* ---- qlist ---- */

struct list_rd {
    mcds_queue_entry_t *v;
    size_t n, cap;
    char next[MCDS_QUEUE_NAME_MAX + 1];     /* MORE's name, "" without */
    int nomem;
};

/* "QUEUE <name> <ready> <delayed> <in_flight> <buried> <waiters>" into e. */
static int parse_queue(const char *p, size_t len, mcds_queue_entry_t *e)
{
    char buf[MCDS_QUEUE_NAME_MAX + 128];
    unsigned long long v[5];
    int used = 0;

    if (len >= sizeof buf)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (sscanf(buf, "QUEUE %250s %llu %llu %llu %llu %llu%n", e->name, &v[0], &v[1],
               &v[2], &v[3], &v[4], &used) != 6 || (size_t)used != len)
        return -1;
    e->ready = v[0];
    e->delayed = v[1];
    e->in_flight = v[2];
    e->buried = v[3];
    e->waiters = v[4];
    return 0;
}

static int list_line(void *arg, const char *p, size_t len)
{
    struct list_rd *r = arg;

    if (mcds__x_line_is(p, len, "END"))
        return MCDS__XDONE;
    if (mcds__x_line_starts(p, len, "MORE ")) {
        if (len == 5 || len - 5 > MCDS_QUEUE_NAME_MAX)
            return MCDS__XERROR;
        copy_text(r->next, sizeof r->next, p + 5, len - 5);
        return MCDS__XMORE;
    }
    if (!mcds__x_line_starts(p, len, "QUEUE "))
        return MCDS__XERROR;
    if (r->n == r->cap) {
        size_t cap = r->cap * 2 + 16;
        mcds_queue_entry_t *v = realloc(r->v, cap * sizeof *v);
        if (v == NULL) {
            r->nomem = 1;
            return MCDS__XMORE;     /* read the rest of the reply */
        }
        r->v = v;
        r->cap = cap;
    }
    if (parse_queue(p, len, &r->v[r->n]) != 0)
        return MCDS__XERROR;
    r->n++;
    return MCDS__XMORE;
}

mcds_status_t mcds_queue_list(mcds_t *h, const char *route, const char *after,
                              unsigned max, mcds_queue_entry_t **queues,
                              size_t *count, char *next)
{
    char line[2 * MCDS_QUEUE_NAME_MAX + 64];
    struct list_rd r = { NULL, 0, 0, "", 0 };
    size_t len;
    mcds_status_t st;

    if (queues == NULL || count == NULL || route == NULL)
        return MCDS_INVALID;
    *queues = NULL;
    *count = 0;
    if (next != NULL)
        next[0] = '\0';
    if (max < 1 || max > MCDS_QUEUE_LIST_MAX)
        return MCDS_INVALID;
    if (after != NULL && (st = mcds__x_check_name(after, &len)) != MCDS_OK)
        return st;
    len = (size_t)snprintf(line, sizeof line, "qlist count=%u%s%s\r\n", max,
                           after != NULL ? " after=" : "", after != NULL ? after : "");
    st = mcds__xrequest(h, route, line, len, list_line, &r);
    if (st == MCDS_OK && r.nomem)
        st = MCDS_NO_MEMORY;
    if (st != MCDS_OK) {
        free(r.v);
        return st;
    }
    if (next != NULL)
        strcpy(next, r.next);
    if (r.n == 0)
        free(r.v);
    else
        *queues = r.v;
    *count = r.n;
    return st;
}

void mcds_queue_entries_free(mcds_queue_entry_t *queues)
{
    free(queues);
}
