/*
 * Workloads: the table of named workloads and their next-op functions.
 *
 * Adding a workload is a row in workload_table and a next() function.  A
 * workload that needs new verbs (queue push+pop+ack, counters) also adds its
 * op kinds to bench.h and their encoding and reply handling to conn.c; a
 * next() may keep per-connection state in struct wl_conn (for instance the
 * id a pop returned, to ack it next).
 */
#include <stdio.h>
#include <string.h>

#include "workload.h"

/* xorshift64*: small, fast, good enough to pick keys. */
static uint64_t wl_rand(struct wl_conn *w)
{
    uint64_t x = w->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    w->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n). */
static uint64_t wl_below(struct wl_conn *w, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)wl_rand(w) * n) >> 64);
}

/* A random key of this connection's shard. */
static uint64_t wl_key(struct wl_conn *w)
{
    const struct bench_opts *o = w->sh->opts;
    uint64_t ns = (uint64_t)o->nservers;
    uint64_t per = (o->keyspace - (uint64_t)w->server + ns - 1) / ns;

    return (uint64_t)w->server + ns * wl_below(w, per);
}

static void wl_fill_get(struct wl_conn *w, struct bench_op *op)
{
    int i, n = w->sh->opts->multiget;

    op->kind = n > 1 ? OP_MGET : OP_GET;
    op->nkeys = n;
    for (i = 0; i < n; i++)
        op->keys[i] = wl_key(w);
}

static void wl_fill_set(struct wl_conn *w, struct bench_op *op)
{
    op->kind = OP_SET;
    op->nkeys = 1;
    op->keys[0] = wl_key(w);
}

/* ---- mixed: gets and sets by --ratio ---- */

static int wl_mixed_setup(struct bench_opts *o)
{
    if (o->get_weight + o->set_weight == 0) {
        fprintf(stderr, "mcds-bench: --ratio 0:0 sends nothing\n");
        return -1;
    }
    return 0;
}

static int wl_mixed_next(struct wl_conn *w, struct bench_op *op)
{
    const struct bench_opts *o = w->sh->opts;

    if (wl_below(w, o->get_weight + o->set_weight) < o->get_weight)
        wl_fill_get(w, op);
    else
        wl_fill_set(w, op);
    return 1;
}

/* ---- get / set only ---- */

static int wl_get_setup(struct bench_opts *o)
{
    o->get_weight = 1;
    o->set_weight = 0;
    return 0;
}

static int wl_set_setup(struct bench_opts *o)
{
    o->get_weight = 0;
    o->set_weight = 1;
    return 0;
}

/* ---- load: store keys 0 .. N-1 once each, then stop ---- */

static int wl_load_setup(struct bench_opts *o)
{
    if (o->load_items == 0) {
        fprintf(stderr, "mcds-bench: workload load needs --load N\n");
        return -1;
    }
    o->keyspace = o->load_items;
    o->get_weight = 0;
    o->set_weight = 1;
    return 0;
}

static int wl_load_next(struct wl_conn *w, struct bench_op *op)
{
    const struct bench_opts *o = w->sh->opts;
    uint64_t c = atomic_fetch_add(&w->sh->load_next[w->server], 1);
    uint64_t k = (uint64_t)w->server + c * (uint64_t)o->nservers;

    if (k >= o->load_items)
        return 0;
    op->kind = OP_SET;
    op->nkeys = 1;
    op->keys[0] = k;
    return 1;
}

static const struct bench_workload workload_table[] = {
    { "mixed", "gets and sets by --ratio (default 9:1), gets of --multiget keys",
      wl_mixed_setup, wl_mixed_next, 0 },
    { "get",   "gets only, of --multiget keys (load the keys first)",
      wl_get_setup, wl_mixed_next, 0 },
    { "set",   "sets only",
      wl_set_setup, wl_mixed_next, 0 },
    { "load",  "store keys 0..N-1 once (--load N), then exit",
      wl_load_setup, wl_load_next, 1 },
    /* queue push+pop+ack (issue 5) and counters go here. */
};

#define WORKLOAD_COUNT (sizeof(workload_table) / sizeof(workload_table[0]))

const struct bench_workload *workload_find(const char *name)
{
    size_t i;

    for (i = 0; i < WORKLOAD_COUNT; i++)
        if (strcmp(workload_table[i].name, name) == 0)
            return &workload_table[i];
    return NULL;
}

void workload_list(FILE *f)
{
    size_t i;

    for (i = 0; i < WORKLOAD_COUNT; i++)
        fprintf(f, "  %-8s %s\n", workload_table[i].name, workload_table[i].help);
}

void workload_conn_init(struct wl_conn *w, struct bench_shared *sh,
                        int server, uint64_t seed)
{
    w->sh = sh;
    w->server = server;
    /* splitmix64 of the seed, so neighbouring seeds differ; never zero. */
    seed += 0x9E3779B97F4A7C15ull;
    seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ull;
    seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBull;
    seed ^= seed >> 31;
    w->rng = seed ? seed : 1;
}
