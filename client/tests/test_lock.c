/*
 * test_lock.c - the lock: try, acquire with a deadline, release and extend
 * by the owner only, N x M increments guarded by the lock across processes,
 * and takeover after the holder is killed with SIGKILL.
 */
#include <libmemcached/memcached.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define WORKERS 8
#define ROUNDS 150

static char lock_name[128];
static char plain_key[128];

/* Plain get of a decimal counter through the underlying memcached_st. */
static long plain_get(mcds_t *h)
{
    memcached_st *mc = mcds_memcached(h);
    memcached_return_t rc;
    size_t len;
    uint32_t flags;
    char *v = memcached_get(mc, plain_key, strlen(plain_key), &len, &flags,
                            &rc);
    long n;

    if (v == NULL)
        return 0;
    n = strtol(v, NULL, 10);
    free(v);
    return n;
}

static void plain_set(mcds_t *h, long n)
{
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%ld", n);
    memcached_return_t rc = memcached_set(mcds_memcached(h), plain_key,
                                          strlen(plain_key), buf, (size_t)len,
                                          0, 0);
    CHECK(rc == MEMCACHED_SUCCESS);
}

static void test_basics(mcds_t *h)
{
    const char *name = tu_name("lock");
    mcds_lock_t *a, *b, *bad;
    int64_t t0;

    CHECK_ST(mcds_lock_new(h, name, 10, &a), MCDS_OK);
    CHECK_ST(mcds_lock_new(h, name, 10, &b), MCDS_OK);
    CHECK(strcmp(mcds_lock_token(a), "") == 0);
    CHECK_ST(mcds_lock_release(a), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_try(a), MCDS_OK);
    CHECK(strlen(mcds_lock_token(a)) == 32);
    CHECK_ST(mcds_lock_try(b), MCDS_BUSY);
    CHECK_ST(mcds_lock_try(a), MCDS_BUSY); /* not recursive */
    tu_ok("try: the first taker wins, others are BUSY");

    t0 = tu_now_ms();
    CHECK_ST(mcds_lock_acquire(b, 300), MCDS_TIMEOUT);
    CHECK(tu_now_ms() - t0 >= 290 && tu_now_ms() - t0 < 1500);
    tu_ok("acquire gives up at its deadline");

    CHECK_ST(mcds_lock_release(b), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_extend(b, 10), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_try(b), MCDS_BUSY);
    tu_ok("a non-owner cannot release or extend");

    CHECK_ST(mcds_lock_extend(a, 20), MCDS_OK);
    CHECK_ST(mcds_lock_release(a), MCDS_OK);
    CHECK_ST(mcds_lock_release(a), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_acquire(b, 1000), MCDS_OK);
    CHECK_ST(mcds_lock_release(b), MCDS_OK);
    tu_ok("owner extends and releases; the lock is free again");

    CHECK_ST(mcds_lock_new(h, name, 1, &bad), MCDS_INVALID);
    CHECK_ST(mcds_lock_new(h, "", 10, &bad), MCDS_INVALID);
    CHECK_ST(mcds_lock_new(h, NULL, 10, &bad), MCDS_INVALID);
    CHECK(bad == NULL);
    CHECK_ST(mcds_lock_extend(a, 0), MCDS_INVALID);
    tu_ok("bad arguments are MCDS_INVALID");
    mcds_lock_free(a);
    mcds_lock_free(b);
}

/* A holder whose lock vanished (as after its TTL) and was taken by another
 * must not release or extend the new owner's lock. */
