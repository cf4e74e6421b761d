/*
 * base64: standard base64 (RFC 4648, with padding) for meta keys sent
 * with the b flag.
 */
#ifndef MCDS_BASE64_H
#define MCDS_BASE64_H

#include <stddef.h>

/* Decodes n bytes of src into dst (room for cap bytes). Returns the
 * decoded length, or -1 if src is not valid base64 or does not fit. */
long base64_decode(const char *src, size_t n, char *dst, size_t cap);
/* Encodes n bytes; dst needs room for 4 * ((n + 2) / 3) bytes. */
size_t base64_encode(const char *src, size_t n, char *dst);

#endif
