/*
 * test_queue_dedup.c - mcds_queue_push_dedup, mcds_queue_push_many_dedup
 * and mcds_queue_pause against mcds-server (--debug, whose clock debugtime
 * moves): a push of an id the queue remembers answers the first id and
 * queues nothing, a batch retried whole queues only what is missing, the
 * window (mcds_queue_opts_t.dedup_window_ms) ends on time; a paused queue
 * delivers nothing until it is resumed; every message counted; bad
 * arguments.
 */
#include <libmemcached/memcached.h>
#include <string.h>

#include "testutil.h"

static const char *servers;

static void test_push_dedup(mcds_t *h)
{
    const char *q = tu_name("dd");
    mcds_queue_stats_t s;
    uint64_t a = 0, b = 0, c = 0;

    CHECK_ST(mcds_queue_push_dedup(h, q, "one", 3, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, "order-1", &a), MCDS_OK);
    CHECK_ST(mcds_queue_push_dedup(h, q, "two", 3, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, "order-1", &b), MCDS_OK);
    CHECK_ST(mcds_queue_push_dedup(h, q, "three", 5, 0, 0, 7, "order-2", &c), MCDS_OK);
    CHECK(a != 0 && a == b && c != a);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.ready == 2 && s.pushed == 2 && s.deduplicated == 1 && s.dedup_entries == 2);
    CHECK(s.dedup_window_ms == 300000);
    CHECK(tu_queue_drain(h, q) == 2);
    /* Acked: still remembered, still nothing queued. */
    CHECK_ST(mcds_queue_push_dedup(h, q, "again", 5, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, "order-1", &b), MCDS_OK);
    CHECK(b == a && tu_queue_drain(h, q) == 0);
    tu_ok("push_dedup: the first push's id again, nothing queued, even once acked");
}

static void test_push_many_dedup(mcds_t *h)
{
    const char *q = tu_name("ddn");
    const void *data[3] = { "a", "bb", "ccc" };
    size_t lens[3] = { 1, 2, 3 };
    uint64_t first[3], again[3];
    mcds_queue_stats_t s;

    CHECK_ST(mcds_queue_push_many_dedup(h, q, data, lens, 2, 0, 0, 1, "batch", first), MCDS_OK);
    CHECK_ST(mcds_queue_push_many_dedup(h, q, data, lens, 3, 0, 0, 1, "batch", again), MCDS_OK);
    CHECK(again[0] == first[0] && again[1] == first[1] && again[2] != first[0] && again[2] != first[1]);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.pushed == 3 && s.deduplicated == 2 && s.ready == 3);
    CHECK(tu_queue_drain(h, q) == 3);
    tu_ok("push_many_dedup: a batch retried whole queues only what is missing");
}

static void test_window(mcds_t *h)
{
    const char *q = tu_name("ddw");
    mcds_queue_opts_t o;
    mcds_queue_stats_t s;
    uint64_t a, b;

    memset(&o, 0, sizeof o);
    o.dedup_window_ms = 10000;
    CHECK_ST(mcds_queue_create(h, q, &o), MCDS_OK);
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, "w", &a), MCDS_OK);
    CHECK(tu_debugtime(servers, 11) == 1);
    CHECK_ST(mcds_queue_push_dedup(h, q, "y", 1, 0, 0, 1, "w", &b), MCDS_OK);
    CHECK(a != b);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.dedup_window_ms == 10000 && s.pushed == 2 && s.deduplicated == 0);
    CHECK(tu_queue_drain(h, q) == 2);
    tu_ok("push_dedup: after the queue's window the id is new again");
}

static void test_pause(mcds_t *h)
{
    const char *q = tu_name("pz");
    mcds_queue_msg_t *m;
    mcds_queue_stats_t s;
    size_t got;

    CHECK_ST(mcds_queue_pause(h, q, 1000), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_push(h, q, "p", 1, 0, 0, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_pause(h, q, 100000), MCDS_OK);
    CHECK_ST(mcds_queue_push(h, q, "q", 1, 0, 0, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_pop(h, q, 5, 0, 50, &m, &got), MCDS_OK);
    CHECK(got == 0);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.ready == 2 && s.paused_ms_left > 90000 && s.paused_ms_left <= 100000);
    CHECK_ST(mcds_queue_pause(h, q, 0), MCDS_OK);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.paused_ms_left == 0);
    CHECK(tu_queue_drain(h, q) == 2);
    CHECK_ST(mcds_queue_pause(h, q, 500), MCDS_OK);
    CHECK(tu_debugtime(servers, 1) == 1);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.paused_ms_left == 0);
    tu_ok("pause: pops find nothing, pushes go on, resume, the end on time, a missing queue");
}

static void test_errors(mcds_t *h)
{
    const char *q = tu_name("dde"), *plain = tu_name("ddplain");
    const void *data[1] = { "x" };
    size_t lens[1] = { 1 };
    char longid[MCDS_QUEUE_DEDUP_MAX + 2];
    uint64_t id;

    memset(longid, 'k', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, "", &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, "a b", &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, "a\r\nflush_all", &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, longid, &id), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_many_dedup(h, q, data, lens, 1, 0, 0, 1, "a b", &id), MCDS_INVALID);
    longid[MCDS_QUEUE_DEDUP_MAX] = '\0';
    CHECK_ST(mcds_queue_push_dedup(h, q, "x", 1, 0, 0, 1, longid, &id), MCDS_OK);
    CHECK_ST(mcds_queue_push_many_dedup(h, q, data, lens, 1, 0, 0, 1, longid, &id), MCDS_OK);
    CHECK(tu_queue_drain(h, q) == 1);
    CHECK(memcached_set(mcds_memcached(h), plain, strlen(plain), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_push_dedup(h, plain, "x", 1, 0, 0, 1, "k", &id), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_pause(h, plain, 5), MCDS_WRONG_TYPE);
    tu_ok("errors: bad ids never reach the server, 128 bytes is fine, wrong type");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    test_push_dedup(h);
    test_push_many_dedup(h);
    test_window(h);
    test_pause(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
