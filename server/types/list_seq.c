/*
 * types/list_seq: the sequence of a list — elements packed in chunks, the
 * chunks in a treap ordered by position — and the operations on it that
 * list.c's verbs are made of: put or cut an element at a position, drop
 * elements at an end, read by position, and find or remove elements equal
 * to a value inside one chunk.
 *
 * An element is packed as its length (a varint), its bytes, and its
 * length again with the varint's bytes reversed, so a chunk is walked
 * from either end. A chunk's bytes are buf[lo, hi): an element added at
 * the chunk's front or back moves nothing else. A chunk grows until it
 * holds LIST_CHUNK_BYTES; an element that does not fit then opens a new
 * chunk, or splits the chunk where it goes in. Each treap node counts the
 * elements below it, so a position is found in O(log n).
 *
 * Out of memory: every allocation a change needs is made before the list
 * changes (a split or a new empty chunk is not a change of content). The
 * value index is kept up to date here (list_vindex_add) for every element
 * that enters or leaves a chunk. Every function expects the list locked.
 */
#include <stdlib.h>
#include <string.h>

#include "types/list_int.h"

#define LIST_CHUNK_FIRST 64         /* first buffer of a list's first chunk */

/* ---- packed elements ---- */

static size_t list_var_len(size_t n) {
    size_t k = 1;

    while (n >= 0x80) {
        n >>= 7;
        k++;
    }
    return k;
}

