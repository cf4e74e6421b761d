/*
 * tbench_pg.c: table_bench's PostgreSQL driver, through libpq: a table
 * with btree composite indexes (b text COLLATE "C", so that its order is
 * bytewise), loaded with COPY, each request one prepared statement.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"
#include "table_bench.h"

/* ---- PostgreSQL: prepared statements ---- */

static const char pg_schema[] =
    "DROP TABLE IF EXISTS rows;"
    "CREATE TABLE rows (id bigint PRIMARY KEY, a bigint NOT NULL, b text COLLATE \"C\" NOT NULL,"
    "                   c bigint NOT NULL, d text NOT NULL);"
    "CREATE INDEX rows_ab ON rows (a, b);"
    "CREATE INDEX rows_c ON rows (c, id);"
    "CREATE INDEX rows_bca ON rows (b, c, a);";

static const char *const pg_sql[OP_N] = {
    "INSERT INTO rows VALUES ($1, $2, $3, $4, $5)",
    "SELECT id, a, b, c, d FROM rows WHERE a = $1 AND b = $2 ORDER BY a, b LIMIT 10",
    "SELECT id, a, b, c, d FROM rows WHERE b = $1 ORDER BY b, c, a LIMIT 10",
    "SELECT id, a, b, c, d FROM rows WHERE a = $1 ORDER BY a, b LIMIT 100",
    "SELECT id, a, b, c, d FROM rows WHERE c >= $1 AND c < $1 + 50 ORDER BY c, id LIMIT 50",
    "UPDATE rows SET c = $2 WHERE id = $1",
    "SELECT id FROM rows WHERE d LIKE $1",
};

static int pg_ok(PGresult *res, struct tb_res *out)
{
    int st = PQresultStatus(res), ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    long i;

    if (!ok)
        fprintf(stderr, "table_bench: postgres: %s", PQresultErrorMessage(res));
    if (ok && out != NULL && st == PGRES_COMMAND_OK)
        out->n = atol(PQcmdTuples(res));
    if (ok && out != NULL && st == PGRES_TUPLES_OK) {
        out->n = PQntuples(res);
        for (i = 0; i < out->n && i < TB_RES_MAX; i++) {
            out->ids[i] = atoll(PQgetvalue(res, (int)i, 0));
            out->cs[i] = PQnfields(res) > 3 ? atoll(PQgetvalue(res, (int)i, 3)) : 0;
        }
    }
    PQclear(res);
    return ok ? 0 : -1;
}

static int pg_ready(void *conn)
{
    PGconn *c = conn;
    char name[8];
    int k;

    for (k = 0; k < OP_N; k++) {
        if (pg_sql[k] == NULL)          /* getscan: get's and scan's */
            continue;
        snprintf(name, sizeof name, "q%d", k);
        if (pg_ok(PQprepare(c, name, pg_sql[k], 0, NULL), NULL) < 0)
            return -1;
    }
    return 0;
}

/* One COPY of rows [from, to). */
static int pg_copy(PGconn *c, char *buf, long long from, long long to)
{
    PGresult *res = PQexec(c, "COPY rows FROM STDIN");
    int st = PQresultStatus(res);
    struct tb_row row;
    long long id;
    size_t n = 0;

    PQclear(res);
    if (st != PGRES_COPY_IN)
        return -1;
    for (id = from; id < to; id++) {
        tb_row(id, &row);
        n += (size_t)sprintf(buf + n, "%lld\t%lld\t%s\t%lld\t%s\n", row.id, row.a, row.b, row.c, row.d);
    }
    if (PQputCopyData(c, buf, (int)n) != 1 || PQputCopyEnd(c, NULL) != 1)
        return -1;
    st = pg_ok(PQgetResult(c), NULL);
    while ((res = PQgetResult(c)) != NULL)
        PQclear(res);
    return st;
}

static int pg_load(void *conn, long long from, long long to)
{
    PGconn *c = conn;
    char *buf = malloc(TB_BATCH * 200);
    long long id;
    int rc = buf == NULL ? -1 : 0;

    for (id = from; rc == 0 && id < to; id += TB_BATCH)
        rc = pg_copy(c, buf, id, to - id < TB_BATCH ? to : id + TB_BATCH);
    free(buf);
    return rc;
}

static int pg_request(void *conn, const struct tb_req *q, struct tb_res *res)
{
    PGconn *c = conn;
    char name[8], p[5][112];
    const char *params[5] = { p[0], p[1], p[2], p[3], p[4] };
    struct tb_row row;
    int np = 1;

    snprintf(name, sizeof name, "q%d", (int)q->op);
    switch (q->op) {
    case OP_INSERT:
        tb_row(q->id, &row);
        sprintf(p[0], "%lld", row.id);
        sprintf(p[1], "%lld", row.a);
        sprintf(p[2], "%s", row.b);
        sprintf(p[3], "%lld", row.c);
        sprintf(p[4], "%s", row.d);
        np = 5;
        break;
    case OP_GET: sprintf(p[0], "%lld", q->key); sprintf(p[1], "%s", q->b); np = 2; break;
    case OP_P10: sprintf(p[0], "%s", q->b); break;
    case OP_P100: case OP_RANGE: sprintf(p[0], "%lld", q->key); break;
    case OP_UPDATE: sprintf(p[0], "%lld", q->id); sprintf(p[1], "%lld", q->c); np = 2; break;
    case OP_SCAN: sprintf(p[0], "%s%%", q->scan); break;
    default: return -1;
    }
    return pg_ok(PQexecPrepared(c, name, np, params, NULL, NULL, 0), res);
}

static void *pg_open(const char *conninfo)
{
    PGconn *c = PQconnectdb(conninfo);

    if (PQstatus(c) == CONNECTION_OK)
        return c;
    PQfinish(c);
    return NULL;
}

static void pg_close(void *conn)
{
    PQfinish(conn);
}

static int pg_create(void *conn)
{
    return pg_ok(PQexec(conn, pg_schema), NULL);
}

/* The table's and its indexes' relation size. */
static long long pg_mem(void *conn)
{
    PGresult *res = PQexec(conn, "SELECT coalesce(pg_total_relation_size(to_regclass('rows')), 0)");
    long long v = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 ? atoll(PQgetvalue(res, 0, 0)) : -1;

    PQclear(res);
    return v;
}

const struct tb_driver tb_pg = { "postgres", pg_open, pg_close, pg_create, pg_ready, pg_load, pg_request,
                                 pg_mem };
