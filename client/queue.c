/*
 * queue.c - wrappers for mcds-server's queue verbs (doc/protocol.md,
 * "3. Queues"), over the text-protocol client of xconn.c. The only
 * allocation a call makes is the result it returns (mcds_queue_pop's
 * messages).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

/* ---- the verbs ---- */

mcds_status_t mcds_queue_create(mcds_t *h, const char *queue,
                                const mcds_queue_opts_t *opts)
{
    char line[640], secs[24];
    size_t n, dlen;
    xcall_t x;
    mcds_status_t st;

    if (opts != NULL && opts->dlq != NULL) {
        st = mcds__x_check_name(opts->dlq, &dlen);
        if (st != MCDS_OK)
            return st;
    }
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qcreate %s", queue);
    if (opts != NULL && opts->lease_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, opts->lease_ms);
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
    if (opts != NULL && opts->max_age_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, opts->max_age_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " maxage=%s", secs);
    }
    if (opts != NULL && opts->dedup_window_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, opts->dedup_window_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " dedup=%s", secs);
    }
    if (opts != NULL && opts->expired_drop)
        n += (size_t)snprintf(line + n, sizeof line - n, " expired=drop");
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK) {
        size_t off, len;
        st = mcds__x_read_line(&x, &off, &len);
        if (st == MCDS_OK && mcds__x_line_is(x.c->buf + off, len, "EXISTS"))
            st = MCDS_EXISTS;
        else if (st == MCDS_OK && !mcds__x_line_is(x.c->buf + off, len, "CREATED"))
            st = mcds__x_reply_error(&x, off, len, 0, 0);
    }
    return mcds__x_end(&x, st);
}

/* Whether s is a token of 1 to max bytes (no space or control character). */
static int queue_token_ok(const char *s, size_t max)
{
    size_t i, n = strlen(s);

    if (n == 0 || n > max)
        return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] == 0x7f)
            return 0;
    return 1;
}

int mcds__queue_push_opts(char *out, const mcds_push_opts_t *opts, uint32_t delay_s)
{
    int n = 0;
    size_t i;

    out[0] = '\0';
    if (opts == NULL)
        return 0;
    for (i = 0; i < sizeof opts->reserved / sizeof opts->reserved[0]; i++)
        if (opts->reserved[i] != 0)
            return -1;
    if ((opts->dedup != NULL && !queue_token_ok(opts->dedup, MCDS_QUEUE_DEDUP_MAX)) ||
        (opts->group != NULL && (!queue_token_ok(opts->group, MCDS_QUEUE_GROUP_MAX) || delay_s != 0)) ||
        opts->ttl_ms > MCDS_QUEUE_TTL_MAX_MS)
        return -1;
    if (opts->dedup != NULL)
        n += snprintf(out + n, MCDS__PUSH_OPTS_MAX + 1 - (size_t)n, " dedup=%s", opts->dedup);
    if (opts->group != NULL)
        n += snprintf(out + n, MCDS__PUSH_OPTS_MAX + 1 - (size_t)n, " group=%s", opts->group);
    if (opts->ttl_ms > 0)
        n += snprintf(out + n, MCDS__PUSH_OPTS_MAX + 1 - (size_t)n, " ttl=%llu.%03llu",
                      (unsigned long long)(opts->ttl_ms / 1000), (unsigned long long)(opts->ttl_ms % 1000));
    return n;
}

mcds_status_t mcds_queue_push(mcds_t *h, const char *queue, const void *data,
                              size_t len, uint32_t flags, uint32_t delay_s,
                              uint32_t priority, uint64_t *id)
{
    return mcds_queue_push_opts(h, queue, data, len, flags, delay_s, priority, NULL, id);
}

mcds_status_t mcds_queue_push_dedup(mcds_t *h, const char *queue, const void *data,
                                    size_t len, uint32_t flags, uint32_t delay_s,
                                    uint32_t priority, const char *dedup, uint64_t *id)
{
    mcds_push_opts_t o = { 0 };

    o.dedup = dedup;           /* NULL: a plain push */
    return mcds_queue_push_opts(h, queue, data, len, flags, delay_s, priority, &o, id);
}

