/*
 * crc32c: CRC-32C (polynomial 0x82F63B78, reflected), table-driven eight
 * bytes at a time ("slicing-by-8"). The tables are built on first use.
 */
#include <pthread.h>
#include <string.h>

#include "persist/crc32c.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc32c_table[8][256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_init(void) {
    uint32_t i, j, c;

    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc32c_table[0][i] = c;
    }
    for (i = 0; i < 256; i++) {
        c = crc32c_table[0][i];
        for (j = 1; j < 8; j++) {
            c = crc32c_table[0][c & 0xff] ^ (c >> 8);
            crc32c_table[j][i] = c;
        }
    }
}

uint32_t crc32c(uint32_t crc, const void *p, size_t n) {
    const unsigned char *b = p;
    uint32_t c = ~crc;

    pthread_once(&crc32c_once, crc32c_init);
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, b, 4);
        memcpy(&hi, b + 4, 4);
        lo ^= c;
        c = crc32c_table[7][lo & 0xff] ^ crc32c_table[6][(lo >> 8) & 0xff] ^
            crc32c_table[5][(lo >> 16) & 0xff] ^ crc32c_table[4][lo >> 24] ^
            crc32c_table[3][hi & 0xff] ^ crc32c_table[2][(hi >> 8) & 0xff] ^
            crc32c_table[1][(hi >> 16) & 0xff] ^ crc32c_table[0][hi >> 24];
        b += 8;
        n -= 8;
    }
    while (n-- > 0)
        c = crc32c_table[0][(c ^ *b++) & 0xff] ^ (c >> 8);
    return ~c;
}
