/*
 * table_skip: a skiplist of memcmp-ordered byte strings (see the header).
 * One allocation per node: its links, then its key.
 */
#include <stdlib.h>
#include <string.h>

#include "types/table_skip.h"

int tskip_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    int c = memcmp(a, b, na < nb ? na : nb);

    if (c != 0)
        return c;
    return na < nb ? -1 : na > nb ? 1 : 0;
}

static struct tskip_node *tskip_alloc(int lvl, size_t klen) {
    struct tskip_node *n = malloc(sizeof(*n) + (size_t)lvl * sizeof(n->next[0]) + klen);

    if (n == NULL)
        return NULL;
    n->val = NULL;
    n->prev = NULL;
    n->ahead = NULL;
    n->klen = (uint32_t)klen;
    n->lvl = (uint8_t)lvl;
    memset(n->next, 0, (size_t)lvl * sizeof(n->next[0]));
    return n;
}

bool tskip_init(struct tskip *s, uint32_t seed) {
    s->head = tskip_alloc(TSKIP_LEVELS, 0);
    s->level = 1;
    s->n = 0;
    s->rng = seed | 1;
    return s->head != NULL;
}

void tskip_destroy(struct tskip *s, void (*fn)(void *val)) {
    struct tskip_node *n, *next;

    if (s->head == NULL)
        return;
    for (n = s->head->next[0]; n != NULL; n = next) {
        next = n->next[0];
        if (fn != NULL)
            fn(n->val);
        free(n);
    }
    free(s->head);
    s->head = NULL;
    s->n = 0;
}

/* xorshift32: one level in four goes up. */
static int tskip_random_level(struct tskip *s) {
    int lvl = 1;
    uint32_t x = s->rng;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s->rng = x;
    while (lvl < TSKIP_LEVELS && (x & 3) == 0) {
        lvl++;
        x >>= 2;
    }
    return lvl;
}

struct tskip_node *tskip_node_new(struct tskip *s, size_t klen, void *val) {
    struct tskip_node *n = tskip_alloc(tskip_random_level(s), klen);

    if (n != NULL)
        n->val = val;
    return n;
}

size_t tskip_node_size(const struct tskip_node *n) {
    return sizeof(*n) + (size_t)n->lvl * sizeof(n->next[0]) + n->klen;
}

uint8_t *tskip_key(const struct tskip_node *n) {
    return (uint8_t *)&n->next[n->lvl];
}

static int tskip_node_cmp(const struct tskip_node *n, const uint8_t *k, size_t nk) {
    return tskip_cmp(tskip_key(n), n->klen, k, nk);
}

/* For each level, the last node before k (< k, or <= k when inclusive);
 * returns that of level 0. */
static struct tskip_node *tskip_path(const struct tskip *s, const uint8_t *k, size_t nk, bool inclusive,
                                     struct tskip_node **update) {
    struct tskip_node *x = s->head;
    int i, c;

    for (i = s->level - 1; i >= 0; i--) {
        while (x->next[i] != NULL && ((c = tskip_node_cmp(x->next[i], k, nk)) < 0 || (inclusive && c == 0)))
            x = x->next[i];
        if (update != NULL)
            update[i] = x;
    }
    return x;
}

static struct tskip_node *tskip_two_after(const struct tskip_node *n) {
    return n->next[0] != NULL ? n->next[0]->next[0] : NULL;
}

/* After a node was linked (linked) or unlinked after p (NULL: at the
 * start): the two-ahead links that changed, those of the linked node and
 * of the two nodes before the place. */
static void tskip_ahead_fix(struct tskip_node *p, struct tskip_node *linked) {
    if (linked != NULL)
        linked->ahead = tskip_two_after(linked);
    if (p == NULL)
        return;
    p->ahead = tskip_two_after(p);
    if (p->prev != NULL)
        p->prev->ahead = p->next[0];
}

bool tskip_insert(struct tskip *s, struct tskip_node *n) {
    struct tskip_node *update[TSKIP_LEVELS], *x;
    int i;

    x = tskip_path(s, tskip_key(n), n->klen, false, update);
    if (x->next[0] != NULL && tskip_node_cmp(x->next[0], tskip_key(n), n->klen) == 0)
        return false;
    for (i = s->level; i < n->lvl; i++)
        update[i] = s->head;
    if (n->lvl > s->level)
        s->level = n->lvl;
    for (i = 0; i < n->lvl; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
    }
    n->prev = update[0] == s->head ? NULL : update[0];
    if (n->next[0] != NULL)
        n->next[0]->prev = n;
    tskip_ahead_fix(n->prev, n);
    s->n++;
    return true;
}

struct tskip_node *tskip_remove(struct tskip *s, const uint8_t *k, size_t nk) {
    struct tskip_node *update[TSKIP_LEVELS], *n;
    int i;

    n = tskip_path(s, k, nk, false, update)->next[0];
    if (n == NULL || tskip_node_cmp(n, k, nk) != 0)
        return NULL;
    for (i = 0; i < n->lvl; i++)
        update[i]->next[i] = n->next[i];
    if (n->next[0] != NULL)
        n->next[0]->prev = n->prev;
    tskip_ahead_fix(n->prev, NULL);
    while (s->level > 1 && s->head->next[s->level - 1] == NULL)
        s->level--;
    s->n--;
    return n;
}

struct tskip_node *tskip_find(const struct tskip *s, const uint8_t *k, size_t nk) {
    struct tskip_node *n = tskip_path(s, k, nk, false, NULL)->next[0];

    return n != NULL && tskip_node_cmp(n, k, nk) == 0 ? n : NULL;
}

struct tskip_node *tskip_seek(const struct tskip *s, const uint8_t *k, size_t nk, bool strict) {
    if (k == NULL)
        return s->head->next[0];
    return tskip_path(s, k, nk, strict, NULL)->next[0];
}

struct tskip_node *tskip_seek_back(const struct tskip *s, const uint8_t *k, size_t nk, bool strict) {
    struct tskip_node *x;
    int i;

    if (k != NULL) {
        x = tskip_path(s, k, nk, !strict, NULL);
        return x == s->head ? NULL : x;
    }
    x = s->head;
    for (i = s->level - 1; i >= 0; i--)
        while (x->next[i] != NULL)
            x = x->next[i];
    return x == s->head ? NULL : x;
}
