/*
 * verb_queue_batch: qack, qrelease and qtouch with several receipts in one
 * request line.
 *
 *   qack <q> <id>[:<n>] [<id>[:<n>] ...] [noreply]
 *   qrelease <q> <id>[:<n>] ... [delay=<delay>] [noreply]
 *   qtouch <q> <id>[:<n>] ... [lease=<secs>] [noreply]
 *
 * The single-receipt forms of before (`qrelease <q> <id> <delay>`, one
 * reply line) go on to verb_queue.c unchanged. A batch answers one line
 * per receipt, in order; a bad token anywhere refuses the whole line
 * before anything is changed.
 */
#include <string.h>

#include "proto/cmd.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "store/store_queue.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_batch.h"

/* The verb, the queue, the receipts, one option and noreply. */
#define QBATCH_TOKENS (QBATCH_MAX + 4)

struct qbatch {
    int verb;                       /* QVERB_ACK, _RELEASE or _TOUCH */
    struct qreceipt rc[QBATCH_MAX];
    int n;
    bool has_ms;                    /* delay= or lease= was given */
    uint64_t ms;                    /* release delay or touch lease */
};

/* Whether the line's last token is "noreply" (read before tokenizing, so
 * that a line with too many tokens is silenced too). */
static bool qbatch_ends_noreply(const char *line, size_t len) {
    while (len > 0 && line[len - 1] == ' ')
        len--;
    return len >= 8 && memcmp(line + len - 8, " noreply", 8) == 0;
}

/* delay= (qrelease) or lease= (qtouch) into b, at most once; false (the
 * reply made) for a bad or repeated value, or any other option. */
static bool qbatch_option(conn *c, struct qbatch *b, const char *tok) {
    const char *name = b->verb == QVERB_RELEASE ? "delay" : "lease";
    const char *v = b->verb != QVERB_ACK ? cmd_option(tok, name) : NULL;
    int32_t delay;
    bool ok;

    if (v == NULL) {
        cmd_unknown_option(c, tok);
        return false;
    }
    if (b->verb == QVERB_TOUCH) {
        ok = cmd_parse_ms(v, &b->ms) && b->ms > 0;
    } else {
        ok = parse_i32_exact(v, &delay);
        if (ok)
            b->ms = qverb_delay_ms(delay);
    }
    ok = ok && !b->has_ms;
    b->has_ms = true;
    if (!ok)
        cmd_bad_value(c, name);
    return ok;
}

/* Whether the tokens are the single-receipt form verb_queue.c serves: one
 * receipt, or for qrelease/qtouch one receipt and a bare number. */
static bool qbatch_is_single(int verb, char **v, int n) {
    int i, bare = 0;

    for (i = 2; i < n; i++)
        if (strchr(v[i], '=') == NULL)
            bare++;
    return bare == n - 2 && (bare == 1 || (bare == 2 && verb != QVERB_ACK));
}

/* v[2..n) (noreply left out) into b; false (the reply made) when a token
 * is wrong: nothing is done then. */
static bool qbatch_parse(conn *c, struct qbatch *b, char **v, int n) {
    int i, receipts = 0;

    for (i = 2; i < n; i++)
        if (strchr(v[i], '=') == NULL)
            receipts++;
    if (receipts > QBATCH_MAX || receipts == 0) {
        cmd_reply(c, receipts == 0 ? REPLY_X_BAD_ID : REPLY_TOO_MANY_IDS);
        return false;
    }
    for (i = 2; i < n; i++) {
        if (strchr(v[i], '=') != NULL) {
            if (!qbatch_option(c, b, v[i]))
                return false;
        } else if (!qverb_parse_receipt(v[i], &b->rc[b->n++])) {
            cmd_reply(c, strcmp(v[i], "noreply") == 0 ? REPLY_X_NOREPLY_LAST : REPLY_X_BAD_ID);
            return false;
        } else if (!qverb_receipt_allowed(&b->rc[b->n - 1])) {
            cmd_reply(c, REPLY_X_RECEIPT_REQUIRED);
            return false;
        }
    }
    return true;
}

static enum queue_result qbatch_one(struct qbatch *b, item *pin, const struct qreceipt *rc) {
    if (b->verb == QVERB_ACK)
        return store_queue_ack(pin, rc, false);
    if (b->verb == QVERB_RELEASE)
        return store_queue_release(pin, rc, false, b->has_ms ? b->ms : 0);
    return store_queue_touch(pin, rc, false,
                             b->has_ms ? b->ms : queue_options(store_queue_of(pin))->lease_ms);
}

/* Runs every receipt on the queue (NOT_FOUND for each if it is missing). */
static void qbatch_apply(conn *c, struct qbatch *b, const char *key, size_t nkey) {
    static const enum reply_id done[] = {
        [QVERB_ACK] = REPLY_ACKED, [QVERB_RELEASE] = REPLY_RELEASED, [QVERB_TOUCH] = REPLY_TOUCHED,
    };
    enum store_status st = STORE_EXISTS;
    item *pin = store_queue_open(key, nkey, false, NULL, &st);
    int i;

    if (pin == NULL && st != STORE_NOT_FOUND) {
        cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE);
        return;
    }
    for (i = 0; i < b->n; i++) {
        bool ok = pin != NULL && qbatch_one(b, pin, &b->rc[i]) == QUEUE_OK;
        cmd_reply(c, ok ? done[b->verb] : REPLY_NOT_FOUND);
    }
    if (pin != NULL)
        item_release(pin);
}

enum conn_parse_result qbatch_run(conn *c, struct cmd_line *l) {
    char *v[QBATCH_TOKENS];
    size_t vlen[QBATCH_TOKENS];
    struct qbatch b = { .verb = l->arg };
    struct cmd_line one;
    int n;

    c->noreply = qbatch_ends_noreply(l->line, l->len);
    n = parse_tokenize(l->line, l->len, v, vlen, QBATCH_TOKENS);
    if (n < 3) {
        c->noreply = false;
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (n > QBATCH_TOKENS) {
        cmd_reply(c, REPLY_TOO_MANY_IDS);
        return PARSE_DONE;
    }
    if (c->noreply)
        n--;
    if (n < 3 || vlen[1] > ITEM_KEY_MAX) {
        cmd_reply(c, n < 3 ? REPLY_X_BAD_ID : REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    if (qbatch_is_single(b.verb, v, n)) {
        one = *l;
        one.n = n + (c->noreply ? 1 : 0);
        memcpy(one.v, v, sizeof(one.v[0]) * (size_t)one.n);
        memcpy(one.vlen, vlen, sizeof(one.vlen[0]) * (size_t)one.n);
        return qverb_by_id(c, &one);
    }
    if (!qbatch_parse(c, &b, v, n))
        return PARSE_DONE;
    if (!persist_writable()) {
        cmd_reply(c, REPLY_LOG_FAILED);
        return PARSE_DONE;
    }
    qbatch_apply(c, &b, v[1], vlen[1]);
    return PARSE_DONE;
}
