/*
 * types/ctree_period: the calendar of tree counters. A period type is a
 * code L*100+U (length L of base unit U: 1 second, 2 minute, 3 hour,
 * 4 day, 5 month, 6 year, 7 all time); a period is named by its index
 * since the Unix epoch and written in its unit's format (YYYYMMDDHHmmss
 * down to YYYY, "1" for all time). All times are UTC.
 */
#ifndef MCDS_CTREE_PERIOD_H
#define MCDS_CTREE_PERIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTP_TIME_MAX 253402300799LL   /* 9999-12-31 23:59:59 UTC */
#define CTP_TEXT_MAX 16               /* longest period text, with its NUL */

/* Whether code is a period type: 1 <= L <= 99, U in 1..7, L = 1 for U = 7. */
bool ctp_valid(uint32_t code);
/* Whether every period of type fine lies inside one period of type
 * coarse (and coarse is the longer one). */
bool ctp_nests(uint32_t fine, uint32_t coarse);
/* An ordering key by length, for sorting the types of a counter. */
uint64_t ctp_length(uint32_t code);

/* The index of the period of type code holding Unix time t (0 <= t <= CTP_TIME_MAX). */
int64_t ctp_index(uint32_t code, int64_t t);
/* The Unix time at which period idx of type code starts. */
int64_t ctp_start(uint32_t code, int64_t idx);
/* Parses a time for type code: "@<unix seconds>" or a moment written in
 * the unit's format (any moment inside the period). false: not a valid
 * time (bad length, no such date such as 20210230, out of range). */
bool ctp_parse_time(uint32_t code, const char *s, int64_t *t);
/* Parses a period of type code into its index (the same forms). */
bool ctp_parse_period(uint32_t code, const char *s, int64_t *idx);
/* Writes period idx of type code in its unit's format (NUL-terminated);
 * returns its length. buf holds CTP_TEXT_MAX bytes. */
size_t ctp_format(uint32_t code, int64_t idx, char *buf);

#endif
