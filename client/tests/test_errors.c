/*
 * test_errors.c - failures give a clear status and nothing else: a server
 * that is down, keys too long, values too large, bad arguments; plus
 * opening (malformed server lists), wrapping and cloning handles, and the
 * style of mcds_last_detail. Meant to run under valgrind too.
 */
#include <arpa/inet.h>
#include <libmemcached/memcached.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

#define DOWN "127.0.0.1:1"

static void test_server_down(void)
{
    mcds_t *h = tu_open(DOWN);
    mcds_lock_t *l;
    mcds_seq_t *s;
    mcds_log_t *log;
    mcds_oparray_t *a;
    mcds_item_t *items, one = {"x", 1};
    mcds_event_t *ev;
    size_t n;
    int64_t v, t0 = tu_now_ms();
    uint64_t id;

    CHECK_ST(mcds_counter_incr(h, "c", 1, &v), MCDS_SERVER_DOWN);
    CHECK(strlen(mcds_last_detail(h)) > 0);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK_ST(mcds_counter_get(h, "c", &v), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_lock_new(h, "l", 5, &l), MCDS_OK);
    CHECK_ST(mcds_lock_try(l), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_lock_acquire(l, 1000), MCDS_SERVER_DOWN);
    mcds_lock_free(l);
    CHECK_ST(mcds_seq_new(h, "s", 10, &s), MCDS_OK);
    CHECK_ST(mcds_seq_next(s, &id), MCDS_SERVER_DOWN);
    mcds_seq_free(s);
    CHECK_ST(mcds_log_new(h, "g", 2, 10, &log), MCDS_OK);
    CHECK_ST(mcds_log_put(log, tu_now_ms(), "e", 1), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_log_fetch(log, 0, tu_now_ms(), &ev, &n), MCDS_SERVER_DOWN);
    CHECK(ev == NULL && n == 0);
    mcds_log_free(log);
    CHECK_ST(mcds_array_fetch(h, "a", &items, &n), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_array_change(h, "a", &one, 1, NULL, 0), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_oparray_new(h, "o", 4, &a), MCDS_OK);
    CHECK_ST(mcds_oparray_add(a, "x", 1), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_oparray_fetch(a, &items, &n), MCDS_SERVER_DOWN);
    mcds_oparray_free(a);
    CHECK_ST(mcds_table_add(h, "t", "m", 1), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_table_has(h, "t", "m", 1), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_hash_fetch(h, "t", &items, &n), MCDS_SERVER_DOWN);
    CHECK(tu_now_ms() - t0 < 10000);
    mcds_close(h);
    tu_ok("server down: MCDS_SERVER_DOWN from every structure, promptly");
}

static void test_key_too_long(mcds_t *h)
{
    char name[300], ctl[120];
    mcds_lock_t *l = NULL;
    mcds_log_t *log = NULL;
    int64_t v;

    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    CHECK_ST(mcds_counter_incr(h, name, 1, &v), MCDS_KEY_TOO_LONG);
    CHECK_ST(mcds_lock_new(h, name, 5, &l), MCDS_KEY_TOO_LONG);
    CHECK_ST(mcds_log_new(h, name, 2, 10, &log), MCDS_KEY_TOO_LONG);
    CHECK(l == NULL && log == NULL);
    CHECK_ST(mcds_table_add(h, name, "m", 1), MCDS_KEY_TOO_LONG);
    name[230] = '\0'; /* the name fits, name + member does not */
    CHECK_ST(mcds_table_add(h, name, "a long member name", 18),
             MCDS_KEY_TOO_LONG);
    CHECK_ST(mcds_table_add(h, name, "m", 1), MCDS_OK);
    CHECK_ST(mcds_table_drop(h, name), MCDS_OK);
    memset(ctl, 1, sizeof ctl - 1); /* each byte escapes to 3 */
    ctl[sizeof ctl - 1] = '\0';
    CHECK_ST(mcds_counter_incr(h, ctl, 1, &v), MCDS_KEY_TOO_LONG);
    ctl[60] = '\0';
    CHECK_ST(mcds_counter_incr(h, ctl, 1, &v), MCDS_OK);
    CHECK_ST(mcds_counter_delete(h, ctl), MCDS_OK);
    tu_ok("key too long: MCDS_KEY_TOO_LONG before anything is sent");
}

