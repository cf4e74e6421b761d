/*
 * libmemcached_client: drives a memcached-compatible server through
 * libmemcached's C API and checks every answer.
 *
 *   libmemcached_client [--binary] [--prefix P] [--timeout-ms N] HOST:PORT
 *
 * Without --binary libmemcached speaks the text protocol, with it the binary
 * protocol. Keys start with P (default "lmc-text-" or "lmc-bin-"), so both
 * modes can run against one server. Prints "ok - <check>" per passed check
 * and exits 1 with "FAIL: <check>: <what>" at the first mismatch (2 on a
 * usage error). It leaves <P>touched behind with a TTL of 5000 s for the
 * caller to check through another protocol.
 *
 * Built by t/unit/libmemcached_api.tcl:
 *   cc -o X libmemcached_client.c $(pkg-config --cflags --libs libmemcached)
 */
#include <libmemcached/memcached.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static memcached_st *mc;
static int binary;
static const char *prefix;
static const char *check = "setup";

static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "FAIL: %s: ", check);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fprintf(stdout, " (protocol %s)\n", binary ? "binary" : "text");
    fflush(stdout);
    exit(1);
}

static void ok(void)
{
    printf("ok - %s (%s)\n", check, binary ? "binary" : "text");
    fflush(stdout);
}

/* The prefixed key name; a few static buffers so that calls can nest. */
static const char *K(const char *name)
{
    static char bufs[8][300];
    static int n;
    char *b = bufs[n++ % 8];
    snprintf(b, sizeof bufs[0], "%s%s", prefix, name);
    return b;
}

static void expect_rc(const char *op, memcached_return_t rc, memcached_return_t want)
{
    if (rc != want)
        fail("%s returned %s (%d), expected %s (%d); last error: %s", op,
             memcached_strerror(mc, rc), (int)rc, memcached_strerror(mc, want),
             (int)want, memcached_last_error_message(mc));
}

static void set_kv(const char *key, const char *val, size_t len, time_t exp, uint32_t flags)
{
    memcached_return_t rc = memcached_set(mc, key, strlen(key), val, len, exp, flags);
    expect_rc("memcached_set", rc, MEMCACHED_SUCCESS);
}

/* Fetch key and compare value and flags exactly. */
static void expect_value(const char *key, const char *want, size_t want_len, uint32_t want_flags)
{
    size_t len = 0;
    uint32_t flags = 0;
    memcached_return_t rc;
    char *v = memcached_get(mc, key, strlen(key), &len, &flags, &rc);
    /* An empty value comes back as NULL with MEMCACHED_SUCCESS. */
    if (rc != MEMCACHED_SUCCESS || (v == NULL && want_len != 0)) {
        free(v);
        fail("memcached_get(%s) returned %s, expected the value (%zu bytes)", key,
             memcached_strerror(mc, rc), want_len);
    }
    if (len != want_len || (len && memcmp(v, want, len) != 0)) {
        fail("memcached_get(%s): %zu bytes '%.*s', expected %zu bytes '%.*s'", key, len,
             (int)(len > 60 ? 60 : len), v, want_len, (int)(want_len > 60 ? 60 : want_len),
             want);
    }
    if (flags != want_flags)
        fail("memcached_get(%s): flags %" PRIu32 ", expected %" PRIu32, key, flags, want_flags);
    free(v);
}

static void expect_str(const char *key, const char *want, uint32_t flags)
{
    expect_value(key, want, strlen(want), flags);
}

static void expect_missing(const char *key)
{
    size_t len = 0;
    uint32_t flags = 0;
    memcached_return_t rc;
    char *v = memcached_get(mc, key, strlen(key), &len, &flags, &rc);
    if (v != NULL || rc == MEMCACHED_SUCCESS) {
        fail("memcached_get(%s) found %zu bytes '%.*s', expected a miss", key, len,
             (int)(len > 60 ? 60 : len), v ? v : "");
    }
    expect_rc("memcached_get of a missing key", rc, MEMCACHED_NOTFOUND);
}

