/*
 * proto/readonly: the write verbs by name, and where their data blocks'
 * lengths are: `block` is the token (the verb is token 0) of the first
 * length, `nblocks` how many follow it (-1: every number token from
 * there, as lpush and qpushn take them); and the verbs a replica serves.
 * Every verb is in one list or the other: a verb in neither is refused
 * on a replica, and a server started with --debug (every test's) does
 * not start with one (readonly_check).
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/parse.h"
#include "base/settings.h"
#include "repl/repl.h"
#include "repl/replica.h"
#include "proto/proto_bin.h"
#include "proto/readonly.h"

struct readonly_verb {
    const char *name;
    int8_t block, nblocks;
};

#define READONLY_MG (-2)        /* mg: a write only with its T (touch) or N (vivify) flag */

static const struct readonly_verb readonly_verbs[] = {
    /* cache values */
    { "set", 4, 1 }, { "add", 4, 1 }, { "replace", 4, 1 }, { "append", 4, 1 }, { "prepend", 4, 1 },
    { "cas", 4, 1 }, { "incr", 0, 0 }, { "decr", 0, 0 }, { "delete", 0, 0 }, { "touch", 0, 0 },
    { "gat", 0, 0 }, { "gats", 0, 0 }, { "flush_all", 0, 0 },
    { "ms", 2, 1 }, { "md", 0, 0 }, { "ma", 0, 0 }, { "mg", 0, READONLY_MG },
    /* queues */
    { "qcreate", 0, 0 }, { "qpush", 4, 1 }, { "qpushn", 5, -1 }, { "qpop", 0, 0 }, { "qpopany", 0, 0 },
    { "qack", 0, 0 }, { "qrelease", 0, 0 }, { "qtouch", 0, 0 }, { "qpurge", 0, 0 }, { "qpause", 0, 0 },
    { "qredrive", 0, 0 }, { "qkick", 0, 0 },
    /* lists */
    { "lcreate", 0, 0 }, { "lpush", 2, -1 }, { "rpush", 2, -1 }, { "lpushx", 2, -1 }, { "rpushx", 2, -1 },
    { "lpop", 0, 0 }, { "rpop", 0, 0 }, { "lset", 3, 1 }, { "linsert", 3, 2 }, { "ltrim", 0, 0 },
    { "lrem", 3, 1 }, { "lmove", 0, 0 }, { "lmpop", 0, 0 },
    /* tree counters */
    { "ctdef", 0, 0 }, { "ctundef", 0, 0 }, { "ctobj", 0, 0 }, { "ctlimits", 0, 0 }, { "ctraise", 0, 0 },
    { "ctincr", 0, 0 }, { "ctincrn", 0, 0 },
    /* tables (their values are tokens of the line: no data blocks) */
    { "tcreate", 0, 0 }, { "tindex", 0, 0 }, { "tdropindex", 0, 0 }, { "tdrop", 0, 0 }, { "tinsert", 0, 0 },
    { "tput", 0, 0 }, { "tupdate", 0, 0 }, { "tdel", 0, 0 },
    /* a raw record would not be the primary's */
    { "debugrecord", 0, 0 },
};

/* The verbs of the server itself: served on a replica, stale or not. */
static const char *const readonly_server[] = {
    "mn", "stats", "version", "verbosity", "quit", "shutdown", "help", "cache_memlimit", "snapshot",
    "lru_crawler", "slabs", "lru", "watch", "refresh_certs", "replicaof", "psync", "wait",
    /* test hooks of the server's own (not the keyspace's) */
    "debugtime", "debugdeadpause", "debughashpause", "debugctreehold", "debugcrash", "debugsnappause",
    "debugfault", "debuggrouppause",
};

/* The verbs that read the keyspace: served on a replica, unless its link
 * is not up and --replica-serve-stale is no. */
static const char *const readonly_reads[] = {
    "get", "gets", "bget", "me", "kscan", "kscanclose",     /* and mg without T or N */
    "qpeek", "qpending", "qstats", "qinfo", "qlist",
    "llen", "lrange", "lindex", "lexists", "lpos",
    "ctcounter", "ctcounters", "ctinfo", "ctchildren", "ctget", "ctvalues", "ctactive", "ctperiods",
    /* tables: reads, and cursors (the replica's own) */
    "tget", "tselect", "tscan", "tnext", "tclose", "tcursors", "tinfo", "tlist",
};

#define READONLY_TOKENS 64

static const struct readonly_verb *readonly_find(const char *name) {
    size_t i;

    for (i = 0; i < sizeof(readonly_verbs) / sizeof(readonly_verbs[0]); i++)
        if (strcmp(readonly_verbs[i].name, name) == 0)
            return &readonly_verbs[i];
    return NULL;
}

/* Splits line at spaces into at most READONLY_TOKENS tokens (in place). */
static int readonly_tokens(char *line, size_t len, char **v) {
    char *p = line, *end = line + len;
    int n = 0;

    while (p < end && n < READONLY_TOKENS) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end)
            break;
        v[n++] = p;
        while (p < end && *p != ' ')
            p++;
        if (p < end)
            *p++ = '\0';
    }
    return n;
}

