/*
 * array.c - libmcds example: an array read often and changed rarely.
 *
 *   ./array [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * Replaces the array "example-array" by three names, changes it (remove
 * one, add one) in one atomic step, and reads it whole.
 */
#include <stdio.h>
#include <string.h>

#include <mcds.h>

static mcds_item_t item(const char *s)
{
    mcds_item_t it;
    it.data = s;
    it.len = strlen(s);
    return it;
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *name = "example-array";
    mcds_item_t add[3], del[1], *items;
    size_t n, i;
    mcds_t *h;
    mcds_status_t st;

    add[0] = item("alice");
    add[1] = item("bob");
    add[2] = item("carol");
    del[0] = item("bob");
    st = mcds_open(&h, servers);
    if (st == MCDS_OK) {
        st = mcds_array_delete(h, name); /* start afresh */
        if (st == MCDS_NOT_FOUND)
            st = MCDS_OK;
    }
    if (st == MCDS_OK)
        st = mcds_array_change(h, name, add, 3, NULL, 0);
    if (st == MCDS_OK) {
        add[0] = item("dave");
        st = mcds_array_change(h, name, add, 1, del, 1);
    }
    if (st == MCDS_OK)
        st = mcds_array_fetch(h, name, &items, &n);
    if (st == MCDS_OK) {
        for (i = 0; i < n; i++)
            printf("%s\n", items[i].data); /* alice carol dave */
        mcds_items_free(items);
    }
    if (st != MCDS_OK)
        fprintf(stderr, "array: %s\n", mcds_strerror(st));
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
