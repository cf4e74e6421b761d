/*
 * test_replicas.c - server lists that name replicas (t/unit/libmcds_replicas.tcl).
 *
 *   test_replicas parse
 *     checks good and bad lists, and that naming replicas moves no key
 *     (1,000 keys placed as by the plain list); needs no server.
 *   test_replicas shell <servers>
 *     one handle, driven by the lines of stdin, so that the Tcl test can
 *     change the servers between calls; each command prints one line:
 *     the status's name, then the result or mcds_last_detail.
 *       retry <ms> | io <ms> | readreplicas <0|1>     settings: "OK"
 *       reconnect <s>                                 the reconnect delay
 *       ctrset <name> <n> | ctrget <name>             counters (kv.c)
 *       qpush <queue> <data> | qready <queue>         queues (xconn.c)
 *       qpop <queue>                                  a lease (a write)
 *       rpush <list> <value> | llen <list>            lists (xconn.c)
 *       quit
 *   test_replicas blackhole
 *     a silent address on loopback: prints the port of a listening socket
 *     that never accepts and whose queue is full, so that the kernel drops
 *     the SYNs of later connects (which wait for their timeout, as with a
 *     machine that is down and silent); holds it until stdin closes.
 */
#include <arpa/inet.h>
#include <libmemcached/memcached.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

/* ---- parse ---- */

static void expect_list(const char *list, mcds_status_t want)
{
    mcds_t *h = NULL;
    char what[512];

    snprintf(what, sizeof what, "open \"%s\"", list);
    CHECK_ST(mcds_open(&h, list), want);
    CHECK((want == MCDS_OK) == (h != NULL));
    mcds_close(h);
    tu_ok(what);
}

/* Whether a and b place every one of 1,000 keys on a server of the same
 * name and port. */
static void same_placement(const char *a, const char *b)
{
    mcds_t *ha, *hb;
    char key[32], what[512];
    int i;

    CHECK_ST(mcds_open(&ha, a), MCDS_OK);
    CHECK_ST(mcds_open(&hb, b), MCDS_OK);
    for (i = 0; i < 1000; i++) {
        memcached_return_t rc;
        const memcached_instance_st *sa, *sb;
        snprintf(key, sizeof key, "key-%d", i);
        sa = memcached_server_by_key(mcds_memcached(ha), key, strlen(key), &rc);
        sb = memcached_server_by_key(mcds_memcached(hb), key, strlen(key), &rc);
        CHECK(sa != NULL && sb != NULL);
        CHECK(strcmp(memcached_server_name(sa), memcached_server_name(sb)) == 0);
        CHECK(memcached_server_port(sa) == memcached_server_port(sb));
    }
    mcds_close(ha);
    mcds_close(hb);
    snprintf(what, sizeof what, "1,000 keys placed by \"%s\" as by \"%s\"", b, a);
    tu_ok(what);
}

/* A clone has the replica sets too (and frees them: valgrind). */
static void clone_sets(void)
{
    mcds_t *h, *c;

    CHECK_ST(mcds_open(&h, "127.0.0.1:1=127.0.0.1:2=[::1]:3,127.0.0.1:4"), MCDS_OK);
    mcds_set_read_replicas(h, 1);
    CHECK_ST(mcds_clone(&c, h), MCDS_OK);
    mcds_close(h);
    mcds_close(c);
    tu_ok("a handle over replica sets clones and closes");
}

