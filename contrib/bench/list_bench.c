/*
 * list_bench: list workloads against mcds-server (its list verbs) or Redis
 * (the same operations in RESP), with one client, the same pipelining and
 * the same element values on both, so that the two rows of a phase compare
 * the servers and not the clients (doc/performance.md, "Lists").
 *
 *   list-bench -p mcds|redis [-s host:port] [-n elements] [-P server-pid]
 *              [-d depth] [-t seconds-per-phase]
 *
 * Phases, each bounded by a count and by -t seconds: rpush of -n 32-byte
 * elements into one list (the big list), lpush and lpop, rpush and rpop on
 * a second list, lrange of 10 and 100 elements at the head and the middle
 * of the big list, removal by value (one element near the middle, each a
 * different one) and membership of a value near the middle (mcds: lexists;
 * Redis: LPOS). With -P, the server's resident memory growth while the big
 * list was filled, per element. Output: one line per phase,
 * "<phase> <ops> <seconds> <ops/s>".
 */
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LB_VALUE 32                 /* bytes per element */
#define LB_BUF (1 << 20)
#define NONE LLONG_MIN              /* no number in a command */

struct lb {
    int fd;
    int redis;
    char *buf;                      /* unread reply bytes [pos, len) */
    size_t pos, len;
    char out[LB_BUF];               /* requests not sent yet */
    size_t nout;
};

