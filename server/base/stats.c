/*
 * stats: the server's counters, and the providers of module figures (the
 * text of every `stats` group is ops/stats_report.c's).
 *
 * Each worker owns one row of stats_rows[] and is the only writer of it,
 * so an increment is a relaxed load and store with no lock prefix. Threads
 * without a row (the listener, background tasks) add to the shared row
 * with an atomic add. The globals (gauges such as curr_items and bytes,
 * and totals such as total_items) are kept the same way, so a store on
 * one worker writes no cache line another worker writes. Readers sum the
 * rows; `stats reset` remembers the sums as a baseline that later reports
 * subtract.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"

struct stats_row {
    uint64_t v[STATS_NCOUNTERS];
    uint64_t g[STATS_NGLOBALS];      /* this row's share of each global */
} __attribute__((aligned(64)));

static const char *const stats_counter_names[STATS_NCOUNTERS] = {
    [STATS_CMD_GET] = "cmd_get", [STATS_CMD_SET] = "cmd_set",
    [STATS_CMD_FLUSH] = "cmd_flush", [STATS_CMD_TOUCH] = "cmd_touch",
    [STATS_CMD_META] = "cmd_meta",
    [STATS_GET_HITS] = "get_hits", [STATS_GET_MISSES] = "get_misses",
    [STATS_GET_EXPIRED] = "get_expired", [STATS_GET_FLUSHED] = "get_flushed",
    [STATS_DELETE_MISSES] = "delete_misses", [STATS_DELETE_HITS] = "delete_hits",
    [STATS_INCR_MISSES] = "incr_misses", [STATS_INCR_HITS] = "incr_hits",
    [STATS_DECR_MISSES] = "decr_misses", [STATS_DECR_HITS] = "decr_hits",
    [STATS_CAS_MISSES] = "cas_misses", [STATS_CAS_HITS] = "cas_hits",
    [STATS_CAS_BADVAL] = "cas_badval",
    [STATS_TOUCH_HITS] = "touch_hits", [STATS_TOUCH_MISSES] = "touch_misses",
    [STATS_STORE_TOO_LARGE] = "store_too_large", [STATS_STORE_NO_MEMORY] = "store_no_memory",
    [STATS_AUTH_CMDS] = "auth_cmds", [STATS_AUTH_ERRORS] = "auth_errors",
    [STATS_BYTES_READ] = "bytes_read", [STATS_BYTES_WRITTEN] = "bytes_written",
    [STATS_CONN_YIELDS] = "conn_yields",
    [STATS_CONN_EVENT_CHANGES] = "conn_event_changes", [STATS_WORKER_NOTIFIES] = "worker_notifies",
    [STATS_PARK_WAKES] = "park_wakes", [STATS_PARK_WAKES_REMOTE] = "park_wakes_remote",
    [STATS_PARK_WAKES_DIRECT] = "park_wakes_direct",
    [STATS_ITEM_KEPT_REUSES] = "item_kept_reuses", [STATS_ITEM_MOVES] = "item_moves",
};

static struct stats_row *stats_rows;    /* one per worker */
static int stats_nrows;
static struct stats_row stats_shared;   /* threads without a row */
static struct stats_row stats_baseline;
static pthread_mutex_t stats_reset_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct stats_row *stats_mine;

void stats_init(int nthreads) {
    stats_nrows = nthreads;
    stats_rows = calloc((size_t)stats_nrows, sizeof(struct stats_row));
    if (stats_rows == NULL) {
        fprintf(stderr, "mcds-server: out of memory for stats\n");
        exit(1);
    }
}

void stats_free(void) {
    free(stats_rows);
    stats_rows = NULL;
    stats_nrows = 0;
}

void stats_thread_init(int index) {
    stats_mine = &stats_rows[index];
}

/* Adds n to the calling thread's own slot with a plain load and store, or
 * (mine NULL: a thread without a row) to the shared row's atomically. A
 * gauge's negative step is added as its two's complement. */
