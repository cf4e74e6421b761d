/*
 * item: one stored value (or, later, one data structure) with its key,
 * client flags, expiry, CAS and a reference count.
 *
 * Layout: the 32-byte header, then the fields an item may leave out (a
 * full 8-byte CAS, then 4 bytes of client flags), then the key bytes,
 * then the value bytes including their trailing "\r\n", so a get reply
 * can send the value straight from the item. An item is built in a block
 * of its own, with every field; a small cache value is copied into a
 * segment as it is linked (seg.h), and the copy leaves out what it can:
 * client flags of 0, and the full CAS when the number is within 2^31 of
 * the segment's base (the header then holds the difference). The hash
 * table holds one reference while the item is linked; every reader holds
 * its own until its reply is written.
 */
#ifndef MCDS_ITEM_H
#define MCDS_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/clock.h"

#define ITEM_KEY_MAX 250

/* iflags */
#define ITEM_LINKED  0x01   /* in the hash table (and LRU if evictable) */
#define ITEM_FETCHED 0x02   /* read at least once since it was stored */
#define ITEM_STALE   0x08   /* invalidated by meta (md I / ms I): serve, but stale */
#define ITEM_TOKEN_SENT 0x10 /* a meta client has been told it won the recache */
#define ITEM_KEY_BINARY 0x20 /* stored by ms with b: mg k echoes the key in base64 */
#define ITEM_ASK_BLOCK 0x40  /* freeing asks malloc its block's size (item.c) */
#define ITEM_NODE    0x04   /* a seg_node precedes it in its block (seg.h) */
#define ITEM_SEG     0x80   /* lives in a segment (seg.h), not a block of its own */

/* What the value is. Only cache strings are ever evicted (doc/design.md).
 * A structure's item holds a pointer to the structure as its value. */
enum item_type { ITEM_STRING = 0, ITEM_QUEUE, ITEM_LIST, ITEM_CTREE, ITEM_NTYPES };

typedef struct item {
    struct item *h_next;    /* hash chain */
    rel_time_t time;        /* last access */
    rel_time_t exptime;     /* 0 = never */
    uint32_t nbytes;        /* value length including "\r\n" */
    int32_t cas_delta;      /* the CAS less its segment's base, unless wide_cas */
    uint8_t nkey;
    uint8_t iflags;
    uint8_t type : 4;       /* enum item_type */
    uint8_t wide_cas : 1;   /* a full 8-byte CAS follows the header */
    uint8_t has_flags : 1;  /* 4 bytes of client flags follow (else 0) */
    uint8_t lru;            /* eviction state: queue, reads, extra trips (lru.c) */
    uint32_t refcount;      /* last: a copy takes everything before it */
    char data[];            /* [CAS] [flags] key value */
} item;

/* cas, exptime, time and iflags change while an item is linked (always
 * under its stripe lock) and replies read them without that lock: every
 * access goes through relaxed atomics, so a reader sees the old or the
 * new value, never a torn one. Writers still hold the stripe lock, so a
 * flag's load-and-store loses no other writer's change. The layout bits
 * (type, wide_cas, has_flags) never change once an item is made. */
uint64_t item_cas(const item *it);
/* False (nothing changed) if it is in a segment and cas is too far from
 * the segment's base for its header: the caller copies it. */
bool item_set_cas(item *it, uint64_t cas);
static inline rel_time_t item_exptime(const item *it) { return __atomic_load_n(&it->exptime, __ATOMIC_RELAXED); }
static inline void item_set_exptime(item *it, rel_time_t v) { __atomic_store_n(&it->exptime, v, __ATOMIC_RELAXED); }
static inline rel_time_t item_time(const item *it) { return __atomic_load_n(&it->time, __ATOMIC_RELAXED); }
static inline void item_set_time(item *it, rel_time_t v) { __atomic_store_n(&it->time, v, __ATOMIC_RELAXED); }

static inline bool item_has_flag(const item *it, uint8_t f) {
    return (__atomic_load_n(&it->iflags, __ATOMIC_RELAXED) & f) != 0;
}

