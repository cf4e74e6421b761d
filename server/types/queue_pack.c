/*
 * types/queue_pack: the packed FIFO of a queue's plain ready messages
 * (see queue_pack.h). A message is five varints — id, seq and push time
 * (zigzag: the clock may be set back) as deltas from the message before
 * it, then flags and length — followed by its bytes. Each chunk keeps the
 * values of the message before its first live one, so it decodes on its
 * own; a chunk is freed when its last message is taken.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cache/item.h"
#include "types/queue_pack.h"

#define QPACK_HDR_MAX 50            /* five varints of at most 10 bytes */
#define QPACK_MALLOC_OVERHEAD 8     /* as items count theirs */

struct qpack_chunk {
    struct qpack_chunk *next;
    uint64_t id, seq, ms;           /* the message before the one at head */
    uint64_t last_id;               /* its last message's id */
    uint32_t head, used, cap;       /* offsets into data, and its size */
    uint32_t count;                 /* messages from head on */
    uint8_t data[];
};

/* ---- varints ---- */

static size_t qpack_put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static const uint8_t *qpack_get_varint(const uint8_t *p, uint64_t *v) {
    unsigned shift = 0;

    *v = 0;
    do {
        *v |= (uint64_t)(*p & 0x7f) << shift;
        shift += 7;
    } while (*p++ & 0x80);
    return p;
}

