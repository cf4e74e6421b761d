/*
 * testutil.c - helpers shared by the libmcds test programs (testutil.h):
 * checks, workers, debugtime, and a TCP proxy that can drop, stall or
 * refuse connections.
 */
#include <arpa/inet.h>
#include <libmemcached/memcached.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static unsigned watchdog_s = 60;

void tu_fail(const char *file, int line, const char *what, const char *more)
{
    fprintf(stderr, "FAIL %s:%d: %s%s%s (pid %d)\n", file, line, what,
            more ? ": " : "", more ? more : "", (int)getpid());
    fflush(NULL);
    _exit(1);
}

void tu_fail_st(const char *file, int line, const char *what,
                mcds_status_t got, mcds_status_t want)
{
    char more[200];
    snprintf(more, sizeof more, "got MCDS_%s (%s), want MCDS_%s",
             mcds_status_name(got), mcds_strerror(got),
             mcds_status_name(want));
    tu_fail(file, line, what, more);
}

const char *tu_init(int argc, char **argv, unsigned timeout_s)
{
    if (argc != 2 || argv[1][0] == '\0') {
        fprintf(stderr, "usage: %s host:port[,host:port...]\n", argv[0]);
        exit(2);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The Tcl suite lengthens the watchdog under valgrind. */
    if (getenv("MCDS_TEST_TIMEOUT") && atoi(getenv("MCDS_TEST_TIMEOUT")) > 0)
        timeout_s = (unsigned)atoi(getenv("MCDS_TEST_TIMEOUT"));
    watchdog_s = timeout_s;
    alarm(timeout_s); /* the watchdog: SIGALRM ends a hung test */
    return argv[1];
}

mcds_t *tu_open(const char *servers)
{
    mcds_t *h = NULL;
    const char *proto = getenv("MCDS_TEST_PROTOCOL");

    CHECK_ST(mcds_open(&h, servers), MCDS_OK);
    if (proto != NULL && strcmp(proto, "binary") == 0)
        CHECK(memcached_behavior_set(mcds_memcached(h),
                                     MEMCACHED_BEHAVIOR_BINARY_PROTOCOL,
                                     1) == MEMCACHED_SUCCESS);
    return h;
}

const char *tu_name(const char *prefix)
{
    static char buf[8][128];
    static unsigned counter;
    char *b = buf[counter % 8];

    snprintf(b, sizeof buf[0], "%s-%d-%u-%lld", prefix, (int)getpid(),
             counter, (long long)tu_now_ms());
    counter++;
    return b;
}

void tu_ok(const char *what)
{
    printf("ok - %s\n", what);
}

int64_t tu_now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void worker_main(int gate, int i, tu_worker_fn fn, const char *servers,
                        void *arg)
{
    char c;
    alarm(watchdog_s); /* alarms are not inherited by fork */
    /* Wait until the parent closes the gate's write end: all start at once. */
    if (read(gate, &c, 1) < 0)
        _exit(3);
    close(gate);
    fn(i, servers, arg);
    fflush(NULL);
    _exit(0);
}

int tu_run_workers(int n, tu_worker_fn fn, const char *servers, void *arg)
{
    int gate[2], failed = 0, i;
    pid_t *pids = calloc((size_t)n, sizeof *pids);

    CHECK(pids != NULL && pipe(gate) == 0);
    fflush(NULL);
    for (i = 0; i < n; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            free(pids);
            close(gate[1]);
            worker_main(gate[0], i, fn, servers, arg);
        }
    }
    close(gate[0]);
    close(gate[1]);
    for (i = 0; i < n; i++) {
        int status = 0;
        CHECK(waitpid(pids[i], &status, 0) == pids[i]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "worker %d failed (status 0x%x)\n", i, status);
            failed++;
        }
    }
    free(pids);
    return failed;
}

int tu_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int tu_cmp_items(const void *a, const void *b)
{
    const mcds_item_t *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->data, y->data, n);
    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* Connects to "host:port", or fails the test. */
static int connect_entry(const char *entry)
{
    struct addrinfo hints, *ai = NULL;
    char host[256], port[16];
    int fd;

    if (sscanf(entry, "%255[^:]:%15[0-9]", host, port) != 2)
        tu_fail(__FILE__, __LINE__, "not host:port", entry);
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &ai) != 0)
        tu_fail(__FILE__, __LINE__, "host lookup", entry);
    fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        tu_fail(__FILE__, __LINE__, "connect", entry);
    freeaddrinfo(ai);
    return fd;
}

/* Sends "debugtime <seconds>" to one server: 1 for OK, 0 otherwise. */
static int debugtime_one(const char *entry, int seconds)
{
    char line[64];
    int fd = connect_entry(entry), n, got = 0;

    n = snprintf(line, sizeof line, "debugtime %d\r\n", seconds);
    if (write(fd, line, (size_t)n) != n)
        tu_fail(__FILE__, __LINE__, "send debugtime", entry);
    while (got < (int)sizeof line - 1 && (got == 0 || line[got - 1] != '\n')) {
        ssize_t r = read(fd, line + got, 1);
        if (r <= 0)
            tu_fail(__FILE__, __LINE__, "no reply to debugtime", entry);
        got++;
    }
    line[got] = '\0';
    close(fd);
    return strcmp(line, "OK\r\n") == 0;
}

