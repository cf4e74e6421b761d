/*
 * kv.c - single memcached requests through libmemcached.
 *
 * Every request of a structure goes through here with the structure's
 * group key, so all of its keys live on the server that owns the group key
 * (libmemcached's *_by_key). Results are mapped to mcds statuses in the
 * sense each caller needs (add's NOT_STORED means "exists", append's means
 * "missing"), and every outcome is noted for mcds_last_detail (detail.c).
 *
 * When that server is the service address of an entry that names replicas
 * ("P=R"), the request goes through kvx.c instead: libmemcached knows only
 * the entry's first address and cannot tell a connect failure from a
 * connection lost after the request was written, so it could neither
 * follow a promotion nor retry exactly when the change surely was not
 * applied. kvx.c sends the same request in the text protocol on the
 * extended-verb client's connections, which do both (xroute.c). Whether a
 * read may be answered by a replica is the caller's to say (the *_read
 * variants): a read that goes with a later cas or add, or that a writer
 * relies on, is the primary's.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

/* Whether group's server is the service address of a replica set. */
static int on_rset(mcds_t *h, const mcds__key_t *group)
{
    return mcds__rset_of_key(h, group->s, group->len) != NULL;
}

/* Notes the outcome of a request to group's server; returns rc. */
static memcached_return_t noted(mcds_t *h, const mcds__key_t *group,
                                memcached_return_t rc)
{
    mcds__detail_memcached(h, group, rc);
    return rc;
}

void mcds__val_free(mcds__val_t *v)
{
    free(v->data);
    v->data = NULL;
    v->len = 0;
    v->cas = 0;
    v->found = 0;
}

static mcds_status_t val_copy(mcds__val_t *v, memcached_result_st *r)
{
    size_t len = memcached_result_length(r);
    const char *src = memcached_result_value(r);

    v->data = malloc(len + 1);
    if (v->data == NULL)
        return MCDS_NO_MEMORY;
    if (len > 0)
        memcpy(v->data, src, len);
    v->data[len] = '\0';
    v->len = len;
    v->cas = memcached_result_cas(r);
    v->found = 1;
    return MCDS_OK;
}

/* Index of the still-empty slot whose key is (key, len), searching from
 * *next (servers answer in request order, so this is usually immediate). */
static long match_key(const mcds__key_t *keys, const mcds__val_t *out,
                      size_t n, size_t *next, const char *key, size_t len)
{
    size_t i;

    for (i = 0; i < n; i++) {
        size_t j = (*next + i) % n;
        if (!out[j].found && keys[j].len == len &&
            memcmp(keys[j].s, key, len) == 0) {
            *next = (j + 1) % n;
            return (long)j;
        }
    }
    return -1;
}

/* Reads every reply to an mget. The result lives on the stack: libmemcached
 * frees a heap-allocated one by itself at the end of the replies. */
static mcds_status_t fetch_all(mcds_t *h, const mcds__key_t *group,
                               const mcds__key_t *keys, size_t n,
                               mcds__val_t *out)
{
    memcached_result_st res;
    memcached_result_st *r = memcached_result_create(h->mc, &res);
    memcached_return_t rc = MEMCACHED_SUCCESS;
    mcds_status_t st = MCDS_OK;
    size_t next = 0;

    if (r == NULL)
        return MCDS_NO_MEMORY;
    while (memcached_fetch_result(h->mc, r, &rc) != NULL) {
        long i = match_key(keys, out, n, &next, memcached_result_key_value(r),
                           memcached_result_key_length(r));
        if (i >= 0 && st == MCDS_OK)
            st = val_copy(&out[i], r);
    }
    memcached_result_free(r);
    if (rc == MEMCACHED_END || rc == MEMCACHED_NOTFOUND)
        rc = MEMCACHED_SUCCESS; /* the end of the values, found or not */
    noted(h, group, rc);
    if (st == MCDS_OK)
        st = mcds__from_memcached(rc);
    return st;
}

/* One multi-get on a replica set (kvx.c); out emptied on failure. */
static mcds_status_t mget_rset(mcds_t *h, const mcds__key_t *group,
                               const mcds__key_t *keys, size_t n,
                               mcds__val_t *out, int replica_ok)
{
    mcds_status_t st = mcds__kvx_mget(h, group, keys, n, out, replica_ok);
    size_t i;

    if (st != MCDS_OK) {
        for (i = 0; i < n; i++)
            mcds__val_free(&out[i]);
    }
    return st;
}

