/*
 * test_queue_group.c - mcds_queue_push_opts and mcds_queue_push_many_opts
 * with FIFO groups (mcds_push_opts_t.group) against mcds-server: a group's
 * messages come one at a time in push order, the next once the one before
 * is acked; groups side by side; a batch joins its group in order; dedup
 * and group together; qstats' grouped and groups; every message counted;
 * bad options never reach the server.
 */
#include <string.h>

#include "testutil.h"

/* Pops up to MCDS_QUEUE_POP_MAX ready messages of q and acks them; their
 * data (one byte each) into out, in delivery order; returns how many. */
static size_t pop_round(mcds_t *h, const char *q, char *out)
{
    mcds_queue_msg_t *m;
    size_t got, i;

    CHECK_ST(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX, 0, 0, &m, &got), MCDS_OK);
    for (i = 0; i < got; i++) {
        CHECK(m[i].len == 1);
        out[i] = ((const char *)m[i].data)[0];
        CHECK_ST(mcds_queue_ack_msg(h, q, &m[i]), MCDS_OK);
    }
    out[got] = '\0';
    mcds_queue_msgs_free(m);
    return got;
}

static void test_one_at_a_time(mcds_t *h)
{
    const char *q = tu_name("grp");
    mcds_push_opts_t a = { 0 }, b = { 0 };
    mcds_queue_stats_t s;
    char round[MCDS_QUEUE_POP_MAX + 1];

    a.group = "A";
    b.group = "B";
    CHECK_ST(mcds_queue_push_opts(h, q, "1", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &a, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "2", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &a, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "3", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &a, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, &b, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_push_opts(h, q, "-", 1, 0, 0, MCDS_QUEUE_PRIORITY_DEFAULT, NULL, NULL), MCDS_OK);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.ready == 3 && s.grouped == 2 && s.groups == 2 && s.pushed == 5);
    CHECK(pop_round(h, q, round) == 3 && strcmp(round, "1x-") == 0);
    CHECK(pop_round(h, q, round) == 1 && strcmp(round, "2") == 0);
    CHECK(pop_round(h, q, round) == 1 && strcmp(round, "3") == 0);
    CHECK(pop_round(h, q, round) == 0);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.acked == 5 && s.grouped == 0 && s.groups == 0);
    tu_ok("push_opts group: one at a time, in push order, groups side by side, counted");
}

static void test_batch(mcds_t *h)
{
    const char *q = tu_name("grpn");
    const void *data[3] = { "a", "b", "c" };
    size_t lens[3] = { 1, 1, 1 };
    uint64_t first[3], again[3];
    mcds_push_opts_t o = { 0 };
    mcds_queue_stats_t s;
    char round[MCDS_QUEUE_POP_MAX + 1], all[8] = "";

    o.group = "batch";
    o.dedup = "b-1";
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 3, 0, 0, 1, &o, first), MCDS_OK);
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 3, 0, 0, 1, &o, again), MCDS_OK);
    CHECK(memcmp(first, again, sizeof first) == 0);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.pushed == 3 && s.deduplicated == 3 && s.ready == 1 && s.grouped == 2);
    while (pop_round(h, q, round) > 0) {
        CHECK(strlen(round) == 1);
        strcat(all, round);
    }
    CHECK(strcmp(all, "abc") == 0);
    tu_ok("push_many_opts group and dedup: the batch in order, once");
}

static void test_errors(mcds_t *h)
{
    const char *q = tu_name("grpe");
    const void *data[1] = { "x" };
    size_t lens[1] = { 1 };
    char longid[MCDS_QUEUE_GROUP_MAX + 2];
    mcds_push_opts_t o = { 0 };
    mcds_queue_stats_t s;
    uint64_t id;

    memset(longid, 'g', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    o.group = "";
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &o, &id), MCDS_INVALID);
    o.group = "a b";
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &o, &id), MCDS_INVALID);
    o.group = "a\r\nflush_all";
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 1, 0, 0, 1, &o, &id), MCDS_INVALID);
    o.group = longid;
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &o, &id), MCDS_INVALID);
    o.group = "g";
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 5, 1, &o, &id), MCDS_INVALID);   /* a delay */
    CHECK_ST(mcds_queue_push_many_opts(h, q, data, lens, 1, 0, 5, 1, &o, &id), MCDS_INVALID);
    o.reserved[2] = 1;
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &o, &id), MCDS_INVALID);
    o.reserved[2] = 0;
    longid[MCDS_QUEUE_GROUP_MAX] = '\0';
    o.group = longid;
    CHECK_ST(mcds_queue_push_opts(h, q, "x", 1, 0, 0, 1, &o, &id), MCDS_OK);
    CHECK_ST(mcds_queue_stats(h, q, &s), MCDS_OK);
    CHECK(s.pushed == 1 && s.groups == 1);
    tu_ok("errors: bad groups, a grouped delay and reserved fields never reach the server; 128 bytes fit");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    h = tu_open(tu_init(argc, argv, 120));
    test_one_at_a_time(h);
    test_batch(h);
    test_errors(h);
    mcds_close(h);
    return 0;
}