/* The bytes of the data blocks w's line announces (each with its "\r\n"):
 * true, or false when a length cannot be read. */
static bool readonly_blocks(const struct readonly_verb *w, char **v, int n, size_t *total) {
    int i, last = w->nblocks < 0 ? n : w->block + w->nblocks;
    uint64_t len;

    *total = 0;
    if (w->nblocks == 0 || w->nblocks == READONLY_MG)
        return true;
    if (last > n || w->block >= n)
        return false;
    for (i = w->block; i < last; i++) {
        if (!parse_u64_digits(v[i], &len) || len > (1ULL << 31)) {
            if (w->nblocks < 0 && i > w->block)
                break;      /* the options after the lengths */
            return false;
        }
        *total += (size_t)len + 2;
    }
    return true;
}

/* Whether an mg line's flags (from token 2) touch or vivify. */
static bool readonly_mg_writes(char **v, int n) {
    int i;

    for (i = 2; i < n; i++)
        if (v[i][0] == 'T' || v[i][0] == 'N')
            return true;
    return false;
}

static bool readonly_in(const char *const *list, size_t n, const char *name) {
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static bool readonly_is_read(const char *name) {
    return readonly_in(readonly_reads, sizeof(readonly_reads) / sizeof(readonly_reads[0]), name);
}

static bool readonly_is_server(const char *name) {
    return readonly_in(readonly_server, sizeof(readonly_server) / sizeof(readonly_server[0]), name);
}

/* A replica that serves no stale reads and whose link is not up, or
 * that has been behind longer than --replica-max-lag. */
static bool readonly_stale(void) {
    return !settings.repl_serve_stale &&
           (!replica_link_up() || (settings.repl_max_lag > 0 && replica_behind_for(settings.repl_max_lag)));
}

bool readonly_stale_replica(void) {
    return !settings.repl_serve_stale && repl_is_replica() && readonly_stale();
}

/* Why a stale read is refused. */
static enum reply_id readonly_stale_reply(void) {
    return replica_link_up() ? REPLY_REPL_BEHIND : REPLY_REPL_STALE;
}

bool readonly_refuse(conn *c, const struct cmd_def *d, struct cmd_line *l, enum conn_parse_result *res) {
    const struct readonly_verb *w = readonly_find(d->name);
    char *v[READONLY_TOKENS], *line;
    size_t total;
    bool framed;
    int n;

    if (w == NULL && readonly_is_server(d->name))
        return false;
    if (w == NULL && readonly_is_read(d->name)) {
        if (!readonly_stale())
            return false;
        cmd_reply(c, readonly_stale_reply());     /* reads have no data blocks */
        *res = PARSE_DONE;
        return true;
    }
    if (w == NULL) {        /* in no list (a bug readonly_check reports): refused */
        *res = cmd_refuse_unframed(c, REPLY_READ_ONLY);
        return true;
    }
    if ((line = malloc(l->len + 1)) == NULL) {
        *res = cmd_refuse_unframed(c, REPLY_READ_ONLY);     /* refused all the same */
        return true;
    }
    memcpy(line, l->line, l->len + 1);      /* split here: a line let through stays whole */
    n = readonly_tokens(line, l->len, v);
    if (w->nblocks == READONLY_MG && !readonly_mg_writes(v, n)) {
        free(line);
        if (!readonly_stale())
            return false;
        cmd_reply(c, readonly_stale_reply());
        *res = PARSE_DONE;
        return true;
    }
    c->noreply = (d->flags & CMD_NOREPLY) && n > 1 && strcmp(v[n - 1], "noreply") == 0;
    framed = readonly_blocks(w, v, n, &total);
    free(line);
    if (!framed) {
        *res = cmd_refuse_unframed(c, REPLY_READ_ONLY);
        return true;
    }
    cmd_reply(c, REPLY_READ_ONLY);
    if (total > 0)
        conn_start_swallow(c, total);
    *res = PARSE_DONE;
    return true;
}

static void readonly_check_one(const struct cmd_def *d, void *ctx) {
    int *unclassified = ctx;

    if (readonly_find(d->name) == NULL && !readonly_is_read(d->name) && !readonly_is_server(d->name)) {
        log_msg(0, "BUG: verb %s is neither a read nor a write for replicas (proto/readonly.c)", d->name);
        (*unclassified)++;
    }
}

int readonly_check(void) {
    int unclassified = 0;

    cmd_each(readonly_check_one, &unclassified);
    return unclassified;
}

bool readonly_bin_stale_read(uint8_t cmd) {
    switch (cmd) {
    case BIN_CMD_GET: case BIN_CMD_GETK:
        return readonly_stale();
    }
    return false;
}

bool readonly_bin_write(uint8_t cmd) {
    switch (cmd) {
    case BIN_CMD_SET: case BIN_CMD_ADD: case BIN_CMD_REPLACE: case BIN_CMD_DELETE:
    case BIN_CMD_INCREMENT: case BIN_CMD_DECREMENT: case BIN_CMD_FLUSH: case BIN_CMD_APPEND:
    case BIN_CMD_PREPEND: case BIN_CMD_TOUCH: case BIN_CMD_GAT: case BIN_CMD_GATK:
        return true;
    }
    return false;
}
