/*
 * settings: the option table, defaults, parsing and usage text.
 *
 * Every option is described once in settings_options[]; the same table
 * drives getopt_long and the --help text, so the two cannot drift apart.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/settings.h"
#include "base/tls_opts.h"

struct settings settings;

#define SETTINGS_ITEM_MIN 1024
#define SETTINGS_OUTPUT_MIN 4096

/* Long options without a letter. */
enum {
    SETTINGS_OPT_OUTPUT_MAX = 256, SETTINGS_OPT_BUFFER_LIMIT, SETTINGS_OPT_LOG_FILE,
    SETTINGS_OPT_DATA_DIR, SETTINGS_OPT_FSYNC, SETTINGS_OPT_PERSIST_ITEMS, SETTINGS_OPT_SNAP_MIN,
    SETTINGS_OPT_SNAP_GROWTH, SETTINGS_OPT_LOG_BUFFER, SETTINGS_OPT_RECOVER_PARTIAL,
    SETTINGS_OPT_STRICT_REPLAY, SETTINGS_OPT_STALL_TIMEOUT, SETTINGS_OPT_CHECK_DIR,
    SETTINGS_OPT_ADMIN_USERS, SETTINGS_OPT_DEBUG, SETTINGS_OPT_METRICS_PORT,
    SETTINGS_OPT_METRICS_LISTEN, SETTINGS_OPT_METRICS_TOP, SETTINGS_OPT_RECEIPTS_ONLY,
    SETTINGS_OPT_REPLICAOF, SETTINGS_OPT_REPL_TIMEOUT, SETTINGS_OPT_MIN_REPLICAS_ACK,
    SETTINGS_OPT_MIN_REPLICAS_TIMEOUT, SETTINGS_OPT_PRIMARY_AUTH, SETTINGS_OPT_SERVE_STALE,
    SETTINGS_OPT_PRIMARY_TLS, SETTINGS_OPT_PRIMARY_TLS_CA, SETTINGS_OPT_PRIMARY_TLS_CERT,
    SETTINGS_OPT_PRIMARY_TLS_KEY, SETTINGS_OPT_MAX_LAG
};
#define SETTINGS_ITEM_MAX (1024UL * 1024 * 1024)

struct settings_option {
    int letter;
    const char *long_name;
    int has_arg;
    const char *arg_name;
    const char *help;
};

