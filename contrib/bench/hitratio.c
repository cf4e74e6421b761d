/*
 * hitratio: the hit ratio a look-aside cache gets from a server at a given
 * -m, under a skewed key popularity and mixed TTLs (doc/performance.md,
 * "Hit ratio at equal memory").
 *
 * One connection replays a request stream fixed by the seed: keys drawn
 * from a Zipf distribution (exponent --zipf, default 1.0) over --keys keys,
 * asked --batch at a time with one multi-get; every key that missed is then
 * set (noreply) with a value of its own size (uniform in --min-size ..
 * --max-size, fixed per key) and a TTL from the --ttls mix, as an
 * application filling its cache on a miss would. Requests before --warmup
 * are not counted. With --scan SHARE:N, that share of the requests instead
 * reads the next key of a loop over N keys outside the Zipf set (a scan
 * mixed into the stream, each key read once per loop). Two servers given the same options see the same keys in
 * the same order, so their hit ratios compare their memory use and
 * eviction, nothing else. Prints one line: hits, gets, ratio.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hitratio_stream.h"

#define HR_BATCH_MAX 100
#define HR_TTLS_MAX 16
#define HR_BUF (1 << 22)

struct hr_opts {
    int port;
    uint64_t keys, requests, warmup, seed;
    double zipf, scan_share;
    uint64_t scan_keys, scan_next;
    unsigned batch, min_size, max_size;
    unsigned ttl[HR_TTLS_MAX], ttl_weight[HR_TTLS_MAX], nttl, ttl_total;
};

/* The next key of the stream: a scan key (numbered after the Zipf keys)
 * for a --scan share of the requests, else a Zipf key. */
static uint64_t hr_next_key(struct hr_opts *o, const double *cdf) {
    if (o->scan_share > 0 && hr_unit() < o->scan_share)
        return o->keys + o->scan_next++ % o->scan_keys;
    return hr_key(cdf, o->keys);
}

static unsigned hr_size(const struct hr_opts *o, uint64_t k) {
    return o->min_size + (unsigned)(hr_mix(k) % (o->max_size - o->min_size + 1));
}

static unsigned hr_ttl(const struct hr_opts *o, uint64_t k) {
    unsigned w = (unsigned)(hr_mix(k ^ 0x9e3779b97f4a7c15ull) % o->ttl_total), i;

    for (i = 0; i + 1 < o->nttl && w >= o->ttl_weight[i]; i++)
        w -= o->ttl_weight[i];
    return o->ttl[i];
}

