/*
 * types/queue_group: FIFO message groups of a queue, their two tables
 * and the rule that makes a group's next message ready when its head
 * leaves (queue_group.h says what a group is). Groups and their rings
 * are counted against -m.
 */
#include <stdlib.h>
#include <string.h>

#include "cache/hash.h"
#include "cache/item.h"
#include "types/queue_group.h"
#include "types/queue_int.h"
#include "types/queue_persist.h"

#define QGROUP_BUCKETS_INIT 16

void qgroups_init(struct qgroups *gs) {
    memset(gs, 0, sizeof(*gs));
}

/* ---- the two tables ---- */

static size_t qgroup_size(size_t nname) {
    return sizeof(struct qgroup) + nname;
}

static size_t qgroup_name_bucket(const struct qgroups *gs, const char *id, size_t n) {
    return hash_key(id, n) & (gs->nbuckets - 1);   /* the keyspace's hash */
}

static size_t qgroup_head_bucket(const struct qgroups *gs, uint64_t id) {
    return (id * 0x9E3779B97F4A7C15ULL) >> 32 & (gs->nbuckets - 1);
}

/* Both tables rebuilt with nb buckets (a power of two): -1 without
 * memory (nothing changed). */
static int qgroup_rehash(struct qgroups *gs, size_t nb) {
    struct qgroup **byn = calloc(nb, sizeof(*byn)), **byh = calloc(nb, sizeof(*byh));
    struct qgroups old = *gs;
    size_t i;

    if (byn == NULL || byh == NULL) {
        free(byn);
        free(byh);
        return -1;
    }
    gs->by_name = byn;
    gs->by_head = byh;
    gs->nbuckets = nb;
    for (i = 0; i < old.nbuckets; i++) {
        struct qgroup *g = old.by_name[i], *next;
        for (; g != NULL; g = next) {
            size_t b = qgroup_name_bucket(gs, g->name, g->nname);
            next = g->name_next;
            g->name_next = byn[b];
            byn[b] = g;
        }
        for (g = old.by_head[i]; g != NULL; g = next) {
            size_t b = qgroup_head_bucket(gs, g->head);
            next = g->head_next;
            g->head_next = byh[b];
            byh[b] = g;
        }
    }
    free(old.by_name);
    free(old.by_head);
    item_mem_charge(((long)nb - (long)old.nbuckets) * 2 * (long)sizeof(*byn));
    return 0;
}

struct qgroup *qgroup_find(const struct queue *q, const char *gid, size_t ngid) {
    const struct qgroups *gs = &q->groups;
    struct qgroup *g;

    if (gs->n == 0)
        return NULL;
    for (g = gs->by_name[qgroup_name_bucket(gs, gid, ngid)]; g != NULL; g = g->name_next)
        if (g->nname == ngid && memcmp(g->name, gid, ngid) == 0)
            return g;
    return NULL;
}

struct qgroup *qgroup_get(struct queue *q, const char *gid, size_t ngid) {
    struct qgroups *gs = &q->groups;
    struct qgroup *g = qgroup_find(q, gid, ngid);
    size_t b;

    if (g != NULL)
        return g;
    if (ngid == 0 || ngid > QGROUP_ID_MAX)
        return NULL;
    if (gs->n >= gs->nbuckets && qgroup_rehash(gs, gs->nbuckets ? gs->nbuckets * 2 : QGROUP_BUCKETS_INIT) < 0)
        return NULL;
    if ((g = calloc(1, qgroup_size(ngid))) == NULL)
        return NULL;
    item_mem_charge((long)qgroup_size(ngid));
    memcpy(g->name, gid, ngid);
    g->nname = (uint8_t)ngid;
    b = qgroup_name_bucket(gs, gid, ngid);
    g->name_next = gs->by_name[b];
    gs->by_name[b] = g;
    gs->n++;
    return g;
}

/* The link that points at g in the by-head table. */
static struct qgroup **qgroup_head_slot(struct qgroups *gs, uint64_t id) {
    struct qgroup **p = &gs->by_head[qgroup_head_bucket(gs, id)];

    while (*p != NULL && (*p)->head != id)
        p = &(*p)->head_next;
    return p;
}

static struct qgroup *qgroup_take_head(struct queue *q, uint64_t id);

void qgroup_set_head(struct queue *q, struct qgroup *g, uint64_t id) {
    struct qgroups *gs = &q->groups;
    size_t b = qgroup_head_bucket(gs, id);

    if (g->headed)                      /* replay: the old head leaves the group */
        qgroup_take_head(q, g->head);
    g->head = id;
    g->headed = true;
    g->head_next = gs->by_head[b];
    gs->by_head[b] = g;
}

