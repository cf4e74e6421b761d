/*
 * verb_classic: memcached's keyed text verbs, byte for byte as memcached
 * 1.6 answers them: set add replace append prepend cas, incr decr,
 * delete, touch. Tokens are validated in memcached's order (so the same
 * bad input draws the same error); the keyspace is reached through store.
 */
#include <limits.h>
#include <string.h>

#include "proto/ahead.h"
#include "base/clock.h"
#include "proto/cmd.h"
#include "ops/detail.h"
#include "ops/watch.h"
#include "base/parse.h"
#include "base/stats.h"
#include "store/store.h"
#include "verbs/verb_classic.h"

/* ---- storage: set add replace append prepend cas ---- */

static void classic_nread_done(conn *c);

static void classic_refuse_store(conn *c, enum store_status st, enum store_op op,
                              const char *key, size_t nkey, size_t nbytes) {
    if (st == STORE_TOO_LARGE) {
        stats_incr(STATS_STORE_TOO_LARGE);
        cmd_reply(c, REPLY_TOO_LARGE);
    } else {
        stats_incr(STATS_STORE_NO_MEMORY);
        cmd_reply(c, REPLY_OOM_STORE);
    }
    conn_start_swallow(c, nbytes);
    /* A failed set must not leave the old value readable. */
    if (op == STORE_SET)
        store_unlink_key(key, nkey);
}

/* A storage line that reads well: the item is allocated and the data
 * block read into it (hv: the key's hash). */
static void classic_store_start(conn *c, enum store_op op, const char *key, size_t nkey, uint32_t flags,
                                int32_t exptime, int32_t vlen, uint64_t cas, uint32_t hv) {
    enum store_status st;
    item *it;

    detail_set(key, nkey);
    it = store_alloc(key, nkey, flags, clock_exptime(exptime), (size_t)vlen + 2, &st);
    if (it == NULL) {
        classic_refuse_store(c, st, op, key, nkey, (size_t)vlen + 2);
        return;
    }
    conn_start_nread(c, it, op, cas, c->noreply);
    c->nread.hv = hv;
    c->nread.finish = classic_nread_done;
}

void classic_set_quick(conn *c, const struct ahead_set *s) {
    c->noreply = false;
    classic_store_start(c, STORE_SET, s->key, s->nkey, s->flags, s->exptime, s->vlen, 0, s->hv);
}

/* set add replace append prepend cas: the table's arg is the store_op. */
enum conn_parse_result classic_store(conn *c, struct cmd_line *t) {
    enum store_op op = (enum store_op)t->arg;
    bool with_cas = op == STORE_CAS;
    uint32_t flags = 0;
    int32_t exptime = 0, vlen = 0;
    uint64_t cas = 0;
    bool vlen_ok, line_ok;

    c->noreply = cmd_is_noreply(t, with_cas ? 6 : 5);
    vlen_ok = parse_i32(t->v[4], &vlen) && vlen >= 0 && vlen <= INT_MAX - 2;
    line_ok = t->vlen[1] <= ITEM_KEY_MAX && parse_u32(t->v[2], &flags) &&
              parse_i32(t->v[3], &exptime) && vlen_ok &&
              (!with_cas || parse_u64(t->v[5], &cas));
    if (!line_ok) {
        cmd_reply(c, REPLY_BAD_FORMAT);
        /* Like current memcached: once the length is known, skip the data
         * so it is not read as commands. */
        if (vlen_ok)
            conn_start_swallow(c, (size_t)vlen + 2);
        return PARSE_DONE;
    }
    classic_store_start(c, op, t->v[1], t->vlen[1], flags, exptime, vlen, cas,
                        ahead_hash(c, t->v[1], t->vlen[1]));
    return PARSE_DONE;
}

/* The data block of a classic store has been read into c->nread.it. */
static void classic_nread_done(conn *c) {
    item *it = c->nread.it;
    uint64_t cas_out = 0;
    enum store_status st;

    c->nread.it = NULL;
    c->noreply = c->nread.noreply;
    stats_incr(STATS_CMD_SET);
    if (memcmp(item_value(it) + it->nbytes - 2, "\r\n", 2) != 0) {
        cmd_reply(c, REPLY_BAD_CHUNK);
        item_release(it);
        return;
    }
    st = store_item_hv(it, c->nread.hv, c->nread.op, c->nread.cas, &cas_out);
    watch_store(c, it, c->nread.op, st);
    item_release(it);
    switch (st) {
    case STORE_STORED: cmd_reply(c, REPLY_STORED); break;
    case STORE_EXISTS: cmd_reply(c, REPLY_EXISTS); break;
    case STORE_NOT_FOUND: cmd_reply(c, REPLY_NOT_FOUND); break;
    case STORE_WRONG_TYPE: cmd_reply(c, REPLY_WRONG_TYPE); break;
    case STORE_NO_MEMORY: cmd_reply(c, REPLY_OOM_STORE); break;
    case STORE_LOG_FAILED: cmd_reply(c, REPLY_LOG_FAILED); break;
    default: cmd_reply(c, REPLY_NOT_STORED); break;
    }
}