static const struct settings_option settings_options[] = {
    { 'p', "port", required_argument, "<num>", "TCP port to listen on (default 11211; 0 picks a free port)" },
    { 'l', "listen", required_argument, "<addr>", "interface to listen on (default 127.0.0.1)" },
    { 's', "unix-socket", required_argument, "<file>", "UNIX socket to listen on (disables TCP)" },
    { 'a', "unix-mask", required_argument, "<mask>", "access mask for the UNIX socket, in octal (default 0700)" },
    { 't', "threads", required_argument, "<num>", "number of worker threads (default 4)" },
    { 'm', "memory-limit", required_argument, "<num>", "item memory in megabytes (default 64)" },
    { 'I', "max-item-size", required_argument, "<size>", "largest item, with k/m suffix (default 1m, min 1k, max 1g)" },
    { 'c', "conn-limit", required_argument, "<num>", "max simultaneous connections (default 1024)" },
    { 'M', "disable-evictions", no_argument, NULL, "return an error when memory is exhausted instead of evicting" },
    { 'A', "enable-shutdown", no_argument, NULL, "allow the shutdown command" },
    { 'F', "disable-flush-all", no_argument, NULL, "refuse the flush_all command" },
    { 'C', "disable-cas", no_argument, NULL, "do not use CAS" },
    { 'R', "max-reqs-per-event", required_argument, "<num>", "requests served per connection before yielding (default 20)" },
    { 'B', "protocol", required_argument, "<name>", "protocol: auto, ascii or binary (default auto)" },
    { 'U', "udp-port", required_argument, "<num>", "UDP port; only 0 (off) is accepted, mcds has no UDP" },
    { 'u', "user", required_argument, "<user>", "when started as root, become this user once listening" },
    { 'Y', "auth-file", required_argument, "<file>",
      "require authentication: \"user:password\" lines (text: memcached's set; binary: SASL PLAIN)" },
    { SETTINGS_OPT_ADMIN_USERS, "admin-users", required_argument, "<user,...>",
      "with -Y: only these users may run flush_all, shutdown, the dumps, watch and the tuning verbs" },
    { 'Z', "enable-ssl", no_argument, NULL,
      "TLS on the TCP listeners (-o ssl_chain_cert=,ssl_key=,...; -l notls:<addr> stays plain)" },
    { 'o', "extended", required_argument, "<opt,...>",
      "memcached's extended options: hashpower, idle_timeout, watcher_logbuf_size, no_lru_crawler, read_buf_mem_limit, ssl_* take effect; its others are accepted" },
    { 'd', "daemon", no_argument, NULL, "run in the background (the parent exits 0 once the server is ready)" },
    { 'P', "pidfile", required_argument, "<file>", "write the process id to this file (removed at a clean exit, if the -u user may)" },
    { 'b', "listen-backlog", required_argument, "<num>", "backlog of the listening sockets (default 1024)" },
    { 'k', "lock-memory", no_argument, NULL, "lock the server's memory in RAM (a warning if not permitted)" },
    { 'n', "slab-min-size", required_argument, "<bytes>", "accepted for memcached compatibility (no slabs): no effect" },
    { 'f', "slab-growth-factor", required_argument, "<factor>", "accepted for memcached compatibility (no slabs): no effect" },
    { 'L', "enable-largepages", no_argument, NULL, "accepted for memcached compatibility: no effect" },
    { 'e', "memory-file", required_argument, "<file>", "accepted for memcached compatibility: no effect" },
    { 'S', "enable-sasl", no_argument, NULL, "require authentication, as memcached's SASL; the users come from -Y <file>" },
    { 'X', "disable-dumping", no_argument, NULL, "refuse stats cachedump and lru_crawler metadump" },
    { 'W', "disable-watch", no_argument, NULL, "refuse watch" },
    { 'r', "enable-coredumps", no_argument, NULL, "raise the core file size limit to its maximum" },
    { 'D', "prefix-delimiter", required_argument, "<char>", "stats detail: a key's prefix ends at this character (default :)" },
    { 'N', "napi_ids", required_argument, "<num>", "accepted for memcached compatibility (no NAPI grouping): no effect" },
    { 'i', "license", no_argument, NULL, "print the license and exit" },
    { SETTINGS_OPT_OUTPUT_MAX, "conn-output-max", required_argument, "<size>",
      "replies queued for one connection before it pauses (default 1m)" },
    { SETTINGS_OPT_BUFFER_LIMIT, "conn-buffer-limit", required_argument, "<size>",
      "memory for all connection buffers, 0 for no limit (default 512m)" },
    { 'v', "verbose", no_argument, NULL, "verbose (repeat for more: -vv)" },
    { SETTINGS_OPT_LOG_FILE, "log-file", required_argument, "<file>",
      "append log lines to this file instead of stderr (SIGHUP reopens it)" },
    { SETTINGS_OPT_DATA_DIR, "data-dir", required_argument, "<dir>",
      "persistence: write-ahead log and snapshots in this directory (default: off)" },
    { SETTINGS_OPT_FSYNC, "fsync", required_argument, "<policy>",
      "with --data-dir: always, everysec or no (default everysec)" },
    { SETTINGS_OPT_PERSIST_ITEMS, "persist-items", no_argument, NULL,
      "with --data-dir: log cache values too (a durable key-value store)" },
    { SETTINGS_OPT_SNAP_MIN, "snapshot-min-size", required_argument, "<size>",
      "log bytes after which a snapshot may start by itself (default 64m; 0: never)" },
    { SETTINGS_OPT_SNAP_GROWTH, "snapshot-growth", required_argument, "<percent>",
      "... once the log has also grown this percent of the last snapshot (default 100)" },
    { SETTINGS_OPT_LOG_BUFFER, "log-buffer", required_argument, "<size>",
      "memory for log records not yet written, a power of two (default 16m)" },
    { SETTINGS_OPT_RECOVER_PARTIAL, "recover-partial", no_argument, NULL,
      "start despite a corrupt log record or snapshot entry: step over the damage, keep what follows" },
    { SETTINGS_OPT_STRICT_REPLAY, "strict-replay", no_argument, NULL,
      "a log record that does not apply stops the start-up (default: its key is quarantined)" },
    { SETTINGS_OPT_STALL_TIMEOUT, "log-stall-timeout", required_argument, "<secs>",
      "replies wait this long for a log that cannot be written, then the connection is closed (default 30)" },
    { SETTINGS_OPT_REPLICAOF, "replicaof", required_argument, "<host:port>",
      "with --data-dir: start as a read-only replica of that primary (doc/replication.md)" },
    { SETTINGS_OPT_REPL_TIMEOUT, "repl-timeout", required_argument, "<secs>",
      "a replication link silent this long is closed (default 60)" },
    { SETTINGS_OPT_SERVE_STALE, "replica-serve-stale", required_argument, "<yes|no>",
      "no: a replica whose link to its primary is not up refuses reads (default yes)" },
    { SETTINGS_OPT_MAX_LAG, "replica-max-lag", required_argument, "<secs>",
      "... and with no, one behind its primary for more than this long does too (default 0: no limit)" },
    { SETTINGS_OPT_PRIMARY_AUTH, "primary-auth-file", required_argument, "<file>",
      "a replica authenticates to a primary started with -Y as the first user:password line of this file" },
    { SETTINGS_OPT_PRIMARY_TLS, "primary-tls", no_argument, NULL,
      "a replica speaks TLS to its primary (started with -Z) and verifies its certificate" },
    { SETTINGS_OPT_PRIMARY_TLS_CA, "primary-tls-ca", required_argument, "<file>",
      "... against these CA certificates (default: the system's; implies --primary-tls)" },
    { SETTINGS_OPT_PRIMARY_TLS_CERT, "primary-tls-cert", required_argument, "<file>",
      "... and shows this certificate chain, for a primary that asks for one (with --primary-tls-key)" },
    { SETTINGS_OPT_PRIMARY_TLS_KEY, "primary-tls-key", required_argument, "<file>",
      "... and its key" },
    { SETTINGS_OPT_MIN_REPLICAS_ACK, "min-replicas-ack", required_argument, "<n>",
      "a change is answered once n replicas have it (default 0: asynchronous; doc/replication.md)" },
    { SETTINGS_OPT_MIN_REPLICAS_TIMEOUT, "min-replicas-timeout", required_argument, "<ms>",
      "... or after this long with an error: on the primary, not confirmed (default 1000)" },
    { SETTINGS_OPT_CHECK_DIR, "check-data-dir", required_argument, "<dir>",
      "read the snapshot and logs of <dir> without starting, report, exit 0 if sound" },
    { SETTINGS_OPT_METRICS_PORT, "metrics-port", required_argument, "<num>",
      "serve Prometheus metrics over HTTP on this port, at /metrics (default 0: off)" },
    { SETTINGS_OPT_METRICS_LISTEN, "metrics-listen", required_argument, "<addr>",
      "interface of the metrics port (default 127.0.0.1)" },
    { SETTINGS_OPT_METRICS_TOP, "metrics-top", required_argument, "<num>",
      "queues and lists named in the metrics, the largest first (default 20, max 1000)" },
    { SETTINGS_OPT_RECEIPTS_ONLY, "receipts-only", no_argument, NULL,
      "qack, qrelease, qtouch and qpop ack= take receipts <id>:<deliveries> only: a bare id is refused" },
    { SETTINGS_OPT_DEBUG, "debug", no_argument, NULL, "enable debug verbs (debugtime) for tests" },
    { 'h', "help", no_argument, NULL, "print this help and exit" },
    { 'V', "version", no_argument, NULL, "print version and exit" },
};

