/*
 * table.c - a set of strings with fast membership, and its hash variant.
 *
 * memcached cannot list keys, so a table keeps two things (as in the
 * article): a shadow key per member, "<base>:m:<member>", for the
 * membership test (one get), and one key, "<base>", with the member list
 * (blobs, as in array.c). The hash variant stores each field's value in its
 * shadow key; the list holds only the field names.
 *
 * Writers (add, delete, set, drop) take the table's lock ("<base>:lock",
 * see lock.c), then change the shadow key and the list. The list is also
 * written with gets/cas, so even a writer whose lock expired cannot lose
 * another's change to it. Order of writes: add sets the shadow key before
 * listing the member, delete unlists it before removing the shadow key, so
 * a writer that dies midway leaves a member that answers "has" but is not
 * listed; the next add or delete of that member repairs it.
 *
 * All keys of a table sit on the server of "<base>".
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define LOCK_TTL_S 10u
#define BACKOFF_CAP_MS 50u

typedef struct table {
    mcds_t *h;
    mcds__key_t base; /* the member list, and the group key */
    mcds__key_t lock;
} table_t;

typedef enum { LIST_ADD, LIST_REMOVE } list_op_t;

static mcds_status_t table_open(table_t *t, mcds_t *h, const char *kind,
                                const char *name)
{
    mcds_status_t st;

    if (h == NULL)
        return MCDS_INVALID;
    t->h = h;
    st = mcds__key_base(&t->base, kind, name);
    if (st != MCDS_OK)
        return st;
    t->lock = t->base;
    return mcds__key_add(&t->lock, ":lock");
}

static mcds_status_t member_key(const table_t *t, const void *m, size_t len,
                                mcds__key_t *k)
{
    mcds_status_t st;

    if (m == NULL && len > 0)
        return MCDS_INVALID;
    *k = t->base;
    st = mcds__key_add(k, ":m:");
    if (st == MCDS_OK)
        st = mcds__key_add_escaped(k, m, len);
    return st;
}

/* ---- the table lock ---- */

static mcds_status_t table_lock(table_t *t, mcds_lock_t **l)
{
    mcds_status_t st = mcds__lock_new_at(t->h, &t->lock, &t->base, LOCK_TTL_S,
                                         l);
    if (st != MCDS_OK)
        return st;
    st = mcds_lock_acquire(*l, t->h->retry_ms);
    if (st != MCDS_OK) {
        mcds_lock_free(*l);
        *l = NULL;
    }
    return st;
}

/* Releases; a lock that expired meanwhile is not an error here, the list
 * was written with cas. */
static void table_unlock(mcds_lock_t *l)
{
    mcds_lock_release(l);
    mcds_lock_free(l);
}

/* ---- the member list ---- */

/* The list with member added or removed (*changed = 0 if no change). */
static mcds_status_t list_edit(const mcds__list_t *l, list_op_t op,
                               const void *m, size_t len, mcds__buf_t *out,
                               int *changed)
{
    long at = mcds__list_find(l, m, len);
    size_t i;
    mcds_status_t st = MCDS_OK;

    *changed = op == LIST_ADD ? at < 0 : at >= 0;
    if (!*changed)
        return MCDS_OK;
    for (i = 0; st == MCDS_OK && i < l->n; i++) {
        if ((long)i != at)
            st = mcds__buf_put_blob(out, l->v[i].data, l->v[i].len);
    }
    if (st == MCDS_OK && op == LIST_ADD)
        st = mcds__buf_put_blob(out, m, len);
    return st;
}

/* One gets/cas round: MCDS_OK, or MCDS_EXISTS when it lost a race. */
static mcds_status_t list_update_once(table_t *t, list_op_t op, const void *m,
                                      size_t len, int *changed)
{
    mcds__list_t l;
    mcds__buf_t out;
    mcds__val_t v;
    mcds_status_t st = mcds__get(t->h, &t->base, &t->base, &v);

    if (st != MCDS_OK && st != MCDS_NOT_FOUND)
        return st;
    mcds__list_init(&l);
    mcds__buf_init(&out);
    st = v.found ? mcds__list_parse(&l, v.data, v.len) : MCDS_OK;
    if (st == MCDS_OK)
        st = list_edit(&l, op, m, len, &out, changed);
    if (st == MCDS_OK && *changed && v.found)
        st = mcds__cas(t->h, &t->base, &t->base, out.p, out.len, 0, v.cas);
    else if (st == MCDS_OK && *changed)
        st = mcds__add(t->h, &t->base, &t->base, out.p, out.len, 0);
    mcds__buf_free(&out);
    mcds__list_free(&l);
    mcds__val_free(&v);
    return st == MCDS_NOT_FOUND ? MCDS_EXISTS : st;
}