/* gets: the CAS value of key (the handle has SUPPORT_CAS on). */
static uint64_t cas_of(const char *key)
{
    const char *keys[1] = {key};
    size_t lens[1] = {strlen(key)};
    memcached_return_t rc = memcached_mget(mc, keys, lens, 1);
    expect_rc("memcached_mget (gets)", rc, MEMCACHED_SUCCESS);
    memcached_result_st res;
    memcached_result_create(mc, &res);
    if (memcached_fetch_result(mc, &res, &rc) == NULL)
        fail("gets %s: no result (%s)", key, memcached_strerror(mc, rc));
    uint64_t cas = memcached_result_cas(&res);
    /* Drain to END. */
    if (memcached_fetch_result(mc, &res, &rc) != NULL)
        fail("gets %s: more than one result", key);
    memcached_result_free(&res);
    expect_rc("memcached_fetch_result after the last result", rc, MEMCACHED_END);
    if (cas == 0)
        fail("gets %s: CAS value 0", key);
    return cas;
}

static void test_set_get(void)
{
    check = "set/get: value, 32-bit flags, binary-safe bytes";
    set_kv(K("plain"), "hello", 5, 0, 0);
    expect_str(K("plain"), "hello", 0);
    const char bin[] = "a\0b\r\nc\nEND\r\n\xff";
    set_kv(K("bin"), bin, sizeof bin - 1, 0, 0xdeadbeefU);
    expect_value(K("bin"), bin, sizeof bin - 1, 0xdeadbeefU);
    set_kv(K("empty"), "", 0, 0, 7);
    expect_value(K("empty"), "", 0, 7);
    set_kv(K("plain"), "overwritten", 11, 0, 3);
    expect_str(K("plain"), "overwritten", 3);
    ok();

    check = "set/get: a 200 KB value";
    size_t big = 200 * 1024;
    char *v = malloc(big);
    for (size_t i = 0; i < big; i++)
        v[i] = (char)((i * 131 + i / 251) & 0xff);
    set_kv(K("big"), v, big, 0, 11);
    expect_value(K("big"), v, big, 11);
    free(v);
    ok();

    check = "get of a missing key is NOTFOUND";
    expect_missing(K("never-set"));
    ok();

    check = "add and replace";
    memcached_return_t rc = memcached_add(mc, K("added"), strlen(K("added")), "1", 1, 0, 0);
    expect_rc("memcached_add of a new key", rc, MEMCACHED_SUCCESS);
    rc = memcached_add(mc, K("added"), strlen(K("added")), "2", 1, 0, 0);
    /* memcached: NOT_STORED in text, KEY_EEXISTS in binary. */
    expect_rc("memcached_add of an existing key", rc,
              binary ? MEMCACHED_DATA_EXISTS : MEMCACHED_NOTSTORED);
    expect_str(K("added"), "1", 0);
    rc = memcached_replace(mc, K("added"), strlen(K("added")), "3", 1, 0, 9);
    expect_rc("memcached_replace of an existing key", rc, MEMCACHED_SUCCESS);
    expect_str(K("added"), "3", 9);
    rc = memcached_replace(mc, K("no-replace"), strlen(K("no-replace")), "4", 1, 0, 0);
    expect_rc("memcached_replace of a missing key", rc,
              binary ? MEMCACHED_NOTFOUND : MEMCACHED_NOTSTORED);
    expect_missing(K("no-replace"));
    ok();
}

#define NKEYS 100

/* The number i of a fetched "<prefix>mget-<i>" key, or -1. The key in a
 * result is not NUL-terminated. */
static int mget_index(const memcached_result_st *r)
{
    char key[300];
    size_t klen = memcached_result_key_length(r);
    size_t plen = strlen(prefix);
    if (klen >= sizeof key)
        return -1;
    memcpy(key, memcached_result_key_value(r), klen);
    key[klen] = '\0';
    if (klen <= plen + 5 || strncmp(key, prefix, plen) != 0 ||
        strncmp(key + plen, "mget-", 5) != 0)
        return -1;
    char *end;
    long i = strtol(key + plen + 5, &end, 10);
    if (*end != '\0' || i < 0 || i >= NKEYS)
        return -1;
    return (int)i;
}

