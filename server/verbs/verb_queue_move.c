/*
 * verb_queue_move: moving several messages in one request.
 *
 *   qpushn <queue> <flags> <delay> <priority> <bytes> [<bytes> ...] [dedup=<id>] [group=<id>]
 *          [ttl=<s>] [noreply]
 *          + one data block per message      -> PUSHED <id> [<id> ...]
 *   qpopany <q1> [<q2> ...] [count=<n>] [lease=<s>] [wait=<s>]
 *          -> ITEM <id> <flags> <bytes> <deliveries> <queue> ... END
 *   qredrive <dlq> [<count>] [noreply]   -> REDRIVEN <moved> <left>
 *   qkick <queue> [<count>] [noreply]    -> KICKED <n>
 *
 * qpushn queues up to QUEUE_PUSH_MAX messages, all or none; its blocks
 * are read into one buffer (the parsed request in front of them), as the
 * list verbs read theirs. qpopany pops from the first of up to
 * QPARK_MULTI_MAX queues that has a message ready, or waits on them all
 * (queue_park_multi.c), as Redis's BLPOP over several keys. qredrive sends a dead-letter queue's ready
 * messages back to the queue each came from (beanstalkd's kick, SQS's
 * redrive); qkick makes a queue's buried messages (those its dead-letter
 * queue could not take) ready again in the queue itself. Both take at
 * most QUEUE_MOVE_MAX messages a request and work in batches
 * (types/queue_move.c).
 */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store_queue.h"
#include "verbs/queue_park_multi.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_move.h"

/* The verb, the queue, flags, delay, priority, the lengths, noreply; a
 * longer line (at most 2048 bytes) still has its lengths read, so that
 * its blocks are skipped. */
#define QPUSHN_TOKENS 1024

/* A qpushn, kept in front of its blocks while they are read. */
struct qpushn_req {
    int n;
    uint32_t flags, pri;
    uint64_t due_ms;
    uint32_t len[QUEUE_PUSH_MAX];
    uint8_t ndedup;                 /* dedup=<id>: message i is (id, i) */
    char dedup[QDEDUP_ID_MAX];
    uint8_t ngroup;                 /* group=<id>: the messages' FIFO group */
    char group[QGROUP_ID_MAX];
    uint64_t ttl_ms;                /* ttl=<secs>: each message's (0: none) */
    int unknown;                    /* the token that is no option (0: none) */
};

/* ---- qpushn ---- */

static void qmverb_pushn_done(conn *c);

/* An option among a qpushn's lengths (a token with "="): REPLY_OK, or
 * what is wrong with it (REPLY_ERROR with r->unknown: no such option). */
static enum reply_id qmverb_pushn_option(char **v, size_t *vlen, int i, struct qpushn_req *r) {
    const char *id = cmd_option(v[i], "dedup"), *grp = cmd_option(v[i], "group");
    const char *ttl = cmd_option(v[i], "ttl");

    if (ttl != NULL)
        return qverb_parse_ttl(ttl, &r->ttl_ms) ? REPLY_OK : REPLY_X_BAD_TTL;
    if (grp != NULL) {
        if (r->ngroup > 0 || vlen[i] - 6 == 0 || vlen[i] - 6 > QGROUP_ID_MAX)
            return REPLY_X_BAD_GROUP;
        r->ngroup = (uint8_t)(vlen[i] - 6);
        memcpy(r->group, grp, r->ngroup);
        return REPLY_OK;
    }
    if (id == NULL) {
        r->unknown = i;
        return REPLY_ERROR;
    }
    if (r->ndedup > 0 || vlen[i] - 6 == 0 || vlen[i] - 6 > QDEDUP_ID_MAX)
        return REPLY_X_BAD_DEDUP;
    r->ndedup = (uint8_t)(vlen[i] - 6);
    memcpy(r->dedup, id, r->ndedup);
    return REPLY_OK;
}

