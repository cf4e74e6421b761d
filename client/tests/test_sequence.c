/*
 * test_sequence.c - unique IDs: order within one generator, raising the
 * floor, and 8 processes x 100,000 IDs with no duplicate.
 */
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define WORKERS 8
#define PER_WORKER 100000
#define BLOCK 1000

static char seq_name[128];
static char dir[128];

static void test_basics(mcds_t *h)
{
    const char *name = tu_name("seq");
    mcds_seq_t *a, *b, *bad = NULL;
    uint64_t id;
    int i;

    CHECK_ST(mcds_seq_new(h, name, 1, &a), MCDS_OK);
    for (i = 1; i <= 5; i++) {
        CHECK_ST(mcds_seq_next(a, &id), MCDS_OK);
        CHECK(id == (uint64_t)i);
    }
    CHECK_ST(mcds_seq_new(h, name, 10, &b), MCDS_OK);
    CHECK_ST(mcds_seq_next(b, &id), MCDS_OK);
    CHECK(id == 6);
    CHECK_ST(mcds_seq_next(a, &id), MCDS_OK);
    CHECK(id == 16); /* b reserved 6..15 */
    tu_ok("IDs start at 1; a block is reserved whole");

    CHECK_ST(mcds_seq_raise(h, name, 1000), MCDS_OK);
    CHECK_ST(mcds_seq_next(a, &id), MCDS_OK);
    CHECK(id == 1001);
    CHECK_ST(mcds_seq_raise(h, name, 500), MCDS_OK); /* never goes down */
    CHECK_ST(mcds_seq_next(a, &id), MCDS_OK);
    CHECK(id == 1002);
    CHECK_ST(mcds_seq_next(b, &id), MCDS_OK); /* rest of b's block */
    CHECK(id == 7);
    CHECK_ST(mcds_seq_raise(h, tu_name("seq"), 77), MCDS_OK);
    tu_ok("raise moves the floor up, never down");

    CHECK_ST(mcds_seq_new(h, name, 0, &bad), MCDS_INVALID);
    CHECK_ST(mcds_seq_new(h, name, 2000000, &bad), MCDS_INVALID);
    CHECK(bad == NULL);
    mcds_seq_free(a);
    mcds_seq_free(b);
}

static void worker(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    mcds_seq_t *s;
    uint64_t *ids = malloc(PER_WORKER * sizeof *ids);
    char path[200];
    FILE *f;
    int k;
    (void)arg;

    CHECK(ids != NULL);
    CHECK_ST(mcds_seq_new(h, seq_name, BLOCK, &s), MCDS_OK);
    for (k = 0; k < PER_WORKER; k++) {
        CHECK_ST(mcds_seq_next(s, &ids[k]), MCDS_OK);
        CHECK(k == 0 || ids[k] > ids[k - 1]);
    }
    snprintf(path, sizeof path, "%s/w%d", dir, i);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(ids, sizeof *ids, PER_WORKER, f) == PER_WORKER);
    CHECK(fclose(f) == 0);
    free(ids);
    mcds_seq_free(s);
    mcds_close(h);
}

static void test_concurrent(const char *servers)
{
    size_t total = (size_t)WORKERS * PER_WORKER, k;
    uint64_t *all = malloc(total * sizeof *all);
    char path[200];
    int i;

    CHECK(all != NULL);
    snprintf(seq_name, sizeof seq_name, "%s", tu_name("ids"));
    snprintf(dir, sizeof dir, "/tmp/mcds-seq-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    CHECK(tu_run_workers(WORKERS, worker, servers, NULL) == 0);
    for (i = 0; i < WORKERS; i++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/w%d", dir, i);
        f = fopen(path, "rb");
        CHECK(f != NULL);
        CHECK(fread(all + (size_t)i * PER_WORKER, sizeof *all, PER_WORKER,
                    f) == PER_WORKER);
        fclose(f);
        unlink(path);
    }
    rmdir(dir);
    qsort(all, total, sizeof *all, tu_cmp_u64);
    for (k = 1; k < total; k++)
        CHECK(all[k] != all[k - 1]);
    CHECK(all[0] >= 1);
    CHECK(all[total - 1] == total); /* every block used up: no gaps either */
    free(all);
    tu_ok("8 processes x 100000 IDs: no duplicate");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_basics(h);
    test_concurrent(servers);
    mcds_close(h);
    return 0;
}
