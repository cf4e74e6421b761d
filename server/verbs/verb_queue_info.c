/*
 * verb_queue_info: the read-only queue verbs, as entries of the command
 * table:
 *
 *   qinfo <q> <id>                  one message's figures, as beanstalkd's stats-job
 *   qpeek <q> id=<id>               that message, whatever its state
 *   qpeek <q> delayed [<count>]     the delayed messages, earliest due first
 *   qlist [count=<n>] [after=<q>]   the queues in name order with their sizes
 *   (qpeek <q> [<count>] stays in verb_queue.c)
 *
 * and the holder at the end of a `qpending <q> holders` line. They change
 * nothing and log nothing. qinfo copies a message's figures out under the
 * queue's lock (types/queue_info.c) and writes them once it is released;
 * qpending names each holder under it (conn_names.c takes a lock of its
 * own, and never a queue's).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "net/conn_names.h"
#include "base/parse.h"
#include "store/store_queue.h"
#include "types/queue_group.h"
#include "types/queue_names.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_info.h"

#define QINFO_HOLDER_MAX 160
#define QINFO_PEEK_MAX 100          /* as qpeek <q> <count> */
#define QINFO_LIST_DEFAULT 100      /* queues a qlist page names */
#define QINFO_LIST_MAX 1000
#define QINFO_LIST_SAME_NAME 16     /* beyond a page: queues sharing its last name */

/* One message's figures, copied under the queue's lock. */
struct qinfo_copy {
    uint64_t id, pushed_ms, due_ms, holder;
    uint64_t expires_ms;        /* its ttl's end (0: none) */
    uint32_t pri, flags, bytes, deliveries, first, last;   /* first, last: as in qmsg */
    uint8_t state;
    size_t ngroup;                  /* its FIFO group (0: none) */
    char group[QGROUP_ID_MAX + 1];
};

static void qinfo_copy_one(const struct qmsg *m, void *arg) {
    struct qinfo_copy *k = arg;

    k->id = m->id;
    k->pushed_ms = m->pushed_ms;
    k->due_ms = m->due_ms;
    k->first = m->first_delivery;
    k->last = m->last_delivery;
    k->holder = m->holder;
    k->expires_ms = queue_msg_expires(m);
    k->pri = m->pri;
    k->flags = item_flags(m->payload);
    k->bytes = m->payload->nbytes - 2;
    k->deliveries = m->deliveries;
    k->state = m->state;
}

/* A bare message id: digits only, no sign, no receipt. */
static bool qinfo_parse_id(const char *s, uint64_t *id) {
    return isdigit((unsigned char)*s) && parse_u64(s, id);
}

static void qinfo_stat(conn *c, const char *name, const char *v) {
    char *p = conn_out_reserve(c, strlen(name) + strlen(v) + 9);   /* sprintf's NUL too */

    conn_out_commit(c, (size_t)sprintf(p, "STAT %s %s\r\n", name, v));
}

static void qinfo_stat_u64(conn *c, const char *name, uint64_t v) {
    char num[24];

    snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
    qinfo_stat(c, name, num);
}

static const char *qinfo_state_name(uint8_t state) {
    switch (state) {
    case QMSG_READY: return "ready";
    case QMSG_DELAYED: return "delayed";
    case QMSG_INFLIGHT: return "in_flight";
    case QMSG_GROUPED: return "grouped";
    default: return "buried";
    }
}

/* "<fd> <address>" of the connection holding a lease ("kestrel " before
 * it for an open read), "gone" once it has closed, "-" when not in flight. */
static void qinfo_holder(uint8_t state, uint64_t due_ms, uint64_t holder, char *out, size_t cap) {
    char name[QINFO_HOLDER_MAX];

    if (state != QMSG_INFLIGHT)
        snprintf(out, cap, "-");
    else if (!conn_names_format(holder, name, sizeof(name)))
        snprintf(out, cap, "gone");
    else
        snprintf(out, cap, "%s%s", due_ms == QUEUE_HELD ? "kestrel " : "", name);
}

