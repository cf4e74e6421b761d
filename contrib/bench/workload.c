/*
 * Workloads: the table of named workloads and their next-op functions.
 *
 * Adding a workload is a row in workload_table and a next() function.  A
 * workload that needs new verbs (counters) also adds its op kinds to bench.h
 * and their encoding and reply handling to conn.c (resp.c, beanstalk.c); a
 * next() may keep per-connection state in struct wl_conn.
 *
 * The queue workloads run cycles: push a message, pop one (leased), ack it.
 * A connection owns one queue (PREFIX<n>, spread over --queues) and keeps at
 * most --depth cycles open; every push is followed by one pop on the same
 * connection, so a pop always finds a message (the server runs a
 * connection's requests in order).  With --producers P, the first P
 * connections of each thread only push (pausing while more than --backlog
 * messages are queued) and the others only pop, blocking up to --pop-wait,
 * and ack.  A cycle ends when its ack is answered; its latency is measured
 * from the push of the message that was acked, whose first 16 bytes are
 * its push time.  Once the measured window is over, connections finish
 * their open cycles (pops owed, acks) and push nothing more, so a run leaves
 * no leased message behind to come back into the next one.
 */
#include <stdio.h>
#include <stdlib.h>
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

/* ---- queues: push + pop + ack cycles ---- */

static int wl_queue_setup_common(struct bench_opts *o)
{
    const char *p;

    if (o->proto == PROTO_META) {
        fprintf(stderr, "mcds-bench: queue workloads speak -p text (qpush/"
                "qpop/qack), redis or beanstalk, not meta\n");
        return -1;
    }
    if (o->ack_with_pop && (o->proto != PROTO_TEXT || o->producers > 0)) {
        fprintf(stderr, "mcds-bench: --ack-with-pop needs -p text (mcds's "
                "qpop ack=) and whole cycles (no --producers)\n");
        return -1;
    }
    if (o->value_size < BENCH_TAG_LEN) {
        fprintf(stderr, "mcds-bench: queue workloads need --value-size of at "
                "least %d (a message starts with its push time)\n",
                BENCH_TAG_LEN);
        return -1;
    }
    if (o->queues < (uint64_t)o->nservers) {
        fprintf(stderr, "mcds-bench: --queues must be at least the number "
                "of servers\n");
        return -1;
    }
    if (o->producers > 0 && o->pop_wait >= o->timeout) {
        fprintf(stderr, "mcds-bench: --pop-wait must be shorter than "
                "--timeout, or a consumer still waiting at the end counts "
                "as lost\n");
        return -1;
    }
    if (o->groups > 0 && (o->proto != PROTO_TEXT || o->producers == 0)) {
        fprintf(stderr, "mcds-bench: --groups needs -p text (mcds's qpush "
                "group=) and --producers (a grouped message waits for the one "
                "before it, so a cycle's pop may find nothing)\n");
        return -1;
    }
    if (o->producers >= o->conns) {
        fprintf(stderr, "mcds-bench: --producers must leave consumers: it "
                "counts per thread and must be below --conns\n");
        return -1;
    }
    if (o->proto == PROTO_BEANSTALK) {
        /* beanstalkd tube names: letters, digits, "-+/;.$_()". */
        for (p = o->prefix; *p; p++) {
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789-+/;.$_()", *p) || (p == o->prefix && *p == '-')) {
                fprintf(stderr, "mcds-bench: beanstalkd tube names allow "
                        "letters, digits and -+/;.$_() (not first -): "
                        "--prefix \"%s\"\n", o->prefix);
                return -1;
            }
        }
    }
    o->keyspace = o->queues;
    o->get_weight = o->set_weight = 0;
    return 0;
}

static int wl_queue_setup(struct bench_opts *o)
{
    return wl_queue_setup_common(o);
}

static int wl_take_setup(struct bench_opts *o)
{
    if (o->proto == PROTO_BEANSTALK) {
        fprintf(stderr, "mcds-bench: beanstalkd has no pop without a "
                "delete; use the queue workload\n");
        return -1;
    }
    return wl_queue_setup_common(o);
}

/* The next ack to send, if a popped message waits for one. */
static int wl_ack_next(struct wl_conn *w, struct bench_op *op)
{
    const struct wl_ack *a;

    if (w->ack_unsent == 0)
        return 0;
    a = &w->acks[(w->ack_head + w->ack_count - w->ack_unsent) % w->ack_cap];
    w->ack_unsent--;
    op->kind = OP_ACK;
    op->id = a->id;
    memcpy(op->tag, a->tag, BENCH_TAG_LEN);
    return 1;
}

