/*
 * parse: numbers as memcached parses them (its safe_strto* rules), shared
 * by every protocol parser so the same bad token draws the same answer,
 * and the tokens of a request line (struct cmd_line).
 */
#ifndef MCDS_PARSE_H
#define MCDS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CMD_MAX_TOKENS 10           /* more than any tokenized verb takes */
#define CMD_ANY (CMD_MAX_TOKENS + 1) /* no upper bound on the token count */

/* A request line: the whole line (NUL-terminated at len), its tokens
 * (split in place, each NUL-terminated), and what follows the verb. */
struct cmd_line {
    char *line;
    size_t len;
    char *v[CMD_MAX_TOKENS];
    size_t vlen[CMD_MAX_TOKENS];
    int n;                          /* CMD_MAX_TOKENS + 1: more than that */
    char *rest;                     /* after the verb and its spaces */
    size_t nrest;
    int arg;                        /* the table entry's arg */
};

/* Each takes a NUL-terminated token: a number, then the token's end or a
 * blank (tab, \v, \f, \r, \n) and anything after it, as memcached. */
bool parse_u32(const char *s, uint32_t *out);   /* truncated to 32 bits */
bool parse_i32(const char *s, int32_t *out);    /* parsed as long, truncated */
bool parse_u64(const char *s, uint64_t *out);   /* "-1" refused */
/* The same without truncation, for mcds's own verbs: the whole token or
 * nothing, and a value that does not fit the field is refused. */
bool parse_u32_exact(const char *s, uint32_t *out);
bool parse_i32_exact(const char *s, int32_t *out);
/* Digits only (a leading '-' for the signed one; no blank, no '+'), the
 * whole token, refused when it does not fit: the numbers of the
 * extended verbs. */
bool parse_u64_digits(const char *s, uint64_t *out);
bool parse_i64_digits(const char *s, int64_t *out);

/* Writes v in decimal at dst (no NUL); returns the digits written (at
 * most 20). */
size_t parse_format_u64(char *dst, uint64_t v);

/* Splits line[0..len) on runs of spaces, in place: each token is
 * NUL-terminated, v[i] and lens[i] describe it. Returns the number of
 * tokens, or max + 1 when there are more than max. */
int parse_tokenize(char *line, size_t len, char **v, size_t *lens, int max);

#endif
