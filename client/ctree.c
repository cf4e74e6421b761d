/*
 * ctree.c - wrappers for mcds-server's tree-counter verbs (doc/protocol.md,
 * "5. Tree counters"), over the extended-verb client of xconn.c.
 *
 * Every call about objects goes to the server of its group key, so a
 * whole hierarchy lives on one server and its increments stay atomic;
 * counter definitions go to every server. Requests are built on the stack;
 * listings are collected while their lines are read and packed into one
 * allocation for the caller.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcds_int.h"

#define LINE_CAP (2 * MCDS_KEY_MAX + 8192)  /* one request line */
#define LIMITS_MAX 256                       /* limits in one request */

/* ---- small parsing helpers ---- */

static int is(const char *p, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(p, word, len) == 0;
}

static int starts(const char *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(p, prefix, n) == 0;
}

/* Splits a copy of the line into at most max space-separated words. */
static int words(const char *p, size_t len, char *buf, size_t cap,
                 char **w, int max)
{
    int n = 0;
    char *s, *save = NULL;

    if (len >= cap)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    for (s = strtok_r(buf, " ", &save); s != NULL && n < max;
         s = strtok_r(NULL, " ", &save))
        w[n++] = s;
    return s == NULL ? n : -1;
}

static int to_i64(const char *s, int64_t *v)
{
    char *e;
    errno = 0;
    *v = strtoll(s, &e, 10);
    return *s != '\0' && *e == '\0' && errno == 0;
}

static int to_u64(const char *s, uint64_t *v)
{
    char *e;
    errno = 0;
    *v = strtoull(s, &e, 10);
    return *s >= '0' && *s <= '9' && *e == '\0' && errno == 0;
}

static int to_u32(const char *s, uint32_t *v)
{
    uint64_t x;
    if (!to_u64(s, &x) || x > UINT32_MAX)
        return 0;
    *v = (uint32_t)x;
    return 1;
}

/* Checks an object key or group as the queue names are checked. */
static mcds_status_t check_key(const char *k)
{
    size_t i, n;

    if (k == NULL || k[0] == '\0')
        return MCDS_INVALID;
    n = strlen(k);
    if (n > MCDS_KEY_MAX)
        return MCDS_KEY_TOO_LONG;
    for (i = 0; i < n; i++)
        if ((unsigned char)k[i] <= ' ' || k[i] == 0x7f)
            return MCDS_INVALID;
    return MCDS_OK;
}

/* Appends " <name>=<c>:<t>:<max>,..." for the limits. */
static int put_limits(char *line, size_t cap, size_t *at, const char *name,
                      const mcds_ctree_limit_t *l, size_t n)
{
    size_t i;
    int w;

    if (n == 0)
        return 0;
    if (n > LIMITS_MAX)
        return -1;
    w = snprintf(line + *at, cap - *at, " %s=", name);
    if (w < 0 || (size_t)w >= cap - *at)
        return -1;
    *at += (size_t)w;
    for (i = 0; i < n; i++) {
        if (l[i].max == INT64_MAX)
            w = snprintf(line + *at, cap - *at, "%s%" PRIu32 ":%" PRIu32 ":-",
                         i > 0 ? "," : "", l[i].counter, l[i].code);
        else
            w = snprintf(line + *at, cap - *at,
                         "%s%" PRIu32 ":%" PRIu32 ":%" PRId64,
                         i > 0 ? "," : "", l[i].counter, l[i].code, l[i].max);
        if (w < 0 || (size_t)w >= cap - *at)
            return -1;
        *at += (size_t)w;
    }
    return 0;
}

/* ---- one-line replies ---- */

struct one {
    const char *ok, *alt;    /* success words: ok, or alt (MCDS_EXISTS) */
    int got_alt;
};

static int one_line(void *arg, const char *p, size_t len)
{
    struct one *o = arg;

    if (is(p, len, o->ok))
        return MCDS__XDONE;
    if (o->alt != NULL && is(p, len, o->alt)) {
        o->got_alt = 1;
        return MCDS__XDONE;
    }
    return MCDS__XERROR;
}

/* Sends line to route (NULL: every server); MCDS_OK on ok, MCDS_EXISTS on
 * alt (every server with route NULL). */
