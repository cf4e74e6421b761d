/*
 * array.c - an array that is read often and changed rarely.
 *
 * The whole array is one value: its elements as blobs (varint length +
 * bytes) back to back. Readers get it whole, so they always see the array
 * before or after a change. Writers change it with gets and cas, retrying
 * with backoff when another writer got in first; a missing array is
 * created with add. No lock is needed: a writer that crashes mid-change
 * leaves nothing behind.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define BACKOFF_CAP_MS 50u

static int in_items(const mcds_item_t *v, size_t n, const char *data,
                    size_t len)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (v[i].len == len && (len == 0 || memcmp(v[i].data, data, len) == 0))
            return 1;
    }
    return 0;
}

static mcds_status_t check_items(const mcds_item_t *v, size_t n)
{
    size_t i;

    if (n > 0 && v == NULL)
        return MCDS_INVALID;
    for (i = 0; i < n; i++) {
        if (v[i].data == NULL && v[i].len > 0)
            return MCDS_INVALID;
    }
    return MCDS_OK;
}

/* The new value: old elements not in del, then add. */
static mcds_status_t build(const mcds__list_t *old, const mcds_item_t *add,
                           size_t nadd, const mcds_item_t *del, size_t ndel,
                           mcds__buf_t *out)
{
    mcds_status_t st = MCDS_OK;
    size_t i;

    for (i = 0; st == MCDS_OK && i < old->n; i++) {
        if (!in_items(del, ndel, old->v[i].data, old->v[i].len))
            st = mcds__buf_put_blob(out, old->v[i].data, old->v[i].len);
    }
    if (st == MCDS_OK)
        st = mcds__list_encode(add, nadd, out);
    return st;
}

/* One read-modify-write: MCDS_OK, or MCDS_EXISTS when it lost a race. */
static mcds_status_t change_once(mcds_t *h, const mcds__key_t *key,
                                 const mcds_item_t *add, size_t nadd,
                                 const mcds_item_t *del, size_t ndel)
{
    mcds__list_t old;
    mcds__buf_t out;
    mcds__val_t v;
    mcds_status_t st = mcds__get(h, key, key, &v);

    if (st != MCDS_OK && st != MCDS_NOT_FOUND)
        return st;
    mcds__list_init(&old);
    mcds__buf_init(&out);
    if (v.found)
        st = mcds__list_parse(&old, v.data, v.len);
    else
        st = MCDS_OK;
    if (st == MCDS_OK)
        st = build(&old, add, nadd, del, ndel, &out);
    if (st == MCDS_OK && v.found)
        st = mcds__cas(h, key, key, out.p, out.len, 0, v.cas);
    else if (st == MCDS_OK)
        st = mcds__add(h, key, key, out.p, out.len, 0);
    mcds__buf_free(&out);
    mcds__list_free(&old);
    mcds__val_free(&v);
    return st == MCDS_NOT_FOUND ? MCDS_EXISTS : st;
}

mcds_status_t mcds_array_change(mcds_t *h, const char *name,
                                const mcds_item_t *add, size_t nadd,
                                const mcds_item_t *del, size_t ndel)
{
    mcds__key_t key;
    int64_t deadline;
    unsigned delay = 1;
    mcds_status_t st;

    if (h == NULL || check_items(add, nadd) != MCDS_OK ||
        check_items(del, ndel) != MCDS_OK)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "arr", name);
    if (st != MCDS_OK)
        return st;
    deadline = mcds__mono_ms() + h->retry_ms;
    for (;;) {
        st = change_once(h, &key, add, nadd, del, ndel);
        if (st != MCDS_EXISTS)
            return st;
        if (!mcds__backoff(h, &delay, BACKOFF_CAP_MS, deadline))
            return MCDS_CONFLICT;
    }
}

mcds_status_t mcds_array_fetch(mcds_t *h, const char *name,
                               mcds_item_t **items, size_t *count)
{
    mcds__key_t key;
    mcds__val_t v;
    mcds_status_t st;

    if (h == NULL || items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    st = mcds__key_base(&key, "arr", name);
    if (st == MCDS_OK)
        st = mcds__get_read(h, &key, &key, &v);
    if (st == MCDS_NOT_FOUND)
        return MCDS_OK;
    if (st != MCDS_OK)
        return st;
    st = mcds__items_unpack(v.data, v.len, items, count);
    mcds__val_free(&v);
    return st;
}

mcds_status_t mcds_array_delete(mcds_t *h, const char *name)
{
    mcds__key_t key;
    mcds_status_t st;

    if (h == NULL)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "arr", name);
    if (st != MCDS_OK)
        return st;
    return mcds__delete(h, &key, &key);
}
