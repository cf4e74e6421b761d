/*
 * verb_admin: the verbs about the server rather than a key: stats,
 * flush_all, version, verbosity, quit, shutdown, cache_memlimit, and the
 * debug-only debugtime, answered as memcached 1.6 answers them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ops/detail.h"
#include "ops/dump.h"
#include "ops/stats_conns.h"
#include "base/clock.h"
#include "cache/hash.h"
#include "proto/auth.h"
#include "proto/cmd.h"
#include "base/log.h"
#include "persist/io.h"
#include "persist/persist.h"
#include "base/parse.h"
#include "base/settings.h"
#include "base/stats.h"
#include "ops/stats_report.h"
#include "store/store.h"
#include "types/ctree.h"
#include "types/queue.h"
#include "verbs/verb_admin.h"

/* An immediate flush_all's walk (store_flush_reap_step): a slice per turn
 * of the worker, then the answer. */
static void admin_flush_step(conn *c) {
    if (!store_flush_reap_step(&c->flush.cursor, c->flush.gen)) {
        c->resume = admin_flush_step;
        conn_yield_turn(c);
        return;
    }
    cmd_reply(c, REPLY_OK);
}

enum conn_parse_result admin_flush_all(conn *c, struct cmd_line *t) {
    int32_t delay = 0;
    int nargs;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    nargs = t->n - 1 - (c->noreply ? 1 : 0);
    if (!settings.flush_enabled) {
        cmd_reply(c, REPLY_FLUSH_DISABLED);
        return PARSE_DONE;
    }
    if (nargs >= 1 && !parse_i32(t->v[1], &delay)) {     /* as memcached: the first */
        cmd_reply(c, REPLY_BAD_EXPTIME);
        return PARSE_DONE;
    }
    stats_incr(STATS_CMD_FLUSH);
    if (store_flush(delay, &c->flush.gen) == STORE_LOG_FAILED) {
        cmd_reply(c, REPLY_LOG_FAILED);
    } else if (c->flush.gen == 0) {
        cmd_reply(c, REPLY_OK);
    } else {
        c->flush.cursor = 0;
        admin_flush_step(c);
    }
    return PARSE_DONE;
}

enum conn_parse_result admin_verbosity(conn *c, struct cmd_line *t) {
    uint32_t level;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    if (!parse_u32(t->v[1], &level)) {
        cmd_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    log_set_level((int)level);
    cmd_reply(c, REPLY_OK);
    return PARSE_DONE;
}

enum conn_parse_result admin_version(conn *c, struct cmd_line *t) {
    static const char line[] = "VERSION " MCDS_PROTOCOL_VERSION "\r\n";
    conn_out(c, line, sizeof(line) - 1);
    return PARSE_DONE;
}

enum conn_parse_result admin_shutdown(conn *c, struct cmd_line *t) {
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

static void admin_stat_line(void *ctx, const char *name, const char *value) {
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

/* stats detail on|off|dump (memcached's per-prefix counters, detail.c). */
static enum conn_parse_result admin_stats_detail(conn *c, struct cmd_line *t) {
    const char *arg = t->n >= 3 ? t->v[2] : "";

    if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0) {
        detail_set_enabled(strcmp(arg, "on") == 0);
        conn_out_reply(c, REPLY_OK);
    } else if (strcmp(arg, "dump") == 0) {
        detail_dump(c);
    } else {
        conn_out_reply(c, REPLY_DETAIL_USAGE);
    }
    return PARSE_DONE;
}

/* The stats groups that show other clients' keys or connections, or change
 * what every client sees: for --admin-users only. */
static bool admin_stats_is_admin(const char *group) {
    static const char *const groups[] = { "cachedump", "conns", "detail", "reset" };
    size_t i;

    for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
        if (strcmp(group, groups[i]) == 0)
            return true;
    return false;
}

enum conn_parse_result admin_stats(conn *c, struct cmd_line *t) {
    if (t->n > 1 && admin_stats_is_admin(t->v[1]) && !auth_may_admin(c)) {
        conn_out_reply(c, REPLY_NOT_ADMIN);
        return PARSE_DONE;
    }
    if (t->n == 1) {
        stats_general(admin_stat_line, c);
    } else if (strcmp(t->v[1], "cachedump") == 0) {
        return dump_cachedump(c, t);
    } else if (strcmp(t->v[1], "conns") == 0) {
        return stats_conns_cmd(c, t);
    } else if (strcmp(t->v[1], "detail") == 0) {
        return admin_stats_detail(c, t);
    } else if (strcmp(t->v[1], "reset") == 0) {
        stats_reset();
        detail_reset();
        conn_out_reply(c, REPLY_RESET);
        return PARSE_DONE;
    } else if (stats_group(t->v[1], admin_stat_line, c) < 0) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

enum conn_parse_result admin_cache_memlimit(conn *c, struct cmd_line *t) {
    uint32_t mb;

