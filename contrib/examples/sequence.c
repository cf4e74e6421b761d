/*
 * sequence.c - libmcds example: unique IDs across processes.
 *
 *   ./sequence [host:port[,host:port...]]  (default 127.0.0.1:11211)
 *
 * Takes ten IDs from the sequence "example-ids", reserving them in blocks
 * of 100 (one server round trip per block). Run it twice at once: the two
 * processes never print the same ID.
 */
#include <inttypes.h>
#include <stdio.h>

#include <mcds.h>

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    mcds_t *h;
    mcds_seq_t *seq;
    mcds_status_t st;
    uint64_t id;
    int i;

    st = mcds_open(&h, servers);
    if (st == MCDS_OK)
        st = mcds_seq_new(h, "example-ids", 100, &seq);
    for (i = 0; st == MCDS_OK && i < 10; i++) {
        st = mcds_seq_next(seq, &id);
        if (st == MCDS_OK)
            printf("id %" PRIu64 "\n", id);
    }
    if (st != MCDS_OK)
        fprintf(stderr, "sequence: %s\n", mcds_strerror(st));
    else
        mcds_seq_free(seq);
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