/* The lengths v[from..to) into r (at most QUEUE_PUSH_MAX kept), their
 * sum into *total: REPLY_OK, or what is wrong with the first bad one. A
 * noreply in a length's place, or an option (dedup=), is passed over (the
 * lengths after it still count, so the blocks can be skipped); any other
 * token there is REPLY_X_BAD_LENGTH at once. */
static enum reply_id qmverb_lengths(char **v, size_t *vlen, int from, int to, struct qpushn_req *r,
                                    size_t *total) {
    enum reply_id bad = REPLY_OK, opt;
    uint32_t len;
    int i;

    r->n = 0;
    r->ndedup = 0;
    r->ngroup = 0;
    r->ttl_ms = 0;
    r->unknown = 0;
    *total = 0;
    for (i = from; i < to; i++) {
        if (strcmp(v[i], "noreply") == 0 || strchr(v[i], '=') != NULL) {
            opt = v[i][0] == 'n' && strcmp(v[i], "noreply") == 0 ? REPLY_X_NOREPLY_LAST
                  : qmverb_pushn_option(v, vlen, i, r);
            if (bad == REPLY_OK)
                bad = opt;
            continue;
        }
        if (!cmd_parse_count(v[i], INT32_MAX - 2, &len))
            return REPLY_X_BAD_LENGTH;
        if (r->n < QUEUE_PUSH_MAX)
            r->len[r->n] = len;
        r->n++;
        *total += len;
    }
    if (r->n == 0)
        return REPLY_ERROR;         /* no length: no block either */
    return bad != REPLY_OK ? bad : r->n > QUEUE_PUSH_MAX ? REPLY_X_TOO_MANY_MESSAGES : REPLY_OK;
}

/* The first wrong token of a qpushn line of n tokens (noreply left out):
 * REPLY_OK, or the reply; *lengths_ok when every length parsed (the
 * blocks are then skipped on a refusal). */
static enum reply_id qmverb_pushn_check(char **v, size_t *vlen, int n, struct qpushn_req *r,
                                        size_t *total, bool *lengths_ok) {
    enum reply_id len = qmverb_lengths(v, vlen, 5, n, r, total);
    int32_t delay;

    *lengths_ok = len != REPLY_X_BAD_LENGTH;
    if (vlen[1] > ITEM_KEY_MAX)
        return REPLY_X_KEY_TOO_LONG;
    if (!parse_u32_exact(v[2], &r->flags))
        return REPLY_X_BAD_FLAGS;
    if (!parse_i32_exact(v[3], &delay))
        return REPLY_X_BAD_DELAY;
    if (!cmd_parse_count(v[4], UINT32_MAX, &r->pri))
        return REPLY_X_BAD_PRIORITY;
    if (len != REPLY_OK)
        return len;
    if (r->ngroup > 0 && delay > 0)
        return REPLY_X_GROUP_DELAY;
    r->due_ms = clock_now_ms() + qverb_delay_ms(delay);
    return *total > settings.item_size_max ? REPLY_TOO_LARGE : REPLY_OK;
}

enum conn_parse_result qmverb_pushn(conn *c, struct cmd_line *l) {
    char *v[QPUSHN_TOKENS];
    size_t vlen[QPUSHN_TOKENS], total;
    struct qpushn_req r;
    int n = parse_tokenize(l->line, l->len, v, vlen, QPUSHN_TOKENS);
    enum store_status st = STORE_TOO_LARGE;
    enum reply_id bad;
    bool lengths_ok;
    item *it = NULL;

