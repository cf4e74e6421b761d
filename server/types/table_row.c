/*
 * table_row: a table's rows: writes (insert, put, update with a version
 * check), deletes and reads by primary key.
 *
 * A write computes, for each index, the entry of the old row and that of
 * the new one (no lookup of anything else), allocates every new entry and
 * the new values first, and only then, when everything is in hand,
 * unlinks the old entries and links the new ones: a write that finds no
 * memory changes nothing. All of it under the table's write lock, so a
 * reader never sees a row without its entries or under a stale one.
 */
#include <stdlib.h>
#include <string.h>

#include "types/table_int.h"

size_t table_vals_size(const struct table *t, const struct tbl_val *v) {
    size_t n = (size_t)t->s.nf * sizeof(struct tbl_val);
    int f;

    for (f = 0; f < t->s.nf; f++)
        if (!v[f].null && t->s.type[f] == TBL_BYTES)
            n += v[f].n;
    return n;
}

/* A values block holding a copy of v (vsize bytes); NULL when no memory. */
static struct tbl_val *table_vals_copy(const struct table *t, const struct tbl_val *v, size_t vsize) {
    struct tbl_val *b = malloc(vsize > 0 ? vsize : 1);
    uint8_t *data;
    int f;

    if (b == NULL)
        return NULL;
    data = (uint8_t *)(b + t->s.nf);
    for (f = 0; f < t->s.nf; f++) {
        b[f] = v[f];
        if (!v[f].null && t->s.type[f] == TBL_BYTES) {
            if (v[f].n > 0)
                memcpy(data, v[f].p, v[f].n);
            b[f].p = data;
            data += v[f].n;
        } else {
            b[f].p = NULL;
            b[f].n = 0;
        }
    }
    return b;
}

void table_row_free(struct table *t, struct tbl_row *r) {
    table_charge(t, -(long)(sizeof(*r) + r->vsize));
    free(r->v);
    free(r);
}

struct tskip_node *table_entry_node(struct table *t, struct tbl_index *ix, const struct tbl_val *v, struct tbl_row *r) {
    struct tskip_node *n = tskip_node_new(&ix->sl, table_entry_size(t, ix, v), r);

    if (n != NULL)
        table_entry_write(t, ix, v, tskip_key(n));
    return n;
}

/* The primary key entry of values v, malloc'ed (*n its size); NULL when
 * no memory. */
static uint8_t *table_pk(const struct table *t, const struct tbl_val *v, size_t *n) {
    uint8_t *k;

    *n = table_entry_size(t, t->idx[0], v);
    if ((k = malloc(*n > 0 ? *n : 1)) != NULL)
        table_entry_write(t, t->idx[0], v, k);
    return k;
}

/* One index's part of a write. */
struct tbl_step {
    struct tskip_node *add;     /* the new entry (NULL: none) */
    uint8_t *old;               /* the old entry (NULL: none), in the scratch block */
    size_t nold;
};

/* A write's plan: an entry to drop and one to add per index. */
struct tbl_plan {
    struct tbl_step step[TBL_INDEXES_MAX];
    uint8_t *scratch;           /* the old entries */
    long bytes;                 /* the memory the write adds */
};

static void table_plan_free(struct tbl_plan *p, int nidx) {
    int i;

    for (i = 0; i < nidx; i++)
        free(p->step[i].add);
    free(p->scratch);
}

/* Fills p for a row going from old (NULL: none) to nv (NULL: deleted),
 * covered by the indexes as its primary key (pk) says. False when no
 * memory (p freed). Entries that do not change are left alone. */
