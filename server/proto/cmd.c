/*
 * cmd: the command table of the text protocol, its lookup and dispatch,
 * and the helpers that verbs share.
 *
 * The table below lists every verb once. At start-up its names go into a
 * small open-addressing hash (FNV-1a, linear probing), so a request line
 * costs one hash of its verb and, usually, one compare. The dispatcher
 * then checks the token count (outside the verb's range: `ERROR`, as
 * memcached answers) and runs the handler.
 */
#include <ctype.h>
#include <string.h>

#include "proto/ahead.h"
#include "proto/auth.h"
#include "base/clock.h"
#include "proto/cmd.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "proto/proto_get.h"
#include "proto/proto_meta.h"
#include "base/settings.h"
#include "store/store.h"
#include "verbs/verb_admin.h"
#include "verbs/verb_classic.h"
#include "verbs/verb_counter.h"
#include "verbs/verb_list.h"
#include "verbs/verb_scan.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_batch.h"
#include "verbs/verb_queue_move.h"
#include "verbs/verb_queue_info.h"
#include "verbs/verb_operator.h"
#include "verbs/verb_tls.h"
#include "ops/watch.h"

#define CMD_HASH_SIZE 256           /* a power of two, well above the verbs */

/* An entry may leave out its help line (NULL): no warning for that. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct cmd_def cmd_defs[] = {
    /* storage (verb_classic.c) */
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
    /* retrieval (proto_get.c): the keys are walked in place, not tokenized */
    { "get", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0, "read values (a queue key: pops a message)" },
    { "gets", get_cmd_get, 1, CMD_ANY, CMD_RAW, 1, "read values with their CAS (a queue key: pops a message)" },
    { "gat", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 0, "read values and set their TTL" },
    { "gats", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 1, "read values with their CAS and set their TTL" },
    { "bget", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0, "read values (memcached's old alias of get)" }, /* memcached's legacy alias of get */
    /* meta (proto_meta.c): flags are parsed there */
    { "mg", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta get" },
    { "ms", meta_cmd, 1, CMD_ANY, CMD_RAW | CMD_DATA, 0, "meta set" },
    { "md", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta delete" },
    { "ma", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta arithmetic" },
    { "mn", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta no-op: ends a pipeline" },
    { "me", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta debug: one line about an item" },
    /* the server (verb_admin.c) */
    { "stats", admin_stats, 1, CMD_ANY, 0, 0, "server figures: stats [settings|items|slabs|sizes|conns|detail|cachedump|reset]" },
    { "flush_all", admin_flush_all, 1, 3, CMD_NOREPLY | CMD_ADMIN, 0, "invalidate every item, now or after a delay" },
    { "version", admin_version, 1, CMD_ANY, 0, 0, "the memcached protocol level" },
    { "verbosity", admin_verbosity, 2, 3, CMD_NOREPLY | CMD_ADMIN, 0, "set the log level" },
    { "quit", admin_quit, 1, CMD_ANY, 0, 0, "close the connection" },
    { "shutdown", admin_shutdown, 1, CMD_ANY, CMD_ADMIN, 0, "stop the server (with -A)" },
    { "cache_memlimit", admin_cache_memlimit, 2, 3, CMD_NOREPLY | CMD_ADMIN, 0, "set -m, in megabytes" },
    { "debugtime", admin_debugtime, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "move the clock (with --debug)" },
    { "debugdeadpause", admin_debugdeadpause, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "hold the next dead letters on their way (with --debug)" },
    { "debugsnappause", admin_debugsnappause, 3, 3, CMD_DEBUG | CMD_ADMIN, 0, "hold the next snapshot before its log cut or its copy: debugsnappause cut|copy <ms> (with --debug)" },
    { "debugfault", admin_debugfault, 2, 5, CMD_DEBUG | CMD_ADMIN, 0, "make persistence's file calls fail: debugfault <op> <error> [<skip> [<count>]] | clear (with --debug)" },
    { "debugrecord", admin_debugrecord, 4, 4, CMD_DEBUG | CMD_ADMIN, 0, "append a raw log record: debugrecord <type> <op> <hex> (with --debug)" },
    { "snapshot", admin_snapshot, 1, 1, CMD_ADMIN, 0, "write a persistence snapshot (with --data-dir)" },
    /* memcached's operator verbs (dump.c via verb_operator.c) */
    { "lru_crawler", oper_lru_crawler, 1, CMD_ANY, 0, 0, "crawler and key dumps: crawl|metadump|enable|disable|sleep|tocrawl" },
    { "slabs", oper_slabs, 1, CMD_ANY, CMD_NOREPLY, 0, "slab tuning: automove (reassign is disabled)" },
    { "lru", oper_lru, 1, CMD_ANY, CMD_NOREPLY, 0, "LRU tuning: tune (mode, temp_ttl: no maintainer)" },
    { "watch", watch_cmd, 1, CMD_ANY, 0, 0, "stream events: watch [fetchers] [mutations] [evictions]" },
    { "help", cmd_help, 1, 2, 0, 0, "this list, or one verb's line: help [<verb>]" },
    /* queues (verb_queue.c) */
    { "qcreate", qverb_create, 2, 7, 0, 0, "create a queue: qcreate <q> [lease=] [maxdeliver=] [maxlen=] [dlq=] [maxage=]" },
    { "qpush", qverb_push, 5, CMD_ANY, CMD_DATA | CMD_NOREPLY, 0, "push a message: qpush <q> <flags> <delay> <bytes> [<priority>]" },
    { "qpop", qverb_pop, 2, 6, 0, 0, "pop messages: qpop <q> [<count>] [lease=] [wait=] [ack=]" },
    { "qack", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_ACK, "acknowledge popped messages: qack <q> <id> [<id>...]" },
    { "qrelease", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_RELEASE, "give popped messages back: qrelease <q> <id> [<delay>] | <id>... [delay=]" },
    { "qtouch", qbatch_run, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, QVERB_TOUCH, "extend popped messages' leases: qtouch <q> <id> [<lease>] | <id>... [lease=]" },
    { "qpeek", qinfo_peek, 2, 4, 0, 0, "look at messages without popping: qpeek <q> [<count>] | id=<id> | delayed [<count>]" },
    { "qpending", qverb_pending, 2, 5, 0, 0, "list popped, unacknowledged messages: qpending <q> [values] [holders] [<count>]" },
    { "qstats", qverb_stats, 2, 2, 0, 0, "one queue's figures: qstats <q>" },
    { "qpurge", qverb_purge, 2, 3, CMD_NOREPLY, 0, "empty a queue: qpurge <q>" },
    /* moving queued messages back (verb_queue_move.c) */
    { "qredrive", qmverb_redrive, 2, 4, CMD_NOREPLY, 0, "dead letters back to their queues: qredrive <dlq> [<count>]" },
    { "qkick", qmverb_kick, 2, 4, CMD_NOREPLY, 0, "buried messages ready again: qkick <q> [<count>]" },
    { "qpushn", qmverb_pushn, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, 0, "push several messages: qpushn <q> <flags> <delay> <priority> <bytes> [<bytes>...]" },
    { "qpopany", qmverb_popany, 1, CMD_ANY, CMD_RAW, 0, "pop from the first of several queues with a message: qpopany <q1> [<q2>...] [count=] [lease=] [wait=]" },
    /* queue views (verb_queue_info.c) */
    { "qinfo", qinfo_msg, 3, 3, 0, 0, "one message's figures: qinfo <q> <id>" },
    { "qlist", qinfo_list, 1, 3, 0, 0, "the queues with their sizes, in name order: qlist [count=] [after=]" },
    /* tree counters (verb_counter.c) */
    { "ctdef", ctverb_def, 3, 5, 0, 0, "define a counter: ctdef <counter> <type>[:<keep>[:m]],... [aggregate=] [quantize=]" },
    { "ctcounter", ctverb_counter, 2, 2, 0, 0, "a counter's settings: ctcounter <counter>" },
    { "ctcounters", ctverb_counters, 1, 3, 0, 0, "the counters' settings: ctcounters [count=] [after=<counter>]" },
    { "ctundef", ctverb_undef, 2, 3, CMD_NOREPLY, 0, "delete an unused counter: ctundef <counter>" },
    { "ctobj", ctverb_obj, 2, 5, 0, 0, "create an object: ctobj <key> [parent=] [quantize=] [limits=]" },
    { "ctlimits", ctverb_limits, 2, 4, 0, CTVERB_REDEFINE, "redefine an object's limits: ctlimits <key> [quantize=] [limits=]" },
    { "ctraise", ctverb_limits, 3, 3, 0, CTVERB_RAISE, "raise an object's limits: ctraise <key> limits=..." },
    { "ctinfo", ctverb_info, 2, 2, 0, 0, "an object's settings: ctinfo <key>" },
    { "ctchildren", ctverb_children, 2, 4, 0, 0, "an object's children: ctchildren <key> [count=] [after=]" },
    { "ctincr", ctverb_incr, 6, 8, CMD_NOREPLY, 0, "increment, rolled up: ctincr <key> <counter> <type> <time> <delta> [values]" },
    { "ctget", ctverb_get, 5, 5, 0, 0, "one value: ctget <key> <counter> <type> <period>" },
    { "ctvalues", ctverb_values, 2, 8, 0, 0, "an object's values: ctvalues <key> [counters=] [type=] [periods=] [count=] [after=]" },
    { "ctactive", ctverb_active, 1, 4, 0, 0, "objects changed lately: ctactive [since=] [count=] [after=]" },
    { "ctperiods", ctverb_periods, 1, 7, 0, 0, "periods holding values: ctperiods [counters=] [type=] [periods=] [count=] [after=]" },
    /* lists (verb_list.c): pushes take more tokens than the table's limit */
    { "lcreate", lverb_create, 2, 3, 0, 0, "create a list: lcreate <key> [maxlen=]" },
    { "lpush", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_LPUSH, "push at the head: lpush <key> <bytes> [<bytes>...]" },
    { "rpush", lverb_push, 1, CMD_ANY, CMD_RAW | CMD_DATA | CMD_NOREPLY, LVERB_RPUSH, "push at the tail: rpush <key> <bytes> [<bytes>...]" },
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
    /* key scans (verb_scan.c) */
    { "kscan", sverb_scan, 2, 7, 0, 0, "walk the keys: kscan 0|<cursor> [count=] [match=] [type=] [minttl=] [maxttl=]" },
    { "kscanclose", sverb_close, 2, 2, 0, 0, "end a scan: kscanclose <cursor>" },
    /* TLS (verb_tls.c) */
    { "refresh_certs", tls_cmd_refresh, 1, CMD_ANY, CMD_NOREPLY | CMD_ADMIN, 0, "reload the TLS certificate, key and CA files (with -Z)" },
    { NULL, NULL, 0, 0, 0, 0 },
};
#pragma GCC diagnostic pop

static const struct cmd_def *cmd_hash[CMD_HASH_SIZE];
static size_t cmd_hash_len[CMD_HASH_SIZE];     /* strlen of each entry's name */

static uint32_t cmd_hash_of(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

void cmd_init(void) {
    const struct cmd_def *d;

    memset(cmd_hash, 0, sizeof(cmd_hash));
    for (d = cmd_defs; d->name != NULL; d++) {
        uint32_t i = cmd_hash_of(d->name, strlen(d->name)) & (CMD_HASH_SIZE - 1);
        while (cmd_hash[i] != NULL)
            i = (i + 1) & (CMD_HASH_SIZE - 1);
        cmd_hash[i] = d;
        cmd_hash_len[i] = strlen(d->name);
    }
}

const struct cmd_def *cmd_table(void) {
    return cmd_defs;
}

/* Whether name (n bytes long) is verb[0..n): verbs are a few bytes, a
 * loop is cheaper than a call. */
static bool cmd_name_is(const char *name, const char *verb, size_t n) {
    size_t i;

    for (i = 0; i < n; i++)
        if (name[i] != verb[i])
            return false;
    return true;
}

/* The verb verb[0..n), or NULL. */
static const struct cmd_def *cmd_lookup(const char *verb, size_t n) {
    uint32_t i = cmd_hash_of(verb, n) & (CMD_HASH_SIZE - 1);
    const struct cmd_def *d;

    while ((d = cmd_hash[i]) != NULL) {
        if (cmd_hash_len[i] == n && cmd_name_is(d->name, verb, n))
            return d->flags & CMD_DEBUG && !settings.debug ? NULL : d;
        i = (i + 1) & (CMD_HASH_SIZE - 1);
    }
    return NULL;
}

/* An unknown command whose last token starts with "HTTP/" (an HTTP
 * request line such as "GET / HTTP/1.1"): memcached hangs up silently. */
static bool cmd_is_http(const struct cmd_line *l) {
    return l->n >= 2 && l->n <= CMD_MAX_TOKENS && strncmp(l->v[l->n - 1], "HTTP/", 5) == 0;
}

/* The commonest lines skip the table when ahead.c noted them: a one-key
 * get, and a set whose numbers are plain digits with nothing after them.
 * Their walk through the table, the tokenizer and the number parsers
 * costs more than their lookup (doc/performance.md, "Pipelined
 * headroom"). False when the line must take the whole way. */
static bool cmd_quick(conn *c, const char *line, size_t len) {
    struct ahead_set set;
    const char *key;
    size_t nkey;
    uint32_t hv;
    bool with_cas;

    if (ahead_get_line(c, line, len, &key, &nkey, &hv, &with_cas))
        return get_quick(c, key, nkey, hv, with_cas);
    if (!ahead_set_line(c, line, len, &set))
        return false;
    classic_set_quick(c, &set);
    return true;
}

enum conn_parse_result cmd_dispatch(conn *c, char *line, size_t len) {
    const struct cmd_def *d;
    struct cmd_line l;
    size_t nverb;

    c->noreply = false;
    c->last_cmd = clock_now();
    if (cmd_quick(c, line, len))
        return PARSE_DONE;
    while (len > 0 && *line == ' ') {
        line++;
        len--;
    }
    for (nverb = 0; nverb < len && line[nverb] != ' '; nverb++)
        ;
    l.line = line;
    l.len = len;
    l.rest = line + nverb;
    while (l.rest < line + len && *l.rest == ' ')
        l.rest++;
    l.nrest = len - (size_t)(l.rest - line);
    d = nverb > 0 ? cmd_lookup(line, nverb) : NULL;
    l.arg = d != NULL ? d->arg : 0;
    if (d != NULL && (d->flags & CMD_RAW))
        return d->run(c, &l);
    l.n = parse_tokenize(line, len, l.v, l.vlen, CMD_MAX_TOKENS);
    if (d == NULL) {
        if (cmd_is_http(&l))
            return PARSE_CLOSE;
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (l.n < d->min_tokens || (l.n > d->max_tokens && d->max_tokens != CMD_ANY)) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if ((d->flags & CMD_ADMIN) && !auth_may_admin(c)) {
        c->noreply = (d->flags & CMD_NOREPLY) && cmd_is_noreply(&l, l.n - 1);
        cmd_reply(c, REPLY_NOT_ADMIN);
        return PARSE_DONE;
    }
    return d->run(c, &l);
}

/* help [<verb>]: "HELP <verb> <what it does>" per verb, then END (mcds's
 * own verb, for telnet users). Verbs only --debug enables are left out. */
static void cmd_help_line(conn *c, const struct cmd_def *d) {
    size_t nn = strlen(d->name), nh = d->help != NULL ? strlen(d->help) : 0;
    char *p = conn_out_reserve(c, nn + nh + 8);

    memcpy(p, "HELP ", 5);
    memcpy(p + 5, d->name, nn);
    p[5 + nn] = ' ';
    memcpy(p + 6 + nn, d->help != NULL ? d->help : "", nh);
    memcpy(p + 6 + nn + nh, "\r\n", 2);
    conn_out_commit(c, nn + nh + 8);
}

enum conn_parse_result cmd_help(conn *c, struct cmd_line *l) {
    const struct cmd_def *d;

    if (l->n == 2) {
        d = cmd_lookup(l->v[1], l->vlen[1]);
        if (d == NULL) {
            conn_out_reply(c, REPLY_HELP_UNKNOWN);
            return PARSE_DONE;
        }
        cmd_help_line(c, d);
    } else {
        for (d = cmd_defs; d->name != NULL; d++)
            if (!(d->flags & CMD_DEBUG) || settings.debug)
                cmd_help_line(c, d);
    }
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

/* ---- helpers ---- */

bool cmd_is_noreply(const struct cmd_line *l, int at) {
    return at >= 1 && l->n > at && at < CMD_MAX_TOKENS && strcmp(l->v[at], "noreply") == 0;
}

void cmd_reply(conn *c, enum reply_id r) {
    if (!c->noreply)
        conn_out_reply(c, r);
}

void cmd_created_reply(conn *c, enum store_status st, enum reply_id oom) {
    conn_out_reply(c, st == STORE_STORED ? REPLY_CREATED : st == STORE_EXISTS ? REPLY_EXISTS
                      : st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : oom);
}

bool cmd_log_ok(conn *c) {
    if (persist_writable())
        return true;
    cmd_reply(c, REPLY_LOG_FAILED);
    return false;
}

void cmd_number_line(conn *c, uint64_t v) {
    char *p = conn_out_reserve(c, 22);
    size_t n = parse_format_u64(p, v);

    p[n] = '\r';
    p[n + 1] = '\n';
    conn_out_commit(c, n + 2);
}

void cmd_client_error(conn *c, const char *text, const char *tok, size_t ntok) {
    size_t nt = strlen(text), i;
    char *p;

    if (c->noreply)
        return;
    if (ntok > CMD_ECHO_MAX)
        ntok = CMD_ECHO_MAX;
    p = conn_out_reserve(c, 13 + nt + ntok + 2);
    memcpy(p, "CLIENT_ERROR ", 13);
    memcpy(p + 13, text, nt);
    for (i = 0; i < ntok; i++)
        p[13 + nt + i] = isprint((unsigned char)tok[i]) ? tok[i] : '?';
    memcpy(p + 13 + nt + ntok, "\r\n", 2);
    conn_out_commit(c, 13 + nt + ntok + 2);
}

void cmd_unknown_option(conn *c, const char *tok) {
    cmd_client_error(c, "unknown option ", tok, strcspn(tok, "="));
}

void cmd_bad_value(conn *c, const char *name) {
    cmd_client_error(c, "bad value for ", name, strlen(name));
}

enum reply_id cmd_extra_tokens(const struct cmd_line *l, int from) {
    int i;

    for (i = from; i < l->n - 1; i++)
        if (cmd_is_noreply(l, i))
            return REPLY_X_NOREPLY_LAST;
    return REPLY_X_TOO_MANY;
}

const char *cmd_option(const char *tok, const char *name) {
    size_t n = strlen(name);

    if (strncmp(tok, name, n) == 0 && tok[n] == '=')
        return tok + n + 1;
    return NULL;
}

bool cmd_parse_count(const char *s, uint32_t max, uint32_t *out) {
    uint64_t v;

    if (!parse_u64_digits(s, &v) || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool cmd_parse_ms(const char *s, uint64_t *ms) {
    uint64_t whole = 0, frac = 0;
    int digits = 0;

    if (!isdigit((unsigned char)*s))
        return false;
    for (; isdigit((unsigned char)*s); s++) {
        whole = whole * 10 + (uint64_t)(*s - '0');
        if (whole > CMD_SECS_MAX)
            return false;
    }
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++) {
            if (digits < 3) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                digits++;
            }
        }
    }
    if (*s != '\0')
        return false;
    for (; digits < 3; digits++)
        frac *= 10;
    *ms = whole * 1000 + frac;
    return true;
}

bool cmd_list_option(conn *c, const char *tok, uint32_t max, enum reply_id bad_count,
                     uint32_t *count, const char **after) {
    const char *v;

    if ((v = cmd_option(tok, "count")) != NULL) {
        if (cmd_parse_count(v, max, count) && *count > 0)
            return true;
        conn_out_reply(c, bad_count);
    } else if ((v = cmd_option(tok, "after")) != NULL) {
        *after = v;
        if (*v != '\0' && strlen(v) <= ITEM_KEY_MAX)
            return true;
        cmd_bad_value(c, "after");
    } else {
        cmd_unknown_option(c, tok);
    }
    return false;
}