#define SETTINGS_NOPTIONS (sizeof(settings_options) / sizeof(settings_options[0]))

void settings_init(void) {
    memset(&settings, 0, sizeof(settings));
    settings.port = 11211;
    settings.listen_addr = strdup("127.0.0.1");
    settings.socket_mask = 0700;
    settings.num_threads = 4;
    settings.maxbytes = 64UL * 1024 * 1024;
    settings.item_size_max = 1024 * 1024;
    settings.maxconns = 1024;
    settings.evict_to_free = true;
    settings.flush_enabled = true;
    settings.cas_enabled = true;
    settings.reqs_per_event = 20;
    settings.protocol = PROTO_AUTO;
    settings.hashpower_init = 16;
    settings.conn_output_max = 1024 * 1024;
    settings.metrics_listen = strdup("127.0.0.1");
    settings.metrics_top = 20;
    settings.conn_buffer_limit = 512UL * 1024 * 1024;
    settings.fsync_policy = 1;      /* everysec */
    settings.snapshot_min = 64UL * 1024 * 1024;
    settings.snapshot_growth = 100;
    settings.log_buffer = 16UL * 1024 * 1024;
    settings.log_stall_timeout = 30;
    settings.repl_timeout = 60;
    settings.repl_serve_stale = true;
    settings.min_replicas_timeout = 1000;
    settings.backlog = 1024;
    settings.lru_crawler = true;
    settings.watcher_logbuf = 256 * 1024;
    settings.crawler_sleep = 100;
    settings.slab_automove_ratio = 0.8;     /* memcached's default */
    settings.prefix_delimiter = ':';
    tls_opts_init();
}

