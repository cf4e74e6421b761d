/*
 * ctree_bench: the thesis's Table B.1 workload (hierarchical counters: a
 * request of R increments of random leaves, counters and hours, rolled up
 * into day, month, year and all time and into every ancestor) replayed
 * against one system, from C, the same seeded request stream for every
 * system. contrib/bench/ctree_table.sh runs it against mcds, PostgreSQL
 * and Redis side by side (doc/performance.md, "Tree counters").
 *
 *   ctree_bench mcds HOST:PORT | redis HOST:PORT | postgres CONNINFO
 *               --layers 10,100,1000 --r 10 --conns 1 --seconds 3
 *               [--requests N] [--seed S] [--prefix P] [--setup] [--check]
 *
 * A request is one unit on every system, applied all or none:
 *   mcds      one ctincrn line of R increments (one log record);
 *   redis     one EVALSHA of a script applying the R increments (a script
 *             runs alone: atomic);
 *   postgres  one call of a plpgsql function over arrays of the R
 *             increments (one statement, one transaction, autocommit),
 *             prepared once.
 * Each connection sends its next request when the reply to the last one
 * came (a closed loop); the run lasts --seconds or --requests requests.
 * --setup defines the counters and the objects first; --check then reads
 * back the all-time total of the root objects' counter 1 and compares it
 * with the sum of the deltas the run sent to it (printed as check=ok).
 * Objects are named P<i> (--prefix, default "o"), so that several
 * hierarchies can live in one mcds server side by side.
 * Output: one line, "system conns R requests seconds req_per_s incr_per_s
 * p50_ms p99_ms check".
 */
#include <hiredis/hiredis.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_client.h"

#define CB_COUNTERS 10
#define CB_RMAX 100
#define CB_CONNS_MAX 64
#define CB_LAT_MAX 2000000
#define CB_YEAR0 1609459200L            /* 2021-01-01 00:00:00 UTC */
#define CB_HOURS (365 * 24)

enum cb_system { CB_MCDS, CB_REDIS, CB_PG };

struct cb_opts {
    enum cb_system sys;
    const char *addr;
    int layers[8], nlayers, r, conns, seconds;
    long requests;
    unsigned seed;
    const char *prefix;
    int setup, check;
};

/* One increment of a request. */
struct cb_incr {
    int leaf, counter, delta;
    char hour[11];                      /* YYYYMMDDHH */
};

static struct cb_opts cb;
static long cb_nobjs, cb_first_leaf, cb_nleaves;

/* ---- the tree and the request stream ---- */

/* Object i's parent in the layered tree (-1 for the first layer): as the
 * thesis's generator, child i of a layer of n goes to parent i*m/n of the
 * layer of m above. */
static long cb_parent(long i)
{
    long start = 0, prev_start = -1, prev_n = 0;
    int l;

    for (l = 0; l < cb.nlayers; l++) {
        long n = cb.layers[l];
        if (i < start + n)
            return prev_start < 0 ? -1 : prev_start + (i - start) * prev_n / n;
        prev_start = start;
        prev_n = n;
        start += n;
    }
    return -1;
}

static void cb_request(uint64_t *rng, struct cb_incr *in, int r)
{
    int k;

    for (k = 0; k < r; k++) {
        time_t t = CB_YEAR0 + (time_t)(bc_rand(rng) % CB_HOURS) * 3600;
        struct tm tm;
        gmtime_r(&t, &tm);
        in[k].leaf = (int)(cb_first_leaf + (long)(bc_rand(rng) % (uint64_t)cb_nleaves));
        in[k].counter = 1 + (int)(bc_rand(rng) % CB_COUNTERS);
        in[k].delta = 1 + (int)(bc_rand(rng) % 100);
        strftime(in[k].hour, sizeof in[k].hour, "%Y%m%d%H", &tm);
    }
}

/* ---- mcds: the text protocol over a socket ---- */

/* Sends text and reads one reply line per line sent; -1 unless each is one
 * of the accepted answers. */
static int cb_mcds_lines(struct bc_sock *s, const char *text, size_t n, long lines)
{
    char line[1024];
    long i;

    if (bc_send_all(s->fd, text, n) < 0)
        return -1;
    for (i = 0; i < lines; i++) {
        if (bc_line(s, line, sizeof line) < 0)
            return -1;
        if (strcmp(line, "STORED") != 0 && strcmp(line, "CREATED") != 0 && strcmp(line, "EXISTS") != 0) {
            fprintf(stderr, "ctree_bench: mcds answered %s\n", line);
            return -1;
        }
    }
    return 0;
}

