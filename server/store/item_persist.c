/*
 * item_persist: cache values in the log and in snapshots, with
 * --persist-items (without it cache values are a cache: nothing here runs).
 *
 * Records say what a key holds after a change, never "one more":
 *   I_SET    key, flags u32, exptime (Unix s) u64, cas u64, stale u8, value
 *   I_DEL    key (delete, eviction)
 *   I_TOUCH  key, exptime u64
 *   I_FLUSH  key-less: cas threshold u64 (items below it are gone), and a
 *            delayed flush's Unix time u64 (0: none)
 * An append, incr or md I logs the whole item again (I_SET). Records for a
 * key that holds a structure at replay are skipped: such a key held a
 * cache value at that point only in a past the snapshot already passed.
 * Snapshot entries are I_SET entries of every live cache value.
 */
#include <string.h>

#include "base/clock.h"
#include "store/item_persist.h"
#include "base/log.h"
#include "persist/codec.h"
#include "persist/persist.h"
#include "persist/snapshot.h"
#include "base/settings.h"
#include "store/store.h"

enum ip_op { I_SET = 1, I_DEL, I_TOUCH, I_FLUSH };

#define IP_FIXED 300
#define IP_CAS_FOLLOW_MAX (1ULL << 63)

static bool ip_on(void) {
    return settings.persist_items && persist_on();
}

static void ip_put_item(struct codec_out *o, item *it) {
    codec_put_key(o, item_key(it), it->nkey);
    codec_put_u32(o, item_flags(it));
    codec_put_u64(o, clock_exptime_to_unix(item_exptime(it)));
    codec_put_u64(o, item_cas(it));
    codec_put_u8(o, item_has_flag(it, ITEM_STALE) ? 1 : 0);
}

void ilog_set(item *it) {
    uint8_t buf[IP_FIXED];
    struct codec_out o;
    struct iovec v[2];

    if (!ip_on() || it->type != ITEM_STRING)
        return;
    codec_out_init(&o, buf, sizeof(buf));
    ip_put_item(&o, it);
    v[0].iov_base = buf;
    v[0].iov_len = o.n;
    v[1].iov_base = item_value(it);
    v[1].iov_len = it->nbytes - 2;
    persist_log(PERSIST_ITEM, I_SET, v, 2);
}

void ilog_del(const char *key, size_t nkey) {
    uint8_t buf[IP_FIXED];
    struct codec_out o;
    struct iovec v;

    if (!ip_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, key, nkey);
    v.iov_base = buf;
    v.iov_len = o.n;
    persist_log(PERSIST_ITEM, I_DEL, &v, 1);
}

void ilog_touch(const char *key, size_t nkey, rel_time_t exptime) {
    uint8_t buf[IP_FIXED];
    struct codec_out o;
    struct iovec v;

    if (!ip_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_key(&o, key, nkey);
    codec_put_u64(&o, clock_exptime_to_unix(exptime));
    v.iov_base = buf;
    v.iov_len = o.n;
    persist_log(PERSIST_ITEM, I_TOUCH, &v, 1);
}

void ilog_flush(uint64_t flush_cas, rel_time_t flush_time) {
    uint8_t buf[16];
    struct codec_out o;
    struct iovec v;

    if (!ip_on())
        return;
    codec_out_init(&o, buf, sizeof(buf));
    codec_put_u64(&o, flush_cas);
    codec_put_u64(&o, clock_exptime_to_unix(flush_time));
    v.iov_base = buf;
    v.iov_len = o.n;
    persist_log(PERSIST_ITEM, I_FLUSH, &v, 1);
}

/* ---- replay and load ---- */

static int ip_set(struct codec_in *in) {
    size_t nkey;
    const char *key = codec_get_key(in, &nkey);
    uint32_t flags = codec_get_u32(in);
    uint64_t exp = codec_get_u64(in), cas = codec_get_u64(in);
    bool stale = codec_get_u8(in) != 0;
    const uint8_t *value;

    if (key == NULL)
        return -1;
    value = in->p;
    if (in->bad || nkey == 0)
        return -1;
    /* New numbers go above every restored one, but not above a CAS that
     * E chose past 2^63: the counter would come to its wrap (2^64-1
     * would make the next number 0, then repeat old ones). */
    if (cas < IP_CAS_FOLLOW_MAX)
        item_cas_floor(cas);
    return store_restore_set(key, nkey, flags, clock_exptime_from_unix(exp), cas, stale,
                             (const char *)value, in->n);
}

static int ip_apply(uint8_t op, const uint8_t *p, size_t n, uint64_t lsn) {
    struct codec_in in;
    const char *key;
    size_t nkey;
    uint64_t a, b;

    codec_in_init(&in, p, n);
    switch (op) {
    case I_SET:
        return ip_set(&in);
    case I_DEL:
    case I_TOUCH:
        key = codec_get_key(&in, &nkey);
        a = op == I_TOUCH ? codec_get_u64(&in) : 0;
        if (in.bad || nkey == 0)
            return -1;
        store_restore_del_touch(key, nkey, op == I_TOUCH, clock_exptime_from_unix(a));
        return 0;
    case I_FLUSH:
        a = codec_get_u64(&in);
        b = codec_get_u64(&in);
        if (in.bad)
            return -1;
        store_restore_flush(a, b != 0 ? clock_exptime_from_unix(b) : 0);
        return 0;
    }
    return -1;
}

static int ip_load(uint8_t op, const uint8_t *p, size_t n) {
    struct codec_in in;

    codec_in_init(&in, p, n);
    return op == I_SET ? ip_set(&in) : -1;
}

static int ip_dump_item(struct snap_writer *w, item *it) {
    uint8_t buf[IP_FIXED];
    struct codec_out o;
    struct iovec v[2];

    if (!settings.persist_items || !store_item_live(it))
        return 0;
    codec_out_init(&o, buf, sizeof(buf));
    ip_put_item(&o, it);
    v[0].iov_base = buf;
    v[0].iov_len = o.n;
    v[1].iov_base = item_value(it);
    v[1].iov_len = it->nbytes - 2;
    return snap_put(w, PERSIST_ITEM, I_SET, v, 2);
}

/* A record starts with its key, but a flush. */
static const char *ip_key_of(uint8_t op, const uint8_t *p, size_t n, size_t *nkey) {
    *nkey = 0;
    return op == I_FLUSH ? NULL : persist_key_first(p, n, nkey);
}

static const struct persist_type_ops ip_ops = {
    .name = "item",
    .apply = ip_apply,
    .key_of = ip_key_of,
    .load = ip_load,
    .dump_item = ip_dump_item,
};

static void ip_mark_cas(uint64_t upto) {
    persist_mark_cas(upto);
}

void item_persist_init(void) {
    persist_register(PERSIST_ITEM, ITEM_STRING, &ip_ops);
    item_on_cas_block(ip_mark_cas);
}