/* The replica's --primary-tls-* files. */
static void settings_free_tls_link(void) {
    free(settings.primary_tls_ca);
    free(settings.primary_tls_cert);
    free(settings.primary_tls_key);
    settings.primary_tls_ca = settings.primary_tls_cert = settings.primary_tls_key = NULL;
}

/* A --primary-tls-* file: it turns --primary-tls on. */
static int settings_tls_link_file(char **to, const char *arg) {
    free(*to);
    *to = strdup(arg);
    settings.primary_tls = true;
    return *to != NULL && *arg != '\0' ? 0 : -1;
}

void settings_free(void) {
    free(settings.listen_addr);
    free(settings.socket_path);
    free(settings.log_file);
    free(settings.data_dir);
    free(settings.check_dir);
    settings.check_dir = NULL;
    free(settings.replicaof);
    settings.replicaof = NULL;
    free(settings.primary_auth_file);
    settings.primary_auth_file = NULL;
    settings_free_tls_link();
    free(settings.auth_file);
    free(settings.admin_users);
    free(settings.metrics_listen);
    settings.metrics_listen = NULL;
    settings.auth_file = NULL;
    settings.admin_users = NULL;
    free(settings.pid_file);
    free(settings.user);
    settings.pid_file = NULL;
    settings.user = NULL;
    settings.listen_addr = NULL;
    settings.data_dir = NULL;
    settings.socket_path = NULL;
    settings.log_file = NULL;
    tls_opts_free();
}

void settings_usage(FILE *out) {
    size_t i;
    char left[64];

    fprintf(out, "mcds-server %s: a memcached-compatible data-structure server\n", PACKAGE_VERSION);
    fprintf(out, "usage: mcds-server [options]\n");
    for (i = 0; i < SETTINGS_NOPTIONS; i++) {
        const struct settings_option *o = &settings_options[i];
        if (o->letter < SETTINGS_OPT_OUTPUT_MAX)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", o->letter, o->long_name,
                     o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", o->long_name,
                     o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
        fprintf(out, "  %-36s %s\n", left, o->help);
    }
}

const char *settings_protocol_name(void) {
    switch (settings.protocol) {
    case PROTO_ASCII: return "ascii";
    case PROTO_BINARY: return "binary";
    default: return "auto-negotiate";
    }
}

