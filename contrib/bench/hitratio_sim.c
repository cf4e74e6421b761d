/*
 * hitratio_sim: replays hitratio's request stream against a model of mcds's
 * eviction, offline, in seconds (doc/performance.md, "Hit ratio at equal
 * memory"): how variants of the policy were compared before one was built.
 *
 * The stream is hitratio's, draw for draw (same generator, seed, Zipf
 * keys, scan, sizes and TTLs); items are counted as mcds counts them (a
 * 56-byte header, the key, the value and "\r\n", plus 8 bytes of malloc
 * chunk, in 16-byte steps). Time for TTLs is requests / --rate. Policies:
 *
 *   lru      one queue, a read buys one more trip (mcds before S3-FIFO)
 *   s3fifo   a small queue (--small, percent of the bytes) and a main
 *            queue with a read count of --reads-max; --to-main reads move
 *            an item from small to main; --ghost none | exact (a free FIFO
 *            of the main queue's size) | table (mcds's: a direct-mapped
 *            table of 2-byte slots, one per main item, charged)
 *
 * --size-trips none | main | both: an idle item takes the mean item size
 * over its own (at most 3) extra trips, in the queues named (lru: main).
 * The bound of 1,000 second chances per store applies as in mcds. Prints
 * one line: the ratio and the items held at the end.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hitratio_stream.h"

#define SIM_NIL 0xffffffffu
#define SIM_RESCUES 1000
#define SIM_TRIES 50
#define SIM_ROUNDS 1000
#define SIM_TRIPS_MAX 3
#define SIM_BATCH 100

enum sim_q { SIM_NONE, SIM_SMALL, SIM_MAIN };
enum sim_ghost { SIM_GHOST_NONE, SIM_GHOST_EXACT, SIM_GHOST_TABLE };

struct sim_item {
    uint32_t prev, next, exp;
    uint8_t q, reads, trips;
};

struct sim_queue {
    uint32_t head, tail;
    uint64_t bytes, items;
};

static struct {
    uint64_t keys, requests, warmup, seed, scan_keys, memory;
    double zipf, scan_share, rate;
    unsigned min_size, max_size, ttl[3], ttl_weight[3], nttl, ttl_total;
    int s3fifo, small_pct, to_main, reads_max, size_small, size_main;
    enum sim_ghost ghost;
} opt;

static struct sim_item *items;
static uint32_t *isize, *ifoot;      /* item_size and footprint per key */
static struct sim_queue small_q, main_q;
static uint64_t used, limit, bytes, nitems, now;

/* Ghost: exact = stamp per key (a FIFO clock); table = mcds's slots. */
static uint32_t *ghost_stamp;
static uint64_t ghost_clock, ghost_mask, base_limit;
static uint16_t *ghost_slots;

static struct sim_queue *sim_queue(int q) {
    return q == SIM_MAIN ? &main_q : &small_q;
}

static void sim_unlink(uint32_t k) {
    struct sim_item *x = &items[k];
    struct sim_queue *q = sim_queue(x->q);

    if (x->prev != SIM_NIL) items[x->prev].next = x->next; else q->head = x->next;
    if (x->next != SIM_NIL) items[x->next].prev = x->prev; else q->tail = x->prev;
    q->bytes -= ifoot[k];
    q->items--;
    x->q = SIM_NONE;
}

static void sim_push(uint32_t k, int qn) {
    struct sim_item *x = &items[k];
    struct sim_queue *q = sim_queue(qn);

    x->q = (uint8_t)qn;
    x->prev = SIM_NIL;
    x->next = q->head;
    if (q->head != SIM_NIL)
        items[q->head].prev = k;
    q->head = k;
    if (q->tail == SIM_NIL)
        q->tail = k;
    q->bytes += ifoot[k];
    q->items++;
}

static void sim_drop(uint32_t k) {
    sim_unlink(k);
    used -= ifoot[k];
    bytes -= isize[k];
    nitems--;
}

static unsigned sim_trips(uint32_t k, int q) {
    uint64_t t;

    if ((q == SIM_MAIN && !opt.size_main) || (q == SIM_SMALL && !opt.size_small) || nitems == 0)
        return 0;
    t = bytes / nitems / isize[k];
    return t > SIM_TRIPS_MAX ? SIM_TRIPS_MAX : (unsigned)t;
}

