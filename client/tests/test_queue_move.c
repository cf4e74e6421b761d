/*
 * test_queue_move.c - mcds_queue_push_many, mcds_queue_pop_any,
 * mcds_queue_redrive and mcds_queue_kick against mcds-server (--debug, whose clock debugtime
 * moves): a batch pushed all or nothing, dead letters back to their
 * queues and buried messages ready again, every message counted; a source
 * that is gone keeps its messages in the dead-letter queue; bad arguments
 * and wrong types.
 */
#include <libmemcached/memcached.h>
#include <string.h>

#include "testutil.h"

static const char *servers;

/* A queue q whose messages age out (1000 s) into dlq, with n of them
 * moved there by debugtime. */
static void make_dead(mcds_t *h, const char *q, const char *dlq, int n)
{
    mcds_queue_opts_t o = { .max_age_ms = 1000000, .dlq = dlq };
    char data[32];
    int i;

    CHECK_ST(mcds_queue_create(h, q, &o), MCDS_OK);
    for (i = 0; i < n; i++) {
        snprintf(data, sizeof data, "m%d", i);
        CHECK_ST(mcds_queue_push(h, q, data, strlen(data), 0, 0,
                                 MCDS_QUEUE_PRIORITY_DEFAULT, NULL), MCDS_OK);
    }
    CHECK(tu_debugtime(servers, 1001) == 1);
}

/* Pops and acks every message of q; checks they are m0..m(n-1) in order. */
static void drain(mcds_t *h, const char *q, int n)
{
    mcds_queue_msg_t *m;
    size_t got, i;
    char want[32];
    int seen = 0;

    do {
        CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX, 0, 0, &m, &got), MCDS_OK);
        for (i = 0; i < got; i++, seen++) {
            snprintf(want, sizeof want, "m%d", seen);
            CHECK(m[i].len == strlen(want) && memcmp(m[i].data, want, m[i].len) == 0);
            CHECK(m[i].deliveries == 1);
            CHECK_ST(mcds_queue_ack(h, q, m[i].id), MCDS_OK);
        }
        mcds_queue_msgs_free(m);
    } while (got > 0);
    CHECK(seen == n);
}

/* Pops and acks every message of q; checks there are n. */
static void drain_count(mcds_t *h, const char *q, size_t n)
{
    mcds_queue_msg_t *m;
    size_t got, i, seen = 0;

    do {
        CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX, 0, 0, &m, &got), MCDS_OK);
        for (i = 0; i < got; i++)
            CHECK_ST(mcds_queue_ack(h, q, m[i].id), MCDS_OK);
        seen += got;
        mcds_queue_msgs_free(m);
    } while (got > 0);
    CHECK(seen == n);
}

static void test_redrive(mcds_t *h)
{
    const char *q = tu_name("rq"), *dlq = tu_name("rdlq");
    uint64_t moved = 99, left = 99;
    mcds_queue_stats_t s;

    make_dead(h, q, dlq, 5);
    CHECK_ST(mcds_queue_stats(h, dlq, &s), MCDS_OK);
    CHECK(s.ready == 5);
    CHECK_ST(mcds_queue_redrive(h, dlq, 2, &moved, &left), MCDS_OK);
    CHECK(moved == 2 && left == 0);
    CHECK_ST(mcds_queue_redrive(h, dlq, 0, &moved, NULL), MCDS_OK);
    CHECK(moved == 3);
    CHECK_ST(mcds_queue_redrive(h, dlq, MCDS_QUEUE_MOVE_MAX, NULL, &left), MCDS_OK);
    CHECK(left == 0);
    drain(h, q, 5);
    CHECK_ST(mcds_queue_stats(h, dlq, &s), MCDS_OK);
    CHECK(s.ready == 0 && s.in_flight == 0 && s.redriven == 5);
    tu_ok("redrive: dead letters go back in order, each once, in batches of max");
}

