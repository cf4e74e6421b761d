/*
 * reply: the fixed reply lines, byte for byte as memcached 1.6 sends them.
 */
#include <stdio.h>
#include <string.h>

#include "base/reply.h"

#define REPLY(s) { s, sizeof(s) - 1 }

const struct reply_line reply_lines[REPLY_COUNT] = {
    [REPLY_STORED] = REPLY("STORED\r\n"),
    [REPLY_NOT_STORED] = REPLY("NOT_STORED\r\n"),
    [REPLY_EXISTS] = REPLY("EXISTS\r\n"),
    [REPLY_NOT_FOUND] = REPLY("NOT_FOUND\r\n"),
    [REPLY_DELETED] = REPLY("DELETED\r\n"),
    [REPLY_TOUCHED] = REPLY("TOUCHED\r\n"),
    [REPLY_END] = REPLY("END\r\n"),
    [REPLY_OK] = REPLY("OK\r\n"),
    [REPLY_RESET] = REPLY("RESET\r\n"),
    [REPLY_ERROR] = REPLY("ERROR\r\n"),
    [REPLY_BAD_FORMAT] = REPLY("CLIENT_ERROR bad command line format\r\n"),
    [REPLY_BAD_CHUNK] = REPLY("CLIENT_ERROR bad data chunk\r\n"),
    [REPLY_NON_NUMERIC] = REPLY("CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"),
    [REPLY_BAD_DELTA] = REPLY("CLIENT_ERROR invalid numeric delta argument\r\n"),
    [REPLY_BAD_EXPTIME] = REPLY("CLIENT_ERROR invalid exptime argument\r\n"),
    [REPLY_DELETE_USAGE] = REPLY("CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n"),
    [REPLY_TOO_LARGE] = REPLY("SERVER_ERROR object too large for cache\r\n"),
    [REPLY_OOM_STORE] = REPLY("SERVER_ERROR out of memory storing object\r\n"),
    [REPLY_OOM] = REPLY("SERVER_ERROR out of memory\r\n"),
    [REPLY_OOM_READING] = REPLY("SERVER_ERROR out of memory reading request\r\n"),
    [REPLY_OOM_NEW_ITEM] = REPLY("SERVER_ERROR Out of memory allocating new item\r\n"),
    [REPLY_SNAPSHOT_RUNNING] = REPLY("SERVER_ERROR a snapshot is being written\r\n"),
    [REPLY_PERSIST_OFF] = REPLY("SERVER_ERROR persistence is off (start with --data-dir)\r\n"),
    [REPLY_LOG_FAILED] = REPLY("SERVER_ERROR log write failed, nothing changed\r\n"),
    [REPLY_LOG_STALLED] = REPLY("SERVER_ERROR log write stalled, changes not confirmed\r\n"),
    [REPLY_TOO_MANY_CONNS] = REPLY("ERROR Too many open connections\r\n"),
    [REPLY_SHUTDOWN_DISABLED] = REPLY("ERROR: shutdown not enabled\r\n"),
    [REPLY_BAD_SHUTDOWN_MODE] = REPLY("CLIENT_ERROR invalid shutdown mode\r\n"),
    [REPLY_FLUSH_DISABLED] = REPLY("CLIENT_ERROR flush_all not allowed\r\n"),
    [REPLY_MEMLIMIT_TOO_SMALL] = REPLY("MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n"),
    [REPLY_META_NOOP] = REPLY("MN\r\n"),
    [REPLY_META_MISS] = REPLY("EN\r\n"),
    [REPLY_META_INVALID_FLAG] = REPLY("CLIENT_ERROR invalid flag\r\n"),
    [REPLY_META_DUP_FLAG] = REPLY("CLIENT_ERROR duplicate flag\r\n"),
    [REPLY_META_BAD_FLAG] = REPLY("CLIENT_ERROR invalid or duplicate flag\r\n"),
    [REPLY_META_BAD_TOKEN] = REPLY("CLIENT_ERROR bad token in command line format\r\n"),
    [REPLY_META_OPAQUE_LONG] = REPLY("CLIENT_ERROR opaque token too long\r\n"),
    [REPLY_META_BAD_KEY] = REPLY("CLIENT_ERROR error decoding key\r\n"),
    [REPLY_META_MS_MODE] = REPLY("CLIENT_ERROR invalid mode for ms M token\r\n"),
    [REPLY_META_MA_MODE] = REPLY("CLIENT_ERROR invalid mode for ma M token\r\n"),
    [REPLY_META_MG_TOO_LONG] = REPLY("CLIENT_ERROR options flags are too long\r\n"),
    [REPLY_META_TOO_LONG] = REPLY("CLIENT_ERROR options flags too long\r\n"),
    [REPLY_WRONG_TYPE] = REPLY("CLIENT_ERROR key holds another type of value\r\n"),
    [REPLY_CREATED] = REPLY("CREATED\r\n"),
    [REPLY_ACKED] = REPLY("ACKED\r\n"),
    [REPLY_RELEASED] = REPLY("RELEASED\r\n"),
    [REPLY_PAUSED] = REPLY("PAUSED\r\n"),
    [REPLY_DLQ_WRONG_TYPE] = REPLY("CLIENT_ERROR dlq key holds another type of value\r\n"),
    [REPLY_DLQ_SELF] = REPLY("CLIENT_ERROR dlq must name another queue\r\n"),
    [REPLY_KESTREL_PEEK_MIX] = REPLY("CLIENT_ERROR /peek cannot be combined with /open, /close or /abort\r\n"),
    [REPLY_KESTREL_ALONE] = REPLY("CLIENT_ERROR /open, /close and /abort need a get of that key alone\r\n"),
    [REPLY_KESTREL_OPEN_TWICE] = REPLY("CLIENT_ERROR a read is already open on this connection\r\n"),
    [REPLY_KESTREL_READ_OPEN] = REPLY("CLIENT_ERROR this connection has a read open on that queue\r\n"),
    [REPLY_UNAUTHENTICATED] = REPLY("CLIENT_ERROR unauthenticated\r\n"),
    [REPLY_AUTH_FAILED] = REPLY("CLIENT_ERROR authentication failure\r\n"),
    [REPLY_AUTH_BAD_FORMAT] = REPLY("CLIENT_ERROR bad authentication token format\r\n"),
    [REPLY_AUTH_BAD_END] = REPLY("CLIENT_ERROR bad command line termination\r\n"),
    [REPLY_NOT_ADMIN] = REPLY("CLIENT_ERROR admin commands are for --admin-users only\r\n"),
    [REPLY_CACHEDUMP_NOT_ALLOWED] = REPLY("CLIENT_ERROR stats cachedump not allowed\r\n"),
    [REPLY_METADUMP_NOT_ALLOWED] = REPLY("ERROR metadump not allowed\r\n"),
    [REPLY_WATCH_NOT_ALLOWED] = REPLY("CLIENT_ERROR watch commands not allowed\r\n"),
    [REPLY_DLQ_NEEDED] = REPLY("CLIENT_ERROR queue name too long for the default dead-letter queue, give dlq=\r\n"),
    [REPLY_CT_NO_COUNTER] = REPLY("CLIENT_ERROR no such counter\r\n"),
    [REPLY_CT_NO_TYPE] = REPLY("CLIENT_ERROR counter does not store that period type\r\n"),
    [REPLY_CT_NOT_MANUAL] = REPLY("CLIENT_ERROR period type is computed from finer ones\r\n"),
    [REPLY_CT_BAD_TYPES] = REPLY("CLIENT_ERROR period types do not nest\r\n"),
    [REPLY_CT_OVERFLOW] = REPLY("CLIENT_ERROR value would overflow\r\n"),
    [REPLY_CT_IN_USE] = REPLY("CLIENT_ERROR counter in use\r\n"),
    [REPLY_CT_BAD_LIMIT] = REPLY("CLIENT_ERROR limit exceeded\r\n"),
    [REPLY_CT_BAD_TIME] = REPLY("CLIENT_ERROR bad time or period\r\n"),
    [REPLY_SCAN_BUSY] = REPLY("SERVER_ERROR scan in use by another connection\r\n"),
    [REPLY_SCAN_TOO_MANY] = REPLY("SERVER_ERROR too many open scans\r\n"),
    [REPLY_META_BAD_INITIAL] = REPLY("CLIENT_ERROR invalid numeric initial value\r\n"),
    [REPLY_META_BAD_DELTA] = REPLY("CLIENT_ERROR invalid numeric delta value\r\n"),
    [REPLY_META_M_LENGTH] = REPLY("CLIENT_ERROR incorrect length for M token\r\n"),
    [REPLY_DUMP_BAD_LINE] = REPLY("CLIENT_ERROR bad command line\r\n"),
    [REPLY_DUMP_BAD_SLAB] = REPLY("CLIENT_ERROR Illegal slab id\r\n"),
    [REPLY_DUMP_BAD_CLASS] = REPLY("BADCLASS invalid class id\r\n"),
    [REPLY_CRAWLER_START_FAILED] = REPLY("ERROR failed to start lru crawler thread\r\n"),
    [REPLY_CRAWLER_SLEEP] = REPLY("CLIENT_ERROR sleep must be one second or less\r\n"),
    [REPLY_CRAWLER_DISABLED] = REPLY("CLIENT_ERROR lru crawler disabled\r\n"),
    [REPLY_SLAB_REASSIGN_OFF] = REPLY("CLIENT_ERROR slab reassignment disabled\r\n"),
    [REPLY_LRU_PCTS] = REPLY("ERROR hot and warm pcts must not exceed 80\r\n"),
    [REPLY_LRU_FACTORS] = REPLY("ERROR hot/warm age factors must be greater than 0\r\n"),
    [REPLY_DETAIL_USAGE] = REPLY("CLIENT_ERROR usage: stats detail on|off|dump\r\n"),
    [REPLY_HELP_UNKNOWN] = REPLY("CLIENT_ERROR unknown verb\r\n"),
    [REPLY_WATCHER_TOO_MANY] = REPLY("WATCHER_TOO_MANY log watcher limit reached\r\n"),
    [REPLY_WATCHER_FAILED] = REPLY("WATCHER_FAILED failed to add log watcher\r\n"),
    [REPLY_X_KEY_TOO_LONG] = REPLY("CLIENT_ERROR key too long\r\n"),
    [REPLY_X_COUNT_100] = REPLY("CLIENT_ERROR count must be 1..100\r\n"),
    [REPLY_X_COUNT_10000] = REPLY("CLIENT_ERROR count must be 1..10000\r\n"),
    [REPLY_X_BAD_FLAGS] = REPLY("CLIENT_ERROR bad flags\r\n"),
    [REPLY_X_BAD_DELAY] = REPLY("CLIENT_ERROR bad delay\r\n"),
    [REPLY_X_BAD_LENGTH] = REPLY("CLIENT_ERROR bad length\r\n"),
    [REPLY_X_BAD_PRIORITY] = REPLY("CLIENT_ERROR bad priority\r\n"),
    [REPLY_X_BAD_DEDUP] = REPLY("CLIENT_ERROR bad value for dedup\r\n"),
    [REPLY_X_BAD_TTL] = REPLY("CLIENT_ERROR bad value for ttl\r\n"),
    [REPLY_X_BAD_GROUP] = REPLY("CLIENT_ERROR bad value for group\r\n"),
    [REPLY_X_GROUP_DELAY] = REPLY("CLIENT_ERROR a grouped message cannot be delayed\r\n"),
    [REPLY_X_BAD_PAUSE] = REPLY("CLIENT_ERROR bad pause\r\n"),
    [REPLY_X_RECEIPT_REQUIRED] = REPLY("CLIENT_ERROR receipt required\r\n"),
    [REPLY_X_BAD_ID] = REPLY("CLIENT_ERROR bad id\r\n"),
    [REPLY_X_BAD_LEASE] = REPLY("CLIENT_ERROR bad lease\r\n"),
    [REPLY_X_NOREPLY_LAST] = REPLY("CLIENT_ERROR noreply must be the last token\r\n"),
    [REPLY_X_TOO_MANY] = REPLY("CLIENT_ERROR too many tokens\r\n"),
    [REPLY_X_BAD_CURSOR] = REPLY("CLIENT_ERROR bad cursor\r\n"),
    [REPLY_X_SCAN_FILTER_LATE] = REPLY("CLIENT_ERROR filters are given only when starting a scan\r\n"),
    [REPLY_X_COUNT_1000] = REPLY("CLIENT_ERROR count must be 1..1000\r\n"),
    [REPLY_X_BAD_INDEX] = REPLY("CLIENT_ERROR bad index\r\n"),
    [REPLY_X_BAD_OFFSET] = REPLY("CLIENT_ERROR bad offset\r\n"),
    [REPLY_X_BAD_LIMIT] = REPLY("CLIENT_ERROR bad limit\r\n"),
    [REPLY_X_BAD_COUNT] = REPLY("CLIENT_ERROR bad count\r\n"),
    [REPLY_X_BEFORE_AFTER] = REPLY("CLIENT_ERROR expected before or after\r\n"),
    [REPLY_X_BAD_COUNTER] = REPLY("CLIENT_ERROR bad counter\r\n"),
    [REPLY_X_BAD_TYPE] = REPLY("CLIENT_ERROR bad type\r\n"),
    [REPLY_X_BAD_TYPES] = REPLY("CLIENT_ERROR bad period types\r\n"),
    [REPLY_X_BAD_CT_DELTA] = REPLY("CLIENT_ERROR bad delta\r\n"),
    [REPLY_X_CTINCRN_SHAPE] = REPLY("CLIENT_ERROR ctincrn takes 1 to 100 increments of 5 tokens\r\n"),
    [REPLY_X_RAISE_LIMITS] = REPLY("CLIENT_ERROR ctraise takes limits= only\r\n"),
    [REPLY_X_PERIODS_TYPE] = REPLY("CLIENT_ERROR periods= needs type=\r\n"),
    [REPLY_TOO_MANY_IDS] = REPLY("CLIENT_ERROR too many ids\r\n"),
    [REPLY_X_TOO_MANY_MESSAGES] = REPLY("CLIENT_ERROR too many messages\r\n"),
    [REPLY_X_TOO_MANY_QUEUES] = REPLY("CLIENT_ERROR too many queues\r\n"),
    [REPLY_X_LEFT_RIGHT] = REPLY("CLIENT_ERROR expected left or right\r\n"),
    [REPLY_X_TOO_MANY_KEYS] = REPLY("CLIENT_ERROR too many keys\r\n"),
    [REPLY_READ_ONLY] = REPLY("SERVER_ERROR read-only replica of %s\r\n"),
    [REPLY_NOT_PRIMARY] = REPLY("SERVER_ERROR not a primary: a replica serves no replica\r\n"),
    [REPLY_REPL_NO_DATA_DIR] = REPLY("SERVER_ERROR replication needs --data-dir\r\n"),
    [REPLY_REPL_TLS] = REPLY("SERVER_ERROR psync over TLS must wait for the replies before it\r\n"),
    [REPLY_REPL_RESTARTING] = REPLY("SERVER_ERROR a restart in place as a replica is on its way\r\n"),
    [REPLY_REPL_NO_THREAD] = REPLY("SERVER_ERROR cannot start a replication thread\r\n"),
    [REPLY_REPL_STALE] = REPLY("SERVER_ERROR stale replica: its link to its primary is not up\r\n"),
    [REPLY_REPL_BEHIND] = REPLY("SERVER_ERROR stale replica: behind its primary longer than --replica-max-lag\r\n"),
    [REPLY_T_BAD_TABLE] = REPLY("CLIENT_ERROR bad table name\r\n"),
    [REPLY_T_BUILDING] = REPLY("CLIENT_ERROR index is being built\r\n"),
    [REPLY_T_TOO_MANY_EQ] = REPLY("CLIENT_ERROR too many eq values\r\n"),
    [REPLY_T_BAD_RANGE] = REPLY("CLIENT_ERROR bad range\r\n"),
    [REPLY_T_PRIMARY] = REPLY("CLIENT_ERROR the primary index cannot be dropped\r\n"),
    [REPLY_T_TOO_MANY_CURSORS] = REPLY("SERVER_ERROR too many open cursors\r\n"),
    [REPLY_T_CURSOR_BUSY] = REPLY("SERVER_ERROR cursor in use by another connection\r\n"),
    [REPLY_UNCONFIRMED] = REPLY("SERVER_ERROR changed on the primary, not confirmed by enough replicas\r\n"),
};