static inline void stats_slot_add(uint64_t *mine, uint64_t *shared, uint64_t n) {
    if (mine != NULL)
        __atomic_store_n(mine, __atomic_load_n(mine, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
    else
        __atomic_fetch_add(shared, n, __ATOMIC_RELAXED);
}

void stats_add(enum stats_counter c, uint64_t n) {
    struct stats_row *row = stats_mine;

    stats_slot_add(row != NULL ? &row->v[c] : NULL, &stats_shared.v[c], n);
}

void stats_global_add(enum stats_global g, int64_t n) {
    struct stats_row *row = stats_mine;

    stats_slot_add(row != NULL ? &row->g[g] : NULL, &stats_shared.g[g], (uint64_t)n);
}

static int64_t stats_global_raw(enum stats_global g) {
    uint64_t sum = __atomic_load_n(&stats_shared.g[g], __ATOMIC_RELAXED);
    int i;

    for (i = 0; i < stats_nrows; i++)
        sum += __atomic_load_n(&stats_rows[i].g[g], __ATOMIC_RELAXED);
    return (int64_t)sum;
}

/* Gauges (current values) are never reset; totals are. */
static int stats_global_is_gauge(enum stats_global g) {
    return g == STATS_CURR_CONNECTIONS || g == STATS_CURR_ITEMS || g == STATS_BYTES ||
           g == STATS_READ_BUF_BYTES || g == STATS_READ_BUF_BYTES_FREE ||
           g == STATS_RESPONSE_OBJ_BYTES;
}

uint64_t stats_global_get(enum stats_global g) {
    int64_t v = stats_global_raw(g);

    if (!stats_global_is_gauge(g))
        v -= (int64_t)__atomic_load_n(&stats_baseline.g[g], __ATOMIC_RELAXED);
    return v < 0 ? 0 : (uint64_t)v;
}

static uint64_t stats_counter_raw(enum stats_counter c) {
    uint64_t sum = __atomic_load_n(&stats_shared.v[c], __ATOMIC_RELAXED);
    int i;

    for (i = 0; i < stats_nrows; i++)
        sum += __atomic_load_n(&stats_rows[i].v[c], __ATOMIC_RELAXED);
    return sum;
}

uint64_t stats_counter_total(enum stats_counter c) {
    uint64_t raw = stats_counter_raw(c);
    uint64_t base = __atomic_load_n(&stats_baseline.v[c], __ATOMIC_RELAXED);

    return raw >= base ? raw - base : 0;
}

void stats_reset(void) {
    int c;

    pthread_mutex_lock(&stats_reset_lock);
    for (c = 0; c < STATS_NCOUNTERS; c++)
        __atomic_store_n(&stats_baseline.v[c], stats_counter_raw(c), __ATOMIC_RELAXED);
    for (c = 0; c < STATS_NGLOBALS; c++)
        __atomic_store_n(&stats_baseline.g[c], (uint64_t)stats_global_raw(c), __ATOMIC_RELAXED);
    pthread_mutex_unlock(&stats_reset_lock);
}

void stats_emit_u64(stats_emit_fn emit, void *ctx, const char *name, uint64_t v) {
    char buf[32];

    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    emit(ctx, name, buf);
}

void stats_emit_str(stats_emit_fn emit, void *ctx, const char *name, const char *v) {
    emit(ctx, name, v);
}

void stats_emit_counters(stats_emit_fn emit, void *ctx, int from, int to) {
    int c;

    for (c = from; c <= to; c++)
        stats_emit_u64(emit, ctx, stats_counter_names[c], stats_counter_total(c));
}

/* ---- providers ---- */

#define STATS_PROVIDERS_MAX 32

static const struct stats_provider *stats_providers[STATS_PROVIDERS_MAX];
static int stats_nproviders;

void stats_provide(const struct stats_provider *p) {
    int i;

    if (stats_nproviders == STATS_PROVIDERS_MAX)
        return;
    for (i = stats_nproviders; i > 0 && stats_providers[i - 1]->rank > p->rank; i--)
        stats_providers[i] = stats_providers[i - 1];
    stats_providers[i] = p;
    stats_nproviders++;
}

void stats_run_place(enum stats_place place, stats_emit_fn emit, void *ctx) {
    int i;

    for (i = 0; i < stats_nproviders; i++)
        if (stats_providers[i]->place == place)
            stats_providers[i]->fn(emit, ctx);
}

void stats_providers_clear(void) {
    stats_nproviders = 0;
}
