/*
 * serverlist.c - the plain server list of mcds_open, checked entry by entry.
 *
 * A list is entries separated by commas, each with optional spaces or tabs
 * around it:
 *   host:port          host: a name or IPv4 address, port 1..65535
 *   host:port:weight   weight 1..4294967295
 *   [IPv6]:port[:weight]
 *   /path              a UNIX socket
 * An entry may name a replica set: its first address (the shard's service
 * address, which may carry the weight), then up to 7 replicas, each after
 * "=" (host:port, [IPv6]:port or /path, no weight; spaces or tabs around
 * each are ignored): "10.0.0.9:11211=10.0.0.2:11211=10.0.0.3:11211".
 * Anything else (an empty entry or member, a missing or bad port, a weight
 * on a replica, more than 8 members, a stray byte) makes the whole list
 * MCDS_INVALID. The first address of each checked entry is handed to
 * libmemcached exactly as its own parser (memcached_servers_parse) would
 * hand it, so servers sit where other libmemcached clients put them, and
 * naming replicas never moves a key; that parser itself is not used,
 * because it reads a bad port as 0 (then its default, 11211) and accepts
 * empty entries. The members of replica sets are kept for xroute.c.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define HOST_MAX MCDS__HOST_MAX /* libmemcached's limit (NI_MAXHOST - 1) */

/* One entry. port is 0 for a socket; weight is 0 when not given. */
typedef struct server_entry {
    char host[HOST_MAX + 1];
    in_port_t port;
    uint32_t weight;
} server_entry_t;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A decimal number of 1..max written with digits only. */
static int parse_number(const char *s, size_t len, unsigned long max,
                        unsigned long *out)
{
    unsigned long v = 0;
    size_t i;

    if (len == 0)
        return -1;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > max)
            return -1;
    }
    if (v == 0)
        return -1;
    *out = v;
    return 0;
}

/* Copies a host name: not empty, no blank, control byte or bracket. */
static int copy_host(server_entry_t *e, const char *s, size_t len)
{
    size_t i;

    if (len == 0 || len > HOST_MAX)
        return -1;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || c == '[' || c == ']')
            return -1;
    }
    memcpy(e->host, s, len);
    e->host[len] = '\0';
    return 0;
}

/* "port" or "port:weight" (the bytes after the host's colon). */
static int parse_port_weight(server_entry_t *e, const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len);
    size_t plen = colon ? (size_t)(colon - s) : len;
    unsigned long v;

    if (parse_number(s, plen, 65535, &v) != 0)
        return -1;
    e->port = (in_port_t)v;
    if (colon == NULL)
        return 0;
    if (parse_number(colon + 1, len - plen - 1, 4294967295UL, &v) != 0)
        return -1;
    e->weight = (uint32_t)v;
    return 0;
}

/* Parses one entry, blanks around it already removed. */
static int parse_entry(server_entry_t *e, const char *s, size_t len)
{
    const char *end;

    memset(e, 0, sizeof *e);
    if (len > 0 && s[0] == '/')
        return copy_host(e, s, len);
    if (len > 0 && s[0] == '[') {
        end = memchr(s, ']', len);
        if (end == NULL || end + 1 == s + len || end[1] != ':' ||
            copy_host(e, s + 1, (size_t)(end - s - 1)) != 0 ||
            strchr(e->host, ':') == NULL)
            return -1;
        end++;
    } else {
        end = memchr(s, ':', len);
        if (end == NULL || copy_host(e, s, (size_t)(end - s)) != 0)
            return -1;
    }
    return parse_port_weight(e, end + 1, len - (size_t)(end + 1 - s));
}

/* Appends an entry to list (*list is NULL for an empty list), as
 * libmemcached's own parser would: a socket path is a host with port 0. */
