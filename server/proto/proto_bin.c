/*
 * proto_bin: memcached's binary protocol, answered as memcached 1.6.18
 * answers it.
 *
 * A request is a 24-byte header followed by extras, key and value. Like
 * memcached, the parser waits until header, extras and key are buffered,
 * checks the lengths (inconsistent ones close the connection after an
 * error packet), runs the command through store, and queues the response.
 * Values of storage commands are read straight into their item; the store
 * finishes in bin_nread_done. Quiet opcodes drop their success response
 * (and, for the get family, a miss); errors are always sent. Every error
 * status and its body text is in bin_errors[].
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "proto/auth.h"
#include "proto/auth_throttle.h"
#include "base/clock.h"
#include "base/log.h"
#include "proto/proto_bin.h"
#include "proto/readonly.h"
#include "repl/repl.h"
#include "base/settings.h"
#include "base/stats.h"
#include "ops/stats_report.h"
#include "store/store.h"

/* The request being executed. ext and key point into the read buffer. */
struct bin_req {
    struct bin_header h;
    uint8_t cmd;                /* the opcode with its quiet form folded in */
    bool quiet;
    const unsigned char *ext;
    const char *key;
};

/* ---- error responses: every status and body text in one table ---- */

enum bin_error {
    BIN_ERR_NOT_FOUND,
    BIN_ERR_EXISTS,
    BIN_ERR_TOO_LARGE,
    BIN_ERR_INVALID,
    BIN_ERR_NOT_STORED,
    BIN_ERR_NON_NUMERIC,
    BIN_ERR_AUTH,
    BIN_ERR_UNKNOWN,
    BIN_ERR_OOM_ITEM,
    BIN_ERR_OOM_INCR,
    BIN_ERR_LOG_FAILED,
    BIN_ERR_READ_ONLY,
    BIN_ERR_STALE,
    BIN_ERR_UNCONFIRMED,
    BIN_ERR_COUNT
};

static const struct {
    uint16_t status;
    const char *text;
} bin_errors[BIN_ERR_COUNT] = {
    [BIN_ERR_NOT_FOUND] = { BIN_STATUS_KEY_ENOENT, "Not found" },
    [BIN_ERR_EXISTS] = { BIN_STATUS_KEY_EEXISTS, "Data exists for key." },
    [BIN_ERR_TOO_LARGE] = { BIN_STATUS_E2BIG, "Too large." },
    [BIN_ERR_INVALID] = { BIN_STATUS_EINVAL, "Invalid arguments" },
    [BIN_ERR_NOT_STORED] = { BIN_STATUS_NOT_STORED, "Not stored." },
    [BIN_ERR_NON_NUMERIC] = { BIN_STATUS_DELTA_BADVAL,
                              "Non-numeric server-side value for incr or decr" },
    [BIN_ERR_AUTH] = { BIN_STATUS_AUTH_ERROR, "Auth failure." },
    [BIN_ERR_UNKNOWN] = { BIN_STATUS_UNKNOWN_COMMAND, "Unknown command" },
    [BIN_ERR_OOM_ITEM] = { BIN_STATUS_ENOMEM, "Out of memory allocating item" },
    [BIN_ERR_OOM_INCR] = { BIN_STATUS_ENOMEM, "Out of memory incrementing value" },
    [BIN_ERR_LOG_FAILED] = { BIN_STATUS_EINTERNAL, "Internal error: log write failed" },
    [BIN_ERR_READ_ONLY] = { BIN_STATUS_EINTERNAL, "Internal error: read-only replica" },
    [BIN_ERR_STALE] = { BIN_STATUS_EINTERNAL, "Internal error: stale replica" },
    [BIN_ERR_UNCONFIRMED] = { BIN_STATUS_EINTERNAL,
                              "Internal error: changed on the primary, not confirmed by enough replicas" },
};

/* ---- byte order ---- */

