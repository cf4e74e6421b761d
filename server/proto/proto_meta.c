/*
 * proto_meta: memcached's meta commands, answered as memcached answers
 * them (return codes HD VA EN NS EX NF MN, returned flags in request
 * order, quiet mode, and memcached 1.6's exact error lines).
 *
 *   mg <key> <flags>*            get, with TTL/CAS/flags/recache/vivify
 *   ms <key> <datalen> <flags>*  set, with modes (add, append …) and CAS
 *   md <key> <flags>*            delete, or invalidate (mark stale)
 *   ma <key> <flags>*            increment / decrement, auto-create
 *   mn                           no-op: "MN", ends a quiet pipeline
 *   me <key>                     debug line about an item
 *
 * Each is an entry of the command table (cmd.c) that hands the whole line
 * here. A request line is parsed into one struct meta_req, kept per connection
 * (allocated on the first meta command) because an ms still needs it when
 * its data block has arrived.
 */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ahead.h"
#include "base/base64.h"
#include "base/clock.h"
#include "base/parse.h"
#include "proto/cmd.h"
#include "cache/hash.h"
#include "proto/proto_meta.h"
#include "base/settings.h"
#include "base/stats.h"
#include "store/store.h"
#include "ops/watch.h"

#define META_MAX_TOKENS 24
#define META_OPAQUE_MAX 32
#define META_MG_MAX_FLAGS 17        /* memcached's limits, by command */
#define META_MS_MAX_FLAGS 16
#define META_MX_MAX_FLAGS 17
#define META_FLAGS_ROOM 1024        /* worst case of the returned flags */

enum meta_cmd { META_GET, META_SET, META_DELETE, META_ARITH, META_NOOP, META_DEBUG };

struct meta_req {
    enum meta_cmd cmd;
    size_t nkey;
    size_t nrkey;
    int nret;
    size_t nopaque;
    bool opaque_long;               /* an O of META_OPAQUE_MAX characters or more */
    bool has_error;                 /* a flag's token was bad (err says which) */
    enum reply_id err;              /* the last bad token's error, or REPLY_COUNT */
    uint64_t seen[2];               /* flags met so far, one bit per character */
    bool b64, quiet, value, no_bump, invalidate, drop_value;
    bool has_T, has_N, has_R, has_C, has_E, has_D, has_J;
    bool t_before_T;                /* mg: t is answered with the TTL before T */
    int32_t T, N, R;
    uint32_t F;
    uint64_t C, E, D, J;
    char mode;
    const char *sent;               /* the key's bytes in the request line */
    /* The buffers last: a new request clears only what is above (each
     * buffer is read up to its length). */
    char key[ITEM_KEY_MAX];         /* the key, decoded if b */
    char rkey[ITEM_KEY_MAX];        /* the key as sent, for k */
    char ret[META_MAX_TOKENS];      /* flags to answer, in request order */
    char opaque[META_OPAQUE_MAX];
};

struct meta_tokens {
    char *v[META_MAX_TOKENS];
    size_t len[META_MAX_TOKENS];
    int n;                          /* META_MAX_TOKENS + 1: too many */
};

static void meta_tokenize(char *line, size_t len, struct meta_tokens *t) {
    t->n = parse_tokenize(line, len, t->v, t->len, META_MAX_TOKENS);
}

static struct meta_req *meta_state(conn *c) {
    if (c->meta == NULL)
        c->meta = malloc(sizeof(struct meta_req));
    return c->meta;
}

static void meta_conn_free(conn *c) {
    free(c->meta);
    c->meta = NULL;
}

/* ---- flags ---- */

/* The flags every meta command takes, as memcached 1.6.18: each command
 * ignores those meaningless to it (P and L are proxy hints). E and x are
 * newer memcached's, taken by mcds too. */
static const char meta_allowed[] = "bNTRlOPLkstcfvhuqFCMJDIEx";

/* Flags answered in the reply, per command. */
static const char *const meta_answered[] = {
    [META_GET] = "cfhklOst",
    [META_SET] = "ckOs",
    [META_DELETE] = "kO",
    [META_ARITH] = "ckOt",
};

