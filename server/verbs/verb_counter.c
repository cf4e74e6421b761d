/*
 * verb_counter: the tree-counter verbs.
 *
 *   ctdef <counter> <type>[:<keep>[:m]],... [aggregate=0|1] [quantize=<n>]
 *   ctcounter <counter>   ctcounters [count=<n>] [after=<counter>]   ctundef <counter> [noreply]
 *   ctobj <key> [parent=<key>] [quantize=<n>] [limits=<counter>:<type>:<max>,...]
 *   ctlimits <key> [quantize=<n>] [limits=...]     (redefine)
 *   ctraise <key> limits=<counter>:<type>:<amount>,...
 *   ctinfo <key>   ctchildren <key> [count=<n>] [after=<key>]
 *   ctincr <key> <counter> <type> <time> <delta> [values] [noreply]
 *   ctget <key> <counter> <type> <period>
 *   ctvalues <key> [counters=..] [type=..] [periods=..] [scan=..] [count=..] [after=..]
 *   ctactive [since=<unix>] [count=<n>] [after=<key>]
 *   ctperiods [counters=..] [type=..] [periods=..] [scan=..] [count=..] [after=..]
 *
 * Objects are keys of the keyspace (ITEM_CTREE items); the structure and
 * its locking are in types/ctree.c, persistence in types/ctree_persist.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/cmd.h"
#include "base/parse.h"
#include "persist/persist.h"
#include "store/store.h"
#include "store/store_ctree.h"
#include "types/ctree.h"
#include "types/ctree_period.h"
#include "verbs/verb_counter.h"

#define CTV_LIST_MAX 256            /* counters or periods in one filter list */
#define CTV_LIMITS_MAX 256          /* limits in one ctobj / ctlimits / ctraise */
#define CTV_COUNT_DEFAULT 1000      /* lines one read returns */
#define CTV_COUNT_MAX 10000
#define CTV_SCAN_DEFAULT 100000     /* values one read looks at */
#define CTV_SCAN_MAX 10000000
#define CTV_ACTIVE_DEFAULT_SECS 86400
#define CTV_LINE_MAX (ITEM_KEY_MAX + 128)

/* ---- numbers and lists ---- */

static bool ctv_u32(const char *s, uint32_t *out) {
    return cmd_parse_count(s, UINT32_MAX, out);
}

/* Copies the next item of a list at *s (up to sep or the end) into buf. */
static bool ctv_next_item(const char **s, char sep, char *buf, size_t cap) {
    const char *e = strchr(*s, sep);
    size_t n = e != NULL ? (size_t)(e - *s) : strlen(*s);

    if (n == 0 || n >= cap || (e != NULL && e[1] == '\0'))
        return false;
    memcpy(buf, *s, n);
    buf[n] = '\0';
    *s += n + (e != NULL ? 1 : 0);
    return true;
}

static int ctv_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* ---- replies ---- */

static enum reply_id ctv_reply_of(enum ctree_result r) {
    switch (r) {
    case CTREE_OK: return REPLY_STORED;
    case CTREE_EXISTS: return REPLY_EXISTS;
    case CTREE_NOT_FOUND: return REPLY_NOT_FOUND;
    case CTREE_PARENT_GONE: return REPLY_NOT_FOUND;
    case CTREE_NO_COUNTER: return REPLY_CT_NO_COUNTER;
    case CTREE_NO_TYPE: return REPLY_CT_NO_TYPE;
    case CTREE_NOT_MANUAL: return REPLY_CT_NOT_MANUAL;
    case CTREE_BAD_TYPES: return REPLY_CT_BAD_TYPES;
    case CTREE_OVERFLOW: return REPLY_CT_OVERFLOW;
    case CTREE_IN_USE: return REPLY_CT_IN_USE;
    case CTREE_LIMIT: return REPLY_CT_BAD_LIMIT;
    case CTREE_NOMEM: return REPLY_OOM_STORE;
    }
    return REPLY_OOM_STORE;
}

