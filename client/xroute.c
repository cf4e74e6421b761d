/*
 * xroute.c - routing over replica sets: which member of a server list
 * entry that names replicas ("P=R1=R2", serverlist.c) a request goes to,
 * and when it is sent again.
 *
 * Everything libmcds sends to such a shard goes through the extended-verb
 * client (xconn.c; kvx.c for its classic requests), whose calls on a
 * replica set pick their member here when their first request is sent:
 *  - a request goes to the shard's current primary, at first its service
 *    address (the entry's first); with mcds_set_read_replicas on, one
 *    whose verb is on the server's read list (below) goes to the replicas
 *    (the members other than the current primary) in turn, a replica that
 *    cannot be connected to or refuses as stale skipped, the primary when
 *    none answers;
 *  - a request is sent again only when it surely was not applied: its
 *    connect failed (the other members are then tried in list order, the
 *    service address again last), or the first line of its reply is a
 *    refusal as a replica: "SERVER_ERROR read-only replica of H:P" sends
 *    it to H:P next (listed or not); the refusal without a usable address
 *    or "SERVER_ERROR stale replica..." counts as a connect failure. A
 *    connection lost after the request was written, a timeout waiting for
 *    the reply or any other reply is the caller's, as on a plain entry;
 *  - bounded: 100 ms between rounds of members and between redirects
 *    after the first, no new attempt once the handle's retry timeout has
 *    passed; the call then returns its last failure (MCDS_SERVER_DOWN, or
 *    the refusal line, which the caller maps to MCDS_SERVER_ERROR).
 * The member that answers a request other than a replica read becomes the
 * shard's current primary for the handle's later calls.
 *
 * A member that could not be reached (its connect or probe failed) or that
 * refused as stale is marked down for the handle's reconnect delay
 * (mcds_set_reconnect_delay; libmemcached's RETRY_TIMEOUT, 0: never
 * marked). Replica reads skip a member marked down; the first read after
 * its mark is over tries it again: an answer clears the mark, a failure
 * marks it again for twice as long, up to DOWN_CAP_MS (or the delay, when
 * longer). Writes and the walk after a failure ignore the marks (they go
 * on marking and clearing them).
 *
 * A call keeps its request's bytes (x->req) until the first line of the
 * reply is read, to send them again.
 */
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

#define PAUSE_MS 100
#define DOWN_CAP_MS 30000u

/* The verbs of the server's read list (server/proto/readonly.c) that a
 * replica may answer for libmcds. The table cursors' verbs (tselect,
 * tscan, tnext, tclose) are not among them: a cursor lives on the server
 * that made it, and mcds_tnext from any handle must find it there, on the
 * primary. */
static const char *const replica_reads[] = {
    "get", "gets", "qpeek", "qpending", "qstats", "qinfo", "qlist",
    "llen", "lrange", "lindex", "lexists", "lpos",
    "ctcounter", "ctcounters", "ctinfo", "ctchildren", "ctget", "ctvalues",
    "ctactive", "ctperiods", "tget", "tinfo", "tlist",
};

enum { REFUSAL_NONE, REFUSAL_ADDRESS, REFUSAL_PLAIN, REFUSAL_STALE };

/* ---- the handle's replica sets ---- */

mcds__rset_t *mcds__rset_of_server(mcds_t *h, const memcached_instance_st *s)
{
    const char *name, *type;
    unsigned port;
    size_t i;

    if (h->nrsets == 0 || s == NULL)
        return NULL;
    name = memcached_server_name(s);
    type = memcached_server_type(s);
    if (name == NULL)
        return NULL;
    port = type != NULL && strcmp(type, "SOCKET") == 0
               ? 0 : (unsigned)memcached_server_port(s);
    for (i = 0; i < h->nrsets; i++) {
        const mcds__xconn_t *c = h->rsets[i].m[0];
        if (c->port == port && strcmp(c->name, name) == 0)
            return &h->rsets[i];
    }
    return NULL;
}

