/*
 * eventlog.c - a ring buffer of the events of the last T seconds.
 *
 * With n = num_chunks and C = time_chunk_s * 1000 ms, the event at time t
 * (ms) belongs to period p = t / C, and its chunk must stay readable until
 * keep(p) = (p + n) * C: the end of period p plus the n-1 periods of the
 * retention. A chunk is created with "add" and a TTL that ends past
 * keep(p) whenever it is created (chunk_ttl), and events are added to it
 * with "append" (append first; if the key is missing, add; if the add lost
 * to another writer, append again).
 *
 * memcached's clock counts whole seconds and is moved on by a timer once a
 * second, so an item stored with a TTL of T seconds lives more than T-2 s
 * (T-1 s except when a late tick skips a second) and at most T s (plus the
 * tick's delay). The TTL ceil((keep - now) / 1000) + 2 therefore ends the
 * chunk within 3 s after keep(p). The ring has spare slots covering at
 * least 4 s after the n periods, so a slot is reused by period
 * p + slots no earlier than keep(p) + 4 s: the old chunk is gone by then,
 * with at least a second to spare for clock differences between clients.
 * Keys: "mcds:log:<name>:<slot>", slot = p % slots, slots = n + ceil(4 s / C).
 *
 * mcds_log_put accepts an event of the current period or one of the n-2
 * before it, so every accepted event stays readable for more than C after
 * its put: a reader that reads once per chunk sees it.
 *
 * Chunk format (all varints, see codec.c):
 *   header  0xE1, period, nonce (8 bytes, random per created chunk)
 *   record  payload length, zigzag(time_ms - period * chunk_ms), payload
 * Records never interleave (each append is atomic) and a chunk only grows.
 *
 * fetch reads the chunks of [first, last] with one multi-get and keeps
 * exactly the events in the range. The reader remembers, per slot, the
 * chunk's nonce and how many bytes it has consumed: the next read returns
 * only bytes appended since (or a whole chunk with a new nonce), so no event
 * is lost or repeated, not even one that arrives late with an old time.
 */
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define CHUNK_MAGIC 0xE1
#define NONCE_BYTES 8
#define MAX_CHUNKS 1000u
#define MIN_RETENTION_S 4u
#define MAX_TTL 2592000  /* memcached reads a longer TTL as a Unix time */
#define TTL_SLACK_S 2    /* a TTL of T lives more than T-2 s */
#define SPARE_MS 4000    /* the spare slots cover at least this much */
#define APPEND_ATTEMPTS 3

struct mcds_log {
    mcds_t *h;
    mcds__key_t base;
    int64_t chunk_ms;
    unsigned n;      /* num_chunks: the retention is n-1 periods */
    unsigned slots;  /* keys in the ring: n plus the spare ones */
};

/* Reader state for one slot. */
typedef struct slot_state {
    uint64_t nonce;
    size_t offset;
    int seen;
} slot_state_t;

struct mcds_log_reader {
    mcds_log_t *log;
    int64_t since;
    slot_state_t *slot;
};

/* An event found in a chunk, pointing into the fetched value. */
typedef struct found {
    int64_t time_ms;
    const char *data;
    size_t len;
    size_t seq; /* discovery order, to keep ties in append order */
} found_t;

typedef struct found_vec {
    found_t *v;
    size_t n;
    size_t cap;
    size_t bytes;
} found_vec_t;

/* ---- creating and naming ---- */

/* The sizes mcds_log_new accepts: n in 2..MAX_CHUNKS, a retention of at
 * least MIN_RETENTION_S, and a longest TTL (n * C + TTL_SLACK_S, for an
 * event at the start of the current period) memcached reads as relative. */
static int sizes_ok(unsigned time_chunk_s, unsigned num_chunks)
{
    unsigned long long span = (unsigned long long)time_chunk_s * num_chunks;

    return num_chunks >= 2 && num_chunks <= MAX_CHUNKS && time_chunk_s > 0 &&
           span - time_chunk_s >= MIN_RETENTION_S &&
           span + TTL_SLACK_S <= MAX_TTL;
}