static uint64_t qpack_zigzag(uint64_t now, uint64_t before) {
    int64_t d = (int64_t)(now - before);

    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static uint64_t qpack_unzigzag(uint64_t v) {
    return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

/* Decodes the message at p whose predecessor had id, seq and ms (updated
 * to this one's); returns the end of the message. */
static const uint8_t *qpack_decode(const uint8_t *p, uint64_t *id, uint64_t *seq, uint64_t *ms,
                                   struct qpack_entry *e) {
    uint64_t v;

    p = qpack_get_varint(p, &v);
    *id += v;
    p = qpack_get_varint(p, &v);
    *seq += v;
    p = qpack_get_varint(p, &v);
    *ms += qpack_unzigzag(v);
    e->id = *id;
    e->seq = *seq;
    e->pushed_ms = *ms;
    p = qpack_get_varint(p, &v);
    e->flags = (uint32_t)v;
    p = qpack_get_varint(p, &v);
    e->len = (uint32_t)v;
    e->data = p;
    return p + e->len;
}

/* ---- chunks ---- */

static long qpack_charge_of(struct qpack_chunk *c) {
    return (long)(malloc_usable_size(c) + QPACK_MALLOC_OVERHEAD);
}

static struct qpack_chunk *qpack_chunk_new(uint32_t cap) {
    struct qpack_chunk *c = malloc(sizeof(*c) + cap);

    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->head = c->used = c->count = 0;
    c->cap = cap;
    item_mem_charge(qpack_charge_of(c));
    return c;
}

static void qpack_chunk_free(struct qpack_chunk *c) {
    item_mem_charge(-qpack_charge_of(c));
    free(c);
}

/* Frees c and every chunk after it. */
static void qpack_free_from(struct qpack_chunk *c) {
    struct qpack_chunk *next;

    for (; c != NULL; c = next) {
        next = c->next;
        qpack_chunk_free(c);
    }
}

/* ---- the FIFO ---- */

void qpack_init(struct qpack *p) {
    memset(p, 0, sizeof(*p));
}

void qpack_clear(struct qpack *p) {
    qpack_free_from(p->head);
    p->head = p->tail = NULL;
    p->n = 0;
    p->bytes = 0;
}

/* A new tail chunk with room for need bytes (see queue_pack.h for its
 * size): false without memory. */
static bool qpack_grow(struct qpack *p, size_t need) {
    size_t cap = QPACK_CHUNK - sizeof(struct qpack_chunk);
    size_t k = QPACK_CHUNK_MAX / need;      /* whole messages of this size */
    struct qpack_chunk *c;

    if (k > QPACK_PER_CHUNK)
        k = QPACK_PER_CHUNK;
    if (k > p->bytes / need)
        k = p->bytes / need;
    if (k * need > cap)
        cap = k * need;
    if (cap > p->bytes)
        cap = p->bytes;     /* a short queue keeps short chunks */
    if (need > cap)
        cap = need;
    if (cap > UINT32_MAX || (c = qpack_chunk_new((uint32_t)cap)) == NULL)
        return false;
    c->id = p->last_id;
    c->seq = p->last_seq;
    c->ms = p->last_ms;
    if (p->tail != NULL)
        p->tail->next = c;
    else
        p->head = c;
    p->tail = c;
    return true;
}

int qpack_push(struct qpack *p, const struct qpack_entry *e) {
    uint8_t hdr[QPACK_HDR_MAX];
    size_t nh = 0, need;
    struct qpack_chunk *c;

    nh += qpack_put_varint(hdr + nh, e->id - p->last_id);
    nh += qpack_put_varint(hdr + nh, e->seq - p->last_seq);
    nh += qpack_put_varint(hdr + nh, qpack_zigzag(e->pushed_ms, p->last_ms));
    nh += qpack_put_varint(hdr + nh, e->flags);
    nh += qpack_put_varint(hdr + nh, e->len);
    need = nh + e->len;
    if ((p->tail == NULL || p->tail->cap - p->tail->used < need) && !qpack_grow(p, need))
        return -1;
    c = p->tail;
    memcpy(c->data + c->used, hdr, nh);
    if (e->len > 0)
        memcpy(c->data + c->used + nh, e->data, e->len);
    c->used += (uint32_t)need;
    c->count++;
    c->last_id = e->id;
    p->n++;
    p->bytes += need;
    p->last_id = e->id;
    p->last_seq = e->seq;
    p->last_ms = e->pushed_ms;
    return 0;
}

void qpack_mark(const struct qpack *p, struct qpack_mark *m) {
    m->tail = p->tail;
    m->used = p->tail != NULL ? p->tail->used : 0;
    m->count = p->tail != NULL ? p->tail->count : 0;
    m->tail_last_id = p->tail != NULL ? p->tail->last_id : 0;
    m->n = p->n;
    m->bytes = p->bytes;
    m->last_id = p->last_id;
    m->last_seq = p->last_seq;
    m->last_ms = p->last_ms;
}

void qpack_rollback(struct qpack *p, const struct qpack_mark *m) {
    if (m->tail == NULL) {
        qpack_free_from(p->head);
        p->head = NULL;
    } else {
        qpack_free_from(m->tail->next);
        m->tail->next = NULL;
        m->tail->used = m->used;
        m->tail->count = m->count;
        m->tail->last_id = m->tail_last_id;
    }
    p->tail = m->tail;
    p->n = m->n;
    p->bytes = m->bytes;
    p->last_id = m->last_id;
    p->last_seq = m->last_seq;
    p->last_ms = m->last_ms;
}

bool qpack_head(const struct qpack *p, struct qpack_entry *e) {
    const struct qpack_chunk *c = p->head;
    uint64_t id, seq, ms;

    if (c == NULL)
        return false;
    id = c->id;
    seq = c->seq;
    ms = c->ms;
    qpack_decode(c->data + c->head, &id, &seq, &ms, e);
    return true;
}

void qpack_pop(struct qpack *p) {
    struct qpack_chunk *c = p->head;
    struct qpack_entry e;
    const uint8_t *end;

    if (c == NULL)
        return;
    end = qpack_decode(c->data + c->head, &c->id, &c->seq, &c->ms, &e);
    p->bytes -= (size_t)(end - (c->data + c->head));
    c->head = (uint32_t)(end - c->data);
    p->n--;
    if (--c->count > 0)
        return;
    p->head = c->next;
    if (p->tail == c)
        p->tail = NULL;
    qpack_chunk_free(c);
}

/* ---- reading ---- */

void qpack_iter_start(const struct qpack *p, struct qpack_iter *it) {
    it->c = p->head;
    if (it->c != NULL) {
        it->off = it->c->head;
        it->id = it->c->id;
        it->seq = it->c->seq;
        it->ms = it->c->ms;
    }
}

bool qpack_iter_next(struct qpack_iter *it, struct qpack_entry *e) {
    const uint8_t *end;

    if (it->c != NULL && it->off >= it->c->used) {
        it->c = it->c->next;
        if (it->c != NULL) {
            it->off = it->c->head;
            it->id = it->c->id;
            it->seq = it->c->seq;
            it->ms = it->c->ms;
        }
    }
    if (it->c == NULL)
        return false;
    end = qpack_decode(it->c->data + it->off, &it->id, &it->seq, &it->ms, e);
    it->off = (uint32_t)(end - it->c->data);
    return true;
}

bool qpack_find(const struct qpack *p, uint64_t id, struct qpack_entry *e) {
    const struct qpack_chunk *c;

    for (c = p->head; c != NULL; c = c->next) {
        uint64_t cid = c->id, seq = c->seq, ms = c->ms;
        const uint8_t *at = c->data + c->head;
        if (c->last_id < id)
            continue;
        while (at < c->data + c->used) {
            at = qpack_decode(at, &cid, &seq, &ms, e);
            if (e->id >= id)
                return e->id == id;
        }
        return false;
    }
    return false;
}

int qpack_copy(const struct qpack *p, struct qpack *out) {
    const struct qpack_chunk *c;

    qpack_init(out);
    for (c = p->head; c != NULL; c = c->next) {
        struct qpack_chunk *d = qpack_chunk_new(c->used);
        if (d == NULL) {
            qpack_clear(out);
            return -1;
        }
        memcpy(d, c, sizeof(*c) + c->used);
        d->next = NULL;
        d->cap = c->used;
        if (out->tail != NULL)
            out->tail->next = d;
        else
            out->head = d;
        out->tail = d;
    }
    out->n = p->n;
    out->bytes = p->bytes;
    out->last_id = p->last_id;
    out->last_seq = p->last_seq;
    out->last_ms = p->last_ms;
    return 0;
}
