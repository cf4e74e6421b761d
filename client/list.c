/*
 * list.c - wrappers for mcds-server's list verbs (doc/protocol.md,
 * "6. Lists"), over the text-protocol client of xconn.c. A call sends one
 * line and its data blocks with one sendmsg; the only allocation it makes
 * is the result it returns (elements read, in one block freed with
 * mcds_items_free).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

#define LIST_LINE 400               /* a command line: verb, key, numbers */

/* Where one element read sits in the reply buffer. */
typedef struct elem_at {
    size_t off, len;
} elem_at_t;

/* The name as the line carries it ("" for none: the call then refuses it
 * before sending anything; a name too long for the line likewise). */
static const char *name_of(const char *list)
{
    return list != NULL ? list : "";
}

/* More than the protocol can say. */
static int too_large(size_t len)
{
    return len > INT32_MAX - 2;
}

/* A whole unsigned decimal line into *v; 0 or -1. */
static int parse_number(const char *p, size_t len, uint64_t *v)
{
    char num[24], *e;

    if (len == 0 || len >= sizeof num || p[0] < '0' || p[0] > '9')
        return -1;
    memcpy(num, p, len);
    num[len] = '\0';
    errno = 0;
    *v = strtoull(num, &e, 10);
    return *e == '\0' && errno == 0 ? 0 : -1;
}

/* Sends iov and reads a reply that is a number (or maps the error). */
static mcds_status_t number_reply(xcall_t *x, struct iovec *iov, int n, uint64_t *v)
{
    size_t off, len;
    uint64_t got;
    mcds_status_t st = mcds__x_send_all(x, iov, n);

    if (st == MCDS_OK)
        st = mcds__x_read_line(x, &off, &len);
    if (st != MCDS_OK)
        return st;
    if (parse_number(x->c->buf + off, len, &got) != 0)
        return mcds__x_reply_error(x, off, len, 1, 1);
    if (v != NULL)
        *v = got;
    return MCDS_OK;
}

/* "VALUE <key> <flags> <bytes>": the bytes; 0 or -1. */
static int parse_value(const char *p, size_t len, size_t *bytes)
{
    const char *sp;
    uint64_t v;

    if (len < 6 || len > LINE_MAX_LEN || memcmp(p, "VALUE ", 6) != 0)
        return -1;
    sp = p + len;
    while (sp > p && sp[-1] != ' ')
        sp--;
    if (parse_number(sp, (size_t)(p + len - sp), &v) != 0 || v > SIZE_MAX / 2)
        return -1;
    *bytes = (size_t)v;
    return 0;
}

/* Copies the n elements at[] out of the reply buffer, in one block. */
static mcds_status_t pack_items(const xcall_t *x, const elem_at_t *at, size_t n,
                                mcds_item_t **out)
{
    size_t bytes = n * sizeof(mcds_item_t) + 1, i;
    mcds_item_t *it;
    char *text;

    for (i = 0; i < n; i++)
        bytes += at[i].len + 1;
    it = malloc(bytes);
    if (it == NULL)
        return MCDS_NO_MEMORY;
    text = (char *)(it + n);
    for (i = 0; i < n; i++) {
        it[i].data = text;
        it[i].len = at[i].len;
        if (at[i].len > 0)
            memcpy(text, x->c->buf + at[i].off, at[i].len);
        text[at[i].len] = '\0';
        text += at[i].len + 1;
    }
    *out = it;
    return MCDS_OK;
}

