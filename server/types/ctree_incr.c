/*
 * types/ctree_incr: increments of tree counters, one (ctincr) or several
 * as one unit (ctincrn).
 *
 * An increment reaches its own period and every coarser stored period
 * holding it (its targets), in its object and, for an aggregating
 * counter, in every ancestor: all in one tree, so it runs under the
 * ctree lock taken for reading and that tree's lock (ctree_int.h),
 * beside increments of other trees. It runs in three steps: check (limits
 * and int64 overflow on every value it changes, and the memory it needs),
 * reserve (every cval and cell it will fill, room in the counter's active
 * rows included, so the last step cannot fail), apply (add, log, report). A request of several
 * increments checks each against the values the ones before it leave
 * (their pending sums, kept in a small hash table keyed by value), reserves
 * for all of them, then applies them all: all or none, one log record.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "types/ctree.h"
#include "types/ctree_int.h"
#include "types/ctree_period.h"
#include "types/ctree_persist.h"

/* The stored periods an increment reaches: type j at index idx[j]. */
struct ctree_targets {
    int n;
    int j[CTREE_TYPES_MAX];
    int64_t idx[CTREE_TYPES_MAX];
    int own;                    /* its own type's j */
};

static void ctree_targets(const struct ctree_counter *c, int ti, int64_t t, int64_t now,
                          struct ctree_targets *tg) {
    int j;

    tg->n = 0;
    tg->own = ti;
    for (j = ti; j < c->def.ntypes; j++) {
        int64_t idx = ctp_index(c->def.types[j].code, t);
        if (j > ti && c->def.types[j].manual)
            continue;
        if (!ctree_kept(c, j, idx, now))
            continue;
        tg->j[tg->n] = j;
        tg->idx[tg->n] = idx;
        tg->n++;
    }
}

static struct ctree_obj *ctree_up(const struct ctree_counter *c, struct ctree_obj *o) {
    return c->def.aggregate ? o->parent : NULL;
}

/* Checks limits and overflow on the whole path; sums the memory the
 * change needs into *need. */
static enum ctree_result ctree_incr_check(struct ctree_obj *o, const struct ctree_counter *c,
                                          const struct ctree_targets *tg, const struct ctree_incr *in,
                                          struct ctree_at *refused, size_t *need) {
    struct ctree_obj *p;
    int k;

    *need = 0;
    for (p = o; p != NULL; p = ctree_up(c, p)) {
        struct ctree_cval *cv = ctree_cv_find(p, c);
        if (cv == NULL)
            *need += ctree_cv_need(p, c) + (size_t)tg->n * 4 * sizeof(struct ctree_cell);
        for (k = 0; k < tg->n; k++) {
            struct ctree_row *r = cv != NULL ? &cv->rows[tg->j[k]] : NULL;
            int64_t cur = r != NULL ? ctree_row_value(r, tg->idx[k]) : 0, next;
            if (__builtin_add_overflow(cur, in->delta, &next))
                return CTREE_OVERFLOW;
            if (!in->replay && r != NULL && in->delta > 0 && next > r->limit) {
                refused->key = item_key(p->self);
                refused->nkey = p->self->nkey;
                refused->code = c->def.types[tg->j[k]].code;
                refused->idx = tg->idx[k];
                return CTREE_LIMIT;
            }
            if (r != NULL && cur == 0)
                *need += ctree_row_grow_need(r);
        }
    }
    return CTREE_OK;
}

/* One cell of room for each target in c's active rows (released with
 * ctree_incr_release once the increment is applied). */
static int ctree_incr_reserve_active(struct ctree_counter *c, const struct ctree_targets *tg) {
    uint32_t ones[CTREE_TYPES_MAX];
    int k;

    for (k = 0; k < tg->n; k++)
        ones[k] = 1;
    return ctree_active_reserve(c, tg->j, ones, tg->n);
}

static void ctree_incr_release(struct ctree_counter *c, const struct ctree_targets *tg) {
    uint32_t ones[CTREE_TYPES_MAX];
    int k;

    for (k = 0; k < tg->n; k++)
        ones[k] = 1;
    ctree_active_release(c, tg->j, ones, tg->n);
}