    c->noreply = cmd_is_noreply(t, t->n - 1);      /* as memcached: even an error */
    if (!parse_u32(t->v[1], &mb)) {
        cmd_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (mb < 8) {
        cmd_reply(c, REPLY_MEMLIMIT_TOO_SMALL);
        return PARSE_DONE;
    }
    if ((size_t)mb * 1024 * 1024 != item_mem_limit())
        log_msg(0, "cache_memlimit from <%d: the memory limit goes from %zu MB to %u MB", c->fd,
                item_mem_limit() >> 20, mb);
    item_set_mem_limit((size_t)mb * 1024 * 1024);
    cmd_reply(c, REPLY_OK);
    return PARSE_DONE;
}

enum conn_parse_result admin_debugtime(conn *c, struct cmd_line *t) {
    char *end;
    long long shift;

    errno = 0;
    shift = strtoll(t->v[1], &end, 10);
    if (errno != 0 || *end != '\0' || end == t->v[1]) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    conn_out_reply(c, clock_shift(shift) ? REPLY_OK : REPLY_BAD_FORMAT);
    return PARSE_DONE;
}

/* debugdeadpause <ms> (--debug): the next dead letters wait that long on
 * their way to their dead-letter queue (tests of what a snapshot sees). */
enum conn_parse_result admin_debugdeadpause(conn *c, struct cmd_line *t) {
    uint32_t ms;

    if (!parse_u32_exact(t->v[1], &ms) || ms > 60000) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    queue_debug_dead_pause(ms);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debughashpause <ms> (--debug): the next growth of the hash table waits
 * that long once it has begun (tests of what runs during a growth). */
enum conn_parse_result admin_debughashpause(conn *c, struct cmd_line *t) {
    uint32_t ms;

    if (!parse_u32_exact(t->v[1], &ms) || ms > 60000) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    hash_debug_pause(ms);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debugctreehold <n>|off (--debug): the release of deleted tree-counter
 * subtrees stops after n more objects, or goes on again (tests of what is
 * seen while a release is under way). */
enum conn_parse_result admin_debugctreehold(conn *c, struct cmd_line *t) {
    uint32_t n;

