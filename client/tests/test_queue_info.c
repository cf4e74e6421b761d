/*
 * test_queue_info.c - the read-only queue views of libmcds (mcds_queue_info,
 * mcds_queue_peek_id, mcds_queue_peek_delayed, mcds_queue_list) against
 * one mcds-server: a message's figures in each state, the holder of a
 * lease, peeks by id and at delayed messages, the queues page by page,
 * and the errors (no such message or queue, a cache value under the key,
 * bad arguments). With MCDS_TEST_QUEUE=unsupported, against a stock
 * memcached: every call is MCDS_UNSUPPORTED. No sleep.
 */
#include <libmemcached/memcached.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
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
    mcds_queue_msg_t *m;
    size_t n;
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
    CHECK_ST(mcds_queue_peek_id(h, q, a, &m), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_queue_peek_delayed(h, q, 1, &m, &n), MCDS_WRONG_TYPE);
    tu_ok("qinfo, qpeek: a cache value under the key is MCDS_WRONG_TYPE");
}

static void test_peek(mcds_t *h)
{
    const char *q = tu_name("qpeek");
    uint64_t late = push(h, q, "late", 300), soon = push(h, q, "soon", 100);
    uint64_t now = push(h, q, "now", 0);
    mcds_queue_msg_t *m = NULL;
    size_t n = 9;

    CHECK_ST(mcds_queue_peek_id(h, q, soon, &m), MCDS_OK);
    CHECK(m != NULL && m[0].id == soon && m[0].flags == 9 && m[0].len == 4);
    CHECK(strcmp(m[0].data, "soon") == 0 && m[0].deliveries == 0);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_peek_id(h, q, now + 1000000, &m), MCDS_NOT_FOUND);
    CHECK(m == NULL);
    CHECK_ST(mcds_queue_peek_id(h, tu_name("qpeek-none"), now, &m), MCDS_NOT_FOUND);
    CHECK_ST(mcds_queue_peek_id(h, q, now, NULL), MCDS_INVALID);
    tu_ok("qpeek id=: a delayed message with its data; NOT_FOUND for none");

    CHECK_ST(mcds_queue_peek_delayed(h, q, 100, &m, &n), MCDS_OK);
    CHECK(n == 2 && m[0].id == soon && m[1].id == late && strcmp(m[1].data, "late") == 0);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_peek_delayed(h, q, 1, &m, &n), MCDS_OK);
    CHECK(n == 1 && m[0].id == soon);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_peek_delayed(h, tu_name("qpeek-none"), 5, &m, &n), MCDS_OK);
    CHECK(n == 0 && m == NULL);
    CHECK_ST(mcds_queue_peek_delayed(h, q, 0, &m, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_peek_delayed(h, q, 101, &m, &n), MCDS_INVALID);
    CHECK_ST(mcds_queue_peek_delayed(h, q, 5, NULL, &n), MCDS_INVALID);
    tu_ok("qpeek delayed: by due time, bounded by max; none for a missing queue");

    CHECK_ST(mcds_queue_pop(h, q, 10, 0, 0, &m, &n), MCDS_OK);
    CHECK(n == 1 && m[0].id == now);   /* nothing the peeks saw was leased */
    mcds_queue_msgs_free(m);
    tu_ok("qpeek: nothing leased or moved");
}

/* Lists every queue of the server of route whose name starts with prefix,
 * max per call; checks name order; returns how many. */
static size_t list_all(mcds_t *h, const char *route, const char *prefix, unsigned max)
{
    char after[MCDS_QUEUE_NAME_MAX + 1] = "", next[MCDS_QUEUE_NAME_MAX + 1];
    mcds_queue_entry_t *v;
    size_t n, i, seen = 0;

    do {
        CHECK_ST(mcds_queue_list(h, route, after[0] ? after : NULL, max, &v, &n, next), MCDS_OK);
        CHECK(n <= max + 16);
        for (i = 0; i < n; i++) {
            CHECK(strcmp(v[i].name, after) > 0);
            if (strncmp(v[i].name, prefix, strlen(prefix)) == 0)
                seen++;
            strcpy(after, v[i].name);
        }
        CHECK(next[0] == '\0' || strcmp(next, after) == 0);
        mcds_queue_entries_free(v);
    } while (next[0] != '\0');
    return seen;
}

