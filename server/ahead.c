/*
 * ahead: hashes the keys of pipelined get lines before their turn and
 * prefetches what their lookups will read. At 100,000 keys a lookup
 * otherwise waits for memory three times (the hash bucket, the lock
 * stripe, the item) before it can compare the key; a pipelined
 * connection has its next requests in the read buffer already, so those
 * waits can overlap the work of the requests before them.
 *
 * When line i is dispatched, line i+2's key is hashed and its bucket and
 * stripe prefetched; line i+1's bucket, prefetched one line ago, is read
 * (its stripe trylocked) and its first item prefetched. In a multi-get,
 * the next key of the line is hashed and its bucket prefetched before the
 * current key is looked up (the current key's note moves to [2]).
 *
 * A note names its key by address in the read buffer; conn.c forgets the
 * notes whenever the buffer's bytes move or the buffer goes back to the
 * worker, so a note never outlives the bytes it was made from.
 */
#include <string.h>

#include "ahead.h"
#include "hash.h"
#include "item.h"

/* The key of a "get <key>\r\n", "gets <key>\r\n" or "mg <key> ..." line
 * at p[0..n): its length, 0 when the line is not one, or its key's end is
 * not in the buffer yet. */
static size_t ahead_line_key(const char *p, size_t n, const char **key) {
    size_t skip, i;
    bool meta = false;

    if (n > 5 && memcmp(p, "get ", 4) == 0)
        skip = 4;
    else if (n > 6 && memcmp(p, "gets ", 5) == 0)
        skip = 5;
    else if (n > 4 && memcmp(p, "mg ", 3) == 0) {
        skip = 3;
        meta = true;
    } else
        return 0;
    if (n > skip + ITEM_KEY_MAX + 1)
        n = skip + ITEM_KEY_MAX + 1;
    for (i = skip; i < n; i++) {
        if (p[i] == ' ' && !meta)
            return 0;   /* a multi-get */
        if (p[i] == ' ' || p[i] == '\r' || p[i] == '\n')
            break;
    }
    if (i == n || i == skip)
        return 0;
    *key = p + skip;
    return i - skip;
}

/* Notes slot s for key (or clears it) and prefetches its bucket. */
static void ahead_set(struct conn_ahead *s, const char *key, size_t nkey) {
    s->key = nkey > 0 ? key : NULL;
    if (nkey == 0)
        return;
    s->nkey = (uint8_t)nkey;
    s->hv = hash_key(key, nkey);
    hash_prefetch(s->hv);
}

/* Notes the get line at p[0..n) in slot s; the bytes after it, or NULL. */
static const char *ahead_line(struct conn_ahead *s, const char *p, size_t n) {
    const char *key, *nl;
    size_t nkey = ahead_line_key(p, n, &key);

    ahead_set(s, key, nkey);
    if (nkey == 0)
        return NULL;
    nl = memchr(key + nkey, '\n', n - (size_t)(key + nkey - p));
    return nl != NULL ? nl + 1 : NULL;
}

void ahead_lines(conn *c, const char *next, size_t n) {
    const char *end = next + n, *after;

    c->ahead[2] = c->ahead[1];
    c->ahead[1] = c->ahead[0];
    c->ahead[0].key = NULL;
    if (c->ahead[1].key >= next && c->ahead[1].key < end) {
        hash_prefetch_item(c->ahead[1].hv);
        after = memchr(c->ahead[1].key, '\n', (size_t)(end - c->ahead[1].key));
        after = after != NULL ? after + 1 : NULL;
    } else {
        after = ahead_line(&c->ahead[1], next, n);
    }
    if (after != NULL)
        ahead_line(&c->ahead[0], after, (size_t)(end - after));
}

void ahead_key(conn *c, const char *key, size_t nkey) {
    c->ahead[2] = c->ahead[3];
    ahead_set(&c->ahead[3], key, nkey <= ITEM_KEY_MAX ? nkey : 0);
}

uint32_t ahead_hash(conn *c, const char *key, size_t nkey) {
    if (c->ahead[2].key == key && c->ahead[2].nkey == nkey)
        return c->ahead[2].hv;
    return hash_key(key, nkey);
}
