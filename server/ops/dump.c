/*
 * dump: streamed key dumps (stats cachedump, lru_crawler metadump).
 *
 * The walk goes over the hash table's buckets as they were numbered when
 * the dump began (start_size of them). The table only ever doubles, so
 * the items of start bucket b are in current buckets b, b + start_size,
 * b + 2 * start_size …: visiting those lists every item present for the
 * whole dump exactly once, however much the table grew meanwhile. Growth
 * is held off only while one start bucket is visited; its items are taken
 * by reference under their stripe lock, and the lines are written after
 * the lock is released. When the output is full the walk stops and
 * resumes (c->resume) once the client has read, so a dump of any size
 * holds one bucket's worth of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "ops/dump.h"
#include "cache/hash.h"
#include "base/parse.h"
#include "base/settings.h"
#include "store/store.h"

#define DUMP_MAX_CLASS 63           /* memcached's highest slab class id */
#define DUMP_LINE_MAX (3 * ITEM_KEY_MAX + 160)

enum dump_kind { DUMP_CACHEDUMP, DUMP_METADUMP };

struct dump {
    enum dump_kind kind;
    uint32_t start_size;            /* buckets when the dump began */
    uint32_t cursor;                /* next start bucket */
    uint32_t limit;                 /* cachedump: lines at most, 0 for all */
    uint32_t sent;
    item **v;                       /* one start bucket's items, referenced */
    size_t n, cap;
    bool oom;
};

static void dump_conn_free(conn *c) {
    free(c->dump != NULL ? c->dump->v : NULL);
    free(c->dump);
    c->dump = NULL;
}

/* hash_visit_bucket callback (stripe lock held): keeps a reference to a
 * live cache value. */
static void dump_take(item *it, void *arg) {
    struct dump *d = arg;

    if (it->type != ITEM_STRING || !store_item_live(it))
        return;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        item **v = realloc(d->v, cap * sizeof(*v));
        if (v == NULL) {
            d->oom = true;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    item_incref(it);
    d->v[d->n++] = it;
}

/* Takes the items of start bucket d->cursor. */
static void dump_collect(struct dump *d) {
    uint32_t b;

    hash_pause_growth();
    for (b = d->cursor; b < hash_buckets(); b += d->start_size)
        hash_visit_bucket(b, dump_take, d);
    hash_resume_growth();
}

size_t dump_uri_key(char *p, const char *key, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)key[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            p[o++] = (char)ch;
        } else {
            p[o++] = '%';
            p[o++] = hex[ch >> 4];
            p[o++] = hex[ch & 15];
        }
    }
    return o;
}

/* One line about it, in the dump's format. */
static void dump_line(conn *c, const struct dump *d, item *it) {
    char *p = conn_out_reserve(c, DUMP_LINE_MAX);
    rel_time_t exp = item_exptime(it);
    size_t n;

    if (d->kind == DUMP_CACHEDUMP) {
        n = (size_t)sprintf(p, "ITEM ");
        memcpy(p + n, item_key(it), it->nkey);
        n += it->nkey;
        n += (size_t)sprintf(p + n, " [%u b; %llu s]\r\n", it->nbytes - 2,
                             exp == 0 ? 0ULL : (unsigned long long)clock_exptime_to_unix(exp));
    } else {
        n = (size_t)sprintf(p, "key=");
        n += dump_uri_key(p + n, item_key(it), it->nkey);
        if (exp == 0)
            n += (size_t)sprintf(p + n, " exp=-1");
        else
            n += (size_t)sprintf(p + n, " exp=%llu", (unsigned long long)clock_exptime_to_unix(exp));
        n += (size_t)sprintf(p + n, " la=%llu cas=%llu fetch=%s cls=1 size=%zu\n",
                             (unsigned long long)clock_exptime_to_unix(item_time(it)),
                             (unsigned long long)store_client_cas(it),
                             item_has_flag(it, ITEM_FETCHED) ? "yes" : "no",
                             item_bytes(it));
    }
    conn_out_commit(c, n);
}

