/*
 * Redis protocol (RESP2): requests as arrays of bulk strings, replies by
 * their first byte (+ simple, - error, : integer, $ bulk, * array).
 *
 *   get      GET k                 $<n> data, or $-1 (a miss)
 *   mget     MGET k1 k2 ...        *<n> of bulks or $-1
 *   set      SET k v               +OK
 *   push     LPUSH q v             :<length>
 *   pop      LMOVE q q.proc.<c> RIGHT LEFT     $<n> data, or $-1 (empty)
 *            BLMOVE ... <wait> when blocking   (*-1 when the wait ends)
 *   ack      LREM q.proc.<c> 1 v   :1 (0 means it was not there: an error)
 *   take     RPOP q / BRPOP q <wait>           $<n> / *2 [q, v], or nil
 *
 * The pop and ack are Redis's reliable queue pattern: the message moves to
 * a processing list of its own connection (<c> is the connection's number)
 * and is removed from it by value once done, so a consumer that dies leaves
 * it there.  Values are skipped as they come; a popped message's first
 * bytes are kept, and the ack sends them back with the rest of the shared
 * value (every message is the shared value behind its 16-byte tag).
 */
#include <string.h>

#include "proto.h"

/* "$<len>\r\n<bytes>\r\n" */
static size_t resp_arg(char *dst, const char *p, size_t n)
{
    size_t k = 0;

    dst[k++] = '$';
    k += conn_fmt_u64(dst + k, n);
    memcpy(dst + k, "\r\n", 2);
    memcpy(dst + k + 2, p, n);
    memcpy(dst + k + 2 + n, "\r\n", 2);
    return k + n + 4;
}

static size_t resp_key(const struct conn *c, char *dst, uint64_t k)
{
    char key[CONN_KEY_MAX];

    return resp_arg(dst, key, conn_fmt_key(c, key, k));
}

/* The connection's processing list: PREFIX<q>.proc.<connection>. */
static size_t resp_proc_key(const struct conn *c, char *dst, uint64_t q)
{
    char key[CONN_KEY_MAX + 32];
    size_t n = conn_fmt_key(c, key, q);

    memcpy(key + n, ".proc.", 6);
    n += 6;
    n += conn_fmt_u64(key + n, (uint64_t)c->wl.global);
    return resp_arg(dst, key, n);
}

/* "*<n>\r\n" then the command's name as the first bulk. */
static size_t resp_cmd(char *dst, int nargs, const char *name)
{
    size_t k = 1;

    dst[0] = '*';
    k += conn_fmt_u64(dst + k, (uint64_t)nargs);
    memcpy(dst + k, "\r\n", 2);
    k += 2;
    return k + resp_arg(dst + k, name, strlen(name));
}

/* A value's bulk header; the value and its "\r\n" follow. */
static size_t resp_value_head(const struct conn *c, char *dst)
{
    size_t k = 1;

    dst[0] = '$';
    k += conn_fmt_u64(dst + k, c->sh->opts->value_size);
    memcpy(dst + k, "\r\n", 2);
    return k + 2;
}

static void resp_encode_mget(struct conn *c, const struct bench_op *op)
{
    char line[CONN_KEY_MAX + 32];
    int i;

    conn_out_bytes(c, line, resp_cmd(line, op->nkeys + 1, "MGET"));
    for (i = 0; i < op->nkeys; i++)
        conn_out_bytes(c, line, resp_key(c, line, op->keys[i]));
}

