/*
 * proto_get: get gets gat gats, byte for byte as memcached 1.6 answers
 * them, and multi-gets that outlive one event.
 *
 * A get line in the read buffer is checked whole first (key lengths, and
 * the Kestrel reads it holds), so an error answers alone and nothing is
 * taken from a queue. Then each key is looked up in order. When the
 * connection's output is full, the get stops at the next key and
 * resumes (c->resume) once the client has read: the reply is never held
 * whole in memory. A get line longer than the read buffer is answered
 * chunk by chunk as it arrives; in such a line queue keys read as misses
 * (a Kestrel read needs the whole line checked first), and a bad key met
 * after output already went out ends the reply with the error instead of
 * END.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/ahead.h"
#include "base/clock.h"
#include "base/parse.h"
#include "proto/cmd.h"
#include "ops/detail.h"
#include "ops/watch.h"
#include "proto/proto_get.h"
#include "base/stats.h"
#include "store/store.h"

/* A multi-get in progress across events. */
struct text_get {
    bool active;
    bool with_cas, touch;
    rel_time_t exptime;
    bool streaming;         /* the line's end has not been read yet */
    bool skipping;          /* answered with an error: skip to the line's end */
    bool queue_reads;       /* Kestrel reads allowed (the whole line was checked) */
    bool single;            /* the line has one key */
    struct conn_mark mark;  /* where the reply began */
    char *keys;             /* keys still to look up, in the read buffer */
    size_t len;
};

static struct text_get *get_state(conn *c) {
    if (c->tget == NULL)
        c->tget = calloc(1, sizeof(struct text_get));
    return c->tget;
}

static void get_conn_free(conn *c) {
    free(c->tget);
    c->tget = NULL;
}

bool get_streaming(const conn *c) {
    return c->tget != NULL && c->tget->active && c->tget->streaming;
}

/* The next space-separated key in *p[0..*len): 0 when none is left. */
static size_t get_next_key(char **p, size_t *len, char **key) {
    char *s = *p, *end = s + *len, *sp;

    while (s < end && *s == ' ')
        s++;
    sp = s < end ? memchr(s, ' ', (size_t)(end - s)) : NULL;
    if (sp == NULL)
        sp = end;
    *key = s;
    *p = sp;
    *len = (size_t)(end - sp);
    return (size_t)(sp - s);
}

static const struct get_queue_reads *get_queue_reads;   /* Kestrel's dialect */

void get_set_queue_reads(const struct get_queue_reads *r) {
    get_queue_reads = r;
}

/* One key's check: REPLY_COUNT when it may be looked up. */
static enum reply_id get_check_key(conn *c, const struct text_get *g, const char *key, size_t n) {
    if (n > ITEM_KEY_MAX)
        return REPLY_BAD_FORMAT;
    return g->queue_reads && get_queue_reads != NULL ? get_queue_reads->check(c, key, n, g->single) : REPLY_COUNT;
}

/* Checks every key of keys[0..len) before any is looked up, in one walk:
 * REPLY_COUNT when all are fine, else the error to answer alone (a key
 * too long first, wherever it is, then the first Kestrel read refused). */
static enum reply_id get_check(conn *c, const struct text_get *g, char *keys, size_t len) {
    enum reply_id first = REPLY_COUNT, r;
    char *p = keys, *key;
    size_t left = len, n;

    while ((n = get_next_key(&p, &left, &key)) > 0) {
        if (n > ITEM_KEY_MAX)
            return REPLY_BAD_FORMAT;
        if (first == REPLY_COUNT && (r = get_check_key(c, g, key, n)) != REPLY_COUNT)
            first = r;
    }
    return first;
}

/* "VALUE <key> <flags> <bytes> [<cas>]" and the value; the reply takes
 * over the reference to it. A small value goes into the same reserve as
 * its line. */