static mcds_status_t mget_at(mcds_t *h, const mcds__key_t *group,
                             const mcds__key_t *keys, size_t n,
                             mcds__val_t *out, int replica_ok)
{
    const char **kp;
    size_t *kl;
    memcached_return_t rc;
    mcds_status_t st;
    size_t i;

    for (i = 0; i < n; i++)
        memset(&out[i], 0, sizeof out[i]);
    if (on_rset(h, group))
        return mget_rset(h, group, keys, n, out, replica_ok);
    kp = malloc(n * sizeof *kp);
    kl = malloc(n * sizeof *kl);
    if (kp == NULL || kl == NULL) {
        free(kp);
        free(kl);
        return MCDS_NO_MEMORY;
    }
    for (i = 0; i < n; i++) {
        kp[i] = keys[i].s;
        kl[i] = keys[i].len;
    }
    rc = noted(h, group,
               memcached_mget_by_key(h->mc, group->s, group->len, kp, kl, n));
    st = mcds__from_memcached(rc);
    if (st == MCDS_OK)
        st = fetch_all(h, group, keys, n, out);
    free(kp);
    free(kl);
    if (st != MCDS_OK) {
        for (i = 0; i < n; i++)
            mcds__val_free(&out[i]);
    }
    return st;
}

mcds_status_t mcds__mget(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *keys, size_t n, mcds__val_t *out)
{
    return mget_at(h, group, keys, n, out, 0);
}

mcds_status_t mcds__mget_read(mcds_t *h, const mcds__key_t *group,
                              const mcds__key_t *keys, size_t n,
                              mcds__val_t *out)
{
    return mget_at(h, group, keys, n, out, 1);
}

mcds_status_t mcds__get(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, mcds__val_t *v)
{
    mcds_status_t st = mget_at(h, group, key, 1, v, 0);
    if (st == MCDS_OK && !v->found)
        st = MCDS_NOT_FOUND;
    return st;
}

mcds_status_t mcds__get_read(mcds_t *h, const mcds__key_t *group,
                             const mcds__key_t *key, mcds__val_t *v)
{
    mcds_status_t st = mget_at(h, group, key, 1, v, 1);
    if (st == MCDS_OK && !v->found)
        st = MCDS_NOT_FOUND;
    return st;
}

mcds_status_t mcds__add(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_store(h, group, "add", key, data, len, ttl, 0,
                               MCDS_EXISTS);
    rc = noted(h, group, memcached_add_by_key(
        h->mc, group->s, group->len, key->s, key->len, data, len, ttl, 0));
    if (rc == MEMCACHED_NOTSTORED || rc == MEMCACHED_DATA_EXISTS)
        return MCDS_EXISTS;
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__set(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_store(h, group, "set", key, data, len, ttl, 0,
                               mcds__from_memcached(MEMCACHED_NOTSTORED));
    rc = noted(h, group, memcached_set_by_key(
        h->mc, group->s, group->len, key->s, key->len, data, len, ttl, 0));
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__append(mcds_t *h, const mcds__key_t *group,
                           const mcds__key_t *key, const void *data,
                           size_t len)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_store(h, group, "append", key, data, len, 0, 0,
                               MCDS_NOT_FOUND);
    rc = noted(h, group, memcached_append_by_key(
        h->mc, group->s, group->len, key->s, key->len, data, len, 0, 0));
    if (rc == MEMCACHED_NOTSTORED || rc == MEMCACHED_NOTFOUND)
        return MCDS_NOT_FOUND;
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__cas(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl, uint64_t cas)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_store(h, group, "cas", key, data, len, ttl, cas,
                               mcds__from_memcached(MEMCACHED_NOTSTORED));
    rc = noted(h, group, memcached_cas_by_key(
        h->mc, group->s, group->len, key->s, key->len, data, len, ttl, 0, cas));
    if (rc == MEMCACHED_DATA_EXISTS)
        return MCDS_EXISTS;
    if (rc == MEMCACHED_NOTFOUND)
        return MCDS_NOT_FOUND;
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__delete(mcds_t *h, const mcds__key_t *group,
                           const mcds__key_t *key)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_delete(h, group, key);
    rc = noted(h, group, memcached_delete_by_key(
        h->mc, group->s, group->len, key->s, key->len, 0));
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__incr(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *key, uint64_t delta,
                         uint64_t *value)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_arith(h, group, "incr", key, delta, value);
    rc = noted(h, group, memcached_increment_by_key(
        h->mc, group->s, group->len, key->s, key->len, delta, value));
    return mcds__from_memcached(rc);
}

mcds_status_t mcds__decr(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *key, uint64_t delta,
                         uint64_t *value)
{
    memcached_return_t rc;

    if (on_rset(h, group))
        return mcds__kvx_arith(h, group, "decr", key, delta, value);
    rc = noted(h, group, memcached_decrement_by_key(
        h->mc, group->s, group->len, key->s, key->len, delta, value));
    return mcds__from_memcached(rc);
}