static void ctv_line(conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ctv_line(conn *c, const char *fmt, ...) {
    char *p = conn_out_reserve(c, CTV_LINE_MAX);
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(p, CTV_LINE_MAX, fmt, ap);
    va_end(ap);
    conn_out_commit(c, (size_t)(n < CTV_LINE_MAX ? n : CTV_LINE_MAX - 1));
}

/* "VALUE <key> <counter> <type> <period> <value> <fraction>" */
static void ctv_out_value(void *arg, const struct ctree_at *at, uint32_t counter, int64_t value,
                          int64_t fraction) {
    char period[CTP_TEXT_MAX];

    ctp_format(at->code, at->idx, period);
    ctv_line(arg, "VALUE %.*s %u %u %s %lld %lld\r\n", (int)at->nkey, at->key, counter, at->code, period,
             (long long)value, (long long)fraction);
}

/* "PERIOD <counter> <type> <period> <objects>" */
static void ctv_out_period(void *arg, const struct ctree_at *at, uint32_t counter, int64_t value,
                           int64_t fraction) {
    char period[CTP_TEXT_MAX];

    (void)fraction;
    ctp_format(at->code, at->idx, period);
    ctv_line(arg, "PERIOD %u %u %s %lld\r\n", counter, at->code, period, (long long)value);
}

static void ctv_out_more(conn *c, const struct ctree_cursor *cur) {
    char period[CTP_TEXT_MAX];

    if (!cur->more)
        return;
    ctp_format(cur->code, cur->idx, period);
    ctv_line(c, "MORE %u:%u:%s\r\n", cur->counter, cur->code, period);
}

/* ---- objects under keys ---- */

/* The live object under key, pinned; replies and returns NULL if none. */
static item *ctv_obj_pin(conn *c, const char *key, size_t nkey) {
    enum store_status st = STORE_NOT_FOUND;
    item *pin = nkey <= ITEM_KEY_MAX ? store_struct_find(key, nkey, ITEM_CTREE, NULL, NULL, &st) : NULL;

    if (pin != NULL && !ctree_obj_live(item_struct(pin))) {
        item_release(pin);
        pin = NULL;
        st = STORE_NOT_FOUND;
    }
    if (pin == NULL)
        cmd_reply(c, nkey > ITEM_KEY_MAX ? REPLY_X_KEY_TOO_LONG
                     : st == STORE_WRONG_TYPE ? REPLY_WRONG_TYPE : REPLY_NOT_FOUND);
    return pin;
}

static struct ctree_obj *ctv_obj(item *pin) {
    return item_struct(pin);
}

/* ---- counters ---- */

/* "<type>[:<keep>[:m]]" */
static bool ctv_parse_ptype(const char *s, struct ctree_ptype *p) {
    char buf[32];
    const char *q = s;

    memset(p, 0, sizeof(*p));
    if (!ctv_next_item(&q, ':', buf, sizeof(buf)) || !ctv_u32(buf, &p->code) || !ctp_valid(p->code))
        return false;
    if (*q != '\0' && (!ctv_next_item(&q, ':', buf, sizeof(buf)) || !ctv_u32(buf, &p->keep)))
        return false;
    if (*q == '\0')
        return true;
    if (strcmp(q, "m") != 0)
        return false;
    p->manual = true;
    return true;
}

static bool ctv_parse_ptypes(const char *s, struct ctree_def *d) {
    char buf[48];
    int i;

    d->ntypes = 0;
    while (*s != '\0') {
        if (d->ntypes == CTREE_TYPES_MAX || !ctv_next_item(&s, ',', buf, sizeof(buf)) ||
            !ctv_parse_ptype(buf, &d->types[d->ntypes]))
            return false;
        for (i = 0; i < d->ntypes; i++)
            if (d->types[i].code == d->types[d->ntypes].code)
                return false;
        d->ntypes++;
    }
    return d->ntypes > 0;
}

/* One option of ctdef; false (the reply made) if it is wrong. */
static bool ctv_def_option(conn *c, struct ctree_def *d, const char *tok) {
    const char *v;

    if ((v = cmd_option(tok, "aggregate")) != NULL) {
        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
            d->aggregate = *v == '1';
            return true;
        }
        cmd_bad_value(c, "aggregate");
    } else if ((v = cmd_option(tok, "quantize")) != NULL) {
        if (parse_i64_digits(v, &d->quantize) && d->quantize >= 1)
            return true;
        cmd_bad_value(c, "quantize");
    } else {
        cmd_unknown_option(c, tok);
    }
    return false;
}

enum conn_parse_result ctverb_def(conn *c, struct cmd_line *t) {
    struct ctree_def d;
    enum ctree_result r;
    int i;

    memset(&d, 0, sizeof(d));
    d.aggregate = true;
    d.quantize = 1;
    if (!ctv_u32(t->v[1], &d.id)) {
        conn_out_reply(c, REPLY_X_BAD_COUNTER);
        return PARSE_DONE;
    }
    if (!ctv_parse_ptypes(t->v[2], &d)) {
        conn_out_reply(c, REPLY_X_BAD_TYPES);
        return PARSE_DONE;
    }
    for (i = 3; i < t->n; i++)
        if (!ctv_def_option(c, &d, t->v[i]))
            return PARSE_DONE;
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    r = ctree_counter_create(&d);
    conn_out_reply(c, r == CTREE_OK ? REPLY_CREATED : ctv_reply_of(r));
    return PARSE_DONE;
}

/* "COUNTER <id> <type>:<keep>[:m],... aggregate=<0|1> quantize=<n> objects=<n>" */
static void ctv_out_counter(conn *c, const struct ctree_def *d, uint64_t objects) {
    char types[CTREE_TYPES_MAX * 16 + 1], *p = types;
    int i;

    for (i = 0; i < d->ntypes; i++)
        p += sprintf(p, "%s%u:%u%s", i > 0 ? "," : "", d->types[i].code, d->types[i].keep,
                     i > 0 && d->types[i].manual ? ":m" : "");
    ctv_line(c, "COUNTER %u %s aggregate=%d quantize=%lld objects=%llu\r\n", d->id, types, d->aggregate ? 1 : 0,
             (long long)d->quantize, (unsigned long long)objects);
}

enum conn_parse_result ctverb_counter(conn *c, struct cmd_line *t) {
    struct ctree_def d;
    uint64_t objects;
    uint32_t id;

