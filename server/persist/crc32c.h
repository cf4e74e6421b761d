/*
 * crc32c: the CRC-32C (Castagnoli) checksum every log record and snapshot
 * block carries, so a torn or corrupt byte is never replayed as data.
 */
#ifndef MCDS_CRC32C_H
#define MCDS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over n bytes (start with 0). */
uint32_t crc32c(uint32_t crc, const void *p, size_t n);

#endif
