/*
 * codec: little-endian fields in and out of log records and snapshot
 * entries. A writer fills a caller's buffer (a record's fixed part); a
 * reader walks a record and remembers, instead of crashing, that it ran
 * past the end (bad), so a malformed record is refused whole.
 */
#ifndef MCDS_CODEC_H
#define MCDS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct codec_out {
    uint8_t *p;
    size_t n, cap;
    bool overflow;
};

struct codec_in {
    const uint8_t *p;
    size_t n;
    bool bad;
};

void codec_out_init(struct codec_out *o, void *buf, size_t cap);
void codec_put_u8(struct codec_out *o, uint8_t v);
void codec_put_u32(struct codec_out *o, uint32_t v);
void codec_put_u64(struct codec_out *o, uint64_t v);
void codec_put_bytes(struct codec_out *o, const void *p, size_t n);
/* A key: one length byte, then the bytes (keys are at most 250). */
void codec_put_key(struct codec_out *o, const char *key, size_t nkey);

void codec_in_init(struct codec_in *in, const void *p, size_t n);
uint8_t codec_get_u8(struct codec_in *in);
uint32_t codec_get_u32(struct codec_in *in);
uint64_t codec_get_u64(struct codec_in *in);
/* n bytes in place, or NULL (and bad) when fewer are left. */
const uint8_t *codec_get_bytes(struct codec_in *in, size_t n);
/* A key as codec_put_key wrote it; *nkey its length. */
const char *codec_get_key(struct codec_in *in, size_t *nkey);

#endif
