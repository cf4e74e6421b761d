/*
 * table_cursor: server cursors over a table's index or rows (doc/
 * protocol.md, "Cursors"): a selection turned into byte bounds on the
 * index's entries, the last entry answered, the fields to return, the
 * predicate of a scan, a lifetime. Any connection continues a cursor; a
 * page runs under the table's read lock and resumes strictly after the
 * last entry answered, so entries (unique) never come twice.
 *
 * The registry (at most TBL_CURSORS_MAX) is guarded by its own mutex; a
 * cursor serving a page is marked busy and stays out of reach of expiry.
 * Expired cursors are swept when cursors are opened, listed or counted.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "types/table_int.h"

/* Past every byte a part's tag may have: a bound + this byte is after
 * every entry that starts with the bound. */
#define TBL_PAST_TAGS 0x03

/* Entries a walk takes at a time, and the bytes of a row's values asked
 * for ahead (tcur_gather). */
#define TCUR_BATCH 16
#define TCUR_PREFETCH_MAX 512

struct tbl_cursor {
    uint64_t id;
    char tname[TBL_TABLE_NAME_MAX + 1];
    size_t ntname;
    uint64_t tid, ixid;
    char ixname[TBL_NAME_MAX + 1];
    bool scan, desc, busy, closed;
    uint8_t *lo, *hi, *pos;     /* entries in [lo, hi); the last answered */
    size_t nlo, nhi, npos, cpos;    /* cpos: room at pos */
    uint64_t mask;
    struct tbl_pred *pred;
    uint64_t ttl_ms, created_ms, used_ms;
};

static pthread_mutex_t tcur_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbl_cursor *tcur[TBL_CURSORS_MAX];
static int tcur_n;
static uint64_t tcur_ids;

static void tcur_free(struct tbl_cursor *c) {
    table_pred_free(c->pred);
    free(c->lo);
    free(c->hi);
    free(c->pos);
    free(c);
}

/* Under tcur_lock: removes slot i. */
static struct tbl_cursor *tcur_unlist(int i) {
    struct tbl_cursor *c = tcur[i];

    tcur[i] = tcur[--tcur_n];
    table_stat_cursors(-1);
    return c;
}

/* Under tcur_lock: frees the cursors whose lifetime has passed. */
static void tcur_sweep(uint64_t now) {
    int i;

    for (i = tcur_n - 1; i >= 0; i--)
        if (!tcur[i]->busy && now >= tcur[i]->used_ms + tcur[i]->ttl_ms) {
            tcur_free(tcur_unlist(i));
            table_stat_expired();
        }
}

static int tcur_find(uint64_t id) {
    int i;

    for (i = 0; i < tcur_n; i++)
        if (tcur[i]->id == id)
            return i;
    return -1;
}

uint64_t table_cursor_count(void) {
    uint64_t n;

    pthread_mutex_lock(&tcur_lock);
    tcur_sweep(clock_now_ms());
    n = (uint64_t)tcur_n;
    pthread_mutex_unlock(&tcur_lock);
    return n;
}

void table_cursor_shutdown(void) {
    pthread_mutex_lock(&tcur_lock);
    while (tcur_n > 0)
        tcur_free(tcur_unlist(tcur_n - 1));
    pthread_mutex_unlock(&tcur_lock);
}

/* ---- bounds ---- */

/* A copy of p[0..n), then the byte extra unless it is -1; NULL when no
 * memory. */
static uint8_t *tcur_bound(const uint8_t *p, size_t n, int extra, size_t *nout) {
    uint8_t *b = malloc(n + 1);

    if (b == NULL)
        return NULL;
    memcpy(b, p, n);
    *nout = n;
    if (extra >= 0)
        b[(*nout)++] = (uint8_t)extra;
    return b;
}

/* The entries of a selection: those that start with the eq values'
 * encoding P, and within it the range on the next part, as [lo, hi). */