static void test_mget(void)
{
    check = "multi-get of 100 keys (memcached_mget + memcached_fetch_result)";
    char keybuf[NKEYS + 10][64];
    const char *keys[NKEYS + 10];
    size_t lens[NKEYS + 10];
    char valbuf[2048];
    int seen[NKEYS] = {0};

    for (int i = 0; i < NKEYS + 10; i++) {
        snprintf(keybuf[i], sizeof keybuf[i], "%smget-%d", prefix, i);
        keys[i] = keybuf[i];
        lens[i] = strlen(keybuf[i]);
        if (i < NKEYS) {
            /* Values of different lengths: "v<i>:" then i*13 letters. */
            int n = snprintf(valbuf, sizeof valbuf, "v%d:", i);
            for (int j = 0; j < i * 13; j++)
                valbuf[n++] = (char)('a' + (i + j) % 26);
            set_kv(keys[i], valbuf, (size_t)n, 0, (uint32_t)(i * 1000 + 1));
        }
    }
    /* Ten keys that were never set are asked for too (the last ten). */
    memcached_return_t rc = memcached_mget(mc, keys, lens, NKEYS + 10);
    expect_rc("memcached_mget", rc, MEMCACHED_SUCCESS);

    /* One result structure reused for every fetch, as libmemcached's docs
     * suggest; at the end memcached_fetch_result returns NULL and END. */
    memcached_result_st res, *r;
    memcached_result_create(mc, &res);
    int count = 0;
    while ((r = memcached_fetch_result(mc, &res, &rc)) != NULL) {
        const char *key = memcached_result_key_value(r);
        size_t klen = memcached_result_key_length(r);
        int i = mget_index(r);
        if (i < 0 || klen != lens[i] || memcmp(key, keys[i], klen) != 0)
            fail("fetched an unexpected key '%.*s'", (int)klen, key);
        if (seen[i]++)
            fail("key %s returned twice", keys[i]);
        int n = snprintf(valbuf, sizeof valbuf, "v%d:", i);
        for (int j = 0; j < i * 13; j++)
            valbuf[n++] = (char)('a' + (i + j) % 26);
        if (memcached_result_length(r) != (size_t)n ||
            memcmp(memcached_result_value(r), valbuf, (size_t)n) != 0)
            fail("key %s: value of %zu bytes differs from the %d bytes set", keys[i],
                 memcached_result_length(r), n);
        if (memcached_result_flags(r) != (uint32_t)(i * 1000 + 1))
            fail("key %s: flags %" PRIu32 ", expected %d", keys[i], memcached_result_flags(r),
                 i * 1000 + 1);
        count++;
    }
    expect_rc("memcached_fetch_result at the end", rc, MEMCACHED_END);
    if (count != NKEYS)
        fail("fetched %d results, expected %d", count, NKEYS);
    ok();

    check = "noreply sets, then a multi-get sees all of them";
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_NOREPLY, 1);
    for (int i = 0; i < 50; i++) {
        snprintf(valbuf, sizeof valbuf, "quiet-%d", i);
        rc = memcached_set(mc, keys[i], lens[i], valbuf, strlen(valbuf), 0, 5);
        if (rc != MEMCACHED_SUCCESS && rc != MEMCACHED_BUFFERED)
            fail("noreply memcached_set returned %s", memcached_strerror(mc, rc));
    }
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_NOREPLY, 0);
    rc = memcached_mget(mc, keys, lens, 50);
    expect_rc("memcached_mget", rc, MEMCACHED_SUCCESS);
    count = 0;
    while ((r = memcached_fetch_result(mc, &res, &rc)) != NULL) {
        int i = mget_index(r);
        if (i < 0 || i >= 50)
            fail("fetched an unexpected key '%.*s'", (int)memcached_result_key_length(r),
                 memcached_result_key_value(r));
        snprintf(valbuf, sizeof valbuf, "quiet-%d", i);
        if (memcached_result_length(r) != strlen(valbuf) ||
            memcmp(memcached_result_value(r), valbuf, strlen(valbuf)) != 0 ||
            memcached_result_flags(r) != 5)
            fail("key %s: '%.*s' flags %" PRIu32 ", expected '%s' flags 5", keys[i],
                 (int)memcached_result_length(r), memcached_result_value(r),
                 memcached_result_flags(r), valbuf);
        count++;
    }
    expect_rc("memcached_fetch_result at the end", rc, MEMCACHED_END);
    if (count != 50)
        fail("fetched %d results, expected 50", count);
    memcached_result_free(&res);
    ok();
}