int settings_number(const char *arg, long min, long max, long *out) {
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* A size with an optional k/m/g suffix; unit is the multiplier without one. */
static int settings_size(const char *arg, unsigned long unit, size_t *out) {
    char *end;
    unsigned long long v;

    errno = 0;
    if (arg[0] == '-')
        return -1;
    v = strtoull(arg, &end, 10);
    if (errno != 0 || end == arg)
        return -1;
    switch (*end) {
    case '\0': v *= unit; break;
    case 'k': case 'K': v *= 1024ULL; end++; break;
    case 'm': case 'M': v *= 1024ULL * 1024; end++; break;
    case 'g': case 'G': v *= 1024ULL * 1024 * 1024; end++; break;
    default: return -1;
    }
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

/* memcached's -o names that mcds accepts without effect (no slabs, no LRU
 * maintainer, no extstore); ext_ names too. */
static const char *const settings_o_ignored[] = {
    "maxconns_fast", "no_maxconns_fast", "tail_repair_time", "hash_algorithm", "lru_crawler",
    "lru_crawler_sleep", "lru_crawler_tocrawl", "lru_maintainer", "no_lru_maintainer", "hot_lru_pct",
    "warm_lru_pct", "hot_max_factor", "warm_max_factor", "temp_lru", "temporary_ttl", "slab_reassign",
    "no_slab_reassign", "slab_automove", "slab_automove_ratio", "slab_automove_window", "slab_chunk_max",
    "slab_sizes", "track_sizes", "modern", "no_modern", "worker_logbuf_size", "inline_ascii_resp",
    "no_inline_ascii_resp", "no_hashexpand", "resp_obj_mem_limit", "num_napi_ids", "drop_privileges",
    "no_drop_privileges", "memory_file", "lru_segmented", "no_lru_segmented", "auth_file", NULL,
};

static bool settings_o_is_ignored(const char *name, size_t n) {
    const char *const *p;

    if (strncmp(name, "ext_", 4) == 0)
        return true;
    for (p = settings_o_ignored; *p != NULL; p++)
        if (strlen(*p) == n && strncmp(*p, name, n) == 0)
            return true;
    return false;
}

/* One -o name[=value]; -1 for a bad value of a name that takes effect. */
static int settings_extended_one(const char *arg) {
    const char *eq = strchr(arg, '=');
    size_t n = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    const char *val = eq != NULL ? eq + 1 : "";
    long v;

    if (strncmp(arg, "hashpower=", 10) == 0) {
        if (settings_number(val, 12, 32, &v) < 0) return -1;
        settings.hashpower_init = (int)v;
    } else if (strncmp(arg, "read_buf_mem_limit=", 19) == 0) {
        return settings_size(val, 1024UL * 1024, &settings.conn_buffer_limit);
    } else if (strncmp(arg, "idle_timeout=", 13) == 0) {
        if (settings_number(val, 0, INT_MAX, &v) < 0) return -1;
        settings.idle_timeout = (int)v;
    } else if (strncmp(arg, "watcher_logbuf_size=", 20) == 0) {
        if (settings_number(val, 1, 1024 * 1024, &v) < 0) return -1;
        settings.watcher_logbuf = (size_t)v * 1024;
    } else if (strcmp(arg, "no_lru_crawler") == 0) {
        settings.lru_crawler = false;
    } else if (strncmp(arg, "ssl_", 4) == 0) {
        return tls_opts_parse(arg, n, val, eq != NULL);
    } else if (!settings_o_is_ignored(arg, n)) {
        fprintf(stderr, "mcds-server: warning: ignoring unknown -o option %.*s\n", (int)n, arg);
    }
    return 0;
}

/* -o takes a comma-separated list, as memcached's. */
static int settings_extended(const char *arg) {
    char *copy = strdup(arg), *tok, *save = NULL;
    int rc = 0;

    if (copy == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok != NULL && rc == 0; tok = strtok_r(NULL, ",", &save))
        rc = settings_extended_one(tok);
    free(copy);
    return rc;
}

/* -l: repeated options add addresses (memcached's comma-separated list). */
static int settings_listen(const char *arg) {
    static bool given;
    char *joined;

    if (!given) {
        free(settings.listen_addr);
        settings.listen_addr = strdup(arg);
        given = true;
        return settings.listen_addr != NULL ? 0 : -1;
    }
    joined = malloc(strlen(settings.listen_addr) + strlen(arg) + 2);
    if (joined == NULL)
        return -1;
    sprintf(joined, "%s,%s", settings.listen_addr, arg);
    free(settings.listen_addr);
    settings.listen_addr = joined;
    return 0;
}

/* memcached's options that take effect in main.c, or none. */
static int settings_apply_memcached(int letter, const char *arg) {
    long v;
    char *end;

    switch (letter) {
    case 'd': settings.daemonize = true; return 0;
    case 'k': settings.lock_memory = true; return 0;
    case 'L': return 0;
    case 'P':
        free(settings.pid_file);
        settings.pid_file = strdup(arg);
        return 0;
    case 'u':
        free(settings.user);
        settings.user = strdup(arg);
        return 0;
    case 'b':
        if (settings_number(arg, 1, INT_MAX, &v) < 0) return -1;
        settings.backlog = (int)v;
        return 0;
    case 'n':
        return settings_number(arg, 1, INT_MAX, &v);
    case 'f':
        return strtod(arg, &end) > 1.0 && *end == '\0' ? 0 : -1;
    case 'e':
        return 0;
    case 'N':
        return settings_number(arg, 1, INT_MAX, &v);
    case 'S': settings.sasl = true; return 0;
    case 'X': settings.dump_disabled = true; return 0;
    case 'W': settings.watch_disabled = true; return 0;
    case 'r': settings.coredumps = true; return 0;
    case 'D':
        if (arg[0] == '\0' || arg[1] != '\0')
            return -1;
        settings.prefix_delimiter = arg[0];
        return 0;
    }
    return -1;
}

/* An octal permission mask, 0 to 0777, every digit 0-7. */
static int settings_mask(const char *arg) {
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 8);
    if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > 0777)
        return -1;
    settings.socket_mask = (int)v;
    return 0;
}