/* The base key "mcds:log:<name>", checked to leave room for the suffix of
 * the ring's last slot. */
static mcds_status_t log_base(mcds_log_t *log, const char *name)
{
    size_t len;
    mcds_status_t st = mcds__key_base(&log->base, "log", name);

    len = log->base.len;
    if (st == MCDS_OK)
        st = mcds__key_add(&log->base, ":");
    if (st == MCDS_OK)
        st = mcds__key_add_uint(&log->base, log->slots - 1);
    log->base.len = len;
    log->base.s[len] = '\0';
    return st;
}

mcds_status_t mcds_log_new(mcds_t *h, const char *name, unsigned time_chunk_s,
                           unsigned num_chunks, mcds_log_t **out)
{
    mcds_log_t *log;
    mcds_status_t st;

    if (h == NULL || out == NULL || !sizes_ok(time_chunk_s, num_chunks))
        return MCDS_INVALID;
    *out = NULL;
    log = calloc(1, sizeof *log);
    if (log == NULL)
        return MCDS_NO_MEMORY;
    log->h = h;
    log->chunk_ms = (int64_t)time_chunk_s * 1000;
    log->n = num_chunks;
    log->slots = num_chunks +
                 (unsigned)((SPARE_MS + log->chunk_ms - 1) / log->chunk_ms);
    st = log_base(log, name);
    if (st != MCDS_OK) {
        free(log);
        return st;
    }
    *out = log;
    return MCDS_OK;
}

void mcds_log_free(mcds_log_t *log)
{
    free(log);
}

static void slot_key(const mcds_log_t *log, unsigned slot, mcds__key_t *k)
{
    *k = log->base;
    mcds__key_add(k, ":");
    mcds__key_add_uint(k, slot);
}

static int64_t period_of(const mcds_log_t *log, int64_t t)
{
    return t / log->chunk_ms;
}

/* ---- writing ---- */

static mcds_status_t put_header(mcds__buf_t *b, int64_t period)
{
    unsigned char magic = CHUNK_MAGIC;
    unsigned char nonce[NONCE_BYTES];
    mcds_status_t st;

    mcds__random_bytes(nonce, sizeof nonce);
    st = mcds__buf_put(b, &magic, 1);
    if (st == MCDS_OK)
        st = mcds__buf_put_varint(b, (uint64_t)period);
    if (st == MCDS_OK)
        st = mcds__buf_put(b, nonce, sizeof nonce);
    return st;
}

static mcds_status_t put_record(mcds__buf_t *b, const mcds_log_t *log,
                                int64_t t, const void *data, size_t len)
{
    int64_t rel = t - period_of(log, t) * log->chunk_ms;
    mcds_status_t st = mcds__buf_put_varint(b, len);

    if (st == MCDS_OK)
        st = mcds__buf_put_varint(b, mcds__zigzag(rel));
    if (st == MCDS_OK)
        st = mcds__buf_put(b, data, len);
    return st;
}

/* The end of the guaranteed life of period p's chunk (ms). */
static int64_t keep_until(const mcds_log_t *log, int64_t period)
{
    return (period + log->n) * log->chunk_ms;
}

/* The TTL of a chunk of period p created at now (ms): it lives past
 * keep_until(p) and ends within 3 s after it, whatever second it is created
 * in (see the top of the file). now is before keep_until(p) (time_ok). */
static time_t chunk_ttl(const mcds_log_t *log, int64_t period, int64_t now)
{
    int64_t left = keep_until(log, period) - now;

    return (time_t)((left + 999) / 1000 + TTL_SLACK_S);
}