static uint16_t bin_get16(const unsigned char *p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t bin_get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t bin_get64(const unsigned char *p) {
    return (uint64_t)bin_get32(p) << 32 | bin_get32(p + 4);
}

static void bin_put16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void bin_put32(unsigned char *p, uint32_t v) {
    bin_put16(p, (uint16_t)(v >> 16));
    bin_put16(p + 2, (uint16_t)v);
}

static void bin_put64(unsigned char *p, uint64_t v) {
    bin_put32(p, (uint32_t)(v >> 32));
    bin_put32(p + 4, (uint32_t)v);
}

static void bin_decode_header(const unsigned char *p, struct bin_header *h) {
    h->magic = p[0];
    h->opcode = p[1];
    h->keylen = bin_get16(p + 2);
    h->extlen = p[4];
    h->datatype = p[5];
    h->status = bin_get16(p + 6);
    h->bodylen = bin_get32(p + 8);
    h->opaque = bin_get32(p + 12);
    h->cas = bin_get64(p + 16);
}

static void bin_encode_header(unsigned char *p, const struct bin_header *h) {
    p[0] = h->magic;
    p[1] = h->opcode;
    bin_put16(p + 2, h->keylen);
    p[4] = h->extlen;
    p[5] = h->datatype;
    bin_put16(p + 6, h->status);
    bin_put32(p + 8, h->bodylen);
    bin_put32(p + 12, h->opaque);
    bin_put64(p + 16, h->cas);
}

/* ---- responses ---- */

/* Writes a response header to the request req (echoing its opcode and
 * opaque) with room for `room` more bytes after it; returns where they go.
 * The caller commits BIN_HEADER_LEN plus what it wrote. */
static unsigned char *bin_reply_start(conn *c, const struct bin_header *req, uint16_t status,
                                      uint8_t extlen, uint16_t keylen, uint32_t bodylen,
                                      uint64_t cas, size_t room) {
    unsigned char *p = (unsigned char *)conn_out_reserve(c, BIN_HEADER_LEN + room);
    struct bin_header h = {
        .magic = BIN_RES_MAGIC, .opcode = req->opcode, .keylen = keylen, .extlen = extlen,
        .status = status, .bodylen = bodylen, .opaque = req->opaque,
        .cas = settings.cas_enabled ? cas : 0,
    };

    bin_encode_header(p, &h);
    return p + BIN_HEADER_LEN;
}

/* A response whose body is body[0..len). */
static void bin_reply(conn *c, const struct bin_header *req, uint16_t status, uint64_t cas,
                      const char *body, size_t len) {
    unsigned char *p = bin_reply_start(c, req, status, 0, 0, (uint32_t)len, cas, len);

    if (len > 0)
        memcpy(p, body, len);
    conn_out_commit(c, BIN_HEADER_LEN + len);
}

static void bin_error(conn *c, const struct bin_header *req, enum bin_error e) {
    const char *text = bin_errors[e].text;

    bin_reply(c, req, bin_errors[e].status, 0, text, strlen(text));
}

/* An empty success response, dropped for a quiet opcode. */
static void bin_ok(conn *c, const struct bin_req *r, uint64_t cas) {
    if (!r->quiet)
        bin_reply(c, &r->h, BIN_STATUS_OK, cas, NULL, 0);
}

/* ---- get getk gat gatk touch (and their quiet forms) ---- */

/* A hit: flags, the key for getk/gatk, the value except for touch. */
static void bin_hit(conn *c, const struct bin_req *r, item *it, bool with_key, bool with_value) {
    size_t nkey = with_key ? it->nkey : 0;
    size_t vlen = with_value ? it->nbytes - 2 : 0;
    unsigned char *p = bin_reply_start(c, &r->h, BIN_STATUS_OK, BIN_EXT_GET, (uint16_t)nkey,
                                       (uint32_t)(BIN_EXT_GET + nkey + vlen),
                                       store_client_cas(it), BIN_EXT_GET + nkey);

    bin_put32(p, item_flags(it));
    memcpy(p + BIN_EXT_GET, item_key(it), nkey);
    conn_out_commit(c, BIN_HEADER_LEN + BIN_EXT_GET + nkey);
    if (vlen > 0)
        conn_out_item(c, it, item_value(it), vlen);
    else
        item_release(it);
}

/* A miss: silent when quiet; getk/gatk echo the key instead of a text. */
static void bin_miss(conn *c, const struct bin_req *r, bool with_key) {
    unsigned char *p;

    if (r->quiet)
        return;
    if (!with_key) {
        bin_error(c, &r->h, BIN_ERR_NOT_FOUND);
        return;
    }
    p = bin_reply_start(c, &r->h, BIN_STATUS_KEY_ENOENT, 0, r->h.keylen, r->h.keylen, 0,
                        r->h.keylen);
    memcpy(p, r->key, r->h.keylen);
    conn_out_commit(c, BIN_HEADER_LEN + r->h.keylen);
}

static void bin_get(conn *c, const struct bin_req *r) {
    bool gat = r->cmd == BIN_CMD_GAT || r->cmd == BIN_CMD_GATK;
    bool with_key = r->cmd == BIN_CMD_GETK || r->cmd == BIN_CMD_GATK;
    item *it;

    if (gat) {
        stats_incr(STATS_CMD_TOUCH);
        it = store_get_touch(r->key, r->h.keylen, clock_exptime(bin_get32(r->ext)));
    } else {
        stats_incr(STATS_CMD_GET);
        it = store_get(r->key, r->h.keylen);
    }
    if (it == NULL) {
        stats_incr(gat ? STATS_TOUCH_MISSES : STATS_GET_MISSES);
        bin_miss(c, r, with_key);
        return;
    }
    stats_incr(gat ? STATS_TOUCH_HITS : STATS_GET_HITS);
    bin_hit(c, r, it, with_key, true);
}

/* touch answers flags (and CAS) without the value. It works on every type
 * (doc/design.md): a structure, which store_get_touch reads as a miss, is
 * touched by store_touch and answers flags 0. */
static void bin_touch(conn *c, const struct bin_req *r) {
    rel_time_t exptime = clock_exptime(bin_get32(r->ext));
    item *it;
    unsigned char *p;

    stats_incr(STATS_CMD_TOUCH);
    it = store_get_touch(r->key, r->h.keylen, exptime);
    if (it != NULL) {
        stats_incr(STATS_TOUCH_HITS);
        bin_hit(c, r, it, false, false);
    } else if (store_touch(r->key, r->h.keylen, exptime) == STORE_TOUCHED) {
        stats_incr(STATS_TOUCH_HITS);
        p = bin_reply_start(c, &r->h, BIN_STATUS_OK, BIN_EXT_GET, 0, BIN_EXT_GET, 0, BIN_EXT_GET);
        bin_put32(p, 0);
        conn_out_commit(c, BIN_HEADER_LEN + BIN_EXT_GET);
    } else {
        stats_incr(STATS_TOUCH_MISSES);
        bin_miss(c, r, false);
    }
}

/* ---- set add replace append prepend (and quiet forms) ---- */

/* Like memcached, a refused add is "exists" and a refused replace "not
 * found". A key holding a structure the command does not apply to (replace
 * or append on a queue) has no binary status of its own: "Not stored.". */
static enum bin_error bin_not_stored_error(enum store_op op, enum store_status st) {
    if (st == STORE_LOG_FAILED)
        return BIN_ERR_LOG_FAILED;
    if (st == STORE_WRONG_TYPE)
        return BIN_ERR_NOT_STORED;
    if (op == STORE_ADD)
        return BIN_ERR_EXISTS;
    if (op == STORE_REPLACE)
        return BIN_ERR_NOT_FOUND;
    return BIN_ERR_NOT_STORED;
}

static void bin_nread_done(conn *c) {
    struct bin_req r = { .h = { .opcode = c->nread.opcode, .opaque = c->nread.opaque },
                         .quiet = c->nread.noreply };
    item *it = c->nread.it;
    uint64_t cas_out = 0;
    enum store_status st;

    c->nread.it = NULL;
    /* The value came without the "\r\n" items keep after it. */
    memcpy(item_value(it) + it->nbytes - 2, "\r\n", 2);
    stats_incr(STATS_CMD_SET);
    st = store_item(it, c->nread.op, c->nread.cas, &cas_out);
    item_release(it);
    switch (st) {
    case STORE_STORED: bin_ok(c, &r, cas_out); break;
    case STORE_EXISTS: bin_error(c, &r.h, BIN_ERR_EXISTS); break;
    case STORE_NOT_FOUND: bin_error(c, &r.h, BIN_ERR_NOT_FOUND); break;
    default: bin_error(c, &r.h, bin_not_stored_error(c->nread.op, st)); break;
    }
}

/* Allocates the item and reads the value into it; a refused value is
 * skipped, and a refused set also drops the key's old value. */
static void bin_read_value(conn *c, const struct bin_req *r, enum store_op op,
                           uint32_t flags, rel_time_t exptime) {
    size_t vlen = (size_t)r->h.bodylen - r->h.keylen - r->h.extlen;
    enum store_status st;
    item *it = store_alloc(r->key, r->h.keylen, flags, exptime, vlen + 2, &st);

    if (it == NULL) {
        bin_error(c, &r->h, st == STORE_TOO_LARGE ? BIN_ERR_TOO_LARGE : BIN_ERR_OOM_ITEM);
        if (vlen > 0)
            conn_start_swallow(c, vlen);
        if (r->cmd == BIN_CMD_SET)
            store_unlink_key(r->key, r->h.keylen);
        return;
    }
    conn_start_nread(c, it, op, settings.cas_enabled ? r->h.cas : 0, r->quiet);
    c->nread.want = vlen;
    c->nread.opcode = r->h.opcode;
    c->nread.opaque = r->h.opaque;
    if (vlen == 0) {
        /* Nothing to read: finish at once. */
        conn_set_state(c, CONN_PARSE);
        bin_nread_done(c);
    }
}

static void bin_store(conn *c, const struct bin_req *r) {
    enum store_op op = STORE_SET;

    if (r->cmd == BIN_CMD_ADD)
        op = STORE_ADD;
    else if (r->cmd == BIN_CMD_REPLACE)
        op = STORE_REPLACE;
    /* Any of the three with a CAS is a compare-and-swap (with -C, as in
     * memcached, the CAS is dropped: a plain store). */
    if (r->h.cas != 0 && settings.cas_enabled)
        op = STORE_CAS;
    bin_read_value(c, r, op, bin_get32(r->ext), clock_exptime(bin_get32(r->ext + 4)));
}

static void bin_append(conn *c, const struct bin_req *r) {
    bin_read_value(c, r, r->cmd == BIN_CMD_APPEND ? STORE_APPEND : STORE_PREPEND, 0, 0);
}

/* ---- other keyed commands ---- */

static void bin_delete(conn *c, const struct bin_req *r) {
    switch (store_delete(r->key, r->h.keylen, r->h.cas)) {
    case STORE_DELETED:
        stats_incr(STATS_DELETE_HITS);
        bin_ok(c, r, 0);
        break;
    case STORE_EXISTS:
        bin_error(c, &r->h, BIN_ERR_EXISTS);
        break;
    case STORE_LOG_FAILED:
        bin_error(c, &r->h, BIN_ERR_LOG_FAILED);
        break;
    default:
        stats_incr(STATS_DELETE_MISSES);
        bin_error(c, &r->h, BIN_ERR_NOT_FOUND);
        break;
    }
}

static void bin_number(conn *c, const struct bin_req *r, uint64_t value, uint64_t cas) {
    unsigned char *p;

    if (r->quiet)
        return;
    p = bin_reply_start(c, &r->h, BIN_STATUS_OK, 0, 0, 8, cas, 8);
    bin_put64(p, value);
    conn_out_commit(c, BIN_HEADER_LEN + 8);
}

/* incr/decr: extras are delta, initial and expiration; a missing key is
 * created holding initial unless expiration is 0xffffffff. */
static void bin_arith(conn *c, const struct bin_req *r) {
    bool incr = r->cmd == BIN_CMD_INCREMENT, created;
    uint32_t exptime = bin_get32(r->ext + 16);
    struct store_arith_init init = {
        .initial = bin_get64(r->ext + 8), .exptime = clock_exptime(exptime), .flags = 0,
    };
    uint64_t value = 0, cas_out = 0;
    enum store_status st;

    st = store_arith_create(r->key, r->h.keylen, incr, bin_get64(r->ext), r->h.cas,
                            exptime == BIN_ARITH_NO_CREATE ? NULL : &init,
                            &value, &cas_out, &created);
    switch (st) {
    case STORE_STORED:
        /* Like memcached, creating the key counts neither hit nor miss. */
        if (!created)
            stats_incr(incr ? STATS_INCR_HITS : STATS_DECR_HITS);
        bin_number(c, r, value, cas_out);
        break;
    case STORE_NOT_FOUND:
        stats_incr(incr ? STATS_INCR_MISSES : STATS_DECR_MISSES);
        bin_error(c, &r->h, BIN_ERR_NOT_FOUND);
        break;
    case STORE_EXISTS:
        bin_error(c, &r->h, BIN_ERR_EXISTS);
        break;
    case STORE_NON_NUMERIC:
        bin_error(c, &r->h, BIN_ERR_NON_NUMERIC);
        break;
    case STORE_LOG_FAILED:
        bin_error(c, &r->h, BIN_ERR_LOG_FAILED);
        break;
    default:
        bin_error(c, &r->h, BIN_ERR_OOM_INCR);
        break;
    }
}

/* ---- server commands ---- */

/* An immediate flush's walk (store_flush_reap_step): a slice per turn of
 * the worker, then the answer, which echoes the request's opcode and
 * opaque. */
static void bin_flush_step(conn *c) {
    struct bin_header h = { .opcode = c->flush.opcode, .opaque = c->flush.opaque };

    if (!store_flush_reap_step(&c->flush.cursor, c->flush.gen)) {
        c->resume = bin_flush_step;
        conn_yield_turn(c);
        return;
    }
    if (!c->flush.quiet)
        bin_reply(c, &h, BIN_STATUS_OK, 0, NULL, 0);
}

static void bin_flush(conn *c, const struct bin_req *r) {
    int64_t delay = 0;
    uint64_t gen = 0;

    if (!settings.flush_enabled || !auth_may_admin(c)) {
        bin_error(c, &r->h, BIN_ERR_AUTH);
        return;
    }
    if (r->h.extlen == BIN_EXT_TOUCH)
        delay = bin_get32(r->ext);
    stats_incr(STATS_CMD_FLUSH);
    if (store_flush(delay, &gen) == STORE_LOG_FAILED) {
        bin_error(c, &r->h, BIN_ERR_LOG_FAILED);
    } else if (gen == 0) {
        bin_ok(c, r, 0);
    } else {
        c->flush = (struct conn_flush){ .gen = gen, .opcode = r->h.opcode, .opaque = r->h.opaque,
                                        .quiet = r->quiet };
        bin_flush_step(c);
    }
}

static void bin_version(conn *c, const struct bin_req *r) {
    static const char version[] = MCDS_PROTOCOL_VERSION;

    bin_reply(c, &r->h, BIN_STATUS_OK, 0, version, sizeof(version) - 1);
}

struct bin_stat_ctx {
    conn *c;
    uint32_t opaque;
};

/* One stat as a packet whose key is the name and whose value is the value
 * (an empty packet ends the list). */
static void bin_stat_packet(void *arg, const char *name, const char *value) {
    struct bin_stat_ctx *ctx = arg;
    struct bin_header req = { .opcode = BIN_CMD_STAT, .opaque = ctx->opaque };
    size_t nn = strlen(name), nv = strlen(value);
    unsigned char *p = bin_reply_start(ctx->c, &req, BIN_STATUS_OK, 0, (uint16_t)nn,
                                       (uint32_t)(nn + nv), 0, nn + nv);

    memcpy(p, name, nn);
    memcpy(p + nn, value, nv);
    conn_out_commit(ctx->c, BIN_HEADER_LEN + nn + nv);
}

/* No key: the general stats. A key names a group; like memcached, "reset"
 * and "settings" match as prefixes and an unknown group is "Not found". */
static void bin_stat(conn *c, const struct bin_req *r) {
    struct bin_stat_ctx ctx = { c, r->h.opaque };
    size_t n = r->h.keylen;
    char sub[ITEM_KEY_MAX + 1];

    if (n == 0) {
        stats_general(bin_stat_packet, &ctx);
    } else if (n >= 5 && memcmp(r->key, "reset", 5) == 0) {
        stats_reset();
    } else if (n >= 8 && memcmp(r->key, "settings", 8) == 0) {
        stats_settings(bin_stat_packet, &ctx);
    } else {
        memcpy(sub, r->key, n);
        sub[n] = '\0';
        if (stats_group(sub, bin_stat_packet, &ctx) < 0) {
            bin_error(c, &r->h, BIN_ERR_NOT_FOUND);
            return;
        }
    }
    bin_reply(c, &r->h, BIN_STATUS_OK, 0, NULL, 0);
}

/* ---- SASL (auth.c), with --auth-file ---- */

/* Opcodes served before a connection has authenticated (as memcached). */
static bool bin_before_auth(uint8_t cmd) {
    return cmd == BIN_CMD_SASL_LIST_MECHS || cmd == BIN_CMD_SASL_AUTH ||
           cmd == BIN_CMD_SASL_STEP || cmd == BIN_CMD_VERSION;
}

static void bin_unknown(conn *c, const struct bin_req *r);

static void bin_sasl_mechs(conn *c, const struct bin_req *r) {
    if (!auth_on()) {
        bin_unknown(c, r);
        return;
    }
    bin_reply(c, &r->h, BIN_STATUS_OK, 0, "PLAIN", 5);
}

/* The value is whole in the read buffer (bin_parse waited for it). PLAIN
 * needs no step: SASL_STEP is refused. */
static enum conn_parse_result bin_sasl_auth(conn *c, const struct bin_req *r) {
    size_t vlen = (size_t)r->h.bodylen - r->h.keylen - r->h.extlen;
    const char *v = r->key + r->h.keylen;

    if (!auth_on()) {
        bin_unknown(c, r);
        return PARSE_DONE;
    }
    conn_consume(c, vlen);
    if (r->cmd == BIN_CMD_SASL_AUTH && auth_sasl_plain(c, r->key, r->h.keylen, v, vlen)) {
        bin_reply(c, &r->h, BIN_STATUS_OK, 0, "Authenticated", 13);
        return PARSE_DONE;
    }
    bin_error(c, &r->h, BIN_ERR_AUTH);
    return auth_throttle_conn_done(c) ? PARSE_CLOSE : PARSE_DONE;   /* failed too often */
}

/* SASL, verbosity and every other opcode: "Unknown command", and the rest
 * of the body is skipped so the next request is read from its start. */
static void bin_unknown(conn *c, const struct bin_req *r) {
    size_t rest = (size_t)r->h.bodylen - r->h.keylen - r->h.extlen;

    bin_error(c, &r->h, BIN_ERR_UNKNOWN);
    if (rest > 0)
        conn_start_swallow(c, rest);
}

/* ---- dispatch ---- */

/* Folds a quiet opcode into the command it is a quiet form of. */
static void bin_fold_quiet(struct bin_req *r) {
    uint8_t base;

    switch (r->h.opcode) {
    case BIN_CMD_GETQ: base = BIN_CMD_GET; break;
    case BIN_CMD_GETKQ: base = BIN_CMD_GETK; break;
    case BIN_CMD_SETQ: base = BIN_CMD_SET; break;
    case BIN_CMD_ADDQ: base = BIN_CMD_ADD; break;
    case BIN_CMD_REPLACEQ: base = BIN_CMD_REPLACE; break;
    case BIN_CMD_DELETEQ: base = BIN_CMD_DELETE; break;
    case BIN_CMD_INCREMENTQ: base = BIN_CMD_INCREMENT; break;
    case BIN_CMD_DECREMENTQ: base = BIN_CMD_DECREMENT; break;
    case BIN_CMD_QUITQ: base = BIN_CMD_QUIT; break;
    case BIN_CMD_FLUSHQ: base = BIN_CMD_FLUSH; break;
    case BIN_CMD_APPENDQ: base = BIN_CMD_APPEND; break;
    case BIN_CMD_PREPENDQ: base = BIN_CMD_PREPEND; break;
    case BIN_CMD_GATQ: base = BIN_CMD_GAT; break;
    case BIN_CMD_GATKQ: base = BIN_CMD_GATK; break;
    default:
        r->cmd = r->h.opcode;
        r->quiet = false;
        return;
    }
    r->cmd = base;
    r->quiet = true;
}

/* memcached's length rules per command; breaking one is a protocol error.
 * (keylen + extlen <= bodylen is already checked.) */
static bool bin_lengths_ok(const struct bin_req *r) {
    uint32_t ext = r->h.extlen, key = r->h.keylen, body = r->h.bodylen;

    switch (r->cmd) {
    case BIN_CMD_VERSION:
    case BIN_CMD_NOOP:
    case BIN_CMD_QUIT:
    case BIN_CMD_SASL_LIST_MECHS:
        return ext == 0 && key == 0 && body == 0;
    case BIN_CMD_FLUSH:
        return key == 0 && body == ext && (ext == 0 || ext == BIN_EXT_TOUCH);
    case BIN_CMD_SET:
    case BIN_CMD_ADD:
    case BIN_CMD_REPLACE:
        return ext == BIN_EXT_STORE && key > 0;
    case BIN_CMD_GET:
    case BIN_CMD_GETK:
    case BIN_CMD_DELETE:
        return ext == 0 && key > 0 && body == key;
    case BIN_CMD_INCREMENT:
    case BIN_CMD_DECREMENT:
        return ext == BIN_EXT_ARITH && key > 0 && body == key + ext;
    case BIN_CMD_APPEND:
    case BIN_CMD_PREPEND:
    case BIN_CMD_SASL_AUTH:
    case BIN_CMD_SASL_STEP:
        return ext == 0 && key > 0;
    case BIN_CMD_STAT:
        return ext == 0;
    case BIN_CMD_TOUCH:
    case BIN_CMD_GAT:
    case BIN_CMD_GATK:
        return ext == BIN_EXT_TOUCH && key > 0;
    default:
        return true;
    }
}

static enum conn_parse_result bin_dispatch(conn *c, const struct bin_req *r) {
    const struct bin_header *h = &r->h;

    c->bin_opcode = h->opcode;      /* for a reply owed later (bin_unconfirmed) */
    c->bin_opaque = h->opaque;
    if (h->keylen > h->bodylen || (uint64_t)h->keylen + h->extlen > h->bodylen) {
        bin_error(c, h, BIN_ERR_UNKNOWN);
        return PARSE_CLOSE;
    }
    if (h->keylen > ITEM_KEY_MAX || !bin_lengths_ok(r)) {
        bin_error(c, h, BIN_ERR_INVALID);
        log_msg(1, "<%d binary protocol error (opcode 0x%02x), closing", c->fd, h->opcode);
        return PARSE_CLOSE;
    }
    if (auth_on() && !c->authenticated && !bin_before_auth(r->cmd)) {
        bin_error(c, h, BIN_ERR_AUTH);
        log_msg(1, "<%d binary request before authentication, closing", c->fd);
        return PARSE_CLOSE;
    }
    if (repl_is_replica() && readonly_bin_stale_read(r->cmd)) {
        bin_error(c, h, BIN_ERR_STALE);
        return PARSE_DONE;
    }
    if (repl_is_replica() && readonly_bin_write(r->cmd)) {
        size_t rest = (size_t)h->bodylen - h->extlen - h->keylen;
        bin_error(c, h, BIN_ERR_READ_ONLY);
        if (rest > 0)
            conn_start_swallow(c, rest);        /* the value of a refused store */
        return PARSE_DONE;
    }
    switch (r->cmd) {
    case BIN_CMD_GET:
    case BIN_CMD_GETK:
    case BIN_CMD_GAT:
    case BIN_CMD_GATK: bin_get(c, r); break;
    case BIN_CMD_TOUCH: bin_touch(c, r); break;
    case BIN_CMD_SET:
    case BIN_CMD_ADD:
    case BIN_CMD_REPLACE: bin_store(c, r); break;
    case BIN_CMD_APPEND:
    case BIN_CMD_PREPEND: bin_append(c, r); break;
    case BIN_CMD_DELETE: bin_delete(c, r); break;
    case BIN_CMD_INCREMENT:
    case BIN_CMD_DECREMENT: bin_arith(c, r); break;
    case BIN_CMD_FLUSH: bin_flush(c, r); break;
    case BIN_CMD_NOOP: bin_ok(c, r, 0); break;
    case BIN_CMD_VERSION: bin_version(c, r); break;
    case BIN_CMD_STAT: bin_stat(c, r); break;
    case BIN_CMD_SASL_LIST_MECHS: bin_sasl_mechs(c, r); break;
    case BIN_CMD_SASL_AUTH:
    case BIN_CMD_SASL_STEP: return bin_sasl_auth(c, r);
    case BIN_CMD_QUIT:
        bin_ok(c, r, 0);
        return PARSE_CLOSE;
    default: bin_unknown(c, r); break;
    }
    return PARSE_DONE;
}

static enum conn_parse_result bin_parse(conn *c) {
    const unsigned char *p = (const unsigned char *)c->rbuf + c->rpos;
    size_t avail = c->rlen - c->rpos;
    struct bin_req r;

    if (avail < BIN_HEADER_LEN)
        return PARSE_MORE;
    bin_decode_header(p, &r.h);
    if (r.h.magic != BIN_REQ_MAGIC) {
        log_msg(1, "<%d invalid binary magic 0x%02x, closing", c->fd, r.h.magic);
        return PARSE_CLOSE;
    }
    if ((uint64_t)r.h.keylen + r.h.extlen > r.h.bodylen || r.h.keylen > ITEM_KEY_MAX) {
        /* Refused before the key is read, so a request never needs more
         * of the read buffer than a valid one. */
        bin_error(c, &r.h, r.h.keylen > ITEM_KEY_MAX && (uint64_t)r.h.keylen + r.h.extlen <= r.h.bodylen
                           ? BIN_ERR_INVALID : BIN_ERR_UNKNOWN);
        log_msg(1, "<%d binary request with bad lengths (key %u), closing", c->fd, (unsigned)r.h.keylen);
        conn_consume(c, BIN_HEADER_LEN);
        return PARSE_CLOSE;
    }
    if (avail < (size_t)BIN_HEADER_LEN + r.h.extlen + r.h.keylen)
        return PARSE_MORE;
    if (auth_on() && (r.h.opcode == BIN_CMD_SASL_AUTH || r.h.opcode == BIN_CMD_SASL_STEP)) {
        /* the SASL value is read whole before the request is served */
        if (r.h.bodylen > ITEM_KEY_MAX + AUTH_TOKEN_MAX) {
            /* Longer than any that could succeed: refused, its body read
             * and dropped as it comes, the connection kept. */
            bin_error(c, &r.h, BIN_ERR_AUTH);
            conn_consume(c, BIN_HEADER_LEN);
            conn_start_swallow(c, r.h.bodylen);
            return PARSE_DONE;
        }
        if (avail < (size_t)BIN_HEADER_LEN + r.h.bodylen)
            return PARSE_MORE;
    }
    r.ext = p + BIN_HEADER_LEN;
    r.key = (const char *)r.ext + r.h.extlen;
    conn_consume(c, (size_t)BIN_HEADER_LEN + r.h.extlen + r.h.keylen);
    bin_fold_quiet(&r);
    if (log_level() >= 2)
        log_msg(2, "<%d binary opcode 0x%02x key %.*s", c->fd, r.h.opcode,
                (int)(r.h.keylen > 200 ? 200 : r.h.keylen), r.key);
    return bin_dispatch(c, &r);
}

/* A change its replicas did not confirm in time: the error, quiet
 * opcodes too (they hide only successes). */
static void bin_unconfirmed(conn *c) {
    struct bin_header h = { .opcode = c->bin_opcode, .opaque = c->bin_opaque };

    bin_error(c, &h, BIN_ERR_UNCONFIRMED);
}

const struct conn_proto proto_bin = {
    .name = "binary",
    .parse = bin_parse,
    .nread_done = bin_nread_done,
    .unconfirmed = bin_unconfirmed,
};
