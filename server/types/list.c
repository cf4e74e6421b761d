/*
 * types/list: a list's life (creation, the registry of lists, a deleted
 * list handed to the reaper thread, base/reaper.h, to be freed), its
 * operations as the verbs see them (each locks the list, changes its
 * sequence through list_seq.c and logs the change), by-value lookups
 * through the value index, and blocking pops.
 *
 * A refused change leaves the list as it was (list_seq.c allocates before
 * it changes anything; a push of several values that runs out of memory
 * midway takes back what it put). The value index is a cache of the
 * sequence: when it cannot grow it is dropped, and rebuilt (a piece at a
 * time) when a by-value operation next needs it.
 *
 * Lock order: the registry lock, then a list's lock; the reaper's lock is
 * taken under neither.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cache/item.h"
#include "base/log.h"
#include "base/settings.h"
#include "base/stats.h"
#include "types/list.h"
#include "types/list_int.h"
#include "types/list_persist.h"

static pthread_mutex_t list_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list *list_reg;
static uint64_t list_nlists;
static bool (*list_room)(size_t need);

static uint64_t list_ndead;         /* freed, not yet reclaimed; atomic */

void list_charge(struct list *l, long bytes) {
    l->mem += (size_t)bytes;
    item_mem_charge(bytes);
}

/* ---- waiters ---- */

void list_unlist(struct list *l, struct list_waiter *w) {
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        l->whead = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
    else
        l->wtail = w->prev;
    w->prev = w->next = NULL;
    w->listed = false;
    l->nwaiters--;
}

struct list_take {
    char *buf;
    size_t off;
};

static bool list_take_one(const char *p, size_t n, void *arg) {
    struct list_take *t = arg;

    list_elem_write(t->buf + t->off, p, n);
    t->off += list_elem_size(n);
    return true;
}

