/*
 * trows.c - wrappers for mcds-server's table verbs (doc/protocol.md,
 * "9. Tables"), over the text-protocol client of xconn.c: the request
 * line with its values escaped (%XX), and the replies of rows (ROW, F
 * lines with data blocks, CURSOR, END) read into one block that
 * mcds_trows_free frees.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconn.h"

#define TNAME_MAX 64                /* a field or index name */

/* A request line being built; over once anything did not fit. */
typedef struct tline {
    char s[MCDS_TLINE_MAX];
    size_t n;
    int over;
} tline_t;

static void tl_start(tline_t *l)
{
    l->n = 0;
    l->over = 0;
}

static void tl_add(tline_t *l, const char *fmt, ...)
{
    va_list ap;
    int w;

    if (l->over)
        return;
    va_start(ap, fmt);
    w = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= sizeof l->s - l->n)
        l->over = 1;
    else
        l->n += (size_t)w;
}

/* Whether a value byte must go as %XX: a space, a control byte, '%', and
 * (for a line that reads the same everywhere) any byte from 0x80. */
static int must_escape(unsigned char ch)
{
    return ch <= ' ' || ch == 0x7f || ch == '%' || ch >= 0x80;
}

/* One value as a token: "null" for NULL, the bytes "null" as %6eull, the
 * empty value as '%' alone. */
static void tl_value(tline_t *l, const char *data, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (data == NULL || len == 0) {
        tl_add(l, data == NULL ? "null" : "%%");
        return;
    }
    if (len == 4 && memcmp(data, "null", 4) == 0) {
        tl_add(l, "%%6eull");
        return;
    }
    for (i = 0; i < len && !l->over; i++) {
        unsigned char ch = (unsigned char)data[i];
        if (l->n + 3 >= sizeof l->s)
            l->over = 1;
        else if (!must_escape(ch))
            l->s[l->n++] = (char)ch;
        else {
            l->s[l->n++] = '%';
            l->s[l->n++] = hex[ch >> 4];
            l->s[l->n++] = hex[ch & 15];
        }
    }
}

/* A name (field, index, option list) as it goes on the line: no space,
 * no control byte, not empty. */
