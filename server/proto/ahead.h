/*
 * ahead: while a pipelined request runs, the keys of the get, mg, set
 * and ms lines after it are hashed, and their hash buckets, lock stripes and
 * items fetched into the CPU's cache, so that their lookups do not wait
 * for memory (doc/performance.md, "Pipelined headroom").
 */
#ifndef MCDS_AHEAD_H
#define MCDS_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/conn.h"

/* Called as the text line at line[0..n) (n: every byte the buffer holds
 * from there) is dispatched: notes it and the two lines after it. */
void ahead_lines(conn *c, const char *line, size_t n);
/* A multi-get is about to look up a key, and next and after (nnext and
 * nafter bytes; 0: none) are the two keys that follow it in the line:
 * after is hashed and its bucket prefetched, next's first item too. */
void ahead_keys(conn *c, const char *next, size_t nnext, const char *after, size_t nafter);
/* The hash of key, from a note when one was made, or computed now. */
uint32_t ahead_hash(conn *c, const char *key, size_t nkey);
/* Whether the line at line[0..len) (being dispatched, its verb first) is
 * "get <key>" or "gets <key>" as noted: sets *key, *nkey, its hash *hv and
 * *with_cas (gets). */
bool ahead_get_line(conn *c, const char *line, size_t len, const char **key, size_t *nkey,
                    uint32_t *hv, bool *with_cas);
/* A noted "set <key> <flags> <exptime> <bytes>" line, its numbers plain
 * digits (at most 9 each) and nothing after them. */
struct ahead_set {
    const char *key;
    size_t nkey;
    uint32_t hv, flags;
    int32_t exptime, vlen;
};
/* Whether the line at line[0..len) (being dispatched) is such a set. */
bool ahead_set_line(conn *c, const char *line, size_t len, struct ahead_set *set);
/* The read buffer's bytes moved or went: no note may point at them. */
static inline void ahead_forget(conn *c) {
    int i;

    for (i = 0; i < CONN_AHEAD_SLOTS; i++)
        c->ahead[i].line = c->ahead[i].key = NULL;
}

/* Forgets its notes when the connection's input moves (net/conn.h). */
extern const struct conn_hooks ahead_conn_hooks;

#endif