    if (!ctv_u32(t->v[1], &id))
        conn_out_reply(c, REPLY_X_BAD_COUNTER);
    else if (!ctree_counter_get(id, &d, &objects))
        conn_out_reply(c, REPLY_NOT_FOUND);
    else {
        ctv_out_counter(c, &d, objects);
        conn_out_reply(c, REPLY_END);
    }
    return PARSE_DONE;
}

static bool ctv_list_option(conn *c, const char *tok, uint32_t *count, const char **after);

/* ctcounters [count=<n>] [after=<counter>]: by id, a page at a time. */
enum conn_parse_result ctverb_counters(conn *c, struct cmd_line *t) {
    uint32_t count = CTV_COUNT_DEFAULT, id = 0, n = 0;
    const char *after = NULL;
    struct ctree_def d;
    bool started = false;
    uint64_t objects;
    int i;

    for (i = 1; i < t->n; i++)
        if (!ctv_list_option(c, t->v[i], &count, &after))
            return PARSE_DONE;
    if (after != NULL && !ctv_u32(after, &id)) {
        cmd_bad_value(c, "after");
        return PARSE_DONE;
    }
    started = after != NULL;
    while (n < count && ctree_counter_next(&started, &id, &d, &objects)) {
        ctv_out_counter(c, &d, objects);
        n++;
    }
    if (n == count) {
        uint32_t last = id;     /* the last one listed: is there one after it? */
        if (ctree_counter_next(&started, &id, &d, &objects))
            ctv_line(c, "MORE %u\r\n", (unsigned)last);
    }
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

enum conn_parse_result ctverb_undef(conn *c, struct cmd_line *t) {
    enum ctree_result r;
    uint32_t id;

    c->noreply = cmd_is_noreply(t, 2);
    if (!ctv_u32(t->v[1], &id)) {
        cmd_reply(c, REPLY_X_BAD_COUNTER);
        return PARSE_DONE;
    }
    if (t->n == 3 && !c->noreply) {
        cmd_reply(c, cmd_extra_tokens(t, 2));
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    r = ctree_counter_delete(id);
    cmd_reply(c, r == CTREE_OK ? REPLY_DELETED : r == CTREE_NO_COUNTER ? REPLY_NOT_FOUND : ctv_reply_of(r));
    return PARSE_DONE;
}

/* ---- objects ---- */

/* "<counter>:<type>:<n>,..." ; n may be "-" (no limit) */
static bool ctv_parse_limits(const char *s, struct ctree_limit *l, size_t *n) {
    char item_buf[64], buf[32];
    const char *q;

    *n = 0;
    while (*s != '\0') {
        if (*n == CTV_LIMITS_MAX || !ctv_next_item(&s, ',', item_buf, sizeof(item_buf)))
            return false;
        q = item_buf;
        if (!ctv_next_item(&q, ':', buf, sizeof(buf)) || !ctv_u32(buf, &l[*n].counter) ||
            !ctv_next_item(&q, ':', buf, sizeof(buf)) || !ctv_u32(buf, &l[*n].code) || !ctp_valid(l[*n].code))
            return false;
        if (strcmp(q, "-") == 0)
            l[*n].max = CTREE_NO_LIMIT;
        else if (!parse_i64_digits(q, &l[*n].max) || l[*n].max == CTREE_NO_LIMIT)
            return false;
        (*n)++;
    }
    return *n > 0;
}

struct ctv_obj_opts {
    const char *parent;
    size_t nparent;
    int64_t quantize;           /* -1: not given */
    struct ctree_limit limits[CTV_LIMITS_MAX];
    size_t nlimits;
    bool has_limits;
};

/* The name of the option tok sets, or NULL if it is none of
 * ctobj/ctlimits (the value is in o). *ok: whether the value is good. */
static const char *ctv_obj_option(struct ctv_obj_opts *o, const char *tok, bool parent_ok, bool *ok) {
    const char *v;

    if (parent_ok && (v = cmd_option(tok, "parent")) != NULL) {
        o->parent = v;
        o->nparent = strlen(v);
        *ok = o->nparent > 0 && o->nparent <= ITEM_KEY_MAX;
        return "parent";
    }
    if ((v = cmd_option(tok, "quantize")) != NULL) {
        *ok = parse_i64_digits(v, &o->quantize) && o->quantize >= 0;
        return "quantize";
    }
    if ((v = cmd_option(tok, "limits")) != NULL) {
        o->has_limits = true;
        *ok = ctv_parse_limits(v, o->limits, &o->nlimits);
        return "limits";
    }
    return NULL;
}

/* The key and options of ctobj, ctlimits; false (the reply made) if one
 * is wrong. */
static bool ctv_obj_opts(conn *c, struct cmd_line *t, struct ctv_obj_opts *o, bool parent_ok) {
    const char *name;
    bool ok = true;
    int i;

    memset(o, 0, sizeof(*o));
    o->quantize = -1;
    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return false;
    }
    for (i = 2; i < t->n && ok; i++) {
        if ((name = ctv_obj_option(o, t->v[i], parent_ok, &ok)) == NULL) {
            cmd_unknown_option(c, t->v[i]);
            return false;
        }
        if (!ok)
            cmd_bad_value(c, name);
    }
    return ok;
}

/* Creates the object; a key left by a removed subtree is taken over. */

enum conn_parse_result ctverb_obj(conn *c, struct cmd_line *t) {
    static __thread struct ctv_obj_opts o;
    struct ctree_new nw;
    enum store_status st = STORE_NOT_FOUND;
    item *parent = NULL, *pin;

