/*
 * verb_queue: the queue verbs, as entries of the command table.
 *
 *   qcreate <q> [lease=<s>] [maxdeliver=<n>] [maxlen=<n>] [dlq=<key>] [maxage=<s>] [dedup=<s>]
 *           [expired=dead|drop]
 *   qpush <q> <flags> <delay> <bytes> [<priority>] [dedup=<id>] [group=<id>] [ttl=<s>] [noreply]
 *         + data block
 *   qpop <q> [<count>] [lease=<s>] [wait=<s>] [ack=<id>[:<n>]]
 *   qack <q> <id>[:<n>] [noreply]    qrelease <q> <id>[:<n>] [<delay>] [noreply]
 *   qtouch <q> <id>[:<n>] [<lease>] [noreply]
 *   qpeek <q> [<count>]   qpending <q> [values] [holders] [<count>]   qstats <q>
 *   qpurge <q> [noreply]
 *   qpause <q> <secs> [noreply]       (0 resumes)
 *
 * A blocking qpop parks its connection (queue_park.c). As in memcached,
 * noreply silences every reply of a command, errors included. Every
 * change to a queue goes through store_queue.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "proto/cmd.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "verbs/queue_park.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store_queue.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_batch.h"
#include "verbs/verb_queue_info.h"

#define QVERB_POP_MAX 100           /* most messages one qpop returns */
#define QVERB_PENDING_DEFAULT 1000  /* in-flight messages qpending lists */
#define QVERB_PENDING_MAX 10000

/* A delay in exptime terms (0 now, up to 30 days relative, above that a
 * Unix time) in milliseconds from now. */
uint64_t qverb_delay_ms(int32_t delay) {
    int64_t wall;

    if (delay <= 0)
        return 0;
    if (delay <= CLOCK_MAX_DELTA)
        return (uint64_t)delay * 1000;
    wall = (int64_t)clock_started() + (int64_t)clock_now();
    return delay > wall ? (uint64_t)(delay - wall) * 1000 : 0;
}

/* Whether r may act: with --receipts-only, a bare id (no delivery) may not. */
bool qverb_receipt_allowed(const struct qreceipt *r) {
    return r->delivery != 0 || !settings.receipts_only;
}

/* A receipt "<id>" or "<id>:<delivery>" (delivery 1 to 2^32-1). */
bool qverb_parse_receipt(const char *s, struct qreceipt *r) {
    const char *colon = strchr(s, ':');
    char id[24];
    size_t n = colon != NULL ? (size_t)(colon - s) : strlen(s);

    r->delivery = 0;
    if (n == 0 || n >= sizeof(id) || !isdigit((unsigned char)*s))
        return false;
    memcpy(id, s, n);
    id[n] = '\0';
    if (!parse_u64(id, &r->id))
        return false;
    if (colon == NULL)
        return true;
    return cmd_parse_count(colon + 1, UINT32_MAX, &r->delivery) && r->delivery > 0;
}

/* The queue under a command's key, pinned; replies and returns NULL when
 * there is none (or the key holds something else, or is too long).
 * *st_out (if given) is STORE_NOT_FOUND exactly when the queue is missing. */
item *qverb_queue(conn *c, struct cmd_line *t, bool create, enum reply_id missing,
                  enum store_status *st_out) {
    enum store_status st = STORE_EXISTS;
    item *pin = NULL;

    if (t->vlen[1] > ITEM_KEY_MAX)
        cmd_reply(c, REPLY_X_KEY_TOO_LONG);
    else if ((pin = store_queue_open(t->v[1], t->vlen[1], create, NULL, &st)) == NULL)
        cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE
                     : st == STORE_NO_MEMORY ? REPLY_OOM_STORE : missing);
    if (st_out != NULL)
        *st_out = st;
    return pin;
}

/* ---- replies with messages ---- */

static void qverb_out_pushed(conn *c, uint64_t id) {
    char *p = conn_out_reserve(c, 32);

    conn_out_commit(c, (size_t)sprintf(p, "PUSHED %llu\r\n", (unsigned long long)id));
}