/* The group whose head is id, out of the by-head table (NULL: none). */
static struct qgroup *qgroup_take_head(struct queue *q, uint64_t id) {
    struct qgroups *gs = &q->groups;
    struct qgroup **p, *g;

    if (gs->n == 0)
        return NULL;
    p = qgroup_head_slot(gs, id);
    if ((g = *p) == NULL)
        return NULL;
    *p = g->head_next;
    g->head_next = NULL;
    g->head = 0;
    g->headed = false;
    return g;
}

struct qgroup *queue_group_of_head(const struct queue *q, uint64_t id) {
    const struct qgroups *gs = &q->groups;
    struct qgroup *g;

    if (gs->n == 0)
        return NULL;
    for (g = gs->by_head[qgroup_head_bucket(gs, id)]; g != NULL; g = g->head_next)
        if (g->head == id)
            return g;
    return NULL;
}

/* Halves the tables while an eighth of them or less is used (without
 * memory they stay as they are). */
static void qgroup_fit(struct qgroups *gs) {
    while (gs->nbuckets > QGROUP_BUCKETS_INIT && gs->n <= gs->nbuckets / 8)
        if (qgroup_rehash(gs, gs->nbuckets / 2) < 0)
            return;
}

/* Frees g, out of the by-name table (it has no head). */
static void qgroup_free(struct queue *q, struct qgroup *g) {
    struct qgroups *gs = &q->groups;
    struct qgroup **p = &gs->by_name[qgroup_name_bucket(gs, g->name, g->nname)];

    while (*p != g)
        p = &(*p)->name_next;
    *p = g->name_next;
    item_mem_charge(-(long)(qgroup_size(g->nname) + g->cap * sizeof(*g->held)));
    free(g->held);
    free(g);
    gs->n--;
    if (gs->n == 0) {
        item_mem_charge(-(long)(gs->nbuckets * 2 * sizeof(*gs->by_name)));
        free(gs->by_name);
        free(gs->by_head);
        qgroups_init(gs);
    } else if (!gs->walking) {
        qgroup_fit(gs);
    }
}

void qgroup_drop_if_empty(struct queue *q, struct qgroup *g) {
    if (!g->headed && g->n == 0)
        qgroup_free(q, g);
}

/* ---- the held ring ---- */

/* Room for k more held messages in g: -1 without memory. */
static int qgroup_reserve(struct qgroup *g, uint32_t k) {
    uint32_t cap = g->cap ? g->cap : 4, i;
    struct qmsg **v;

    if (g->n + k <= g->cap)
        return 0;
    while (cap < g->n + k)
        cap *= 2;
    if ((v = malloc(cap * sizeof(*v))) == NULL)
        return -1;
    for (i = 0; i < g->n; i++)
        v[i] = g->held[(g->first + i) % g->cap];
    item_mem_charge(((long)cap - (long)g->cap) * (long)sizeof(*v));
    free(g->held);
    g->held = v;
    g->first = 0;
    g->cap = cap;
    return 0;
}

struct qmsg *qgroup_held_at(const struct qgroup *g, uint32_t i) {
    return g->held[(g->first + i) % g->cap];
}

int qgroup_hold(struct queue *q, struct qgroup *g, struct qmsg *m) {
    if (qgroup_reserve(g, 1) < 0)
        return -1;
    g->held[(g->first + g->n) % g->cap] = m;
    g->n++;
    q->groups.nheld++;
    m->state = QMSG_GROUPED;
    return 0;
}

struct qmsg *qgroup_unhold_first(struct queue *q, struct qgroup *g) {
    struct qmsg *m;

    if (g->n == 0)
        return NULL;
    m = g->held[g->first];
    g->first = (g->first + 1) % g->cap;
    g->n--;
    q->groups.nheld--;
    return m;
}

void qgroup_each(struct queue *q, void (*fn)(struct qgroup *g, void *arg), void *arg) {
    struct qgroups *gs = &q->groups;
    size_t i;

    gs->walking = true;                 /* fn may free g, never move the others */
    for (i = 0; i < gs->nbuckets; i++) {
        struct qgroup *g = gs->by_name[i], *next;
        for (; g != NULL; g = next) {
            next = g->name_next;
            fn(g, arg);
        }
    }
    gs->walking = false;
    qgroup_fit(gs);
}

/* ---- the queue's rules ---- */

struct qgroup *queue_group_prepare(struct queue *q, const char *gid, size_t ngid, int n) {
    struct qgroup *g = qgroup_get(q, gid, ngid);

    if (g != NULL && qgroup_reserve(g, (uint32_t)n) < 0) {
        qgroup_drop_if_empty(q, g);
        return NULL;
    }
    return g;
}

void queue_group_unprepare(struct queue *q, struct qgroup *g) {
    qgroup_drop_if_empty(q, g);
}