/* Creates the chunk with header + record: MCDS_OK or MCDS_EXISTS. */
static mcds_status_t create_chunk(mcds_log_t *log, const mcds__key_t *key,
                                  int64_t t, int64_t now,
                                  const mcds__buf_t *record)
{
    time_t ttl = chunk_ttl(log, period_of(log, t), now);
    mcds__buf_t b;
    mcds_status_t st;

    mcds__buf_init(&b);
    st = put_header(&b, period_of(log, t));
    if (st == MCDS_OK)
        st = mcds__buf_put(&b, record->p, record->len);
    if (st == MCDS_OK)
        st = mcds__add(log->h, &log->base, key, b.p, b.len, ttl);
    mcds__buf_free(&b);
    return st;
}

/* An event may belong to the current period or to one of the n-2 before
 * it, so that it stays readable for more than one period after its put,
 * and to no later period: the slot of a later one may still hold the chunk
 * of the previous round. */
static mcds_status_t time_ok(const mcds_log_t *log, int64_t t, int64_t now)
{
    int64_t p = period_of(log, t), current = period_of(log, now);

    if (t < 0 || p < current - (int64_t)(log->n - 2) || p > current)
        return MCDS_INVALID;
    return MCDS_OK;
}

mcds_status_t mcds_log_put(mcds_log_t *log, int64_t time_ms, const void *data,
                           size_t len)
{
    int64_t now = mcds__now_ms();
    mcds__key_t key;
    mcds__buf_t rec;
    mcds_status_t st;
    int attempt;

    if (log == NULL || (data == NULL && len > 0))
        return MCDS_INVALID;
    st = time_ok(log, time_ms, now);
    if (st != MCDS_OK)
        return st;
    slot_key(log, (unsigned)(period_of(log, time_ms) % log->slots), &key);
    mcds__buf_init(&rec);
    st = put_record(&rec, log, time_ms, data, len);
    for (attempt = 0; st == MCDS_OK && attempt < APPEND_ATTEMPTS; attempt++) {
        st = mcds__append(log->h, &log->base, &key, rec.p, rec.len);
        if (st != MCDS_NOT_FOUND)
            break;
        st = create_chunk(log, &key, time_ms, now, &rec);
        if (st != MCDS_EXISTS)
            break;
        st = MCDS_OK;
    }
    /* The chunk exists but append keeps failing: memcached answers
     * NOT_STORED when an append would exceed its item size limit. */
    if (st == MCDS_OK && attempt == APPEND_ATTEMPTS)
        st = MCDS_TOO_LARGE;
    mcds__buf_free(&rec);
    return st;
}

mcds_status_t mcds_log_clear(mcds_log_t *log)
{
    unsigned i;

    if (log == NULL)
        return MCDS_INVALID;
    for (i = 0; i < log->slots; i++) {
        mcds__key_t key;
        mcds_status_t st;
        slot_key(log, i, &key);
        st = mcds__delete(log->h, &log->base, &key);
        if (st != MCDS_OK && st != MCDS_NOT_FOUND)
            return st;
    }
    return MCDS_OK;
}

/* ---- parsing chunks ---- */

/* Reads the header: *pos is left at the first record. */
static int read_header(const char *p, size_t len, size_t *pos,
                       uint64_t *period, uint64_t *nonce)
{
    *pos = 0;
    if (len < 1 || (unsigned char)p[0] != CHUNK_MAGIC)
        return -1;
    *pos = 1;
    if (mcds__get_varint(p, len, pos, period) != 0 ||
        len - *pos < NONCE_BYTES)
        return -1;
    memcpy(nonce, p + *pos, NONCE_BYTES);
    *pos += NONCE_BYTES;
    return 0;
}

static mcds_status_t found_push(found_vec_t *fv, int64_t t, const char *data,
                                size_t len)
{
    if (fv->n == fv->cap) {
        size_t cap = fv->cap ? fv->cap * 2 : 64;
        found_t *v = realloc(fv->v, cap * sizeof *v);
        if (v == NULL)
            return MCDS_NO_MEMORY;
        fv->v = v;
        fv->cap = cap;
    }
    fv->v[fv->n].time_ms = t;
    fv->v[fv->n].data = data;
    fv->v[fv->n].len = len;
    fv->v[fv->n].seq = fv->n;
    fv->n++;
    fv->bytes += len + 1;
    return MCDS_OK;
}