/* --ack-with-pop: while cycles run, a waiting ack rides on the next pop
 * instead of going alone; after the window the last ones go alone. */
static int wl_ack_rides(const struct wl_conn *w)
{
    return w->sh->opts->ack_with_pop && w->role == WL_CYCLE && !w->ending;
}

/* A pop about to go out: with --ack-with-pop it carries the oldest ack. */
static void wl_pop_op(struct wl_conn *w, struct bench_op *op)
{
    op->kind = w->pop_kind;
    op->id = 0;
    if (wl_ack_rides(w) && w->pop_kind == OP_POP && w->ack_unsent > 0) {
        op->id = w->acks[(w->ack_head + w->ack_count - w->ack_unsent) % w->ack_cap].id;
        w->ack_unsent--;
    }
}

/* After the window: the pops owed, then done once nothing is open. */
static int wl_queue_end(struct wl_conn *w, struct bench_op *op)
{
    if (w->role == WL_CYCLE && w->pops_owed > 0) {
        w->pops_owed--;
        wl_pop_op(w, op);
        return 1;
    }
    if ((w->role == WL_CYCLE && w->open > 0) || w->ack_count > 0 ||
        (w->role == WL_CONSUMER && w->pop_out))
        return WL_WAIT;
    return 0;
}

static int wl_queue_next(struct wl_conn *w, struct bench_op *op)
{
    const struct bench_opts *o = w->sh->opts;

    op->nkeys = 1;
    op->keys[0] = w->queue;
    op->block = 0;
    op->id = 0;
    if (w->setup_sent < w->setup_total) {
        op->kind = OP_SETUP;
        op->step = w->setup_sent++;
        return 1;
    }
    if (!wl_ack_rides(w) && wl_ack_next(w, op))
        return 1;
    if (w->ending)
        return wl_queue_end(w, op);
    switch (w->role) {
    case WL_CYCLE:
        if (w->pops_owed > 0) {
            w->pops_owed--;
            wl_pop_op(w, op);
            return 1;
        }
        if (w->open >= o->depth)
            return WL_WAIT;
        w->open++;
        w->pops_owed++;
        op->kind = OP_PUSH;
        return 1;
    case WL_PRODUCER:
        if (atomic_load_explicit(&w->sh->backlog, memory_order_relaxed) >=
            o->backlog)
            return WL_WAIT;
        atomic_fetch_add_explicit(&w->sh->backlog, 1, memory_order_relaxed);
        op->kind = OP_PUSH;
        return 1;
    case WL_CONSUMER:
        if (w->pop_out)
            return WL_WAIT;
        w->pop_out = 1;
        op->kind = w->pop_kind;
        op->block = 1;
        return 1;
    }
    return WL_WAIT;
}

/* A pop returned a message: keep it for its ack. */
static void wl_ack_add(struct wl_conn *w, const struct bench_reply *r)
{
    struct wl_ack *a;

    if (w->ack_count == w->ack_cap)
        return;                          /* cannot happen: sized by depth */
    a = &w->acks[(w->ack_head + w->ack_count) % w->ack_cap];
    a->id = r->id;
    memset(a->tag, 0, BENCH_TAG_LEN);
    memcpy(a->tag, r->tag, r->taglen);
    w->ack_count++;
    w->ack_unsent++;
}

/* The oldest sent ack was answered: its cycle ends (1 if it was acked). */
static int wl_ack_done(struct wl_conn *w, int acked, uint64_t *stamp)
{
    const struct wl_ack *a;

    if (w->ack_count == 0)
        return 0;                        /* cannot happen: acks come from it */
    a = &w->acks[w->ack_head];
    w->ack_head = (w->ack_head + 1) % w->ack_cap;
    w->ack_count--;
    if (!acked)
        return 0;
    *stamp = bench_tag_get(a->tag, BENCH_TAG_LEN);
    return 1;
}

