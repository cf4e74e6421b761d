/*
 * verb_list: the list verbs, as entries of the command table.
 *
 *   lcreate <key> [maxlen=<n>]
 *   lpush|rpush <key> <bytes> [<bytes> ...] [noreply]   + a data block each
 *   lpop|rpop <key> [<count>] [wait=<s>]
 *   llen <key>   lrange <key> <offset> <limit>   lindex <key> <index>
 *   lset <key> <index> <bytes> [noreply]                + data block
 *   linsert <key> before|after <pivot bytes> <bytes> [noreply] + pivot, value
 *   ltrim <key> <offset> <limit> [noreply]
 *   lrem <key> <count> <bytes> [noreply]                + data block
 *   lexists <key> <bytes>                                + data block
 *   lpushx|rpushx <key> <bytes> [<bytes> ...] [noreply]  (an existing list only)
 *   lpos <key> <bytes> [rank=<n>] [count=<n>] [maxlen=<n>] + data block
 *
 * The data blocks of one command are read into one buffer, with the
 * parsed request in front of them, and checked block by block once read.
 * Elements go out as `VALUE <key> 0 <bytes>` lines and `END`. A blocking
 * pop parks its connection (list_park.c). As in memcached, noreply
 * silences every reply of a command, errors included. Every change to a
 * list goes through store_list.
 */
#include <stdio.h>
#include <string.h>

#include "proto/cmd.h"
#include "verbs/list_park.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store_list.h"
#include "verbs/verb_list.h"

#define LVERB_TOKENS (LVERB_VALUES_MAX + 3)

/* A command with data blocks, kept in front of them while they are read. */
struct lverb_req {
    int verb;
    int nvals;
    int64_t num;                /* lset: index; lrem: count */
    bool after;                 /* linsert */
    int64_t rank;               /* lpos */
    uint64_t maxlen;            /* lpos; 0: every element */
    uint32_t count;             /* lpos: most positions; 0: up to LVERB_COUNT_MAX */
    bool counted;               /* lpos: count= given (else one position) */
    uint32_t len[LVERB_VALUES_MAX];
};

/* ---- parsing ---- */

/* The list under a command's key, pinned; replies and returns NULL when
 * there is none (missing), the key holds something else, or is too long. */
item *lverb_list(conn *c, const char *key, size_t nkey, bool create, enum reply_id missing) {
    enum store_status st = STORE_EXISTS;
    item *pin = NULL;

    if (nkey > ITEM_KEY_MAX)
        cmd_reply(c, REPLY_X_KEY_TOO_LONG);
    else if ((pin = store_list_open(key, nkey, create, NULL, &st)) == NULL)
        cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE
                     : st == STORE_NO_MEMORY ? REPLY_OOM_STORE : missing);
    return pin;
}

static void lverb_result(conn *c, enum list_result r, uint64_t n) {
    switch (r) {
    case LIST_OK:
        if (!c->noreply)
            cmd_number_line(c, n);
        break;
    case LIST_NOT_FOUND:
        cmd_reply(c, REPLY_NOT_FOUND);
        break;
    case LIST_NOMEM:
        stats_incr(STATS_STORE_NO_MEMORY);
        cmd_reply(c, REPLY_OOM_STORE);
        break;
    default:                    /* full, or deleted meanwhile */
        cmd_reply(c, REPLY_NOT_STORED);
        break;
    }
}

/* ---- elements out ---- */

size_t lverb_value_head(char *buf, const char *key, size_t nkey, size_t n) {
    memcpy(buf, "VALUE ", 6);
    memcpy(buf + 6, key, nkey);
    return 6 + nkey + (size_t)sprintf(buf + 6 + nkey, " 0 %zu\r\n", n);
}

void lverb_out_value(conn *c, const char *key, size_t nkey, const char *p, size_t n) {
    char *h = conn_out_reserve(c, LVERB_HEAD_MAX);
    size_t k;

    conn_out_commit(c, lverb_value_head(h, key, nkey, n));
    for (; n > 0; p += k, n -= k) {
        k = n < 16384 ? n : 16384;
        conn_out(c, p, k);
    }
    conn_out(c, "\r\n", 2);
}