static mcds_status_t request_one(mcds_t *h, const char *route,
                                 const char *line, size_t len, const char *ok,
                                 const char *alt)
{
    struct one o = { ok, alt, 0 };
    mcds_status_t st = mcds__xrequest(h, route, line, len, one_line, &o);

    return st == MCDS_OK && o.got_alt ? MCDS_EXISTS : st;
}

/* ---- counters ---- */

mcds_status_t mcds_ctree_define(mcds_t *h, uint32_t counter,
                                const mcds_ctree_type_t *types, size_t ntypes,
                                int aggregate, int64_t quantize)
{
    char line[LINE_CAP];
    size_t at, i;
    int w;

    if (types == NULL || ntypes == 0 || ntypes > MCDS_CTREE_TYPES_MAX ||
        quantize < 1)
        return MCDS_INVALID;
    at = (size_t)snprintf(line, sizeof line, "ctdef %" PRIu32 " ", counter);
    for (i = 0; i < ntypes; i++) {
        w = snprintf(line + at, sizeof line - at, "%s%" PRIu32 ":%" PRIu32 "%s",
                     i > 0 ? "," : "", types[i].code, types[i].keep,
                     types[i].manual ? ":m" : "");
        at += (size_t)w;
    }
    at += (size_t)snprintf(line + at, sizeof line - at,
                           " aggregate=%d quantize=%" PRId64 "\r\n",
                           aggregate ? 1 : 0, quantize);
    return request_one(h, NULL, line, at, "CREATED", "EXISTS");
}

mcds_status_t mcds_ctree_undefine(mcds_t *h, uint32_t counter)
{
    char line[64];
    int n = snprintf(line, sizeof line, "ctundef %" PRIu32 "\r\n", counter);

    return request_one(h, NULL, line, (size_t)n, "DELETED", NULL);
}

/* ---- objects ---- */

mcds_status_t mcds_ctree_create(mcds_t *h, const char *group,
                                const char *object, const char *parent,
                                int64_t quantize,
                                const mcds_ctree_limit_t *limits, size_t n)
{
    char line[LINE_CAP];
    size_t at;
    mcds_status_t st = check_key(object);

    if (st == MCDS_OK && parent != NULL)
        st = check_key(parent);
    if (st != MCDS_OK)
        return st;
    if (quantize < 0)
        return MCDS_INVALID;
    at = (size_t)snprintf(line, sizeof line, "ctobj %s", object);
    if (parent != NULL)
        at += (size_t)snprintf(line + at, sizeof line - at, " parent=%s", parent);
    if (quantize > 0)
        at += (size_t)snprintf(line + at, sizeof line - at,
                               " quantize=%" PRId64, quantize);
    if (put_limits(line, sizeof line - 2, &at, "limits", limits, n) < 0)
        return MCDS_INVALID;
    memcpy(line + at, "\r\n", 2);
    return request_one(h, group, line, at + 2, "CREATED", "EXISTS");
}

mcds_status_t mcds_ctree_limits(mcds_t *h, const char *group,
                                const char *object, int raise,
                                const mcds_ctree_limit_t *limits, size_t n,
                                int64_t quantize)
{
    char line[LINE_CAP];
    size_t at;
    mcds_status_t st = check_key(object);

    if (st != MCDS_OK)
        return st;
    if (raise && (n == 0 || quantize >= 0))
        return MCDS_INVALID;
    at = (size_t)snprintf(line, sizeof line, "%s %s",
                          raise ? "ctraise" : "ctlimits", object);
    if (!raise && quantize >= 0)
        at += (size_t)snprintf(line + at, sizeof line - at,
                               " quantize=%" PRId64, quantize);
    if (put_limits(line, sizeof line - 2, &at, "limits", limits, n) < 0)
        return MCDS_INVALID;
    memcpy(line + at, "\r\n", 2);
    return request_one(h, group, line, at + 2, "STORED", NULL);
}

mcds_status_t mcds_ctree_delete(mcds_t *h, const char *group,
                                const char *object)
{
    char line[MCDS_KEY_MAX + 16];
    mcds_status_t st = check_key(object);
    int n;

    if (st != MCDS_OK)
        return st;
    n = snprintf(line, sizeof line, "delete %s\r\n", object);
    return request_one(h, group, line, (size_t)n, "DELETED", NULL);
}