static bool table_plan(struct table *t, struct tbl_row *r, const struct tbl_val *old, const struct tbl_val *nv,
                       const uint8_t *pk, size_t npk, struct tbl_plan *p) {
    size_t total = 0, off = 0;
    int i;

    memset(p, 0, sizeof(*p));
    for (i = 0; i < t->nidx && old != NULL; i++)
        total += table_entry_size(t, t->idx[i], old);
    if (total > 0 && (p->scratch = malloc(total)) == NULL)
        return false;
    for (i = 0; i < t->nidx; i++) {
        struct tbl_index *ix = t->idx[i];
        struct tbl_step *s = &p->step[i];

        if (!table_index_covers(ix, pk, npk))
            continue;
        if (old != NULL) {
            s->old = p->scratch + off;
            s->nold = table_entry_size(t, ix, old);
            table_entry_write(t, ix, old, s->old);
            off += s->nold;
        }
        if (nv == NULL)
            continue;
        if ((s->add = table_entry_node(t, ix, nv, r)) == NULL) {
            table_plan_free(p, t->nidx);
            return false;
        }
        if (s->old != NULL && tskip_cmp(s->old, s->nold, tskip_key(s->add), s->add->klen) == 0) {
            free(s->add);
            s->add = NULL;
            s->old = NULL;
            continue;
        }
        p->bytes += (long)tskip_node_size(s->add);
    }
    return true;
}

/* Unlinks the old entries, links the new ones. */
static void table_plan_apply(struct table *t, struct tbl_plan *p) {
    int i;

    for (i = 0; i < t->nidx; i++) {
        struct tbl_step *s = &p->step[i];
        struct tskip_node *n;

        if (s->old != NULL && (n = tskip_remove(&t->idx[i]->sl, s->old, s->nold)) != NULL) {
            p->bytes -= (long)tskip_node_size(n);
            table_stat_entries(-1);
            free(n);
        }
        if (s->add != NULL) {
            tskip_insert(&t->idx[i]->sl, s->add);
            table_stat_entries(1);
            s->add = NULL;
        }
    }
    free(p->scratch);
    table_charge(t, p->bytes);
}

/* The values a write leaves: given fields from vals, the others from old
 * (an update) or NULL. */
static void table_merge(const struct table *t, enum tbl_write op, const bool *given, const struct tbl_val *vals,
                        const struct tbl_val *old, struct tbl_val *nv) {
    int f;

    for (f = 0; f < t->s.nf; f++) {
        if (given[f])
            nv[f] = vals[f];
        else if (op == TBL_UPDATE && old != NULL)
            nv[f] = old[f];
        else {
            memset(&nv[f], 0, sizeof(nv[f]));
            nv[f].null = true;
        }
    }
}

/* Under the write lock: the write itself, once the row (if any) is found. */
static enum tbl_result table_write_locked(struct table *t, enum tbl_write op, const bool *given,
                                          const struct tbl_val *vals, uint64_t ver, const uint8_t *pk, size_t npk,
                                          uint64_t *ver_out) {
    struct tskip_node *pn = tskip_find(&t->idx[0]->sl, pk, npk);
    struct tbl_row *r = pn != NULL ? pn->val : NULL, *fresh = NULL;
    struct tbl_val nv[TBL_FIELDS_MAX], *block;
    struct tbl_plan plan;
    size_t vsize;

    if (op == TBL_INSERT && r != NULL)
        return TBL_NOT_STORED;
    if (op == TBL_UPDATE && r == NULL)
        return TBL_NOT_FOUND;
    if (ver != 0 && (r == NULL || r->ver != ver))
        return r == NULL ? TBL_NOT_FOUND : TBL_EXISTS;
    table_merge(t, op, given, vals, r != NULL ? r->v : NULL, nv);
    vsize = table_vals_size(t, nv);
    if (!table_room(vsize + sizeof(*r) + 64 * (size_t)t->nidx + 2 * table_entry_size(t, t->idx[0], nv) * (size_t)t->nidx))
        return TBL_NOMEM;
    if (r == NULL && (r = fresh = calloc(1, sizeof(*r))) == NULL)
        return TBL_NOMEM;
    if ((block = table_vals_copy(t, nv, vsize)) == NULL ||
        !table_plan(t, r, fresh != NULL ? NULL : r->v, block, pk, npk, &plan)) {
        free(block);
        free(fresh);
        return TBL_NOMEM;
    }
    table_plan_apply(t, &plan);
    if (fresh != NULL) {
        table_stat_rows(1);
        table_charge(t, (long)sizeof(*r));
    } else {
        table_charge(t, -(long)r->vsize);
        free(r->v);
    }
    r->v = block;
    r->vsize = vsize;
    table_charge(t, (long)vsize);
    *ver_out = r->ver = ++t->ver;
    table_persist_put(t, r->ver, r->v);
    return TBL_OK;
}