static inline void item_set_flag(item *it, uint8_t f) {
    __atomic_store_n(&it->iflags, (uint8_t)(__atomic_load_n(&it->iflags, __ATOMIC_RELAXED) | f), __ATOMIC_RELAXED);
}

static inline void item_clear_flag(item *it, uint8_t f) {
    __atomic_store_n(&it->iflags, (uint8_t)(__atomic_load_n(&it->iflags, __ATOMIC_RELAXED) & ~f), __ATOMIC_RELAXED);
}

static inline uint32_t item_refs(const item *it) { return __atomic_load_n(&it->refcount, __ATOMIC_ACQUIRE); }

/* The optional fields an item holds, in bytes. */
static inline size_t item_extra(const item *it) {
    return (it->wide_cas ? sizeof(uint64_t) : 0) + (it->has_flags ? sizeof(uint32_t) : 0);
}
static inline char *item_key(const item *it) { return (char *)it->data + item_extra(it); }
static inline char *item_value(const item *it) { return item_key(it) + it->nkey; }
/* The structure a structure's item holds (its value is the pointer). */
static inline void *item_struct(const item *it) {
    void *p;

    memcpy(&p, item_value(it), sizeof(p));
    return p;
}
static inline uint32_t item_flags(const item *it) {
    uint32_t f = 0;

    if (it->has_flags)
        memcpy(&f, it->data + (it->wide_cas ? sizeof(uint64_t) : 0), sizeof(f));
    return f;
}

/* What malloc adds to a block's usable size (its chunk header). */
#define ITEM_MALLOC_OVERHEAD 8

void item_init(size_t limit_bytes);
/* An item's nominal size: header, CAS, key and value, as memcached counts
 * it (the -I check; the queues' byte counts of large items). */
size_t item_size(size_t nkey, size_t nbytes);
/* Bytes an item of this key and value length takes in a block of its own,
 * with every field. */
size_t item_block_size(size_t nkey, size_t nbytes);
/* Bytes an item takes where it is, without the fields it leaves out (the
 * bytes stat). */
static inline size_t item_bytes(const item *it) {
    return offsetof(item, data) + item_extra(it) + it->nkey + it->nbytes;
}
/* Allocates an unlinked item with refcount 1; NULL if malloc fails.
 * Does not check the memory limit: that is store's job. */
item *item_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, size_t nbytes);
void item_incref(item *it);
/* Takes a reference only if the item is still referenced (not being
 * freed); returns whether it did. */
bool item_tryref(item *it);
/* Drops a reference; the last one frees the item (or keeps its block
 * for the next large item: item_cache.h). */
void item_release(item *it);
/* lru.c hears of a segment whose every item is released (seg.h). */
struct seg;
void item_on_seg_empty(void (*fn)(struct seg *s));
/* Frees an item's memory block and takes it out of the account. */
void item_free_block(void *blk);
/* Runs before an item of that type is freed (frees its structure). */
void item_set_free_hook(enum item_type type, void (*fn)(item *it));
uint64_t item_next_cas(void);
uint64_t item_peek_cas(void);
/* CAS numbers are handed out in blocks of ITEM_CAS_BLOCK: fn hears of each
 * new block before a number in it is used (persistence records the high
 * water mark, so a restart never hands a CAS out twice). */
#define ITEM_CAS_BLOCK (1ULL << 20)
void item_on_cas_block(void (*fn)(uint64_t upto));
/* The next CAS numbers are above v. */
void item_cas_floor(uint64_t v);

/* Memory accounting under -m. */
/* Called once by each worker thread, with its index, before it stores. */
void item_thread_init(int index);
size_t item_mem_used(void);
size_t item_mem_limit(void);
void item_set_mem_limit(size_t bytes);
size_t item_footprint(size_t nkey, size_t nbytes);
/* What malloc makes of a request of size bytes (its usable size and chunk
 * header, rounded), nearly always. */
size_t item_block_footprint(size_t size);
/* Counts memory a structure holds outside items (negative to give back). */
void item_mem_charge(long bytes);

#endif
