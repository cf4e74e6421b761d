/*
 * tbench_tarantool.c: table_bench's Tarantool driver: iproto over a
 * socket, with the little MessagePack it needs. The space (id 512, memtx,
 * TREE indexes pk (id), ab (a, b), c (c, id), bca (b, c, a)) and the Lua
 * functions scan(prefix) and mem() come from table_compare.sh's init
 * script; a request is one INSERT, SELECT (iterator EQ, or GE and a limit
 * for the range), UPDATE or CALL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"
#include "table_bench.h"

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

static int tt_request(void *conn, const struct tb_req *q, struct tb_res *r)
{
    struct tb_tt *t = conn;
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

static int tt_load(void *conn, long long from, long long to)
{
    struct tb_tt *t = conn;
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

/* A connection: its 128-byte greeting read (the guest user needs no
 * authentication). */
static void *tt_open(const char *addr)
{
    struct tb_tt *t = calloc(1, sizeof *t);
    char greeting[128];

    if (t != NULL && (t->s.fd = bc_connect_tcp(addr)) >= 0 && bc_read(&t->s, greeting, sizeof greeting) == 0)
        return t;
    if (t != NULL && t->s.fd >= 0)
        close(t->s.fd);
    free(t);
    return NULL;
}

static void tt_close(void *conn)
{
    struct tb_tt *t = conn;

    close(t->s.fd);
    free(t->in);
    free(t);
}

/* The space is made by table_compare.sh's init script, empty. */
static int tt_nothing(void *conn)
{
    (void)conn;
    return 0;
}

/* box.info.memory() data + index (the init script's mem()). */
static long long tt_mem(void *conn)
{
    struct tb_tt *t = conn;
    struct tb_res *r = malloc(sizeof *r);
    long long v = -1;

    tt_call(t, "mem", "");
    if (r != NULL && tt_flush(t) == 0 && tt_ids(t, r) == 0 && r->n == 1)
        v = r->ids[0];
    free(r);
    return v;
}

const struct tb_driver tb_tarantool = { "tarantool", tt_open, tt_close, tt_nothing, tt_nothing, tt_load,
                                        tt_request, tt_mem };
