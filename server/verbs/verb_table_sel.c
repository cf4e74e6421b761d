/*
 * verb_table_sel: the table verbs that select rows through cursors
 * (doc/protocol.md, "9. Tables"):
 *
 *   tselect <table> <index> [eq=<v>]… [ge=|gt=|le=|lt=<v>] [desc] [count=] [fields=] [ttl=]
 *   tscan <table> [count=] [fields=] [ttl=] [where <predicate>]
 *   tnext <cursor> [count=]   tclose <cursor>   tcursors
 *
 * A selection opens a cursor and answers its first page: rows, then
 * CURSOR <id> (0 when complete) and END.
 */
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "verbs/verb_table.h"

/* The options shared by tselect and tscan. */
struct tverb_opts {
    uint32_t count, ttl;
    uint64_t mask;
    bool nocursor;
};

/* count=, fields=, ttl=, nocursor in tok: 1 when taken, 0 when not one of them,
 * -1 when wrong (the reply made). */
static int tverb_common_option(conn *c, const struct table *tb, const char *tok, struct tverb_opts *o) {
    const char *v;

    if (strcmp(tok, "nocursor") == 0) {
        o->nocursor = true;
        return 1;
    }
    if ((v = cmd_option(tok, "count")) != NULL) {
        if (cmd_parse_count(v, TBL_COUNT_MAX, &o->count) && o->count > 0)
            return 1;
        cmd_bad_value(c, "count");
        return -1;
    }
    if ((v = cmd_option(tok, "ttl")) != NULL) {
        if (cmd_parse_count(v, TBL_TTL_MAX, &o->ttl) && o->ttl > 0)
            return 1;
        cmd_bad_value(c, "ttl");
        return -1;
    }
    if ((v = cmd_option(tok, "fields")) != NULL)
        return tverb_fields(c, tb, v, &o->mask) ? 1 : -1;
    return 0;
}

static void tverb_opts_init(const struct table *tb, struct tverb_opts *o) {
    int nf = table_schema(tb)->nf;

    o->nocursor = false;
    o->count = TBL_COUNT_DEFAULT;
    o->ttl = TBL_TTL_DEFAULT;
    o->mask = nf == 64 ? ~UINT64_C(0) : (UINT64_C(1) << nf) - 1;
}

/* A page of cursor id, then CURSOR and END. */
static void tverb_page(conn *c, uint64_t id, uint32_t count) {
    uint64_t next = 0;
    enum tbl_result r = table_cursor_page(id, count, tverb_out_row, c, &next);
    char buf[48];

    if (r != TBL_OK) {
        tverb_result(c, r);
        return;
    }
    conn_out(c, buf, (size_t)snprintf(buf, sizeof(buf), "CURSOR %llu\r\nEND\r\n", (unsigned long long)next));
}

/* Opens the cursor and answers its first page. */
static void tverb_start(conn *c, struct table *tb, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                        const struct tverb_opts *o) {
    uint64_t id = 0;
    enum tbl_result r = o->nocursor ? table_select_once(tb, sel, scan, pred, o->mask, o->count, tverb_out_row, c)
                                    : table_cursor_open(tb, sel, scan, pred, o->mask, o->ttl, &id);

    if (r == TBL_NOT_FOUND)
        cmd_client_error(c, "no such index ", sel->index, strlen(sel->index));
    else if (r != TBL_OK)
        tverb_result(c, r);
    else if (o->nocursor)
        conn_out(c, "CURSOR 0\r\nEND\r\n", 15);
    else
        tverb_page(c, id, o->count);
}

/* ---- tselect ---- */

/* One range option (ge= gt= le= lt=) into sel for part field f: 1 taken,
 * 0 not a range, -1 wrong (the reply made). */
static int tverb_range(conn *c, const struct tbl_schema *s, int f, char *tok, size_t ntok, struct tbl_select *sel) {
    static const char *const names[] = { "ge", "gt", "le", "lt" };
    int i;

    for (i = 0; i < 4; i++)
        if (ntok >= 3 && memcmp(tok, names[i], 2) == 0 && tok[2] == '=')
            break;
    if (i == 4)
        return 0;
    if (f < 0 || (i < 2 ? sel->has_lo : sel->has_hi)) {
        cmd_reply(c, f < 0 ? REPLY_T_TOO_MANY_EQ : REPLY_T_BAD_RANGE);
        return -1;
    }
    if (!table_value_parse(tok + 3, ntok - 3, s->type[f], i < 2 ? &sel->lo : &sel->hi)) {
        cmd_bad_value(c, s->name[f]);
        return -1;
    }
    if ((i < 2 ? &sel->lo : &sel->hi)->null) {
        cmd_reply(c, REPLY_T_BAD_RANGE);
        return -1;
    }
    if (i < 2) {
        sel->has_lo = true;
        sel->lo_strict = i == 1;
    } else {
        sel->has_hi = true;
        sel->hi_strict = i == 3;
    }
    return 1;
}

