/*
 * kvx.c - kv.c's classic requests on a shard that names replicas: sent in
 * the text protocol by the extended-verb client (xconn.c), whose calls on
 * a replica set follow the shard's primary (xroute.c), where libmemcached
 * knows only the service address. Replies map to the statuses kv.c makes
 * of libmemcached's results for the same replies, so a structure behaves
 * the same on either path. Items are stored with flags 0, as libmcds
 * stores them through libmemcached.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

/* A reply line that is no success of the request, as libmemcached would
 * map it: the line is the detail; the connection is closed after ERROR
 * (the server may read a data block as commands) and anything unknown. */
static mcds_status_t kvx_error(xcall_t *x, size_t off, size_t len)
{
    const char *p = x->c->buf + off;
    mcds_status_t st = MCDS_SERVER_ERROR;
    int keep = 1;

    if (mcds__x_line_starts(p, len, "SERVER_ERROR object too large"))
        st = MCDS_TOO_LARGE;
    else if (mcds__x_line_is(p, len, "ERROR") ||
             (!mcds__x_line_starts(p, len, "SERVER_ERROR") &&
              !mcds__x_line_starts(p, len, "CLIENT_ERROR")))
        keep = 0;
    mcds__x_set_detail(x, keep ? "" : "unexpected reply: ", p,
                       len > 200 ? 200 : len);
    if (!keep)
        mcds__x_conn_close(x->c);
    return st;
}

/* A reply line a request expects, and the status it means. */
typedef struct kvx_reply {
    const char *line;
    mcds_status_t st;
} kvx_reply_t;

/* The status of the reply line at off (x's buffer) among the n lines a
 * request expects, or kvx_error's. */
static mcds_status_t kvx_map(xcall_t *x, size_t off, size_t len,
                             const kvx_reply_t *r, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (mcds__x_line_is(x->c->buf + off, len, r[i].line))
            return r[i].st;
    return kvx_error(x, off, len);
}

/* Starts a call on the server of group. */
static mcds_status_t kvx_begin(xcall_t *x, mcds_t *h,
                               const mcds__key_t *group)
{
    return mcds__x_begin_key(x, h, group->s, group->len);
}

/* ---- retrieval ---- */

/* The still-empty slot whose key is (key, len), or -1. */
static long kvx_slot(const mcds__key_t *keys, const mcds__val_t *out,
                     size_t n, const char *key, size_t len)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!out[i].found && keys[i].len == len &&
            memcmp(keys[i].s, key, len) == 0)
            return (long)i;
    return -1;
}

/* "VALUE <key> <flags> <bytes> <cas>" at p: the key's place and the
 * numbers; 0, or -1 when malformed. */
static int kvx_value_line(const char *p, size_t len, const char **key,
                          size_t *klen, uint64_t *bytes, uint64_t *cas)
{
    const char *end = p + len, *w[4];
    size_t wl[4];
    int i;
    uint64_t flags;

    if (!mcds__x_line_starts(p, len, "VALUE "))
        return -1;
    p += 6;
    for (i = 0; i < 4; i++) {
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        w[i] = p;
        wl[i] = (size_t)((sp ? sp : end) - p);
        if (wl[i] == 0 || (i < 3 && sp == NULL) || (i == 3 && sp != NULL))
            return -1;
        p = sp ? sp + 1 : end;
    }
    if (mcds__x_parse_u64(w[1], wl[1], &flags) != 0 ||
        mcds__x_parse_u64(w[2], wl[2], bytes) != 0 ||
        mcds__x_parse_u64(w[3], wl[3], cas) != 0 || *bytes > SIZE_MAX / 2)
        return -1;
    *key = w[0];
    *klen = wl[0];
    return 0;
}

/* Copies the data block of len bytes at off into v. */
static mcds_status_t kvx_copy(xcall_t *x, size_t off, size_t len,
                              uint64_t cas, mcds__val_t *v)
{
    v->data = malloc(len + 1);
    if (v->data == NULL)
        return MCDS_NO_MEMORY;
    memcpy(v->data, x->c->buf + off, len);
    v->data[len] = '\0';
    v->len = len;
    v->cas = cas;
    v->found = 1;
    return MCDS_OK;
}

