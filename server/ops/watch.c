/*
 * watch: log streaming to watching connections (see watch.h).
 *
 * Producers (any thread, maybe under a stripe or the LRU lock) format a
 * line and append it to each interested watcher's buffer under the
 * registry mutex, a leaf lock. Each watcher's own worker drains its
 * buffer into the connection every WATCH_FLUSH_MS, unless the connection
 * still holds more output than it may (then the buffer fills and events
 * are skipped, never queued without bound).
 */
#include <event2/event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "base/clock.h"
#include "ops/dump.h"
#include "base/settings.h"
#include "base/stats.h"
#include "ops/watch.h"
#include "net/worker.h"

#define WATCH_FLUSH_MS 100
#define WATCH_LINE_MAX (3 * ITEM_KEY_MAX + 200)

enum { WATCH_FETCHERS = 1, WATCH_MUTATIONS = 2, WATCH_EVICTIONS = 4, WATCH_OTHER = 8 };

struct watcher {
    conn *c;
    unsigned flags;
    char *buf;                      /* settings.watcher_logbuf bytes */
    size_t len;
    unsigned long long skipped;
    struct event *timer;
};

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct watcher *watch_slots[WATCH_MAX];
static int watch_n;                 /* atomic */
static unsigned long long watch_gid;

static void watch_stats(stats_emit_fn emit, void *ctx) {
    stats_emit_u64(emit, ctx, "log_watchers", (uint64_t)watch_count());
}

static const struct stats_provider watch_stats_provider = { "watch", STATS_PLACE_WATCHERS, 0, watch_stats };

void watch_init(void) {
    stats_provide(&watch_stats_provider);
    store_on_evict(watch_evict);
}

int watch_count(void) {
    return __atomic_load_n(&watch_n, __ATOMIC_RELAXED);
}

/* Appends line to every watcher that asked for kind (registry lock held). */
static void watch_emit_locked(unsigned kind, const char *line, size_t n) {
    int i;

    for (i = 0; i < WATCH_MAX; i++) {
        struct watcher *w = watch_slots[i];
        if (w == NULL || !(w->flags & kind))
            continue;
        if (w->len + n > settings.watcher_logbuf) {
            w->skipped++;
            continue;
        }
        memcpy(w->buf + w->len, line, n);
        w->len += n;
    }
}

/* Formats "ts=<s.us> gid=<n> <rest>\n" and hands it to the watchers. */
static void watch_emit(unsigned kind, const char *fmt, const char *key, size_t nkey, const char *rest) {
    char line[WATCH_LINE_MAX], ukey[3 * ITEM_KEY_MAX + 1];
    struct timeval tv;
    int n;

    ukey[dump_uri_key(ukey, key, nkey)] = '\0';
    gettimeofday(&tv, NULL);
    pthread_mutex_lock(&watch_lock);
    n = snprintf(line, sizeof(line), "ts=%ld.%06ld gid=%llu type=%s key=%s %s\n", (long)tv.tv_sec,
                 (long)tv.tv_usec, ++watch_gid, fmt, ukey, rest);
    if (n > 0 && (size_t)n < sizeof(line))
        watch_emit_locked(kind, line, (size_t)n);
    pthread_mutex_unlock(&watch_lock);
}

static long long watch_ttl(const item *it) {
    rel_time_t exp = item_exptime(it), now = clock_now();

    return exp == 0 ? -1 : exp > now ? (long long)(exp - now) : 0;
}

void watch_fetch(const conn *c, const char *key, size_t nkey, const item *it) {
    char rest[96];

    if (watch_count() == 0)
        return;
    snprintf(rest, sizeof(rest), "status=%s clsid=%d cfd=%d size=%u", it != NULL ? "found" : "not_found",
             it != NULL ? 1 : 0, c->fd, it != NULL ? it->nbytes - 2 : 0);
    watch_emit(WATCH_FETCHERS, "item_get", key, nkey, rest);
}

static const char *watch_status_name(enum store_status st) {
    switch (st) {
    case STORE_STORED: return "stored";
    case STORE_EXISTS: return "exists";
    case STORE_NOT_FOUND: return "not_found";
    case STORE_TOO_LARGE: return "too_large";
    case STORE_NO_MEMORY: return "no_memory";
    default: return "not_stored";
    }
}

static const char *watch_op_name(enum store_op op) {
    static const char *const names[] = { "set", "add", "replace", "append", "prepend", "cas" };

    return (size_t)op < sizeof(names) / sizeof(names[0]) ? names[op] : "set";
}

void watch_store(const conn *c, const item *it, enum store_op op, enum store_status st) {
    char rest[160];

    if (watch_count() == 0)
        return;
    snprintf(rest, sizeof(rest), "status=%s cmd=%s ttl=%lld clsid=1 cfd=%d size=%u",
             watch_status_name(st), watch_op_name(op),
             item_exptime(it) == 0 ? 0LL : watch_ttl(it), c->fd, it->nbytes - 2);
    watch_emit(WATCH_MUTATIONS, "item_store", item_key(it), it->nkey, rest);
}