/* Makes every cval and cell room the change needs, the counter's active
 * rows' last; nothing is counted yet, so a failure part-way leaves only
 * spare room behind. */
static enum ctree_result ctree_incr_reserve(struct ctree_obj *o, struct ctree_counter *c,
                                            const struct ctree_targets *tg) {
    struct ctree_obj *p;
    int k;

    for (p = o; p != NULL; p = ctree_up(c, p)) {
        struct ctree_cval *cv = ctree_cv_get(p, c);
        if (cv == NULL)
            return CTREE_NOMEM;
        for (k = 0; k < tg->n; k++)
            if (ctree_row_reserve_at(&cv->rows[tg->j[k]], tg->idx[k]) < 0)
                return CTREE_NOMEM;
    }
    return ctree_incr_reserve_active(c, tg) < 0 ? CTREE_NOMEM : CTREE_OK;
}

/* Adds the delta on the path. moved: the values that appeared (+) or went
 * (-) in p and the path below it, the change to p's subtree count. */
static void ctree_incr_apply(struct ctree_obj *o, struct ctree_counter *c, const struct ctree_targets *tg,
                             const struct ctree_incr *in, int64_t now) {
    struct ctree_obj *p, *last = o;
    int64_t moved = 0;
    int k;

    for (p = o; p != NULL; p = ctree_up(c, p)) {
        struct ctree_cval *cv = ctree_cv_find(p, c);
        for (k = 0; k < tg->n; k++) {
            struct ctree_row *r = &cv->rows[tg->j[k]];
            int change;
            if (c->def.types[tg->j[k]].keep > 0)
                moved -= ctree_row_expire(c, tg->j[k], r, now);
            change = ctree_row_add(r, tg->idx[k], in->delta);
            ctree_value_moved(c, tg->j[k], tg->idx[k], change);
            moved -= change;
        }
        p->nsubvals += (uint64_t)moved;
        ctree_touched(p, in->replay ? in->when : now);
        last = p;
    }
    ctree_subvals_add(last->parent, moved);     /* above the path (a counter that does not aggregate) */
}

/* The new value of the increment's own period, in o and each ancestor. */
static void ctree_incr_report(struct ctree_obj *o, struct ctree_counter *c, int ti, const struct ctree_incr *in,
                              int64_t now, ctree_value_fn fn, void *arg) {
    int64_t idx = ctp_index(in->code, in->t);
    bool kept = ctree_kept(c, ti, idx, now);
    struct ctree_obj *p;

    for (p = o; p != NULL; p = ctree_up(c, p)) {
        struct ctree_cval *cv = ctree_cv_find(p, c);
        ctree_report(p, c, in->code, idx, cv != NULL && kept ? ctree_row_value(&cv->rows[ti], idx) : 0, fn, arg);
    }
}

/* One attempt under the locks (ctree_lock for reading, the tree's);
 * *need > 0 with CTREE_NOMEM asks the caller to make room and try again. */
static enum ctree_result ctree_incr_locked(struct ctree_obj *o, const struct ctree_incr *in,
                                           struct ctree_at *refused, ctree_value_fn fn, void *arg,
                                           size_t *need) {
    struct ctree_obj *p;
    struct ctree_counter *c;
    struct ctree_targets tg;
    int64_t now = ctree_now();
    enum ctree_result r;
    int ti;

    *need = 0;
    if (ctree_gone(o))
        return CTREE_NOT_FOUND;
    if ((c = ctree_counter_find(in->counter)) == NULL)
        return CTREE_NO_COUNTER;
    if ((ti = ctree_type_index(c, in->code)) < 0)
        return CTREE_NO_TYPE;
    if (!c->def.types[ti].manual)
        return CTREE_NOT_MANUAL;
    ctree_targets(c, ti, in->t, now, &tg);
    r = ctree_incr_check(o, c, &tg, in, refused, need);
    if (r != CTREE_OK)
        return r;
    if (!in->replay && *need > 0 && item_mem_used() + *need > item_mem_limit())
        return CTREE_NOMEM;
    *need = 0;
    if (in->delta != 0) {
        r = ctree_incr_reserve(o, c, &tg);
        if (r != CTREE_OK)
            return r;
        ctree_incr_apply(o, c, &tg, in, now);
        ctree_incr_release(c, &tg);
        ctlog_incr(item_key(o->self), o->self->nkey, in, now);
    }
    if (fn != NULL)
        ctree_incr_report(o, c, ti, in, now, fn, arg);
    for (p = o; in->delta != 0 && p != NULL; p = ctree_up(c, p))
        ctree_cv_prune(p, c);   /* values back to 0 hold the counter no more */
    return CTREE_OK;
}