/* md and ma answer every flag error with one line (memcached 1.6). */
static enum reply_id meta_err_flag(enum meta_cmd cmd, enum reply_id e) {
    return cmd == META_GET || cmd == META_SET ? e : REPLY_META_BAD_FLAG;
}

static bool meta_mode_ok(enum meta_cmd cmd, char mode) {
    if (cmd == META_SET)
        return strchr("EAPRS", mode) != NULL;
    return strchr("I+D-", mode) != NULL;
}

/* Parses a flag's numeric token; false if it is not a number. */
static bool meta_flag_number(struct meta_req *r, char f, const char *tok) {
    switch (f) {
    case 'T': r->has_T = true; return parse_i32(tok, &r->T);
    case 'N': r->has_N = true; return parse_i32(tok, &r->N);
    case 'R': r->has_R = true; return parse_i32(tok, &r->R);
    case 'F': return parse_u32(tok, &r->F);
    case 'C': r->has_C = true; return parse_u64(tok, &r->C);
    case 'E': r->has_E = true; return parse_u64(tok, &r->E);
    case 'D': r->has_D = true; return parse_u64(tok, &r->D);
    case 'J': r->has_J = true; return parse_u64(tok, &r->J);
    }
    return true;
}

/* A bad numeric token's error (a bad F has none of its own). */
static enum reply_id meta_err_number(char f) {
    switch (f) {
    case 'F': return REPLY_COUNT;
    case 'J': return REPLY_META_BAD_INITIAL;
    case 'D': return REPLY_META_BAD_DELTA;
    default: return REPLY_META_BAD_TOKEN;
    }
}

/* Notes a bad token and goes on: as memcached, the last one is answered. */
static void meta_token_error(struct meta_req *r, enum reply_id e) {
    r->has_error = true;
    if (e != REPLY_COUNT)
        r->err = e;
}

/* Decodes the key as sent into r->key (b). */
static void meta_decode_key(struct meta_req *r) {
    long n = base64_decode(r->rkey, r->nrkey, r->key, sizeof(r->key));

    r->b64 = true;
    if (n <= 0) {
        meta_token_error(r, REPLY_META_BAD_KEY);
        return;
    }
    r->nkey = (size_t)n;
}

/* Whether flag f (below 128) came earlier in the request. */
static bool meta_seen(const struct meta_req *r, unsigned char f) {
    return (r->seen[f >> 6] >> (f & 63)) & 1;
}

/* Applies one flag token. An unknown or repeated flag is answered at once
 * (the return value); a bad token is noted and the parse goes on. As in
 * memcached, flags act in request order: a t before a T reports the TTL
 * the item had before this request touched it. */
static enum reply_id meta_flag(struct meta_req *r, const char *tok, size_t len) {
    unsigned char f = (unsigned char)tok[0];

    if (f >= 127 || meta_seen(r, f))
        return REPLY_META_DUP_FLAG;
    if (strchr(meta_allowed, f) == NULL)
        return REPLY_META_INVALID_FLAG;
    r->seen[f >> 6] |= 1ULL << (f & 63);
    if (strchr(meta_answered[r->cmd], f) != NULL)
        r->ret[r->nret++] = (char)f;
    if (f == 't' && !meta_seen(r, 'T'))
        r->t_before_T = true;
    switch (f) {
    case 'b': meta_decode_key(r); break;
    case 'q': r->quiet = true; break;
    case 'v': r->value = true; break;
    case 'u': r->no_bump = true; break;
    case 'I': r->invalidate = true; break;
    case 'x': r->drop_value = true; break;
    case 'O':
        r->opaque_long = len > META_OPAQUE_MAX;
        if (!r->opaque_long) {
            memcpy(r->opaque, tok + 1, len - 1);
            r->nopaque = len - 1;
        }
        break;
    case 'M':
        if (len != 2)
            meta_token_error(r, REPLY_META_M_LENGTH);
        else
            r->mode = tok[1];
        break;
    default:
        if (!meta_flag_number(r, (char)f, tok + 1))
            meta_token_error(r, meta_err_number((char)f));
    }
    return REPLY_COUNT;
}