static uint16_t sim_fp(uint32_t k, uint64_t *slot) {
    uint64_t h = hr_mix(k * 7919ull + 1);
    uint16_t f = (uint16_t)(h >> 48);

    *slot = h & ghost_mask;
    return f != 0 ? f : 1;
}

/* mcds's table: one slot per main item, a power of two, charged. */
static void sim_ghost_fit(void) {
    uint64_t size = ghost_mask + 1, want = 1024, i;

    while (want < main_q.items)
        want *= 2;
    if (want > size) {
        ghost_slots = realloc(ghost_slots, want * sizeof(*ghost_slots));
        for (i = size; i < want; i++)
            ghost_slots[i] = ghost_slots[i & (size - 1)];
    } else if (want * 4 <= size) {
        want = size / 2;
        for (i = 0; i < want; i++)
            if (ghost_slots[i] == 0)
                ghost_slots[i] = ghost_slots[i + want];
    } else {
        return;
    }
    ghost_mask = want - 1;
    limit = base_limit - want * sizeof(*ghost_slots);
}

static void sim_ghost_add(uint32_t k) {
    uint64_t slot;

    if (opt.ghost == SIM_GHOST_EXACT) {
        ghost_stamp[k] = (uint32_t)++ghost_clock;
    } else if (opt.ghost == SIM_GHOST_TABLE) {
        sim_ghost_fit();
        uint16_t f = sim_fp(k, &slot);
        ghost_slots[slot] = f;
    }
}

static int sim_ghost_take(uint32_t k) {
    uint64_t slot;
    uint16_t f;

    if (opt.ghost == SIM_GHOST_EXACT)
        return ghost_stamp[k] != 0 && ghost_clock - ghost_stamp[k] < main_q.items;
    if (opt.ghost != SIM_GHOST_TABLE)
        return 0;
    f = sim_fp(k, &slot);
    if (ghost_slots[slot] != f)
        return 0;
    ghost_slots[slot] = 0;
    return 1;
}

/* Second chance of the item at a queue's tail; 1 if it was kept. */
static int sim_keep(uint32_t k) {
    struct sim_item *x = &items[k];
    int q = x->q;

    if (q == SIM_SMALL && x->reads >= opt.to_main) {
        x->reads = 0;
        x->trips = 0;
        sim_unlink(k);
        sim_push(k, SIM_MAIN);
    } else if (q == SIM_MAIN && x->reads > 0) {
        x->reads = opt.s3fifo ? x->reads - 1 : 0;
        x->trips = 0;
        sim_unlink(k);
        sim_push(k, SIM_MAIN);
    } else if (x->trips < sim_trips(k, q)) {
        x->trips++;
        sim_unlink(k);
        sim_push(k, q);
    } else {
        return 0;
    }
    return 1;
}

static struct sim_queue *sim_giver(void) {
    if (main_q.tail == SIM_NIL)
        return &small_q;
    if (small_q.tail == SIM_NIL)
        return &main_q;
    return small_q.bytes * 100 > (small_q.bytes + main_q.bytes) * (uint64_t)opt.small_pct ? &small_q
                                                                                        : &main_q;
}

/* store_make_room: attempts of SIM_TRIES items from the tail of the
 * queue that gives, second chances until SIM_RESCUES, then the tail goes. */
static void sim_make_room(uint32_t need) {
    int rescues = 0, round;

    for (round = 0; round < SIM_ROUNDS && used + need > limit; round++) {
        uint32_t k = sim_giver()->tail, prev;
        int tries = SIM_TRIES, force = rescues >= SIM_RESCUES;

        for (; k != SIM_NIL && tries-- > 0; k = prev) {
            prev = items[k].prev;
            if (!force && sim_keep(k)) {
                rescues++;
                continue;
            }
            if (items[k].q == SIM_SMALL && opt.s3fifo)
                sim_ghost_add(k);
            sim_drop(k);
            break;
        }
    }
}

/* The expiry index: every expired item goes before anything live. */
static void sim_expire(void) {
    static uint64_t last = UINT64_MAX;
    int q;

    if (last == now)
        return;
    last = now;
    for (q = SIM_SMALL; q <= SIM_MAIN; q++) {
        uint32_t k = sim_queue(q)->tail, prev;
        for (; k != SIM_NIL; k = prev) {
            prev = items[k].prev;
            if (items[k].exp != 0 && items[k].exp <= now)
                sim_drop(k);
        }
    }
}