static int cb_mcds_setup(struct bc_sock *s)
{
    char *text = malloc(64 * (size_t)(cb_nobjs + CB_COUNTERS) + 64);
    size_t n = 0;
    long i, lines = 0;
    int rc;

    if (text == NULL)
        return -1;
    for (i = 1; i <= CB_COUNTERS; i++, lines++)
        n += (size_t)sprintf(text + n, "ctdef %ld 103,104,105,106,107\r\n", i);
    for (i = 0; i < cb_nobjs; i++, lines++) {
        long p = cb_parent(i);
        n += p < 0 ? (size_t)sprintf(text + n, "ctobj %s%ld\r\n", cb.prefix, i)
                   : (size_t)sprintf(text + n, "ctobj %s%ld parent=%s%ld\r\n", cb.prefix, i, cb.prefix, p);
    }
    rc = cb_mcds_lines(s, text, n, lines);
    free(text);
    return rc;
}

static int cb_mcds_request(struct bc_sock *s, const struct cb_incr *in, int r)
{
    char text[CB_RMAX * 96 + 32];
    size_t n = (size_t)sprintf(text, "ctincrn");
    int k;

    for (k = 0; k < r; k++)
        n += (size_t)sprintf(text + n, " %s%d %d 103 %s %d", cb.prefix, in[k].leaf, in[k].counter, in[k].hour, in[k].delta);
    n += (size_t)sprintf(text + n, "\r\n");
    return cb_mcds_lines(s, text, n, 1);
}

/* The all-time value of counter 1 in root object i, or -1. */
static long long cb_mcds_total(struct bc_sock *s, long i)
{
    char text[64], line[1024];
    long long v = -1;
    size_t n = (size_t)sprintf(text, "ctget %s%ld 1 107 1\r\n", cb.prefix, i);

    if (bc_send_all(s->fd, text, n) < 0 || bc_line(s, line, sizeof line) < 0 ||
        sscanf(line, "VALUE %*s %*d %*d %*s %lld", &v) != 1 || bc_line(s, line, sizeof line) < 0)
        return -1;
    return v;
}

/* ---- Redis: a script applies a request's increments ---- */

static const char cb_lua[] =
    "local n = #ARGV / 4\n"
    "for k = 0, n - 1 do\n"
    "  local o, c, hour, d = ARGV[4*k+1], ARGV[4*k+2], ARGV[4*k+3], tonumber(ARGV[4*k+4])\n"
    "  local periods = {'103:' .. hour, '104:' .. string.sub(hour, 1, 8), '105:' .. string.sub(hour, 1, 6),\n"
    "                   '106:' .. string.sub(hour, 1, 4), '107:1'}\n"
    "  while o do\n"
    "    for _, p in ipairs(periods) do redis.call('HINCRBY', 'v:' .. o, c .. ':' .. p, d) end\n"
    "    o = redis.call('HGET', 'parent', o)\n"
    "    if not o then break end\n"
    "  end\n"
    "end\n"
    "return 1\n";

struct cb_redis {
    redisContext *c;
    char sha[64];
};

static int cb_redis_reply_ok(redisReply *r)
{
    int ok = r != NULL && r->type != REDIS_REPLY_ERROR;

    if (r != NULL && r->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "ctree_bench: redis answered %s\n", r->str);
    freeReplyObject(r);
    return ok ? 0 : -1;
}

static int cb_redis_load(struct cb_redis *rd)
{
    redisReply *r = redisCommand(rd->c, "SCRIPT LOAD %s", cb_lua);

    if (r == NULL || r->type != REDIS_REPLY_STRING) {
        freeReplyObject(r);
        return -1;
    }
    snprintf(rd->sha, sizeof rd->sha, "%s", r->str);
    freeReplyObject(r);
    return 0;
}

static int cb_redis_setup(struct cb_redis *rd)
{
    long i;

    if (cb_redis_reply_ok(redisCommand(rd->c, "FLUSHALL")) < 0)
        return -1;
    for (i = 0; i < cb_nobjs; i++) {
        long p = cb_parent(i);
        if (p >= 0)
            redisAppendCommand(rd->c, "HSET parent %s%ld %s%ld", cb.prefix, i, cb.prefix, p);
    }
    for (i = 0; i < cb_nobjs; i++) {
        redisReply *r = NULL;
        if (cb_parent(i) >= 0 && (redisGetReply(rd->c, (void **)&r) != REDIS_OK || cb_redis_reply_ok(r) < 0))
            return -1;
    }
    return 0;
}

