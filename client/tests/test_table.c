/*
 * test_table.c - the table (set with shadow keys and a member list) and
 * its hash variant: add/delete/has/fetch, members with any bytes, and
 * membership agreeing with the list after many processes add and delete
 * the same members at once.
 */
#include <string.h>

#include "testutil.h"

#define WORKERS 8
#define ROUNDS 150
#define MEMBERS 20

static char tab_name[128];
static char hash_name[128];

static int listed(const mcds_item_t *v, size_t n, const void *m, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (v[i].len == len && memcmp(v[i].data, m, len) == 0)
            return 1;
    return 0;
}

static void test_table(mcds_t *h)
{
    const char *name = tu_name("tab");
    static const char odd[] = {'a', ' ', ':', '%', 0, '\n', 'z'};
    mcds_item_t *got;
    size_t count;

    CHECK_ST(mcds_table_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 0 && got == NULL);
    CHECK_ST(mcds_table_has(h, name, "a", 1), MCDS_NOT_FOUND);
    CHECK_ST(mcds_table_add(h, name, "a", 1), MCDS_OK);
    CHECK_ST(mcds_table_add(h, name, "a", 1), MCDS_EXISTS);
    CHECK_ST(mcds_table_add(h, name, odd, sizeof odd), MCDS_OK);
    CHECK_ST(mcds_table_add(h, name, "", 0), MCDS_OK);
    CHECK_ST(mcds_table_has(h, name, "a", 1), MCDS_OK);
    CHECK_ST(mcds_table_has(h, name, odd, sizeof odd), MCDS_OK);
    CHECK_ST(mcds_table_has(h, name, odd, 4), MCDS_NOT_FOUND);
    CHECK_ST(mcds_table_has(h, name, "", 0), MCDS_OK);
    CHECK_ST(mcds_table_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 3 && listed(got, count, "a", 1) &&
          listed(got, count, odd, sizeof odd) && listed(got, count, "", 0));
    mcds_items_free(got);
    tu_ok("add, has, fetch; members with spaces, ':', '%', NUL");

    CHECK_ST(mcds_table_delete(h, name, "a", 1), MCDS_OK);
    CHECK_ST(mcds_table_delete(h, name, "a", 1), MCDS_NOT_FOUND);
    CHECK_ST(mcds_table_has(h, name, "a", 1), MCDS_NOT_FOUND);
    CHECK_ST(mcds_table_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 2 && !listed(got, count, "a", 1));
    mcds_items_free(got);
    CHECK_ST(mcds_table_drop(h, name), MCDS_OK);
    CHECK_ST(mcds_table_has(h, name, odd, sizeof odd), MCDS_NOT_FOUND);
    CHECK_ST(mcds_table_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 0);
    tu_ok("delete and drop");

    /* Without escaping, table X's shadow key for member "m" would be the
     * list key of table "X:m:m". */
    {
        char other[200];
        name = tu_name("t");
        snprintf(other, sizeof other, "%s:m:m", name);
        CHECK_ST(mcds_table_add(h, name, "m", 1), MCDS_OK);
        CHECK_ST(mcds_table_fetch(h, other, &got, &count), MCDS_OK);
        CHECK(count == 0);
        CHECK_ST(mcds_table_drop(h, name), MCDS_OK);
    }
    tu_ok("names and members cannot collide");
}

static void test_hash(mcds_t *h)
{
    const char *name = tu_name("hash");
    mcds_item_t *got;
    size_t count, vlen;
    char *value;

    CHECK_ST(mcds_hash_get(h, name, "f1", 2, &value, &vlen), MCDS_NOT_FOUND);
    CHECK_ST(mcds_hash_set(h, name, "f1", 2, "v1", 2), MCDS_OK);
    CHECK_ST(mcds_hash_set(h, name, "f2", 2, "value two", 9), MCDS_OK);
    CHECK_ST(mcds_hash_set(h, name, "f1", 2, "", 0), MCDS_OK);
    CHECK_ST(mcds_hash_get(h, name, "f2", 2, &value, &vlen), MCDS_OK);
    CHECK(vlen == 9 && strcmp(value, "value two") == 0);
    mcds_value_free(value);
    CHECK_ST(mcds_hash_get(h, name, "f1", 2, &value, &vlen), MCDS_OK);
    CHECK(vlen == 0 && value[0] == '\0');
    mcds_value_free(value);
    CHECK_ST(mcds_hash_fields(h, name, &got, &count), MCDS_OK);
    CHECK(count == 2 && strcmp(got[0].data, "f1") == 0 &&
          strcmp(got[1].data, "f2") == 0);
    mcds_items_free(got);
    CHECK_ST(mcds_hash_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 2);
    CHECK(strcmp(got[0].data, "f1") == 0 && got[1].len == 0);
    CHECK(strcmp(got[2].data, "f2") == 0 && strcmp(got[3].data, "value two") == 0);
    mcds_items_free(got);
    tu_ok("hash: set, replace, get, fields, fetch pairs");

    CHECK_ST(mcds_hash_delete(h, name, "f1", 2), MCDS_OK);
    CHECK_ST(mcds_hash_delete(h, name, "f1", 2), MCDS_NOT_FOUND);
    CHECK_ST(mcds_hash_get(h, name, "f1", 2, &value, &vlen), MCDS_NOT_FOUND);
    CHECK_ST(mcds_hash_drop(h, name), MCDS_OK);
    CHECK_ST(mcds_hash_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == 0 && got == NULL);
    tu_ok("hash: delete, drop");
}

