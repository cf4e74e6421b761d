/*
 * test_queue.c - the queue wrappers (mcds_queue_*) against mcds-server:
 * every verb and its errors (missing queue, unknown id, full queue, wrong
 * type, too large, out of memory), leases running out and redelivery,
 * dead letters, blocking pops woken by a thread and by a process, the
 * connection dropped, hung or refused (through a small proxy in this
 * program), a server that is down, a pool (queues spread over every server,
 * each on the server libmemcached picks for its key), and 4 producer + 4
 * consumer threads moving 20,000 messages with no loss and no duplicate.
 *
 * With MCDS_TEST_QUEUE=unsupported it checks instead that a stock memcached
 * gives MCDS_UNSUPPORTED for every call and never runs a message's bytes as
 * commands.
 *
 * The only sleep is one of 1.2 s, to outlive a 1 s lease.
 */
#include <libmemcached/memcached.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define DOWN "127.0.0.1:1"

static const char *servers;
static mcds_t *base;

/* ---- helpers ---- */

static void push_str(mcds_t *h, const char *q, const char *s, uint64_t *id)
{
    CHECK_ST(mcds_queue_push(h, q, s, strlen(s), 0, 0,
                             MCDS_QUEUE_PRIORITY_DEFAULT, id),
             MCDS_OK);
}

/* Pops exactly one message (no wait) and checks its bytes. */
static mcds_queue_msg_t *pop_one(mcds_t *h, const char *q, const char *want)
{
    mcds_queue_msg_t *m;
    size_t n;

    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == 1 && m != NULL);
    if (want != NULL)
        CHECK(m[0].len == strlen(want) && strcmp(m[0].data, want) == 0);
    return m;
}

static void expect_empty(mcds_t *h, const char *q, unsigned wait_ms)
{
    mcds_queue_msg_t *m = (mcds_queue_msg_t *)1;
    size_t n = 99;

    CHECK_ST(mcds_queue_pop(h, q, 10, 0, wait_ms, &m, &n), MCDS_OK);
    CHECK(n == 0 && m == NULL);
}

static mcds_queue_stats_t stats_of(mcds_t *h, const char *q)
{
    mcds_queue_stats_t s;
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    return s;
}

/* Waits (round trips, no sleep) until q has a waiting consumer. */
static void await_waiter(mcds_t *h, const char *q)
{
    int64_t deadline = tu_now_ms() + 10000;
    mcds_queue_stats_t s;
    mcds_status_t st;

    for (;;) {
        st = mcds_queue_stats(h, q, &s);
        if (st == MCDS_OK && s.waiters > 0)
            return;
        CHECK(st == MCDS_OK || st == MCDS_NOT_FOUND);
        CHECK(tu_now_ms() < deadline);
    }
}

/* Waits until the server has no waiter left on q (a cut connection's
 * blocking pop ended there too). */
static void await_no_waiter(mcds_t *h, const char *q)
{
    int64_t deadline = tu_now_ms() + 10000;
    mcds_queue_stats_t s;

    for (;;) {
        CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
        if (s.waiters == 0)
            return;
        CHECK(tu_now_ms() < deadline);
    }
}

/* ---- every verb ---- */

