/*
 * tls: the OpenSSL side of TLS connections.
 *
 * The server context is built whole from tls_opts (certificate chain, key,
 * CA list, verification mode, ciphers, minimum version, session cache,
 * kernel offload) and only ever replaced whole: refresh_certs builds a new
 * one and swaps it in under tls_lock, so a file that fails to load leaves
 * the old context serving. Sessions hold a reference to the context they
 * were made from.
 *
 * Reads and writes are non-blocking and run the handshake as they go:
 *  - tls_read stops only when the session holds no byte, decrypted or
 *    not (OpenSSL reads no further than the record it decrypts), or the
 *    buffer is full: after a short read whatever is left is in the socket,
 *    whose event will come, so conn.c's "drained" rule holds and no byte
 *    waits in the session for an event that will not come;
 *  - tls_writev gathers queued output into records of ssl_wbuf_size bytes
 *    (from the item itself when one segment is long enough). A write that
 *    could not finish is repeated with the same bytes, which stay at the
 *    front of the connection's queue until written; the queue's own limits
 *    (--conn-output-max) bound what a slow reader holds;
 *  - a read that needs to write, or a write that needs to read, asks for
 *    that event through tls_events.
 */
#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "net/conn.h"
#include "base/log.h"
#include "net/tls.h"
#include "base/tls_opts.h"

#define TLS_MSG_MAX 512
#define TLS_WBUF_MAX 16384                  /* ssl_wbuf_size's ceiling (tls_opts.c) */
#define TLS_SESSION_ID "mcds"

struct tls_conn {
    SSL *ssl;
    size_t retry;           /* bytes of an unfinished SSL_write, to repeat */
    short read_wants;       /* EV_WRITE: a read needs the socket writable */
    short write_wants;      /* EV_READ: a write needs the socket readable */
    bool failed;            /* a fatal error: no close_notify */
    bool eof;               /* the client's close_notify arrived */
};

static pthread_mutex_t tls_lock = PTHREAD_MUTEX_INITIALIZER;
static SSL_CTX *tls_ctx;                    /* under tls_lock */
static rel_time_t tls_refreshed;            /* when the files were last loaded */
static uint64_t tls_handshake_errors;       /* atomic */

/* Where a record is gathered from several small segments. */
static __thread char tls_wbuf[TLS_WBUF_MAX];

static const int tls_versions[] = { TLS1_VERSION, TLS1_1_VERSION, TLS1_2_VERSION, TLS1_3_VERSION };
static const int tls_verify_flags[] = {
    SSL_VERIFY_NONE,
    SSL_VERIFY_PEER,
    SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
    SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT | SSL_VERIFY_CLIENT_ONCE,
};

bool tls_built(void) {
    return true;
}

/* OpenSSL's first queued error as text (the queue is emptied). */
static void tls_error_text(char *buf, size_t len) {
    unsigned long e = ERR_get_error();

    if (e != 0)
        ERR_error_string_n(e, buf, len);
    else
        snprintf(buf, len, "%s", errno != 0 ? strerror(errno) : "unknown error");
    ERR_clear_error();
}

/* Loads the certificate chain, key and CA list; memcached's message on
 * failure. */
static int tls_ctx_load(SSL_CTX *ctx, char *msg, size_t len) {
    const char *key = tls_opts.key != NULL ? tls_opts.key : tls_opts.chain_cert;
    char err[256];

    if (!SSL_CTX_use_certificate_chain_file(ctx, tls_opts.chain_cert)) {
        tls_error_text(err, sizeof(err));
        snprintf(msg, len, "Error loading the certificate chain: %s : %s", tls_opts.chain_cert, err);
    } else if (!SSL_CTX_use_PrivateKey_file(ctx, key, tls_opts.keyformat)) {
        tls_error_text(err, sizeof(err));
        snprintf(msg, len, "Error loading the key: %s : %s", key, err);
    } else if (!SSL_CTX_check_private_key(ctx)) {
        tls_error_text(err, sizeof(err));
        snprintf(msg, len, "Error validating the certificate: %s", err);
    } else if (tls_opts.ca_cert != NULL && !SSL_CTX_load_verify_locations(ctx, tls_opts.ca_cert, NULL)) {
        tls_error_text(err, sizeof(err));
        snprintf(msg, len, "Error loading the CA certificate: %s : %s", tls_opts.ca_cert, err);
    } else {
        if (tls_opts.ca_cert != NULL) {
            STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(tls_opts.ca_cert);
            if (names != NULL)
                SSL_CTX_set_client_CA_list(ctx, names);
        }
        return 0;
    }
    return -1;
}

