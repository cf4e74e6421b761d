/*
 * verb_table: the table verbs that define tables and write and read rows
 * (doc/protocol.md, "9. Tables"):
 *
 *   tcreate <table> <field>:<type>,… key=<f>,… [index=<name>:<parts>]…
 *   tdrop <table>   tindex <table> <name> <parts>   tdropindex <table> <name>
 *   tinsert|tput|tupdate <table> <f>=<v> … [ver=<v>] [noreply]
 *   tdel <table> <key values…> [ver=<v>] [noreply]
 *   tget <table> <key values…> [fields=…]
 *   tinfo <table>   tlist
 *
 * Values are tokens (%XX escapes, "null"), so no table verb reads a data
 * block. Selections and cursors are in verb_table_sel.c.
 */
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "base/settings.h"
#include "cache/item.h"
#include "verbs/verb_table.h"

/* ---- shared ---- */

bool tverb_tokenize(conn *c, struct cmd_line *l, struct tverb_line *t, int min) {
    t->n = parse_tokenize(l->line, l->len, t->v, t->vlen, TVERB_TOKENS);
    if (t->n < min) {
        conn_out_reply(c, REPLY_ERROR);
        return false;
    }
    if (t->n > TVERB_TOKENS) {
        conn_out_reply(c, REPLY_X_TOO_MANY);
        return false;
    }
    return true;
}

struct table *tverb_table(conn *c, const struct tverb_line *t, int i) {
    struct table *tb;

    if (t->vlen[i] > TBL_TABLE_NAME_MAX) {
        cmd_reply(c, REPLY_T_BAD_TABLE);
        return NULL;
    }
    if ((tb = table_get(t->v[i], t->vlen[i])) == NULL)
        cmd_reply(c, REPLY_NOT_FOUND);
    return tb;
}

bool tverb_fields(conn *c, const struct table *t, const char *list, uint64_t *mask) {
    const char *p = list;
    int f;

    *mask = 0;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");

        if ((f = table_field(t, p, n)) < 0) {
            cmd_client_error(c, "no such field ", p, n);
            return false;
        }
        *mask |= UINT64_C(1) << f;
        p += n;
        if (*p == ',')
            p++;
    }
    if (*mask == 0)
        cmd_bad_value(c, "fields");
    return *mask != 0;
}

/* Values of up to this many bytes go into the reply buffer with their
 * F line, in one copy; longer ones as blocks of their own. */
#define TVERB_INLINE_MAX 1024

/* The decimal digits of v at p: how many. */
static size_t tverb_format_i64(char *p, int64_t v) {
    if (v >= 0)
        return parse_format_u64(p, (uint64_t)v);
    p[0] = '-';
    return 1 + parse_format_u64(p + 1, (uint64_t)0 - (uint64_t)v);
}

static char *tverb_put(char *o, const void *s, size_t n) {
    memcpy(o, s, n);
    return o + n;
}

/* "F <name> <length>" and the value, or "F <name> null" (no printf: a
 * page of rows is mostly these lines). */
static void tverb_out_field(conn *c, const char *name, enum tbl_type type, const struct tbl_val *v) {
    size_t nname = strlen(name), n = v->n, k;
    const char *p = (const char *)v->p;
    char digits[24], *start, *o;
    bool inline_value;

    if (!v->null && type == TBL_INT) {
        n = tverb_format_i64(digits, v->i);
        p = digits;
    }
    inline_value = !v->null && n <= TVERB_INLINE_MAX;
    start = o = conn_out_reserve(c, nname + 32 + (inline_value ? n + 2 : 0));
    o = tverb_put(o, "F ", 2);
    o = tverb_put(o, name, nname);
    if (v->null) {
        o = tverb_put(o, " null\r\n", 7);
        conn_out_commit(c, (size_t)(o - start));
        return;
    }
    *o++ = ' ';
    o += parse_format_u64(o, n);
    o = tverb_put(o, "\r\n", 2);
    if (inline_value) {
        o = tverb_put(o, p, n);
        o = tverb_put(o, "\r\n", 2);
        conn_out_commit(c, (size_t)(o - start));
        return;
    }
    conn_out_commit(c, (size_t)(o - start));
    for (; n > 0; p += k, n -= k) {
        k = n < 16384 ? n : 16384;
        conn_out(c, p, k);
    }
    conn_out(c, "\r\n", 2);
}

