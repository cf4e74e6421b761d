/*
 * lock.c - libmcds example: a lock shared by processes.
 *
 *   ./lock [host:port[,host:port...]]      (default 127.0.0.1:11211)
 *
 * Takes the lock "example-lock" (waiting up to 5 s), shows that a second
 * taker is refused, extends the lock, and releases it. Only the owner's
 * release works: a lock that expired and was taken by someone else is
 * never released by mistake.
 */
#include <stdio.h>

#include <mcds.h>

static int check(mcds_status_t st, const char *what)
{
    if (st != MCDS_OK)
        fprintf(stderr, "%s: %s\n", what, mcds_strerror(st));
    return st == MCDS_OK;
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    mcds_t *h;
    mcds_lock_t *lock, *other;
    int ok = 0;

    if (!check(mcds_open(&h, servers), "mcds_open"))
        return 1;
    if (check(mcds_lock_new(h, "example-lock", 10, &lock), "mcds_lock_new") &&
        check(mcds_lock_new(h, "example-lock", 10, &other), "mcds_lock_new")) {
        if (check(mcds_lock_acquire(lock, 5000), "mcds_lock_acquire")) {
            printf("held the lock, owner token %s\n", mcds_lock_token(lock));
            printf("a second taker gets: %s\n",
                   mcds_strerror(mcds_lock_try(other)));
            ok = check(mcds_lock_extend(lock, 30), "mcds_lock_extend") &&
                 check(mcds_lock_release(lock), "mcds_lock_release");
            printf("released; a release by a non-owner gets: %s\n",
                   mcds_strerror(mcds_lock_release(other)));
        }
        mcds_lock_free(lock);
        mcds_lock_free(other);
    }
    mcds_close(h);
    return ok ? 0 : 1;
}
