/*
 * detail: per-prefix counters (see detail.h), under one mutex: they are
 * off unless an operator turns them on, as in memcached.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/detail.h"
#include "base/settings.h"
#include "cache/item.h"


struct detail_prefix {
    struct detail_prefix *next;     /* newest first */
    unsigned long long gets, hits, sets, dels;
    size_t n;
    char name[];
};

static pthread_mutex_t detail_lock = PTHREAD_MUTEX_INITIALIZER;
static struct detail_prefix *detail_list;
static size_t detail_count;
static bool detail_on;

bool detail_enabled(void) {
    return __atomic_load_n(&detail_on, __ATOMIC_RELAXED);
}

void detail_set_enabled(bool on) {
    __atomic_store_n(&detail_on, on, __ATOMIC_RELAXED);
}

/* The counters of key's prefix (lock held), created if there is room;
 * NULL for a key without a delimiter, or when the table is full. */
static struct detail_prefix *detail_find(const char *key, size_t nkey) {
    const char *d = memchr(key, settings.prefix_delimiter, nkey);
    struct detail_prefix *p;
    size_t n;

    if (d == NULL)
        return NULL;
    n = (size_t)(d - key);
    for (p = detail_list; p != NULL; p = p->next)
        if (p->n == n && memcmp(p->name, key, n) == 0)
            return p;
    if (detail_count >= DETAIL_MAX_PREFIXES || (p = calloc(1, sizeof(*p) + n + 1)) == NULL)
        return NULL;
    memcpy(p->name, key, n);
    p->n = n;
    p->next = detail_list;
    detail_list = p;
    detail_count++;
    return p;
}

/* Adds to key's prefix: what 0 get, 1 set, 2 delete; hit for a get. */
static void detail_count_op(const char *key, size_t nkey, int what, bool hit) {
    struct detail_prefix *p;

    if (!detail_enabled())
        return;
    pthread_mutex_lock(&detail_lock);
    p = detail_find(key, nkey);
    if (p != NULL) {
        if (what == 0) {
            p->gets++;
            p->hits += hit ? 1 : 0;
        } else if (what == 1) {
            p->sets++;
        } else {
            p->dels++;
        }
    }
    pthread_mutex_unlock(&detail_lock);
}

void detail_get(const char *key, size_t nkey, bool hit) {
    detail_count_op(key, nkey, 0, hit);
}

void detail_set(const char *key, size_t nkey) {
    detail_count_op(key, nkey, 1, false);
}

void detail_delete(const char *key, size_t nkey) {
    detail_count_op(key, nkey, 2, false);
}

void detail_dump(conn *c) {
    struct detail_prefix *p;

    pthread_mutex_lock(&detail_lock);
    for (p = detail_list; p != NULL; p = p->next) {
        char *out = conn_out_reserve(c, ITEM_KEY_MAX + 120);
        int n = snprintf(out, ITEM_KEY_MAX + 120, "PREFIX %.*s get %llu hit %llu set %llu del %llu\r\n",
                         (int)p->n, p->name, p->gets, p->hits, p->sets, p->dels);
        conn_out_commit(c, (size_t)n);
    }
    pthread_mutex_unlock(&detail_lock);
    conn_out_reply(c, REPLY_END);
}

void detail_reset(void) {
    struct detail_prefix *p, *next;

    pthread_mutex_lock(&detail_lock);
    for (p = detail_list; p != NULL; p = next) {
        next = p->next;
        free(p);
    }
    detail_list = NULL;
    detail_count = 0;
    pthread_mutex_unlock(&detail_lock);
}
