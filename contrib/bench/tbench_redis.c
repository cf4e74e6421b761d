/*
 * tbench_redis.c: table_bench's Redis driver, through hiredis: a hash per
 * row ("r:<id>": a, b, c, d) and one sorted set per index holding
 * lexicographic composite entries ("ix:ab", "ix:c", "ix:bca": integers as
 * 16 fixed-width digits, 0x00 after bytes, the id last). Lua scripts
 * (EVALSHA) change a row and its entries together and select (ZRANGEBYLEX
 * then HMGET, in one script: one round trip, one consistent view); the
 * scan is SCAN steps of a script that reads each row's d.
 */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"
#include "table_bench.h"

#define TB_INT_BIAS 1000000000000000LL  /* entries: v + bias, 16 digits */

/* ---- Redis: a hash per row, a sorted set per index, Lua scripts ---- */

#define RD_ENC "local function enc(v) return string.format('%016d', tonumber(v) + 1000000000000000) end\n"

static const char rd_lua_insert[] =
    RD_ENC
    "local id, a, b, c, d = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]\n"
    "local k = 'r:' .. id\n"
    "if redis.call('EXISTS', k) == 1 then return 0 end\n"
    "redis.call('HSET', k, 'a', a, 'b', b, 'c', c, 'd', d)\n"
    "local ik, ak, ck = enc(id), enc(a), enc(c)\n"
    "redis.call('ZADD', 'ix:ab', 0, ak .. b .. '\\0' .. ik)\n"
    "redis.call('ZADD', 'ix:c', 0, ck .. ik)\n"
    "redis.call('ZADD', 'ix:bca', 0, b .. '\\0' .. ck .. ak .. ik)\n"
    "return 1\n";

static const char rd_lua_select[] =
    "local e = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))\n"
    "local out = {}\n"
    "for _, x in ipairs(e) do\n"
    "  local id = string.format('%d', tonumber(string.sub(x, -16)) - 1000000000000000)\n"
    "  local h = redis.call('HMGET', 'r:' .. id, 'a', 'b', 'c', 'd')\n"
    "  out[#out + 1] = id; out[#out + 1] = h[1]; out[#out + 1] = h[2]; out[#out + 1] = h[3]; out[#out + 1] = h[4]\n"
    "end\n"
    "return out\n";

static const char rd_lua_update[] =
    RD_ENC
    "local id, nc = ARGV[1], ARGV[2]\n"
    "local k = 'r:' .. id\n"
    "local h = redis.call('HMGET', k, 'a', 'b', 'c')\n"
    "if not h[1] then return 0 end\n"
    "local ik, ak, ock, nck = enc(id), enc(h[1]), enc(h[3]), enc(nc)\n"
    "redis.call('ZREM', 'ix:c', ock .. ik)\n"
    "redis.call('ZADD', 'ix:c', 0, nck .. ik)\n"
    "redis.call('ZREM', 'ix:bca', h[2] .. '\\0' .. ock .. ak .. ik)\n"
    "redis.call('ZADD', 'ix:bca', 0, h[2] .. '\\0' .. nck .. ak .. ik)\n"
    "redis.call('HSET', k, 'c', nc)\n"
    "return 1\n";

static const char rd_lua_scan[] =
    "local r = redis.call('SCAN', ARGV[1], 'MATCH', 'r:*', 'COUNT', 1000)\n"
    "local out = {r[1]}\n"
    "local p = ARGV[2]\n"
    "for _, k in ipairs(r[2]) do\n"
    "  local d = redis.call('HGET', k, 'd')\n"
    "  if d and string.sub(d, 1, #p) == p then out[#out + 1] = string.sub(k, 3) end\n"
    "end\n"
    "return out\n";

struct tb_rd {
    redisContext *c;
    char sha[4][48];                    /* insert, select, update, scan */
};

