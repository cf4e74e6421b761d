/*
 * null-server: a memcached text/meta protocol server that stores nothing.
 *
 * Every get is a miss (END / EN), every storage command STORED / HD, mn MN,
 * anything else ERROR. With NULL_SERVER_HIT=N in the environment every key
 * of a get is a hit instead, answered with a value of N bytes (at most
 * 4096), and an "mg <key> v" with "VA N" (other mg lines HD): the same
 * reply bytes a real server sends for stored keys. It parses lines and
 * skips data blocks as a real server must, and answers everything one
 * read brought with one write, so it is the floor a real server's request
 * handling is measured against:
 * compare.sh --memcached contrib/bench/null-server gives mcds/null ratios
 * (doc/performance.md, "Pipelined headroom").
 *
 * Each of the -t threads has its own listening socket on the port
 * (SO_REUSEPORT) and its own epoll loop. Takes memcached's -p and -t and
 * ignores its other options (-l is always 127.0.0.1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define NULL_BUF 65536

struct null_conn {
    int fd;
    size_t have;        /* bytes in in[] */
    size_t skip;        /* bytes of a data block still to skip */
    char in[NULL_BUF];
    char out[NULL_BUF];
};

static int null_port = 11211;

/* Bytes of the value every get hits with (NULL_SERVER_HIT=N); 0: misses. */
static size_t null_hit;
static char null_value[4096];

/* Appends n bytes to c->out (*out used), writing it out first when full;
 * -1 if the write fails. */
static int null_put(struct null_conn *c, size_t *out, const char *s, size_t n) {
    while (n > 0) {
        size_t part = sizeof(c->out) - *out < n ? sizeof(c->out) - *out : n;
        memcpy(c->out + *out, s, part);
        *out += part;
        s += part;
        n -= part;
        if (*out == sizeof(c->out)) {
            if (write(c->fd, c->out, *out) != (ssize_t)*out)
                return -1;
            *out = 0;
        }
    }
    return 0;
}

/* A hit on every key of a get line (keys: line[0..len) after the verb). */
static int null_get_hits(struct null_conn *c, size_t *out, const char *keys, size_t len) {
    char head[300];
    size_t i = 0;

    while (i < len) {
        size_t start;
        int n;
        while (i < len && keys[i] == ' ')
            i++;
        start = i;
        while (i < len && keys[i] != ' ')
            i++;
        if (i == start || i - start > 250)
            continue;
        n = snprintf(head, sizeof(head), "VALUE %.*s 0 %zu\r\n", (int)(i - start), keys + start, null_hit);
        if (null_put(c, out, head, (size_t)n) < 0 || null_put(c, out, null_value, null_hit) < 0 ||
            null_put(c, out, "\r\n", 2) < 0)
            return -1;
    }
    return null_put(c, out, "END\r\n", 5);
}

/* An mg hit: the value with v, else HD. */
static int null_mg_hit(struct null_conn *c, size_t *out, const char *line, size_t len) {
    char head[32];
    int n;

    if (len < 2 || memcmp(line + len - 2, " v", 2) != 0)
        return null_put(c, out, "HD\r\n", 4);
    n = snprintf(head, sizeof(head), "VA %zu\r\n", null_hit);
    if (null_put(c, out, head, (size_t)n) < 0 || null_put(c, out, null_value, null_hit) < 0)
        return -1;
    return null_put(c, out, "\r\n", 2);
}

