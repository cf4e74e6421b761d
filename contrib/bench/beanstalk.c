/*
 * beanstalkd protocol: text lines, a job's body as a counted data block.
 *
 *   setup  use <tube> / watch <tube> / ignore default
 *                                     USING <tube> / WATCHING <n>
 *   push   put 1024 0 30 <n> + data   INSERTED <id>
 *   pop    reserve-with-timeout <s>   RESERVED <id> <n> + data, or TIMED_OUT
 *          (0 s, or --pop-wait rounded up to whole seconds when blocking)
 *   ack    delete <id>                DELETED
 *
 * A connection's queue is its tube, PREFIX<q>: the three setup lines go
 * first, once.  Priority 1024 is mcds's default; a time-to-run of 30 s is
 * mcds's default lease.  A job's body is skipped as it comes, keeping its
 * first bytes (its push time).
 */
#include <string.h>

#include "proto.h"

static size_t bs_word_key(const struct conn *c, char *dst, const char *word,
                          uint64_t q)
{
    size_t n = strlen(word);

    memcpy(dst, word, n);
    return n + conn_fmt_key(c, dst + n, q);
}

void bs_encode(struct conn *c, const struct bench_op *op)
{
    char line[CONN_KEY_MAX + 64];
    size_t n = 0;

    switch (op->kind) {
    case OP_SETUP:
        if (op->step == 0)
            n = bs_word_key(c, line, "use ", op->keys[0]);
        else if (op->step == 1)
            n = bs_word_key(c, line, "watch ", op->keys[0]);
        else {
            memcpy(line, "ignore default", 14);
            n = 14;
        }
        break;
    case OP_PUSH:
        memcpy(line, "put 1024 0 30 ", 14);
        n = 14 + conn_fmt_u64(line + 14, c->sh->opts->value_size);
        memcpy(line + n, "\r\n", 2);
        conn_out_bytes(c, line, n + 2);
        bench_tag_put(line, op->stamp);
        conn_out_message(c, line);
        conn_out_bytes(c, "\r\n", 2);
        return;
    case OP_POP:
        memcpy(line, "reserve-with-timeout ", 21);
        n = 21;
        if (op->block) {
            memcpy(line + n, c->wait_whole, strlen(c->wait_whole));
            n += strlen(c->wait_whole);
        } else {
            line[n++] = '0';
        }
        break;
    case OP_ACK:
        memcpy(line, "delete ", 7);
        n = 7 + conn_fmt_u64(line + 7, op->id);
        break;
    default:
        return;                          /* no get/set/take in beanstalkd */
    }
    memcpy(line + n, "\r\n", 2);
    conn_out_bytes(c, line, n + 2);
}

int bs_reply_line(struct conn *c, const char *line, size_t len, uint64_t now)
{
    uint64_t size;

    switch (c->pend[c->pend_head].kind) {
    case OP_SETUP:
        conn_finish(c, !conn_line_is(line, len, "USING") &&
                       !conn_line_is(line, len, "WATCHING"), now);
        return 0;
    case OP_PUSH:
        conn_finish(c, !conn_line_is(line, len, "INSERTED"), now);
        return 0;
    case OP_POP:
        if (conn_line_is(line, len, "RESERVED")) {
            if (conn_token_u64(line, len, 1, &c->cur_id) < 0 ||
                conn_token_u64(line, len, 2, &size) < 0)
                return -1;
            conn_expect_value(c, size, 1, 1);
            return 0;
        }
        /* DEADLINE_SOON: a job of ours is near its time-to-run; no job. */
        conn_finish(c, !conn_line_is(line, len, "TIMED_OUT") &&
                       !conn_line_is(line, len, "DEADLINE_SOON"), now);
        return 0;
    case OP_ACK:
        conn_finish(c, !conn_line_is(line, len, "DELETED"), now);
        return 0;
    default:
        return -1;
    }
}