static void worker(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    unsigned seed = (unsigned)i * 7919u + 17u;
    char m[16], v[32];
    int r;
    (void)arg;

    mcds_set_retry_timeout(h, 30000);
    for (r = 0; r < ROUNDS; r++) {
        mcds_status_t st;
        seed = seed * 1103515245u + 12345u;
        snprintf(m, sizeof m, "m%u", (seed >> 8) % MEMBERS);
        snprintf(v, sizeof v, "w%d-r%d", i, r);
        if ((seed >> 20) % 3 == 0) {
            st = mcds_table_delete(h, tab_name, m, strlen(m));
            CHECK(st == MCDS_OK || st == MCDS_NOT_FOUND);
            st = mcds_hash_delete(h, hash_name, m, strlen(m));
            CHECK(st == MCDS_OK || st == MCDS_NOT_FOUND);
        } else {
            st = mcds_table_add(h, tab_name, m, strlen(m));
            CHECK(st == MCDS_OK || st == MCDS_EXISTS);
            CHECK_ST(mcds_hash_set(h, hash_name, m, strlen(m), v, strlen(v)),
                     MCDS_OK);
        }
    }
    mcds_close(h);
}

static void test_concurrent(mcds_t *h, const char *servers)
{
    mcds_item_t *list, *pairs;
    size_t count, npairs, k;
    char m[16];
    int j;

    snprintf(tab_name, sizeof tab_name, "%s", tu_name("ctab"));
    snprintf(hash_name, sizeof hash_name, "%s", tu_name("chash"));
    CHECK(tu_run_workers(WORKERS, worker, servers, NULL) == 0);

    CHECK_ST(mcds_table_fetch(h, tab_name, &list, &count), MCDS_OK);
    for (k = 1; k < count; k++)
        CHECK(!listed(list, k, list[k].data, list[k].len));
    for (j = 0; j < MEMBERS; j++) {
        mcds_status_t st;
        snprintf(m, sizeof m, "m%d", j);
        st = mcds_table_has(h, tab_name, m, strlen(m));
        CHECK(st == (listed(list, count, m, strlen(m)) ? MCDS_OK
                                                        : MCDS_NOT_FOUND));
    }
    printf("# table ends with %zu of %d members\n", count, MEMBERS);
    mcds_items_free(list);
    tu_ok("table: membership and list agree after concurrent adds/deletes");

    CHECK_ST(mcds_hash_fields(h, hash_name, &list, &count), MCDS_OK);
    CHECK_ST(mcds_hash_fetch(h, hash_name, &pairs, &npairs), MCDS_OK);
    CHECK(npairs == count);
    for (j = 0; j < MEMBERS; j++) {
        char *value;
        size_t vlen;
        mcds_status_t st;
        snprintf(m, sizeof m, "m%d", j);
        st = mcds_hash_get(h, hash_name, m, strlen(m), &value, &vlen);
        CHECK(st == (listed(list, count, m, strlen(m)) ? MCDS_OK
                                                        : MCDS_NOT_FOUND));
        if (st == MCDS_OK) {
            CHECK(value[0] == 'w');
            mcds_value_free(value);
        }
    }
    mcds_items_free(pairs);
    mcds_items_free(list);
    tu_ok("hash: fields and values agree after concurrent sets/deletes");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_table(h);
    test_hash(h);
    test_concurrent(h, servers);
    mcds_close(h);
    return 0;
}
