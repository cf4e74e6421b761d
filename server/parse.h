/*
 * parse: numbers as memcached parses them (its safe_strto* rules), shared
 * by every protocol parser so the same bad token draws the same answer.
 */
#ifndef MCDS_PARSE_H
#define MCDS_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Each takes a NUL-terminated token and accepts it only whole. */
bool parse_u32(const char *s, uint32_t *out);   /* truncated to 32 bits */
bool parse_i32(const char *s, int32_t *out);    /* parsed as long, truncated */
bool parse_u64(const char *s, uint64_t *out);   /* "-1" refused */

#endif
