/*
 * persist/replay: applying log records at start-up. A record whose
 * checksum is good but which cannot apply is a writer's bug, not damage:
 * it is logged with its structure, key and position, counted, and its key
 * is quarantined: the key's later records are skipped too, so it stays as
 * it was replayed up to there, and every other key goes on. With
 * --strict-replay such a record stops the start-up instead.
 */
#ifndef MCDS_PERSIST_REPLAY_H
#define MCDS_PERSIST_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "persist/records.h"

struct replay;

struct replay *replay_new(bool strict);
void replay_free(struct replay *r);
/* Applies rec (at log position lsn, offset off of file path): 0 when it
 * was applied or skipped, -1 when the start-up must stop (strict, or no
 * memory). */
int replay_record(struct replay *r, const struct rec *rec, uint64_t lsn, const char *path, uint64_t off);
/* Records not applied, and keys quarantined, so far. */
uint64_t replay_skipped(const struct replay *r);
uint64_t replay_quarantined(const struct replay *r);

#endif