/* Writes one element; stops a long answer at the output limit, and at
 * once when the connection could not buffer it (it is being closed: a
 * pop must not take elements nobody will receive). */
bool lverb_out_one(const char *p, size_t n, void *arg) {
    struct lverb_out *o = arg;

    lverb_out_value(o->c, o->key, o->nkey, p, n);
    return !o->c->broken && o->c->out_bytes < settings.conn_output_max;
}

/* ---- lcreate ---- */

enum conn_parse_result lverb_create(conn *c, struct cmd_line *t) {
    struct list_opts o = { 0 };
    enum store_status st;
    const char *v;
    item *pin;

    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    if (t->n == 3 && (v = cmd_option(t->v[2], "maxlen")) == NULL) {
        cmd_unknown_option(c, t->v[2]);
        return PARSE_DONE;
    }
    if (t->n == 3 && !parse_u64_digits(v, &o.max_len)) {
        cmd_bad_value(c, "maxlen");
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = store_list_open(t->v[1], t->vlen[1], true, &o, &st);
    if (pin != NULL)
        item_release(pin);
    cmd_created_reply(c, st, REPLY_OOM_STORE);
    return PARSE_DONE;
}

/* ---- commands with data blocks ---- */

static void lverb_data_done(conn *c);

/* Starts reading the blocks of r (lengths in r->len) for key, after
 * r itself. A refused command skips its blocks. */
static void lverb_read_blocks(conn *c, const char *key, size_t nkey, struct lverb_req *r) {
    size_t total = 0, i;
    enum store_status st = STORE_TOO_LARGE;
    item *it = NULL;

    for (i = 0; i < (size_t)r->nvals; i++)
        total += (size_t)r->len[i] + 2;
    if (!persist_writable() && r->verb != LVERB_EXISTS && r->verb != LVERB_POS) {
        cmd_reply(c, REPLY_LOG_FAILED);
        conn_start_swallow(c, total);
        return;
    }
    if (total - 2 * (size_t)r->nvals <= settings.item_size_max)
        it = store_alloc_sized(key, nkey, 0, 0, sizeof(*r) + total, &st);
    if (it == NULL) {
        stats_incr(st == STORE_TOO_LARGE ? STATS_STORE_TOO_LARGE : STATS_STORE_NO_MEMORY);
        cmd_reply(c, st == STORE_TOO_LARGE ? REPLY_TOO_LARGE : REPLY_OOM_STORE);
        conn_start_swallow(c, total);
        return;
    }
    memcpy(item_value(it), r, sizeof(*r));
    conn_start_nread(c, it, STORE_SET, 0, c->noreply);
    c->nread.done = sizeof(*r);
    c->nread.finish = lverb_data_done;
}

/* Lengths of tokens [from, to) into r: REPLY_OK, or what is wrong. */
static enum reply_id lverb_lengths(char **v, int from, int to, struct lverb_req *r) {
    int i;

