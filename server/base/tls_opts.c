/*
 * tls_opts: memcached's -o ssl_* options and how `stats settings` shows
 * them. The values shown are memcached 1.6.18's: ssl_verify_mode is
 * OpenSSL's flag word (0, 1, 3, 7), ssl_wbuf_size is in bytes, a file not
 * given is "(null)" and a list not given "NULL".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/settings.h"
#include "base/tls_opts.h"

#define TLS_OPTS_WBUF_DEFAULT 16384
#define TLS_OPTS_WBUF_MAX_KB 1024
#define TLS_OPTS_WBUF_USED_MAX 16384    /* one TLS record: more gains nothing */

struct tls_opts tls_opts;

/* OpenSSL's SSL_VERIFY_* words for memcached's modes 0..3. */
static const int tls_opts_verify_flags[] = { 0, 1, 3, 7 };

static const char *const tls_opts_versions[] = { "tlsv1.0", "tlsv1.1", "tlsv1.2", "tlsv1.3" };

void tls_opts_init(void) {
    tls_opts_free();
    memset(&tls_opts, 0, sizeof(tls_opts));
    tls_opts.keyformat = 1;
    tls_opts.wbuf_size = TLS_OPTS_WBUF_DEFAULT;
    tls_opts.min_version = 2;
}

void tls_opts_free(void) {
    free(tls_opts.chain_cert);
    free(tls_opts.key);
    free(tls_opts.ciphers);
    free(tls_opts.ca_cert);
    tls_opts.chain_cert = tls_opts.key = tls_opts.ciphers = tls_opts.ca_cert = NULL;
}

const char *tls_opts_version_name(int v) {
    return v >= 0 && v <= 3 ? tls_opts_versions[v] : "unknown";
}

/* A whole number in [min, max]. */
static int tls_opts_int(const char *val, long min, long max, int *out) {
    long v;

    if (settings_number(val, min, max, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int tls_opts_str(char **field, const char *val) {
    if (*val == '\0')
        return -1;
    free(*field);
    *field = strdup(val);
    return *field != NULL ? 0 : -1;
}

static bool tls_opts_is(const char *name, size_t n, const char *want) {
    return strlen(want) == n && strncmp(name, want, n) == 0;
}

int tls_opts_parse(const char *name, size_t n, const char *val, bool has_val) {
    int kb;

    if (tls_opts_is(name, n, "ssl_session_cache") && !has_val) {
        tls_opts.session_cache = true;
        return 0;
    }
    if (tls_opts_is(name, n, "ssl_kernel_tls") && !has_val) {
        tls_opts.kernel_tls = true;
        return 0;
    }
    if (!has_val)
        return -1;
    if (tls_opts_is(name, n, "ssl_chain_cert"))
        return tls_opts_str(&tls_opts.chain_cert, val);
    if (tls_opts_is(name, n, "ssl_key"))
        return tls_opts_str(&tls_opts.key, val);
    if (tls_opts_is(name, n, "ssl_ca_cert"))
        return tls_opts_str(&tls_opts.ca_cert, val);
    if (tls_opts_is(name, n, "ssl_ciphers"))
        return tls_opts_str(&tls_opts.ciphers, val);
    if (tls_opts_is(name, n, "ssl_keyformat"))
        return tls_opts_int(val, 1, 2, &tls_opts.keyformat);
    if (tls_opts_is(name, n, "ssl_verify_mode"))
        return tls_opts_int(val, 0, 3, &tls_opts.verify_mode);
    if (tls_opts_is(name, n, "ssl_min_version"))
        return tls_opts_int(val, 0, 3, &tls_opts.min_version);
    if (tls_opts_is(name, n, "ssl_wbuf_size")) {
        if (tls_opts_int(val, 1, TLS_OPTS_WBUF_MAX_KB, &kb) < 0)
            return -1;
        tls_opts.wbuf_size = (size_t)kb * 1024;
        if (tls_opts.wbuf_size > TLS_OPTS_WBUF_USED_MAX)
            tls_opts.wbuf_size = TLS_OPTS_WBUF_USED_MAX;
        return 0;
    }
    return -1;
}

void tls_opts_stats(stats_emit_fn emit, void *ctx) {
    char buf[32];

    emit(ctx, "ssl_enabled", tls_opts.enabled ? "yes" : "no");
    emit(ctx, "ssl_chain_cert", tls_opts.chain_cert != NULL ? tls_opts.chain_cert : "(null)");
    emit(ctx, "ssl_key", tls_opts.key != NULL ? tls_opts.key : "(null)");
    snprintf(buf, sizeof(buf), "%d", tls_opts_verify_flags[tls_opts.verify_mode]);
    emit(ctx, "ssl_verify_mode", buf);
    snprintf(buf, sizeof(buf), "%d", tls_opts.keyformat);
    emit(ctx, "ssl_keyformat", buf);
    emit(ctx, "ssl_ciphers", tls_opts.ciphers != NULL ? tls_opts.ciphers : "NULL");
    emit(ctx, "ssl_ca_cert", tls_opts.ca_cert != NULL ? tls_opts.ca_cert : "NULL");
    snprintf(buf, sizeof(buf), "%zu", tls_opts.wbuf_size);
    emit(ctx, "ssl_wbuf_size", buf);
    emit(ctx, "ssl_session_cache", tls_opts.session_cache ? "yes" : "no");
    emit(ctx, "ssl_kernel_tls", tls_opts.kernel_tls ? "yes" : "no");
    emit(ctx, "ssl_min_version", tls_opts_version_name(tls_opts.min_version));
}
