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
 * dispatched, line i+3's key is hashed and its bucket and stripe
 * prefetched; line i+2's bucket, prefetched one line ago, is read
 * (without its stripe: hash.c allows it) and its first item prefetched,
 * two lines before its turn (one line was not always enough for a set).
 * The command then takes its key's hash from the note (ahead_hash): a
 * get or mg for its lookup, a set or ms (conn's nread.hv) for the store.
 * In a multi-get, as a key is looked up, the key two after it is hashed
 * and its bucket prefetched, and the next key's first item prefetched.
 *
 * A note names its key by address in the read buffer; conn.c forgets the
 * notes whenever the buffer's bytes move or the buffer goes back to the
 * worker, so a note never outlives the bytes it was made from. A note is
 * only a hint: a line it misjudges is looked up the ordinary way.
 */
#include <string.h>

#include "proto/ahead.h"
#include "cache/hash.h"
#include "cache/item.h"

/* c->ahead's slots: the lines three, two and one after the current one,
 * the current one (or a multi-get's current key), and a multi-get's next
 * key and the one after it. */
enum { AHEAD_3, AHEAD_2, AHEAD_1, AHEAD_CUR, AHEAD_KEY, AHEAD_KEY2 };

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
    s->fetched = false;
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

/* Prefetches the first item of the bucket of s's key (once): its bucket
 * should have come by now. */
static void ahead_fetch(struct conn_ahead *s) {
    if (s->key != NULL && !s->fetched) {
        hash_prefetch_item(s->hv);
        s->fetched = true;
    }
}

/* Notes the line at p (the buffer ends at end) in slot s unless it is
 * noted there already; one noted in an earlier turn has its first item
 * prefetched. */
static void ahead_keep(struct conn_ahead *s, const char *p, const char *end) {
    if (s->line != p)
        ahead_note(s, p, (size_t)(end - p));
    else
        ahead_fetch(s);
}

/* The first lines of a read have no notes from earlier turns: their
 * buckets, just prefetched together, are read together, so the waits for
 * them and then for their items overlap instead of following each other. */
static void ahead_start(struct conn_ahead *a) {
    int i;

    for (i = AHEAD_CUR; i >= AHEAD_2; i--)
        ahead_fetch(&a[i]);
}

void ahead_lines(conn *c, const char *line, size_t n) {
    struct conn_ahead *a = c->ahead;
    const char *end = line + n, *next;
    bool fresh;

    a[AHEAD_CUR] = a[AHEAD_1];
    a[AHEAD_1] = a[AHEAD_2];
    a[AHEAD_2] = a[AHEAD_3];
    a[AHEAD_3].line = a[AHEAD_3].key = NULL;
    fresh = a[AHEAD_CUR].line != line;
    ahead_keep(&a[AHEAD_CUR], line, end);
    if ((next = ahead_next(&a[AHEAD_CUR], end)) != NULL) {
        ahead_keep(&a[AHEAD_1], next, end);
        if ((next = ahead_next(&a[AHEAD_1], end)) != NULL) {
            ahead_keep(&a[AHEAD_2], next, end);
            if ((next = ahead_next(&a[AHEAD_2], end)) != NULL)
                ahead_note(&a[AHEAD_3], next, (size_t)(end - next));
        }
    }
    if (fresh)
        ahead_start(a);
}

/* Notes a multi-get's key in slot s: hashed, its bucket prefetched. */
static void ahead_note_key(struct conn_ahead *s, const char *key, size_t nkey) {
    s->line = s->key = NULL;
    s->fetched = false;
    if (nkey == 0 || nkey > ITEM_KEY_MAX)
        return;
    s->key = key;
    s->nkey = (uint8_t)nkey;
    s->hv = hash_key(key, nkey);
    hash_prefetch(s->hv);
}

void ahead_keys(conn *c, const char *next, size_t nnext, const char *after, size_t nafter) {
    struct conn_ahead *a = c->ahead;

    a[AHEAD_CUR] = a[AHEAD_KEY];
    if (a[AHEAD_KEY2].key != NULL && a[AHEAD_KEY2].key == next && a[AHEAD_KEY2].nkey == nnext) {
        a[AHEAD_KEY] = a[AHEAD_KEY2];   /* noted one key ago */
        ahead_fetch(&a[AHEAD_KEY]);
    } else {
        ahead_note_key(&a[AHEAD_KEY], next, nnext);
    }
    ahead_note_key(&a[AHEAD_KEY2], after, nafter);
}

uint32_t ahead_hash(conn *c, const char *key, size_t nkey) {
    const struct conn_ahead *s = &c->ahead[AHEAD_CUR];

    if (s->key == key && s->nkey == nkey)
        return s->hv;
    return hash_key(key, nkey);
}

bool ahead_get_line(conn *c, const char *line, size_t len, const char **key, size_t *nkey,
                    uint32_t *hv, bool *with_cas) {
    const struct conn_ahead *s = &c->ahead[AHEAD_CUR];

    if (s->line != line || line[0] != 'g' || s->key == NULL || s->end != line + len)
        return false;   /* not noted, not a get, or cut short by a NUL */
    *key = s->key;
    *nkey = s->nkey;
    *hv = s->hv;
    *with_cas = s->key == line + 5;
    return true;
}

bool ahead_set_line(conn *c, const char *line, size_t len, struct ahead_set *set) {
    const struct conn_ahead *s = &c->ahead[AHEAD_CUR];

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

static void ahead_input_moved(conn *c) {
    ahead_forget(c);
}

const struct conn_hooks ahead_conn_hooks = { "ahead", NULL, ahead_input_moved };