    r->nvals = 0;
    for (i = from; i < to; i++)
        if (!cmd_parse_count(v[i], INT32_MAX - 2, &r->len[r->nvals++]))
            return strcmp(v[i], "noreply") == 0 ? REPLY_X_NOREPLY_LAST : REPLY_X_BAD_LENGTH;
    return r->nvals > 0 ? REPLY_OK : REPLY_X_BAD_LENGTH;
}

/* What a refused command's data blocks take, "\r\n" each: its tokens from
 * p (its first length) to end, split on spaces or the NULs tokenizing left,
 * read as want lengths (0: every token, a push's). A noreply where a length
 * belongs is passed over; any other token there means the blocks cannot
 * be told (false). Past the lengths, and for a push past a noreply, other
 * tokens are ignored. */
static bool lverb_skip_total(const char *p, const char *end, int want, size_t *total) {
    bool past_noreply = false;
    int got = 0;
    char tok[16];
    uint32_t len;

    *total = 0;
    while (p < end && (want == 0 || got < want)) {
        size_t n = 0;

        while (p < end && (*p == ' ' || *p == '\0'))
            p++;
        while (p + n < end && p[n] != ' ' && p[n] != '\0')
            n++;
        if (n == 0)
            break;
        memcpy(tok, p, n < sizeof(tok) ? n : sizeof(tok) - 1);
        tok[n < sizeof(tok) ? n : sizeof(tok) - 1] = '\0';
        if (n < sizeof(tok) && cmd_parse_count(tok, INT32_MAX - 2, &len)) {
            *total += (size_t)len + 2;
            got++;
        } else if (n == 7 && memcmp(p, "noreply", 7) == 0) {
            past_noreply = true;
        } else if (want != 0 || !past_noreply) {
            return false;
        }
        p += n;
    }
    return got > 0 && (want == 0 || got == want);
}

/* A refused command (why: the reply) skips its data blocks when its want
 * lengths, from token first to end, can be told (lverb_skip_total); when
 * they cannot, the reply is the connection's last (cmd_refuse_unframed),
 * so no block is ever read as a command. */
static enum conn_parse_result lverb_refuse(conn *c, const char *first, const char *end, int want,
                                           enum reply_id why) {
    size_t total;

    if (!lverb_skip_total(first, end, want, &total))
        return cmd_refuse_unframed(c, why);
    cmd_reply(c, why);
    conn_start_swallow(c, total);
    return PARSE_DONE;
}

/* lpush, rpush: tokenized here (more tokens than the table allows). */
enum conn_parse_result lverb_push(conn *c, struct cmd_line *l) {
    char *v[LVERB_TOKENS];
    size_t vlen[LVERB_TOKENS];
    struct lverb_req r = { .verb = l->arg };
    int n = parse_tokenize(l->line, l->len, v, vlen, LVERB_TOKENS);
    enum reply_id bad;

    c->noreply = n >= 3 && n <= LVERB_TOKENS && strcmp(v[n - 1], "noreply") == 0;
    if (n < 3) {
        c->noreply = false;
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (n > LVERB_TOKENS || n - (c->noreply ? 1 : 0) > LVERB_VALUES_MAX + 2) {
        c->noreply = false;     /* more than 64 values */
        return lverb_refuse(c, v[2], l->line + l->len, 0, REPLY_ERROR);
    }
    bad = lverb_lengths(v, 2, n - (c->noreply ? 1 : 0), &r);
    if (bad != REPLY_OK || vlen[1] > ITEM_KEY_MAX)
        return lverb_refuse(c, v[2], l->line + l->len, 0, vlen[1] > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG : bad);
    lverb_read_blocks(c, v[1], vlen[1], &r);
    return PARSE_DONE;
}

/* lset <key> <index> <bytes> [noreply], lrem <key> <count> <bytes>
 * [noreply] (arg: which). */
enum conn_parse_result lverb_num_block(conn *c, struct cmd_line *t) {
    struct lverb_req r = { .verb = t->arg };
    enum reply_id bad, len;

    c->noreply = t->n > 4 && cmd_is_noreply(t, t->n - 1);
    len = lverb_lengths(t->v, 3, 4, &r);
    bad = t->vlen[1] > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG
          : !parse_i64_digits(t->v[2], &r.num) ? (t->arg == LVERB_SET ? REPLY_X_BAD_INDEX : REPLY_X_BAD_COUNT)
          : len != REPLY_OK ? len
          : t->n - (c->noreply ? 1 : 0) > 4 ? cmd_extra_tokens(t, 4) : REPLY_OK;
    if (bad != REPLY_OK)
        return lverb_refuse(c, t->v[3], t->line + t->len, 1, bad);
    lverb_read_blocks(c, t->v[1], t->vlen[1], &r);
    return PARSE_DONE;
}

/* linsert <key> before|after <pivot bytes> <bytes> [noreply] */
enum conn_parse_result lverb_insert(conn *c, struct cmd_line *t) {
    struct lverb_req r = { .verb = LVERB_INSERT };
    enum reply_id bad, len;

