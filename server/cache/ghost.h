/*
 * ghost: S3-FIFO's ghost set, the keys evicted unread from the small
 * queue not long ago (doc/protocol.md, "Memory and eviction").
 *
 * Only a 2-byte fingerprint of each key's hash value is kept, one per slot
 * of a table of one slot per item of the main queue, rounded up to a power
 * of two (at least GHOST_MIN); a key noted later takes the slot. The
 * table's memory is counted under -m. The caller serializes every call
 * (lru.c holds its lock).
 */
#ifndef MCDS_GHOST_H
#define MCDS_GHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GHOST_MIN 1024

/* Notes hash value hv; the table first follows main_items (the size of the
 * main queue). */
void ghost_add(uint32_t hv, size_t main_items);
/* Whether hv was noted (and is still there); forgets it if so. */
bool ghost_take(uint32_t hv);
/* Whether any key has been noted since the table was last destroyed;
 * may be called without the caller's serialization (a hint). */
bool ghost_active(void);
/* Bytes the table holds (counted under -m). */
size_t ghost_bytes(void);
void ghost_destroy(void);

#endif