static inline void get_value_out(conn *c, item *it, bool with_cas) {
    size_t copy = it->nbytes <= CONN_COPY_MAX ? it->nbytes : 0;
    char *p = conn_out_reserve(c, 6 + it->nkey + 1 + 10 + 1 + 10 + 1 + 20 + 2 + copy);
    char *q = p;

    memcpy(q, "VALUE ", 6);
    q += 6;
    memcpy(q, item_key(it), it->nkey);
    q += it->nkey;
    *q++ = ' ';
    q += parse_format_u64(q, item_flags(it));
    *q++ = ' ';
    q += parse_format_u64(q, it->nbytes - 2);
    if (with_cas) {
        *q++ = ' ';
        q += parse_format_u64(q, store_client_cas(it));
    }
    *q++ = '\r';
    *q++ = '\n';
    memcpy(q, item_value(it), copy);
    conn_out_commit(c, (size_t)(q - p) + copy);
    if (copy > 0)
        item_release(it);
    else
        conn_out_item(c, it, item_value(it), it->nbytes);
}

/* Counts a cache lookup's hit or miss (touch: gat's counters) and queues
 * the hit's value. */
static inline void get_found_out(conn *c, item *it, bool touch, bool with_cas) {
    if (it == NULL) {
        stats_incr(touch ? STATS_TOUCH_MISSES : STATS_GET_MISSES);
        return;
    }
    stats_incr(touch ? STATS_TOUCH_HITS : STATS_GET_HITS);
    get_value_out(c, it, with_cas);
}

/* A key that holds a queue, or names one before a '/': a Kestrel read.
 * False when the read waits (the wait writes END). */
static bool get_kestrel(conn *c, const struct text_get *g, const char *key, size_t nkey, item *q) {
    enum get_queue_result r = get_queue_reads != NULL ? get_queue_reads->get(c, key, nkey, q, g->single, g->with_cas)
                                                      : GETQ_NOT_QUEUE;

    switch (r) {
    case GETQ_WAIT:
        return false;
    case GETQ_NOT_QUEUE:
        stats_incr(STATS_GET_MISSES);
        return true;
    default:
        stats_incr(STATS_GET_HITS);
        return true;
    }
}

/* Looks up one key and queues its answer. False when a Kestrel read
 * waits: the line is over. */
static bool get_one(conn *c, const struct text_get *g, const char *key, size_t nkey) {
    item *it;

    stats_incr(g->touch ? STATS_CMD_TOUCH : STATS_CMD_GET);
    it = g->touch ? store_get_touch(key, nkey, g->exptime)
                  : store_get_any_hv(key, nkey, ahead_hash(c, key, nkey));
    /* Cache values answer, a queue through Kestrel's reads (not gat); any
     * other structure (a list, a tree-counter object) reads as a miss. */
    if (it != NULL && it->type != ITEM_STRING && (g->touch || it->type != ITEM_QUEUE)) {
        item_release(it);
        it = NULL;
    }
    detail_get(key, nkey, it != NULL && it->type == ITEM_STRING);
    watch_fetch(c, key, nkey, it != NULL && it->type == ITEM_STRING ? it : NULL);
    if (!g->touch && (it == NULL || it->type == ITEM_QUEUE)) {
        bool go_on = true;
        if (g->queue_reads)
            go_on = get_kestrel(c, g, key, nkey, it);
        else
            stats_incr(STATS_GET_MISSES);
        if (it != NULL)
            item_release(it);
        return go_on;
    }
    get_found_out(c, it, g->touch, g->with_cas);
    return true;
}

bool get_quick(conn *c, const char *key, size_t nkey, uint32_t hv, bool with_cas) {
    item *it;

    if (conn_out_full(c) || memchr(key, '/', nkey) != NULL)
        return false;
    it = store_get_any_hv(key, nkey, hv);
    if (it != NULL && it->type != ITEM_STRING) {
        item_release(it);   /* a queue or structure: the full path judges it */
        return false;
    }
    stats_incr(STATS_CMD_GET);
    detail_get(key, nkey, it != NULL);
    watch_fetch(c, key, nkey, it);
    get_found_out(c, it, false, with_cas);
    conn_out_reply(c, REPLY_END);
    return true;
}