bool tverb_out_row(void *arg, const struct table *t, uint64_t ver, const struct tbl_val *v, uint64_t mask) {
    const struct tbl_schema *s = table_schema(t);
    conn *c = arg;
    char *start = conn_out_reserve(c, 48), *o = start;
    int f;

    o = tverb_put(o, "ROW ", 4);
    o += parse_format_u64(o, ver);
    *o++ = ' ';
    o += parse_format_u64(o, (uint64_t)__builtin_popcountll(mask));
    o = tverb_put(o, "\r\n", 2);
    conn_out_commit(c, (size_t)(o - start));
    for (f = 0; f < s->nf; f++)
        if (mask & (UINT64_C(1) << f))
            tverb_out_field(c, s->name[f], s->type[f], &v[f]);
    return !c->broken && c->out_bytes < settings.conn_output_max;
}

void tverb_result(conn *c, enum tbl_result r) {
    static const enum reply_id replies[] = {
        [TBL_NOT_FOUND] = REPLY_NOT_FOUND, [TBL_EXISTS] = REPLY_EXISTS, [TBL_NOT_STORED] = REPLY_NOT_STORED,
        [TBL_NOMEM] = REPLY_OOM_STORE, [TBL_BUILDING] = REPLY_T_BUILDING, [TBL_BUSY] = REPLY_T_CURSOR_BUSY,
        [TBL_TOO_MANY] = REPLY_T_TOO_MANY_CURSORS, [TBL_BAD] = REPLY_ERROR,
    };

    if (r != TBL_OK)
        cmd_reply(c, replies[r]);
}

static uint64_t tverb_all(const struct table *t) {
    int nf = table_schema(t)->nf;

    return nf == 64 ? ~UINT64_C(0) : (UINT64_C(1) << nf) - 1;
}

/* The table named by l's token 1 (a verb of the command table's tokens). */
static struct table *tverb_line_table(conn *c, const struct cmd_line *l) {
    struct tverb_line t = { .n = l->n };

    memcpy(t.v, l->v, sizeof(l->v));
    memcpy(t.vlen, l->vlen, sizeof(l->vlen));
    return tverb_table(c, &t, 1);
}

/* ---- tables and indexes ---- */

static enum conn_parse_result tverb_create(conn *c, struct cmd_line *l) {
    struct tverb_line t;
    struct tbl_schema s;
    const char *bad;

    if (!tverb_tokenize(c, l, &t, 3))
        return PARSE_DONE;
    if (t.vlen[1] > TBL_TABLE_NAME_MAX)
        cmd_reply(c, REPLY_T_BAD_TABLE);
    else if (!table_schema_parse(&s, t.v + 2, t.n - 2, &bad))
        cmd_client_error(c, "bad schema ", bad, strlen(bad));
    else if (cmd_log_ok(c))
        switch (table_create(t.v[1], t.vlen[1], &s)) {
        case TBL_OK:
            cmd_reply(c, REPLY_CREATED);
            break;
        case TBL_EXISTS:
            cmd_reply(c, REPLY_EXISTS);
            break;
        default:
            cmd_reply(c, REPLY_OOM_STORE);
            break;
        }
    return PARSE_DONE;
}

static enum conn_parse_result tverb_drop(conn *c, struct cmd_line *l) {
    if (l->vlen[1] > TBL_TABLE_NAME_MAX)
        cmd_reply(c, REPLY_T_BAD_TABLE);
    else if (cmd_log_ok(c))
        cmd_reply(c, table_drop(l->v[1], l->vlen[1]) == TBL_OK ? REPLY_DELETED : REPLY_NOT_FOUND);
    return PARSE_DONE;
}