/* Sends line and reads up to max elements as VALUE lines and END. */
static mcds_status_t values_reply(xcall_t *x, const char *line, size_t llen, size_t max,
                                  mcds_item_t **items, size_t *count)
{
    elem_at_t *at = malloc((max > 0 ? max : 1) * sizeof *at);
    size_t got = 0, off, len;
    mcds_status_t st = at == NULL ? MCDS_NO_MEMORY : mcds__x_send_line(x, line, llen);

    while (st == MCDS_OK) {
        const char *p;
        st = mcds__x_read_line(x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x->c->buf + off;
        if (mcds__x_line_is(p, len, "END"))
            break;
        if (got == max || parse_value(p, len, &at[got].len) != 0) {
            st = mcds__x_reply_error(x, off, len, 1, 0);
            break;
        }
        st = mcds__x_data_block(x, at[got].len, &at[got].off);
        if (st != MCDS_OK)
            break;
        got++;
    }
    if (st == MCDS_OK && got > 0)
        st = pack_items(x, at, got, items);
    if (st == MCDS_OK)
        *count = got;
    free(at);
    return st;
}

static int end_ok(mcds_list_end_t end)
{
    return end == MCDS_LIST_HEAD || end == MCDS_LIST_TAIL;
}

mcds_status_t mcds_list_create(mcds_t *h, const char *list, uint64_t max_len)
{
    char line[LIST_LINE];
    size_t n, off, len;
    xcall_t x;
    mcds_status_t st = mcds__x_begin(&x, h, list);

    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "lcreate %s maxlen=%" PRIu64 "\r\n", list, max_len);
    st = mcds__x_send_line(&x, line, n);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &len);
    if (st == MCDS_OK && mcds__x_line_is(x.c->buf + off, len, "EXISTS"))
        st = MCDS_EXISTS;
    else if (st == MCDS_OK && !mcds__x_line_is(x.c->buf + off, len, "CREATED"))
        st = mcds__x_reply_error(&x, off, len, 0, 0);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_list_push(mcds_t *h, const char *list, mcds_list_end_t end,
                             const mcds_item_t *values, size_t n, uint64_t *len)
{
    char line[LIST_LINE + 12 * MCDS_LIST_PUSH_MAX];
    struct iovec iov[1 + 2 * MCDS_LIST_PUSH_MAX];
    size_t k, ll;
    xcall_t x;
    mcds_status_t st;

    if (!end_ok(end) || values == NULL || n < 1 || n > MCDS_LIST_PUSH_MAX)
        return MCDS_INVALID;
    for (k = 0; k < n; k++) {
        if (values[k].data == NULL && values[k].len > 0)
            return MCDS_INVALID;
        if (too_large(values[k].len))
            return MCDS_TOO_LARGE;
    }
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    ll = (size_t)snprintf(line, sizeof line, "%s %s", end == MCDS_LIST_HEAD ? "lpush" : "rpush", list);
    for (k = 0; k < n; k++) {
        ll += (size_t)snprintf(line + ll, sizeof line - ll, " %zu", values[k].len);
        iov[1 + 2 * k].iov_base = (void *)values[k].data;
        iov[1 + 2 * k].iov_len = values[k].len;
        iov[2 + 2 * k].iov_base = (void *)"\r\n";
        iov[2 + 2 * k].iov_len = 2;
    }
    ll += (size_t)snprintf(line + ll, sizeof line - ll, "\r\n");
    iov[0].iov_base = line;
    iov[0].iov_len = ll;
    return mcds__x_end(&x, number_reply(&x, iov, 1 + 2 * (int)n, len));
}

mcds_status_t mcds_list_pop(mcds_t *h, const char *list, mcds_list_end_t end, unsigned max,
                            unsigned wait_ms, mcds_item_t **items, size_t *count)
{
    char line[LIST_LINE], secs[24];
    size_t n;
    xcall_t x;
    mcds_status_t st;

    if (items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    if (!end_ok(end) || max < 1 || max > MCDS_LIST_READ_MAX)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "%s %s %u", end == MCDS_LIST_HEAD ? "lpop" : "rpop",
                         list, max);
    if (wait_ms > 0) {
        mcds__x_fmt_secs(secs, sizeof secs, wait_ms);
        n += (size_t)snprintf(line + n, sizeof line - n, " wait=%s", secs);
        x.first_ms = (int)(wait_ms > INT32_MAX / 2 ? INT32_MAX / 2 : wait_ms);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    return mcds__x_end(&x, values_reply(&x, line, n, max, items, count));
}

mcds_status_t mcds_list_len(mcds_t *h, const char *list, uint64_t *len)
{
    char line[LIST_LINE];
    struct iovec iov;
    xcall_t x;
    mcds_status_t st;

    if (len == NULL)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    iov.iov_base = line;
    iov.iov_len = (size_t)snprintf(line, sizeof line, "llen %s\r\n", list);
    return mcds__x_end(&x, number_reply(&x, &iov, 1, len));
}

mcds_status_t mcds_list_range(mcds_t *h, const char *list, int64_t offset, unsigned limit,
                              mcds_item_t **items, size_t *count)
{
    char line[LIST_LINE];
    size_t n;
    xcall_t x;
    mcds_status_t st;

    if (items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    if (limit > MCDS_LIST_READ_MAX)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "lrange %s %" PRId64 " %u\r\n", list, offset, limit);
    return mcds__x_end(&x, values_reply(&x, line, n, limit, items, count));
}

mcds_status_t mcds_list_index(mcds_t *h, const char *list, int64_t index, mcds_item_t **item)
{
    char line[LIST_LINE];
    size_t n, count = 0;
    xcall_t x;
    mcds_status_t st;

    if (item == NULL)
        return MCDS_INVALID;
    *item = NULL;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "lindex %s %" PRId64 "\r\n", list, index);
    st = values_reply(&x, line, n, 1, item, &count);
    return mcds__x_end(&x, st == MCDS_OK && count == 0 ? MCDS_NOT_FOUND : st);
}

