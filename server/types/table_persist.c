/*
 * table_persist: tables in the log and in snapshots (doc/persistence.md,
 * "What is logged"). Records, each starting with the table's name:
 *
 *   CREATE  name, version, schema (fields, key, indexes)
 *   DROP    name
 *   INDEX   name, index definition          DROPINDEX  name, index name
 *   PUT     name, version, every field's value (the whole row: replay
 *           needs no lookup)
 *   DEL     name, the table's version after it, the key's values
 *
 * A value is a tag (0 NULL, 1 int + 8 bytes, 2 bytes + u32 length + its
 * bytes). A snapshot holds, per table, a CREATE with every index (one
 * being built included) and a PUT per row; replay and load apply the same
 * records, and an index added by a record is built at once.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "types/table_int.h"

enum { TP_CREATE = 1, TP_DROP, TP_INDEX, TP_DROPINDEX, TP_PUT, TP_DEL };

#define TP_VAL_HEAD 9           /* the most a value takes besides its bytes */
#define TP_HEAD_MAX (TBL_FIELDS_MAX * TP_VAL_HEAD + 2 * (TBL_TABLE_NAME_MAX + 1) + 64)
#define TP_SCHEMA_MAX (TBL_FIELDS_MAX * (TBL_NAME_MAX + 2) + TBL_INDEXES_MAX * (TBL_NAME_MAX + 2 + 2 * TBL_PARTS_MAX) + 64)

/* A record being made: fixed parts in head, the values' bytes between them. */
struct tp_rec {
    uint8_t head[TP_HEAD_MAX + TP_SCHEMA_MAX];
    struct codec_out o;
    struct iovec iov[2 * TBL_FIELDS_MAX + 2];
    int niov;
    size_t from;                /* where the head's current slice starts */
};

static void tp_begin(struct tp_rec *r, const struct table *t) {
    codec_out_init(&r->o, r->head, sizeof(r->head));
    r->niov = 0;
    r->from = 0;
    codec_put_key(&r->o, t->name, t->nname);
}

/* Ends the head's current slice into the iovecs. */
static void tp_cut(struct tp_rec *r) {
    if (r->o.n > r->from) {
        r->iov[r->niov].iov_base = r->head + r->from;
        r->iov[r->niov++].iov_len = r->o.n - r->from;
        r->from = r->o.n;
    }
}

static void tp_put_val(struct tp_rec *r, enum tbl_type type, const struct tbl_val *v) {
    if (v->null) {
        codec_put_u8(&r->o, 0);
    } else if (type == TBL_INT) {
        codec_put_u8(&r->o, 1);
        codec_put_u64(&r->o, (uint64_t)v->i);
    } else {
        codec_put_u8(&r->o, 2);
        codec_put_u32(&r->o, v->n);
        tp_cut(r);
        r->iov[r->niov].iov_base = (void *)v->p;
        r->iov[r->niov++].iov_len = v->n;
    }
}

static bool tp_get_val(struct codec_in *in, enum tbl_type type, struct tbl_val *v) {
    uint8_t tag = codec_get_u8(in);

    memset(v, 0, sizeof(*v));
    if (tag == 0)
        v->null = true;
    else if (tag == 1 && type == TBL_INT)
        v->i = (int64_t)codec_get_u64(in);
    else if (tag == 2 && type == TBL_BYTES) {
        v->n = codec_get_u32(in);
        v->p = codec_get_bytes(in, v->n);
        if (v->p == NULL && v->n == 0)
            v->p = (const uint8_t *)"";
    } else
        return false;
    return !in->bad;
}

static void tp_log(struct tp_rec *r, uint8_t op) {
    tp_cut(r);
    persist_log(PERSIST_TABLE, op, r->iov, r->niov);
}

/* ---- schema ---- */

static void tp_put_index(struct codec_out *o, const struct tbl_index_def *d) {
    int i;

    codec_put_key(o, d->name, strlen(d->name));
    codec_put_u8(o, (uint8_t)d->nparts);
    for (i = 0; i < d->nparts; i++) {
        codec_put_u8(o, (uint8_t)d->part[i].field);
        codec_put_u8(o, (uint8_t)(d->part[i].desc | d->part[i].nulls_last << 1));
    }
}

static bool tp_get_index(struct codec_in *in, int nf, struct tbl_index_def *d) {
    const char *name;
    size_t n;
    int i;

    memset(d, 0, sizeof(*d));
    name = codec_get_key(in, &n);
    d->nparts = codec_get_u8(in);
    if (name == NULL || n == 0 || n > TBL_NAME_MAX || d->nparts < 1 || d->nparts > TBL_PARTS_MAX)
        return false;
    memcpy(d->name, name, n);
    for (i = 0; i < d->nparts; i++) {
        uint8_t flags;

        d->part[i].field = codec_get_u8(in);
        flags = codec_get_u8(in);
        d->part[i].desc = flags & 1;
        d->part[i].nulls_last = (flags & 2) != 0;
        if (d->part[i].field >= nf)
            return false;
    }
    return !in->bad;
}

