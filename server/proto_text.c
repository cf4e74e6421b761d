/*
 * proto_text: the classic text protocol, byte for byte as memcached 1.6.
 *
 * A request is one line ("\r\n" or bare "\n") of space-separated tokens,
 * for storage verbs followed by a data block. The line is tokenized in
 * place in the read buffer; handlers validate tokens in memcached's order
 * (so the same bad input draws the same error), call store, and queue the
 * reply. Every fixed reply line comes from the reply table.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "clock.h"
#include "log.h"
#include "parse.h"
#include "proto_bin.h"
#include "proto_ext.h"
#include "proto_get.h"
#include "proto_meta.h"
#include "proto_text.h"
#include "settings.h"
#include "stats.h"
#include "store.h"

#define TEXT_LINE_MAX 2048      /* longest line without "\n" (except get) */
#define TEXT_MAX_TOKENS 8       /* more than any non-get verb takes */
#define TEXT_ANY (TEXT_MAX_TOKENS + 1) /* verbs memcached runs whatever follows */

struct text_tokens {
    char *v[TEXT_MAX_TOKENS];
    size_t len[TEXT_MAX_TOKENS];
    int n;                      /* TEXT_MAX_TOKENS + 1 means "too many" */
};

/* ---- small helpers ---- */

static void text_reply(conn *c, enum reply_id r) {
    if (!c->noreply)
        conn_out_reply(c, r);
}

static void text_number_line(conn *c, uint64_t v) {
    char *p = conn_out_reserve(c, 22);
    size_t n = parse_format_u64(p, v);

    p[n] = '\r';
    p[n + 1] = '\n';
    conn_out_commit(c, n + 2);
}

/* Splits line into tokens in place (NUL-terminating each). */
static void text_tokenize(char *line, size_t len, struct text_tokens *t) {
    t->n = parse_tokenize(line, len, t->v, t->len, TEXT_MAX_TOKENS);
}

static bool text_is_noreply(const struct text_tokens *t, int at) {
    return t->n > at && strcmp(t->v[at], "noreply") == 0;
}

/* ---- storage: set add replace append prepend cas ---- */

static void text_refuse_store(conn *c, enum store_status st, enum store_op op,
                              const char *key, size_t nkey, size_t nbytes) {
    if (st == STORE_TOO_LARGE) {
        stats_incr(STATS_STORE_TOO_LARGE);
        text_reply(c, REPLY_TOO_LARGE);
    } else {
        stats_incr(STATS_STORE_NO_MEMORY);
        text_reply(c, REPLY_OOM_STORE);
    }
    conn_start_swallow(c, nbytes);
    /* A failed set must not leave the old value readable. */
    if (op == STORE_SET)
        store_unlink_key(key, nkey);
}

static void text_store(conn *c, struct text_tokens *t, enum store_op op) {
    bool with_cas = op == STORE_CAS;
    uint32_t flags = 0;
    int32_t exptime = 0, vlen = 0;
    uint64_t cas = 0;
    bool vlen_ok, line_ok;
    enum store_status st;
    item *it;

    c->noreply = text_is_noreply(t, with_cas ? 6 : 5);
    vlen_ok = parse_i32(t->v[4], &vlen) && vlen >= 0 && vlen <= INT_MAX - 2;
    line_ok = t->len[1] <= ITEM_KEY_MAX && parse_u32(t->v[2], &flags) &&
              parse_i32(t->v[3], &exptime) && vlen_ok &&
              (!with_cas || parse_u64(t->v[5], &cas));
    if (!line_ok) {
        text_reply(c, REPLY_BAD_FORMAT);
        /* Like current memcached: once the length is known, skip the data
         * so it is not read as commands. */
        if (vlen_ok)
            conn_start_swallow(c, (size_t)vlen + 2);
        return;
    }
    it = store_alloc(t->v[1], t->len[1], flags, clock_exptime(exptime), (size_t)vlen + 2, &st);
    if (it == NULL) {
        text_refuse_store(c, st, op, t->v[1], t->len[1], (size_t)vlen + 2);
        return;
    }
    conn_start_nread(c, it, op, cas, c->noreply);
}