    if (strcmp(t->v[1], "off") == 0) {
        ctree_debug_hold(-1);
    } else if (parse_u32_exact(t->v[1], &n)) {
        ctree_debug_hold(n);
    } else {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debugcrash (--debug): the worker faults (SIGSEGV), for the test of the
 * crash report (base/crash.c). */
enum conn_parse_result admin_debugcrash(conn *c, struct cmd_line *t) {
    log_msg(0, "debugcrash: crashing on purpose");
    raise(SIGSEGV);
    return PARSE_CLOSE;
}

/* debugsnappause cut|copy <ms> (--debug): the next snapshot waits that
 * long after choosing its log position, before the log is cut there (cut)
 * or before it copies anything (copy): tests of changes made meanwhile. */
enum conn_parse_result admin_debugsnappause(conn *c, struct cmd_line *t) {
    enum persist_pause_stage stage;
    uint32_t ms;

    if (strcmp(t->v[1], "cut") == 0)
        stage = PERSIST_PAUSE_CUT;
    else if (strcmp(t->v[1], "copy") == 0)
        stage = PERSIST_PAUSE_COPY;
    else
        stage = PERSIST_PAUSE_NSTAGES;
    if (stage == PERSIST_PAUSE_NSTAGES || !parse_u32_exact(t->v[2], &ms) || ms > 60000) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    persist_debug_snapshot_pause(stage, ms);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debuggrouppause <ms> (--debug): the next command that logs waits ms
 * after its first record, its records held back from the file. */
enum conn_parse_result admin_debuggrouppause(conn *c, struct cmd_line *t) {
    uint32_t ms;

    if (!parse_u32_exact(t->v[1], &ms) || ms > 60000) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    persist_debug_cmd_pause(ms);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debugfault <op> <error> [<skip> [<count>]] and debugfault clear
 * (--debug): persistence's next <op> calls (persist/io.h names them) fail
 * with <error> (ENOSPC, EIO, EFBIG, EDQUOT, or short for a log write cut
 * half way), after <skip> that succeed, <count> times (0: until cleared). */
enum conn_parse_result admin_debugfault(conn *c, struct cmd_line *t) {
    uint32_t skip = 0, count = 0;
    int op, err;

    if (t->n == 2 && strcmp(t->v[1], "clear") == 0) {
        persist_io_fault_clear();
        conn_out_reply(c, REPLY_OK);
        return PARSE_DONE;
    }
    op = t->n >= 3 ? persist_io_op_named(t->v[1]) : -1;
    err = t->n >= 3 ? persist_io_err_named(t->v[2]) : 0;
    if (op < 0 || err == 0 || (err == PIO_SHORT && op != PIO_WRITE) ||
        (t->n >= 4 && !parse_u32_exact(t->v[3], &skip)) || (t->n >= 5 && !parse_u32_exact(t->v[4], &count))) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    persist_io_fault((enum persist_io_op)op, err, skip, count);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* debugrecord <type> <op> <hex payload> (--debug): appends that record to
 * the log as a writer would (tests of a record that does not apply). */
enum conn_parse_result admin_debugrecord(conn *c, struct cmd_line *t) {
    uint8_t buf[1024];
    uint32_t type, op;
    size_t n = strlen(t->v[3]) / 2, i;

    if (!parse_u32_exact(t->v[1], &type) || !parse_u32_exact(t->v[2], &op) || type > 255 || op > 255 ||
        strlen(t->v[3]) % 2 != 0 || n > sizeof(buf)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    for (i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(t->v[3] + 2 * i, "%2x", &v) != 1) {
            conn_out_reply(c, REPLY_BAD_FORMAT);
            return PARSE_DONE;
        }
        buf[i] = (uint8_t)v;
    }
    if (!persist_on()) {
        conn_out_reply(c, REPLY_PERSIST_OFF);
        return PARSE_DONE;
    }
    persist_debug_record((uint8_t)type, (uint8_t)op, buf, n);
    conn_out_reply(c, REPLY_OK);
    return PARSE_DONE;
}

/* snapshot: starts writing a snapshot in the background (persistence). */
enum conn_parse_result admin_snapshot(conn *c, struct cmd_line *t) {
    const char *why = NULL;

    if (persist_snapshot(&why) == 0)
        conn_out_reply(c, REPLY_OK);
    else
        conn_out_reply(c, persist_on() ? REPLY_SNAPSHOT_RUNNING : REPLY_PERSIST_OFF);
    return PARSE_DONE;
}

enum conn_parse_result admin_quit(conn *c, struct cmd_line *t) {
    return PARSE_CLOSE;
}

/* The command table's entries of the server's verbs (proto/cmd.h). */
const struct cmd_def admin_cmds[] = {
    { "stats", admin_stats, 1, CMD_ANY, 0, 0, "server figures: stats [settings|items|slabs|sizes|conns|detail|cachedump|reset]" },
    { "flush_all", admin_flush_all, 1, 3, CMD_NOREPLY | CMD_ADMIN, 0, "invalidate every item, now or after a delay" },
    { "version", admin_version, 1, CMD_ANY, 0, 0, "the memcached protocol level" },
    { "verbosity", admin_verbosity, 2, 3, CMD_NOREPLY | CMD_ADMIN, 0, "set the log level" },
    { "quit", admin_quit, 1, CMD_ANY, 0, 0, "close the connection" },
    { "shutdown", admin_shutdown, 1, CMD_ANY, CMD_ADMIN, 0, "stop the server (with -A)" },
    { "cache_memlimit", admin_cache_memlimit, 2, 3, CMD_NOREPLY | CMD_ADMIN, 0, "set -m, in megabytes" },
    { "debugtime", admin_debugtime, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "move the clock (with --debug)" },
    { "debugdeadpause", admin_debugdeadpause, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "hold the next dead letters on their way (with --debug)" },
    { "debughashpause", admin_debughashpause, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "hold the next growth of the hash table once begun (with --debug)" },
    { "debugctreehold", admin_debugctreehold, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "hold the release of deleted counter subtrees after n more objects: debugctreehold <n>|off (with --debug)" },
    { "debugcrash", admin_debugcrash, 1, 1, CMD_DEBUG | CMD_ADMIN, 0, "crash the server with SIGSEGV, for tests of the crash report (with --debug)" },
    { "debugsnappause", admin_debugsnappause, 3, 3, CMD_DEBUG | CMD_ADMIN, 0, "hold the next snapshot before its log cut or its copy: debugsnappause cut|copy <ms> (with --debug)" },
    { "debuggrouppause", admin_debuggrouppause, 2, 2, CMD_DEBUG | CMD_ADMIN, 0, "hold the next command's records back from the log file after its first one: debuggrouppause <ms> (with --debug)" },
    { "debugfault", admin_debugfault, 2, 5, CMD_DEBUG | CMD_ADMIN, 0, "make persistence's file calls fail: debugfault <op> <error> [<skip> [<count>]] | clear (with --debug)" },
    { "debugrecord", admin_debugrecord, 4, 4, CMD_DEBUG | CMD_ADMIN, 0, "append a raw log record: debugrecord <type> <op> <hex> (with --debug)" },
    { "snapshot", admin_snapshot, 1, 1, CMD_ADMIN, 0, "write a persistence snapshot (with --data-dir)" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
