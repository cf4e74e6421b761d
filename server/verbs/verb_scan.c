/*
 * verb_scan: resumable key scans (scan.c) as text verbs.
 *
 *   kscan 0 [count=<n>] [match=<glob>] [type=<t>] [minttl=<s>] [maxttl=<s>]
 *   kscan <cursor> [count=<n>]
 *   kscanclose <cursor>
 *
 * A page is "KEY <key> <type> <ttl>" lines, then "CURSOR <cursor>" (0:
 * the scan is over) and END.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/cmd.h"
#include "base/parse.h"
#include "store/scan.h"
#include "verbs/verb_scan.h"

#define SVERB_COUNT_DEFAULT 100     /* keys a page holds at most */

static const char *const sverb_types[] = {
    [ITEM_STRING] = "string", [ITEM_QUEUE] = "queue", [ITEM_LIST] = "list", [ITEM_CTREE] = "ctree",
};

static int sverb_type_of(const char *name) {
    int i;

    for (i = 0; i < ITEM_NTYPES; i++)
        if (strcmp(sverb_types[i], name) == 0)
            return i;
    return -1;
}

static bool sverb_ttl(const char *v, int64_t *out) {
    uint32_t n;

    if (!cmd_parse_count(v, UINT32_MAX, &n))
        return false;
    *out = n;
    return true;
}

/* One filter option (tok "<name>=<value>"); false if its value is bad. */
static bool sverb_filter(const char *name, const char *v, struct scan_filter *f) {
    if (strcmp(name, "match") == 0) {
        if (strlen(v) > ITEM_KEY_MAX || *v == '\0')
            return false;
        strcpy(f->match, v);
        return true;
    }
    if (strcmp(name, "type") == 0)
        return (f->type = sverb_type_of(v)) >= 0;
    return sverb_ttl(v, strcmp(name, "minttl") == 0 ? &f->min_ttl : &f->max_ttl);
}

static const char *const sverb_filters[] = { "match", "type", "minttl", "maxttl" };

/* One option of kscan; filters only when starting (cursor 0). False (the
 * reply made) if it is wrong. */
static bool sverb_option(conn *c, const char *tok, bool start, uint32_t *count,
                         struct scan_filter *f) {
    const char *v;
    size_t i;

    if ((v = cmd_option(tok, "count")) != NULL) {
        if (cmd_parse_count(v, SCAN_COUNT_MAX, count) && *count > 0)
            return true;
        conn_out_reply(c, REPLY_X_COUNT_10000);
        return false;
    }
    for (i = 0; i < sizeof(sverb_filters) / sizeof(sverb_filters[0]); i++) {
        if ((v = cmd_option(tok, sverb_filters[i])) == NULL)
            continue;
        if (!start)
            conn_out_reply(c, REPLY_X_SCAN_FILTER_LATE);
        else if (!sverb_filter(sverb_filters[i], v, f))
            cmd_bad_value(c, sverb_filters[i]);
        else
            return true;
        return false;
    }
    cmd_unknown_option(c, tok);
    return false;
}

static enum reply_id sverb_error(enum scan_result r) {
    switch (r) {
    case SCAN_NOT_FOUND: return REPLY_NOT_FOUND;
    case SCAN_BUSY: return REPLY_SCAN_BUSY;
    case SCAN_TOO_MANY: return REPLY_SCAN_TOO_MANY;
    default: return REPLY_OOM;
    }
}

static void sverb_page(conn *c, const struct scan_page *pg, uint64_t next) {
    size_t i;
    char *p;

    for (i = 0; i < pg->n; i++) {
        const struct scan_key *k = &pg->keys[i];
        p = conn_out_reserve(c, k->nkey + 48);
        memcpy(p, "KEY ", 4);
        memcpy(p + 4, k->key, k->nkey);
        conn_out_commit(c, 4 + k->nkey + (size_t)sprintf(p + 4 + k->nkey, " %s %lld\r\n",
                                                        sverb_types[k->type], (long long)k->ttl));
    }
    p = conn_out_reserve(c, 32);
    conn_out_commit(c, (size_t)sprintf(p, "CURSOR %llu\r\n", (unsigned long long)next));
    conn_out_reply(c, REPLY_END);
}

enum conn_parse_result sverb_scan(conn *c, struct cmd_line *t) {
    struct scan_filter f = { .type = -1, .min_ttl = -1, .max_ttl = -1 };
    struct scan_page pg = { NULL, 0, 0 };
    uint32_t count = SVERB_COUNT_DEFAULT;
    uint64_t id = 0, next = 0;
    enum scan_result r = SCAN_OK;
    bool start;
    int i;

    start = strcmp(t->v[1], "0") == 0;
    if (!start && !parse_u64_digits(t->v[1], &id)) {
        conn_out_reply(c, REPLY_X_BAD_CURSOR);
        return PARSE_DONE;
    }
    for (i = 2; i < t->n; i++)
        if (!sverb_option(c, t->v[i], start, &count, &f))
            return PARSE_DONE;
    if (start)
        r = scan_open(&f, &id);
    if (r == SCAN_OK)
        r = scan_step(id, count, &pg, &next);
    if (r == SCAN_OK)
        sverb_page(c, &pg, next);
    else
        conn_out_reply(c, sverb_error(r));
    if (r != SCAN_OK && start && id != 0)
        scan_close(id);
    free(pg.keys);
    return PARSE_DONE;
}

enum conn_parse_result sverb_close(conn *c, struct cmd_line *t) {
    uint64_t id;
    enum scan_result r;

    if (!parse_u64_digits(t->v[1], &id)) {
        conn_out_reply(c, REPLY_X_BAD_CURSOR);
        return PARSE_DONE;
    }
    r = scan_close(id);
    conn_out_reply(c, r == SCAN_OK ? REPLY_DELETED : sverb_error(r));
    return PARSE_DONE;
}

/* The command table's entries of key scans (proto/cmd.h). */
const struct cmd_def sverb_cmds[] = {
    { "kscan", sverb_scan, 2, 7, 0, 0, "walk the keys: kscan 0|<cursor> [count=] [match=] [type=] [minttl=] [maxttl=]" },
    { "kscanclose", sverb_close, 2, 2, 0, 0, "end a scan: kscanclose <cursor>" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
