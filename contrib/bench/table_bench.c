/*
 * table_bench: issue 31's indexed-table workload replayed against one
 * system, from C, the same seeded request stream for every system.
 * contrib/bench/table_compare.sh runs it against mcds, Tarantool, Redis and
 * PostgreSQL side by side (doc/performance.md, "Indexed tables").
 *
 *   table_bench mcds HOST:PORT | tarantool HOST:PORT | redis HOST:PORT |
 *               postgres CONNINFO
 *               [--rows N] [--conns C] [--seconds S] [--ops LIST] [--load]
 *               [--seed S] [--check]
 *
 * The table: rows (id int, a int, b bytes, c int, d bytes of 32-100 B),
 * primary key id, indexes (a, b), (c, id) and (b, c, a). Row i (0 <= i < N):
 *   a = i % (N / 100)         every a has 100 rows
 *   b = "user-%08x" of a bijection of i / 10     every b has 10 rows
 *   c = i * P mod N (P prime, coprime with N)    c is a permutation of ids
 *   d = 32-100 pseudo-random letters
 * so (a, b) is unique. The operations (--ops, default all, in this order),
 * each a closed loop of --seconds on --conns connections:
 *   insert  a new row (ids N, N+1, ...; c = id), with its three index entries
 *   get     the row of a full (a, b) key, through index (a, b): 1 row
 *   p10     the first 10 rows of a b, through (b, c, a): 10 rows
 *   p100    the first 100 rows of an a, through (a, b): 100 rows
 *   range   the rows with X <= c < X + 50, through (c, id): 50 rows
 *   update  sets a row's c (by id): moves it in (c, id) and (b, c, a)
 *   scan    the ids of every row whose d starts with 2 given letters: a
 *           predicate over the whole table that no index serves (~N/676)
 *   getscan get on every connection but the first, while the first runs
 *           scans back to back: the gets' rate and p99, to set beside
 *           get's (what a full scan costs other clients; --conns >= 2)
 * Selections return whole rows (id, a, b, c, d). --load first creates the
 * table and loads the N rows (batched, on --conns connections: the load is
 * not a measured row). --check verifies every answer: the row of the key,
 * 10 rows of the b, 100 rows of the a, 50 rows of the range, one row
 * updated, and the scan's count against the model (the inserts included).
 *
 * --check assumes the table as --load left it (and this run's writes).
 *
 * How each system does one request (one round trip each; one file per
 * system, tbench_<system>.c, behind the driver of table_bench.h):
 *   mcds      one text-protocol line of the table verbs (doc/protocol.md,
 *             "Tables");
 *   tarantool iproto (MessagePack): INSERT, SELECT on an index with
 *             iterator EQ (or GE and a limit for the range), UPDATE of a
 *             field, and CALL of a Lua function for the scan; the space is
 *             memtx with TREE indexes (table_compare.sh creates it);
 *   redis     one EVALSHA: a hash per row and one sorted set per index
 *             holding lexicographic composite entries (fixed-width
 *             integers, 0x00 after bytes, the id last); the insert and
 *             update scripts change the row and its entries together, the
 *             selection script does ZRANGEBYLEX and HMGET, the scan script
 *             one SCAN step of 1,000 keys (a request is the whole scan);
 *   postgres  prepared statements on a table with btree composite indexes
 *             (b text COLLATE "C" so that its order is bytewise).
 * Output: one line per operation, "system op conns requests seconds
 * req_per_s rows_per_s p50_ms p99_ms check"; --load prints "system load
 * conns rows seconds rows_per_s".
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"
#include "table_bench.h"

#define TB_CONNS_MAX 64
#define TB_LAT_MAX 2000000

static const char *const tb_op_names[OP_N] = { "insert", "get", "p10", "p100", "range", "update", "scan",
                                               "getscan" };
static const struct tb_driver *const tb_drivers[] = { &tb_mcds, &tb_tarantool, &tb_redis, &tb_pg };

struct tb_opts {
    const struct tb_driver *drv;
    const char *addr;
    long rows;
    int conns, seconds, load, check;
    int ops[OP_N];
    unsigned seed;
};

static struct tb_opts tb;
static long tb_groups, tb_prime;        /* N / 100 values of a; c's multiplier */
static long tb_next_id;                 /* the next insert's id (atomic) */
static long tb_next_c = -1;             /* the next update's c (atomic, down) */

/* ---- the rows ---- */

static uint64_t tb_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static long long tb_a(long long id) { return id % tb_groups; }

static void tb_b(long long id, char *out)
{
    snprintf(out, 16, "user-%08x", (unsigned)((uint32_t)(id / 10) * 2654435761u));
}

