/*
 * ops/metrics: the Prometheus text of the server's figures (see
 * metrics.h). `stats` is read once through its providers, as the `stats`
 * verb reads it; each figure memcached_exporter knows goes out under that
 * exporter's name and type (so its dashboards and alerts work unchanged),
 * every other numeric one as mcds_<name> (a counter, with _total, where
 * the figure only grows). The queues and lists with the most elements are
 * named, --metrics-top of each, kept in a min-heap while the registry is
 * walked, so the label count stays bounded whatever the keyspace holds.
 */
#include <event2/buffer.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/settings.h"
#include "base/stats.h"
#include "cache/item.h"
#include "ops/metrics.h"
#include "ops/stats_report.h"
#include "types/list.h"
#include "types/queue.h"

#define METRICS_STATS_MAX 512       /* `stats` lines one rendering keeps */
#define METRICS_NAME_MAX 64
#define METRICS_VALUE_MAX 64

/* One `stats` line; used once it went out under a mapped name. */
struct metrics_stat {
    char name[METRICS_NAME_MAX];
    char value[METRICS_VALUE_MAX];
    bool used;
};

struct metrics_stats {
    struct metrics_stat v[METRICS_STATS_MAX];
    size_t n;
};

/* A `stats` name memcached_exporter exports, with its metric. */
struct metrics_map {
    const char *stat, *metric, *type, *help;
};

static const struct metrics_map metrics_memcached[] = {
    { "uptime", "memcached_uptime_seconds", "counter", "Number of seconds since the server started." },
    { "time", "memcached_time_seconds", "gauge", "Current UNIX time according to the server." },
    { "rusage_user", "memcached_process_user_cpu_seconds_total", "counter",
      "Accumulated user time for this process." },
    { "rusage_system", "memcached_process_system_cpu_seconds_total", "counter",
      "Accumulated system time for this process." },
    { "bytes_read", "memcached_read_bytes_total", "counter",
      "Total number of bytes read by this server from network." },
    { "bytes_written", "memcached_written_bytes_total", "counter",
      "Total number of bytes sent by this server to network." },
    { "curr_connections", "memcached_current_connections", "gauge", "Current number of open connections." },
    { "max_connections", "memcached_max_connections", "gauge", "Maximum number of clients allowed." },
    { "total_connections", "memcached_connections_total", "counter",
      "Total number of connections opened since the server started running." },
    { "rejected_connections", "memcached_connections_rejected_total", "counter",
      "Total number of connections rejected for the -c limit." },
    { "conn_yields", "memcached_connections_yielded_total", "counter",
      "Total number of connections yielded running due to hitting the -R limit." },
    { "listen_disabled_num", "memcached_connections_listener_disabled_total", "counter",
      "Number of times the server has hit its connections limit and disabled its listener." },
    { "accepting_conns", "memcached_accepting_connections", "gauge",
      "The server is currently accepting new connections." },
    { "bytes", "memcached_current_bytes", "gauge", "Current number of bytes used to store items." },
    { "limit_maxbytes", "memcached_limit_bytes", "gauge",
      "Number of bytes this server is allowed to use for storage." },
    { "curr_items", "memcached_current_items", "gauge", "Current number of items stored by this instance." },
    { "total_items", "memcached_items_total", "counter",
      "Total number of items stored during the life of this instance." },
    { "evictions", "memcached_items_evicted_total", "counter",
      "Total number of valid items removed from cache to free memory for new items." },
    { "reclaimed", "memcached_items_reclaimed_total", "counter",
      "Total number of times an entry was stored using memory from an expired entry." },
    { "store_too_large", "memcached_item_too_large_total", "counter",
      "The number of times an item exceeded the max-item-size when being stored." },
    { "store_no_memory", "memcached_item_no_memory_total", "counter",
      "The number of times an item could not be stored due to no more memory." },
    { "direct_reclaims", "memcached_direct_reclaims_total", "counter",
      "Times worker threads had to directly reclaim or evict items." },
    { "lru_crawler_starts", "memcached_lru_crawler_starts_total", "counter", "Times an LRU crawler was started." },
    { "crawler_reclaimed", "memcached_lru_crawler_reclaimed_total", "counter",
      "Total items freed by LRU Crawler." },
    { "crawler_items_checked", "memcached_lru_crawler_items_checked_total", "counter",
      "Total items examined by LRU Crawler." },
    { "moves_to_cold", "memcached_lru_crawler_moves_to_cold_total", "counter",
      "Total number of items moved from HOT/WARM to COLD LRU's." },
    { "moves_to_warm", "memcached_lru_crawler_moves_to_warm_total", "counter",
      "Total number of items moved from COLD to WARM LRU." },
    { "moves_within_lru", "memcached_lru_crawler_moves_within_lru_total", "counter",
      "Total number of items reshuffled within HOT or WARM LRU's." },
    { NULL, NULL, NULL, NULL },
};