    c->noreply = n >= 6 && n <= QPUSHN_TOKENS && strcmp(v[n - 1], "noreply") == 0;
    if (n < 6 + (c->noreply ? 1 : 0) || n > QPUSHN_TOKENS) {
        c->noreply = false;
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    bad = qmverb_pushn_check(v, vlen, n - (c->noreply ? 1 : 0), &r, &total, &lengths_ok);
    if (bad == REPLY_ERROR && r.unknown == 0)
        c->noreply = false;         /* no length: ERROR, as a line too short */
    if (bad == REPLY_OK && !persist_writable())
        bad = REPLY_LOG_FAILED;
    if (bad == REPLY_OK)
        it = store_alloc_sized(v[1], vlen[1], r.flags, 0, sizeof(r) + total + 2 * (size_t)r.n, &st);
    if (it == NULL && !lengths_ok)
        return cmd_refuse_unframed(c, bad);
    if (it == NULL) {
        if (bad == REPLY_OK || bad == REPLY_TOO_LARGE)
            stats_incr(st == STORE_TOO_LARGE ? STATS_STORE_TOO_LARGE : STATS_STORE_NO_MEMORY);
        if (bad == REPLY_OK)
            bad = st == STORE_TOO_LARGE ? REPLY_TOO_LARGE : REPLY_OOM_STORE;
        if (bad == REPLY_ERROR && r.unknown > 0)
            cmd_unknown_option(c, v[r.unknown]);
        else
            cmd_reply(c, bad);
        conn_start_swallow(c, total + 2 * (size_t)r.n);
        return PARSE_DONE;
    }
    memcpy(item_value(it), &r, sizeof(r));
    conn_start_nread(c, it, STORE_SET, 0, c->noreply);
    c->nread.done = sizeof(r);
    c->nread.finish = qmverb_pushn_done;
    return PARSE_DONE;
}

/* The messages of a read qpushn as payload items (its flags, each value
 * with "\r\n"), all or none. */
static bool qmverb_payloads(item *it, const struct qpushn_req *r, item **out, enum store_status *st) {
    const char *p = item_value(it) + sizeof(*r);
    int i;

    for (i = 0; i < r->n; i++) {
        out[i] = store_alloc_sized(item_key(it), it->nkey, r->flags, 0, (size_t)r->len[i] + 2, st);
        if (out[i] == NULL) {
            while (i > 0)
                item_release(out[--i]);
            return false;
        }
        memcpy(item_value(out[i]), p, (size_t)r->len[i] + 2);
        p += r->len[i] + 2;
    }
    return true;
}

/* Whether every block of a read qpushn ends in "\r\n". */
static bool qmverb_blocks_ok(item *it, const struct qpushn_req *r) {
    const char *p = item_value(it) + sizeof(*r);
    int i;

    for (i = 0; i < r->n; i++) {
        if (memcmp(p + r->len[i], "\r\n", 2) != 0)
            return false;
        p += r->len[i] + 2;
    }
    return true;
}

static void qmverb_out_pushed(conn *c, const uint64_t *ids, int n) {
    char *p = conn_out_reserve(c, 8 + 21 * (size_t)n + 2);
    size_t len = 6;
    int i;

    memcpy(p, "PUSHED", 6);
    for (i = 0; i < n; i++)
        len += (size_t)sprintf(p + len, " %llu", (unsigned long long)ids[i]);
    memcpy(p + len, "\r\n", 2);
    conn_out_commit(c, len + 2);
}

/* Queues the payloads (all or none) and answers. */
static void qmverb_pushn_apply(conn *c, const char *key, size_t nkey, const struct qpushn_req *r,
                               item **payloads) {
    static const enum reply_id refused[] = {
        [QUEUE_FULL] = REPLY_NOT_STORED, [QUEUE_NOMEM] = REPLY_OOM_STORE,
        [QUEUE_NOT_FOUND] = REPLY_OOM_STORE, [QUEUE_GONE] = REPLY_NOT_STORED,
    };
    struct queue_dedup_id dd = { r->dedup, r->ndedup };
    struct queue_group_id grp = { r->group, r->ngroup };
    uint64_t ids[QUEUE_PUSH_MAX];
    bool dup[QUEUE_PUSH_MAX];
    enum queue_result res = QUEUE_GONE;
    enum store_status st;
    item *pin = store_queue_open(key, nkey, true, NULL, &st);
    int i;

    if (pin != NULL) {
        res = store_queue_push_dedup(pin, payloads, r->n, r->pri, r->due_ms, r->ndedup > 0 ? &dd : NULL,
                                     r->ngroup > 0 ? &grp : NULL, r->ttl_ms, ids, dup);
        item_release(pin);
    }
    for (i = 0; i < r->n && res == QUEUE_OK; i++)
        if (dup[i])
            item_release(payloads[i]);
    if (res != QUEUE_OK) {
        for (i = 0; i < r->n; i++)
            item_release(payloads[i]);
        cmd_reply(c, pin == NULL ? (st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE)
                     : refused[res]);
    } else if (!c->noreply) {
        qmverb_out_pushed(c, ids, r->n);
    }
}

/* The data blocks of a qpushn have been read into c->nread.it. */
static void qmverb_pushn_done(conn *c) {
    item *it = c->nread.it, *payloads[QUEUE_PUSH_MAX];
    enum store_status st = STORE_NO_MEMORY;
    struct qpushn_req r;

    c->nread.it = NULL;
    c->noreply = c->nread.noreply;
    memcpy(&r, item_value(it), sizeof(r));
    if (!qmverb_blocks_ok(it, &r)) {
        cmd_reply(c, REPLY_BAD_CHUNK);
    } else if (!cmd_log_ok(c)) {
        /* the reply is made */
    } else if (!qmverb_payloads(it, &r, payloads, &st)) {
        stats_incr(STATS_STORE_NO_MEMORY);
        cmd_reply(c, REPLY_OOM_STORE);
    } else {
        qmverb_pushn_apply(c, item_key(it), it->nkey, &r, payloads);
    }
    item_release(it);
}

/* "<verb> <queue> [<count>] [noreply]": the count (QUEUE_MOVE_MAX when
 * not given) and the queue pinned, or NULL with the reply made. */
static item *qmverb_open(conn *c, struct cmd_line *t, uint64_t *count) {
    enum store_status st = STORE_EXISTS;
    int n = t->n;
    uint32_t v;
    item *pin;

    c->noreply = cmd_is_noreply(t, n - 1);
    if (c->noreply)
        n--;
    *count = QUEUE_MOVE_MAX;
    if (n > 3) {
        cmd_reply(c, cmd_extra_tokens(t, 2));
        return NULL;
    }
    if (n == 3) {
        if (!cmd_parse_count(t->v[2], QUEUE_MOVE_MAX, &v) || v == 0) {
            cmd_reply(c, REPLY_X_COUNT_10000);
            return NULL;
        }
        *count = v;
    }
    if (t->vlen[1] > ITEM_KEY_MAX) {
        cmd_reply(c, REPLY_X_KEY_TOO_LONG);
        return NULL;
    }
    if (!cmd_log_ok(c))
        return NULL;
    pin = store_queue_open(t->v[1], t->vlen[1], false, NULL, &st);
    if (pin == NULL)
        cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE
                     : st == STORE_NOT_FOUND ? REPLY_NOT_FOUND : REPLY_OOM_STORE);
    return pin;
}