static int hr_connect(int port) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        perror("hitratio: connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static void hr_send(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            perror("hitratio: write");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Reads the reply to one multi-get (up to END) and marks the keys that hit. */
static void hr_read_get(int fd, char *buf, const uint64_t *keys, unsigned n, int *hit) {
    static size_t have, pos;
    unsigned i;

    for (i = 0; i < n; i++)
        hit[i] = 0;
    for (;;) {
        char *nl = memchr(buf + pos, '\n', have - pos);
        if (nl != NULL) {
            unsigned long long key;
            unsigned flags, bytes;
            if (!strncmp(buf + pos, "END\r\n", 5)) {
                pos += 5;
                return;
            }
            if (sscanf(buf + pos, "VALUE k%llu %u %u", &key, &flags, &bytes) != 3) {
                fprintf(stderr, "hitratio: unexpected reply: %.40s\n", buf + pos);
                exit(1);
            }
            if ((size_t)(nl + 1 - buf) + bytes + 2 <= have) {
                for (i = 0; i < n; i++)
                    if (keys[i] == key)
                        hit[i] = 1;
                pos = (size_t)(nl + 1 - buf) + bytes + 2;
                continue;
            }
        }
        memmove(buf, buf + pos, have - pos);
        have -= pos;
        pos = 0;
        ssize_t r = read(fd, buf + have, HR_BUF - have);
        if (r <= 0) {
            fprintf(stderr, "hitratio: connection closed\n");
            exit(1);
        }
        have += (size_t)r;
    }
}

static int hr_parse_ttls(struct hr_opts *o, char *s) {
    char *tok;

    o->nttl = o->ttl_total = 0;
    for (tok = strtok(s, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (o->nttl == HR_TTLS_MAX || sscanf(tok, "%u:%u", &o->ttl[o->nttl], &o->ttl_weight[o->nttl]) != 2)
            return -1;
        o->ttl_total += o->ttl_weight[o->nttl++];
    }
    return o->ttl_total > 0 ? 0 : -1;
}

static void hr_usage(void) {
    fprintf(stderr,
            "usage: hitratio -p PORT [--keys N] [--requests N] [--warmup N] [--zipf S]\n"
            "                [--batch N] [--min-size B] [--max-size B] [--ttls T:W,...] [--seed N]\n"
            "                [--scan SHARE:N]\n"
            "  defaults: 2000000 keys, 10000000 requests (the first 2000000 not counted),\n"
            "  zipf 1.0, batch 100, values 100..100 bytes, ttls 0:1 (no TTL), seed 1, no scan\n");
    exit(2);
}

static void hr_args(int argc, char **argv, struct hr_opts *o) {
    char ttls[256] = "0:1";
    unsigned long long scan_n = 0;
    int i, scan_ok = 1;

    *o = (struct hr_opts){.port = 0, .keys = 2000000, .requests = 10000000, .warmup = 2000000,
                          .seed = 1, .zipf = 1.0, .batch = 100, .min_size = 100, .max_size = 100};
    for (i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "-p")) o->port = atoi(v);
        else if (!strcmp(a, "--keys")) o->keys = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--requests")) o->requests = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--warmup")) o->warmup = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--zipf")) o->zipf = atof(v);
        else if (!strcmp(a, "--batch")) o->batch = (unsigned)atoi(v);
        else if (!strcmp(a, "--min-size")) o->min_size = (unsigned)atoi(v);
        else if (!strcmp(a, "--max-size")) o->max_size = (unsigned)atoi(v);
        else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--ttls")) snprintf(ttls, sizeof(ttls), "%s", v);
        else if (!strcmp(a, "--scan")) scan_ok = sscanf(v, "%lf:%llu", &o->scan_share, &scan_n) == 2;
        else hr_usage();
    }
    if (i != argc || o->port <= 0 || o->keys == 0 || o->batch == 0 || o->batch > HR_BATCH_MAX ||
        o->min_size == 0 || o->max_size < o->min_size || o->max_size > 1000000 ||
        hr_parse_ttls(o, ttls) < 0 || !scan_ok || o->scan_share < 0 || o->scan_share > 1 ||
        (o->scan_share > 0 && scan_n == 0))
        hr_usage();
    o->scan_keys = scan_n;
}

int main(int argc, char **argv) {
    struct hr_opts o;
    uint64_t keys[HR_BATCH_MAX], done = 0, gets = 0, hits = 0;
    int hit[HR_BATCH_MAX], fd;
    char *buf = malloc(HR_BUF), *out = malloc(HR_BUF), *val;
    double *cdf;

    hr_args(argc, argv, &o);
    hr_rng = o.seed * 0x9e3779b97f4a7c15ull + 1;
    cdf = hr_zipf_cdf(o.keys, o.zipf);
    val = malloc(o.max_size + 2);
    if (buf == NULL || out == NULL || cdf == NULL || val == NULL) {
        fprintf(stderr, "hitratio: out of memory\n");
        return 1;
    }
    memset(val, 'v', o.max_size);
    fd = hr_connect(o.port);
    while (done < o.requests) {
        size_t n = (size_t)snprintf(out, HR_BUF, "get");
        unsigned i;
        for (i = 0; i < o.batch; i++) {
            keys[i] = hr_next_key(&o, cdf);
            n += (size_t)snprintf(out + n, HR_BUF - n, " k%llu", (unsigned long long)keys[i]);
        }
        n += (size_t)snprintf(out + n, HR_BUF - n, "\r\n");
        hr_send(fd, out, n);
        hr_read_get(fd, buf, keys, o.batch, hit);
        n = 0;
        for (i = 0; i < o.batch; i++) {
            unsigned size = hr_size(&o, keys[i]);
            if (done + i >= o.warmup) {
                gets++;
                hits += (uint64_t)hit[i];
            }
            if (hit[i])
                continue;
            if (n + size + 300 > HR_BUF) {
                hr_send(fd, out, n);
                n = 0;
            }
            n += (size_t)snprintf(out + n, HR_BUF - n, "set k%llu 0 %u %u noreply\r\n",
                                  (unsigned long long)keys[i], hr_ttl(&o, keys[i]), size);
            memcpy(out + n, val, size);
            memcpy(out + n + size, "\r\n", 2);
            n += size + 2;
        }
        if (n > 0)
            hr_send(fd, out, n);
        done += o.batch;
    }
    printf("hits %llu gets %llu ratio %.4f\n", (unsigned long long)hits,
           (unsigned long long)gets, gets ? (double)hits / (double)gets : 0.0);
    close(fd);
    free(buf);
    free(out);
    free(val);
    free(cdf);
    return 0;
}