void resp_encode(struct conn *c, const struct bench_op *op)
{
    char line[3 * CONN_KEY_MAX + 160], tag[BENCH_TAG_LEN];
    const char *wait = c->wait_secs;
    size_t n;

    switch (op->kind) {
    case OP_GET:
        n = resp_cmd(line, 2, "GET");
        n += resp_key(c, line + n, op->keys[0]);
        conn_out_bytes(c, line, n);
        return;
    case OP_MGET:
        resp_encode_mget(c, op);
        return;
    case OP_SET:
        n = resp_cmd(line, 3, "SET");
        n += resp_key(c, line + n, op->keys[0]);
        n += resp_value_head(c, line + n);
        conn_out_bytes(c, line, n);
        conn_out_ref(c, c->sh->value, c->sh->opts->value_size);
        conn_out_bytes(c, "\r\n", 2);
        return;
    case OP_PUSH:
        n = resp_cmd(line, 3, "LPUSH");
        n += resp_key(c, line + n, op->keys[0]);
        n += resp_value_head(c, line + n);
        conn_out_bytes(c, line, n);
        bench_tag_put(tag, op->stamp);
        conn_out_message(c, tag);
        conn_out_bytes(c, "\r\n", 2);
        return;
    case OP_POP:
        n = resp_cmd(line, op->block ? 6 : 5, op->block ? "BLMOVE" : "LMOVE");
        n += resp_key(c, line + n, op->keys[0]);
        n += resp_proc_key(c, line + n, op->keys[0]);
        n += resp_arg(line + n, "RIGHT", 5);
        n += resp_arg(line + n, "LEFT", 4);
        if (op->block)
            n += resp_arg(line + n, wait, strlen(wait));
        conn_out_bytes(c, line, n);
        return;
    case OP_ACK:
        n = resp_cmd(line, 4, "LREM");
        n += resp_proc_key(c, line + n, op->keys[0]);
        n += resp_arg(line + n, "1", 1);
        n += resp_value_head(c, line + n);
        conn_out_bytes(c, line, n);
        conn_out_message(c, op->tag);
        conn_out_bytes(c, "\r\n", 2);
        return;
    case OP_TAKE:
        n = resp_cmd(line, op->block ? 3 : 2, op->block ? "BRPOP" : "RPOP");
        n += resp_key(c, line + n, op->keys[0]);
        if (op->block)
            n += resp_arg(line + n, wait, strlen(wait));
        conn_out_bytes(c, line, n);
        return;
    default:
        return;                          /* no preamble in this protocol */
    }
}

/* The integer after a reply's type byte. */
static int resp_int(const char *p, size_t n, int64_t *out)
{
    int64_t v = 0;
    size_t i = 0;
    int neg = 0;

    if (n > 0 && p[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n || n - i > 18)
        return -1;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* A reply of a kind the request does not get: counted now, and the request
 * ends as failed (its data, if any, is still skipped). */
static void resp_unexpected(struct conn *c)
{
    if (!c->cur_error) {
        c->st->errors++;
        c->cur_error = 1;
    }
}

/* One element of an array reply (MGET, BRPOP). */
static int resp_element(struct conn *c, const char *line, size_t len,
                        uint64_t now)
{
    uint8_t kind = c->pend[c->pend_head].kind;
    int64_t n;
    int last;

    c->resp_left--;
    last = c->resp_left == 0;
    if (line[0] != '$') {
        if (line[0] != '-' && line[0] != ':' && line[0] != '+')
            return -1;                   /* nested arrays are never asked for */
        resp_unexpected(c);
    } else {
        if (resp_int(line + 1, len - 1, &n) < 0)
            return -1;
        if (n >= 0) {                    /* BRPOP's first element is the key */
            conn_expect_value(c, (uint64_t)n, last, kind != OP_TAKE || last);
            return 0;
        }
    }
    if (last)
        conn_finish(c, 0, now);
    return 0;
}

int resp_reply_line(struct conn *c, const char *line, size_t len, uint64_t now)
{
    uint8_t kind = c->pend[c->pend_head].kind;
    int64_t n;

    if (len == 0)
        return -1;
    if (c->resp_array)
        return resp_element(c, line, len, now);
    if (line[0] == '+') {
        conn_finish(c, kind != OP_SET || !conn_line_is(line, len, "+OK"), now);
        return 0;
    }
    if (line[0] == '-') {
        conn_finish(c, 1, now);
        return 0;
    }
    if (line[0] != ':' && line[0] != '$' && line[0] != '*')
        return -1;
    if (resp_int(line + 1, len - 1, &n) < 0)
        return -1;
    switch (line[0]) {
    case ':':
        conn_finish(c, !((kind == OP_PUSH && n >= 1) || (kind == OP_ACK && n == 1)),
                    now);
        return 0;
    case '$':
        if (kind != OP_GET && kind != OP_POP && kind != OP_TAKE)
            resp_unexpected(c);
        if (n < 0)
            conn_finish(c, 0, now);      /* nil: a miss, an empty queue */
        else
            conn_expect_value(c, (uint64_t)n, 1, 1);
        return 0;
    default:                             /* '*' */
        if (n <= 0) {                    /* *-1: a blocking pop's wait ended */
            conn_finish(c, !(kind == OP_POP || kind == OP_TAKE ||
                             (kind == OP_MGET && n == 0)), now);
            return 0;
        }
        if (kind != OP_MGET && !(kind == OP_TAKE && n == 2))
            resp_unexpected(c);
        c->resp_array = 1;
        c->resp_left = (int)(n > 1000000 ? 1000000 : n);
        return 0;
    }
}