/* The checks made once every flag is parsed: the mode (ms, ma), then the
 * opaque's length. */
static enum reply_id meta_check_parsed(const struct meta_req *r) {
    if (r->mode != '\0' && (r->cmd == META_SET || r->cmd == META_ARITH) && !meta_mode_ok(r->cmd, r->mode))
        return r->cmd == META_SET ? REPLY_META_MS_MODE : REPLY_META_MA_MODE;
    return r->opaque_long ? REPLY_META_OPAQUE_LONG : REPLY_COUNT;
}

/* The key's hash: from ahead.c's note of the line, unless the key was
 * decoded (b), whose bytes are not the line's. */
static uint32_t meta_hash(conn *c, const struct meta_req *r) {
    return r->b64 ? hash_key(r->key, r->nkey) : ahead_hash(c, r->sent, r->nkey);
}

/* Parses the key token and the flags from token first on; REPLY_COUNT
 * when all is well, else the error line to answer. */
static enum reply_id meta_parse_flags(struct meta_req *r, struct meta_tokens *t, int first) {
    int i;

    memcpy(r->rkey, t->v[1], t->len[1]);
    r->nrkey = t->len[1];
    memcpy(r->key, t->v[1], t->len[1]);
    r->nkey = t->len[1];
    r->sent = t->v[1];
    for (i = first; i < t->n; i++) {
        enum reply_id e = meta_flag(r, t->v[i], t->len[i]);
        if (e != REPLY_COUNT)
            return meta_err_flag(r->cmd, e);
    }
    if (r->has_error)
        return meta_err_flag(r->cmd, r->err != REPLY_COUNT ? r->err : REPLY_BAD_FORMAT);
    return meta_check_parsed(r);
}

static void meta_req_init(struct meta_req *r, enum meta_cmd cmd) {
    memset(r, 0, offsetof(struct meta_req, key));
    r->cmd = cmd;
    r->D = 1;
    r->err = REPLY_COUNT;
}

/* ---- replies ---- */

static uint64_t meta_shown_cas(uint64_t cas) {
    return settings.cas_enabled ? cas : 0;
}

static size_t meta_u64(char *dst, uint64_t v) {
    return parse_format_u64(dst, v);
}

/* " k<key>", with " b" for a binary key. As memcached 1.6.18, an mg that
 * finds its item echoes the key in base64 only if it was stored with b
 * (whether this request sent b or not); every other reply as sent. */
static size_t meta_put_key(const struct meta_req *r, const item *found, char *p) {
    bool bin = found != NULL ? item_has_flag(found, ITEM_KEY_BINARY) : r->b64;
    size_t n = 0;

    p[n++] = ' ';
    p[n++] = 'k';
    if (!bin) {
        memcpy(p + n, r->key, r->nkey);
        n += r->nkey;
        return n;
    }
    if (r->b64) {
        memcpy(p + n, r->rkey, r->nrkey);
        n += r->nrkey;
    } else {
        n += base64_encode(r->key, r->nkey, p + n);
    }
    memcpy(p + n, " b", 2);
    return n + 2;
}

static size_t meta_put_opaque(const struct meta_req *r, char *p) {
    p[0] = ' ';
    p[1] = 'O';
    memcpy(p + 2, r->opaque, r->nopaque);
    return r->nopaque + 2;
}

/* What an answered flag says about an item. */
struct meta_facts {
    const item *it;
    uint64_t cas;               /* ms, ma; mg reads its item's when c is asked */
    rel_time_t exptime;
    bool fetched_before;
    rel_time_t last_access;
    uint32_t stored;            /* s: the value bytes the key holds, "\r\n" in */
};