static int cb_redis_request(struct cb_redis *rd, const struct cb_incr *in, int r)
{
    const char *argv[3 + 4 * CB_RMAX];
    char nums[CB_RMAX][3][48];
    int k, argc = 0;

    argv[argc++] = "EVALSHA";
    argv[argc++] = rd->sha;
    argv[argc++] = "0";
    for (k = 0; k < r; k++) {
        snprintf(nums[k][0], sizeof nums[k][0], "%s%d", cb.prefix, in[k].leaf);
        snprintf(nums[k][1], sizeof nums[k][1], "%d", in[k].counter);
        snprintf(nums[k][2], sizeof nums[k][2], "%d", in[k].delta);
        argv[argc++] = nums[k][0];
        argv[argc++] = nums[k][1];
        argv[argc++] = in[k].hour;
        argv[argc++] = nums[k][2];
    }
    return cb_redis_reply_ok(redisCommandArgv(rd->c, argc, argv, NULL));
}

static long long cb_redis_total(struct cb_redis *rd, long i)
{
    redisReply *r = redisCommand(rd->c, "HGET v:%s%ld 1:107:1", cb.prefix, i);
    long long v = r != NULL && r->type == REDIS_REPLY_STRING ? atoll(r->str) : r != NULL ? 0 : -1;

    freeReplyObject(r);
    return v;
}

/* ---- PostgreSQL: a plpgsql function over arrays, one call a request ---- */

/* The roll-up: a plpgsql walk up the tree (one index lookup a step, as
 * the thesis's baseline) collects every cell the request reaches, then one
 * INSERT upserts them summed and in key order, so that concurrent requests
 * lock rows in one order and never deadlock (a row-at-a-time upsert, the
 * thesis's loop, deadlocks under 8 connections; a recursive CTE gets a
 * plan that scans the objects table at each level). */
static const char cb_pg_schema[] =
    "DROP TABLE IF EXISTS stats; DROP TABLE IF EXISTS objects;"
    "DROP FUNCTION IF EXISTS ct_incr_many;"
    "CREATE TABLE objects (id text PRIMARY KEY, parent text);"
    "CREATE TABLE stats (object text, counter int, ptype int, period text, value bigint NOT NULL,"
    "                    PRIMARY KEY (object, counter, ptype, period));"
    "CREATE FUNCTION ct_incr_many(leaves text[], ctrs int[], hours text[], deltas bigint[]) RETURNS void AS $$\n"
    "DECLARE objs text[] := '{}'; cs int[] := '{}'; hs text[] := '{}'; ds bigint[] := '{}'; o text; k int;\n"
    "BEGIN\n"
    "  FOR k IN 1 .. array_length(leaves, 1) LOOP\n"
    "    o := leaves[k];\n"
    "    WHILE o IS NOT NULL LOOP\n"
    "      objs := objs || o; cs := cs || ctrs[k]; hs := hs || hours[k]; ds := ds || deltas[k];\n"
    "      SELECT parent INTO o FROM objects WHERE id = o;\n"
    "    END LOOP;\n"
    "  END LOOP;\n"
    "  INSERT INTO stats\n"
    "  SELECT u.obj, u.ctr, pt, CASE pt WHEN 103 THEN u.hour WHEN 104 THEN substr(u.hour, 1, 8)\n"
    "         WHEN 105 THEN substr(u.hour, 1, 6) WHEN 106 THEN substr(u.hour, 1, 4) ELSE '1' END, sum(u.delta)\n"
    "    FROM unnest(objs, cs, hs, ds) AS u(obj, ctr, hour, delta)\n"
    "         CROSS JOIN unnest(ARRAY[103, 104, 105, 106, 107]) AS pt\n"
    "   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4\n"
    "  ON CONFLICT (object, counter, ptype, period) DO UPDATE SET value = stats.value + EXCLUDED.value;\n"
    "END $$ LANGUAGE plpgsql;";

static int cb_pg_ok(PGresult *res)
{
    int st = PQresultStatus(res), ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;

    if (!ok)
        fprintf(stderr, "ctree_bench: postgres: %s", PQresultErrorMessage(res));
    PQclear(res);
    return ok ? 0 : -1;
}

