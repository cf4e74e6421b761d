/*
 * table_enc: the order-preserving encoding of index entries
 * (doc/protocol.md, "Order and encoding of index entries") and the
 * decoding of values from request lines.
 *
 * A part is a tag (0x00 NULL first, 0x01 a value, 0x02 NULL last), then
 * for a value: an int as 8 bytes big-endian with the sign bit flipped;
 * bytes with 0x00 as 0x00 0xFF, ended by 0x00 0x00. A desc part has its
 * value bytes complemented. Every part delimits itself, so an entry's
 * parts never mix and the primary key appended last makes it unique.
 */
#include <string.h>

#include "base/parse.h"
#include "types/table_int.h"

#define TBL_TAG_NULL_FIRST 0x00
#define TBL_TAG_VALUE 0x01
#define TBL_TAG_NULL_LAST 0x02

static size_t table_bytes_encode(const struct tbl_val *v, uint8_t *out, uint8_t flip) {
    size_t n = 0;
    uint32_t i;

    for (i = 0; i < v->n; i++) {
        if (out != NULL)
            out[n] = v->p[i] ^ flip;
        n++;
        if (v->p[i] == 0) {
            if (out != NULL)
                out[n] = 0xFF ^ flip;
            n++;
        }
    }
    if (out != NULL) {
        out[n] = flip;
        out[n + 1] = flip;
    }
    return n + 2;
}

size_t table_part_encode(enum tbl_type type, const struct tbl_part *p, const struct tbl_val *v, uint8_t *out) {
    uint8_t flip = p->desc ? 0xFF : 0x00;
    uint64_t u;
    int b;

    if (v->null) {
        if (out != NULL)
            out[0] = p->nulls_last ? TBL_TAG_NULL_LAST : TBL_TAG_NULL_FIRST;
        return 1;
    }
    if (out != NULL)
        out[0] = TBL_TAG_VALUE;
    if (type == TBL_BYTES)
        return 1 + table_bytes_encode(v, out != NULL ? out + 1 : NULL, flip);
    if (out != NULL) {
        u = (uint64_t)v->i ^ (UINT64_C(1) << 63);
        for (b = 0; b < 8; b++)
            out[1 + b] = (uint8_t)(u >> (56 - 8 * b)) ^ flip;
    }
    return 9;
}

/* The primary key's parts: ascending, NULL impossible. */
static const struct tbl_part table_key_part = { 0, false, false };

size_t table_entry_size(const struct table *t, const struct tbl_index *ix, const struct tbl_val *v) {
    size_t n = 0;
    int i;

    for (i = 0; i < ix->def.nparts; i++)
        n += table_part_encode(t->s.type[ix->def.part[i].field], &ix->def.part[i], &v[ix->def.part[i].field], NULL);
    if (ix != t->idx[0])
        for (i = 0; i < t->s.nkey; i++)
            n += table_part_encode(t->s.type[t->s.key[i]], &table_key_part, &v[t->s.key[i]], NULL);
    return n;
}

void table_entry_write(const struct table *t, const struct tbl_index *ix, const struct tbl_val *v, uint8_t *out) {
    int i;

    for (i = 0; i < ix->def.nparts; i++)
        out += table_part_encode(t->s.type[ix->def.part[i].field], &ix->def.part[i], &v[ix->def.part[i].field], out);
    if (ix != t->idx[0])
        for (i = 0; i < t->s.nkey; i++)
            out += table_part_encode(t->s.type[t->s.key[i]], &table_key_part, &v[t->s.key[i]], out);
}

bool table_index_covers(const struct tbl_index *ix, const uint8_t *pk, size_t npk) {
    if (!ix->building)
        return true;
    return ix->built != NULL && tskip_cmp(pk, npk, ix->built, ix->nbuilt) <= 0;
}

static int table_hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool table_value_parse(char *tok, size_t n, enum tbl_type type, struct tbl_val *v) {
    size_t i, o = 0;
    int hi, lo;

    memset(v, 0, sizeof(*v));
    if (n == 4 && memcmp(tok, "null", 4) == 0) {
        v->null = true;
        return true;
    }
    if (type == TBL_INT)
        return n > 0 && parse_i64_digits(tok, &v->i);
    if (n == 1 && tok[0] == '%')
        n = 0;                  /* the empty value as a token of its own */
    for (i = 0; i < n; i++) {
        if (tok[i] != '%') {
            tok[o++] = tok[i];
            continue;
        }
        if (i + 2 >= n || (hi = table_hex(tok[i + 1])) < 0 || (lo = table_hex(tok[i + 2])) < 0)
            return false;
        tok[o++] = (char)(hi << 4 | lo);
        i += 2;
    }
    v->p = (const uint8_t *)tok;
    v->n = (uint32_t)o;
    return true;
}