static void test_source_gone(mcds_t *h)
{
    const char *q = tu_name("gq"), *dlq = tu_name("gdlq");
    uint64_t moved = 99, left = 99;

    make_dead(h, q, dlq, 3);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    CHECK_ST(mcds_queue_redrive(h, dlq, 0, &moved, &left), MCDS_OK);
    CHECK(moved == 0 && left == 3);
    CHECK_ST(mcds_queue_create(h, q, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_redrive(h, dlq, 0, &moved, &left), MCDS_OK);
    CHECK(moved == 3 && left == 0);
    drain(h, q, 3);
    tu_ok("redrive: a source that is gone keeps its messages in the dead-letter queue");
}

static void test_kick(mcds_t *h)
{
    const char *q = tu_name("kq"), *dlq = tu_name("kdlq");
    mcds_queue_opts_t full = { .max_length = 1 };
    mcds_queue_stats_t s;
    uint64_t n = 99;

    /* The dead-letter queue is full: the dead letters are buried in q. */
    CHECK_ST(mcds_queue_create(h, dlq, &full), MCDS_OK);
    CHECK_ST(mcds_queue_push(h, dlq, "x", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, NULL), MCDS_OK);
    make_dead(h, q, dlq, 4);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.buried == 4 && s.kicked == 0);
    CHECK_ST(mcds_queue_kick(h, q, 1, &n), MCDS_OK);
    CHECK(n == 1);
    CHECK_ST(mcds_queue_kick(h, q, 0, &n), MCDS_OK);
    CHECK(n == 3);
    CHECK_ST(mcds_queue_kick(h, q, 0, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.ready == 4 && s.buried == 0 && s.kicked == 4);
    drain(h, q, 4);
    tu_ok("kick: buried messages are ready again, in order");
}

static void test_errors(mcds_t *h)
{
    const char *plain = tu_name("plain");
    uint64_t n = 7, left = 7;

    CHECK_ST(mcds_queue_redrive(h, tu_name("none"), 0, &n, &left), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_kick(h, tu_name("none"), 0, &n), MCDS_NOT_FOUND);
    CHECK(n == 7 && left == 7);
    CHECK_ST(mcds_queue_redrive(h, "q", MCDS_QUEUE_MOVE_MAX + 1, &n, &left), MCDS_INVALID);
    CHECK_ST(mcds_queue_kick(h, "q", MCDS_QUEUE_MOVE_MAX + 1, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_redrive(h, "bad name", 0, &n, &left), MCDS_INVALID);
    CHECK_ST(mcds_queue_kick(h, "", 0, &n), MCDS_INVALID);
    CHECK(memcached_set(mcds_memcached(h), plain, strlen(plain), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_redrive(h, plain, 0, &n, &left), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_kick(h, plain, 0, &n), MCDS_WRONG_TYPE);
    tu_ok("redrive, kick: missing queue, bad max or name, wrong type");
}

static void test_push_many(mcds_t *h)
{
    const char *q = tu_name("pq"), *full = tu_name("pfull"), *plain = tu_name("pplain");
    const void *data[MCDS_QUEUE_PUSH_MAX + 1];
    size_t lens[MCDS_QUEUE_PUSH_MAX + 1], got, i;
    uint64_t ids[MCDS_QUEUE_PUSH_MAX];
    mcds_queue_opts_t o = { .max_length = 3 };
    mcds_queue_msg_t *m;
    static char big[600000];

    data[0] = "m0";
    data[1] = "m\r\n1";
    data[2] = "";
    for (i = 0; i < 3; i++)
        lens[i] = strlen(data[i]);
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, 3, 9, 0, 5, ids), MCDS_OK);
    CHECK(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX, 0, 0, &m, &got), MCDS_OK);
    CHECK(got == 3);
    for (i = 0; i < got; i++) {
        CHECK(m[i].id == ids[i] && m[i].flags == 9 && m[i].len == lens[i]);
        CHECK(memcmp(m[i].data, data[i], lens[i]) == 0);
    }
    mcds_queue_msgs_free(m);
    /* All or nothing at max_length; NULL ids. */
    CHECK_ST(mcds_queue_create(h, full, &o), MCDS_OK);
    CHECK_ST(mcds_queue_push_many(h, full, data, lens, 2, 0, 0, 1, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push_many(h, full, data, lens, 2, 0, 0, 1, ids), MCDS_FULL);
    CHECK_ST(mcds_queue_push_many(h, full, data, lens, 1, 0, 0, 1, ids), MCDS_OK);
    /* Bad arguments, the data together over -I, a cache value. */
    for (i = 0; i <= MCDS_QUEUE_PUSH_MAX; i++) {
        data[i] = "x";
        lens[i] = 1;
    }
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, 0, 0, 0, 1, ids), MCDS_INVALID);
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, MCDS_QUEUE_PUSH_MAX + 1, 0, 0, 1, ids),
             MCDS_INVALID);
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, MCDS_QUEUE_PUSH_MAX, 0, 0, 1, ids), MCDS_OK);
    data[1] = NULL;
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, 2, 0, 0, 1, ids), MCDS_INVALID);
    data[0] = data[1] = big;
    lens[0] = lens[1] = sizeof big;
    CHECK_ST(mcds_queue_push_many(h, q, data, lens, 2, 0, 0, 1, ids), MCDS_TOO_LARGE);
    CHECK(memcached_set(mcds_memcached(h), plain, strlen(plain), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_push_many(h, plain, data, lens, 1, 0, 0, 1, ids), MCDS_WRONG_TYPE);
    drain_count(h, q, MCDS_QUEUE_PUSH_MAX);
    tu_ok("push_many: one id per message, all or nothing, bad arguments, too large, wrong type");
}