static long long tb_c(long long id) { return id < tb.rows ? (long long)((__int128)id * tb_prime % tb.rows) : id; }

/* d's first two letters (the scan's predicate reads them). */
static void tb_d2(long long id, char *two)
{
    uint64_t h = tb_mix((uint64_t)id ^ 0xd0d0);
    two[0] = (char)('a' + h % 26);
    two[1] = (char)('a' + (h >> 8) % 26);
}

void tb_row(long long id, struct tb_row *r)
{
    uint64_t h = tb_mix((uint64_t)id ^ 0xd0d0);
    int len = 32 + (int)(tb_mix((uint64_t)id) % 69), k;

    r->id = id;
    r->a = tb_a(id);
    r->c = tb_c(id);
    tb_b(id, r->b);
    tb_d2(id, r->d);
    for (k = 2; k < len; k++) {
        if (k % 8 == 2)
            h = tb_mix(h);
        r->d[k] = (char)('a' + (h >> (8 * (k % 8))) % 26);
    }
    r->d[len] = '\0';
}

static long tb_gcd(long x, long y)
{
    while (y != 0) {
        long t = x % y;
        x = y;
        y = t;
    }
    return x;
}

static void tb_shape(void)
{
    tb_groups = tb.rows / 100 > 0 ? tb.rows / 100 : 1;
    for (tb_prime = 1000003; tb_gcd(tb_prime, tb.rows) != 1; tb_prime += 2)
        ;
    tb_next_id = tb.rows;
}

/* ---- a request and its answer ---- */

static void tb_make(uint64_t *rng, enum tb_op op, struct tb_req *q)
{
    memset(q, 0, sizeof *q);
    q->op = op;
    q->id = (long long)(bc_rand(rng) % (uint64_t)tb.rows);
    switch (op) {
    case OP_INSERT:
        q->id = __atomic_fetch_add(&tb_next_id, 1, __ATOMIC_RELAXED);
        break;
    case OP_GET:
        q->key = tb_a(q->id);
        tb_b(q->id, q->b);
        break;
    case OP_P10:
        tb_b(q->id, q->b);
        break;
    case OP_P100:
        q->key = tb_a(q->id);
        break;
    case OP_RANGE:
        q->key = q->id % (tb.rows - 50 > 0 ? tb.rows - 50 : 1);
        break;
    case OP_UPDATE:
        q->c = __atomic_fetch_sub(&tb_next_c, 1, __ATOMIC_RELAXED);
        break;
    case OP_SCAN:
        q->scan[0] = (char)('a' + bc_rand(rng) % 26);
        q->scan[1] = (char)('a' + bc_rand(rng) % 26);
        break;
    default:
        break;
    }
}

static int tb_cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;

    return a < b ? -1 : a > b;
}

/* Whether an answer is right (the selections run before any update). */
static int tb_verify(const struct tb_req *q, struct tb_res *r)
{
    long i;
    char b[16];

    switch (q->op) {
    case OP_INSERT:
    case OP_UPDATE:
        return r->n == 1;
    case OP_GET:
        return r->n == 1 && r->ids[0] == q->id;
    case OP_P10:
        if (r->n != 10)
            return 0;
        qsort(r->ids, 10, sizeof r->ids[0], tb_cmp_ll);
        for (i = 0; i < 10; i++)
            if (r->ids[i] != q->id / 10 * 10 + i)
                return 0;
        return 1;
    case OP_P100:
        for (i = 0; i < r->n; i++)
            if (tb_a(r->ids[i]) != q->key)
                return 0;
        return r->n == 100;
    case OP_RANGE:
        for (i = 0; i < r->n; i++)
            if (tb_c(r->ids[i]) < q->key || tb_c(r->ids[i]) >= q->key + 50 || r->cs[i] != tb_c(r->ids[i]))
                return 0;
        return r->n == (tb.rows < 50 ? tb.rows : 50);
    case OP_SCAN: {
        long long id, want = 0, last = __atomic_load_n(&tb_next_id, __ATOMIC_RELAXED);
        for (id = 0; id < last; id++) {
            tb_d2(id, b);
            want += b[0] == q->scan[0] && b[1] == q->scan[1];
        }
        return r->n == want;
    }
    default:
        return 0;
    }
}

/* ---- the run ----
 *
 * "mem" lines give the server's own count of the bytes the table holds
 * before and after the load: Redis used_memory, Tarantool
 * box.info.memory() data + index, PostgreSQL the table's and its indexes'
 * relation size, mcds tinfo's STAT bytes; -1 if unknown. */

