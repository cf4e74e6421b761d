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
 * Selections return whole rows (id, a, b, c, d). --load first creates the
 * table and loads the N rows (batched, on --conns connections: the load is
 * not a measured row). --check verifies every answer: the row of the key,
 * 10 rows of the b, 100 rows of the a, 50 rows of the range, one row
 * updated, and the scan's count against the model (the inserts included).
 *
 * How each system does one request (one round trip each):
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
#include <hiredis/hiredis.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"

#define TB_CONNS_MAX 64
#define TB_LAT_MAX 2000000
#define TB_RES_MAX 4096                 /* ids a reply may carry (scan) */
#define TB_BATCH 1000                   /* rows a load step sends */
#define TB_INT_BIAS 1000000000000000LL  /* Redis entries: v + bias, 16 digits */

enum tb_system { TB_MCDS, TB_TARANTOOL, TB_REDIS, TB_PG };
enum tb_op { OP_INSERT, OP_GET, OP_P10, OP_P100, OP_RANGE, OP_UPDATE, OP_SCAN, OP_N };

static const char *const tb_op_names[OP_N] = { "insert", "get", "p10", "p100", "range", "update", "scan" };
static const char *const tb_sys_names[] = { "mcds", "tarantool", "redis", "postgres" };

struct tb_opts {
    enum tb_system sys;
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

struct tb_row {
    long long id, a, c;
    char b[16], d[104];
};

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

static void tb_row(long long id, struct tb_row *r)
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

struct tb_req {
    enum tb_op op;
    long long id, key, c;               /* row id; a (p100), c lower bound (range); new c */
    char b[16], scan[3];
};

struct tb_res {
    long n;                             /* rows (or ids) answered, updated rows */
    long long ids[TB_RES_MAX];
    long long cs[TB_RES_MAX];           /* c of each row (selections) */
};

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

/* ---- MessagePack: the little Tarantool's iproto needs ---- */

struct tb_mp {
    unsigned char *p, *end;
};

static unsigned char *mp_u(unsigned char *o, unsigned char tag, uint64_t v, int bytes)
{
    int k;

    *o++ = tag;
    for (k = bytes - 1; k >= 0; k--)
        *o++ = (unsigned char)(v >> (8 * k));
    return o;
}

static unsigned char *mp_int(unsigned char *o, long long v)
{
    if (v >= 0 && v < 128) {
        *o++ = (unsigned char)v;
        return o;
    }
    if (v >= 0)
        return mp_u(o, 0xcf, (uint64_t)v, 8);
    if (v >= -32) {
        *o++ = (unsigned char)(0xe0 | (v + 32));
        return o;
    }
    return mp_u(o, 0xd3, (uint64_t)v, 8);
}

/* A map entry of an integer key and an integer value. */
static unsigned char *mp_kv(unsigned char *o, long long key, long long v)
{
    return mp_int(mp_int(o, key), v);
}

static unsigned char *mp_str(unsigned char *o, const char *s, size_t n)
{
    if (n < 32)
        *o++ = (unsigned char)(0xa0 | n);
    else
        o = mp_u(o, 0xd9 + (n > 255), n, n > 255 ? 2 : 1);
    memcpy(o, s, n);
    return o + n;
}

static unsigned char *mp_arr(unsigned char *o, unsigned n)
{
    if (n < 16) {
        *o++ = (unsigned char)(0x90 | n);
        return o;
    }
    return mp_u(o, 0xdc, n, 2);
}

static unsigned char *mp_map(unsigned char *o, unsigned n)
{
    *o++ = (unsigned char)(0x80 | n);     /* iproto bodies have < 16 keys */
    return o;
}

static uint64_t mp_be(struct tb_mp *m, int bytes)
{
    uint64_t v = 0;

    if (m->end - m->p < bytes) {
        m->p = m->end + 1;              /* marks a short buffer */
        return 0;
    }
    while (bytes-- > 0)
        v = v << 8 | *m->p++;
    return v;
}

/* The next value's kind: 'i' integer (into *v), 's' string (length in *v),
 * 'a' array and 'm' map (entries in *v), 'n' nil, 'x' other (skipped). */
static int mp_next(struct tb_mp *m, long long *v)
{
    unsigned char t;

    if (m->p >= m->end)
        return 'x';
    t = *m->p++;
    if (t < 0x80 || t >= 0xe0) { *v = (signed char)t; if (t < 0x80) *v = t; return 'i'; }
    if ((t & 0xf0) == 0x80) { *v = t & 0x0f; return 'm'; }
    if ((t & 0xf0) == 0x90) { *v = t & 0x0f; return 'a'; }
    if ((t & 0xe0) == 0xa0) { *v = t & 0x1f; return 's'; }
    switch (t) {
    case 0xc0: return 'n';
    case 0xc2: case 0xc3: *v = t == 0xc3; return 'i';
    case 0xcc: *v = (long long)mp_be(m, 1); return 'i';
    case 0xcd: *v = (long long)mp_be(m, 2); return 'i';
    case 0xce: *v = (long long)mp_be(m, 4); return 'i';
    case 0xcf: *v = (long long)mp_be(m, 8); return 'i';
    case 0xd0: *v = (int8_t)mp_be(m, 1); return 'i';
    case 0xd1: *v = (int16_t)mp_be(m, 2); return 'i';
    case 0xd2: *v = (int32_t)mp_be(m, 4); return 'i';
    case 0xd3: *v = (long long)mp_be(m, 8); return 'i';
    case 0xd9: *v = (long long)mp_be(m, 1); return 's';
    case 0xda: *v = (long long)mp_be(m, 2); return 's';
    case 0xdb: *v = (long long)mp_be(m, 4); return 's';
    case 0xdc: *v = (long long)mp_be(m, 2); return 'a';
    case 0xdd: *v = (long long)mp_be(m, 4); return 'a';
    case 0xde: *v = (long long)mp_be(m, 2); return 'm';
    case 0xdf: *v = (long long)mp_be(m, 4); return 'm';
    case 0xcb: mp_be(m, 8); return 'x';
    case 0xca: mp_be(m, 4); return 'x';
    default: return 'x';
    }
}

/* Skips one whole value. */
static void mp_skip(struct tb_mp *m)
{
    long long v = 0, k;
    int kind = mp_next(m, &v);

    if (kind == 's')
        m->p += v;
    else if (kind == 'a' || kind == 'm')
        for (k = 0; k < (kind == 'm' ? 2 * v : v) && m->p < m->end; k++)
            mp_skip(m);
}

/* ---- Tarantool: iproto ---- */

#define TT_SPACE 512
#define TT_SELECT 0x01
#define TT_INSERT 0x02
#define TT_UPDATE 0x04
#define TT_CALL 0x0a
#define TT_EQ 0
#define TT_GE 5

struct tb_tt {
    struct bc_sock s;
    unsigned char out[1 << 20];
    size_t nout;
    unsigned char *in;
    size_t incap;
    uint64_t sync;
};

static int tt_greet(struct tb_tt *t)
{
    char greeting[128];

    return bc_read(&t->s, greeting, sizeof greeting);
}

/* Starts a request: a 5-byte size, patched by tt_end, and the header. */
static unsigned char *tt_begin(struct tb_tt *t, int code)
{
    unsigned char *o = t->out + t->nout + 5;

    o = mp_map(o, 2);
    o = mp_kv(o, 0x00, code);
    return mp_kv(o, 0x01, (long long)++t->sync);
}

static void tt_end(struct tb_tt *t, unsigned char *o)
{
    size_t len = (size_t)(o - (t->out + t->nout)) - 5;

    mp_u(t->out + t->nout, 0xce, len, 4);
    t->nout += len + 5;
}

static unsigned char *tt_tuple(unsigned char *o, const struct tb_row *r)
{
    o = mp_arr(o, 5);
    o = mp_int(o, r->id);
    o = mp_int(o, r->a);
    o = mp_str(o, r->b, strlen(r->b));
    o = mp_int(o, r->c);
    return mp_str(o, r->d, strlen(r->d));
}

static void tt_insert(struct tb_tt *t, const struct tb_row *r)
{
    unsigned char *o = tt_begin(t, TT_INSERT);

    o = mp_map(o, 2);
    o = mp_kv(o, 0x10, TT_SPACE);
    o = mp_int(o, 0x21);
    tt_end(t, tt_tuple(o, r));
}

static void tt_select(struct tb_tt *t, int index, int iterator, long limit, const struct tb_req *q)
{
    unsigned char *o = tt_begin(t, TT_SELECT);

    o = mp_map(o, 6);
    o = mp_kv(o, 0x10, TT_SPACE);
    o = mp_kv(o, 0x11, index);
    o = mp_kv(o, 0x12, limit);
    o = mp_kv(o, 0x13, 0);
    o = mp_kv(o, 0x14, iterator);
    o = mp_int(o, 0x20);
    if (q->op == OP_GET) {
        o = mp_arr(o, 2);
        o = mp_int(o, q->key);
        o = mp_str(o, q->b, strlen(q->b));
    } else if (q->op == OP_P10) {
        o = mp_arr(o, 1);
        o = mp_str(o, q->b, strlen(q->b));
    } else {
        o = mp_arr(o, 1);
        o = mp_int(o, q->key);
    }
    tt_end(t, o);
}

static void tt_update(struct tb_tt *t, const struct tb_req *q)
{
    unsigned char *o = tt_begin(t, TT_UPDATE);

    o = mp_map(o, 5);
    o = mp_kv(o, 0x10, TT_SPACE);
    o = mp_kv(o, 0x11, 0);
    o = mp_kv(o, 0x15, 1);              /* index base 1: field 4 is c */
    o = mp_int(o, 0x20);
    o = mp_arr(o, 1);
    o = mp_int(o, q->id);
    o = mp_int(o, 0x21);
    o = mp_arr(o, 1);
    o = mp_arr(o, 3);
    o = mp_str(o, "=", 1);
    o = mp_int(o, 4);
    tt_end(t, mp_int(o, q->c));
}

static void tt_call(struct tb_tt *t, const char *fn, const char *arg)
{
    unsigned char *o = tt_begin(t, TT_CALL);

    o = mp_map(o, 2);
    o = mp_int(o, 0x22);
    o = mp_str(o, fn, strlen(fn));
    o = mp_int(o, 0x21);
    o = mp_arr(o, 1);
    tt_end(t, mp_str(o, arg, strlen(arg)));
}

static int tt_flush(struct tb_tt *t)
{
    int rc = bc_send_all(t->s.fd, (const char *)t->out, t->nout);

    t->nout = 0;
    return rc;
}

/* Reads one response into t->in; its body in *body. -1 on an error reply. */
static int tt_response(struct tb_tt *t, struct tb_mp *body)
{
    unsigned char hdr[5];
    long long v = 0, k, n, key, code = -1;
    struct tb_mp m;
    size_t len;

    if (bc_read(&t->s, (char *)hdr, 5) < 0 || hdr[0] != 0xce)
        return -1;
    len = (size_t)hdr[1] << 24 | (size_t)hdr[2] << 16 | (size_t)hdr[3] << 8 | hdr[4];
    if (len > t->incap) {
        unsigned char *p = realloc(t->in, len);
        if (p == NULL)
            return -1;
        t->in = p;
        t->incap = len;
    }
    if (bc_read(&t->s, (char *)t->in, len) < 0)
        return -1;
    m.p = t->in;
    m.end = t->in + len;
    if (mp_next(&m, &n) != 'm')
        return -1;
    for (k = 0; k < n; k++) {
        if (mp_next(&m, &key) != 'i')
            return -1;
        if (key == 0x00 && mp_next(&m, &v) == 'i')
            code = v;
        else if (key != 0x00)
            mp_skip(&m);
    }
    *body = m;
    if (code != 0) {
        fprintf(stderr, "table_bench: tarantool answered code 0x%llx: %.*s\n", code, (int)(m.end - m.p), m.p);
        return -1;
    }
    return 0;
}

/* The DATA array of a body: its length, m left on its first element. */
static long tt_data(struct tb_mp *m)
{
    long long n = 0, k, key, v;

    if (mp_next(m, &n) != 'm')
        return -1;
    for (k = 0; k < n; k++) {
        if (mp_next(m, &key) != 'i')
            return -1;
        if (key == 0x30)
            return mp_next(m, &v) == 'a' ? (long)v : -1;
        mp_skip(m);
    }
    return -1;
}

/* Tuples of a SELECT answer: their ids and c into r. */
static int tt_tuples(struct tb_tt *t, struct tb_res *r)
{
    struct tb_mp m;
    long n, i;
    long long v, f, k;

    if (tt_response(t, &m) < 0 || (n = tt_data(&m)) < 0)
        return -1;
    r->n = n;
    for (i = 0; i < n; i++) {
        if (mp_next(&m, &f) != 'a' || f < 4)
            return -1;
        for (k = 0; k < f; k++) {
            if (k == 0 || k == 3) {
                if (mp_next(&m, &v) != 'i')
                    return -1;
                if (i < TB_RES_MAX)
                    *(k == 0 ? &r->ids[i] : &r->cs[i]) = v;
            } else {
                mp_skip(&m);
            }
        }
    }
    return 0;
}

/* The scan's answer: one array of ids (or mem's one number). */
static int tt_ids(struct tb_tt *t, struct tb_res *r)
{
    struct tb_mp m;
    long long n = 0, i, v;
    int kind;

    if (tt_response(t, &m) < 0 || tt_data(&m) != 1)
        return -1;
    kind = mp_next(&m, &n);
    if (kind == 'i') {                  /* one number (mem) */
        r->n = 1;
        r->ids[0] = n;
        return 0;
    }
    if (kind == 'm' && n == 0) {        /* an empty Lua table */
        r->n = 0;
        return 0;
    }
    if (kind != 'a')
        return -1;
    r->n = (long)n;
    for (i = 0; i < n; i++) {
        if (mp_next(&m, &v) != 'i')
            return -1;
        if (i < TB_RES_MAX)
            r->ids[i] = v;
    }
    return 0;
}

static int tt_request(struct tb_tt *t, const struct tb_req *q, struct tb_res *r)
{
    struct tb_row row;
    struct tb_mp m;
    long i;

    switch (q->op) {
    case OP_INSERT:
        tb_row(q->id, &row);
        tt_insert(t, &row);
        break;
    case OP_GET: tt_select(t, 1, TT_EQ, 10, q); break;
    case OP_P10: tt_select(t, 3, TT_EQ, 10, q); break;
    case OP_P100: tt_select(t, 1, TT_EQ, 100, q); break;
    case OP_RANGE: tt_select(t, 2, TT_GE, 50, q); break;
    case OP_UPDATE: tt_update(t, q); break;
    case OP_SCAN: tt_call(t, "scan", q->scan); break;
    default: return -1;
    }
    if (tt_flush(t) < 0)
        return -1;
    if (q->op == OP_SCAN)
        return tt_ids(t, r);
    if (q->op == OP_INSERT || q->op == OP_UPDATE) {
        if (tt_response(t, &m) < 0)
            return -1;
        r->n = tt_data(&m);
        return 0;
    }
    if (tt_tuples(t, r) < 0)
        return -1;
    if (q->op == OP_RANGE)              /* GE runs on: the range's end */
        for (i = 0; i < r->n && i < TB_RES_MAX; i++)
            if (r->cs[i] >= q->key + 50) {
                r->n = i;
                break;
            }
    return 0;
}

static int tt_load(struct tb_tt *t, long long from, long long to)
{
    struct tb_row row;
    struct tb_mp m;
    long long id, k;

    for (id = from; id < to; id += TB_BATCH) {
        long long n = to - id < TB_BATCH ? to - id : TB_BATCH;
        for (k = 0; k < n; k++) {
            tb_row(id + k, &row);
            tt_insert(t, &row);
        }
        if (tt_flush(t) < 0)
            return -1;
        for (k = 0; k < n; k++)
            if (tt_response(t, &m) < 0)
                return -1;
    }
    return 0;
}

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

static int rd_load(struct tb_rd *rd, long long from, long long to)
{
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

static int rd_request(struct tb_rd *rd, const struct tb_req *q, struct tb_res *res)
{
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

static int pg_ready(PGconn *c)
{
    char name[8];
    int k;

    for (k = 0; k < OP_N; k++) {
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

static int pg_load(PGconn *c, long long from, long long to)
{
    char *buf = malloc(TB_BATCH * 200);
    long long id;
    int rc = buf == NULL ? -1 : 0;

    for (id = from; rc == 0 && id < to; id += TB_BATCH)
        rc = pg_copy(c, buf, id, to - id < TB_BATCH ? to : id + TB_BATCH);
    free(buf);
    return rc;
}

static int pg_request(PGconn *c, const struct tb_req *q, struct tb_res *res)
{
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

/* ---- mcds: the table verbs (doc/protocol.md, "Tables") ---- */

/* A selection answers a page and a cursor; a request that wants only the
 * first rows closes a cursor that is not 0 with tclose, sent in front of
 * its connection's next request (no round trip of its own): mc_send adds
 * the pending tclose lines and mc_reply reads their answers first. */
struct tb_mc {
    struct bc_sock s;
    char closes[64];
    int nclose;
};

static const char mc_schema[] =
    "tdrop rows\r\n"
    "tcreate rows id:int,a:int,b:bytes,c:int,d:bytes key=id index=ab:a+b index=c:c+id index=bca:b+c+a\r\n";

static int mc_send(struct tb_mc *m, const char *text, size_t n)
{
    char buf[512];
    size_t k = strlen(m->closes);

    if (k + n > sizeof buf)             /* a long line: two writes */
        return bc_send_all(m->s.fd, m->closes, k) < 0 ? -1 : bc_send_all(m->s.fd, text, n);
    memcpy(buf, m->closes, k);
    memcpy(buf + k, text, n);
    return bc_send_all(m->s.fd, buf, k + n);
}

/* The first line of a reply, after the answers to pending tclose lines. */
static int mc_reply(struct tb_mc *m, char *line, size_t cap)
{
    for (; m->nclose > 0; m->nclose--)
        if (bc_line(&m->s, line, cap) < 0 || (strcmp(line, "DELETED") != 0 && strcmp(line, "NOT_FOUND") != 0))
            return -1;
    m->closes[0] = '\0';
    return bc_line(&m->s, line, cap);
}

static void mc_tinsert(char *out, size_t *n, const struct tb_row *r)
{
    *n += (size_t)sprintf(out + *n, "tinsert rows id=%lld a=%lld b=%s c=%lld d=%s\r\n", r->id, r->a, r->b, r->c, r->d);
}

static int mc_stored(struct tb_mc *m)
{
    char line[256];

    if (mc_reply(m, line, sizeof line) < 0)
        return -1;
    if (strncmp(line, "STORED ", 7) != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line);
        return -1;
    }
    return 0;
}

static int mc_create(struct tb_mc *m)
{
    char line[256];

    if (mc_send(m, mc_schema, sizeof mc_schema - 1) < 0 || mc_reply(m, line, sizeof line) < 0 ||
        mc_reply(m, line, sizeof line) < 0)
        return -1;
    if (strcmp(line, "CREATED") != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line);
        return -1;
    }
    return 0;
}

static int mc_load(struct tb_mc *m, long long from, long long to)
{
    char *text = malloc(TB_BATCH * 200);
    struct tb_row row;
    long long id, k;
    int rc = text == NULL ? -1 : 0;

    for (id = from; rc == 0 && id < to; id += TB_BATCH) {
        long long cnt = to - id < TB_BATCH ? to - id : TB_BATCH;
        size_t n = 0;
        for (k = 0; k < cnt; k++) {
            tb_row(id + k, &row);
            mc_tinsert(text, &n, &row);
        }
        rc = bc_send_all(m->s.fd, text, n);
        for (k = 0; rc == 0 && k < cnt; k++)
            rc = mc_stored(m);
    }
    free(text);
    return rc;
}

/* One field of a ROW: its value into val (NUL-terminated, cut to cap). */
static int mc_field(struct tb_mc *m, char *name, char *val, size_t cap)
{
    char line[256], crlf[2];
    long len;

    if (bc_line(&m->s, line, sizeof line) < 0 || sscanf(line, "F %63s %ld", name, &len) != 2) {
        if (sscanf(line, "F %63s null", name) == 1) {
            val[0] = '\0';
            return 0;
        }
        return -1;
    }
    if (len < 0 || (size_t)len >= cap || bc_read(&m->s, val, (size_t)len) < 0 || bc_read(&m->s, crlf, 2) < 0)
        return -1;
    val[len] = '\0';
    return 0;
}

/* A page: its rows' ids and c into r (added to r->n), its cursor. */
static int mc_page(struct tb_mc *m, struct tb_res *r, long long *cursor)
{
    char line[256], name[64], val[128];
    long nf, k;

    if (mc_reply(m, line, sizeof line) < 0)
        return -1;
    while (sscanf(line, "ROW %*s %ld", &nf) == 1) {
        for (k = 0; k < nf; k++) {
            if (mc_field(m, name, val, sizeof val) < 0)
                return -1;
            if (r->n < TB_RES_MAX && strcmp(name, "id") == 0)
                r->ids[r->n] = atoll(val);
            if (r->n < TB_RES_MAX && strcmp(name, "c") == 0)
                r->cs[r->n] = atoll(val);
        }
        r->n++;
        if (bc_line(&m->s, line, sizeof line) < 0)
            return -1;
    }
    if (sscanf(line, "CURSOR %lld", cursor) != 1 || bc_line(&m->s, line, sizeof line) < 0 || strcmp(line, "END") != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line);
        return -1;
    }
    return 0;
}

/* A selection of its first page only: a cursor left open is closed. */
static int mc_select(struct tb_mc *m, const char *text, size_t n, struct tb_res *r)
{
    long long cursor = 0;

    r->n = 0;
    if (mc_send(m, text, n) < 0 || mc_page(m, r, &cursor) < 0)
        return -1;
    if (cursor != 0) {
        snprintf(m->closes, sizeof m->closes, "tclose %lld\r\n", cursor);
        m->nclose = 1;
    }
    return 0;
}

/* The whole predicate scan: tscan, then tnext until CURSOR 0. */
static int mc_scan(struct tb_mc *m, const struct tb_req *q, struct tb_res *r)
{
    char text[128];
    long long cursor = 0;
    size_t n = (size_t)sprintf(text, "tscan rows count=1000 fields=id where d prefix %s\r\n", q->scan);

    r->n = 0;
    if (mc_send(m, text, n) < 0 || mc_page(m, r, &cursor) < 0)
        return -1;
    while (cursor != 0) {
        n = (size_t)sprintf(text, "tnext %lld count=1000\r\n", cursor);
        if (bc_send_all(m->s.fd, text, n) < 0 || mc_page(m, r, &cursor) < 0)
            return -1;
    }
    return 0;
}

static long long mc_mem(struct tb_mc *m)
{
    char line[256];
    long long v = -1;

    if (mc_send(m, "tinfo rows\r\n", 12) < 0)
        return -1;
    while (mc_reply(m, line, sizeof line) == 0 && strcmp(line, "END") != 0 && strncmp(line, "NOT_FOUND", 9) != 0)
        sscanf(line, "STAT bytes %lld", &v);
    return v;
}

static int mc_request(struct tb_mc *m, const struct tb_req *q, struct tb_res *r)
{
    char text[256];
    struct tb_row row;
    size_t n = 0;

    switch (q->op) {
    case OP_INSERT:
        tb_row(q->id, &row);
        mc_tinsert(text, &n, &row);
        r->n = 1;
        return mc_send(m, text, n) < 0 ? -1 : mc_stored(m);
    case OP_UPDATE:
        n = (size_t)sprintf(text, "tupdate rows id=%lld c=%lld\r\n", q->id, q->c);
        r->n = 1;
        return mc_send(m, text, n) < 0 ? -1 : mc_stored(m);
    case OP_GET:
        n = (size_t)sprintf(text, "tselect rows ab eq=%lld eq=%s count=10\r\n", q->key, q->b);
        break;
    case OP_P10:
        n = (size_t)sprintf(text, "tselect rows bca eq=%s count=10\r\n", q->b);
        break;
    case OP_P100:
        n = (size_t)sprintf(text, "tselect rows ab eq=%lld count=100\r\n", q->key);
        break;
    case OP_RANGE:
        n = (size_t)sprintf(text, "tselect rows c ge=%lld lt=%lld count=50\r\n", q->key, q->key + 50);
        break;
    case OP_SCAN:
        return mc_scan(m, q, r);
    default:
        return -1;
    }
    return mc_select(m, text, n, r);
}

/* ---- one connection of each system ---- */

struct tb_conn {
    struct tb_mc *mc;
    struct tb_tt *tt;
    struct tb_rd rd;
    PGconn *pg;
};

static int tb_open(struct tb_conn *c)
{
    char host[256];
    const char *port = bc_split(tb.addr, host, sizeof host);

    memset(c, 0, sizeof *c);
    switch (tb.sys) {
    case TB_MCDS:
        if ((c->mc = calloc(1, sizeof *c->mc)) == NULL)
            return -1;
        c->mc->s.fd = bc_connect_tcp(tb.addr);
        return c->mc->s.fd < 0 ? -1 : 0;
    case TB_TARANTOOL:
        if ((c->tt = calloc(1, sizeof *c->tt)) == NULL)
            return -1;
        c->tt->s.fd = bc_connect_tcp(tb.addr);
        return c->tt->s.fd < 0 ? -1 : tt_greet(c->tt);
    case TB_REDIS:
        if (port == NULL)
            return -1;
        c->rd.c = redisConnect(host, atoi(port));
        return c->rd.c == NULL || c->rd.c->err ? -1 : rd_ready(&c->rd);
    default:
        c->pg = PQconnectdb(tb.addr);
        return PQstatus(c->pg) != CONNECTION_OK ? -1 : 0;
    }
}

static void tb_close(struct tb_conn *c)
{
    if (c->mc != NULL) {
        close(c->mc->s.fd);
        free(c->mc);
    }
    if (c->tt != NULL) {
        close(c->tt->s.fd);
        free(c->tt->in);
        free(c->tt);
    }
    if (c->rd.c != NULL)
        redisFree(c->rd.c);
    if (c->pg != NULL)
        PQfinish(c->pg);
}

/* Creates the table (Tarantool's is created by its init script), on the
 * control connection before the load. */
static int tb_create(struct tb_conn *c)
{
    if (tb.sys == TB_PG)
        return pg_ok(PQexec(c->pg, pg_schema), NULL);
    if (tb.sys == TB_REDIS)
        return rd_ok(redisCommand(c->rd.c, "FLUSHALL"), NULL);
    return tb.sys == TB_MCDS ? mc_create(c->mc) : 0;
}

static int tb_load_range(struct tb_conn *c, long long from, long long to)
{
    switch (tb.sys) {
    case TB_MCDS: return mc_load(c->mc, from, to);
    case TB_TARANTOOL: return tt_load(c->tt, from, to);
    case TB_REDIS: return rd_load(&c->rd, from, to);
    default: return pg_load(c->pg, from, to);
    }
}

static int tb_request(struct tb_conn *c, const struct tb_req *q, struct tb_res *r)
{
    r->n = -1;
    switch (tb.sys) {
    case TB_MCDS: return mc_request(c->mc, q, r);
    case TB_TARANTOOL: return tt_request(c->tt, q, r);
    case TB_REDIS: return rd_request(&c->rd, q, r);
    default: return pg_request(c->pg, q, r);
    }
}

/* The server's own count of the bytes the table holds: Redis used_memory,
 * Tarantool box.info.memory() data + index, PostgreSQL the table's and its
 * indexes' relation size, mcds (doc/protocol.md) its table's bytes; -1 if
 * unknown. */
static long long tb_mem(struct tb_conn *c)
{
    long long v = -1;

    if (tb.sys == TB_REDIS) {
        redisReply *r = redisCommand(c->rd.c, "INFO memory");
        const char *p = r != NULL && r->type == REDIS_REPLY_STRING ? strstr(r->str, "used_memory:") : NULL;
        if (p != NULL)
            v = atoll(p + strlen("used_memory:"));
        freeReplyObject(r);
    } else if (tb.sys == TB_PG) {
        PGresult *res = PQexec(c->pg, "SELECT coalesce(pg_total_relation_size(to_regclass('rows')), 0)");
        if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
            v = atoll(PQgetvalue(res, 0, 0));
        PQclear(res);
    } else if (tb.sys == TB_TARANTOOL) {
        struct tb_res r;
        tt_call(c->tt, "mem", "");
        if (tt_flush(c->tt) == 0 && tt_ids(c->tt, &r) == 0 && r.n == 1)
            v = r.ids[0];
    } else {
        v = mc_mem(c->mc);
    }
    return v;
}

/* ---- the run ---- */

struct tb_worker {
    pthread_t t;
    int index;
    struct tb_conn conn;
    enum tb_op op;
    long done, rows, bad;
    double *lat;
    long nlat;
    int failed;
    struct tb_res res;
};

static double tb_deadline;

static void *tb_work(void *arg)
{
    struct tb_worker *w = arg;
    struct tb_req q;
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)tb.seed * 1000003u + (uint64_t)w->index * 7919u +
                                            (uint64_t)w->op * 104729u + 1);

    while (bc_now() < tb_deadline) {
        double t0 = bc_now();
        tb_make(&rng, w->op, &q);
        if (tb_request(&w->conn, &q, &w->res) < 0) {
            w->failed = 1;
            break;
        }
        if (w->nlat < TB_LAT_MAX)
            w->lat[w->nlat++] = bc_now() - t0;
        if (tb.check && !tb_verify(&q, &w->res)) {
            if (w->bad++ == 0)
                fprintf(stderr, "table_bench: %s: a wrong answer to %s (id %lld key %lld b %s): %ld rows\n",
                        tb_sys_names[tb.sys], tb_op_names[q.op], q.id, q.key, q.b, w->res.n);
        }
        w->rows += w->res.n;
        w->done++;
    }
    return NULL;
}

struct tb_loader {
    pthread_t t;
    struct tb_conn *conn;
    long long from, to;
    int failed;
};

static void *tb_load_work(void *arg)
{
    struct tb_loader *l = arg;

    l->failed = tb_load_range(l->conn, l->from, l->to) < 0;
    return NULL;
}

static int tb_load_all(struct tb_worker *w, struct tb_conn *ctl)
{
    struct tb_loader l[TB_CONNS_MAX];
    double t0 = bc_now(), t1;
    int k, failed = 0;

    long long before;

    if (tb_create(ctl) < 0)
        return -1;
    before = tb_mem(ctl);
    for (k = 0; k < tb.conns; k++) {
        l[k].conn = &w[k].conn;
        l[k].from = tb.rows * k / tb.conns;
        l[k].to = tb.rows * (k + 1) / tb.conns;
        pthread_create(&l[k].t, NULL, tb_load_work, &l[k]);
    }
    for (k = 0; k < tb.conns; k++) {
        pthread_join(l[k].t, NULL);
        failed |= l[k].failed;
    }
    t1 = bc_now();
    printf("%s load %d %ld %.2f %.0f%s\n", tb_sys_names[tb.sys], tb.conns, tb.rows, t1 - t0,
           (double)tb.rows / (t1 - t0), failed ? " FAILED" : "");
    printf("%s mem %lld %lld\n", tb_sys_names[tb.sys], before, tb_mem(ctl));
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
    printf("%s %s %d %ld %.2f %.0f %.0f %.3f %.3f %s\n", tb_sys_names[tb.sys], tb_op_names[op], tb.conns, done,
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
    for (k = 0; k < 4 && strcmp(argv[1], tb_sys_names[k]) != 0; k++)
        ;
    if (k == 4)
        return -1;
    tb.sys = (enum tb_system)k;
    tb.addr = argv[2];
    tb.rows = 1000000;
    tb.conns = 4;
    tb.seconds = 3;
    tb.seed = 1;
    tb_parse_ops("insert,get,p10,p100,range,update,scan");
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
    return tb.rows >= 100 && tb.conns >= 1 && tb.conns <= TB_CONNS_MAX && tb.seconds > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct tb_worker *w;
    struct tb_conn ctl;
    int k, rc = 0;

    if (tb_args(argc, argv) < 0) {
        fprintf(stderr, "usage: table_bench mcds|tarantool|redis HOST:PORT | postgres CONNINFO [--rows N]\n"
                        "       [--conns C] [--seconds S] [--ops insert,get,p10,p100,range,update,scan]\n"
                        "       [--seed S] [--load] [--check]\n");
        return 64;
    }
    tb_shape();
    if (tb_open(&ctl) < 0) {
        fprintf(stderr, "table_bench: cannot connect to %s\n", tb.addr);
        return 1;
    }
    w = calloc((size_t)tb.conns, sizeof *w);
    for (k = 0; w != NULL && k < tb.conns; k++) {
        w[k].index = k;
        w[k].lat = malloc(TB_LAT_MAX * sizeof *w[k].lat);
        if (w[k].lat == NULL || tb_open(&w[k].conn) < 0) {
            fprintf(stderr, "table_bench: cannot open connection %d\n", k);
            return 1;
        }
    }
    if (w == NULL || (tb.load && tb_load_all(w, &ctl) < 0))
        return 1;
    for (k = 0; k < tb.conns; k++)        /* after the load: it creates the table */
        if (tb.sys == TB_PG && pg_ready(w[k].conn.pg) < 0)
            return 1;
    for (k = 0; k < OP_N; k++)
        if (tb.ops[k])
            rc |= tb_run_op(w, (enum tb_op)k);
    for (k = 0; k < tb.conns; k++) {
        tb_close(&w[k].conn);
        free(w[k].lat);
    }
    free(w);
    tb_close(&ctl);
    return rc;
}