static int rd_ok(redisReply *r, long *n)
{
    int ok = r != NULL && r->type != REDIS_REPLY_ERROR;

    if (r != NULL && r->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "table_bench: redis answered %s\n", r->str);
    if (ok && n != NULL)
        *n = r->type == REDIS_REPLY_INTEGER ? (long)r->integer : -1;
    freeReplyObject(r);
    return ok ? 0 : -1;
}

static int rd_ready(struct tb_rd *rd)
{
    const char *src[4] = { rd_lua_insert, rd_lua_select, rd_lua_update, rd_lua_scan };
    int k;

    for (k = 0; k < 4; k++) {
        redisReply *r = redisCommand(rd->c, "SCRIPT LOAD %s", src[k]);
        if (r == NULL || r->type != REDIS_REPLY_STRING) {
            rd_ok(r, NULL);
            return -1;
        }
        snprintf(rd->sha[k], sizeof rd->sha[k], "%s", r->str);
        freeReplyObject(r);
    }
    return 0;
}

static void rd_append_insert(struct tb_rd *rd, const struct tb_row *row)
{
    char id[24], a[24], c[24];
    const char *argv[8] = { "EVALSHA", rd->sha[0], "0", id, a, row->b, c, row->d };

    snprintf(id, sizeof id, "%lld", row->id);
    snprintf(a, sizeof a, "%lld", row->a);
    snprintf(c, sizeof c, "%lld", row->c);
    redisAppendCommandArgv(rd->c, 8, argv, NULL);
}

static int rd_load(void *conn, long long from, long long to)
{
    struct tb_rd *rd = conn;
    struct tb_row row;
    long long id, k;
    long n;

    for (id = from; id < to; id += TB_BATCH) {
        long long cnt = to - id < TB_BATCH ? to - id : TB_BATCH;
        for (k = 0; k < cnt; k++) {
            tb_row(id + k, &row);
            rd_append_insert(rd, &row);
        }
        for (k = 0; k < cnt; k++) {
            redisReply *r = NULL;
            if (redisGetReply(rd->c, (void **)&r) != REDIS_OK || rd_ok(r, &n) < 0 || n != 1)
                return -1;
        }
    }
    return 0;
}

static void rd_enc(char *out, long long v)
{
    sprintf(out, "%016lld", v + TB_INT_BIAS);
}

/* The lexicographic bounds of a selection: [min, (max. */
static void rd_bounds(const struct tb_req *q, const char **key, char *min, size_t *nmin, char *max, size_t *nmax)
{
    size_t n = 1;

    min[0] = '[';
    if (q->op == OP_GET || q->op == OP_P100) {
        *key = "ix:ab";
        rd_enc(min + 1, q->key);
        n += 16;
        if (q->op == OP_GET) {
            n += (size_t)sprintf(min + n, "%s", q->b) + 1;  /* with its 0x00 */
        }
    } else if (q->op == OP_P10) {
        *key = "ix:bca";
        n += (size_t)sprintf(min + n, "%s", q->b) + 1;
    } else {
        *key = "ix:c";
        rd_enc(min + 1, q->key);
        n += 16;
    }
    *nmin = n;
    memcpy(max, min, n);
    max[0] = '(';
    if (q->op == OP_RANGE) {
        rd_enc(max + 1, q->key + 50);
        *nmax = n;
    } else {
        max[n] = (char)0xff;
        *nmax = n + 1;
    }
}

static int rd_rows(redisReply *r, struct tb_res *res)
{
    size_t i;

    if (r == NULL || r->type != REDIS_REPLY_ARRAY) {
        rd_ok(r, NULL);
        return -1;
    }
    res->n = (long)(r->elements / 5);
    for (i = 0; i + 4 < r->elements && i / 5 < TB_RES_MAX; i += 5) {
        res->ids[i / 5] = atoll(r->element[i]->str);
        res->cs[i / 5] = r->element[i + 3]->type == REDIS_REPLY_STRING ? atoll(r->element[i + 3]->str) : -1;
    }
    freeReplyObject(r);
    return 0;
}