static bool tcur_bounds(struct tbl_cursor *c, const struct table *t, const struct tbl_index *ix,
                        const struct tbl_select *sel) {
    size_t cap = 16, n = 0, vn;
    uint8_t *p;
    int i, k = sel->neq;
    bool ok = true;

    for (i = 0; i < sel->neq; i++)
        cap += table_part_encode(t->s.type[ix->def.part[i].field], &ix->def.part[i], &sel->eq[i], NULL);
    if (sel->has_lo)
        cap += table_part_encode(t->s.type[ix->def.part[k].field], &ix->def.part[k], &sel->lo, NULL);
    if (sel->has_hi)
        cap += table_part_encode(t->s.type[ix->def.part[k].field], &ix->def.part[k], &sel->hi, NULL);
    if ((p = malloc(cap)) == NULL)
        return false;
    for (i = 0; i < sel->neq; i++)
        n += table_part_encode(t->s.type[ix->def.part[i].field], &ix->def.part[i], &sel->eq[i], p + n);
    if (!sel->has_lo && !sel->has_hi) {
        if (n > 0) {
            ok = (c->lo = tcur_bound(p, n, -1, &c->nlo)) != NULL &&
                 (c->hi = tcur_bound(p, n, TBL_PAST_TAGS, &c->nhi)) != NULL;
        }
        free(p);
        return ok;
    }
    {
        const struct tbl_part *part = &ix->def.part[k];
        enum tbl_type ty = t->s.type[part->field];
        /* in byte order: the value-lower bound is the byte-lower one unless desc */
        const struct tbl_val *blo = part->desc ? (sel->has_hi ? &sel->hi : NULL) : (sel->has_lo ? &sel->lo : NULL);
        const struct tbl_val *bhi = part->desc ? (sel->has_lo ? &sel->lo : NULL) : (sel->has_hi ? &sel->hi : NULL);
        bool lo_strict = part->desc ? sel->hi_strict : sel->lo_strict;
        bool hi_strict = part->desc ? sel->lo_strict : sel->hi_strict;

        if (blo != NULL) {
            vn = table_part_encode(ty, part, blo, p + n);
            ok = (c->lo = tcur_bound(p, n + vn, lo_strict ? TBL_PAST_TAGS : -1, &c->nlo)) != NULL;
        } else {
            ok = (c->lo = tcur_bound(p, n, 0x01, &c->nlo)) != NULL;     /* the first value */
        }
        if (ok && bhi != NULL) {
            vn = table_part_encode(ty, part, bhi, p + n);
            ok = (c->hi = tcur_bound(p, n + vn, hi_strict ? -1 : TBL_PAST_TAGS, &c->nhi)) != NULL;
        } else if (ok) {
            ok = (c->hi = tcur_bound(p, n, 0x02, &c->nhi)) != NULL;     /* past the last value */
        }
    }
    free(p);
    return ok;
}

/* ---- open, page, close ---- */

static struct tbl_index *tcur_index(const struct table *t, uint64_t ixid) {
    int i;

    for (i = 0; i < t->nidx; i++)
        if (t->idx[i]->id == ixid)
            return t->idx[i];
    return NULL;
}

static struct tbl_cursor *tcur_new(struct table *t, const struct tbl_select *sel, bool scan, uint64_t mask,
                                   uint32_t ttl_s) {
    struct tbl_cursor *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    memcpy(c->tname, t->name, t->nname);
    c->ntname = t->nname;
    c->tid = t->id;
    c->scan = scan;
    c->desc = !scan && sel->desc;
    c->mask = mask;
    c->ttl_ms = (uint64_t)ttl_s * 1000;
    c->created_ms = c->used_ms = clock_now_ms();
    return c;
}

/* A cursor for the selection (not registered) in *out; it takes pred. */
static enum tbl_result tcur_prepare(struct table *t, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                                    uint64_t mask, uint32_t ttl_s, struct tbl_cursor **out) {
    struct tbl_cursor *c = tcur_new(t, sel, scan, mask, ttl_s);
    enum tbl_result r = TBL_OK;
    int i;

    if (c == NULL) {
        table_pred_free(pred);
        return TBL_NOMEM;
    }
    c->pred = pred;
    pthread_rwlock_rdlock(&t->lock);
    for (i = 0; !scan && i < t->nidx && strcmp(t->idx[i]->def.name, sel->index) != 0; i++)
        ;
    if (i == t->nidx || (!scan && (sel->neq > t->idx[i]->def.nparts ||
                                    ((sel->has_lo || sel->has_hi) && sel->neq >= t->idx[i]->def.nparts))))
        r = TBL_NOT_FOUND;      /* none, or one of that name with fewer parts since the line was read */
    else if (t->idx[i]->building)
        r = TBL_BUILDING;
    else {
        c->ixid = t->idx[i]->id;
        strcpy(c->ixname, scan ? "scan" : t->idx[i]->def.name);
        if (!scan && !tcur_bounds(c, t, t->idx[i], sel))
            r = TBL_NOMEM;
    }
    pthread_rwlock_unlock(&t->lock);
    if (r != TBL_OK)
        tcur_free(c);
    *out = r == TBL_OK ? c : NULL;
    return r;
}