static enum conn_parse_result tverb_index(conn *c, struct cmd_line *l) {
    struct tbl_index_def d;
    struct table *tb;
    enum tbl_result r;

    if ((tb = tverb_line_table(c, l)) == NULL)
        return PARSE_DONE;
    if (!table_index_parse(table_schema(tb), l->v[2], l->v[3], &d)) {
        cmd_client_error(c, "bad index ", l->v[3], l->vlen[3]);
    } else if (!cmd_log_ok(c)) {
        ;
    } else if ((r = table_add_index(tb, &d)) == TBL_BAD) {
        cmd_client_error(c, "bad index ", l->v[2], l->vlen[2]);
    } else if (r == TBL_OK) {
        cmd_reply(c, REPLY_OK);
    } else {
        tverb_result(c, r);
    }
    table_put(tb);
    return PARSE_DONE;
}

static enum conn_parse_result tverb_drop_index(conn *c, struct cmd_line *l) {
    struct table *tb;
    enum tbl_result r;

    if ((tb = tverb_line_table(c, l)) == NULL)
        return PARSE_DONE;
    if (cmd_log_ok(c)) {
        r = table_drop_index(tb, l->v[2]);
        cmd_reply(c, r == TBL_OK ? REPLY_DELETED : r == TBL_BAD ? REPLY_T_PRIMARY : REPLY_NOT_FOUND);
    }
    table_put(tb);
    return PARSE_DONE;
}

/* ---- writes ---- */

/* ver=<v>: false, the reply made, when it is no version. */
static bool tverb_ver(conn *c, const char *v, uint64_t *ver) {
    if (parse_u64_digits(v, ver) && *ver > 0)
        return true;
    cmd_bad_value(c, "ver");
    return false;
}

/* "<field>=<value>" into given/vals: false, the reply made. */
static bool tverb_assign(conn *c, const struct table *tb, char *tok, size_t ntok, bool *given, struct tbl_val *vals) {
    const struct tbl_schema *s = table_schema(tb);
    char *eq = memchr(tok, '=', ntok);
    int f, k;

    if (eq == NULL || (f = table_field(tb, tok, (size_t)(eq - tok))) < 0) {
        cmd_client_error(c, "no such field ", tok, eq != NULL ? (size_t)(eq - tok) : ntok);
        return false;
    }
    if (given[f] || !table_value_parse(eq + 1, ntok - (size_t)(eq + 1 - tok), s->type[f], &vals[f])) {
        cmd_bad_value(c, s->name[f]);
        return false;
    }
    for (k = 0; k < s->nkey; k++)
        if (s->key[k] == f && vals[f].null) {
            cmd_bad_value(c, s->name[f]);
            return false;
        }
    given[f] = true;
    return true;
}

/* false, the reply made, when a key field is missing. */
static bool tverb_key_given(conn *c, const struct table *tb, const bool *given) {
    const struct tbl_schema *s = table_schema(tb);
    int k;

    for (k = 0; k < s->nkey; k++)
        if (!given[s->key[k]]) {
            cmd_client_error(c, "missing key field ", s->name[s->key[k]], strlen(s->name[s->key[k]]));
            return false;
        }
    return true;
}

/* Whether token i of t is a noreply out of place (the reply made). */
static bool tverb_noreply_misplaced(conn *c, const struct tverb_line *t, int i) {
    if (strcmp(t->v[i], "noreply") != 0)
        return false;
    cmd_reply(c, REPLY_X_NOREPLY_LAST);
    return true;
}

/* STORED <ver>, or the reply for r. */
static void tverb_stored(conn *c, enum tbl_result r, uint64_t ver) {
    char buf[40];

    tverb_result(c, r);
    if (r == TBL_OK && !c->noreply)
        conn_out(c, buf, (size_t)snprintf(buf, sizeof(buf), "STORED %llu\r\n", (unsigned long long)ver));
}

/* A write's line split, its noreply noted (*end: where the tokens before
 * it end), its table referenced; NULL with the reply made. */