static mcds_status_t append_entry(memcached_server_list_st *list,
                                  const server_entry_t *e)
{
    memcached_return_t rc = MEMCACHED_SUCCESS;
    memcached_server_list_st grown = memcached_server_list_append_with_weight(
        *list, e->host, e->port, e->weight, &rc);

    if (grown == NULL)
        return rc == MEMCACHED_SUCCESS ? MCDS_NO_MEMORY : MCDS_INVALID;
    *list = grown;
    return mcds__from_memcached(rc);
}

/* The list being parsed: libmemcached's servers and the replica sets. */
typedef struct parsed {
    memcached_server_list_st list;
    mcds__rset_t *rsets;
    size_t nrsets;
} parsed_t;

/* Parses the member of s..end (blanks around it removed) into e. */
static int parse_member(server_entry_t *e, const char *s, const char *end)
{
    while (s < end && is_blank(*s))
        s++;
    while (end > s && is_blank(end[-1]))
        end--;
    return parse_entry(e, s, (size_t)(end - s));
}

/* Adds a replica set for the members of the entry s..end (which holds at
 * least one '='); e is its first member, parsed. */
static mcds_status_t add_rset(parsed_t *out, const server_entry_t *e,
                              const char *s, const char *end)
{
    mcds__rset_t *v, *rs;
    server_entry_t r;
    const char *p = memchr(s, '=', (size_t)(end - s)) + 1;

    v = realloc(out->rsets, (out->nrsets + 1) * sizeof *v);
    if (v == NULL)
        return MCDS_NO_MEMORY;
    out->rsets = v;
    rs = &v[out->nrsets++];
    memset(rs, 0, sizeof *rs);
    rs->m[rs->n] = mcds__xconn_new(e->host, e->port);
    if (rs->m[rs->n++] == NULL)
        return MCDS_NO_MEMORY;
    for (;;) {
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *stop = eq ? eq : end;
        if (rs->n == MCDS__RSET_MAX || parse_member(&r, p, stop) != 0 ||
            r.weight != 0)
            return MCDS_INVALID;
        rs->m[rs->n] = mcds__xconn_new(r.host, r.port);
        if (rs->m[rs->n++] == NULL)
            return MCDS_NO_MEMORY;
        if (eq == NULL)
            return MCDS_OK;
        p = eq + 1;
    }
}

/* Parses the entry s..end: its first address goes to libmemcached. */
static mcds_status_t parse_one(parsed_t *out, const char *s, const char *end)
{
    const char *eq = memchr(s, '=', (size_t)(end - s));
    server_entry_t e;
    mcds_status_t st;

    if (parse_member(&e, s, eq ? eq : end) != 0)
        return MCDS_INVALID;
    st = append_entry(&out->list, &e);
    if (st == MCDS_OK && eq != NULL)
        st = add_rset(out, &e, s, end);
    return st;
}

/* Parses every entry of text into out; MCDS_INVALID at the first bad
 * one. */
static mcds_status_t parse_list(const char *text, parsed_t *out)
{
    const char *p = text;

    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        mcds_status_t st = parse_one(out, p, end);

        if (st != MCDS_OK || comma == NULL)
            return st;
        p = comma + 1;
    }
}

mcds_status_t mcds__servers_add(memcached_st *mc, const char *text,
                                mcds__rset_t **rsets, size_t *nrsets)
{
    parsed_t out = {NULL, NULL, 0};
    mcds_status_t st = parse_list(text, &out);

    if (st == MCDS_OK)
        st = mcds__from_memcached(memcached_server_push(mc, out.list));
    memcached_server_list_free(out.list);
    if (st != MCDS_OK) {
        mcds__rsets_free(out.rsets, out.nrsets);
        out.rsets = NULL;
        out.nrsets = 0;
    }
    *rsets = out.rsets;
    *nrsets = out.nrsets;
    return st;
}

int mcds__address_parse(const char *s, size_t len, char *host,
                        unsigned *port)
{
    server_entry_t e;

    if (len == 0 || s[0] == '/' || parse_entry(&e, s, len) != 0 ||
        e.weight != 0)
        return -1;
    memcpy(host, e.host, strlen(e.host) + 1);
    *port = e.port;
    return 0;
}