static void sim_store(uint32_t k, unsigned ttl) {
    if (items[k].q != SIM_NONE)
        sim_drop(k);
    if (used + ifoot[k] > limit)
        sim_expire();
    sim_make_room(ifoot[k]);
    items[k].exp = ttl != 0 ? (uint32_t)(now + ttl) : 0;
    items[k].reads = items[k].trips = 0;
    used += ifoot[k];
    bytes += isize[k];
    nitems++;
    sim_push(k, !opt.s3fifo || sim_ghost_take(k) ? SIM_MAIN : SIM_SMALL);
}

static int sim_get(uint32_t k) {
    struct sim_item *x = &items[k];

    if (x->q == SIM_NONE)
        return 0;
    if (x->exp != 0 && x->exp <= now) {
        sim_drop(k);
        return 0;
    }
    if (x->reads < opt.reads_max)
        x->reads++;
    return 1;
}

static unsigned sim_ttl(uint64_t k) {
    unsigned w = (unsigned)(hr_mix(k ^ 0x9e3779b97f4a7c15ull) % opt.ttl_total), i;

    for (i = 0; i + 1 < opt.nttl && w >= opt.ttl_weight[i]; i++)
        w -= opt.ttl_weight[i];
    return opt.ttl[i];
}

static uint32_t sim_next_key(const double *cdf, uint64_t *scan_next) {
    if (opt.scan_share > 0 && hr_unit() < opt.scan_share)
        return (uint32_t)(opt.keys + (*scan_next)++ % opt.scan_keys);
    return (uint32_t)hr_key(cdf, opt.keys);
}

static void sim_usage(void) {
    fprintf(stderr,
            "usage: hitratio_sim [--policy lru|s3fifo] [--memory MB] [--small PCT] [--to-main N]\n"
            "       [--reads-max N] [--ghost none|exact|table] [--size-trips none|main|both]\n"
            "       [--rate REQ/S] and hitratio's stream options: [--keys N] [--requests N]\n"
            "       [--warmup N] [--zipf S] [--min-size B] [--max-size B] [--ttls T:W,...]\n"
            "       [--scan SHARE:N] [--seed N]\n");
    exit(2);
}

static void sim_ttls(const char *v) {
    char buf[128], *tok;

    snprintf(buf, sizeof(buf), "%s", v);
    opt.nttl = opt.ttl_total = 0;
    for (tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (opt.nttl == 3 || sscanf(tok, "%u:%u", &opt.ttl[opt.nttl], &opt.ttl_weight[opt.nttl]) != 2)
            sim_usage();
        opt.ttl_total += opt.ttl_weight[opt.nttl++];
    }
    if (opt.ttl_total == 0)
        sim_usage();
}

static void sim_size_trips(const char *v) {
    opt.size_main = strcmp(v, "main") == 0 || strcmp(v, "both") == 0;
    opt.size_small = strcmp(v, "both") == 0;
    if (!opt.size_main && strcmp(v, "none") != 0)
        sim_usage();
}