/* ---- ctinfo ---- */

struct info_rd {
    mcds_ctree_info_t *info;
    mcds_ctree_limit_t *limits;
    size_t n, cap;
    int bad, nomem;
};

static int info_line(void *arg, const char *p, size_t len)
{
    struct info_rd *r = arg;
    char buf[MCDS_KEY_MAX * 2 + 128], *w[6];
    int64_t max = 0;

    if (is(p, len, "END"))
        return MCDS__XDONE;
    if (starts(p, len, "OBJECT ") && words(p, len, buf, sizeof buf, w, 6) == 6) {
        snprintf(r->info->parent, sizeof r->info->parent, "%s",
                 strcmp(w[2], "-") == 0 ? "" : w[2]);
        r->bad |= !to_i64(w[3], &r->info->quantize) ||
                  !to_u64(w[4], &r->info->children) ||
                  !to_i64(w[5], &r->info->changed);
        return MCDS__XMORE;
    }
    if (starts(p, len, "LIMIT ") && words(p, len, buf, sizeof buf, w, 4) == 4) {
        if (r->n == r->cap) {
            size_t cap = r->cap * 2 + 8;
            mcds_ctree_limit_t *v = realloc(r->limits, cap * sizeof *v);
            if (v == NULL) {
                r->nomem = 1;
                return MCDS__XMORE;
            }
            r->limits = v;
            r->cap = cap;
        }
        r->bad |= !to_u32(w[1], &r->limits[r->n].counter) ||
                  !to_u32(w[2], &r->limits[r->n].code) || !to_i64(w[3], &max);
        r->limits[r->n++].max = max;
        return MCDS__XMORE;
    }
    return MCDS__XERROR;
}

mcds_status_t mcds_ctree_info(mcds_t *h, const char *group,
                              const char *object, mcds_ctree_info_t *info,
                              mcds_ctree_limit_t **limits, size_t *nlimits)
{
    char line[MCDS_KEY_MAX + 16];
    struct info_rd r;
    mcds_status_t st = check_key(object);
    int n;

    if (limits != NULL)
        *limits = NULL;
    if (nlimits != NULL)
        *nlimits = 0;
    if (st != MCDS_OK)
        return st;
    if (info == NULL)
        return MCDS_INVALID;
    memset(&r, 0, sizeof r);
    memset(info, 0, sizeof *info);
    r.info = info;
    n = snprintf(line, sizeof line, "ctinfo %s\r\n", object);
    st = mcds__xrequest(h, group, line, (size_t)n, info_line, &r);
    if (st == MCDS_OK && r.nomem)
        st = MCDS_NO_MEMORY;
    if (st == MCDS_OK && r.bad)
        st = MCDS_SERVER_ERROR;
    if (st == MCDS_OK && limits != NULL) {
        *limits = r.limits;
        r.limits = NULL;
        if (nlimits != NULL)
            *nlimits = r.n;
    }
    free(r.limits);
    return st;
}

/* ---- value listings (VALUE, PERIOD, EXCEEDED lines) ---- */

/* Values collected with their keys stored apart until packed. */
struct vals {
    mcds_ctree_value_t *v;
    size_t n, cap;
    char *keys;                  /* NUL-separated; v[i].key holds an offset */
    size_t klen, kcap;
    char *cursor;                /* MORE <cursor> goes here (may be NULL) */
    mcds_ctree_refusal_t *refused;
    int limited, bad, nomem;
};