size_t qverb_delivery_head(char *buf, const struct qdelivery *d) {
    const item *it = d->payload;

    return (size_t)sprintf(buf, "ITEM %llu %u %u %u\r\n", (unsigned long long)d->id,
                           item_flags(it), it->nbytes - 2, d->deliveries);
}

/* "ITEM <id> <flags> <bytes> <deliveries>\r\n<data>\r\n"; takes the
 * delivery's payload reference. */
void qverb_out_delivery(conn *c, struct qdelivery *d) {
    item *it = d->payload;
    char *p = conn_out_reserve(c, QVERB_HEAD_MAX);

    conn_out_commit(c, qverb_delivery_head(p, d));
    conn_out_item(c, it, item_value(it), it->nbytes);
}

/* ---- qcreate ---- */

/* One "name=value" option; false (the reply made) if it is wrong. */
static bool qverb_create_option(conn *c, struct queue_opts *o, const char *tok) {
    const char *v;
    uint32_t n32;
    uint64_t n64;
    size_t n;

    if ((v = cmd_option(tok, "lease")) != NULL) {
        if (cmd_parse_ms(v, &o->lease_ms) && o->lease_ms > 0)
            return true;
        cmd_bad_value(c, "lease");
    } else if ((v = cmd_option(tok, "maxage")) != NULL) {
        if (cmd_parse_ms(v, &o->max_age_ms) && o->max_age_ms > 0)
            return true;
        cmd_bad_value(c, "maxage");
    } else if ((v = cmd_option(tok, "dedup")) != NULL) {
        if (cmd_parse_ms(v, &o->dedup_window_ms) && o->dedup_window_ms > 0)
            return true;
        cmd_bad_value(c, "dedup");
    } else if ((v = cmd_option(tok, "expired")) != NULL) {
        if (strcmp(v, "dead") == 0 || strcmp(v, "drop") == 0) {
            o->expired = strcmp(v, "drop") == 0 ? QUEUE_EXPIRED_DROP : QUEUE_EXPIRED_DEAD;
            return true;
        }
        cmd_bad_value(c, "expired");
    } else if ((v = cmd_option(tok, "maxdeliver")) != NULL) {
        if (cmd_parse_count(v, UINT32_MAX, &n32)) {
            o->max_deliveries = n32;
            return true;
        }
        cmd_bad_value(c, "maxdeliver");
    } else if ((v = cmd_option(tok, "maxlen")) != NULL) {
        if (parse_u64(v, &n64)) {
            o->max_length = n64;
            return true;
        }
        cmd_bad_value(c, "maxlen");
    } else if ((v = cmd_option(tok, "dlq")) != NULL) {
        n = strlen(v);
        if (n > 0 && n <= ITEM_KEY_MAX) {
            memcpy(o->dlq, v, n);
            o->ndlq = n;
            return true;
        }
        cmd_bad_value(c, "dlq");
    } else {
        cmd_unknown_option(c, tok);
    }
    return false;
}

static const enum reply_id qverb_opts_errors[] = {
    [STORE_QUEUE_DLQ_NEEDED] = REPLY_DLQ_NEEDED,
    [STORE_QUEUE_DLQ_SELF] = REPLY_DLQ_SELF,
    [STORE_QUEUE_DLQ_WRONG_TYPE] = REPLY_DLQ_WRONG_TYPE,
};