static int run_parse(void)
{
    static const char *const good[] = {
        "127.0.0.1:1=127.0.0.1:2",
        "10.0.0.9:11211=10.0.0.2:11211=10.0.0.3:11211,10.0.1.9:11211",
        "a:1:5=b:2",
        " a:1 = b:2 ,c:3",
        "[::1]:1=[::1]:2",
        "/tmp/s1=/tmp/s2",
        "a:1=b:2=c:3=d:4=e:5=f:6=g:7=h:8",
        "a:1=x:99,b:2=y:98",
    };
    static const char *const bad[] = {
        "a:1=", "a:1==b:2", "=a:1", "a:1=b", "a:1=b:0", "a:1=b:65536",
        "a:1=b:2:3", "a:1=b:x", "a:1=b:2=c:3=d:4=e:5=f:6=g:7=h:8=i:9",
        "a:1=b:2,", "a:1=[::1]", "a:1=b:2 c:3", "a=b:2", "a:1,=b:2",
    };
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        expect_list(good[i], MCDS_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_list(bad[i], MCDS_INVALID);
    same_placement("10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211",
                   "10.0.0.1:11211=10.0.1.1:1,10.0.0.2:11211=10.0.1.2:2=10.0.1.3:3,"
                   "10.0.0.3:11211");
    same_placement("10.0.0.1:11211:3,10.0.0.2:11211:1",
                   "10.0.0.1:11211:3=10.0.1.1:1,10.0.0.2:11211:1=10.0.1.2:2");
    clone_sets();
    return 0;
}

/* ---- shell ---- */

static void reply(mcds_t *h, mcds_status_t st, const char *result)
{
    printf("%s %s\n", mcds_status_name(st),
           st == MCDS_OK && result != NULL ? result : mcds_last_detail(h));
    fflush(stdout);
}

/* Runs one command line: 0, or -1 to quit. */
static int run_command(mcds_t *h, char *line)
{
    char *cmd = strtok(line, " \n"), *a = strtok(NULL, " \n"), *b = strtok(NULL, " \n");
    char out[64];
    mcds_status_t st;

    if (cmd == NULL || strcmp(cmd, "quit") == 0)
        return -1;
    out[0] = '\0';
    if (strcmp(cmd, "retry") == 0 && a != NULL) {
        mcds_set_retry_timeout(h, (unsigned)atoi(a));
        st = MCDS_OK;
    } else if (strcmp(cmd, "io") == 0 && a != NULL) {
        st = mcds_set_io_timeout(h, (unsigned)atoi(a));
    } else if (strcmp(cmd, "reconnect") == 0 && a != NULL) {
        st = mcds_set_reconnect_delay(h, (unsigned)atoi(a));
    } else if (strcmp(cmd, "readreplicas") == 0 && a != NULL) {
        mcds_set_read_replicas(h, atoi(a));
        st = MCDS_OK;
    } else if (strcmp(cmd, "ctrset") == 0 && b != NULL) {
        st = mcds_counter_set(h, a, atoll(b));
    } else if (strcmp(cmd, "ctrget") == 0 && a != NULL) {
        int64_t v = 0;
        st = mcds_counter_get(h, a, &v);
        snprintf(out, sizeof out, "%lld", (long long)v);
    } else if (strcmp(cmd, "qpush") == 0 && b != NULL) {
        uint64_t id = 0;
        st = mcds_queue_push(h, a, b, strlen(b), 0, 0, 0, &id);
        snprintf(out, sizeof out, "%llu", (unsigned long long)id);
    } else if (strcmp(cmd, "qready") == 0 && a != NULL) {
        mcds_queue_stats_t s;
        st = mcds_queue_stats(h, a, &s);
        snprintf(out, sizeof out, "%llu", (unsigned long long)s.ready);
    } else if (strcmp(cmd, "qpop") == 0 && a != NULL) {
        mcds_queue_msg_t *m = NULL;
        size_t n = 0;
        st = mcds_queue_pop(h, a, 1, 0, 0, &m, &n);
        snprintf(out, sizeof out, "%zu", n);
        mcds_queue_msgs_free(m);
    } else if (strcmp(cmd, "rpush") == 0 && b != NULL) {
        mcds_item_t v = {b, strlen(b)};
        uint64_t len = 0;
        st = mcds_list_push(h, a, MCDS_LIST_TAIL, &v, 1, &len);
        snprintf(out, sizeof out, "%llu", (unsigned long long)len);
    } else if (strcmp(cmd, "llen") == 0 && a != NULL) {
        uint64_t len = 0;
        st = mcds_list_len(h, a, &len);
        snprintf(out, sizeof out, "%llu", (unsigned long long)len);
    } else {
        printf("BAD_COMMAND %s\n", cmd);
        fflush(stdout);
        return 0;
    }
    reply(h, st, out[0] != '\0' ? out : "-");
    return 0;
}

static int run_shell(const char *servers)
{
    mcds_t *h = NULL;
    char line[1024];

    CHECK_ST(mcds_open(&h, servers), MCDS_OK);
    printf("READY\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL)
        if (run_command(h, line) != 0)
            break;
    mcds_close(h);
    return 0;
}

/* ---- blackhole ---- */

/* Listens with a backlog of 0 and fills the queue with one connection of
 * its own (Linux queues one more than the backlog; without SYN cookies it
 * queues none and drops every SYN already): the SYNs of later connects
 * are dropped. */
static int run_blackhole(void)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    struct pollfd p;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    int filler = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(l >= 0 && filler >= 0);
    CHECK(bind(l, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(l, 0) == 0);
    CHECK(getsockname(l, (struct sockaddr *)&sa, &len) == 0);
    (void)connect(filler, (struct sockaddr *)&sa, sizeof sa);
    p.fd = filler;
    p.events = POLLOUT;
    (void)poll(&p, 1, 2000);    /* queued, or dropped as every later one */
    printf("%u\n", (unsigned)ntohs(sa.sin_port));
    fflush(stdout);
    while (getchar() != EOF)
        ;
    close(filler);
    close(l);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "parse") == 0)
        return run_parse();
    if (argc == 3 && strcmp(argv[1], "shell") == 0)
        return run_shell(argv[2]);
    if (argc == 2 && strcmp(argv[1], "blackhole") == 0)
        return run_blackhole();
    fprintf(stderr, "usage: %s parse | shell <servers> | blackhole\n", argv[0]);
    return 2;
}