/* memcached_commands_total's samples: a `stats` name and its labels. */
struct metrics_cmd {
    const char *stat, *command, *status;
};

static const struct metrics_cmd metrics_commands[] = {
    { "get_hits", "get", "hit" }, { "get_misses", "get", "miss" },
    { "delete_hits", "delete", "hit" }, { "delete_misses", "delete", "miss" },
    { "incr_hits", "incr", "hit" }, { "incr_misses", "incr", "miss" },
    { "decr_hits", "decr", "hit" }, { "decr_misses", "decr", "miss" },
    { "cas_hits", "cas", "hit" }, { "cas_misses", "cas", "miss" }, { "cas_badval", "cas", "badval" },
    { "touch_hits", "touch", "hit" }, { "touch_misses", "touch", "miss" },
    { "cmd_flush", "flush", "hit" },
    { NULL, NULL, NULL },
};

/* mcds's names (and memcached's the exporter leaves out) that only grow:
 * counters, exported with _total. Every other number is a gauge. */
static const char *const metrics_counters[] = {
    "cmd_get", "cmd_set", "cmd_touch", "cmd_meta", "get_expired", "get_flushed", "auth_cmds",
    "auth_errors", "expired_unfetched", "evicted_unfetched", "evicted_active", "response_obj_oom",
    "read_buf_oom", "idle_kicks", "expiry_index_dropped", "auth_throttled", "ssl_handshake_errors",
    "queue_pushed", "queue_popped", "queue_acked", "queue_released", "queue_lease_expired", "queue_dead",
    "queue_expired_ttl", "queue_dropped",
    "list_index_steps", "list_index_scans", "persist_log_position", "persist_log_written",
    "persist_log_synced", "persist_stalled_closes", "persist_snapshots", "persist_snapshot_failures",
    "persist_faults_injected", "conn_event_changes", "worker_notifies", "park_wakes",
    "park_wakes_remote", "park_wakes_direct", "item_kept_reuses", "item_moves", NULL,
};

/* Text `stats` values that are not figures (they go in mcds_build_info). */
static const char *const metrics_texts[] = {
    "version", "libevent", "mcds_version", "persistence", NULL,
};

/* ---- reading `stats` ---- */

static void metrics_collect(void *ctx, const char *name, const char *value) {
    struct metrics_stats *s = ctx;
    struct metrics_stat *e;

    if (s->n == METRICS_STATS_MAX || strlen(name) >= METRICS_NAME_MAX || strlen(value) >= METRICS_VALUE_MAX)
        return;
    e = &s->v[s->n++];
    strcpy(e->name, name);
    strcpy(e->value, value);
    e->used = false;
}