/* One attempt with the locks taken and let go. */
static enum ctree_result ctree_incr_once(struct ctree_obj *o, const struct ctree_incr *in,
                                         struct ctree_at *refused, ctree_value_fn fn, void *arg,
                                         size_t *need) {
    enum ctree_result r;
    pthread_mutex_t *tree;

    pthread_rwlock_rdlock(&ctree_lock);
    tree = ctree_tree_lock(o);
    pthread_mutex_lock(tree);
    r = ctree_incr_locked(o, in, refused, fn, arg, need);
    pthread_mutex_unlock(tree);
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}

enum ctree_result ctree_incr(struct ctree_obj *o, const struct ctree_incr *in, struct ctree_at *refused,
                             ctree_value_fn fn, void *arg) {
    enum ctree_result r;
    size_t need;

    r = ctree_incr_once(o, in, refused, fn, arg, &need);
    if (r != CTREE_NOMEM || need == 0 || !ctree_make_room(need))
        return r;
    return ctree_incr_once(o, in, refused, fn, arg, &need);
}


/* ---- several increments as one ---- */

/* One increment of a request, resolved. */
struct ctree_one {
    struct ctree_obj *o;
    struct ctree_counter *c;
    struct ctree_targets tg;
    int ti;
    int64_t delta;
};

/* A value the request changes: object p's value of counter c, type j,
 * period idx; the sum of the request's deltas to it so far; whether it
 * was 0 before the request (fresh), and whether a delta that is not 0
 * reaches it then (grows: applying may add its cell). */
struct ctree_pend {
    const struct ctree_obj *p;
    const struct ctree_counter *c;
    int j;
    int64_t idx;
    int64_t sum;
    bool used, fresh, grows;
};

struct ctree_pends {
    struct ctree_pend *v;
    size_t cap;                 /* a power of two */
    struct ctree_pend **fresh;  /* the growing entries, by counter, type, object */
    size_t nfresh;
    size_t nactive;             /* fresh[0..nactive) hold room in active rows */
};

static size_t ctree_pend_hash(const struct ctree_obj *p, const struct ctree_counter *c, int j, int64_t idx) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;

    h ^= (uint64_t)(uintptr_t)c + 0x7f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= (uint64_t)j * 0xbf58476d1ce4e5b9ULL;
    h ^= (uint64_t)idx * 0x94d049bb133111ebULL;
    return (size_t)(h ^ (h >> 31));
}

/* The entry of value (p, c, j, idx), made (with fresh from cur) if new. */
static struct ctree_pend *ctree_pend_get(struct ctree_pends *t, const struct ctree_obj *p,
                                         const struct ctree_counter *c, int j, int64_t idx, int64_t cur) {
    size_t i = ctree_pend_hash(p, c, j, idx) & (t->cap - 1);

    while (t->v[i].used) {
        struct ctree_pend *e = &t->v[i];
        if (e->p == p && e->c == c && e->j == j && e->idx == idx)
            return e;
        i = (i + 1) & (t->cap - 1);
    }
    t->v[i] = (struct ctree_pend){ p, c, j, idx, 0, true, cur == 0, false };
    return &t->v[i];
}