static void test_cas(void)
{
    check = "gets + cas: success, then conflict with the old CAS";
    const char *k = K("cas");
    set_kv(k, "v1", 2, 0, 1);
    uint64_t c1 = cas_of(k);
    memcached_return_t rc = memcached_cas(mc, k, strlen(k), "v2", 2, 0, 2, c1);
    expect_rc("memcached_cas with the current CAS", rc, MEMCACHED_SUCCESS);
    expect_str(k, "v2", 2);
    uint64_t c2 = cas_of(k);
    if (c2 == c1)
        fail("CAS value unchanged (%" PRIu64 ") after a successful cas", c1);
    rc = memcached_cas(mc, k, strlen(k), "v3", 2, 0, 3, c1);
    expect_rc("memcached_cas with a stale CAS", rc, MEMCACHED_DATA_EXISTS);
    expect_str(k, "v2", 2);
    /* Another writer in between makes the CAS stale too. */
    set_kv(k, "other", 5, 0, 4);
    rc = memcached_cas(mc, k, strlen(k), "v4", 2, 0, 5, c2);
    expect_rc("memcached_cas after another set", rc, MEMCACHED_DATA_EXISTS);
    expect_str(k, "other", 4);
    rc = memcached_cas(mc, K("cas-missing"), strlen(K("cas-missing")), "x", 1, 0, 0, c2);
    expect_rc("memcached_cas of a missing key", rc, MEMCACHED_NOTFOUND);
    expect_missing(K("cas-missing"));
    ok();
}

