/*
 * kestrel: queues through plain get and set, Kestrel's dialect:
 * get <queue>[/open][/close][/abort][/peek][/t=<ms>]. A plain get takes the
 * next message for good; /open leases it to the connection until /close
 * (ack) or /abort (give back), or until the connection closes. The one
 * open read of a connection is known by its queue's name.
 */
#include <stdio.h>
#include <string.h>

#include "proto/cmd.h"
#include "verbs/kestrel.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "repl/repl.h"
#include "verbs/queue_park.h"
#include "store/store_queue.h"

static void kestrel_conn_closed(conn *c) {
    if (c->open_pin != NULL) {
        struct qreceipt r = { c->open_id, 0 };
        store_queue_release(c->open_pin, &r, true, 0);
        item_release(c->open_pin);
        c->open_pin = NULL;
    }
}

void kestrel_opened(conn *c, item *pin, uint64_t id) {
    item_incref(pin);
    c->open_pin = pin;
    c->open_id = id;
}

/* Kestrel's answer: "VALUE <key as asked> <flags> <bytes>[ 0]\r\n<data>\r\n"
 * (gets asks for a CAS field; a queue message has none to offer: 0). */
void kestrel_out_value(conn *c, const char *key, size_t nkey, item *it, bool with_cas) {
    char *p = conn_out_reserve(c, nkey + 48);
    size_t n = 6;

    memcpy(p, "VALUE ", 6);
    memcpy(p + n, key, nkey);
    n += nkey;
    n += (size_t)sprintf(p + n, " %u %u%s\r\n", item_flags(it), it->nbytes - 2, with_cas ? " 0" : "");
    conn_out_commit(c, n);
    conn_out_item(c, it, item_value(it), it->nbytes);
}

struct kestrel_opts {
    bool open, close, abort, peek;
    uint64_t wait_ms;
};

static bool kestrel_parse_opts(const char *s, size_t n, struct kestrel_opts *o) {
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
                 o->wait_ms > CMD_SECS_MAX * 1000)
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

static void kestrel_peek_one(const struct qmsg *m, void *arg) {
    item **out = arg;

    item_incref(m->payload);
    *out = m->payload;
}

/* Whether the connection's open read is on the queue named name. The
 * name is what identifies it: the queue object may have been deleted
 * (or flushed) and replaced since. */
static bool kestrel_open_on(const conn *c, const char *name, size_t nname) {
    const item *q = c->open_pin;

    return q != NULL && q->nkey == nname && memcmp(item_key((item *)q), name, nname) == 0;
}

/* Ends the open read on the queue named name, if any: ack it (close) or
 * give it back (abort), on the queue object it came from. */
static void kestrel_end_open(conn *c, const char *name, size_t nname, bool ack) {
    struct qreceipt r = { c->open_id, 0 };

    if (!kestrel_open_on(c, name, nname))
        return;
    if (ack)
        store_queue_ack(c->open_pin, &r, true);
    else
        store_queue_release(c->open_pin, &r, true, 0);
    item_release(c->open_pin);
    c->open_pin = NULL;
}

/* Whether a queue is under name (looked at, nothing changed). */
static bool kestrel_is_queue(const char *name, size_t nname) {
    enum store_status st;
    item *pin = store_queue_open(name, nname, false, NULL, &st);

    if (pin == NULL)
        return false;
    item_release(pin);
    return true;
}

enum reply_id kestrel_check(conn *c, const char *key, size_t nkey, bool single) {
    const char *slash = memchr(key, '/', nkey);
    bool open = c->open_pin != NULL;
    struct kestrel_opts o;
    size_t nbase;

