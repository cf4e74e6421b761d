/*
 * test_trows.c - the table wrappers (mcds_t*, client/trows.c) against
 * mcds-server: create, insert, put, update and delete with versions, get,
 * values of any bytes (spaces, '%', NUL, the bytes "null", empty, NULL)
 * read back as written; selections through an index (eq, ranges, desc,
 * pages continued with mcds_tnext, a cursor closed early); predicate scans
 * over several pages; errors (no table, a refused schema, bad arguments,
 * a line too long); and, given several servers, a pool (each table on the
 * server of its name, its cursor continued there).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define SCAN_ROWS 2500

static const char *servers;

static mcds_tfield_t fld(const char *name, const char *value)
{
    mcds_tfield_t f = { name, value, value != NULL ? strlen(value) : 0 };
    return f;
}

static mcds_item_t val(const char *s)
{
    mcds_item_t v = { s, strlen(s) };
    return v;
}

/* A user row: id, name, city (NULL for none), age. */
static void put_user(mcds_t *h, const char *t, int id, const char *name, const char *city, int age)
{
    char ids[16], ages[16];
    mcds_tfield_t f[4];

    snprintf(ids, sizeof ids, "%d", id);
    snprintf(ages, sizeof ages, "%d", age);
    f[0] = fld("id", ids);
    f[1] = fld("name", name);
    f[2] = fld("city", city);
    f[3] = fld("age", ages);
    CHECK_ST(mcds_tinsert(h, t, f, 4, NULL), MCDS_OK);
}

/* The value of field name in row, as a string ("NULL" for NULL). */
static const char *field_of(const mcds_trow_t *row, const char *name)
{
    const mcds_tfield_t *f = mcds_trow_field(row, name);

    CHECK(f != NULL);
    return f->data != NULL ? f->data : "NULL";
}

/* The names of rows, joined with commas, into out. */
static void names(const mcds_trow_t *rows, size_t n, char *out, size_t size)
{
    size_t i, used = 0;

    out[0] = '\0';
    for (i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", field_of(&rows[i], "name"));
}

static const char *users_schema = "id:int,name:bytes,city:bytes,age:int key=id index=by_city:city+age:desc";

static void test_rows(mcds_t *h)
{
    const char *t = tu_name("users");
    static const char odd[] = "a b%c\0d\r\n";
    mcds_tfield_t f[3];
    mcds_item_t key = val("1");
    mcds_trow_t *row;
    uint64_t v1 = 0, v2 = 0;

    CHECK_ST(mcds_tcreate(h, t, users_schema), MCDS_OK);
    CHECK_ST(mcds_tcreate(h, t, "x:int key=x"), MCDS_EXISTS);
    put_user(h, t, 1, "Alice", "Paris", 34);
    f[0] = fld("id", "1");
    f[1] = fld("name", "Bob");
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_EXISTS);
    CHECK_ST(mcds_tget(h, t, &key, 1, "name,age", &row), MCDS_OK);
    CHECK(row->nfields == 2 && strcmp(field_of(row, "name"), "Alice") == 0 &&
          strcmp(field_of(row, "age"), "34") == 0 && mcds_trow_field(row, "city") == NULL);
    v1 = row->version;
    mcds_trows_free(row);

    /* update with the version read, then with the stale one */
    f[1] = fld("age", "35");
    CHECK_ST(mcds_tupdate(h, t, f, 2, v1, &v2), MCDS_OK);
    CHECK(v2 > v1);
    CHECK_ST(mcds_tupdate(h, t, f, 2, v1, NULL), MCDS_EXISTS);
    f[0] = fld("id", "99");
    CHECK_ST(mcds_tupdate(h, t, f, 2, 0, NULL), MCDS_NOT_FOUND);

    /* any bytes round-trip; NULL, empty and the bytes "null" stay apart */
    f[0] = fld("id", "1");
    f[1].name = "name";
    f[1].data = odd;
    f[1].len = sizeof odd - 1;
    f[2] = fld("city", NULL);
    CHECK_ST(mcds_tput(h, t, f, 3, &v1), MCDS_OK);
    CHECK_ST(mcds_tget(h, t, &key, 1, NULL, &row), MCDS_OK);
    CHECK(row->version == v1 && row->nfields == 4);
    CHECK(mcds_trow_field(row, "name")->len == sizeof odd - 1 &&
          memcmp(mcds_trow_field(row, "name")->data, odd, sizeof odd - 1) == 0);
    CHECK(mcds_trow_field(row, "city")->data == NULL && mcds_trow_field(row, "age")->data == NULL);
    mcds_trows_free(row);
    f[1] = fld("name", "null");
    f[2] = fld("city", "");
    CHECK_ST(mcds_tupdate(h, t, f, 3, 0, NULL), MCDS_OK);
    CHECK_ST(mcds_tget(h, t, &key, 1, NULL, &row), MCDS_OK);
    CHECK(strcmp(field_of(row, "name"), "null") == 0);
    CHECK(mcds_trow_field(row, "city")->data != NULL && mcds_trow_field(row, "city")->len == 0);
    mcds_trows_free(row);

    /* delete: a stale version, then for good */
    CHECK_ST(mcds_tdel(h, t, &key, 1, 1), MCDS_EXISTS);
    CHECK_ST(mcds_tdel(h, t, &key, 1, 0), MCDS_OK);
    CHECK_ST(mcds_tdel(h, t, &key, 1, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tget(h, t, &key, 1, NULL, &row), MCDS_NOT_FOUND);
    CHECK(row == NULL);
    CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    CHECK_ST(mcds_tdrop(h, t), MCDS_NOT_FOUND);

    /* a bytes key may be empty, or read "null": both are values */
    CHECK_ST(mcds_tcreate(h, t, "k:bytes,v:int key=k"), MCDS_OK);
    f[0] = fld("k", "");
    f[1] = fld("v", "1");
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_OK);
    f[0] = fld("k", "null");
    f[1] = fld("v", "2");
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_OK);
    key = val("");
    CHECK_ST(mcds_tget(h, t, &key, 1, "v", &row), MCDS_OK);
    CHECK(strcmp(field_of(row, "v"), "1") == 0);
    mcds_trows_free(row);
    key = val("null");
    CHECK_ST(mcds_tget(h, t, &key, 1, "v", &row), MCDS_OK);
    CHECK(strcmp(field_of(row, "v"), "2") == 0);
    mcds_trows_free(row);
    key = val("");
    CHECK_ST(mcds_tdel(h, t, &key, 1, 0), MCDS_OK);
    CHECK_ST(mcds_tdel(h, t, &key, 1, 0), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    tu_ok("rows: create, insert, put, update and delete with versions, get, any bytes");
}

