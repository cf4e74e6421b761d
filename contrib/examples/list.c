/*
 * list.c - libmcds example: a capped activity feed on mcds-server.
 *
 *   ./list [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * Creates the list "example-feed" (at most 1000 entries), pushes events
 * at the head (newest first), reads the latest three, checks and removes
 * one entry by value, trims the feed to its two newest entries, takes the
 * oldest off the tail, and deletes the list. Needs mcds-server: a stock
 * memcached answers MCDS_UNSUPPORTED.
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

static void print_items(const char *what, const mcds_item_t *it, size_t n)
{
    size_t i;

    printf("%s:", what);
    for (i = 0; i < n; i++)
        printf(" [%s]", it[i].data);
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *feed = "example-feed";
    const char *events[] = { "alice joined", "bob liked a photo", "carol commented",
                             "dave joined" };
    mcds_item_t v[4], *it = NULL;
    uint64_t len = 0, gone = 0;
    size_t n = 0, i;
    int found = 0, ok = 0;
    mcds_t *h;

    if (!check(mcds_open(&h, servers), "mcds_open"))
        return 1;
    mcds_list_delete(h, feed); /* start afresh (NOT_FOUND is fine) */
    if (!check(mcds_list_create(h, feed, 1000), "create"))
        goto out;
    for (i = 0; i < 4; i++) {
        v[i].data = events[i];
        v[i].len = strlen(events[i]);
    }
    if (!check(mcds_list_push(h, feed, MCDS_LIST_HEAD, v, 4, &len), "push"))
        goto out;
    printf("feed has %" PRIu64 " entries\n", len);
    if (!check(mcds_list_range(h, feed, 0, 3, &it, &n), "range"))
        goto out;
    print_items("latest 3", it, n);
    mcds_items_free(it);
    it = NULL;
    if (!check(mcds_list_contains(h, feed, "bob liked a photo", 17, &found), "contains") ||
        !check(mcds_list_remove(h, feed, 0, "bob liked a photo", 17, &gone), "remove"))
        goto out;
    printf("bob's like was there: %s; removed %" PRIu64 "\n", found ? "yes" : "no", gone);
    if (!check(mcds_list_trim(h, feed, 0, 2, &gone), "trim"))
        goto out;
    printf("trimmed %" PRIu64 " old entries\n", gone);
    if (!check(mcds_list_pop(h, feed, MCDS_LIST_TAIL, 1, 0, &it, &n), "pop"))
        goto out;
    print_items("oldest taken", it, n);
    ok = check(mcds_list_delete(h, feed), "delete");
out:
    mcds_items_free(it);
    mcds_close(h);
    return ok ? 0 : 1;
}
