/*
 * codec.c - the compact binary framing libmcds stores in values.
 *
 * Integers are LEB128 varints (7 bits a byte, low bits first). A "blob" is
 * varint(length) followed by the bytes; arrays and member lists are blobs
 * back to back. Also here: a growable byte buffer, a growable list of items
 * pointing into a value, and packing items into one allocation for callers.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

void mcds__buf_init(mcds__buf_t *b)
{
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
}

void mcds__buf_free(mcds__buf_t *b)
{
    free(b->p);
    mcds__buf_init(b);
}

mcds_status_t mcds__buf_put(mcds__buf_t *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *p;
        while (cap < b->len + len)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL)
            return MCDS_NO_MEMORY;
        b->p = p;
        b->cap = cap;
    }
    if (len > 0)
        memcpy(b->p + b->len, data, len);
    b->len += len;
    return MCDS_OK;
}

mcds_status_t mcds__buf_put_varint(mcds__buf_t *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;

    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    return mcds__buf_put(b, tmp, n);
}

mcds_status_t mcds__buf_put_blob(mcds__buf_t *b, const void *data, size_t len)
{
    mcds_status_t st = mcds__buf_put_varint(b, len);
    if (st == MCDS_OK)
        st = mcds__buf_put(b, data, len);
    return st;
}

int mcds__get_varint(const char *p, size_t len, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    unsigned shift = 0;

    while (*pos < len && shift < 64) {
        unsigned char c = (unsigned char)p[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << shift;
        if ((c & 0x80) == 0) {
            *v = r;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

int mcds__get_blob(const char *p, size_t len, size_t *pos, const char **data,
                   size_t *dlen)
{
    uint64_t n;

    if (mcds__get_varint(p, len, pos, &n) != 0 || n > len - *pos)
        return -1;
    *data = p + *pos;
    *dlen = (size_t)n;
    *pos += (size_t)n;
    return 0;
}

uint64_t mcds__zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? ~(uint64_t)0 : 0);
}

int64_t mcds__unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void mcds__list_init(mcds__list_t *l)
{
    l->v = NULL;
    l->n = 0;
    l->cap = 0;
}

void mcds__list_free(mcds__list_t *l)
{
    free(l->v);
    mcds__list_init(l);
}

mcds_status_t mcds__list_push(mcds__list_t *l, const char *data, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        mcds_item_t *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return MCDS_NO_MEMORY;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].data = data;
    l->v[l->n].len = len;
    l->n++;
    return MCDS_OK;
}

mcds_status_t mcds__list_parse(mcds__list_t *l, const char *p, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        const char *data;
        size_t dlen;
        mcds_status_t st;

        if (mcds__get_blob(p, len, &pos, &data, &dlen) != 0)
            return MCDS_CORRUPT;
        st = mcds__list_push(l, data, dlen);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

mcds_status_t mcds__list_encode(const mcds_item_t *v, size_t n,
                                mcds__buf_t *b)
{
    size_t i;

    for (i = 0; i < n; i++) {
        mcds_status_t st = mcds__buf_put_blob(b, v[i].data, v[i].len);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

long mcds__list_find(const mcds__list_t *l, const void *data, size_t len)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        if (l->v[i].len == len && memcmp(l->v[i].data, data, len) == 0)
            return (long)i;
    }
    return -1;
}

mcds_status_t mcds__items_pack(const mcds_item_t *v, size_t n,
                               mcds_item_t **out)
{
    size_t bytes = n * sizeof(mcds_item_t);
    char *block, *text;
    mcds_item_t *items;
    size_t i;

    *out = NULL;
    if (n == 0)
        return MCDS_OK;
    for (i = 0; i < n; i++)
        bytes += v[i].len + 1;
    block = malloc(bytes);
    if (block == NULL)
        return MCDS_NO_MEMORY;
    items = (mcds_item_t *)block;
    text = block + n * sizeof(mcds_item_t);
    for (i = 0; i < n; i++) {
        if (v[i].len > 0)
            memcpy(text, v[i].data, v[i].len);
        text[v[i].len] = '\0';
        items[i].data = text;
        items[i].len = v[i].len;
        text += v[i].len + 1;
    }
    *out = items;
    return MCDS_OK;
}

void mcds_items_free(mcds_item_t *items)
{
    free(items);
}

void mcds_value_free(char *value)
{
    free(value);
}

mcds_status_t mcds__items_unpack(const char *p, size_t len,
                                 mcds_item_t **items, size_t *count)
{
    mcds__list_t l;
    mcds_status_t st;

    mcds__list_init(&l);
    st = mcds__list_parse(&l, p, len);
    if (st == MCDS_OK)
        st = mcds__items_pack(l.v, l.n, items);
    if (st == MCDS_OK)
        *count = l.n;
    mcds__list_free(&l);
    return st;
}
