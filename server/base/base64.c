/*
 * base64: encoder and strict decoder (the length must be a multiple of 4,
 * '=' only as padding at the end).
 */
#include <stdint.h>

#include "base/base64.h"

static const char base64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_value(char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

long base64_decode(const char *src, size_t n, char *dst, size_t cap) {
    size_t i, out = 0;

    if (n == 0 || n % 4 != 0)
        return -1;
    for (i = 0; i < n; i += 4) {
        int v[4], k, pad = 0;
        uint32_t word = 0;
        for (k = 0; k < 4; k++) {
            if (src[i + k] == '=' && i + 4 == n && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad > 0 || (v[k] = base64_value(src[i + k])) < 0) {
                return -1;
            }
            word = (word << 6) | (uint32_t)v[k];
        }
        if (out + (size_t)(3 - pad) > cap)
            return -1;
        dst[out++] = (char)(word >> 16);
        if (pad < 2)
            dst[out++] = (char)(word >> 8);
        if (pad < 1)
            dst[out++] = (char)word;
    }
    return (long)out;
}

size_t base64_encode(const char *src, size_t n, char *dst) {
    const unsigned char *s = (const unsigned char *)src;
    size_t i, out = 0;

    for (i = 0; i < n; i += 3) {
        uint32_t word = (uint32_t)s[i] << 16;
        if (i + 1 < n) word |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < n) word |= s[i + 2];
        dst[out++] = base64_chars[(word >> 18) & 63];
        dst[out++] = base64_chars[(word >> 12) & 63];
        dst[out++] = i + 1 < n ? base64_chars[(word >> 6) & 63] : '=';
        dst[out++] = i + 2 < n ? base64_chars[word & 63] : '=';
    }
    return out;
}