/* The first page through index, once its background build is done
 * (MCDS_SERVER_ERROR "index is being built" until then; 5 s at most). */
static mcds_status_t select_built(mcds_t *h, const char *t, const char *index, mcds_trow_t **rows,
                                  size_t *n, mcds_tcursor_t *cur)
{
    int64_t deadline = tu_now_ms() + 5000;
    mcds_status_t st;

    while ((st = mcds_tselect(h, t, index, NULL, rows, n, cur)) == MCDS_SERVER_ERROR &&
           strstr(mcds_last_detail(h), "being built") != NULL && tu_now_ms() < deadline)
        tu_sleep_until(tu_now_ms() + 10);
    return st;
}

static void test_select(mcds_t *h)
{
    const char *t = tu_name("users");
    mcds_item_t paris = val("Paris"), thirty = val("30");
    mcds_tselect_t sel = { 0 };
    mcds_tcursor_t cur;
    mcds_trow_t *rows;
    size_t n;
    char all[256];

    CHECK_ST(mcds_tcreate(h, t, users_schema), MCDS_OK);
    put_user(h, t, 1, "Alice", "Paris", 34);
    put_user(h, t, 2, "Bob", "Paris", 41);
    put_user(h, t, 3, "Carol", "Lyon", 29);
    put_user(h, t, 4, "Dave", "Paris", 30);
    put_user(h, t, 5, "Eve", "Paris", 25);
    put_user(h, t, 6, "Nemo", NULL, 50);

    /* Paris, age >= 30, in the index's order (age descending), 2 a page */
    sel.eq = &paris;
    sel.neq = 1;
    sel.ge = &thirty;
    sel.count = 2;
    sel.fields = "name";
    CHECK_ST(mcds_tselect(h, t, "by_city", &sel, &rows, &n, &cur), MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 2 && strcmp(all, "Bob,Alice") == 0 && cur.id != 0);
    CHECK(rows[0].nfields == 1);
    mcds_trows_free(rows);
    CHECK_ST(mcds_tnext(h, &cur, 0, &rows, &n), MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 1 && strcmp(all, "Dave") == 0);
    mcds_trows_free(rows);
    if (cur.id != 0) {                  /* the page was full: one more, empty */
        CHECK_ST(mcds_tnext(h, &cur, 0, &rows, &n), MCDS_OK);
        CHECK(n == 0 && rows == NULL && cur.id == 0);
    }
    CHECK_ST(mcds_tnext(h, &cur, 0, &rows, &n), MCDS_OK);  /* complete: nothing */
    CHECK(n == 0);

    /* desc: the reverse order; a cursor closed early is gone */
    sel.desc = 1;
    sel.count = 1;
    CHECK_ST(mcds_tselect(h, t, "by_city", &sel, &rows, &n, &cur), MCDS_OK);
    CHECK(n == 1 && strcmp(field_of(&rows[0], "name"), "Dave") == 0 && cur.id != 0);
    mcds_trows_free(rows);
    {
        mcds_tcursor_t copy = cur;
        CHECK_ST(mcds_tclose(h, &cur), MCDS_OK);
        CHECK(cur.id == 0);
        CHECK_ST(mcds_tnext(h, &copy, 0, &rows, &n), MCDS_NOT_FOUND);
        CHECK_ST(mcds_tclose(h, &copy), MCDS_NOT_FOUND);
    }

    /* nocursor: the first page, no cursor to close */
    sel.desc = 0;
    sel.count = 2;
    sel.nocursor = 1;
    CHECK_ST(mcds_tselect(h, t, "by_city", &sel, &rows, &n, &cur), MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 2 && strcmp(all, "Bob,Alice") == 0 && cur.id == 0);
    mcds_trows_free(rows);

    /* NULLs are selected with eq of NULL; the primary key walks all */
    memset(&sel, 0, sizeof sel);
    paris.data = NULL;
    paris.len = 0;
    sel.eq = &paris;
    sel.neq = 1;
    CHECK_ST(mcds_tselect(h, t, "by_city", &sel, &rows, &n, &cur), MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 1 && strcmp(all, "Nemo") == 0 && cur.id == 0);
    mcds_trows_free(rows);
    CHECK_ST(mcds_tselect(h, t, "primary", NULL, &rows, &n, &cur), MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 6 && strcmp(all, "Alice,Bob,Carol,Dave,Eve,Nemo") == 0 && cur.id == 0);
    mcds_trows_free(rows);
    CHECK_ST(mcds_tselect(h, t, "by_name", NULL, &rows, &n, &cur), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "no such index") != NULL);

    /* an index added later, used once built, dropped */
    CHECK_ST(mcds_tindex(h, t, "by_name", "name:desc"), MCDS_OK);
    CHECK(select_built(h, t, "by_name", &rows, &n, &cur) == MCDS_OK);
    names(rows, n, all, sizeof all);
    CHECK(n == 6 && strcmp(all, "Nemo,Eve,Dave,Carol,Bob,Alice") == 0);
    mcds_trows_free(rows);
    CHECK_ST(mcds_tdropindex(h, t, "by_name"), MCDS_OK);
    CHECK_ST(mcds_tdropindex(h, t, "by_name"), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tindex(h, t, "bad name", "name"), MCDS_INVALID);
    CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    tu_ok("select: eq and a range, pages through tnext, desc, tclose, nocursor, NULLs, the primary key, tindex");
}