/* Resolves increment in (counter, type, targets) into one. */
static enum ctree_result ctree_one_resolve(struct ctree_obj *o, const struct ctree_incr *in, int64_t now,
                                           struct ctree_one *one) {
    one->o = o;
    one->delta = in->delta;
    if (ctree_gone(o))
        return CTREE_NOT_FOUND;
    if ((one->c = ctree_counter_find(in->counter)) == NULL)
        return CTREE_NO_COUNTER;
    if ((one->ti = ctree_type_index(one->c, in->code)) < 0)
        return CTREE_NO_TYPE;
    if (!one->c->def.types[one->ti].manual)
        return CTREE_NOT_MANUAL;
    ctree_targets(one->c, one->ti, in->t, now, &one->tg);
    return CTREE_OK;
}

/* Checks one increment against the values and the sums the ones before
 * it left, adds its delta to the sums, and its memory to *need. */
static enum ctree_result ctree_one_check(struct ctree_pends *t, const struct ctree_one *one,
                                         const struct ctree_incr *in, struct ctree_at *refused, size_t *need) {
    struct ctree_obj *p;
    int k;

    for (p = one->o; p != NULL; p = ctree_up(one->c, p)) {
        struct ctree_cval *cv = ctree_cv_find(p, one->c);
        if (cv == NULL)
            *need += ctree_cv_need(p, one->c) + (size_t)one->tg.n * 4 * sizeof(struct ctree_cell);
        for (k = 0; k < one->tg.n; k++) {
            struct ctree_row *r = cv != NULL ? &cv->rows[one->tg.j[k]] : NULL;
            int64_t cur = r != NULL ? ctree_row_value(r, one->tg.idx[k]) : 0, next;
            struct ctree_pend *e = ctree_pend_get(t, p, one->c, one->tg.j[k], one->tg.idx[k], cur);
            if (__builtin_add_overflow(cur + e->sum, in->delta, &next))
                return CTREE_OVERFLOW;
            if (!in->replay && r != NULL && in->delta > 0 && next > r->limit) {
                refused->key = item_key(p->self);
                refused->nkey = p->self->nkey;
                refused->code = one->c->def.types[one->tg.j[k]].code;
                refused->idx = one->tg.idx[k];
                return CTREE_LIMIT;
            }
            e->sum += in->delta;
            if (e->fresh && in->delta != 0 && !e->grows) {
                e->grows = true;
                *need += r != NULL ? ctree_row_grow_need(r) + sizeof(struct ctree_cell) : 0;
            }
        }
    }
    return CTREE_OK;
}

static int ctree_pend_cmp(const void *a, const void *b) {
    const struct ctree_pend *x = *(const struct ctree_pend *const *)a, *y = *(const struct ctree_pend *const *)b;

    if (x->c != y->c)
        return (uintptr_t)x->c < (uintptr_t)y->c ? -1 : 1;
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    if (x->p != y->p)
        return (uintptr_t)x->p < (uintptr_t)y->p ? -1 : 1;
    return 0;
}

/* The end of the group of fresh entries from i with the same counter and
 * type (same_object: also the same object). */
static size_t ctree_pends_group(struct ctree_pend **fresh, size_t n, size_t i, bool same_object) {
    size_t end = i;

    while (end < n && fresh[end]->c == fresh[i]->c && fresh[end]->j == fresh[i]->j &&
           (!same_object || fresh[end]->p == fresh[i]->p))
        end++;
    return end;
}

/* Room in each object's row for as many new periods as it may get. */
static enum ctree_result ctree_pends_reserve_rows(const struct ctree_pends *t) {
    size_t g, end;

    for (g = 0; g < t->nfresh; g = end) {
        struct ctree_obj *p = (struct ctree_obj *)t->fresh[g]->p;
        struct ctree_cval *cv = ctree_cv_get(p, (struct ctree_counter *)t->fresh[g]->c);
        end = ctree_pends_group(t->fresh, t->nfresh, g, true);
        if (cv == NULL || ctree_row_reserve_n(&cv->rows[t->fresh[g]->j], (uint32_t)(end - g)) < 0)
            return CTREE_NOMEM;
    }
    return CTREE_OK;
}