enum conn_parse_result qverb_create(conn *c, struct cmd_line *t) {
    enum store_queue_check check;
    struct queue_opts o;
    enum store_status st;
    item *pin;
    int i;

    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    store_queue_defaults(t->v[1], t->vlen[1], &o);
    for (i = 2; i < t->n; i++)
        if (!qverb_create_option(c, &o, t->v[i]))
            return PARSE_DONE;
    check = store_queue_check_opts(t->v[1], t->vlen[1], &o);
    if (check != STORE_QUEUE_OPTS_OK) {
        conn_out_reply(c, qverb_opts_errors[check]);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = store_queue_open(t->v[1], t->vlen[1], true, &o, &st);
    if (pin != NULL)
        item_release(pin);
    cmd_created_reply(c, st, REPLY_OOM_STORE);
    return PARSE_DONE;
}

/* ---- qpush ---- */

static void qverb_push_done(conn *c);

/* What a qpush line asks besides its message. */
struct qverb_push_args {
    uint32_t flags, pri;
    int32_t delay;
    const char *dedup;          /* dedup=<id> (NULL: none) */
    size_t ndedup;
    const char *group;          /* group=<id> (NULL: none) */
    size_t ngroup;
    uint64_t ttl_ms;            /* ttl=<secs> (0: none) */
    int unknown;                /* the token that is no option (0: none) */
};

bool qverb_parse_ttl(const char *v, uint64_t *ttl_ms) {
    uint64_t ms;

    if (*ttl_ms != 0 || !cmd_parse_ms(v, &ms) || ms == 0)
        return false;
    *ttl_ms = ms;
    return true;
}

/* The tokens after <bytes>: [<priority>] [dedup=<id>] [group=<id>]
 * [ttl=<secs>] (the options in any order), noreply left out
 * (n tokens in all). REPLY_OK, or the first wrong one (REPLY_ERROR with
 * a->unknown set: an unknown option). */
static enum reply_id qverb_push_rest(struct cmd_line *t, int n, struct qverb_push_args *a) {
    const char *v;
    int i;