/* The session cache, kernel offload and fixed modes. */
static int tls_ctx_modes(SSL_CTX *ctx, char *msg, size_t len) {
    if (tls_opts.session_cache) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_set_session_id_context(ctx, (const unsigned char *)TLS_SESSION_ID, strlen(TLS_SESSION_ID));
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    if (tls_opts.kernel_tls) {
#ifdef SSL_OP_ENABLE_KTLS
        SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS);
#else
        snprintf(msg, len, "Kernel TLS offload is not available");
        return -1;
#endif
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);  /* a hang-up is an end, not an error */
#endif
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return 0;
}

/* A complete server context from tls_opts, or NULL with msg set. */
static SSL_CTX *tls_ctx_build(char *msg, size_t len) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    char err[256];

    if (ctx == NULL) {
        tls_error_text(err, sizeof(err));
        snprintf(msg, len, "Error creating the TLS context: %s", err);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, tls_versions[tls_opts.min_version]);
    if (tls_ctx_load(ctx, msg, len) < 0 || tls_ctx_modes(ctx, msg, len) < 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, tls_verify_flags[tls_opts.verify_mode], NULL);
    if (tls_opts.ciphers != NULL && !SSL_CTX_set_cipher_list(ctx, tls_opts.ciphers)) {
        snprintf(msg, len, "Error setting the provided cipher(s): %s", tls_opts.ciphers);
        ERR_clear_error();
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* The `stats` lines memcached shows with TLS on. */
static void tls_stats(stats_emit_fn emit, void *ctx) {
    char buf[32];
    rel_time_t refreshed;

    if (!tls_opts.enabled)
        return;
    snprintf(buf, sizeof(buf), "%llu",
             (unsigned long long)__atomic_load_n(&tls_handshake_errors, __ATOMIC_RELAXED));
    emit(ctx, "ssl_handshake_errors", buf);
    pthread_mutex_lock(&tls_lock);
    refreshed = tls_refreshed;
    pthread_mutex_unlock(&tls_lock);
    snprintf(buf, sizeof(buf), "%u", (unsigned)(clock_now() - refreshed));
    emit(ctx, "time_since_server_cert_refresh", buf);
}

static const struct stats_provider tls_stats_provider = { "tls", STATS_PLACE_TLS, 0, tls_stats };

int tls_init(void) {
    char msg[TLS_MSG_MAX];

    if (!tls_opts.enabled)
        return 0;
    stats_provide(&tls_stats_provider);
    tls_ctx = tls_ctx_build(msg, sizeof(msg));
    if (tls_ctx == NULL) {
        log_msg(0, "TLS: %s", msg);
        return -1;
    }
    tls_refreshed = clock_now();
    return 0;
}

void tls_free(void) {
    SSL_CTX_free(tls_ctx);
    tls_ctx = NULL;
}

int tls_refresh(char *msg, size_t len) {
    SSL_CTX *ctx, *old;

    if (!tls_opts.enabled) {
        snprintf(msg, len, "Error TLS not enabled");
        return -1;
    }
    ctx = tls_ctx_build(msg, len);
    if (ctx == NULL)
        return -1;
    pthread_mutex_lock(&tls_lock);
    old = tls_ctx;
    tls_ctx = ctx;
    tls_refreshed = clock_now();
    pthread_mutex_unlock(&tls_lock);
    SSL_CTX_free(old);      /* sessions made from it keep their reference */
    log_msg(1, "TLS: certificates reloaded");
    return 0;
}

struct tls_conn *tls_conn_new(int fd) {
    struct tls_conn *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    pthread_mutex_lock(&tls_lock);
    t->ssl = tls_ctx != NULL ? SSL_new(tls_ctx) : NULL;
    pthread_mutex_unlock(&tls_lock);
    if (t->ssl == NULL || !SSL_set_fd(t->ssl, fd)) {
        SSL_free(t->ssl);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(t->ssl);
    return t;
}

void *tls_conn_take(struct tls_conn *t) {
    SSL *ssl = t->ssl;

    t->ssl = NULL;
    t->failed = true;
    return ssl;
}

void tls_conn_free(struct tls_conn *t) {
    if (t->ssl != NULL && !t->failed && SSL_is_init_finished(t->ssl))
        SSL_shutdown(t->ssl);
    SSL_free(t->ssl);
    ERR_clear_error();
    free(t);
}

short tls_events(const struct tls_conn *t) {
    return (short)(t->read_wants | t->write_wants);
}

/* A fatal error on c's session: counted when the handshake had not
 * finished, logged, and the connection is to close. */
static ssize_t tls_fail(conn *c, int ssl_err) {
    struct tls_conn *t = c->tls;
    char err[256];

    t->failed = true;
    tls_error_text(err, sizeof(err));
    if (!SSL_is_init_finished(t->ssl)) {
        __atomic_fetch_add(&tls_handshake_errors, 1, __ATOMIC_RELAXED);
        log_msg(1, "<%d TLS handshake failed: %s", c->fd, err);
    } else {
        log_msg(1, "<%d TLS error %d: %s", c->fd, ssl_err, err);
    }
    errno = ECONNRESET;
    return -1;
}

/* What an SSL call that returned r <= 0 means: 0 to wait (the event it
 * needs goes into *wants), 1 at the end of the stream, -1 fatal. */
static int tls_outcome(struct tls_conn *t, int r, short *wants) {
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ: *wants = EV_READ; return 0;
    case SSL_ERROR_WANT_WRITE: *wants = EV_WRITE; return 0;
    case SSL_ERROR_ZERO_RETURN: return 1;
    case SSL_ERROR_SYSCALL:
        return errno == 0 ? 1 : -1;     /* 0: the peer closed the socket */
    default: return -1;
    }
}

ssize_t tls_read(conn *c, char *buf, size_t n) {
    struct tls_conn *t = c->tls;
    size_t got = 0;
    short wants = 0;
    int how = 0, r = 1;

    t->read_wants = 0;
    if (t->ssl == NULL) {
        errno = EPIPE;      /* the session was taken (tls_conn_take) */
        return -1;
    }
    if (t->eof)
        return 0;
    while (got < n) {
        int want = n - got > INT_MAX ? INT_MAX : (int)(n - got);
        ERR_clear_error();
        errno = 0;
        r = SSL_read(t->ssl, buf + got, want);
        if (r > 0) {
            got += (size_t)r;
            if (!SSL_has_pending(t->ssl))
                break;      /* the rest, if any, is in the socket: its event comes */
            continue;
        }
        how = tls_outcome(t, r, &wants);
        break;
    }
    if (how < 0)
        return tls_fail(c, SSL_get_error(t->ssl, r));
    if (wants == EV_WRITE)
        t->read_wants = EV_WRITE;
    if (how > 0) {
        t->eof = true;
        if (got > 0)
            event_active(c->ev, EV_READ, 0);    /* the end is read next, at once */
        return (ssize_t)got;
    }
    if (got == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)got;
}

/* The next len bytes of iov from (i, off): in place when one segment
 * holds them, else copied into tls_wbuf. NULL if iov holds fewer. */
static const char *tls_gather(const struct iovec *iov, int n, int i, size_t off, size_t len) {
    size_t have = 0;

    if (i < n && iov[i].iov_len - off >= len)
        return (const char *)iov[i].iov_base + off;
    while (i < n && have < len) {
        size_t part = iov[i].iov_len - off;
        if (part > len - have)
            part = len - have;
        memcpy(tls_wbuf + have, (const char *)iov[i].iov_base + off, part);
        have += part;
        i++;
        off = 0;
    }
    return have == len ? tls_wbuf : NULL;
}

static size_t tls_iov_left(const struct iovec *iov, int n, int i, size_t off) {
    size_t left = 0;

    for (; i < n; i++, off = 0)
        left += iov[i].iov_len - off;
    return left;
}

ssize_t tls_writev(conn *c, const struct iovec *iov, int n) {
    struct tls_conn *t = c->tls;
    size_t done = 0, off = 0;
    int i = 0;

    t->write_wants = 0;
    if (t->ssl == NULL) {
        errno = EPIPE;      /* the session was taken (tls_conn_take) */
        return -1;
    }
    for (;;) {
        size_t left = tls_iov_left(iov, n, i, off);
        size_t len = t->retry != 0 ? t->retry : left < tls_opts.wbuf_size ? left : tls_opts.wbuf_size;
        const char *src;
        short wants = 0;
        int r, how;

        if (len == 0)
            break;
        src = tls_gather(iov, n, i, off, len);
        if (src == NULL) {
            log_msg(0, "<%d TLS: the bytes of an unfinished write are gone", c->fd);
            return tls_fail(c, SSL_ERROR_SSL);
        }
        ERR_clear_error();
        errno = 0;
        r = SSL_write(t->ssl, src, (int)len);
        if (r <= 0) {
            how = tls_outcome(t, r, &wants);
            if (how != 0)
                return tls_fail(c, SSL_get_error(t->ssl, r));
            t->retry = len;
            t->write_wants = wants == EV_READ ? EV_READ : 0;
            c->out_sent = true;     /* these bytes are promised to the session */
            break;
        }
        t->retry = 0;
        done += (size_t)r;
        for (len = (size_t)r; len > 0;) {
            size_t part = iov[i].iov_len - off;
            if (part > len) {
                off += len;
                break;
            }
            len -= part;
            i++;
            off = 0;
        }
    }
    if (done > 0)
        return (ssize_t)done;
    errno = EAGAIN;
    return -1;
}

