/*
 * types/ctree: tree counters: the counter table, objects and their tree
 * links, value rows, limits, the atomic increment with its roll-ups in
 * time and up the hierarchy, reads, active objects and periods, and
 * retention of old periods (lazily on touch and by a bounded sweep each
 * second), and the first part of a subtree delete (what leaves at once;
 * the release in steps is ctree_release.c's). See ctree.h for the model
 * and ctree_int.h for the locking.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/stats.h"
#include "types/ctree.h"
#include "types/ctree_int.h"
#include "types/ctree_period.h"
#include "types/ctree_persist.h"

#define CTREE_SWEEP_BATCH 256       /* objects visited by retention per tick */
#define CTREE_TREE_LOCKS 256        /* stripes of the trees' locks */

/* Writers first: a stream of increments (readers) never holds off a
 * definition, an object made or a retention sweep for long. */
pthread_rwlock_t ctree_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
struct ctree_counter **ctree_counters;          /* sorted by id */
size_t ctree_ncounters;
static size_t ctree_capcounters;
struct ctree_obj *ctree_act_head;
static struct ctree_obj *ctree_act_tail, *ctree_sweep_at;
static uint64_t ctree_nobjs, ctree_nvalues;    /* nvalues: atomic */
static pthread_mutex_t ctree_tree_locks[CTREE_TREE_LOCKS];
static pthread_mutex_t ctree_act_list_lock = PTHREAD_MUTEX_INITIALIZER;
static bool ctree_stopping;

static void ctree_charge(long bytes) {
    item_mem_charge(bytes);
}

int64_t ctree_now(void) {
    return (int64_t)clock_started() + (int64_t)clock_now();
}


static const struct ctree_keyspace *ctree_ks;      /* the store's, given at start-up */
/* ---- rows ---- */

/* The first cell at or after idx. Periods are distinct integers in
 * increasing order, so cell k holds a period at least k above the first
 * cell's and at least n-1-k below the last's: idx can only lie between
 * those bounds. In a dense row (every period of a span present, as the
 * upper levels of a busy tree have) the first probe finds it. */
static uint32_t ctree_row_find(const struct ctree_row *r, int64_t idx) {
    uint32_t lo = 0, hi = r->n;
    int64_t first, last;

    if (hi == 0)
        return 0;
    first = r->v[0].idx;
    last = r->v[hi - 1].idx;
    if (idx <= first)
        return 0;
    if (idx > last)
        return hi;
    if ((uint64_t)(idx - first) < hi)
        hi = (uint32_t)(idx - first) + 1;
    if ((uint64_t)(last - idx) < r->n)
        lo = r->n - 1 - (uint32_t)(last - idx);
    if (lo < hi && r->v[lo].idx >= idx)
        return lo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t ctree_row_value(const struct ctree_row *r, int64_t idx) {
    uint32_t i = ctree_row_find(r, idx);

    return i < r->n && r->v[i].idx == idx ? r->v[i].total : 0;
}

size_t ctree_row_grow_need(const struct ctree_row *r) {
    return r->n < r->cap ? 0 : (r->cap < 4 ? 4 : r->cap) * sizeof(struct ctree_cell);
}

/* Room for one more cell; -1 (nothing changed) without memory. */
static int ctree_row_reserve(struct ctree_row *r) {
    return ctree_row_reserve_n(r, 1);
}

int ctree_row_reserve_n(struct ctree_row *r, uint32_t k) {
    uint32_t cap = r->cap < 4 ? 4 : r->cap;
    struct ctree_cell *v;

    if (r->n + (uint64_t)k <= r->cap)
        return 0;
    while (cap < r->n + (uint64_t)k)
        cap *= 2;
    v = realloc(r->v, cap * sizeof(*v));
    if (v == NULL)
        return -1;
    ctree_charge((long)((cap - r->cap) * sizeof(*v)));
    r->v = v;
    r->cap = cap;
    return 0;
}

/* Room for a cell at idx, if it is not there yet. */
int ctree_row_reserve_at(struct ctree_row *r, int64_t idx) {
    return ctree_row_value(r, idx) != 0 ? 0 : ctree_row_reserve(r);
}

static void ctree_row_free(struct ctree_row *r) {
    ctree_charge(-(long)(r->cap * sizeof(*r->v)));
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

/* Adds delta at idx (room reserved if the cell is new). Returns -1 if the
 * cell went from zero to non-zero, 1 from non-zero to zero, else 0. */
int ctree_row_add(struct ctree_row *r, int64_t idx, int64_t delta) {
    uint32_t i = ctree_row_find(r, idx);

    if (delta == 0)
        return 0;
    if (i < r->n && r->v[i].idx == idx) {
        r->v[i].total += delta;
        if (r->v[i].total != 0)
            return 0;
        memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[0]));
        r->n--;
        return 1;
    }
    memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(r->v[0]));
    r->v[i].idx = idx;
    r->v[i].total = delta;
    r->n++;
    return -1;
}

/* ---- counters ---- */