void watch_evict(const item *it) {
    char rest[128];
    rel_time_t now = clock_now();

    if (watch_count() == 0)
        return;
    snprintf(rest, sizeof(rest), "fetch=%s ttl=%lld la=%u clsid=1",
             item_has_flag(it, ITEM_FETCHED) ? "yes" : "no", watch_ttl(it),
             now > item_time(it) ? now - item_time(it) : 0);
    watch_emit(WATCH_EVICTIONS, "eviction", item_key(it), it->nkey, rest);
}

/* The watcher of c (registry lock held), or NULL. */
static int watch_slot_of(const conn *c) {
    int i;

    for (i = 0; i < WATCH_MAX; i++)
        if (watch_slots[i] != NULL && watch_slots[i]->c == c)
            return i;
    return -1;
}

/* On the watcher's worker: moves what its buffer holds to the connection. */
static void watch_flush(evutil_socket_t fd, short what, void *arg) {
    struct watcher *w = arg;
    char skipped[48];
    int ns = 0;

    if (conn_out_full(w->c))
        return;
    pthread_mutex_lock(&watch_lock);
    if (w->skipped > 0)
        ns = snprintf(skipped, sizeof(skipped), "skipped=%llu\n", w->skipped);
    w->skipped = 0;
    if (w->len > 0)
        conn_out(w->c, w->buf, w->len);
    w->len = 0;
    pthread_mutex_unlock(&watch_lock);
    if (ns > 0)
        conn_out(w->c, skipped, (size_t)ns);
    conn_kick(w->c);
}

static void watch_free(struct watcher *w) {
    if (w->timer != NULL)
        event_free(w->timer);
    free(w->buf);
    free(w);
}

/* The names memcached's watch takes; only three have events in mcds. */
static unsigned watch_flag_of(const char *name) {
    static const char *const other[] = { "rawcmds", "sysevents", "connevents", "proxyreqs",
                                         "proxyevents", "proxyuser", NULL };
    const char *const *p;

    if (strcmp(name, "fetchers") == 0) return WATCH_FETCHERS;
    if (strcmp(name, "mutations") == 0) return WATCH_MUTATIONS;
    if (strcmp(name, "evictions") == 0) return WATCH_EVICTIONS;
    for (p = other; *p != NULL; p++)
        if (strcmp(name, *p) == 0)
            return WATCH_OTHER;
    return 0;
}

/* Registers w; false when every slot is taken. */
static bool watch_register(struct watcher *w) {
    int i;

    pthread_mutex_lock(&watch_lock);
    for (i = 0; i < WATCH_MAX && watch_slots[i] != NULL; i++)
        ;
    if (i < WATCH_MAX) {
        watch_slots[i] = w;
        __atomic_add_fetch(&watch_n, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&watch_lock);
    return i < WATCH_MAX;
}

enum conn_parse_result watch_cmd(conn *c, struct cmd_line *l) {
    struct timeval every = { 0, WATCH_FLUSH_MS * 1000 };
    struct watcher *w;
    unsigned flags = l->n > 1 ? 0 : WATCH_FETCHERS;
    int i;

    if (settings.watch_disabled) {
        conn_out_reply(c, REPLY_WATCH_NOT_ALLOWED);
        return PARSE_DONE;
    }
    for (i = 1; i < l->n && i < CMD_MAX_TOKENS; i++) {
        unsigned f = watch_flag_of(l->v[i]);
        if (f == 0) {
            conn_out_reply(c, REPLY_ERROR);
            return PARSE_DONE;
        }
        flags |= f;
    }
    w = calloc(1, sizeof(*w));
    if (w == NULL || (w->buf = malloc(settings.watcher_logbuf)) == NULL ||
        (w->timer = event_new(worker_base(c->worker), -1, EV_PERSIST, watch_flush, w)) == NULL) {
        if (w != NULL)
            watch_free(w);
        conn_out_reply(c, REPLY_WATCHER_FAILED);
        return PARSE_DONE;
    }
    w->c = c;
    w->flags = flags;
    if (!watch_register(w)) {
        watch_free(w);
        conn_out_reply(c, REPLY_WATCHER_TOO_MANY);
        return PARSE_DONE;
    }
    event_add(w->timer, &every);
    conn_out_reply(c, REPLY_OK);
    conn_set_state(c, CONN_WAITING);    /* reads nothing more until it hangs up */
    return PARSE_DONE;
}

static void watch_conn_closed(conn *c) {
    struct watcher *w = NULL;
    int i;

    if (watch_count() == 0)
        return;
    pthread_mutex_lock(&watch_lock);
    i = watch_slot_of(c);
    if (i >= 0) {
        w = watch_slots[i];
        watch_slots[i] = NULL;
        __atomic_sub_fetch(&watch_n, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&watch_lock);
    if (w != NULL)
        watch_free(w);
}

const struct conn_hooks watch_conn_hooks = { "watch", watch_conn_closed, NULL };