mcds_status_t mcds_queue_push_opts(mcds_t *h, const char *queue, const void *data,
                                   size_t len, uint32_t flags, uint32_t delay_s,
                                   uint32_t priority, const mcds_push_opts_t *opts,
                                   uint64_t *id)
{
    char line[320 + MCDS__PUSH_OPTS_MAX], tail[MCDS__PUSH_OPTS_MAX + 1];
    uint64_t got = 0;
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;
    const char *p;

    if ((data == NULL && len > 0) || delay_s > INT32_MAX || mcds__queue_push_opts(tail, opts, delay_s) < 0)
        return MCDS_INVALID;
    if (len > INT32_MAX - 2)
        return MCDS_TOO_LARGE; /* more than the protocol can say */
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qpush %s %u %u %zu %u%s\r\n",
                         queue, (unsigned)flags, (unsigned)delay_s, len,
                         (unsigned)priority, tail);
    st = mcds__x_send_block(&x, line, n, data, len);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
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
                st = mcds__x_reply_error(&x, off, llen, 0, 0);
        } else {
            st = mcds__x_reply_error(&x, off, llen, 0, 1);
        }
    }
    if (st == MCDS_OK && id != NULL)
        *id = got;
    return mcds__x_end(&x, st);
}

/* "ITEM <id> <flags> <bytes> <deliveries>" into m; 0 or -1. */
int mcds__queue_parse_item(const char *p, size_t len, msg_at_t *m)
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

