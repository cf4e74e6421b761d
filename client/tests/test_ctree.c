/*
 * test_ctree.c - the tree-counter wrappers (mcds_ctree_*) against
 * mcds-server: counters defined on every server, objects of one group on
 * one server, increments rolled up with values returned, a limit refusing
 * (MCDS_LIMIT with where), reads with filters and continuation, children,
 * active objects and periods, settings and limits, deletion of a subtree,
 * bad arguments. With a pool, every hierarchy lives on its group's server
 * and still rolls up to its root.
 *
 * With MCDS_TEST_CTREE=unsupported it checks instead that a stock
 * memcached gives MCDS_UNSUPPORTED.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static uint32_t cid;        /* this run's counter: unique, servers may be reused */

static const mcds_ctree_type_t hour_types[] = {
    {103, 0, 0}, {104, 0, 0}, {105, 0, 0}, {106, 0, 0}, {107, 0, 0}};

static int64_t total(mcds_t *h, const char *g, const char *o, uint32_t code,
                     const char *period)
{
    int64_t v = -1, f = -1;

    CHECK_ST(mcds_ctree_get(h, g, o, cid, code, period, &v, &f), MCDS_OK);
    return v + f;
}

static void test_define(mcds_t *h)
{
    mcds_ctree_type_t bad[] = {{105, 0, 0}, {3004, 0, 0}};

    CHECK_ST(mcds_ctree_define(h, cid, hour_types, 5, 1, 1), MCDS_OK);
    CHECK_ST(mcds_ctree_define(h, cid, hour_types, 5, 1, 1), MCDS_EXISTS);
    CHECK_ST(mcds_ctree_define(h, cid + 1, bad, 2, 1, 1), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "do not nest") != NULL);
    CHECK_ST(mcds_ctree_define(h, cid + 2, hour_types, 1, 0, 3), MCDS_OK);
    CHECK_ST(mcds_ctree_undefine(h, cid + 2), MCDS_OK);
    CHECK_ST(mcds_ctree_undefine(h, cid + 2), MCDS_NOT_FOUND);
    tu_ok("counters: define (every server), EXISTS, types that do not nest, undefine");
}

