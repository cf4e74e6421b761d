/*
 * cmd: the command table of the text protocol, its lookup and dispatch,
 * and the helpers that verbs share.
 *
 * Each family of verbs gives its table at start-up (verbs/verbs.c says in
 * which order); every name goes into a small open-addressing hash
 * (FNV-1a, linear probing), so a request line costs one hash of its verb
 * and, usually, one compare. The dispatcher then checks the token count
 * (outside the verb's range: `ERROR`, as memcached answers) and runs the
 * handler.
 */
#include <ctype.h>
#include <string.h>

#include "proto/ahead.h"
#include "proto/auth.h"
#include "base/clock.h"
#include "base/log.h"
#include "proto/cmd.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "proto/proto_get.h"
#include "proto/readonly.h"
#include "repl/repl.h"
#include "base/settings.h"
#include "store/store.h"

#define CMD_HASH_SIZE 256           /* a power of two, well above the verbs */

#define CMD_TABLES_MAX 32

static const struct cmd_def *cmd_tables[CMD_TABLES_MAX];   /* in registration order */
static int cmd_ntables;
static void (*cmd_quick_store)(conn *c, const struct ahead_set *s);

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
    memset(cmd_hash, 0, sizeof(cmd_hash));
    cmd_ntables = 0;
    cmd_quick_store = NULL;
}

void cmd_each(void (*fn)(const struct cmd_def *d, void *ctx), void *ctx) {
    const struct cmd_def *d;
    int t;

    for (t = 0; t < cmd_ntables; t++)
        for (d = cmd_tables[t]; d->name != NULL; d++)
            fn(d, ctx);
}

void cmd_register(const struct cmd_def *table) {
    const struct cmd_def *d;

    if (cmd_ntables == CMD_TABLES_MAX)
        return;
    cmd_tables[cmd_ntables++] = table;
    for (d = table; d->name != NULL; d++) {
        uint32_t i = cmd_hash_of(d->name, strlen(d->name)) & (CMD_HASH_SIZE - 1);
        while (cmd_hash[i] != NULL)
            i = (i + 1) & (CMD_HASH_SIZE - 1);
        cmd_hash[i] = d;
        cmd_hash_len[i] = strlen(d->name);
    }
}

void cmd_set_quick_store(void (*fn)(conn *c, const struct ahead_set *s)) {
    cmd_quick_store = fn;
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

    if (readonly_stale_replica())
        return false;       /* its reads take the whole way, to their refusal */
    if (ahead_get_line(c, line, len, &key, &nkey, &hv, &with_cas))
        return get_quick(c, key, nkey, hv, with_cas);
    if (cmd_quick_store == NULL || repl_is_replica() || !ahead_set_line(c, line, len, &set))
        return false;       /* a replica's set takes the whole way, to its refusal */
    cmd_quick_store(c, &set);
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
    if (d != NULL && repl_is_replica()) {
        enum conn_parse_result res;
        if (readonly_refuse(c, d, &l, &res))
            return res;
    }
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
        int t;
        for (t = 0; t < cmd_ntables; t++)
            for (d = cmd_tables[t]; d->name != NULL; d++)
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

enum conn_parse_result cmd_refuse_unframed(conn *c, enum reply_id r) {
    c->noreply = false;
    conn_out_reply(c, r);
    log_msg(1, "<%d a command's data blocks have a length that cannot be read, closing", c->fd);
    return PARSE_CLOSE;
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