static int cb_pg_setup(PGconn *c)
{
    char *sql;
    size_t n = 0;
    long i;
    int rc;

    if (cb_pg_ok(PQexec(c, cb_pg_schema)) < 0)
        return -1;
    if ((sql = malloc(40 * (size_t)cb_nobjs + 64)) == NULL)
        return -1;
    n += (size_t)sprintf(sql, "INSERT INTO objects VALUES ");
    for (i = 0; i < cb_nobjs; i++) {
        long p = cb_parent(i);
        n += p < 0 ? (size_t)sprintf(sql + n, "%s('%s%ld',NULL)", i ? "," : "", cb.prefix, i)
                   : (size_t)sprintf(sql + n, "%s('%s%ld','%s%ld')", i ? "," : "", cb.prefix, i, cb.prefix, p);
    }
    rc = cb_pg_ok(PQexec(c, sql));
    free(sql);
    /* statistics for the planner: without them the roll-up's join walks
     * the objects table for every step up the tree */
    return rc == 0 ? cb_pg_ok(PQexec(c, "ANALYZE objects")) : rc;
}

static int cb_pg_prepare(PGconn *c)
{
    return cb_pg_ok(PQprepare(c, "incr", "SELECT ct_incr_many($1::text[], $2::int[], $3::text[], $4::bigint[])",
                              4, NULL));
}

static int cb_pg_request(PGconn *c, const struct cb_incr *in, int r)
{
    char a[4][CB_RMAX * 48 + 4];
    const char *params[4] = { a[0], a[1], a[2], a[3] };
    size_t n[4] = { 0, 0, 0, 0 };
    int k, i;

    for (i = 0; i < 4; i++)
        a[i][n[i]++] = '{';
    for (k = 0; k < r; k++) {
        const char *sep = k ? "," : "";
        n[0] += (size_t)sprintf(a[0] + n[0], "%s%s%d", sep, cb.prefix, in[k].leaf);
        n[1] += (size_t)sprintf(a[1] + n[1], "%s%d", sep, in[k].counter);
        n[2] += (size_t)sprintf(a[2] + n[2], "%s%s", sep, in[k].hour);
        n[3] += (size_t)sprintf(a[3] + n[3], "%s%d", sep, in[k].delta);
    }
    for (i = 0; i < 4; i++)
        strcpy(a[i] + n[i], "}");
    return cb_pg_ok(PQexecPrepared(c, "incr", 4, params, NULL, NULL, 0));
}

static long long cb_pg_total(PGconn *c, long i)
{
    char sql[128];
    PGresult *res;
    long long v = -1;

    snprintf(sql, sizeof sql, "SELECT coalesce((SELECT value FROM stats WHERE object='%s%ld' AND counter=1 "
             "AND ptype=107 AND period='1'),0)", cb.prefix, i);
    res = PQexec(c, sql);
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
        v = atoll(PQgetvalue(res, 0, 0));
    PQclear(res);
    return v;
}

/* ---- one connection of each system ---- */

struct cb_conn {
    struct bc_sock *sock;
    struct cb_redis redis;
    PGconn *pg;
};

static int cb_open(struct cb_conn *c)
{
    memset(c, 0, sizeof *c);
    if (cb.sys == CB_MCDS) {
        if ((c->sock = calloc(1, sizeof *c->sock)) == NULL)
            return -1;
        c->sock->fd = bc_connect_tcp(cb.addr);
        return c->sock->fd < 0 ? -1 : 0;
    }
    if (cb.sys == CB_REDIS) {
        char host[256];
        const char *port = bc_split(cb.addr, host, sizeof host);
        if (port == NULL)
            return -1;
        c->redis.c = redisConnect(host, atoi(port));
        return c->redis.c == NULL || c->redis.c->err ? -1 : 0;
    }
    c->pg = PQconnectdb(cb.addr);
    return PQstatus(c->pg) == CONNECTION_OK ? 0 : -1;
}

static void cb_close(struct cb_conn *c)
{
    if (c->sock != NULL) {
        close(c->sock->fd);
        free(c->sock);
    }
    if (c->redis.c != NULL)
        redisFree(c->redis.c);
    if (c->pg != NULL)
        PQfinish(c->pg);
}