    if (!ctv_obj_opts(c, t, &o, true))
        return PARSE_DONE;
    if (!cmd_log_ok(c))
        return PARSE_DONE;
    if (o.parent != NULL && (parent = ctv_obj_pin(c, o.parent, o.nparent)) == NULL)
        return PARSE_DONE;
    memset(&nw, 0, sizeof(nw));
    nw.parent = parent != NULL ? ctv_obj(parent) : NULL;
    nw.quantize = o.quantize > 0 ? o.quantize : 0;
    nw.limits = o.limits;
    nw.nlimits = o.nlimits;
    pin = store_ctree_obj(t->v[1], t->vlen[1], &nw, &st);
    if (pin != NULL)
        item_release(pin);
    if (parent != NULL)
        item_release(parent);
    cmd_created_reply(c, st, nw.r != CTREE_OK ? ctv_reply_of(nw.r) : REPLY_OOM_STORE);
    return PARSE_DONE;
}

enum conn_parse_result ctverb_limits(conn *c, struct cmd_line *t) {
    static __thread struct ctv_obj_opts o;
    bool raise = t->arg == CTVERB_RAISE;
    enum ctree_result r;
    item *pin;

    if (!ctv_obj_opts(c, t, &o, false))
        return PARSE_DONE;
    if (raise && (!o.has_limits || o.quantize >= 0)) {
        conn_out_reply(c, REPLY_X_RAISE_LIMITS);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c) || (pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    r = ctree_obj_set(ctv_obj(pin), o.limits, o.nlimits, raise, o.quantize);
    item_release(pin);
    conn_out_reply(c, ctv_reply_of(r));
    return PARSE_DONE;
}

static void ctv_out_limit(void *arg, const struct ctree_limit *l) {
    ctv_line(arg, "LIMIT %u %u %lld\r\n", l->counter, l->code, (long long)l->max);
}

/* "OBJECT <key> <parent|-> <quantize> <children> <changed>", then "LIMIT" lines. */
enum conn_parse_result ctverb_info(conn *c, struct cmd_line *t) {
    struct ctree_info info;
    enum ctree_result r;
    item *pin;

