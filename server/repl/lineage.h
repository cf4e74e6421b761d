/*
 * repl/lineage: which history a log position belongs to (doc/replication.md,
 * "Positions and lineage"). DIR/lineage holds the current lineage id and
 * the position it started at, then the lineage before it and the position
 * it ended at.
 */
#ifndef MCDS_REPL_LINEAGE_H
#define MCDS_REPL_LINEAGE_H

#include <stdbool.h>
#include <stdint.h>

#define LINEAGE_ID_LEN 32

struct lineage {
    char id[LINEAGE_ID_LEN + 1];
    uint64_t start;
    char prev[LINEAGE_ID_LEN + 1];      /* "" when none */
    uint64_t prev_end;
};

/* Reads dir/lineage into l: 0, or -1 when it is missing or unreadable
 * (l is then empty). */
int lineage_load(const char *dir, struct lineage *l);
/* Writes l to dir/lineage (a temporary file renamed, synced): 0 or -1. */
int lineage_save(const char *dir, const struct lineage *l);
/* A new lineage starting at pos, the current one becoming the previous. */
void lineage_fork(struct lineage *l, uint64_t pos);
/* Whether position pos of lineage id is history l holds. */
bool lineage_holds(const struct lineage *l, const char *id, uint64_t pos);
/* Whether s is a lineage id (32 hex digits). */
bool lineage_valid_id(const char *s, size_t n);

#endif