static int cb_setup(struct cb_conn *c)
{
    return cb.sys == CB_MCDS ? cb_mcds_setup(c->sock) : cb.sys == CB_REDIS ? cb_redis_setup(&c->redis)
                                                                          : cb_pg_setup(c->pg);
}

static int cb_ready(struct cb_conn *c)
{
    return cb.sys == CB_REDIS ? cb_redis_load(&c->redis) : cb.sys == CB_PG ? cb_pg_prepare(c->pg) : 0;
}

static int cb_send_request(struct cb_conn *c, const struct cb_incr *in)
{
    return cb.sys == CB_MCDS ? cb_mcds_request(c->sock, in, cb.r)
           : cb.sys == CB_REDIS ? cb_redis_request(&c->redis, in, cb.r)
                                : cb_pg_request(c->pg, in, cb.r);
}

static long long cb_total(struct cb_conn *c, long i)
{
    return cb.sys == CB_MCDS ? cb_mcds_total(c->sock, i) : cb.sys == CB_REDIS ? cb_redis_total(&c->redis, i)
                                                                             : cb_pg_total(c->pg, i);
}

/* ---- the run ---- */

struct cb_worker {
    pthread_t t;
    int index;
    struct cb_conn conn;
    long done;
    long long *root_sums;               /* counter 1 deltas reaching each root */
    double *lat;
    long nlat;
    int failed;
};

static double cb_deadline;
static long cb_per_conn;

static long cb_root_of(long i)
{
    while (cb_parent(i) >= 0)
        i = cb_parent(i);
    return i;
}

static void *cb_work(void *arg)
{
    struct cb_worker *w = arg;
    struct cb_incr in[CB_RMAX];
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)cb.seed * 1000003u + (uint64_t)w->index * 7919u + 1);
    int k;

    while (w->done < cb_per_conn && bc_now() < cb_deadline) {
        double t0 = bc_now();
        cb_request(&rng, in, cb.r);
        if (cb_send_request(&w->conn, in) < 0) {
            w->failed = 1;
            break;
        }
        if (w->nlat < CB_LAT_MAX)
            w->lat[w->nlat++] = bc_now() - t0;
        for (k = 0; k < cb.r; k++)
            if (in[k].counter == 1)
                w->root_sums[cb_root_of(in[k].leaf)] += in[k].delta;
        w->done++;
    }
    return NULL;
}

/* p50 and p99 of every worker's latencies, in ms. */
static void cb_percentiles(struct cb_worker *w, int n, double *p50, double *p99)
{
    double *lat[CB_CONNS_MAX];
    long nlat[CB_CONNS_MAX];
    int k;

    for (k = 0; k < n; k++) {
        lat[k] = w[k].lat;
        nlat[k] = w[k].nlat;
    }
    bc_percentiles(lat, nlat, n, p50, p99);
}

/* Whether every root's all-time total of counter 1 grew by what was sent. */
static const char *cb_check(struct cb_conn *c, struct cb_worker *w, long long *before)
{
    long i;
    int k;

    for (i = 0; i < cb.layers[0]; i++) {
        long long want = before[i];
        for (k = 0; k < cb.conns; k++)
            want += w[k].root_sums[i];
        if (cb_total(c, i) != want)
            return "MISMATCH";
    }
    return "ok";
}

static int cb_parse_layers(const char *s)
{
    char *end;

    cb.nlayers = 0;
    while (*s != '\0' && cb.nlayers < 8) {
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0)
            return -1;
        cb.layers[cb.nlayers++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return -1;
    }
    return cb.nlayers > 0 ? 0 : -1;
}

