/*
 * test_oparray.c - the append-only op array: "+x"/"-x" replay (the
 * article's example), sharding, compaction with cas, and many writers
 * appending while another process compacts: nothing lost.
 */
#include <libmemcached/memcached.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define WRITERS 8
#define PER_WRITER 1500

static char arr_name[128];
static unsigned arr_shards;

static mcds_item_t *fetch(mcds_oparray_t *a, size_t *count)
{
    mcds_item_t *got;
    CHECK_ST(mcds_oparray_fetch(a, &got, count), MCDS_OK);
    return got;
}

static void expect_list(mcds_oparray_t *a, const char **want, size_t n,
                        int sorted)
{
    size_t count, i;
    mcds_item_t *got = fetch(a, &count);

    CHECK(count == n);
    if (sorted)
        qsort(got, count, sizeof *got, tu_cmp_items);
    for (i = 0; i < n; i++)
        CHECK(got[i].len == strlen(want[i]) &&
              memcmp(got[i].data, want[i], got[i].len) == 0);
    mcds_items_free(got);
}

static void add_s(mcds_oparray_t *a, const char *s)
{
    CHECK_ST(mcds_oparray_add(a, s, strlen(s)), MCDS_OK);
}

static void del_s(mcds_oparray_t *a, const char *s)
{
    CHECK_ST(mcds_oparray_remove(a, s, strlen(s)), MCDS_OK);
}

static void test_replay(mcds_t *h, unsigned shards)
{
    const char *want[] = {"1", "4", "5"};
    const char *want2[] = {"1", "4", "5", "x y"};
    mcds_oparray_t *a;

    CHECK_ST(mcds_oparray_new(h, tu_name("ops"), shards, &a), MCDS_OK);
    expect_list(a, NULL, 0, 0);
    add_s(a, "1");
    add_s(a, "3");
    add_s(a, "4");
    del_s(a, "3");
    add_s(a, "5");
    expect_list(a, want, 3, shards > 1); /* +1 +3 +4 -3 +5 = [1, 4, 5] */
    add_s(a, "x y");
    del_s(a, "nothing");
    add_s(a, "3");
    add_s(a, "3");
    del_s(a, "3");
    expect_list(a, want2, 4, 1);
    CHECK_ST(mcds_oparray_compact(a), MCDS_OK);
    expect_list(a, want2, 4, 1);
    CHECK_ST(mcds_oparray_delete(a), MCDS_OK);
    expect_list(a, NULL, 0, 0);
    mcds_oparray_free(a);
}

/* Size of the raw log of shard 0. */
static size_t raw_size(mcds_t *h, const char *name)
{
    char key[220], group[200];
    size_t len = 0;
    uint32_t flags;
    memcached_return_t rc;
    char *v;

    snprintf(group, sizeof group, "mcds:ops:%s", name);
    snprintf(key, sizeof key, "%s:0", group);
    v = memcached_get_by_key(mcds_memcached(h), group, strlen(group), key,
                             strlen(key), &len, &flags, &rc);
    free(v);
    return v ? len : 0;
}

static void test_compaction(mcds_t *h)
{
    const char *name = tu_name("ops");
    mcds_oparray_t *a;
    char buf[32];
    size_t before, count;
    mcds_item_t *got;
    int i;

    CHECK_ST(mcds_oparray_new(h, name, 1, &a), MCDS_OK);
    mcds_oparray_set_compact_threshold(a, 512);
    for (i = 0; i < 100; i++) {
        snprintf(buf, sizeof buf, "element-%d", i);
        add_s(a, buf);
        if (i % 4 != 0)
            del_s(a, buf);
    }
    before = raw_size(h, name);
    got = fetch(a, &count); /* the fetch compacts */
    CHECK(count == 25);
    CHECK(strcmp(got[0].data, "element-0") == 0);
    CHECK(strcmp(got[24].data, "element-96") == 0);
    mcds_items_free(got);
    CHECK(raw_size(h, name) < before / 4);
    got = fetch(a, &count);
    CHECK(count == 25);
    mcds_items_free(got);
    mcds_oparray_free(a);
    tu_ok("a fetch past the threshold compacts the log with cas");
}

