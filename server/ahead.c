/*
 * ahead: hashes the keys of pipelined requests before their turn and
 * prefetches what their lookups will read. At 100,000 keys a lookup
 * otherwise waits for memory three times (the hash bucket, the lock
 * stripe, the item) before it can compare the key; a pipelined
 * connection has its next requests in the read buffer already, so those
 * waits can overlap the work of the requests before them.
 *
 * Lines noted: "get <key>" and "gets <key>" (one key), "mg <key> ...",
 * "set <key> <flags> <exptime> <bytes> ..." and "ms <key> <datalen> ..."
 * (their data block skipped to find the line after them). When line i is
 * dispatched, line i+2's key is hashed and its bucket and stripe
 * prefetched; line i+1's bucket, prefetched one line ago, is read
 * (without its stripe: hash.c allows it) and its first item prefetched.
 * The command then takes its key's hash from the note (ahead_hash): a
 * get or mg for its lookup, a set or ms (conn's nread.hv) for the store.
 * In a multi-get, the next key of the line is hashed and its bucket
 * prefetched before the current key is looked up.
 *
 * A note names its key by address in the read buffer; conn.c forgets the
 * notes whenever the buffer's bytes move or the buffer goes back to the
 * worker, so a note never outlives the bytes it was made from. A note is
 * only a hint: a line it misjudges is looked up the ordinary way.
 */
#include <string.h>

#include "ahead.h"
#include "hash.h"
#include "item.h"

/* Reads up to n fields " <digits>" (1 to 9 digits each) at *pp into v,
 * leaving *pp after the last one read; returns how many were read. */
static int ahead_fields(const char **pp, uint32_t *v, int n) {
    const char *p = *pp;
    int i;

    for (i = 0; i < n && *p == ' '; i++) {
        const char *digits = ++p;
        uint32_t x = 0, d;
        while ((d = (uint32_t)(*p - '0')) < 10) {   /* the line's end stops it */
            x = x * 10 + d;     /* wraps past 9 digits: refused below */
            p++;
        }
        if (p == digits || p - digits > 9)
            return i;
        v[i] = x;
        *pp = p;
    }
    return i;
}

/* After a storage line's key, p[0..end) holds " <flags> <exptime>
 * <bytes>[ noreply]" (set: 3 fields, the last the length) or " <datalen>
 * <flags>*" (ms: 1), and *end is the line's "\r" or "\n": the data
 * block's length with its "\r\n", or 0 when the line does not read so
 * plainly (the command itself judges it). A set's numbers go to s. */
static size_t ahead_data_len(const char *p, const char *end, int fields, struct conn_ahead *s) {
    if (ahead_fields(&p, s->num, fields) < fields || (p != end && *p != ' '))
        return 0;
    s->plain_set = fields == 3 && p == end;
    return (size_t)s->num[fields - 1] + 2;
}

/* The line at p[0..n), if it is one ahead notes: sets *key and returns
 * its length, and sets s's span (how far the next line starts), end (the
 * line's end) and a set's numbers. 0 for any other line, or one not whole
 * in the buffer. */
static size_t ahead_parse(const char *p, size_t n, const char **key, struct conn_ahead *s) {
    const char *nl, *end, *sp;
    size_t skip, data = 0;

    if (n > 5 && memcmp(p, "get ", 4) == 0)
        skip = 4;
    else if (n > 6 && memcmp(p, "gets ", 5) == 0)
        skip = 5;
    else if (n > 4 && memcmp(p, "mg ", 3) == 0)
        skip = 3;
    else if (n > 5 && memcmp(p, "set ", 4) == 0)
        skip = 4;
    else if (n > 4 && memcmp(p, "ms ", 3) == 0)
        skip = 3;
    else
        return 0;
    nl = memchr(p + skip, '\n', n - skip);
    if (nl == NULL)
        return 0;
    end = nl > p + skip && nl[-1] == '\r' ? nl - 1 : nl;
    sp = memchr(p + skip, ' ', (size_t)(end - (p + skip)));
    if (sp != NULL && p[1] == 'e' && p[0] == 'g')
        return 0;   /* a multi-get */
    if (sp == NULL)
        sp = end;
    if (sp == p + skip || sp - (p + skip) > ITEM_KEY_MAX)
        return 0;
    s->plain_set = false;
    if (p[0] == 's' && (data = ahead_data_len(sp, end, 3, s)) == 0)
        return 0;
    if (p[0] == 'm' && p[1] == 's' && (data = ahead_data_len(sp, end, 1, s)) == 0)
        return 0;
    *key = p + skip;
    s->span = (size_t)(nl + 1 - p) + data;
    s->end = end;
    return (size_t)(sp - (p + skip));
}