static size_t meta_put_flag(const struct meta_req *r, char f, const struct meta_facts *m, char *p) {
    rel_time_t now = clock_now();
    size_t n = 0;

    if (f == 'k')
        return meta_put_key(r, r->cmd == META_GET && m != NULL ? m->it : NULL, p);
    if (f == 'O')
        return meta_put_opaque(r, p);
    if (f == 'c' && m == NULL && r->cmd == META_SET) {
        memcpy(p, " c0", 3);    /* a failed ms: memcached's c0 */
        return 3;
    }
    if (m == NULL)
        return 0;
    p[n++] = ' ';
    p[n++] = f;
    switch (f) {
    case 'c': n += meta_u64(p + n, r->cmd == META_GET ? store_client_cas(m->it) : m->cas); break;
    case 'f': n += meta_u64(p + n, item_flags(m->it)); break;
    case 'h': p[n++] = m->fetched_before ? '1' : '0'; break;
    case 'l': n += meta_u64(p + n, now > m->last_access ? now - m->last_access : 0); break;
    case 's': n += meta_u64(p + n, m->stored - 2); break;
    case 't':
        if (m->exptime == 0) {
            p[n++] = '-';
            p[n++] = '1';
        } else {
            n += meta_u64(p + n, m->exptime > now ? m->exptime - now : 0);
        }
        break;
    }
    return n;
}

/* Queues "<code>[ <size>] <flags>\r\n". Without facts (a miss or a
 * failure) only k and O are echoed. extra holds trailing flags (Z X W). */
static void meta_reply(conn *c, const struct meta_req *r, const char *code, long size,
                       const struct meta_facts *m, const char *extra) {
    char *p = conn_out_reserve(c, META_FLAGS_ROOM + 2 * ITEM_KEY_MAX);
    size_t n = 0;
    int i;

    memcpy(p, code, 2);
    n = 2;
    if (size >= 0) {
        p[n++] = ' ';
        n += parse_format_u64(p + n, (uint64_t)size);
    }
    for (i = 0; i < r->nret; i++)
        n += meta_put_flag(r, r->ret[i], m, p + n);
    for (; extra != NULL && *extra != '\0'; extra++) {
        p[n++] = ' ';
        p[n++] = *extra;
    }
    p[n++] = '\r';
    p[n++] = '\n';
    conn_out_commit(c, n);
}

/* ---- mg ---- */

static void meta_get(conn *c, struct meta_req *r) {
    struct store_mget req = { 0 };
    struct store_mget_out out;
    struct meta_facts m;
    char extra[4];
    size_t ne = 0;
    item *it;

    req.touch = r->has_T;
    req.exptime = clock_exptime(r->T);
    req.vivify = r->has_N;
    req.viv_exptime = clock_exptime(r->N);
    req.recache = r->has_R;
    req.recache_time = clock_exptime(r->R);
    req.no_bump = r->no_bump;
    req.new_cas = r->E;
    req.hv = meta_hash(c, r);
    it = store_meta_get(r->key, r->nkey, &req, &out);
    watch_fetch(c, r->key, r->nkey, it);
    /* As memcached counts: a miss as a get's, T or not; a hit with T as a
     * touch's, without as a get's. */
    stats_incr(it != NULL && r->has_T ? STATS_CMD_TOUCH : STATS_CMD_GET);
    if (it == NULL) {
        stats_incr(STATS_GET_MISSES);
        if (!r->quiet)
            meta_reply(c, r, "EN", -1, NULL, NULL);
        return;
    }
    stats_incr(r->has_T ? STATS_TOUCH_HITS : STATS_GET_HITS);
    m.it = it;
    m.stored = it->nbytes;
    m.exptime = r->t_before_T ? out.old_exptime : item_exptime(it);
    m.fetched_before = out.fetched_before;
    m.last_access = out.last_access;
    if (out.token_seen)
        extra[ne++] = 'Z';
    if (out.stale)
        extra[ne++] = 'X';
    if (out.won)
        extra[ne++] = 'W';
    extra[ne] = '\0';
    if (!r->value) {
        meta_reply(c, r, "HD", -1, &m, extra);
        item_release(it);
        return;
    }
    meta_reply(c, r, "VA", (long)it->nbytes - 2, &m, extra);
    conn_out_item(c, it, item_value(it), it->nbytes);
}

/* ---- ms ---- */