static struct metrics_stat *metrics_find(struct metrics_stats *s, const char *name) {
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

/* The figure of `stats` name as a number (0 when absent). */
static double metrics_number(struct metrics_stats *s, const char *name) {
    struct metrics_stat *e = metrics_find(s, name);

    return e != NULL ? strtod(e->value, NULL) : 0;
}

static bool metrics_numeric(const char *v) {
    char *end;

    if (*v == '\0')
        return false;
    (void)strtod(v, &end);
    return *end == '\0';
}

static bool metrics_in(const char *const *names, const char *name) {
    for (; *names != NULL; names++)
        if (strcmp(*names, name) == 0)
            return true;
    return false;
}

/* ---- writing ---- */

struct metrics_out {
    struct evbuffer *buf;
    int failed;
};

static void metrics_head(struct metrics_out *o, const char *metric, const char *type, const char *help) {
    if (evbuffer_add_printf(o->buf, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric, type) < 0)
        o->failed = 1;
}

static void metrics_line(struct metrics_out *o, const char *metric, const char *labels, const char *value) {
    if (evbuffer_add_printf(o->buf, "%s%s %s\n", metric, labels, value) < 0)
        o->failed = 1;
}

static void metrics_line_u64(struct metrics_out *o, const char *metric, const char *labels, uint64_t v) {
    if (evbuffer_add_printf(o->buf, "%s%s %llu\n", metric, labels, (unsigned long long)v) < 0)
        o->failed = 1;
}

/* A label value as the text format wants it: \, " and newline escaped. */
static void metrics_label_value(char *dst, const char *src, size_t n) {
    size_t i;

    for (i = 0; i < n; i++) {
        if (src[i] == '\\' || src[i] == '"') {
            *dst++ = '\\';
            *dst++ = src[i];
        } else if (src[i] == '\n') {
            *dst++ = '\\';
            *dst++ = 'n';
        } else {
            *dst++ = src[i];
        }
    }
    *dst = '\0';
}

/* ---- `stats` as metrics ---- */

static void metrics_memcached_names(struct metrics_out *o, struct metrics_stats *s) {
    const struct metrics_map *m;

    for (m = metrics_memcached; m->stat != NULL; m++) {
        struct metrics_stat *e = metrics_find(s, m->stat);
        if (e == NULL)
            continue;
        metrics_head(o, m->metric, m->type, m->help);
        metrics_line(o, m->metric, "", e->value);
        e->used = true;
    }
}

/* memcached_commands_total, as the exporter builds it (a set is cmd_set
 * less the cas commands, which memcached counts in cmd_set too). */
static void metrics_commands_total(struct metrics_out *o, struct metrics_stats *s) {
    const char *metric = "memcached_commands_total";
    const struct metrics_cmd *c;
    double cas = metrics_number(s, "cas_hits") + metrics_number(s, "cas_misses") + metrics_number(s, "cas_badval");
    double sets;
    char labels[96];

    metrics_head(o, metric, "counter",
                 "Total number of all requests broken down by command (get, set, etc.) and status.");
    for (c = metrics_commands; c->stat != NULL; c++) {
        struct metrics_stat *e = metrics_find(s, c->stat);
        if (e == NULL)
            continue;
        snprintf(labels, sizeof(labels), "{command=\"%s\",status=\"%s\"}", c->command, c->status);
        metrics_line(o, metric, labels, e->value);
        e->used = true;
    }
    sets = metrics_number(s, "cmd_set") - cas;
    metrics_line_u64(o, metric, "{command=\"set\",status=\"hit\"}", sets > 0 ? (uint64_t)sets : 0);
}

static void metrics_info(struct metrics_out *o, struct metrics_stats *s) {
    struct metrics_stat *v = metrics_find(s, "version"), *m = metrics_find(s, "mcds_version");
    struct metrics_stat *l = metrics_find(s, "libevent"), *p = metrics_find(s, "persistence");
    char labels[256];

    metrics_head(o, "memcached_up", "gauge", "Could the memcached server be reached.");
    metrics_line(o, "memcached_up", "", "1");
    snprintf(labels, sizeof(labels), "{version=\"%s\"}", v != NULL ? v->value : "");
    metrics_head(o, "memcached_version", "gauge", "The version of this memcached server.");
    metrics_line(o, "memcached_version", labels, "1");
    snprintf(labels, sizeof(labels), "{version=\"%s\",protocol=\"%s\",libevent=\"%s\"}",
             m != NULL ? m->value : "", v != NULL ? v->value : "", l != NULL ? l->value : "");
    metrics_head(o, "mcds_build_info", "gauge",
      "mcds's version, the memcached version it answers as, libevent's.");
    metrics_line(o, "mcds_build_info", labels, "1");
    metrics_head(o, "mcds_persistence_enabled", "gauge", "1 with --data-dir.");
    metrics_line(o, "mcds_persistence_enabled", "", p != NULL && strcmp(p->value, "on") == 0 ? "1" : "0");
}

/* Every other numeric figure as mcds_<name>. */
static void metrics_rest(struct metrics_out *o, struct metrics_stats *s) {
    char metric[METRICS_NAME_MAX + 16], help[METRICS_NAME_MAX + 32];
    size_t i;

    for (i = 0; i < s->n; i++) {
        struct metrics_stat *e = &s->v[i];
        bool counter = metrics_in(metrics_counters, e->name);
        if (e->used || metrics_in(metrics_texts, e->name) || !metrics_numeric(e->value))
            continue;
        snprintf(metric, sizeof(metric), "mcds_%s%s", e->name, counter ? "_total" : "");
        snprintf(help, sizeof(help), "The figure %s of stats.", e->name);
        metrics_head(o, metric, counter ? "counter" : "gauge", help);
        metrics_line(o, metric, "", e->value);
    }
}

/* How long ago the log was last fsynced and the last snapshot written. */
static void metrics_persist_ages(struct metrics_out *o, struct metrics_stats *s) {
    double now = metrics_number(s, "time");
    double fsync = metrics_number(s, "persist_last_fsync"), snap = metrics_number(s, "persist_last_snapshot");

    if (metrics_find(s, "persist_last_fsync") == NULL)
        return;
    metrics_head(o, "mcds_persist_last_fsync_age_seconds", "gauge",
                 "Seconds since the log was last fsynced (absent before the first).");
    if (fsync > 0)
        metrics_line_u64(o, "mcds_persist_last_fsync_age_seconds", "", now > fsync ? (uint64_t)(now - fsync) : 0);
    metrics_head(o, "mcds_persist_last_snapshot_age_seconds", "gauge",
                 "Seconds since the last snapshot was written (absent before the first).");
    if (snap > 0)
        metrics_line_u64(o, "mcds_persist_last_snapshot_age_seconds", "", now > snap ? (uint64_t)(now - snap) : 0);
}

/* ---- the largest queues and lists ---- */

struct metrics_named {
    char name[ITEM_KEY_MAX + 1];
    uint64_t size;                  /* what orders them: elements held */
    struct queue_stats st;          /* queues only */
};

/* A min-heap of the cap largest seen so far: the smallest at [0]. */
struct metrics_top {
    struct metrics_named *v;
    size_t n, cap;
};

static void metrics_top_swap(struct metrics_top *t, size_t a, size_t b) {
    struct metrics_named x = t->v[a];

    t->v[a] = t->v[b];
    t->v[b] = x;
}

static void metrics_top_down(struct metrics_top *t, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->n && t->v[l].size < t->v[m].size) m = l;
        if (r < t->n && t->v[r].size < t->v[m].size) m = r;
        if (m == i)
            return;
        metrics_top_swap(t, i, m);
        i = m;
    }
}