    if (n > CMD_MAX_TOKENS)
        return REPLY_X_TOO_MANY;            /* tokens past the last one kept */
    for (i = 5; i < n; i++) {
        const char *tok = t->v[i];
        if (strcmp(tok, "noreply") == 0)
            return REPLY_X_NOREPLY_LAST;
        if ((v = cmd_option(tok, "dedup")) != NULL) {
            if (a->dedup != NULL || t->vlen[i] - 6 == 0 || t->vlen[i] - 6 > QDEDUP_ID_MAX)
                return REPLY_X_BAD_DEDUP;
            a->dedup = v;
            a->ndedup = t->vlen[i] - 6;
        } else if ((v = cmd_option(tok, "group")) != NULL) {
            if (a->group != NULL || t->vlen[i] - 6 == 0 || t->vlen[i] - 6 > QGROUP_ID_MAX)
                return REPLY_X_BAD_GROUP;
            a->group = v;
            a->ngroup = t->vlen[i] - 6;
        } else if ((v = cmd_option(tok, "ttl")) != NULL) {
            if (!qverb_parse_ttl(v, &a->ttl_ms))
                return REPLY_X_BAD_TTL;
        } else if (strchr(tok, '=') != NULL) {
            a->unknown = i;
            return REPLY_ERROR;
        } else if (i == 5) {
            if (!cmd_parse_count(tok, UINT32_MAX, &a->pri))
                return REPLY_X_BAD_PRIORITY;
        } else {
            return cmd_extra_tokens(t, 5);      /* the data is still skipped */
        }
    }
    return a->group != NULL && a->delay > 0 ? REPLY_X_GROUP_DELAY : REPLY_OK;
}

/* The first wrong token of a qpush line (REPLY_OK: none). */
static enum reply_id qverb_push_check(conn *c, struct cmd_line *t, struct qverb_push_args *a,
                                      bool vlen_ok) {
    if (t->vlen[1] > ITEM_KEY_MAX)
        return REPLY_X_KEY_TOO_LONG;
    if (!parse_u32_exact(t->v[2], &a->flags))
        return REPLY_X_BAD_FLAGS;
    if (!parse_i32_exact(t->v[3], &a->delay))
        return REPLY_X_BAD_DELAY;
    if (!vlen_ok)
        return REPLY_X_BAD_LENGTH;
    return qverb_push_rest(t, t->n - (c->noreply ? 1 : 0), a);
}

/* Replies bad for a qpush line (an unknown option named as such). */
static void qverb_push_refuse(conn *c, struct cmd_line *t, enum reply_id bad, const struct qverb_push_args *a) {
    if (bad == REPLY_ERROR && a->unknown > 0)
        cmd_unknown_option(c, t->v[a->unknown]);
    else
        cmd_reply(c, bad);
}

enum conn_parse_result qverb_push(conn *c, struct cmd_line *t) {
    struct qverb_push_args a = { 0, QUEUE_DEFAULT_PRI, 0, NULL, 0, NULL, 0, 0, 0 };
    int32_t vlen = 0;
    enum reply_id bad;
    bool vlen_ok;
    enum store_status st;
    item *it;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    vlen_ok = parse_i32_exact(t->v[4], &vlen) && vlen >= 0 && vlen <= INT32_MAX - 2;
    bad = qverb_push_check(c, t, &a, vlen_ok);
    if (bad != REPLY_OK && !vlen_ok)
        return cmd_refuse_unframed(c, bad);
    if (bad == REPLY_OK && !persist_writable())
        bad = REPLY_LOG_FAILED;
    if (bad != REPLY_OK) {
        qverb_push_refuse(c, t, bad, &a);
        conn_start_swallow(c, (size_t)vlen + 2);
        return PARSE_DONE;
    }
    /* The message's data alone counts against -I. */
    st = STORE_TOO_LARGE;
    it = (size_t)vlen > settings.item_size_max ? NULL
         : store_alloc_sized(t->v[1], t->vlen[1], a.flags, 0, (size_t)vlen + 2, &st);
    if (it == NULL) {
        stats_incr(st == STORE_TOO_LARGE ? STATS_STORE_TOO_LARGE : STATS_STORE_NO_MEMORY);
        cmd_reply(c, st == STORE_TOO_LARGE ? REPLY_TOO_LARGE : REPLY_OOM_STORE);
        conn_start_swallow(c, (size_t)vlen + 2);
        return PARSE_DONE;
    }
    conn_start_nread(c, it, STORE_SET, 0, c->noreply);
    c->nread.finish = qverb_push_done;
    c->nread.push_due_ms = clock_now_ms() + qverb_delay_ms(a.delay);
    c->nread.push_pri = a.pri;
    c->nread.push_ttl_ms = a.ttl_ms;
    c->nread.push_ndedup = (uint8_t)a.ndedup;
    if (a.ndedup > 0)
        memcpy(c->nread.push_dedup, a.dedup, a.ndedup);
    c->nread.push_ngroup = (uint8_t)a.ngroup;
    if (a.ngroup > 0)
        memcpy(c->nread.push_group, a.group, a.ngroup);
    return PARSE_DONE;
}

/* The data block of a qpush has been read into c->nread.it. */
static void qverb_push_done(conn *c) {
    item *it = c->nread.it, *pin;
    struct queue_dedup_id dd = { c->nread.push_dedup, c->nread.push_ndedup };
    struct queue_group_id grp = { c->nread.push_group, c->nread.push_ngroup };
    enum store_status st;
    uint64_t id = 0;
    enum queue_result r;
    bool dup = false;

    c->nread.it = NULL;
    c->noreply = c->nread.noreply;
    if (memcmp(item_value(it) + it->nbytes - 2, "\r\n", 2) != 0) {
        cmd_reply(c, REPLY_BAD_CHUNK);
        item_release(it);
        return;
    }
    if (!cmd_log_ok(c)) {
        item_release(it);
        return;
    }
    pin = store_queue_open(item_key(it), it->nkey, true, NULL, &st);
    if (pin == NULL) {
        cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE);
        item_release(it);
        return;
    }
    r = store_queue_push_dedup(pin, &it, 1, c->nread.push_pri, c->nread.push_due_ms,
                               dd.n > 0 ? &dd : NULL, grp.n > 0 ? &grp : NULL, c->nread.push_ttl_ms,
                               &id, &dup);
    item_release(pin);
    if (r != QUEUE_OK || dup)
        item_release(it);
    if (r == QUEUE_OK && !c->noreply)
        qverb_out_pushed(c, id);
    else if (r == QUEUE_NOMEM)
        cmd_reply(c, REPLY_OOM_STORE);
    else if (r != QUEUE_OK)
        cmd_reply(c, REPLY_NOT_STORED);
}