/* The schema with t's current secondary indexes. */
static void tp_put_schema(struct codec_out *o, const struct table *t) {
    int f, i;

    codec_put_u8(o, (uint8_t)t->s.nf);
    for (f = 0; f < t->s.nf; f++) {
        codec_put_u8(o, (uint8_t)t->s.type[f]);
        codec_put_key(o, t->s.name[f], strlen(t->s.name[f]));
    }
    codec_put_u8(o, (uint8_t)t->s.nkey);
    for (i = 0; i < t->s.nkey; i++)
        codec_put_u8(o, (uint8_t)t->s.key[i]);
    codec_put_u8(o, (uint8_t)(t->nidx - 1));
    for (i = 1; i < t->nidx; i++)
        tp_put_index(o, &t->idx[i]->def);
}

static bool tp_get_schema(struct codec_in *in, struct tbl_schema *s) {
    const char *name;
    size_t n;
    int f, i;

    memset(s, 0, sizeof(*s));
    s->nf = codec_get_u8(in);
    if (s->nf < 1 || s->nf > TBL_FIELDS_MAX)
        return false;
    for (f = 0; f < s->nf; f++) {
        s->type[f] = codec_get_u8(in) == TBL_INT ? TBL_INT : TBL_BYTES;
        if ((name = codec_get_key(in, &n)) == NULL || n == 0 || n > TBL_NAME_MAX)
            return false;
        memcpy(s->name[f], name, n);
    }
    s->nkey = codec_get_u8(in);
    if (s->nkey < 1 || s->nkey > TBL_KEY_MAX)
        return false;
    for (i = 0; i < s->nkey; i++)
        if ((s->key[i] = codec_get_u8(in)) >= s->nf)
            return false;
    s->nidx = codec_get_u8(in);
    if (s->nidx > TBL_INDEXES_MAX - 1)
        return false;
    for (i = 0; i < s->nidx; i++)
        if (!tp_get_index(in, s->nf, &s->idx[i]))
            return false;
    return !in->bad;
}

/* ---- records written ---- */

static void tp_log_create(const struct table *t, struct snap_writer *w, int *rc) {
    struct tp_rec *r = malloc(sizeof(*r));

    if (r == NULL) {
        log_msg(0, "persistence: no memory to log table %.*s", (int)t->nname, t->name);
        if (rc != NULL)
            *rc = -1;
        return;
    }
    tp_begin(r, t);
    codec_put_u64(&r->o, t->ver);
    tp_put_schema(&r->o, t);
    tp_cut(r);
    if (w != NULL)
        *rc = snap_put(w, PERSIST_TABLE, TP_CREATE, r->iov, r->niov);
    else
        persist_log(PERSIST_TABLE, TP_CREATE, r->iov, r->niov);
    free(r);
}

void table_persist_create(const struct table *t) {
    if (persist_on())
        tp_log_create(t, NULL, NULL);
}

void table_persist_drop(const struct table *t) {
    struct codec_out o;
    uint8_t buf[TBL_TABLE_NAME_MAX + 1];
    struct iovec v = { buf, 0 };

    if (!persist_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, t->name, t->nname);
    v.iov_len = o.n;
    persist_log(PERSIST_TABLE, TP_DROP, &v, 1);
}

void table_persist_index(const struct table *t, const struct tbl_index_def *d, bool add) {
    struct codec_out o;
    uint8_t buf[TBL_TABLE_NAME_MAX + TBL_NAME_MAX + 4 + 2 * TBL_PARTS_MAX];
    struct iovec v = { buf, 0 };

    if (!persist_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, t->name, t->nname);
    if (add)
        tp_put_index(&o, d);
    else
        codec_put_key(&o, d->name, strlen(d->name));
    v.iov_len = o.n;
    persist_log(PERSIST_TABLE, add ? TP_INDEX : TP_DROPINDEX, &v, 1);
}

/* A PUT of row values v at version ver: logged, or into w. */
static int tp_put_row(const struct table *t, uint64_t ver, const struct tbl_val *v, struct snap_writer *w) {
    struct tp_rec *r = malloc(sizeof(*r));
    int f, rc = 0;

    if (r == NULL)
        return -1;
    tp_begin(r, t);
    codec_put_u64(&r->o, ver);
    for (f = 0; f < t->s.nf; f++)
        tp_put_val(r, t->s.type[f], &v[f]);
    tp_cut(r);
    if (w != NULL)
        rc = snap_put(w, PERSIST_TABLE, TP_PUT, r->iov, r->niov);
    else
        persist_log(PERSIST_TABLE, TP_PUT, r->iov, r->niov);
    free(r);
    return rc;
}

void table_persist_put(const struct table *t, uint64_t ver, const struct tbl_val *v) {
    if (persist_on() && tp_put_row(t, ver, v, NULL) < 0)
        log_msg(0, "persistence: no memory to log a row of table %.*s", (int)t->nname, t->name);
}