mcds__rset_t *mcds__rset_of_key(mcds_t *h, const char *key, size_t len)
{
    memcached_return_t rc = MEMCACHED_SUCCESS;

    if (h->nrsets == 0)
        return NULL;
    return mcds__rset_of_server(h, memcached_server_by_key(h->mc, key, len,
                                                           &rc));
}

void mcds__rsets_free(mcds__rset_t *v, size_t n)
{
    size_t i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j <= MCDS__RSET_MAX; j++)
            mcds__xconn_free(v[i].m[j]);
    free(v);
}

mcds_status_t mcds__rsets_clone(mcds_t *to, const mcds_t *h)
{
    size_t i, j;

    if (h->nrsets == 0)
        return MCDS_OK;
    to->rsets = calloc(h->nrsets, sizeof *to->rsets);
    if (to->rsets == NULL)
        return MCDS_NO_MEMORY;
    to->nrsets = h->nrsets;
    for (i = 0; i < h->nrsets; i++) {
        const mcds__rset_t *from = &h->rsets[i];
        to->rsets[i].n = from->n;
        to->rsets[i].primary = from->primary;
        to->rsets[i].next_read = from->next_read;
        memcpy(to->rsets[i].down_until, from->down_until,
               sizeof from->down_until);
        memcpy(to->rsets[i].down_ms, from->down_ms, sizeof from->down_ms);
        for (j = 0; j <= MCDS__RSET_MAX; j++) {
            if (from->m[j] == NULL)
                continue;
            to->rsets[i].m[j] = mcds__xconn_new(from->m[j]->name,
                                                from->m[j]->port);
            if (to->rsets[i].m[j] == NULL)
                return MCDS_NO_MEMORY;
        }
    }
    return MCDS_OK;
}

/* ---- what a request and its reply are ---- */

/* Whether the request's verb is one a replica may answer. */
static int is_replica_read(const mcds__buf_t *req)
{
    size_t i, n = 0;

    while (n < req->len && req->p[n] != ' ' && req->p[n] != '\r')
        n++;
    for (i = 0; i < sizeof replica_reads / sizeof replica_reads[0]; i++)
        if (strlen(replica_reads[i]) == n &&
            memcmp(replica_reads[i], req->p, n) == 0)
            return 1;
    return 0;
}

/* Whether a reply line is a refusal as a replica, and with an address
 * (host, room for MCDS__HOST_MAX + 1 bytes, and port) to go to. */
static int refusal(const char *p, size_t len, char *host, unsigned *port)
{
    static const char ro[] = "SERVER_ERROR read-only replica";
    static const char ro_of[] = "SERVER_ERROR read-only replica of ";
    size_t n = sizeof ro_of - 1;

    if (mcds__x_line_starts(p, len, "SERVER_ERROR stale replica"))
        return REFUSAL_STALE;
    if (mcds__x_line_is(p, len, ro))
        return REFUSAL_PLAIN;
    if (!mcds__x_line_starts(p, len, ro_of))
        return REFUSAL_NONE;
    if (mcds__address_parse(p + n, len - n, host, port) == 0)
        return REFUSAL_ADDRESS;
    return REFUSAL_PLAIN;
}

/* ---- members marked down ---- */

/* The handle's reconnect delay in ms: how long a member is marked down at
 * first (0: never). */
static unsigned down_base_ms(const mcds_t *h)
{
    uint64_t s = memcached_behavior_get(h->mc,
                                        MEMCACHED_BEHAVIOR_RETRY_TIMEOUT);

    return s > 86400 ? 86400u * 1000u : (unsigned)s * 1000u;
}

/* Whether replica reads leave member i alone now. */
static int member_is_down(const xcall_t *x, size_t i)
{
    return x->rs->down_ms[i] != 0 && down_base_ms(x->h) != 0 &&
           mcds__mono_ms() < x->rs->down_until[i];
}

/* Member i could not be reached, or refused as stale: marked down for the
 * delay, or twice its last mark when that one is over (the failed try
 * after it), up to the cap. A try made while it is marked (a write's)
 * leaves the mark as it is. */
