/*
 * scan: the registry of open scans (a list under one lock; a scan being
 * stepped is marked busy, so the registry lock is never held while the
 * table is walked), their filters, and one page of a scan.
 */
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "cache/hash.h"
#include "store/scan.h"
#include "store/store.h"
#include "types/ctree.h"

struct scan {
    uint64_t id;
    uint64_t v;                     /* hash_scan's cursor */
    struct scan_filter f;
    rel_time_t used;                /* last stepped */
    bool busy;
    struct scan *next;
};

static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct scan *scan_list;
static uint64_t scan_n;
static uint64_t scan_ids;

/* Closes the scans idle for too long; scan_lock held. */
static void scan_sweep(void) {
    rel_time_t now = clock_now();
    struct scan **p = &scan_list;

    while (*p != NULL) {
        struct scan *s = *p;
        if (!s->busy && s->used + SCAN_IDLE_S < now) {
            *p = s->next;
            free(s);
            scan_n--;
        } else {
            p = &s->next;
        }
    }
}

enum scan_result scan_open(const struct scan_filter *f, uint64_t *id) {
    struct scan *s;
    enum scan_result r = SCAN_OK;

    pthread_mutex_lock(&scan_lock);
    scan_sweep();
    if (scan_n >= SCAN_MAX) {
        r = SCAN_TOO_MANY;
    } else if ((s = calloc(1, sizeof(*s))) == NULL) {
        r = SCAN_NOMEM;
    } else {
        s->id = ++scan_ids;
        s->f = *f;
        s->used = clock_now();
        s->next = scan_list;
        scan_list = s;
        scan_n++;
        *id = s->id;
    }
    pthread_mutex_unlock(&scan_lock);
    return r;
}

/* The scan id (marked busy when take), or NULL; scan_lock held. */
static struct scan **scan_find(uint64_t id) {
    struct scan **p;

    scan_sweep();
    for (p = &scan_list; *p != NULL; p = &(*p)->next)
        if ((*p)->id == id)
            return p;
    return NULL;
}

/* scan_lock held. */
static enum scan_result scan_close_locked(uint64_t id) {
    struct scan **p = scan_find(id), *s;
    enum scan_result r = SCAN_NOT_FOUND;

    if (p != NULL && (*p)->busy) {
        r = SCAN_BUSY;
    } else if (p != NULL) {
        s = *p;
        *p = s->next;
        free(s);
        scan_n--;
        r = SCAN_OK;
    }
    return r;
}

enum scan_result scan_close(uint64_t id) {
    enum scan_result r;

    pthread_mutex_lock(&scan_lock);
    r = scan_close_locked(id);
    pthread_mutex_unlock(&scan_lock);
    return r;
}

struct scan_visit {
    const struct scan_filter *f;
    struct scan_page *page;
    rel_time_t now;
    bool nomem;
};

static bool scan_matches(const struct scan_filter *f, item *it, int64_t ttl) {
    char key[ITEM_KEY_MAX + 1];

    if (f->type >= 0 && it->type != f->type)
        return false;
    if (f->min_ttl >= 0 && ttl >= 0 && ttl < f->min_ttl)
        return false;
    if (f->max_ttl >= 0 && (ttl < 0 || ttl > f->max_ttl))
        return false;
    if (f->match[0] == '\0')
        return true;
    memcpy(key, item_key(it), it->nkey);
    key[it->nkey] = '\0';
    return memchr(key, '\0', it->nkey) == NULL && fnmatch(f->match, key, 0) == 0;
}

/* Whether it is live: not expired or flushed, and not a tree-counter
 * object of a deleted subtree whose key is still to go. */
static bool scan_live(const item *it) {
    if (!store_item_live(it))
        return false;
    return it->type != ITEM_CTREE || ctree_obj_live(item_struct(it));
}

/* hash_scan's callback, under the bucket's lock: copies a live matching
 * key into the page. */
static void scan_visit_item(item *it, void *arg) {
    struct scan_visit *sv = arg;
    struct scan_page *pg = sv->page;
    rel_time_t exp = item_exptime(it);
    int64_t ttl = exp == 0 ? -1 : (int64_t)exp - (int64_t)sv->now;
    struct scan_key *k;

    if (!scan_live(it) || !scan_matches(sv->f, it, ttl))
        return;
    if (pg->n == pg->cap) {
        size_t cap = pg->cap ? pg->cap * 2 : 64;
        struct scan_key *keys = realloc(pg->keys, cap * sizeof(*keys));
        if (keys == NULL) {
            sv->nomem = true;
            return;
        }
        pg->keys = keys;
        pg->cap = cap;
    }
    k = &pg->keys[pg->n++];
    memcpy(k->key, item_key(it), it->nkey);
    k->nkey = it->nkey;
    k->type = it->type;
    k->ttl = ttl < 0 ? -1 : ttl;
}

enum scan_result scan_step(uint64_t id, uint32_t count, struct scan_page *page, uint64_t *next) {
    struct scan **p, *s;
    struct scan_visit sv = { NULL, page, clock_now(), false };
    uint64_t v;
    uint32_t i;

    pthread_mutex_lock(&scan_lock);
    p = scan_find(id);
    s = p != NULL ? *p : NULL;
    if (s == NULL || s->busy) {
        pthread_mutex_unlock(&scan_lock);
        return s == NULL ? SCAN_NOT_FOUND : SCAN_BUSY;
    }
    s->busy = true;
    pthread_mutex_unlock(&scan_lock);
    sv.f = &s->f;
    v = s->v;
    if (count > SCAN_PAGE_KEYS)
        count = SCAN_PAGE_KEYS;
    for (i = 0; i < SCAN_PAGE_BUCKETS && page->n < count; i++) {
        size_t before = page->n;
        uint64_t after = hash_scan(v, scan_visit_item, &sv);
        if (sv.nomem || (page->n > count && before > 0)) {
            page->n = before;   /* the bucket again, next time */
            break;
        }
        v = after;
        if (v == 0)
            break;
    }
    pthread_mutex_lock(&scan_lock);
    s->v = v;
    s->used = clock_now();
    s->busy = false;
    if (v == 0)             /* finished: closed before another can step it */
        scan_close_locked(id);
    pthread_mutex_unlock(&scan_lock);
    *next = v == 0 ? 0 : id;
    return sv.nomem && page->n == 0 ? SCAN_NOMEM : SCAN_OK;
}

void scan_shutdown(void) {
    pthread_mutex_lock(&scan_lock);
    while (scan_list != NULL) {
        struct scan *s = scan_list;
        scan_list = s->next;
        free(s);
    }
    scan_n = 0;
    pthread_mutex_unlock(&scan_lock);
}
