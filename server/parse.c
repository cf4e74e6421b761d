/*
 * parse: memcached's number rules. strto* accept leading blanks and a
 * sign; a value that overflows the C type is refused; a negative number
 * is refused where the result is unsigned and would wrap; otherwise the
 * result is silently truncated to the field's width, as memcached does
 * (so flags of 4294967296 become 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

bool parse_u32(const char *s, uint32_t *out) {
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0')
        return false;
    if ((long)v < 0 && strchr(s, '-') != NULL)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool parse_i32(const char *s, int32_t *out) {
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0')
        return false;
    *out = (int32_t)v;
    return true;
}

bool parse_u64(const char *s, uint64_t *out) {
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0')
        return false;
    if ((long long)v < 0 && strchr(s, '-') != NULL)
        return false;
    *out = v;
    return true;
}
