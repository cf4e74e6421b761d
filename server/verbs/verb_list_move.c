/*
 * verb_list_move: the list verbs that take from one list and give to
 * another, or watch several, as entries of the command table.
 *
 *   lmove <src> <dst> left|right left|right [wait=<s>]
 *   lmpop <key> [<key> ...] left|right [count=<n>] [wait=<s>]
 *
 * A move is one step of the list type (list_move): the element is in
 * exactly one of the lists at every instant and in the log. A waiting
 * move or pop parks its connection (list_park.c, list_park_multi.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "proto/cmd.h"
#include "store/store_list.h"
#include "verbs/list_park.h"
#include "verbs/list_park_multi.h"
#include "verbs/verb_list.h"
#include "verbs/verb_list_move.h"

#define LMVERB_TOKENS (LPARK_MULTI_MAX + 4)     /* lmpop, keys, end, two options */

/* "left" or "right" into *e; false for anything else. */
static bool lmverb_end(const char *tok, enum list_end *e) {
    if (strcmp(tok, "left") == 0)
        *e = LIST_HEAD;
    else if (strcmp(tok, "right") == 0)
        *e = LIST_TAIL;
    else
        return false;
    return true;
}

/* A wait=<s> option into *ms: false, the reply made, when tok is not one
 * or is bad. */
static bool lmverb_wait(conn *c, const char *tok, uint64_t *ms) {
    const char *v = cmd_option(tok, "wait");

    if (v == NULL) {
        cmd_unknown_option(c, tok);
        return false;
    }
    if (!cmd_parse_ms(v, ms)) {
        cmd_bad_value(c, "wait");
        return false;
    }
    return true;
}

/* ---- lmove ---- */

/* The destination, pinned: made when missing if make; NULL (and the
 * reply made) when it holds another type or there is no memory. *none:
 * it is missing and was not made. */
static item *lmverb_dst(conn *c, const char *key, size_t nkey, bool make, bool *none) {
    enum store_status st = STORE_EXISTS;
    item *pin = store_list_open(key, nkey, false, NULL, &st);

    *none = false;
    if (pin == NULL && st != STORE_WRONG_TYPE && make)
        pin = store_list_open(key, nkey, true, NULL, &st);
    if (pin == NULL && st == STORE_WRONG_TYPE)
        cmd_reply(c, REPLY_WRONG_TYPE);
    else if (pin == NULL && st == STORE_NO_MEMORY)
        cmd_reply(c, REPLY_OOM_STORE);
    else if (pin == NULL)
        *none = true;
    return pin;
}

/* The answer to a move that did not wait; the pins are released. */
static void lmverb_answer(conn *c, enum list_result r, item *src, item *dst, const char *copy) {
    const char *v;
    size_t n;

    if (r == LIST_OK) {
        list_unpack(copy, 0, &v, &n);
        lverb_out_value(c, item_key(dst), dst->nkey, v, n);
    }
    if (r == LIST_FULL)
        cmd_reply(c, REPLY_NOT_STORED);
    else if (r == LIST_NOMEM)
        cmd_reply(c, REPLY_OOM_STORE);
    else
        conn_out_reply(c, REPLY_END);
    item_release(src);
    if (dst != NULL)
        item_release(dst);
}

/* lmove <src> <dst> left|right left|right [wait=<s>] */
enum conn_parse_result lmverb_lmove(conn *c, struct cmd_line *t) {
    enum list_result r = LIST_GONE;
    enum list_end se, de;
    uint64_t wait_ms = 0;
    item *src, *dst = NULL;
    char *copy = NULL;
    size_t ncopy;
    bool none;
    int tries;

