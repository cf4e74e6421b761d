/*
 * codec: fixed-width little-endian fields (the byte order is written out,
 * so a file moves between machines).
 */
#include <string.h>

#include "persist/codec.h"

void codec_out_init(struct codec_out *o, void *buf, size_t cap) {
    o->p = buf;
    o->n = 0;
    o->cap = cap;
    o->overflow = false;
}

void codec_put_bytes(struct codec_out *o, const void *p, size_t n) {
    if (n == 0)
        return;         /* p may be NULL then, which memcpy does not allow */
    if (o->n + n > o->cap) {
        o->overflow = true;
        return;
    }
    memcpy(o->p + o->n, p, n);
    o->n += n;
}

static void codec_put_le(struct codec_out *o, uint64_t v, int bytes) {
    uint8_t b[8];
    int i;

    for (i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    codec_put_bytes(o, b, (size_t)bytes);
}

void codec_put_u8(struct codec_out *o, uint8_t v) { codec_put_le(o, v, 1); }
void codec_put_u32(struct codec_out *o, uint32_t v) { codec_put_le(o, v, 4); }
void codec_put_u64(struct codec_out *o, uint64_t v) { codec_put_le(o, v, 8); }

void codec_put_key(struct codec_out *o, const char *key, size_t nkey) {
    codec_put_u8(o, (uint8_t)nkey);
    codec_put_bytes(o, key, nkey);
}

void codec_in_init(struct codec_in *in, const void *p, size_t n) {
    in->p = p;
    in->n = n;
    in->bad = false;
}

const uint8_t *codec_get_bytes(struct codec_in *in, size_t n) {
    const uint8_t *p = in->p;

    if (in->bad || n > in->n) {
        in->bad = true;
        return NULL;
    }
    in->p += n;
    in->n -= n;
    return p;
}

static uint64_t codec_get_le(struct codec_in *in, int bytes) {
    const uint8_t *b = codec_get_bytes(in, (size_t)bytes);
    uint64_t v = 0;
    int i;

    if (b == NULL)
        return 0;
    for (i = 0; i < bytes; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

uint8_t codec_get_u8(struct codec_in *in) { return (uint8_t)codec_get_le(in, 1); }
uint32_t codec_get_u32(struct codec_in *in) { return (uint32_t)codec_get_le(in, 4); }
uint64_t codec_get_u64(struct codec_in *in) { return codec_get_le(in, 8); }

const char *codec_get_key(struct codec_in *in, size_t *nkey) {
    *nkey = codec_get_u8(in);
    return (const char *)codec_get_bytes(in, *nkey);
}