enum tbl_result table_cursor_open(struct table *t, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                                  uint64_t mask, uint32_t ttl_s, uint64_t *id) {
    struct tbl_cursor *c;
    enum tbl_result r = tcur_prepare(t, sel, scan, pred, mask, ttl_s, &c);

    if (r == TBL_OK) {
        pthread_mutex_lock(&tcur_lock);
        tcur_sweep(clock_now_ms());
        if (tcur_n == TBL_CURSORS_MAX)
            r = TBL_TOO_MANY;
        else {
            c->id = *id = ++tcur_ids;
            tcur[tcur_n++] = c;
            table_stat_cursors(1);
        }
        pthread_mutex_unlock(&tcur_lock);
        if (r != TBL_OK)
            tcur_free(c);
    }
    return r;
}

/* Whether entry n is inside c's bounds on the side the walk goes to. */
static bool tcur_inside(const struct tbl_cursor *c, const struct tskip_node *n) {
    if (n == NULL)
        return false;
    if (c->desc)
        return c->lo == NULL || tskip_cmp(tskip_key(n), n->klen, c->lo, c->nlo) >= 0;
    return c->hi == NULL || tskip_cmp(tskip_key(n), n->klen, c->hi, c->nhi) < 0;
}

static struct tskip_node *tcur_start(const struct tbl_cursor *c, const struct tbl_index *ix) {
    if (c->desc)
        return c->pos != NULL ? tskip_seek_back(&ix->sl, c->pos, c->npos, true)
                              : tskip_seek_back(&ix->sl, c->hi, c->nhi, true);
    return c->pos != NULL ? tskip_seek(&ix->sl, c->pos, c->npos, true) : tskip_seek(&ix->sl, c->lo, c->nlo, false);
}

/* Makes room for a position of n bytes; false when no memory. */
static bool tcur_pos_room(struct tbl_cursor *c, size_t n) {
    uint8_t *p;

    if (c->pos != NULL && n <= c->cpos)
        return true;
    if ((p = realloc(c->pos, n > 0 ? n : 1)) == NULL)
        return false;
    c->pos = p;
    c->cpos = n;
    return true;
}

/* Remembers n as the last entry answered or examined (room made). */
static void tcur_mark(struct tbl_cursor *c, const struct tskip_node *n) {
    memcpy(c->pos, tskip_key(n), n->klen);
    c->npos = n->klen;
}

/* Asks for the cache lines of r and of its values ahead of their use. */
static void tcur_prefetch_values(const struct tbl_row *r) {
    size_t off;

    for (off = 0; off < r->vsize && off < TCUR_PREFETCH_MAX; off += 64)
        __builtin_prefetch((const char *)r->v + off);
}

/* Up to max entries from n on, inside c's bounds, into b, their rows and
 * values asked for from memory as the walk goes (so that a page waits for
 * them together, not one after another); room made for the position of
 * each. How many (-1 when no memory); *after: the entry after the last. */
static int tcur_gather(struct tbl_cursor *c, struct tskip_node *n, int max, struct tskip_node **b,
                       struct tskip_node **after) {
    size_t need = 0;
    int k = 0, i;

    for (; k < max && tcur_inside(c, n); n = c->desc ? n->prev : tskip_next(n)) {
        __builtin_prefetch(n->val);
        if (!c->desc)
            __builtin_prefetch(tskip_ahead(n));    /* the node after the next */
        need = n->klen > need ? n->klen : need;
        b[k++] = n;
    }
    for (i = 0; i < k; i++)
        tcur_prefetch_values(b[i]->val);
    *after = n;
    return k > 0 && !tcur_pos_room(c, need) ? -1 : k;
}

/* How many entries the next batch of a walk gathers. */
static int tcur_batch_size(const struct tbl_cursor *c, uint32_t sent, uint32_t count, uint32_t examined) {
    uint32_t max = TCUR_BATCH;

    if (c->pred == NULL && count - sent < max)
        max = count - sent;     /* every entry answered */
    if (c->scan && TBL_SCAN_EXAMINE - examined < max)
        max = TBL_SCAN_EXAMINE - examined;
    return (int)max;
}