struct tb_worker {
    pthread_t t;
    int index;
    void *conn;
    enum tb_op op;
    long done, rows, bad;
    double *lat;
    long nlat;
    int failed;
    struct tb_res res;
};

static double tb_deadline;

/* The operation worker w runs: getscan is scans on the first connection
 * (not counted) and gets on the others. */
static enum tb_op tb_worker_op(const struct tb_worker *w)
{
    if (w->op != OP_GETSCAN)
        return w->op;
    return w->index == 0 ? OP_SCAN : OP_GET;
}

static void *tb_work(void *arg)
{
    struct tb_worker *w = arg;
    struct tb_req q;
    enum tb_op op = tb_worker_op(w);
    int counted = w->op != OP_GETSCAN || op == OP_GET;
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)tb.seed * 1000003u + (uint64_t)w->index * 7919u +
                                            (uint64_t)w->op * 104729u + 1);

    while (bc_now() < tb_deadline) {
        double t0 = bc_now();
        tb_make(&rng, op, &q);
        w->res.n = -1;
        if (tb.drv->request(w->conn, &q, &w->res) < 0) {
            w->failed = 1;
            break;
        }
        if (!counted)
            continue;
        if (w->nlat < TB_LAT_MAX)
            w->lat[w->nlat++] = bc_now() - t0;
        if (tb.check && !tb_verify(&q, &w->res)) {
            if (w->bad++ == 0)
                fprintf(stderr, "table_bench: %s: a wrong answer to %s (id %lld key %lld b %s): %ld rows\n",
                        tb.drv->name, tb_op_names[q.op], q.id, q.key, q.b, w->res.n);
        }
        w->rows += w->res.n;
        w->done++;
    }
    return NULL;
}

struct tb_loader {
    pthread_t t;
    void *conn;
    long long from, to;
    int failed;
};

static void *tb_load_work(void *arg)
{
    struct tb_loader *l = arg;

    l->failed = tb.drv->load(l->conn, l->from, l->to) < 0;
    return NULL;
}

static int tb_load_all(struct tb_worker *w, void *ctl)
{
    struct tb_loader l[TB_CONNS_MAX];
    double t0 = bc_now(), t1;
    long long before;
    int k, failed = 0;

    if (tb.drv->create(ctl) < 0)
        return -1;
    before = tb.drv->mem(ctl);
    for (k = 0; k < tb.conns; k++) {
        l[k].conn = w[k].conn;
        l[k].from = tb.rows * k / tb.conns;
        l[k].to = tb.rows * (k + 1) / tb.conns;
        pthread_create(&l[k].t, NULL, tb_load_work, &l[k]);
    }
    for (k = 0; k < tb.conns; k++) {
        pthread_join(l[k].t, NULL);
        failed |= l[k].failed;
    }
    t1 = bc_now();
    printf("%s load %d %ld %.2f %.0f%s\n", tb.drv->name, tb.conns, tb.rows, t1 - t0,
           (double)tb.rows / (t1 - t0), failed ? " FAILED" : "");
    printf("%s mem %lld %lld\n", tb.drv->name, before, tb.drv->mem(ctl));
    fflush(stdout);
    return failed ? -1 : 0;
}

/* p50 and p99 of every worker's latencies, in ms. */
static void tb_percentiles(struct tb_worker *w, int n, double *p50, double *p99)
{
    double *lat[TB_CONNS_MAX];
    long nlat[TB_CONNS_MAX];
    int k;

    for (k = 0; k < n; k++) {
        lat[k] = w[k].lat;
        nlat[k] = w[k].nlat;
    }
    bc_percentiles(lat, nlat, n, p50, p99);
}

static int tb_run_op(struct tb_worker *w, enum tb_op op)
{
    double t0, t1, p50, p99;
    long done = 0, rows = 0, bad = 0;
    int k, failed = 0;

    for (k = 0; k < tb.conns; k++) {
        w[k].op = op;
        w[k].done = w[k].rows = w[k].bad = w[k].nlat = 0;
    }
    t0 = bc_now();
    tb_deadline = t0 + tb.seconds;
    for (k = 0; k < tb.conns; k++)
        pthread_create(&w[k].t, NULL, tb_work, &w[k]);
    for (k = 0; k < tb.conns; k++) {
        pthread_join(w[k].t, NULL);
        done += w[k].done;
        rows += w[k].rows;
        bad += w[k].bad;
        failed |= w[k].failed;
    }
    t1 = bc_now();
    tb_percentiles(w, tb.conns, &p50, &p99);
    printf("%s %s %d %ld %.2f %.0f %.0f %.3f %.3f %s\n", tb.drv->name, tb_op_names[op], tb.conns, done,
           t1 - t0, (double)done / (t1 - t0), (double)rows / (t1 - t0), p50, p99,
           failed ? "FAILED" : !tb.check ? "-" : bad ? "WRONG" : "ok");
    fflush(stdout);
    return failed || bad;
}