void qinfo_out_holder(conn *c, const struct qmsg *m) {
    char holder[QINFO_HOLDER_MAX + 16];
    char *p;

    qinfo_holder(m->state, m->due_ms, m->holder, holder, sizeof(holder));
    p = conn_out_reserve(c, strlen(holder) + 2);   /* sprintf's NUL too */
    conn_out_commit(c, (size_t)sprintf(p, " %s", holder));
}

/* Unix ms of a delivery kept as 1 + ms after the push (0: none). */
static uint64_t qinfo_delivery_ms(uint64_t pushed_ms, uint32_t v) {
    return v == 0 ? 0 : clock_to_unix_ms(pushed_ms + v - 1);
}

static void qinfo_out(conn *c, const struct qinfo_copy *k, uint64_t now) {
    char holder[QINFO_HOLDER_MAX + 16], left[24];
    bool held = k->state == QMSG_INFLIGHT && k->due_ms == QUEUE_HELD;
    uint64_t due_left = k->due_ms > now ? k->due_ms - now : 0;

    qinfo_stat_u64(c, "id", k->id);
    qinfo_stat(c, "state", qinfo_state_name(k->state));
    qinfo_stat_u64(c, "priority", k->pri);
    qinfo_stat_u64(c, "flags", k->flags);
    qinfo_stat_u64(c, "bytes", k->bytes);
    qinfo_stat_u64(c, "deliveries", k->deliveries);
    qinfo_stat_u64(c, "age_ms", now > k->pushed_ms ? now - k->pushed_ms : 0);
    qinfo_stat_u64(c, "first_delivery_ms", qinfo_delivery_ms(k->pushed_ms, k->first));
    qinfo_stat_u64(c, "last_delivery_ms", qinfo_delivery_ms(k->pushed_ms, k->last));
    qinfo_stat_u64(c, "delay_ms_left", k->state == QMSG_DELAYED ? due_left : 0);
    if (held)
        snprintf(left, sizeof(left), "-1");
    else
        snprintf(left, sizeof(left), "%llu",
                 (unsigned long long)(k->state == QMSG_INFLIGHT ? due_left : 0));
    qinfo_stat(c, "lease_ms_left", left);
    qinfo_holder(k->state, k->due_ms, k->holder, holder, sizeof(holder));
    qinfo_stat(c, "holder", holder);
    if (k->ngroup > 0)
        qinfo_stat(c, "group", k->group);
    if (k->expires_ms == 0)
        snprintf(left, sizeof(left), "-1");
    else
        snprintf(left, sizeof(left), "%llu",
                 (unsigned long long)(k->expires_ms > now ? k->expires_ms - now : 0));
    qinfo_stat(c, "ttl_ms_left", left);
    conn_out_reply(c, REPLY_END);
}

enum conn_parse_result qinfo_msg(conn *c, struct cmd_line *t) {
    struct qinfo_copy k;
    uint64_t id;
    bool found;
    item *pin;

    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    if (!qinfo_parse_id(t->v[2], &id)) {
        conn_out_reply(c, REPLY_X_BAD_ID);
        return PARSE_DONE;
    }
    pin = qverb_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    found = queue_find(store_queue_of(pin), id, qinfo_copy_one, &k);
    k.ngroup = found ? queue_msg_group(store_queue_of(pin), id, k.group) : 0;
    k.group[k.ngroup] = '\0';
    item_release(pin);
    if (found)
        qinfo_out(c, &k, clock_now_ms());
    else
        conn_out_reply(c, REPLY_NOT_FOUND);
    return PARSE_DONE;
}

/* ---- qpeek id= and delayed ---- */

/* One message as an ITEM line with its data (deliveries as they are). */
static void qinfo_item_one(const struct qmsg *m, void *arg) {
    struct qdelivery d = { m->id, m->deliveries, 0, m->payload };

    item_incref(m->payload);
    qverb_out_delivery(arg, &d);
}

/* The ITEM lines of qpeek id=<id> (by_id) or qpeek delayed <count>; the
 * line's arguments were checked. */