static int wl_queue_reply(struct wl_conn *w, const struct bench_reply *r,
                          uint64_t *stamp)
{
    int done = 0;

    *stamp = 0;
    switch (r->kind) {
    case OP_PUSH:
        if (!r->ok && w->role == WL_PRODUCER)
            atomic_fetch_sub_explicit(&w->sh->backlog, 1, memory_order_relaxed);
        return 0;
    case OP_POP:
    case OP_TAKE:
        if (w->role == WL_CONSUMER) {
            w->pop_out = 0;
            if (r->items > 0)
                atomic_fetch_sub_explicit(&w->sh->backlog, r->items,
                                          memory_order_relaxed);
        }
        if (r->acked)                    /* an ack rode on this pop */
            done = wl_ack_done(w, r->ok && r->acked == 1, stamp);
        if (r->ok && r->items > 0 && r->kind == OP_POP) {
            wl_ack_add(w, r);
            /* with --ack-with-pop the ack goes with the next cycle's pop,
             * so this connection may start that cycle now */
            if (w->sh->opts->ack_with_pop && w->role == WL_CYCLE)
                w->open--;
            return done;                 /* the cycle goes on to its ack */
        }
        if (w->role == WL_CYCLE)
            w->open--;                   /* taken, empty or failed: done */
        if (!r->ok || r->items == 0)
            return done;
        *stamp = bench_tag_get(r->tag, r->taglen);
        return 1;
    case OP_ACK:
        if (w->role == WL_CYCLE && !w->sh->opts->ack_with_pop)
            w->open--;
        return wl_ack_done(w, r->ok, stamp);
    default:
        return 0;
    }
}

static const struct bench_workload workload_table[] = {
    { "mixed", "gets and sets by --ratio (default 9:1), gets of --multiget keys",
      wl_mixed_setup, wl_mixed_next, 0, NULL },
    { "get",   "gets only, of --multiget keys (load the keys first)",
      wl_get_setup, wl_mixed_next, 0, NULL },
    { "set",   "sets only",
      wl_set_setup, wl_mixed_next, 0, NULL },
    { "load",  "store keys 0..N-1 once (--load N), then exit",
      wl_load_setup, wl_load_next, 1, NULL },
    { "queue", "push + leased pop + ack cycles over --queues queues: text qpush/\n"
      "           qpop/qack; redis LPUSH/LMOVE to a processing list/LREM;\n"
      "           beanstalk put/reserve-with-timeout/delete",
      wl_queue_setup, wl_queue_next, 0, wl_queue_reply },
    { "queue-take", "push + pop-for-good cycles, no ack: text qpush + get <queue>\n"
      "           (Kestrel); redis LPUSH/RPOP",
      wl_take_setup, wl_queue_next, 0, wl_queue_reply },
    /* counters go here. */
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
        fprintf(f, "  %-10s %s\n", workload_table[i].name, workload_table[i].help);
}

/* Queue number idx-th of those on this connection's server. */
static uint64_t wl_queue_of(const struct bench_opts *o, int server, uint64_t idx)
{
    uint64_t ns = (uint64_t)o->nservers;
    uint64_t per = (o->queues - (uint64_t)server + ns - 1) / ns;

    return (uint64_t)server + ns * (idx % per);
}

static int wl_queue_init(struct wl_conn *w, int g)
{
    const struct bench_opts *o = w->sh->opts;
    int thread = g / o->conns, i = g % o->conns, consumers;
    uint64_t idx = (uint64_t)g;

    if (o->producers == 0) {
        w->role = WL_CYCLE;
    } else if (i < o->producers) {
        w->role = WL_PRODUCER;
        idx = (uint64_t)thread * (uint64_t)o->producers + (uint64_t)i;
    } else {
        w->role = WL_CONSUMER;
        consumers = o->conns - o->producers;
        idx = (uint64_t)thread * (uint64_t)consumers + (uint64_t)(i - o->producers);
    }
    w->queue = wl_queue_of(o, w->server, idx / (uint64_t)o->nservers);
    w->pop_kind = strcmp(o->workload->name, "queue-take") == 0 ? OP_TAKE : OP_POP;
    w->setup_total = o->proto == PROTO_BEANSTALK ? 3 : 0;  /* use, watch, ignore */
    w->ack_cap = o->depth + 1;
    w->acks = calloc((size_t)w->ack_cap, sizeof(*w->acks));
    if (!w->acks) {
        fprintf(stderr, "mcds-bench: out of memory\n");
        return -1;
    }
    return 0;
}

void workload_conn_free(struct wl_conn *w)
{
    free(w->acks);
    w->acks = NULL;
}

int workload_conn_init(struct wl_conn *w, struct bench_shared *sh,
                       int server, int g, uint64_t seed)
{
    memset(w, 0, sizeof(*w));
    w->sh = sh;
    w->server = server;
    w->global = g;
    /* splitmix64 of the seed, so neighbouring seeds differ; never zero. */
    seed += 0x9E3779B97F4A7C15ull;
    seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ull;
    seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBull;
    seed ^= seed >> 31;
    w->rng = seed ? seed : 1;
    return sh->opts->workload->reply ? wl_queue_init(w, g) : 0;
}