bool list_group_claim(int *group) {
    int zero = 0;

    return __atomic_compare_exchange_n(group, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Serves pop w, the head waiter: false when its copy found no memory
 * (it stays waiting). */
static bool list_serve_pop(struct list *l, struct list_waiter *w) {
    int k = (uint64_t)w->want < l->count ? w->want : (int)l->count;
    struct list_take t = { NULL, 0 };
    size_t bytes = list_end_bytes(l, w->end, &k, settings.conn_output_max);

    t.buf = malloc(bytes > 0 ? bytes : 1);
    if (t.buf == NULL)
        return false;
    if (w->group != NULL && !list_group_claim(w->group)) {
        free(t.buf);            /* another list served its wait */
        list_unlist(l, w);
        return true;
    }
    w->ngot = list_pop_locked(l, w->end, k, list_take_one, &t);
    llog_pop(l, w->end, w->ngot);
    w->got = t.buf;
    w->ngotbytes = t.off;
    list_unlist(l, w);
    w->wake(w);
    return true;
}

/* Serves waiters, in order, while the list has elements: each takes what
 * it asked for, up to --conn-output-max bytes (at least one element), so
 * that its reply is bounded as a plain pop's is. A waiter whose copy finds
 * no memory stays waiting. A mover at the head is served here when it
 * moves within l; one into another list needs that list's lock too, taken
 * in order by list_movers_drain: the waiters behind it wait for it. */
void list_serve(struct list *l) {
    while (l->whead != NULL && l->count > 0) {
        struct list_waiter *w = l->whead;

        if (w->dst == l) {
            list_move_serve(l, w);
        } else if (w->dst != NULL) {
            list_movers_queue(l);
            return;
        } else if (!list_serve_pop(l, w)) {
            return;
        }
    }
}

/* ---- the list ---- */

struct list *list_new(const char *name, size_t nname, const struct list_opts *o) {
    struct list *l = calloc(1, sizeof(*l));

    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    memcpy(l->name, name, nname);
    l->nname = nname;
    l->opts = *o;
    llog_create(l);
    l->rng = (uint32_t)(uintptr_t)l | 1;
    l->refs = 1;
    list_charge(l, (long)(sizeof(*l) + LIST_MALLOC_OVERHEAD));
    pthread_mutex_lock(&list_reg_lock);
    l->reg_next = list_reg;
    if (list_reg != NULL)
        list_reg->reg_prev = l;
    list_reg = l;
    list_nlists++;
    pthread_mutex_unlock(&list_reg_lock);
    return l;
}

/* Frees l now (the reclaimer, or shutdown). */
static void list_destroy(struct list *l) {
    list_vindex_drop(l);
    list_free_chunks(l, l->root);
    item_mem_charge(-(long)l->mem);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

/* The reaper frees a deleted list (base/reaper.h). */
static void list_reap(struct reaper_job *j) {
    list_destroy((struct list *)((char *)j - offsetof(struct list, reap)));
    __atomic_sub_fetch(&list_ndead, 1, __ATOMIC_RELAXED);
}

void list_free(struct list *l) {
    pthread_mutex_lock(&list_reg_lock);
    if (l->reg_prev != NULL)
        l->reg_prev->reg_next = l->reg_next;
    else
        list_reg = l->reg_next;
    if (l->reg_next != NULL)
        l->reg_next->reg_prev = l->reg_prev;
    list_nlists--;
    pthread_mutex_unlock(&list_reg_lock);
    __atomic_add_fetch(&list_ndead, 1, __ATOMIC_RELAXED);
    list_let_go(l);
}

void list_hold(struct list *l) {
    __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
}

void list_let_go(struct list *l) {
    if (__atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    l->reap.run = list_reap;
    reaper_put(&l->reap);
}

/* By-value requests that waited for the value index (a step each) or were
 * answered by reading every chunk (no room for the index). Atomic. */
static uint64_t list_index_steps, list_index_scans;

/* `stats`: totals over every list. */
static void list_stats_emit(stats_emit_fn emit, void *ctx) {
    uint64_t n, elems, waiters, reclaiming;

    list_totals(&n, &elems, &waiters, &reclaiming);
    stats_emit_u64(emit, ctx, "lists", n);
    stats_emit_u64(emit, ctx, "list_elements", elems);
    stats_emit_u64(emit, ctx, "list_waiters", waiters);
    stats_emit_u64(emit, ctx, "list_reclaiming", reclaiming);
    stats_emit_u64(emit, ctx, "list_index_steps", __atomic_load_n(&list_index_steps, __ATOMIC_RELAXED));
    stats_emit_u64(emit, ctx, "list_index_scans", __atomic_load_n(&list_index_scans, __ATOMIC_RELAXED));
}

static const struct stats_provider list_stats_provider = { "lists", STATS_PLACE_MCDS, 20, list_stats_emit };

void list_system_init(bool (*room)(size_t need)) {
    stats_provide(&list_stats_provider);
    list_room = room;
    reaper_start();
}

void list_system_shutdown(void) {
    reaper_stop();
}

static void list_close_locked(struct list *l) {
    if (!l->closed)
        llog_drop(l);
    l->closed = true;
    while (l->whead != NULL) {
        struct list_waiter *w = l->whead;
        list_unlist(l, w);
        w->ngot = 0;
        if (w->group == NULL || list_group_claim(w->group))
            w->wake(w);
    }
}

void list_close(struct list *l) {
    pthread_mutex_lock(&l->lock);
    list_close_locked(l);
    pthread_mutex_unlock(&l->lock);
}

void list_close_all(void) {
    struct list *l;

    pthread_mutex_lock(&list_reg_lock);
    for (l = list_reg; l != NULL; l = l->reg_next)
        list_close(l);
    pthread_mutex_unlock(&list_reg_lock);
}

void list_each_key(void (*fn)(const char *key, size_t nkey)) {
    struct list *l;

    pthread_mutex_lock(&list_reg_lock);
    for (l = list_reg; l != NULL; l = l->reg_next)
        fn(l->name, l->nname);
    pthread_mutex_unlock(&list_reg_lock);
}

void list_each_length(list_length_fn fn, void *arg) {
    struct list *l;

    pthread_mutex_lock(&list_reg_lock);
    for (l = list_reg; l != NULL; l = l->reg_next) {
        uint64_t n;
        bool closed;
        pthread_mutex_lock(&l->lock);
        n = l->count;
        closed = l->closed;
        pthread_mutex_unlock(&l->lock);
        if (!closed)
            fn(l->name, l->nname, n, arg);
    }
    pthread_mutex_unlock(&list_reg_lock);
}

const struct list_opts *list_options(const struct list *l) {
    return &l->opts;
}

void list_totals(uint64_t *nlists, uint64_t *nelems, uint64_t *nwaiters, uint64_t *nreclaiming) {
    struct list *l;

    *nreclaiming = __atomic_load_n(&list_ndead, __ATOMIC_RELAXED);

    *nelems = *nwaiters = 0;
    pthread_mutex_lock(&list_reg_lock);
    *nlists = list_nlists;
    for (l = list_reg; l != NULL; l = l->reg_next) {
        pthread_mutex_lock(&l->lock);
        *nelems += l->closed ? 0 : l->count;
        *nwaiters += l->nwaiters;
        pthread_mutex_unlock(&l->lock);
    }
    pthread_mutex_unlock(&list_reg_lock);
}

/* ---- operations ---- */

bool list_room_for(size_t need) {
    return list_room == NULL || list_room(need);
}

enum list_result list_push(struct list *l, enum list_end e, const struct list_val *v, int n,
                           uint64_t *len) {
    enum list_result r = LIST_OK;
    size_t need = 0;
    int k;

    for (k = 0; k < n; k++)
        need += list_elem_need(v[k].n);
    if (!list_room_for(need))
        return LIST_NOMEM;
    pthread_mutex_lock(&l->lock);
    if (l->closed)
        r = LIST_GONE;
    else if (l->opts.max_len != 0 && l->count + (uint64_t)n > l->opts.max_len)
        r = LIST_FULL;
    for (k = 0; r == LIST_OK && k < n; k++)
        r = list_put_at(l, e == LIST_HEAD ? 0 : l->count, v[k].p, v[k].n);
    if (r == LIST_NOMEM)
        list_drop_end(l, e, (uint64_t)(k - 1));
    *len = l->count;
    for (k = 0; r == LIST_OK && k < n; k++)
        llog_push(l, e, &v[k]);
    if (r == LIST_OK)
        list_serve(l);
    pthread_mutex_unlock(&l->lock);
    list_movers_drain();
    return r;
}

int list_pop_locked(struct list *l, enum list_end e, int max, list_each_fn fn, void *arg) {
    int k;

    for (k = 0; k < max && l->count > 0; k++) {
        struct lchunk *c = e == LIST_HEAD ? list_chunk_first(l->root) : list_chunk_last(l->root);
        uint32_t i = e == LIST_HEAD ? 0 : c->count - 1;
        const char *p;
        size_t n;

        bool go_on;

        list_elem_read(c, list_chunk_at(c, i), &p, &n);
        go_on = fn(p, n, arg);
        list_cut(l, c, i);
        if (!go_on)
            return k + 1;
    }
    return k;
}

int list_pop(struct list *l, enum list_end e, int max, list_each_fn fn, void *arg) {
    int k = 0;

    pthread_mutex_lock(&l->lock);
    if (!l->closed)
        k = list_pop_locked(l, e, max, fn, arg);
    if (k > 0)
        llog_pop(l, e, k);
    pthread_mutex_unlock(&l->lock);
    return k;
}

uint64_t list_length(struct list *l) {
    uint64_t n;

    pthread_mutex_lock(&l->lock);
    n = l->closed ? 0 : l->count;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* Redis's rule for a start offset: negative from the end, clamped at 0.
 * False when it is past the end. */
static bool list_norm(const struct list *l, int64_t off, uint64_t *start) {
    if (off < 0) {
        uint64_t back = off == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-off;
        off = back > l->count ? 0 : (int64_t)(l->count - back);
    }
    *start = (uint64_t)off;
    return *start < l->count;
}

/* The position idx names (negative: from the end); false when out of
 * range. */
static bool list_pos(const struct list *l, int64_t idx, uint64_t *at) {
    uint64_t back = idx == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-idx;

    if (idx < 0 && back > l->count)
        return false;
    *at = idx < 0 ? l->count - back : (uint64_t)idx;
    return *at < l->count;
}

bool list_get(struct list *l, int64_t idx, list_each_fn fn, void *arg) {
    struct lchunk *c;
    const char *p;
    uint64_t at;
    uint32_t i;
    size_t n;
    bool found;

    pthread_mutex_lock(&l->lock);
    found = !l->closed && list_pos(l, idx, &at);
    if (found) {
        c = list_chunk_of(l, at, &i);
        list_elem_read(c, list_chunk_at(c, i), &p, &n);
        fn(p, n, arg);
    }
    pthread_mutex_unlock(&l->lock);
    return found;
}

size_t list_range(struct list *l, int64_t off, size_t limit, list_each_fn fn, void *arg) {
    struct lchunk *c;
    uint64_t start;
    uint32_t i, at;
    size_t k = 0;

    pthread_mutex_lock(&l->lock);
    if (l->closed || !list_norm(l, off, &start) || limit == 0) {
        pthread_mutex_unlock(&l->lock);
        return 0;
    }
    c = list_chunk_of(l, start, &i);
    at = list_chunk_at(c, i);
    while (c != NULL && k < limit) {
        const char *p;
        size_t n;
        if (at == c->hi) {
            c = list_chunk_next(c);
            at = c != NULL ? c->lo : 0;
            continue;
        }
        at = list_elem_read(c, at, &p, &n);
        k++;
        if (!fn(p, n, arg))
            break;
    }
    pthread_mutex_unlock(&l->lock);
    return k;
}

enum list_result list_set(struct list *l, int64_t idx, const struct list_val *v) {
    enum list_result r = LIST_NOT_FOUND;
    uint64_t at;

    if (!list_room_for(list_elem_need(v->n)))
        return LIST_NOMEM;
    pthread_mutex_lock(&l->lock);
    if (!l->closed && list_pos(l, idx, &at)) {
        /* The new element goes in first: if it cannot, nothing changed. */
        r = list_put_at(l, at, v->p, v->n);
        if (r == LIST_OK) {
            list_cut_at(l, at + 1);
            llog_set(l, at, v);
        }
    }
    pthread_mutex_unlock(&l->lock);
    return r;
}

uint64_t list_trim(struct list *l, int64_t off, uint64_t limit) {
    uint64_t start = 0, end = 0, gone = 0;

    pthread_mutex_lock(&l->lock);
    if (!l->closed) {
        if (list_norm(l, off, &start) && limit > 0)
            end = limit > l->count - start ? l->count : start + limit;
        else
            start = 0;
        gone = l->count - (end - start);
        list_keep(l, start, end);
        if (gone > 0)
            llog_trim(l, start, end);
    }
    pthread_mutex_unlock(&l->lock);
    return gone;
}

/* ---- by value ---- */

struct list_spot {
    uint64_t rank;
    struct lchunk *c;
};

static int list_spot_cmp(const void *a, const void *b) {
    const struct list_spot *x = a, *y = b;

    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Every chunk, in order: the spots when there is no room for the index. */
static enum list_result list_spots_all(struct list *l, struct list_spot **spots, size_t *nspots) {
    struct lchunk *c;
    size_t n = 0;

    for (c = list_chunk_first(l->root); c != NULL; c = list_chunk_next(c))
        n++;
    if (n == 0)
        return LIST_OK;
    *spots = malloc(n * sizeof(**spots));
    if (*spots == NULL)
        return LIST_NOMEM;
    for (c = list_chunk_first(l->root); c != NULL; c = list_chunk_next(c)) {
        (*spots)[*nspots].c = c;
        (*spots)[*nspots].rank = 0;     /* in order already */
        (*nspots)++;
    }
    return LIST_OK;
}

/* The chunks that may hold v, by position (*nspots of them; NULL and 0
 * when none): those the value index names, after indexing up to budget
 * more elements (LIST_BUSY while it is not complete), or every chunk when
 * the index has no room. LIST_NOMEM when memory ran out for the spots. */
static enum list_result list_spots(struct list *l, const struct list_val *v, size_t budget,
                                   struct list_spot **spots, size_t *nspots) {
    struct lvent *e;
    struct lvhint *h;
    size_t k;

    *spots = NULL;
    *nspots = 0;
    switch (list_vindex_step(l, budget)) {
    case LV_MORE:
        __atomic_add_fetch(&list_index_steps, 1, __ATOMIC_RELAXED);
        return LIST_BUSY;
    case LV_NOMEM:
        __atomic_add_fetch(&list_index_scans, 1, __ATOMIC_RELAXED);
        return list_spots_all(l, spots, nspots);
    case LV_DONE:
        break;
    }
    e = list_vindex_find(l, list_vhash(v->p, v->n));
    if (e == NULL)
        return LIST_OK;
    *spots = malloc(e->nhints * sizeof(**spots));
    if (*spots == NULL)
        return LIST_NOMEM;
    h = list_vent_hints(e);
    for (k = 0; k < e->nhints; k++) {
        (*spots)[k].c = h[k].c;
        (*spots)[k].rank = list_chunk_rank(h[k].c);
    }
    qsort(*spots, e->nhints, sizeof(**spots), list_spot_cmp);
    *nspots = e->nhints;
    return LIST_OK;
}

enum list_result list_contains(struct list *l, const struct list_val *v, bool *yes) {
    struct list_spot *s = NULL;
    enum list_result r;
    size_t ns = 0, k;

    *yes = false;
    pthread_mutex_lock(&l->lock);
    r = l->closed ? LIST_OK : list_spots(l, v, LIST_VINDEX_STEP, &s, &ns);
    for (k = 0; r == LIST_OK && k < ns && !*yes; k++)
        *yes = list_chunk_find(s[k].c, v, false) >= 0;
    free(s);
    pthread_mutex_unlock(&l->lock);
    return r;
}

enum list_result list_insert(struct list *l, bool after, const struct list_val *pivot,
                             const struct list_val *v, uint64_t *len) {
    struct list_spot *s = NULL;
    enum list_result r;
    int64_t i = -1;
    size_t ns = 0, k;

    if (!list_room_for(list_elem_need(v->n)))
        return LIST_NOMEM;
    pthread_mutex_lock(&l->lock);
    r = l->closed ? LIST_GONE : l->opts.max_len != 0 && l->count >= l->opts.max_len ? LIST_FULL
        : list_spots(l, pivot, LIST_VINDEX_STEP, &s, &ns);
    for (k = 0; r == LIST_OK && k < ns && i < 0; k++)
        i = list_chunk_find(s[k].c, pivot, false);
    if (r == LIST_OK && i < 0)
        r = LIST_NOT_FOUND;
    if (r == LIST_OK) {
        uint64_t at = list_chunk_rank(s[k - 1].c) + (uint64_t)i + (after ? 1 : 0);
        r = list_put_at(l, at, v->p, v->n);
        if (r == LIST_OK)
            llog_insert(l, at, v);
    }
    if (r == LIST_OK)
        list_serve(l);
    free(s);
    *len = l->count;
    pthread_mutex_unlock(&l->lock);
    list_movers_drain();
    return r;
}

enum list_result list_remove_locked(struct list *l, int64_t count, const struct list_val *v,
                                    size_t budget, uint64_t *removed) {
    uint64_t quota = count == 0 ? UINT64_MAX : count > 0 ? (uint64_t)count
                     : count == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-count;
    struct list_spot *s = NULL;
    enum list_result r;
    size_t ns = 0, k;

    *removed = 0;
    r = list_spots(l, v, budget, &s, &ns);
    for (k = 0; r == LIST_OK && k < ns && *removed < quota; k++) {
        struct lchunk *c = s[count < 0 ? ns - 1 - k : k].c;
        *removed += list_chunk_remove(l, c, v, quota - *removed, count < 0);
    }
    free(s);
    return r;
}

enum list_result list_remove(struct list *l, int64_t count, const struct list_val *v,
                             uint64_t *removed) {
    enum list_result r = LIST_OK;

    *removed = 0;
    pthread_mutex_lock(&l->lock);
    if (!l->closed)
        r = list_remove_locked(l, count, v, LIST_VINDEX_STEP, removed);
    if (*removed > 0)
        llog_rem(l, count, v);
    pthread_mutex_unlock(&l->lock);
    return r;
}

/* Where list_positions looks, and what it found. */
struct list_seek {
    const struct list_val *v;
    uint64_t lo, hi;            /* positions compared: [lo, hi) */
    uint64_t skip;              /* matches passed over before the first kept */
    uint64_t *pos;
    size_t npos, cap;
};

/* Element i of c, at position at, is compared: false once cap are kept. */
static bool list_seek_one(struct list_seek *k, uint64_t at, const char *p, size_t n) {
    if (at < k->lo || at >= k->hi || n != k->v->n || memcmp(p, k->v->p, n) != 0)
        return true;
    if (k->skip > 0)
        k->skip--;
    else
        k->pos[k->npos++] = at;
    return k->npos < k->cap;
}

/* The matches of chunk c, from its head (or its tail if back). */
static bool list_seek_chunk(struct list_seek *k, const struct lchunk *c, bool back) {
    uint64_t base = list_chunk_rank(c);
    uint32_t off = c->lo, i = 0;
    size_t end = c->hi, n;
    const char *p;

    if (!back) {
        for (; off < c->hi; i++) {
            off = list_elem_read(c, off, &p, &n);
            if (!list_seek_one(k, base + i, p, n))
                return false;
        }
        return true;
    }
    for (i = c->count; end > c->lo; i--) {
        size_t start = list_var_back(c->buf, end, &n);
        if (!list_seek_one(k, base + i - 1, c->buf + start + (end - start - n) / 2, n))
            return false;
        end = start;
    }
    return true;
}

enum list_result list_positions(struct list *l, const struct list_val *v, int64_t rank,
                                uint64_t maxlen, uint64_t *pos, size_t cap, size_t *npos) {
    struct list_seek k = { v, 0, 0, 0, pos, 0, cap };
    bool back = rank < 0;
    struct list_spot *s = NULL;
    enum list_result r;
    size_t ns = 0, i;

    k.skip = (back ? (uint64_t)-(rank + 1) : (uint64_t)(rank - 1));
    pthread_mutex_lock(&l->lock);
    k.hi = l->count;
    if (maxlen != 0 && maxlen < l->count) {
        k.lo = back ? l->count - maxlen : 0;
        k.hi = back ? l->count : maxlen;
    }
    r = l->closed ? LIST_OK : list_spots(l, v, LIST_VINDEX_STEP, &s, &ns);
    for (i = 0; r == LIST_OK && i < ns; i++) {
        const struct lchunk *c = s[back ? ns - 1 - i : i].c;
        uint64_t base = list_chunk_rank(c);
        if (back ? base + c->count <= k.lo : base >= k.hi)
            break;              /* past the maxlen window */
        if (!list_seek_chunk(&k, c, back))
            break;
    }
    free(s);
    pthread_mutex_unlock(&l->lock);
    *npos = k.npos;
    return r;
}

/* ---- blocking pops ---- */

bool list_wait(struct list *l, struct list_waiter *w) {
    bool ok;

    pthread_mutex_lock(&l->lock);
    ok = !l->closed;
    if (ok) {
        w->ngot = 0;
        w->got = NULL;
        w->next = NULL;
        w->prev = l->wtail;
        if (l->wtail != NULL)
            l->wtail->next = w;
        else
            l->whead = w;
        l->wtail = w;
        w->listed = true;
        l->nwaiters++;
        list_serve(l);
    }
    pthread_mutex_unlock(&l->lock);
    list_movers_drain();
    return ok;
}

bool list_unwait(struct list *l, struct list_waiter *w) {
    bool was;

    pthread_mutex_lock(&l->lock);
    was = w->listed;
    if (was && l->whead == w) {
        list_unlist(l, w);      /* a mover at the head held up those behind */
        list_serve(l);
    } else if (was) {
        list_unlist(l, w);
    }
    pthread_mutex_unlock(&l->lock);
    list_movers_drain();
    return was;
}

/* Puts a waiter's elements back, last first, so each end reads as before
 * the pop (the packed elements are walked from their end: no memory is
 * needed but the list's own). */
void list_give_back(struct list *l, struct list_waiter *w) {
    size_t end = w->ngotbytes, n;
    int k;

    pthread_mutex_lock(&l->lock);
    for (k = w->ngot - 1; !l->closed && k >= 0; k--) {
        size_t start = list_var_back(w->got, end, &n);
        struct list_val v = { w->got + start + (end - start - n) / 2, n };
        if (list_put_at(l, w->end == LIST_HEAD ? 0 : l->count, v.p, v.n) != LIST_OK) {
            log_msg(0, "list %.*s: no memory to give back %d element(s) of a pop that "
                       "was not delivered; they are lost", (int)l->nname, l->name, k + 1);
            break;
        }
        llog_push(l, w->end, &v);
        end = start;
    }
    if (w->ngot > 0)
        list_serve(l);
    pthread_mutex_unlock(&l->lock);
    list_movers_drain();
    free(w->got);
    w->got = NULL;
    w->ngot = 0;
}