/* The reply to one command line; *skip is set to its data block's length. */
static const char *null_reply(const char *line, size_t len, size_t *skip) {
    char verb[8] = {0}, bytes[24] = {0};
    const char *sp;
    size_t vlen;

    sp = memchr(line, ' ', len);
    vlen = sp != NULL ? (size_t)(sp - line) : len;

    if (vlen >= sizeof(verb))
        return "ERROR\r\n";
    memcpy(verb, line, vlen);
    if (!strcmp(verb, "get") || !strcmp(verb, "gets"))
        return "END\r\n";
    if (!strcmp(verb, "mg"))
        return "EN\r\n";
    if (!strcmp(verb, "mn"))
        return "MN\r\n";
    if (!strcmp(verb, "set") || !strcmp(verb, "add") || !strcmp(verb, "replace")) {
        if (sscanf(line, "%*s %*s %*s %*s %23s", bytes) != 1)
            return "ERROR\r\n";
        *skip = strtoul(bytes, NULL, 10) + 2;
        return "STORED\r\n";
    }
    if (!strcmp(verb, "ms")) {
        if (sscanf(line, "%*s %*s %23s", bytes) != 1)
            return "ERROR\r\n";
        *skip = strtoul(bytes, NULL, 10) + 2;
        return "HD\r\n";
    }
    return "ERROR\r\n";
}

/* Answers one command line (without its "\n") into c->out. */
static int null_answer(struct null_conn *c, size_t *out, const char *line, size_t len) {
    const char *r;

    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (null_hit > 0 && len > 4 && memcmp(line, "get ", 4) == 0)
        return null_get_hits(c, out, line + 4, len - 4);
    if (null_hit > 0 && len > 3 && memcmp(line, "mg ", 3) == 0)
        return null_mg_hit(c, out, line, len);
    r = null_reply(line, len, &c->skip);
    return null_put(c, out, r, strlen(r));
}

/* Answers every complete command in c->in; -1 if the connection must go. */
static int null_serve(struct null_conn *c) {
    size_t pos = 0, out = 0;

    for (;;) {
        size_t n = c->skip < c->have - pos ? c->skip : c->have - pos;
        char *nl;
        pos += n;
        c->skip -= n;
        if (c->skip > 0 || pos == c->have)
            break;
        nl = memchr(c->in + pos, '\n', c->have - pos);
        if (nl == NULL)
            break;
        if (null_answer(c, &out, c->in + pos, (size_t)(nl - (c->in + pos))) < 0)
            return -1;
        pos = (size_t)(nl + 1 - c->in);
    }
    memmove(c->in, c->in + pos, c->have - pos);
    c->have -= pos;
    if (c->have == sizeof(c->in))
        return -1;
    return out == 0 || write(c->fd, c->out, out) == (ssize_t)out ? 0 : -1;
}

static int null_listen(void) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)null_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0) {
        perror("null-server: listen");
        exit(1);
    }
    return fd;
}

static void *null_thread(void *arg) {
    int lfd = null_listen(), ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL}, evs[64];

    (void)arg;
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    for (;;) {
        int i, n = epoll_wait(ep, evs, 64, -1);
        for (i = 0; i < n; i++) {
            struct null_conn *c = evs[i].data.ptr;
            ssize_t r;
            if (c == NULL) {
                int fd = accept(lfd, NULL, NULL);
                if (fd < 0 || (c = calloc(1, sizeof(*c))) == NULL) {
                    if (fd >= 0)
                        close(fd);
                    continue;
                }
                c->fd = fd;
                ev.data.ptr = c;
                epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
                continue;
            }
            r = read(c->fd, c->in + c->have, sizeof(c->in) - c->have);
            if (r > 0)
                c->have += (size_t)r;
            if (r == 0 || (r < 0 && errno != EAGAIN) || (r > 0 && null_serve(c) < 0)) {
                close(c->fd);
                free(c);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int i, threads = 4;
    pthread_t tid;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "-h")) {
            puts("null-server (answers without storing; takes -p PORT -t THREADS)");
            return 0;
        }
        if (i + 1 == argc)
            break;
        if (!strcmp(argv[i], "-p"))
            null_port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t"))
            threads = atoi(argv[++i]);
    }
    if (getenv("NULL_SERVER_HIT") != NULL) {
        null_hit = strtoul(getenv("NULL_SERVER_HIT"), NULL, 10);
        if (null_hit > sizeof(null_value))
            null_hit = sizeof(null_value);
        memset(null_value, 'x', sizeof(null_value));
    }
    for (i = 0; i < threads; i++)
        pthread_create(&tid, NULL, null_thread, NULL);
    pause();
    return 0;
}