static int vals_add(struct vals *s, const char *key, uint32_t counter,
                    uint32_t code, const char *period, int64_t value,
                    int64_t fraction)
{
    size_t kl = strlen(key) + 1;

    if (s->n == s->cap) {
        size_t cap = s->cap * 2 + 16;
        mcds_ctree_value_t *v = realloc(s->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    if (s->klen + kl > s->kcap) {
        size_t cap = (s->kcap + kl) * 2;
        char *k = realloc(s->keys, cap);
        if (k == NULL)
            return -1;
        s->keys = k;
        s->kcap = cap;
    }
    memcpy(s->keys + s->klen, key, kl);
    s->v[s->n].key = (const char *)(uintptr_t)s->klen;
    s->klen += kl;
    s->v[s->n].counter = counter;
    s->v[s->n].code = code;
    snprintf(s->v[s->n].period, sizeof s->v[s->n].period, "%s", period);
    s->v[s->n].value = value;
    s->v[s->n].fraction = fraction;
    s->n++;
    return 0;
}

static int vals_line(void *arg, const char *p, size_t len)
{
    struct vals *s = arg;
    char buf[MCDS_KEY_MAX + 160], *w[7];
    uint32_t counter, code;
    int64_t value, fraction;

    if (is(p, len, "END") || is(p, len, "STORED"))
        return MCDS__XDONE;
    if (starts(p, len, "VALUE ") && words(p, len, buf, sizeof buf, w, 7) == 7) {
        s->bad |= !to_u32(w[2], &counter) || !to_u32(w[3], &code) ||
                  !to_i64(w[5], &value) || !to_i64(w[6], &fraction);
        if (!s->bad && vals_add(s, w[1], counter, code, w[4], value, fraction) < 0)
            s->nomem = 1;
        return MCDS__XMORE;
    }
    if (starts(p, len, "PERIOD ") && words(p, len, buf, sizeof buf, w, 5) == 5) {
        s->bad |= !to_u32(w[1], &counter) || !to_u32(w[2], &code) ||
                  !to_i64(w[4], &value);
        if (!s->bad && vals_add(s, "", counter, code, w[3], value, 0) < 0)
            s->nomem = 1;
        return MCDS__XMORE;
    }
    if (starts(p, len, "MORE ") && words(p, len, buf, sizeof buf, w, 2) == 2) {
        if (s->cursor != NULL)
            snprintf(s->cursor, MCDS_CTREE_CURSOR_MAX, "%s", w[1]);
        return MCDS__XMORE;
    }
    if (starts(p, len, "EXCEEDED ") && words(p, len, buf, sizeof buf, w, 4) == 4) {
        s->limited = 1;
        if (s->refused != NULL) {
            snprintf(s->refused->key, sizeof s->refused->key, "%s", w[1]);
            s->bad |= !to_u32(w[2], &s->refused->code);
            snprintf(s->refused->period, sizeof s->refused->period, "%s", w[3]);
        }
        return MCDS__XDONE;
    }
    return MCDS__XERROR;
}

/* Packs the values and their keys into one allocation. */
static mcds_status_t vals_pack(struct vals *s, mcds_ctree_value_t **out,
                               size_t *count)
{
    size_t head = s->n * sizeof(mcds_ctree_value_t), i;
    char *block;

    *out = NULL;
    *count = 0;
    if (s->n == 0)
        return MCDS_OK;
    block = malloc(head + s->klen);
    if (block == NULL)
        return MCDS_NO_MEMORY;
    memcpy(block, s->v, head);
    memcpy(block + head, s->keys, s->klen);
    *out = (mcds_ctree_value_t *)block;
    for (i = 0; i < s->n; i++)
        (*out)[i].key = block + head + (size_t)(uintptr_t)s->v[i].key;
    *count = s->n;
    return MCDS_OK;
}

/* Runs a request whose reply lines fn reads into s, and packs the values. */
static mcds_status_t vals_request_with(mcds_t *h, const char *group,
                                       const char *line, size_t len,
                                       mcds__xline_fn fn, void *arg,
                                       struct vals *s,
                                       mcds_ctree_value_t **values,
                                       size_t *count)
{
    mcds_status_t st = mcds__xrequest(h, group, line, len, fn, arg);

    if (st == MCDS_OK && s->nomem)
        st = MCDS_NO_MEMORY;
    if (st == MCDS_OK && s->bad)
        st = MCDS_SERVER_ERROR;
    if (st == MCDS_OK && s->limited)
        st = MCDS_LIMIT;
    if (st == MCDS_OK && values != NULL)
        st = vals_pack(s, values, count);
    free(s->v);
    free(s->keys);
    return st;
}

/* Runs a listing request and packs what it returned. */
static mcds_status_t vals_request(mcds_t *h, const char *group,
                                  const char *line, size_t len,
                                  struct vals *s, mcds_ctree_value_t **values,
                                  size_t *count)
{
    return vals_request_with(h, group, line, len, vals_line, s, s, values, count);
}

void mcds_ctree_values_free(mcds_ctree_value_t *values)
{
    free(values);
}

mcds_status_t mcds_ctree_incr(mcds_t *h, const char *group, const char *object,
                              uint32_t counter, uint32_t code,
                              const char *time, int64_t delta,
                              mcds_ctree_refusal_t *refused,
                              mcds_ctree_value_t **values, size_t *count)
{
    char line[MCDS_KEY_MAX + 128];
    struct vals s;
    mcds_status_t st = check_key(object);
    size_t dummy;
    int n;

    if (values != NULL)
        *values = NULL;
    if (count != NULL)
        *count = 0;
    if (st == MCDS_OK)
        st = check_key(time);
    if (st != MCDS_OK)
        return st == MCDS_KEY_TOO_LONG ? MCDS_INVALID : st;
    if (strlen(time) >= MCDS_CTREE_PERIOD_MAX)
        return MCDS_INVALID;
    memset(&s, 0, sizeof s);
    s.refused = refused;
    n = snprintf(line, sizeof line, "ctincr %s %" PRIu32 " %" PRIu32 " %s %" PRId64 "%s\r\n",
                 object, counter, code, time, delta, values != NULL ? " values" : "");
    return vals_request(h, group, line, (size_t)n, &s, values,
                        count != NULL ? count : &dummy);
}

/* ctincrn's replies: EXCEEDED and NOT_FOUND name the increment. */
struct many {
    struct vals v;
    size_t *failed;
    int missing;
};

static int many_line(void *arg, const char *p, size_t len)
{
    struct many *m = arg;
    char buf[MCDS_KEY_MAX + 160], *w[5];
    uint64_t which = 0;

    if (starts(p, len, "EXCEEDED ") && words(p, len, buf, sizeof buf, w, 5) == 5) {
        m->v.limited = 1;
        m->v.bad |= !to_u64(w[4], &which) || which == 0;
        if (m->v.refused != NULL) {
            snprintf(m->v.refused->key, sizeof m->v.refused->key, "%s", w[1]);
            m->v.bad |= !to_u32(w[2], &m->v.refused->code);
            snprintf(m->v.refused->period, sizeof m->v.refused->period, "%s", w[3]);
        }
    } else if (starts(p, len, "NOT_FOUND ") && words(p, len, buf, sizeof buf, w, 2) == 2) {
        m->missing = 1;
        m->v.bad |= !to_u64(w[1], &which) || which == 0;
    } else {
        return vals_line(&m->v, p, len);
    }
    if (m->failed != NULL && which > 0)
        *m->failed = (size_t)(which - 1);
    return MCDS__XDONE;
}

/* The ctincrn line for incrs: its length, or 0 when one is invalid. */
static size_t many_format(char *line, size_t cap, const mcds_ctree_incr_t *incrs,
                          size_t n, int values)
{
    size_t len = (size_t)snprintf(line, cap, "ctincrn"), i;

    for (i = 0; i < n; i++) {
        const mcds_ctree_incr_t *in = &incrs[i];
        if (in->object == NULL || in->time == NULL || check_key(in->object) != MCDS_OK ||
            check_key(in->time) != MCDS_OK || strlen(in->time) >= MCDS_CTREE_PERIOD_MAX)
            return 0;
        len += (size_t)snprintf(line + len, cap - len, " %s %" PRIu32 " %" PRIu32 " %s %" PRId64,
                                in->object, in->counter, in->code, in->time, in->delta);
    }
    len += (size_t)snprintf(line + len, cap - len, "%s\r\n", values ? " values" : "");
    return len;
}

mcds_status_t mcds_ctree_incr_many(mcds_t *h, const char *group,
                                   const mcds_ctree_incr_t *incrs, size_t n,
                                   mcds_ctree_refusal_t *refused, size_t *failed,
                                   mcds_ctree_value_t **values, size_t *count)
{
    size_t cap = 16 + n * (MCDS_KEY_MAX + MCDS_CTREE_PERIOD_MAX + 48), len, dummy;
    struct many m;
    mcds_status_t st;
    char *line;

    if (values != NULL)
        *values = NULL;
    if (count != NULL)
        *count = 0;
    if (incrs == NULL || n == 0 || n > MCDS_CTREE_INCR_MANY_MAX)
        return MCDS_INVALID;
    if ((line = malloc(cap)) == NULL)
        return MCDS_NO_MEMORY;
    if ((len = many_format(line, cap, incrs, n, values != NULL)) == 0) {
        free(line);
        return MCDS_INVALID;
    }
    memset(&m, 0, sizeof m);
    m.v.refused = refused;
    m.failed = failed;
    st = vals_request_with(h, group, line, len, many_line, &m, &m.v, values,
                           count != NULL ? count : &dummy);
    free(line);
    if (st == MCDS_OK && m.missing)
        st = MCDS_NOT_FOUND;
    return st;
}

mcds_status_t mcds_ctree_get(mcds_t *h, const char *group, const char *object,
                             uint32_t counter, uint32_t code,
                             const char *period, int64_t *value,
                             int64_t *fraction)
{
    char line[MCDS_KEY_MAX + 96];
    mcds_ctree_value_t *v = NULL;
    struct vals s;
    size_t count = 0;
    mcds_status_t st = check_key(object);
    int n;

    if (st == MCDS_OK)
        st = check_key(period);
    if (st != MCDS_OK)
        return st == MCDS_KEY_TOO_LONG ? MCDS_INVALID : st;
    if (strlen(period) >= MCDS_CTREE_PERIOD_MAX)
        return MCDS_INVALID;
    memset(&s, 0, sizeof s);
    n = snprintf(line, sizeof line, "ctget %s %" PRIu32 " %" PRIu32 " %s\r\n",
                 object, counter, code, period);
    st = vals_request(h, group, line, (size_t)n, &s, &v, &count);
    if (st == MCDS_OK && count != 1)
        st = MCDS_SERVER_ERROR;
    if (st == MCDS_OK) {
        if (value != NULL)
            *value = v[0].value;
        if (fraction != NULL)
            *fraction = v[0].fraction;
    }
    mcds_ctree_values_free(v);
    return st;
}

/* "<verb>[ <object>][ <filter>]\r\n"; filter must be one line of options. */
static mcds_status_t listing(mcds_t *h, const char *group, const char *verb,
                             const char *object, const char *filter,
                             mcds_ctree_value_t **values, size_t *count,
                             char *cursor)
{
    char line[LINE_CAP];
    struct vals s;
    int n;

    *values = NULL;
    *count = 0;
    if (cursor != NULL)
        cursor[0] = '\0';
    if (filter != NULL && strpbrk(filter, "\r\n") != NULL)
        return MCDS_INVALID;
    n = snprintf(line, sizeof line, "%s%s%s%s%s\r\n", verb,
                 object != NULL ? " " : "", object != NULL ? object : "",
                 filter != NULL && filter[0] != '\0' ? " " : "",
                 filter != NULL ? filter : "");
    if (n < 0 || (size_t)n >= sizeof line)
        return MCDS_INVALID;
    memset(&s, 0, sizeof s);
    s.cursor = cursor;
    return vals_request(h, group, line, (size_t)n, &s, values, count);
}

mcds_status_t mcds_ctree_values(mcds_t *h, const char *group,
                                const char *object, const char *filter,
                                mcds_ctree_value_t **values, size_t *count,
                                char *cursor)
{
    mcds_status_t st = check_key(object);

    if (st != MCDS_OK)
        return st;
    if (values == NULL || count == NULL)
        return MCDS_INVALID;
    return listing(h, group, "ctvalues", object, filter, values, count, cursor);
}

mcds_status_t mcds_ctree_periods(mcds_t *h, const char *group,
                                 const char *filter,
                                 mcds_ctree_value_t **values, size_t *count,
                                 char *cursor)
{
    if (values == NULL || count == NULL)
        return MCDS_INVALID;
    return listing(h, group, "ctperiods", NULL, filter, values, count, cursor);
}

/* ---- key listings (CHILD, ACTIVE lines) ---- */

struct keys_rd {
    const char *word;            /* "CHILD " or "ACTIVE " */
    mcds_item_t *v;              /* data: offsets into text until packed */
    size_t n, cap;
    char *text;
    size_t tlen, tcap;
    int more, nomem;
};

static int keys_line(void *arg, const char *p, size_t len)
{
    struct keys_rd *r = arg;
    char buf[MCDS_KEY_MAX + 64], *w[3];
    int nw;

    if (is(p, len, "END"))
        return MCDS__XDONE;
    if (starts(p, len, "MORE ")) {
        r->more = 1;
        return MCDS__XMORE;
    }
    if (!starts(p, len, r->word))
        return MCDS__XERROR;
    nw = words(p, len, buf, sizeof buf, w, 3);
    if (nw < 2)
        return MCDS__XERROR;
    if (r->n == r->cap || r->tlen + strlen(w[1]) + 1 > r->tcap) {
        size_t cap = r->cap * 2 + 16, tcap = r->tcap * 2 + 4096;
        mcds_item_t *v = realloc(r->v, cap * sizeof *v);
        char *t = v != NULL ? realloc(r->text, tcap) : NULL;
        if (v != NULL)
            r->v = v;
        if (t == NULL) {
            r->nomem = 1;
            return MCDS__XMORE;
        }
        r->text = t;
        r->cap = cap;
        r->tcap = tcap;
    }
    r->v[r->n].data = (const char *)(uintptr_t)r->tlen;
    r->v[r->n].len = strlen(w[1]);
    memcpy(r->text + r->tlen, w[1], r->v[r->n].len + 1);
    r->tlen += r->v[r->n].len + 1;
    r->n++;
    return MCDS__XMORE;
}

static mcds_status_t keys_request(mcds_t *h, const char *group,
                                  const char *line, size_t len,
                                  struct keys_rd *r, mcds_item_t **out,
                                  size_t *count, int *more)
{
    mcds_status_t st = mcds__xrequest(h, group, line, len, keys_line, r);
    size_t i;

    if (st == MCDS_OK && r->nomem)
        st = MCDS_NO_MEMORY;
    if (st == MCDS_OK) {
        for (i = 0; i < r->n; i++)
            r->v[i].data = r->text + (size_t)(uintptr_t)r->v[i].data;
        st = mcds__items_pack(r->v, r->n, out);
    }
    if (st == MCDS_OK) {
        *count = r->n;
        if (more != NULL)
            *more = r->more;
    }
    free(r->v);
    free(r->text);
    return st;
}

mcds_status_t mcds_ctree_children(mcds_t *h, const char *group,
                                  const char *object, const char *after,
                                  unsigned max, mcds_item_t **children,
                                  size_t *count, int *more)
{
    char line[2 * MCDS_KEY_MAX + 64];
    struct keys_rd r = { "CHILD ", NULL, 0, 0, NULL, 0, 0, 0, 0 };
    mcds_status_t st = check_key(object);
    int n;

    if (children == NULL || count == NULL)
        return MCDS_INVALID;
    *children = NULL;
    *count = 0;
    if (st == MCDS_OK && after != NULL)
        st = check_key(after);
    if (st != MCDS_OK)
        return st;
    if (max < 1 || max > 10000)
        return MCDS_INVALID;
    n = snprintf(line, sizeof line, "ctchildren %s count=%u%s%s\r\n", object,
                 max, after != NULL ? " after=" : "", after != NULL ? after : "");
    return keys_request(h, group, line, (size_t)n, &r, children, count, more);
}

mcds_status_t mcds_ctree_active(mcds_t *h, const char *group, int64_t since,
                                const char *after, unsigned max,
                                mcds_item_t **objects, size_t *count,
                                int *more)
{
    char line[MCDS_KEY_MAX + 96];
    struct keys_rd r = { "ACTIVE ", NULL, 0, 0, NULL, 0, 0, 0, 0 };
    mcds_status_t st = MCDS_OK;
    int n;

    if (objects == NULL || count == NULL)
        return MCDS_INVALID;
    *objects = NULL;
    *count = 0;
    if (after != NULL)
        st = check_key(after);
    if (st != MCDS_OK)
        return st;
    if (max < 1 || max > 10000 || since < 0)
        return MCDS_INVALID;
    n = snprintf(line, sizeof line, "ctactive since=%" PRId64 " count=%u%s%s\r\n",
                 since, max, after != NULL ? " after=" : "", after != NULL ? after : "");
    return keys_request(h, group, line, (size_t)n, &r, objects, count, more);
}
