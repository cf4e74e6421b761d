/*
 * hash: chained hash table with striped locks that grows online.
 *
 * Invariants:
 *  - the lock stripe of a key is hv & hash_lockmask, and there are never
 *    more stripes than buckets in the old table, so every item of old
 *    bucket b, and every item of the two new buckets it splits into, share
 *    one stripe; holding it is enough to move bucket b;
 *  - while expanding, a key whose old bucket is >= hash_expand_bucket is
 *    still in the old table, otherwise in the new one;
 *  - starting and finishing a growth swaps table pointers with every
 *    stripe held (a few thousand uncontended locks: microseconds);
 *  - a table's memory stays mapped until hash_destroy: a table a growth
 *    retires gives its pages back (reads of it then see zeros), so
 *    hash_prefetch_item may read a bucket with no stripe held. Every
 *    store to a bucket is atomic for the same reason.
 */
#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cache/hash.h"

#define HASH_LOCK_POWER 12
#define HASH_GROW_NUM 3   /* grow when items > 1.5 x buckets */
#define HASH_GROW_DEN 2

static item **hash_primary;
static item **hash_old;
static unsigned hash_pow;
static uint32_t hash_lockmask;
static pthread_mutex_t *hash_locks;
static int hash_expanding;
static uint32_t hash_expand_bucket;
static uint64_t hash_items;

static pthread_t hash_thread;
static int hash_thread_running;
static int hash_stop;
static pthread_mutex_t hash_cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hash_cond = PTHREAD_COND_INITIALIZER;
static int hash_paused;             /* growth held off (a snapshot walks the table) */
static int hash_growing;            /* the maintainer is in hash_expand */

static inline uint32_t hash_size(unsigned power) { return (uint32_t)1 << power; }
static inline uint32_t hash_mask(unsigned power) { return hash_size(power) - 1; }

/* Tables retired by growth: mapped until hash_destroy (one per power). */
static struct {
    item **t;
    size_t bytes;
} hash_retired[33];
static int hash_nretired;

static size_t hash_table_bytes(unsigned power) { return (size_t)hash_size(power) * sizeof(item *); }

