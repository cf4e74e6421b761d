/*
 * test_queue_ttl.c - mcds_queue_push_opts and mcds_queue_push_many_opts
 * (a message's ttl, with or without a deduplication id) and
 * mcds_queue_opts_t.expired_drop against mcds-server (--debug, whose
 * clock debugtime moves): a message past its ttl goes to the dead-letter
 * queue, or is dropped; qinfo's ttl_ms_left and the queue's counts; every
 * message counted; bad arguments.
 */
#include <libmemcached/memcached.h>
#include <string.h>

#include "testutil.h"

static const char *servers;

static void test_push_ttl(mcds_t *h)
{
    const char *q = tu_name("tt");
    char dead[64];
    mcds_push_opts_t o = { 0 }, od = { 0 };
    mcds_queue_msg_info_t info;
    mcds_queue_stats_t s;
    uint64_t a, b, c, d;

    o.ttl_ms = 5000;
    od.dedup = "t-1";
    od.ttl_ms = 20000;
    snprintf(dead, sizeof dead, "%s:dead", q);
    CHECK_ST(mcds_queue_push_opts(h, q, "short", 5, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &o, &a), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "long", 4, 0, 0, 7, &od, &b), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "again", 5, 0, 0, 7, &od, &c), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "plain", 5, 0, 0, 9, NULL, &d), MCDS_OK);
    CHECK(c == b);
    CHECK_ST(mcds_queue_info(h, q, a, &info), MCDS_OK);
    CHECK(info.ttl_ms_left > 4000 && info.ttl_ms_left <= 5000);
    CHECK_ST(mcds_queue_info(h, q, d, &info), MCDS_OK);
    CHECK(info.ttl_ms_left == -1);
    CHECK(tu_debugtime(servers, 6) == 1);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.ready == 2 && s.pushed == 3 && s.dead == 1 && s.expired_ttl == 1 && s.dropped == 0);
    CHECK(s.deduplicated == 1 && !s.expired_drop);
    CHECK_ST(mcds_queue_info(h, dead, a, &info), MCDS_OK);
    CHECK(info.ttl_ms_left == -1);
    CHECK(tu_queue_drain(h, dead) == 1);
    CHECK(tu_queue_drain(h, q) == 2);
    tu_ok("push_opts: a ttl, with a dedup id; past it, to the dead-letter queue; qinfo's ttl_ms_left");
}

static void test_push_many_ttl_drop(mcds_t *h)
{
    const char *q = tu_name("ttd");
    const void *data[3] = { "a", "bb", "ccc" };
    size_t lens[3] = { 1, 2, 3 };
    mcds_queue_opts_t co;
    mcds_push_opts_t o = { 0 };
    mcds_queue_stats_t s;
    uint64_t first[3], again[3];

    memset(&co, 0, sizeof co);
    co.expired_drop = 1;
    o.dedup = "b-1";
    o.ttl_ms = 1500;
    CHECK_ST(mcds_queue_create(h, q, &co), MCDS_OK);
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 2, 0, 0, 1, &o, first), MCDS_OK);
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 3, 0, 0, 1, &o, again), MCDS_OK);
    CHECK(again[0] == first[0] && again[1] == first[1]);
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 1, 0, 0, 1, NULL, first), MCDS_OK);
    CHECK(tu_debugtime(servers, 2) == 1);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.expired_drop && s.ready == 1 && s.pushed == 4 && s.dropped == 3 && s.expired_ttl == 3);
    CHECK(s.dead == 0 && s.deduplicated == 2);
    CHECK(tu_queue_drain(h, q) == 1);
    tu_ok("push_many_opts: every message gets the ttl; expired_drop drops them, counted");
}

static void test_errors(mcds_t *h)
{
    const char *q = tu_name("tte");
    const void *data[1] = { "x" };
    size_t lens[1] = { 1 };
    mcds_push_opts_t bad = { 0 }, big = { 0 };
    uint64_t id;

    bad.dedup = "a b";
    bad.ttl_ms = 1000;
    big.ttl_ms = MCDS_QUEUE_TTL_MAX_MS + 1;
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &bad, &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 1, 0, 0, 1, &bad, &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_opts(h, q, NULL, 1, 0, 0, 1, NULL, &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &big, &id), MCDS_INVALID);
    big.ttl_ms = MCDS_QUEUE_TTL_MAX_MS;
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &big, &id), MCDS_OK);
    CHECK(tu_queue_drain(h, q) == 1);
    tu_ok("errors: a bad dedup id or a ttl over the server's bound never reaches the server");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    test_push_ttl(h);
    test_push_many_ttl_drop(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
