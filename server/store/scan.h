/*
 * scan: resumable scans of the keyspace. A scan is a server-side cursor
 * with an id: any connection may continue it, page by page, until it is
 * over, closed, or left idle for SCAN_IDLE_S seconds. It walks the hash
 * table with hash_scan's cursor, so every key that exists for the whole
 * scan is returned at least once (a key may come twice while the table
 * grows). A page holds at most the keys asked for (and SCAN_PAGE_KEYS),
 * and visits at most SCAN_PAGE_BUCKETS buckets whatever the size of the
 * keyspace, so a sparse table costs a few pages, never thousands. Its filter (a glob on the key,
 * a type, a TTL range) is evaluated on the server, under the bucket's
 * lock, so only matching keys are copied out.
 */
#ifndef MCDS_SCAN_H
#define MCDS_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/item.h"

#define SCAN_IDLE_S 600             /* an idle scan is closed after this */
#define SCAN_MAX 1024               /* open scans at most */
#define SCAN_COUNT_MAX 10000        /* the most keys a page may be asked for */
#define SCAN_PAGE_KEYS 1000         /* ... and the most it holds */
#define SCAN_PAGE_BUCKETS 65536     /* the most buckets one page visits */

struct scan_filter {
    char match[ITEM_KEY_MAX + 1];   /* a glob (fnmatch); "" matches all */
    int type;                       /* an item_type, or -1 for any */
    int64_t min_ttl, max_ttl;       /* seconds left, -1: no bound; a key
                                       without a TTL has an endless one */
};

struct scan_key {
    char key[ITEM_KEY_MAX];
    uint8_t nkey;
    uint8_t type;
    int64_t ttl;                    /* seconds left, -1: none */
};

struct scan_page {
    struct scan_key *keys;
    size_t n, cap;
};

enum scan_result { SCAN_OK, SCAN_NOT_FOUND, SCAN_BUSY, SCAN_TOO_MANY, SCAN_NOMEM };

/* Opens a scan with filter f; *id is its cursor. */
enum scan_result scan_open(const struct scan_filter *f, uint64_t *id);
/* The next page of scan id: the matching keys of the buckets after its
 * cursor, at most count of them (and SCAN_PAGE_KEYS; a bucket is taken
 * whole or left for the next page, but a page's first bucket is taken
 * whole even past count), from at most SCAN_PAGE_BUCKETS buckets (free
 * page->keys after use). *next is the cursor to continue with, 0 when
 * the scan is over (it is then closed). */
enum scan_result scan_step(uint64_t id, uint32_t count, struct scan_page *page, uint64_t *next);
enum scan_result scan_close(uint64_t id);
/* Frees every scan (shutdown). */
void scan_shutdown(void);

#endif