/* One option of tselect: false, the reply made, when wrong. */
static bool tverb_select_option(conn *c, const struct table *tb, const struct tbl_index_def *d, char *tok,
                                size_t ntok, struct tbl_select *sel, struct tverb_opts *o) {
    const struct tbl_schema *s = table_schema(tb);
    int taken, next = sel->neq < d->nparts ? d->part[sel->neq].field : -1;

    if (strncmp(tok, "eq=", 3) == 0) {
        if (next < 0 || sel->has_lo || sel->has_hi) {
            cmd_reply(c, next < 0 ? REPLY_T_TOO_MANY_EQ : REPLY_T_BAD_RANGE);
            return false;
        }
        if (!table_value_parse(tok + 3, ntok - 3, s->type[next], &sel->eq[sel->neq])) {
            cmd_bad_value(c, s->name[next]);
            return false;
        }
        sel->neq++;
        return true;
    }
    if (strcmp(tok, "desc") == 0) {
        sel->desc = true;
        return true;
    }
    if ((taken = tverb_range(c, s, next, tok, ntok, sel)) != 0)
        return taken > 0;
    if ((taken = tverb_common_option(c, tb, tok, o)) != 0)
        return taken > 0;
    cmd_unknown_option(c, tok);
    return false;
}

enum conn_parse_result tverb_select(conn *c, struct cmd_line *l) {
    struct tbl_select sel;
    struct tbl_index_def d;
    struct tverb_opts o;
    struct tverb_line t;
    struct table *tb;
    bool building;
    int i;

    if (!tverb_tokenize(c, l, &t, 3))
        return PARSE_DONE;
    if ((tb = tverb_table(c, &t, 1)) == NULL)
        return PARSE_DONE;
    memset(&sel, 0, sizeof(sel));
    tverb_opts_init(tb, &o);
    if (t.vlen[2] > TBL_NAME_MAX || !table_index_lookup(tb, t.v[2], &d, &building)) {
        cmd_client_error(c, "no such index ", t.v[2], t.vlen[2]);
        goto out;
    }
    if (building) {
        cmd_reply(c, REPLY_T_BUILDING);
        goto out;
    }
    strcpy(sel.index, d.name);
    for (i = 3; i < t.n; i++)
        if (!tverb_select_option(c, tb, &d, t.v[i], t.vlen[i], &sel, &o))
            goto out;
    tverb_start(c, tb, &sel, false, NULL, &o);
out:
    table_put(tb);
    return PARSE_DONE;
}

/* ---- tscan ---- */

enum conn_parse_result tverb_scan(conn *c, struct cmd_line *l) {
    struct tbl_select sel = { .index = "primary" };
    struct tbl_pred *pred = NULL;
    struct tverb_opts o;
    struct tverb_line t;
    struct table *tb;
    const char *bad;
    bool nomem;
    int i, taken;

    if (!tverb_tokenize(c, l, &t, 2))
        return PARSE_DONE;
    if ((tb = tverb_table(c, &t, 1)) == NULL)
        return PARSE_DONE;
    tverb_opts_init(tb, &o);
    for (i = 2; i < t.n && strcmp(t.v[i], "where") != 0; i++)
        if ((taken = tverb_common_option(c, tb, t.v[i], &o)) <= 0) {
            if (taken == 0)
                cmd_unknown_option(c, t.v[i]);
            goto out;
        }
    if (i < t.n && (pred = table_pred_parse(tb, t.v + i + 1, t.n - i - 1, &bad, &nomem)) == NULL) {
        if (nomem)
            cmd_reply(c, REPLY_OOM);
        else
            cmd_client_error(c, "bad predicate ", bad, strlen(bad));
        goto out;
    }
    tverb_start(c, tb, &sel, true, pred, &o);
out:
    table_put(tb);
    return PARSE_DONE;
}

/* ---- cursors ---- */

static bool tverb_cursor_id(conn *c, const char *tok, uint64_t *id) {
    if (parse_u64_digits(tok, id) && *id > 0)
        return true;
    cmd_reply(c, REPLY_X_BAD_CURSOR);
    return false;
}

enum conn_parse_result tverb_next(conn *c, struct cmd_line *l) {
    uint32_t count = TBL_COUNT_DEFAULT;
    const char *v;
    uint64_t id;

    if (!tverb_cursor_id(c, l->v[1], &id))
        return PARSE_DONE;
    if (l->n == 3 && (v = cmd_option(l->v[2], "count")) == NULL) {
        cmd_unknown_option(c, l->v[2]);
        return PARSE_DONE;
    }
    if (l->n == 3 && (!cmd_parse_count(v, TBL_COUNT_MAX, &count) || count == 0)) {
        cmd_bad_value(c, "count");
        return PARSE_DONE;
    }
    tverb_page(c, id, count);
    return PARSE_DONE;
}

enum conn_parse_result tverb_close(conn *c, struct cmd_line *l) {
    uint64_t id;

    if (tverb_cursor_id(c, l->v[1], &id))
        cmd_reply(c, table_cursor_close(id) == TBL_OK ? REPLY_DELETED : REPLY_NOT_FOUND);
    return PARSE_DONE;
}

static void tverb_cursor_line(void *arg, uint64_t id, const char *table, size_t ntable, const char *index,
                              uint64_t age_ms, uint64_t left_ms) {
    conn *c = arg;
    char buf[TBL_NAME_MAX + 80];

    conn_out(c, buf, (size_t)snprintf(buf, sizeof(buf), "CURSOR %llu ", (unsigned long long)id));
    conn_out(c, table, ntable);
    conn_out(c, buf, (size_t)snprintf(buf, sizeof(buf), " %s %llu %llu\r\n", index, (unsigned long long)age_ms,
                                      (unsigned long long)left_ms));
}

enum conn_parse_result tverb_cursors(conn *c, struct cmd_line *l) {
    (void)l;
    table_cursor_list(tverb_cursor_line, c);
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}
