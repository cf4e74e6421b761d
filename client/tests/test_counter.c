/*
 * test_counter.c - signed counters: create on first use, negative values,
 * the ends of the int64 range, and many processes creating and changing
 * the same counter at once.
 */
#include <libmemcached/memcached.h>
#include <string.h>

#include "testutil.h"

#define WORKERS 8
#define ROUNDS 1000

static char shared_name[128];

static void test_basics(mcds_t *h)
{
    const char *name = tu_name("ctr");
    int64_t v = 0;

    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_NOT_FOUND);
    CHECK_ST(mcds_counter_incr(h, name, 5, &v), MCDS_OK);
    CHECK(v == 5);
    CHECK_ST(mcds_counter_incr(h, name, -12, &v), MCDS_OK);
    CHECK(v == -7);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
    CHECK(v == -7);
    CHECK_ST(mcds_counter_incr(h, name, 107, NULL), MCDS_OK);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
    CHECK(v == 100);
    CHECK_ST(mcds_counter_incr(h, name, -1, &v), MCDS_OK); /* 100 -> 99 */
    CHECK(v == 99);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
    CHECK(v == 99);
    tu_ok("incr creates at 0, goes negative and back");

    name = tu_name("ctr");
    CHECK_ST(mcds_counter_incr(h, name, -3, &v), MCDS_OK);
    CHECK(v == -3);
    CHECK_ST(mcds_counter_set(h, name, 42), MCDS_OK);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
    CHECK(v == 42);
    CHECK_ST(mcds_counter_delete(h, name), MCDS_OK);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_NOT_FOUND);
    CHECK_ST(mcds_counter_delete(h, name), MCDS_NOT_FOUND);
    tu_ok("set, get, delete");

    CHECK_ST(mcds_counter_set(h, name, MCDS_COUNTER_MAX - 1), MCDS_OK);
    CHECK_ST(mcds_counter_incr(h, name, 1, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MAX);
    CHECK_ST(mcds_counter_incr(h, name, 1, &v), MCDS_OUT_OF_RANGE);
    CHECK_ST(mcds_counter_incr(h, name, MCDS_COUNTER_MAX, &v),
             MCDS_OUT_OF_RANGE);
    CHECK_ST(mcds_counter_incr(h, name, INT64_MAX, &v), MCDS_OUT_OF_RANGE);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MAX); /* the failed increments were undone */
    CHECK_ST(mcds_counter_set(h, name, MCDS_COUNTER_MIN + 5), MCDS_OK);
    CHECK_ST(mcds_counter_incr(h, name, -3, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MIN + 2);
    CHECK_ST(mcds_counter_incr(h, name, -10, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MIN); /* stops, like memcached's decr at 0 */
    CHECK_ST(mcds_counter_incr(h, name, MCDS_COUNTER_MAX - MCDS_COUNTER_MIN,
                               &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MAX);
    CHECK_ST(mcds_counter_incr(h, name, INT64_MIN, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MIN);
    CHECK_ST(mcds_counter_set(h, name, MCDS_COUNTER_MAX + 1), MCDS_OUT_OF_RANGE);
    CHECK_ST(mcds_counter_set(h, name, INT64_MIN), MCDS_OUT_OF_RANGE);
    name = tu_name("ctr");
    CHECK_ST(mcds_counter_incr(h, name, INT64_MAX, &v), MCDS_OUT_OF_RANGE);
    CHECK_ST(mcds_counter_incr(h, name, INT64_MIN, &v), MCDS_OK);
    CHECK(v == MCDS_COUNTER_MIN);
    tu_ok("range ends: MAX reached, past MAX undone, MIN is a floor");
}

static void test_corrupt(mcds_t *h)
{
    const char *name = tu_name("ctr");
    char key[200];
    int64_t v;

    snprintf(key, sizeof key, "mcds:ctr:%s", name);
    CHECK(memcached_set(mcds_memcached(h), key, strlen(key), "abc", 3, 0, 0) ==
          MEMCACHED_SUCCESS);
    CHECK_ST(mcds_counter_get(h, name, &v), MCDS_CORRUPT);
    CHECK_ST(mcds_counter_incr(h, name, 1, &v), MCDS_SERVER_ERROR);
    tu_ok("a non-numeric value is reported, not misread");
}

/* Regression: with values stored at 2^63 and above (an earlier bias of
 * 2^63), memcached's parser scanned past the number for a '-' and failed at
 * random once slab memory held keys with dashes. Many fresh counters,
 * created then decremented. */
static void test_many_fresh(mcds_t *h)
{
    int64_t v;
    int i;

    for (i = 0; i < 300; i++) {
        const char *name = tu_name("fresh-counter-with-dashes");
        CHECK_ST(mcds_counter_incr(h, name, 5, &v), MCDS_OK);
        CHECK_ST(mcds_counter_incr(h, name, -12, &v), MCDS_OK);
        CHECK(v == -7);
        CHECK_ST(mcds_counter_delete(h, name), MCDS_OK);
    }
    tu_ok("300 fresh counters created and decremented");
}

static void worker(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    int r;
    (void)i;
    (void)arg;

    for (r = 0; r < ROUNDS; r++)
        CHECK_ST(mcds_counter_incr(h, shared_name, r % 2 ? -1 : 3, NULL),
                 MCDS_OK);
    mcds_close(h);
}

static void test_concurrent(mcds_t *h, const char *servers)
{
    int64_t v = 0;

    snprintf(shared_name, sizeof shared_name, "%s", tu_name("shared"));
    CHECK(tu_run_workers(WORKERS, worker, servers, NULL) == 0);
    CHECK_ST(mcds_counter_get(h, shared_name, &v), MCDS_OK);
    CHECK(v == WORKERS * (ROUNDS / 2) * 2);
    tu_ok("8 processes create and change one counter: exact total");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_basics(h);
    test_corrupt(h);
    test_many_fresh(h);
    test_concurrent(h, servers);
    mcds_close(h);
    return 0;
}
