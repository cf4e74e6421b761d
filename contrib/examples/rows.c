/*
 * rows.c - libmcds example: an indexed table of users on mcds-server.
 *
 *   ./rows [host:port[,host:port...]]     (default 127.0.0.1:11211)
 *
 * Creates the table "example-users" (id, name, city, age; an index by
 * city, then age descending), inserts four users, reads one back, raises
 * Alice's age with an optimistic update (the version read), selects the
 * Parisians of 30 or more through the index, two a page, finds the users
 * whose name starts with "Ca" with a predicate scan, and drops the table.
 * Needs mcds-server: a stock memcached answers MCDS_UNSUPPORTED.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <mcds.h>

static const char *table = "example-users";

static int check(mcds_status_t st, const char *what)
{
    if (st != MCDS_OK)
        fprintf(stderr, "%s: %s\n", what, mcds_strerror(st));
    return st == MCDS_OK;
}

static mcds_tfield_t field(const char *name, const char *value)
{
    mcds_tfield_t f = { name, value, strlen(value) };
    return f;
}

/* Prints the names of a page of rows. */
static void print_names(const char *what, const mcds_trow_t *rows, size_t n)
{
    size_t i;

    printf("%s:", what);
    for (i = 0; i < n; i++)
        printf(" %s", mcds_trow_field(&rows[i], "name")->data);
    printf("\n");
}

static int add_users(mcds_t *h)
{
    static const char *const users[][4] = { { "1", "Alice", "Paris", "34" }, { "2", "Bob", "Paris", "41" },
                                            { "3", "Carol", "Lyon", "29" }, { "4", "Dave", "Paris", "30" } };
    mcds_tfield_t f[4];
    size_t i;

    for (i = 0; i < 4; i++) {
        f[0] = field("id", users[i][0]);
        f[1] = field("name", users[i][1]);
        f[2] = field("city", users[i][2]);
        f[3] = field("age", users[i][3]);
        if (!check(mcds_tinsert(h, table, f, 4, NULL), "tinsert"))
            return 0;
    }
    return 1;
}

/* Reads Alice, then writes her new age only if nobody wrote her since. */
static int birthday(mcds_t *h)
{
    mcds_item_t key = { "1", 1 };
    mcds_tfield_t f[2] = { field("id", "1"), field("age", "35") };
    mcds_trow_t *row = NULL;
    uint64_t version = 0;
    int ok;

    if (!check(mcds_tget(h, table, &key, 1, "name,age", &row), "tget"))
        return 0;
    printf("%s is %s (version %" PRIu64 ")\n", mcds_trow_field(row, "name")->data,
           mcds_trow_field(row, "age")->data, row->version);
    ok = check(mcds_tupdate(h, table, f, 2, row->version, &version), "tupdate");
    if (ok)
        printf("Alice is 35 now (version %" PRIu64 ")\n", version);
    mcds_trows_free(row);
    return ok;
}

/* Parisians of 30 or more, oldest first, two a page. */
static int parisians(mcds_t *h)
{
    mcds_item_t paris = { "Paris", 5 }, thirty = { "30", 2 };
    mcds_tselect_t sel = { 0 };
    mcds_tcursor_t cur;
    mcds_trow_t *rows = NULL;
    size_t n = 0;

    sel.eq = &paris;
    sel.neq = 1;
    sel.ge = &thirty;
    sel.count = 2;
    sel.fields = "name";
    if (!check(mcds_tselect(h, table, "by_city", &sel, &rows, &n, &cur), "tselect"))
        return 0;
    for (;;) {
        print_names("Paris, 30+, a page", rows, n);
        mcds_trows_free(rows);
        if (cur.id == 0)
            return 1;
        if (!check(mcds_tnext(h, &cur, 0, &rows, &n), "tnext"))
            return 0;
    }
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    mcds_tcursor_t cur;
    mcds_trow_t *rows = NULL;
    size_t n = 0;
    int ok = 0;
    mcds_t *h;

    if (!check(mcds_open(&h, servers), "mcds_open"))
        return 1;
    mcds_tdrop(h, table); /* start afresh (NOT_FOUND is fine) */
    if (!check(mcds_tcreate(h, table, "id:int,name:bytes,city:bytes,age:int key=id "
                                      "index=by_city:city+age:desc"), "tcreate") ||
        !add_users(h) || !birthday(h) || !parisians(h))
        goto out;
    if (!check(mcds_tscan(h, table, "name prefix Ca", NULL, &rows, &n, &cur), "tscan"))
        goto out;
    print_names("names starting with Ca", rows, n);
    mcds_trows_free(rows);
    if (cur.id != 0)
        mcds_tclose(h, &cur);
    ok = check(mcds_tdrop(h, table), "tdrop");
out:
    mcds_close(h);
    return ok ? 0 : 1;
}
