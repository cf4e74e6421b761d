/*
 * table_skip: the ordered index of a table: a skiplist of byte strings
 * compared with memcmp (a shorter string that is a prefix of a longer one
 * first), each with a value pointer. Level-0 links go both ways, so a
 * selection walks either direction; each node also knows the node two
 * after it, so that a walk forward asks for a node from memory a step
 * before it needs it (two nodes on their way at once, not one). Not
 * thread-safe: the table's lock guards it.
 */
#ifndef MCDS_TABLE_SKIP_H
#define MCDS_TABLE_SKIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TSKIP_LEVELS 24

struct tskip_node {
    void *val;
    struct tskip_node *prev;        /* level 0; NULL for the first node */
    struct tskip_node *ahead;       /* level 0, two after (NULL past the end) */
    uint32_t klen;
    uint8_t lvl;
    struct tskip_node *next[];      /* lvl links, then the key's bytes */
};

struct tskip {
    struct tskip_node *head;        /* TSKIP_LEVELS links, no key */
    int level;
    uint64_t n;
    uint32_t rng;
};

/* false when the head cannot be allocated. */
bool tskip_init(struct tskip *s, uint32_t seed);
/* Frees every node (fn on each value first when not NULL), and the head. */
void tskip_destroy(struct tskip *s, void (*fn)(void *val));

/* A node of a random level for a key of klen bytes (to fill through
 * tskip_key), not linked; NULL when there is no memory. */
struct tskip_node *tskip_node_new(struct tskip *s, size_t klen, void *val);
size_t tskip_node_size(const struct tskip_node *n);
uint8_t *tskip_key(const struct tskip_node *n);

int tskip_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* Links n; false (nothing linked) when a node has the same key. */
bool tskip_insert(struct tskip *s, struct tskip_node *n);
/* Unlinks and returns the node with that key, or NULL. */
struct tskip_node *tskip_remove(struct tskip *s, const uint8_t *k, size_t nk);
struct tskip_node *tskip_find(const struct tskip *s, const uint8_t *k, size_t nk);
/* The first node >= k (> k when strict); NULL past the end. k NULL: the first. */
struct tskip_node *tskip_seek(const struct tskip *s, const uint8_t *k, size_t nk, bool strict);
/* The last node < k (<= k when !strict); k NULL: the last. */
struct tskip_node *tskip_seek_back(const struct tskip *s, const uint8_t *k, size_t nk, bool strict);
static inline struct tskip_node *tskip_next(const struct tskip_node *n) { return n->next[0]; }
/* The node two after n (NULL: none), to ask for from memory early. */
static inline struct tskip_node *tskip_ahead(const struct tskip_node *n) { return n->ahead; }

#endif
