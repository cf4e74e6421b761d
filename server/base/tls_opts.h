/*
 * tls_opts: the TLS settings (memcached's -Z and its -o ssl_* names), their
 * parsing, and their lines in `stats settings`. No OpenSSL here: a build
 * without TLS parses and shows them the same way (and refuses -Z).
 */
#ifndef MCDS_TLS_OPTS_H
#define MCDS_TLS_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/stats.h"

struct tls_opts {
    bool enabled;           /* -Z, --enable-ssl: TCP listeners speak TLS */
    char *chain_cert;       /* ssl_chain_cert: certificate chain, PEM */
    char *key;              /* ssl_key: private key */
    int keyformat;          /* ssl_keyformat: 1 PEM, 2 DER (OpenSSL's numbers) */
    int verify_mode;        /* ssl_verify_mode: 0 none, 1 request, 2 require, 3 once */
    char *ciphers;          /* ssl_ciphers: OpenSSL cipher list (TLS 1.2 and below) */
    char *ca_cert;          /* ssl_ca_cert: CAs accepted for client certificates */
    size_t wbuf_size;       /* ssl_wbuf_size (KB on the command line): bytes per TLS write */
    bool session_cache;     /* ssl_session_cache: server-side session cache */
    bool kernel_tls;        /* ssl_kernel_tls: kernel TLS offload where available */
    int min_version;        /* ssl_min_version: 0 TLS 1.0 ... 3 TLS 1.3 (default 2) */
};

extern struct tls_opts tls_opts;

void tls_opts_init(void);
void tls_opts_free(void);
/* One -o name whose name starts with "ssl_": 0, or -1 for an unknown name
 * or a bad value. */
int tls_opts_parse(const char *name, size_t n, const char *val, bool has_val);
/* The 11 ssl_* lines of `stats settings`, in memcached 1.6.18's order. */
void tls_opts_stats(stats_emit_fn emit, void *ctx);
/* "tlsv1.0" ... "tlsv1.3" for ssl_min_version's values. */
const char *tls_opts_version_name(int v);

#endif
