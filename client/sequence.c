/*
 * sequence.c - unique integer IDs from blocks reserved on the server.
 *
 * The sequence key holds the highest ID handed out in any block (a plain
 * unsigned decimal). A generator reserves a block of N IDs with one
 * "incr N": the reply R makes [R-N+1, R] its own, so no two generators can
 * ever get the same ID. A missing key is created without a race (incr; add
 * "N" if missing; incr again if the add lost). IDs a process reserved but
 * did not use are gaps, never duplicates.
 *
 * mcds_seq_raise moves the key up to a floor with gets/cas (the key must
 * never go down), for re-seeding from durable data after the key was lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define MAX_BLOCK 1000000u
#define CREATE_ATTEMPTS 3
#define BACKOFF_CAP_MS 50u

struct mcds_seq {
    mcds_t *h;
    mcds__key_t key;
    uint32_t block;
    uint64_t next; /* next ID to hand out */
    uint64_t end;  /* one past the last reserved ID */
};

mcds_status_t mcds_seq_new(mcds_t *h, const char *name, uint32_t block,
                           mcds_seq_t **out)
{
    mcds_seq_t *s;
    mcds_status_t st;

    if (h == NULL || out == NULL || block == 0 || block > MAX_BLOCK)
        return MCDS_INVALID;
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return MCDS_NO_MEMORY;
    st = mcds__key_base(&s->key, "seq", name);
    if (st != MCDS_OK) {
        free(s);
        return st;
    }
    s->h = h;
    s->block = block;
    *out = s;
    return MCDS_OK;
}

/* Reserves the next block: *high is its last ID. */
static mcds_status_t reserve(mcds_seq_t *s, uint64_t *high)
{
    char num[24];
    int n = snprintf(num, sizeof num, "%u", s->block);
    mcds_status_t st = MCDS_OK;
    int attempt;

    for (attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        st = mcds__incr(s->h, &s->key, &s->key, s->block, high);
        if (st != MCDS_NOT_FOUND)
            return st;
        st = mcds__add(s->h, &s->key, &s->key, num, (size_t)n, 0);
        if (st == MCDS_OK) {
            *high = s->block;
            return MCDS_OK;
        }
        if (st != MCDS_EXISTS)
            return st;
    }
    return MCDS_CONFLICT;
}

mcds_status_t mcds_seq_next(mcds_seq_t *s, uint64_t *id)
{
    if (s == NULL || id == NULL)
        return MCDS_INVALID;
    if (s->next == s->end) {
        uint64_t high;
        mcds_status_t st = reserve(s, &high);
        if (st != MCDS_OK)
            return st;
        if (high < s->block)
            return MCDS_CORRUPT; /* the counter wrapped around 2^64 */
        s->next = high - s->block + 1;
        s->end = high + 1;
    }
    *id = s->next++;
    return MCDS_OK;
}

void mcds_seq_free(mcds_seq_t *s)
{
    free(s);
}

static mcds_status_t parse_u64(const char *p, uint64_t *v)
{
    char *end;

    if (p[0] < '0' || p[0] > '9')
        return MCDS_CORRUPT;
    *v = strtoull(p, &end, 10);
    while (*end == ' ')
        end++;
    return *end == '\0' ? MCDS_OK : MCDS_CORRUPT;
}

/* One round of raise: MCDS_OK when done, MCDS_EXISTS to retry. */
static mcds_status_t raise_once(mcds_t *h, const mcds__key_t *key,
                                const char *num)
{
    mcds__val_t v;
    uint64_t cur, floor = strtoull(num, NULL, 10);
    mcds_status_t st = mcds__get(h, key, key, &v);

    if (st == MCDS_NOT_FOUND)
        return mcds__add(h, key, key, num, strlen(num), 0);
    if (st != MCDS_OK)
        return st;
    st = parse_u64(v.data, &cur);
    if (st == MCDS_OK && cur < floor)
        st = mcds__cas(h, key, key, num, strlen(num), 0, v.cas);
    mcds__val_free(&v);
    return st == MCDS_NOT_FOUND ? MCDS_EXISTS : st;
}

mcds_status_t mcds_seq_raise(mcds_t *h, const char *name, uint64_t floor)
{
    mcds__key_t key;
    char num[24];
    int64_t deadline;
    unsigned delay = 1;
    mcds_status_t st;

    if (h == NULL)
        return MCDS_INVALID;
    st = mcds__key_base(&key, "seq", name);
    if (st != MCDS_OK)
        return st;
    snprintf(num, sizeof num, "%llu", (unsigned long long)floor);
    deadline = mcds__mono_ms() + h->retry_ms;
    for (;;) {
        st = raise_once(h, &key, num);
        if (st != MCDS_EXISTS)
            return st;
        if (!mcds__backoff(h, &delay, BACKOFF_CAP_MS, deadline))
            return MCDS_CONFLICT;
    }
}