static void test_stale_owner(mcds_t *h)
{
    const char *name = tu_name("lock");
    char key[200];
    mcds_lock_t *a, *b, *c;

    snprintf(key, sizeof key, "mcds:lock:%s", name);
    CHECK_ST(mcds_lock_new(h, name, 10, &a), MCDS_OK);
    CHECK_ST(mcds_lock_new(h, name, 10, &b), MCDS_OK);
    CHECK_ST(mcds_lock_new(h, name, 10, &c), MCDS_OK);
    CHECK_ST(mcds_lock_try(a), MCDS_OK);
    CHECK(memcached_delete(mcds_memcached(h), key, strlen(key), 0) ==
          MEMCACHED_SUCCESS);
    CHECK_ST(mcds_lock_try(b), MCDS_OK);
    CHECK_ST(mcds_lock_extend(a, 10), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_release(a), MCDS_NOT_OWNER);
    CHECK_ST(mcds_lock_try(c), MCDS_BUSY);
    CHECK_ST(mcds_lock_release(b), MCDS_OK);
    CHECK_ST(mcds_lock_try(c), MCDS_OK);
    CHECK_ST(mcds_lock_release(c), MCDS_OK);
    tu_ok("a stale owner never releases the new owner's lock");
    mcds_lock_free(a);
    mcds_lock_free(b);
    mcds_lock_free(c);
}

static void counter_worker(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    mcds_lock_t *l;
    int r;
    (void)arg;

    CHECK_ST(mcds_lock_new(h, lock_name, 10, &l), MCDS_OK);
    for (r = 0; r < ROUNDS; r++) {
        long n;
        CHECK_ST(mcds_lock_acquire(l, 20000), MCDS_OK);
        n = plain_get(h);
        if (r % 16 == i % 16)
            usleep(100); /* widen the window a race would need */
        plain_set(h, n + 1);
        CHECK_ST(mcds_lock_release(l), MCDS_OK);
    }
    mcds_lock_free(l);
    mcds_close(h);
}

static void test_guarded_counter(mcds_t *h, const char *servers)
{
    char msg[100];

    snprintf(lock_name, sizeof lock_name, "%s", tu_name("guard"));
    snprintf(plain_key, sizeof plain_key, "%s", tu_name("plain"));
    plain_set(h, 0);
    CHECK(tu_run_workers(WORKERS, counter_worker, servers, NULL) == 0);
    CHECK(plain_get(h) == WORKERS * ROUNDS);
    snprintf(msg, sizeof msg, "%d processes x %d locked get+set = %d",
             WORKERS, ROUNDS, WORKERS * ROUNDS);
    tu_ok(msg);
}

/* The holder takes the lock (TTL 2 s), reports, and is killed with -9. */
static void test_dead_holder(mcds_t *h, const char *servers)
{
    const char *name = tu_name("dead");
    int p[2];
    char token[64] = "";
    pid_t pid;
    mcds_lock_t *l;
    int64_t t0, waited;
    int status;

    CHECK(pipe(p) == 0);
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        mcds_t *ch = tu_open(servers);
        mcds_lock_t *cl;
        close(p[0]);
        CHECK_ST(mcds_lock_new(ch, name, 2, &cl), MCDS_OK);
        CHECK_ST(mcds_lock_acquire(cl, 5000), MCDS_OK);
        CHECK(write(p[1], mcds_lock_token(cl), 32) == 32);
        for (;;)
            pause();
    }
    close(p[1]);
    CHECK(read(p[0], token, 32) == 32);
    close(p[0]);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));

    CHECK_ST(mcds_lock_new(h, name, 2, &l), MCDS_OK);
    CHECK_ST(mcds_lock_try(l), MCDS_BUSY);
    t0 = tu_now_ms();
    CHECK_ST(mcds_lock_acquire(l, 6000), MCDS_OK);
    waited = tu_now_ms() - t0;
    CHECK(waited < 4000);
    CHECK(strcmp(mcds_lock_token(l), token) != 0);
    CHECK_ST(mcds_lock_release(l), MCDS_OK);
    mcds_lock_free(l);
    printf("# takeover after %lld ms\n", (long long)waited);
    tu_ok("a lock whose holder was killed is taken over after its TTL");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);

    test_basics(h);
    test_stale_owner(h);
    test_guarded_counter(h, servers);
    test_dead_holder(h, servers);
    mcds_close(h);
    return 0;
}
