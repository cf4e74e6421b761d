/*
 * mcds-bench: a load generator for memcached-protocol servers.
 *
 * This file owns the command line, the defaults and the run: it connects
 * every worker's connections, sets the clock (warm-up, then the measured
 * window), starts the threads, merges their counters and prints the report.
 * Every run is bounded in time: workers stop at the window's end (a load
 * stops at --max-time), and a watchdog alarm ends a process that overstays.
 *
 * Exit status: 0 on a clean run; 1 when anything counted as an error, no
 * request completed, or a load did not finish; 2 on bad options or when a
 * connection could not be made.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "report.h"
#include "tls.h"
#include "worker.h"
#include "workload.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

#define BENCH_WATCHDOG_GRACE 30      /* seconds past the planned end */

/* ---- helpers shared by the modules ---- */

uint64_t bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_tag_put(char *dst, uint64_t stamp)
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = BENCH_TAG_LEN - 1; i >= 0; i--) {
        dst[i] = hex[stamp & 15];
        stamp >>= 4;
    }
}

uint64_t bench_tag_get(const char *tag, size_t len)
{
    uint64_t v = 0;
    size_t i;
    char ch;

    if (len < BENCH_TAG_LEN)
        return 0;
    for (i = 0; i < BENCH_TAG_LEN; i++) {
        ch = tag[i];
        if (ch >= '0' && ch <= '9')
            v = v << 4 | (uint64_t)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v = v << 4 | (uint64_t)(ch - 'a' + 10);
        else
            return 0;
    }
    return v;
}

void bench_stats_merge(struct bench_stats *into, const struct bench_stats *from)
{
    int k;

    for (k = 0; k < OP__COUNT; k++) {
        into->ops[k] += from->ops[k];
        hist_merge(&into->lat[k], &from->lat[k]);
    }
    into->hits += from->hits;
    into->misses += from->misses;
    into->errors += from->errors;
    into->closed += from->closed;
    into->timeouts += from->timeouts;
    into->stored += from->stored;
    into->cycles += from->cycles;
    hist_merge(&into->cycle_lat, &from->cycle_lat);
}

/* ---- options ---- */

static void usage(FILE *f)
{
    fprintf(f,
"usage: mcds-bench [options]\n"
"  -s, --server HOST:PORT   server to load (repeatable; keys are sharded over\n"
"                           them; default 127.0.0.1:11211)\n"
"  -t, --threads N          worker threads (default 2)\n"
"  -c, --conns N            connections per thread (default 25)\n"
"  -D, --depth N            requests in flight per connection (default 1)\n"
"  -k, --keys N             key space size (default 100000)\n"
"  -P, --prefix STR         key prefix; keys are PREFIX<n> (default \"key:\")\n"
"  -S, --value-size N       bytes per value (default 32)\n"
"  -r, --ratio G:S          get:set weights of the mixed workload (default 9:1)\n"
"  -m, --multiget N         keys per get (default 1)\n"
"  -d, --duration SECS      measured time (default 5)\n"
"  -w, --warmup SECS        unmeasured time before it (default 1)\n"
"  -p, --protocol P         text, meta (mg/ms/mn), redis (RESP: GET/SET/MGET\n"
"                           and the queue workloads) or beanstalk (queue\n"
"                           workload only) (default text)\n"
"  -W, --workload NAME      workload (default mixed; \"list\" lists them)\n"
"  -l, --load N             store keys 0..N-1 once and exit (workload load)\n"
"Queue workloads (queue, queue-take):\n"
"      --queues N           queues PREFIX0..PREFIX<N-1>; connection i works on\n"
"                           queue i mod N (default 1; the prefix defaults to q.)\n"
"      --producers N        per thread, N connections only push and the others\n"
"                           only pop (blocking) and ack (default 0: every\n"
"                           connection runs whole push, pop, ack cycles)\n"
"      --backlog N          producers pause while N messages are queued\n"
"                           (default 1000)\n"
"      --pop-wait SECS      a consumer's blocking pop waits this long (default 1)\n"
"      --groups N           mcds text only, with --producers: each producer's\n"
"                           pushes rotate over FIFO groups g0..g<N-1> of its\n"
"                           queue (qpush group=; one message of a group in\n"
"                           flight at a time)\n"
"      --ack-with-pop       mcds text only: send each cycle's ack with the next\n"
"                           pop (qpop ack=<id>), two round trips a cycle\n"
"      --max-time SECS      give up a load after this (default 300)\n"
"      --timeout SECS       a request still unanswered this long when the run\n"
"                           ends counts as an error (default 2)\n"
"      --seed N             random seed (default 1)\n"
"      --csv                also print one CSV line (columns: --csv-header)\n"
"      --csv-header         print the CSV column names and exit\n"
"      --json               also print one JSON line\n"
"      --label STR          first field of the CSV/JSON line\n"
"      --tls                connect with TLS (the server's certificate is not\n"
"                           checked; for servers started with -Z)\n"
"  -q, --quiet              no human table\n"
"  -h, --help               this help\n"
"Workloads:\n");
    workload_list(f);
}