static struct table *tverb_write_start(conn *c, struct cmd_line *l, struct tverb_line *t, int *end) {
    if (!tverb_tokenize(c, l, t, 3))
        return NULL;
    c->noreply = strcmp(t->v[t->n - 1], "noreply") == 0;
    *end = t->n - (c->noreply ? 1 : 0);
    return tverb_table(c, t, 1);
}

/* tinsert, tput, tupdate (arg: enum tbl_write) */
static enum conn_parse_result tverb_write(conn *c, struct cmd_line *l) {
    struct tbl_val vals[TBL_FIELDS_MAX];
    bool given[TBL_FIELDS_MAX] = { false };
    uint64_t ver = 0, nver = 0;
    struct tverb_line t;
    struct table *tb;
    enum tbl_result r;
    const char *v;
    int i, end;

    if ((tb = tverb_write_start(c, l, &t, &end)) == NULL)
        return PARSE_DONE;
    for (i = 2; i < end; i++) {
        if (tverb_noreply_misplaced(c, &t, i))
            goto out;
        if (l->arg == TBL_UPDATE && (v = cmd_option(t.v[i], "ver")) != NULL && table_field(tb, "ver", 3) < 0) {
            if (!tverb_ver(c, v, &ver))
                goto out;
        } else if (!tverb_assign(c, tb, t.v[i], t.vlen[i], given, vals)) {
            goto out;
        }
    }
    if (!tverb_key_given(c, tb, given) || !cmd_log_ok(c))
        goto out;
    r = table_write(tb, (enum tbl_write)l->arg, given, vals, ver, &nver);
    tverb_stored(c, r, nver);
out:
    table_put(tb);
    return PARSE_DONE;
}

/* The key values from token 2 on: false, the reply made. */
static bool tverb_key_values(conn *c, const struct table *tb, struct tverb_line *t, int end, struct tbl_val *key) {
    const struct tbl_schema *s = table_schema(tb);
    int k;

    for (k = 0; k < s->nkey; k++) {
        const char *name = s->name[s->key[k]];

        if (2 + k >= end) {
            cmd_client_error(c, "missing key field ", name, strlen(name));
            return false;
        }
        if (!table_value_parse(t->v[2 + k], t->vlen[2 + k], s->type[s->key[k]], &key[k]) || key[k].null) {
            cmd_bad_value(c, name);
            return false;
        }
    }
    return true;
}

/* tdel <table> <key values…> [ver=<v>] [noreply] */
static enum conn_parse_result tverb_del(conn *c, struct cmd_line *l) {
    struct tbl_val key[TBL_KEY_MAX];
    struct tverb_line t;
    struct table *tb;
    uint64_t ver = 0;
    enum tbl_result r;
    const char *v;
    int i, end;

    if ((tb = tverb_write_start(c, l, &t, &end)) == NULL)
        return PARSE_DONE;
    if (!tverb_key_values(c, tb, &t, end, key))
        goto out;
    for (i = 2 + table_schema(tb)->nkey; i < end; i++) {
        if (tverb_noreply_misplaced(c, &t, i))
            goto out;
        if ((v = cmd_option(t.v[i], "ver")) == NULL) {
            cmd_unknown_option(c, t.v[i]);
            goto out;
        }
        if (!tverb_ver(c, v, &ver))
            goto out;
    }
    if (!cmd_log_ok(c))
        goto out;
    if ((r = table_delete(tb, key, ver)) == TBL_OK)
        cmd_reply(c, REPLY_DELETED);
    tverb_result(c, r);
out:
    table_put(tb);
    return PARSE_DONE;
}

/* ---- reads ---- */

/* tget <table> <key values…> [fields=…] */
static enum conn_parse_result tverb_get(conn *c, struct cmd_line *l) {
    struct tbl_val key[TBL_KEY_MAX];
    struct tverb_line t;
    struct table *tb;
    uint64_t mask;
    const char *v;
    int i;