/* Collects the records of a chunk from pos on with lo <= time <= hi. */
static mcds_status_t scan_records(const mcds_log_t *log, const char *p,
                                  size_t len, size_t pos, uint64_t period,
                                  int64_t lo, int64_t hi, found_vec_t *fv)
{
    int64_t base = (int64_t)period * log->chunk_ms;

    while (pos < len) {
        uint64_t dlen, zz;
        int64_t t;
        mcds_status_t st;

        if (mcds__get_varint(p, len, &pos, &dlen) != 0 ||
            mcds__get_varint(p, len, &pos, &zz) != 0 || dlen > len - pos)
            return MCDS_CORRUPT;
        t = base + mcds__unzigzag(zz);
        if (t >= lo && t <= hi) {
            st = found_push(fv, t, p + pos, (size_t)dlen);
            if (st != MCDS_OK)
                return st;
        }
        pos += (size_t)dlen;
    }
    return MCDS_OK;
}

static int by_time(const void *a, const void *b)
{
    const found_t *x = a, *y = b;

    if (x->time_ms != y->time_ms)
        return x->time_ms < y->time_ms ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Sorts the found events and copies them into one allocation. */
static mcds_status_t pack_events(found_vec_t *fv, mcds_event_t **events,
                                 size_t *count)
{
    char *block, *text;
    size_t i;

    *events = NULL;
    *count = 0;
    if (fv->n == 0)
        return MCDS_OK;
    qsort(fv->v, fv->n, sizeof *fv->v, by_time);
    block = malloc(fv->n * sizeof(mcds_event_t) + fv->bytes);
    if (block == NULL)
        return MCDS_NO_MEMORY;
    *events = (mcds_event_t *)block;
    text = block + fv->n * sizeof(mcds_event_t);
    for (i = 0; i < fv->n; i++) {
        if (fv->v[i].len > 0)
            memcpy(text, fv->v[i].data, fv->v[i].len);
        text[fv->v[i].len] = '\0';
        (*events)[i].time_ms = fv->v[i].time_ms;
        (*events)[i].data = text;
        (*events)[i].len = fv->v[i].len;
        text += fv->v[i].len + 1;
    }
    *count = fv->n;
    return MCDS_OK;
}

void mcds_events_free(mcds_event_t *events)
{
    free(events);
}

/* Multi-gets the chunks of slots first_slot, first_slot+1 ... (n of them,
 * wrapping). vals[i] is slot (first_slot + i) % log->slots. */
static mcds_status_t get_chunks(mcds_log_t *log, unsigned first_slot,
                                unsigned n, mcds__val_t *vals)
{
    mcds__key_t *keys = malloc(n * sizeof *keys);
    mcds_status_t st;
    unsigned i;

    if (keys == NULL)
        return MCDS_NO_MEMORY;
    for (i = 0; i < n; i++)
        slot_key(log, (first_slot + i) % log->slots, &keys[i]);
    st = mcds__mget(log->h, &log->base, keys, n, vals);
    free(keys);
    return st;
}

static void free_vals(mcds__val_t *vals, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++)
        mcds__val_free(&vals[i]);
    free(vals);
}

/* ---- fetch ---- */

static mcds_status_t scan_all(mcds_log_t *log, mcds__val_t *vals, unsigned n,
                              int64_t lo, int64_t hi, found_vec_t *fv)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        uint64_t period, nonce;
        size_t pos;
        mcds_status_t st;

        if (!vals[i].found)
            continue;
        if (read_header(vals[i].data, vals[i].len, &pos, &period, &nonce))
            return MCDS_CORRUPT;
        st = scan_records(log, vals[i].data, vals[i].len, pos, period, lo, hi,
                          fv);
        if (st != MCDS_OK)
            return st;
    }
    return MCDS_OK;
}