static int settings_protocol_arg(const char *arg) {
    if (strcmp(arg, "auto") == 0)
        settings.protocol = PROTO_AUTO;
    else if (strcmp(arg, "ascii") == 0)
        settings.protocol = PROTO_ASCII;
    else if (strcmp(arg, "binary") == 0)
        settings.protocol = PROTO_BINARY;
    else
        return -1;
    return 0;
}

/* The metrics listener's options. */
static int settings_apply_metrics(int letter, const char *arg) {
    long v;

    switch (letter) {
    case SETTINGS_OPT_METRICS_PORT:
        if (settings_number(arg, 0, 65535, &v) < 0) return -1;
        settings.metrics_port = (int)v;
        return 0;
    case SETTINGS_OPT_METRICS_LISTEN:
        if (arg[0] == '\0') return -1;
        free(settings.metrics_listen);
        settings.metrics_listen = strdup(arg);
        return settings.metrics_listen != NULL ? 0 : -1;
    case SETTINGS_OPT_METRICS_TOP:
        if (settings_number(arg, 0, 1000, &v) < 0) return -1;
        settings.metrics_top = (int)v;
        return 0;
    }
    return -1;
}

/* The persistence options. */
static int settings_apply_persist(int letter, const char *arg) {
    static const char *const policies[] = { "always", "everysec", "no" };
    long v;
    int i;

    switch (letter) {
    case SETTINGS_OPT_DATA_DIR:
        free(settings.data_dir);
        settings.data_dir = strdup(arg);
        return 0;
    case SETTINGS_OPT_FSYNC:
        for (i = 0; i < 3; i++) {
            if (strcmp(arg, policies[i]) == 0) {
                settings.fsync_policy = i;
                return 0;
            }
        }
        return -1;
    case SETTINGS_OPT_PERSIST_ITEMS: settings.persist_items = true; return 0;
    case SETTINGS_OPT_RECOVER_PARTIAL: settings.recover_partial = true; return 0;
    case SETTINGS_OPT_STRICT_REPLAY: settings.strict_replay = true; return 0;
    case SETTINGS_OPT_STALL_TIMEOUT:
        if (settings_number(arg, 1, 86400, &v) < 0) return -1;
        settings.log_stall_timeout = (int)v;
        return 0;
    case SETTINGS_OPT_CHECK_DIR:
        free(settings.check_dir);
        settings.check_dir = strdup(arg);
        return settings.check_dir != NULL ? 0 : -1;
    case SETTINGS_OPT_SNAP_MIN:
        return settings_size(arg, 1, &settings.snapshot_min);
    case SETTINGS_OPT_SNAP_GROWTH:
        if (settings_number(arg, 0, 100000, &v) < 0) return -1;
        settings.snapshot_growth = (int)v;
        return 0;
    case SETTINGS_OPT_LOG_BUFFER:
        return settings_size(arg, 1, &settings.log_buffer);
    case SETTINGS_OPT_REPLICAOF:
        free(settings.replicaof);
        settings.replicaof = strdup(arg);
        return settings.replicaof != NULL && strchr(arg, ':') != NULL ? 0 : -1;
    case SETTINGS_OPT_REPL_TIMEOUT:
        if (settings_number(arg, 1, 86400, &v) < 0) return -1;
        settings.repl_timeout = (int)v;
        return 0;
    case SETTINGS_OPT_SERVE_STALE:
        if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0) return -1;
        settings.repl_serve_stale = strcmp(arg, "yes") == 0;
        return 0;
    case SETTINGS_OPT_MAX_LAG:
        if (settings_number(arg, 0, 86400, &v) < 0) return -1;
        settings.repl_max_lag = (unsigned)v;
        return 0;
    case SETTINGS_OPT_PRIMARY_AUTH:
        free(settings.primary_auth_file);
        settings.primary_auth_file = strdup(arg);
        return settings.primary_auth_file != NULL ? 0 : -1;
    case SETTINGS_OPT_PRIMARY_TLS:
        settings.primary_tls = true;
        return 0;
    case SETTINGS_OPT_PRIMARY_TLS_CA:
        return settings_tls_link_file(&settings.primary_tls_ca, arg);
    case SETTINGS_OPT_PRIMARY_TLS_CERT:
        return settings_tls_link_file(&settings.primary_tls_cert, arg);
    case SETTINGS_OPT_PRIMARY_TLS_KEY:
        return settings_tls_link_file(&settings.primary_tls_key, arg);
    case SETTINGS_OPT_MIN_REPLICAS_ACK:
        if (settings_number(arg, 0, 64, &v) < 0) return -1;
        settings.min_replicas_ack = (int)v;
        return 0;
    case SETTINGS_OPT_MIN_REPLICAS_TIMEOUT:
        if (settings_number(arg, 1, 3600000, &v) < 0) return -1;
        settings.min_replicas_timeout = (int)v;
        return 0;
    }
    return -1;
}