static enum store_op meta_set_op(char mode) {
    switch (mode) {
    case 'E': return STORE_ADD;
    case 'A': return STORE_APPEND;
    case 'P': return STORE_PREPEND;
    case 'R': return STORE_REPLACE;
    default: return STORE_SET;
    }
}

/* ms after its line parsed: allocate the item and read the data into it. */
static void meta_nread_done(conn *c);

static void meta_set_start(conn *c, struct meta_req *r, int32_t datalen) {
    enum store_op op = meta_set_op(r->mode);
    enum store_status st;
    item *it;

    it = store_alloc(r->key, r->nkey, r->F, clock_exptime(r->T), (size_t)datalen + 2, &st);
    if (it == NULL) {
        stats_incr(st == STORE_TOO_LARGE ? STATS_STORE_TOO_LARGE : STATS_STORE_NO_MEMORY);
        conn_out_reply(c, st == STORE_TOO_LARGE ? REPLY_TOO_LARGE : REPLY_OOM_STORE);
        conn_start_swallow(c, (size_t)datalen + 2);
        if (op == STORE_SET)
            store_unlink_key(r->key, r->nkey);
        return;
    }
    if (r->b64)
        item_set_flag(it, ITEM_KEY_BINARY);
    conn_start_nread(c, it, op, r->C, r->quiet);
    c->nread.hv = meta_hash(c, r);
    c->nread.finish = meta_nread_done;
}

static const char *meta_set_code(enum store_status st) {
    switch (st) {
    case STORE_STORED: return "HD";
    case STORE_EXISTS: return "EX";
    case STORE_NOT_FOUND: return "NF";
    default: return "NS";
    }
}

static void meta_nread_done(conn *c) {
    struct meta_req *r = c->meta;
    struct store_req req = { 0 };
    item *it = c->nread.it;
    struct meta_facts m;
    enum store_status st;
    uint64_t cas = 0;

    c->nread.it = NULL;
    stats_incr(STATS_CMD_SET);
    if (memcmp(item_value(it) + it->nbytes - 2, "\r\n", 2) != 0) {
        conn_out_reply(c, REPLY_BAD_CHUNK);
        item_release(it);
        return;
    }
    req.op = c->nread.op;
    req.cas_in = r->C;
    req.new_cas = r->E;
    req.set_stale = r->invalidate;
    req.vivify = r->has_N;
    req.viv_exptime = clock_exptime(r->N);
    req.has_hv = true;
    req.hv = c->nread.hv;
    m.stored = it->nbytes;      /* what an append or prepend made, told below */
    req.stored = &m.stored;
    if (r->has_C && (req.op == STORE_SET || req.op == STORE_REPLACE))
        req.op = STORE_CAS;
    st = store_item_req(it, &req, &cas);
    watch_store(c, it, req.op, st);
    m.it = it;
    m.cas = meta_shown_cas(cas);
    m.exptime = item_exptime(it);
    m.fetched_before = false;
    m.last_access = item_time(it);
    if (st == STORE_LOG_FAILED)
        conn_out_reply(c, REPLY_LOG_FAILED);
    else if (!(st == STORE_STORED && r->quiet))
        meta_reply(c, r, meta_set_code(st), -1, st == STORE_STORED ? &m : NULL, NULL);
    item_release(it);
}

/* ---- md ---- */

static void meta_delete(conn *c, struct meta_req *r) {
    struct store_mdel req = { 0 };
    enum store_status st;

    req.cas_in = r->C;
    req.new_cas = r->E;
    req.stale = r->invalidate;
    req.touch = r->has_T && r->invalidate;
    req.exptime = clock_exptime(r->T);
    req.drop_value = r->drop_value;
    st = store_meta_delete(r->key, r->nkey, &req);
    if (st == STORE_DELETED) {
        stats_incr(STATS_DELETE_HITS);
        if (!r->quiet)
            meta_reply(c, r, "HD", -1, NULL, NULL);
    } else if (st == STORE_NOT_FOUND) {
        stats_incr(STATS_DELETE_MISSES);
        meta_reply(c, r, "NF", -1, NULL, NULL);
    } else if (st == STORE_EXISTS) {
        meta_reply(c, r, "EX", -1, NULL, NULL);
    } else {
        conn_out_reply(c, st == STORE_LOG_FAILED ? REPLY_LOG_FAILED : REPLY_OOM);
    }
}