    c->noreply = t->n > 5 && cmd_is_noreply(t, t->n - 1);
    len = lverb_lengths(t->v, 3, 5, &r);
    r.after = strcmp(t->v[2], "after") == 0;
    bad = t->vlen[1] > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG
          : !r.after && strcmp(t->v[2], "before") != 0 ? REPLY_X_BEFORE_AFTER
          : len != REPLY_OK ? len
          : t->n - (c->noreply ? 1 : 0) > 5 ? cmd_extra_tokens(t, 5) : REPLY_OK;
    if (bad != REPLY_OK)
        return lverb_refuse(c, t->v[3], t->line + t->len, 2, bad);
    lverb_read_blocks(c, t->v[1], t->vlen[1], &r);
    return PARSE_DONE;
}

/* lexists <key> <bytes> */
enum conn_parse_result lverb_exists(conn *c, struct cmd_line *t) {
    struct lverb_req r = { .verb = LVERB_EXISTS };
    enum reply_id len = lverb_lengths(t->v, 2, 3, &r);
    enum reply_id bad = t->vlen[1] > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG
                        : len != REPLY_OK ? len
                        : t->n > 3 ? cmd_extra_tokens(t, 3) : REPLY_OK;

    if (bad != REPLY_OK)
        return lverb_refuse(c, t->v[2], t->line + t->len, 1, bad);
    lverb_read_blocks(c, t->v[1], t->vlen[1], &r);
    return PARSE_DONE;
}

/* One option of lpos into r: false, the reply made, when it is wrong. */
static bool lverb_pos_option(conn *c, const char *tok, struct lverb_req *r) {
    const char *v;

    if ((v = cmd_option(tok, "rank")) != NULL) {
        if (parse_i64_digits(v, &r->rank) && r->rank != 0)
            return true;
        cmd_bad_value(c, "rank");
    } else if ((v = cmd_option(tok, "count")) != NULL) {
        r->counted = true;
        if (cmd_parse_count(v, LVERB_COUNT_MAX, &r->count))
            return true;
        cmd_bad_value(c, "count");
    } else if ((v = cmd_option(tok, "maxlen")) != NULL) {
        if (parse_u64_digits(v, &r->maxlen))
            return true;
        cmd_bad_value(c, "maxlen");
    } else {
        cmd_unknown_option(c, tok);
    }
    return false;
}

/* lpos <key> <bytes> [rank=<n>] [count=<n>] [maxlen=<n>] */
enum conn_parse_result lverb_pos(conn *c, struct cmd_line *t) {
    struct lverb_req r = { .verb = LVERB_POS, .rank = 1 };
    enum reply_id len = lverb_lengths(t->v, 2, 3, &r);
    enum reply_id bad = t->vlen[1] > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG
                        : len != REPLY_OK ? len
                        : t->n > 6 ? cmd_extra_tokens(t, 6) : REPLY_OK;
    int i;