/* Gives back the room the request held in the counters' active rows. */
static void ctree_pends_release(struct ctree_pends *t) {
    size_t g, end;

    for (g = 0; g < t->nactive; g = end) {
        uint32_t k;
        end = ctree_pends_group(t->fresh, t->nactive, g, false);
        k = (uint32_t)(end - g);
        ctree_active_release((struct ctree_counter *)t->fresh[g]->c, &t->fresh[g]->j, &k, 1);
    }
    t->nactive = 0;
}

/* Room in each counter's active rows: as many cells as new values of
 * their type (a bound), held until ctree_pends_release. */
static enum ctree_result ctree_pends_reserve_active(struct ctree_pends *t) {
    size_t g, end;

    for (g = 0; g < t->nfresh; g = end) {
        uint32_t k;
        end = ctree_pends_group(t->fresh, t->nfresh, g, false);
        k = (uint32_t)(end - g);
        if (ctree_active_reserve((struct ctree_counter *)t->fresh[g]->c, &t->fresh[g]->j, &k, 1) < 0) {
            ctree_pends_release(t);
            return CTREE_NOMEM;
        }
        t->nactive = end;
    }
    return CTREE_OK;
}

/* Every cval the request's increments need, then room for every new
 * cell: the objects' rows, then the counters' active rows. */
static enum ctree_result ctree_many_reserve(struct ctree_pends *t, const struct ctree_one *ones, size_t n) {
    enum ctree_result r;
    size_t i;
    struct ctree_obj *p;

    for (i = 0; i < n; i++)
        for (p = ones[i].o; ones[i].delta != 0 && p != NULL; p = ctree_up(ones[i].c, p))
            if (ctree_cv_get(p, ones[i].c) == NULL)
                return CTREE_NOMEM;
    t->fresh = malloc(t->cap * sizeof(*t->fresh));
    if (t->fresh == NULL)
        return CTREE_NOMEM;
    for (i = 0; i < t->cap; i++)
        if (t->v[i].used && t->v[i].grows)
            t->fresh[t->nfresh++] = &t->v[i];
    qsort(t->fresh, t->nfresh, sizeof(*t->fresh), ctree_pend_cmp);
    r = ctree_pends_reserve_rows(t);
    return r == CTREE_OK ? ctree_pends_reserve_active(t) : r;
}

/* The size of the pending table for ones: twice the values they reach. */
static size_t ctree_pends_size(const struct ctree_one *ones, size_t n) {
    size_t values = 0, cap = 16, i;
    struct ctree_obj *p;

    for (i = 0; i < n; i++)
        for (p = ones[i].o; p != NULL; p = ctree_up(ones[i].c, p))
            values += (size_t)ones[i].tg.n;
    while (cap < 2 * values)
        cap *= 2;
    return cap;
}

/* Resolves and checks every increment; *failed names the one an error
 * concerns. The table is made here (freed by the caller). */
static enum ctree_result ctree_many_check(struct ctree_pends *t, struct ctree_one *ones,
                                          struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n,
                                          int64_t now, struct ctree_at *refused, size_t *failed, size_t *need) {
    enum ctree_result r;
    size_t i;

    for (i = 0; i < n; i++) {
        *failed = i;
        if ((r = ctree_one_resolve(objs[i], &ins[i], now, &ones[i])) != CTREE_OK)
            return r;
    }
    t->cap = ctree_pends_size(ones, n);
    if ((t->v = calloc(t->cap, sizeof(*t->v))) == NULL)
        return CTREE_NOMEM;
    for (i = 0; i < n; i++) {
        *failed = i;
        if ((r = ctree_one_check(t, &ones[i], &ins[i], refused, need)) != CTREE_OK)
            return r;
    }
    return CTREE_OK;
}

