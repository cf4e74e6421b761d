/*
 * counter.c - signed counters on memcached's unsigned incr/decr.
 *
 * A counter is one key holding a decimal number: the signed value plus
 * 2^61 (the "bias"), so 0 is stored as 2305843009213693952 and the range
 * [MCDS_COUNTER_MIN, MCDS_COUNTER_MAX] maps onto [0, 2^62 - 1]. Adding a
 * positive delta is "incr", a negative one "decr" by its magnitude.
 *
 * Why so small a range: for stored numbers of 2^63 and above, memcached's
 * number parser (safe_strtoull) looks for a '-' with strchr over the item's
 * data, which is not NUL-terminated, so it reads past the value into
 * whatever the slab holds and sometimes answers "non-numeric value". With
 * values below 2^62 and increments below 2^62, even an increment that
 * overshoots stays below 2^63, and is undone with a decr by the same delta
 * (reported as MCDS_OUT_OF_RANGE).
 *
 * memcached's decr stops at 0, so a counter stops at MCDS_COUNTER_MIN.
 *
 * A missing counter is created without a race: incr; if NOT_FOUND, add the
 * initial value; if that add loses to another creator, incr again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define BIAS 2305843009213693952ULL       /* 2^61 */
#define STORED_MAX 4611686018427387903ULL /* 2^62 - 1 */
#define CREATE_ATTEMPTS 3

static uint64_t to_stored(int64_t v)
{
    return (uint64_t)(v - MCDS_COUNTER_MIN);
}

static int64_t from_stored(uint64_t u)
{
    return (int64_t)(u - BIAS);
}

/* |delta| as an unsigned number (INT64_MIN included), at most 2^62: a
 * larger decrement ends at the floor all the same. */
static uint64_t magnitude(int64_t delta)
{
    uint64_t m = delta < 0 ? (uint64_t)0 - (uint64_t)delta : (uint64_t)delta;
    return m > STORED_MAX + 1 ? STORED_MAX + 1 : m;
}

static mcds_status_t apply(mcds_t *h, const mcds__key_t *key, int64_t delta,
                           uint64_t *stored)
{
    mcds_status_t st;

    if (delta < 0)
        return mcds__decr(h, key, key, magnitude(delta), stored);
    if ((uint64_t)delta > STORED_MAX)
        return MCDS_OUT_OF_RANGE; /* from any value: never sent */
    st = mcds__incr(h, key, key, (uint64_t)delta, stored);
    if (st == MCDS_OK && *stored > STORED_MAX) {
        uint64_t undone;
        mcds__decr(h, key, key, (uint64_t)delta, &undone);
        st = MCDS_OUT_OF_RANGE;
    }
    return st;
}

static mcds_status_t store_value(mcds_t *h, const mcds__key_t *key, int64_t v,
                                 int create)
{
    char num[24];
    int n = snprintf(num, sizeof num, "%llu", (unsigned long long)to_stored(v));

    if (create)
        return mcds__add(h, key, key, num, (size_t)n, 0);
    return mcds__set(h, key, key, num, (size_t)n, 0);
}

/* The first value of a counter created by adding delta to 0. */
static mcds_status_t initial_value(int64_t delta, int64_t *v)
{
    if (delta > MCDS_COUNTER_MAX)
        return MCDS_OUT_OF_RANGE;
    *v = delta < MCDS_COUNTER_MIN ? MCDS_COUNTER_MIN : delta;
    return MCDS_OK;
}

mcds_status_t mcds_counter_incr(mcds_t *h, const char *name, int64_t delta,
                                int64_t *value)
{
    mcds__key_t key;
    uint64_t stored = 0;
    int64_t first = 0;
    mcds_status_t st;
    int attempt;

    if (h == NULL)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "ctr", name);
    for (attempt = 0; st == MCDS_OK && attempt < CREATE_ATTEMPTS; attempt++) {
        st = apply(h, &key, delta, &stored);
        if (st != MCDS_NOT_FOUND)
            break;
        st = initial_value(delta, &first);
        if (st == MCDS_OK)
            st = store_value(h, &key, first, 1);
        if (st == MCDS_OK)
            stored = to_stored(first);
        if (st != MCDS_EXISTS)
            break;
        st = MCDS_OK; /* someone else created it: incr again */
    }
    if (st == MCDS_OK && attempt == CREATE_ATTEMPTS)
        st = MCDS_CONFLICT;
    if (st == MCDS_OK && value != NULL)
        *value = from_stored(stored);
    return st;
}

/* Parses memcached's number (decr may leave trailing spaces). */
static mcds_status_t parse_stored(const char *s, uint64_t *u)
{
    char *end;

    if (s[0] < '0' || s[0] > '9')
        return MCDS_CORRUPT;
    *u = strtoull(s, &end, 10);
    while (*end == ' ')
        end++;
    return *end == '\0' && *u <= STORED_MAX ? MCDS_OK : MCDS_CORRUPT;
}

mcds_status_t mcds_counter_get(mcds_t *h, const char *name, int64_t *value)
{
    mcds__key_t key;
    mcds__val_t v;
    uint64_t u;
    mcds_status_t st;

    if (h == NULL || value == NULL)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "ctr", name);
    if (st != MCDS_OK)
        return st;
    st = mcds__get_read(h, &key, &key, &v);
    if (st != MCDS_OK)
        return st;
    st = parse_stored(v.data, &u);
    mcds__val_free(&v);
    if (st == MCDS_OK)
        *value = from_stored(u);
    return st;
}

mcds_status_t mcds_counter_set(mcds_t *h, const char *name, int64_t value)
{
    mcds__key_t key;
    mcds_status_t st;

    if (h == NULL)
        return MCDS_INVALID;
    if (value < MCDS_COUNTER_MIN || value > MCDS_COUNTER_MAX)
        return MCDS_OUT_OF_RANGE;
    st = mcds__key_base(&key, "ctr", name);
    if (st != MCDS_OK)
        return st;
    return store_value(h, &key, value, 0);
}

mcds_status_t mcds_counter_delete(mcds_t *h, const char *name)
{
    mcds__key_t key;
    mcds_status_t st;

    if (h == NULL)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "ctr", name);
    if (st != MCDS_OK)
        return st;
    return mcds__delete(h, &key, &key);
}