/* ---- qpop ---- */

struct qverb_pop_args {
    int count;
    uint64_t lease_ms;
    bool has_lease;
    uint64_t wait_ms;
    bool has_ack;           /* ack=<receipt>: ack that delivery first */
    struct qreceipt ack;
};

/* One token of a qpop's arguments; false (the reply made) if it is wrong.
 * The count, a token without "=", may only come first. */
static bool qverb_pop_arg(conn *c, const char *tok, bool first, struct qverb_pop_args *a) {
    const char *v;
    uint32_t n;

    if ((v = cmd_option(tok, "lease")) != NULL) {
        a->has_lease = cmd_parse_ms(v, &a->lease_ms) && a->lease_ms > 0;
        if (!a->has_lease)
            cmd_bad_value(c, "lease");
        return a->has_lease;
    }
    if ((v = cmd_option(tok, "wait")) != NULL) {
        if (!cmd_parse_ms(v, &a->wait_ms)) {
            cmd_bad_value(c, "wait");
            return false;
        }
        return true;
    }
    if ((v = cmd_option(tok, "ack")) != NULL) {
        a->has_ack = qverb_parse_receipt(v, &a->ack);
        if (!a->has_ack)
            cmd_bad_value(c, "ack");
        else if (!qverb_receipt_allowed(&a->ack))
            conn_out_reply(c, REPLY_X_RECEIPT_REQUIRED);
        return a->has_ack && qverb_receipt_allowed(&a->ack);
    }
    if (!first || strchr(tok, '=') != NULL) {
        cmd_unknown_option(c, tok);
        return false;
    }
    if (!cmd_parse_count(tok, QVERB_POP_MAX, &n) || n == 0) {
        conn_out_reply(c, REPLY_X_COUNT_100);
        return false;
    }
    a->count = (int)n;
    return true;
}

static bool qverb_pop_args(conn *c, struct cmd_line *t, struct qverb_pop_args *a) {
    int i;

    memset(a, 0, sizeof(*a));
    a->count = 1;
    for (i = 2; i < t->n; i++)
        if (!qverb_pop_arg(c, t->v[i], i == 2, a))
            return false;
    return true;
}

/* qpop [ack=<id>]: with ack, the first line says whether that message was
 * acked (ACKED or NOT_FOUND), so a consumer confirms one message and
 * leases the next in one round trip. */
enum conn_parse_result qverb_pop(conn *c, struct cmd_line *t) {
    struct qdelivery got[QVERB_POP_MAX];
    struct qverb_pop_args a;
    enum store_status st;
    int n, i;
    item *pin;

