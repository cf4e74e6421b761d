/*
 * table.c - libmcds example: a set with fast membership, and a hash.
 *
 *   ./table [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * The table "example-admins" answers "is X a member?" with one get; its
 * member list is kept in step. The hash "example-prices" stores a value per
 * field and fetches all of them with one multi-get.
 */
#include <stdio.h>
#include <string.h>

#include <mcds.h>

static mcds_status_t table_demo(mcds_t *h)
{
    const char *t = "example-admins";
    mcds_item_t *members;
    size_t n, i;
    mcds_status_t st = mcds_table_drop(h, t); /* start afresh */

    if (st == MCDS_OK)
        st = mcds_table_add(h, t, "alice", 5);
    if (st == MCDS_OK)
        st = mcds_table_add(h, t, "bob", 3);
    if (st == MCDS_OK) {
        printf("alice is %s\n", mcds_table_has(h, t, "alice", 5) == MCDS_OK
                                    ? "an admin" : "not an admin");
        printf("eve is %s\n", mcds_table_has(h, t, "eve", 3) == MCDS_OK
                                  ? "an admin" : "not an admin");
        st = mcds_table_fetch(h, t, &members, &n);
    }
    if (st == MCDS_OK) {
        for (i = 0; i < n; i++)
            printf("member: %s\n", members[i].data);
        mcds_items_free(members);
    }
    return st;
}

static mcds_status_t hash_demo(mcds_t *h)
{
    const char *name = "example-prices";
    mcds_item_t *pairs;
    size_t n, i, vlen;
    char *value;
    mcds_status_t st = mcds_hash_drop(h, name);

    if (st == MCDS_OK)
        st = mcds_hash_set(h, name, "apple", 5, "1.20", 4);
    if (st == MCDS_OK)
        st = mcds_hash_set(h, name, "pear", 4, "0.90", 4);
    if (st == MCDS_OK)
        st = mcds_hash_get(h, name, "pear", 4, &value, &vlen);
    if (st == MCDS_OK) {
        printf("pear costs %s\n", value);
        mcds_value_free(value);
        st = mcds_hash_fetch(h, name, &pairs, &n);
    }
    if (st == MCDS_OK) {
        for (i = 0; i < n; i++)
            printf("%s = %s\n", pairs[2 * i].data, pairs[2 * i + 1].data);
        mcds_items_free(pairs);
    }
    return st;
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    mcds_t *h;
    mcds_status_t st = mcds_open(&h, servers);

    if (st == MCDS_OK)
        st = table_demo(h);
    if (st == MCDS_OK)
        st = hash_demo(h);
    if (st != MCDS_OK)
        fprintf(stderr, "table: %s\n", mcds_strerror(st));
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
