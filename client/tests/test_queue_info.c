/*
 * test_queue_info.c - the read-only queue views of libmcds (mcds_queue_info)
 * against one mcds-server: a message's figures in each state, the holder
 * of a lease, and the errors (no such message or queue, a cache value
 * under the key, bad arguments). No sleep.
 */
#include <libmemcached/memcached.h>
#include <regex.h>
#include <string.h>

#include "testutil.h"

static const char *servers;

static uint64_t push(mcds_t *h, const char *q, const char *s, uint32_t delay_s)
{
    uint64_t id = 0;

    CHECK_ST(mcds_queue_push(h, q, s, strlen(s), 9, delay_s, 77, &id), MCDS_OK);
    return id;
}

static int matches(const char *re, const char *s)
{
    regex_t r;
    int ok;

    CHECK(regcomp(&r, re, REG_EXTENDED | REG_NOSUB) == 0);
    ok = regexec(&r, s, 0, NULL, 0) == 0;
    regfree(&r);
    return ok;
}

static void test_info(mcds_t *h)
{
    const char *q = tu_name("qinfo");
    mcds_queue_msg_info_t in;
    mcds_queue_msg_t *m;
    uint64_t a = push(h, q, "hello", 0), b = push(h, q, "later", 100);
    size_t n;

    CHECK_ST(mcds_queue_info(h, q, a, &in), MCDS_OK);
    CHECK(in.id == a && in.state == MCDS_QUEUE_READY && in.priority == 77 && in.flags == 9);
    CHECK(in.bytes == 5 && in.deliveries == 0 && in.first_delivery_ms == 0);
    CHECK(in.last_delivery_ms == 0 && in.lease_ms_left == 0 && strcmp(in.holder, "-") == 0);
    tu_ok("qinfo: a ready message");

    CHECK_ST(mcds_queue_info(h, q, b, &in), MCDS_OK);
    CHECK(in.state == MCDS_QUEUE_DELAYED && in.delay_ms_left > 0 && in.delay_ms_left <= 100000);
    tu_ok("qinfo: a delayed message");

    CHECK_ST(mcds_queue_pop(h, q, 1, 60000, 0, &m, &n), MCDS_OK);
    CHECK(n == 1 && m[0].id == a);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_info(h, q, a, &in), MCDS_OK);
    CHECK(in.state == MCDS_QUEUE_IN_FLIGHT && in.deliveries == 1);
    CHECK(in.lease_ms_left > 0 && in.lease_ms_left <= 60000);
    CHECK(in.first_delivery_ms > 0 && in.first_delivery_ms == in.last_delivery_ms);
    CHECK(matches("^[0-9]+ tcp:127\\.0\\.0\\.1:[0-9]+$", in.holder));
    tu_ok("qinfo: an in-flight message and the connection holding it");
}

static void test_errors(mcds_t *h)
{
    const char *q = tu_name("qinfo-err");
    mcds_queue_msg_info_t in;
    uint64_t a = push(h, q, "x", 0);

    CHECK_ST(mcds_queue_ack(h, q, a), MCDS_NOT_FOUND);  /* not leased */
    CHECK_ST(mcds_queue_info(h, q, a + 1000000, &in), MCDS_NOT_FOUND);
    CHECK(in.id == 0);
    CHECK_ST(mcds_queue_info(h, tu_name("qinfo-none"), 1, &in), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_info(h, q, a, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_info(h, "bad name", a, &in), MCDS_INVALID);
    CHECK_ST(mcds_queue_info(h, "", a, &in), MCDS_INVALID);
    tu_ok("qinfo: NOT_FOUND for an unknown id or queue, bad arguments refused");

    q = tu_name("qinfo-str");
    CHECK(memcached_set(mcds_memcached(h), q, strlen(q), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_info(h, q, a, &in), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_info(h, q, a, &in), MCDS_WRONG_TYPE); /* still in step */
    tu_ok("qinfo: a cache value under the key is MCDS_WRONG_TYPE");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    test_info(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