void queue_group_add(struct queue *q, struct qgroup *g, struct qmsg *m) {
    if (!g->headed && g->n == 0) {
        queue_ready_add(q, m);          /* room was made */
        qgroup_set_head(q, g, m->id);
        return;
    }
    qgroup_hold(q, g, m);               /* room was made */
}

/* g has no head: its first held message becomes the head, ready now (a
 * Q_GNEXT record). Without memory for the ready heaps it stays held and
 * queue_group_retry tries again. */
static void queue_group_next(struct queue *q, struct qgroup *g) {
    struct qmsg *m;

    if (g->n == 0) {
        qgroup_drop_if_empty(q, g);
        return;
    }
    m = g->held[g->first];
    m->state = QMSG_READY;
    m->due_ms = 0;
    if (queue_ready_add(q, m) < 0) {
        m->state = QMSG_GROUPED;
        q->groups.nheadless++;
        return;
    }
    qgroup_unhold_first(q, g);
    qgroup_set_head(q, g, m->id);
    qlog_gnext(q, g);
}

void queue_group_forget(struct queue *q, uint64_t id) {
    struct qgroup *g = qgroup_take_head(q, id);

    if (g != NULL)
        qgroup_drop_if_empty(q, g);
}

void queue_group_left(struct queue *q, uint64_t id) {
    struct qgroup *g = qgroup_take_head(q, id);

    if (g != NULL)
        queue_group_next(q, g);
}

static void queue_group_retry_one(struct qgroup *g, void *arg) {
    struct queue *q = arg;

    if (!g->headed)
        queue_group_next(q, g);
}

void queue_group_retry(struct queue *q) {
    if (q->groups.nheadless == 0)
        return;
    q->groups.nheadless = 0;            /* counted again for each that fails */
    qgroup_each(q, queue_group_retry_one, q);
}

/* Frees g's held messages; g goes too when it has no head. */
static void queue_group_purge_one(struct qgroup *g, void *arg) {
    struct queue *q = arg;
    struct qmsg *m;

    while ((m = qgroup_unhold_first(q, g)) != NULL)
        queue_msg_free(m);
    qgroup_drop_if_empty(q, g);
}

uint64_t queue_group_purge(struct queue *q) {
    uint64_t n = q->groups.nheld;

    qgroup_each(q, queue_group_purge_one, q);
    q->groups.nheadless = 0;
    return n;
}

static void queue_group_free_one(struct qgroup *g, void *arg) {
    struct queue *q = arg;

    if (g->headed)
        qgroup_take_head(q, g->head);
    queue_group_purge_one(g, q);
}

void queue_group_free_all(struct queue *q) {
    qgroup_each(q, queue_group_free_one, q);
}

/* What queue_group_find_held and queue_group_name_of look for: a held
 * message by id (and, m not NULL, that very message). */
struct qgroup_search {
    uint64_t id;
    const struct qmsg *m;
    struct qmsg *found;
    struct qgroup *g;
};

static void queue_group_search_one(struct qgroup *g, void *arg) {
    struct qgroup_search *s = arg;
    uint32_t i;

    for (i = 0; i < g->n && s->g == NULL; i++) {
        struct qmsg *m = qgroup_held_at(g, i);
        if (m->id == s->id && (s->m == NULL || s->m == m)) {
            s->found = m;
            s->g = g;
        }
    }
}

struct qgroup *queue_group_unhold(struct queue *q, struct qmsg *m) {
    struct qgroup_search s = { m->id, m, NULL, NULL };
    struct qgroup *g;
    uint32_t i, j;

    qgroup_each(q, queue_group_search_one, &s);
    if ((g = s.g) == NULL)
        return NULL;
    for (i = 0; qgroup_held_at(g, i) != m; i++)
        ;
    for (j = i; j + 1 < g->n; j++)
        g->held[(g->first + j) % g->cap] = qgroup_held_at(g, j + 1);
    g->n--;
    q->groups.nheld--;
    return g;
}

struct qmsg *queue_group_find_held(struct queue *q, uint64_t id) {
    struct qgroup_search s = { id, NULL, NULL, NULL };

    if (q->groups.nheld == 0)
        return NULL;
    qgroup_each(q, queue_group_search_one, &s);
    return s.found;
}

const char *queue_group_name_of(struct queue *q, const struct qmsg *m, size_t *n) {
    struct qgroup_search s = { m->id, m, NULL, NULL };

    if (q->groups.n == 0)
        return NULL;
    if (m->state != QMSG_GROUPED)
        s.g = *qgroup_head_slot(&q->groups, m->id);
    else
        qgroup_each(q, queue_group_search_one, &s);
    if (s.g == NULL)
        return NULL;
    *n = s.g->nname;
    return s.g->name;
}