/* ---- ma ---- */

static void meta_arith_ok(conn *c, struct meta_req *r, const struct store_arith_out *out) {
    struct meta_facts m = { 0 };
    char num[24];
    int len;

    if (r->quiet && !out->created)
        return;     /* as memcached: q hides a hit's whole answer, not a create's */
    m.cas = meta_shown_cas(out->cas);
    m.exptime = out->exptime;
    if (!r->value) {
        meta_reply(c, r, "HD", -1, &m, NULL);
        return;
    }
    len = snprintf(num, sizeof(num), "%llu", (unsigned long long)out->value);
    meta_reply(c, r, "VA", len, &m, NULL);
    conn_out(c, num, (size_t)len);
    conn_out(c, "\r\n", 2);
}

static void meta_arith(conn *c, struct meta_req *r) {
    struct store_arith_req req = { 0 };
    struct store_arith_out out = { 0 };
    enum store_status st;

    req.incr = r->mode != 'D' && r->mode != '-';
    req.delta = r->D;
    req.cas_in = r->C;
    req.new_cas = r->E;
    req.create = r->has_N;
    req.initial = r->J;
    req.create_exptime = clock_exptime(r->N);
    req.touch = r->has_T;
    req.exptime = clock_exptime(r->T);
    st = store_arith_ex(r->key, r->nkey, &req, &out);
    switch (st) {
    case STORE_STORED:
        if (!out.created)   /* as memcached: a create counts no hit */
            stats_incr(req.incr ? STATS_INCR_HITS : STATS_DECR_HITS);
        meta_arith_ok(c, r, &out);
        break;
    case STORE_NOT_FOUND:
        stats_incr(req.incr ? STATS_INCR_MISSES : STATS_DECR_MISSES);
        meta_reply(c, r, "NF", -1, NULL, NULL);
        break;
    case STORE_EXISTS:
        meta_reply(c, r, "EX", -1, NULL, NULL);
        break;
    case STORE_NON_NUMERIC:
        conn_out_reply(c, REPLY_NON_NUMERIC);
        break;
    case STORE_LOG_FAILED:
        conn_out_reply(c, REPLY_LOG_FAILED);
        break;
    case STORE_NO_MEMORY:       /* as memcached: a new number's item, or a copy */
        conn_out_reply(c, out.absent ? REPLY_OOM_NEW_ITEM : REPLY_OOM);
        break;
    default:
        meta_reply(c, r, "NS", -1, NULL, NULL);
        break;
    }
}

/* ---- me ---- */

static void meta_debug(conn *c, struct meta_req *r) {
    item *it = store_peek(r->key, r->nkey);
    rel_time_t now = clock_now();
    char *p;
    int n;

    if (it == NULL) {
        conn_out_reply(c, REPLY_META_MISS);
        return;
    }
    p = conn_out_reserve(c, r->nrkey + 160);
    n = sprintf(p, "ME ");
    memcpy(p + n, r->rkey, r->nrkey);
    n += (int)r->nrkey;
    n += sprintf(p + n, " exp=%lld la=%u cas=%llu fetch=%s cls=1 size=%zu\r\n",
                 item_exptime(it) == 0 ? -1LL : (long long)item_exptime(it) - (long long)now,
                 now > item_time(it) ? now - item_time(it) : 0, (unsigned long long)store_client_cas(it),
                 item_has_flag(it, ITEM_FETCHED) ? "yes" : "no", item_bytes(it));
    conn_out_commit(c, (size_t)n);
    item_release(it);
}

/* ---- dispatch ---- */

static enum meta_cmd meta_cmd_of(char ch) {
    switch (ch) {
    case 'g': return META_GET;
    case 's': return META_SET;
    case 'd': return META_DELETE;
    case 'a': return META_ARITH;
    case 'n': return META_NOOP;
    default: return META_DEBUG;
    }
}

