/*
 * parse: memcached's number rules. strto* accept leading blanks and a
 * sign; the number may be followed by a blank of any kind (tab, \v, \f,
 * \r, \n) and whatever comes after it, as memcached's safe_strto* accept;
 * a value that overflows the C type is refused; a negative number is
 * refused where the result is unsigned and would wrap; otherwise the
 * result is silently truncated to the field's width, as memcached does
 * (so flags of 4294967296 become 0). The *_exact and *_digits variants,
 * for mcds's own verbs, take the whole token or nothing and refuse a
 * value that does not fit. Also the one tokenizer of request lines.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

/* The common case, without strto*: 1 to 9 decimal digits and the end of
 * the string, a number no type here overflows. False for anything else
 * (which the strto* path then judges). */
static bool parse_short_digits(const char *s, uint32_t *out) {
    uint32_t v = 0;
    size_t i;

    for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
        if (i == 9)
            return false;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (i == 0 || s[i] != '\0')
        return false;
    *out = v;
    return true;
}

/* Where memcached's rules let a number end: the token's end, or a blank. */
static bool parse_end_ok(const char *end) {
    return *end == '\0' || isspace((unsigned char)*end);
}

bool parse_u32(const char *s, uint32_t *out) {
    char *end;
    unsigned long v;

    if (parse_short_digits(s, out))
        return true;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno == ERANGE || end == s || !parse_end_ok(end))
        return false;
    if ((long)v < 0 && strchr(s, '-') != NULL)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool parse_i32(const char *s, int32_t *out) {
    char *end;
    long v;
    uint32_t u;

    if (parse_short_digits(s, &u)) {
        *out = (int32_t)u;
        return true;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno == ERANGE || end == s || !parse_end_ok(end))
        return false;
    *out = (int32_t)v;
    return true;
}

/* whole: the number must end the token (mcds's own verbs). */
static bool parse_u64_as(const char *s, uint64_t *out, bool whole) {
    char *end;
    unsigned long long v;
    uint32_t u;

    if (parse_short_digits(s, &u)) {
        *out = u;
        return true;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || end == s || (whole ? *end != '\0' : !parse_end_ok(end)))
        return false;
    if ((long long)v < 0 && memchr(s, '-', (size_t)(end - s)) != NULL)
        return false;
    *out = v;
    return true;
}

bool parse_u64(const char *s, uint64_t *out) {
    return parse_u64_as(s, out, false);
}

bool parse_u32_exact(const char *s, uint32_t *out) {
    uint64_t v;

    if (!parse_u64_as(s, &v, true) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool parse_i32_exact(const char *s, int32_t *out) {
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno == ERANGE || end == s || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

bool parse_u64_digits(const char *s, uint64_t *out) {
    return *s >= '0' && *s <= '9' && parse_u64_as(s, out, true);
}

bool parse_i64_digits(const char *s, int64_t *out) {
    bool neg = *s == '-';
    uint64_t v;

    if (!parse_u64_digits(neg ? s + 1 : s, &v) || v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

size_t parse_format_u64(char *dst, uint64_t v) {
    size_t n = 1, i;
    uint64_t t;

    for (t = v; t >= 10; t /= 10)
        n++;
    for (i = n; i > 0; i--) {
        dst[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    return n;
}

int parse_tokenize(char *line, size_t len, char **v, size_t *lens, int max) {
    size_t i = 0;
    int n = 0;

    while (i < len) {
        size_t start;
        while (i < len && line[i] == ' ')
            i++;
        if (i == len)
            break;
        start = i;
        while (i < len && line[i] != ' ')
            i++;
        if (n == max)
            return max + 1;
        line[i] = '\0';
        v[n] = line + start;
        lens[n] = i - start;
        n++;
        i++;
    }
    return n;
}