    if (!qverb_pop_args(c, t, &a))
        return PARSE_DONE;
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = qverb_queue(c, t, a.wait_ms > 0, a.has_ack ? REPLY_NOT_FOUND : REPLY_END, &st);
    if (pin == NULL) {
        if (a.has_ack && st == STORE_NOT_FOUND)
            conn_out_reply(c, REPLY_END);
        return PARSE_DONE;
    }
    if (a.has_ack)
        conn_out_reply(c, store_queue_ack(pin, &a.ack, false) == QUEUE_OK ? REPLY_ACKED : REPLY_NOT_FOUND);
    if (!a.has_lease)
        a.lease_ms = queue_options(store_queue_of(pin))->lease_ms;
    n = store_queue_pop(pin, a.count, a.lease_ms, c->name_token, got);
    if (n == 0 && a.wait_ms > 0) {
        qpark_start(c, pin, a.count, a.lease_ms, a.wait_ms, QPARK_POP, t->v[1], t->vlen[1], false);
        return PARSE_DONE;
    }
    for (i = 0; i < n; i++)
        qverb_out_delivery(c, &got[i]);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

/* ---- ack, release, touch ---- */

/* The first wrong token of a qack, qrelease or qtouch (REPLY_OK: none). */
static enum reply_id qverb_by_id_check(conn *c, struct cmd_line *t, struct qreceipt *rc,
                                       bool has_ms, int32_t *delay, uint64_t *ms) {
    if (!qverb_parse_receipt(t->v[2], rc))
        return REPLY_X_BAD_ID;
    if (!qverb_receipt_allowed(rc))
        return REPLY_X_RECEIPT_REQUIRED;
    if ((t->arg == QVERB_ACK && has_ms) || (t->n == 5 && !c->noreply))
        return cmd_extra_tokens(t, 3);
    if (has_ms && t->arg == QVERB_RELEASE && !parse_i32_exact(t->v[3], delay))
        return REPLY_X_BAD_DELAY;
    if (has_ms && t->arg == QVERB_TOUCH && (!cmd_parse_ms(t->v[3], ms) || *ms == 0))
        return REPLY_X_BAD_LEASE;
    return REPLY_OK;
}

/* qack, qrelease, qtouch (arg: which). */
enum conn_parse_result qverb_by_id(conn *c, struct cmd_line *t) {
    int verb = t->arg;
    struct qreceipt rc;
    uint64_t ms = 0;
    bool has_ms = t->n > 3 && !cmd_is_noreply(t, 3);
    enum queue_result r;
    enum reply_id bad;
    int32_t delay = 0;
    item *pin;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    bad = qverb_by_id_check(c, t, &rc, has_ms, &delay, &ms);
    if (bad != REPLY_OK) {
        cmd_reply(c, bad);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = qverb_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    if (verb == QVERB_ACK) {
        r = store_queue_ack(pin, &rc, false);
    } else if (verb == QVERB_RELEASE) {
        r = store_queue_release(pin, &rc, false, qverb_delay_ms(delay));
    } else {
        if (!has_ms)
            ms = queue_options(store_queue_of(pin))->lease_ms;
        r = store_queue_touch(pin, &rc, false, ms);
    }
    item_release(pin);
    if (r != QUEUE_OK)
        cmd_reply(c, REPLY_NOT_FOUND);
    else
        cmd_reply(c, verb == QVERB_ACK ? REPLY_ACKED : verb == QVERB_RELEASE ? REPLY_RELEASED : REPLY_TOUCHED);
    return PARSE_DONE;
}

/* ---- peek, pending, stats, purge ---- */

struct qverb_list {
    conn *c;
    bool values;
    uint64_t now;
    uint32_t left;          /* qpending: most lines to write */
    bool holders;           /* qpending: each line ends in the lease's holder */
};

static void qverb_peek_one(const struct qmsg *m, void *arg) {
    struct qverb_list *l = arg;
    struct qdelivery d = { m->id, m->deliveries, 0, m->payload };

    item_incref(m->payload);
    qverb_out_delivery(l->c, &d);
}

static void qverb_pending_one(const struct qmsg *m, void *arg) {
    struct qverb_list *l = arg;
    item *it = m->payload;
    char *p = conn_out_reserve(l->c, 112);
    long long left = m->due_ms == QUEUE_HELD ? -1
                     : (long long)(m->due_ms > l->now ? m->due_ms - l->now : 0);

    conn_out_commit(l->c, (size_t)sprintf(p, "PENDING %llu %u %u %u %lld",
                                          (unsigned long long)m->id, item_flags(it), it->nbytes - 2,
                                          m->deliveries, left));
    if (l->holders)
        qinfo_out_holder(l->c, m);
    conn_out(l->c, "\r\n", 2);
    if (l->values) {
        item_incref(it);
        conn_out_item(l->c, it, item_value(it), it->nbytes);
    }
}

enum conn_parse_result qverb_peek(conn *c, struct cmd_line *t) {
    struct qverb_list l = { c, true, 0, 0, false };
    uint32_t count = 1;
    item *pin;