    if (t->vlen[1] > ITEM_KEY_MAX || t->vlen[2] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    if (!lmverb_end(t->v[3], &se) || !lmverb_end(t->v[4], &de)) {
        conn_out_reply(c, REPLY_X_LEFT_RIGHT);
        return PARSE_DONE;
    }
    if (t->n == 6 && !lmverb_wait(c, t->v[5], &wait_ms))
        return PARSE_DONE;
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    src = lverb_list(c, t->v[1], t->vlen[1], wait_ms > 0, REPLY_END);
    if (src == NULL)
        return PARSE_DONE;
    /* A destination deleted between being found and the move (LIST_GONE)
     * is made again, as if the move came after the delete. */
    for (tries = 0; r == LIST_GONE && tries < 3; tries++) {
        bool make = wait_ms > 0 || list_length(store_list_of(src)) > 0;
        if (dst != NULL)
            item_release(dst);
        dst = lmverb_dst(c, t->v[2], t->vlen[2], make, &none);
        if (dst == NULL && !none) {
            item_release(src);
            return PARSE_DONE;
        }
        if (dst == NULL)
            r = LIST_NOT_FOUND;
        else
            r = store_list_move(src, se, dst, de, &copy, &ncopy);
    }
    if (r == LIST_NOT_FOUND && wait_ms > 0 && dst != NULL) {
        lpark_start_move(c, src, se, dst, de, wait_ms);
        return PARSE_DONE;
    }
    lmverb_answer(c, r, src, dst, copy);
    free(copy);
    return PARSE_DONE;
}

/* ---- lmpop ---- */

/* What an lmpop line asks. */
struct lmverb_req {
    char **keys;
    size_t *nkeys;
    int n;
    enum list_end e;
    uint32_t count;
    uint64_t wait_ms;
};

/* The last token that is left or right is the end; before it (from the
 * second token) the keys, after it only count= and wait= options: false,
 * the reply made, when something is wrong. */
static bool lmverb_parse(conn *c, char **v, size_t *vlen, int n, struct lmverb_req *r) {
    const char *val;
    int i, d;

    r->count = 1;
    r->wait_ms = 0;
    for (d = n - 1; d >= 2 && !lmverb_end(v[d], &r->e); d--)
        ;
    if (d < 2) {
        conn_out_reply(c, REPLY_X_LEFT_RIGHT);
        return false;
    }
    for (i = d + 1; i < n; i++) {
        if ((val = cmd_option(v[i], "count")) != NULL) {
            if (!cmd_parse_count(val, LVERB_COUNT_MAX, &r->count) || r->count == 0) {
                conn_out_reply(c, REPLY_X_COUNT_1000);
                return false;
            }
        } else if (!lmverb_wait(c, v[i], &r->wait_ms)) {
            return false;
        }
    }
    if (d - 1 > LPARK_MULTI_MAX) {
        conn_out_reply(c, REPLY_X_TOO_MANY_KEYS);
        return false;
    }
    for (i = 1; i < d; i++) {
        if (vlen[i] > ITEM_KEY_MAX) {
            conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
            return false;
        }
    }
    r->keys = v + 1;
    r->nkeys = vlen + 1;
    r->n = d - 1;
    return true;
}

static void lmverb_release(item **pins, int n) {
    int i;

    for (i = 0; i < n; i++)
        if (pins[i] != NULL)
            item_release(pins[i]);
}

/* Pins every key's list (made if missing when make): false, the reply
 * made and nothing pinned, when one holds another type or there is no
 * memory. A missing list not made is NULL. */
static bool lmverb_pins(conn *c, const struct lmverb_req *r, bool make, item **pins) {
    enum store_status st;
    int i;

    for (i = 0; i < r->n; i++) {
        st = STORE_EXISTS;
        pins[i] = store_list_open(r->keys[i], r->nkeys[i], make, NULL, &st);
        if (pins[i] == NULL && (st == STORE_WRONG_TYPE || st == STORE_NO_MEMORY)) {
            lmverb_release(pins, i);
            cmd_reply(c, st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_OOM_STORE);
            return false;
        }
    }
    return true;
}

/* lmpop <key> [<key> ...] left|right [count=<n>] [wait=<s>] */
enum conn_parse_result lmverb_lmpop(conn *c, struct cmd_line *l) {
    char *v[LMVERB_TOKENS + 1];
    size_t vlen[LMVERB_TOKENS + 1];
    item *pins[LPARK_MULTI_MAX];
    struct lmverb_req r;
    int n = parse_tokenize(l->line, l->len, v, vlen, LMVERB_TOKENS), i;

    if (n > LMVERB_TOKENS) {
        conn_out_reply(c, REPLY_X_TOO_MANY_KEYS);
        return PARSE_DONE;
    }
    if (n < 3) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (!lmverb_parse(c, v, vlen, n, &r) || !cmd_log_ok(c) || !lmverb_pins(c, &r, r.wait_ms > 0, pins))
        return PARSE_DONE;
    for (i = 0; i < r.n; i++) {
        struct lverb_out o = { c, r.keys[i], r.nkeys[i] };
        if (pins[i] != NULL && store_list_pop(pins[i], r.e, (int)r.count, lverb_out_one, &o) > 0)
            break;
    }
    if (i == r.n && r.wait_ms > 0) {
        lmpark_start(c, pins, r.n, r.e, (int)r.count, r.wait_ms);
        return PARSE_DONE;
    }
    conn_out_reply(c, REPLY_END);
    lmverb_release(pins, r.n);
    return PARSE_DONE;
}

/* The command table's entries of these verbs. */
const struct cmd_def lmverb_cmds[] = {
    { "lmove", lmverb_lmove, 5, 6, 0, 0,
      "move an element between lists: lmove <src> <dst> left|right left|right [wait=]" },
    { "lmpop", lmverb_lmpop, 1, CMD_ANY, CMD_RAW, 0,
      "pop from the first non-empty list: lmpop <key> [<key>...] left|right [count=] [wait=]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