static int tb_parse_ops(const char *s)
{
    char buf[128], *save = NULL, *t;
    int k, any = 0;

    memset(tb.ops, 0, sizeof tb.ops);
    if (strcmp(s, "none") == 0)
        return 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        for (k = 0; k < OP_N && strcmp(t, tb_op_names[k]) != 0; k++)
            ;
        if (k == OP_N)
            return -1;
        tb.ops[k] = any = 1;
    }
    return any ? 0 : -1;
}

static int tb_args(int argc, char **argv)
{
    int i, k;

    if (argc < 3)
        return -1;
    for (k = 0; k < 4 && strcmp(argv[1], tb_drivers[k]->name) != 0; k++)
        ;
    if (k == 4)
        return -1;
    tb.drv = tb_drivers[k];
    tb.addr = argv[2];
    tb.rows = 1000000;
    tb.conns = 4;
    tb.seconds = 3;
    tb.seed = 1;
    tb_parse_ops("insert,get,p10,p100,range,update,scan,getscan");
    for (i = 3; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--load") == 0) { tb.load = 1; continue; }
        if (strcmp(a, "--check") == 0) { tb.check = 1; continue; }
        if (v == NULL)
            return -1;
        i++;
        if (strcmp(a, "--rows") == 0) tb.rows = atol(v);
        else if (strcmp(a, "--conns") == 0) tb.conns = atoi(v);
        else if (strcmp(a, "--seconds") == 0) tb.seconds = atoi(v);
        else if (strcmp(a, "--seed") == 0) tb.seed = (unsigned)atoi(v);
        else if (strcmp(a, "--ops") == 0) { if (tb_parse_ops(v) < 0) return -1; }
        else return -1;
    }
    if (tb.ops[OP_GETSCAN] && tb.conns < 2)
        return -1;
    return tb.rows >= 100 && tb.conns >= 1 && tb.conns <= TB_CONNS_MAX && tb.seconds > 0 ? 0 : -1;
}

/* Opens the control connection and one per worker; -1 if one fails. */
static int tb_open_all(struct tb_worker *w, void **ctl)
{
    int k;

    if ((*ctl = tb.drv->open(tb.addr)) == NULL) {
        fprintf(stderr, "table_bench: cannot connect to %s\n", tb.addr);
        return -1;
    }
    for (k = 0; k < tb.conns; k++) {
        w[k].index = k;
        w[k].lat = malloc(TB_LAT_MAX * sizeof *w[k].lat);
        if (w[k].lat == NULL || (w[k].conn = tb.drv->open(tb.addr)) == NULL) {
            fprintf(stderr, "table_bench: cannot open connection %d\n", k);
            return -1;
        }
    }
    return 0;
}

static void tb_close_all(struct tb_worker *w, void *ctl)
{
    int k;

    for (k = 0; k < tb.conns; k++) {
        if (w[k].conn != NULL)
            tb.drv->close(w[k].conn);
        free(w[k].lat);
    }
    if (ctl != NULL)
        tb.drv->close(ctl);
}

int main(int argc, char **argv)
{
    struct tb_worker *w;
    void *ctl = NULL;
    int k, rc = 0;

    if (tb_args(argc, argv) < 0) {
        fprintf(stderr, "usage: table_bench mcds|tarantool|redis HOST:PORT | postgres CONNINFO [--rows N]\n"
                        "       [--conns C] [--seconds S] [--ops insert,get,p10,p100,range,update,scan,getscan]\n"
                        "       [--seed S] [--load] [--check]\n");
        return 64;
    }
    tb_shape();
    if ((w = calloc((size_t)tb.conns, sizeof *w)) == NULL)
        return 1;
    if (tb_open_all(w, &ctl) < 0 || (tb.load && tb_load_all(w, ctl) < 0))
        rc = 1;
    for (k = 0; rc == 0 && k < tb.conns; k++)  /* after the load: the table exists */
        if (tb.drv->ready(w[k].conn) < 0)
            rc = 1;
    for (k = 0; k < OP_N; k++)          /* each op, even after one failed */
        if (rc != 1 && tb.ops[k] && tb_run_op(w, (enum tb_op)k) != 0)
            rc = 2;
    tb_close_all(w, ctl);
    free(w);
    return rc;
}