size_t list_elem_size(size_t n) {
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
size_t list_var_back(const char *buf, size_t end, size_t *n) {
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

void list_elem_write(char *dst, const char *p, size_t n) {
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
uint32_t list_elem_read(const struct lchunk *c, uint32_t off, const char **p, size_t *n) {
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

static uint64_t list_tsum(const struct lchunk *c) {
    return c != NULL ? c->sum : 0;
}

static void list_tfix(struct lchunk *c) {
    c->sum = c->count + list_tsum(c->left) + list_tsum(c->right);
}

static void list_tbubble(struct lchunk *c, int64_t d) {
    for (; c != NULL; c = c->up)
        c->sum += (uint64_t)d;
}

struct lchunk *list_chunk_first(struct lchunk *c) {
    if (c != NULL)
        while (c->left != NULL)
            c = c->left;
    return c;
}

struct lchunk *list_chunk_last(struct lchunk *c) {
    if (c != NULL)
        while (c->right != NULL)
            c = c->right;
    return c;
}

static struct lchunk *list_chunk_prev(struct lchunk *c) {
    if (c->left != NULL)
        return list_chunk_last(c->left);
    while (c->up != NULL && c->up->left == c)
        c = c->up;
    return c->up;
}

struct lchunk *list_chunk_next(struct lchunk *c) {
    if (c->right != NULL)
        return list_chunk_first(c->right);
    while (c->up != NULL && c->up->right == c)
        c = c->up;
    return c->up;
}

uint64_t list_chunk_rank(const struct lchunk *c) {
    uint64_t r = list_tsum(c->left);

    for (; c->up != NULL; c = c->up)
        if (c->up->right == c)
            r += list_tsum(c->up->left) + c->up->count;
    return r;
}

/* The chunk holding element idx (< l->count); *i its place in it. */
struct lchunk *list_chunk_of(struct list *l, uint64_t idx, uint32_t *i) {
    struct lchunk *c = l->root;

    for (;;) {
        uint64_t left = list_tsum(c->left);
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

static void list_tset_child(struct list *l, struct lchunk *p, struct lchunk *old, struct lchunk *n) {
    if (p == NULL)
        l->root = n;
    else if (p->left == old)
        p->left = n;
    else
        p->right = n;
    if (n != NULL)
        n->up = p;
}

static void list_trotate_up(struct list *l, struct lchunk *x) {
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
    list_tset_child(l, g, p, x);
    list_tfix(p);
    list_tfix(x);
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
static void list_tinsert_after(struct list *l, struct lchunk *c, struct lchunk *n) {
    struct lchunk *p;

    n->left = n->right = n->up = NULL;
    n->sum = n->count;
    n->prio = list_rand(l);
    if (l->root == NULL) {
        l->root = n;
        return;
    }
    if (c == NULL) {
        p = list_chunk_first(l->root);
        p->left = n;
    } else if (c->right == NULL) {
        p = c;
        p->right = n;
    } else {
        p = list_chunk_first(c->right);
        p->left = n;
    }
    n->up = p;
    list_tbubble(p, n->count);
    while (n->up != NULL && n->up->prio < n->prio)
        list_trotate_up(l, n);
}

/* Unlinks n (its elements leave the counts). */
static void list_tremove(struct list *l, struct lchunk *n) {
    list_tbubble(n, -(int64_t)n->count);
    n->count = 0;
    while (n->left != NULL && n->right != NULL)
        list_trotate_up(l, n->left->prio > n->right->prio ? n->left : n->right);
    list_tset_child(l, n->up, n, n->left != NULL ? n->left : n->right);
}

/* ---- chunks ---- */

static struct lchunk *list_chunk_new(struct list *l, size_t cap) {
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

static void list_chunk_free(struct list *l, struct lchunk *c) {
    list_charge(l, -(long)(sizeof(*c) + c->cap + 2 * LIST_MALLOC_OVERHEAD));
    free(c->buf);
    free(c);
}

/* A bigger (or compacted) buffer for c with a gap of need bytes at at;
 * the slack goes to the front when the gap is at the front. Returns the
 * gap's offset, or UINT32_MAX without memory (c unchanged). */
static uint32_t list_chunk_regrow(struct list *l, struct lchunk *c, uint32_t at, uint32_t need) {
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
static uint32_t list_chunk_open(struct list *l, struct lchunk *c, uint32_t at, uint32_t need) {
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
    return list_chunk_regrow(l, c, at, need);
}

/* Closes the esz bytes at at, moving the shorter side. */
static void list_chunk_close(struct lchunk *c, uint32_t at, uint32_t esz) {
    if (at - c->lo < c->hi - at - esz) {
        memmove(c->buf + c->lo + esz, c->buf + c->lo, at - c->lo);
        c->lo += esz;
    } else {
        memmove(c->buf + at, c->buf + at + esz, c->hi - at - esz);
        c->hi -= esz;
    }
}

/* ---- elements ---- */

/* Only chunks the index covers are in it: while it is being built, the
 * others are indexed whole by list_vindex_step later. */
static void list_index_elem(struct list *l, struct lchunk *c, const char *p, size_t n, int d) {
    if (l->vindex != NULL && list_vindex_covers(l, c))
        list_vindex_add(l, list_vhash(p, n), c, d);
}

/* Moves elements [i, count) of c to a new chunk after it; NULL without
 * memory (nothing moved). */
static struct lchunk *list_split(struct list *l, struct lchunk *c, uint32_t i) {
    uint32_t at = list_chunk_at(c, i), nbytes = c->hi - at, off;
    struct lchunk *n = list_chunk_new(l, nbytes > LIST_CHUNK_BYTES ? nbytes : LIST_CHUNK_BYTES);
    const char *p;
    size_t len;

    if (n == NULL)
        return NULL;
    n->vgen = c->vgen;      /* indexed if c was: its elements move with their entries */
    memcpy(n->buf, c->buf + at, nbytes);
    n->lo = 0;
    n->hi = nbytes;
    n->count = c->count - i;
    c->hi = at;
    c->count = i;
    list_tbubble(c, -(int64_t)n->count);
    list_tinsert_after(l, c, n);
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
    struct lchunk *n = list_chunk_new(l, esz > cap ? esz : cap);

    if (n != NULL) {
        n->lo = n->hi = front ? n->cap : 0;
        n->vgen = l->vindex != NULL ? l->vindex->gen : 0;  /* empty: covered at once */
        list_tinsert_after(l, c, n);
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
        prev = list_chunk_prev(c);
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
    at = list_chunk_open(l, c, list_chunk_at(c, i), (uint32_t)esz);
    if (at == UINT32_MAX) {
        if (c->count == 0) {
            list_tremove(l, c);
            list_chunk_free(l, c);
        }
        return LIST_NOMEM;
    }
    list_elem_write(c->buf + at, p, n);
    c->count++;
    list_tbubble(c, 1);
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
        c = list_chunk_last(l->root);
        return list_put(l, c, c->count, p, n);
    }
    c = list_chunk_of(l, idx, &i);
    return list_put(l, c, i, p, n);
}

/* Removes element i of c; frees c when it empties. */
void list_cut(struct list *l, struct lchunk *c, uint32_t i) {
    uint32_t at = list_chunk_at(c, i);
    const char *p;
    size_t n;
    uint32_t end = list_elem_read(c, at, &p, &n);

    list_index_elem(l, c, p, n, -1);
    list_chunk_close(c, at, end - at);
    c->count--;
    list_tbubble(c, -1);
    l->count--;
    if (c->count == 0) {
        list_tremove(l, c);
        list_chunk_free(l, c);
    }
}

void list_cut_at(struct list *l, uint64_t idx) {
    uint32_t i;
    struct lchunk *c = list_chunk_of(l, idx, &i);

    list_cut(l, c, i);
}

/* Whole chunks at a time. Taking each element out of the value index
 * costs a hash: past LIST_VINDEX_STEP elements the index is dropped
 * instead (in one pass over its table), and built again, a piece at a
 * time, when next asked by value. */
void list_drop_end(struct list *l, enum list_end e, uint64_t k) {
    if (k > LIST_VINDEX_STEP)
        list_vindex_drop(l);
    while (k > 0) {
        struct lchunk *c = e == LIST_HEAD ? list_chunk_first(l->root) : list_chunk_last(l->root);
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
        list_tremove(l, c);
        list_chunk_free(l, c);
    }
}

/* Bytes an element of n bytes may take, counted against -m first. */
size_t list_elem_need(size_t n) {
    return list_elem_size(n) + sizeof(struct lchunk) + 2 * LIST_MALLOC_OVERHEAD;
}

void list_keep(struct list *l, uint64_t start, uint64_t end) {
    list_drop_end(l, LIST_TAIL, l->count - end);
    list_drop_end(l, LIST_HEAD, start);
}

/* ---- reading and removing in place ---- */

/* Bytes the first *k elements at end e take, packed; *k is lowered to
 * the elements that fit in budget (at least one). */
size_t list_end_bytes(struct list *l, enum list_end e, int *k, size_t budget) {
    size_t total = 0, n;
    struct lchunk *c = e == LIST_HEAD ? list_chunk_first(l->root) : list_chunk_last(l->root);
    uint32_t off = e == LIST_HEAD ? c->lo : c->hi;
    const char *p;
    int i;

    for (i = 0; i < *k; i++) {
        size_t step;
        if (e == LIST_HEAD && off == c->hi) {
            c = list_chunk_next(c);
            off = c->lo;
        } else if (e == LIST_TAIL && off == c->lo) {
            c = list_chunk_prev(c);
            off = c->hi;
        }
        if (e == LIST_HEAD) {
            uint32_t next = list_elem_read(c, off, &p, &n);
            step = next - off;
            off = next;
        } else {
            uint32_t start = (uint32_t)list_var_back(c->buf, off, &n);
            step = off - start;
            off = start;
        }
        if (i > 0 && total + step > budget)
            break;
        total += step;
    }
    *k = i;
    return total;
}

void list_free_chunks(struct list *l, struct lchunk *c) {
    while (c != NULL) {
        struct lchunk *right = c->right;
        list_free_chunks(l, c->left);
        list_chunk_free(l, c);
        c = right;
    }
}

static bool list_eq(const char *p, size_t n, const struct list_val *v) {
    return n == v->n && memcmp(p, v->p, n) == 0;
}

/* The first element of c equal to v (from the back if last), or -1. */
int64_t list_chunk_find(const struct lchunk *c, const struct list_val *v, bool last) {
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

/* Removes from c up to quota elements equal to v (from the back if
 * back), in one pass; returns how many. Frees c if it empties. */
uint64_t list_chunk_remove(struct list *l, struct lchunk *c, const struct list_val *v,
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
    list_tbubble(c, -(int64_t)gone);
    l->count -= gone;
    list_index_elem(l, c, v->p, v->n, -(int)gone);
    if (c->count == 0) {
        list_tremove(l, c);
        list_chunk_free(l, c);
    }
    return gone;
}

