/*
 * proto_ext: the queue verbs, Kestrel reads, and blocking waits.
 *
 *   qcreate <q> [lease=<s>] [maxdeliver=<n>] [maxlen=<n>] [dlq=<key>]
 *   qpush <q> <flags> <delay> <bytes> [<priority>] [noreply]  + data block
 *   qpop <q> [<count>] [lease=<s>] [wait=<s>] [ack=<id>]
 *   qack <q> <id>[:<n>] [noreply]    qrelease <q> <id>[:<n>] [<delay>] [noreply]
 *   qtouch <q> <id>[:<n>] [<lease>] [noreply]
 *   qpeek <q> [<count>]   qpending <q> [values]   qstats <q>   qpurge <q> [noreply]
 *
 * A blocking read (qpop wait=, get q/t=) parks its connection: the
 * connection stops parsing, its wait is queued on the queue, and a push,
 * a delay coming due or a lease running out (on any thread) serves the
 * wait and posts it back to the connection's worker, which writes the
 * reply and resumes parsing. As in memcached, noreply silences every
 * reply of a command, errors included. A struct ext_wait outlives whichever of
 * "connection" and "queued wake" ends last (two references).
 */
#include <ctype.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "parse.h"
#include "proto_ext.h"
#include "settings.h"
#include "stats.h"
#include "store_queue.h"
#include "worker.h"

#define EXT_MAX_TOKENS 8
#define EXT_POP_MAX 100             /* most messages one qpop returns */
#define EXT_SECS_MAX 100000000ULL   /* longest lease/wait, in seconds */
#define EXT_PENDING_DEFAULT 1000    /* in-flight messages qpending lists */
#define EXT_PENDING_MAX 10000

enum ext_mode { EXT_QPOP, EXT_KESTREL_TAKE, EXT_KESTREL_OPEN };

struct ext_wait {
    struct queue_waiter qw;
    struct worker_call call;
    conn *c;                    /* NULL once the connection closed */
    struct worker *worker;
    item *pin;                  /* the queue */
    struct event *timer;
    int refs;                   /* the connection, the queued wake */
    enum ext_mode mode;
    bool with_cas;              /* Kestrel gets: VALUE lines carry a CAS */
    char key[ITEM_KEY_MAX];     /* Kestrel: the key as asked, for VALUE */
    size_t nkey;
    struct qdelivery got[];
};

/* Per connection: the wait in progress, the Kestrel open read, and the
 * qpush whose data block is being read. */
struct ext_conn {
    struct ext_wait *wait;
    item *open_pin;             /* the queue of the open read, kept alive */
    uint64_t open_id;
    uint64_t push_due_ms;
    uint32_t push_pri;
};

struct ext_tokens {
    char *v[EXT_MAX_TOKENS];
    size_t len[EXT_MAX_TOKENS];
    int n;
};

static const char *const ext_verbs[] = {
    "qcreate", "qpush", "qpop", "qack", "qrelease", "qtouch",
    "qpeek", "qpending", "qstats", "qpurge", NULL
};

bool ext_is_command(const char *line, size_t len) {
    int i;

    if (len < 4 || line[0] != 'q')
        return false;
    for (i = 0; ext_verbs[i] != NULL; i++) {
        size_t n = strlen(ext_verbs[i]);
        if (len >= n && memcmp(line, ext_verbs[i], n) == 0 && (len == n || line[n] == ' '))
            return true;
    }
    return false;
}

static struct ext_conn *ext_state(conn *c) {
    if (c->ext == NULL)
        c->ext = calloc(1, sizeof(struct ext_conn));
    return c->ext;
}

static void ext_tokenize(char *line, size_t len, struct ext_tokens *t) {
    t->n = parse_tokenize(line, len, t->v, t->len, EXT_MAX_TOKENS);
}

/* ---- numbers and options ---- */

/* "<secs>[.<fraction>]" into milliseconds. */
static bool ext_parse_ms(const char *s, uint64_t *ms) {
    uint64_t whole = 0, frac = 0;
    int digits = 0;

    if (!isdigit((unsigned char)*s))
        return false;
    for (; isdigit((unsigned char)*s); s++) {
        whole = whole * 10 + (uint64_t)(*s - '0');
        if (whole > EXT_SECS_MAX)
            return false;
    }
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++) {
            if (digits < 3) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                digits++;
            }
        }
    }
    if (*s != '\0')
        return false;
    for (; digits < 3; digits++)
        frac *= 10;
    *ms = whole * 1000 + frac;
    return true;
}

/* A delay in exptime terms (0 now, up to 30 days relative, above that a
 * Unix time) in milliseconds from now. */