enum conn_parse_result qmverb_redrive(conn *c, struct cmd_line *t) {
    uint64_t count, moved, left;
    item *pin = qmverb_open(c, t, &count);
    char *p;

    if (pin == NULL)
        return PARSE_DONE;
    store_queue_redrive(pin, count, &moved, &left);
    item_release(pin);
    if (!c->noreply) {
        p = conn_out_reserve(c, 64);
        conn_out_commit(c, (size_t)sprintf(p, "REDRIVEN %llu %llu\r\n",
                                           (unsigned long long)moved, (unsigned long long)left));
    }
    return PARSE_DONE;
}

enum conn_parse_result qmverb_kick(conn *c, struct cmd_line *t) {
    uint64_t count, n;
    item *pin = qmverb_open(c, t, &count);
    char *p;

    if (pin == NULL)
        return PARSE_DONE;
    n = store_queue_kick(pin, count);
    item_release(pin);
    if (!c->noreply) {
        p = conn_out_reserve(c, 32);
        conn_out_commit(c, (size_t)sprintf(p, "KICKED %llu\r\n", (unsigned long long)n));
    }
    return PARSE_DONE;
}

/* ---- qpopany ---- */

#define QPOPANY_TOKENS (1 + QPARK_MULTI_MAX + 3)
#define QPOPANY_COUNT_MAX 100