/* A verb with a number on its line and data blocks after it: reads a
 * number reply (stored is the word that means success instead, if any). */
static mcds_status_t blocks_call(mcds_t *h, const char *list, const char *line,
                                 size_t llen, const mcds_item_t *blocks, int nblocks,
                                 const char *stored, uint64_t *v)
{
    struct iovec iov[5];
    size_t off, len;
    xcall_t x;
    int k;
    mcds_status_t st;

    for (k = 0; k < nblocks; k++)
        if (blocks[k].data == NULL && blocks[k].len > 0)
            return MCDS_INVALID;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    iov[0].iov_base = (void *)line;
    iov[0].iov_len = llen;
    for (k = 0; k < nblocks; k++) {
        iov[1 + 2 * k].iov_base = (void *)blocks[k].data;
        iov[1 + 2 * k].iov_len = blocks[k].len;
        iov[2 + 2 * k].iov_base = (void *)"\r\n";
        iov[2 + 2 * k].iov_len = 2;
    }
    if (stored == NULL)
        return mcds__x_end(&x, number_reply(&x, iov, 1 + 2 * nblocks, v));
    st = mcds__x_send_all(&x, iov, 1 + 2 * nblocks);
    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &len);
    if (st == MCDS_OK && !mcds__x_line_is(x.c->buf + off, len, stored))
        st = mcds__x_reply_error(&x, off, len, 1, 1);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_list_set(mcds_t *h, const char *list, int64_t index, const void *data,
                            size_t len)
{
    char line[LIST_LINE];
    mcds_item_t v = { data, len };
    size_t n;

    if (too_large(len))
        return MCDS_TOO_LARGE;
    n = (size_t)snprintf(line, sizeof line, "lset %s %" PRId64 " %zu\r\n", name_of(list),
                         index, len);
    return blocks_call(h, list, line, n, &v, 1, "STORED", NULL);
}

mcds_status_t mcds_list_insert(mcds_t *h, const char *list, int after, const void *pivot,
                               size_t plen, const void *data, size_t len, uint64_t *newlen)
{
    char line[LIST_LINE];
    mcds_item_t v[2] = { { pivot, plen }, { data, len } };
    size_t n;

    if (too_large(len) || too_large(plen))
        return MCDS_TOO_LARGE;
    n = (size_t)snprintf(line, sizeof line, "linsert %s %s %zu %zu\r\n", name_of(list),
                         after ? "after" : "before", plen, len);
    return blocks_call(h, list, line, n, v, 2, NULL, newlen);
}

mcds_status_t mcds_list_remove(mcds_t *h, const char *list, int64_t count, const void *data,
                               size_t len, uint64_t *removed)
{
    char line[LIST_LINE];
    mcds_item_t v = { data, len };
    size_t n;

    if (too_large(len))
        return MCDS_TOO_LARGE;
    n = (size_t)snprintf(line, sizeof line, "lrem %s %" PRId64 " %zu\r\n", name_of(list),
                         count, len);
    return blocks_call(h, list, line, n, &v, 1, NULL, removed);
}

mcds_status_t mcds_list_contains(mcds_t *h, const char *list, const void *data, size_t len,
                                 int *found)
{
    char line[LIST_LINE];
    mcds_item_t v = { data, len };
    uint64_t yes = 0;
    size_t n;
    mcds_status_t st;

    if (found == NULL)
        return MCDS_INVALID;
    *found = 0;
    if (too_large(len))
        return MCDS_TOO_LARGE;
    n = (size_t)snprintf(line, sizeof line, "lexists %s %zu\r\n", name_of(list), len);
    st = blocks_call(h, list, line, n, &v, 1, NULL, &yes);
    *found = st == MCDS_OK && yes != 0;
    return st;
}

mcds_status_t mcds_list_trim(mcds_t *h, const char *list, int64_t offset, uint64_t limit,
                             uint64_t *removed)
{
    char line[LIST_LINE];
    size_t n;

    n = (size_t)snprintf(line, sizeof line, "ltrim %s %" PRId64 " %" PRIu64 "\r\n",
                         name_of(list), offset, limit);
    return blocks_call(h, list, line, n, NULL, 0, NULL, removed);
}

mcds_status_t mcds_list_delete(mcds_t *h, const char *list)
{
    return mcds_queue_delete(h, list);
}