static void test_tree(mcds_t *h)
{
    const char *g = tu_name("tree");
    char root[128], a[128], b[128];
    mcds_ctree_limit_t lim = {cid, 104, 100}, raise = {cid, 104, 50}, *limits;
    mcds_ctree_refusal_t why;
    mcds_ctree_value_t *v;
    mcds_ctree_info_t info;
    size_t n;

    snprintf(root, sizeof root, "%s", g);
    snprintf(a, sizeof a, "%s.a", g);
    snprintf(b, sizeof b, "%s.b", g);
    CHECK_ST(mcds_ctree_create(h, g, root, NULL, 0, NULL, 0), MCDS_OK);
    CHECK_ST(mcds_ctree_create(h, g, root, NULL, 0, NULL, 0), MCDS_EXISTS);
    CHECK_ST(mcds_ctree_create(h, g, a, root, 0, &lim, 1), MCDS_OK);
    CHECK_ST(mcds_ctree_create(h, g, b, root, 3, NULL, 0), MCDS_OK);
    CHECK_ST(mcds_ctree_create(h, g, "nochild", "noparent-x", 0, NULL, 0), MCDS_NOT_FOUND);
    tu_ok("create: OK, EXISTS, NOT_FOUND for a missing parent");

    CHECK_ST(mcds_ctree_incr(h, g, a, cid, 103, "2021031514", 60, NULL, &v, &n), MCDS_OK);
    CHECK(n == 2 && strcmp(v[0].key, a) == 0 && strcmp(v[1].key, root) == 0);
    CHECK(v[0].value == 60 && v[1].value == 60 && strcmp(v[1].period, "2021031514") == 0);
    mcds_ctree_values_free(v);
    CHECK_ST(mcds_ctree_incr(h, g, b, cid, 103, "@1615820400", 5, NULL, NULL, NULL), MCDS_OK);
    CHECK(total(h, g, root, 104, "20210315") == 65);
    CHECK(total(h, g, root, 107, "1") == 65);
    tu_ok("incr: values of the object and its ancestors, roll-up in time");

    memset(&why, 0, sizeof why);
    CHECK_ST(mcds_ctree_incr(h, g, a, cid, 103, "2021031515", 41, &why, NULL, NULL), MCDS_LIMIT);
    CHECK(strcmp(why.key, a) == 0 && why.code == 104 && strcmp(why.period, "20210315") == 0);
    CHECK(total(h, g, root, 107, "1") == 65);
    CHECK_ST(mcds_ctree_limits(h, g, a, 1, &raise, 1, -1), MCDS_OK);
    CHECK_ST(mcds_ctree_incr(h, g, a, cid, 103, "2021031515", 41, &why, NULL, NULL), MCDS_OK);
    tu_ok("incr: MCDS_LIMIT names the object and period, nothing changed; raise lets it pass");

    CHECK_ST(mcds_ctree_info(h, g, a, &info, &limits, &n), MCDS_OK);
    CHECK(strcmp(info.parent, root) == 0 && info.children == 0 && info.changed > 0);
    CHECK(n == 1 && limits[0].counter == cid && limits[0].code == 104 && limits[0].max == 150);
    free(limits);
    CHECK_ST(mcds_ctree_info(h, g, root, &info, NULL, NULL), MCDS_OK);
    CHECK(info.parent[0] == '\0' && info.children == 2);
    CHECK_ST(mcds_ctree_limits(h, g, a, 0, NULL, 0, 2), MCDS_OK);
    CHECK_ST(mcds_ctree_info(h, g, a, &info, &limits, &n), MCDS_OK);
    CHECK(n == 0 && limits == NULL && info.quantize == 2);
    tu_ok("info and limits: parent, children, limits raised, redefined");

    {
        char cursor[MCDS_CTREE_CURSOR_MAX], filter[64];
        size_t seen = 0;
        snprintf(filter, sizeof filter, "counters=%u type=103", cid);
        CHECK_ST(mcds_ctree_values(h, g, root, filter, &v, &n, cursor), MCDS_OK);
        CHECK(n == 2 && cursor[0] == '\0' && v[0].value == 60 + 0 && v[1].value == 41 + 5);
        mcds_ctree_values_free(v);
        cursor[0] = '\0';
        do {
            snprintf(filter, sizeof filter, "count=2%s%s", cursor[0] ? " after=" : "", cursor);
            CHECK_ST(mcds_ctree_values(h, g, root, filter, &v, &n, cursor), MCDS_OK);
            seen += n;
            mcds_ctree_values_free(v);
        } while (cursor[0] != '\0' && seen < 100);
        CHECK(seen == 6);
        CHECK_ST(mcds_ctree_values(h, g, root, "bogus=1", &v, &n, NULL), MCDS_SERVER_ERROR);
        snprintf(filter, sizeof filter, "counters=%u type=104", cid);
        CHECK_ST(mcds_ctree_periods(h, g, filter, &v, &n, NULL), MCDS_OK);
        CHECK(n >= 1 && v[0].key[0] == '\0' && v[0].code == 104);
        mcds_ctree_values_free(v);
    }
    tu_ok("values and periods: filters, continuation with the cursor");

    {
        mcds_item_t *items;
        int more = -1;
        CHECK_ST(mcds_ctree_children(h, g, root, NULL, 1, &items, &n, &more), MCDS_OK);
        CHECK(n == 1 && more == 1 && strcmp(items[0].data, b) == 0);
        mcds_items_free(items);
        CHECK_ST(mcds_ctree_children(h, g, root, b, 10, &items, &n, &more), MCDS_OK);
        CHECK(n == 1 && more == 0 && strcmp(items[0].data, a) == 0);
        mcds_items_free(items);
        CHECK_ST(mcds_ctree_active(h, g, 0, NULL, 10000, &items, &n, &more), MCDS_OK);
        CHECK(n >= 3);
        mcds_items_free(items);
    }
    tu_ok("children with continuation, active objects");

    CHECK_ST(mcds_ctree_delete(h, g, a), MCDS_OK);
    CHECK_ST(mcds_ctree_delete(h, g, a), MCDS_NOT_FOUND);
    CHECK(total(h, g, root, 107, "1") == 5);
    CHECK_ST(mcds_ctree_get(h, g, a, cid, 107, "1", NULL, NULL), MCDS_NOT_FOUND);
    tu_ok("delete: the subtree goes, the ancestors give back what it counted");
}