/* A zeroed table of 2^power buckets, or NULL. */
static item **hash_table_new(unsigned power) {
    void *t = mmap(NULL, hash_table_bytes(power), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return t == MAP_FAILED ? NULL : t;
}

/* A table no bucket is looked up in any more: its pages go back to the
 * system, its addresses stay readable (as zeros) for hash_prefetch_item. */
static void hash_table_retire(item **t, unsigned power) {
    madvise(t, hash_table_bytes(power), MADV_DONTNEED);
    hash_retired[hash_nretired].t = t;
    hash_retired[hash_nretired].bytes = hash_table_bytes(power);
    hash_nretired++;
}

/* A store to a bucket, or to a chain link a bucket may be. */
static inline void hash_slot_set(item **slot, item *it) {
    __atomic_store_n(slot, it, __ATOMIC_RELAXED);
}

/* SipHash-1-3 (Aumasson and Bernstein's keyed hash, one compression
 * round, three finalization rounds) under a key drawn at start-up: a client
 * cannot choose keys that collide, so a chain stays short whatever keys it
 * sends (hash flooding). */
struct hash_sip {
    uint64_t v0, v1, v2, v3;
};

static uint64_t hash_seed[2];

static inline uint64_t hash_rotl64(uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

static inline void hash_sip_round(struct hash_sip *s) {
    s->v0 += s->v1; s->v1 = hash_rotl64(s->v1, 13); s->v1 ^= s->v0; s->v0 = hash_rotl64(s->v0, 32);
    s->v2 += s->v3; s->v3 = hash_rotl64(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = hash_rotl64(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = hash_rotl64(s->v1, 17); s->v1 ^= s->v2; s->v2 = hash_rotl64(s->v2, 32);
}

static inline void hash_sip_block(struct hash_sip *s, uint64_t m) {
    s->v3 ^= m;
    hash_sip_round(s);
    s->v0 ^= m;
}

uint32_t hash_key(const char *key, size_t nkey) {
    const uint8_t *p = (const uint8_t *)key;
    struct hash_sip s;
    uint64_t last = (uint64_t)nkey << 56, m;
    size_t i, j;

    s.v0 = hash_seed[0] ^ 0x736f6d6570736575ULL;
    s.v1 = hash_seed[1] ^ 0x646f72616e646f6dULL;
    s.v2 = hash_seed[0] ^ 0x6c7967656e657261ULL;
    s.v3 = hash_seed[1] ^ 0x7465646279746573ULL;
    for (i = 0; i + 8 <= nkey; i += 8) {
        memcpy(&m, p + i, 8);
        hash_sip_block(&s, le64toh(m));
    }
    for (j = 0; i + j < nkey; j++)
        last |= (uint64_t)p[i + j] << (8 * j);
    hash_sip_block(&s, last);
    s.v2 ^= 0xff;
    hash_sip_round(&s);
    hash_sip_round(&s);
    hash_sip_round(&s);
    return (uint32_t)(s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
}

/* A fresh random key; the clock and pid only if the kernel has no
 * randomness to give (never on Linux since 3.17). */
static void hash_seed_init(void) {
    if (getrandom(hash_seed, sizeof(hash_seed), 0) == (ssize_t)sizeof(hash_seed))
        return;
    hash_seed[0] = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ULL;
    hash_seed[1] = (uint64_t)getpid() * 0xC2B2AE3D27D4EB4FULL ^ (uint64_t)clock();
}

void hash_init(int power) {
    uint32_t i, nlocks = hash_size(HASH_LOCK_POWER);

    hash_seed_init();
    hash_pow = (unsigned)power;
    hash_primary = hash_table_new(hash_pow);
    hash_locks = calloc(nlocks, sizeof(pthread_mutex_t));
    if (hash_primary == NULL || hash_locks == NULL) {
        fprintf(stderr, "mcds-server: out of memory for the hash table\n");
        exit(1);
    }
    for (i = 0; i < nlocks; i++)
        pthread_mutex_init(&hash_locks[i], NULL);
    hash_lockmask = nlocks - 1;
    hash_old = NULL;
    hash_expanding = 0;
    hash_items = 0;
}

void hash_lock(uint32_t hv) {
    pthread_mutex_lock(&hash_locks[hv & hash_lockmask]);
}

int hash_trylock(uint32_t hv) {
    return pthread_mutex_trylock(&hash_locks[hv & hash_lockmask]) == 0;
}

void hash_unlock(uint32_t hv) {
    pthread_mutex_unlock(&hash_locks[hv & hash_lockmask]);
}

static void hash_lock_all(void) {
    uint32_t i;
    for (i = 0; i <= hash_lockmask; i++)
        pthread_mutex_lock(&hash_locks[i]);
}

static void hash_unlock_all(void) {
    uint32_t i;
    for (i = 0; i <= hash_lockmask; i++)
        pthread_mutex_unlock(&hash_locks[i]);
}

/* The bucket that holds hv now; the caller holds hv's stripe. */
static item **hash_bucket(uint32_t hv) {
    if (hash_expanding) {
        uint32_t oldb = hv & hash_mask(hash_pow - 1);
        if (oldb >= __atomic_load_n(&hash_expand_bucket, __ATOMIC_RELAXED))
            return &hash_old[oldb];
    }
    return &hash_primary[hv & hash_mask(hash_pow)];
}

/* The bucket hv would be in, read with no stripe held (see the top):
 * a table that grows meanwhile can only make it a useless one. */
static item **hash_bucket_unlocked(uint32_t hv) {
    unsigned pow = hash_power();
    item **t = __atomic_load_n(&hash_primary, __ATOMIC_RELAXED);

    return &t[hv & hash_mask(pow)];
}

void hash_prefetch(uint32_t hv) {
    __builtin_prefetch(hash_bucket_unlocked(hv));
    __builtin_prefetch(&hash_locks[hv & hash_lockmask], 1);
}

void hash_prefetch_item(uint32_t hv) {
    item *it = __atomic_load_n(hash_bucket_unlocked(hv), __ATOMIC_RELAXED);

    if (it != NULL) {
        __builtin_prefetch(it, 1);
        __builtin_prefetch((char *)it + 64);
        __builtin_prefetch((char *)it + 128);
    }
}

item *hash_find(const char *key, size_t nkey, uint32_t hv) {
    item *it = *hash_bucket(hv);

    while (it != NULL) {
        if (it->nkey == nkey && memcmp(item_key(it), key, nkey) == 0)
            return it;
        it = it->h_next;
    }
    return NULL;
}

static void hash_wake_maintainer(void) {
    pthread_mutex_lock(&hash_cond_lock);
    pthread_cond_broadcast(&hash_cond);
    pthread_mutex_unlock(&hash_cond_lock);
}

void hash_insert(item *it, uint32_t hv) {
    item **b = hash_bucket(hv);
    uint64_t n;

    it->h_next = *b;
    hash_slot_set(b, it);
    n = __atomic_add_fetch(&hash_items, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&hash_expanding, __ATOMIC_RELAXED) && hash_thread_running &&
        n * HASH_GROW_DEN > (uint64_t)hash_size(hash_pow) * HASH_GROW_NUM && hash_pow < 32)
        hash_wake_maintainer();
}

/* The slot that points to it in hv's chain, or the chain's NULL end. */
static item **hash_slot_of(const item *it, uint32_t hv) {
    item **pos = hash_bucket(hv);

    while (*pos != NULL && *pos != it)
        pos = &(*pos)->h_next;
    return pos;
}

void hash_remove(item *it, uint32_t hv) {
    item **pos = hash_slot_of(it, hv);

    if (*pos == it) {
        hash_slot_set(pos, it->h_next);
        it->h_next = NULL;
        __atomic_sub_fetch(&hash_items, 1, __ATOMIC_RELAXED);
    }
}

void hash_replace(item *old, item *it, uint32_t hv) {
    item **pos = hash_slot_of(old, hv);

    if (*pos != old) {
        hash_insert(it, hv);
        return;
    }
    it->h_next = old->h_next;
    hash_slot_set(pos, it);
    old->h_next = NULL;
}

static int hash_start_expand(void) {
    item **bigger = hash_table_new(hash_pow + 1);

    if (bigger == NULL)
        return -1;
    hash_lock_all();
    hash_old = hash_primary;
    /* For the prefetches, which read them without a stripe: a reader that
     * sees the new power sees the new table. */
    __atomic_store_n(&hash_primary, bigger, __ATOMIC_RELAXED);
    __atomic_store_n(&hash_pow, hash_pow + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&hash_expand_bucket, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&hash_expanding, 1, __ATOMIC_RELAXED);
    hash_unlock_all();
    return 0;
}

/* Moves old bucket b into the new table; the caller holds b's stripe. */
static void hash_move_bucket(uint32_t b) {
    item *it = hash_old[b], *next;

    while (it != NULL) {
        uint32_t nb = hash_key(item_key(it), it->nkey) & hash_mask(hash_pow);
        next = it->h_next;
        it->h_next = hash_primary[nb];
        hash_slot_set(&hash_primary[nb], it);
        it = next;
    }
    hash_slot_set(&hash_old[b], NULL);
    __atomic_store_n(&hash_expand_bucket, b + 1, __ATOMIC_RELAXED);
}

static void hash_finish_expand(void) {
    item **old;

    hash_lock_all();
    old = hash_old;
    hash_old = NULL;
    __atomic_store_n(&hash_expanding, 0, __ATOMIC_RELAXED);
    hash_unlock_all();
    hash_table_retire(old, hash_pow - 1);
}

/* debughashpause (tests, --debug): the next growth waits this long once
 * it has begun, before it moves any bucket. */
static unsigned hash_debug_pause_ms;

void hash_debug_pause(unsigned ms) {
    __atomic_store_n(&hash_debug_pause_ms, ms, __ATOMIC_RELAXED);
}

static void hash_expand(void) {
    uint32_t b, oldsize;
    unsigned pause;

    if (hash_start_expand() < 0)
        return;
    pause = __atomic_exchange_n(&hash_debug_pause_ms, 0, __ATOMIC_RELAXED);
    if (pause > 0)
        usleep(pause * 1000u);
    oldsize = hash_size(hash_pow - 1);
    for (b = 0; b < oldsize && !__atomic_load_n(&hash_stop, __ATOMIC_ACQUIRE); b++) {
        pthread_mutex_lock(&hash_locks[b & hash_lockmask]);
        hash_move_bucket(b);
        pthread_mutex_unlock(&hash_locks[b & hash_lockmask]);
    }
    /* If stopped half way, the remaining buckets are moved at once: the
     * workers are gone (hash_destroy runs after they were joined, and its
     * release store of hash_stop orders their last lookups before this). */
    for (; b < oldsize; b++)
        hash_move_bucket(b);
    hash_finish_expand();
}

static int hash_needs_growth(void) {
    uint64_t n = __atomic_load_n(&hash_items, __ATOMIC_RELAXED);
    return hash_pow < 32 && n * HASH_GROW_DEN > (uint64_t)hash_size(hash_pow) * HASH_GROW_NUM;
}

static void *hash_maintainer(void *arg) {
    pthread_mutex_lock(&hash_cond_lock);
    while (!hash_stop) {
        if (!hash_needs_growth() || hash_paused) {
            pthread_cond_wait(&hash_cond, &hash_cond_lock);
            continue;
        }
        hash_growing = 1;
        pthread_mutex_unlock(&hash_cond_lock);
        hash_expand();
        pthread_mutex_lock(&hash_cond_lock);
        hash_growing = 0;
        pthread_cond_broadcast(&hash_cond);
    }
    pthread_mutex_unlock(&hash_cond_lock);
    return NULL;
}

void hash_pause_growth(void) {
    pthread_mutex_lock(&hash_cond_lock);
    hash_paused++;
    while (hash_growing)
        pthread_cond_wait(&hash_cond, &hash_cond_lock);
    pthread_mutex_unlock(&hash_cond_lock);
}

void hash_resume_growth(void) {
    pthread_mutex_lock(&hash_cond_lock);
    hash_paused--;
    pthread_cond_broadcast(&hash_cond);
    pthread_mutex_unlock(&hash_cond_lock);
}

uint32_t hash_buckets(void) {
    return hash_size(hash_pow);
}

void hash_visit_bucket(uint32_t b, void (*fn)(item *it, void *arg), void *arg) {
    item *it;

    pthread_mutex_lock(&hash_locks[b & hash_lockmask]);
    for (it = hash_primary[b]; it != NULL; it = it->h_next)
        fn(it, arg);
    pthread_mutex_unlock(&hash_locks[b & hash_lockmask]);
}

void hash_start_maintainer(void) {
    if (pthread_create(&hash_thread, NULL, hash_maintainer, NULL) != 0) {
        fprintf(stderr, "mcds-server: cannot start the hash maintainer thread\n");
        exit(1);
    }
    hash_thread_running = 1;
}

void hash_destroy(void (*fn)(item *it)) {
    uint32_t b;

    if (hash_thread_running) {
        pthread_mutex_lock(&hash_cond_lock);
        /* Atomic: a growth in progress reads it without the lock; release:
         * what the joined workers did happens before its unlocked moves. */
        __atomic_store_n(&hash_stop, 1, __ATOMIC_RELEASE);
        pthread_cond_signal(&hash_cond);
        pthread_mutex_unlock(&hash_cond_lock);
        pthread_join(hash_thread, NULL);
        hash_thread_running = 0;
    }
    for (b = 0; b < hash_size(hash_pow); b++) {
        item *it = hash_primary[b], *next;
        for (; it != NULL; it = next) {
            next = it->h_next;
            fn(it);
        }
    }
    if (hash_old != NULL)
        hash_table_retire(hash_old, hash_pow - 1);
    munmap(hash_primary, hash_table_bytes(hash_pow));
    hash_primary = hash_old = NULL;
    while (hash_nretired > 0) {
        hash_nretired--;
        munmap(hash_retired[hash_nretired].t, hash_retired[hash_nretired].bytes);
    }
    for (b = 0; b <= hash_lockmask; b++)
        pthread_mutex_destroy(&hash_locks[b]);
    free(hash_locks);
    hash_locks = NULL;
}

/* With no stripe held: the growth thread changes it under every stripe. */
unsigned hash_power(void) { return __atomic_load_n(&hash_pow, __ATOMIC_ACQUIRE); }

uint64_t hash_bytes(void) {
    unsigned pow = hash_power();
    uint64_t n = (uint64_t)hash_size(pow) * sizeof(item *);
    if (hash_is_expanding())
        n += (uint64_t)hash_size(pow - 1) * sizeof(item *);
    return n;
}

int hash_is_expanding(void) {
    return __atomic_load_n(&hash_expanding, __ATOMIC_RELAXED);
}

uint64_t hash_count(void) {
    return __atomic_load_n(&hash_items, __ATOMIC_RELAXED);
}

uint64_t hash_longest_chain(void) {
    uint64_t longest = 0;
    uint32_t b, size;

    size = hash_size(hash_power());
    for (b = 0; b < size; b++) {
        uint64_t n = 0;
        item *it;
        pthread_mutex_lock(&hash_locks[b & hash_lockmask]);
        if (!hash_is_expanding() && b < hash_size(hash_pow)) {
            for (it = hash_primary[b]; it != NULL; it = it->h_next)
                n++;
        }
        pthread_mutex_unlock(&hash_locks[b & hash_lockmask]);
        if (n > longest)
            longest = n;
    }
    return longest;
}

/* Takes off bucket b's chain (stripe lock held) every item fn accepts,
 * chained on h_next; the caller hands them to done without the lock. */
static item *hash_take_from(uint32_t b, int (*fn)(item *it)) {
    item **pos = &hash_primary[b], *removed = NULL;

    while (*pos != NULL) {
        item *it = *pos;
        if (fn(it)) {
            hash_slot_set(pos, it->h_next);     /* prefetches read slots unlocked */
            __atomic_sub_fetch(&hash_items, 1, __ATOMIC_RELAXED);
            it->h_next = removed;
            removed = it;
        } else {
            pos = &it->h_next;
        }
    }
    return removed;
}

/* Hands the items hash_take_from took to done, without any lock. */
static void hash_hand_over(item *removed, void (*done)(item *it)) {
    while (removed != NULL) {
        item *next = removed->h_next;
        removed->h_next = NULL;
        done(removed);
        removed = next;
    }
}

bool hash_crawl_try(uint32_t hv, int (*fn)(item *it), void (*done)(item *it)) {
    uint32_t b;
    item *removed;

    if (hash_is_expanding() || !hash_trylock(hv))
        return false;
    if (hash_is_expanding()) {
        hash_unlock(hv);
        return false;
    }
    b = hv & hash_mask(hash_pow);
    removed = hash_take_from(b, fn);
    hash_unlock(hv);
    hash_hand_over(removed, done);
    return true;
}

size_t hash_crawl(size_t *cursor, size_t n, int (*fn)(item *it), void (*done)(item *it)) {
    size_t i;
    uint32_t size;

    if (hash_is_expanding())
        return 0;
    size = hash_size(hash_power());
    for (i = 0; i < n; i++) {
        uint32_t b = (uint32_t)(*cursor % size);
        item *removed = NULL;
        bool growing;

        pthread_mutex_lock(&hash_locks[b & hash_lockmask]);
        growing = hash_is_expanding();
        if (!growing)
            removed = hash_take_from(b, fn);
        pthread_mutex_unlock(&hash_locks[b & hash_lockmask]);
        if (growing)
            break;      /* b is visited once the table has grown */
        hash_hand_over(removed, done);
        *cursor = (*cursor + 1) % size;
    }
    return i;
}

/* ---- scans: a cursor over the buckets (as Redis's SCAN) ---- */

static uint64_t hash_rev64(uint64_t v) {
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    v = ((v >> 8) & 0x00FF00FF00FF00FFULL) | ((v & 0x00FF00FF00FF00FFULL) << 8);
    v = ((v >> 16) & 0x0000FFFF0000FFFFULL) | ((v & 0x0000FFFF0000FFFFULL) << 16);
    return (v >> 32) | (v << 32);
}

static void hash_scan_chain(item *it, void (*fn)(item *it, void *arg), void *arg) {
    for (; it != NULL; it = it->h_next)
        fn(it, arg);
}

/* The stripe of bucket v is v's low bits whatever the table's size (a
 * table has at least as many buckets as there are stripes), so the table
 * is read under that one lock. While the table grows, v names a bucket of
 * the old size: its old chain if not moved yet, and the two new buckets it
 * moves to. */
uint64_t hash_scan(uint64_t v, void (*fn)(item *it, void *arg), void *arg) {
    uint32_t stripe = (uint32_t)(v & hash_lockmask), b;
    uint64_t m;

    pthread_mutex_lock(&hash_locks[stripe]);
    if (hash_expanding) {
        uint32_t oldsize = hash_size(hash_pow - 1);
        m = oldsize - 1;
        b = (uint32_t)(v & m);
        if (b >= __atomic_load_n(&hash_expand_bucket, __ATOMIC_RELAXED))
            hash_scan_chain(hash_old[b], fn, arg);
        hash_scan_chain(hash_primary[b], fn, arg);
        hash_scan_chain(hash_primary[b + oldsize], fn, arg);
    } else {
        m = hash_mask(hash_pow);
        hash_scan_chain(hash_primary[v & m], fn, arg);
    }
    pthread_mutex_unlock(&hash_locks[stripe]);
    /* Increment the reversed cursor: the buckets a grown table splits a
     * visited bucket into are all behind the cursor. */
    v |= ~m;
    return hash_rev64(hash_rev64(v) + 1);
}