/* Applies one option; returns 0, or -1 when its argument is invalid. */
static int settings_apply(int letter, const char *arg) {
    long v;

    switch (letter) {
    case 'p':
        if (settings_number(arg, 0, 65535, &v) < 0) return -1;
        settings.port = (int)v;
        return 0;
    case 'l':
        return settings_listen(arg);
    case 's':
        free(settings.socket_path);
        settings.socket_path = strdup(arg);
        return 0;
    case 'a':
        return settings_mask(arg);
    case 't':
        if (settings_number(arg, 1, 256, &v) < 0) return -1;
        settings.num_threads = (int)v;
        return 0;
    case 'm':
        return settings_size(arg, 1024UL * 1024, &settings.maxbytes);
    case 'I':
        return settings_size(arg, 1, &settings.item_size_max);
    case 'c':
        if (settings_number(arg, 1, 1000000, &v) < 0) return -1;
        settings.maxconns = (int)v;
        return 0;
    case 'R':
        if (settings_number(arg, 1, INT_MAX, &v) < 0) return -1;
        settings.reqs_per_event = (int)v;
        return 0;
    case 'B':
        return settings_protocol_arg(arg);
    case 'U':
        return settings_number(arg, 0, 0, &v);
    case 'o':
        return settings_extended(arg);
    case 'Y':
        free(settings.auth_file);
        settings.auth_file = strdup(arg);
        return settings.auth_file != NULL ? 0 : -1;
    case SETTINGS_OPT_ADMIN_USERS:
        free(settings.admin_users);
        settings.admin_users = strdup(arg);
        return settings.admin_users != NULL ? 0 : -1;
    case 'M': settings.evict_to_free = false; return 0;
    case 'A': settings.shutdown_enabled = true; return 0;
    case 'F': settings.flush_enabled = false; return 0;
    case 'C': settings.cas_enabled = false; return 0;
    case 'v': settings.verbose++; return 0;
    case SETTINGS_OPT_DEBUG: settings.debug = true; return 0;
    case SETTINGS_OPT_RECEIPTS_ONLY: settings.receipts_only = true; return 0;
    case SETTINGS_OPT_METRICS_PORT: case SETTINGS_OPT_METRICS_LISTEN: case SETTINGS_OPT_METRICS_TOP:
        return settings_apply_metrics(letter, arg);
    case 'Z': tls_opts.enabled = true; return 0;
    case SETTINGS_OPT_OUTPUT_MAX:
        return settings_size(arg, 1, &settings.conn_output_max);
    case SETTINGS_OPT_BUFFER_LIMIT:
        return settings_size(arg, 1, &settings.conn_buffer_limit);
    case SETTINGS_OPT_LOG_FILE:
        free(settings.log_file);
        settings.log_file = strdup(arg);
        return 0;
    case SETTINGS_OPT_DATA_DIR: case SETTINGS_OPT_FSYNC: case SETTINGS_OPT_PERSIST_ITEMS:
    case SETTINGS_OPT_RECOVER_PARTIAL: case SETTINGS_OPT_SNAP_MIN: case SETTINGS_OPT_SNAP_GROWTH:
    case SETTINGS_OPT_LOG_BUFFER: case SETTINGS_OPT_STRICT_REPLAY: case SETTINGS_OPT_STALL_TIMEOUT:
    case SETTINGS_OPT_CHECK_DIR: case SETTINGS_OPT_REPLICAOF: case SETTINGS_OPT_REPL_TIMEOUT:
    case SETTINGS_OPT_SERVE_STALE: case SETTINGS_OPT_MAX_LAG:
    case SETTINGS_OPT_MIN_REPLICAS_ACK: case SETTINGS_OPT_MIN_REPLICAS_TIMEOUT: case SETTINGS_OPT_PRIMARY_AUTH:
    case SETTINGS_OPT_PRIMARY_TLS: case SETTINGS_OPT_PRIMARY_TLS_CA: case SETTINGS_OPT_PRIMARY_TLS_CERT:
    case SETTINGS_OPT_PRIMARY_TLS_KEY:
        return settings_apply_persist(letter, arg);
    default:
        return settings_apply_memcached(letter, arg);
    }
    return -1;
}