static void test_many(mcds_t *h)
{
    const char *g = tu_name("many");
    char root[128], a[128], b[128];
    mcds_ctree_limit_t lim = {cid, 103, 10};
    mcds_ctree_refusal_t why;
    mcds_ctree_value_t *v;
    size_t n, failed = 99;
    mcds_ctree_incr_t two[2], big[MCDS_CTREE_INCR_MANY_MAX + 1];
    int i;

    snprintf(root, sizeof root, "%s", g);
    snprintf(a, sizeof a, "%s.a", g);
    snprintf(b, sizeof b, "%s.b", g);
    CHECK_ST(mcds_ctree_create(h, g, root, NULL, 0, NULL, 0), MCDS_OK);
    CHECK_ST(mcds_ctree_create(h, g, a, root, 0, &lim, 1), MCDS_OK);
    CHECK_ST(mcds_ctree_create(h, g, b, root, 0, NULL, 0), MCDS_OK);
    two[0] = (mcds_ctree_incr_t){a, cid, 103, "2021031514", 4};
    two[1] = (mcds_ctree_incr_t){b, cid, 103, "2021031514", 5};
    CHECK_ST(mcds_ctree_incr_many(h, g, two, 2, NULL, NULL, &v, &n), MCDS_OK);
    CHECK(n == 4 && strcmp(v[0].key, a) == 0 && v[0].value == 4 && strcmp(v[1].key, root) == 0 &&
          v[1].value == 9 && strcmp(v[2].key, b) == 0 && v[2].value == 5 && v[3].value == 9);
    mcds_ctree_values_free(v);
    tu_ok("incr_many: applied together, values per increment after the whole request");

    two[0].delta = 1;
    two[1] = (mcds_ctree_incr_t){a, cid, 103, "2021031514", 6};
    memset(&why, 0, sizeof why);
    CHECK_ST(mcds_ctree_incr_many(h, g, two, 2, &why, &failed, NULL, NULL), MCDS_LIMIT);
    CHECK(failed == 1 && strcmp(why.key, a) == 0 && why.code == 103);
    CHECK(total(h, g, root, 103, "2021031514") == 9);
    two[1].object = "nope-object";
    CHECK_ST(mcds_ctree_incr_many(h, g, two, 2, NULL, &failed, NULL, NULL), MCDS_NOT_FOUND);
    CHECK(failed == 1 && total(h, g, root, 103, "2021031514") == 9);
    tu_ok("incr_many: MCDS_LIMIT and MCDS_NOT_FOUND name the increment, nothing changed");

    for (i = 0; i <= MCDS_CTREE_INCR_MANY_MAX; i++)
        big[i] = (mcds_ctree_incr_t){b, cid, 103, "2021031515", 1};
    CHECK_ST(mcds_ctree_incr_many(h, g, big, MCDS_CTREE_INCR_MANY_MAX + 1, NULL, NULL, NULL, NULL), MCDS_INVALID);
    CHECK_ST(mcds_ctree_incr_many(h, g, big, 0, NULL, NULL, NULL, NULL), MCDS_INVALID);
    CHECK_ST(mcds_ctree_incr_many(h, g, big, MCDS_CTREE_INCR_MANY_MAX, NULL, NULL, NULL, NULL), MCDS_OK);
    CHECK(total(h, g, root, 103, "2021031515") == MCDS_CTREE_INCR_MANY_MAX);
    big[0].time = "a b";
    CHECK_ST(mcds_ctree_incr_many(h, g, big, 1, NULL, NULL, NULL, NULL), MCDS_INVALID);
    big[0].time = "20210230";
    CHECK_ST(mcds_ctree_incr_many(h, g, big, 1, NULL, NULL, NULL, NULL), MCDS_SERVER_ERROR);
    tu_ok("incr_many: 1 to 100 increments, bad arguments refused before sending");
}