    if ((pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    r = ctree_obj_info(ctv_obj(pin), &info, NULL, NULL);
    if (r == CTREE_OK) {
        ctv_line(c, "OBJECT %s %.*s %lld %llu %lld\r\n", t->v[1], info.nparent > 0 ? (int)info.nparent : 1,
                 info.nparent > 0 ? info.parent : "-", (long long)info.quantize,
                 (unsigned long long)info.children, (long long)info.changed);
        ctree_obj_info(ctv_obj(pin), &info, ctv_out_limit, c);
    }
    item_release(pin);
    conn_out_reply(c, r == CTREE_OK ? REPLY_END : ctv_reply_of(r));
    return PARSE_DONE;
}

/* ---- children and active objects ---- */

static void ctv_out_child(void *arg, const char *key, size_t nkey) {
    ctv_line(arg, "CHILD %.*s\r\n", (int)nkey, key);
}

/* Remembers the last key listed, for the MORE line. */
struct ctv_keys {
    conn *c;
    char last[ITEM_KEY_MAX];
    size_t nlast;
};

static void ctv_keys_child(void *arg, const char *key, size_t nkey) {
    struct ctv_keys *k = arg;

    ctv_out_child(k->c, key, nkey);
    memcpy(k->last, key, nkey);
    k->nlast = nkey;
}

static void ctv_keys_active(void *arg, const char *key, size_t nkey, int64_t changed) {
    struct ctv_keys *k = arg;

    ctv_line(k->c, "ACTIVE %.*s %lld\r\n", (int)nkey, key, (long long)changed);
    memcpy(k->last, key, nkey);
    k->nlast = nkey;
}

static void ctv_out_more_key(conn *c, bool more, const struct ctv_keys *k) {
    if (more)
        ctv_line(c, "MORE %.*s\r\n", (int)k->nlast, k->last);
    conn_out_reply(c, REPLY_END);
}

/* count= and after= of a listing; after names an object key. False
 * (the reply made) if tok is wrong. */
static bool ctv_list_option(conn *c, const char *tok, uint32_t *count, const char **after) {
    return cmd_list_option(c, tok, CTV_COUNT_MAX, REPLY_X_COUNT_10000, count, after);
}

enum conn_parse_result ctverb_children(conn *c, struct cmd_line *t) {
    uint32_t count = CTV_COUNT_DEFAULT;
    const char *after = NULL;
    struct ctv_keys k = { c, { 0 }, 0 };
    item *pin, *apin = NULL;
    enum ctree_result r;
    bool more;
    int i;

    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    for (i = 2; i < t->n; i++)
        if (!ctv_list_option(c, t->v[i], &count, &after))
            return PARSE_DONE;
    if ((pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    if (after != NULL && (apin = ctv_obj_pin(c, after, strlen(after))) == NULL) {
        item_release(pin);
        return PARSE_DONE;
    }
    r = ctree_children(ctv_obj(pin), apin != NULL ? ctv_obj(apin) : NULL, count, ctv_keys_child, &k, &more);
    if (r == CTREE_OK)
        ctv_out_more_key(c, more, &k);
    else
        conn_out_reply(c, REPLY_NOT_FOUND);
    item_release(pin);
    if (apin != NULL)
        item_release(apin);
    return PARSE_DONE;
}

enum conn_parse_result ctverb_active(conn *c, struct cmd_line *t) {
    uint32_t count = CTV_COUNT_DEFAULT;
    int64_t since = ctree_now() - CTV_ACTIVE_DEFAULT_SECS;
    const char *after = NULL, *v;
    struct ctv_keys k = { c, { 0 }, 0 };
    item *apin = NULL;
    bool more;
    int i;

    for (i = 1; i < t->n; i++) {
        if ((v = cmd_option(t->v[i], "since")) == NULL) {
            if (!ctv_list_option(c, t->v[i], &count, &after))
                return PARSE_DONE;
        } else if (!parse_i64_digits(v, &since) || since < 0) {
            cmd_bad_value(c, "since");
            return PARSE_DONE;
        }
    }
    if (after != NULL && (apin = ctv_obj_pin(c, after, strlen(after))) == NULL)
        return PARSE_DONE;
    ctree_active(since, apin != NULL ? ctv_obj(apin) : NULL, count, ctv_keys_active, &k, &more);
    ctv_out_more_key(c, more, &k);
    if (apin != NULL)
        item_release(apin);
    return PARSE_DONE;
}

/* ---- increments and reads ---- */

/* Which of "<counter> <type>" (tokens 2 and 3) is wrong. */
static enum reply_id ctv_counter_type_error(const struct cmd_line *t) {
    uint32_t n;

    return ctv_u32(t->v[2], &n) ? REPLY_X_BAD_TYPE : REPLY_X_BAD_COUNTER;
}

static void ctv_out_exceeded(conn *c, const struct ctree_at *at) {
    char period[CTP_TEXT_MAX];

    ctp_format(at->code, at->idx, period);
    ctv_line(c, "EXCEEDED %.*s %u %s\r\n", (int)at->nkey, at->key, at->code, period);
}

enum conn_parse_result ctverb_incr(conn *c, struct cmd_line *t) {
    struct ctree_incr in;
    struct ctree_at refused;
    enum ctree_result r;
    bool values = false;
    item *pin;
    int i;

    c->noreply = cmd_is_noreply(t, t->n - 1);
    memset(&in, 0, sizeof(in));
    for (i = 6; i < t->n - (c->noreply ? 1 : 0); i++) {
        if (strcmp(t->v[i], "values") != 0 || values) {
            cmd_reply(c, cmd_extra_tokens(t, i));
            return PARSE_DONE;
        }
        values = true;
    }
    if (!ctv_u32(t->v[2], &in.counter) || !ctv_u32(t->v[3], &in.code) || !ctp_valid(in.code)) {
        cmd_reply(c, ctv_counter_type_error(t));
        return PARSE_DONE;
    }
    if (!ctp_parse_time(in.code, t->v[4], &in.t)) {
        cmd_reply(c, REPLY_CT_BAD_TIME);
        return PARSE_DONE;
    }
    if (!parse_i64_digits(t->v[5], &in.delta)) {
        cmd_reply(c, REPLY_X_BAD_CT_DELTA);
        return PARSE_DONE;
    }
    if (!cmd_log_ok(c) || (pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    r = ctree_incr(ctv_obj(pin), &in, &refused, values && !c->noreply ? ctv_out_value : NULL, c);
    if (r == CTREE_LIMIT && !c->noreply)
        ctv_out_exceeded(c, &refused);
    item_release(pin);
    if (r != CTREE_OK) {
        if (r != CTREE_LIMIT)
            cmd_reply(c, ctv_reply_of(r));
        return PARSE_DONE;
    }
    cmd_reply(c, values ? REPLY_END : REPLY_STORED);
    return PARSE_DONE;
}

/* ---- ctincrn: several increments as one ---- */

/* The verb, five tokens per increment, values and noreply; one more
 * token shows a line with too many. */
#define CTINCRN_TOKENS (1 + 5 * CTREE_INCR_MANY_MAX + 3)

struct ctv_many {
    item *pins[CTREE_INCR_MANY_MAX];
    struct ctree_obj *objs[CTREE_INCR_MANY_MAX];
    struct ctree_incr ins[CTREE_INCR_MANY_MAX];
    size_t n, npins;
};

/* "<ctincr's error> in increment <i+1>". */
static void ctv_many_error(conn *c, enum reply_id r, size_t i) {
    const struct reply_line *l = &reply_lines[r];

    if (!c->noreply)
        ctv_line(c, "%.*s in increment %zu\r\n", (int)(l->len - 2), l->text, i + 1);
}

/* Increment i from its five tokens v[0..5): false (replied) when one is
 * not what ctincr takes. */
static bool ctv_many_parse(conn *c, char **v, size_t *vlen, struct ctree_incr *in, size_t i) {
    uint32_t n;

    memset(in, 0, sizeof(*in));
    if (vlen[0] > ITEM_KEY_MAX) {
        ctv_many_error(c, REPLY_X_KEY_TOO_LONG, i);
        return false;
    }
    if (!ctv_u32(v[1], &in->counter) || !ctv_u32(v[2], &in->code) || !ctp_valid(in->code)) {
        ctv_many_error(c, ctv_u32(v[1], &n) ? REPLY_X_BAD_TYPE : REPLY_X_BAD_COUNTER, i);
        return false;
    }
    if (!ctp_parse_time(in->code, v[3], &in->t)) {
        ctv_many_error(c, REPLY_CT_BAD_TIME, i);
        return false;
    }
    if (!parse_i64_digits(v[4], &in->delta)) {
        ctv_many_error(c, REPLY_X_BAD_CT_DELTA, i);
        return false;
    }
    return true;
}

/* Pins each increment's object: false (replied, pins let go) when one is
 * missing or not a tree-counter object. */
static bool ctv_many_pin(conn *c, char **v, size_t *vlen, struct ctv_many *m) {
    size_t i;

    for (i = 0; i < m->n; i++) {
        enum store_status st = STORE_NOT_FOUND;
        item *pin = store_struct_find(v[5 * i], vlen[5 * i], ITEM_CTREE, NULL, NULL, &st);
        if (pin != NULL && !ctree_obj_live(item_struct(pin))) {
            item_release(pin);
            pin = NULL;
        }
        if (pin == NULL) {
            if (st == STORE_WRONG_TYPE)
                ctv_many_error(c, REPLY_WRONG_TYPE, i);
            else if (!c->noreply)
                ctv_line(c, "NOT_FOUND %zu\r\n", i + 1);
            return false;
        }
        m->pins[m->npins++] = pin;
        m->objs[i] = item_struct(pin);
    }
    return true;
}

/* The tokens of a ctincrn line: *values, noreply (c->noreply) and the
 * increments' count, or false (replied). */
static bool ctv_many_shape(conn *c, char **v, int n, bool *values, size_t *count) {
    int opts = 0;

    if (n > CTINCRN_TOKENS - 1) {   /* more tokens than any ctincrn line has */
        cmd_reply(c, REPLY_X_CTINCRN_SHAPE);
        return false;
    }
    c->noreply = n > 1 && strcmp(v[n - 1], "noreply") == 0;
    opts = c->noreply ? 1 : 0;
    *values = n - opts > 1 && (n - 1 - opts) % 5 == 1 && strcmp(v[n - 1 - opts], "values") == 0;
    opts += *values ? 1 : 0;
    if ((n - 1 - opts) % 5 != 0 || n - 1 - opts == 0) {
        c->noreply = false;
        cmd_reply(c, REPLY_X_CTINCRN_SHAPE);
        return false;
    }
    *count = (size_t)(n - 1 - opts) / 5;
    return true;
}

static void ctv_many_release(struct ctv_many *m) {
    size_t i;

    for (i = 0; i < m->npins; i++)
        item_release(m->pins[i]);
}

enum conn_parse_result ctverb_incr_many(conn *c, struct cmd_line *l) {
    char *v[CTINCRN_TOKENS];
    size_t vlen[CTINCRN_TOKENS], failed = 0, i;
    int n = parse_tokenize(l->line, l->len, v, vlen, CTINCRN_TOKENS);
    struct ctv_many m;
    struct ctree_at refused;
    enum ctree_result r;
    bool values;

    m.npins = 0;
    if (!ctv_many_shape(c, v, n, &values, &m.n))
        return PARSE_DONE;
    for (i = 0; i < m.n; i++)
        if (!ctv_many_parse(c, v + 1 + 5 * i, vlen + 1 + 5 * i, &m.ins[i], i))
            return PARSE_DONE;
    if (!cmd_log_ok(c) || !ctv_many_pin(c, v + 1, vlen + 1, &m)) {
        ctv_many_release(&m);
        return PARSE_DONE;
    }
    r = ctree_incr_many(m.objs, m.ins, m.n, &refused, &failed, values && !c->noreply ? ctv_out_value : NULL, c);
    ctv_many_release(&m);
    if (r == CTREE_LIMIT && !c->noreply) {
        char period[CTP_TEXT_MAX];
        ctp_format(refused.code, refused.idx, period);
        ctv_line(c, "EXCEEDED %.*s %u %s %zu\r\n", (int)refused.nkey, refused.key, refused.code, period, failed + 1);
    } else if (r == CTREE_NOT_FOUND && !c->noreply) {
        ctv_line(c, "NOT_FOUND %zu\r\n", failed + 1);
    } else if (r == CTREE_NOMEM) {
        cmd_reply(c, REPLY_OOM_STORE);
    } else if (r != CTREE_OK && r != CTREE_LIMIT && r != CTREE_NOT_FOUND) {
        ctv_many_error(c, ctv_reply_of(r), failed);
    } else if (r == CTREE_OK) {
        cmd_reply(c, values ? REPLY_END : REPLY_STORED);
    }
    return PARSE_DONE;
}

enum conn_parse_result ctverb_get(conn *c, struct cmd_line *t) {
    struct ctree_at at;
    uint32_t counter, code;
    int64_t idx, value, fraction;
    enum ctree_result r;
    item *pin;

    if (!ctv_u32(t->v[2], &counter) || !ctv_u32(t->v[3], &code) || !ctp_valid(code)) {
        conn_out_reply(c, ctv_counter_type_error(t));
        return PARSE_DONE;
    }
    if (!ctp_parse_period(code, t->v[4], &idx)) {
        conn_out_reply(c, REPLY_CT_BAD_TIME);
        return PARSE_DONE;
    }
    if ((pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    r = ctree_get(ctv_obj(pin), counter, code, idx, &value, &fraction);
    item_release(pin);
    if (r != CTREE_OK) {
        conn_out_reply(c, ctv_reply_of(r));
        return PARSE_DONE;
    }
    at.key = t->v[1];
    at.nkey = t->vlen[1];
    at.code = code;
    at.idx = idx;
    ctv_out_value(c, &at, counter, value, fraction);
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

/* ---- filters (ctvalues, ctperiods) ---- */

struct ctv_filter {
    struct ctree_filter f;
    int64_t clist[CTV_LIST_MAX];
    int64_t plist[CTV_LIST_MAX];
    const char *periods;        /* parsed once the type is known */
    const char *after;
};

/* "<a>-<b>" or "<a>,<b>,..." of counter ids. */
static bool ctv_parse_counters(const char *s, struct ctv_filter *cf) {
    const char *dash = strchr(s, '-');
    char buf[16];
    uint32_t id;

    if (dash != NULL) {
        if (!ctv_next_item(&s, '-', buf, sizeof(buf)) || !ctv_u32(buf, &cf->f.clo) || !ctv_u32(s, &cf->f.chi))
            return false;
        return cf->f.clo <= cf->f.chi;
    }
    while (*s != '\0') {
        if (cf->f.nclist == CTV_LIST_MAX || !ctv_next_item(&s, ',', buf, sizeof(buf)) || !ctv_u32(buf, &id))
            return false;
        cf->clist[cf->f.nclist++] = id;
    }
    qsort(cf->clist, cf->f.nclist, sizeof(cf->clist[0]), ctv_cmp_i64);
    cf->f.clist = cf->clist;
    return cf->f.nclist > 0;
}

/* Periods of type code: "<p1>-<p2>" or "<p1>,<p2>,...". */
static bool ctv_parse_periods(const char *s, struct ctv_filter *cf) {
    uint32_t code = cf->f.code;
    char buf[CTP_TEXT_MAX + 8];

    if (strchr(s, '-') != NULL) {
        if (!ctv_next_item(&s, '-', buf, sizeof(buf)) || !ctp_parse_period(code, buf, &cf->f.plo) ||
            !ctp_parse_period(code, s, &cf->f.phi))
            return false;
        return cf->f.plo <= cf->f.phi;
    }
    while (*s != '\0') {
        if (cf->f.nplist == CTV_LIST_MAX || !ctv_next_item(&s, ',', buf, sizeof(buf)) ||
            !ctp_parse_period(code, buf, &cf->plist[cf->f.nplist]))
            return false;
        cf->f.nplist++;
    }
    qsort(cf->plist, cf->f.nplist, sizeof(cf->plist[0]), ctv_cmp_i64);
    cf->f.plist = cf->plist;
    return cf->f.nplist > 0;
}

/* after=<counter>:<type>:<period> */
static bool ctv_parse_cursor(const char *s, struct ctree_filter *f) {
    char buf[CTP_TEXT_MAX + 8];

    if (!ctv_next_item(&s, ':', buf, sizeof(buf)) || !ctv_u32(buf, &f->after_counter) ||
        !ctv_next_item(&s, ':', buf, sizeof(buf)) || !ctv_u32(buf, &f->after_code) || !ctp_valid(f->after_code) ||
        !ctp_parse_period(f->after_code, s, &f->after_idx))
        return false;
    f->after = true;
    return true;
}

/* The name of the filter option tok sets, or NULL if it is none (the
 * value is in cf). *ok: whether the value is good. */
static const char *ctv_filter_option(struct ctv_filter *cf, const char *tok, bool *ok) {
    const char *v;
    uint32_t n = 0;

    *ok = true;
    if ((v = cmd_option(tok, "counters")) != NULL) {
        *ok = ctv_parse_counters(v, cf);
        return "counters";
    }
    if ((v = cmd_option(tok, "type")) != NULL) {
        *ok = ctv_u32(v, &cf->f.code) && ctp_valid(cf->f.code);
        return "type";
    }
    if ((v = cmd_option(tok, "periods")) != NULL) {
        cf->periods = v;
        return "periods";
    }
    if ((v = cmd_option(tok, "scan")) != NULL) {
        *ok = cmd_parse_count(v, CTV_SCAN_MAX, &n) && n > 0;
        cf->f.scan_max = n;
        return "scan";
    }
    if ((v = cmd_option(tok, "count")) != NULL) {
        *ok = cmd_parse_count(v, CTV_COUNT_MAX, &n) && n > 0;
        cf->f.count_max = n;
        return "count";
    }
    if ((v = cmd_option(tok, "after")) != NULL) {
        cf->after = v;
        return "after";
    }
    return NULL;
}

/* Parses the options from token first on; false (the reply made) if one
 * is wrong. */
static bool ctv_filter(conn *c, struct cmd_line *t, int first, struct ctv_filter *cf) {
    const char *name;
    bool ok;
    int i;

    memset(cf, 0, sizeof(*cf));
    cf->f.chi = UINT32_MAX;
    cf->f.plo = INT64_MIN;
    cf->f.phi = INT64_MAX;
    cf->f.scan_max = CTV_SCAN_DEFAULT;
    cf->f.count_max = CTV_COUNT_DEFAULT;
    for (i = first; i < t->n; i++) {
        if ((name = ctv_filter_option(cf, t->v[i], &ok)) == NULL)
            cmd_unknown_option(c, t->v[i]);
        else if (!ok && strcmp(name, "count") == 0)
            conn_out_reply(c, REPLY_X_COUNT_10000);
        else if (!ok)
            cmd_bad_value(c, name);
        if (name == NULL || !ok)
            return false;
    }
    if (cf->periods != NULL && cf->f.code == 0)
        conn_out_reply(c, REPLY_X_PERIODS_TYPE);
    else if (cf->periods != NULL && !ctv_parse_periods(cf->periods, cf))
        cmd_bad_value(c, "periods");
    else if (cf->after != NULL && !ctv_parse_cursor(cf->after, &cf->f))
        cmd_bad_value(c, "after");
    else
        return true;
    return false;
}

enum conn_parse_result ctverb_values(conn *c, struct cmd_line *t) {
    static __thread struct ctv_filter cf;
    struct ctree_cursor cur;
    enum ctree_result r;
    item *pin;

    if (t->vlen[1] > ITEM_KEY_MAX) {
        conn_out_reply(c, REPLY_X_KEY_TOO_LONG);
        return PARSE_DONE;
    }
    if (!ctv_filter(c, t, 2, &cf))
        return PARSE_DONE;
    if ((pin = ctv_obj_pin(c, t->v[1], t->vlen[1])) == NULL)
        return PARSE_DONE;
    r = ctree_values(ctv_obj(pin), &cf.f, ctv_out_value, c, &cur);
    item_release(pin);
    if (r != CTREE_OK) {
        conn_out_reply(c, ctv_reply_of(r));
        return PARSE_DONE;
    }
    ctv_out_more(c, &cur);
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

enum conn_parse_result ctverb_periods(conn *c, struct cmd_line *t) {
    static __thread struct ctv_filter cf;
    struct ctree_cursor cur;

    if (!ctv_filter(c, t, 1, &cf))
        return PARSE_DONE;
    ctree_periods(&cf.f, ctv_out_period, c, &cur);
    ctv_out_more(c, &cur);
    conn_out_reply(c, REPLY_END);
    return PARSE_DONE;
}

/* The command table's entries of the tree-counter verbs (proto/cmd.h). */
const struct cmd_def ctverb_cmds[] = {
    { "ctdef", ctverb_def, 3, 5, 0, 0, "define a counter: ctdef <counter> <type>[:<keep>[:m]],... [aggregate=] [quantize=]" },
    { "ctcounter", ctverb_counter, 2, 2, 0, 0, "a counter's settings: ctcounter <counter>" },
    { "ctcounters", ctverb_counters, 1, 3, 0, 0, "the counters' settings: ctcounters [count=] [after=<counter>]" },
    { "ctundef", ctverb_undef, 2, 3, CMD_NOREPLY, 0, "delete an unused counter: ctundef <counter>" },
    { "ctobj", ctverb_obj, 2, 5, 0, 0, "create an object: ctobj <key> [parent=] [quantize=] [limits=]" },
    { "ctlimits", ctverb_limits, 2, 4, 0, CTVERB_REDEFINE, "redefine an object's limits: ctlimits <key> [quantize=] [limits=]" },
    { "ctraise", ctverb_limits, 2, 4, 0, CTVERB_RAISE, "raise an object's limits: ctraise <key> limits=..." },
    { "ctinfo", ctverb_info, 2, 2, 0, 0, "an object's settings: ctinfo <key>" },
    { "ctchildren", ctverb_children, 2, 4, 0, 0, "an object's children: ctchildren <key> [count=] [after=]" },
    { "ctincr", ctverb_incr, 6, 8, CMD_NOREPLY, 0, "increment, rolled up: ctincr <key> <counter> <type> <time> <delta> [values]" },
    { "ctincrn", ctverb_incr_many, 1, CMD_ANY, CMD_RAW | CMD_NOREPLY, 0,
      "several increments, all or none: ctincrn <key> <counter> <type> <time> <delta> [<key> ...] [values]" },
    { "ctget", ctverb_get, 5, 5, 0, 0, "one value: ctget <key> <counter> <type> <period>" },
    { "ctvalues", ctverb_values, 2, 8, 0, 0, "an object's values: ctvalues <key> [counters=] [type=] [periods=] [count=] [after=]" },
    { "ctactive", ctverb_active, 1, 4, 0, 0, "objects changed lately: ctactive [since=] [count=] [after=]" },
    { "ctperiods", ctverb_periods, 1, 7, 0, 0, "periods holding values: ctperiods [counters=] [type=] [periods=] [count=] [after=]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