static mcds_status_t list_update(table_t *t, list_op_t op, const void *m,
                                 size_t len, int *changed)
{
    int64_t deadline = mcds__mono_ms() + t->h->retry_ms;
    unsigned delay = 1;
    mcds_status_t st;

    for (;;) {
        st = list_update_once(t, op, m, len, changed);
        if (st != MCDS_EXISTS)
            return st;
        if (!mcds__backoff(t->h, &delay, BACKOFF_CAP_MS, deadline))
            return MCDS_CONFLICT;
    }
}

static mcds_status_t list_fetch(table_t *t, mcds_item_t **items,
                                size_t *count)
{
    mcds__val_t v;
    mcds_status_t st;

    if (items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    st = mcds__get(t->h, &t->base, &t->base, &v);
    if (st == MCDS_NOT_FOUND)
        return MCDS_OK;
    if (st != MCDS_OK)
        return st;
    st = mcds__items_unpack(v.data, v.len, items, count);
    mcds__val_free(&v);
    return st;
}

/* ---- generic operations (table and hash) ---- */

/* Sets the shadow key to value, lists the member. *added: was not listed. */
static mcds_status_t table_put(table_t *t, const void *m, size_t mlen,
                               const void *value, size_t vlen, int *added)
{
    mcds__key_t mk;
    mcds_lock_t *l;
    mcds_status_t st = member_key(t, m, mlen, &mk);

    if (st == MCDS_OK)
        st = table_lock(t, &l);
    if (st != MCDS_OK)
        return st;
    st = mcds__set(t->h, &t->base, &mk, value, vlen, 0);
    if (st == MCDS_OK)
        st = list_update(t, LIST_ADD, m, mlen, added);
    table_unlock(l);
    return st;
}

/* Unlists the member, removes its shadow key: MCDS_OK or NOT_FOUND. */
static mcds_status_t table_remove(table_t *t, const void *m, size_t mlen)
{
    mcds__key_t mk;
    mcds_lock_t *l;
    int unlisted = 0;
    mcds_status_t st = member_key(t, m, mlen, &mk);

    if (st == MCDS_OK)
        st = table_lock(t, &l);
    if (st != MCDS_OK)
        return st;
    st = list_update(t, LIST_REMOVE, m, mlen, &unlisted);
    if (st == MCDS_OK)
        st = mcds__delete(t->h, &t->base, &mk);
    table_unlock(l);
    if (st == MCDS_NOT_FOUND && unlisted)
        st = MCDS_OK;
    return st;
}

/* Deletes every shadow key and the list. */
static mcds_status_t table_drop(table_t *t)
{
    mcds_item_t *items = NULL;
    size_t n = 0, i;
    mcds_lock_t *l;
    mcds_status_t st = table_lock(t, &l);

    if (st != MCDS_OK)
        return st;
    st = list_fetch(t, &items, &n);
    for (i = 0; st == MCDS_OK && i < n; i++) {
        mcds__key_t mk;
        st = member_key(t, items[i].data, items[i].len, &mk);
        if (st == MCDS_OK)
            st = mcds__delete(t->h, &t->base, &mk);
        if (st == MCDS_NOT_FOUND)
            st = MCDS_OK;
    }
    if (st == MCDS_OK)
        st = mcds__delete(t->h, &t->base, &t->base);
    if (st == MCDS_NOT_FOUND)
        st = MCDS_OK;
    table_unlock(l);
    mcds_items_free(items);
    return st;
}

/* ---- table ---- */

mcds_status_t mcds_table_add(mcds_t *h, const char *name, const void *member,
                             size_t len)
{
    table_t t;
    int added = 0;
    mcds_status_t st = table_open(&t, h, "tab", name);

    if (st == MCDS_OK)
        st = table_put(&t, member, len, "1", 1, &added);
    if (st == MCDS_OK && !added)
        st = MCDS_EXISTS;
    return st;
}

mcds_status_t mcds_table_delete(mcds_t *h, const char *name,
                                const void *member, size_t len)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "tab", name);

    if (st == MCDS_OK)
        st = table_remove(&t, member, len);
    return st;
}

mcds_status_t mcds_table_has(mcds_t *h, const char *name, const void *member,
                             size_t len)
{
    table_t t;
    mcds__key_t mk;
    mcds__val_t v;
    mcds_status_t st = table_open(&t, h, "tab", name);

    if (st == MCDS_OK)
        st = member_key(&t, member, len, &mk);
    if (st == MCDS_OK)
        st = mcds__get_read(h, &t.base, &mk, &v);
    if (st == MCDS_OK)
        mcds__val_free(&v);
    return st;
}