mcds_status_t mcds__queue_pack_msgs(const xcall_t *x, const msg_at_t *at, size_t n,
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

/* "<id>:<deliveries>", the receipt of m's delivery ("<id>" for a message
 * that names no delivery). */
static void fmt_receipt(char *buf, size_t size, const mcds_queue_msg_t *m)
{
    if (m->deliveries > 0)
        snprintf(buf, size, "%llu:%u", (unsigned long long)m->id,
                 (unsigned)m->deliveries);
    else
        snprintf(buf, size, "%llu", (unsigned long long)m->id);
}

/* Reads the ack line of "qpop ... ack=": ACKED or NOT_FOUND into *acked. */
static mcds_status_t read_ack_line(xcall_t *x, mcds_status_t *acked)
{
    size_t off, len;
    mcds_status_t st = mcds__x_read_line(x, &off, &len);

    if (st != MCDS_OK)
        return st;
    if (mcds__x_line_is(x->c->buf + off, len, "ACKED"))
        *acked = MCDS_OK;
    else if (mcds__x_line_is(x->c->buf + off, len, "NOT_FOUND"))
        *acked = MCDS_NOT_FOUND;
    else
        st = mcds__x_reply_error(x, off, len, 0, 0);
    return st;
}

/* qpop, with "ack=<receipt>" first when ack is not NULL. */
static mcds_status_t pop(mcds_t *h, const char *queue,
                         const mcds_queue_msg_t *ack, mcds_status_t *acked,
                         unsigned max, unsigned lease_ms, unsigned wait_ms,
                         mcds_queue_msg_t **msgs, size_t *count)
{
    char line[400], secs[24], receipt[40];
    size_t n;
    xcall_t x;
    mcds_status_t st;

    if (msgs == NULL || count == NULL || (ack != NULL && acked == NULL))
        return MCDS_INVALID;
    *msgs = NULL;
    *count = 0;
    if (max < 1 || max > MCDS_QUEUE_POP_MAX)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qpop %s %u", queue, max);
    if (ack != NULL) {
        fmt_receipt(receipt, sizeof receipt, ack);
        n += (size_t)snprintf(line + n, sizeof line - n, " ack=%s", receipt);
    }
    if (lease_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, lease_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " lease=%s", secs);
    }
    if (wait_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, wait_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " wait=%s", secs);
        x.first_ms = (int)(wait_ms > INT32_MAX / 2 ? INT32_MAX / 2 : wait_ms);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK && ack != NULL)
        st = read_ack_line(&x, acked);
    if (st == MCDS_OK)
        st = mcds__x_read_items(&x, max, msgs, count);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds__x_read_items(xcall_t *x, size_t max, mcds_queue_msg_t **msgs,
                                 size_t *count)
{
    msg_at_t at[MCDS_QUEUE_POP_MAX];
    size_t got = 0, off, len;
    mcds_status_t st = MCDS_OK;

    while (st == MCDS_OK) {
        const char *p;
        st = mcds__x_read_line(x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x->c->buf + off;
        if (mcds__x_line_is(p, len, "END"))
            break;
        if (got == max || got == MCDS_QUEUE_POP_MAX || mcds__queue_parse_item(p, len, &at[got]) != 0) {
            st = mcds__x_reply_error(x, off, len, 0, 0);
            break;
        }
        st = mcds__x_data_block(x, at[got].len, &at[got].off);
        if (st != MCDS_OK)
            break;
        got++;
    }
    if (st == MCDS_OK && got > 0) {
        st = mcds__queue_pack_msgs(x, at, got, msgs);
        if (st == MCDS_OK)
            *count = got;
    }
    return st;
}

mcds_status_t mcds_queue_pop(mcds_t *h, const char *queue, unsigned max,
                             unsigned lease_ms, unsigned wait_ms,
                             mcds_queue_msg_t **msgs, size_t *count)
{
    return pop(h, queue, NULL, NULL, max, lease_ms, wait_ms, msgs, count);
}

mcds_status_t mcds_queue_pop_ack(mcds_t *h, const char *queue,
                                 const mcds_queue_msg_t *ack,
                                 mcds_status_t *acked, unsigned max,
                                 unsigned lease_ms, unsigned wait_ms,
                                 mcds_queue_msg_t **msgs, size_t *count)
{
    if (ack == NULL)
        return MCDS_INVALID;
    return pop(h, queue, ack, acked, max, lease_ms, wait_ms, msgs, count);
}

void mcds_queue_msgs_free(mcds_queue_msg_t *msgs)
{
    free(msgs);
}

/* qack / qrelease / qtouch: "<verb> <queue> <receipt>[ <arg>]", the
 * receipt that of msg's delivery, or the bare id when msg is NULL. */
static mcds_status_t by_id(mcds_t *h, const char *queue, const char *verb,
                           uint64_t id, const mcds_queue_msg_t *msg,
                           const char *arg, const char *ok)
{
    char line[360], receipt[40];
    size_t n;
    xcall_t x;
    mcds_status_t st;

    if (msg != NULL)
        fmt_receipt(receipt, sizeof receipt, msg);
    else
        snprintf(receipt, sizeof receipt, "%llu", (unsigned long long)id);
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "%s %s %s%s%s\r\n", verb, queue,
                         receipt, arg ? " " : "", arg ? arg : "");
    return mcds__x_end(&x, mcds__x_simple(&x, line, n, ok, NULL, 1));
}

static mcds_status_t release(mcds_t *h, const char *queue, uint64_t id,
                             const mcds_queue_msg_t *msg, uint32_t delay_s)
{
    char arg[16];

    if (delay_s > INT32_MAX)
        return MCDS_INVALID;
    snprintf(arg, sizeof arg, "%u", (unsigned)delay_s);
    return by_id(h, queue, "qrelease", id, msg, delay_s ? arg : NULL, "RELEASED");
}

static mcds_status_t touch(mcds_t *h, const char *queue, uint64_t id,
                           const mcds_queue_msg_t *msg, unsigned lease_ms)
{
    char arg[24];

    mcds__x_fmt_secs(arg, sizeof arg, lease_ms);
    return by_id(h, queue, "qtouch", id, msg, lease_ms ? arg : NULL, "TOUCHED");
}

mcds_status_t mcds_queue_ack(mcds_t *h, const char *queue, uint64_t id)
{
    return by_id(h, queue, "qack", id, NULL, NULL, "ACKED");
}