static size_t ctree_counter_pos(uint32_t id) {
    size_t lo = 0, hi = ctree_ncounters;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ctree_counters[mid]->def.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct ctree_counter *ctree_counter_find(uint32_t id) {
    size_t i = ctree_counter_pos(id);

    return i < ctree_ncounters && ctree_counters[i]->def.id == id ? ctree_counters[i] : NULL;
}

int ctree_type_index(const struct ctree_counter *c, uint32_t code) {
    int i;

    for (i = 0; i < c->def.ntypes; i++)
        if (c->def.types[i].code == code)
            return i;
    return -1;
}

static int ctree_ptype_cmp(const void *a, const void *b) {
    uint64_t x = ctp_length(((const struct ctree_ptype *)a)->code);
    uint64_t y = ctp_length(((const struct ctree_ptype *)b)->code);

    return x < y ? -1 : x > y;
}

static bool ctree_types_ok(struct ctree_def *d) {
    int i;

    if (d->ntypes < 1 || d->ntypes > CTREE_TYPES_MAX || d->quantize < 1)
        return false;
    qsort(d->types, (size_t)d->ntypes, sizeof(d->types[0]), ctree_ptype_cmp);
    for (i = 0; i < d->ntypes; i++) {
        if (!ctp_valid(d->types[i].code))
            return false;
        if (i > 0 && !ctp_nests(d->types[i - 1].code, d->types[i].code))
            return false;
    }
    d->types[0].manual = true;
    return true;
}

enum ctree_result ctree_counter_create(struct ctree_def *d) {
    struct ctree_counter *c, **v;
    enum ctree_result r = CTREE_OK;
    size_t i;

    if (!ctree_types_ok(d))
        return CTREE_BAD_TYPES;
    pthread_rwlock_wrlock(&ctree_lock);
    i = ctree_counter_pos(d->id);
    if (i < ctree_ncounters && ctree_counters[i]->def.id == d->id) {
        r = CTREE_EXISTS;
    } else if (ctree_ncounters == ctree_capcounters &&
               (v = realloc(ctree_counters, (ctree_capcounters * 2 + 8) * sizeof(*v))) == NULL) {
        r = CTREE_NOMEM;
    } else {
        if (ctree_ncounters == ctree_capcounters) {
            ctree_counters = v;
            ctree_capcounters = ctree_capcounters * 2 + 8;
        }
        c = calloc(1, sizeof(*c));
        if (c == NULL) {
            r = CTREE_NOMEM;
        } else {
            c->def = *d;
            pthread_mutex_init(&c->act_lock, NULL);
            ctree_charge((long)sizeof(*c));
            memmove(&ctree_counters[i + 1], &ctree_counters[i], (ctree_ncounters - i) * sizeof(c));
            ctree_counters[i] = c;
            ctree_ncounters++;
            ctlog_def(&c->def);
        }
    }
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}

bool ctree_counter_get(uint32_t id, struct ctree_def *d, uint64_t *objects) {
    struct ctree_counter *c;

    ctree_wrlock_released();
    c = ctree_counter_find(id);
    if (c != NULL) {
        *d = c->def;
        *objects = c->nobjs;
    }
    pthread_rwlock_unlock(&ctree_lock);
    return c != NULL;
}

bool ctree_counter_next(bool *started, uint32_t *id, struct ctree_def *d, uint64_t *objects) {
    size_t i;
    bool found;

    ctree_wrlock_released();
    i = *started ? ctree_counter_pos(*id) : 0;
    if (*started && i < ctree_ncounters && ctree_counters[i]->def.id == *id)
        i++;
    found = i < ctree_ncounters;
    if (found) {
        *d = ctree_counters[i]->def;
        *objects = ctree_counters[i]->nobjs;
        *id = d->id;
        *started = true;
    }
    pthread_rwlock_unlock(&ctree_lock);
    return found;
}

static void ctree_counter_free(struct ctree_counter *c) {
    int j;

    for (j = 0; j < c->def.ntypes; j++)
        ctree_row_free(&c->active[j]);
    pthread_mutex_destroy(&c->act_lock);
    ctree_charge(-(long)sizeof(*c));
    free(c);
}

enum ctree_result ctree_counter_delete(uint32_t id) {
    enum ctree_result r = CTREE_OK;
    size_t i;

    ctree_wrlock_released();
    i = ctree_counter_pos(id);
    if (i >= ctree_ncounters || ctree_counters[i]->def.id != id) {
        r = CTREE_NO_COUNTER;
    } else if (ctree_counters[i]->nobjs > 0) {
        r = CTREE_IN_USE;
    } else {
        ctree_counter_free(ctree_counters[i]);
        memmove(&ctree_counters[i], &ctree_counters[i + 1], (ctree_ncounters - i - 1) * sizeof(ctree_counters[0]));
        ctree_ncounters--;
        ctlog_undef(id);
    }
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}

static enum ctree_result ctree_limit_check_locked(const struct ctree_limit *l) {
    struct ctree_counter *c = ctree_counter_find(l->counter);

    if (c == NULL)
        return CTREE_NO_COUNTER;
    return ctree_type_index(c, l->code) < 0 ? CTREE_NO_TYPE : CTREE_OK;
}

enum ctree_result ctree_limit_check(const struct ctree_limit *l) {
    enum ctree_result r;

    pthread_rwlock_wrlock(&ctree_lock);
    r = ctree_limit_check_locked(l);
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}

/* ---- an object's cvals ---- */

static uint32_t ctree_cv_pos(const struct ctree_obj *o, uint32_t id) {
    uint32_t lo = 0, hi = o->ncv;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->cv[mid]->c->def.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct ctree_cval *ctree_cv_find(const struct ctree_obj *o, const struct ctree_counter *c) {
    uint32_t i = ctree_cv_pos(o, c->def.id);

    return i < o->ncv && o->cv[i]->c == c ? o->cv[i] : NULL;
}

static size_t ctree_cv_size(const struct ctree_counter *c) {
    return sizeof(struct ctree_cval) + (size_t)c->def.ntypes * sizeof(struct ctree_row);
}

/* Bytes a new cval of c in o would take. */
size_t ctree_cv_need(const struct ctree_obj *o, const struct ctree_counter *c) {
    return ctree_cv_size(c) + (o->ncv == o->capcv ? (o->capcv + 2) * sizeof(o->cv[0]) : 0);
}

/* o's cval of c, made if missing; NULL without memory. */
struct ctree_cval *ctree_cv_get(struct ctree_obj *o, struct ctree_counter *c) {
    uint32_t i = ctree_cv_pos(o, c->def.id);
    struct ctree_cval *cv;
    int j;

    if (i < o->ncv && o->cv[i]->c == c)
        return o->cv[i];
    if (o->ncv == o->capcv) {
        struct ctree_cval **v = realloc(o->cv, (o->capcv * 2 + 2) * sizeof(*v));
        if (v == NULL)
            return NULL;
        ctree_charge((long)((o->capcv + 2) * sizeof(*v)));
        o->cv = v;
        o->capcv = o->capcv * 2 + 2;
    }
    cv = calloc(1, ctree_cv_size(c));
    if (cv == NULL)
        return NULL;
    ctree_charge((long)ctree_cv_size(c));
    cv->c = c;
    for (j = 0; j < c->def.ntypes; j++)
        cv->rows[j].limit = CTREE_NO_LIMIT;
    memmove(&o->cv[i + 1], &o->cv[i], (o->ncv - i) * sizeof(o->cv[0]));
    o->cv[i] = cv;
    o->ncv++;
    __atomic_add_fetch(&c->nobjs, 1, __ATOMIC_RELAXED);
    return cv;
}

/* One more (+1) or one fewer (-1) object with a non-zero value at idx. A
 * new cell takes room an increment reserved (ctree_active_reserve), or one
 * a removal since gave back, or (under the exclusive lock) room its caller
 * made. */
static void ctree_active_count(struct ctree_counter *c, int j, int64_t idx, int dir) {
    pthread_mutex_lock(&c->act_lock);
    ctree_row_add(&c->active[j], idx, dir);
    pthread_mutex_unlock(&c->act_lock);
}

/* Applies the result of ctree_row_add to the counts. */
void ctree_value_moved(struct ctree_counter *c, int j, int64_t idx, int change) {
    if (change < 0) {
        __atomic_add_fetch(&ctree_nvalues, 1, __ATOMIC_RELAXED);
        ctree_active_count(c, j, idx, 1);
    } else if (change > 0) {
        __atomic_sub_fetch(&ctree_nvalues, 1, __ATOMIC_RELAXED);
        ctree_active_count(c, j, idx, -1);
    }
}

int ctree_active_reserve(struct ctree_counter *c, const int *js, const uint32_t *ks, int n) {
    int i, done;

    pthread_mutex_lock(&c->act_lock);
    for (done = 0; done < n; done++) {
        if (ctree_row_reserve_n(&c->active[js[done]], c->reserved[js[done]] + ks[done]) < 0)
            break;
        c->reserved[js[done]] += ks[done];
    }
    for (i = 0; done < n && i < done; i++)    /* a failure: none kept */
        c->reserved[js[i]] -= ks[i];
    pthread_mutex_unlock(&c->act_lock);
    return done < n ? -1 : 0;
}

void ctree_active_release(struct ctree_counter *c, const int *js, const uint32_t *ks, int n) {
    int i;

    pthread_mutex_lock(&c->act_lock);
    for (i = 0; i < n; i++)
        c->reserved[js[i]] -= ks[i];
    pthread_mutex_unlock(&c->act_lock);
}

pthread_mutex_t *ctree_tree_lock(const struct ctree_obj *o) {
    uintptr_t h;

    while (o->parent != NULL)
        o = o->parent;
    h = (uintptr_t)o;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ULL;
    return &ctree_tree_locks[(h >> 40) % CTREE_TREE_LOCKS];
}

/* ctree_lock for reading and o's tree's lock: what a read or a change of
 * one object's values needs. */
static pthread_mutex_t *ctree_lock_tree(const struct ctree_obj *o) {
    pthread_mutex_t *m;

    pthread_rwlock_rdlock(&ctree_lock);
    m = ctree_tree_lock(o);
    pthread_mutex_lock(m);
    return m;
}

static void ctree_unlock_tree(pthread_mutex_t *m) {
    pthread_mutex_unlock(m);
    pthread_rwlock_unlock(&ctree_lock);
}

/* One object fewer at each period of r (sorted, as active[j] is). A few
 * periods are looked up one by one (a removal moves the row's tail only
 * when the count falls to 0); many take one merge pass over the row, not
 * a move of its tail for each. The value count is the caller's (it left
 * with the object's subtree: ctree_counts_leave). */
static void ctree_active_drop_row(struct ctree_counter *c, int j, const struct ctree_row *r) {
    struct ctree_row *a = &c->active[j];
    uint32_t from, to = 0, k = 0;

    pthread_mutex_lock(&c->act_lock);
    if ((uint64_t)r->n * 32 < a->n) {
        for (k = 0; k < r->n; k++)
            ctree_row_add(a, r->v[k].idx, -1);
        pthread_mutex_unlock(&c->act_lock);
        return;
    }
    for (from = 0; from < a->n; from++) {
        struct ctree_cell cell = a->v[from];
        while (k < r->n && r->v[k].idx < cell.idx)
            k++;
        if (k < r->n && r->v[k].idx == cell.idx)
            cell.total--;
        if (cell.total != 0)
            a->v[to++] = cell;
    }
    a->n = to;
    pthread_mutex_unlock(&c->act_lock);
}

static void ctree_cv_free(struct ctree_cval *cv) {
    struct ctree_counter *c = cv->c;
    int j;

    for (j = 0; j < c->def.ntypes; j++) {
        if (cv->rows[j].n > 0)
            ctree_active_drop_row(c, j, &cv->rows[j]);
        ctree_row_free(&cv->rows[j]);
    }
    __atomic_sub_fetch(&c->nobjs, 1, __ATOMIC_RELAXED);
    ctree_charge(-(long)ctree_cv_size(c));
    free(cv);
}

/* Frees o's cval of c once it holds no value and no limit, so that the
 * counter's objects count only objects holding values or limits of it
 * (and a counter none holds can be deleted). */
void ctree_cv_prune(struct ctree_obj *o, const struct ctree_counter *c) {
    uint32_t i = ctree_cv_pos(o, c->def.id);
    struct ctree_cval *cv;
    int j;

    if (i >= o->ncv || o->cv[i]->c != c)
        return;
    cv = o->cv[i];
    for (j = 0; j < c->def.ntypes; j++)
        if (cv->rows[j].n > 0 || cv->rows[j].limit != CTREE_NO_LIMIT)
            return;
    ctree_cv_free(cv);
    memmove(&o->cv[i], &o->cv[i + 1], (o->ncv - i - 1) * sizeof(o->cv[0]));
    o->ncv--;
}

/* The same for every cval of o. */
static void ctree_cvs_prune(struct ctree_obj *o) {
    uint32_t i;

    for (i = o->ncv; i > 0; i--)
        ctree_cv_prune(o, o->cv[i - 1]->c);
}

static void ctree_cvs_free(struct ctree_obj *o) {
    uint32_t i;

    for (i = 0; i < o->ncv; i++)
        ctree_cv_free(o->cv[i]);
    ctree_charge(-(long)(o->capcv * sizeof(o->cv[0])));
    free(o->cv);
    o->cv = NULL;
    o->ncv = o->capcv = 0;
}

/* ---- retention ---- */

/* Whether period idx of type j of c is still kept at time now. */
bool ctree_kept(const struct ctree_counter *c, int j, int64_t idx, int64_t now) {
    uint32_t keep = c->def.types[j].keep;

    return keep == 0 || idx > ctp_index(c->def.types[j].code, now) - (int64_t)keep;
}

/* Drops the periods of row j that are too old: how many. */
uint32_t ctree_row_expire(struct ctree_counter *c, int j, struct ctree_row *r, int64_t now) {
    uint32_t k = 0;

    while (k < r->n && !ctree_kept(c, j, r->v[k].idx, now)) {
        ctree_value_moved(c, j, r->v[k].idx, 1);
        k++;
    }
    if (k > 0) {
        memmove(&r->v[0], &r->v[k], (r->n - k) * sizeof(r->v[0]));
        r->n -= k;
    }
    return k;
}

static void ctree_obj_expire(struct ctree_obj *o, int64_t now) {
    uint64_t dropped = 0;
    uint32_t i;
    int j;

    for (i = 0; i < o->ncv; i++)
        for (j = 0; j < o->cv[i]->c->def.ntypes; j++)
            if (o->cv[i]->c->def.types[j].keep > 0)
                dropped += ctree_row_expire(o->cv[i]->c, j, &o->cv[i]->rows[j], now);
    ctree_subvals_add(o, -(int64_t)dropped);
    ctree_cvs_prune(o);
}

/* ---- the active list (every live object, most recently changed first) ---- */

static void ctree_act_unlink(struct ctree_obj *o) {
    if (ctree_sweep_at == o)
        ctree_sweep_at = o->act_next;
    if (o->act_prev != NULL)
        o->act_prev->act_next = o->act_next;
    else
        ctree_act_head = o->act_next;
    if (o->act_next != NULL)
        o->act_next->act_prev = o->act_prev;
    else
        ctree_act_tail = o->act_prev;
    o->act_prev = o->act_next = NULL;
}

static void ctree_act_push_front(struct ctree_obj *o) {
    o->act_prev = NULL;
    o->act_next = ctree_act_head;
    if (ctree_act_head != NULL)
        ctree_act_head->act_prev = o;
    else
        ctree_act_tail = o;
    ctree_act_head = o;
}

static void ctree_act_push_back(struct ctree_obj *o) {
    o->act_next = NULL;
    o->act_prev = ctree_act_tail;
    if (ctree_act_tail != NULL)
        ctree_act_tail->act_next = o;
    else
        ctree_act_head = o;
    ctree_act_tail = o;
}

void ctree_touched(struct ctree_obj *o, int64_t now) {
    pthread_mutex_lock(&ctree_act_list_lock);
    o->changed = now;
    if (ctree_act_head != o) {
        ctree_act_unlink(o);
        ctree_act_push_front(o);
    }
    pthread_mutex_unlock(&ctree_act_list_lock);
}

/* ---- objects ---- */

static void ctree_child_link(struct ctree_obj *p, struct ctree_obj *o) {
    o->parent = p;
    o->prev_sib = NULL;
    o->next_sib = p->first_child;
    if (p->first_child != NULL)
        p->first_child->prev_sib = o;
    p->first_child = o;
    p->nchildren++;
    o->attached = true;
}

static void ctree_child_unlink(struct ctree_obj *o) {
    struct ctree_obj *p = o->parent;

    if (!o->attached)
        return;
    if (o->prev_sib != NULL)
        o->prev_sib->next_sib = o->next_sib;
    else
        p->first_child = o->next_sib;
    if (o->next_sib != NULL)
        o->next_sib->prev_sib = o->prev_sib;
    p->nchildren--;
    o->attached = false;
}

/* Sets or raises limits; every limit was validated. Without memory for
 * a cval, CTREE_NOMEM with the limits before it applied. */
static enum ctree_result ctree_limits_apply(struct ctree_obj *o, const struct ctree_limit *l, size_t n,
                                            bool raise) {
    size_t i;

    for (i = 0; i < n; i++) {
        struct ctree_counter *c = ctree_counter_find(l[i].counter);
        struct ctree_cval *cv = ctree_cv_get(o, c);
        struct ctree_row *r;
        if (cv == NULL)
            return CTREE_NOMEM;
        r = &cv->rows[ctree_type_index(c, l[i].code)];
        if (!raise || r->limit == CTREE_NO_LIMIT || l[i].max == CTREE_NO_LIMIT)
            r->limit = l[i].max;
        else if (__builtin_add_overflow(r->limit, l[i].max, &r->limit) || r->limit == CTREE_NO_LIMIT)
            r->limit = CTREE_NO_LIMIT - 1;
    }
    return CTREE_OK;
}

static enum ctree_result ctree_limits_valid(const struct ctree_limit *l, size_t n) {
    enum ctree_result r = CTREE_OK;
    size_t i;

    for (i = 0; i < n && r == CTREE_OK; i++)
        r = ctree_limit_check_locked(&l[i]);
    return r;
}

bool ctree_gone(const struct ctree_obj *o) {
    for (; o != NULL; o = o->parent)
        if (o->closed)
            return true;
    return false;
}

void ctree_subvals_add(struct ctree_obj *o, int64_t d) {
    for (; d != 0 && o != NULL; o = o->parent)
        o->nsubvals += (uint64_t)d;
}

/* o's subtree leaves the totals and its ancestors' subtree counts. */
static void ctree_counts_leave(struct ctree_obj *o) {
    struct ctree_obj *a;

    for (a = o->parent; a != NULL; a = a->parent) {
        a->nsub -= o->nsub;
        a->nsubvals -= o->nsubvals;
    }
    ctree_nobjs -= o->nsub;
    __atomic_sub_fetch(&ctree_nvalues, o->nsubvals, __ATOMIC_RELAXED);
}

/* A new object, o, is in p's subtree and in the totals. */
static void ctree_counts_join(struct ctree_obj *o, struct ctree_obj *p) {
    o->nsub = 1;
    for (; p != NULL; p = p->parent)
        p->nsub++;
    ctree_nobjs++;
}

void *ctree_obj_make(const char *key, size_t nkey, item *self, void *arg) {
    struct ctree_new *nw = arg;
    struct ctree_obj *o = calloc(1, sizeof(*o));

    if (o == NULL) {
        nw->r = CTREE_NOMEM;
        return NULL;
    }
    o->self = self;
    o->quantize = nw->quantize;
    pthread_rwlock_wrlock(&ctree_lock);
    nw->r = nw->parent != NULL && ctree_gone(nw->parent) ? CTREE_PARENT_GONE
            : ctree_limits_valid(nw->limits, nw->nlimits);
    if (nw->r == CTREE_OK)
        nw->r = ctree_limits_apply(o, nw->limits, nw->nlimits, false);
    if (nw->r != CTREE_OK) {
        ctree_cvs_free(o);
        pthread_rwlock_unlock(&ctree_lock);
        free(o);
        return NULL;
    }
    ctree_charge((long)sizeof(*o));
    if (nw->parent != NULL) {
        item_incref(nw->parent->self);
        ctree_child_link(nw->parent, o);
    }
    ctree_act_push_back(o);
    ctree_counts_join(o, nw->parent);
    ctlog_obj(key, nkey, nw->parent != NULL ? item_key(nw->parent->self) : NULL,
              nw->parent != NULL ? nw->parent->self->nkey : 0, o->quantize, nw->limits, nw->nlimits);
    pthread_rwlock_unlock(&ctree_lock);
    return o;
}

bool ctree_obj_live(struct ctree_obj *o) {
    bool live;

    pthread_rwlock_rdlock(&ctree_lock);
    live = !ctree_gone(o);
    pthread_rwlock_unlock(&ctree_lock);
    return live;
}

/* Takes o's values r (counter c, type j) out of every ancestor; the
 * ancestors' subtree value counts follow. */
static void ctree_subtract_row(struct ctree_obj *o, struct ctree_counter *c, int j, const struct ctree_row *r,
                               int64_t now) {
    int64_t moved = 0;
    struct ctree_obj *a;
    uint32_t k;

    for (a = o->parent; a != NULL; a = a->parent) {
        struct ctree_cval *acv = ctree_cv_find(a, c);
        for (k = 0; acv != NULL && k < r->n; k++) {
            int change;
            if (!ctree_kept(c, j, r->v[k].idx, now) ||
                ctree_row_reserve_at(&acv->rows[j], r->v[k].idx) < 0 ||
                ctree_row_reserve_at(&c->active[j], r->v[k].idx) < 0)
                continue;
            change = ctree_row_add(&acv->rows[j], r->v[k].idx, -r->v[k].total);
            ctree_value_moved(c, j, r->v[k].idx, change);
            moved -= change;
        }
        a->nsubvals += (uint64_t)moved;     /* the values that moved in a and below it */
    }
}

/* Takes o's values out of every ancestor (aggregating counters). */
static void ctree_subtract_from_ancestors(struct ctree_obj *o, int64_t now) {
    struct ctree_obj *a;
    uint32_t i;
    int j;

    for (i = 0; i < o->ncv; i++) {
        struct ctree_counter *c = o->cv[i]->c;
        if (!c->def.aggregate)
            continue;
        for (j = 0; j < c->def.ntypes; j++)
            ctree_subtract_row(o, c, j, &o->cv[i]->rows[j], now);
        for (a = o->parent; a != NULL; a = a->parent)
            ctree_cv_prune(a, c);
    }
}

struct ctree_obj *ctree_preorder_next(struct ctree_obj *n, struct ctree_obj *root) {
    if (n->first_child != NULL)
        return n->first_child;
    while (n != root && n->next_sib == NULL)
        n = n->parent;
    return n == root ? NULL : n->next_sib;
}

/* o's values, its place in the active list and in its parent's children
 * let go (its counts already left the totals). */
static void ctree_let_go(struct ctree_obj *o) {
    ctree_cvs_free(o);
    ctree_act_unlink(o);
    ctree_child_unlink(o);
    o->closed = true;
    __atomic_store_n(&o->released, true, __ATOMIC_RELEASE);
}

void ctree_retire(struct ctree_obj *o) {
    ctree_let_go(o);
    ctree_nreleasing--;
}

/* The first part of a delete: what a reader can see leaves at once; the
 * subtree's objects are released later, in steps (ctree_release.c). */
void ctree_obj_closed(struct ctree_obj *o) {
    pthread_rwlock_wrlock(&ctree_lock);
    if (ctree_stopping || ctree_gone(o)) {
        pthread_rwlock_unlock(&ctree_lock);
        return;
    }
    ctlog_drop(item_key(o->self), o->self->nkey);
    ctree_subtract_from_ancestors(o, ctree_now());
    ctree_counts_leave(o);
    ctree_child_unlink(o);
    o->closed = true;
    ctree_release_add(o);
    pthread_rwlock_unlock(&ctree_lock);
}

/* What ctree_obj_free does under the lock: nothing when o's subtree's
 * release released it meanwhile. */
static void ctree_obj_end_locked(struct ctree_obj *o) {
    if (o->released)
        return;
    if (ctree_gone(o)) {
        ctree_retire(o);
    } else {
        ctree_counts_leave(o);
        ctree_let_go(o);
    }
}

/* The last reference to o's item went. A released object holds nothing
 * else, and nothing reaches it: no lock. A gone one not yet released is
 * released here; a live one (shutdown, or an item never linked) has no
 * children (they hold references) and leaves the totals. The release of
 * its deleted subtree may have released it while this thread waited for
 * the lock (ctree_release.c): then there is nothing left to do but free. */
static void ctree_obj_free(item *it) {
    struct ctree_obj *o = item_struct(it), *p = o->parent;

    if (!__atomic_load_n(&o->released, __ATOMIC_ACQUIRE)) {
        pthread_rwlock_wrlock(&ctree_lock);
        ctree_obj_end_locked(o);
        pthread_rwlock_unlock(&ctree_lock);
    }
    ctree_charge(-(long)sizeof(*o));
    free(o);
    if (p != NULL)
        item_release(p->self);
}

enum ctree_result ctree_obj_set(struct ctree_obj *o, const struct ctree_limit *l, size_t n,
                                bool raise, int64_t quantize) {
    enum ctree_result r;
    uint32_t i;
    int j;

    pthread_rwlock_wrlock(&ctree_lock);
    r = ctree_gone(o) ? CTREE_NOT_FOUND : ctree_limits_valid(l, n);
    if (r == CTREE_OK && !raise) {
        for (i = 0; i < o->ncv; i++)
            for (j = 0; j < o->cv[i]->c->def.ntypes; j++)
                o->cv[i]->rows[j].limit = CTREE_NO_LIMIT;
    }
    if (r == CTREE_OK)
        r = ctree_limits_apply(o, l, n, raise);
    if (r == CTREE_OK)
        ctree_cvs_prune(o);     /* a limit taken off may leave a cval empty */
    if (r == CTREE_OK && quantize >= 0)
        o->quantize = quantize;
    if (r == CTREE_OK)
        ctlog_limits(item_key(o->self), o->self->nkey, raise, quantize, l, n);
    pthread_rwlock_unlock(&ctree_lock);
    return r;
}

enum ctree_result ctree_obj_info(struct ctree_obj *o, struct ctree_info *info,
                                 void (*fn)(void *arg, const struct ctree_limit *l), void *arg) {
    pthread_mutex_t *tree;
    struct ctree_limit l;
    uint32_t i;
    int j;

    tree = ctree_lock_tree(o);
    if (ctree_gone(o)) {
        ctree_unlock_tree(tree);
        return CTREE_NOT_FOUND;
    }
    info->nparent = o->parent != NULL ? o->parent->self->nkey : 0;
    if (o->parent != NULL)
        memcpy(info->parent, item_key(o->parent->self), info->nparent);
    info->quantize = o->quantize;
    info->children = o->nchildren;
    info->changed = o->changed;
    for (i = 0; fn != NULL && i < o->ncv; i++) {
        for (j = 0; j < o->cv[i]->c->def.ntypes; j++) {
            if (o->cv[i]->rows[j].limit == CTREE_NO_LIMIT)
                continue;
            l.counter = o->cv[i]->c->def.id;
            l.code = o->cv[i]->c->def.types[j].code;
            l.max = o->cv[i]->rows[j].limit;
            fn(arg, &l);
        }
    }
    ctree_unlock_tree(tree);
    return CTREE_OK;
}

/* ---- what reads and increments share ---- */

int64_t ctree_step(const struct ctree_obj *o, const struct ctree_counter *c) {
    return o->quantize > 0 ? o->quantize : c->def.quantize;
}

void ctree_report(const struct ctree_obj *o, const struct ctree_counter *c, uint32_t code, int64_t idx,
                         int64_t total, ctree_value_fn fn, void *arg) {
    struct ctree_at at;
    int64_t q = ctree_step(o, c);

    at.key = item_key(o->self);
    at.nkey = o->self->nkey;
    at.code = code;
    at.idx = idx;
    fn(arg, &at, c->def.id, total - total % q, total % q);
}

bool ctree_make_room(size_t need) {
    ctree_release_finish();     /* what deleted subtrees hold goes before cache values */
    return ctree_ks->reserve(need);
}

/* ---- reads ---- */

enum ctree_result ctree_get(struct ctree_obj *o, uint32_t counter, uint32_t code, int64_t idx,
                            int64_t *value, int64_t *fraction) {
    pthread_mutex_t *tree;
    enum ctree_result r = CTREE_OK;
    struct ctree_counter *c;
    struct ctree_cval *cv;
    int64_t total = 0, q;
    int j = -1;

    tree = ctree_lock_tree(o);
    c = ctree_counter_find(counter);
    if (ctree_gone(o))
        r = CTREE_NOT_FOUND;
    else if (c == NULL)
        r = CTREE_NO_COUNTER;
    else if ((j = ctree_type_index(c, code)) < 0)
        r = CTREE_NO_TYPE;
    if (r == CTREE_OK) {
        cv = ctree_cv_find(o, c);
        if (cv != NULL && ctree_kept(c, j, idx, ctree_now()))
            total = ctree_row_value(&cv->rows[j], idx);
        q = ctree_step(o, c);
        *value = total - total % q;
        *fraction = total % q;
    }
    ctree_unlock_tree(tree);
    return r;
}

/* Whether sorted v[0..n) holds x. */
static bool ctree_sorted_has(const int64_t *v, size_t n, int64_t x) {
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

static bool ctree_counter_passes(const struct ctree_filter *f, uint32_t id) {
    if (f->nclist == 0)
        return id >= f->clo && id <= f->chi;
    return ctree_sorted_has(f->clist, f->nclist, id);
}

static bool ctree_period_passes(const struct ctree_filter *f, int64_t idx) {
    if (f->nplist == 0)
        return idx >= f->plo && idx <= f->phi;
    return ctree_sorted_has(f->plist, f->nplist, idx);
}

/* Where in c's types (and from which period) a read resumes; false: the
 * whole counter lies before the cursor. */
struct ctree_walk {
    const struct ctree_filter *f;
    uint64_t scanned, reported;
    struct ctree_cursor *cur;
};

/* Whether position (counter, j, idx) of c lies after f's cursor. */
static bool ctree_after_cursor(const struct ctree_filter *f, const struct ctree_counter *c, int j, int64_t idx) {
    int aj;

    if (!f->after || c->def.id > f->after_counter)
        return true;
    if (c->def.id < f->after_counter)
        return false;
    aj = ctree_type_index(c, f->after_code);
    return j > aj || (j == aj && idx > f->after_idx);
}

/* Walks one row; false when a cap stopped the read. */
static bool ctree_walk_row(struct ctree_walk *w, const struct ctree_counter *c, int j, const struct ctree_row *r,
                           void (*emit)(struct ctree_walk *w, const struct ctree_counter *c, int j,
                                        const struct ctree_cell *cell, void *ctx),
                           void *ctx) {
    const struct ctree_filter *f = w->f;
    uint32_t k = f->nplist == 0 ? ctree_row_find(r, f->plo) : ctree_row_find(r, f->plist[0]);

    for (; k < r->n; k++) {
        const struct ctree_cell *cell = &r->v[k];
        if (f->nplist == 0 && cell->idx > f->phi)
            break;
        if (!ctree_after_cursor(f, c, j, cell->idx))
            continue;
        if (w->scanned == f->scan_max || w->reported == f->count_max) {
            w->cur->more = true;
            return false;
        }
        w->scanned++;
        w->cur->counter = c->def.id;
        w->cur->code = c->def.types[j].code;
        w->cur->idx = cell->idx;
        if (ctree_period_passes(f, cell->idx)) {
            w->reported++;
            emit(w, c, j, cell, ctx);
        }
    }
    return true;
}

struct ctree_emit_ctx {
    const struct ctree_obj *o;
    ctree_value_fn fn;
    void *arg;
    int64_t now;
};

static void ctree_emit_value(struct ctree_walk *w, const struct ctree_counter *c, int j,
                             const struct ctree_cell *cell, void *ctx) {
    struct ctree_emit_ctx *e = ctx;

    (void)w;
    ctree_report(e->o, c, c->def.types[j].code, cell->idx, cell->total, e->fn, e->arg);
}

static void ctree_emit_period(struct ctree_walk *w, const struct ctree_counter *c, int j,
                              const struct ctree_cell *cell, void *ctx) {
    struct ctree_emit_ctx *e = ctx;
    struct ctree_at at = { NULL, 0, c->def.types[j].code, cell->idx };

    (void)w;
    if (ctree_kept(c, j, cell->idx, e->now))
        e->fn(e->arg, &at, c->def.id, cell->total, 0);
}

enum ctree_result ctree_values(struct ctree_obj *o, const struct ctree_filter *f, ctree_value_fn fn,
                               void *arg, struct ctree_cursor *cur) {
    pthread_mutex_t *tree;
    struct ctree_emit_ctx e = { o, fn, arg, 0 };
    struct ctree_walk w = { f, 0, 0, cur };
    uint32_t i;
    int j;

    cur->more = false;
    tree = ctree_lock_tree(o);
    if (ctree_gone(o)) {
        ctree_unlock_tree(tree);
        return CTREE_NOT_FOUND;
    }
    e.now = ctree_now();
    ctree_obj_expire(o, e.now);
    for (i = 0; i < o->ncv; i++) {
        struct ctree_counter *c = o->cv[i]->c;
        if (!ctree_counter_passes(f, c->def.id))
            continue;
        for (j = 0; j < c->def.ntypes; j++) {
            if (f->code != 0 && c->def.types[j].code != f->code)
                continue;
            if (!ctree_walk_row(&w, c, j, &o->cv[i]->rows[j], ctree_emit_value, &e))
                goto out;
        }
    }
out:
    ctree_unlock_tree(tree);
    return CTREE_OK;
}

void ctree_periods(const struct ctree_filter *f, ctree_value_fn fn, void *arg, struct ctree_cursor *cur) {
    struct ctree_emit_ctx e = { NULL, fn, arg, 0 };
    struct ctree_walk w = { f, 0, 0, cur };
    size_t i;
    int j;

    cur->more = false;
    ctree_wrlock_released();
    e.now = ctree_now();
    for (i = 0; i < ctree_ncounters; i++) {
        struct ctree_counter *c = ctree_counters[i];
        if (!ctree_counter_passes(f, c->def.id))
            continue;
        for (j = 0; j < c->def.ntypes; j++) {
            if (f->code != 0 && c->def.types[j].code != f->code)
                continue;
            if (!ctree_walk_row(&w, c, j, &c->active[j], ctree_emit_period, &e))
                goto out;
        }
    }
out:
    pthread_rwlock_unlock(&ctree_lock);
}

enum ctree_result ctree_children(struct ctree_obj *o, struct ctree_obj *after, uint64_t max,
                                 void (*fn)(void *arg, const char *key, size_t nkey), void *arg,
                                 bool *more) {
    struct ctree_obj *ch;
    uint64_t n = 0;

    *more = false;
    pthread_rwlock_wrlock(&ctree_lock);
    if (ctree_gone(o) || (after != NULL && (after->closed || after->parent != o || !after->attached))) {
        pthread_rwlock_unlock(&ctree_lock);
        return CTREE_NOT_FOUND;
    }
    for (ch = after != NULL ? after->next_sib : o->first_child; ch != NULL; ch = ch->next_sib) {
        if (n == max) {
            *more = true;
            break;
        }
        fn(arg, item_key(ch->self), ch->self->nkey);
        n++;
    }
    pthread_rwlock_unlock(&ctree_lock);
    return CTREE_OK;
}

void ctree_active(int64_t since, struct ctree_obj *after, uint64_t max,
                  void (*fn)(void *arg, const char *key, size_t nkey, int64_t changed), void *arg,
                  bool *more) {
    struct ctree_obj *o;
    uint64_t n = 0;

    *more = false;
    ctree_wrlock_released();
    o = after == NULL ? ctree_act_head : ctree_gone(after) ? NULL : after->act_next;
    for (; o != NULL && o->changed != 0 && o->changed >= since; o = o->act_next) {
        if (n == max) {
            *more = true;
            break;
        }
        fn(arg, item_key(o->self), o->self->nkey, o->changed);
        n++;
    }
    pthread_rwlock_unlock(&ctree_lock);
}

static int ctree_changed_cmp(const void *a, const void *b) {
    int64_t x = (*(struct ctree_obj *const *)a)->changed, y = (*(struct ctree_obj *const *)b)->changed;

    return x > y ? -1 : x < y;
}

void ctree_active_sort(void) {
    struct ctree_obj **v, *o;
    size_t n = 0, i;

    pthread_rwlock_wrlock(&ctree_lock);
    v = malloc((ctree_nobjs + ctree_nreleasing + 1) * sizeof(*v));
    if (v != NULL) {
        for (o = ctree_act_head; o != NULL; o = o->act_next)
            v[n++] = o;
        qsort(v, n, sizeof(*v), ctree_changed_cmp);
        ctree_act_head = ctree_act_tail = ctree_sweep_at = NULL;
        for (i = 0; i < n; i++)
            ctree_act_push_back(v[i]);
        free(v);
    }
    pthread_rwlock_unlock(&ctree_lock);
}

void ctree_totals(uint64_t *counters, uint64_t *objects, uint64_t *values, uint64_t *releasing) {
    pthread_rwlock_wrlock(&ctree_lock);
    *counters = ctree_ncounters;
    *objects = ctree_nobjs;
    *values = ctree_nvalues;
    *releasing = ctree_nreleasing;
    pthread_rwlock_unlock(&ctree_lock);
}

/* ---- timers and life cycle ---- */

void ctree_key_unlink(item *it) {
    ctree_ks->unlink(item_key(it), it->nkey, item_cas(it));
}

/* Retention: a bounded step of the sweep over every object (those of a
 * deleted subtree, still listed until released, are passed over). */
static void ctree_sweep(void) {
    int64_t now = ctree_now();
    int i;

    pthread_rwlock_wrlock(&ctree_lock);
    for (i = 0; i < CTREE_SWEEP_BATCH && ctree_act_head != NULL; i++) {
        if (ctree_sweep_at == NULL)
            ctree_sweep_at = ctree_act_head;
        if (!ctree_gone(ctree_sweep_at))
            ctree_obj_expire(ctree_sweep_at, now);
        ctree_sweep_at = ctree_sweep_at->act_next;
    }
    pthread_rwlock_unlock(&ctree_lock);
}

void ctree_tick(void) {
    ctree_sweep();
    ctree_release_tick();
}

/* `stats`: counters defined, live objects, non-zero values, objects of
 * deleted subtrees not yet released. */
static void ctree_stats_emit(stats_emit_fn emit, void *ctx) {
    uint64_t counters, objects, values, releasing;

    ctree_totals(&counters, &objects, &values, &releasing);
    stats_emit_u64(emit, ctx, "ctree_counters", counters);
    stats_emit_u64(emit, ctx, "ctree_objects", objects);
    stats_emit_u64(emit, ctx, "ctree_values", values);
    stats_emit_u64(emit, ctx, "ctree_releasing", releasing);
}

static const struct stats_provider ctree_stats_provider = { "ctree", STATS_PLACE_MCDS, 30, ctree_stats_emit };

void ctree_init(const struct ctree_keyspace *ks, struct event_base *base) {
    int i;

    for (i = 0; i < CTREE_TREE_LOCKS; i++)
        pthread_mutex_init(&ctree_tree_locks[i], NULL);
    ctree_ks = ks;
    stats_provide(&ctree_stats_provider);
    item_set_free_hook(ITEM_CTREE, ctree_obj_free);
    ctree_release_init(base);
}

void ctree_shutdown(void) {
    pthread_rwlock_wrlock(&ctree_lock);
    ctree_stopping = true;
    pthread_rwlock_unlock(&ctree_lock);
    ctree_release_shutdown();
}

void ctree_destroy(void) {
    size_t i;

    for (i = 0; i < ctree_ncounters; i++)
        ctree_counter_free(ctree_counters[i]);
    free(ctree_counters);
    ctree_counters = NULL;
    ctree_ncounters = ctree_capcounters = 0;
}