/* Applies, logs (one record), reports and prunes: nothing here fails. */
static void ctree_many_apply(struct ctree_one *ones, struct ctree_obj *const *objs, const struct ctree_incr *ins,
                             size_t n, int64_t now, ctree_value_fn fn, void *arg) {
    struct ctree_obj *p;
    size_t i;

    for (i = 0; i < n; i++)
        if (ins[i].delta != 0)
            ctree_incr_apply(ones[i].o, ones[i].c, &ones[i].tg, &ins[i], now);
    ctlog_incr_many(objs, ins, n, now);
    for (i = 0; fn != NULL && i < n; i++)
        ctree_incr_report(ones[i].o, ones[i].c, ones[i].ti, &ins[i], now, fn, arg);
    for (i = 0; i < n; i++)
        for (p = ones[i].o; p != NULL; p = ctree_up(ones[i].c, p))
            ctree_cv_prune(p, ones[i].c);
}

/* One attempt under the locks, as ctree_incr_locked (the trees' locks of
 * every object held). */
static enum ctree_result ctree_many_locked(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n,
                                           struct ctree_at *refused, size_t *failed, ctree_value_fn fn, void *arg,
                                           size_t *need) {
    struct ctree_pends t = { NULL, 0, NULL, 0, 0 };
    struct ctree_one *ones = malloc(n * sizeof(*ones));
    int64_t now = ctree_now();
    enum ctree_result r;

    *need = 0;
    *failed = 0;
    if (ones == NULL)
        return CTREE_NOMEM;
    r = ctree_many_check(&t, ones, objs, ins, n, now, refused, failed, need);
    if (r == CTREE_OK && !ins[0].replay && *need > 0 && item_mem_used() + *need > item_mem_limit())
        r = CTREE_NOMEM;
    else if (r == CTREE_OK) {
        *need = 0;
        r = ctree_many_reserve(&t, ones, n);
    }
    if (r == CTREE_OK)
        ctree_many_apply(ones, objs, ins, n, now, fn, arg);
    ctree_pends_release(&t);
    free(t.fresh);
    free(t.v);
    free(ones);
    return r;
}

static int ctree_lock_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(pthread_mutex_t *const *)a, y = (uintptr_t)*(pthread_mutex_t *const *)b;

    return x < y ? -1 : x > y;
}

/* The trees' locks of objs, each once, in address order (so that two
 * requests over the same trees take them in one order): how many. */
static size_t ctree_many_trees(struct ctree_obj *const *objs, size_t n, pthread_mutex_t **locks) {
    size_t i, k = 0;

    for (i = 0; i < n; i++)
        locks[i] = ctree_tree_lock(objs[i]);
    qsort(locks, n, sizeof(*locks), ctree_lock_cmp);
    for (i = 0; i < n; i++)
        if (k == 0 || locks[i] != locks[k - 1])
            locks[k++] = locks[i];
    return k;
}

/* One attempt with the locks taken and let go. */
static enum ctree_result ctree_many_once(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n,
                                         struct ctree_at *refused, size_t *failed, ctree_value_fn fn, void *arg,
                                         size_t *need) {
    pthread_mutex_t *locks[CTREE_INCR_MANY_MAX];
    enum ctree_result r;
    size_t nlocks, i;

    pthread_rwlock_rdlock(&ctree_lock);
    nlocks = ctree_many_trees(objs, n, locks);
    for (i = 0; i < nlocks; i++)
        pthread_mutex_lock(locks[i]);
    r = ctree_many_locked(objs, ins, n, refused, failed, fn, arg, need);
    for (i = nlocks; i > 0; i--)
        pthread_mutex_unlock(locks[i - 1]);
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}


enum ctree_result ctree_incr_many(struct ctree_obj *const *objs, const struct ctree_incr *ins, size_t n,
                                  struct ctree_at *refused, size_t *failed, ctree_value_fn fn, void *arg) {
    enum ctree_result r;
    size_t need;

    if (n == 0 || n > CTREE_INCR_MANY_MAX)
        return CTREE_NOMEM;
    r = ctree_many_once(objs, ins, n, refused, failed, fn, arg, &need);
    if (r != CTREE_NOMEM || need == 0 || !ctree_make_room(need))
        return r;
    return ctree_many_once(objs, ins, n, refused, failed, fn, arg, &need);
}
