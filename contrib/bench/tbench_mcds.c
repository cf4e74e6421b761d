/*
 * tbench_mcds.c: table_bench's mcds driver: the table verbs of the text
 * protocol (doc/protocol.md, "Tables") over a socket, one line a request
 * (tinsert; tselect through an index with nocursor: the first rows, no
 * cursor kept; tupdate; tscan and tnext up to CURSOR 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_client.h"
#include "table_bench.h"

struct tb_mc {
    struct bc_sock s;
};

static const char mc_schema[] =
    "tdrop rows\r\n"
    "tcreate rows id:int,a:int,b:bytes,c:int,d:bytes key=id index=ab:a+b index=c:c+id index=bca:b+c+a\r\n";

static void mc_tinsert(char *out, size_t *n, const struct tb_row *r)
{
    *n += (size_t)sprintf(out + *n, "tinsert rows id=%lld a=%lld b=%s c=%lld d=%s\r\n", r->id, r->a, r->b, r->c, r->d);
}

static int mc_stored(struct tb_mc *m)
{
    char line[256];

    if (bc_line(&m->s, line, sizeof line) < 0)
        return -1;
    if (strncmp(line, "STORED ", 7) != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line);
        return -1;
    }
    return 0;
}

static int mc_create(void *conn)
{
    struct tb_mc *m = conn;
    char line[256];

    if (bc_send_all(m->s.fd, mc_schema, sizeof mc_schema - 1) < 0 || bc_line(&m->s, line, sizeof line) < 0 ||
        bc_line(&m->s, line, sizeof line) < 0)
        return -1;
    if (strcmp(line, "CREATED") != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line);
        return -1;
    }
    return 0;
}

static int mc_load(void *conn, long long from, long long to)
{
    struct tb_mc *m = conn;
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

/* Makes n unread bytes available in place (n at most the buffer's size);
 * -1 on a closed socket. */
static int mc_want(struct bc_sock *s, size_t n)
{
    ssize_t r;

    if (s->have - s->pos >= n)
        return 0;
    memmove(s->buf, s->buf + s->pos, s->have - s->pos);
    s->have -= s->pos;
    s->pos = 0;
    while (s->have < n) {
        r = read(s->fd, s->buf + s->have, sizeof s->buf - s->have);
        if (r <= 0)
            return -1;
        s->have += (size_t)r;
    }
    return 0;
}

/* The next line in place, without "\r\n" and NUL-terminated (its length
 * in *len); NULL on a closed socket or a line longer than the buffer.
 * The reply is parsed where it was read, as the Tarantool driver parses
 * its MessagePack: a copy and an sscanf per line would make the client's
 * parsing, not the server, the bound of a 100-row selection. */
static char *mc_line(struct bc_sock *s, size_t *len)
{
    char *nl, *line;
    size_t seen = 0;

    while ((nl = memchr(s->buf + s->pos + seen, '\n', s->have - s->pos - seen)) == NULL) {
        seen = s->have - s->pos;
        if (seen == sizeof s->buf || mc_want(s, seen + 1) < 0)
            return NULL;
    }
    line = s->buf + s->pos;
    *len = (size_t)(nl - line);
    if (*len > 0 && line[*len - 1] == '\r')
        (*len)--;
    line[*len] = '\0';
    s->pos = (size_t)(nl + 1 - s->buf);
    return line;
}

/* The decimal number at p (a sign allowed), *end after it; -1 when none. */
static int mc_num(const char *p, long long *v, const char **end)
{
    int neg = *p == '-';
    long long n = 0;
    const char *q = p + neg;

    if (*q < '0' || *q > '9')
        return -1;
    for (; *q >= '0' && *q <= '9'; q++)
        n = n * 10 + (*q - '0');
    *v = neg ? -n : n;
    *end = q;
    return 0;
}

/* One field "F <name> <length>" and its value, or "F <name> null": the
 * value of id or c (ints) into *id or *c, any other skipped. */
static int mc_field(struct tb_mc *m, long long *id, long long *c)
{
    size_t n;
    char *line = mc_line(&m->s, &n), *name, *sp;
    long long len, v;
    const char *end;

    if (line == NULL || n < 4 || line[0] != 'F' || line[1] != ' ' || (sp = strchr(line + 2, ' ')) == NULL)
        return -1;
    name = line + 2;
    *sp = '\0';
    if (strcmp(sp + 1, "null") == 0)
        return 0;
    if (mc_num(sp + 1, &len, &end) < 0 || *end != '\0' || len < 0 || (size_t)len + 2 > sizeof m->s.buf)
        return -1;
    if (mc_want(&m->s, (size_t)len + 2) < 0)
        return -1;
    if ((strcmp(name, "id") == 0 || strcmp(name, "c") == 0) &&
        (mc_num(m->s.buf + m->s.pos, &v, &end) < 0 || end != m->s.buf + m->s.pos + len))
        return -1;
    if (strcmp(name, "id") == 0)
        *id = v;
    else if (strcmp(name, "c") == 0)
        *c = v;
    m->s.pos += (size_t)len + 2;
    return 0;
}