static void test_too_large(mcds_t *h)
{
    size_t big = 2 * 1024 * 1024, half = 600 * 1024;
    char *data = malloc(big);
    mcds_item_t item;
    mcds_log_t *log;
    mcds_oparray_t *a;
    const char *name = tu_name("big");
    int64_t t;

    CHECK(data != NULL);
    memset(data, 'x', big);
    item.data = data;
    item.len = big;
    CHECK_ST(mcds_hash_set(h, name, "f", 1, data, big), MCDS_TOO_LARGE);
    CHECK_ST(mcds_array_change(h, name, &item, 1, NULL, 0), MCDS_TOO_LARGE);
    CHECK_ST(mcds_log_new(h, name, 2, 10, &log), MCDS_OK);
    /* one time for the three puts, so that they meet the same chunk even
     * when the clock crosses into the next one meanwhile (valgrind) */
    t = tu_now_ms();
    CHECK_ST(mcds_log_put(log, t, data, big), MCDS_TOO_LARGE);
    CHECK_ST(mcds_log_put(log, t, data, half), MCDS_OK);
    CHECK_ST(mcds_log_put(log, t, data, half), MCDS_TOO_LARGE);
    CHECK_ST(mcds_log_clear(log), MCDS_OK);
    mcds_log_free(log);
    CHECK_ST(mcds_oparray_new(h, name, 1, &a), MCDS_OK);
    CHECK_ST(mcds_oparray_add(a, data, half), MCDS_OK);
    CHECK_ST(mcds_oparray_add(a, data, half), MCDS_TOO_LARGE);
    CHECK_ST(mcds_oparray_delete(a), MCDS_OK);
    mcds_oparray_free(a);
    CHECK_ST(mcds_hash_set(h, name, "f", 1, "small", 5), MCDS_OK);
    CHECK_ST(mcds_hash_drop(h, name), MCDS_OK);
    free(data);
    tu_ok("value too large: MCDS_TOO_LARGE, and the handle still works");
}

/* ---- mcds_last_detail ---- */

/* Fails unless the detail is "<server>: <text>" with want in the text, and
 * free of libmemcached's raw message parts (pointers, source paths). */
static void check_detail(mcds_t *h, const char *server, const char *want)
{
    const char *d = mcds_last_detail(h);
    size_t n = strlen(server);

    printf("# detail: %s\n", d);
    if (strncmp(d, server, n) != 0 || strncmp(d + n, ": ", 2) != 0 ||
        strlen(d) <= n + 2 || strstr(d, want) == NULL ||
        strstr(d, "0x") != NULL || strstr(d, "->") != NULL ||
        strstr(d, ".cc") != NULL || strstr(d, "  ") != NULL)
        tu_fail(__FILE__, __LINE__, "mcds_last_detail", d);
}

/* "name:port" of the server that holds key. */
static const char *server_of(mcds_t *h, const char *key)
{
    static char where[300];
    memcached_return_t rc;
    const memcached_instance_st *s =
        memcached_server_by_key(mcds_memcached(h), key, strlen(key), &rc);

    CHECK(s != NULL);
    snprintf(where, sizeof where, "%s:%u", memcached_server_name(s),
             (unsigned)memcached_server_port(s));
    return where;
}

/* A listening socket that never accepts: connects succeed, nothing is
 * ever answered. Returns its fd; *port is its port. */
static int silent_server(int *port)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(fd, 16) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void test_detail(const char *servers)
{
    mcds_t *h = tu_open(DOWN);
    const char *name = tu_name("detail");
    char key[200], list[64];
    int64_t v;
    int fd, port;

    /* refused, then not retried yet */
    CHECK_ST(mcds_counter_incr(h, "c", 1, &v), MCDS_SERVER_DOWN);
    check_detail(h, DOWN, "refused");
    CHECK_ST(mcds_counter_get(h, "c", &v), MCDS_SERVER_DOWN);
    check_detail(h, DOWN, "");
    mcds_close(h);

    /* a server that never answers */
    fd = silent_server(&port);
    snprintf(list, sizeof list, "127.0.0.1:%d", port);
    h = tu_open(list);
    CHECK_ST(mcds_set_io_timeout(h, 300), MCDS_OK);
    CHECK_ST(mcds_counter_incr(h, "c", 1, &v), MCDS_SERVER_DOWN);
    check_detail(h, list, "timed out");
    mcds_close(h);
    close(fd);

    /* the server answers with an error */
    h = tu_open(servers);
    snprintf(key, sizeof key, "mcds:ctr:%s", name);
    CHECK(memcached_set(mcds_memcached(h), key, strlen(key), "abc", 3, 0, 0) ==
          MEMCACHED_SUCCESS);
    CHECK_ST(mcds_counter_incr(h, name, 1, &v), MCDS_SERVER_ERROR);
    check_detail(h, server_of(h, key), "");
    CHECK_ST(mcds_counter_delete(h, name), MCDS_OK);
    CHECK(strcmp(mcds_last_detail(h), "") == 0);
    mcds_close(h);
    tu_ok("mcds_last_detail: \"<host>:<port>: <what happened>\", never "
          "libmemcached's raw text; \"\" after a success");
}