mcds_status_t mcds_queue_release(mcds_t *h, const char *queue, uint64_t id,
                                 uint32_t delay_s)
{
    return release(h, queue, id, NULL, delay_s);
}

mcds_status_t mcds_queue_touch(mcds_t *h, const char *queue, uint64_t id,
                               unsigned lease_ms)
{
    return touch(h, queue, id, NULL, lease_ms);
}

mcds_status_t mcds_queue_ack_msg(mcds_t *h, const char *queue,
                                 const mcds_queue_msg_t *msg)
{
    if (msg == NULL)
        return MCDS_INVALID;
    return by_id(h, queue, "qack", 0, msg, NULL, "ACKED");
}

mcds_status_t mcds_queue_release_msg(mcds_t *h, const char *queue,
                                     const mcds_queue_msg_t *msg,
                                     uint32_t delay_s)
{
    if (msg == NULL)
        return MCDS_INVALID;
    return release(h, queue, 0, msg, delay_s);
}

mcds_status_t mcds_queue_touch_msg(mcds_t *h, const char *queue,
                                   const mcds_queue_msg_t *msg,
                                   unsigned lease_ms)
{
    if (msg == NULL)
        return MCDS_INVALID;
    return touch(h, queue, 0, msg, lease_ms);
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
        F(lease_ms), F(max_deliveries), F(max_length), F(max_age_ms),
        F(expired_age), F(buried), F(redriven), F(kicked),
        F(dedup_window_ms), F(dedup_entries), F(deduplicated),
        F(paused_ms_left), F(grouped), F(groups), F(expired_ttl), F(dropped),
#undef F
    };
    const char *name = p + 5, *sp;
    size_t nlen, vlen, i;

    sp = memchr(name, ' ', len - 5);
    if (sp == NULL)
        return;
    nlen = (size_t)(sp - name);
    vlen = len - 5 - nlen - 1;
    if (nlen == 7 && memcmp(name, "expired", 7) == 0) {
        s->expired_drop = vlen == 4 && memcmp(sp + 1, "drop", 4) == 0;
        return;
    }
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
    st = mcds__x_begin(&x, h, queue);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "qstats %s\r\n", queue);
    st = mcds__x_send_line(&x, line, n);
    while (st == MCDS_OK) {
        const char *p;
        st = mcds__x_read_line(&x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x.c->buf + off;
        if (mcds__x_line_starts(p, len, "STAT ")) {
            stat_line(p, len, stats);
            lines++;
        } else if (lines > 0 && mcds__x_line_is(p, len, "END")) {
            break;
        } else {
            st = mcds__x_reply_error(&x, off, len, lines == 0, 0);
        }
    }
    if (st != MCDS_OK)
        memset(stats, 0, sizeof *stats);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_queue_purge(mcds_t *h, const char *queue, uint64_t *purged)
{
    char line[280];
    uint64_t n = 0;
    size_t len;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, queue);

    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    len = (size_t)snprintf(line, sizeof line, "qpurge %s\r\n", queue);
    st = mcds__x_simple(&x, line, len, "PURGED", &n, 1);
    if (st == MCDS_OK && purged != NULL)
        *purged = n;
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_queue_pause(mcds_t *h, const char *queue, unsigned pause_ms)
{
    char line[320], secs[24];
    size_t len;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, queue);

    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    mcds__x_fmt_secs(secs, sizeof secs, pause_ms);
    len = (size_t)snprintf(line, sizeof line, "qpause %s %s\r\n", queue, secs);
    return mcds__x_end(&x, mcds__x_simple(&x, line, len, "PAUSED", NULL, 1));
}

mcds_status_t mcds_queue_delete(mcds_t *h, const char *queue)
{
    char line[280];
    size_t len;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, queue);

    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    len = (size_t)snprintf(line, sizeof line, "delete %s\r\n", queue);
    return mcds__x_end(&x, mcds__x_simple(&x, line, len, "DELETED", NULL, 1));
}
