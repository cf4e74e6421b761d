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

#include "cmd.h"
#include "parse.h"
#include "proto_get.h"
#include "proto_meta.h"
#include "settings.h"
#include "store.h"
#include "verb_admin.h"
#include "verb_classic.h"
#include "verb_queue.h"
#include "verb_operator.h"

#define CMD_HASH_SIZE 256           /* a power of two, well above the verbs */

static const struct cmd_def cmd_defs[] = {
    /* storage (verb_classic.c) */
    { "set", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_SET },
    { "add", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_ADD },
    { "replace", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_REPLACE },
    { "append", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_APPEND },
    { "prepend", classic_store, 5, 6, CMD_DATA | CMD_NOREPLY, STORE_PREPEND },
    { "cas", classic_store, 6, 7, CMD_DATA | CMD_NOREPLY, STORE_CAS },
    { "incr", classic_arith, 3, 4, CMD_NOREPLY, 1 },
    { "decr", classic_arith, 3, 4, CMD_NOREPLY, 0 },
    { "delete", classic_delete, 2, 4, CMD_NOREPLY, 0 },
    { "touch", classic_touch, 3, 4, CMD_NOREPLY, 0 },
    /* retrieval (proto_get.c): the keys are walked in place, not tokenized */
    { "get", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0 },
    { "gets", get_cmd_get, 1, CMD_ANY, CMD_RAW, 1 },
    { "gat", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 0 },
    { "gats", get_cmd_gat, 1, CMD_ANY, CMD_RAW, 1 },
    { "bget", get_cmd_get, 1, CMD_ANY, CMD_RAW, 0 }, /* memcached's legacy alias of get */
    /* meta (proto_meta.c): flags are parsed there */
    { "mg", meta_cmd, 1, CMD_ANY, CMD_RAW, 0 },
    { "ms", meta_cmd, 1, CMD_ANY, CMD_RAW | CMD_DATA, 0 },
    { "md", meta_cmd, 1, CMD_ANY, CMD_RAW, 0 },
    { "ma", meta_cmd, 1, CMD_ANY, CMD_RAW, 0 },
    { "mn", meta_cmd, 1, CMD_ANY, CMD_RAW, 0 },
    { "me", meta_cmd, 1, CMD_ANY, CMD_RAW, 0 },
    /* the server (verb_admin.c) */
    { "stats", admin_stats, 1, CMD_ANY, 0, 0 },
    { "flush_all", admin_flush_all, 1, 3, CMD_NOREPLY, 0 },
    { "version", admin_version, 1, CMD_ANY, 0, 0 },
    { "verbosity", admin_verbosity, 2, 3, CMD_NOREPLY, 0 },
    { "quit", admin_quit, 1, CMD_ANY, 0, 0 },
    { "shutdown", admin_shutdown, 1, CMD_ANY, 0, 0 },
    { "cache_memlimit", admin_cache_memlimit, 2, 3, CMD_NOREPLY, 0 },
    { "debugtime", admin_debugtime, 2, 2, CMD_DEBUG, 0 },
    { "snapshot", admin_snapshot, 1, 1, 0, 0 },
    /* memcached's operator verbs (dump.c via verb_operator.c) */
    { "lru_crawler", oper_lru_crawler, 1, CMD_ANY, 0, 0 },
    { "slabs", oper_slabs, 1, CMD_ANY, CMD_NOREPLY, 0 },
    { "lru", oper_lru, 1, CMD_ANY, CMD_NOREPLY, 0 },
    /* queues (verb_queue.c) */
    { "qcreate", qverb_create, 2, 6, 0, 0 },
    { "qpush", qverb_push, 5, 7, CMD_DATA | CMD_NOREPLY, 0 },
    { "qpop", qverb_pop, 2, 6, 0, 0 },
    { "qack", qverb_by_id, 3, 4, CMD_NOREPLY, QVERB_ACK },
    { "qrelease", qverb_by_id, 3, 5, CMD_NOREPLY, QVERB_RELEASE },
    { "qtouch", qverb_by_id, 3, 5, CMD_NOREPLY, QVERB_TOUCH },
    { "qpeek", qverb_peek, 2, 3, 0, 0 },
    { "qpending", qverb_pending, 2, 4, 0, 0 },
    { "qstats", qverb_stats, 2, 2, 0, 0 },
    { "qpurge", qverb_purge, 2, 3, CMD_NOREPLY, 0 },
    { NULL, NULL, 0, 0, 0, 0 },
};

static const struct cmd_def *cmd_hash[CMD_HASH_SIZE];

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
    }
}

const struct cmd_def *cmd_table(void) {
    return cmd_defs;
}

/* The verb verb[0..n), or NULL. */
static const struct cmd_def *cmd_lookup(const char *verb, size_t n) {
    uint32_t i = cmd_hash_of(verb, n) & (CMD_HASH_SIZE - 1);
    const struct cmd_def *d;

    while ((d = cmd_hash[i]) != NULL) {
        if (strncmp(d->name, verb, n) == 0 && d->name[n] == '\0')
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

enum conn_parse_result cmd_dispatch(conn *c, char *line, size_t len) {
    const struct cmd_def *d;
    struct cmd_line l;
    size_t nverb;

    c->noreply = false;
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
    return d->run(c, &l);
}

/* ---- helpers ---- */

bool cmd_is_noreply(const struct cmd_line *l, int at) {
    return at >= 1 && l->n > at && at < CMD_MAX_TOKENS && strcmp(l->v[at], "noreply") == 0;
}

void cmd_reply(conn *c, enum reply_id r) {
    if (!c->noreply)
        conn_out_reply(c, r);
}

void cmd_number_line(conn *c, uint64_t v) {
    char *p = conn_out_reserve(c, 22);
    size_t n = parse_format_u64(p, v);

    p[n] = '\r';
    p[n + 1] = '\n';
    conn_out_commit(c, n + 2);
}

const char *cmd_option(const char *tok, const char *name) {
    size_t n = strlen(name);

    if (strncmp(tok, name, n) == 0 && tok[n] == '=')
        return tok + n + 1;
    return NULL;
}

bool cmd_parse_count(const char *s, uint32_t max, uint32_t *out) {
    uint64_t v;

    if (!isdigit((unsigned char)*s) || !parse_u64(s, &v) || v > max)
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