static void member_failed(xcall_t *x, size_t i)
{
    mcds__rset_t *rs = x->rs;
    unsigned base = down_base_ms(x->h);
    unsigned cap = base > DOWN_CAP_MS ? base : DOWN_CAP_MS;
    int64_t now = mcds__mono_ms();
    unsigned ms;

    if (base == 0)
        ms = 0;
    else if (rs->down_ms[i] == 0)
        ms = base;
    else if (now < rs->down_until[i])
        return;
    else
        ms = rs->down_ms[i] >= cap / 2 ? cap : rs->down_ms[i] * 2;
    rs->down_ms[i] = ms;
    rs->down_until[i] = now + ms;
}

/* Member i answered: no longer marked. */
static void member_up(mcds__rset_t *rs, size_t i)
{
    rs->down_ms[i] = 0;
    rs->down_until[i] = 0;
}

/* mcds__x_open on member i, which marks it down when it cannot be
 * reached. */
static mcds_status_t open_member(xcall_t *x, size_t i)
{
    mcds_status_t st;

    x->at = i;
    st = mcds__x_open(x, x->rs->m[i]);
    if (st == MCDS_SERVER_DOWN)
        member_failed(x, i);
    return st;
}

/* ---- picking members ---- */

/* Sleeps PAUSE_MS, not past the deadline: 0, or -1 when it has passed. */
static int pause_round(xcall_t *x)
{
    int64_t left = x->deadline - mcds__mono_ms();

    if (left <= 0)
        return -1;
    mcds__sleep_ms(left < PAUSE_MS ? (unsigned)left : PAUSE_MS);
    return mcds__mono_ms() < x->deadline ? 0 : -1;
}

static void walk_start(xcall_t *x, size_t failed)
{
    x->walking = 1;
    x->walk = 0;
    x->round = 0;
    x->failed = failed;
}

/* The next member of the walk after a failure: in each round members 1 to
 * n-1 then 0 (the service address, again last even when it is the one
 * that failed), the replica that failed skipped in the first round, a
 * pause between rounds. -1 once the deadline has passed. */
static long walk_next(xcall_t *x)
{
    size_t n = x->rs->n;

    for (;;) {
        size_t i;
        if (x->walk == n) {
            if (pause_round(x) != 0)
                return -1;
            x->walk = 0;
            x->round++;
        }
        i = (x->walk + 1) % n;
        x->walk++;
        if (x->round == 0 && i == x->failed && i != 0)
            continue;
        if (mcds__mono_ms() >= x->deadline)
            return -1;
        return (long)i;
    }
}

/* Connects to member i, and along the walk to the others while connects
 * fail: MCDS_OK, or the last failure. */
static mcds_status_t connect_from(xcall_t *x, size_t i)
{
    for (;;) {
        mcds_status_t st;
        long next;

        st = open_member(x, i);
        if (st == MCDS_OK)
            x->h->detail[0] = '\0';    /* the members that failed before */
        if (st != MCDS_SERVER_DOWN)
            return st;
        if (!x->walking)
            walk_start(x, i);
        next = walk_next(x);
        if (next < 0)
            return st;
        i = (size_t)next;
    }
}

/* Connects to the next replica a read has not tried (round robin from
 * where the read started), those marked down skipped: 0, or -1 when none
 * could be. */
static int connect_replica(xcall_t *x)
{
    mcds__rset_t *rs = x->rs;

    while (x->rtried < rs->n) {
        size_t i = (x->rpos + x->rtried++) % rs->n;
        if (i == rs->primary || member_is_down(x, i))
            continue;
        if (open_member(x, i) == MCDS_OK) {
            x->h->detail[0] = '\0';
            return 0;
        }
    }
    return -1;
}

/* The member host:port, or the slot for a primary outside the list, set to
 * it: its index, or -1 for no memory. */
static long member_named(xcall_t *x, const char *host, unsigned port)
{
    mcds__rset_t *rs = x->rs;
    mcds__xconn_t *c;
    size_t i;

    for (i = 0; i <= rs->n; i++) {
        c = rs->m[i];
        if (c != NULL && c->port == port && strcmp(c->name, host) == 0)
            return (long)i;
    }
    c = mcds__xconn_new(host, port);
    if (c == NULL)
        return -1;
    mcds__xconn_free(rs->m[rs->n]);   /* the call leaves it (x->c) now */
    rs->m[rs->n] = c;
    member_up(rs, rs->n);
    return (long)rs->n;
}