    if (bad != REPLY_OK)
        return lverb_refuse(c, t->v[2], t->line + t->len, 1, bad);
    for (i = 3; i < t->n; i++) {
        if (!lverb_pos_option(c, t->v[i], &r)) {
            conn_start_swallow(c, (size_t)r.len[0] + 2);
            return PARSE_DONE;
        }
    }
    lverb_read_blocks(c, t->v[1], t->vlen[1], &r);
    return PARSE_DONE;
}

/* lpos's answer: a line per position, then END; LIST_BUSY (nothing
 * answered) while the value index is being built. */
static enum list_result lverb_positions(conn *c, item *pin, const struct lverb_req *r,
                                        const struct list_val *v) {
    uint64_t pos[LVERB_COUNT_MAX];
    size_t cap = !r->counted ? 1 : r->count == 0 ? LVERB_COUNT_MAX : r->count, n, i;
    enum list_result res = list_positions(store_list_of(pin), v, r->rank, r->maxlen, pos, cap, &n);

    if (res != LIST_OK)
        return res;
    for (i = 0; i < n; i++)
        cmd_number_line(c, pos[i]);
    conn_out_reply(c, REPLY_END);
    return LIST_OK;
}

/* Splits the blocks read after r into vals; false if one does not end
 * in "\r\n". */
static bool lverb_split(item *it, const struct lverb_req *r, struct list_val *vals) {
    const char *p = item_value(it) + sizeof(*r);
    int i;

    for (i = 0; i < r->nvals; i++) {
        vals[i].p = p;
        vals[i].n = r->len[i];
        if (memcmp(p + r->len[i], "\r\n", 2) != 0)
            return false;
        p += r->len[i] + 2;
    }
    return true;
}

/* A push; a list deleted between finding it and pushing (LIST_GONE) is
 * replaced by a new one, as if the push had come after the delete. */
static enum list_result lverb_push_to(item *pin, const item *it, const struct lverb_req *r,
                                      const struct list_val *vals, uint64_t *n) {
    enum list_end e = r->verb == LVERB_LPUSH || r->verb == LVERB_LPUSHX ? LIST_HEAD : LIST_TAIL;
    enum list_result res = store_list_push(pin, e, vals, r->nvals, n);
    enum store_status st;
    int tries;

    if (r->verb == LVERB_LPUSHX || r->verb == LVERB_RPUSHX)
        return res == LIST_GONE ? LIST_NOT_FOUND : res;     /* no list now */
    for (tries = 0; res == LIST_GONE && tries < 3; tries++) {
        item *again = store_list_open(item_key((item *)it), it->nkey, true, NULL, &st);
        if (again == NULL)
            return st == STORE_NO_MEMORY ? LIST_NOMEM : LIST_GONE;
        res = store_list_push(again, e, vals, r->nvals, n);
        item_release(again);
    }
    return res;
}

/* Runs a command whose blocks (read into it) have been read, on its list:
 * false when a by-value request found the list's value index still being
 * built (LIST_BUSY), having changed and answered nothing. */
static bool lverb_apply(conn *c, item *pin, const item *it, const struct lverb_req *r,
                        const struct list_val *vals) {
    enum list_result res;
    uint64_t n = 0;
    bool yes;

    switch (r->verb) {
    case LVERB_LPUSH:
    case LVERB_RPUSH:
    case LVERB_LPUSHX:
    case LVERB_RPUSHX:
        res = lverb_push_to(pin, it, r, vals, &n);
        lverb_result(c, res, n);
        break;
    case LVERB_SET:
        res = store_list_set(pin, r->num, &vals[0]);
        if (res == LIST_OK)
            cmd_reply(c, REPLY_STORED);
        else
            lverb_result(c, res, 0);
        break;
    case LVERB_INSERT:
        res = store_list_insert(pin, r->after, &vals[0], &vals[1], &n);
        if (res != LIST_BUSY)
            lverb_result(c, res, n);
        break;
    case LVERB_REM:
        res = store_list_remove(pin, r->num, &vals[0], &n);
        if (res != LIST_BUSY)
            lverb_result(c, res, n);
        break;
    case LVERB_POS:
        res = lverb_positions(c, pin, r, &vals[0]);
        if (res != LIST_OK && res != LIST_BUSY)
            lverb_result(c, res, 0);
        break;
    default:
        res = list_contains(store_list_of(pin), &vals[0], &yes);
        if (res != LIST_BUSY)
            lverb_result(c, res, yes ? 1 : 0);
        break;
    }
    return res != LIST_BUSY;
}

/* The command's blocks are read (into c->nread.it). A by-value request
 * on a list whose value index is being built runs again, from here, once
 * the worker has served its other connections (c->resume): each run
 * indexes LIST_VINDEX_STEP more elements, so no other client waits for
 * the whole index. */
static void lverb_data_done(conn *c) {
    item *it = c->nread.it, *pin;
    struct list_val vals[LVERB_VALUES_MAX];
    struct lverb_req r;
    bool push, done = true;

    c->nread.it = NULL;
    c->noreply = c->nread.noreply;
    memcpy(&r, item_value(it), sizeof(r));
    push = r.verb == LVERB_LPUSH || r.verb == LVERB_RPUSH;
    if (!lverb_split(it, &r, vals)) {
        cmd_reply(c, REPLY_BAD_CHUNK);
    } else if (r.verb == LVERB_EXISTS || r.verb == LVERB_POS || cmd_log_ok(c)) {
        pin = lverb_list(c, item_key(it), it->nkey, push, REPLY_NOT_FOUND);
        if (pin != NULL) {
            done = lverb_apply(c, pin, it, &r, vals);
            item_release(pin);
        }
    }
    if (done) {
        item_release(it);
        return;
    }
    c->nread.it = it;
    c->resume = lverb_data_done;
    conn_yield_turn(c);
}

/* ---- pops and reads ---- */

/* lpop, rpop <key> [<count>] [wait=<s>] */
enum conn_parse_result lverb_pop(conn *c, struct cmd_line *t) {
    enum list_end e = t->arg == LVERB_LPOP ? LIST_HEAD : LIST_TAIL;
    struct lverb_out o = { c, t->v[1], t->vlen[1] };
    uint32_t count = 1;
    uint64_t wait_ms = 0;
    const char *v;
    item *pin;
    int i, n;