/* One page under the table's read lock: true when the walk is complete.
 * Entries are taken in batches (tcur_gather); the position is the last
 * entry answered or examined. */
static bool tcur_walk(struct tbl_cursor *c, const struct table *t, const struct tbl_index *ix, uint32_t count,
                      tbl_row_fn fn, void *arg) {
    struct tskip_node *b[TCUR_BATCH], *n = tcur_start(c, ix);
    uint32_t sent = 0, examined = 0;
    bool more = true;
    int k = 0, i = 0;

    while (more && sent < count && (!c->scan || examined < TBL_SCAN_EXAMINE)) {
        if ((k = tcur_gather(c, n, tcur_batch_size(c, sent, count, examined), b, &n)) <= 0)
            break;
        for (i = 0; i < k && more && sent < count; i++) {
            struct tbl_row *r = b[i]->val;

            examined++;
            if (c->pred == NULL || table_pred_eval(c->pred, r->v)) {
                more = fn(arg, t, r->ver, r->v, c->mask);
                sent++;
            }
        }
        tcur_mark(c, b[i - 1]);
        if (i < k)
            n = b[i];
    }
    return k >= 0 && !tcur_inside(c, n);
}

enum tbl_result table_cursor_page(uint64_t id, uint32_t count, tbl_row_fn fn, void *arg, uint64_t *next) {
    struct tbl_cursor *c = NULL;
    struct tbl_index *ix;
    struct table *t;
    bool done = true;
    int i;

    pthread_mutex_lock(&tcur_lock);
    tcur_sweep(clock_now_ms());
    if ((i = tcur_find(id)) >= 0 && !tcur[i]->busy) {
        c = tcur[i];
        c->busy = true;
    }
    pthread_mutex_unlock(&tcur_lock);
    if (c == NULL)
        return i < 0 ? TBL_NOT_FOUND : TBL_BUSY;
    if ((t = table_get(c->tname, c->ntname)) != NULL) {
        pthread_rwlock_rdlock(&t->lock);
        if (t->id == c->tid && (ix = tcur_index(t, c->ixid)) != NULL)
            done = tcur_walk(c, t, ix, count, fn, arg);
        pthread_rwlock_unlock(&t->lock);
        table_put(t);
    }
    pthread_mutex_lock(&tcur_lock);
    c->busy = false;
    c->used_ms = clock_now_ms();
    if (done && !c->closed)
        tcur_unlist(tcur_find(id));
    pthread_mutex_unlock(&tcur_lock);
    *next = done || c->closed ? 0 : id;
    if (done || c->closed)
        tcur_free(c);
    return TBL_OK;
}

enum tbl_result table_select_once(struct table *t, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                                  uint64_t mask, uint32_t count, tbl_row_fn fn, void *arg) {
    struct tbl_cursor *c;
    struct tbl_index *ix;
    enum tbl_result r = tcur_prepare(t, sel, scan, pred, mask, 1, &c);

    if (r != TBL_OK)
        return r;
    pthread_rwlock_rdlock(&t->lock);
    if ((ix = tcur_index(t, c->ixid)) != NULL)
        tcur_walk(c, t, ix, count, fn, arg);
    pthread_rwlock_unlock(&t->lock);
    tcur_free(c);
    return TBL_OK;
}

enum tbl_result table_cursor_close(uint64_t id) {
    struct tbl_cursor *c = NULL;
    int i;

    pthread_mutex_lock(&tcur_lock);
    if ((i = tcur_find(id)) >= 0) {
        c = tcur_unlist(i);
        if (c->busy)
            c->closed = true;   /* the page serving it frees it */
        else
            tcur_free(c);
    }
    pthread_mutex_unlock(&tcur_lock);
    return i >= 0 ? TBL_OK : TBL_NOT_FOUND;
}

void table_cursor_list(void (*fn)(void *arg, uint64_t id, const char *table, size_t ntable, const char *index,
                                  uint64_t age_ms, uint64_t left_ms), void *arg) {
    uint64_t now = clock_now_ms();
    int i;

    pthread_mutex_lock(&tcur_lock);
    tcur_sweep(now);
    for (i = 0; i < tcur_n; i++) {
        struct tbl_cursor *c = tcur[i];
        uint64_t end = c->used_ms + c->ttl_ms;

        fn(arg, c->id, c->tname, c->ntname, c->ixname, now - c->created_ms, end > now ? end - now : 0);
    }
    pthread_mutex_unlock(&tcur_lock);
}