static void test_list(mcds_t *h)
{
    const char *p = tu_name("qlist");
    char q[3][MCDS_QUEUE_NAME_MAX + 1];
    mcds_queue_entry_t *v;
    mcds_queue_msg_t *m;
    char next[MCDS_QUEUE_NAME_MAX + 1];
    size_t n, i;

    for (i = 0; i < 3; i++)
        snprintf(q[i], sizeof q[i], "%s-%zu", p, i);
    push(h, q[0], "a", 0);
    push(h, q[0], "b", 0);
    push(h, q[1], "later", 100);
    push(h, q[2], "c", 0);
    CHECK_ST(mcds_queue_pop(h, q[2], 1, 0, 0, &m, &n), MCDS_OK);
    mcds_queue_msgs_free(m);
    CHECK_ST(mcds_queue_list(h, q[0], q[0], 2, &v, &n, next), MCDS_OK);
    CHECK(n == 2 && strcmp(v[0].name, q[1]) == 0 && strcmp(v[1].name, q[2]) == 0);
    CHECK(next[0] == '\0' || strcmp(next, q[2]) == 0);
    CHECK(v[0].ready == 0 && v[0].delayed == 1 && v[1].in_flight == 1 && v[1].ready == 0);
    mcds_queue_entries_free(v);
    tu_ok("qlist: queues after a name, with their sizes, in name order");

    CHECK(list_all(h, q[0], p, 1) == 3);
    CHECK(list_all(h, q[0], p, MCDS_QUEUE_LIST_MAX) == 3);
    tu_ok("qlist: every queue once over pages of 1 and of 1000");

    CHECK_ST(mcds_queue_list(h, q[0], "\x7f~~~", 10, &v, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, q[0], NULL, 0, &v, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, q[0], NULL, MCDS_QUEUE_LIST_MAX + 1, &v, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, NULL, NULL, 1, &v, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, q[0], "bad name", 1, &v, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, q[0], NULL, 1, NULL, &n, next), MCDS_INVALID);
    CHECK_ST(mcds_queue_list(h, q[0], "~~~~", 5, &v, &n, NULL), MCDS_OK);
    CHECK(n == 0 && v == NULL);
    tu_ok("qlist: bad arguments refused; nothing after the last name");
}

/* Stock memcached: every view is MCDS_UNSUPPORTED, and the connection
 * stays usable for the next. */
static void test_unsupported(mcds_t *h)
{
    mcds_queue_msg_info_t in;
    mcds_queue_entry_t *v;
    mcds_queue_msg_t *m;
    size_t n;
    int i;

    for (i = 0; i < 2; i++) {
        CHECK_ST(mcds_queue_info(h, "q", 1, &in), MCDS_UNSUPPORTED);
        CHECK_ST(mcds_queue_peek_id(h, "q", 1, &m), MCDS_UNSUPPORTED);
        CHECK_ST(mcds_queue_peek_delayed(h, "q", 5, &m, &n), MCDS_UNSUPPORTED);
        CHECK_ST(mcds_queue_list(h, "q", NULL, 5, &v, &n, NULL), MCDS_UNSUPPORTED);
    }
    CHECK(memcached_set(mcds_memcached(h), "k", 1, "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    tu_ok("views on stock memcached: MCDS_UNSUPPORTED");
}

int main(int argc, char **argv)
{
    const char *mode = getenv("MCDS_TEST_QUEUE");
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    if (mode != NULL && strcmp(mode, "unsupported") == 0) {
        test_unsupported(h);
        mcds_close(h);
        return 0;
    }
    test_info(h);
    test_peek(h);
    test_list(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