static void text_nread_done(conn *c) {
    item *it = c->nread.it;
    uint64_t cas_out = 0;
    enum store_status st;

    if (c->nread.meta) {
        meta_nread_done(c);
        return;
    }
    if (c->nread.ext) {
        ext_nread_done(c);
        return;
    }
    c->nread.it = NULL;
    c->noreply = c->nread.noreply;
    stats_incr(STATS_CMD_SET);
    if (memcmp(item_value(it) + it->nbytes - 2, "\r\n", 2) != 0) {
        text_reply(c, REPLY_BAD_CHUNK);
        item_release(it);
        return;
    }
    st = store_item(it, c->nread.op, c->nread.cas, &cas_out);
    item_release(it);
    switch (st) {
    case STORE_STORED: text_reply(c, REPLY_STORED); break;
    case STORE_EXISTS: text_reply(c, REPLY_EXISTS); break;
    case STORE_NOT_FOUND: text_reply(c, REPLY_NOT_FOUND); break;
    case STORE_WRONG_TYPE: text_reply(c, REPLY_WRONG_TYPE); break;
    case STORE_NO_MEMORY: text_reply(c, REPLY_OOM_STORE); break;
    default: text_reply(c, REPLY_NOT_STORED); break;
    }
}

/* ---- other keyed verbs ---- */