static void test_arguments(mcds_t *h)
{
    mcds_ctree_value_t *v;
    mcds_item_t *items;
    size_t n;

    CHECK_ST(mcds_ctree_create(h, "g", "has space", NULL, 0, NULL, 0), MCDS_INVALID);
    CHECK_ST(mcds_ctree_create(h, "g", NULL, NULL, 0, NULL, 0), MCDS_INVALID);
    CHECK_ST(mcds_ctree_create(h, "g", "x", NULL, -1, NULL, 0), MCDS_INVALID);
    CHECK_ST(mcds_ctree_define(h, 1, NULL, 0, 1, 1), MCDS_INVALID);
    CHECK_ST(mcds_ctree_define(h, 1, hour_types, 5, 1, 0), MCDS_INVALID);
    CHECK_ST(mcds_ctree_incr(h, "g", "x", cid, 103, "20210230", 1, NULL, NULL, NULL), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "bad time or period") != NULL);
    CHECK_ST(mcds_ctree_incr(h, "g", "nope-object", cid, 103, "2021010100", 1, NULL, NULL, NULL), MCDS_NOT_FOUND);
    CHECK_ST(mcds_ctree_values(h, "g", "x", "a\r\nflush_all", &v, &n, NULL), MCDS_INVALID);
    CHECK_ST(mcds_ctree_children(h, "g", "x", NULL, 0, &items, &n, NULL), MCDS_INVALID);
    CHECK_ST(mcds_ctree_limits(h, "g", "x", 1, NULL, 0, -1), MCDS_INVALID);
    tu_ok("bad arguments: MCDS_INVALID before sending; server refusals mapped");
}

/* In a pool, each group's tree lives on the server of its group key. */
static void test_pool(mcds_t *h)
{
    int i;

    for (i = 0; i < 12; i++) {
        char g[64], leaf[80];
        snprintf(g, sizeof g, "%s", tu_name("pool"));
        snprintf(leaf, sizeof leaf, "%s.leaf", g);
        CHECK_ST(mcds_ctree_create(h, g, g, NULL, 0, NULL, 0), MCDS_OK);
        CHECK_ST(mcds_ctree_create(h, g, leaf, g, 0, NULL, 0), MCDS_OK);
        CHECK_ST(mcds_ctree_incr(h, g, leaf, cid, 103, "2021010100", i + 1, NULL, NULL, NULL), MCDS_OK);
        CHECK(total(h, g, g, 107, "1") == i + 1);
    }
    tu_ok("pool: 12 trees, each on its group's server, each rolls up to its root");
}

static void test_unsupported(mcds_t *h)
{
    CHECK_ST(mcds_ctree_define(h, 1, hour_types, 5, 1, 1), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_ctree_create(h, "g", "x", NULL, 0, NULL, 0), MCDS_UNSUPPORTED);
    CHECK_ST(mcds_ctree_incr(h, "g", "x", 1, 103, "2021010100", 1, NULL, NULL, NULL), MCDS_UNSUPPORTED);
    tu_ok("stock memcached: MCDS_UNSUPPORTED");
}

int main(int argc, char **argv)
{
    const char *mode = getenv("MCDS_TEST_CTREE");
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    cid = 1000 + 3 * (uint32_t)(getpid() % 1000000);
    if (mode != NULL && strcmp(mode, "unsupported") == 0) {
        test_unsupported(h);
    } else {
        test_define(h);
        test_tree(h);
        test_many(h);
        test_arguments(h);
        if (strchr(servers, ',') != NULL)
            test_pool(h);
    }
    mcds_close(h);
    return 0;
}