struct qpopany_args {
    int nq;
    char *names[QPARK_MULTI_MAX];
    size_t nlen[QPARK_MULTI_MAX];
    uint32_t count;
    bool has_lease;
    uint64_t lease_ms, wait_ms;
};

void qmverb_out_delivery(conn *c, struct qdelivery *d, const char *queue, size_t nqueue) {
    item *it = d->payload;
    char *p = conn_out_reserve(c, 96 + nqueue);
    size_t n = (size_t)sprintf(p, "ITEM %llu %u %u %u ", (unsigned long long)d->id, item_flags(it),
                               it->nbytes - 2, d->deliveries);

    memcpy(p + n, queue, nqueue);
    memcpy(p + n + nqueue, "\r\n", 2);
    conn_out_commit(c, n + nqueue + 2);
    conn_out_item(c, it, item_value(it), it->nbytes);
}

/* Reads tok as an option of qpopany into a: true when it is one; false
 * when it is none (*bad false) or its value is wrong (*bad true, the
 * reply made). */
static bool qmverb_popany_option(conn *c, const char *tok, struct qpopany_args *a, bool *bad) {
    const char *v;

    *bad = false;
    if ((v = cmd_option(tok, "count")) != NULL) {
        if (cmd_parse_count(v, QPOPANY_COUNT_MAX, &a->count) && a->count > 0)
            return true;
        conn_out_reply(c, REPLY_X_COUNT_100);
    } else if ((v = cmd_option(tok, "lease")) != NULL) {
        if ((a->has_lease = cmd_parse_ms(v, &a->lease_ms) && a->lease_ms > 0))
            return true;
        cmd_bad_value(c, "lease");
    } else if ((v = cmd_option(tok, "wait")) != NULL) {
        if (cmd_parse_ms(v, &a->wait_ms))
            return true;
        cmd_bad_value(c, "wait");
    } else {
        return false;
    }
    *bad = true;
    return false;
}

/* The tokens v[1..n) of a qpopany into a: the queues, then the options;
 * false with the reply made when one is wrong. */
static bool qmverb_popany_args(conn *c, char **v, size_t *vlen, int n, struct qpopany_args *a) {
    bool options = false, bad;
    int i;

    memset(a, 0, sizeof(*a));
    a->count = 1;
    for (i = 1; i < n; i++) {
        if (i > 1 && qmverb_popany_option(c, v[i], a, &bad)) {
            options = true;
            continue;
        }
        if (i > 1 && bad)
            return false;
        if (options) {
            cmd_unknown_option(c, v[i]);
            return false;
        }
        if (a->nq == QPARK_MULTI_MAX || vlen[i] > ITEM_KEY_MAX) {
            conn_out_reply(c, a->nq == QPARK_MULTI_MAX ? REPLY_X_TOO_MANY_QUEUES : REPLY_X_KEY_TOO_LONG);
            return false;
        }
        a->names[a->nq] = v[i];
        a->nlen[a->nq++] = vlen[i];
    }
    return true;
}

static void qmverb_release_all(item **pins, int n) {
    int i;

    for (i = 0; i < n; i++)
        if (pins[i] != NULL)
            item_release(pins[i]);
}