/* A page: its rows' ids and c into r (added to r->n), its cursor. */
static int mc_page(struct tb_mc *m, struct tb_res *r, long long *cursor)
{
    long long nf, k, id, c;
    const char *p;
    size_t n;
    char *line;

    while ((line = mc_line(&m->s, &n)) != NULL && strncmp(line, "ROW ", 4) == 0) {
        if ((p = strchr(line + 4, ' ')) == NULL || mc_num(p + 1, &nf, &p) < 0)
            return -1;
        for (k = 0, id = c = 0; k < nf; k++)
            if (mc_field(m, &id, &c) < 0)
                return -1;
        if (r->n < TB_RES_MAX) {
            r->ids[r->n] = id;
            r->cs[r->n] = c;
        }
        r->n++;
    }
    if (line == NULL || strncmp(line, "CURSOR ", 7) != 0 || mc_num(line + 7, cursor, &p) < 0 ||
        (line = mc_line(&m->s, &n)) == NULL || strcmp(line, "END") != 0) {
        fprintf(stderr, "table_bench: mcds answered %s\n", line != NULL ? line : "(closed)");
        return -1;
    }
    return 0;
}

/* A selection of its first page only (nocursor: CURSOR 0, no cursor kept). */
static int mc_select(struct tb_mc *m, const char *text, size_t n, struct tb_res *r)
{
    long long cursor = 0;

    r->n = 0;
    if (bc_send_all(m->s.fd, text, n) < 0 || mc_page(m, r, &cursor) < 0)
        return -1;
    return cursor == 0 ? 0 : -1;
}

/* The whole predicate scan: tscan, then tnext until CURSOR 0. */
static int mc_scan(struct tb_mc *m, const struct tb_req *q, struct tb_res *r)
{
    char text[128];
    long long cursor = 0;
    size_t n = (size_t)sprintf(text, "tscan rows count=1000 fields=id where d prefix %s\r\n", q->scan);

    r->n = 0;
    if (bc_send_all(m->s.fd, text, n) < 0 || mc_page(m, r, &cursor) < 0)
        return -1;
    while (cursor != 0) {
        n = (size_t)sprintf(text, "tnext %lld count=1000\r\n", cursor);
        if (bc_send_all(m->s.fd, text, n) < 0 || mc_page(m, r, &cursor) < 0)
            return -1;
    }
    return 0;
}

static long long mc_mem(void *conn)
{
    struct tb_mc *m = conn;
    char line[256];
    long long v = -1;

    if (bc_send_all(m->s.fd, "tinfo rows\r\n", 12) < 0)
        return -1;
    while (bc_line(&m->s, line, sizeof line) == 0 && strcmp(line, "END") != 0 && strncmp(line, "NOT_FOUND", 9) != 0)
        sscanf(line, "STAT bytes %lld", &v);
    return v;
}

static int mc_request(void *conn, const struct tb_req *q, struct tb_res *r)
{
    struct tb_mc *m = conn;
    char text[256];
    struct tb_row row;
    size_t n = 0;

    switch (q->op) {
    case OP_INSERT:
        tb_row(q->id, &row);
        mc_tinsert(text, &n, &row);
        r->n = 1;
        return bc_send_all(m->s.fd, text, n) < 0 ? -1 : mc_stored(m);
    case OP_UPDATE:
        n = (size_t)sprintf(text, "tupdate rows id=%lld c=%lld\r\n", q->id, q->c);
        r->n = 1;
        return bc_send_all(m->s.fd, text, n) < 0 ? -1 : mc_stored(m);
    case OP_GET:
        n = (size_t)sprintf(text, "tselect rows ab eq=%lld eq=%s count=10 nocursor\r\n", q->key, q->b);
        break;
    case OP_P10:
        n = (size_t)sprintf(text, "tselect rows bca eq=%s count=10 nocursor\r\n", q->b);
        break;
    case OP_P100:
        n = (size_t)sprintf(text, "tselect rows ab eq=%lld count=100 nocursor\r\n", q->key);
        break;
    case OP_RANGE:
        n = (size_t)sprintf(text, "tselect rows c ge=%lld lt=%lld count=50 nocursor\r\n", q->key, q->key + 50);
        break;
    case OP_SCAN:
        return mc_scan(m, q, r);
    default:
        return -1;
    }
    return mc_select(m, text, n, r);
}

static void *mc_open(const char *addr)
{
    struct tb_mc *m = calloc(1, sizeof *m);

    if (m != NULL && (m->s.fd = bc_connect_tcp(addr)) >= 0)
        return m;
    free(m);
    return NULL;
}

static void mc_close(void *conn)
{
    struct tb_mc *m = conn;

    close(m->s.fd);
    free(m);
}

static int mc_nothing(void *conn)
{
    (void)conn;
    return 0;
}

const struct tb_driver tb_mcds = { "mcds", mc_open, mc_close, mc_create, mc_nothing, mc_load, mc_request,
                                   mc_mem };