mcds_status_t mcds_log_fetch(mcds_log_t *log, int64_t first_ms,
                             int64_t last_ms, mcds_event_t **events,
                             size_t *count)
{
    found_vec_t fv = {NULL, 0, 0, 0};
    int64_t pf, pl;
    unsigned n;
    mcds__val_t *vals;
    mcds_status_t st;

    if (log == NULL || events == NULL || count == NULL || first_ms < 0 ||
        last_ms < first_ms)
        return MCDS_INVALID;
    *events = NULL;
    *count = 0;
    pf = period_of(log, first_ms);
    pl = period_of(log, last_ms);
    n = pl - pf + 1 >= (int64_t)log->slots ? log->slots
                                            : (unsigned)(pl - pf + 1);
    vals = calloc(n, sizeof *vals);
    if (vals == NULL)
        return MCDS_NO_MEMORY;
    st = get_chunks(log, (unsigned)(pf % log->slots), n, vals);
    if (st == MCDS_OK)
        st = scan_all(log, vals, n, first_ms, last_ms, &fv);
    if (st == MCDS_OK)
        st = pack_events(&fv, events, count);
    free(fv.v);
    free_vals(vals, n);
    return st;
}

/* ---- incremental reader ---- */

mcds_status_t mcds_log_reader_new(mcds_log_t *log, int64_t since_ms,
                                  mcds_log_reader_t **out)
{
    mcds_log_reader_t *r;

    if (log == NULL || out == NULL)
        return MCDS_INVALID;
    *out = NULL;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return MCDS_NO_MEMORY;
    r->slot = calloc(log->slots, sizeof *r->slot);
    if (r->slot == NULL) {
        free(r);
        return MCDS_NO_MEMORY;
    }
    r->log = log;
    r->since = since_ms;
    *out = r;
    return MCDS_OK;
}

void mcds_log_reader_free(mcds_log_reader_t *r)
{
    if (r == NULL)
        return;
    free(r->slot);
    free(r);
}

/* Collects what is new in one chunk and the slot's next state. */
static mcds_status_t read_slot(mcds_log_reader_t *r, const mcds__val_t *v,
                               const slot_state_t *old, slot_state_t *now,
                               found_vec_t *fv)
{
    uint64_t period, nonce;
    size_t pos;

    memset(now, 0, sizeof *now);
    if (!v->found)
        return MCDS_OK;
    if (read_header(v->data, v->len, &pos, &period, &nonce) != 0)
        return MCDS_CORRUPT;
    if (old->seen && old->nonce == nonce && old->offset <= v->len)
        pos = old->offset;
    now->seen = 1;
    now->nonce = nonce;
    now->offset = v->len;
    return scan_records(r->log, v->data, v->len, pos, period, r->since,
                        INT64_MAX, fv);
}

mcds_status_t mcds_log_read(mcds_log_reader_t *r, mcds_event_t **events,
                            size_t *count)
{
    found_vec_t fv = {NULL, 0, 0, 0};
    unsigned n, i;
    mcds__val_t *vals;
    slot_state_t *next;
    mcds_status_t st;

    if (r == NULL || events == NULL || count == NULL)
        return MCDS_INVALID;
    *events = NULL;
    *count = 0;
    n = r->log->slots;
    vals = calloc(n, sizeof *vals);
    next = calloc(n, sizeof *next);
    if (vals == NULL || next == NULL) {
        free(vals);
        free(next);
        return MCDS_NO_MEMORY;
    }
    st = get_chunks(r->log, 0, n, vals);
    for (i = 0; st == MCDS_OK && i < n; i++)
        st = read_slot(r, &vals[i], &r->slot[i], &next[i], &fv);
    if (st == MCDS_OK)
        st = pack_events(&fv, events, count);
    if (st == MCDS_OK)
        memcpy(r->slot, next, n * sizeof *next);
    free(fv.v);
    free(next);
    free_vals(vals, n);
    return st;
}