/* Cross-option rules, as memcached checks them. */
static const char *settings_check(void) {
    if (settings.item_size_max < SETTINGS_ITEM_MIN)
        return "item max size cannot be less than 1024 bytes";
    if (settings.admin_users != NULL && settings.auth_file == NULL)
        return "--admin-users needs -Y/--auth-file (who the users are)";
    if (settings.sasl && settings.auth_file == NULL)
        return "-S/--enable-sasl needs -Y/--auth-file: mcds reads its users and passwords from a file "
               "of user:password lines, not from a SASL database";
    if (settings.item_size_max > SETTINGS_ITEM_MAX)
        return "cannot set item size limit higher than 1 gigabyte";
    if (settings.min_replicas_ack > 0 && settings.data_dir == NULL)
        return "--min-replicas-ack needs --data-dir (replicas stream the log)";
    if (settings.maxbytes < 1024 * 1024)
        return "memory limit must be at least 1 megabyte";
    if (settings.item_size_max > settings.maxbytes / 2)
        return "cannot set item size limit higher than 1/2 of memory max";
    if (settings.conn_output_max < SETTINGS_OUTPUT_MIN)
        return "--conn-output-max must be at least 4k";
    if (settings.replicaof != NULL && settings.data_dir == NULL)
        return "--replicaof needs --data-dir (a replica keeps its primary's log)";
    if ((settings.primary_tls_cert == NULL) != (settings.primary_tls_key == NULL))
        return "--primary-tls-cert and --primary-tls-key go together";
    if (settings.log_buffer < 65536 || (settings.log_buffer & (settings.log_buffer - 1)) != 0)
        return "--log-buffer must be a power of two, at least 64k";
    if (tls_opts.enabled && tls_opts.chain_cert == NULL)
        return "-Z needs -o ssl_chain_cert=<file> (and ssl_key=<file> unless the key is in it)";
    return NULL;
}

static const char *settings_long_name(int letter) {
    size_t i;

    for (i = 0; i < SETTINGS_NOPTIONS; i++) {
        if (settings_options[i].letter == letter)
            return settings_options[i].long_name;
    }
    return "?";
}

static void settings_build_getopt(char *shortopts, struct option *longopts) {
    size_t i, n = 0;

    for (i = 0; i < SETTINGS_NOPTIONS; i++) {
        const struct settings_option *o = &settings_options[i];
        if (o->letter < SETTINGS_OPT_OUTPUT_MAX) {
            shortopts[n++] = (char)o->letter;
            if (o->has_arg == required_argument)
                shortopts[n++] = ':';
        }
        longopts[i].name = o->long_name;
        longopts[i].has_arg = o->has_arg;
        longopts[i].flag = NULL;
        longopts[i].val = o->letter;
    }
    shortopts[n] = '\0';
    memset(&longopts[SETTINGS_NOPTIONS], 0, sizeof(struct option));
}

int settings_parse(int argc, char **argv) {
    char shortopts[SETTINGS_NOPTIONS * 2 + 1];
    struct option longopts[SETTINGS_NOPTIONS + 1];
    const char *why;
    int c;

    settings_build_getopt(shortopts, longopts);
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'h') {
            settings_usage(stdout);
            return 1;
        }
        if (c == 'V') {
            printf("mcds-server %s (memcached protocol %s)\n", PACKAGE_VERSION, MCDS_PROTOCOL_VERSION);
            return 1;
        }
        if (c == 'i') {
            printf("mcds-server %s is distributed under the 3-clause BSD license (the LICENSE file of\n"
                   "its source; /usr/share/doc/mcds-server/copyright in the Debian package).\n"
                   "It links libevent (3-clause BSD) and, when built with TLS, OpenSSL (Apache 2.0).\n",
                   PACKAGE_VERSION);
            return 1;
        }
        if (c == '?' || settings_apply(c, optarg) < 0) {
            if (c == '?')
                fprintf(stderr, "mcds-server: unknown option or missing argument: %s\n", argv[optind - 1]);
            else
                fprintf(stderr, "mcds-server: invalid argument for --%s: %s\n", settings_long_name(c),
                        optarg ? optarg : "");
            settings_usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "mcds-server: unexpected argument: %s\n", argv[optind]);
        settings_usage(stderr);
        return -1;
    }
    why = settings_check();
    if (why != NULL) {
        fprintf(stderr, "mcds-server: %s\n", why);
        return -1;
    }
    return 0;
}