    for (i = 2; i < t->n; i++) {
        if ((v = cmd_option(t->v[i], "wait")) != NULL) {
            if (!cmd_parse_ms(v, &wait_ms)) {
                cmd_bad_value(c, "wait");
                return PARSE_DONE;
            }
        } else if (i != 2 || strchr(t->v[i], '=') != NULL) {
            cmd_unknown_option(c, t->v[i]);
            return PARSE_DONE;
        } else if (!cmd_parse_count(t->v[i], LVERB_COUNT_MAX, &count) || count == 0) {
            conn_out_reply(c, REPLY_X_COUNT_1000);
            return PARSE_DONE;
        }
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = lverb_list(c, t->v[1], t->vlen[1], wait_ms > 0, REPLY_END);
    if (pin == NULL)
        return PARSE_DONE;
    n = store_list_pop(pin, e, (int)count, lverb_out_one, &o);
    if (n == 0 && wait_ms > 0) {
        lpark_start(c, pin, e, (int)count, wait_ms, t->v[1], t->vlen[1]);
        return PARSE_DONE;
    }
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

enum conn_parse_result lverb_len(conn *c, struct cmd_line *t) {
    item *pin = lverb_list(c, t->v[1], t->vlen[1], false, REPLY_NOT_FOUND);

    if (pin != NULL) {
        cmd_number_line(c, list_length(store_list_of(pin)));
        item_release(pin);
    }
    return PARSE_DONE;
}

/* lrange <key> <offset> <limit> */
enum conn_parse_result lverb_range(conn *c, struct cmd_line *t) {
    struct lverb_out o = { c, t->v[1], t->vlen[1] };
    uint32_t limit;
    int64_t off;
    item *pin;

    if (!parse_i64_digits(t->v[2], &off)) {
        conn_out_reply(c, REPLY_X_BAD_OFFSET);
        return PARSE_DONE;
    }
    if (!cmd_parse_count(t->v[3], LVERB_COUNT_MAX, &limit)) {
        conn_out_reply(c, REPLY_X_BAD_LIMIT);
        return PARSE_DONE;
    }
    pin = lverb_list(c, t->v[1], t->vlen[1], false, REPLY_END);
    if (pin == NULL)
        return PARSE_DONE;
    list_range(store_list_of(pin), off, limit, lverb_out_one, &o);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

/* lindex <key> <index> */
enum conn_parse_result lverb_index(conn *c, struct cmd_line *t) {
    struct lverb_out o = { c, t->v[1], t->vlen[1] };
    int64_t idx;
    item *pin;

    if (!parse_i64_digits(t->v[2], &idx)) {
        conn_out_reply(c, REPLY_X_BAD_INDEX);
        return PARSE_DONE;
    }
    pin = lverb_list(c, t->v[1], t->vlen[1], false, REPLY_END);
    if (pin == NULL)
        return PARSE_DONE;
    list_get(store_list_of(pin), idx, lverb_out_one, &o);
    conn_out_reply(c, REPLY_END);
    item_release(pin);
    return PARSE_DONE;
}

/* ltrim <key> <offset> <limit> [noreply] */
enum conn_parse_result lverb_trim(conn *c, struct cmd_line *t) {
    uint64_t limit, gone;
    enum reply_id bad;
    int64_t off;
    item *pin;

    c->noreply = cmd_is_noreply(t, 4);
    bad = !parse_i64_digits(t->v[2], &off) ? REPLY_X_BAD_OFFSET
          : !parse_u64_digits(t->v[3], &limit) ? REPLY_X_BAD_LIMIT
          : t->n == 5 && !c->noreply ? cmd_extra_tokens(t, 4) : REPLY_OK;
    if (bad != REPLY_OK) {
        cmd_reply(c, bad);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    pin = lverb_list(c, t->v[1], t->vlen[1], false, REPLY_NOT_FOUND);
    if (pin == NULL)
        return PARSE_DONE;
    gone = store_list_trim(pin, off, limit);
    item_release(pin);
    if (!c->noreply)
        cmd_number_line(c, gone);
    return PARSE_DONE;
}

/* The command table's entries of the list verbs: pushes take more tokens than the table's limit (proto/cmd.h). */
const struct cmd_def lverb_cmds[] = {
    { "lcreate", lverb_create, 2, 3, 0, 0, "create a list: lcreate <key> [maxlen=]" },
    { "lpush", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_LPUSH, "push at the head: lpush <key> <bytes> [<bytes>...]" },
    { "rpush", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_RPUSH, "push at the tail: rpush <key> <bytes> [<bytes>...]" },
    { "lpushx", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_LPUSHX, "push at the head of an existing list: lpushx <key> <bytes> [<bytes>...]" },
    { "rpushx", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_RPUSHX, "push at the tail of an existing list: rpushx <key> <bytes> [<bytes>...]" },
    { "lpop", lverb_pop, 2, 4, 0, LVERB_LPOP, "pop from the head: lpop <key> [<count>] [wait=]" },
    { "rpop", lverb_pop, 2, 4, 0, LVERB_RPOP, "pop from the tail: rpop <key> [<count>] [wait=]" },
    { "llen", lverb_len, 2, 2, 0, 0, "a list's length: llen <key>" },
    { "lrange", lverb_range, 4, 4, 0, 0, "elements by position: lrange <key> <offset> <limit>" },
    { "lindex", lverb_index, 3, 3, 0, 0, "one element: lindex <key> <index>" },
    { "lset", lverb_num_block, 4, CMD_ANY, CMD_DATA | CMD_NOREPLY, LVERB_SET, "replace an element: lset <key> <index> <bytes>" },
    { "linsert", lverb_insert, 5, CMD_ANY, CMD_DATA | CMD_NOREPLY, 0, "insert by a pivot: linsert <key> before|after <pivot bytes> <bytes>" },
    { "ltrim", lverb_trim, 4, 5, CMD_NOREPLY, 0, "keep a range: ltrim <key> <offset> <limit>" },
    { "lrem", lverb_num_block, 4, CMD_ANY, CMD_DATA | CMD_NOREPLY, LVERB_REM, "remove by value: lrem <key> <count> <bytes>" },
    { "lexists", lverb_exists, 3, CMD_ANY, CMD_DATA, 0, "membership: lexists <key> <bytes>" },
    { "lpos", lverb_pos, 3, CMD_ANY, CMD_DATA, 0, "positions by value: lpos <key> <bytes> [rank=] [count=] [maxlen=]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