static void metrics_top_up(struct metrics_top *t, size_t i) {
    while (i > 0 && t->v[(i - 1) / 2].size > t->v[i].size) {
        metrics_top_swap(t, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

/* Offers one structure (st: a queue's figures, NULL for a list): kept
 * when it is among the cap largest so far. */
static void metrics_top_offer(struct metrics_top *t, const char *name, size_t n, uint64_t size,
                              const struct queue_stats *st) {
    struct metrics_named *e;

    if (t->cap == 0 || (t->n == t->cap && size <= t->v[0].size))
        return;
    e = t->n < t->cap ? &t->v[t->n++] : &t->v[0];
    if (n > ITEM_KEY_MAX)
        n = ITEM_KEY_MAX;
    memcpy(e->name, name, n);
    e->name[n] = '\0';
    e->size = size;
    if (st != NULL)
        e->st = *st;
    if (e == &t->v[0] && t->n == t->cap)
        metrics_top_down(t, 0);
    else
        metrics_top_up(t, t->n - 1);
}

static int metrics_named_cmp(const void *a, const void *b) {
    const struct metrics_named *x = a, *y = b;

    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void metrics_queue_seen(const char *name, size_t n, const struct queue_stats *st, void *arg) {
    metrics_top_offer(arg, name, n, st->ready + st->delayed + st->inflight + st->buried + st->grouped, st);
}

static void metrics_list_seen(const char *name, size_t n, uint64_t length, void *arg) {
    metrics_top_offer(arg, name, n, length, NULL);
}

/* A per-queue figure. */
struct metrics_qfig {
    const char *metric, *type, *help;
    size_t offset;                  /* of its uint64_t in struct queue_stats */
};

static const struct metrics_qfig metrics_qfigs[] = {
    { "mcds_queue_waiting_consumers", "gauge", "Consumers blocked in a pop of this queue.",
      offsetof(struct queue_stats, waiters) },
    { "mcds_queue_pushed_messages_total", "counter", "Messages pushed to this queue.",
      offsetof(struct queue_stats, pushed) },
    { "mcds_queue_deliveries_total", "counter", "Messages delivered (popped) from this queue.",
      offsetof(struct queue_stats, popped) },
    { "mcds_queue_acked_messages_total", "counter", "Messages acknowledged.",
      offsetof(struct queue_stats, acked) },
    { "mcds_queue_released_messages_total", "counter", "Messages released back by their consumer.",
      offsetof(struct queue_stats, released) },
    { "mcds_queue_expired_leases_total", "counter", "Leases that ran out (the message went back).",
      offsetof(struct queue_stats, expired) },
    { "mcds_queue_dead_letters_total", "counter", "Messages moved to the dead-letter queue.",
      offsetof(struct queue_stats, dead) },
    { NULL, NULL, NULL, 0 },
};

#define METRICS_QSTATES 5
static const char *const metrics_qstates[METRICS_QSTATES] = { "ready", "delayed", "in_flight", "buried",
                                                              "grouped" };

static uint64_t metrics_qstate(const struct queue_stats *st, int i) {
    const uint64_t v[METRICS_QSTATES] = { st->ready, st->delayed, st->inflight, st->buried, st->grouped };

    return v[i];
}

static void metrics_queues(struct metrics_out *o, struct metrics_top *t, char *label) {
    const struct metrics_qfig *f;
    char labels[2 * ITEM_KEY_MAX + 64];
    size_t i;
    int k;

    metrics_head(o, "mcds_queue_messages", "gauge",
                 "Messages in this queue by state (the largest queues, --metrics-top).");
    for (i = 0; i < t->n; i++) {
        metrics_label_value(label, t->v[i].name, strlen(t->v[i].name));
        for (k = 0; k < METRICS_QSTATES; k++) {
            snprintf(labels, sizeof(labels), "{queue=\"%s\",state=\"%s\"}", label, metrics_qstates[k]);
            metrics_line_u64(o, "mcds_queue_messages", labels, metrics_qstate(&t->v[i].st, k));
        }
    }
    metrics_head(o, "mcds_queue_oldest_ready_age_seconds", "gauge",
      "Age of the oldest ready message of this queue.");
    for (i = 0; i < t->n; i++) {
        metrics_label_value(label, t->v[i].name, strlen(t->v[i].name));
        snprintf(labels, sizeof(labels), "{queue=\"%s\"}", label);
        if (evbuffer_add_printf(o->buf, "mcds_queue_oldest_ready_age_seconds%s %.3f\n", labels,
                                (double)t->v[i].st.oldest_ready_ms / 1000.0) < 0)
            o->failed = 1;
    }
    for (f = metrics_qfigs; f->metric != NULL; f++) {
        metrics_head(o, f->metric, f->type, f->help);
        for (i = 0; i < t->n; i++) {
            const uint64_t *v = (const uint64_t *)((const char *)&t->v[i].st + f->offset);
            metrics_label_value(label, t->v[i].name, strlen(t->v[i].name));
            snprintf(labels, sizeof(labels), "{queue=\"%s\"}", label);
            metrics_line_u64(o, f->metric, labels, *v);
        }
    }
}

static void metrics_lists(struct metrics_out *o, struct metrics_top *t, char *label) {
    char labels[2 * ITEM_KEY_MAX + 32];
    size_t i;

    metrics_head(o, "mcds_list_length", "gauge", "Elements of this list (the longest lists, --metrics-top).");
    for (i = 0; i < t->n; i++) {
        metrics_label_value(label, t->v[i].name, strlen(t->v[i].name));
        snprintf(labels, sizeof(labels), "{list=\"%s\"}", label);
        metrics_line_u64(o, "mcds_list_length", labels, t->v[i].size);
    }
}

/* The largest queues, then the longest lists. -1 when memory ran out. */
static int metrics_structures(struct metrics_out *o) {
    struct metrics_top t = { NULL, 0, (size_t)settings.metrics_top };
    char *label = malloc(2 * ITEM_KEY_MAX + 1);

    if (label == NULL || (t.cap > 0 && (t.v = malloc(t.cap * sizeof(*t.v))) == NULL)) {
        free(label);
        return -1;
    }
    queue_each_stats(metrics_queue_seen, &t);
    qsort(t.v, t.n, sizeof(*t.v), metrics_named_cmp);
    metrics_queues(o, &t, label);
    t.n = 0;
    list_each_length(metrics_list_seen, &t);
    qsort(t.v, t.n, sizeof(*t.v), metrics_named_cmp);
    metrics_lists(o, &t, label);
    free(t.v);
    free(label);
    return 0;
}

int metrics_render(struct evbuffer *out) {
    struct metrics_out o = { out, 0 };
    struct metrics_stats *s = calloc(1, sizeof(*s));

    if (s == NULL)
        return -1;
    stats_general(metrics_collect, s);
    metrics_info(&o, s);
    metrics_memcached_names(&o, s);
    metrics_commands_total(&o, s);
    metrics_persist_ages(&o, s);
    metrics_rest(&o, s);
    free(s);
    if (metrics_structures(&o) < 0)
        return -1;
    return o.failed ? -1 : 0;
}