/* Flag-count limits are checked first, with their own wording. */
static enum reply_id meta_check_count(enum meta_cmd cmd, int nflags) {
    if (cmd == META_GET && nflags > META_MG_MAX_FLAGS)
        return REPLY_META_MG_TOO_LONG;
    if (cmd == META_SET && nflags > META_MS_MAX_FLAGS)
        return REPLY_META_TOO_LONG;
    if ((cmd == META_DELETE || cmd == META_ARITH) && nflags > META_MX_MAX_FLAGS)
        return REPLY_META_TOO_LONG;
    return REPLY_COUNT;
}

/* me <key> [b] */
static void meta_dispatch_debug(conn *c, struct meta_req *r, struct meta_tokens *t) {
    if (t->n < 2 || t->len[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    memcpy(r->rkey, t->v[1], t->len[1]);
    r->nrkey = t->len[1];
    memcpy(r->key, t->v[1], t->len[1]);
    r->nkey = t->len[1];
    if (t->n > 2 && t->v[2][0] == 'b')
        meta_decode_key(r);
    if (r->has_error) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    meta_debug(c, r);
}

/* ms <key> <datalen> <flags>*: errors after the length is known swallow
 * the data block, as memcached does. */
static void meta_dispatch_set(conn *c, struct meta_req *r, struct meta_tokens *t) {
    int32_t datalen;
    enum reply_id e;

    if (t->n < 3 || t->len[1] > ITEM_KEY_MAX || !parse_i32(t->v[2], &datalen) || datalen < 0 ||
        datalen > INT32_MAX - 2) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return;
    }
    e = meta_parse_flags(r, t, 3);
    if (e != REPLY_COUNT) {
        conn_out_reply(c, e);
        conn_start_swallow(c, (size_t)datalen + 2);
        return;
    }
    meta_set_start(c, r, datalen);
}

enum conn_parse_result meta_cmd(conn *c, struct cmd_line *l) {
    char *line = l->line;
    size_t len = l->len;
    struct meta_tokens t;
    struct meta_req *r = meta_state(c);
    enum meta_cmd cmd = meta_cmd_of(line[1]);
    enum reply_id e;

    stats_incr(STATS_CMD_META);
    if (cmd == META_NOOP) {
        conn_out_reply(c, REPLY_META_NOOP);
        return PARSE_DONE;
    }
    meta_tokenize(line, len, &t);
    meta_req_init(r, cmd);
    if (cmd == META_DEBUG) {
        meta_dispatch_debug(c, r, &t);
        return PARSE_DONE;
    }
    if (t.n < 2) {
        conn_out_reply(c, REPLY_ERROR);
        return PARSE_DONE;
    }
    e = meta_check_count(cmd, t.n - (cmd == META_SET ? 3 : 2));
    if (e != REPLY_COUNT) {
        conn_out_reply(c, e);
        return PARSE_DONE;
    }
    if (cmd == META_SET) {
        meta_dispatch_set(c, r, &t);
        return PARSE_DONE;
    }
    if (t.len[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    e = meta_parse_flags(r, &t, 2);
    if (e != REPLY_COUNT) {
        conn_out_reply(c, e);
        return PARSE_DONE;
    }
    if (cmd == META_GET)
        meta_get(c, r);
    else if (cmd == META_DELETE)
        meta_delete(c, r);
    else
        meta_arith(c, r);
    return PARSE_DONE;
}

/* The command table's entries of the meta commands: flags are parsed here (proto/cmd.h). */
const struct cmd_def meta_cmds[] = {
    { "mg", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta get" },
    { "ms", meta_cmd, 1, CMD_ANY, CMD_RAW | CMD_DATA, 0, "meta set" },
    { "md", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta delete" },
    { "ma", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta arithmetic" },
    { "mn", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta no-op: ends a pipeline" },
    { "me", meta_cmd, 1, CMD_ANY, CMD_RAW, 0, "meta debug: one line about an item" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};

const struct conn_hooks meta_conn_hooks = { "meta", meta_conn_free, NULL };