/* The first member of a call, for its first request (in x->req). */
static mcds_status_t route(xcall_t *x)
{
    mcds__rset_t *rs = x->rs;

    x->deadline = mcds__mono_ms() + (int64_t)x->h->retry_ms;
    x->first_saved = x->first_ms;
    if (x->h->read_replicas && !x->primary_only && is_replica_read(&x->req)) {
        x->on_replica = 1;
        x->rpos = rs->next_read;
        x->rtried = 0;
        if (connect_replica(x) == 0) {
            rs->next_read = (x->at + 1) % rs->n;
            return MCDS_OK;
        }
    }
    x->on_replica = 0;
    return connect_from(x, rs->primary);
}

/* Where a request refused on x->c goes next, connected: MCDS_OK, or a
 * failure; *gave_up when the deadline has passed first (x->c and the
 * refusal line untouched). */
static mcds_status_t elsewhere(xcall_t *x, int kind, const char *host,
                               unsigned port, int *gave_up)
{
    long next;

    *gave_up = 0;
    if (x->on_replica) {
        if (connect_replica(x) == 0)
            return MCDS_OK;
        x->on_replica = 0;
        return connect_from(x, x->rs->primary);
    }
    if (kind == REFUSAL_ADDRESS) {
        if ((x->redirects++ > 0 && pause_round(x) != 0) ||
            mcds__mono_ms() >= x->deadline) {
            *gave_up = 1;
            return MCDS_OK;
        }
        next = member_named(x, host, port);
        if (next < 0)
            return MCDS_NO_MEMORY;
        x->walking = 0;
        return connect_from(x, (size_t)next);
    }
    if (!x->walking)
        walk_start(x, x->at);
    next = walk_next(x);
    if (next < 0) {
        *gave_up = 1;
        return MCDS_OK;
    }
    return connect_from(x, (size_t)next);
}

/* ---- the calls' hooks (xconn.h) ---- */

mcds_status_t mcds__xr_send(xcall_t *x, struct iovec *iov, int n)
{
    mcds_status_t st = MCDS_OK;
    int i;

    if (!x->waiting) {
        x->req.len = 0;
        x->waiting = 1;
    }
    for (i = 0; i < n && st == MCDS_OK; i++)
        st = mcds__buf_put(&x->req, iov[i].iov_base, iov[i].iov_len);
    if (st != MCDS_OK) {
        mcds__x_detail(x, "no memory for the request");
        return st;
    }
    if (x->c == NULL) {
        st = route(x);
        if (st != MCDS_OK)
            return st;
    }
    return mcds__x_send_raw(x, iov, n);
}

mcds_status_t mcds__xr_first_line(xcall_t *x, size_t *off, size_t *len)
{
    char host[MCDS__HOST_MAX + 1];
    unsigned port = 0;

    x->waiting = 0;
    for (;;) {
        int kind = refusal(x->c->buf + *off, *len, host, &port);
        int gave_up;
        mcds_status_t st;
        struct iovec iov;

        if (kind == REFUSAL_NONE) {
            member_up(x->rs, x->at);
            if (!x->on_replica)
                x->rs->primary = x->at;
            return MCDS_OK;
        }
        if (kind == REFUSAL_STALE)
            member_failed(x, x->at);
        st = elsewhere(x, kind, host, port, &gave_up);
        if (gave_up)
            return MCDS_OK;     /* the refusal is the reply */
        iov.iov_base = x->req.p;
        iov.iov_len = x->req.len;
        x->first_ms = x->first_saved;
        if (st == MCDS_OK)
            st = mcds__x_send_raw(x, &iov, 1);
        if (st == MCDS_OK)
            st = mcds__x_read_line_raw(x, off, len);
        if (st != MCDS_OK)
            return st;
    }
}
