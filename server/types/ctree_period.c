/*
 * types/ctree_period: period type codes, period indexes since the epoch,
 * and the calendar arithmetic behind them (civil dates from day numbers,
 * month lengths, leap years), parsing and formatting of period texts.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "types/ctree_period.h"

#define CTP_DAY 86400LL

static const int64_t ctp_unit_secs[] = { 0, 1, 60, 3600, 86400 };
static const size_t ctp_digits[] = { 0, 14, 12, 10, 8, 6, 4, 1 };

static uint32_t ctp_unit(uint32_t code) { return code % 100; }
static uint32_t ctp_len(uint32_t code) { return code / 100; }
static bool ctp_by_secs(uint32_t code) { return ctp_unit(code) <= 4; }
static bool ctp_by_months(uint32_t code) { return ctp_unit(code) == 5 || ctp_unit(code) == 6; }

/* Seconds of one period (second to day units). */
static int64_t ctp_secs(uint32_t code) {
    return ctp_unit_secs[ctp_unit(code)] * ctp_len(code);
}

/* Months of one period (month and year units). */
static int64_t ctp_months(uint32_t code) {
    return ctp_unit(code) == 5 ? ctp_len(code) : 12 * (int64_t)ctp_len(code);
}

bool ctp_valid(uint32_t code) {
    uint32_t u = ctp_unit(code), l = ctp_len(code);

    if (code >= 10000 || u < 1 || u > 7 || l < 1)
        return false;
    return u != 7 || l == 1;
}

uint64_t ctp_length(uint32_t code) {
    if (ctp_unit(code) == 7)
        return UINT64_MAX;
    if (ctp_by_secs(code))
        return (uint64_t)ctp_secs(code);
    return (uint64_t)ctp_months(code) * 28 * CTP_DAY;
}

bool ctp_nests(uint32_t fine, uint32_t coarse) {
    if (ctp_unit(fine) == 7)
        return false;
    if (ctp_unit(coarse) == 7)
        return true;
    if (ctp_by_secs(fine) && ctp_by_secs(coarse))
        return ctp_secs(coarse) > ctp_secs(fine) && ctp_secs(coarse) % ctp_secs(fine) == 0;
    if (ctp_by_months(fine) && ctp_by_months(coarse))
        return ctp_months(coarse) > ctp_months(fine) && ctp_months(coarse) % ctp_months(fine) == 0;
    /* second-based inside month-based: it must tile a day (months start at midnight) */
    return ctp_by_secs(fine) && CTP_DAY % ctp_secs(fine) == 0;
}

/* ---- civil calendar (proleptic Gregorian, days since 1970-01-01) ---- */

static bool ctp_leap(int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int ctp_month_days(int64_t y, int m) {
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

    return m == 2 && ctp_leap(y) ? 29 : days[m - 1];
}

static int64_t ctp_days_from_civil(int64_t y, int m, int d) {
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void ctp_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* ---- indexes ---- */

int64_t ctp_index(uint32_t code, int64_t t) {
    int64_t y;
    int m, d;

    if (ctp_unit(code) == 7)
        return 0;
    if (ctp_by_secs(code))
        return t / ctp_secs(code);
    ctp_civil_from_days(t / CTP_DAY, &y, &m, &d);
    return ((y - 1970) * 12 + (m - 1)) / ctp_months(code);
}

int64_t ctp_start(uint32_t code, int64_t idx) {
    int64_t months;

    if (ctp_unit(code) == 7)
        return 0;
    if (ctp_by_secs(code))
        return idx * ctp_secs(code);
    months = idx * ctp_months(code);
    return ctp_days_from_civil(1970 + months / 12, (int)(months % 12) + 1, 1) * CTP_DAY;
}

/* ---- texts ---- */

/* n decimal digits at s. */
static int64_t ctp_field(const char *s, int n) {
    int64_t v = 0;

    while (n-- > 0)
        v = v * 10 + (*s++ - '0');
    return v;
}

/* "YYYY[MM[DD[HH[mm[ss]]]]]" of exactly the unit's length into Unix time. */
static bool ctp_parse_civil(uint32_t code, const char *s, int64_t *t) {
    size_t n = strlen(s), i;
    int64_t y, mo = 1, d = 1, h = 0, mi = 0, se = 0;

    if (n != ctp_digits[ctp_unit(code)])
        return false;
    for (i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    y = ctp_field(s, 4);
    if (n >= 6)
        mo = ctp_field(s + 4, 2);
    if (n >= 8)
        d = ctp_field(s + 6, 2);
    if (n >= 10)
        h = ctp_field(s + 8, 2);
    if (n >= 12)
        mi = ctp_field(s + 10, 2);
    if (n >= 14)
        se = ctp_field(s + 12, 2);
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > ctp_month_days(y, (int)mo) || h > 23 ||
        mi > 59 || se > 59)
        return false;
    *t = ctp_days_from_civil(y, (int)mo, (int)d) * CTP_DAY + h * 3600 + mi * 60 + se;
    return true;
}

bool ctp_parse_time(uint32_t code, const char *s, int64_t *t) {
    int64_t v = 0;

    if (*s == '@') {
        if (!isdigit((unsigned char)s[1]))
            return false;
        for (s++; isdigit((unsigned char)*s); s++) {
            v = v * 10 + (*s - '0');
            if (v > CTP_TIME_MAX)
                return false;
        }
        *t = v;
        return *s == '\0';
    }
    if (ctp_unit(code) == 7) {
        *t = 0;
        return strcmp(s, "1") == 0;
    }
    return ctp_parse_civil(code, s, t);
}

bool ctp_parse_period(uint32_t code, const char *s, int64_t *idx) {
    int64_t t;

    if (!ctp_parse_time(code, s, &t))
        return false;
    *idx = ctp_index(code, t);
    return true;
}

size_t ctp_format(uint32_t code, int64_t idx, char *buf) {
    int64_t t = ctp_start(code, idx), y, rem;
    char full[64];
    int m, d;
    size_t n;

    if (ctp_unit(code) == 7) {
        strcpy(buf, "1");
        return 1;
    }
    ctp_civil_from_days(t / CTP_DAY, &y, &m, &d);
    rem = t % CTP_DAY;
    snprintf(full, sizeof(full), "%04lld%02d%02d%02lld%02lld%02lld", (long long)y, m, d,
             (long long)(rem / 3600), (long long)(rem / 60 % 60), (long long)(rem % 60));
    n = ctp_digits[ctp_unit(code)];
    memcpy(buf, full, n);
    buf[n] = '\0';
    return n;
}