/* Pins every queue of a (creating missing ones when create): false, with
 * the reply made and nothing pinned, when a key holds another type or
 * there is no memory. A missing queue is NULL without create. */
static bool qmverb_popany_open(conn *c, const struct qpopany_args *a, bool create, item **pins) {
    enum store_status st = STORE_EXISTS;
    int i;

    for (i = 0; i < a->nq; i++) {
        pins[i] = store_queue_open(a->names[i], a->nlen[i], create, NULL, &st);
        if (pins[i] == NULL && st != STORE_NOT_FOUND) {
            qmverb_release_all(pins, i);
            conn_out_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE);
            return false;
        }
    }
    return true;
}

static uint64_t qmverb_lease(const struct qpopany_args *a, item *pin) {
    return a->has_lease ? a->lease_ms : queue_options(store_queue_of(pin))->lease_ms;
}

/* Pops from the first queue of pins that has messages ready: true when
 * one had (its ITEM lines are out). */
static bool qmverb_popany_now(conn *c, const struct qpopany_args *a, item **pins) {
    struct qdelivery got[QPOPANY_COUNT_MAX];
    int i, k, n;

    for (i = 0; i < a->nq; i++) {
        if (pins[i] == NULL)
            continue;
        n = store_queue_pop(pins[i], (int)a->count, qmverb_lease(a, pins[i]), c->name_token, got);
        for (k = 0; k < n; k++)
            qmverb_out_delivery(c, &got[k], a->names[i], a->nlen[i]);
        if (n > 0)
            return true;
    }
    return false;
}

enum conn_parse_result qmverb_popany(conn *c, struct cmd_line *l) {
    char *v[QPOPANY_TOKENS];
    size_t vlen[QPOPANY_TOKENS];
    uint64_t leases[QPARK_MULTI_MAX];
    item *pins[QPARK_MULTI_MAX];
    struct qpopany_args a;
    int n = parse_tokenize(l->line, l->len, v, vlen, QPOPANY_TOKENS);
    int i;

    if (n < 2) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (n > QPOPANY_TOKENS) {
        conn_out_reply(c, REPLY_X_TOO_MANY_QUEUES);
        return PARSE_DONE;
    }
    if (!qmverb_popany_args(c, v, vlen, n, &a) || !cmd_log_ok(c) || !qmverb_popany_open(c, &a, false, pins))
        return PARSE_DONE;
    if (qmverb_popany_now(c, &a, pins) || a.wait_ms == 0) {
        qmverb_release_all(pins, a.nq);
        conn_out_reply(c, REPLY_END);
        return PARSE_DONE;
    }
    qmverb_release_all(pins, a.nq);
    if (!qmverb_popany_open(c, &a, true, pins))
        return PARSE_DONE;
    for (i = 0; i < a.nq; i++)
        leases[i] = qmverb_lease(&a, pins[i]);
    qmpark_start(c, pins, a.nq, (int)a.count, leases, a.wait_ms);
    return PARSE_DONE;
}

/* The command table's entries of moving queued messages back, batches of pushes, pops over several queues (proto/cmd.h). */
const struct cmd_def qmverb_cmds[] = {
    { "qredrive", qmverb_redrive, 2, 4, CMD_NOREPLY, 0, "dead letters back to their queues: qredrive <dlq> [<count>]" },
    { "qkick", qmverb_kick, 2, 4, CMD_NOREPLY, 0, "buried messages ready again: qkick <q> [<count>]" },
    { "qpushn", qmverb_pushn, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, 0, "push several messages: qpushn <q> <flags> <delay> <priority> <bytes> [<bytes>...] [dedup=<id>] [group=<id>]" },
    { "qpopany", qmverb_popany, 1, CMD_ANY, CMD_RAW, 0, "pop from the first of several queues with a message: qpopany <q1> [<q2>...] [count=] [lease=] [wait=]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
