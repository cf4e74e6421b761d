/*
 * oparray.c - libmcds example: an array appended to by many writers.
 *
 *   ./oparray [host:port[,host:port...]]   (default 127.0.0.1:11211)
 *
 * The article's example on "example-ops": +1 +3 +4 -3 +5 reads back as
 * [1, 4, 5]. Adds and removes are single appends, never locked; reading
 * replays them, and compaction rewrites the log as its survivors.
 */
#include <stdio.h>
#include <string.h>

#include <mcds.h>

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *ops[] = {"+1", "+3", "+4", "-3", "+5"};
    mcds_oparray_t *arr;
    mcds_item_t *items;
    size_t n, i;
    mcds_t *h;
    mcds_status_t st;

    st = mcds_open(&h, servers);
    if (st == MCDS_OK)
        st = mcds_oparray_new(h, "example-ops", 1, &arr);
    if (st != MCDS_OK) {
        fprintf(stderr, "oparray: %s\n", mcds_strerror(st));
        mcds_close(h);
        return 1;
    }
    st = mcds_oparray_delete(arr); /* start afresh */
    for (i = 0; st == MCDS_OK && i < 5; i++) {
        const char *x = ops[i] + 1;
        if (ops[i][0] == '+')
            st = mcds_oparray_add(arr, x, strlen(x));
        else
            st = mcds_oparray_remove(arr, x, strlen(x));
    }
    if (st == MCDS_OK)
        st = mcds_oparray_compact(arr);
    if (st == MCDS_OK)
        st = mcds_oparray_fetch(arr, &items, &n);
    if (st == MCDS_OK) {
        printf("[");
        for (i = 0; i < n; i++)
            printf("%s%s", i ? ", " : "", items[i].data);
        printf("]\n");
        mcds_items_free(items);
    }
    if (st != MCDS_OK)
        fprintf(stderr, "oparray: %s\n", mcds_strerror(st));
    mcds_oparray_free(arr);
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
