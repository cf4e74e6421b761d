/*
 * lock.c - a lock held by whoever first adds its key.
 *
 * Taking the lock is one "add" of the lock key with a fresh random owner
 * token as value and a TTL, so a crashed holder's lock expires by itself.
 * Release and extend are compare-and-swap on the owner token: read the key
 * with gets, check the value is our token, then "cas" with the read CAS
 * value. If the lock expired and someone else took it, the value (and CAS)
 * differ and nothing happens. Release stores with an exptime in the past,
 * which memcached treats as deleted at once: a compare-and-delete that
 * works with classic commands on any memcached (meta "md <key> C<cas>"
 * would do the same, but libmemcached does not speak meta).
 *
 * Waiting for a lock retries with randomized exponential backoff (1 ms
 * doubling to 100 ms) until the caller's deadline: no spinning.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define TOKEN_BYTES 16
#define MAX_TTL 2592000u       /* memcached reads larger exptimes as dates */
#define BACKOFF_CAP_MS 100u
#define CAS_ATTEMPTS 3

struct mcds_lock {
    mcds_t *h;
    mcds__key_t key;
    mcds__key_t group;
    unsigned ttl_s;
    char token[2 * TOKEN_BYTES + 1]; /* "" when not held */
};

static int ttl_ok(unsigned ttl_s)
{
    return ttl_s >= 2 && ttl_s <= MAX_TTL;
}

mcds_status_t mcds__lock_new_at(mcds_t *h, const mcds__key_t *key,
                                const mcds__key_t *group, unsigned ttl_s,
                                mcds_lock_t **out)
{
    mcds_lock_t *l;

    if (h == NULL || out == NULL || !ttl_ok(ttl_s))
        return MCDS_INVALID;
    l = calloc(1, sizeof *l);
    if (l == NULL)
        return MCDS_NO_MEMORY;
    l->h = h;
    l->key = *key;
    l->group = *group;
    l->ttl_s = ttl_s;
    *out = l;
    return MCDS_OK;
}

mcds_status_t mcds_lock_new(mcds_t *h, const char *name, unsigned ttl_s,
                            mcds_lock_t **out)
{
    mcds__key_t key;
    mcds_status_t st;

    if (out == NULL)
        return MCDS_INVALID;
    *out = NULL;
    st = mcds__key_base(&key, "lock", name);
    if (st != MCDS_OK)
        return st;
    return mcds__lock_new_at(h, &key, &key, ttl_s, out);
}

static void new_token(char *token)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[TOKEN_BYTES];
    int i;

    mcds__random_bytes(raw, sizeof raw);
    for (i = 0; i < TOKEN_BYTES; i++) {
        token[2 * i] = hex[raw[i] >> 4];
        token[2 * i + 1] = hex[raw[i] & 15];
    }
    token[2 * TOKEN_BYTES] = '\0';
}

mcds_status_t mcds_lock_try(mcds_lock_t *l)
{
    char token[sizeof l->token];
    mcds_status_t st;

    if (l == NULL)
        return MCDS_INVALID;
    new_token(token);
    st = mcds__add(l->h, &l->group, &l->key, token, strlen(token), l->ttl_s);
    if (st == MCDS_OK) {
        memcpy(l->token, token, sizeof token);
        return MCDS_OK;
    }
    return st == MCDS_EXISTS ? MCDS_BUSY : st;
}

mcds_status_t mcds_lock_acquire(mcds_lock_t *l, unsigned timeout_ms)
{
    int64_t deadline = mcds__mono_ms() + timeout_ms;
    unsigned delay = 1;
    mcds_status_t st;

    if (l == NULL)
        return MCDS_INVALID;
    for (;;) {
        st = mcds_lock_try(l);
        if (st != MCDS_BUSY)
            return st;
        if (!mcds__backoff(l->h, &delay, BACKOFF_CAP_MS, deadline))
            return MCDS_TIMEOUT;
    }
}

/* Replaces the lock's value with (value, ttl) if it still holds our token.
 * MCDS_OK, MCDS_NOT_OWNER, or a transport error. */
static mcds_status_t swap_if_owner(mcds_lock_t *l, const char *value,
                                   time_t ttl)
{
    mcds_status_t st = MCDS_NOT_OWNER;
    int attempt;

    for (attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        mcds__val_t v;
        int mine;

        st = mcds__get(l->h, &l->group, &l->key, &v);
        if (st == MCDS_NOT_FOUND)
            return MCDS_NOT_OWNER;
        if (st != MCDS_OK)
            return st;
        mine = strcmp(v.data, l->token) == 0 && v.len == strlen(l->token);
        if (mine)
            st = mcds__cas(l->h, &l->group, &l->key, value, strlen(value),
                           ttl, v.cas);
        mcds__val_free(&v);
        if (!mine || st == MCDS_NOT_FOUND)
            return MCDS_NOT_OWNER;
        if (st != MCDS_EXISTS)
            return st;
    }
    return MCDS_CONFLICT;
}

mcds_status_t mcds_lock_release(mcds_lock_t *l)
{
    mcds_status_t st;

    if (l == NULL)
        return MCDS_INVALID;
    if (l->token[0] == '\0')
        return MCDS_NOT_OWNER;
    st = swap_if_owner(l, "", MCDS_EXPIRE_NOW);
    if (st == MCDS_OK || st == MCDS_NOT_OWNER)
        l->token[0] = '\0';
    return st;
}

mcds_status_t mcds_lock_extend(mcds_lock_t *l, unsigned ttl_s)
{
    mcds_status_t st;

    if (l == NULL || !ttl_ok(ttl_s))
        return MCDS_INVALID;
    if (l->token[0] == '\0')
        return MCDS_NOT_OWNER;
    st = swap_if_owner(l, l->token, ttl_s);
    if (st == MCDS_NOT_OWNER)
        l->token[0] = '\0';
    return st;
}

const char *mcds_lock_token(const mcds_lock_t *l)
{
    return l ? l->token : "";
}

void mcds_lock_free(mcds_lock_t *l)
{
    free(l);
}
