/*
 * queue.c - libmcds example: a work queue on mcds-server.
 *
 *   ./queue [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * Creates the queue "example-queue" (5 s leases, dead letters after 3
 * deliveries), pushes three jobs (one urgent), takes them, acknowledges
 * two and gives one back, takes it again (its second delivery), prints the
 * queue's counters, waits briefly for more work, and deletes the queue.
 * Needs mcds-server: a stock memcached answers MCDS_UNSUPPORTED.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <mcds.h>

static int check(mcds_status_t st, const char *what)
{
    if (st != MCDS_OK)
        fprintf(stderr, "%s: %s\n", what, mcds_strerror(st));
    return st == MCDS_OK;
}

static int push(mcds_t *h, const char *q, const char *job, uint32_t pri)
{
    uint64_t id;

    if (!check(mcds_queue_push(h, q, job, strlen(job), 0, 0, pri, &id),
               "push"))
        return 0;
    printf("pushed %s (priority %" PRIu32 ")\n", job, pri);
    return 1;
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *q = "example-queue";
    mcds_queue_opts_t opts = {5000, 3, 1000, NULL, 0, 0, 0};
    mcds_queue_msg_t *m = NULL, *again = NULL;
    mcds_queue_stats_t s;
    size_t n = 0, i;
    mcds_t *h;
    int ok = 0;

    if (!check(mcds_open(&h, servers), "mcds_open"))
        return 1;
    mcds_queue_delete(h, q); /* start afresh (NOT_FOUND is fine) */
    if (!check(mcds_queue_create(h, q, &opts), "create"))
        goto out;
    if (!push(h, q, "resize photo 1", MCDS_QUEUE_PRIORITY_DEFAULT) ||
        !push(h, q, "resize photo 2", MCDS_QUEUE_PRIORITY_DEFAULT) ||
        !push(h, q, "send password reset", 1))
        goto out;

    /* take up to 10 jobs, leased for the queue's 5 s */
    if (!check(mcds_queue_pop(h, q, 10, 0, 0, &m, &n), "pop"))
        goto out;
    for (i = 0; i < n; i++)
        printf("got #%" PRIu64 " %s (delivery %" PRIu32 ")\n", m[i].id,
               m[i].data, m[i].deliveries);
    if (n != 3)
        goto out;
    /* the first two are done; the third failed: give it back (by receipt:
     * had a lease run out meanwhile, nothing would change) */
    if (!check(mcds_queue_ack_msg(h, q, &m[0]), "ack") ||
        !check(mcds_queue_ack_msg(h, q, &m[1]), "ack") ||
        !check(mcds_queue_release_msg(h, q, &m[2], 0), "release"))
        goto out;
    printf("acked 2, released 1\n");

    /* a worker takes it again, extends its lease, finishes it */
    if (!check(mcds_queue_pop(h, q, 1, 0, 1000, &again, &n), "pop") || n != 1)
        goto out;
    printf("retry #%" PRIu64 " %s (delivery %" PRIu32 ")\n", again[0].id,
           again[0].data, again[0].deliveries);
    if (!check(mcds_queue_touch_msg(h, q, &again[0], 60000), "touch") ||
        !check(mcds_queue_ack_msg(h, q, &again[0]), "ack"))
        goto out;

    if (!check(mcds_queue_stats(h, q, &s), "stats"))
        goto out;
    printf("stats: pushed %" PRIu64 ", acked %" PRIu64 ", released %" PRIu64
           ", ready %" PRIu64 ", in flight %" PRIu64 ", dead letters to %s\n",
           s.pushed, s.acked, s.released, s.ready, s.in_flight, s.dlq);

    /* nothing left: a blocking pop returns empty after its wait */
    mcds_queue_msgs_free(again);
    again = NULL;
    if (!check(mcds_queue_pop(h, q, 1, 0, 200, &again, &n), "pop"))
        goto out;
    printf("waited 200 ms: %zu job(s)\n", n);
    ok = check(mcds_queue_delete(h, q), "delete");
out:
    mcds_queue_msgs_free(m);
    mcds_queue_msgs_free(again);
    mcds_close(h);
    return ok ? 0 : 1;
}