static void test_counters(void)
{
    check = "increment/decrement";
    const char *k = K("counter");
    uint64_t v = 0;
    memcached_return_t rc = memcached_increment(mc, k, strlen(k), 1, &v);
    expect_rc("memcached_increment of a missing key", rc, MEMCACHED_NOTFOUND);
    set_kv(k, "41", 2, 0, 0);
    rc = memcached_increment(mc, k, strlen(k), 1, &v);
    expect_rc("memcached_increment", rc, MEMCACHED_SUCCESS);
    if (v != 42)
        fail("41 + 1 = %" PRIu64, v);
    rc = memcached_decrement(mc, k, strlen(k), 50, &v);
    expect_rc("memcached_decrement", rc, MEMCACHED_SUCCESS);
    if (v != 0)
        fail("42 - 50 = %" PRIu64 ", expected 0 (decrement stops at 0)", v);
    set_kv(k, "18446744073709551615", 20, 0, 0);
    rc = memcached_increment(mc, k, strlen(k), 2, &v);
    expect_rc("memcached_increment past 2^64", rc, MEMCACHED_SUCCESS);
    if (v != 1)
        fail("2^64-1 + 2 = %" PRIu64 ", expected 1 (wraps)", v);
    /* The stored text may keep its length, space-padded, as memcached's
     * does; increment by 0 reads the number back. */
    rc = memcached_increment(mc, k, strlen(k), 0, &v);
    expect_rc("memcached_increment by 0", rc, MEMCACHED_SUCCESS);
    if (v != 1)
        fail("the counter reads %" PRIu64 " after the wrap, expected 1", v);
    ok();

    check = "increment of a non-numeric value fails and leaves it alone";
    set_kv(K("notnum"), "abc", 3, 0, 0);
    rc = memcached_increment(mc, K("notnum"), strlen(K("notnum")), 1, &v);
    /* As with memcached 1.6.18: text CLIENT_ERROR; libmemcached turns the
     * binary status DELTA_BADVAL (0x06) into UNKNOWN_READ_FAILURE. */
    expect_rc("memcached_increment of 'abc'", rc,
              binary ? MEMCACHED_UNKNOWN_READ_FAILURE : MEMCACHED_CLIENT_ERROR);
    /* The connection is still usable. */
    expect_str(K("notnum"), "abc", 0);
    ok();

    check = "increment with initial value (memcached_increment_with_initial)";
    const char *ki = K("initial");
    rc = memcached_increment_with_initial(mc, ki, strlen(ki), 5, 10, 0, &v);
    if (!binary) {
        /* libmemcached implements it only over the binary protocol. */
        if (rc == MEMCACHED_SUCCESS)
            fail("memcached_increment_with_initial succeeded over the text protocol");
        expect_missing(ki);
        printf("ok - %s: refused by libmemcached over text (%s), as documented\n", check,
               memcached_strerror(mc, rc));
        return;
    }
    expect_rc("memcached_increment_with_initial of a missing key", rc, MEMCACHED_SUCCESS);
    if (v != 10)
        fail("first increment_with_initial gave %" PRIu64 ", expected the initial 10", v);
    expect_str(ki, "10", 0);
    rc = memcached_increment_with_initial(mc, ki, strlen(ki), 5, 10, 0, &v);
    expect_rc("memcached_increment_with_initial of an existing key", rc, MEMCACHED_SUCCESS);
    if (v != 15)
        fail("second increment_with_initial gave %" PRIu64 ", expected 15", v);
    rc = memcached_decrement_with_initial(mc, ki, strlen(ki), 20, 99, 0, &v);
    expect_rc("memcached_decrement_with_initial", rc, MEMCACHED_SUCCESS);
    if (v != 0)
        fail("decrement_with_initial of 15 by 20 gave %" PRIu64 ", expected 0", v);
    rc = memcached_decrement_with_initial(mc, K("initial-d"), strlen(K("initial-d")), 3, 7, 0, &v);
    expect_rc("memcached_decrement_with_initial of a missing key", rc, MEMCACHED_SUCCESS);
    if (v != 7)
        fail("decrement_with_initial of a missing key gave %" PRIu64 ", expected 7", v);
    /* Expiration 0xffffffff: do not create the counter. */
    rc = memcached_increment_with_initial(mc, K("initial-no"), strlen(K("initial-no")), 1, 10,
                                          MEMCACHED_EXPIRATION_NOT_ADD, &v);
    expect_rc("memcached_increment_with_initial with MEMCACHED_EXPIRATION_NOT_ADD", rc,
              MEMCACHED_NOTFOUND);
    expect_missing(K("initial-no"));
    ok();
}

static void test_touch(void)
{
    check = "touch: existing key, missing key, past time expires";
    const char *k = K("touch");
    set_kv(k, "t", 1, 100, 6);
    memcached_return_t rc = memcached_touch(mc, k, strlen(k), 1000);
    expect_rc("memcached_touch of an existing key", rc, MEMCACHED_SUCCESS);
    expect_str(k, "t", 6);
    rc = memcached_touch(mc, K("touch-missing"), strlen(K("touch-missing")), 1000);
    expect_rc("memcached_touch of a missing key", rc, MEMCACHED_NOTFOUND);
    expect_missing(K("touch-missing"));
    /* An absolute time just past 30 days is in 1970: the item expires. */
    rc = memcached_touch(mc, k, strlen(k), 2592001);
    expect_rc("memcached_touch to a past absolute time", rc, MEMCACHED_SUCCESS);
    expect_missing(k);
    /* Left for the caller: a TTL of 5000 s, checked with `mg <key> t`. */
    set_kv(K("touched"), "keep", 4, 0, 8);
    rc = memcached_touch(mc, K("touched"), strlen(K("touched")), 5000);
    expect_rc("memcached_touch", rc, MEMCACHED_SUCCESS);
    expect_str(K("touched"), "keep", 8);
    ok();
}