/* Reads the VALUE blocks of a gets reply up to END into out. */
static mcds_status_t kvx_values(xcall_t *x, const mcds__key_t *keys,
                                size_t n, mcds__val_t *out)
{
    for (;;) {
        size_t off, len, doff;
        uint64_t bytes, cas;
        const char *key;
        size_t klen;
        long slot;
        mcds_status_t st = mcds__x_read_line(x, &off, &len);

        if (st != MCDS_OK)
            return st;
        if (mcds__x_line_is(x->c->buf + off, len, "END"))
            return MCDS_OK;
        if (kvx_value_line(x->c->buf + off, len, &key, &klen, &bytes,
                           &cas) != 0)
            return kvx_error(x, off, len);
        slot = kvx_slot(keys, out, n, key, klen);
        st = mcds__x_data_block(x, (size_t)bytes, &doff);
        if (st == MCDS_OK && slot >= 0)
            st = kvx_copy(x, doff, (size_t)bytes, cas, &out[slot]);
        if (st != MCDS_OK)
            return st;
    }
}

mcds_status_t mcds__kvx_mget(mcds_t *h, const mcds__key_t *group,
                             const mcds__key_t *keys, size_t n,
                             mcds__val_t *out, int replica_ok)
{
    mcds__buf_t line;
    xcall_t x;
    mcds_status_t st;
    size_t i;

    if (n == 0)
        return MCDS_OK;
    mcds__buf_init(&line);
    st = mcds__buf_put(&line, "gets", 4);
    for (i = 0; i < n && st == MCDS_OK; i++) {
        st = mcds__buf_put(&line, " ", 1);
        if (st == MCDS_OK)
            st = mcds__buf_put(&line, keys[i].s, keys[i].len);
    }
    if (st == MCDS_OK)
        st = mcds__buf_put(&line, "\r\n", 2);
    if (st != MCDS_OK) {
        mcds__buf_free(&line);
        return st;
    }
    st = kvx_begin(&x, h, group);
    x.primary_only = !replica_ok;
    if (st == MCDS_OK)
        st = mcds__x_send_line(&x, line.p, line.len);
    if (st == MCDS_OK)
        st = kvx_values(&x, keys, n, out);
    mcds__buf_free(&line);
    return mcds__x_end(&x, st);
}

/* ---- storage, deletion, arithmetic ---- */

mcds_status_t mcds__kvx_store(mcds_t *h, const mcds__key_t *group,
                              const char *verb, const mcds__key_t *key,
                              const void *data, size_t len, time_t ttl,
                              uint64_t cas, mcds_status_t not_stored)
{
    char line[MCDS_KEY_MAX + 128];
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;

    n = (size_t)snprintf(line, sizeof line, "%s %.*s 0 %lld %zu", verb,
                         (int)key->len, key->s, (long long)ttl, len);
    if (cas != 0)
        n += (size_t)snprintf(line + n, sizeof line - n, " %" PRIu64, cas);
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = kvx_begin(&x, h, group);
    if (st == MCDS_OK)
        st = mcds__x_send_block(&x, line, n, data, len);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
    if (st == MCDS_OK) {
        const kvx_reply_t r[] = { { "STORED", MCDS_OK }, { "NOT_STORED", not_stored },
                                  { "EXISTS", MCDS_EXISTS }, { "NOT_FOUND", MCDS_NOT_FOUND } };
        st = kvx_map(&x, off, llen, r, sizeof r / sizeof r[0]);
    }
    return mcds__x_end(&x, st);
}

mcds_status_t mcds__kvx_delete(mcds_t *h, const mcds__key_t *group,
                               const mcds__key_t *key)
{
    char line[MCDS_KEY_MAX + 16];
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;

    n = (size_t)snprintf(line, sizeof line, "delete %.*s\r\n",
                         (int)key->len, key->s);
    st = kvx_begin(&x, h, group);
    if (st == MCDS_OK)
        st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
    if (st == MCDS_OK) {
        const kvx_reply_t r[] = { { "DELETED", MCDS_OK }, { "NOT_FOUND", MCDS_NOT_FOUND } };
        st = kvx_map(&x, off, llen, r, sizeof r / sizeof r[0]);
    }
    return mcds__x_end(&x, st);
}

mcds_status_t mcds__kvx_arith(mcds_t *h, const mcds__key_t *group,
                              const char *verb, const mcds__key_t *key,
                              uint64_t delta, uint64_t *value)
{
    char line[MCDS_KEY_MAX + 48];
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;

    n = (size_t)snprintf(line, sizeof line, "%s %.*s %" PRIu64 "\r\n", verb,
                         (int)key->len, key->s, delta);
    st = kvx_begin(&x, h, group);
    if (st == MCDS_OK)
        st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &llen);
    if (st == MCDS_OK) {
        const char *p = x.c->buf + off;
        if (mcds__x_line_is(p, llen, "NOT_FOUND"))
            st = MCDS_NOT_FOUND;
        else if (mcds__x_parse_u64(p, llen, value) != 0)
            st = kvx_error(&x, off, llen);
    }
    return mcds__x_end(&x, st);
}