static int rd_select(struct tb_rd *rd, const struct tb_req *q, struct tb_res *res)
{
    char min[64], max[64], lim[8];
    const char *key = NULL;
    size_t nmin, nmax;
    const char *argv[7];
    size_t lens[7];
    int k;

    rd_bounds(q, &key, min, &nmin, max, &nmax);
    snprintf(lim, sizeof lim, "%d", q->op == OP_P10 ? 10 : q->op == OP_GET ? 10 : q->op == OP_RANGE ? 50 : 100);
    argv[0] = "EVALSHA"; argv[1] = rd->sha[1]; argv[2] = "1"; argv[3] = key;
    argv[4] = min; argv[5] = max; argv[6] = lim;
    for (k = 0; k < 7; k++)
        lens[k] = strlen(argv[k]);
    lens[4] = nmin;
    lens[5] = nmax;
    return rd_rows(redisCommandArgv(rd->c, 7, argv, lens), res);
}

/* The whole predicate scan: SCAN steps of the script until cursor 0. */
static int rd_scan(struct tb_rd *rd, const struct tb_req *q, struct tb_res *res)
{
    char cursor[32] = "0";

    res->n = 0;
    do {
        redisReply *r = redisCommand(rd->c, "EVALSHA %s 0 %s %s", rd->sha[3], cursor, q->scan);
        size_t i;
        if (r == NULL || r->type != REDIS_REPLY_ARRAY || r->elements < 1) {
            rd_ok(r, NULL);
            return -1;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (i = 1; i < r->elements; i++, res->n++)
            if (res->n < TB_RES_MAX)
                res->ids[res->n] = atoll(r->element[i]->str);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    return 0;
}

static int rd_request(void *conn, const struct tb_req *q, struct tb_res *res)
{
    struct tb_rd *rd = conn;
    struct tb_row row;
    redisReply *r = NULL;

    switch (q->op) {
    case OP_INSERT:
        tb_row(q->id, &row);
        rd_append_insert(rd, &row);
        return redisGetReply(rd->c, (void **)&r) == REDIS_OK ? rd_ok(r, &res->n) : -1;
    case OP_UPDATE:
        return rd_ok(redisCommand(rd->c, "EVALSHA %s 0 %lld %lld", rd->sha[2], q->id, q->c), &res->n);
    case OP_SCAN:
        return rd_scan(rd, q, res);
    default:
        return rd_select(rd, q, res);
    }
}

static void *rd_open(const char *addr)
{
    struct tb_rd *rd = calloc(1, sizeof *rd);
    char host[256];
    const char *port = bc_split(addr, host, sizeof host);

    if (rd != NULL && port != NULL && (rd->c = redisConnect(host, atoi(port))) != NULL && !rd->c->err &&
        rd_ready(rd) == 0)
        return rd;
    if (rd != NULL && rd->c != NULL)
        redisFree(rd->c);
    free(rd);
    return NULL;
}

static void rd_close(void *conn)
{
    struct tb_rd *rd = conn;

    redisFree(rd->c);
    free(rd);
}

static int rd_create(void *conn)
{
    struct tb_rd *rd = conn;

    return rd_ok(redisCommand(rd->c, "FLUSHALL"), NULL);
}

static int rd_nothing(void *conn)
{
    (void)conn;
    return 0;
}

/* INFO memory's used_memory. */
static long long rd_mem(void *conn)
{
    struct tb_rd *rd = conn;
    redisReply *r = redisCommand(rd->c, "INFO memory");
    const char *p = r != NULL && r->type == REDIS_REPLY_STRING ? strstr(r->str, "used_memory:") : NULL;
    long long v = p != NULL ? atoll(p + strlen("used_memory:")) : -1;

    freeReplyObject(r);
    return v;
}

const struct tb_driver tb_redis = { "redis", rd_open, rd_close, rd_create, rd_nothing, rd_load, rd_request,
                                    rd_mem };