static void test_delete(void)
{
    check = "delete: existing, then missing";
    const char *k = K("del");
    set_kv(k, "x", 1, 0, 0);
    memcached_return_t rc = memcached_delete(mc, k, strlen(k), 0);
    expect_rc("memcached_delete of an existing key", rc, MEMCACHED_SUCCESS);
    expect_missing(k);
    rc = memcached_delete(mc, k, strlen(k), 0);
    expect_rc("memcached_delete of a missing key", rc, MEMCACHED_NOTFOUND);
    ok();
}

static void test_append_prepend(void)
{
    check = "append/prepend: value grows, flags kept, missing key refused";
    const char *k = K("ap");
    set_kv(k, "middle", 6, 0, 77);
    memcached_return_t rc = memcached_append(mc, k, strlen(k), "-end", 4, 0, 0);
    expect_rc("memcached_append", rc, MEMCACHED_SUCCESS);
    rc = memcached_prepend(mc, k, strlen(k), "start-", 6, 0, 0);
    expect_rc("memcached_prepend", rc, MEMCACHED_SUCCESS);
    expect_str(k, "start-middle-end", 77);
    uint64_t c1 = cas_of(k);
    rc = memcached_append(mc, k, strlen(k), "!", 1, 0, 0);
    expect_rc("memcached_append", rc, MEMCACHED_SUCCESS);
    if (cas_of(k) == c1)
        fail("append did not change the CAS value");
    expect_str(k, "start-middle-end!", 77);
    rc = memcached_append(mc, K("ap-missing"), strlen(K("ap-missing")), "x", 1, 0, 0);
    expect_rc("memcached_append to a missing key", rc, MEMCACHED_NOTSTORED);
    rc = memcached_prepend(mc, K("ap-missing"), strlen(K("ap-missing")), "x", 1, 0, 0);
    expect_rc("memcached_prepend to a missing key", rc, MEMCACHED_NOTSTORED);
    expect_missing(K("ap-missing"));
    ok();
}

static void usage(void)
{
    fprintf(stderr,
            "usage: libmemcached_client [--binary] [--prefix P] [--timeout-ms N] HOST:PORT\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *server = NULL;
    long timeout_ms = 5000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--binary") == 0)
            binary = 1;
        else if (strcmp(argv[i], "--prefix") == 0 && i + 1 < argc)
            prefix = argv[++i];
        else if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc)
            timeout_ms = atol(argv[++i]);
        else if (argv[i][0] != '-' && server == NULL)
            server = argv[i];
        else
            usage();
    }
    if (server == NULL)
        usage();
    if (prefix == NULL)
        prefix = binary ? "lmc-bin-" : "lmc-text-";

    char host[256];
    const char *colon = strrchr(server, ':');
    if (colon == NULL || colon == server || (size_t)(colon - server) >= sizeof host)
        usage();
    memcpy(host, server, (size_t)(colon - server));
    host[colon - server] = '\0';
    int port = atoi(colon + 1);
    if (port <= 0 || port > 65535)
        usage();

    mc = memcached_create(NULL);
    if (mc == NULL)
        fail("memcached_create failed");
    expect_rc("memcached_behavior_set BINARY_PROTOCOL",
              memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_BINARY_PROTOCOL, (uint64_t)binary),
              MEMCACHED_SUCCESS);
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1);
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, (uint64_t)timeout_ms);
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, (uint64_t)timeout_ms);
    expect_rc("memcached_server_add", memcached_server_add(mc, host, (in_port_t)port),
              MEMCACHED_SUCCESS);

    check = "version";
    expect_rc("memcached_version", memcached_version(mc), MEMCACHED_SUCCESS);
    ok();

    test_set_get();
    test_mget();
    test_cas();
    test_counters();
    test_touch();
    test_delete();
    test_append_prepend();

    memcached_free(mc);
    printf("all checks passed (%s)\n", binary ? "binary" : "text");
    return 0;
}