    if (slash == NULL || !kestrel_parse_opts(slash + 1, nkey - (size_t)(slash - key) - 1, &o)) {
        /* A plain read: refused only on the queue this connection has open,
         * or (it takes a message) while the log cannot be written. */
        if (open && kestrel_open_on(c, key, nkey) && kestrel_is_queue(key, nkey))
            return REPLY_KESTREL_READ_OPEN;
        if (!persist_writable() && kestrel_is_queue(key, nkey))
            return REPLY_LOG_FAILED;
        if (repl_is_replica() && kestrel_is_queue(key, nkey))
            return REPLY_READ_ONLY;     /* it would take a message */
        return REPLY_COUNT;
    }
    nbase = (size_t)(slash - key);
    if (o.peek && (o.open || o.close || o.abort))
        return REPLY_KESTREL_PEEK_MIX;
    if (!o.peek && !persist_writable() && (kestrel_is_queue(key, nbase) || (open && kestrel_open_on(c, key, nbase))))
        return REPLY_LOG_FAILED;
    if (!o.peek && repl_is_replica() && kestrel_is_queue(key, nbase))
        return REPLY_READ_ONLY;
    if (!(o.open || o.close || o.abort))
        return REPLY_COUNT;
    if (!(kestrel_is_queue(key, nbase) || (open && kestrel_open_on(c, key, nbase))))
        return REPLY_COUNT;     /* not a queue read: an ordinary key */
    if (!single)
        return REPLY_KESTREL_ALONE;
    /* /close and /abort end this connection's read on that queue first. */
    if (o.open && open && !((o.close || o.abort) && kestrel_open_on(c, key, nbase)))
        return REPLY_KESTREL_OPEN_TWICE;
    return REPLY_COUNT;
}

static enum get_queue_result kestrel_read(conn *c, const char *key, size_t nkey, item *pin,
                                         const struct kestrel_opts *o, bool single, bool with_cas) {
    struct qdelivery d;
    item *peeked = NULL;

    if (o->peek) {
        queue_peek(store_queue_of(pin), 1, kestrel_peek_one, &peeked);
        if (peeked != NULL)
            kestrel_out_value(c, key, nkey, peeked, with_cas);
        return GETQ_DONE;
    }
    /* kestrel_check refused these: one open read per connection. */
    if (c->open_pin != NULL && (o->open || kestrel_open_on(c, item_key(pin), pin->nkey)))
        return GETQ_DONE;
    if (!o->open && (o->close || o->abort))
        return GETQ_DONE;
    if (store_queue_pop(pin, 1, QUEUE_HELD, c->name_token, &d) == 1) {
        kestrel_out_value(c, key, nkey, d.payload, with_cas);
        if (o->open) {
            item_incref(pin);
            c->open_pin = pin;
            c->open_id = d.id;
        } else {
            struct qreceipt r = { d.id, d.deliveries };
            store_queue_ack(pin, &r, true);
        }
        return GETQ_DONE;
    }
    if (o->wait_ms == 0 || !single)
        return GETQ_DONE;
    item_incref(pin);
    qpark_start(c, pin, 1, QUEUE_HELD, o->wait_ms, o->open ? QPARK_KESTREL_OPEN : QPARK_KESTREL_TAKE,
                key, nkey, with_cas);
    return GETQ_WAIT;
}

enum get_queue_result kestrel_get(conn *c, const char *key, size_t nkey, item *q, bool single,
                                  bool with_cas) {
    struct kestrel_opts o = { 0 };
    const char *slash = memchr(key, '/', nkey);
    enum store_status st;
    enum get_queue_result r;
    item *pin = q;

    if (pin == NULL) {
        if (slash == NULL || !kestrel_parse_opts(slash + 1, nkey - (size_t)(slash - key) - 1, &o))
            return GETQ_NOT_QUEUE;
        if (o.peek && (o.open || o.close || o.abort))
            return GETQ_DONE;    /* refused by kestrel_check */
        /* close and abort end the open read even if its queue is gone */
        if (o.close || o.abort)
            kestrel_end_open(c, key, (size_t)(slash - key), o.close);
        pin = store_queue_open(key, (size_t)(slash - key), false, NULL, &st);
        if (pin == NULL)
            return o.close || o.abort ? GETQ_DONE : GETQ_NOT_QUEUE;
    } else {
        item_incref(pin);
    }
    r = kestrel_read(c, key, nkey, pin, &o, single, with_cas);
    item_release(pin);
    return r;
}

static const struct get_queue_reads kestrel_reads = { kestrel_check, kestrel_get };

void kestrel_init(void) {
    get_set_queue_reads(&kestrel_reads);
}

const struct conn_hooks kestrel_conn_hooks = { "kestrel", kestrel_conn_closed, NULL };
