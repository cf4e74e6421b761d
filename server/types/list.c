/*
 * types/list: the sequence of a list (a treap of chunks of packed
 * elements), its operations, its waiters, and the reclaimer thread that
 * frees deleted lists in the background.
 *
 * An element is packed as its length (a varint), its bytes, and its
 * length again with the varint's bytes reversed, so a chunk is walked
 * from either end. A chunk's bytes are buf[lo, hi): an element added at
 * the chunk's front or back moves nothing else. A chunk grows until it
 * holds LIST_CHUNK_BYTES; an element that does not fit then opens a new
 * chunk, or splits the chunk where it goes in.
 *
 * Out of memory: every allocation a change needs is made before the list
 * changes (a split or a new empty chunk is not a change of content), so
 * a refused change leaves the list as it was. The value index is a cache
 * of the sequence: when it cannot grow it is dropped, and rebuilt when a
 * by-value operation next needs it.
 *
 * Lock order: the registry lock, then a list's lock; the reclaimer's lock
 * is taken under neither.
 */
#include <stdlib.h>
#include <string.h>

#include "../item.h"
#include "list.h"
#include "list_int.h"
#include "list_persist.h"

#define LIST_CHUNK_FIRST 64         /* first buffer of a list's first chunk */
#define LIST_MALLOC_OVERHEAD 16     /* counted per allocation under -m */

static pthread_mutex_t list_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list *list_reg;
static uint64_t list_nlists;
static bool (*list_room)(size_t need);

static pthread_mutex_t list_dead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t list_dead_cond = PTHREAD_COND_INITIALIZER;
static struct list *list_dead;
static uint64_t list_ndead;         /* freed, not yet reclaimed */
static bool list_reaper_on, list_reaper_stop;
static pthread_t list_reaper;

void list_charge(struct list *l, long bytes) {
    l->mem += (size_t)bytes;
    item_mem_charge(bytes);
}

/* ---- packed elements ---- */

static size_t list_var_len(size_t n) {
    size_t k = 1;

    while (n >= 0x80) {
        n >>= 7;
        k++;
    }
    return k;
}

static size_t list_elem_size(size_t n) {
    return 2 * list_var_len(n) + n;
}