static void test_scan(mcds_t *h)
{
    const char *t = tu_name("events");
    mcds_tselect_t opts = { 0 };
    mcds_tcursor_t cur;
    mcds_trow_t *rows;
    size_t n, got = 0, pages = 0, i;
    long long sum = 0, want = 0;
    char ids[16], kind[16];
    mcds_tfield_t f[2];

    CHECK_ST(mcds_tcreate(h, t, "id:int,kind:bytes key=id"), MCDS_OK);
    for (i = 0; i < SCAN_ROWS; i++) {
        snprintf(ids, sizeof ids, "%zu", i);
        snprintf(kind, sizeof kind, i % 7 == 0 ? "click %zu" : "view", i);
        f[0] = fld("id", ids);
        f[1] = fld("kind", kind);
        CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_OK);
        if (i % 7 == 0)
            want += (long long)i;
    }
    opts.count = 50;
    opts.fields = "id";
    CHECK_ST(mcds_tscan(h, t, "kind prefix click", &opts, &rows, &n, &cur), MCDS_OK);
    for (;;) {
        for (i = 0; i < n; i++)
            sum += atoll(field_of(&rows[i], "id"));
        got += n;
        pages++;
        mcds_trows_free(rows);
        if (cur.id == 0)
            break;
        CHECK_ST(mcds_tnext(h, &cur, 0, &rows, &n), MCDS_OK);
    }
    CHECK(got == (SCAN_ROWS + 6) / 7 && sum == want && pages >= got / 50);
    opts.fields = NULL;
    opts.desc = 1;
    CHECK_ST(mcds_tscan(h, t, NULL, &opts, &rows, &n, &cur), MCDS_INVALID);
    opts.desc = 0;
    opts.nocursor = 1;
    CHECK_ST(mcds_tscan(h, t, "kind prefix click", &opts, &rows, &n, &cur), MCDS_OK);
    CHECK(n == 50 && cur.id == 0);
    mcds_trows_free(rows);
    opts.nocursor = 0;
    CHECK_ST(mcds_tscan(h, t, "kind prefix", &opts, &rows, &n, &cur), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "bad predicate") != NULL);
    CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    tu_ok("scan: a predicate over 2,500 rows in pages of 50, every match once; nocursor");
}

