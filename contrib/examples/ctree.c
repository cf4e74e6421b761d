/*
 * ctree.c - libmcds example: tree counters on mcds-server (ad spending).
 *
 *   ./ctree [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * Defines counter 1, "spent", stored per hour, day, month, year and all
 * time. Creates campaign:1 with a daily limit of 150 and two ads under it
 * (the campaign's key is the group: the whole tree lives on its server),
 * spends on the ads, shows the campaign's day, sees a spend refused
 * because it would pass the campaign's limit, and prints the year.
 * Needs mcds-server: a stock memcached answers MCDS_UNSUPPORTED.
 */
#include <inttypes.h>
#include <stdio.h>

#include <mcds.h>

static int check(mcds_status_t st, const char *what)
{
    if (st != MCDS_OK && st != MCDS_EXISTS)
        fprintf(stderr, "%s: %s\n", what, mcds_strerror(st));
    return st == MCDS_OK || st == MCDS_EXISTS;
}

static int spend(mcds_t *h, const char *ad, const char *hour, int64_t amount)
{
    mcds_ctree_refusal_t why;
    mcds_status_t st = mcds_ctree_incr(h, "campaign:1", ad, 1, 103, hour,
                                       amount, &why, NULL, NULL);

    if (st == MCDS_LIMIT) {
        printf("refused: %s would pass the limit of %s for %" PRIu32 " %s\n",
               ad, why.key, why.code, why.period);
        return 1;
    }
    if (!check(st, "spend"))
        return 0;
    printf("%s spent %" PRId64 " in hour %s\n", ad, amount, hour);
    return 1;
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *g = "campaign:1";
    const mcds_ctree_type_t types[] = {
        {103, 48, 0}, {104, 0, 0}, {105, 0, 0}, {106, 0, 0}, {107, 0, 0}};
    const mcds_ctree_limit_t daily = {1, 104, 150};
    int64_t v, f;
    mcds_t *h;
    int ok;

    if (!check(mcds_open(&h, servers), "mcds_open"))
        return 1;
    mcds_ctree_delete(h, g, g); /* start afresh (NOT_FOUND is fine) */
    ok = check(mcds_ctree_define(h, 1, types, 5, 1, 1), "define") &&
         check(mcds_ctree_create(h, g, g, NULL, 0, &daily, 1), "campaign") &&
         check(mcds_ctree_create(h, g, "ad:1:1", g, 0, NULL, 0), "ad 1") &&
         check(mcds_ctree_create(h, g, "ad:1:2", g, 0, NULL, 0), "ad 2") &&
         spend(h, "ad:1:1", "@1615802400", 70) &&     /* 2021-03-15 10:00 UTC */
         spend(h, "ad:1:2", "2021031511", 60) &&
         check(mcds_ctree_get(h, g, g, 1, 104, "20210315", &v, &f), "day");
    if (ok)
        printf("%s spent 2021-03-15: %" PRId64 " (limit 150)\n", g, v + f);
    ok = ok && spend(h, "ad:1:2", "2021031512", 40) &&
         check(mcds_ctree_get(h, g, g, 1, 106, "2021", &v, &f), "year");
    if (ok)
        printf("%s 2021: %" PRId64 "\n", g, v + f);
    mcds_ctree_delete(h, g, g);
    mcds_close(h);
    return ok ? 0 : 1;
}