    if (t->n == 3 && (!cmd_parse_count(t->v[2], QVERB_POP_MAX, &count) || count == 0)) {
        conn_out_reply(c, REPLY_X_COUNT_100);
        return PARSE_DONE;
    }
    pin = qverb_queue(c, t, false, REPLY_END, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    queue_peek(store_queue_of(pin), count, qverb_peek_one, &l);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

/* "[values] [holders] [<count>]" of qpending: REPLY_OK, or what is wrong. */
static enum reply_id qverb_pending_args(struct cmd_line *t, struct qverb_list *l) {
    int i = 2;

    l->values = t->n > i && strcmp(t->v[i], "values") == 0;
    if (l->values)
        i++;
    l->holders = t->n > i && strcmp(t->v[i], "holders") == 0;
    if (l->holders)
        i++;
    else if (t->n == 5)
        return REPLY_ERROR;     /* a token count only holders makes valid */
    l->left = QVERB_PENDING_DEFAULT;
    if (t->n > i && (!cmd_parse_count(t->v[i++], QVERB_PENDING_MAX, &l->left) || l->left == 0))
        return REPLY_X_COUNT_10000;
    return i == t->n ? REPLY_OK : REPLY_X_TOO_MANY;
}

enum conn_parse_result qverb_pending(conn *c, struct cmd_line *t) {
    struct qverb_list l = { c, false, clock_now_ms(), 0, false };
    enum reply_id bad = qverb_pending_args(t, &l);
    item *pin;

    if (bad != REPLY_OK) {
        conn_out_reply(c, bad);
        return PARSE_DONE;
    }
    pin = qverb_queue(c, t, false, REPLY_END, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    queue_pending(store_queue_of(pin), l.left, qverb_pending_one, &l);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

static void qverb_stat(conn *c, const char *name, uint64_t v) {
    char *p = conn_out_reserve(c, strlen(name) + 32);

    conn_out_commit(c, (size_t)sprintf(p, "STAT %s %llu\r\n", name, (unsigned long long)v));
}

enum conn_parse_result qverb_stats(conn *c, struct cmd_line *t) {
    const struct queue_opts *o;
    struct queue_stats st;
    item *pin;
    char *p;

    if (t->n != 2) {
        conn_out_reply(c, REPLY_X_TOO_MANY);
        return PARSE_DONE;
    }
    pin = qverb_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    queue_get_stats(store_queue_of(pin), &st);
    o = queue_options(store_queue_of(pin));
    qverb_stat(c, "ready", st.ready);
    qverb_stat(c, "delayed", st.delayed);
    qverb_stat(c, "in_flight", st.inflight);
    qverb_stat(c, "buried", st.buried);
    qverb_stat(c, "waiters", st.waiters);
    qverb_stat(c, "pushed", st.pushed);
    qverb_stat(c, "popped", st.popped);
    qverb_stat(c, "acked", st.acked);
    qverb_stat(c, "released", st.released);
    qverb_stat(c, "lease_expired", st.expired);
    qverb_stat(c, "dead", st.dead);
    qverb_stat(c, "purged", st.purged);
    qverb_stat(c, "age_oldest_ready", st.oldest_ready_ms / 1000);
    qverb_stat(c, "lease_ms", o->lease_ms);
    qverb_stat(c, "max_deliveries", o->max_deliveries);
    qverb_stat(c, "max_length", o->max_length);
    p = conn_out_reserve(c, o->ndlq + 16);
    memcpy(p, "STAT dlq ", 9);
    memcpy(p + 9, o->dlq, o->ndlq);
    memcpy(p + 9 + o->ndlq, "\r\n", 2);
    conn_out_commit(c, o->ndlq + 11);
    qverb_stat(c, "max_age_ms", o->max_age_ms);
    qverb_stat(c, "expired_age", st.expired_age);
    qverb_stat(c, "redriven", st.redriven);
    qverb_stat(c, "kicked", st.kicked);
    qverb_stat(c, "dedup_window_ms", o->dedup_window_ms);
    qverb_stat(c, "dedup_entries", st.dedup_entries);
    qverb_stat(c, "deduplicated", st.deduplicated);
    qverb_stat(c, "paused_ms_left", st.paused_ms_left);
    qverb_stat(c, "grouped", st.grouped);
    qverb_stat(c, "groups", st.groups);
    p = conn_out_reserve(c, 32);
    conn_out_commit(c, (size_t)sprintf(p, "STAT expired %s\r\n",
                                       o->expired == QUEUE_EXPIRED_DROP ? "drop" : "dead"));
    qverb_stat(c, "expired_ttl", st.expired_ttl);
    qverb_stat(c, "dropped", st.dropped);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

enum conn_parse_result qverb_purge(conn *c, struct cmd_line *t) {
    uint64_t n;
    item *pin;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    if (t->n > 2 + (c->noreply ? 1 : 0)) {
        cmd_reply(c, REPLY_X_TOO_MANY);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = qverb_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    n = store_queue_purge(pin);
    item_release(pin);
    if (!c->noreply) {
        char *p = conn_out_reserve(c, 32);
        conn_out_commit(c, (size_t)sprintf(p, "PURGED %llu\r\n", (unsigned long long)n));
    }
    return PARSE_DONE;
}

/* qpause <q> <secs> [noreply]: pops of q answer nothing for secs (a
 * fraction allowed), 0 resumes; pushes and leases go on. */
enum conn_parse_result qverb_pause(conn *c, struct cmd_line *t) {
    uint64_t ms = 0;
    enum queue_result r;
    item *pin;

    c->noreply = t->n == 4 && cmd_is_noreply(t, 3);
    if (t->n == 4 && !c->noreply) {
        cmd_reply(c, cmd_extra_tokens(t, 3));
        return PARSE_DONE;
    }
    if (t->vlen[1] <= ITEM_KEY_MAX && !cmd_parse_ms(t->v[2], &ms)) {
        cmd_reply(c, REPLY_X_BAD_PAUSE);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = qverb_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return PARSE_DONE;
    r = store_queue_pause(pin, ms == 0 ? 0 : clock_now_ms() + ms);
    item_release(pin);
    cmd_reply(c, r == QUEUE_OK ? REPLY_PAUSED : REPLY_NOT_FOUND);
    return PARSE_DONE;
}

/* The command table's entries of the queue verbs (proto/cmd.h). */
const struct cmd_def qverb_cmds[] = {
    { "qcreate", qverb_create, 2, 9, 0, 0, "create a queue: qcreate <q> [lease=] [maxdeliver=] [maxlen=] [dlq=] [maxage=] [dedup=] [expired=]" },
    { "qpush", qverb_push, 5, CMD_ANY, CMD_DATA | CMD_NOREPLY, 0, "push a message: qpush <q> <flags> <delay> <bytes> [<priority>] [dedup=<id>] [group=<id>] [ttl=<secs>]" },
    { "qpop", qverb_pop, 2, 6, 0, 0, "pop messages: qpop <q> [<count>] [lease=] [wait=] [ack=]" },
    { "qack", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_ACK, "acknowledge popped messages: qack <q> <id> [<id>...]" },
    { "qrelease", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_RELEASE, "give popped messages back: qrelease <q> <id> [<delay>] | <id>... [delay=]" },
    { "qtouch", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_TOUCH, "extend popped messages' leases: qtouch <q> <id> [<lease>] | <id>... [lease=]" },
    { "qpeek", qinfo_peek, 2, 4, 0, 0, "look at messages without popping: qpeek <q> [<count>] | id=<id> | delayed [<count>]" },
    { "qpending", qverb_pending, 2, 5, 0, 0, "list popped, unacknowledged messages: qpending <q> [values] [holders] [<count>]" },
    { "qstats", qverb_stats, 2, 2, 0, 0, "one queue's figures: qstats <q>" },
    { "qpurge", qverb_purge, 2, 3, CMD_NOREPLY, 0, "empty a queue: qpurge <q>" },
    { "qpause", qverb_pause, 3, 4, CMD_NOREPLY, 0, "pause a queue's pops for a time (0 resumes): qpause <q> <secs>" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
