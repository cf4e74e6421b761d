/*
 * ahead: while a pipelined get runs, the keys of the get lines after it
 * are hashed, and their hash buckets, lock stripes and items fetched into
 * the CPU's cache, so that their lookups do not wait for memory
 * (doc/performance.md, "Pipelined headroom").
 */
#ifndef MCDS_AHEAD_H
#define MCDS_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"

/* Called as a text line is dispatched, with the bytes after it,
 * next[0..n): notes the get lines that follow. */
void ahead_lines(conn *c, const char *next, size_t n);
/* A multi-get is about to look up a key and key (nkey bytes) comes after
 * it in the line: it is hashed and its bucket prefetched. */
void ahead_key(conn *c, const char *key, size_t nkey);
/* The hash of key, from a note when one was made, or computed now. */
uint32_t ahead_hash(conn *c, const char *key, size_t nkey);
/* The read buffer's bytes moved or went: no note may point at them. */
static inline void ahead_forget(conn *c) {
    c->ahead[0].key = c->ahead[1].key = c->ahead[2].key = c->ahead[3].key = NULL;
}

#endif