static void test_pop_any(mcds_t *h)
{
    const char *qs[MCDS_QUEUE_ANY_MAX + 1];
    mcds_queue_msg_t *m;
    size_t n = 9, which = 9, i;
    uint64_t id;

    for (i = 0; i <= MCDS_QUEUE_ANY_MAX; i++)
        qs[i] = strdup(tu_name("any"));
    CHECK_ST(mcds_queue_pop_any(h, qs, 3, 5, 0, 0, &m, &n, &which), MCDS_OK);
    CHECK(n == 0 && m == NULL);
    CHECK_ST(mcds_queue_push(h, qs[2], "c", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push(h, qs[1], "b1", 2, 4, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &id), MCDS_OK);
    CHECK_ST(mcds_queue_push(h, qs[1], "b2", 2, 4, 0, MCDS_QUEUE_PRIORITY_DEFAULT, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_pop_any(h, qs, 3, 5, 0, 0, &m, &n, &which), MCDS_OK);
    CHECK(n == 2 && which == 1 && m[0].id == id && m[0].flags == 4 && m[0].deliveries == 1);
    CHECK(m[0].len == 2 && strcmp(m[0].data, "b1") == 0 && strcmp(m[1].data, "b2") == 0);
    CHECK_ST(mcds_queue_ack(h, qs[which], m[0].id), MCDS_OK);
    CHECK_ST(mcds_queue_ack(h, qs[which], m[1].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_pop_any(h, qs, MCDS_QUEUE_ANY_MAX, 1, 0, 100, &m, &n, NULL), MCDS_OK);
    CHECK(n == 1 && strcmp(m[0].data, "c") == 0);
    CHECK_ST(mcds_queue_ack(h, qs[2], m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_pop_any(h, qs, 2, 1, 0, 50, &m, &n, &which), MCDS_OK);
    CHECK(n == 0);
    CHECK_ST(mcds_queue_pop_any(h, qs, 0, 1, 0, 0, &m, &n, &which), MCDS_INVALID);
    CHECK_ST(mcds_queue_pop_any(h, qs, MCDS_QUEUE_ANY_MAX + 1, 1, 0, 0, &m, &n, &which), MCDS_INVALID);
    CHECK_ST(mcds_queue_pop_any(h, qs, 2, 0, 0, 0, &m, &n, &which), MCDS_INVALID);
    CHECK_ST(mcds_queue_pop_any(h, qs, 2, MCDS_QUEUE_POP_MAX + 1, 0, 0, &m, &n, &which), MCDS_INVALID);
    /* A key holding a cache value (set on a queue's key would enqueue). */
    free((void *)qs[1]);
    qs[1] = strdup(tu_name("anyplain"));
    CHECK(memcached_set(mcds_memcached(h), qs[1], strlen(qs[1]), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_pop_any(h, qs, 2, 1, 0, 0, &m, &n, &which), MCDS_WRONG_TYPE);
    for (i = 0; i <= MCDS_QUEUE_ANY_MAX; i++)
        free((void *)qs[i]);
    tu_ok("pop_any: the first queue with messages, which one, a wait, bad arguments, wrong type");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    test_push_many(h);
    test_pop_any(h);
    test_redrive(h);
    test_source_gone(h);
    test_kick(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
