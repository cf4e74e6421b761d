/*
 * settings: every option of the server in one struct, its defaults, the
 * command-line parser and the usage text. Options follow memcached's
 * letters where memcached has them.
 */
#ifndef MCDS_SETTINGS_H
#define MCDS_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

enum settings_protocol { PROTO_AUTO, PROTO_ASCII, PROTO_BINARY };

struct settings {
    int port;                 /* -p, 0 = pick a free port */
    char *listen_addr;        /* -l */
    char *socket_path;        /* -s, disables TCP when set */
    int socket_mask;          /* -a */
    int num_threads;          /* -t */
    size_t maxbytes;          /* -m, bytes */
    size_t item_size_max;     /* -I, bytes */
    int maxconns;             /* -c */
    bool evict_to_free;       /* cleared by -M */
    bool shutdown_enabled;    /* -A */
    bool flush_enabled;       /* cleared by -F */
    bool cas_enabled;         /* cleared by -C */
    int verbose;              /* -v, -vv */
    int reqs_per_event;       /* -R */
    enum settings_protocol protocol; /* -B */
    int hashpower_init;       /* -o hashpower=N */
    bool debug;               /* --debug: enables the debugtime verb */
    size_t conn_output_max;   /* --conn-output-max: replies queued per connection */
    size_t conn_buffer_limit; /* --conn-buffer-limit: all connection buffers, 0 = none */
    char *log_file;           /* --log-file: log here instead of stderr */
    char *data_dir;           /* --data-dir: persistence on, files here */
    int fsync_policy;         /* --fsync: enum persist_fsync */
    bool persist_items;       /* --persist-items: cache values are logged too */
    size_t snapshot_min;      /* --snapshot-min-size: log bytes before an automatic snapshot */
    int snapshot_growth;      /* --snapshot-growth: ... and percent of the last snapshot */
    size_t log_buffer;        /* --log-buffer: the log's ring buffer */
    bool recover_partial;     /* --recover-partial: step over damage, keep what follows */
    bool strict_replay;       /* --strict-replay: a record that does not apply stops start-up */
    bool receipts_only;       /* --receipts-only: qack, qrelease, qtouch refuse a bare id */
    int log_stall_timeout;    /* --log-stall-timeout: seconds replies wait for a log that cannot be written */
    char *check_dir;          /* --check-data-dir: check this directory and exit */
    char *replicaof;          /* --replicaof: HOST:PORT of the primary (doc/replication.md) */
    int repl_timeout;         /* --repl-timeout: seconds a silent replication link lives */
    bool repl_serve_stale;    /* --replica-serve-stale: reads served while the link is not up */
    unsigned repl_max_lag;    /* --replica-max-lag: ... or while behind longer than this (s; 0: no limit) */
    char *primary_auth_file;  /* --primary-auth-file: a replica's user:password for its primary's -Y */
    bool primary_tls;         /* --primary-tls: a replica speaks TLS to its primary */
    char *primary_tls_ca;     /* --primary-tls-ca: CA certificates the primary's is checked against */
    char *primary_tls_cert;   /* --primary-tls-cert: the replica's certificate chain ... */
    char *primary_tls_key;    /* --primary-tls-key: ... and its key */
    int min_replicas_ack;     /* --min-replicas-ack: replicas a change waits for (0: none) */
    int min_replicas_timeout; /* --min-replicas-timeout: milliseconds it waits at most */
    char *auth_file;          /* -Y, --auth-file: connections must authenticate (auth.c) */
    char *admin_users;        /* --admin-users: comma-separated users allowed admin commands */
    int metrics_port;         /* --metrics-port: Prometheus metrics over HTTP, 0 = off */
    char *metrics_listen;     /* --metrics-listen: its interface */
    int metrics_top;          /* --metrics-top: queues and lists named in the metrics */
    /* memcached's command-line options that scripts pass */
    bool daemonize;           /* -d: into the background once ready */
    char *pid_file;           /* -P */
    char *user;               /* -u: the user to become once listening, when root */
    int backlog;              /* -b */
    bool lock_memory;         /* -k */
    bool sasl;                /* -S: authentication required (needs -Y) */
    bool dump_disabled;       /* -X: no stats cachedump, no lru_crawler metadump */
    bool watch_disabled;      /* -W: no watch */
    bool coredumps;           /* -r: the core file limit raised to its maximum */
    char prefix_delimiter;    /* -D <char>: stats detail's key prefixes end here (default ':') */
    bool lru_crawler;         /* cleared by -o no_lru_crawler */
    int idle_timeout;         /* -o idle_timeout=<secs>, 0 = none */
    size_t watcher_logbuf;    /* -o watcher_logbuf_size=<KB> */
    /* set at run time by the operator verbs (lru_crawler, slabs automove),
     * shown by `stats settings` */
    uint32_t crawler_sleep, crawler_tocrawl, slab_automove;
    double slab_automove_ratio;
};

extern struct settings settings;

void settings_init(void);
/* Parses argv into settings. Returns 0 to run, 1 when the process should
 * exit successfully (-h, -V), -1 on a bad option (usage already printed). */
int settings_parse(int argc, char **argv);
void settings_free(void);
void settings_usage(FILE *out);
const char *settings_protocol_name(void);
/* A whole decimal number in [min, max] into *out: 0, or -1. */
int settings_number(const char *arg, long min, long max, long *out);

#endif
