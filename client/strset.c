/*
 * strset.c - a set of byte strings (open addressing, FNV-1a hash).
 *
 * Used to replay operation logs in linear time. The set stores pointers:
 * the bytes belong to the caller and must outlive the set. The table is
 * sized once from the expected count (at most half full) and never grows.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

struct mcds__strset {
    mcds_item_t *slot; /* data == NULL marks an empty slot */
    size_t mask;
    size_t used;
};

uint64_t mcds__hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

mcds__strset_t *mcds__strset_new(size_t expected)
{
    mcds__strset_t *s = malloc(sizeof *s);
    size_t size = 16;

    if (s == NULL)
        return NULL;
    while (size < expected * 2 + 2)
        size *= 2;
    s->slot = calloc(size, sizeof *s->slot);
    if (s->slot == NULL) {
        free(s);
        return NULL;
    }
    s->mask = size - 1;
    s->used = 0;
    return s;
}

void mcds__strset_free(mcds__strset_t *s)
{
    if (s == NULL)
        return;
    free(s->slot);
    free(s);
}

/* The slot holding (data, len), or the empty slot where it would go. */
static mcds_item_t *find_slot(const mcds__strset_t *s, const char *data,
                              size_t len)
{
    size_t i = (size_t)mcds__hash(data, len) & s->mask;

    for (;;) {
        mcds_item_t *e = &s->slot[i];
        if (e->data == NULL)
            return e;
        if (e->len == len && memcmp(e->data, data, len) == 0)
            return e;
        i = (i + 1) & s->mask;
    }
}

int mcds__strset_add(mcds__strset_t *s, const char *data, size_t len)
{
    static const char empty[1] = "";
    mcds_item_t *e;

    if (data == NULL)
        data = empty;
    e = find_slot(s, data, len);
    if (e->data != NULL)
        return 0;
    if ((s->used + 1) * 2 > s->mask + 1)
        return -1;
    e->data = data;
    e->len = len;
    s->used++;
    return 0;
}

int mcds__strset_has(const mcds__strset_t *s, const char *data, size_t len)
{
    static const char empty[1] = "";

    if (data == NULL)
        data = empty;
    return find_slot(s, data, len)->data != NULL;
}
