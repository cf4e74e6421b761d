/*
 * table_bench.h: what table_bench.c (the workload and the run) and its
 * drivers, one file per system (tbench_mcds.c, tbench_tarantool.c,
 * tbench_redis.c, tbench_pg.c), share: the rows, a request and its
 * answer, and the driver interface.
 */
#ifndef TABLE_BENCH_H
#define TABLE_BENCH_H

#include <stdint.h>

#define TB_RES_MAX 4096                 /* ids a reply may carry (scan) */
#define TB_BATCH 1000                   /* rows a load step sends */

enum tb_op { OP_INSERT, OP_GET, OP_P10, OP_P100, OP_RANGE, OP_UPDATE, OP_SCAN, OP_GETSCAN, OP_N };

/* Row id of the table: table_bench.c says how each field follows from id. */
struct tb_row {
    long long id, a, c;
    char b[16], d[104];
};

/* One request: the operation and its arguments. */
struct tb_req {
    enum tb_op op;
    long long id, key, c;               /* row id; a (p100), c lower bound (range); new c */
    char b[16], scan[3];
};

/* Its answer, as every driver reports it. */
struct tb_res {
    long n;                             /* rows (or ids) answered, updated rows */
    long long ids[TB_RES_MAX];
    long long cs[TB_RES_MAX];           /* c of each row (selections) */
};

/* Row id, whole. */
void tb_row(long long id, struct tb_row *r);

/* A system: connections (void *) and what they do. */
struct tb_driver {
    const char *name;
    void *(*open)(const char *addr);    /* NULL when it cannot connect */
    void (*close)(void *c);
    int (*create)(void *c);             /* (re)creates the empty table */
    int (*ready)(void *c);              /* once the table exists */
    int (*load)(void *c, long long from, long long to);  /* rows [from, to) */
    int (*request)(void *c, const struct tb_req *q, struct tb_res *r);
    long long (*mem)(void *c);          /* the server's own count of the table's bytes */
};

extern const struct tb_driver tb_mcds, tb_tarantool, tb_redis, tb_pg;

#endif /* TABLE_BENCH_H */