/* Writes and releases the collected items (the limit counted). */
static void dump_flush_items(conn *c, struct dump *d) {
    size_t i;

    for (i = 0; i < d->n; i++) {
        if (d->limit == 0 || d->sent < d->limit) {
            dump_line(c, d, d->v[i]);
            d->sent++;
        }
        item_release(d->v[i]);
    }
    d->n = 0;
}

static void dump_resume(conn *c);

/* Walks on until the table is done, the limit is met or the output is
 * full (then it resumes when the client has read). */
static void dump_run(conn *c) {
    struct dump *d = c->dump;

    while (d->cursor < d->start_size && (d->limit == 0 || d->sent < d->limit)) {
        if (conn_out_full(c)) {
            c->resume = dump_resume;
            return;
        }
        dump_collect(d);
        dump_flush_items(c, d);
        d->cursor++;
        if (d->oom) {
            conn_out_reply(c, REPLY_OOM);
            dump_conn_free(c);
            return;
        }
    }
    conn_out_reply(c, REPLY_END);
    dump_conn_free(c);
}

static void dump_resume(conn *c) {
    dump_run(c);
}

/* Starts a dump of every live cache value (up to limit lines, 0: all). */
static enum conn_parse_result dump_start(conn *c, enum dump_kind kind, uint32_t limit) {
    struct dump *d = calloc(1, sizeof(*d));

    if (d == NULL) {
        conn_out_reply(c, REPLY_OOM);
        return PARSE_DONE;
    }
    d->kind = kind;
    d->limit = limit;
    hash_pause_growth();
    d->start_size = hash_buckets();
    hash_resume_growth();
    dump_conn_free(c);
    c->dump = d;
    dump_run(c);
    return PARSE_DONE;
}

/* stats cachedump <class> <limit>: class 1 holds every item; 0 and
 * 2..63 are empty classes; above is refused (memcached 1.6.18's replies). */
enum conn_parse_result dump_cachedump(conn *c, struct cmd_line *t) {
    uint32_t cls, limit;

    if (settings.dump_disabled) {
        conn_out_reply(c, REPLY_CACHEDUMP_NOT_ALLOWED);
        return PARSE_DONE;
    }
    if (t->n < 4) {
        conn_out_reply(c, REPLY_DUMP_BAD_LINE);
        return PARSE_DONE;
    }
    if (!parse_u32(t->v[2], &cls) || !parse_u32(t->v[3], &limit)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    if (cls > DUMP_MAX_CLASS) {
        conn_out_reply(c, REPLY_DUMP_BAD_SLAB);
        return PARSE_DONE;
    }
    if (cls != 1) {
        conn_out_reply(c, REPLY_END);
        return PARSE_DONE;
    }
    return dump_start(c, DUMP_CACHEDUMP, limit);
}

/* Whether a class list "1,2,..." is valid, and whether it names class 1. */
static bool dump_parse_classes(const char *s, bool *has_one) {
    char buf[256];
    char *tok, *save = NULL;

    if (strlen(s) >= sizeof(buf))
        return false;
    strcpy(buf, s);
    *has_one = false;
    for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        uint32_t cls;
        if (!parse_u32(tok, &cls) || cls == 0 || cls > DUMP_MAX_CLASS)
            return false;
        if (cls == 1)
            *has_one = true;
    }
    return tok == NULL && s[0] != '\0';
}

enum conn_parse_result dump_metadump(conn *c, struct cmd_line *t) {
    bool has_one = true;

    if (settings.dump_disabled) {
        conn_out_reply(c, REPLY_METADUMP_NOT_ALLOWED);
        return PARSE_DONE;
    }
    if (t->n != 3) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    if (strcmp(t->v[2], "all") != 0 && strcmp(t->v[2], "hash") != 0 &&
        !dump_parse_classes(t->v[2], &has_one)) {
        conn_out_reply(c, REPLY_DUMP_BAD_CLASS);
        return PARSE_DONE;
    }
    if (!has_one) {
        conn_out_reply(c, REPLY_END);
        return PARSE_DONE;
    }
    return dump_start(c, DUMP_METADUMP, 0);
}

const struct conn_hooks dump_conn_hooks = { "dump", dump_conn_free, NULL };
