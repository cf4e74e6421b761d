/*
 * null-server: a memcached text/meta protocol server that stores nothing.
 *
 * Every get is a miss (END / EN), every storage command STORED / HD, mn MN,
 * anything else ERROR. It parses lines and skips data blocks as a real
 * server must, and answers everything one read brought with one write, so
 * it is the floor a real server's request handling is measured against:
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

/* The reply to one command line; *skip is set to its data block's length. */
static const char *null_reply(const char *line, size_t len, size_t *skip) {
    char verb[8] = {0}, bytes[24] = {0};
    const char *sp;
    size_t vlen;

    if (len > 0 && line[len - 1] == '\r')
        len--;
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

/* Answers every complete command in c->in; -1 if the connection must go. */
static int null_serve(struct null_conn *c) {
    size_t pos = 0, out = 0;

    for (;;) {
        size_t n = c->skip < c->have - pos ? c->skip : c->have - pos;
        char *nl;
        const char *r;
        pos += n;
        c->skip -= n;
        if (c->skip > 0 || pos == c->have)
            break;
        nl = memchr(c->in + pos, '\n', c->have - pos);
        if (nl == NULL)
            break;
        r = null_reply(c->in + pos, (size_t)(nl - (c->in + pos)), &c->skip);
        if (out + strlen(r) > sizeof(c->out)) {
            if (write(c->fd, c->out, out) != (ssize_t)out)
                return -1;
            out = 0;
        }
        memcpy(c->out + out, r, strlen(r));
        out += strlen(r);
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
    for (i = 0; i < threads; i++)
        pthread_create(&tid, NULL, null_thread, NULL);
    pause();
    return 0;
}
