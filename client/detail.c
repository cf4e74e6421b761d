/*
 * detail.c - the text of mcds_last_detail for requests sent through
 * libmemcached, in the one style of every detail: "<host>:<port>: <what
 * happened>" (queue.c writes its own details in the same style).
 *
 * The text names the server's reply when it was not a success (NOT_FOUND,
 * "CLIENT_ERROR <the server's text>") or what went wrong with the
 * connection ("connect: Connection refused", "timed out waiting for the
 * server"). libmemcached's own message is never shown as it is: it holds a
 * pointer and a source path. Only the server's text of a SERVER_ERROR or
 * CLIENT_ERROR reply is taken from it, and only when the message has the
 * shape libmemcached gives such replies.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mcds_int.h"

/* The reply of a server that answered, as the text protocol spells it;
 * NULL for anything else. */
static const char *reply_word(memcached_return_t rc)
{
    switch (rc) {
    case MEMCACHED_NOTFOUND:
        return "NOT_FOUND";
    case MEMCACHED_NOTSTORED:
        return "NOT_STORED";
    case MEMCACHED_DATA_EXISTS:
        return "EXISTS";
    case MEMCACHED_ERROR:
        return "ERROR";
    case MEMCACHED_E2BIG:
        return "SERVER_ERROR object too large for cache";
    case MEMCACHED_SERVER_MEMORY_ALLOCATION_FAILURE:
        return "SERVER_ERROR out of memory";
    case MEMCACHED_SERVER_ERROR:
        return "SERVER_ERROR";
    case MEMCACHED_CLIENT_ERROR:
        return "CLIENT_ERROR";
    default:
        return NULL;
    }
}

/* What went wrong with the connection or the request; NULL when rc is not
 * one of these. err is the errno libmemcached saw (0 if none). */
static const char *failure_text(memcached_return_t rc, int err, char *buf,
                                size_t size)
{
    switch (rc) {
    case MEMCACHED_CONNECTION_FAILURE:
        if (err == ECONNREFUSED)
            snprintf(buf, size, "connect: %s", strerror(err));
        else if (err != 0)
            snprintf(buf, size, "connection failed: %s", strerror(err));
        else
            snprintf(buf, size, "connection closed by the server");
        return buf;
    case MEMCACHED_ERRNO:
    case MEMCACHED_WRITE_FAILURE:
    case MEMCACHED_READ_FAILURE:
        snprintf(buf, size, "%s: %s",
                 rc == MEMCACHED_WRITE_FAILURE ? "send"
                 : rc == MEMCACHED_READ_FAILURE ? "recv" : "I/O",
                 err != 0 ? strerror(err) : "failed");
        return buf;
    case MEMCACHED_TIMEOUT:
        return "timed out waiting for the server";
    case MEMCACHED_SERVER_TEMPORARILY_DISABLED:
        return "not tried: it failed less than the reconnect delay ago";
    case MEMCACHED_SERVER_MARKED_DEAD:
        return "marked dead after repeated failures";
    case MEMCACHED_HOST_LOOKUP_FAILURE:
        return "host lookup failed";
    case MEMCACHED_PARTIAL_READ:
        return "the reply was cut short";
    case MEMCACHED_UNKNOWN_READ_FAILURE:
        return "a reply libmemcached could not read";
    default:
        return NULL;
    }
}

/* The server's own text of a SERVER_ERROR or CLIENT_ERROR reply, cut out
 * of libmemcached's message "(<pointer>) [SERVER ERROR, ]<text>,  host:
 * ..."; "" when the message has another shape. */
static void server_text(const memcached_st *mc, memcached_return_t rc,
                        char *buf, size_t size)
{
    const char *msg = memcached_last_error_message(mc);
    const char *p = msg ? strstr(msg, ") ") : NULL;
    const char *skip = "SERVER ERROR, ";
    const char *end;

    buf[0] = '\0';
    if (p == NULL || memcached_last_error(mc) != rc)
        return;
    p += 2;
    if (rc == MEMCACHED_SERVER_ERROR && strncmp(p, skip, strlen(skip)) == 0)
        p += strlen(skip);
    end = strstr(p, ",  host: ");
    if (end == NULL || end == p)
        return;
    snprintf(buf, size, " %.*s", (int)(end - p), p);
}

/* libmemcached's name for rc in lower case, for the rare rest. */
static void lower_strerror(const memcached_st *mc, memcached_return_t rc,
                           char *buf, size_t size)
{
    size_t i;

    snprintf(buf, size, "%s", memcached_strerror(mc, rc));
    for (i = 0; buf[i] != '\0'; i++)
        buf[i] = (char)tolower((unsigned char)buf[i]);
}

/* What happened, for a request that did not succeed. */
static void what_happened(mcds_t *h, memcached_return_t rc, char *buf,
                          size_t size)
{
    const char *word = reply_word(rc);
    int err = memcached_last_error(h->mc) == rc
                  ? memcached_last_error_errno(h->mc) : 0;
    char text[256];

    if (word != NULL) {
        server_text(h->mc, rc, text, sizeof text);
        snprintf(buf, size, "%s%s", word,
                 rc == MEMCACHED_SERVER_ERROR || rc == MEMCACHED_CLIENT_ERROR
                     ? text : "");
        return;
    }
    word = failure_text(rc, err, text, sizeof text);
    if (word != NULL)
        snprintf(buf, size, "%s", word);
    else
        lower_strerror(h->mc, rc, buf, size);
}

void mcds__detail_memcached(mcds_t *h, const mcds__key_t *group,
                            memcached_return_t rc)
{
    const memcached_instance_st *s;
    memcached_return_t found = MEMCACHED_SUCCESS;
    char what[300];

    if (mcds__from_memcached(rc) == MCDS_OK) {
        h->detail[0] = '\0';
        return;
    }
    what_happened(h, rc, what, sizeof what);
    s = memcached_server_by_key(h->mc, group->s, group->len, &found);
    if (s == NULL)
        snprintf(h->detail, sizeof h->detail, "%s", what);
    else
        snprintf(h->detail, sizeof h->detail, "%s:%u: %s",
                 memcached_server_name(s), (unsigned)memcached_server_port(s),
                 what);
}