size_t list_var_get(const char *p, size_t *n) {
    size_t v = 0, k = 0;
    unsigned shift = 0;
    unsigned char b;

    do {
        b = (unsigned char)p[k++];
        v |= (size_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    *n = v;
    return k;
}

/* The length stored after an element ending at end: its start. */
static size_t list_var_back(const char *buf, size_t end, size_t *n) {
    size_t v = 0, k = 0;
    unsigned shift = 0;
    unsigned char b;

    do {
        b = (unsigned char)buf[end - 1 - k++];
        v |= (size_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    *n = v;
    return end - 2 * k - v;
}

static void list_elem_write(char *dst, const char *p, size_t n) {
    char var[10];
    size_t k = 0, i, v = n;

    while (v >= 0x80) {
        var[k++] = (char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    var[k++] = (char)v;
    memcpy(dst, var, k);
    memcpy(dst + k, p, n);
    for (i = 0; i < k; i++)
        dst[k + n + i] = var[k - 1 - i];
}

/* The element at off: its bytes in *p, *n; returns the next offset. */
static uint32_t list_elem_read(const struct lchunk *c, uint32_t off, const char **p, size_t *n) {
    size_t k = list_var_get(c->buf + off, n);

    *p = c->buf + off + k;
    return (uint32_t)(off + 2 * k + *n);
}

size_t list_unpack(const char *buf, size_t off, const char **p, size_t *n) {
    size_t k = list_var_get(buf + off, n);

    *p = buf + off + k;
    return off + 2 * k + *n;
}

uint32_t list_chunk_at(const struct lchunk *c, uint32_t i) {
    uint32_t off, k;
    const char *p;
    size_t n;

    if (i <= c->count / 2) {
        for (off = c->lo, k = 0; k < i; k++)
            off = list_elem_read(c, off, &p, &n);
        return off;
    }
    for (off = c->hi, k = c->count; k > i; k--)
        off = (uint32_t)list_var_back(c->buf, off, &n);
    return off;
}

/* ---- the treap ---- */

static uint64_t lt_sum(const struct lchunk *c) {
    return c != NULL ? c->sum : 0;
}

static void lt_fix(struct lchunk *c) {
    c->sum = c->count + lt_sum(c->left) + lt_sum(c->right);
}

static void lt_bubble(struct lchunk *c, int64_t d) {
    for (; c != NULL; c = c->up)
        c->sum += (uint64_t)d;
}

static struct lchunk *lt_first(struct lchunk *c) {
    if (c != NULL)
        while (c->left != NULL)
            c = c->left;
    return c;
}

static struct lchunk *lt_last(struct lchunk *c) {
    if (c != NULL)
        while (c->right != NULL)
            c = c->right;
    return c;
}

static struct lchunk *lt_prev(struct lchunk *c) {
    if (c->left != NULL)
        return lt_last(c->left);
    while (c->up != NULL && c->up->left == c)
        c = c->up;
    return c->up;
}

static struct lchunk *lt_next(struct lchunk *c) {
    if (c->right != NULL)
        return lt_first(c->right);
    while (c->up != NULL && c->up->right == c)
        c = c->up;
    return c->up;
}

uint64_t list_chunk_rank(const struct lchunk *c) {
    uint64_t r = lt_sum(c->left);

    for (; c->up != NULL; c = c->up)
        if (c->up->right == c)
            r += lt_sum(c->up->left) + c->up->count;
    return r;
}

/* The chunk holding element idx (< l->count); *i its place in it. */
static struct lchunk *lt_find(struct list *l, uint64_t idx, uint32_t *i) {
    struct lchunk *c = l->root;

    for (;;) {
        uint64_t left = lt_sum(c->left);
        if (idx < left) {
            c = c->left;
        } else if (idx - left < c->count) {
            *i = (uint32_t)(idx - left);
            return c;
        } else {
            idx -= left + c->count;
            c = c->right;
        }
    }
}

static void lt_set_child(struct list *l, struct lchunk *p, struct lchunk *old, struct lchunk *n) {
    if (p == NULL)
        l->root = n;
    else if (p->left == old)
        p->left = n;
    else
        p->right = n;
    if (n != NULL)
        n->up = p;
}

static void lt_rotate_up(struct list *l, struct lchunk *x) {
    struct lchunk *p = x->up, *g = p->up;

    if (p->left == x) {
        p->left = x->right;
        if (p->left != NULL)
            p->left->up = p;
        x->right = p;
    } else {
        p->right = x->left;
        if (p->right != NULL)
            p->right->up = p;
        x->left = p;
    }
    p->up = x;
    lt_set_child(l, g, p, x);
    lt_fix(p);
    lt_fix(x);
}

static uint32_t list_rand(struct list *l) {
    uint32_t x = l->rng;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    l->rng = x;
    return x;
}

/* Links n (its count set) after chunk c, or first when c is NULL. */
static void lt_insert_after(struct list *l, struct lchunk *c, struct lchunk *n) {
    struct lchunk *p;

    n->left = n->right = n->up = NULL;
    n->sum = n->count;
    n->prio = list_rand(l);
    if (l->root == NULL) {
        l->root = n;
        return;
    }
    if (c == NULL) {
        p = lt_first(l->root);
        p->left = n;
    } else if (c->right == NULL) {
        p = c;
        p->right = n;
    } else {
        p = lt_first(c->right);
        p->left = n;
    }
    n->up = p;
    lt_bubble(p, n->count);
    while (n->up != NULL && n->up->prio < n->prio)
        lt_rotate_up(l, n);
}

/* Unlinks n (its elements leave the counts). */
static void lt_remove(struct list *l, struct lchunk *n) {
    lt_bubble(n, -(int64_t)n->count);
    n->count = 0;
    while (n->left != NULL && n->right != NULL)
        lt_rotate_up(l, n->left->prio > n->right->prio ? n->left : n->right);
    lt_set_child(l, n->up, n, n->left != NULL ? n->left : n->right);
}

/* ---- chunks ---- */

static struct lchunk *lc_new(struct list *l, size_t cap) {
    struct lchunk *c = calloc(1, sizeof(*c));
    char *b = malloc(cap);

    if (c == NULL || b == NULL) {
        free(c);
        free(b);
        return NULL;
    }
    c->buf = b;
    c->cap = (uint32_t)cap;
    list_charge(l, (long)(sizeof(*c) + cap + 2 * LIST_MALLOC_OVERHEAD));
    return c;
}

static void lc_free(struct list *l, struct lchunk *c) {
    list_charge(l, -(long)(sizeof(*c) + c->cap + 2 * LIST_MALLOC_OVERHEAD));
    free(c->buf);
    free(c);
}

/* A bigger (or compacted) buffer for c with a gap of need bytes at at;
 * the slack goes to the front when the gap is at the front. Returns the
 * gap's offset, or UINT32_MAX without memory (c unchanged). */
static uint32_t lc_regrow(struct list *l, struct lchunk *c, uint32_t at, uint32_t need) {
    size_t used = c->hi - c->lo, want = used + need, cap = c->cap, lo;
    char *b;

    while (cap < want)
        cap *= 2;
    if (cap > LIST_CHUNK_BYTES && want <= LIST_CHUNK_BYTES)
        cap = LIST_CHUNK_BYTES;
    b = malloc(cap);
    if (b == NULL)
        return UINT32_MAX;
    lo = at == c->lo && c->count > 0 ? cap - want : 0;
    memcpy(b + lo, c->buf + c->lo, at - c->lo);
    memcpy(b + lo + (at - c->lo) + need, c->buf + at, c->hi - at);
    list_charge(l, (long)cap - (long)c->cap);
    free(c->buf);
    at = (uint32_t)(lo + (at - c->lo));
    c->buf = b;
    c->cap = (uint32_t)cap;
    c->lo = (uint32_t)lo;
    c->hi = (uint32_t)(lo + want);
    return at;
}

/* Opens a gap of need bytes at offset at of c; returns its offset. */
static uint32_t lc_open(struct list *l, struct lchunk *c, uint32_t at, uint32_t need) {
    if (at == c->lo && c->lo >= need) {
        c->lo -= need;
        return c->lo;
    }
    if (c->hi + need <= c->cap) {
        memmove(c->buf + at + need, c->buf + at, c->hi - at);
        c->hi += need;
        return at;
    }
    if (c->lo >= need) {
        memmove(c->buf + c->lo - need, c->buf + c->lo, at - c->lo);
        c->lo -= need;
        return at - need;
    }
    return lc_regrow(l, c, at, need);
}

/* Closes the esz bytes at at, moving the shorter side. */
static void lc_close(struct lchunk *c, uint32_t at, uint32_t esz) {
    if (at - c->lo < c->hi - at - esz) {
        memmove(c->buf + c->lo + esz, c->buf + c->lo, at - c->lo);
        c->lo += esz;
    } else {
        memmove(c->buf + at, c->buf + at + esz, c->hi - at - esz);
        c->hi -= esz;
    }
}

/* ---- elements ---- */

static void list_index_elem(struct list *l, struct lchunk *c, const char *p, size_t n, int d) {
    if (l->vindex != NULL)
        list_vindex_add(l, list_vhash(p, n), c, d);
}

/* Moves elements [i, count) of c to a new chunk after it; NULL without
 * memory (nothing moved). */
static struct lchunk *list_split(struct list *l, struct lchunk *c, uint32_t i) {
    uint32_t at = list_chunk_at(c, i), nbytes = c->hi - at, off;
    struct lchunk *n = lc_new(l, nbytes > LIST_CHUNK_BYTES ? nbytes : LIST_CHUNK_BYTES);
    const char *p;
    size_t len;

    if (n == NULL)
        return NULL;
    memcpy(n->buf, c->buf + at, nbytes);
    n->lo = 0;
    n->hi = nbytes;
    n->count = c->count - i;
    c->hi = at;
    c->count = i;
    lt_bubble(c, -(int64_t)n->count);
    lt_insert_after(l, c, n);
    for (off = n->lo; l->vindex != NULL && off < n->hi;) {
        off = list_elem_read(n, off, &p, &len);
        list_index_elem(l, c, p, len, -1);
        list_index_elem(l, n, p, len, 1);
    }
    return n;
}

/* A new empty chunk after c (first if NULL) for an element of esz bytes;
 * its room is at the back, or at the front for a chunk that grows
 * towards the head. */
static struct lchunk *list_chunk_add(struct list *l, struct lchunk *c, size_t esz, bool front) {
    size_t cap = l->root == NULL ? LIST_CHUNK_FIRST : LIST_CHUNK_BYTES;
    struct lchunk *n = lc_new(l, esz > cap ? esz : cap);

    if (n != NULL) {
        n->lo = n->hi = front ? n->cap : 0;
        lt_insert_after(l, c, n);
    }
    return n;
}

/* Where an element of esz bytes goes in at place i of c (c NULL: the
 * list is empty): c itself while it has room, else a neighbour or a new
 * chunk, splitting c if i is inside it. NULL without memory. */
static struct lchunk *list_place(struct list *l, struct lchunk *c, uint32_t *i, size_t esz) {
    struct lchunk *prev;

    if (c == NULL)
        return list_chunk_add(l, NULL, esz, false);
    if (c->count == 0 || c->hi - c->lo + esz <= LIST_CHUNK_BYTES)
        return c;
    if (*i == 0) {
        prev = lt_prev(c);
        if (prev != NULL && prev->hi - prev->lo + esz <= LIST_CHUNK_BYTES) {
            *i = prev->count;
            return prev;
        }
        return list_chunk_add(l, prev, esz, true);
    }
    if (*i < c->count && list_split(l, c, *i) == NULL)
        return NULL;
    if (c->hi - c->lo + esz <= LIST_CHUNK_BYTES)
        return c;
    *i = 0;
    return list_chunk_add(l, c, esz, false);
}

/* Puts p[0..n) at place i of chunk c (NULL: the list is empty). */
static enum list_result list_put(struct list *l, struct lchunk *c, uint32_t i, const char *p, size_t n) {
    size_t esz = list_elem_size(n);
    uint32_t at;

    c = list_place(l, c, &i, esz);
    if (c == NULL)
        return LIST_NOMEM;
    at = lc_open(l, c, list_chunk_at(c, i), (uint32_t)esz);
    if (at == UINT32_MAX) {
        if (c->count == 0) {
            lt_remove(l, c);
            lc_free(l, c);
        }
        return LIST_NOMEM;
    }
    list_elem_write(c->buf + at, p, n);
    c->count++;
    lt_bubble(c, 1);
    l->count++;
    list_index_elem(l, c, p, n, 1);
    return LIST_OK;
}

/* Puts p[0..n) at position idx (0 .. count). */
enum list_result list_put_at(struct list *l, uint64_t idx, const char *p, size_t n) {
    struct lchunk *c;
    uint32_t i = 0;

    if (l->root == NULL)
        return list_put(l, NULL, 0, p, n);
    if (idx == l->count) {
        c = lt_last(l->root);
        return list_put(l, c, c->count, p, n);
    }
    c = lt_find(l, idx, &i);
    return list_put(l, c, i, p, n);
}

/* Removes element i of c; frees c when it empties. */
static void list_cut(struct list *l, struct lchunk *c, uint32_t i) {
    uint32_t at = list_chunk_at(c, i);
    const char *p;
    size_t n;
    uint32_t end = list_elem_read(c, at, &p, &n);

    list_index_elem(l, c, p, n, -1);
    lc_close(c, at, end - at);
    c->count--;
    lt_bubble(c, -1);
    l->count--;
    if (c->count == 0) {
        lt_remove(l, c);
        lc_free(l, c);
    }
}

void list_cut_at(struct list *l, uint64_t idx) {
    uint32_t i;
    struct lchunk *c = lt_find(l, idx, &i);

    list_cut(l, c, i);
}

/* Whole chunks at a time. */
void list_drop_end(struct list *l, enum list_end e, uint64_t k) {
    while (k > 0) {
        struct lchunk *c = e == LIST_HEAD ? lt_first(l->root) : lt_last(l->root);
        uint32_t off;
        const char *p;
        size_t n;

        if (c->count > k) {
            list_cut(l, c, e == LIST_HEAD ? 0 : c->count - 1);
            k--;
            continue;
        }
        for (off = c->lo; l->vindex != NULL && off < c->hi;) {
            off = list_elem_read(c, off, &p, &n);
            list_index_elem(l, c, p, n, -1);
        }
        k -= c->count;
        l->count -= c->count;
        lt_remove(l, c);
        lc_free(l, c);
    }
}

/* Bytes an element of n bytes may take, counted against -m first. */
static size_t list_need(size_t n) {
    return list_elem_size(n) + sizeof(struct lchunk) + 2 * LIST_MALLOC_OVERHEAD;
}

/* ---- waiters ---- */

static void list_unlist(struct list *l, struct list_waiter *w) {
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

/* Bytes the first k elements at end e take, packed. */
static size_t list_end_bytes(struct list *l, enum list_end e, int k) {
    size_t total = 0, n;
    struct lchunk *c = e == LIST_HEAD ? lt_first(l->root) : lt_last(l->root);
    uint32_t off = e == LIST_HEAD ? c->lo : c->hi;
    const char *p;

    while (k-- > 0) {
        if (e == LIST_HEAD && off == c->hi) {
            c = lt_next(c);
            off = c->lo;
        } else if (e == LIST_TAIL && off == c->lo) {
            c = lt_prev(c);
            off = c->hi;
        }
        if (e == LIST_HEAD) {
            uint32_t next = list_elem_read(c, off, &p, &n);
            total += next - off;
            off = next;
        } else {
            uint32_t start = (uint32_t)list_var_back(c->buf, off, &n);
            total += off - start;
            off = start;
        }
    }
    return total;
}

/* Serves waiters, in order, while the list has elements. A waiter whose
 * copy finds no memory stays waiting. */
static void list_serve(struct list *l) {
    while (l->whead != NULL && l->count > 0) {
        struct list_waiter *w = l->whead;
        int k = (uint64_t)w->want < l->count ? w->want : (int)l->count;
        struct list_take t = { NULL, 0 };
        size_t bytes = list_end_bytes(l, w->end, k);

        t.buf = malloc(bytes > 0 ? bytes : 1);
        if (t.buf == NULL)
            return;
        w->ngot = list_pop_locked(l, w->end, k, list_take_one, &t);
        llog_pop(l, w->end, w->ngot);
        w->got = t.buf;
        w->ngotbytes = t.off;
        list_unlist(l, w);
        w->wake(w);
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

static void list_free_chunks(struct list *l, struct lchunk *c) {
    while (c != NULL) {
        struct lchunk *right = c->right;
        list_free_chunks(l, c->left);
        lc_free(l, c);
        c = right;
    }
}

/* Frees l now (the reclaimer, or shutdown). */
static void list_destroy(struct list *l) {
    list_vindex_drop(l);
    list_free_chunks(l, l->root);
    item_mem_charge(-(long)l->mem);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

static void *list_reaper_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&list_dead_lock);
    for (;;) {
        struct list *l = list_dead;
        if (l == NULL && list_reaper_stop)
            break;
        if (l == NULL) {
            pthread_cond_wait(&list_dead_cond, &list_dead_lock);
            continue;
        }
        list_dead = l->dead_next;
        pthread_mutex_unlock(&list_dead_lock);
        list_destroy(l);
        pthread_mutex_lock(&list_dead_lock);
        list_ndead--;
    }
    pthread_mutex_unlock(&list_dead_lock);
    return NULL;
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
    if (!list_reaper_on) {
        list_destroy(l);
        return;
    }
    pthread_mutex_lock(&list_dead_lock);
    l->dead_next = list_dead;
    list_dead = l;
    list_ndead++;
    pthread_cond_signal(&list_dead_cond);
    pthread_mutex_unlock(&list_dead_lock);
}

void list_system_init(bool (*room)(size_t need)) {
    list_room = room;
    list_reaper_stop = false;
    list_reaper_on = pthread_create(&list_reaper, NULL, list_reaper_main, NULL) == 0;
}

void list_system_shutdown(void) {
    if (!list_reaper_on)
        return;
    pthread_mutex_lock(&list_dead_lock);
    list_reaper_stop = true;
    pthread_cond_signal(&list_dead_cond);
    pthread_mutex_unlock(&list_dead_lock);
    pthread_join(list_reaper, NULL);
    list_reaper_on = false;
}

static void list_close_locked(struct list *l) {
    if (!l->closed)
        llog_drop(l);
    l->closed = true;
    while (l->whead != NULL) {
        struct list_waiter *w = l->whead;
        list_unlist(l, w);
        w->ngot = 0;
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

const struct list_opts *list_options(const struct list *l) {
    return &l->opts;
}

void list_totals(uint64_t *nlists, uint64_t *nelems, uint64_t *nwaiters, uint64_t *nreclaiming) {
    struct list *l;

    pthread_mutex_lock(&list_dead_lock);
    *nreclaiming = list_ndead;
    pthread_mutex_unlock(&list_dead_lock);

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
        need += list_need(v[k].n);
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
    return r;
}

int list_pop_locked(struct list *l, enum list_end e, int max, list_each_fn fn, void *arg) {
    int k;

    for (k = 0; k < max && l->count > 0; k++) {
        struct lchunk *c = e == LIST_HEAD ? lt_first(l->root) : lt_last(l->root);
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
        c = lt_find(l, at, &i);
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
    c = lt_find(l, start, &i);
    at = list_chunk_at(c, i);
    while (c != NULL && k < limit) {
        const char *p;
        size_t n;
        if (at == c->hi) {
            c = lt_next(c);
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

    if (!list_room_for(list_need(v->n)))
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

void list_keep(struct list *l, uint64_t start, uint64_t end) {
    list_drop_end(l, LIST_TAIL, l->count - end);
    list_drop_end(l, LIST_HEAD, start);
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

/* The chunks that may hold v, by position (*nspots of them; NULL and 0
 * when none; *spots NULL with LIST_NOMEM when memory ran out). */
static enum list_result list_spots(struct list *l, const struct list_val *v, struct list_spot **spots,
                                   size_t *nspots) {
    struct lvent *e;
    struct lvhint *h;
    size_t k;

    *spots = NULL;
    *nspots = 0;
    if (l->vindex == NULL && !list_vindex_build(l))
        return LIST_NOMEM;
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

static bool list_eq(const char *p, size_t n, const struct list_val *v) {
    return n == v->n && memcmp(p, v->p, n) == 0;
}

/* The first element of c equal to v (from the back if last), or -1. */
static int64_t list_chunk_find(const struct lchunk *c, const struct list_val *v, bool last) {
    uint32_t off = c->lo, i;
    int64_t found = -1;
    const char *p;
    size_t n;

    for (i = 0; i < c->count; i++) {
        off = list_elem_read(c, off, &p, &n);
        if (list_eq(p, n, v)) {
            found = i;
            if (!last)
                break;
        }
    }
    return found;
}

enum list_result list_contains(struct list *l, const struct list_val *v, bool *yes) {
    struct list_spot *s = NULL;
    enum list_result r;
    size_t ns = 0, k;

    *yes = false;
    pthread_mutex_lock(&l->lock);
    r = l->closed ? LIST_OK : list_spots(l, v, &s, &ns);
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

    if (!list_room_for(list_need(v->n)))
        return LIST_NOMEM;
    pthread_mutex_lock(&l->lock);
    r = l->closed ? LIST_GONE : l->opts.max_len != 0 && l->count >= l->opts.max_len ? LIST_FULL
        : list_spots(l, pivot, &s, &ns);
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
    return r;
}

/* Removes from c up to quota elements equal to v (from the back if
 * back), in one pass; returns how many. Frees c if it empties. */
static uint64_t list_chunk_remove(struct list *l, struct lchunk *c, const struct list_val *v,
                                  uint64_t quota, bool back) {
    uint32_t rd = c->lo, wr = c->lo, i, matches = 0, skip = 0, start;
    uint64_t gone = 0;
    const char *p;
    size_t n;

    if (back) {
        for (i = 0; i < c->count; i++) {
            rd = list_elem_read(c, rd, &p, &n);
            matches += list_eq(p, n, v);
        }
        skip = matches > quota ? matches - (uint32_t)quota : 0;
        rd = c->lo;
    }
    for (i = 0; i < c->count; i++) {
        start = rd;
        rd = list_elem_read(c, rd, &p, &n);
        if (list_eq(p, n, v) && skip > 0) {
            skip--;
        } else if (list_eq(p, n, v) && gone < quota) {
            gone++;
            continue;
        }
        if (wr != start)
            memmove(c->buf + wr, c->buf + start, rd - start);
        wr += rd - start;
    }
    if (gone == 0)
        return 0;
    c->hi = wr;
    c->count -= (uint32_t)gone;
    lt_bubble(c, -(int64_t)gone);
    l->count -= gone;
    list_index_elem(l, c, v->p, v->n, -(int)gone);
    if (c->count == 0) {
        lt_remove(l, c);
        lc_free(l, c);
    }
    return gone;
}

enum list_result list_remove_locked(struct list *l, int64_t count, const struct list_val *v,
                                    uint64_t *removed) {
    uint64_t quota = count == 0 ? UINT64_MAX : count > 0 ? (uint64_t)count
                     : count == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-count;
    struct list_spot *s = NULL;
    enum list_result r;
    size_t ns = 0, k;

    *removed = 0;
    r = list_spots(l, v, &s, &ns);
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
        r = list_remove_locked(l, count, v, removed);
    if (*removed > 0)
        llog_rem(l, count, v);
    pthread_mutex_unlock(&l->lock);
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
    return ok;
}

bool list_unwait(struct list *l, struct list_waiter *w) {
    bool was;

    pthread_mutex_lock(&l->lock);
    was = w->listed;
    if (was)
        list_unlist(l, w);
    pthread_mutex_unlock(&l->lock);
    return was;
}

void list_give_back(struct list *l, struct list_waiter *w) {
    const char **ps = NULL;
    size_t *ns = NULL, off = 0;
    int k;

    pthread_mutex_lock(&l->lock);
    if (!l->closed && w->ngot > 0) {
        ps = malloc((size_t)w->ngot * sizeof(*ps));
        ns = malloc((size_t)w->ngot * sizeof(*ns));
    }
    for (k = 0; ps != NULL && ns != NULL && k < w->ngot; k++) {
        size_t h = list_var_get(w->got + off, &ns[k]);
        ps[k] = w->got + off + h;
        off += 2 * h + ns[k];
    }
    /* Back in reverse, so each end reads as before the pop. */
    for (k = ps != NULL && ns != NULL ? w->ngot - 1 : -1; k >= 0; k--) {
        struct list_val v = { ps[k], ns[k] };
        if (list_put_at(l, w->end == LIST_HEAD ? 0 : l->count, v.p, v.n) == LIST_OK)
            llog_push(l, w->end, &v);
    }
    if (w->ngot > 0)
        list_serve(l);
    pthread_mutex_unlock(&l->lock);
    free(ps);
    free(ns);
    free(w->got);
    w->got = NULL;
    w->ngot = 0;
}