static uint64_t ext_delay_ms(int32_t delay) {
    int64_t wall;

    if (delay <= 0)
        return 0;
    if (delay <= CLOCK_MAX_DELTA)
        return (uint64_t)delay * 1000;
    wall = (int64_t)clock_started() + (int64_t)clock_now();
    return delay > wall ? (uint64_t)(delay - wall) * 1000 : 0;
}

/* A whole decimal number in [0, max], with no truncation. */
static bool ext_parse_count(const char *s, uint32_t max, uint32_t *out) {
    uint64_t v;

    if (!isdigit((unsigned char)*s) || !parse_u64(s, &v) || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A receipt "<id>" or "<id>:<delivery>" (delivery 1 to 2^32-1). */
static bool ext_parse_receipt(const char *s, struct qreceipt *r) {
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
    return ext_parse_count(colon + 1, UINT32_MAX, &r->delivery) && r->delivery > 0;
}

/* "name=value" options: returns the value if tok is that option. */
static const char *ext_option(const char *tok, const char *name) {
    size_t n = strlen(name);

    if (strncmp(tok, name, n) == 0 && tok[n] == '=')
        return tok + n + 1;
    return NULL;
}

static bool ext_is_noreply(const struct ext_tokens *t, int at) {
    return t->n > at && strcmp(t->v[at], "noreply") == 0;
}

static void ext_reply(conn *c, enum reply_id r) {
    if (!c->noreply)
        conn_out_reply(c, r);
}

/* The queue under a command's key, pinned; replies and returns NULL when
 * there is none (or the key holds something else, or is too long).
 * *st_out (if given) is STORE_NOT_FOUND exactly when the queue is missing. */
static item *ext_queue(conn *c, struct ext_tokens *t, bool create, enum reply_id missing,
                       enum store_status *st_out) {
    enum store_status st = STORE_EXISTS;
    item *pin = NULL;

    if (t->len[1] > ITEM_KEY_MAX)
        ext_reply(c, REPLY_BAD_FORMAT);
    else if ((pin = store_queue_open(t->v[1], t->len[1], create, NULL, &st)) == NULL)
        ext_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE
                     : st == STORE_NO_MEMORY ? REPLY_OOM_STORE : missing);
    if (st_out != NULL)
        *st_out = st;
    return pin;
}

/* ---- replies with messages ---- */

static void ext_out_pushed(conn *c, uint64_t id) {
    char *p = conn_out_reserve(c, 32);

    conn_out_commit(c, (size_t)sprintf(p, "PUSHED %llu\r\n", (unsigned long long)id));
}

/* "ITEM <id> <flags> <bytes> <deliveries>\r\n<data>\r\n"; takes the
 * delivery's payload reference. */
static void ext_out_delivery(conn *c, struct qdelivery *d) {
    item *it = d->payload;
    char *p = conn_out_reserve(c, 96);

    conn_out_commit(c, (size_t)sprintf(p, "ITEM %llu %u %u %u\r\n", (unsigned long long)d->id,
                                       it->flags, it->nbytes - 2, d->deliveries));
    conn_out_item(c, it, item_value(it), it->nbytes);
}

/* Kestrel's answer: "VALUE <key as asked> <flags> <bytes>[ 0]\r\n<data>\r\n"
 * (gets asks for a CAS field; a queue message has none to offer: 0). */
static void ext_out_kestrel(conn *c, const char *key, size_t nkey, item *it, bool with_cas) {
    char *p = conn_out_reserve(c, nkey + 48);
    size_t n = 6;

    memcpy(p, "VALUE ", 6);
    memcpy(p + n, key, nkey);
    n += nkey;
    n += (size_t)sprintf(p + n, " %u %u%s\r\n", it->flags, it->nbytes - 2, with_cas ? " 0" : "");
    conn_out_commit(c, n);
    conn_out_item(c, it, item_value(it), it->nbytes);
}

/* ---- waits ---- */

static void ext_wait_put(struct ext_wait *w) {
    if (--w->refs > 0)
        return;
    event_free(w->timer);
    item_release(w->pin);
    free(w);
}

/* Runs under the queue lock, on the thread that served the wait. */
static void ext_on_wake(struct queue_waiter *qw) {
    struct ext_wait *w = qw->owner;

    worker_post(w->worker, &w->call);
}

/* Writes what a finished wait got (maybe nothing) to its connection. */
static void ext_wait_answer(conn *c, struct ext_wait *w) {
    struct ext_conn *x = c->ext;
    int i;

    for (i = 0; i < w->qw.ngot; i++) {
        struct qdelivery *d = &w->got[i];
        if (w->mode == EXT_QPOP) {
            ext_out_delivery(c, d);
            continue;
        }
        ext_out_kestrel(c, w->key, w->nkey, d->payload, w->with_cas);
        if (w->mode == EXT_KESTREL_TAKE) {
            struct qreceipt r = { d->id, d->deliveries };
            store_queue_ack(w->pin, &r, true);
        } else {
            item_incref(w->pin);
            x->open_pin = w->pin;
            x->open_id = d->id;
        }
    }
    conn_out_reply(c, REPLY_END);
}

/* Gives back what a wait got when its connection has gone: it never
 * reached a client, so the deliveries do not count. */
static void ext_wait_return(struct ext_wait *w) {
    int i;

    for (i = 0; i < w->qw.ngot; i++) {
        struct qreceipt r = { w->got[i].id, w->got[i].deliveries };
        store_queue_unlease(w->pin, &r);
        item_release(w->got[i].payload);
    }
    w->qw.ngot = 0;
}

/* Ends c's wait w and lets c parse again. */
static void ext_wait_finish(conn *c, struct ext_wait *w) {
    ext_wait_answer(c, w);
    c->ext->wait = NULL;
    w->c = NULL;
    ext_wait_put(w);        /* the connection's reference */
    conn_resume(c);
}

/* The wait was served (posted to this worker's thread). */
static void ext_wake_done(void *arg) {
    struct ext_wait *w = arg;
    conn *c = w->c;

    if (c == NULL) {
        ext_wait_return(w);
        ext_wait_put(w);    /* the queued wake's reference */
        return;
    }
    evtimer_del(w->timer);
    w->refs--;              /* the queued wake's reference; c still holds one */
    ext_wait_finish(c, w);
}

/* Takes w off its queue's wait list before it was served; false when it
 * was served meanwhile (the wake is on its way). */
static bool ext_wait_cancel(struct ext_wait *w) {
    if (w->c == NULL || !queue_unwait(store_queue_of(w->pin), &w->qw))
        return false;
    evtimer_del(w->timer);
    w->refs--;              /* it will never be woken */
    w->qw.ngot = 0;
    return true;
}

static void ext_on_timeout(evutil_socket_t fd, short what, void *arg) {
    struct ext_wait *w = arg;

    if (ext_wait_cancel(w))
        ext_wait_finish(w->c, w);
}

bool ext_wait_abandon(conn *c) {
    struct ext_wait *w = c->ext != NULL ? c->ext->wait : NULL;

    if (w == NULL || !ext_wait_cancel(w))
        return false;
    ext_wait_answer(c, w);
    c->ext->wait = NULL;
    w->c = NULL;
    ext_wait_put(w);        /* the connection's reference */
    return true;
}

/* Parks c until the queue pin serves it or wait_ms pass. Takes over the
 * pin reference. A closed queue answers at once (nothing). */
static struct ext_wait *ext_wait_start(conn *c, item *pin, int want, uint64_t lease_ms, uint64_t wait_ms,
                                       enum ext_mode mode, const char *key, size_t nkey) {
    struct ext_wait *w = calloc(1, sizeof(*w) + (size_t)want * sizeof(struct qdelivery));
    struct timeval tv = { (time_t)(wait_ms / 1000), (suseconds_t)(wait_ms % 1000) * 1000 };

    if (w == NULL) {
        item_release(pin);
        conn_out_reply(c, REPLY_OOM);
        return NULL;
    }
    w->qw.want = want;
    w->qw.lease_ms = lease_ms;
    w->qw.got = w->got;
    w->qw.wake = ext_on_wake;
    w->qw.owner = w;
    w->call.fn = ext_wake_done;
    w->call.arg = w;
    w->c = c;
    w->worker = c->worker;
    w->pin = pin;
    w->mode = mode;
    memcpy(w->key, key, nkey);
    w->nkey = nkey;
    w->refs = 2;
    w->timer = evtimer_new(worker_base(c->worker), ext_on_timeout, w);
    if (!queue_wait(store_queue_of(pin), &w->qw)) {
        w->refs = 1;
        w->c = NULL;
        ext_wait_put(w);
        conn_out_reply(c, REPLY_END);
        return NULL;
    }
    /* Even when served at once, the answer comes through the posted wake. */
    ext_state(c)->wait = w;
    conn_set_state(c, CONN_WAITING);
    evtimer_add(w->timer, &tv);
    return w;
}

void ext_conn_closed(conn *c) {
    struct ext_conn *x = c->ext;
    struct ext_wait *w;

    if (x == NULL)
        return;
    w = x->wait;
    if (w != NULL) {
        evtimer_del(w->timer);
        if (queue_unwait(store_queue_of(w->pin), &w->qw))
            w->refs--;
        w->c = NULL;
        ext_wait_put(w);
    }
    if (x->open_pin != NULL) {
        struct qreceipt r = { x->open_id, 0 };
        store_queue_release(x->open_pin, &r, true, 0);
        item_release(x->open_pin);
    }
    free(x);
    c->ext = NULL;
}

/* ---- qcreate ---- */

static bool ext_create_option(struct queue_opts *o, const char *tok) {
    const char *v;
    uint32_t n32;
    uint64_t n64;

    if ((v = ext_option(tok, "lease")) != NULL)
        return ext_parse_ms(v, &o->lease_ms) && o->lease_ms > 0;
    if ((v = ext_option(tok, "maxdeliver")) != NULL) {
        if (!ext_parse_count(v, UINT32_MAX, &n32))
            return false;
        o->max_deliveries = n32;
        return true;
    }
    if ((v = ext_option(tok, "maxlen")) != NULL) {
        if (!parse_u64(v, &n64))
            return false;
        o->max_length = n64;
        return true;
    }
    if ((v = ext_option(tok, "dlq")) != NULL) {
        size_t n = strlen(v);
        if (n == 0 || n > ITEM_KEY_MAX)
            return false;
        memcpy(o->dlq, v, n);
        o->ndlq = n;
        return true;
    }
    return false;
}

static const enum reply_id ext_opts_errors[] = {
    [STORE_QUEUE_DLQ_NEEDED] = REPLY_DLQ_NEEDED,
    [STORE_QUEUE_DLQ_SELF] = REPLY_DLQ_SELF,
    [STORE_QUEUE_DLQ_WRONG_TYPE] = REPLY_DLQ_WRONG_TYPE,
};

static void ext_qcreate(conn *c, struct ext_tokens *t) {
    enum store_queue_check check;
    struct queue_opts o;
    enum store_status st;
    item *pin;
    int i;

    if (t->len[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    store_queue_defaults(t->v[1], t->len[1], &o);
    for (i = 2; i < t->n; i++) {
        if (!ext_create_option(&o, t->v[i])) {
            conn_out_reply(c, REPLY_BAD_FORMAT);
            return;
        }
    }
    check = store_queue_check_opts(t->v[1], t->len[1], &o);
    if (check != STORE_QUEUE_OPTS_OK) {
        conn_out_reply(c, ext_opts_errors[check]);
        return;
    }
    pin = store_queue_open(t->v[1], t->len[1], true, &o, &st);
    if (pin != NULL)
        item_release(pin);
    if (st == STORE_STORED)
        conn_out_reply(c, REPLY_CREATED);
    else if (st == STORE_EXISTS)
        conn_out_reply(c, REPLY_EXISTS);
    else if (st == STORE_WRONG_TYPE)
        conn_out_reply(c, REPLY_WRONG_TYPE);
    else
        conn_out_reply(c, REPLY_OOM_STORE);
}

/* ---- qpush ---- */

static void ext_qpush(conn *c, struct ext_tokens *t) {
    struct ext_conn *x = ext_state(c);
    int32_t delay = 0, vlen = 0;
    uint32_t flags = 0, pri = QUEUE_DEFAULT_PRI;
    bool vlen_ok, line_ok;
    enum store_status st;
    item *it;

    c->noreply = ext_is_noreply(t, t->n - 1);
    vlen_ok = parse_i32_exact(t->v[4], &vlen) && vlen >= 0 && vlen <= INT32_MAX - 2;
    line_ok = t->len[1] <= ITEM_KEY_MAX && parse_u32_exact(t->v[2], &flags) &&
              parse_i32_exact(t->v[3], &delay) &&
              vlen_ok && (t->n < 7 || c->noreply) &&
              (t->n - (c->noreply ? 1 : 0) < 6 || ext_parse_count(t->v[5], UINT32_MAX, &pri));
    if (!line_ok) {
        ext_reply(c, REPLY_BAD_FORMAT);
        if (vlen_ok)
            conn_start_swallow(c, (size_t)vlen + 2);
        return;
    }
    /* The message's data alone counts against -I. */
    st = STORE_TOO_LARGE;
    it = (size_t)vlen > settings.item_size_max ? NULL
         : store_alloc_sized(t->v[1], t->len[1], flags, 0, (size_t)vlen + 2, &st);
    if (it == NULL) {
        stats_incr(st == STORE_TOO_LARGE ? STATS_STORE_TOO_LARGE : STATS_STORE_NO_MEMORY);
        ext_reply(c, st == STORE_TOO_LARGE ? REPLY_TOO_LARGE : REPLY_OOM_STORE);
        conn_start_swallow(c, (size_t)vlen + 2);
        return;
    }
    x->push_due_ms = clock_now_ms() + ext_delay_ms(delay);
    x->push_pri = pri;
    conn_start_nread(c, it, STORE_SET, 0, c->noreply);
    c->nread.ext = true;
}

void ext_nread_done(conn *c) {
    struct ext_conn *x = c->ext;
    item *it = c->nread.it, *pin;
    enum store_status st;
    uint64_t id = 0;
    enum queue_result r;

    c->nread.it = NULL;
    c->nread.ext = false;
    c->noreply = c->nread.noreply;
    if (memcmp(item_value(it) + it->nbytes - 2, "\r\n", 2) != 0) {
        ext_reply(c, REPLY_BAD_CHUNK);
        item_release(it);
        return;
    }
    pin = store_queue_open(item_key(it), it->nkey, true, NULL, &st);
    if (pin == NULL) {
        ext_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE);
        item_release(it);
        return;
    }
    r = store_queue_push(pin, it, x->push_pri, x->push_due_ms, &id);
    item_release(pin);
    if (r != QUEUE_OK)
        item_release(it);
    if (r == QUEUE_OK && !c->noreply)
        ext_out_pushed(c, id);
    else if (r == QUEUE_NOMEM)
        ext_reply(c, REPLY_OOM_STORE);
    else if (r != QUEUE_OK)
        ext_reply(c, REPLY_NOT_STORED);
}

/* ---- qpop ---- */

struct ext_pop_args {
    int count;
    uint64_t lease_ms;
    bool has_lease;
    uint64_t wait_ms;
    bool has_ack;           /* ack=<receipt>: ack that delivery first */
    struct qreceipt ack;
};

static bool ext_pop_args(struct ext_tokens *t, struct ext_pop_args *a) {
    int i;

    memset(a, 0, sizeof(*a));
    a->count = 1;
    for (i = 2; i < t->n; i++) {
        const char *v;
        uint32_t n;
        if ((v = ext_option(t->v[i], "lease")) != NULL) {
            if (!ext_parse_ms(v, &a->lease_ms) || a->lease_ms == 0)
                return false;
            a->has_lease = true;
        } else if ((v = ext_option(t->v[i], "wait")) != NULL) {
            if (!ext_parse_ms(v, &a->wait_ms))
                return false;
        } else if ((v = ext_option(t->v[i], "ack")) != NULL) {
            if (!ext_parse_receipt(v, &a->ack))
                return false;
            a->has_ack = true;
        } else if (i == 2 && ext_parse_count(t->v[i], EXT_POP_MAX, &n) && n >= 1) {
            a->count = (int)n;
        } else {
            return false;
        }
    }
    return true;
}

/* qpop [ack=<id>]: with ack, the first line says whether that message was
 * acked (ACKED or NOT_FOUND), so a consumer confirms one message and
 * leases the next in one round trip. */
static void ext_qpop(conn *c, struct ext_tokens *t) {
    struct qdelivery got[EXT_POP_MAX];
    struct ext_pop_args a;
    enum store_status st;
    int n, i;
    item *pin;

    if (!ext_pop_args(t, &a)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, a.wait_ms > 0, a.has_ack ? REPLY_NOT_FOUND : REPLY_END, &st);
    if (pin == NULL) {
        if (a.has_ack && st == STORE_NOT_FOUND)
            conn_out_reply(c, REPLY_END);
        return;
    }
    if (a.has_ack)
        conn_out_reply(c, store_queue_ack(pin, &a.ack, false) == QUEUE_OK ? REPLY_ACKED : REPLY_NOT_FOUND);
    if (!a.has_lease)
        a.lease_ms = queue_options(store_queue_of(pin))->lease_ms;
    n = store_queue_pop(pin, a.count, a.lease_ms, got);
    if (n == 0 && a.wait_ms > 0) {
        ext_wait_start(c, pin, a.count, a.lease_ms, a.wait_ms, EXT_QPOP, t->v[1], t->len[1]);
        return;
    }
    for (i = 0; i < n; i++)
        ext_out_delivery(c, &got[i]);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
}

/* ---- ack, release, touch ---- */

static void ext_by_id(conn *c, struct ext_tokens *t) {
    char verb = t->v[0][1];     /* qAck, qRelease, qTouch */
    struct qreceipt rc;
    uint64_t ms = 0;
    bool has_ms = t->n > 3 && !ext_is_noreply(t, 3);
    enum queue_result r;
    int32_t delay = 0;
    item *pin;

    c->noreply = ext_is_noreply(t, t->n - 1);
    if (t->n < 3 || !ext_parse_receipt(t->v[2], &rc) || (verb == 'a' && has_ms) ||
        (t->n == 5 && !c->noreply) ||
        (has_ms && verb == 'r' && !parse_i32_exact(t->v[3], &delay)) ||
        (has_ms && verb == 't' && (!ext_parse_ms(t->v[3], &ms) || ms == 0))) {
        ext_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return;
    if (verb == 'a') {
        r = store_queue_ack(pin, &rc, false);
    } else if (verb == 'r') {
        r = store_queue_release(pin, &rc, false, ext_delay_ms(delay));
    } else {
        if (!has_ms)
            ms = queue_options(store_queue_of(pin))->lease_ms;
        r = store_queue_touch(pin, &rc, false, ms);
    }
    item_release(pin);
    if (r != QUEUE_OK)
        ext_reply(c, REPLY_NOT_FOUND);
    else
        ext_reply(c, verb == 'a' ? REPLY_ACKED : verb == 'r' ? REPLY_RELEASED : REPLY_TOUCHED);
}

/* ---- peek, pending, stats, purge ---- */

struct ext_list {
    conn *c;
    bool values;
    uint64_t now;
    uint32_t left;          /* qpending: most lines to write */
};

static void ext_peek_one(const struct qmsg *m, void *arg) {
    struct ext_list *l = arg;
    struct qdelivery d = { m->id, m->deliveries, 0, m->payload };

    item_incref(m->payload);
    ext_out_delivery(l->c, &d);
}

static void ext_pending_one(const struct qmsg *m, void *arg) {
    struct ext_list *l = arg;
    item *it = m->payload;
    char *p = conn_out_reserve(l->c, 112);
    long long left = m->due_ms == QUEUE_HELD ? -1
                     : (long long)(m->due_ms > l->now ? m->due_ms - l->now : 0);

    conn_out_commit(l->c, (size_t)sprintf(p, "PENDING %llu %u %u %u %lld\r\n",
                                          (unsigned long long)m->id, it->flags, it->nbytes - 2,
                                          m->deliveries, left));
    if (l->values) {
        item_incref(it);
        conn_out_item(l->c, it, item_value(it), it->nbytes);
    }
}

static void ext_qpeek(conn *c, struct ext_tokens *t) {
    struct ext_list l = { c, true, 0, 0 };
    uint32_t count = 1;
    item *pin;

    if (t->n > 3 || (t->n == 3 && (!ext_parse_count(t->v[2], EXT_POP_MAX, &count) || count == 0))) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, false, REPLY_END, NULL);
    if (pin == NULL)
        return;
    queue_peek(store_queue_of(pin), count, ext_peek_one, &l);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
}

/* "[values] [<count>]" of qpending. */
static bool ext_pending_args(struct ext_tokens *t, struct ext_list *l) {
    int i = 2;

    l->values = t->n > i && strcmp(t->v[i], "values") == 0;
    if (l->values)
        i++;
    l->left = EXT_PENDING_DEFAULT;
    if (t->n > i && (!ext_parse_count(t->v[i++], EXT_PENDING_MAX, &l->left) || l->left == 0))
        return false;
    return i == t->n;
}

static void ext_qpending(conn *c, struct ext_tokens *t) {
    struct ext_list l = { c, false, clock_now_ms(), 0 };
    item *pin;

    if (!ext_pending_args(t, &l)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, false, REPLY_END, NULL);
    if (pin == NULL)
        return;
    queue_pending(store_queue_of(pin), l.left, ext_pending_one, &l);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
}

static void ext_stat(conn *c, const char *name, uint64_t v) {
    char *p = conn_out_reserve(c, strlen(name) + 32);

    conn_out_commit(c, (size_t)sprintf(p, "STAT %s %llu\r\n", name, (unsigned long long)v));
}

static void ext_qstats(conn *c, struct ext_tokens *t) {
    const struct queue_opts *o;
    struct queue_stats st;
    item *pin;
    char *p;

    if (t->n != 2) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return;
    queue_get_stats(store_queue_of(pin), &st);
    o = queue_options(store_queue_of(pin));
    ext_stat(c, "ready", st.ready);
    ext_stat(c, "delayed", st.delayed);
    ext_stat(c, "in_flight", st.inflight);
    ext_stat(c, "buried", st.buried);
    ext_stat(c, "waiters", st.waiters);
    ext_stat(c, "pushed", st.pushed);
    ext_stat(c, "popped", st.popped);
    ext_stat(c, "acked", st.acked);
    ext_stat(c, "released", st.released);
    ext_stat(c, "lease_expired", st.expired);
    ext_stat(c, "dead", st.dead);
    ext_stat(c, "purged", st.purged);
    ext_stat(c, "age_oldest_ready", st.oldest_ready_ms / 1000);
    ext_stat(c, "lease_ms", o->lease_ms);
    ext_stat(c, "max_deliveries", o->max_deliveries);
    ext_stat(c, "max_length", o->max_length);
    p = conn_out_reserve(c, o->ndlq + 16);
    memcpy(p, "STAT dlq ", 9);
    memcpy(p + 9, o->dlq, o->ndlq);
    memcpy(p + 9 + o->ndlq, "\r\n", 2);
    conn_out_commit(c, o->ndlq + 11);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
}

static void ext_qpurge(conn *c, struct ext_tokens *t) {
    uint64_t n;
    item *pin;

    c->noreply = ext_is_noreply(t, t->n - 1);
    if (t->n > 2 + (c->noreply ? 1 : 0)) {
        ext_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    pin = ext_queue(c, t, false, REPLY_NOT_FOUND, NULL);
    if (pin == NULL)
        return;
    n = store_queue_purge(pin);
    item_release(pin);
    if (!c->noreply) {
        char *p = conn_out_reserve(c, 32);
        conn_out_commit(c, (size_t)sprintf(p, "PURGED %llu\r\n", (unsigned long long)n));
    }
}

/* ---- dispatch ---- */

static bool ext_is(const struct ext_tokens *t, const char *verb, int min, int max) {
    return strcmp(t->v[0], verb) == 0 && t->n >= min && t->n <= max;
}

enum conn_parse_result ext_dispatch(conn *c, char *line, size_t len) {
    struct ext_tokens t;

    ext_tokenize(line, len, &t);
    if (ext_is(&t, "qpush", 5, 7))
        ext_qpush(c, &t);
    else if (ext_is(&t, "qpop", 2, 6))
        ext_qpop(c, &t);
    else if (ext_is(&t, "qack", 3, 4) || ext_is(&t, "qrelease", 3, 5) || ext_is(&t, "qtouch", 3, 5))
        ext_by_id(c, &t);
    else if (ext_is(&t, "qcreate", 2, 6))
        ext_qcreate(c, &t);
    else if (ext_is(&t, "qpeek", 2, 3))
        ext_qpeek(c, &t);
    else if (ext_is(&t, "qpending", 2, 4))
        ext_qpending(c, &t);
    else if (ext_is(&t, "qstats", 2, 2))
        ext_qstats(c, &t);
    else if (ext_is(&t, "qpurge", 2, 3))
        ext_qpurge(c, &t);
    else
        conn_out_reply(c, REPLY_ERROR);
    return PARSE_DONE;
}

/* ---- Kestrel reads: get <queue>[/open][/close][/abort][/peek][/t=<ms>] ---- */

struct ext_kopts {
    bool open, close, abort, peek;
    uint64_t wait_ms;
};

static bool ext_kestrel_opts(const char *s, size_t n, struct ext_kopts *o) {
    memset(o, 0, sizeof(*o));
    while (n > 0) {
        const char *slash = memchr(s, '/', n);
        size_t len = slash != NULL ? (size_t)(slash - s) : n;
        char tok[32];
        if (len == 0 || len >= sizeof(tok))
            return false;
        memcpy(tok, s, len);
        tok[len] = '\0';
        if (strcmp(tok, "open") == 0)
            o->open = true;
        else if (strcmp(tok, "close") == 0)
            o->close = true;
        else if (strcmp(tok, "abort") == 0)
            o->abort = true;
        else if (strcmp(tok, "peek") == 0)
            o->peek = true;
        else if (strncmp(tok, "t=", 2) != 0 || !parse_u64(tok + 2, &o->wait_ms) ||
                 o->wait_ms > EXT_SECS_MAX * 1000)
            return false;
        s += len;
        n -= len;
        if (n > 0) {        /* skip the '/' */
            s++;
            n--;
        }
    }
    return true;
}

static void ext_peek_kestrel(const struct qmsg *m, void *arg) {
    item **out = arg;

    item_incref(m->payload);
    *out = m->payload;
}

/* Whether the connection's open read is on the queue named name. The
 * name is what identifies it: the queue object may have been deleted
 * (or flushed) and replaced since. */
static bool ext_open_on(const struct ext_conn *x, const char *name, size_t nname) {
    const item *q = x->open_pin;

    return q != NULL && q->nkey == nname && memcmp(item_key((item *)q), name, nname) == 0;
}

/* Ends the open read on the queue named name, if any: ack it (close) or
 * give it back (abort), on the queue object it came from. */
static void ext_kestrel_end_open(struct ext_conn *x, const char *name, size_t nname, bool ack) {
    struct qreceipt r = { x->open_id, 0 };

    if (!ext_open_on(x, name, nname))
        return;
    if (ack)
        store_queue_ack(x->open_pin, &r, true);
    else
        store_queue_release(x->open_pin, &r, true, 0);
    item_release(x->open_pin);
    x->open_pin = NULL;
}

/* Whether a queue is under name (looked at, nothing changed). */
static bool ext_is_queue(const char *name, size_t nname) {
    enum store_status st;
    item *pin = store_queue_open(name, nname, false, NULL, &st);

    if (pin == NULL)
        return false;
    item_release(pin);
    return true;
}

enum reply_id ext_kestrel_check(conn *c, const char *key, size_t nkey, bool single) {
    const struct ext_conn *x = c->ext;
    const char *slash = memchr(key, '/', nkey);
    bool open = x != NULL && x->open_pin != NULL;
    struct ext_kopts o;
    size_t nbase;

    if (slash == NULL || !ext_kestrel_opts(slash + 1, nkey - (size_t)(slash - key) - 1, &o)) {
        /* A plain read: refused only on the queue this connection has open. */
        if (open && ext_open_on(x, key, nkey) && ext_is_queue(key, nkey))
            return REPLY_KESTREL_READ_OPEN;
        return REPLY_COUNT;
    }
    nbase = (size_t)(slash - key);
    if (o.peek && (o.open || o.close || o.abort))
        return REPLY_KESTREL_PEEK_MIX;
    if (!(o.open || o.close || o.abort))
        return REPLY_COUNT;
    if (!(ext_is_queue(key, nbase) || (open && ext_open_on(x, key, nbase))))
        return REPLY_COUNT;     /* not a queue read: an ordinary key */
    if (!single)
        return REPLY_KESTREL_ALONE;
    /* /close and /abort end this connection's read on that queue first. */
    if (o.open && open && !((o.close || o.abort) && ext_open_on(x, key, nbase)))
        return REPLY_KESTREL_OPEN_TWICE;
    return REPLY_COUNT;
}

static enum ext_kestrel ext_kestrel_read(conn *c, const char *key, size_t nkey, item *pin,
                                         const struct ext_kopts *o, bool single, bool with_cas) {
    struct ext_conn *x = ext_state(c);
    struct ext_wait *w;
    struct qdelivery d;
    item *peeked = NULL;

    if (o->peek) {
        queue_peek(store_queue_of(pin), 1, ext_peek_kestrel, &peeked);
        if (peeked != NULL)
            ext_out_kestrel(c, key, nkey, peeked, with_cas);
        return KESTREL_DONE;
    }
    /* ext_kestrel_check refused these: one open read per connection. */
    if (x->open_pin != NULL && (o->open || ext_open_on(x, item_key(pin), pin->nkey)))
        return KESTREL_DONE;
    if (!o->open && (o->close || o->abort))
        return KESTREL_DONE;
    if (store_queue_pop(pin, 1, QUEUE_HELD, &d) == 1) {
        ext_out_kestrel(c, key, nkey, d.payload, with_cas);
        if (o->open) {
            item_incref(pin);
            x->open_pin = pin;
            x->open_id = d.id;
        } else {
            struct qreceipt r = { d.id, d.deliveries };
            store_queue_ack(pin, &r, true);
        }
        return KESTREL_DONE;
    }
    if (o->wait_ms == 0 || !single)
        return KESTREL_DONE;
    item_incref(pin);
    w = ext_wait_start(c, pin, 1, QUEUE_HELD, o->wait_ms, o->open ? EXT_KESTREL_OPEN : EXT_KESTREL_TAKE,
                       key, nkey);
    if (w != NULL)
        w->with_cas = with_cas;
    return KESTREL_WAIT;
}

enum ext_kestrel ext_kestrel_get(conn *c, const char *key, size_t nkey, item *q, bool single,
                                 bool with_cas) {
    struct ext_kopts o = { 0 };
    const char *slash = memchr(key, '/', nkey);
    enum store_status st;
    enum ext_kestrel r;
    item *pin = q;

    if (pin == NULL) {
        if (slash == NULL || !ext_kestrel_opts(slash + 1, nkey - (size_t)(slash - key) - 1, &o))
            return KESTREL_NOT_QUEUE;
        if (o.peek && (o.open || o.close || o.abort))
            return KESTREL_DONE;    /* refused by ext_kestrel_check */
        /* close and abort end the open read even if its queue is gone */
        if (o.close || o.abort)
            ext_kestrel_end_open(ext_state(c), key, (size_t)(slash - key), o.close);
        pin = store_queue_open(key, (size_t)(slash - key), false, NULL, &st);
        if (pin == NULL)
            return o.close || o.abort ? KESTREL_DONE : KESTREL_NOT_QUEUE;
    } else {
        item_incref(pin);
    }
    r = ext_kestrel_read(c, key, nkey, pin, &o, single, with_cas);
    item_release(pin);
    return r;
}