static int cb_args(int argc, char **argv)
{
    int i;

    if (argc < 3)
        return -1;
    cb.sys = strcmp(argv[1], "mcds") == 0 ? CB_MCDS : strcmp(argv[1], "redis") == 0 ? CB_REDIS
             : strcmp(argv[1], "postgres") == 0 ? CB_PG : (enum cb_system)-1;
    if ((int)cb.sys < 0)
        return -1;
    cb.addr = argv[2];
    cb.r = 10;
    cb.conns = 1;
    cb.seconds = 3;
    cb.requests = 1L << 40;
    cb.seed = 1;
    cb.prefix = "o";
    if (cb_parse_layers("10,100,1000") < 0)
        return -1;
    for (i = 3; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--setup") == 0) { cb.setup = 1; continue; }
        if (strcmp(a, "--check") == 0) { cb.check = 1; continue; }
        if (v == NULL)
            return -1;
        i++;
        if (strcmp(a, "--layers") == 0) { if (cb_parse_layers(v) < 0) return -1; }
        else if (strcmp(a, "--r") == 0) cb.r = atoi(v);
        else if (strcmp(a, "--conns") == 0) cb.conns = atoi(v);
        else if (strcmp(a, "--seconds") == 0) cb.seconds = atoi(v);
        else if (strcmp(a, "--requests") == 0) cb.requests = atol(v);
        else if (strcmp(a, "--seed") == 0) cb.seed = (unsigned)atoi(v);
        else if (strcmp(a, "--prefix") == 0) cb.prefix = v;
        else return -1;
    }
    return strlen(cb.prefix) < 32 && strspn(cb.prefix, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(cb.prefix) &&
           cb.r >= 1 && cb.r <= CB_RMAX && cb.conns >= 1 && cb.conns <= CB_CONNS_MAX && cb.seconds > 0 ? 0 : -1;
}

static void cb_shape(void)
{
    int l;

    cb_nobjs = 0;
    for (l = 0; l < cb.nlayers; l++)
        cb_nobjs += cb.layers[l];
    cb_nleaves = cb.layers[cb.nlayers - 1];
    cb_first_leaf = cb_nobjs - cb_nleaves;
}

static int cb_run(struct cb_worker *w, struct cb_conn *ctl)
{
    long long *before = calloc((size_t)cb.layers[0], sizeof *before);
    double t0, t1, p50, p99;
    long done = 0, i;
    int k, failed = 0;

    if (before == NULL)
        return 1;
    for (i = 0; cb.check && i < cb.layers[0]; i++)
        before[i] = cb_total(ctl, i);
    cb_per_conn = (cb.requests + cb.conns - 1) / cb.conns;
    t0 = bc_now();
    cb_deadline = t0 + cb.seconds;
    for (k = 0; k < cb.conns; k++)
        pthread_create(&w[k].t, NULL, cb_work, &w[k]);
    for (k = 0; k < cb.conns; k++) {
        pthread_join(w[k].t, NULL);
        done += w[k].done;
        failed |= w[k].failed;
    }
    t1 = bc_now();
    cb_percentiles(w, cb.conns, &p50, &p99);
    printf("%s %d %d %ld %.2f %.0f %.0f %.3f %.3f %s\n", cb.sys == CB_MCDS ? "mcds" : cb.sys == CB_REDIS ? "redis"
           : "postgres", cb.conns, cb.r, done, t1 - t0, (double)done / (t1 - t0), (double)done * cb.r / (t1 - t0),
           p50, p99, failed ? "FAILED" : cb.check ? cb_check(ctl, w, before) : "-");
    free(before);
    return failed;
}

int main(int argc, char **argv)
{
    struct cb_worker *w;
    struct cb_conn ctl;
    int k, rc;

    if (cb_args(argc, argv) < 0) {
        fprintf(stderr, "usage: ctree_bench mcds|redis HOST:PORT | postgres CONNINFO [--layers a,b,c] [--r R]\n"
                        "       [--conns N] [--seconds S] [--requests N] [--seed S] [--prefix P] [--setup] [--check]\n");
        return 64;
    }
    cb_shape();
    if (cb_open(&ctl) < 0 || (cb.setup && cb_setup(&ctl) < 0) || cb_ready(&ctl) < 0) {
        fprintf(stderr, "ctree_bench: cannot connect to or set up %s\n", cb.addr);
        return 1;
    }
    w = calloc((size_t)cb.conns, sizeof *w);
    for (k = 0; w != NULL && k < cb.conns; k++) {
        w[k].index = k;
        w[k].root_sums = calloc((size_t)cb.layers[0], sizeof *w[k].root_sums);
        w[k].lat = malloc(CB_LAT_MAX * sizeof *w[k].lat);
        if (w[k].root_sums == NULL || w[k].lat == NULL || cb_open(&w[k].conn) < 0 || cb_ready(&w[k].conn) < 0) {
            fprintf(stderr, "ctree_bench: cannot open connection %d\n", k);
            return 1;
        }
    }
    rc = w != NULL ? cb_run(w, &ctl) : 1;
    for (k = 0; w != NULL && k < cb.conns; k++) {
        cb_close(&w[k].conn);
        free(w[k].root_sums);
        free(w[k].lat);
    }
    free(w);
    cb_close(&ctl);
    return rc;
}