/* REPLY_READ_ONLY with its primary: two buffers, the one in use named by
 * an atomic index, so a reader never sees one half written (the primary
 * changes seldom: by `replicaof`). */
static struct {
    char text[2][320];
    struct reply_line line[2];
    int cur;
} reply_ro = { .line = { { "SERVER_ERROR read-only replica\r\n", 32 },
                         { "SERVER_ERROR read-only replica\r\n", 32 } } };

void reply_set_primary(const char *host_port) {
    int next = 1 - __atomic_load_n(&reply_ro.cur, __ATOMIC_ACQUIRE);
    const char *fmt = reply_lines[REPLY_READ_ONLY].text, *at = strstr(fmt, "%s");
    int n = snprintf(reply_ro.text[next], sizeof(reply_ro.text[next]), "%.*s%s%s", (int)(at - fmt), fmt,
                     host_port, at + 2);

    if (n < 0 || (size_t)n >= sizeof(reply_ro.text[next]))
        return;
    reply_ro.line[next].text = reply_ro.text[next];
    reply_ro.line[next].len = (size_t)n;
    __atomic_store_n(&reply_ro.cur, next, __ATOMIC_RELEASE);
}

const struct reply_line *reply_line_of(enum reply_id r) {
    if (r == REPLY_READ_ONLY)
        return &reply_ro.line[__atomic_load_n(&reply_ro.cur, __ATOMIC_ACQUIRE)];
    return &reply_lines[r];
}