/* ---- a server restarts ---- */

/* Calls that fail while the server is away: the first notices the lost
 * connection, the second finds it refused (libmemcached then starts the
 * reconnect delay), the third is not tried with a delay and tried again
 * without. */
static void fail_three(mcds_t *h, const char *name, const char *third)
{
    CHECK_ST(mcds_counter_incr(h, name, 1, NULL), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_counter_incr(h, name, 1, NULL), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_counter_incr(h, name, 1, NULL), MCDS_SERVER_DOWN);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK(strstr(mcds_last_detail(h), third) != NULL);
}

static void test_reconnect(const char *servers)
{
    tu_proxy_t px;
    char first[256], list[64];
    const char *name = tu_name("restart");
    mcds_t *dflt, *zero, *one, *clone;
    int64_t t0, t1, back;
    int port;

    snprintf(first, sizeof first, "%.*s", (int)strcspn(servers, ","),
             servers);
    tu_proxy_start(&px, first, 0);
    port = px.port;
    snprintf(list, sizeof list, "127.0.0.1:%d", port);
    dflt = tu_open(list);
    zero = tu_open(list);
    one = tu_open(list);
    CHECK_ST(mcds_set_reconnect_delay(zero, 0), MCDS_OK);
    CHECK_ST(mcds_set_reconnect_delay(one, 1), MCDS_OK);
    CHECK_ST(mcds_clone(&clone, zero), MCDS_OK);
    CHECK_ST(mcds_set_reconnect_delay(NULL, 1), MCDS_INVALID);
    CHECK_ST(mcds_counter_incr(dflt, name, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_incr(zero, name, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_incr(one, name, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_incr(clone, name, 1, NULL), MCDS_OK);

    tu_proxy_stop(&px); /* the server goes away */
    t0 = tu_now_ms();
    fail_three(one, name, "not tried");
    t1 = tu_now_ms();
    fail_three(dflt, name, "not tried");
    fail_three(zero, name, "refused");
    fail_three(clone, name, "refused");

    tu_proxy_start(&px, first, port); /* and comes back */
    CHECK_ST(mcds_counter_incr(zero, name, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_incr(clone, name, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_incr(dflt, name, 1, NULL), MCDS_SERVER_DOWN);
    CHECK(strstr(mcds_last_detail(dflt), "not tried") != NULL);
    while (mcds_counter_incr(one, name, 1, NULL) != MCDS_OK) {
        CHECK(tu_now_ms() - t0 < 5000);
        tu_sleep_until(tu_now_ms() + 20);
    }
    back = tu_now_ms();
    printf("# a delay of 1 s: back %lld ms after the failure\n",
           (long long)(back - t0));
    CHECK(back - t0 > 1000 && back - t1 < 3000);
    CHECK_ST(mcds_counter_delete(zero, name), MCDS_OK);
    mcds_close(dflt);
    mcds_close(zero);
    mcds_close(one);
    mcds_close(clone);
    tu_proxy_stop(&px);
    tu_ok("a server restarts: with a reconnect delay of 0 the next call "
          "succeeds, with 1 s after 1 to 2 s, with the default not at once");
}

/* The number of servers of a list that mcds_open accepts, and the first
 * one's name and port. */
static unsigned open_count(const char *list, const char **name,
                           unsigned *port)
{
    static char first[256];
    const memcached_instance_st *s;
    mcds_t *h = NULL;
    unsigned n;

    CHECK_ST(mcds_open(&h, list), MCDS_OK);
    n = memcached_server_count(mcds_memcached(h));
    s = memcached_server_instance_by_position(mcds_memcached(h), 0);
    snprintf(first, sizeof first, "%s", memcached_server_name(s));
    *name = first;
    *port = memcached_server_port(s);
    mcds_close(h);
    return n;
}

static void test_server_lists(const char *servers)
{
    static const char *const bad[] = {
        "127.0.0.1:notaport", "127.0.0.1:11211,,", "127.0.0.1:11211,",
        ",127.0.0.1:11211", "127.0.0.1:11211,,127.0.0.1:11212", "127.0.0.1",
        "127.0.0.1:", ":11211", "127.0.0.1:0", "127.0.0.1:65536",
        "127.0.0.1:99999", "127.0.0.1:11211x", "127.0.0.1:-1",
        "127.0.0.1:+11211", "127.0.0.1: 11211", "127.0.0.1:11211:",
        "127.0.0.1:11211:w", "127.0.0.1:11211:0", "127.0.0.1:11211:2x",
        "127.0.0.1:11211:2:3", "host name:11211", "[::1]", "[::1]:",
        "[::1:11211", "[]:11211", "::1:11211", " ", ",", "127.0.0.1:1\n",
    };
    const char *name;
    unsigned port;
    size_t i;
    mcds_t *h;
    char list[300];

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h = (mcds_t *)1;
        if (mcds_open(&h, bad[i]) != MCDS_INVALID) {
            fprintf(stderr, "mcds_open accepted \"%s\"\n", bad[i]);
            CHECK(!"a malformed server list was accepted");
        }
        CHECK(h == NULL);
    }
    tu_ok("mcds_open: MCDS_INVALID for every malformed server list");

    CHECK(open_count("127.0.0.1:11211", &name, &port) == 1);
    CHECK(strcmp(name, "127.0.0.1") == 0 && port == 11211);
    CHECK(open_count("10.0.0.1:1,10.0.0.2:65535:3", &name, &port) == 2);
    CHECK(open_count(" 10.0.0.1:1 , 10.0.0.2:2 ", &name, &port) == 2);
    CHECK(strcmp(name, "10.0.0.1") == 0 && port == 1);
    CHECK(open_count("[::1]:11300", &name, &port) == 1);
    CHECK(strcmp(name, "::1") == 0 && port == 11300);
    CHECK(open_count("/tmp/mcds-test.sock", &name, &port) == 1);
    CHECK(strcmp(name, "/tmp/mcds-test.sock") == 0);
    /* the list under test still works with spaces around its entries */
    snprintf(list, sizeof list, " %s ", servers);
    CHECK_ST(mcds_open(&h, list), MCDS_OK);
    CHECK_ST(mcds_counter_incr(h, tu_name("spaced"), 1, NULL), MCDS_OK);
    mcds_close(h);
    tu_ok("mcds_open: host:port, host:port:weight, [IPv6]:port, a socket path");
}

static void test_bad_arguments(const char *servers)
{
    mcds_t *h = NULL;
    memcached_st *mc;
    char cfg[300];
    int64_t v;

    CHECK_ST(mcds_open(&h, ""), MCDS_INVALID);
    CHECK_ST(mcds_open(&h, NULL), MCDS_INVALID);
    CHECK_ST(mcds_open(NULL, servers), MCDS_INVALID);
    CHECK_ST(mcds_open(&h, "--NOT-AN-OPTION"), MCDS_INVALID);
    CHECK(h == NULL);
    CHECK_ST(mcds_wrap(&h, NULL), MCDS_INVALID);
    CHECK_ST(mcds_counter_incr(NULL, "c", 1, &v), MCDS_INVALID);
    CHECK_ST(mcds_counter_get(NULL, "c", &v), MCDS_INVALID);
    CHECK_ST(mcds_table_has(NULL, "t", "m", 1), MCDS_INVALID);
    CHECK_ST(mcds_lock_try(NULL), MCDS_INVALID);
    CHECK_ST(mcds_set_io_timeout(NULL, 100), MCDS_INVALID);
    tu_ok("bad arguments: MCDS_INVALID");

    mc = memcached_create(NULL);
    CHECK(memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_NOREPLY, 1) ==
          MEMCACHED_SUCCESS);
    CHECK_ST(mcds_wrap(&h, mc), MCDS_INVALID);
    memcached_free(mc);

    snprintf(cfg, sizeof cfg, "--SERVER=%.*s", (int)strcspn(servers, ","),
             servers);
    mc = memcached(cfg, strlen(cfg));
    CHECK(mc != NULL);
    CHECK_ST(mcds_wrap(&h, mc), MCDS_OK);
    CHECK(mcds_memcached(h) == mc);
    CHECK_ST(mcds_counter_incr(h, tu_name("w"), 2, &v), MCDS_OK);
    CHECK(v == 2);
    mcds_close(h); /* borrowed: mc stays ours */
    memcached_free(mc);
    tu_ok("wrap borrows a memcached_st; refuses noreply");

    CHECK_ST(mcds_open(&h, cfg), MCDS_OK);
    {
        mcds_t *c = NULL;
        const char *name = tu_name("clone");
        CHECK_ST(mcds_clone(&c, h), MCDS_OK);
        CHECK_ST(mcds_set_io_timeout(c, 500), MCDS_OK);
        CHECK_ST(mcds_counter_incr(c, name, 5, &v), MCDS_OK);
        CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
        CHECK(v == 5);
        mcds_close(c);
    }
    mcds_close(h);
    tu_ok("open from a config string; clone shares the servers");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_server_down();
    test_key_too_long(h);
    test_too_large(h);
    test_bad_arguments(servers);
    test_server_lists(servers);
    test_detail(servers);
    test_reconnect(servers);
    mcds_close(h);
    return 0;
}
