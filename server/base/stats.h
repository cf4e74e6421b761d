/*
 * stats: the server's counters, named as memcached names them so that
 * memcstat, exporters and dashboards read them unchanged, and the table
 * of providers through which a module adds its figures to `stats`.
 *
 * Per-request counters live in one block per worker thread (no lock, no
 * shared cache line); the few global figures are atomics. `stats reset`
 * records a baseline instead of zeroing other threads' memory.
 */
#ifndef MCDS_STATS_H
#define MCDS_STATS_H

#include <stdint.h>

enum stats_counter {
    STATS_CMD_GET, STATS_CMD_SET, STATS_CMD_FLUSH, STATS_CMD_TOUCH, STATS_CMD_META,
    STATS_GET_HITS, STATS_GET_MISSES, STATS_GET_EXPIRED, STATS_GET_FLUSHED,
    STATS_DELETE_MISSES, STATS_DELETE_HITS,
    STATS_INCR_MISSES, STATS_INCR_HITS, STATS_DECR_MISSES, STATS_DECR_HITS,
    STATS_CAS_MISSES, STATS_CAS_HITS, STATS_CAS_BADVAL,
    STATS_TOUCH_HITS, STATS_TOUCH_MISSES,
    STATS_STORE_TOO_LARGE, STATS_STORE_NO_MEMORY,
    STATS_AUTH_CMDS, STATS_AUTH_ERRORS,
    STATS_BYTES_READ, STATS_BYTES_WRITTEN,
    STATS_CONN_YIELDS,
    STATS_CONN_EVENT_CHANGES, STATS_WORKER_NOTIFIES,
    STATS_PARK_WAKES, STATS_PARK_WAKES_REMOTE, STATS_PARK_WAKES_DIRECT,
    STATS_ITEM_KEPT_REUSES, STATS_ITEM_MOVES,
    STATS_NCOUNTERS
};

/* Global figures, changed from any thread. */
enum stats_global {
    STATS_CURR_CONNECTIONS, STATS_TOTAL_CONNECTIONS, STATS_REJECTED_CONNECTIONS,
    STATS_CURR_ITEMS, STATS_TOTAL_ITEMS, STATS_BYTES,
    STATS_EVICTIONS, STATS_RECLAIMED, STATS_CRAWLER_RECLAIMED,
    STATS_EXPIRED_UNFETCHED, STATS_EVICTED_UNFETCHED, STATS_EVICTED_ACTIVE,
    STATS_OUTOFMEMORY,
    STATS_READ_BUF_BYTES, STATS_READ_BUF_BYTES_FREE, STATS_READ_BUF_OOM,
    STATS_RESPONSE_OBJ_BYTES, STATS_RESPONSE_OBJ_OOM,
    STATS_IDLE_KICKS,
    STATS_NGLOBALS
};

/* Called once by each worker thread before it serves requests. */
void stats_thread_init(int index);
void stats_init(int nthreads);
void stats_free(void);

void stats_add(enum stats_counter c, uint64_t n);
static inline void stats_incr(enum stats_counter c) { stats_add(c, 1); }
void stats_global_add(enum stats_global g, int64_t n);
uint64_t stats_global_get(enum stats_global g);

uint64_t stats_counter_total(enum stats_counter c);
void stats_reset(void);

/* Output goes through a callback so every protocol formats it its own way. */
typedef void (*stats_emit_fn)(void *ctx, const char *name, const char *value);

void stats_emit_u64(stats_emit_fn emit, void *ctx, const char *name, uint64_t v);
void stats_emit_str(stats_emit_fn emit, void *ctx, const char *name, const char *v);
/* The counters from..to (enum stats_counter), in order, under their names. */
void stats_emit_counters(stats_emit_fn emit, void *ctx, int from, int to);

/* Where a module's figures go in the text of `stats`: among memcached's
 * names where memcached shows its TLS figures, or its log watchers; or
 * among mcds's own (each structure's totals, persistence). */
enum stats_place { STATS_PLACE_TLS, STATS_PLACE_WATCHERS, STATS_PLACE_MCDS };

/* A module's lines, given once at start-up (the struct must outlive the
 * server); at one place, lower ranks come first. */
struct stats_provider {
    const char *name;
    enum stats_place place;
    int rank;
    void (*fn)(stats_emit_fn emit, void *ctx);
};
void stats_provide(const struct stats_provider *p);
/* Runs every provider of place, in rank order. */
void stats_run_place(enum stats_place place, stats_emit_fn emit, void *ctx);
/* Shutdown: the providers are forgotten. */
void stats_providers_clear(void);

#endif
