/*
 * test_threads.c - the documented thread model: one handle per thread
 * (mcds_clone), or a memcached_st borrowed from libmemcached's pool per
 * call (mcds_wrap). 8 threads share a counter, a sequence and a lock; the
 * totals must be exact and the IDs unique.
 */
#include <libmemcached/memcached.h>
#include <libmemcachedutil-1.0/util.h>
#include <pthread.h>
#include <string.h>

#include "testutil.h"

#define THREADS 8
#define INCRS 1000
#define IDS 5000
#define GUARDED 40

static mcds_t *base;
static memcached_pool_st *pool;
static char ctr_name[128], seq_name[128], lock_name[128], pool_ctr[128];
static uint64_t ids[THREADS][IDS];

/* A plain get + set of the counter "guarded", made safe by the lock. */
static void guarded_increment(mcds_t *h, mcds_lock_t *l)
{
    int64_t v = 0;
    mcds_status_t st;

    CHECK_ST(mcds_lock_acquire(l, 20000), MCDS_OK);
    st = mcds_counter_get(h, lock_name, &v);
    CHECK(st == MCDS_OK || st == MCDS_NOT_FOUND);
    CHECK_ST(mcds_counter_set(h, lock_name, v + 1), MCDS_OK);
    CHECK_ST(mcds_lock_release(l), MCDS_OK);
}

static void *clone_thread(void *arg)
{
    int t = (int)(intptr_t)arg, i;
    mcds_t *h = NULL;
    mcds_seq_t *s;
    mcds_lock_t *l;

    CHECK_ST(mcds_clone(&h, base), MCDS_OK);
    CHECK_ST(mcds_seq_new(h, seq_name, 100, &s), MCDS_OK);
    CHECK_ST(mcds_lock_new(h, lock_name, 10, &l), MCDS_OK);
    for (i = 0; i < INCRS; i++)
        CHECK_ST(mcds_counter_incr(h, ctr_name, 1, NULL), MCDS_OK);
    for (i = 0; i < IDS; i++)
        CHECK_ST(mcds_seq_next(s, &ids[t][i]), MCDS_OK);
    for (i = 0; i < GUARDED; i++)
        guarded_increment(h, l);
    mcds_lock_free(l);
    mcds_seq_free(s);
    mcds_close(h);
    return NULL;
}

static void *pool_thread(void *arg)
{
    int i;
    (void)arg;

    for (i = 0; i < INCRS / 2; i++) {
        memcached_return_t rc;
        memcached_st *mc = memcached_pool_fetch(pool, NULL, &rc);
        mcds_t *h = NULL;
        CHECK(mc != NULL);
        CHECK_ST(mcds_wrap(&h, mc), MCDS_OK);
        CHECK_ST(mcds_counter_incr(h, pool_ctr, 1, NULL), MCDS_OK);
        mcds_close(h);
        CHECK(memcached_pool_release(pool, mc) == MEMCACHED_SUCCESS);
    }
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[THREADS];
    int t;

    for (t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0);
    for (t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    uint64_t *all = (uint64_t *)ids;
    size_t k, total = (size_t)THREADS * IDS;
    int64_t v;

    base = tu_open(servers);
    snprintf(ctr_name, sizeof ctr_name, "%s", tu_name("tctr"));
    snprintf(seq_name, sizeof seq_name, "%s", tu_name("tseq"));
    snprintf(lock_name, sizeof lock_name, "%s", tu_name("tlock"));
    snprintf(pool_ctr, sizeof pool_ctr, "%s", tu_name("pctr"));

    run_threads(clone_thread);
    CHECK_ST(mcds_counter_get(base, ctr_name, &v), MCDS_OK);
    CHECK(v == THREADS * INCRS);
    tu_ok("8 threads with cloned handles: exact counter total");
    qsort(all, total, sizeof *all, tu_cmp_u64);
    for (k = 1; k < total; k++)
        CHECK(all[k] != all[k - 1]);
    tu_ok("8 threads x 5000 sequence IDs: no duplicate");
    CHECK_ST(mcds_counter_get(base, lock_name, &v), MCDS_OK);
    CHECK(v == THREADS * GUARDED);
    tu_ok("8 threads: lock-guarded get+set exact");

    pool = memcached_pool_create(mcds_memcached(base), 2, THREADS);
    CHECK(pool != NULL);
    run_threads(pool_thread);
    CHECK(memcached_pool_destroy(pool) == mcds_memcached(base));
    CHECK_ST(mcds_counter_get(base, pool_ctr, &v), MCDS_OK);
    CHECK(v == THREADS * (INCRS / 2));
    tu_ok("8 threads wrapping handles from memcached_pool: exact total");
    mcds_close(base);
    return 0;
}