/* Notes the line at p[0..n) in slot s (line NULL when it is none ahead
 * knows): its key is hashed and its bucket prefetched. */
static void ahead_note(struct conn_ahead *s, const char *p, size_t n) {
    const char *key;
    size_t nkey = ahead_parse(p, n, &key, s);

    s->line = nkey > 0 ? p : NULL;
    s->key = nkey > 0 ? key : NULL;
    if (s->key == NULL)
        return;
    s->nkey = (uint8_t)nkey;
    s->hv = hash_key(key, nkey);
    hash_prefetch(s->hv);
}

/* The line after the one s notes, when the buffer holds its start. */
static const char *ahead_next(const struct conn_ahead *s, const char *end) {
    if (s->line == NULL || s->span >= (size_t)(end - s->line))
        return NULL;
    return s->line + s->span;
}

void ahead_lines(conn *c, const char *line, size_t n) {
    const char *end = line + n, *next, *after;

    c->ahead[2] = c->ahead[1];
    c->ahead[1] = c->ahead[0];
    c->ahead[0].line = c->ahead[0].key = NULL;
    if (c->ahead[2].line != line)
        ahead_note(&c->ahead[2], line, n);
    next = ahead_next(&c->ahead[2], end);
    if (next == NULL)
        return;
    if (c->ahead[1].line != next)
        ahead_note(&c->ahead[1], next, (size_t)(end - next));
    else if (c->ahead[1].key != NULL)
        hash_prefetch_item(c->ahead[1].hv);
    after = ahead_next(&c->ahead[1], end);
    if (after != NULL)
        ahead_note(&c->ahead[0], after, (size_t)(end - after));
}

void ahead_key(conn *c, const char *key, size_t nkey) {
    c->ahead[2] = c->ahead[3];
    c->ahead[3].line = c->ahead[3].key = NULL;
    if (nkey == 0 || nkey > ITEM_KEY_MAX)
        return;
    c->ahead[3].key = key;
    c->ahead[3].nkey = (uint8_t)nkey;
    c->ahead[3].hv = hash_key(key, nkey);
    hash_prefetch(c->ahead[3].hv);
}

uint32_t ahead_hash(conn *c, const char *key, size_t nkey) {
    if (c->ahead[2].key == key && c->ahead[2].nkey == nkey)
        return c->ahead[2].hv;
    return hash_key(key, nkey);
}

bool ahead_get_line(conn *c, const char *line, size_t len, const char **key, size_t *nkey,
                    uint32_t *hv, bool *with_cas) {
    const struct conn_ahead *s = &c->ahead[2];

    if (s->line != line || line[0] != 'g' || s->key == NULL || s->end != line + len)
        return false;   /* not noted, not a get, or cut short by a NUL */
    *key = s->key;
    *nkey = s->nkey;
    *hv = s->hv;
    *with_cas = s->key == line + 5;
    return true;
}

bool ahead_set_line(conn *c, const char *line, size_t len, struct ahead_set *set) {
    const struct conn_ahead *s = &c->ahead[2];

    if (s->line != line || !s->plain_set || s->key == NULL || s->end != line + len)
        return false;   /* not noted, not a plain set, or cut short by a NUL */
    set->key = s->key;
    set->nkey = s->nkey;
    set->hv = s->hv;
    set->flags = s->num[0];
    set->exptime = (int32_t)s->num[1];
    set->vlen = (int32_t)s->num[2];
    return true;
}