enum { OPT_MAX_TIME = 256, OPT_TIMEOUT, OPT_SEED, OPT_CSV, OPT_CSV_HEADER, OPT_JSON,
       OPT_LABEL, OPT_QUEUES, OPT_PRODUCERS, OPT_BACKLOG, OPT_POP_WAIT,
       OPT_ACK_WITH_POP, OPT_GROUPS, OPT_TLS };

static const struct option long_options[] = {
    { "server",     required_argument, NULL, 's' },
    { "threads",    required_argument, NULL, 't' },
    { "conns",      required_argument, NULL, 'c' },
    { "depth",      required_argument, NULL, 'D' },
    { "keys",       required_argument, NULL, 'k' },
    { "prefix",     required_argument, NULL, 'P' },
    { "value-size", required_argument, NULL, 'S' },
    { "ratio",      required_argument, NULL, 'r' },
    { "multiget",   required_argument, NULL, 'm' },
    { "duration",   required_argument, NULL, 'd' },
    { "warmup",     required_argument, NULL, 'w' },
    { "protocol",   required_argument, NULL, 'p' },
    { "workload",   required_argument, NULL, 'W' },
    { "load",       required_argument, NULL, 'l' },
    { "queues",     required_argument, NULL, OPT_QUEUES },
    { "producers",  required_argument, NULL, OPT_PRODUCERS },
    { "backlog",    required_argument, NULL, OPT_BACKLOG },
    { "pop-wait",   required_argument, NULL, OPT_POP_WAIT },
    { "ack-with-pop", no_argument,     NULL, OPT_ACK_WITH_POP },
    { "groups",     required_argument, NULL, OPT_GROUPS },
    { "tls",        no_argument,       NULL, OPT_TLS },
    { "max-time",   required_argument, NULL, OPT_MAX_TIME },
    { "timeout",    required_argument, NULL, OPT_TIMEOUT },
    { "seed",       required_argument, NULL, OPT_SEED },
    { "csv",        no_argument,       NULL, OPT_CSV },
    { "csv-header", no_argument,       NULL, OPT_CSV_HEADER },
    { "json",       no_argument,       NULL, OPT_JSON },
    { "label",      required_argument, NULL, OPT_LABEL },
    { "quiet",      no_argument,       NULL, 'q' },
    { "help",       no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int opt_u64(const char *name, const char *s, uint64_t lo, uint64_t hi,
                   uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
        fprintf(stderr, "mcds-bench: --%s wants a number from %llu to %llu, "
                "not \"%s\"\n", name, (unsigned long long)lo,
                (unsigned long long)hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int opt_int(const char *name, const char *s, int lo, int hi, int *out)
{
    uint64_t v;

    if (opt_u64(name, s, (uint64_t)lo, (uint64_t)hi, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int opt_secs(const char *name, const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || v > 86400) {
        fprintf(stderr, "mcds-bench: --%s wants seconds (0 to 86400), "
                "not \"%s\"\n", name, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* HOST:PORT, [V6]:PORT, or a bare port for 127.0.0.1. */
static int opt_server(struct bench_opts *o, const char *s)
{
    struct bench_server *srv;
    const char *colon = strrchr(s, ':');
    const char *host = s;
    size_t hlen;

    if (o->nservers == BENCH_MAX_SERVERS) {
        fprintf(stderr, "mcds-bench: at most %d servers\n", BENCH_MAX_SERVERS);
        return -1;
    }
    srv = &o->servers[o->nservers];
    if (!colon) {
        host = "127.0.0.1";
        hlen = strlen(host);
        colon = s - 1;
    } else {
        hlen = (size_t)(colon - s);
        if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
            host++;
            hlen -= 2;
        }
    }
    if (hlen == 0 || hlen >= sizeof(srv->host) ||
        strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof(srv->port)) {
        fprintf(stderr, "mcds-bench: --server wants HOST:PORT, not \"%s\"\n", s);
        return -1;
    }
    memcpy(srv->host, host, hlen);
    srv->host[hlen] = '\0';
    strcpy(srv->port, colon + 1);
    o->nservers++;
    return 0;
}

static int opt_ratio(struct bench_opts *o, const char *s)
{
    unsigned g, w;
    char sep, extra;

    if (sscanf(s, "%u%c%u%c", &g, &sep, &w, &extra) != 3 ||
        (sep != ':' && sep != '/') || g > 1000000 || w > 1000000) {
        fprintf(stderr, "mcds-bench: --ratio wants GET:SET, not \"%s\"\n", s);
        return -1;
    }
    o->get_weight = g;
    o->set_weight = w;
    return 0;
}

static int opt_prefix(struct bench_opts *o, const char *s)
{
    const char *p;

    if (strlen(s) > BENCH_MAX_PREFIX) {
        fprintf(stderr, "mcds-bench: --prefix longer than %d bytes\n",
                BENCH_MAX_PREFIX);
        return -1;
    }
    for (p = s; *p; p++) {
        if ((unsigned char)*p <= ' ' || *p == 0x7f) {
            fprintf(stderr, "mcds-bench: --prefix may not hold spaces or "
                    "control characters\n");
            return -1;
        }
    }
    strcpy(o->prefix, s);
    return 0;
}

static void opts_defaults(struct bench_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->threads = 2;
    o->conns = 25;
    o->depth = 1;
    o->keyspace = 100000;
    strcpy(o->prefix, "key:");
    o->value_size = 32;
    o->get_weight = 9;
    o->set_weight = 1;
    o->multiget = 1;
    o->duration = 5;
    o->warmup = 1;
    o->max_time = 300;
    o->timeout = 2;
    o->queues = 1;
    o->backlog = 1000;
    o->pop_wait = 1;
    o->proto = PROTO_TEXT;
    o->workload = workload_find("mixed");
    o->seed = 1;
}

/* 0: run; 1: done (help printed); -1: bad options. */
static int opt_proto(struct bench_opts *o, const char *s)
{
    static const struct { const char *name; enum bench_proto p; } protos[] = {
        { "text", PROTO_TEXT }, { "meta", PROTO_META },
        { "redis", PROTO_REDIS }, { "beanstalk", PROTO_BEANSTALK },
    };
    size_t i;

    for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
        if (strcmp(s, protos[i].name) == 0) {
            o->proto = protos[i].p;
            return 0;
        }
    }
    fprintf(stderr, "mcds-bench: --protocol is text, meta, redis or beanstalk\n");
    return -1;
}

/* Checks across options, once the workload is known. */
static int opts_check(struct bench_opts *o, int prefix_given)
{
    if (o->workload->reply && !prefix_given)
        strcpy(o->prefix, "q.");
    if (!o->workload->reply && o->proto == PROTO_BEANSTALK) {
        fprintf(stderr, "mcds-bench: -p beanstalk runs the queue workload only\n");
        return -1;
    }
    if (o->workload->setup && o->workload->setup(o) < 0)
        return -1;
    if (o->keyspace < (uint64_t)o->nservers) {
        fprintf(stderr, "mcds-bench: --keys must be at least the number of servers\n");
        return -1;
    }
    if (!o->workload->finite && o->duration <= 0) {
        fprintf(stderr, "mcds-bench: --duration must be more than 0\n");
        return -1;
    }
    return 0;
}

static int opts_parse(struct bench_opts *o, int argc, char **argv)
{
    uint64_t v;
    int ch, rc = 0, prefix_given = 0;

    opts_defaults(o);
    while (rc == 0 &&
           (ch = getopt_long(argc, argv, "s:t:c:D:k:P:S:r:m:d:w:p:W:l:qh",
                             long_options, NULL)) != -1) {
        switch (ch) {
        case 's': rc = opt_server(o, optarg); break;
        case 't': rc = opt_int("threads", optarg, 1, 256, &o->threads); break;
        case 'c': rc = opt_int("conns", optarg, 1, 10000, &o->conns); break;
        case 'D': rc = opt_int("depth", optarg, 1, 4096, &o->depth); break;
        case 'k': rc = opt_u64("keys", optarg, 1, UINT64_MAX / 2, &o->keyspace); break;
        case 'P': rc = opt_prefix(o, optarg); prefix_given = 1; break;
        case 'S':
            rc = opt_u64("value-size", optarg, 0, 64u << 20, &v);
            o->value_size = (size_t)v;
            break;
        case 'r': rc = opt_ratio(o, optarg); break;
        case 'm': rc = opt_int("multiget", optarg, 1, BENCH_MAX_MGET, &o->multiget); break;
        case 'd': rc = opt_secs("duration", optarg, &o->duration); break;
        case 'w': rc = opt_secs("warmup", optarg, &o->warmup); break;
        case 'p': rc = opt_proto(o, optarg); break;
        case 'W':
            if (strcmp(optarg, "list") == 0) {
                workload_list(stdout);
                return 1;
            }
            o->workload = workload_find(optarg);
            if (!o->workload) {
                fprintf(stderr, "mcds-bench: no workload \"%s\"; these exist:\n",
                        optarg);
                workload_list(stderr);
                rc = -1;
            }
            break;
        case 'l':
            rc = opt_u64("load", optarg, 1, UINT64_MAX / 2, &o->load_items);
            o->workload = workload_find("load");
            break;
        case OPT_MAX_TIME: rc = opt_secs("max-time", optarg, &o->max_time); break;
        case OPT_TIMEOUT: rc = opt_secs("timeout", optarg, &o->timeout); break;
        case OPT_SEED: rc = opt_u64("seed", optarg, 0, UINT64_MAX, &o->seed); break;
        case OPT_CSV: o->csv = 1; break;
        case OPT_CSV_HEADER: report_csv_header(stdout); return 1;
        case OPT_JSON: o->json = 1; break;
        case OPT_LABEL: o->label = optarg; break;
        case OPT_QUEUES: rc = opt_u64("queues", optarg, 1, 1000000, &o->queues); break;
        case OPT_PRODUCERS:
            rc = opt_int("producers", optarg, 0, 9999, &o->producers);
            break;
        case OPT_BACKLOG:
            rc = opt_u64("backlog", optarg, 1, 100000000, &v);
            o->backlog = (int64_t)v;
            break;
        case OPT_POP_WAIT: rc = opt_secs("pop-wait", optarg, &o->pop_wait); break;
        case OPT_ACK_WITH_POP: o->ack_with_pop = 1; break;
        case OPT_GROUPS: rc = opt_u64("groups", optarg, 1, 1000000, &o->groups); break;
        case OPT_TLS: o->tls = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return -1;
        }
    }
    if (rc < 0)
        return -1;
    if (optind < argc) {
        fprintf(stderr, "mcds-bench: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->nservers == 0)
        opt_server(o, "127.0.0.1:11211");
    return opts_check(o, prefix_given);
}

/* ---- the run ---- */

static void bench_watchdog(int sig)
{
    static const char msg[] = "mcds-bench: run overstayed its time limit\n";

    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

/* Raise the soft descriptor limit when the connections need more. */
static void bench_raise_nofile(const struct bench_opts *o)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)o->threads * (rlim_t)o->conns + (rlim_t)o->threads + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need
                      ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static uint64_t secs_ns(double s)
{
    return (uint64_t)(s * 1e9);
}

int main(int argc, char **argv)
{
    static struct bench_opts opts;
    static struct bench_shared sh;
    static struct bench_result res;
    struct worker *workers;
    char *value;
    double planned;
    uint64_t ops = 0, t_done = 0;
    int i, k, nsetup = 0, rc;

    rc = opts_parse(&opts, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    signal(SIGPIPE, SIG_IGN);
    bench_raise_nofile(&opts);
    if (opts.tls && bench_tls_init() < 0)
        return 2;

    value = malloc(opts.value_size ? opts.value_size : 1);
    workers = calloc((size_t)opts.threads, sizeof(*workers));
    if (!value || !workers) {
        fprintf(stderr, "mcds-bench: out of memory\n");
        return 2;
    }
    for (i = 0; i < (int)opts.value_size; i++)
        value[i] = (char)('a' + i % 26);
    sh.opts = &opts;
    sh.value = value;

    rc = 0;
    for (i = 0; i < opts.threads && rc == 0; i++) {
        nsetup++;
        rc = worker_setup(&workers[i], i, &sh);
    }
    if (rc == 0) {
        planned = opts.workload->finite ? opts.max_time
                                        : opts.warmup + opts.duration;
        signal(SIGALRM, bench_watchdog);
        alarm((unsigned)planned + BENCH_WATCHDOG_GRACE);

        sh.t_start = bench_now_ns();
        if (opts.workload->finite) {
            sh.t_measure = sh.t_start;
            sh.t_end = sh.t_start + secs_ns(opts.max_time);
        } else {
            sh.t_measure = sh.t_start + secs_ns(opts.warmup);
            sh.t_end = sh.t_measure + secs_ns(opts.duration);
        }
        sh.t_drain = sh.t_end;
        if (opts.workload->reply)
            sh.t_drain += secs_ns(opts.timeout);
        for (i = 0; i < opts.threads; i++)
            if (worker_start(&workers[i]) < 0)
                _exit(2);                  /* threads already run: just go */
        for (i = 0; i < opts.threads; i++) {
            worker_join(&workers[i]);
            bench_stats_merge(&res.total, &workers[i].stats);
            if (workers[i].t_done > t_done)
                t_done = workers[i].t_done;
        }
        alarm(0);

        res.opts = &opts;
        res.nconns = opts.threads * opts.conns;
        res.seconds = opts.workload->finite
            ? (double)(t_done - sh.t_start) / 1e9 : opts.duration;
        if (!opts.quiet)
            report_human(stdout, &res);
        if (opts.csv)
            report_csv(stdout, &res);
        if (opts.json)
            report_json(stdout, &res);

        for (k = 0; k < OP__COUNT; k++)
            ops += res.total.ops[k];
        if (res.total.errors || ops == 0 ||
            (opts.workload->finite && res.total.stored < opts.load_items))
            rc = 1;
    } else {
        rc = 2;
    }
    for (i = 0; i < nsetup; i++)
        worker_free(&workers[i]);
    free(workers);
    free(value);
    if (opts.tls)
        bench_tls_shutdown();
    return rc;
}