static void sim_args(int argc, char **argv) {
    unsigned long long n;
    int i;

    opt = (__typeof__(opt)){.keys = 2000000, .requests = 5000000, .warmup = 1000000, .seed = 1,
                            .memory = 64, .zipf = 1.0, .rate = 400000, .min_size = 100,
                            .max_size = 100, .ttl_weight = {1}, .nttl = 1, .ttl_total = 1,
                            .s3fifo = 1, .small_pct = 10, .to_main = 1, .reads_max = 3,
                            .size_small = 1, .size_main = 1, .ghost = SIM_GHOST_TABLE};
    for (i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--policy")) opt.s3fifo = strcmp(v, "lru") != 0;
        else if (!strcmp(a, "--memory")) opt.memory = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--small")) opt.small_pct = atoi(v);
        else if (!strcmp(a, "--to-main")) opt.to_main = atoi(v);
        else if (!strcmp(a, "--reads-max")) opt.reads_max = atoi(v);
        else if (!strcmp(a, "--ghost")) opt.ghost = !strcmp(v, "none") ? SIM_GHOST_NONE
                                                  : !strcmp(v, "exact") ? SIM_GHOST_EXACT : SIM_GHOST_TABLE;
        else if (!strcmp(a, "--size-trips")) sim_size_trips(v);
        else if (!strcmp(a, "--rate")) opt.rate = atof(v);
        else if (!strcmp(a, "--keys")) opt.keys = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--requests")) opt.requests = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--warmup")) opt.warmup = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--zipf")) opt.zipf = atof(v);
        else if (!strcmp(a, "--min-size")) opt.min_size = (unsigned)atoi(v);
        else if (!strcmp(a, "--max-size")) opt.max_size = (unsigned)atoi(v);
        else if (!strcmp(a, "--ttls")) sim_ttls(v);
        else if (!strcmp(a, "--seed")) opt.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--scan") && sscanf(v, "%lf:%llu", &opt.scan_share, &n) == 2) opt.scan_keys = n;
        else sim_usage();
    }
    if (i != argc || opt.keys == 0 || opt.min_size == 0 || opt.max_size < opt.min_size ||
        opt.rate <= 0 || (opt.scan_share > 0 && opt.scan_keys == 0) || opt.to_main < 1)
        sim_usage();
    if (!opt.s3fifo)
        opt.size_small = 0, opt.ghost = SIM_GHOST_NONE, opt.reads_max = 1;
}

/* Items, sizes and the ghost for every key (Zipf keys, then scan keys). */
static void sim_setup(uint64_t nall) {
    uint64_t k;

    items = calloc(nall, sizeof(*items));
    isize = malloc(nall * sizeof(*isize));
    ifoot = malloc(nall * sizeof(*ifoot));
    ghost_stamp = calloc(nall, sizeof(*ghost_stamp));
    if (items == NULL || isize == NULL || ifoot == NULL || ghost_stamp == NULL) {
        fprintf(stderr, "hitratio_sim: out of memory\n");
        exit(1);
    }
    for (k = 0; k < nall; k++) {
        char key[32];
        unsigned nkey = (unsigned)snprintf(key, sizeof(key), "k%llu", (unsigned long long)k);
        unsigned size = opt.min_size + (unsigned)(hr_mix(k) % (opt.max_size - opt.min_size + 1));
        isize[k] = 56 + nkey + size + 2;
        ifoot[k] = (isize[k] + 8 + 15) & ~15u;
        items[k].prev = items[k].next = SIM_NIL;
    }
    small_q = main_q = (struct sim_queue){SIM_NIL, SIM_NIL, 0, 0};
    base_limit = limit = opt.memory << 20;
    if (opt.ghost == SIM_GHOST_TABLE) {
        ghost_slots = calloc(1024, sizeof(*ghost_slots));
        ghost_mask = 1023;
        limit -= 1024 * sizeof(*ghost_slots);
    }
}

int main(int argc, char **argv) {
    uint64_t done = 0, gets = 0, hits = 0, scan_next = 0, nall;
    uint32_t keys[SIM_BATCH];
    int hit[SIM_BATCH], j;
    double *cdf;

    sim_args(argc, argv);
    nall = opt.keys + opt.scan_keys;
    sim_setup(nall);
    cdf = hr_zipf_cdf(opt.keys, opt.zipf);
    if (cdf == NULL)
        return 1;
    hr_rng = opt.seed * 0x9e3779b97f4a7c15ull + 1;
    while (done < opt.requests) {
        for (j = 0; j < SIM_BATCH; j++)
            keys[j] = sim_next_key(cdf, &scan_next);
        now = (uint64_t)((double)done / opt.rate);
        for (j = 0; j < SIM_BATCH; j++)
            hit[j] = sim_get(keys[j]);
        for (j = 0; j < SIM_BATCH; j++) {
            if (done + (uint64_t)j >= opt.warmup) {
                gets++;
                hits += (uint64_t)hit[j];
            }
            if (!hit[j])
                sim_store(keys[j], sim_ttl(keys[j]));
        }
        done += SIM_BATCH;
    }
    printf("ratio %.4f items %llu\n", gets ? (double)hits / (double)gets : 0.0,
           (unsigned long long)nitems);
    return 0;
}
