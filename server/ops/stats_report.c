/*
 * stats_report: the text of every `stats` group (`stats`, `stats
 * settings`, `items`, `slabs`, `sizes`, and `hash` with --debug), with
 * memcached 1.6.18's names in its order, then mcds's own. Figures of the
 * modules above the cache (TLS, watchers, structures, persistence) come
 * from their providers (base/stats.h), at their places.
 */
#include <event2/event.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/settings.h"
#include "base/stats.h"
#include "base/tls_opts.h"
#include "cache/expiry.h"
#include "cache/hash.h"
#include "cache/item.h"
#include "cache/item_cache.h"
#include "cache/lru.h"
#include "net/conn.h"
#include "ops/detail.h"
#include "ops/stats_report.h"
#include "persist/persist.h"
#include "store/store.h"

static void stats_emit_rusage(stats_emit_fn emit, void *ctx) {
    struct rusage ru;
    char buf[64];

    getrusage(RUSAGE_SELF, &ru);
    snprintf(buf, sizeof(buf), "%ld.%06ld", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
    emit(ctx, "rusage_user", buf);
    snprintf(buf, sizeof(buf), "%ld.%06ld", (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
    emit(ctx, "rusage_system", buf);
}

/* Names memcached 1.6.18 reports for parts mcds does not have (slab
 * pages, a segmented LRU and its maintainer, the log watchers' workers,
 * NAPI): always 0. Each list is emitted where memcached places it. */
static const char *const stats_zero_conn[] = {
    "response_obj_count", NULL,
};
static const char *const stats_zero_listen[] = {
    "listen_disabled_num", "time_in_listen_disabled_us", NULL,
};
static const char *const stats_zero_slab_lru[] = {
    "slab_reassign_rescues", "slab_reassign_chunk_rescues", "slab_reassign_evictions_nomem",
    "slab_reassign_inline_reclaim", "slab_reassign_busy_items", "slab_reassign_busy_deletes",
    "slab_reassign_running", "slabs_moved", "lru_crawler_running", "lru_crawler_starts",
    "lru_maintainer_juggles", "malloc_fails", NULL,
};
static const char *const stats_zero_logger[] = {
    "log_worker_dropped", "log_worker_written", "log_watcher_skipped", "log_watcher_sent", NULL,
};
static const char *const stats_zero_napi[] = {
    "unexpected_napi_ids", "round_robin_fallback", NULL,
};
static const char *const stats_zero_lru_moves[] = {
    "crawler_items_checked", "lrutail_reflocked", "moves_to_cold", "moves_to_warm",
    "moves_within_lru", "direct_reclaims", "lru_bumps_dropped", NULL,
};

static void stats_emit_zeros(stats_emit_fn emit, void *ctx, const char *prefix, const char *const *names) {
    char name[64];

    for (; *names != NULL; names++) {
        snprintf(name, sizeof(name), "%s%s", prefix, *names);
        emit(ctx, name, "0");
    }
}

/* The connection part of `stats`, memcached's names in its order. */
static void stats_general_conns(stats_emit_fn emit, void *ctx) {
    stats_emit_u64(emit, ctx, "max_connections", (uint64_t)settings.maxconns);
    stats_emit_u64(emit, ctx, "curr_connections", stats_global_get(STATS_CURR_CONNECTIONS));
    stats_emit_u64(emit, ctx, "total_connections", stats_global_get(STATS_TOTAL_CONNECTIONS));
    stats_emit_u64(emit, ctx, "rejected_connections", stats_global_get(STATS_REJECTED_CONNECTIONS));
    stats_emit_u64(emit, ctx, "connection_structures", stats_global_get(STATS_CURR_CONNECTIONS));
    stats_emit_u64(emit, ctx, "response_obj_oom", stats_global_get(STATS_RESPONSE_OBJ_OOM));
    stats_emit_zeros(emit, ctx, "", stats_zero_conn);
    stats_emit_u64(emit, ctx, "response_obj_bytes", stats_global_get(STATS_RESPONSE_OBJ_BYTES));
    stats_emit_u64(emit, ctx, "read_buf_count", stats_global_get(STATS_READ_BUF_BYTES) / CONN_RBUF_SIZE);
    stats_emit_u64(emit, ctx, "read_buf_bytes", stats_global_get(STATS_READ_BUF_BYTES));
    stats_emit_u64(emit, ctx, "read_buf_bytes_free", stats_global_get(STATS_READ_BUF_BYTES_FREE));
    stats_emit_u64(emit, ctx, "read_buf_oom", stats_global_get(STATS_READ_BUF_OOM));
    stats_emit_u64(emit, ctx, "reserved_fds", 0);
}

/* The item part of `stats`, from bytes on. */
static void stats_general_items(stats_emit_fn emit, void *ctx) {
    stats_emit_u64(emit, ctx, "bytes", stats_global_get(STATS_BYTES));
    stats_emit_u64(emit, ctx, "curr_items", stats_global_get(STATS_CURR_ITEMS));
    stats_emit_u64(emit, ctx, "total_items", stats_global_get(STATS_TOTAL_ITEMS));
    stats_emit_u64(emit, ctx, "slab_global_page_pool", 0);
    stats_emit_u64(emit, ctx, "expired_unfetched", stats_global_get(STATS_EXPIRED_UNFETCHED));
    stats_emit_u64(emit, ctx, "evicted_unfetched", stats_global_get(STATS_EVICTED_UNFETCHED));
    stats_emit_u64(emit, ctx, "evicted_active", stats_global_get(STATS_EVICTED_ACTIVE));
    stats_emit_u64(emit, ctx, "evictions", stats_global_get(STATS_EVICTIONS));
    stats_emit_u64(emit, ctx, "reclaimed", stats_global_get(STATS_RECLAIMED));
    stats_emit_u64(emit, ctx, "crawler_reclaimed", stats_global_get(STATS_CRAWLER_RECLAIMED));
    stats_emit_zeros(emit, ctx, "", stats_zero_lru_moves);
}

/* `stats`: memcached 1.6.18's 92 names in its order, then mcds's own. */
void stats_general(stats_emit_fn emit, void *ctx) {
    rel_time_t now = clock_now();

    stats_emit_u64(emit, ctx, "pid", (uint64_t)getpid());
    stats_emit_u64(emit, ctx, "uptime", now);
    stats_emit_u64(emit, ctx, "time", (uint64_t)(clock_started() + now));
    stats_emit_str(emit, ctx, "version", MCDS_PROTOCOL_VERSION);
    stats_emit_str(emit, ctx, "libevent", event_get_version());
    stats_emit_u64(emit, ctx, "pointer_size", sizeof(void *) * 8);
    stats_emit_rusage(emit, ctx);
    stats_general_conns(emit, ctx);
    stats_emit_counters(emit, ctx, STATS_CMD_GET, STATS_BYTES_WRITTEN);
    stats_emit_u64(emit, ctx, "limit_maxbytes", item_mem_limit());
    stats_emit_u64(emit, ctx, "accepting_conns", 1);
    stats_emit_zeros(emit, ctx, "", stats_zero_listen);
    stats_emit_u64(emit, ctx, "threads", (uint64_t)settings.num_threads);
    stats_emit_counters(emit, ctx, STATS_CONN_YIELDS, STATS_CONN_YIELDS);
    stats_emit_u64(emit, ctx, "hash_power_level", hash_power());
    stats_emit_u64(emit, ctx, "hash_bytes", hash_bytes());
    stats_emit_u64(emit, ctx, "hash_is_expanding", hash_is_expanding());
    stats_emit_zeros(emit, ctx, "", stats_zero_slab_lru);
    stats_emit_zeros(emit, ctx, "", stats_zero_logger);
    stats_run_place(STATS_PLACE_WATCHERS, emit, ctx);
    stats_run_place(STATS_PLACE_TLS, emit, ctx);    /* with -Z, as memcached */
    stats_emit_zeros(emit, ctx, "", stats_zero_napi);
    stats_general_items(emit, ctx);
    /* mcds's own, after memcached's */
    stats_emit_str(emit, ctx, "mcds_version", PACKAGE_VERSION);
    stats_emit_u64(emit, ctx, "idle_kicks", stats_global_get(STATS_IDLE_KICKS));
    stats_emit_u64(emit, ctx, "expiry_index_entries", expiry_entries());
    stats_emit_u64(emit, ctx, "expiry_index_dropped", expiry_dropped());
    stats_run_place(STATS_PLACE_MCDS, emit, ctx);   /* queues, lists, tree counters, persistence */
    stats_emit_counters(emit, ctx, STATS_CONN_EVENT_CHANGES, STATS_WORKER_NOTIFIES);
    stats_emit_counters(emit, ctx, STATS_PARK_WAKES, STATS_PARK_WAKES_DIRECT);
    stats_emit_u64(emit, ctx, "item_kept_bytes", item_cache_bytes());
    stats_emit_counters(emit, ctx, STATS_ITEM_KEPT_REUSES, STATS_ITEM_MOVES);
}

/* memcached's settings for parts mcds does not have, with the value
 * memcached shows when they are off or at their default (stats settings
 * keeps its place for each). */
struct stats_fixed {
    const char *name, *value;
};

static const struct stats_fixed stats_fixed_lru[] = {
    { "tail_repair_time", "0" }, { NULL, NULL },
};
static const struct stats_fixed stats_fixed_maint[] = {
    { "lru_maintainer_thread", "no" }, { "lru_segmented", "no" }, { "hot_lru_pct", "20" },
    { "warm_lru_pct", "40" }, { "hot_max_factor", "0.20" }, { "warm_max_factor", "2.00" },
    { "temp_lru", "no" }, { "temporary_ttl", "61" }, { NULL, NULL },
};
static const struct stats_fixed stats_fixed_ext[] = {
    { "track_sizes", "no" }, { "inline_ascii_response", "no" }, { "ext_item_size", "512" },
    { "ext_item_age", "4294967295" }, { "ext_low_ttl", "0" }, { "ext_recache_rate", "2000" },
    { "ext_wbuf_size", "4194304" }, { "ext_compact_under", "0" }, { "ext_drop_under", "0" },
    { "ext_max_sleep", "1000000" }, { "ext_max_frag", "0.80" }, { "slab_automove_freeratio", "0.010" },
    { "ext_drop_unread", "no" }, { NULL, NULL },
};
static const struct stats_fixed stats_fixed_napi[] = {
    { "num_napi_ids", "(null)" }, { "memory_file", "(null)" }, { NULL, NULL },
};

static void stats_emit_fixed(stats_emit_fn emit, void *ctx, const struct stats_fixed *f) {
    for (; f->name != NULL; f++)
        emit(ctx, f->name, f->value);
}

/* stats settings, up to hashpower_init. */
static void stats_settings_base(stats_emit_fn emit, void *ctx) {
    char mask[16];

    stats_emit_u64(emit, ctx, "maxbytes", item_mem_limit());
    stats_emit_u64(emit, ctx, "maxconns", (uint64_t)settings.maxconns);
    stats_emit_u64(emit, ctx, "tcpport", (uint64_t)settings.port);
    stats_emit_u64(emit, ctx, "udpport", 0);
    stats_emit_str(emit, ctx, "inter", settings.listen_addr ? settings.listen_addr : "NULL");
    stats_emit_u64(emit, ctx, "verbosity", (uint64_t)log_level());
    stats_emit_u64(emit, ctx, "oldest", 0);
    stats_emit_str(emit, ctx, "evictions", settings.evict_to_free ? "on" : "off");
    stats_emit_str(emit, ctx, "domain_socket", settings.socket_path ? settings.socket_path : "NULL");
    snprintf(mask, sizeof(mask), "%o", settings.socket_mask);
    stats_emit_str(emit, ctx, "umask", mask);
    stats_emit_str(emit, ctx, "shutdown_command", settings.shutdown_enabled ? "yes" : "no");
    stats_emit_str(emit, ctx, "growth_factor", "1.25");
    stats_emit_u64(emit, ctx, "chunk_size", 48);
    stats_emit_u64(emit, ctx, "num_threads", (uint64_t)settings.num_threads);
    stats_emit_u64(emit, ctx, "num_threads_per_udp", (uint64_t)settings.num_threads);
    char delim[2] = { settings.prefix_delimiter, '\0' };

    stats_emit_str(emit, ctx, "stat_key_prefix", delim);
    stats_emit_str(emit, ctx, "detail_enabled", detail_enabled() ? "yes" : "no");
    stats_emit_u64(emit, ctx, "reqs_per_event", (uint64_t)settings.reqs_per_event);
    stats_emit_str(emit, ctx, "cas_enabled", settings.cas_enabled ? "yes" : "no");
    stats_emit_u64(emit, ctx, "tcp_backlog", (uint64_t)settings.backlog);
    stats_emit_str(emit, ctx, "binding_protocol", settings_protocol_name());
    stats_emit_str(emit, ctx, "auth_enabled_sasl", settings.auth_file != NULL ? "yes" : "no");
    stats_emit_str(emit, ctx, "auth_enabled_ascii", settings.auth_file != NULL ? "yes" : "no");
    stats_emit_u64(emit, ctx, "item_size_max", settings.item_size_max);
    stats_emit_str(emit, ctx, "maxconns_fast", "yes");
    stats_emit_u64(emit, ctx, "hashpower_init", (uint64_t)settings.hashpower_init);
}

/* stats settings: memcached 1.6.18's 76 names in its order, then mcds's. */
void stats_settings(stats_emit_fn emit, void *ctx) {
    char buf[32];

    stats_settings_base(emit, ctx);
    stats_emit_str(emit, ctx, "slab_reassign", "no");
    stats_emit_u64(emit, ctx, "slab_automove", settings.slab_automove);
    snprintf(buf, sizeof(buf), "%.2f", settings.slab_automove_ratio);
    stats_emit_str(emit, ctx, "slab_automove_ratio", buf);
    stats_emit_u64(emit, ctx, "slab_automove_window", 30);
    stats_emit_u64(emit, ctx, "slab_chunk_max", settings.item_size_max / 2);
    stats_emit_str(emit, ctx, "lru_crawler", store_crawler_enabled() ? "yes" : "no");
    stats_emit_u64(emit, ctx, "lru_crawler_sleep", settings.crawler_sleep);
    stats_emit_u64(emit, ctx, "lru_crawler_tocrawl", settings.crawler_tocrawl);
    stats_emit_fixed(emit, ctx, stats_fixed_lru);
    stats_emit_str(emit, ctx, "flush_enabled", settings.flush_enabled ? "yes" : "no");
    stats_emit_str(emit, ctx, "dump_enabled", settings.dump_disabled ? "no" : "yes");
    stats_emit_str(emit, ctx, "hash_algorithm", "siphash13");
    stats_emit_fixed(emit, ctx, stats_fixed_maint);
    stats_emit_u64(emit, ctx, "idle_timeout", (uint64_t)settings.idle_timeout);
    stats_emit_u64(emit, ctx, "watcher_logbuf_size", settings.watcher_logbuf);
    stats_emit_u64(emit, ctx, "worker_logbuf_size", 65536);
    stats_emit_u64(emit, ctx, "read_buf_mem_limit", settings.conn_buffer_limit);
    stats_emit_fixed(emit, ctx, stats_fixed_ext);
    tls_opts_stats(emit, ctx);      /* shown in every build, as Debian's memcached */
    stats_emit_fixed(emit, ctx, stats_fixed_napi);
    /* mcds's own */
    stats_emit_str(emit, ctx, "debug", settings.debug ? "yes" : "no");
    stats_emit_u64(emit, ctx, "conn_output_max", settings.conn_output_max);
    stats_emit_str(emit, ctx, "data_dir", settings.data_dir != NULL ? settings.data_dir : "NULL");
    snprintf(buf, sizeof(buf), "%s", settings.fsync_policy == PERSIST_FSYNC_ALWAYS ? "always"
                                     : settings.fsync_policy == PERSIST_FSYNC_EVERYSEC ? "everysec" : "no");
    stats_emit_str(emit, ctx, "fsync", buf);
    stats_emit_str(emit, ctx, "persist_items", settings.persist_items ? "yes" : "no");
    stats_emit_str(emit, ctx, "strict_replay", settings.strict_replay ? "yes" : "no");
    stats_emit_str(emit, ctx, "receipts_only", settings.receipts_only ? "yes" : "no");
    stats_emit_u64(emit, ctx, "log_stall_timeout", (uint64_t)settings.log_stall_timeout);
    stats_emit_u64(emit, ctx, "metrics_port", (uint64_t)settings.metrics_port);
    stats_emit_str(emit, ctx, "metrics_listen", settings.metrics_listen);
    stats_emit_u64(emit, ctx, "metrics_top", (uint64_t)settings.metrics_top);
}

/* memcached's per-class item names mcds has no part for (segments, temp
 * LRU, tail repairs): 0 in their places. */
static const char *const stats_zero_item_segments[] = {
    "number_hot", "number_warm", "number_cold", "age_hot", "age_warm", NULL,
};
static const char *const stats_zero_item_tail[] = {
    "evicted_nonzero", "evicted_time", NULL,
};
static const char *const stats_zero_item_lru[] = {
    "crawler_items_checked", "lrutail_reflocked", "moves_to_cold", "moves_to_warm",
    "moves_within_lru", "direct_reclaims", "hits_to_hot", "hits_to_warm", "hits_to_cold",
    "hits_to_temp", NULL,
};

/* mcds allocates items with malloc, not slabs: it reports one class
 * holding every item, so tools that walk classes still find the totals.
 * memcached 1.6.18's 28 names per class (no temp LRU), in its order. */
void stats_items(stats_emit_fn emit, void *ctx) {
    uint64_t n = stats_global_get(STATS_CURR_ITEMS);
    rel_time_t oldest = lru_oldest_time();

    if (n == 0)
        return;
    stats_emit_u64(emit, ctx, "items:1:number", n);
    stats_emit_zeros(emit, ctx, "items:1:", stats_zero_item_segments);
    stats_emit_u64(emit, ctx, "items:1:age", oldest != 0 && oldest <= clock_now() ? clock_now() - oldest : 0);
    stats_emit_u64(emit, ctx, "items:1:mem_requested", stats_global_get(STATS_BYTES));
    stats_emit_u64(emit, ctx, "items:1:evicted", stats_global_get(STATS_EVICTIONS));
    stats_emit_zeros(emit, ctx, "items:1:", stats_zero_item_tail);
    stats_emit_u64(emit, ctx, "items:1:outofmemory", stats_global_get(STATS_OUTOFMEMORY));
    stats_emit_u64(emit, ctx, "items:1:tailrepairs", 0);
    stats_emit_u64(emit, ctx, "items:1:reclaimed", stats_global_get(STATS_RECLAIMED));
    stats_emit_u64(emit, ctx, "items:1:expired_unfetched", stats_global_get(STATS_EXPIRED_UNFETCHED));
    stats_emit_u64(emit, ctx, "items:1:evicted_unfetched", stats_global_get(STATS_EVICTED_UNFETCHED));
    stats_emit_u64(emit, ctx, "items:1:evicted_active", stats_global_get(STATS_EVICTED_ACTIVE));
    stats_emit_u64(emit, ctx, "items:1:crawler_reclaimed", stats_global_get(STATS_CRAWLER_RECLAIMED));
    stats_emit_zeros(emit, ctx, "items:1:", stats_zero_item_lru);
}

#define STATS_PAGE_SIZE (1024 * 1024)   /* memcached's slab page */

/* stats slabs: class 1 with memcached 1.6.18's 15 names in its order,
 * then active_slabs and total_malloced. With no slab pages, total_pages is
 * the item memory in 1 MB pages (rounded up) and every chunk is used. */
void stats_slabs(stats_emit_fn emit, void *ctx) {
    uint64_t n = stats_global_get(STATS_CURR_ITEMS);
    uint64_t kept = item_cache_bytes(), used = item_mem_used();
    uint64_t pages = (used + STATS_PAGE_SIZE - 1) / STATS_PAGE_SIZE;

    if (n > 0) {
        pages = pages > 0 ? pages : 1;
        /* No fixed chunks: chunk_size is the mean footprint of an item
         * (kept blocks, item_cache.h, hold none). */
        stats_emit_u64(emit, ctx, "1:chunk_size", (used > kept ? used - kept : 0) / n);
        stats_emit_u64(emit, ctx, "1:chunks_per_page", (n + pages - 1) / pages);
        stats_emit_u64(emit, ctx, "1:total_pages", pages);
        stats_emit_u64(emit, ctx, "1:total_chunks", n);
        stats_emit_u64(emit, ctx, "1:used_chunks", n);
        stats_emit_u64(emit, ctx, "1:free_chunks", 0);
        stats_emit_u64(emit, ctx, "1:free_chunks_end", 0);
        stats_emit_u64(emit, ctx, "1:get_hits", stats_counter_total(STATS_GET_HITS));
        stats_emit_u64(emit, ctx, "1:cmd_set", stats_counter_total(STATS_CMD_SET));
        stats_emit_u64(emit, ctx, "1:delete_hits", stats_counter_total(STATS_DELETE_HITS));
        stats_emit_u64(emit, ctx, "1:incr_hits", stats_counter_total(STATS_INCR_HITS));
        stats_emit_u64(emit, ctx, "1:decr_hits", stats_counter_total(STATS_DECR_HITS));
        stats_emit_u64(emit, ctx, "1:cas_hits", stats_counter_total(STATS_CAS_HITS));
        stats_emit_u64(emit, ctx, "1:cas_badval", stats_counter_total(STATS_CAS_BADVAL));
        stats_emit_u64(emit, ctx, "1:touch_hits", stats_counter_total(STATS_TOUCH_HITS));
    }
    stats_emit_u64(emit, ctx, "active_slabs", n > 0 ? 1 : 0);
    stats_emit_u64(emit, ctx, "total_malloced", used);
}

/* --debug only: the table's shape, walked whole. */
static void stats_hash(stats_emit_fn emit, void *ctx) {
    stats_emit_u64(emit, ctx, "hash_power_level", hash_power());
    stats_emit_u64(emit, ctx, "hash_items", hash_count());
    stats_emit_u64(emit, ctx, "hash_longest_chain", hash_longest_chain());
}

int stats_group(const char *sub, stats_emit_fn emit, void *ctx) {
    if (strcmp(sub, "settings") == 0)
        stats_settings(emit, ctx);
    else if (strcmp(sub, "items") == 0)
        stats_items(emit, ctx);
    else if (strcmp(sub, "slabs") == 0)
        stats_slabs(emit, ctx);
    else if (strcmp(sub, "sizes") == 0)
        emit(ctx, "sizes_status", "disabled");
    else if (strcmp(sub, "hash") == 0 && settings.debug)
        stats_hash(emit, ctx);
    else
        return -1;
    return 0;
}