    if (!tverb_tokenize(c, l, &t, 3))
        return PARSE_DONE;
    if ((tb = tverb_table(c, &t, 1)) == NULL)
        return PARSE_DONE;
    mask = tverb_all(tb);
    if (!tverb_key_values(c, tb, &t, t.n, key))
        goto out;
    for (i = 2 + table_schema(tb)->nkey; i < t.n; i++) {
        if ((v = cmd_option(t.v[i], "fields")) == NULL) {
            cmd_unknown_option(c, t.v[i]);
            goto out;
        }
        if (!tverb_fields(c, tb, v, &mask))
            goto out;
    }
    if (table_read(tb, key, mask, tverb_out_row, c) == TBL_NOMEM)
        cmd_reply(c, REPLY_OOM);
    else
        conn_out_reply(c, REPLY_END);
out:
    table_put(tb);
    return PARSE_DONE;
}

static void tverb_info_line(void *arg, const char *s, size_t n) {
    conn_out(arg, s, n);
}

static enum conn_parse_result tverb_info(conn *c, struct cmd_line *l) {
    struct table *tb;

    if ((tb = tverb_line_table(c, l)) == NULL)
        return PARSE_DONE;
    table_info(tb, tverb_info_line, c);
    conn_out_reply(c, REPLY_END);
    table_put(tb);
    return PARSE_DONE;
}

static void tverb_list_one(void *arg, const char *name, size_t nname, uint64_t rows) {
    conn *c = arg;
    char tail[32];

    conn_out(c, "TABLE ", 6);
    conn_out(c, name, nname);
    conn_out(c, tail, (size_t)snprintf(tail, sizeof(tail), " %llu\r\n", (unsigned long long)rows));
}

static enum conn_parse_result tverb_list(conn *c, struct cmd_line *l) {
    (void)l;
    table_list(tverb_list_one, c);
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

const struct cmd_def tverb_cmds[] = {
    { "tcreate", tverb_create, 1, CMD_ANY, CMD_RAW, 0, "create a table: tcreate <table> <f>:<type>,... key=<f>,... [index=<name>:<parts>]..." },
    { "tdrop", tverb_drop, 2, 2, 0, 0, "delete a table: tdrop <table>" },
    { "tindex", tverb_index, 4, 4, 0, 0, "add an index: tindex <table> <name> <f>[:desc][:nullslast][+<f>...]" },
    { "tdropindex", tverb_drop_index, 3, 3, 0, 0, "drop an index: tdropindex <table> <name>" },
    { "tinsert", tverb_write, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, TBL_INSERT, "insert a row: tinsert <table> <f>=<v>..." },
    { "tput", tverb_write, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, TBL_PUT, "insert or replace a row: tput <table> <f>=<v>..." },
    { "tupdate", tverb_write, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, TBL_UPDATE, "change fields of a row: tupdate <table> <f>=<v>... [ver=]" },
    { "tdel", tverb_del, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, 0, "delete a row: tdel <table> <key values...> [ver=]" },
    { "tget", tverb_get, 1, CMD_ANY, CMD_RAW, 0, "a row by key: tget <table> <key values...> [fields=]" },
    { "tselect", tverb_select, 1, CMD_ANY, CMD_RAW, 0, "rows through an index: tselect <table> <index> [eq=]... [ge|gt|le|lt=] [desc] [count=] [fields=] [ttl=]" },
    { "tscan", tverb_scan, 1, CMD_ANY, CMD_RAW, 0, "rows by a predicate: tscan <table> [count=] [fields=] [ttl=] [where <predicate>]" },
    { "tnext", tverb_next, 2, 3, 0, 0, "the next page of a cursor: tnext <cursor> [count=]" },
    { "tclose", tverb_close, 2, 2, 0, 0, "close a cursor: tclose <cursor>" },
    { "tcursors", tverb_cursors, 1, 1, 0, 0, "the open table cursors" },
    { "tinfo", tverb_info, 2, 2, 0, 0, "a table's fields, indexes and figures: tinfo <table>" },
    { "tlist", tverb_list, 1, 1, 0, 0, "the tables" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