static void test_errors(mcds_t *h)
{
    const char *t = tu_name("nosuch");
    static char big[MCDS_TLINE_MAX];
    mcds_tfield_t f[2] = { fld("id", "1"), fld("name", "x") };
    mcds_item_t key = val("1");
    mcds_tcursor_t cur;
    mcds_trow_t *rows;
    size_t n;

    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tget(h, t, &key, 1, NULL, &rows), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tselect(h, t, "primary", NULL, &rows, &n, &cur), MCDS_NOT_FOUND);
    CHECK_ST(mcds_tcreate(h, t, "id:float key=id"), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "bad schema") != NULL);
    CHECK_ST(mcds_tcreate(h, t, users_schema), MCDS_OK);
    f[1] = fld("shoe", "x");
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "no such field") != NULL);
    f[1] = fld("age", "old");
    CHECK_ST(mcds_tput(h, t, f, 2, NULL), MCDS_SERVER_ERROR);
    CHECK(strstr(mcds_last_detail(h), "bad value for age") != NULL);
    /* refused before anything is sent */
    CHECK_ST(mcds_tinsert(h, t, f, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_tinsert(h, "", f, 1, NULL), MCDS_INVALID);
    f[1] = fld("bad name", "x");
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_INVALID);
    CHECK_ST(mcds_tdel(h, t, NULL, 0, 0), MCDS_INVALID);
    CHECK_ST(mcds_tcreate(h, t, "a:int key=a\r\nflush_all"), MCDS_INVALID);
    memset(big, 'x', sizeof big - 1);
    f[1] = fld("name", big);
    CHECK_ST(mcds_tinsert(h, t, f, 2, NULL), MCDS_TOO_LARGE);
    CHECK_ST(mcds_tget(h, t, &key, 1, NULL, &rows), MCDS_NOT_FOUND);  /* nothing stored */
    CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    tu_ok("errors: no table, refused schema and values, bad arguments, a line too long");
}

/* With several servers: each table lives on the server of its name and
 * its cursor is continued there. */
static void test_pool(mcds_t *h)
{
    mcds_tselect_t sel = { 0 };
    mcds_tcursor_t cur;
    mcds_trow_t *rows;
    size_t n, total = 0;
    int i;

    if (strchr(servers, ',') == NULL) {
        tu_ok("pool: skipped (one server)");
        return;
    }
    sel.count = 1;
    for (i = 0; i < 8; i++) {
        const char *t = tu_name("pooled");
        CHECK_ST(mcds_tcreate(h, t, users_schema), MCDS_OK);
        put_user(h, t, 1, "Alice", "Paris", 34);
        put_user(h, t, 2, "Bob", "Paris", 41);
        CHECK_ST(mcds_tselect(h, t, "primary", &sel, &rows, &n, &cur), MCDS_OK);
        mcds_trows_free(rows);
        total += n;
        while (cur.id != 0) {
            CHECK_ST(mcds_tnext(h, &cur, 0, &rows, &n), MCDS_OK);
            mcds_trows_free(rows);
            total += n;
        }
        CHECK_ST(mcds_tdrop(h, t), MCDS_OK);
    }
    CHECK(total == 16);
    tu_ok("pool: 8 tables, each selected through its own server's cursors");
}

int main(int argc, char **argv)
{
    mcds_t *h;

    servers = tu_init(argc, argv, 120);
    h = tu_open(servers);
    test_rows(h);
    test_select(h);
    test_scan(h);
    test_errors(h);
    test_pool(h);
    mcds_close(h);
    return 0;
}