static void test_verbs(mcds_t *h)
{
    char q[128], dlq[140];
    const char bin[] = "a\r\nEND\r\n\0b";
    mcds_queue_opts_t o = {5000, 3, 100, NULL, 0, 0, 0};
    mcds_queue_stats_t s;
    mcds_queue_msg_t *m;
    uint64_t id[5], purged = 99;
    size_t n;

    snprintf(q, sizeof q, "%s", tu_name("verbs"));
    snprintf(dlq, sizeof dlq, "%s-dlq", q);
    o.dlq = dlq;

    /* a missing queue */
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_NOT_FOUND);
    CHECK(strstr(mcds_last_detail(h), "NOT_FOUND") != NULL);
    CHECK_ST(mcds_queue_purge(h, q, &purged), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_ack(h, q, 1), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_release(h, q, 1, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_touch(h, q, 1, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_NOT_FOUND);
    expect_empty(h, q, 0);
    CHECK(strcmp(mcds_last_detail(h), "") == 0);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_NOT_FOUND); /* pop made none */
    tu_ok("missing queue: NOT_FOUND from stats/purge/ack/release/touch/delete, "
          "an empty pop");

    /* create, options */
    CHECK_ST(mcds_queue_create(h, q, &o), MCDS_OK);
    CHECK_ST(mcds_queue_create(h, q, NULL), MCDS_EXISTS);
    s = stats_of(h, q);
    CHECK(s.lease_ms == 5000 && s.max_deliveries == 3 && s.max_length == 100);
    CHECK(strcmp(s.dlq, dlq) == 0);
    CHECK(s.ready == 0 && s.pushed == 0);
    CHECK(s.max_age_ms == 0 && s.expired_age == 0);

    /* push: flags, binary data, an empty message, priorities */
    CHECK_ST(mcds_queue_push(h, q, "one", 3, 7, 0, MCDS_QUEUE_PRIORITY_DEFAULT,
                             &id[0]),
             MCDS_OK);
    CHECK_ST(mcds_queue_push(h, q, bin, sizeof bin - 1, 0xFFFFFFFFu, 0,
                             MCDS_QUEUE_PRIORITY_DEFAULT, &id[1]),
             MCDS_OK);
    CHECK_ST(mcds_queue_push(h, q, NULL, 0, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT,
                             &id[2]),
             MCDS_OK);
    CHECK_ST(mcds_queue_push(h, q, "urgent", 6, 1, 0, 5, &id[3]), MCDS_OK);
    CHECK(id[0] < id[1] && id[1] < id[2] && id[2] < id[3]);
    s = stats_of(h, q);
    CHECK(s.ready == 4 && s.pushed == 4);

    /* pop in priority order, then FIFO */
    CHECK_ST(mcds_queue_pop(h, q, 10, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == 4);
    CHECK(m[0].id == id[3] && m[0].flags == 1 && strcmp(m[0].data, "urgent") == 0);
    CHECK(m[1].id == id[0] && m[1].flags == 7 && m[1].len == 3 &&
          strcmp(m[1].data, "one") == 0);
    CHECK(m[2].id == id[1] && m[2].flags == 0xFFFFFFFFu &&
          m[2].len == sizeof bin - 1 && memcmp(m[2].data, bin, m[2].len) == 0 &&
          m[2].data[m[2].len] == '\0');
    CHECK(m[3].id == id[2] && m[3].len == 0 && m[3].data[0] == '\0');
    CHECK(m[0].deliveries == 1 && m[3].deliveries == 1);
    mcds_queue_msgs_free(m);
    s = stats_of(h, q);
    CHECK(s.ready == 0 && s.in_flight == 4 && s.popped == 4);
    tu_ok("push/pop: flags, binary and empty data, priority then FIFO order");

    /* ack */
    CHECK_ST(mcds_queue_ack(h, q, id[3]), MCDS_OK);
    CHECK_ST(mcds_queue_ack(h, q, id[3]), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_ack(h, q, 999999999999ULL), MCDS_NOT_FOUND);
    CHECK(strstr(mcds_last_detail(h), "NOT_FOUND") != NULL);
    CHECK_ST(mcds_queue_ack(h, q, 0), MCDS_NOT_FOUND);
    /* release: back in its place, delivery count kept */
    CHECK_ST(mcds_queue_release(h, q, id[1], 0), MCDS_OK);
    CHECK_ST(mcds_queue_release(h, q, id[1], 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_release(h, q, 424242424242ULL, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_pop(h, q, 5, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == 1 && m[0].id == id[1] && m[0].deliveries == 2);
    mcds_queue_msgs_free(m);
    /* release with a delay */
    CHECK_ST(mcds_queue_release(h, q, id[1], 3600), MCDS_OK);
    s = stats_of(h, q);
    CHECK(s.delayed == 1 && s.ready == 0 && s.in_flight == 2 &&
          s.released == 2 && s.acked == 1);
    expect_empty(h, q, 0);
    /* touch */
    CHECK_ST(mcds_queue_touch(h, q, id[0], 60000), MCDS_OK);
    CHECK_ST(mcds_queue_touch(h, q, id[2], 0), MCDS_OK);
    CHECK_ST(mcds_queue_touch(h, q, 777777777777ULL, 1000), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_touch(h, q, id[3], 1000), MCDS_NOT_FOUND);
    tu_ok("ack, release (delay), touch; unknown or acked ids give NOT_FOUND");

    /* a delayed push, purge */
    CHECK_ST(mcds_queue_push(h, q, "later", 5, 0, 3600, 0, NULL), MCDS_OK);
    push_str(h, q, "ready", NULL);
    s = stats_of(h, q);
    CHECK(s.delayed == 2 && s.ready == 1);
    m = pop_one(h, q, "ready"); /* the delayed ones stay put */
    CHECK_ST(mcds_queue_ack(h, q, m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_purge(h, q, &purged), MCDS_OK);
    CHECK(purged == 2);
    CHECK_ST(mcds_queue_purge(h, q, NULL), MCDS_OK);
    s = stats_of(h, q);
    CHECK(s.delayed == 0 && s.ready == 0 && s.in_flight == 2 && s.purged == 2);
    /* in-flight messages survive a purge and can still be acked */
    CHECK_ST(mcds_queue_ack(h, q, id[0]), MCDS_OK);
    CHECK_ST(mcds_queue_ack(h, q, id[2]), MCDS_OK);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_NOT_FOUND);
    tu_ok("delayed push, purge (count), delete");
}

/* mcds_queue_ack_many / release_many / touch_many: one result per id. */
static void test_batch(mcds_t *h)
{
    const char *q = tu_name("batch");
    uint64_t ids[MCDS_QUEUE_BATCH_MAX + 1], two[2];
    mcds_status_t res[MCDS_QUEUE_BATCH_MAX + 1];
    mcds_queue_msg_t *m;
    mcds_queue_stats_t s;
    size_t n, i;

    CHECK_ST(mcds_queue_ack_many(h, q, ids, 0, res), MCDS_INVALID);
    CHECK_ST(mcds_queue_ack_many(h, q, ids, MCDS_QUEUE_BATCH_MAX + 1, res),
             MCDS_INVALID);
    CHECK_ST(mcds_queue_ack_many(h, q, NULL, 1, res), MCDS_INVALID);
    CHECK_ST(mcds_queue_release_many(h, q, ids, 1, 0x80000000u, res),
             MCDS_INVALID);
    ids[0] = 1;
    ids[1] = 2;
    CHECK_ST(mcds_queue_ack_many(h, q, ids, 2, res), MCDS_OK); /* no queue */
    CHECK(res[0] == MCDS_NOT_FOUND && res[1] == MCDS_NOT_FOUND);
    for (i = 0; i < MCDS_QUEUE_BATCH_MAX; i++)
        push_str(h, q, "m", NULL);
    CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_BATCH_MAX, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == MCDS_QUEUE_BATCH_MAX);
    for (i = 0; i < n; i++)
        ids[i] = m[i].id;
    mcds_queue_msgs_free(m);
    two[0] = ids[0];
    two[1] = ids[1];
    CHECK_ST(mcds_queue_release_many(h, q, two, 2, 0, res), MCDS_OK);
    CHECK(res[0] == MCDS_OK && res[1] == MCDS_OK);
    CHECK_ST(mcds_queue_touch_many(h, q, ids + 2, 3, 60000, res), MCDS_OK);
    CHECK(res[0] == MCDS_OK && res[1] == MCDS_OK && res[2] == MCDS_OK);
    CHECK_ST(mcds_queue_touch_many(h, q, ids, 3, 0, res), MCDS_OK);
    CHECK(res[0] == MCDS_NOT_FOUND && res[1] == MCDS_NOT_FOUND && res[2] == MCDS_OK);
    s = stats_of(h, q);
    CHECK(s.ready == 2 && s.in_flight == MCDS_QUEUE_BATCH_MAX - 2);
    tu_ok("release_many, touch_many: one result per id, in order");

    {
        mcds_queue_opts_t ao = {0, 0, 0, NULL, 86400500, 0, 0};
        char aq[160];
        snprintf(aq, sizeof aq, "%s-age", q);
        CHECK_ST(mcds_queue_create(h, aq, &ao), MCDS_OK);
        s = stats_of(h, aq);
        CHECK(s.max_age_ms == 86400500 && s.expired_age == 0 && s.max_deliveries == 0);
        CHECK_ST(mcds_queue_delete(h, aq), MCDS_OK);
    }

    ids[0] = ids[2]; /* a repeated id: NOT_FOUND the second time */
    ids[1] = 999999999999ULL;
    CHECK_ST(mcds_queue_ack_many(h, q, ids, MCDS_QUEUE_BATCH_MAX, res), MCDS_OK);
    CHECK(res[0] == MCDS_OK && res[1] == MCDS_NOT_FOUND && res[2] == MCDS_NOT_FOUND);
    for (i = 3; i < MCDS_QUEUE_BATCH_MAX; i++)
        CHECK(res[i] == MCDS_OK);
    s = stats_of(h, q);
    CHECK(s.in_flight == 0 && s.acked == MCDS_QUEUE_BATCH_MAX - 2);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    CHECK(memcached_set(mcds_memcached(h), q, strlen(q), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_ack_many(h, q, ids, 2, res), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_ack(h, q, ids[0]), MCDS_WRONG_TYPE); /* still in step */
    tu_ok("ack_many of 100 ids: repeated and unknown ids NOT_FOUND; wrong type refuses all");
}

/* ---- receipts: a delivery that is over is not acted on ---- */

static void test_receipts(mcds_t *h)
{
    const char *q = tu_name("receipt");
    char missing[160];
    mcds_queue_msg_t *first, *again, *m, *batch1, *batch2;
    mcds_status_t acked = MCDS_SERVER_ERROR, res[3];
    mcds_queue_stats_t s;
    size_t n;

    /* one message, delivered twice: the first delivery's receipt is over */
    push_str(h, q, "r", NULL);
    first = pop_one(h, q, "r");
    CHECK(first[0].deliveries == 1);
    CHECK_ST(mcds_queue_release_msg(h, q, first, 0), MCDS_OK);
    again = pop_one(h, q, "r");
    CHECK(again[0].id == first[0].id && again[0].deliveries == 2);
    CHECK_ST(mcds_queue_ack_msg(h, q, first), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_release_msg(h, q, first, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_touch_msg(h, q, first, 5000), MCDS_NOT_FOUND);
    s = stats_of(h, q);
    CHECK(s.in_flight == 1 && s.acked == 0);
    CHECK_ST(mcds_queue_touch_msg(h, q, again, 5000), MCDS_OK);
    CHECK_ST(mcds_queue_ack_msg(h, q, again), MCDS_OK);
    CHECK_ST(mcds_queue_ack_msg(h, q, again), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_ack_msg(h, q, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_release_msg(h, q, NULL, 0), MCDS_INVALID);
    CHECK_ST(mcds_queue_touch_msg(h, q, NULL, 0), MCDS_INVALID);
    mcds_queue_msgs_free(first);
    mcds_queue_msgs_free(again);
    tu_ok("ack_msg, release_msg, touch_msg: a delivery that is over gives NOT_FOUND and changes nothing");

    /* batches of receipts */
    push_str(h, q, "a", NULL);
    push_str(h, q, "b", NULL);
    push_str(h, q, "c", NULL);
    CHECK_ST(mcds_queue_pop(h, q, 3, 0, 0, &batch1, &n), MCDS_OK);
    CHECK(n == 3);
    CHECK_ST(mcds_queue_release_msgs(h, q, batch1, 2, 0, res), MCDS_OK);
    CHECK(res[0] == MCDS_OK && res[1] == MCDS_OK);
    CHECK_ST(mcds_queue_pop(h, q, 2, 0, 0, &batch2, &n), MCDS_OK);
    CHECK(n == 2 && batch2[0].deliveries == 2 && batch2[1].deliveries == 2);
    CHECK_ST(mcds_queue_touch_msgs(h, q, batch1, 3, 5000, res), MCDS_OK);
    CHECK(res[0] == MCDS_NOT_FOUND && res[1] == MCDS_NOT_FOUND && res[2] == MCDS_OK);
    CHECK_ST(mcds_queue_ack_msgs(h, q, batch1, 3, res), MCDS_OK);
    CHECK(res[0] == MCDS_NOT_FOUND && res[1] == MCDS_NOT_FOUND && res[2] == MCDS_OK);
    CHECK_ST(mcds_queue_ack_msgs(h, q, batch2, 2, res), MCDS_OK);
    CHECK(res[0] == MCDS_OK && res[1] == MCDS_OK);
    CHECK_ST(mcds_queue_ack_msgs(h, q, batch2, 0, res), MCDS_INVALID);
    CHECK_ST(mcds_queue_ack_msgs(h, q, NULL, 1, res), MCDS_INVALID);
    s = stats_of(h, q);
    CHECK(s.in_flight == 0 && s.ready == 0 && s.acked == 4);
    mcds_queue_msgs_free(batch1);
    mcds_queue_msgs_free(batch2);
    tu_ok("ack_msgs, release_msgs, touch_msgs: one result per receipt, old deliveries NOT_FOUND");

    /* ack one and lease the next in one round trip */
    push_str(h, q, "x", NULL);
    push_str(h, q, "y", NULL);
    first = pop_one(h, q, "x");
    CHECK_ST(mcds_queue_pop_ack(h, q, first, &acked, 1, 0, 0, &m, &n), MCDS_OK);
    CHECK(acked == MCDS_OK && n == 1 && strcmp(m[0].data, "y") == 0);
    acked = MCDS_SERVER_ERROR;
    CHECK_ST(mcds_queue_pop_ack(h, q, first, &acked, 1, 0, 0, &again, &n), MCDS_OK);
    CHECK(acked == MCDS_NOT_FOUND && n == 0 && again == NULL);
    CHECK_ST(mcds_queue_pop_ack(h, q, m, &acked, 1, 0, 0, &again, &n), MCDS_OK);
    CHECK(acked == MCDS_OK && n == 0);
    CHECK_ST(mcds_queue_pop_ack(h, q, NULL, &acked, 1, 0, 0, &again, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_pop_ack(h, q, m, NULL, 1, 0, 0, &again, &n), MCDS_INVALID);
    snprintf(missing, sizeof missing, "%s-none", q);
    acked = MCDS_SERVER_ERROR;
    CHECK_ST(mcds_queue_pop_ack(h, missing, m, &acked, 1, 0, 0, &again, &n), MCDS_OK);
    CHECK(acked == MCDS_NOT_FOUND && n == 0);
    s = stats_of(h, q);
    CHECK(s.in_flight == 0 && s.ready == 0 && s.acked == 6);
    mcds_queue_msgs_free(first);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    tu_ok("pop_ack: acks the receipt and leases the next; an old receipt NOT_FOUND, the pop goes on");
}

static void test_arguments(mcds_t *h)
{
    char name[300];
    mcds_queue_msg_t *m;
    mcds_queue_stats_t s;
    mcds_queue_opts_t bad = {0, 0, 0, "has space", 0, 0, 0};
    size_t n;

    CHECK_ST(mcds_queue_push(NULL, "q", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, NULL, "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, "", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, "a b", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, "a\r\nflush_all", "x", 1, 0, 0, 0, NULL),
             MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, "q", NULL, 1, 0, 0, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_push(h, "q", "x", 1, 0, 0x80000000u, 0, NULL),
             MCDS_INVALID);
    CHECK_ST(mcds_queue_pop(h, "q", 0, 0, 0, &m, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_pop(h, "q", MCDS_QUEUE_POP_MAX + 1, 0, 0, &m, &n),
             MCDS_INVALID);
    CHECK(m == NULL && n == 0);
    CHECK_ST(mcds_queue_pop(h, "q", 1, 0, 0, NULL, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_stats(h, "q", NULL), MCDS_INVALID);
    CHECK_ST(mcds_queue_create(h, "q", &bad), MCDS_INVALID);
    CHECK_ST(mcds_queue_ack(NULL, "q", 1), MCDS_INVALID);
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    CHECK_ST(mcds_queue_create(h, name, NULL), MCDS_KEY_TOO_LONG);
    name[251] = '\0';
    CHECK_ST(mcds_queue_stats(h, name, &s), MCDS_KEY_TOO_LONG);
    snprintf(name, sizeof name, "%s", tu_name("max"));
    memset(name + strlen(name), 'm', 250 - strlen(name));
    name[250] = '\0';
    CHECK_ST(mcds_queue_create(h, name, NULL), MCDS_OK);
    push_str(h, name, "x", NULL);
    CHECK_ST(mcds_queue_delete(h, name), MCDS_OK);
    tu_ok("bad arguments: MCDS_INVALID, MCDS_KEY_TOO_LONG; a 250-byte name works");
}

static void test_full(mcds_t *h)
{
    const char *q = tu_name("full");
    mcds_queue_opts_t o = {0, 0, 2, NULL, 0, 0, 0};
    mcds_queue_msg_t *m;

    CHECK_ST(mcds_queue_create(h, q, &o), MCDS_OK);
    push_str(h, q, "1", NULL);
    push_str(h, q, "2", NULL);
    CHECK_ST(mcds_queue_push(h, q, "3", 1, 0, 0, 0, NULL), MCDS_FULL);
    CHECK(strstr(mcds_last_detail(h), "NOT_STORED") != NULL);
    m = pop_one(h, q, "1");
    /* in-flight messages count toward the length */
    CHECK_ST(mcds_queue_push(h, q, "3", 1, 0, 0, 0, NULL), MCDS_FULL);
    CHECK_ST(mcds_queue_ack(h, q, m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    push_str(h, q, "3", NULL);
    CHECK(stats_of(h, q).ready == 2);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    tu_ok("a queue at max_length: MCDS_FULL until a message is acked");
}

/* A cache value under the key: every verb says WRONG_TYPE. The value is set
 * through libmemcached, so this also checks both pick the same server. */
static void test_wrong_type(mcds_t *h)
{
    const char *q = tu_name("cacheval");
    memcached_st *mc = mcds_memcached(h);
    mcds_queue_stats_t s;
    mcds_queue_msg_t *m;
    size_t n, vlen;
    uint32_t flags;
    memcached_return_t rc;
    char *v;

    CHECK(memcached_set(mc, q, strlen(q), "plain", 5, 0, 0) ==
          MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_create(h, q, NULL), MCDS_WRONG_TYPE);
    CHECK(strstr(mcds_last_detail(h), "another type") != NULL);
    CHECK_ST(mcds_queue_push(h, q, "x", 1, 0, 0, 0, NULL), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 0, &m, &n), MCDS_WRONG_TYPE);
    CHECK(m == NULL && n == 0);
    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 200, &m, &n), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_ack(h, q, 1), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_release(h, q, 1, 0), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_touch(h, q, 1, 0), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_purge(h, q, NULL), MCDS_WRONG_TYPE);
    v = memcached_get(mc, q, strlen(q), &vlen, &flags, &rc);
    CHECK(rc == MEMCACHED_SUCCESS && vlen == 5 && memcmp(v, "plain", 5) == 0);
    free(v);
    /* the plain delete removes it; then it can become a queue */
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    push_str(h, q, "now a queue", NULL);
    /* Kestrel's get through libmemcached reaches the same queue */
    v = memcached_get(mc, q, strlen(q), &vlen, &flags, &rc);
    CHECK(rc == MEMCACHED_SUCCESS && vlen == 11 && memcmp(v, "now a queue", 11) == 0);
    free(v);
    CHECK(stats_of(h, q).ready == 0);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    tu_ok("a key holding a cache value: MCDS_WRONG_TYPE from every verb");
}

static void test_too_large(mcds_t *h)
{
    const char *q = tu_name("large");
    size_t big = 2 * 1024 * 1024;
    char *data = malloc(big);
    mcds_queue_msg_t *m;
    size_t n, i;

    CHECK(data != NULL);
    for (i = 0; i < big; i++)
        data[i] = (char)("set x 0 0 1\r\n"[i % 13]); /* commands, if misread */
    CHECK_ST(mcds_queue_push(h, q, data, big, 0, 0, 0, NULL), MCDS_TOO_LARGE);
    CHECK(strstr(mcds_last_detail(h), "too large") != NULL);
    /* the connection is still in step */
    push_str(h, q, "small", NULL);
    /* a big message that fits, popped with others */
    CHECK_ST(mcds_queue_push(h, q, data, 900 * 1024, 3, 0,
                             MCDS_QUEUE_PRIORITY_DEFAULT, NULL),
             MCDS_OK);
    push_str(h, q, "tail", NULL);
    CHECK_ST(mcds_queue_pop(h, q, 3, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == 3 && m[1].len == 900 * 1024 && memcmp(m[1].data, data, m[1].len) == 0);
    CHECK(m[0].flags == 0 && strcmp(m[0].data, "small") == 0 && m[1].flags == 3);
    CHECK(strcmp(m[2].data, "tail") == 0);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    free(data);
    tu_ok("a message over the item size: MCDS_TOO_LARGE; the connection stays usable");
}

/* Pushes 256 KB messages until the server is out of memory (queued
 * messages are never evicted). */
static void test_out_of_memory(mcds_t *h)
{
    const char *q = tu_name("oom");
    size_t sz = 256 * 1024;
    char *data = calloc(1, sz);
    mcds_status_t st = MCDS_OK;
    int i;

    CHECK(data != NULL);
    for (i = 0; i < 4096 && st == MCDS_OK; i++)
        st = mcds_queue_push(h, q, data, sz, 0, 0, 0, NULL);
    printf("# out of memory after %d messages of 256 KB\n", i - 1);
    CHECK_ST(st, MCDS_NO_MEMORY);
    CHECK(strstr(mcds_last_detail(h), "out of memory") != NULL);
    CHECK(stats_of(h, q).ready == (uint64_t)(i - 1));
    CHECK_ST(mcds_queue_purge(h, q, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push(h, q, data, sz, 0, 0, 0, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    free(data);
    tu_ok("server out of memory: MCDS_NO_MEMORY, nothing queued is lost");
}

/* ---- leases ---- */

static void test_leases(mcds_t *h)
{
    char q[128], dead[140];
    mcds_queue_opts_t o = {1000, 2, 0, NULL, 0, 0, 0};
    mcds_queue_msg_t *m, *again;
    mcds_queue_stats_t s;
    int64_t t0;
    size_t n;
    uint64_t id;

    /* "{tag}" keeps the dead-letter queue on the queue's server in a pool */
    snprintf(q, sizeof q, "{%s}", tu_name("lease"));
    snprintf(dead, sizeof dead, "%s:dead", q);
    CHECK_ST(mcds_queue_create(h, q, &o), MCDS_OK);
    push_str(h, q, "job", &id);

    /* a lease that runs out: ack refused, the message comes back */
    m = pop_one(h, q, "job");
    CHECK(m[0].id == id && m[0].deliveries == 1);
    usleep(1200 * 1000);
    CHECK_ST(mcds_queue_ack(h, q, id), MCDS_NOT_FOUND);
    again = pop_one(h, q, "job");
    CHECK(again[0].id == id && again[0].deliveries == 2);
    mcds_queue_msgs_free(m);
    mcds_queue_msgs_free(again);
    tu_ok("lease runs out: ack gives NOT_FOUND, redelivered with deliveries 2");

    /* after its 2nd delivery it goes, with its id, to the dead-letter
     * queue; a blocking pop there wakes when the lease runs out */
    t0 = tu_now_ms();
    CHECK_ST(mcds_queue_pop(h, dead, 1, 0, 5000, &m, &n), MCDS_OK);
    CHECK(n == 1 && strcmp(m[0].data, "job") == 0 && m[0].id == id);
    CHECK(tu_now_ms() - t0 >= 300 && tu_now_ms() - t0 < 4500);
    CHECK_ST(mcds_queue_ack(h, dead, m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    s = stats_of(h, q);
    CHECK(s.lease_expired == 2 && s.dead == 1 && s.ready == 0 && s.in_flight == 0);
    tu_ok("max_deliveries: dead-lettered to <queue>:dead, read with a blocking pop");

    /* a blocking pop wakes when a lease runs out (redelivery) */
    push_str(h, q, "again", &id);
    m = pop_one(h, q, "again");
    t0 = tu_now_ms();
    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 5000, &again, &n), MCDS_OK);
    CHECK(n == 1 && again[0].id == id && again[0].deliveries == 2);
    CHECK(tu_now_ms() - t0 >= 300 && tu_now_ms() - t0 < 4500);
    CHECK_ST(mcds_queue_ack(h, q, id), MCDS_OK);
    mcds_queue_msgs_free(m);
    mcds_queue_msgs_free(again);

    /* touch extends a lease, a pop with its own lease */
    push_str(h, q, "long", &id);
    CHECK_ST(mcds_queue_pop(h, q, 1, 300, 0, &m, &n), MCDS_OK);
    CHECK(n == 1 && m[0].id == id);
    CHECK_ST(mcds_queue_touch(h, q, id, 4000), MCDS_OK);
    expect_empty(h, q, 1000);   /* not back after the 300 ms lease */
    CHECK_ST(mcds_queue_ack(h, q, id), MCDS_OK);
    mcds_queue_msgs_free(m);
    tu_ok("blocking pop woken by an expiring lease; touch extends a lease");

    CHECK_ST(mcds_queue_delete(h, q), MCDS_OK);
    CHECK_ST(mcds_queue_delete(h, dead), MCDS_OK);
}

/* ---- blocking pops ---- */

struct waiter {
    char q[128];
    unsigned wait_ms;
    mcds_status_t st;
    size_t n;
    char data[32];
    int64_t ms;
};

static void *waiter_thread(void *arg)
{
    struct waiter *w = arg;
    mcds_queue_msg_t *m;
    mcds_t *h = NULL;
    int64_t t0 = tu_now_ms();

    CHECK_ST(mcds_clone(&h, base), MCDS_OK);
    w->st = mcds_queue_pop(h, w->q, 1, 0, w->wait_ms, &m, &w->n);
    w->ms = tu_now_ms() - t0;
    if (w->st == MCDS_OK && w->n == 1)
        snprintf(w->data, sizeof w->data, "%s", m[0].data);
    mcds_queue_msgs_free(m);
    mcds_close(h);
    return NULL;
}

static void test_blocking(mcds_t *h)
{
    struct waiter w;
    pthread_t t;
    pid_t pid;
    int status;
    int64_t t0;

    /* nothing comes: the wait ends empty */
    snprintf(w.q, sizeof w.q, "%s", tu_name("block"));
    t0 = tu_now_ms();
    expect_empty(h, w.q, 400);
    CHECK(tu_now_ms() - t0 >= 350);
    tu_ok("a blocking pop with nothing pushed ends empty after its wait");

    /* woken by a push from another thread */
    w.wait_ms = 20000;
    CHECK(pthread_create(&t, NULL, waiter_thread, &w) == 0);
    await_waiter(h, w.q);
    push_str(h, w.q, "from a thread", NULL);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_ST(w.st, MCDS_OK);
    CHECK(w.n == 1 && strcmp(w.data, "from a thread") == 0 && w.ms < 15000);
    tu_ok("a blocking pop is woken by a push from another thread");

    /* woken by a push from another process */
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        mcds_t *c = tu_open(servers);
        await_waiter(c, w.q);
        push_str(c, w.q, "from a process", NULL);
        mcds_close(c);
        _exit(0);
    }
    w.wait_ms = 20000;
    waiter_thread(&w);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    CHECK_ST(w.st, MCDS_OK);
    CHECK(w.n == 1 && strcmp(w.data, "from a process") == 0 && w.ms < 15000);
    tu_ok("a blocking pop is woken by a push from another process");

    /* deleting the queue ends a wait, empty */
    w.wait_ms = 20000;
    CHECK(pthread_create(&t, NULL, waiter_thread, &w) == 0);
    await_waiter(h, w.q);
    CHECK_ST(mcds_queue_delete(h, w.q), MCDS_OK);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_ST(w.st, MCDS_OK);
    CHECK(w.n == 0 && w.ms < 15000);
    tu_ok("deleting the queue ends a blocking pop with nothing");
}

struct cut_waiter {
    mcds_t *h;
    const char *q;
    mcds_status_t st;
};

static void *cut_waiter_thread(void *arg)
{
    struct cut_waiter *w = arg;
    mcds_queue_msg_t *m;
    size_t n;
    w->st = mcds_queue_pop(w->h, w->q, 1, 0, 20000, &m, &n);
    mcds_queue_msgs_free(m);
    return NULL;
}

static void test_connections(void)
{
    tu_proxy_t px;
    char list[64], first[256];
    mcds_t *direct;
    size_t n;
    const char *q = tu_name("conn");
    mcds_t *h;
    mcds_queue_stats_t s;
    mcds_queue_msg_t *m;
    struct cut_waiter cw;
    pthread_t t;
    int64_t t0;
    uint64_t id;

    /* the proxy leads to the first server; direct talks to it too */
    snprintf(first, sizeof first, "%.*s", (int)strcspn(servers, ","), servers);
    direct = tu_open(first);
    tu_proxy_start(&px, first, 0);
    snprintf(list, sizeof list, "127.0.0.1:%d", px.port);
    h = tu_open(list);
    CHECK_ST(mcds_set_io_timeout(h, 500), MCDS_OK);
    push_str(h, q, "a", &id);

    /* the server closes an idle connection: the next call reconnects */
    tu_proxy_set(&px, TU_PROXY_FORWARD, 1);
    m = pop_one(h, q, "a");
    CHECK_ST(mcds_queue_ack(h, q, m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    tu_ok("a connection closed while idle is reopened by the next call");

    /* the connection drops during a call: SERVER_DOWN, then it reconnects */
    cw.h = h;
    cw.q = q;
    CHECK(pthread_create(&t, NULL, cut_waiter_thread, &cw) == 0);
    await_waiter(direct, q);
    t0 = tu_now_ms();
    tu_proxy_set(&px, TU_PROXY_FORWARD, 1);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_ST(cw.st, MCDS_SERVER_DOWN);
    CHECK(tu_now_ms() - t0 < 5000);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK(strstr(mcds_last_detail(h), "closed") != NULL);
    /* the cut pop may still wait on the server until its hang-up arrives
     * there: a push before that would be its answer (lost with the
     * connection, and back when its lease ends) */
    await_no_waiter(direct, q);
    push_str(h, q, "b", NULL);
    m = pop_one(h, q, "b");
    CHECK_ST(mcds_queue_ack(h, q, m[0].id), MCDS_OK);
    mcds_queue_msgs_free(m);
    tu_ok("a connection lost mid-call: MCDS_SERVER_DOWN, the next call reconnects");

    /* a server that stops answering: SERVER_DOWN after the I/O timeout */
    tu_proxy_set(&px, TU_PROXY_BLACKHOLE, 0);
    t0 = tu_now_ms();
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_SERVER_DOWN);
    CHECK(tu_now_ms() - t0 >= 450 && tu_now_ms() - t0 < 5000);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK(strstr(mcds_last_detail(h), "timed out") != NULL);
    tu_proxy_set(&px, TU_PROXY_FORWARD, 0);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    /* a blocking pop waits its wait plus the I/O timeout, no more */
    tu_proxy_set(&px, TU_PROXY_BLACKHOLE, 0);
    t0 = tu_now_ms();
    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 700, &m, &n), MCDS_SERVER_DOWN);
    CHECK(tu_now_ms() - t0 >= 1150 && tu_now_ms() - t0 < 6000);
    tu_ok("a server that stops answering: MCDS_SERVER_DOWN after the I/O timeout");

    /* the server goes away: refused, no crash */
    tu_proxy_stop(&px);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_push(h, q, "x", 1, 0, 0, 0, NULL), MCDS_SERVER_DOWN);
    CHECK(strstr(mcds_last_detail(h), "refused") != NULL);
    mcds_close(h);
    CHECK_ST(mcds_queue_delete(direct, q), MCDS_OK);
    mcds_close(direct);
    tu_ok("a server gone: MCDS_SERVER_DOWN (connection refused)");
}

static void test_server_down(void)
{
    mcds_t *h = tu_open(DOWN);
    mcds_queue_msg_t *m = (mcds_queue_msg_t *)1;
    mcds_queue_stats_t s;
    size_t n = 9;
    uint64_t id = 5;
    int64_t t0 = tu_now_ms();

    CHECK_ST(mcds_queue_create(h, "q", NULL), MCDS_SERVER_DOWN);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK(strstr(mcds_last_detail(h), "connect") != NULL);
    CHECK_ST(mcds_queue_push(h, "q", "x", 1, 0, 0, 0, &id), MCDS_SERVER_DOWN);
    CHECK(id == 5);
    CHECK_ST(mcds_queue_pop(h, "q", 1, 0, 1000, &m, &n), MCDS_SERVER_DOWN);
    CHECK(m == NULL && n == 0);
    CHECK_ST(mcds_queue_ack(h, "q", 1), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_release(h, "q", 1, 0), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_touch(h, "q", 1, 0), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_stats(h, "q", &s), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_purge(h, "q", NULL), MCDS_SERVER_DOWN);
    CHECK_ST(mcds_queue_delete(h, "q"), MCDS_SERVER_DOWN);
    /* calls through libmemcached report theirs in the same style */
    CHECK_ST(mcds_counter_incr(h, "c", 1, NULL), MCDS_SERVER_DOWN);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK(strncmp(mcds_last_detail(h), DOWN ": ", strlen(DOWN) + 2) == 0);
    CHECK(strstr(mcds_last_detail(h), "refused") != NULL);
    CHECK(strstr(mcds_last_detail(h), "0x") == NULL);
    CHECK(tu_now_ms() - t0 < 10000);
    mcds_close(h);
    tu_ok("server down: MCDS_SERVER_DOWN from every queue call, promptly");
}

/* ---- a pool ---- */

#define POOL_QUEUES 24
#define TAGGED 16

static void test_pool(mcds_t *h)
{
    mcds_t *one[8];
    char copy[1024], *tok, *save = NULL, name[POOL_QUEUES][128];
    int nserv = 0, i, j, used = 0, hits[8] = {0};
    mcds_queue_stats_t s;
    mcds_queue_msg_t *m;
    char tagged[TAGGED][128];

    snprintf(copy, sizeof copy, "%s", servers);
    for (tok = strtok_r(copy, ",", &save); tok && nserv < 8;
         tok = strtok_r(NULL, ",", &save))
        one[nserv++] = tu_open(tok);
    if (nserv < 2) {
        mcds_close(one[0]);
        printf("# one server: the pool checks need a list of several\n");
        return;
    }
    for (i = 0; i < POOL_QUEUES; i++) {
        int at = -1;
        const memcached_instance_st *inst;
        memcached_return_t rc;
        char where[300];

        snprintf(name[i], sizeof name[i], "%s-%d", tu_name("poolq"), i);
        push_str(h, name[i], name[i], NULL);
        for (j = 0; j < nserv; j++) {
            mcds_status_t st = mcds_queue_stats(one[j], name[i], &s);
            if (st == MCDS_OK) {
                CHECK(at == -1 && s.ready == 1);
                at = j;
            } else {
                CHECK_ST(st, MCDS_NOT_FOUND);
            }
        }
        CHECK(at >= 0);
        hits[at]++;
        /* the server libmemcached picks for the key */
        inst = memcached_server_by_key(mcds_memcached(h), name[i],
                                       strlen(name[i]), &rc);
        CHECK(inst != NULL);
        snprintf(where, sizeof where, "%s:%u", memcached_server_name(inst),
                 (unsigned)memcached_server_port(inst));
        CHECK(strstr(servers, where) != NULL);
        snprintf(copy, sizeof copy, "%s", servers);
        save = NULL;
        tok = strtok_r(copy, ",", &save);
        for (j = 0; j < at; j++)
            tok = strtok_r(NULL, ",", &save);
        CHECK(tok != NULL && strcmp(tok, where) == 0);
    }
    for (j = 0; j < nserv; j++) {
        printf("# server %d holds %d queue(s)\n", j, hits[j]);
        used += hits[j] > 0;
    }
    CHECK(used == nserv);
    tu_ok("pool: each queue on the server libmemcached picks; all servers used");

    for (i = 0; i < POOL_QUEUES; i++) {
        m = pop_one(h, name[i], name[i]);
        CHECK_ST(mcds_queue_ack(h, name[i], m[0].id), MCDS_OK);
        mcds_queue_msgs_free(m);
        CHECK(stats_of(h, name[i]).acked == 1);
        CHECK_ST(mcds_queue_delete(h, name[i]), MCDS_OK);
    }
    tu_ok("pool: every queue works through the pool handle");

    /* "{tag}" names share the tag's server (the same names without braces
     * spread: the tag is what keeps them together) */
    for (j = 0; j < 2; j++) {
        int at = -1, spread = 0;
        for (i = 0; i < TAGGED; i++) {
            int k, here = -1;
            snprintf(tagged[i], sizeof tagged[i], j ? "{%s}-%d" : "%s-%d",
                     "tagged", i);
            push_str(h, tagged[i], "t", NULL);
            for (k = 0; k < nserv; k++) {
                if (mcds_queue_stats(one[k], tagged[i], &s) == MCDS_OK)
                    here = k;
            }
            CHECK(here >= 0);
            spread |= at >= 0 && here != at;
            at = here;
            CHECK_ST(mcds_queue_delete(h, tagged[i]), MCDS_OK);
        }
        CHECK(j ? !spread : spread);
    }
    tu_ok("pool: names with the same {tag} share a server");
    for (j = 0; j < nserv; j++)
        mcds_close(one[j]);
}

/* ---- 4 producers, 4 consumers, 20,000 messages ---- */

#define PRODUCERS 4
#define CONSUMERS 4
#define PER_PRODUCER 5000
#define TOTAL (PRODUCERS * PER_PRODUCER)

static char conc_q[128];
static unsigned char seen[TOTAL];
static int consumed;

static void *producer(void *arg)
{
    int p = (int)(intptr_t)arg, i;
    mcds_t *h = NULL;

    CHECK_ST(mcds_clone(&h, base), MCDS_OK);
    for (i = 0; i < PER_PRODUCER; i++) {
        uint32_t v = (uint32_t)(p * PER_PRODUCER + i);
        CHECK_ST(mcds_queue_push(h, conc_q, &v, sizeof v, (uint32_t)p, 0,
                                 MCDS_QUEUE_PRIORITY_DEFAULT, NULL),
                 MCDS_OK);
    }
    mcds_close(h);
    return NULL;
}

static void *consumer(void *arg)
{
    mcds_t *h = NULL;
    int64_t deadline = tu_now_ms() + 120000;

    CHECK_ST(mcds_clone(&h, base), MCDS_OK);
    while (__atomic_load_n(&consumed, __ATOMIC_SEQ_CST) < TOTAL) {
        mcds_queue_msg_t *m;
        size_t n, i;
        CHECK(tu_now_ms() < deadline);
        CHECK_ST(mcds_queue_pop(h, conc_q, 16, 60000, 100, &m, &n), MCDS_OK);
        for (i = 0; i < n; i++) {
            uint32_t v;
            CHECK(m[i].len == sizeof v && m[i].deliveries == 1);
            memcpy(&v, m[i].data, sizeof v);
            CHECK(v < TOTAL && m[i].flags == v / PER_PRODUCER);
            CHECK(__atomic_fetch_add(&seen[v], 1, __ATOMIC_SEQ_CST) == 0);
            CHECK_ST(mcds_queue_ack(h, conc_q, m[i].id), MCDS_OK);
            __atomic_fetch_add(&consumed, 1, __ATOMIC_SEQ_CST);
        }
        mcds_queue_msgs_free(m);
    }
    mcds_close(h);
    return NULL;
}

static void test_concurrency(mcds_t *h)
{
    pthread_t t[PRODUCERS + CONSUMERS];
    mcds_queue_stats_t s;
    int i;
    int64_t t0 = tu_now_ms();

    snprintf(conc_q, sizeof conc_q, "%s", tu_name("conc"));
    for (i = 0; i < CONSUMERS; i++)
        CHECK(pthread_create(&t[i], NULL, consumer, NULL) == 0);
    for (i = 0; i < PRODUCERS; i++)
        CHECK(pthread_create(&t[CONSUMERS + i], NULL, producer,
                             (void *)(intptr_t)i) == 0);
    for (i = 0; i < PRODUCERS + CONSUMERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    for (i = 0; i < TOTAL; i++)
        CHECK(seen[i] == 1);
    s = stats_of(h, conc_q);
    CHECK(s.pushed == TOTAL && s.acked == TOTAL && s.ready == 0 &&
          s.in_flight == 0 && s.lease_expired == 0);
    printf("# %d messages in %lld ms\n", TOTAL, (long long)(tu_now_ms() - t0));
    CHECK_ST(mcds_queue_delete(h, conc_q), MCDS_OK);
    tu_ok("4 producers x 4 consumers: 20000 messages, none lost, none twice");
}

/* ---- stock memcached ---- */

static void test_unsupported(mcds_t *h)
{
    memcached_st *mc = mcds_memcached(h);
    const char *q = tu_name("unsup");
    const char *cmd = "flush_all\r\n";
    mcds_queue_msg_t *m;
    mcds_queue_stats_t s;
    size_t n, vlen;
    uint32_t flags;
    uint64_t one = 1;
    mcds_status_t res;
    memcached_return_t rc;
    char *v;

    CHECK(memcached_set(mc, "canary", 6, "alive", 5, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_queue_push(h, q, cmd, strlen(cmd), 0, 0, 0, NULL),
             MCDS_UNSUPPORTED);
    printf("# detail: %s\n", mcds_last_detail(h));
    CHECK_ST(mcds_queue_create(h, q, NULL), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_pop(h, q, 1, 0, 100, &m, &n), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_ack(h, q, 1), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_ack_many(h, q, &one, 1, &res), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_ack_msg(h, q, &(mcds_queue_msg_t){1, 0, 1, "", 0}),
             MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_purge(h, q, NULL), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_queue_delete(h, q), MCDS_UNSUPPORTED);
    v = memcached_get(mc, "canary", 6, &vlen, &flags, &rc);
    CHECK(rc == MEMCACHED_SUCCESS && vlen == 5);
    free(v);
    tu_ok("stock memcached: MCDS_UNSUPPORTED, and a message is never run as commands");
}

int main(int argc, char **argv)
{
    const char *mode = getenv("MCDS_TEST_QUEUE");

    servers = tu_init(argc, argv, 300);
    base = tu_open(servers);
    if (mode != NULL && strcmp(mode, "unsupported") == 0) {
        test_unsupported(base);
        mcds_close(base);
        return 0;
    }
    test_verbs(base);
    test_arguments(base);
    test_batch(base);
    test_receipts(base);
    test_full(base);
    test_wrong_type(base);
    test_too_large(base);
    test_leases(base);
    test_blocking(base);
    test_connections();
    test_server_down();
    test_pool(base);
    test_concurrency(base);
    test_out_of_memory(base);
    mcds_close(base);
    return 0;
}