static void text_arith(conn *c, struct text_tokens *t, bool incr) {
    uint64_t delta, value = 0, cas_out;
    enum store_status st;

    c->noreply = text_is_noreply(t, 3);
    if (t->len[1] > ITEM_KEY_MAX) {
        text_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    if (!parse_u64(t->v[2], &delta)) {
        text_reply(c, REPLY_BAD_DELTA);
        return;
    }
    st = store_arith(t->v[1], t->len[1], incr, delta, 0, &value, &cas_out);
    switch (st) {
    case STORE_STORED:
        stats_incr(incr ? STATS_INCR_HITS : STATS_DECR_HITS);
        if (!c->noreply)
            text_number_line(c, value);
        break;
    case STORE_NOT_FOUND:
        stats_incr(incr ? STATS_INCR_MISSES : STATS_DECR_MISSES);
        text_reply(c, REPLY_NOT_FOUND);
        break;
    case STORE_NON_NUMERIC:
        text_reply(c, REPLY_NON_NUMERIC);
        break;
    default:
        text_reply(c, REPLY_OOM);
        break;
    }
}

static void text_touch(conn *c, struct text_tokens *t) {
    int32_t exptime;

    c->noreply = text_is_noreply(t, 3);
    if (t->len[1] > ITEM_KEY_MAX) {
        text_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    if (!parse_i32(t->v[2], &exptime)) {
        text_reply(c, REPLY_BAD_EXPTIME);
        return;
    }
    stats_incr(STATS_CMD_TOUCH);
    if (store_touch(t->v[1], t->len[1], clock_exptime(exptime)) == STORE_TOUCHED) {
        stats_incr(STATS_TOUCH_HITS);
        text_reply(c, REPLY_TOUCHED);
    } else {
        stats_incr(STATS_TOUCH_MISSES);
        text_reply(c, REPLY_NOT_FOUND);
    }
}

/* "delete <key> [0] [noreply]": the 0 is a relic memcached still accepts. */
static void text_delete(conn *c, struct text_tokens *t) {
    if (t->n > 2) {
        bool zero = strcmp(t->v[2], "0") == 0;
        c->noreply = text_is_noreply(t, t->n - 1);
        if (!((t->n == 3 && (zero || c->noreply)) || (t->n == 4 && zero && c->noreply))) {
            text_reply(c, REPLY_DELETE_USAGE);
            return;
        }
    }
    if (t->len[1] > ITEM_KEY_MAX) {
        text_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    if (store_delete(t->v[1], t->len[1], 0) == STORE_DELETED) {
        stats_incr(STATS_DELETE_HITS);
        text_reply(c, REPLY_DELETED);
    } else {
        stats_incr(STATS_DELETE_MISSES);
        text_reply(c, REPLY_NOT_FOUND);
    }
}

/* ---- server verbs ---- */

static void text_flush_all(conn *c, struct text_tokens *t) {
    int32_t delay = 0;
    int nargs;

    c->noreply = text_is_noreply(t, t->n - 1);
    nargs = t->n - 1 - (c->noreply ? 1 : 0);
    if (!settings.flush_enabled) {
        text_reply(c, REPLY_FLUSH_DISABLED);
        return;
    }
    if (nargs == 1 && !parse_i32(t->v[1], &delay)) {
        text_reply(c, REPLY_BAD_EXPTIME);
        return;
    }
    stats_incr(STATS_CMD_FLUSH);
    store_flush(delay);
    text_reply(c, REPLY_OK);
}

static void text_verbosity(conn *c, struct text_tokens *t) {
    uint32_t level;

    c->noreply = text_is_noreply(t, t->n - 1);
    if (!parse_u32(t->v[1], &level)) {
        text_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    log_set_level((int)level);
    text_reply(c, REPLY_OK);
}

static void text_version(conn *c) {
    static const char line[] = "VERSION " MCDS_PROTOCOL_VERSION "\r\n";
    conn_out(c, line, sizeof(line) - 1);
}

static enum conn_parse_result text_shutdown(conn *c, struct text_tokens *t) {
    if (!settings.shutdown_enabled) {
        conn_out_reply(c, REPLY_SHUTDOWN_DISABLED);
        return PARSE_DONE;
    }
    if (t->n > 2 || (t->n == 2 && strcmp(t->v[1], "graceful") != 0)) {
        conn_out_reply(c, REPLY_BAD_SHUTDOWN_MODE);
        return PARSE_DONE;
    }
    log_msg(0, "shutdown requested by a client");
    kill(getpid(), SIGINT);
    return PARSE_CLOSE;
}

static void text_stat_line(void *ctx, const char *name, const char *value) {
    conn *c = ctx;
    size_t nn = strlen(name), nv = strlen(value);
    char *p = conn_out_reserve(c, 5 + nn + 1 + nv + 2);

    memcpy(p, "STAT ", 5);
    memcpy(p + 5, name, nn);
    p[5 + nn] = ' ';
    memcpy(p + 6 + nn, value, nv);
    memcpy(p + 6 + nn + nv, "\r\n", 2);
    conn_out_commit(c, 8 + nn + nv);
}

static void text_stats(conn *c, struct text_tokens *t) {
    if (t->n == 1) {
        stats_general(text_stat_line, c);
    } else if (strcmp(t->v[1], "reset") == 0) {
        stats_reset();
        conn_out_reply(c, REPLY_RESET);
        return;
    } else if (stats_group(t->v[1], text_stat_line, c) < 0) {
        conn_out_reply(c, REPLY_ERROR);
        return;
    }
    conn_out_reply(c, REPLY_END);
}

static void text_cache_memlimit(conn *c, struct text_tokens *t) {
    uint32_t mb;

    c->noreply = text_is_noreply(t, 2);
    if (!parse_u32(t->v[1], &mb)) {
        conn_out_reply(c, REPLY_ERROR);
        return;
    }
    if (mb < 8) {
        text_reply(c, REPLY_MEMLIMIT_TOO_SMALL);
        return;
    }
    item_set_mem_limit((size_t)mb * 1024 * 1024);
    text_reply(c, REPLY_OK);
}

static void text_debugtime(conn *c, struct text_tokens *t) {
    char *end;
    long long shift;

    errno = 0;
    shift = strtoll(t->v[1], &end, 10);
    if (errno != 0 || *end != '\0' || end == t->v[1]) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    conn_out_reply(c, clock_shift(shift) ? REPLY_OK : REPLY_BAD_FORMAT);
}

/* An unknown command whose last token starts with "HTTP/" (an HTTP
 * request line such as "GET / HTTP/1.1"): memcached hangs up silently. */
static bool text_is_http(const struct text_tokens *t) {
    return t->n >= 2 && t->n <= TEXT_MAX_TOKENS && strncmp(t->v[t->n - 1], "HTTP/", 5) == 0;
}

/* ---- dispatch ---- */

static bool text_is(const struct text_tokens *t, const char *verb, int min, int max) {
    return strcmp(t->v[0], verb) == 0 && t->n >= min && t->n <= max;
}

/* t->v[1] points at the rest of the line (keys, or exptime then keys). */
static enum conn_parse_result text_dispatch_retrieval(conn *c, char *line, size_t len,
                                                      struct text_tokens *t) {
    char *rest = t->v[1];
    size_t rlen = len - (size_t)(rest - line);

    if (strcmp(t->v[0], "get") == 0)
        return get_keys(c, rest, rlen, false);
    if (strcmp(t->v[0], "gets") == 0)
        return get_keys(c, rest, rlen, true);
    if (strcmp(t->v[0], "gat") == 0)
        get_touch(c, rest, rlen, false);
    else if (strcmp(t->v[0], "gats") == 0)
        get_touch(c, rest, rlen, true);
    else
        conn_out_reply(c, REPLY_ERROR);
    return PARSE_DONE;
}

static enum conn_parse_result text_dispatch(conn *c, char *line, size_t len) {
    struct text_tokens t;
    char *copy_end;

    c->noreply = false;
    while (len > 0 && *line == ' ') {
        line++;
        len--;
    }
    if (meta_is_command(line, len))
        return meta_dispatch(c, line, len);
    if (ext_is_command(line, len))
        return ext_dispatch(c, line, len);
    /* get-family lines may hold thousands of keys: only the first two
     * tokens are split off, the keys are walked in place. */
    copy_end = memchr(line, ' ', len);
    if (len >= 3 && line[0] == 'g' && copy_end != NULL &&
        (copy_end - line == 3 || copy_end - line == 4)) {
        struct text_tokens head;
        size_t hlen = (size_t)(copy_end - line);
        if (memcmp(line, "get", hlen) == 0 || memcmp(line, "gets", hlen) == 0 ||
            memcmp(line, "gat", hlen) == 0 || memcmp(line, "gats", hlen) == 0) {
            char *p = copy_end;
            while (p < line + len && *p == ' ')
                p++;
            if (p == line + len) {
                conn_out_reply(c, REPLY_ERROR);
                return PARSE_DONE;
            }
            *copy_end = '\0';
            head.v[0] = line;
            head.len[0] = hlen;
            head.v[1] = p;
            head.n = 2;
            return text_dispatch_retrieval(c, line, len, &head);
        }
    }
    text_tokenize(line, len, &t);
    if (t.n == 0) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (text_is(&t, "set", 5, 6))
        text_store(c, &t, STORE_SET);
    else if (text_is(&t, "add", 5, 6))
        text_store(c, &t, STORE_ADD);
    else if (text_is(&t, "replace", 5, 6))
        text_store(c, &t, STORE_REPLACE);
    else if (text_is(&t, "append", 5, 6))
        text_store(c, &t, STORE_APPEND);
    else if (text_is(&t, "prepend", 5, 6))
        text_store(c, &t, STORE_PREPEND);
    else if (text_is(&t, "cas", 6, 7))
        text_store(c, &t, STORE_CAS);
    else if (text_is(&t, "incr", 3, 4))
        text_arith(c, &t, true);
    else if (text_is(&t, "decr", 3, 4))
        text_arith(c, &t, false);
    else if (text_is(&t, "delete", 2, 4))
        text_delete(c, &t);
    else if (text_is(&t, "touch", 3, 4))
        text_touch(c, &t);
    else if (text_is(&t, "stats", 1, TEXT_ANY))
        text_stats(c, &t);
    else if (text_is(&t, "flush_all", 1, 3))
        text_flush_all(c, &t);
    else if (text_is(&t, "version", 1, TEXT_ANY))
        text_version(c);
    else if (text_is(&t, "verbosity", 2, 3))
        text_verbosity(c, &t);
    else if (text_is(&t, "quit", 1, TEXT_ANY))
        return PARSE_CLOSE;
    else if (text_is(&t, "shutdown", 1, TEXT_ANY))
        return text_shutdown(c, &t);
    else if (text_is(&t, "cache_memlimit", 2, 3))
        text_cache_memlimit(c, &t);
    else if (settings.debug && text_is(&t, "debugtime", 2, 2))
        text_debugtime(c, &t);
    else if (text_is_http(&t))
        return PARSE_CLOSE;
    else
        conn_out_reply(c, REPLY_ERROR);
    return PARSE_DONE;
}

/* No "\n" yet: only a multi-get may be longer than TEXT_LINE_MAX. */
static bool text_may_grow(const char *p, size_t avail) {
    size_t i = 0;

    while (i < avail && p[i] == ' ')
        i++;
    if (i > 100)
        return false;
    return (avail - i > 4 && memcmp(p + i, "get ", 4) == 0) ||
           (avail - i > 5 && memcmp(p + i, "gets ", 5) == 0);
}

static enum conn_parse_result text_parse(conn *c) {
    char *line = c->rbuf + c->rpos;
    size_t avail = c->rlen - c->rpos, len;
    char *nl;

    if (get_streaming(c))
        return get_stream_more(c);
    nl = memchr(line, '\n', avail);
    if (nl == NULL) {
        if (avail <= TEXT_LINE_MAX)
            return PARSE_MORE;
        /* Only a multi-get may be longer: it is answered as it arrives. */
        return text_may_grow(line, avail) ? get_stream_start(c, line, avail) : PARSE_CLOSE;
    }
    conn_consume(c, (size_t)(nl - line) + 1);
    len = (size_t)(nl - line);
    if (len > 0 && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    len = strlen(line);     /* like memcached, a NUL ends the command line */
    if (log_level() >= 2)
        log_msg(2, "<%d %.*s", c->fd, (int)(len > 200 ? 200 : len), line);
    return text_dispatch(c, line, len);
}

const struct conn_proto proto_text = {
    .name = "ascii",
    .parse = text_parse,
    .nread_done = text_nread_done,
};

/* Like memcached: with -B auto, a first byte of 0x80 (the binary request
 * magic) makes the connection binary. */
const struct conn_proto *proto_choose(char first) {
    if (settings.protocol == PROTO_BINARY)
        return &proto_bin;
    if (settings.protocol == PROTO_AUTO && (unsigned char)first == BIN_REQ_MAGIC)
        return &proto_bin;
    return &proto_text;
}
