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
#define KEY_MAX 250                 /* the longest key */

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
    if (mcds__x_parse_u64(x->c->buf + off, len, &got) != 0)
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
    if (mcds__x_parse_u64(sp, (size_t)(p + len - sp), &v) != 0 || v > SIZE_MAX / 2)
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

/* The key of "VALUE <key> ..." into key (KEY_MAX + 1 bytes). */
static void value_key(const char *p, size_t len, char *key)
{
    size_t n = 0;

    while (6 + n < len && p[6 + n] != ' ' && n < KEY_MAX)
        n++;
    memcpy(key, p + 6, n);
    key[n] = '\0';
}

/* Sends line and reads up to max elements as VALUE lines and END; key
 * (KEY_MAX + 1 bytes, or NULL) gets the key the first one names. */
static mcds_status_t values_reply_key(xcall_t *x, const char *line, size_t llen, size_t max,
                                      mcds_item_t **items, size_t *count, char *key)
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
            st = mcds__x_reply_error(x, off, len, 1, 1);
            break;
        }
        if (got == 0 && key != NULL)
            value_key(p, len, key);
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

static mcds_status_t values_reply(xcall_t *x, const char *line, size_t llen, size_t max,
                                  mcds_item_t **items, size_t *count)
{
    return values_reply_key(x, line, llen, max, items, count, NULL);
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

/* lpush/rpush (verb "push") or lpushx/rpushx ("pushx"). */
static mcds_status_t push_call(mcds_t *h, const char *list, mcds_list_end_t end,
                               const mcds_item_t *values, size_t n, uint64_t *len,
                               const char *verb)
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
    ll = (size_t)snprintf(line, sizeof line, "%s%s %s", end == MCDS_LIST_HEAD ? "l" : "r", verb, list);
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

mcds_status_t mcds_list_push(mcds_t *h, const char *list, mcds_list_end_t end,
                             const mcds_item_t *values, size_t n, uint64_t *len)
{
    return push_call(h, list, end, values, n, len, "push");
}

mcds_status_t mcds_list_pushx(mcds_t *h, const char *list, mcds_list_end_t end,
                              const mcds_item_t *values, size_t n, uint64_t *len)
{
    return push_call(h, list, end, values, n, len, "pushx");
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

/* " wait=<secs>" after line (n bytes used of size), and the call's first
 * read allowed that long. */
static size_t wait_option(xcall_t *x, char *line, size_t n, size_t size, unsigned wait_ms)
{
    char secs[24];

    if (wait_ms == 0)
        return n;
    mcds__x_fmt_secs(secs, sizeof secs, wait_ms);
    x->first_ms = (int)(wait_ms > INT32_MAX / 2 ? INT32_MAX / 2 : wait_ms);
    return n + (size_t)snprintf(line + n, size - n, " wait=%s", secs);
}

static const char *end_word(mcds_list_end_t end)
{
    return end == MCDS_LIST_HEAD ? "left" : "right";
}

mcds_status_t mcds_list_move(mcds_t *h, const char *src, const char *dst,
                             mcds_list_end_t from, mcds_list_end_t to, unsigned wait_ms,
                             mcds_item_t **item)
{
    char line[2 * LIST_LINE];
    size_t n, count = 0, dlen;
    mcds_item_t *got = NULL;
    xcall_t x;
    mcds_status_t st;

    if (item != NULL)
        *item = NULL;
    if (!end_ok(from) || !end_ok(to))
        return MCDS_INVALID;
    if (mcds__x_check_name(dst, &dlen) != MCDS_OK)
        return MCDS_INVALID;
    st = mcds__x_begin(&x, h, src);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "lmove %s %s %s %s", src, dst, end_word(from),
                         end_word(to));
    n = wait_option(&x, line, n, sizeof line, wait_ms);
    n += (size_t)snprintf(line + n, sizeof line - n, "\r\n");
    st = values_reply(&x, line, n, 1, &got, &count);
    if (st == MCDS_OK && count == 0)
        st = MCDS_NOT_FOUND;
    if (st == MCDS_OK && item != NULL)
        *item = got;
    else
        mcds_items_free(got);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_list_mpop(mcds_t *h, const char *const *lists, size_t nlists,
                             mcds_list_end_t end, unsigned max, unsigned wait_ms,
                             mcds_item_t **items, size_t *count, size_t *which)
{
    size_t size = nlists * (KEY_MAX + 1) + LIST_LINE, n, i, len;
    char key[KEY_MAX + 1], *line;
    xcall_t x;
    mcds_status_t st;

    if (items == NULL || count == NULL)
        return MCDS_INVALID;
    *items = NULL;
    *count = 0;
    if (which != NULL)
        *which = SIZE_MAX;
    if (lists == NULL || nlists < 1 || nlists > MCDS_LIST_MPOP_MAX || !end_ok(end) || max < 1
        || max > MCDS_LIST_READ_MAX)
        return MCDS_INVALID;
    for (i = 1; i < nlists; i++)
        if (mcds__x_check_name(lists[i], &len) != MCDS_OK)
            return MCDS_INVALID;
    st = mcds__x_begin(&x, h, lists[0]);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    line = malloc(size);
    if (line == NULL)
        return mcds__x_end(&x, MCDS_NO_MEMORY);
    n = (size_t)snprintf(line, size, "lmpop");
    for (i = 0; i < nlists; i++)
        n += (size_t)snprintf(line + n, size - n, " %s", lists[i]);
    n += (size_t)snprintf(line + n, size - n, " %s count=%u", end_word(end), max);
    n = wait_option(&x, line, n, size, wait_ms);
    n += (size_t)snprintf(line + n, size - n, "\r\n");
    key[0] = '\0';
    st = values_reply_key(&x, line, n, max, items, count, key);
    free(line);
    for (i = 0; st == MCDS_OK && *count > 0 && which != NULL && i < nlists; i++)
        if (strcmp(lists[i], key) == 0) {
            *which = i;
            break;
        }
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_list_pos(mcds_t *h, const char *list, const void *data, size_t len,
                            int64_t rank, uint64_t maxlen, uint64_t *pos, size_t max,
                            size_t *npos)
{
    char line[LIST_LINE];
    size_t n, off, llen;
    xcall_t x;
    mcds_status_t st;

    if (npos == NULL || pos == NULL)
        return MCDS_INVALID;
    *npos = 0;
    if (rank == 0 || max < 1 || max > MCDS_LIST_READ_MAX || (data == NULL && len > 0))
        return MCDS_INVALID;
    if (too_large(len))
        return MCDS_TOO_LARGE;
    st = mcds__x_begin(&x, h, list);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    n = (size_t)snprintf(line, sizeof line, "lpos %s %zu rank=%" PRId64 " count=%zu maxlen=%"
                         PRIu64 "\r\n", list, len, rank, max, maxlen);
    st = mcds__x_send_block(&x, line, n, data, len);
    while (st == MCDS_OK) {
        uint64_t v;
        st = mcds__x_read_line(&x, &off, &llen);
        if (st != MCDS_OK || mcds__x_line_is(x.c->buf + off, llen, "END"))
            break;
        if (*npos == max || mcds__x_parse_u64(x.c->buf + off, llen, &v) != 0) {
            st = mcds__x_reply_error(&x, off, llen, 1, 0);
            break;
        }
        pos[(*npos)++] = v;
    }
    if (st != MCDS_OK)
        *npos = 0;
    return mcds__x_end(&x, st);
}
