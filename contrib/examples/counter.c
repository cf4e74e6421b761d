/*
 * counter.c - libmcds example: a signed counter.
 *
 *   ./counter [host:port[,host:port...]]   (default 127.0.0.1:11211)
 *
 * Adds and subtracts on the counter "example-counter" (created at 0 on
 * first use, even when many processes start at once) and reads it back.
 */
#include <inttypes.h>
#include <stdio.h>

#include <mcds.h>

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *name = "example-counter";
    mcds_t *h;
    mcds_status_t st;
    int64_t v = 0;

    st = mcds_open(&h, servers);
    if (st == MCDS_OK)
        st = mcds_counter_set(h, name, 0);
    if (st == MCDS_OK)
        st = mcds_counter_incr(h, name, 10, &v);
    if (st == MCDS_OK) {
        printf("after +10: %" PRId64 "\n", v);
        st = mcds_counter_incr(h, name, -25, &v);
    }
    if (st == MCDS_OK) {
        printf("after -25: %" PRId64 "\n", v);
        st = mcds_counter_get(h, name, &v);
    }
    if (st == MCDS_OK)
        printf("get: %" PRId64 "\n", v);
    if (st != MCDS_OK)
        fprintf(stderr, "counter: %s\n", mcds_strerror(st));
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
