/*
 * test_array.c - the rarely written array: fetch whole, change (add and
 * remove) atomically with gets/cas, and many processes changing it at once
 * without losing a change.
 */
#include <string.h>

#include "testutil.h"

#define WORKERS 8
#define ROUNDS 40

static char arr_name[128];

static mcds_item_t item(const char *s)
{
    mcds_item_t it;
    it.data = s;
    it.len = strlen(s);
    return it;
}

/* Checks the array is exactly want[0..n) in order. */
static void expect(mcds_t *h, const char *name, const char **want, size_t n)
{
    mcds_item_t *got;
    size_t count, i;

    CHECK_ST(mcds_array_fetch(h, name, &got, &count), MCDS_OK);
    CHECK(count == n);
    for (i = 0; i < n; i++)
        CHECK(got[i].len == strlen(want[i]) &&
              memcmp(got[i].data, want[i], got[i].len) == 0 &&
              got[i].data[got[i].len] == '\0');
    mcds_items_free(got);
}

static void test_basics(mcds_t *h)
{
    const char *name = tu_name("arr");
    const char *abc[] = {"a", "b", "c"}, *ac[] = {"a", "c"};
    const char *acd[] = {"a", "c", "", "d e"};
    mcds_item_t add[3], del[2];

    expect(h, name, NULL, 0);
    add[0] = item("a"), add[1] = item("b"), add[2] = item("c");
    CHECK_ST(mcds_array_change(h, name, add, 3, NULL, 0), MCDS_OK);
    expect(h, name, abc, 3);
    del[0] = item("b"), del[1] = item("zzz");
    CHECK_ST(mcds_array_change(h, name, NULL, 0, del, 2), MCDS_OK);
    expect(h, name, ac, 2);
    add[0] = item(""), add[1] = item("d e");
    CHECK_ST(mcds_array_change(h, name, add, 2, NULL, 0), MCDS_OK);
    expect(h, name, acd, 4);
    tu_ok("change adds and removes; fetch returns the array in order");

    add[0] = item("a");
    del[0] = item("a");
    CHECK_ST(mcds_array_change(h, name, add, 1, del, 1), MCDS_OK);
    {
        const char *want[] = {"c", "", "d e", "a"};
        expect(h, name, want, 4);
    }
    tu_ok("remove applies before add in one change");

    CHECK_ST(mcds_array_delete(h, name), MCDS_OK);
    expect(h, name, NULL, 0);
    CHECK_ST(mcds_array_delete(h, name), MCDS_NOT_FOUND);
    CHECK_ST(mcds_array_change(h, name, NULL, 1, NULL, 0), MCDS_INVALID);
    tu_ok("delete; bad arguments");
}

/* Worker i adds "w<i>-<r>" each round and removes its previous element on
 * odd rounds: the survivors are its odd-round elements. */
static void worker(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    char cur[32], prev[32];
    int r;
    (void)arg;

    mcds_set_retry_timeout(h, 30000);
    for (r = 0; r < ROUNDS; r++) {
        mcds_item_t add, del;
        snprintf(cur, sizeof cur, "w%d-%d", i, r);
        snprintf(prev, sizeof prev, "w%d-%d", i, r - 1);
        add = item(cur);
        del = item(prev);
        CHECK_ST(mcds_array_change(h, arr_name, &add, 1, &del, r % 2), MCDS_OK);
    }
    mcds_close(h);
}

static void test_concurrent(mcds_t *h, const char *servers)
{
    mcds_item_t *got;
    size_t count, k;
    int i, r;
    char buf[32];

    snprintf(arr_name, sizeof arr_name, "%s", tu_name("carr"));
    CHECK(tu_run_workers(WORKERS, worker, servers, NULL) == 0);
    CHECK_ST(mcds_array_fetch(h, arr_name, &got, &count), MCDS_OK);
    CHECK(count == (size_t)WORKERS * ROUNDS / 2);
    qsort(got, count, sizeof *got, tu_cmp_items);
    for (k = 1; k < count; k++)
        CHECK(tu_cmp_items(&got[k], &got[k - 1]) != 0);
    for (i = 0; i < WORKERS; i++) {
        for (r = 1; r < ROUNDS; r += 2) {
            mcds_item_t key;
            snprintf(buf, sizeof buf, "w%d-%d", i, r);
            key = item(buf);
            CHECK(bsearch(&key, got, count, sizeof *got, tu_cmp_items));
        }
    }
    mcds_items_free(got);
    tu_ok("8 processes changing one array: no change lost");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_basics(h);
    test_concurrent(h, servers);
    mcds_close(h);
    return 0;
}
