/*
 * handle.c - the mcds_t handle: opening a server list, wrapping or cloning a
 * memcached_st, and the handle's settings.
 *
 * A handle owns (or borrows) one memcached_st set up the way libmcds needs:
 * CAS support on, replies on, no buffering, ketama consistent hashing, and
 * failed servers reported (never silently ejected, which would move a
 * structure's keys to another server mid-operation). A handle opened from
 * a server list that names replicas also holds those replica sets
 * (xroute.c), with the members' own connections.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define DEFAULT_RETRY_MS 5000
#define DEFAULT_IO_MS 2000
#define MAX_RECONNECT_DELAY_S 86400u

static mcds_status_t new_handle(mcds_t **out, memcached_st *mc, int owned)
{
    mcds_t *h = calloc(1, sizeof *h);

    if (h == NULL)
        return MCDS_NO_MEMORY;
    h->mc = mc;
    h->owned = owned;
    h->retry_ms = DEFAULT_RETRY_MS;
    mcds__random_bytes(&h->rng, sizeof h->rng);
    if (h->rng == 0)
        h->rng = 0x2545f4914f6cdd1dULL;
    *out = h;
    return MCDS_OK;
}

/* Behaviors every handle needs for correct results. */
static mcds_status_t require_behaviors(memcached_st *mc)
{
    if (memcached_behavior_get(mc, MEMCACHED_BEHAVIOR_NOREPLY) ||
        memcached_behavior_get(mc, MEMCACHED_BEHAVIOR_BUFFER_REQUESTS))
        return MCDS_INVALID;
    return mcds__from_memcached(
        memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1));
}

static mcds_status_t set_io_timeout(memcached_st *mc, unsigned ms)
{
    memcached_return_t rc;

    rc = memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, ms);
    if (rc == MEMCACHED_SUCCESS)
        rc = memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, ms);
    return mcds__from_memcached(rc);
}

/* Defaults for handles made by mcds_open from a plain server list. */
static mcds_status_t set_defaults(memcached_st *mc)
{
    memcached_return_t rc;

    rc = memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_KETAMA, 1);
    if (rc == MEMCACHED_SUCCESS)
        rc = memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
    if (rc != MEMCACHED_SUCCESS)
        return mcds__from_memcached(rc);
    return set_io_timeout(mc, DEFAULT_IO_MS);
}

/* A memcached_st for servers: a server list (its replica sets go to
 * *rsets) or a "--..." config string. */
static mcds_status_t make_memcached(memcached_st **out, const char *servers,
                                    mcds__rset_t **rsets, size_t *nrsets)
{
    memcached_st *mc;
    mcds_status_t st;

    if (strncmp(servers, "--", 2) == 0) {
        mc = memcached(servers, strlen(servers));
        if (mc == NULL)
            return MCDS_INVALID;
        *out = mc;
        return MCDS_OK;
    }
    mc = memcached_create(NULL);
    if (mc == NULL)
        return MCDS_NO_MEMORY;
    st = set_defaults(mc);
    if (st == MCDS_OK)
        st = mcds__servers_add(mc, servers, rsets, nrsets);
    if (st != MCDS_OK) {
        memcached_free(mc);
        return st;
    }
    *out = mc;
    return MCDS_OK;
}

mcds_status_t mcds_open(mcds_t **out, const char *servers)
{
    memcached_st *mc = NULL;
    mcds__rset_t *rsets = NULL;
    size_t nrsets = 0;
    mcds_status_t st;

    if (out == NULL || servers == NULL || servers[0] == '\0')
        return MCDS_INVALID;
    *out = NULL;
    st = make_memcached(&mc, servers, &rsets, &nrsets);
    if (st == MCDS_OK)
        st = require_behaviors(mc);
    if (st == MCDS_OK)
        st = new_handle(out, mc, 1);
    if (st != MCDS_OK) {
        if (mc != NULL)
            memcached_free(mc);
        mcds__rsets_free(rsets, nrsets);
        return st;
    }
    (*out)->rsets = rsets;
    (*out)->nrsets = nrsets;
    return st;
}

mcds_status_t mcds_wrap(mcds_t **out, struct memcached_st *mc)
{
    mcds_status_t st;

    if (out == NULL || mc == NULL)
        return MCDS_INVALID;
    *out = NULL;
    st = require_behaviors(mc);
    if (st != MCDS_OK)
        return st;
    return new_handle(out, mc, 0);
}

mcds_status_t mcds_clone(mcds_t **out, const mcds_t *h)
{
    memcached_st *mc;
    mcds_status_t st;

    if (out == NULL || h == NULL)
        return MCDS_INVALID;
    *out = NULL;
    mc = memcached_clone(NULL, h->mc);
    if (mc == NULL)
        return MCDS_NO_MEMORY;
    st = new_handle(out, mc, 1);
    if (st != MCDS_OK) {
        memcached_free(mc);
        return st;
    }
    (*out)->retry_ms = h->retry_ms;
    (*out)->read_replicas = h->read_replicas;
    st = mcds__rsets_clone(*out, h);
    if (st != MCDS_OK) {
        mcds_close(*out);
        *out = NULL;
    }
    return st;
}

void mcds_close(mcds_t *h)
{
    if (h == NULL)
        return;
    mcds__xconns_free(h);
    mcds__rsets_free(h->rsets, h->nrsets);
    if (h->owned)
        memcached_free(h->mc);
    free(h);
}

struct memcached_st *mcds_memcached(mcds_t *h)
{
    return h ? h->mc : NULL;
}

const char *mcds_last_detail(mcds_t *h)
{
    return h ? h->detail : "";
}

void mcds_set_retry_timeout(mcds_t *h, unsigned ms)
{
    if (h != NULL)
        h->retry_ms = ms;
}

void mcds_set_read_replicas(mcds_t *h, int on)
{
    if (h != NULL)
        h->read_replicas = on != 0;
}

/* libmemcached leaves a failed server alone for RETRY_TIMEOUT seconds once
 * SERVER_TIMEOUT_LIMIT failures were counted (0, its default: at the first
 * one). No delay at all: a limit it never reaches. */
mcds_status_t mcds_set_reconnect_delay(mcds_t *h, unsigned seconds)
{
    memcached_return_t rc;

    if (h == NULL || seconds > MAX_RECONNECT_DELAY_S)
        return MCDS_INVALID;
    rc = memcached_behavior_set(h->mc, MEMCACHED_BEHAVIOR_RETRY_TIMEOUT,
                                seconds);
    if (rc == MEMCACHED_SUCCESS)
        rc = memcached_behavior_set(h->mc,
                                    MEMCACHED_BEHAVIOR_SERVER_TIMEOUT_LIMIT,
                                    seconds == 0 ? UINT32_MAX : 0);
    return mcds__from_memcached(rc);
}

mcds_status_t mcds_set_io_timeout(mcds_t *h, unsigned ms)
{
    if (h == NULL || ms == 0)
        return MCDS_INVALID;
    return set_io_timeout(h->mc, ms);
}