static enum conn_parse_result qinfo_peek_out(conn *c, struct cmd_line *t, bool by_id, uint64_t id,
                                             uint32_t count) {
    item *pin = qverb_queue(c, t, false, REPLY_END, NULL);

    if (pin == NULL)
        return PARSE_DONE;
    if (by_id)
        queue_find(store_queue_of(pin), id, qinfo_item_one, c);
    else
        queue_peek_delayed(store_queue_of(pin), count, qinfo_item_one, c);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

static enum conn_parse_result qinfo_peek_id(conn *c, struct cmd_line *t, const char *v) {
    uint64_t id;

    if (!qinfo_parse_id(v, &id)) {
        cmd_bad_value(c, "id");
        return PARSE_DONE;
    }
    return qinfo_peek_out(c, t, true, id, 0);
}

static enum conn_parse_result qinfo_peek_delayed(conn *c, struct cmd_line *t) {
    uint32_t count = 1;

    if (t->n == 4 && (!cmd_parse_count(t->v[3], QINFO_PEEK_MAX, &count) || count == 0)) {
        conn_out_reply(c, REPLY_X_COUNT_100);
        return PARSE_DONE;
    }
    return qinfo_peek_out(c, t, false, 0, count);
}

/* qpeek: the id= and delayed forms here, the plain one in verb_queue.c. A
 * line of four tokens is only the delayed form's (ERROR otherwise, as
 * before these forms). */
enum conn_parse_result qinfo_peek(conn *c, struct cmd_line *t) {
    const char *v;

    if (t->n >= 3 && strcmp(t->v[2], "delayed") == 0)
        return qinfo_peek_delayed(c, t);
    if (t->n == 4) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (t->n == 3 && (v = cmd_option(t->v[2], "id")) != NULL)
        return qinfo_peek_id(c, t, v);
    return qverb_peek(c, t);
}

/* ---- qlist ---- */

/* "QUEUE <name> <ready> <delayed> <in_flight> <buried> <waiters>". */
static void qinfo_out_queue(conn *c, item *it, const struct queue_stats *st) {
    char *p = conn_out_reserve(c, it->nkey + 120);

    memcpy(p, "QUEUE ", 6);
    memcpy(p + 6, item_key(it), it->nkey);
    conn_out_commit(c, 6 + it->nkey + (size_t)sprintf(p + 6 + it->nkey, " %llu %llu %llu %llu %llu\r\n",
                    (unsigned long long)st->ready, (unsigned long long)st->delayed,
                    (unsigned long long)st->inflight, (unsigned long long)st->buried,
                    (unsigned long long)st->waiters));
}

/* One page of the queues after `after`, in name order: the index is
 * locked only to pin the page's queues; each is then read under its own
 * lock. A deleted queue, or one whose TTL ran out, is left out. */
enum conn_parse_result qinfo_list(conn *c, struct cmd_line *t) {
    struct queue *qs[QINFO_LIST_MAX + QINFO_LIST_SAME_NAME];
    uint32_t count = QINFO_LIST_DEFAULT;
    const char *after = NULL;
    char last[ITEM_KEY_MAX];
    size_t n, nlast, i;
    int k;

    for (k = 1; k < t->n; k++)
        if (!cmd_list_option(c, t->v[k], QINFO_LIST_MAX, REPLY_X_COUNT_1000, &count, &after))
            return PARSE_DONE;
    n = queue_names_page(after, after != NULL ? strlen(after) : 0, count,
                         count + QINFO_LIST_SAME_NAME, qs, last, &nlast);
    for (i = 0; i < n; i++) {
        item *it = queue_names_item(qs[i]);
        struct queue_stats st;
        if (store_item_live(it) && queue_open_stats(qs[i], &st))
            qinfo_out_queue(c, it, &st);
        item_release(it);
    }
    if (nlast > 0) {
        char *p = conn_out_reserve(c, nlast + 8);
        memcpy(p, "MORE ", 5);
        memcpy(p + 5, last, nlast);
        memcpy(p + 5 + nlast, "\r\n", 2);
        conn_out_commit(c, nlast + 7);
    }
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

/* The command table's entries of queue views (proto/cmd.h). */
const struct cmd_def qinfo_cmds[] = {
    { "qinfo", qinfo_msg, 3, 3, 0, 0, "one message's figures: qinfo <q> <id>" },
    { "qlist", qinfo_list, 1, 3, 0, 0, "the queues with their sizes, in name order: qlist [count=] [after=]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