static int name_ok(const char *s)
{
    size_t i;

    if (s == NULL || s[0] == '\0')
        return 0;
    for (i = 0; s[i] != '\0'; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
            return 0;
    return 1;
}

/* " name=value" for each field. */
static int tl_fields(tline_t *l, const mcds_tfield_t *f, size_t n)
{
    size_t i;

    for (i = 0; f != NULL && i < n; i++) {
        if (!name_ok(f[i].name) || strchr(f[i].name, '=') != NULL)
            return -1;
        tl_add(l, " %s=", f[i].name);
        tl_value(l, f[i].data, f[i].len);
    }
    return f != NULL && n > 0 ? 0 : -1;
}

/* " value" for each key value (none may be NULL). */
static int tl_keys(tline_t *l, const mcds_item_t *keys, size_t n)
{
    size_t i;

    for (i = 0; keys != NULL && i < n && keys[i].data != NULL; i++) {
        tl_add(l, " ");
        tl_value(l, keys[i].data, keys[i].len);
    }
    return keys != NULL && n > 0 && i == n ? 0 : -1;
}

/* Ends the line and sends it to table's server: a call to end with
 * mcds__x_end whatever the status (nothing is sent for a line too long). */
static mcds_status_t send_tline(xcall_t *x, mcds_t *h, const char *table, tline_t *l)
{
    mcds_status_t st;

    memset(x, 0, sizeof *x);
    tl_add(l, "\r\n");
    if (l->over)
        return MCDS_TOO_LARGE;
    st = mcds__x_begin(x, h, table);
    return st == MCDS_OK ? mcds__x_send_line(x, l->s, l->n) : st;
}

/* Sends the line (ended here) and reads a one-line reply: MCDS_OK for ok
 * (followed by " <version>" when version is wanted), MCDS_EXISTS for
 * exists_word, else the mapped error (NOT_FOUND as MCDS_NOT_FOUND). */
static mcds_status_t one_line(mcds_t *h, const char *table, tline_t *l, const char *ok,
                              const char *exists_word, uint64_t *version)
{
    size_t off, len;
    xcall_t x;
    mcds_status_t st = send_tline(&x, h, table, l);

    if (st == MCDS_OK)
        st = mcds__x_read_line(&x, &off, &len);
    if (st != MCDS_OK)
        return mcds__x_end(&x, st);
    if (exists_word != NULL && mcds__x_line_is(x.c->buf + off, len, exists_word))
        return mcds__x_end(&x, MCDS_EXISTS);
    if (version == NULL && mcds__x_line_is(x.c->buf + off, len, ok))
        return mcds__x_end(&x, MCDS_OK);
    if (version != NULL && mcds__x_line_starts(x.c->buf + off, len, ok) && len > strlen(ok) + 1 &&
        x.c->buf[off + strlen(ok)] == ' ' &&
        mcds__x_parse_u64(x.c->buf + off + strlen(ok) + 1, len - strlen(ok) - 1, version) == 0)
        return mcds__x_end(&x, MCDS_OK);
    return mcds__x_end(&x, mcds__x_reply_error(&x, off, len, 1, 0));
}

mcds_status_t mcds_tcreate(mcds_t *h, const char *table, const char *schema)
{
    tline_t l;

    if (schema == NULL || schema[0] == '\0' || strpbrk(schema, "\r\n") != NULL)
        return MCDS_INVALID;
    tl_start(&l);
    tl_add(&l, "tcreate %s %s", table != NULL ? table : "", schema);
    return one_line(h, table, &l, "CREATED", "EXISTS", NULL);
}

mcds_status_t mcds_tdrop(mcds_t *h, const char *table)
{
    tline_t l;

    tl_start(&l);
    tl_add(&l, "tdrop %s", table != NULL ? table : "");
    return one_line(h, table, &l, "DELETED", NULL, NULL);
}

mcds_status_t mcds_tindex(mcds_t *h, const char *table, const char *name, const char *parts)
{
    tline_t l;

    if (!name_ok(name) || !name_ok(parts))
        return MCDS_INVALID;
    tl_start(&l);
    tl_add(&l, "tindex %s %s %s", table != NULL ? table : "", name, parts);
    return one_line(h, table, &l, "OK", NULL, NULL);
}

mcds_status_t mcds_tdropindex(mcds_t *h, const char *table, const char *name)
{
    tline_t l;

    if (!name_ok(name))
        return MCDS_INVALID;
    tl_start(&l);
    tl_add(&l, "tdropindex %s %s", table != NULL ? table : "", name);
    return one_line(h, table, &l, "DELETED", NULL, NULL);
}

/* tinsert, tput, tupdate: the verb, the fields, ver= (0: none). */
static mcds_status_t write_row(mcds_t *h, const char *verb, const char *table,
                               const mcds_tfield_t *fields, size_t n, uint64_t ver,
                               uint64_t *version)
{
    tline_t l;
    uint64_t v = 0;
    mcds_status_t st;

    tl_start(&l);
    tl_add(&l, "%s %s", verb, table != NULL ? table : "");
    if (tl_fields(&l, fields, n) < 0)
        return MCDS_INVALID;
    if (ver != 0)
        tl_add(&l, " ver=%" PRIu64, ver);
    /* tinsert's NOT_STORED (a row has the key) and tupdate's EXISTS (the
     * version differs) are both MCDS_EXISTS */
    st = one_line(h, table, &l, "STORED", strcmp(verb, "tinsert") == 0 ? "NOT_STORED" : "EXISTS", &v);
    if (st == MCDS_OK && version != NULL)
        *version = v;
    return st;
}

mcds_status_t mcds_tinsert(mcds_t *h, const char *table, const mcds_tfield_t *fields, size_t n,
                           uint64_t *version)
{
    return write_row(h, "tinsert", table, fields, n, 0, version);
}

mcds_status_t mcds_tput(mcds_t *h, const char *table, const mcds_tfield_t *fields, size_t n,
                        uint64_t *version)
{
    return write_row(h, "tput", table, fields, n, 0, version);
}

mcds_status_t mcds_tupdate(mcds_t *h, const char *table, const mcds_tfield_t *fields, size_t n,
                           uint64_t ver, uint64_t *version)
{
    return write_row(h, "tupdate", table, fields, n, ver, version);
}

mcds_status_t mcds_tdel(mcds_t *h, const char *table, const mcds_item_t *keys, size_t nkeys,
                        uint64_t ver)
{
    tline_t l;

    tl_start(&l);
    tl_add(&l, "tdel %s", table != NULL ? table : "");
    if (tl_keys(&l, keys, nkeys) < 0)
        return MCDS_INVALID;
    if (ver != 0)
        tl_add(&l, " ver=%" PRIu64, ver);
    return one_line(h, table, &l, "DELETED", "EXISTS", NULL);
}

/* ---- replies of rows ---- */

/* Where a row and a field read sit in the reply buffer. */
typedef struct row_at {
    uint64_t version;
    size_t first, n;                /* its fields in the field array */
} row_at_t;

typedef struct field_at {
    size_t name_off, name_len;
    size_t off, len;
    int null;
} field_at_t;

/* The rows of one reply, while it is read. */
typedef struct rows_in {
    row_at_t *rows;
    size_t nrows, rcap;
    field_at_t *fields;
    size_t nfields, fcap;
} rows_in_t;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    q = realloc(*p, c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* The next space-separated word of [*p, end): its start and length. */
static int next_word(const char **p, const char *end, const char **w, size_t *wlen)
{
    while (*p < end && **p == ' ')
        (*p)++;
    *w = *p;
    while (*p < end && **p != ' ')
        (*p)++;
    *wlen = (size_t)(*p - *w);
    return *wlen > 0 ? 0 : -1;
}

/* "F <field> <bytes>" and its block, or "F <field> null". */
static mcds_status_t read_field(xcall_t *x, field_at_t *f)
{
    const char *p, *end, *w;
    size_t off, len, wlen;
    uint64_t bytes;
    mcds_status_t st = mcds__x_read_line(x, &off, &len);

    if (st != MCDS_OK)
        return st;
    p = x->c->buf + off;
    end = p + len;
    if (!mcds__x_line_starts(p, len, "F ") || (p += 2, next_word(&p, end, &w, &wlen)) < 0 ||
        wlen > TNAME_MAX)
        return mcds__x_reply_error(x, off, len, 1, 0);
    f->name_off = (size_t)(w - x->c->buf);
    f->name_len = wlen;
    if (next_word(&p, end, &w, &wlen) < 0 || p != end)
        return mcds__x_reply_error(x, off, len, 1, 0);
    f->null = wlen == 4 && memcmp(w, "null", 4) == 0;
    f->off = f->len = 0;
    if (f->null)
        return MCDS_OK;
    if (mcds__x_parse_u64(w, wlen, &bytes) != 0 || bytes > INT32_MAX)
        return mcds__x_reply_error(x, off, len, 1, 0);
    f->len = (size_t)bytes;
    return mcds__x_data_block(x, f->len, &f->off);
}

/* "ROW <version> <nfields>" (at off, len) and its fields. */
static mcds_status_t read_row(xcall_t *x, size_t off, size_t len, rows_in_t *in)
{
    const char *p = x->c->buf + off + 4, *end = x->c->buf + off + len, *w;
    uint64_t version, n, k;
    size_t wlen;
    mcds_status_t st = MCDS_OK;

    if (next_word(&p, end, &w, &wlen) < 0 || mcds__x_parse_u64(w, wlen, &version) != 0 ||
        next_word(&p, end, &w, &wlen) < 0 || mcds__x_parse_u64(w, wlen, &n) != 0 || p != end || n > 64)
        return mcds__x_reply_error(x, off, len, 1, 0);
    if (grow((void **)&in->rows, &in->rcap, in->nrows + 1, sizeof *in->rows) < 0 ||
        grow((void **)&in->fields, &in->fcap, in->nfields + n, sizeof *in->fields) < 0)
        return MCDS_NO_MEMORY;
    in->rows[in->nrows].version = version;
    in->rows[in->nrows].first = in->nfields;
    in->rows[in->nrows].n = (size_t)n;
    for (k = 0; k < n && st == MCDS_OK; k++)
        st = read_field(x, &in->fields[in->nfields + k]);
    if (st == MCDS_OK) {
        in->nrows++;
        in->nfields += (size_t)n;
    }
    return st;
}

/* Copies the rows read out of the reply buffer, in one block. */
static mcds_status_t pack_rows(const xcall_t *x, const rows_in_t *in, mcds_trow_t **out)
{
    size_t bytes = in->nrows * sizeof(mcds_trow_t) + in->nfields * sizeof(mcds_tfield_t), i;
    mcds_trow_t *rows;
    mcds_tfield_t *f;
    char *text;

    for (i = 0; i < in->nfields; i++)
        bytes += in->fields[i].name_len + 1 + in->fields[i].len + 1;
    rows = malloc(bytes > 0 ? bytes : 1);
    if (rows == NULL)
        return MCDS_NO_MEMORY;
    f = (mcds_tfield_t *)(rows + in->nrows);
    text = (char *)(f + in->nfields);
    for (i = 0; i < in->nfields; i++) {
        const field_at_t *a = &in->fields[i];
        memcpy(text, x->c->buf + a->name_off, a->name_len);
        text[a->name_len] = '\0';
        f[i].name = text;
        text += a->name_len + 1;
        f[i].len = a->len;
        f[i].data = a->null ? NULL : text;
        if (a->len > 0)
            memcpy(text, x->c->buf + a->off, a->len);
        text[a->len] = '\0';
        text += a->len + 1;
    }
    for (i = 0; i < in->nrows; i++) {
        rows[i].version = in->rows[i].version;
        rows[i].fields = f + in->rows[i].first;
        rows[i].nfields = in->rows[i].n;
    }
    *out = rows;
    return MCDS_OK;
}

/* Reads ROWs up to END (with "CURSOR <id>" before it when cursor is
 * wanted) into *rows and *count. */
static mcds_status_t read_rows(xcall_t *x, uint64_t *cursor, mcds_trow_t **rows, size_t *count)
{
    rows_in_t in = { 0 };
    size_t off, len;
    int have_cursor = 0;
    mcds_status_t st = MCDS_OK;

    while (st == MCDS_OK) {
        const char *p;
        st = mcds__x_read_line(x, &off, &len);
        if (st != MCDS_OK)
            break;
        p = x->c->buf + off;
        if (mcds__x_line_is(p, len, "END") && (cursor == NULL || have_cursor))
            break;
        if (!have_cursor && mcds__x_line_starts(p, len, "ROW "))
            st = read_row(x, off, len, &in);
        else if (cursor != NULL && !have_cursor && mcds__x_line_starts(p, len, "CURSOR ") &&
                 mcds__x_parse_u64(p + 7, len - 7, cursor) == 0)
            have_cursor = 1;
        else
            st = mcds__x_reply_error(x, off, len, 1, 0);
    }
    if (st == MCDS_OK && in.nrows > 0)
        st = pack_rows(x, &in, rows);
    if (st == MCDS_OK)
        *count = in.nrows;
    free(in.rows);
    free(in.fields);
    return st;
}

/* Sends a line (ended here) to table's server and reads its rows. */
static mcds_status_t rows_call(mcds_t *h, const char *table, tline_t *l, uint64_t *cursor,
                               mcds_trow_t **rows, size_t *count)
{
    xcall_t x;
    mcds_status_t st = send_tline(&x, h, table, l);

    if (st == MCDS_OK)
        st = read_rows(&x, cursor, rows, count);
    return mcds__x_end(&x, st);
}

mcds_status_t mcds_tget(mcds_t *h, const char *table, const mcds_item_t *keys, size_t nkeys,
                        const char *fields, mcds_trow_t **row)
{
    tline_t l;
    size_t count = 0;
    mcds_status_t st;

    if (row == NULL)
        return MCDS_INVALID;
    *row = NULL;
    tl_start(&l);
    tl_add(&l, "tget %s", table != NULL ? table : "");
    if (tl_keys(&l, keys, nkeys) < 0 || (fields != NULL && !name_ok(fields)))
        return MCDS_INVALID;
    if (fields != NULL)
        tl_add(&l, " fields=%s", fields);
    st = rows_call(h, table, &l, NULL, row, &count);
    if (st == MCDS_OK && count != 1) {
        mcds_trows_free(*row);
        *row = NULL;
        st = MCDS_NOT_FOUND;
    }
    return st;
}

/* count=, fields=, ttl=, nocursor of a selection or scan. */
static int tl_page_opts(tline_t *l, const mcds_tselect_t *o)
{
    if (o->count > MCDS_TPAGE_MAX || (o->fields != NULL && !name_ok(o->fields)))
        return -1;
    if (o->count > 0)
        tl_add(l, " count=%u", o->count);
    if (o->fields != NULL)
        tl_add(l, " fields=%s", o->fields);
    if (o->ttl_s > 0)
        tl_add(l, " ttl=%u", o->ttl_s);
    if (o->nocursor)
        tl_add(l, " nocursor");
    return 0;
}

/* " <op>=<value>" for a bound that is set. */
static void tl_bound(tline_t *l, const char *op, const mcds_item_t *v)
{
    if (v == NULL)
        return;
    tl_add(l, " %s=", op);
    tl_value(l, v->data, v->len);
}

/* Clears a page's results and starts its cursor (with the page size of
 * opts, which may be NULL); MCDS_INVALID if the arguments are unusable. */
static mcds_status_t page_begin(const char *table, const mcds_tselect_t *opts, mcds_trow_t **rows,
                                size_t *count, mcds_tcursor_t *cursor)
{
    if (rows == NULL || count == NULL || cursor == NULL)
        return MCDS_INVALID;
    *rows = NULL;
    *count = 0;
    cursor->id = 0;
    cursor->count = opts != NULL ? opts->count : 0;
    if (table == NULL || strlen(table) > MCDS_QUEUE_NAME_MAX)
        return MCDS_INVALID;
    strcpy(cursor->table, table);
    return MCDS_OK;
}

mcds_status_t mcds_tselect(mcds_t *h, const char *table, const char *index,
                           const mcds_tselect_t *sel, mcds_trow_t **rows, size_t *count,
                           mcds_tcursor_t *cursor)
{
    static const mcds_tselect_t none = { 0 };
    tline_t l;
    size_t i;
    mcds_status_t st = page_begin(table, sel, rows, count, cursor);

    if (sel == NULL)
        sel = &none;
    if (st != MCDS_OK || !name_ok(index) || (sel->ge != NULL && sel->gt != NULL) ||
        (sel->le != NULL && sel->lt != NULL) || (sel->neq > 0 && sel->eq == NULL))
        return MCDS_INVALID;
    tl_start(&l);
    tl_add(&l, "tselect %s %s", table, index);
    for (i = 0; i < sel->neq; i++)
        tl_bound(&l, "eq", &sel->eq[i]);
    tl_bound(&l, "ge", sel->ge);
    tl_bound(&l, "gt", sel->gt);
    tl_bound(&l, "le", sel->le);
    tl_bound(&l, "lt", sel->lt);
    if (sel->desc)
        tl_add(&l, " desc");
    if (tl_page_opts(&l, sel) < 0)
        return MCDS_INVALID;
    return rows_call(h, table, &l, &cursor->id, rows, count);
}

mcds_status_t mcds_tscan(mcds_t *h, const char *table, const char *where,
                         const mcds_tselect_t *opts, mcds_trow_t **rows, size_t *count,
                         mcds_tcursor_t *cursor)
{
    static const mcds_tselect_t none = { 0 };
    tline_t l;
    mcds_status_t st = page_begin(table, opts, rows, count, cursor);

    if (opts == NULL)
        opts = &none;
    if (st != MCDS_OK || opts->neq > 0 || opts->ge != NULL || opts->gt != NULL || opts->le != NULL ||
        opts->lt != NULL || opts->desc || (where != NULL && strpbrk(where, "\r\n") != NULL))
        return MCDS_INVALID;
    tl_start(&l);
    tl_add(&l, "tscan %s", table);
    if (tl_page_opts(&l, opts) < 0)
        return MCDS_INVALID;
    if (where != NULL && where[0] != '\0')
        tl_add(&l, " where %s", where);
    return rows_call(h, table, &l, &cursor->id, rows, count);
}

mcds_status_t mcds_tnext(mcds_t *h, mcds_tcursor_t *cursor, unsigned page, mcds_trow_t **rows,
                         size_t *count)
{
    tline_t l;

    if (rows == NULL || count == NULL || cursor == NULL || page > MCDS_TPAGE_MAX)
        return MCDS_INVALID;
    *rows = NULL;
    *count = 0;
    if (cursor->id == 0)
        return MCDS_OK;                 /* complete: nothing more */
    tl_start(&l);
    if (page == 0)
        page = cursor->count;
    tl_add(&l, "tnext %" PRIu64, cursor->id);
    if (page > 0)
        tl_add(&l, " count=%u", page);
    return rows_call(h, cursor->table, &l, &cursor->id, rows, count);
}

mcds_status_t mcds_tclose(mcds_t *h, mcds_tcursor_t *cursor)
{
    tline_t l;
    mcds_status_t st;

    if (cursor == NULL)
        return MCDS_INVALID;
    if (cursor->id == 0)
        return MCDS_NOT_FOUND;
    tl_start(&l);
    tl_add(&l, "tclose %" PRIu64, cursor->id);
    st = one_line(h, cursor->table, &l, "DELETED", NULL, NULL);
    if (st == MCDS_OK || st == MCDS_NOT_FOUND)
        cursor->id = 0;
    return st;
}

const mcds_tfield_t *mcds_trow_field(const mcds_trow_t *row, const char *name)
{
    size_t i;

    for (i = 0; row != NULL && name != NULL && i < row->nfields; i++)
        if (strcmp(row->fields[i].name, name) == 0)
            return &row->fields[i];
    return NULL;
}

void mcds_trows_free(mcds_trow_t *rows)
{
    free(rows);
}