/* Writer i adds "w<i>-<k>" and removes every third one again. */
static void writer(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    mcds_oparray_t *a;
    char buf[32];
    int k;
    (void)arg;

    CHECK_ST(mcds_oparray_new(h, arr_name, arr_shards, &a), MCDS_OK);
    for (k = 0; k < PER_WRITER; k++) {
        snprintf(buf, sizeof buf, "w%d-%d", i, k);
        add_s(a, buf);
        if (k % 3 == 2)
            del_s(a, buf);
    }
    mcds_oparray_free(a);
    mcds_close(h);
}

/* Compacts over and over until the writers are done. */
static void compactor(pid_t writers, const char *servers)
{
    mcds_t *h = tu_open(servers);
    mcds_oparray_t *a;
    int status, rounds = 0;

    CHECK_ST(mcds_oparray_new(h, arr_name, arr_shards, &a), MCDS_OK);
    mcds_oparray_set_compact_threshold(a, 1024);
    while (waitpid(writers, &status, WNOHANG) == 0) {
        size_t count;
        mcds_item_t *got = fetch(a, &count);
        mcds_items_free(got);
        CHECK_ST(mcds_oparray_compact(a), MCDS_OK);
        rounds++;
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    printf("# %d compactions during the appends\n", rounds);
    mcds_oparray_free(a);
    mcds_close(h);
}

static void test_concurrent(mcds_t *h, const char *servers, unsigned shards)
{
    mcds_oparray_t *a;
    mcds_item_t *got;
    size_t count, k, want = 0;
    pid_t pid;
    char buf[32], msg[100];
    int i;

    snprintf(arr_name, sizeof arr_name, "%s", tu_name("cops"));
    arr_shards = shards;
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(tu_run_workers(WRITERS, writer, servers, NULL) ? 1 : 0);
    compactor(pid, servers);

    CHECK_ST(mcds_oparray_new(h, arr_name, shards, &a), MCDS_OK);
    CHECK_ST(mcds_oparray_compact(a), MCDS_OK);
    got = fetch(a, &count);
    qsort(got, count, sizeof *got, tu_cmp_items);
    for (k = 1; k < count; k++)
        CHECK(tu_cmp_items(&got[k], &got[k - 1]) != 0);
    for (i = 0; i < WRITERS; i++) {
        for (k = 0; k < PER_WRITER; k++) {
            mcds_item_t key;
            int found;
            snprintf(buf, sizeof buf, "w%d-%d", i, (int)k);
            key.data = buf;
            key.len = strlen(buf);
            found = bsearch(&key, got, count, sizeof *got, tu_cmp_items) != NULL;
            CHECK(found == (k % 3 != 2));
            want += found;
        }
    }
    CHECK(count == want);
    mcds_items_free(got);
    mcds_oparray_free(a);
    snprintf(msg, sizeof msg,
             "%d writers x %d ops with a compactor, %u shard(s): all present",
             WRITERS, PER_WRITER, shards);
    tu_ok(msg);
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);
    mcds_oparray_t *bad = NULL;

    CHECK_ST(mcds_oparray_new(h, "x", 0, &bad), MCDS_INVALID);
    CHECK_ST(mcds_oparray_new(h, "x", 257, &bad), MCDS_INVALID);
    CHECK(bad == NULL);
    test_replay(h, 1);
    tu_ok("+1 +3 +4 -3 +5 replays to [1, 4, 5]");
    test_replay(h, 4);
    tu_ok("the same over 4 shards");
    test_compaction(h);
    test_concurrent(h, servers, 1);
    test_concurrent(h, servers, 4);
    mcds_close(h);
    return 0;
}
