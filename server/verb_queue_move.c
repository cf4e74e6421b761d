/*
 * verb_queue_move: moving messages back where they can be delivered.
 *
 *   qredrive <dlq> [<count>] [noreply]   -> REDRIVEN <moved> <left>
 *   qkick <queue> [<count>] [noreply]    -> KICKED <n>
 *
 * qredrive sends a dead-letter queue's ready messages back to the queue
 * each came from (beanstalkd's kick, SQS's redrive); qkick makes a
 * queue's buried messages (those its dead-letter queue could not take)
 * ready again in the queue itself. Both take at most QUEUE_MOVE_MAX
 * messages a request and work in batches (types/queue_move.c).
 */
#include <stdio.h>

#include "store_queue.h"
#include "verb_queue_move.h"

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