static void get_resume(conn *c);

/* Answers the keys left in g; pauses when the output is full. In a
 * multi-get, each key's two successors are found, and fetched ahead
 * (ahead.c), before the key is looked up. */
static void get_run(conn *c, struct text_get *g) {
    char *p = g->keys, *key, *next_key, *after = NULL;
    size_t len = g->len, n, next_n, after_n;

    if (g->single) {
        key = p;    /* the one key, alone in g->keys (get_line) */
        n = len;
        p += len;
        len = 0;
    } else {
        n = get_next_key(&p, &len, &key);
    }
    while (n > 0) {
        char *q = p;
        size_t qlen = len;
        if (conn_out_full(c)) {
            c->resume = get_resume;     /* g->keys still holds key */
            return;
        }
        next_key = q;
        next_n = 0;
        if (!g->single) {
            char *r;
            size_t rlen;
            next_n = get_next_key(&q, &qlen, &next_key);
            r = q;
            rlen = qlen;
            after_n = next_n > 0 ? get_next_key(&r, &rlen, &after) : 0;
            ahead_keys(c, next_key, next_n, after, after_n);
        }
        g->keys = p;
        g->len = len;
        if (!get_one(c, g, key, n)) {
            g->active = false;
            return;
        }
        key = next_key;
        n = next_n;
        p = q;
        len = qlen;
    }
    if (!g->streaming) {
        conn_out_reply(c, REPLY_END);
        g->active = false;
    }
}

static void get_resume(conn *c) {
    get_run(c, c->tget);
}

/* Ends the reply with err: alone when nothing went out yet, after the
 * values already sent otherwise. A streaming line is skipped to its end. */
static void get_fail(conn *c, struct text_get *g, enum reply_id err) {
    if (!c->out_sent)
        conn_rollback(c, &g->mark);
    conn_out_reply(c, err);
    g->skipping = g->streaming;
    g->active = g->streaming;
}

/* Sets up g for a new line. */
static struct text_get *get_begin(conn *c, bool with_cas, bool touch, rel_time_t exptime) {
    struct text_get *g = get_state(c);

    if (g == NULL) {
        conn_out_reply(c, REPLY_OOM);
        return NULL;
    }
    memset(g, 0, sizeof(*g));
    g->active = true;
    g->with_cas = with_cas;
    g->touch = touch;
    g->exptime = exptime;
    c->out_sent = false;
    conn_mark_out(c, &g->mark);
    return g;
}

/* The line's first key in *key, *n (0: none): true when no other follows. */
static bool get_first_key(char *keys, size_t len, char **key, size_t *n) {
    *n = get_next_key(&keys, &len, key);
    while (len > 0 && *keys == ' ') {
        keys++;
        len--;
    }
    return *n > 0 && len == 0;
}

static enum conn_parse_result get_line(conn *c, char *keys, size_t len, bool with_cas, bool touch,
                                       rel_time_t exptime) {
    struct text_get *g = get_begin(c, with_cas, touch, exptime);
    enum reply_id err;
    char *key;
    size_t n;

    if (g == NULL)
        return PARSE_DONE;
    g->queue_reads = !touch;
    g->single = get_first_key(keys, len, &key, &n);
    if (g->single) {
        keys = key;     /* the one key: checked and looked up without a walk */
        len = n;
        err = get_check_key(c, g, key, n);
    } else {
        err = get_check(c, g, keys, len);
    }
    if (err != REPLY_COUNT) {
        get_fail(c, g, err);
        return PARSE_DONE;
    }
    g->keys = keys;
    g->len = len;
    get_run(c, g);
    return PARSE_DONE;
}