int tu_debugtime(const char *servers, int seconds)
{
    char copy[1024], *entry, *save = NULL;
    int all = 1;

    snprintf(copy, sizeof copy, "%s", servers);
    for (entry = strtok_r(copy, ",", &save); entry != NULL;
         entry = strtok_r(NULL, ",", &save))
        all &= debugtime_one(entry, seconds);
    return all;
}

void tu_sleep_until(int64_t ms)
{
    int64_t left = ms - tu_now_ms();
    struct timespec ts;

    if (left <= 0)
        return;
    ts.tv_sec = (time_t)(left / 1000);
    ts.tv_nsec = (long)(left % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0)
        continue;
}

/* ---- a proxy that can drop, stall or refuse connections ---- */

static void px_close_all(tu_proxy_t *p)
{
    int i;
    for (i = 0; i < 16; i++) {
        if (p->pair[i][0] >= 0) {
            close(p->pair[i][0]);
            close(p->pair[i][1]);
            p->pair[i][0] = p->pair[i][1] = -1;
        }
    }
}

static void px_accept(tu_proxy_t *p)
{
    int c = accept(p->lfd, NULL, NULL), u, i;

    if (c < 0)
        return;
    u = socket(AF_INET, SOCK_STREAM, 0);
    if (u < 0 || connect(u, (struct sockaddr *)&p->up, sizeof p->up) != 0) {
        close(c);
        if (u >= 0)
            close(u);
        return;
    }
    for (i = 0; i < 16; i++) {
        if (p->pair[i][0] < 0) {
            p->pair[i][0] = c;
            p->pair[i][1] = u;
            return;
        }
    }
    close(c);
    close(u);
}

static void *px_main(void *arg)
{
    tu_proxy_t *p = arg;
    char buf[65536];

    for (;;) {
        struct pollfd fds[33];
        int idx[33], n = 0, i, mode;

        pthread_mutex_lock(&p->mu);
        if (p->cut || p->stop) {
            px_close_all(p);
            p->cut = 0;
            pthread_cond_broadcast(&p->cv);
        }
        mode = p->mode;
        if (p->stop) {
            close(p->lfd);
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        pthread_mutex_unlock(&p->mu);
        fds[n].fd = p->lfd;
        fds[n].events = POLLIN;
        idx[n++] = -1;
        for (i = 0; i < 16; i++) {
            if (p->pair[i][0] < 0)
                continue;
            fds[n].fd = p->pair[i][0];
            fds[n].events = POLLIN;
            idx[n++] = i * 2;
            fds[n].fd = p->pair[i][1];
            fds[n].events = POLLIN;
            idx[n++] = i * 2 + 1;
        }
        if (poll(fds, (nfds_t)n, 20) <= 0)
            continue;
        pthread_mutex_lock(&p->mu);
        mode = p->mode; /* as of now, not of before the poll */
        pthread_mutex_unlock(&p->mu);
        for (i = 0; i < n; i++) {
            int pi, side;
            ssize_t r;
            if (fds[i].revents == 0)
                continue;
            if (idx[i] < 0) {
                px_accept(p);
                continue;
            }
            pi = idx[i] / 2;
            side = idx[i] % 2;
            if (p->pair[pi][0] < 0)
                continue;
            r = read(p->pair[pi][side], buf, sizeof buf);
            if (r <= 0) {
                close(p->pair[pi][0]);
                close(p->pair[pi][1]);
                p->pair[pi][0] = p->pair[pi][1] = -1;
                continue;
            }
            if (side == 0 && mode == TU_PROXY_BLACKHOLE)
                continue;
            if (send(p->pair[pi][!side], buf, (size_t)r, MSG_NOSIGNAL) != r) {
                close(p->pair[pi][0]);
                close(p->pair[pi][1]);
                p->pair[pi][0] = p->pair[pi][1] = -1;
            }
        }
    }
}

void tu_proxy_start(tu_proxy_t *p, const char *target, int port)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    char host[64];
    int up_port, i, one = 1;

    CHECK(sscanf(target, "%63[^:,]:%d", host, &up_port) == 2);
    memset(p, 0, sizeof *p);
    for (i = 0; i < 16; i++)
        p->pair[i][0] = p->pair[i][1] = -1;
    p->up.sin_family = AF_INET;
    p->up.sin_port = htons((uint16_t)up_port);
    CHECK(inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1",
                    &p->up.sin_addr) == 1);
    p->lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    CHECK(p->lfd >= 0);
    CHECK(setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
    CHECK(bind(p->lfd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(p->lfd, 16) == 0);
    CHECK(getsockname(p->lfd, (struct sockaddr *)&a, &alen) == 0);
    p->port = ntohs(a.sin_port);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    CHECK(pthread_create(&p->th, NULL, px_main, p) == 0);
}

void tu_proxy_set(tu_proxy_t *p, int mode, int cut)
{
    pthread_mutex_lock(&p->mu);
    p->mode = mode;
    p->cut = cut;
    while (p->cut)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void tu_proxy_stop(tu_proxy_t *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_mutex_unlock(&p->mu);
    CHECK(pthread_join(p->th, NULL) == 0);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

size_t tu_queue_drain(mcds_t *h, const char *q)
{
    mcds_queue_msg_t *m;
    size_t got, seen = 0, i;

    do {
        CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX, 0, 0, &m, &got), MCDS_OK);
        for (i = 0; i < got; i++)
            CHECK_ST(mcds_queue_ack_msg(h, q, &m[i]), MCDS_OK);
        mcds_queue_msgs_free(m);
        seen += got;
    } while (got > 0);
    return seen;
}