/* ---- other keyed verbs ---- */

/* incr (arg 1) and decr (arg 0). */
enum conn_parse_result classic_arith(conn *c, struct cmd_line *t) {
    bool incr = t->arg != 0;
    uint64_t delta, value = 0, cas_out;
    enum store_status st;

    c->noreply = cmd_is_noreply(t, 3);
    if (t->vlen[1] > ITEM_KEY_MAX) {
        cmd_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    if (!parse_u64(t->v[2], &delta)) {
        cmd_reply(c, REPLY_BAD_DELTA);
        return PARSE_DONE;
    }
    st = store_arith(t->v[1], t->vlen[1], incr, delta, 0, &value, &cas_out);
    switch (st) {
    case STORE_STORED:
        stats_incr(incr ? STATS_INCR_HITS : STATS_DECR_HITS);
        if (!c->noreply)
            cmd_number_line(c, value);
        break;
    case STORE_NOT_FOUND:
        stats_incr(incr ? STATS_INCR_MISSES : STATS_DECR_MISSES);
        cmd_reply(c, REPLY_NOT_FOUND);
        break;
    case STORE_NON_NUMERIC:
        cmd_reply(c, REPLY_NON_NUMERIC);
        break;
    case STORE_LOG_FAILED:
        cmd_reply(c, REPLY_LOG_FAILED);
        break;
    default:
        cmd_reply(c, REPLY_OOM);
        break;
    }
    return PARSE_DONE;
}

enum conn_parse_result classic_touch(conn *c, struct cmd_line *t) {
    enum store_status st;
    int32_t exptime;

    c->noreply = cmd_is_noreply(t, 3);
    if (t->vlen[1] > ITEM_KEY_MAX) {
        cmd_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    if (!parse_i32(t->v[2], &exptime)) {
        cmd_reply(c, REPLY_BAD_EXPTIME);
        return PARSE_DONE;
    }
    stats_incr(STATS_CMD_TOUCH);
    st = store_touch(t->v[1], t->vlen[1], clock_exptime(exptime));
    if (st == STORE_LOG_FAILED) {
        cmd_reply(c, REPLY_LOG_FAILED);
    } else if (st == STORE_TOUCHED) {
        stats_incr(STATS_TOUCH_HITS);
        cmd_reply(c, REPLY_TOUCHED);
    } else {
        stats_incr(STATS_TOUCH_MISSES);
        cmd_reply(c, REPLY_NOT_FOUND);
    }
    return PARSE_DONE;
}

/* "delete <key> [0] [noreply]": the 0 is a relic memcached still accepts. */
enum conn_parse_result classic_delete(conn *c, struct cmd_line *t) {
    enum store_status st;

    if (t->n > 2) {
        bool zero = strcmp(t->v[2], "0") == 0;
        c->noreply = cmd_is_noreply(t, t->n - 1);
        if (!((t->n == 3 && (zero || c->noreply)) || (t->n == 4 && zero && c->noreply))) {
            cmd_reply(c, REPLY_DELETE_USAGE);
            return PARSE_DONE;
        }
    }
    if (t->vlen[1] > ITEM_KEY_MAX) {
        cmd_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    detail_delete(t->v[1], t->vlen[1]);
    st = store_delete(t->v[1], t->vlen[1], 0);
    if (st == STORE_DELETED) {
        stats_incr(STATS_DELETE_HITS);
        cmd_reply(c, REPLY_DELETED);
    } else if (st == STORE_LOG_FAILED) {
        cmd_reply(c, REPLY_LOG_FAILED);
    } else {
        stats_incr(STATS_DELETE_MISSES);
        cmd_reply(c, REPLY_NOT_FOUND);
    }
    return PARSE_DONE;
}

/* The command table's entries of the storage verbs and incr, decr, delete, touch (proto/cmd.h). */
const struct cmd_def classic_cmds[] = {
    { "set", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_SET, "store a value" },
    { "add", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_ADD, "store a value if the key is missing" },
    { "replace", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_REPLACE, "store a value if the key exists" },
    { "append", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_APPEND, "add data after a value" },
    { "prepend", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_PREPEND, "add data before a value" },
    { "cas", classic_store, 6, 7, CMD_DATA | CMD_NOREPLY, STORE_CAS, "store a value if its CAS is unchanged" },
    { "incr", classic_arith, 3, 4, CMD_NOREPLY, 1, "add to a number" },
    { "decr", classic_arith, 3, 4, CMD_NOREPLY, 0, "subtract from a number" },
    { "delete", classic_delete, 2, 4, CMD_NOREPLY, 0, "remove a key" },
    { "touch", classic_touch, 3, 4, CMD_NOREPLY, 0, "set a key's TTL" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
