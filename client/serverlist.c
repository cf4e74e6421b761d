/*
 * serverlist.c - the plain server list of mcds_open, checked entry by entry.
 *
 * A list is entries separated by commas, each with optional spaces or tabs
 * around it:
 *   host:port          host: a name or IPv4 address, port 1..65535
 *   host:port:weight   weight 1..4294967295
 *   [IPv6]:port[:weight]
 *   /path              a UNIX socket
 * Anything else (an empty entry, a missing or bad port, a stray byte) makes
 * the whole list MCDS_INVALID. The checked entries are handed to
 * libmemcached exactly as its own parser (memcached_servers_parse) would
 * hand them, so servers sit where other libmemcached clients put them; that
 * parser itself is not used, because it reads a bad port as 0 (then its
 * default, 11211) and accepts empty entries.
 */
#include <string.h>

#include "mcds_int.h"

#define HOST_MAX 1024 /* libmemcached's limit on names (NI_MAXHOST - 1) */

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

/* Parses every entry of text into *list; MCDS_INVALID at the first bad
 * one. */
static mcds_status_t parse_list(const char *text,
                                memcached_server_list_st *list)
{
    const char *p = text;

    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        server_entry_t e;
        mcds_status_t st;

        while (p < end && is_blank(*p))
            p++;
        while (end > p && is_blank(end[-1]))
            end--;
        if (parse_entry(&e, p, (size_t)(end - p)) != 0)
            return MCDS_INVALID;
        st = append_entry(list, &e);
        if (st != MCDS_OK || comma == NULL)
            return st;
        p = comma + 1;
    }
}

mcds_status_t mcds__servers_add(memcached_st *mc, const char *text)
{
    memcached_server_list_st list = NULL;
    mcds_status_t st = parse_list(text, &list);

    if (st == MCDS_OK)
        st = mcds__from_memcached(memcached_server_push(mc, list));
    memcached_server_list_free(list);
    return st;
}