void table_persist_del(const struct table *t, const struct tbl_val *key) {
    struct tp_rec *r;
    int k;

    if (!persist_on())
        return;
    if ((r = malloc(sizeof(*r))) == NULL) {
        log_msg(0, "persistence: no memory to log a delete in table %.*s", (int)t->nname, t->name);
        return;
    }
    tp_begin(r, t);
    codec_put_u64(&r->o, t->ver);
    for (k = 0; k < t->s.nkey; k++)
        tp_put_val(r, t->s.type[t->s.key[k]], &key[k]);
    tp_log(r, TP_DEL);
    free(r);
}

/* ---- records applied (replay and snapshot load alike) ---- */

static int tp_apply_create(struct codec_in *in, const char *name, size_t nname) {
    struct tbl_schema *s = malloc(sizeof(*s));
    uint64_t ver = codec_get_u64(in);
    struct table *t;
    int rc = -1;

    if (s != NULL && tp_get_schema(in, s) && table_create(name, nname, s) == TBL_OK &&
        (t = table_get(name, nname)) != NULL) {
        t->ver = ver;
        table_put(t);
        rc = 0;
    }
    free(s);
    return rc;
}

static int tp_apply_row(uint8_t op, struct codec_in *in, struct table *t) {
    struct tbl_val v[TBL_FIELDS_MAX];
    bool given[TBL_FIELDS_MAX];
    uint64_t ver = codec_get_u64(in), got, before = t->ver;
    int f, k;

    if (op == TP_DEL) {
        for (k = 0; k < t->s.nkey; k++)
            if (!tp_get_val(in, t->s.type[t->s.key[k]], &v[k]) || v[k].null)
                return -1;
        if (in->n != 0 || table_delete(t, v, 0) != TBL_OK)
            return -1;
        t->ver = ver;
        return 0;
    }
    for (f = 0; f < t->s.nf; f++) {
        given[f] = true;
        if (!tp_get_val(in, t->s.type[f], &v[f]))
            return -1;
    }
    for (k = 0; k < t->s.nkey; k++)
        if (v[t->s.key[k]].null)
            return -1;
    if (in->n != 0 || table_write(t, TBL_PUT, given, v, 0, &got) != TBL_OK)
        return -1;
    return table_restore_version(t, v, ver, before);
}

static int tp_apply(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn) {
    struct tbl_index_def d;
    struct codec_in in;
    struct table *t;
    const char *name, *ix;
    size_t nname, nix;
    int rc = -1;

    (void)lsn;
    codec_in_init(&in, p, n);
    name = codec_get_key(&in, &nname);
    if (name == NULL || nname == 0)
        return -1;
    if (op == TP_CREATE)
        return tp_apply_create(&in, name, nname);
    if (op == TP_DROP)
        return in.n == 0 && table_drop(name, nname) == TBL_OK ? 0 : -1;
    if ((t = table_get(name, nname)) == NULL)
        return -1;
    if (op == TP_INDEX) {
        rc = tp_get_index(&in, t->s.nf, &d) && in.n == 0 && table_add_index(t, &d) == TBL_OK ? 0 : -1;
    } else if (op == TP_DROPINDEX) {
        ix = codec_get_key(&in, &nix);
        if (ix != NULL && nix > 0 && nix <= TBL_NAME_MAX && in.n == 0) {
            memcpy(d.name, ix, nix);
            d.name[nix] = '\0';
            rc = table_drop_index(t, d.name) == TBL_OK ? 0 : -1;
        }
    } else if (op == TP_PUT || op == TP_DEL) {
        rc = tp_apply_row(op, &in, t);
    }
    table_put(t);
    return rc;
}

static int tp_load(uint8_t op, const uint8_t *p, size_t n) {
    return tp_apply(op, p, n, 0);
}

/* ---- snapshots ---- */

/* In the snapshot's child: every table at the instant of the fork. */
static int tp_dump_one(void *arg, struct table *t) {
    struct snap_writer *w = arg;
    struct tskip_node *n;
    int rc = 0;

    tp_log_create(t, w, &rc);
    for (n = tskip_seek(&t->idx[0]->sl, NULL, 0, false); n != NULL && rc == 0; n = tskip_next(n)) {
        struct tbl_row *r = n->val;

        rc = tp_put_row(t, r->ver, r->v, w);
    }
    return rc;
}

static int tp_dump_all(struct snap_writer *w) {
    return table_each(tp_dump_one, w);
}

static int tp_dump_item(struct snap_writer *w, item *it) {
    (void)w;
    (void)it;
    return 0;
}

/* Every record starts with its table's name: a record that does not apply
 * quarantines that table. */
static const char *tp_key_of(uint8_t op, const uint8_t *p, size_t n, size_t *nkey) {
    (void)op;
    return persist_key_first(p, n, nkey);
}

static const struct persist_type_ops tp_ops = {
    .name = "table",
    .apply = tp_apply,
    .key_of = tp_key_of,
    .load = tp_load,
    .dump_item = tp_dump_item,
    .dump_all = tp_dump_all,
};

void table_persist_init(void) {
    persist_register(PERSIST_TABLE, ITEM_NTYPES, &tp_ops);
}