enum tbl_result table_write(struct table *t, enum tbl_write op, const bool *given, const struct tbl_val *vals,
                            uint64_t ver, uint64_t *ver_out) {
    size_t npk;
    uint8_t *pk = table_pk(t, vals, &npk);
    enum tbl_result r;

    if (pk == NULL)
        return TBL_NOMEM;
    pthread_rwlock_wrlock(&t->lock);
    r = table_write_locked(t, op, given, vals, ver, pk, npk, ver_out);
    pthread_rwlock_unlock(&t->lock);
    free(pk);
    return r;
}

/* The primary key entry of key values in the key's order (as table_pk). */
static uint8_t *table_key_pk(const struct table *t, const struct tbl_val *key, size_t *n) {
    struct tbl_val v[TBL_FIELDS_MAX];
    int k;

    for (k = 0; k < t->s.nkey; k++)
        v[t->s.key[k]] = key[k];
    return table_pk(t, v, n);
}

enum tbl_result table_delete(struct table *t, const struct tbl_val *key, uint64_t ver) {
    struct tbl_plan plan;
    struct tskip_node *pn;
    struct tbl_row *r;
    enum tbl_result res = TBL_OK;
    size_t npk;
    uint8_t *pk;

    if ((pk = table_key_pk(t, key, &npk)) == NULL)
        return TBL_NOMEM;
    pthread_rwlock_wrlock(&t->lock);
    if ((pn = tskip_find(&t->idx[0]->sl, pk, npk)) == NULL)
        res = TBL_NOT_FOUND;
    else if (ver != 0 && ((struct tbl_row *)pn->val)->ver != ver)
        res = TBL_EXISTS;
    else if (!table_plan(t, pn->val, ((struct tbl_row *)pn->val)->v, NULL, pk, npk, &plan))
        res = TBL_NOMEM;
    if (res == TBL_OK) {
        r = pn->val;
        table_plan_apply(t, &plan);     /* the primary entry too */
        table_row_free(t, r);
        table_stat_rows(-1);
        t->ver++;
        table_persist_del(t, key);
    }
    pthread_rwlock_unlock(&t->lock);
    free(pk);
    return res;
}

int table_restore_version(struct table *t, const struct tbl_val *v, uint64_t ver, uint64_t before) {
    struct tskip_node *pn;
    size_t npk;
    uint8_t *pk = table_pk(t, v, &npk);

    if (pk == NULL)
        return -1;
    pthread_rwlock_wrlock(&t->lock);
    if ((pn = tskip_find(&t->idx[0]->sl, pk, npk)) != NULL)
        ((struct tbl_row *)pn->val)->ver = ver;
    t->ver = before > ver ? before : ver;
    pthread_rwlock_unlock(&t->lock);
    free(pk);
    return pn != NULL ? 0 : -1;
}

enum tbl_result table_read(struct table *t, const struct tbl_val *key, uint64_t mask, tbl_row_fn fn, void *arg) {
    struct tskip_node *pn;
    size_t npk;
    uint8_t *pk = table_key_pk(t, key, &npk);

    if (pk == NULL)
        return TBL_NOMEM;
    pthread_rwlock_rdlock(&t->lock);
    if ((pn = tskip_find(&t->idx[0]->sl, pk, npk)) != NULL)
        fn(arg, t, ((struct tbl_row *)pn->val)->ver, ((struct tbl_row *)pn->val)->v, mask);
    pthread_rwlock_unlock(&t->lock);
    free(pk);
    return pn != NULL ? TBL_OK : TBL_NOT_FOUND;
}