static double lb_now(void) {
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lb_die(const char *what) {
    perror(what);
    exit(1);
}

static void lb_connect(struct lb *b, const char *hostport) {
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;

    if (colon == NULL || (size_t)(colon - hostport) >= sizeof(host))
        lb_die("-s host:port");
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        lb_die("getaddrinfo");
    b->fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (b->fd < 0 || connect(b->fd, ai->ai_addr, ai->ai_addrlen) != 0)
        lb_die("connect");
    freeaddrinfo(ai);
    b->buf = malloc(LB_BUF);
    if (b->buf == NULL)
        lb_die("malloc");
}

static void lb_flush(struct lb *b) {
    size_t off = 0;

    while (off < b->nout) {
        ssize_t n = write(b->fd, b->out + off, b->nout - off);
        if (n <= 0)
            lb_die("write");
        off += (size_t)n;
    }
    b->nout = 0;
}

static void lb_send(struct lb *b, const char *p, size_t n) {
    if (b->nout + n > sizeof(b->out))
        lb_flush(b);
    memcpy(b->out + b->nout, p, n);
    b->nout += n;
}

/* Makes n bytes readable at b->buf + b->pos. */
static void lb_need(struct lb *b, size_t n) {
    while (b->len - b->pos < n) {
        ssize_t r;
        if (b->pos > 0) {
            memmove(b->buf, b->buf + b->pos, b->len - b->pos);
            b->len -= b->pos;
            b->pos = 0;
        }
        if (b->len == LB_BUF)
            lb_die("reply too long");
        r = read(b->fd, b->buf + b->len, LB_BUF - b->len);
        if (r <= 0)
            lb_die("read");
        b->len += (size_t)r;
    }
}

/* One reply line (without "\r\n"), NUL-terminated in place. */
static char *lb_line(struct lb *b) {
    char *eol;

    for (;;) {
        eol = memchr(b->buf + b->pos, '\n', b->len - b->pos);
        if (eol != NULL)
            break;
        lb_need(b, b->len - b->pos + 1);
    }
    *eol = '\0';
    if (eol > b->buf + b->pos && eol[-1] == '\r')
        eol[-1] = '\0';
    {
        char *line = b->buf + b->pos;
        b->pos = (size_t)(eol + 1 - b->buf);
        return line;
    }
}

static void lb_skip(struct lb *b, size_t n) {
    lb_need(b, n);
    b->pos += n;
}

/* One RESP value; returns the integer of ':' replies. */
static long long lb_resp(struct lb *b) {
    char *l = lb_line(b);
    long long n = atoll(l + 1), i;

    if (l[0] == '-') {
        fprintf(stderr, "redis: %s\n", l);
        exit(1);
    }
    if (l[0] == '$' && n >= 0)
        lb_skip(b, (size_t)n + 2);
    for (i = 0; l[0] == '*' && i < n; i++)
        lb_resp(b);
    return n;
}

/* One mcds reply: a line, or VALUE blocks up to END. */
static void lb_mcds(struct lb *b) {
    for (;;) {
        char *l = lb_line(b);
        if (strncmp(l, "VALUE ", 6) == 0) {
            lb_skip(b, (size_t)atoll(strrchr(l, ' ') + 1) + 2);
            continue;
        }
        if (strncmp(l, "ERROR", 5) == 0 || strncmp(l, "CLIENT_ERROR", 12) == 0 ||
            strncmp(l, "SERVER_ERROR", 12) == 0) {
            fprintf(stderr, "mcds: %s\n", l);
            exit(1);
        }
        return;
    }
}

static void lb_reply(struct lb *b) {
    if (b->redis)
        lb_resp(b);
    else
        lb_mcds(b);
}

static void lb_value(char *v, long long i) {
    snprintf(v, LB_VALUE + 1, "v%031lld", i);
}

/* A command: verb and key, then up to two numbers (NONE: absent), then a
 * value, in either protocol. */
static void lb_cmd(struct lb *b, const char *verb, const char *key, long long a, long long c,
                   const char *val) {
    char line[256];
    int n;

    if (b->redis) {
        const char *args[5];
        char na[24], nc[24];
        int argc = 0, i;
        args[argc++] = verb;
        args[argc++] = key;
        if (a != NONE) {
            snprintf(na, sizeof(na), "%lld", a);
            args[argc++] = na;
        }
        if (c != NONE) {
            snprintf(nc, sizeof(nc), "%lld", c);
            args[argc++] = nc;
        }
        if (val != NULL)
            args[argc++] = val;
        n = snprintf(line, sizeof(line), "*%d\r\n", argc);
        lb_send(b, line, (size_t)n);
        for (i = 0; i < argc; i++) {
            n = snprintf(line, sizeof(line), "$%zu\r\n%s\r\n", strlen(args[i]), args[i]);
            lb_send(b, line, (size_t)n);
        }
        return;
    }
    n = snprintf(line, sizeof(line), "%s %s", verb, key);
    if (a != NONE)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %lld", a);
    if (c != NONE)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %lld", c);
    if (val != NULL)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %zu\r\n%s", strlen(val), val);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "\r\n");
    lb_send(b, line, (size_t)n);
}


enum lb_op { OP_RPUSH, OP_LPUSH, OP_LPOP, OP_RPOP, OP_RANGE, OP_REM, OP_MEMBER };

struct lb_phase {
    const char *name;
    enum lb_op op;
    const char *key;
    long long count;
    long long off, lim;             /* OP_RANGE */
};

/* The i-th command of a phase. */
static void lb_issue(struct lb *b, const struct lb_phase *ph, long long i, long long n) {
    char v[LB_VALUE + 1];

    switch (ph->op) {
    case OP_RPUSH:
    case OP_LPUSH:
        lb_value(v, i);
        lb_cmd(b, ph->op == OP_RPUSH ? "rpush" : "lpush", ph->key, NONE, NONE, v);
        break;
    case OP_LPOP:
    case OP_RPOP:
        lb_cmd(b, ph->op == OP_LPOP ? "lpop" : "rpop", ph->key, NONE, NONE, NULL);
        break;
    case OP_RANGE:
        if (b->redis)
            lb_cmd(b, "lrange", ph->key, ph->off, ph->off + ph->lim - 1, NULL);
        else
            lb_cmd(b, "lrange", ph->key, ph->off, ph->lim, NULL);
        break;
    case OP_REM:
        /* a different element each time, around the middle */
        lb_value(v, n / 2 - 5000 + i);
        lb_cmd(b, "lrem", ph->key, 1, NONE, v);
        break;
    case OP_MEMBER:
        lb_value(v, n / 2 + (i % 1000));
        if (b->redis)
            lb_cmd(b, "lpos", ph->key, NONE, NONE, v);
        else
            lb_cmd(b, "lexists", ph->key, NONE, NONE, v);
        break;
    }
}

/* Runs a phase: up to ph->count commands, depth in flight, for at most
 * secs; prints its line. */
static void lb_run(struct lb *b, const struct lb_phase *ph, long long n, int depth, double secs) {
    double t0 = lb_now(), t;
    long long sent = 0, done = 0;

    while (done < ph->count) {
        while (sent < ph->count && sent - done < depth)
            lb_issue(b, ph, sent++, n);
        lb_flush(b);
        while (done < sent) {
            lb_reply(b);
            done++;
            if (done == sent || (done & 63) == 0)
                break;
        }
        if (lb_now() - t0 > secs && done == sent)
            break;
    }
    t = lb_now() - t0;
    printf("%-16s %9lld %8.3f %12.0f\n", ph->name, done, t, (double)done / t);
    fflush(stdout);
}

static long lb_rss_kb(long pid) {
    char path[64], line[256];
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    static struct lb b;
    const char *server = "127.0.0.1:11211";
    long long n = 1000000;
    int depth = 64, opt;
    double secs = 5;
    long pid = 0, rss0 = 0;

    while ((opt = getopt(argc, argv, "p:s:n:P:d:t:")) != -1) {
        switch (opt) {
        case 'p': b.redis = strcmp(optarg, "redis") == 0; break;
        case 's': server = optarg; break;
        case 'n': n = atoll(optarg); break;
        case 'P': pid = atol(optarg); break;
        case 'd': depth = atoi(optarg); break;
        case 't': secs = atof(optarg); break;
        default:
            fprintf(stderr, "usage: list-bench -p mcds|redis [-s host:port] [-n elements] "
                    "[-P pid] [-d depth] [-t secs]\n");
            return 2;
        }
    }
    lb_connect(&b, server);
    {
        const struct lb_phase fill = { "rpush(fill)", OP_RPUSH, "lb:big", n, 0, 0 };
        const struct lb_phase rest[] = {
            { "lpush", OP_LPUSH, "lb:small", 200000, 0, 0 },
            { "lpop", OP_LPOP, "lb:small", 200000, 0, 0 },
            { "rpush", OP_RPUSH, "lb:small", 200000, 0, 0 },
            { "rpop", OP_RPOP, "lb:small", 200000, 0, 0 },
            { "range10-head", OP_RANGE, "lb:big", 100000, 0, 10 },
            { "range10-mid", OP_RANGE, "lb:big", 100000, n / 2, 10 },
            { "range100-head", OP_RANGE, "lb:big", 20000, 0, 100 },
            { "range100-mid", OP_RANGE, "lb:big", 20000, n / 2, 100 },
            { "member-mid", OP_MEMBER, "lb:big", 100000, 0, 0 },
            { "rem-mid", OP_REM, "lb:big", 10000, 0, 0 },
        };
        size_t i;

        lb_cmd(&b, "del", "lb:big", NONE, NONE, NULL);
        lb_cmd(&b, "del", "lb:small", NONE, NONE, NULL);
        if (!b.redis) {         /* mcds spells it delete */
            b.nout = 0;
            lb_cmd(&b, "delete", "lb:big", NONE, NONE, NULL);
            lb_cmd(&b, "delete", "lb:small", NONE, NONE, NULL);
        }
        lb_flush(&b);
        lb_reply(&b);
        lb_reply(&b);
        if (pid > 0)
            rss0 = lb_rss_kb(pid);
        lb_run(&b, &fill, n, depth, 1e9);
        if (pid > 0)
            printf("rss-per-element  %.1f bytes (%ld kB for %lld elements of %d bytes)\n",
                   (double)(lb_rss_kb(pid) - rss0) * 1024 / (double)n, lb_rss_kb(pid) - rss0,
                   n, LB_VALUE);
        for (i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
            if (rest[i].op == OP_MEMBER && pid > 0)
                rss0 = lb_rss_kb(pid);
            lb_run(&b, &rest[i], n, depth, secs);
            if (rest[i].op == OP_MEMBER && pid > 0)
                printf("rss-after-member %.1f bytes per element more\n",
                       (double)(lb_rss_kb(pid) - rss0) * 1024 / (double)n);
        }
    }
    return 0;
}