/* "gat <exptime> <key>+": the first token after the verb is the exptime. */
static void get_touch(conn *c, char *rest, size_t len, bool with_cas) {
    char *sp = memchr(rest, ' ', len);
    size_t elen = sp != NULL ? (size_t)(sp - rest) : len;
    char buf[32];
    int32_t exptime;

    if (elen >= sizeof(buf)) {
        conn_out_reply(c, REPLY_BAD_EXPTIME);
        return;
    }
    memcpy(buf, rest, elen);
    buf[elen] = '\0';
    if (!parse_i32(buf, &exptime)) {
        conn_out_reply(c, REPLY_BAD_EXPTIME);
        return;
    }
    get_line(c, rest + elen, len - elen, with_cas, true, clock_exptime(exptime));
}

/* ---- the verbs (entries of the command table) ---- */

/* get (arg 0) and gets (arg 1: with CAS); without a key: ERROR, as in
 * memcached. */
enum conn_parse_result get_cmd_get(conn *c, struct cmd_line *l) {
    if (l->nrest == 0) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    return get_line(c, l->rest, l->nrest, l->arg != 0, false, 0);
}

/* gat (arg 0) and gats (arg 1); "gat <exptime>" without keys answers END. */
enum conn_parse_result get_cmd_gat(conn *c, struct cmd_line *l) {
    if (l->nrest == 0)
        conn_out_reply(c, REPLY_ERROR);
    else
        get_touch(c, l->rest, l->nrest, l->arg != 0);
    return PARSE_DONE;
}

/* ---- lines longer than the read buffer ---- */

/* Answers the complete keys of the streaming line now in the buffer. */
enum conn_parse_result get_stream_more(conn *c) {
    struct text_get *g = c->tget;
    char *p = c->rbuf + c->rpos, *end;
    size_t avail = c->rlen - c->rpos, len;
    char *nl = memchr(p, '\n', avail);

    if (nl != NULL) {
        len = (size_t)(nl - p);
        conn_consume(c, len + 1);
        if (len > 0 && p[len - 1] == '\r')
            len--;
        g->streaming = false;
    } else {
        end = p + avail;
        while (end > p && end[-1] != ' ')
            end--;
        if (end == p && avail <= ITEM_KEY_MAX)
            return PARSE_MORE;      /* one partial key: wait for the rest */
        len = end == p ? avail : (size_t)(end - p);
        conn_consume(c, len);
    }
    if (g->skipping) {
        g->active = g->streaming;
        return PARSE_DONE;
    }
    if (get_check(c, g, p, len) != REPLY_COUNT) {
        get_fail(c, g, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    g->keys = p;
    g->len = len;
    get_run(c, g);
    return PARSE_DONE;
}

enum conn_parse_result get_stream_start(conn *c, char *line, size_t avail) {
    size_t skip = 0, verb;
    struct text_get *g;

    while (skip < avail && line[skip] == ' ')
        skip++;
    verb = line[skip + 3] == 's' ? 4 : 3;
    g = get_begin(c, verb == 4, false, 0);
    if (g == NULL)
        return PARSE_CLOSE;
    g->streaming = true;
    conn_consume(c, skip + verb);
    return get_stream_more(c);
}

/* The command table's entries of the retrieval verbs: the keys are walked in place, not tokenized (proto/cmd.h). */
const struct cmd_def get_cmds[] = {
    { "get", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0, "read values (a queue key: pops a message)" },
    { "gets", get_cmd_get, 1, CMD_ANY, CMD_RAW, 1, "read values with their CAS (a queue key: pops a message)" },
    { "gat", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 0, "read values and set their TTL" },
    { "gats", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 1, "read values with their CAS and set their TTL" },
    { "bget", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0, "read values (memcached's old alias of get)" }, /* memcached's legacy alias of get */
    { NULL, NULL, 0, 0, 0, 0, NULL },
};

const struct conn_hooks get_conn_hooks = { "get", get_conn_free, NULL };