mcds_status_t mcds_table_fetch(mcds_t *h, const char *name,
                               mcds_item_t **members, size_t *count)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "tab", name);

    if (st == MCDS_OK)
        st = list_fetch(&t, members, count);
    return st;
}

mcds_status_t mcds_table_drop(mcds_t *h, const char *name)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "tab", name);

    if (st == MCDS_OK)
        st = table_drop(&t);
    return st;
}

/* ---- hash ---- */

mcds_status_t mcds_hash_set(mcds_t *h, const char *name, const void *field,
                            size_t flen, const void *value, size_t vlen)
{
    table_t t;
    int added = 0;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (st == MCDS_OK && value == NULL && vlen > 0)
        st = MCDS_INVALID;
    if (st == MCDS_OK)
        st = table_put(&t, field, flen, value, vlen, &added);
    return st;
}

mcds_status_t mcds_hash_get(mcds_t *h, const char *name, const void *field,
                            size_t flen, char **value, size_t *vlen)
{
    table_t t;
    mcds__key_t mk;
    mcds__val_t v;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (st == MCDS_OK && (value == NULL || vlen == NULL))
        st = MCDS_INVALID;
    if (st == MCDS_OK)
        st = member_key(&t, field, flen, &mk);
    if (st == MCDS_OK)
        st = mcds__get_read(h, &t.base, &mk, &v);
    if (st != MCDS_OK)
        return st;
    *value = v.data;
    *vlen = v.len;
    return MCDS_OK;
}

mcds_status_t mcds_hash_delete(mcds_t *h, const char *name, const void *field,
                               size_t flen)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (st == MCDS_OK)
        st = table_remove(&t, field, flen);
    return st;
}

mcds_status_t mcds_hash_fields(mcds_t *h, const char *name,
                               mcds_item_t **fields, size_t *count)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (st == MCDS_OK)
        st = list_fetch(&t, fields, count);
    return st;
}

/* Pairs (field, value) for the fields whose shadow key was found. */
static mcds_status_t pair_up(const mcds_item_t *fields,
                             const mcds__val_t *vals, size_t n,
                             mcds__list_t *pairs)
{
    mcds_status_t st = MCDS_OK;
    size_t i;

    for (i = 0; st == MCDS_OK && i < n; i++) {
        if (!vals[i].found)
            continue;
        st = mcds__list_push(pairs, fields[i].data, fields[i].len);
        if (st == MCDS_OK)
            st = mcds__list_push(pairs, vals[i].data, vals[i].len);
    }
    return st;
}

static mcds_status_t fetch_values(table_t *t, const mcds_item_t *fields,
                                  size_t n, mcds_item_t **items,
                                  size_t *count)
{
    mcds__key_t *keys = malloc(n * sizeof *keys);
    mcds__val_t *vals = calloc(n, sizeof *vals);
    mcds__list_t pairs;
    mcds_status_t st = keys && vals ? MCDS_OK : MCDS_NO_MEMORY;
    size_t i;

    mcds__list_init(&pairs);
    for (i = 0; st == MCDS_OK && i < n; i++)
        st = member_key(t, fields[i].data, fields[i].len, &keys[i]);
    if (st == MCDS_OK)
        st = mcds__mget(t->h, &t->base, keys, n, vals);
    if (st == MCDS_OK)
        st = pair_up(fields, vals, n, &pairs);
    if (st == MCDS_OK)
        st = mcds__items_pack(pairs.v, pairs.n, items);
    if (st == MCDS_OK)
        *count = pairs.n / 2;
    for (i = 0; vals != NULL && i < n; i++)
        mcds__val_free(&vals[i]);
    mcds__list_free(&pairs);
    free(vals);
    free(keys);
    return st;
}

mcds_status_t mcds_hash_fetch(mcds_t *h, const char *name,
                              mcds_item_t **items, size_t *count)
{
    table_t t;
    mcds_item_t *fields = NULL;
    size_t n = 0;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    if (st == MCDS_OK)
        st = list_fetch(&t, &fields, &n);
    if (st == MCDS_OK && n > 0)
        st = fetch_values(&t, fields, n, items, count);
    mcds_items_free(fields);
    return st;
}

mcds_status_t mcds_hash_drop(mcds_t *h, const char *name)
{
    table_t t;
    mcds_status_t st = table_open(&t, h, "hash", name);

    if (st == MCDS_OK)
        st = table_drop(&t);
    return st;
}
