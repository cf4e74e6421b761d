/*
 * repl/replica: the link thread of a replica: connect (TLS with
 * --primary-tls), psync, the frames of the stream, batches applied under a
 * hold of every thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/quiesce.h"
#include "base/settings.h"
#include "cache/lru.h"
#include "persist/persist.h"
#include "repl/fullsync.h"
#include "repl/lineage.h"
#include "repl/link_tls.h"
#include "repl/replica.h"
#include "repl/repl.h"
#include "repl/stream.h"
#include "store/store.h"

#define REPLICA_BACKOFF_MAX_MS 30000
#define REPLICA_ACK_MS 500      /* REPLACK at least this often (the primary's timeout counts from it) */
#define REPLICA_HOLD_MS 200
#define REPLICA_AUTH_MAX 1000    /* a user:password line (the token limit is 1024) */
#define REPLICA_HOLD_RETRY_US 1000  /* a hold that fails is tried again (a promotion waits for it) */
#define REPLICA_FRAME_MAX (2ULL * 1024 * 1024 * 1024)   /* a frame is a chunk, or one record (at most 1 GB and its fields) */
#define REPLICA_CONNECT_MS 5000     /* a connect, and a TLS handshake, at most */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    bool running;
    bool stop;                  /* atomic */
    int fd;                     /* the link's socket, -1 none (under lock) */
    char host[REPL_HOST_MAX];
    int port;
    const char *link;           /* connecting, sync, up, down */
    bool up;                    /* atomic: link is "up" */
    uint64_t primary_pos;       /* atomic: the primary's written log end, as it last said */
    uint64_t caught_up_ms;      /* atomic: when the replica last had all of it (monotonic) */
    uint64_t applied;
    uint64_t full_syncs, partial_syncs;
} replica = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .fd = -1, .link = "down" };

static int replica_timeout_ms(void) {
    return settings.repl_timeout * 1000;
}

static void replica_set_link(const char *link) {
    pthread_mutex_lock(&replica.lock);
    replica.link = link;
    __atomic_store_n(&replica.up, strcmp(link, "up") == 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&replica.lock);
}

/* Monotonic milliseconds: how long a replica has been behind. */
static uint64_t replica_now_ms(void) {
    return clock_mono_us() / 1000;
}

bool replica_link_up(void) {
    return __atomic_load_n(&replica.up, __ATOMIC_ACQUIRE);
}

static bool replica_stopping(void) {
    return __atomic_load_n(&replica.stop, __ATOMIC_ACQUIRE);
}

/* ---- connecting ---- */

/* Waits up to ms for connect on fd: 0 or -1. */
static int replica_connect_wait(int fd, int ms) {
    struct pollfd p = { fd, POLLOUT, 0 };
    socklen_t len = sizeof(int);
    int err = 0;

    if (poll(&p, 1, ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0)
        return -1;
    return 0;
}

static int replica_connect(void) {
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *a;
    char port[16];
    int fd = -1, one = 1;

    snprintf(port, sizeof(port), "%d", replica.port);
    if (getaddrinfo(replica.host, port, &hints, &ai) != 0)
        return -1;
    for (a = ai; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if ((connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) ||
            replica_connect_wait(fd, REPLICA_CONNECT_MS) < 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* ---- applying ---- */

/* Applies the records of one LOG frame, every keyspace thread held: 0 or -1. */
static int replica_apply(const uint8_t *p, size_t n) {
    uint64_t records = 0;
    int rc;

    while (quiesce_hold(REPLICA_HOLD_MS) < 0) {
        if (replica_stopping())
            return -1;
        usleep(REPLICA_HOLD_RETRY_US);
    }
    store_set_restoring(true);      /* no TTL ends a key, -m holds nothing back: as a restart */
    rc = persist_follow_apply(p, n, &records);
    store_set_restoring(false);
    quiesce_release();
    if (rc == 0)
        rc = persist_flush_to(persist_position());
    pthread_mutex_lock(&replica.lock);
    replica.applied += records;
    pthread_mutex_unlock(&replica.lock);
    return rc;
}

static void replica_note_primary(uint64_t pos) {
    pthread_mutex_lock(&replica.lock);
    __atomic_store_n(&replica.primary_pos, pos, __ATOMIC_RELEASE);
    if (persist_position() >= pos)
        __atomic_store_n(&replica.caught_up_ms, replica_now_ms(), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&replica.lock);
}

bool replica_behind_for(unsigned secs) {
    uint64_t primary = __atomic_load_n(&replica.primary_pos, __ATOMIC_ACQUIRE);
    uint64_t since = __atomic_load_n(&replica.caught_up_ms, __ATOMIC_ACQUIRE);

    return persist_position() < primary && replica_now_ms() - since > (uint64_t)secs * 1000;
}

/* The frames in the buffer: 1 when a batch was applied, 0 when a frame
 * waits for more bytes, -1 on a bad frame. *want: bytes of a LOG frame
 * being waited for (0: a line). */
static int replica_frames(struct stream_in *in, size_t *want) {
    unsigned long long a, b;
    int applied = 0;
    char *line;
    bool bad;

    for (;;) {
        if (*want > 0) {
            const uint8_t *p = stream_in_block(in, *want);
            if (p == NULL)
                return applied;
            if (replica_apply(p, *want) < 0)
                return -1;
            *want = 0;
            applied = 1;
            continue;
        }
        if ((line = stream_in_line(in, &bad)) == NULL)
            return bad ? -1 : applied;
        if (sscanf(line, "LOG %llu", &a) == 1 && a > 0 && a <= REPLICA_FRAME_MAX)
            *want = (size_t)a;
        else if (sscanf(line, "PING %llu %llu", &a, &b) == 2)
            replica_note_primary(a);
        else {
            log_msg(0, "replication: the primary sent '%.40s' in its stream", line);
            return -1;
        }
    }
}

static int replica_ack(const struct stream_sock *s) {
    return stream_printf(s, replica_timeout_ms(), "REPLACK %llu\r\n", (unsigned long long)persist_position());
}

/* The stream, until it fails or the link stops. */
static void replica_stream(struct stream_in *in) {
    uint64_t heard = stream_now_ms(), acked = 0;
    size_t want = 0;

    replica_set_link("up");
    while (!replica_stopping()) {
        int rc = replica_frames(in, &want);
        uint64_t now = stream_now_ms();
        ssize_t r;
        if (rc < 0)
            return;
        if ((rc > 0 || now - acked >= REPLICA_ACK_MS) && replica_ack(&in->sock) < 0)
            return;
        if (rc > 0 || now - acked >= REPLICA_ACK_MS)
            acked = now;
        r = stream_in_fill(in, 100);
        if (r == 0 || r == -1)
            return;
        if (r > 0)
            heard = stream_now_ms();
        else if (stream_now_ms() - heard > (uint64_t)replica_timeout_ms())
            return;
    }
}

/* ---- the session ---- */

/* The primary's next line (waiting up to --repl-timeout), or NULL. */
static char *replica_read_line(struct stream_in *in) {
    char *line;
    bool bad = false;
    ssize_t r = 1;

    while ((line = stream_in_line(in, &bad)) == NULL && !bad && !replica_stopping() && r != 0 && r != -1)
        r = stream_in_fill(in, replica_timeout_ms());
    return line;
}

/* The first line of --primary-auth-file as "<user> <password>" into
 * cred: 0, or -1 (logged). */
static int replica_auth_read(char *cred, size_t n) {
    FILE *f = fopen(settings.primary_auth_file, "r");
    char *colon;
    int rc = -1;

    if (f == NULL || fgets(cred, (int)n, f) == NULL) {
        log_msg(0, "replication: --primary-auth-file %s cannot be read", settings.primary_auth_file);
    } else {
        cred[strcspn(cred, "\r\n")] = '\0';
        colon = strchr(cred, ':');
        if (colon == NULL || colon == cred) {
            log_msg(0, "replication: the first line of --primary-auth-file %s is not user:password",
                    settings.primary_auth_file);
        } else {
            *colon = ' ';
            rc = 0;
        }
    }
    if (f != NULL)
        fclose(f);
    return rc;
}

/* With --primary-auth-file: logs in to a primary started with -Y as the
 * file's first "user:password" line, as a text client does (doc/protocol.md,
 * "Authentication"): 0, or -1 (logged). Read at each connection, so that
 * a changed file takes effect at the next one. */
static int replica_auth(struct stream_in *in) {
    char cred[REPLICA_AUTH_MAX], *reply;
    int rc = -1;

    if (settings.primary_auth_file == NULL)
        return 0;
    if (replica_auth_read(cred, sizeof(cred)) == 0 &&
        stream_printf(&in->sock, replica_timeout_ms(), "set auth 0 0 %zu\r\n%s\r\n", strlen(cred), cred) == 0 &&
        (reply = replica_read_line(in)) != NULL) {
        rc = strcmp(reply, "STORED") == 0 ? 0 : -1;
        if (rc < 0)
            log_msg(0, "replication: the primary refused the credentials of --primary-auth-file: '%.80s'", reply);
    }
    explicit_bzero(cred, sizeof(cred));
    return rc;
}

/* One connection: psync, then a partial stream or a full resync. 0 when
 * it got as far as streaming (the next wait starts short again). */
static int replica_session(const struct stream_sock *s) {
    struct lineage l;
    struct stream_in in;
    char id[64], primary[REPL_HOST_MAX + 8], *line = NULL;
    unsigned long long pos = 0, bytes = 0;
    int rc = -1;

    repl_lineage(&l);
    stream_in_init(&in, s);
    if (replica_auth(&in) < 0 ||
        stream_printf(s, replica_timeout_ms(), "psync %s %llu\r\n", l.id[0] ? l.id : "?",
                      (unsigned long long)persist_position()) < 0)
        goto out;
    repl_primary_name(primary, sizeof(primary));
    if ((line = replica_read_line(&in)) == NULL) {
        if (!replica_stopping())
            log_msg(0, "replication: %s ended the link without answering psync%s%s", primary,
                    s->tls != NULL ? "; TLS: " : " (a TLS port? see --primary-tls)",
                    s->tls != NULL ? link_tls_failure(s->tls) : "");
        goto out;
    }
    if (sscanf(line, "CONTINUE %63s %llu", id, &pos) == 2 && pos == persist_position() &&
        lineage_valid_id(id, strlen(id))) {
        if (strcmp(id, l.id) != 0) {
            struct lineage nl = { .start = pos };
            snprintf(nl.id, sizeof(nl.id), "%s", id);
            repl_take_lineage(&nl);
        }
        pthread_mutex_lock(&replica.lock);
        replica.partial_syncs++;
        pthread_mutex_unlock(&replica.lock);
        log_msg(0, "replication: following %s from %llu (partial resync)", primary, pos);
        rc = 0;
        replica_stream(&in);
    } else if (sscanf(line, "FULLSYNC %63s %llu %llu", id, &pos, &bytes) == 3 && lineage_valid_id(id, strlen(id))) {
        char n[24];
        replica_set_link("sync");
        snprintf(n, sizeof(n), "%llu", (unsigned long long)replica.full_syncs + 1);
        setenv("MCDS_REPL_FULLSYNCS", n, 1);      /* the count outlives the restart */
        log_msg(0, "replication: full resync from %s: snapshot at %llu, %llu bytes", primary, pos, bytes);
        fullsync_install(&in, primary, id, pos, bytes, &replica.stop);
    } else {
        log_msg(0, "replication: %s answered psync with '%.80s'", primary, line);
    }
out:
    stream_in_free(&in);
    return rc;
}

/* Waits ms unless the link stops first. */
static void replica_sleep(unsigned ms) {
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&replica.lock);
    while (!replica_stopping() && pthread_cond_timedwait(&replica.cond, &replica.lock, &until) == 0)
        ;
    pthread_mutex_unlock(&replica.lock);
}

/* One connection to the primary, TLS with --primary-tls: 0 when it got
 * as far as streaming. */
static int replica_link(int fd) {
    struct stream_sock s = { fd, NULL };
    int rc = -1;

    pthread_mutex_lock(&replica.lock);
    replica.fd = fd;
    pthread_mutex_unlock(&replica.lock);
    if (!settings.primary_tls || (s.tls = link_tls_connect(fd, replica.host, replica.port, REPLICA_CONNECT_MS)) != NULL)
        rc = replica_session(&s);
    pthread_mutex_lock(&replica.lock);
    replica.fd = -1;
    pthread_mutex_unlock(&replica.lock);
    if (s.tls != NULL)
        link_tls_free(s.tls);
    close(fd);
    return rc;
}

static void *replica_main(void *arg) {
    unsigned backoff = 1000;
    int fd;

    (void)arg;
    while (!replica_stopping()) {
        replica_set_link("connecting");
        fd = replica_connect();
        if (fd >= 0 && replica_link(fd) == 0)
            backoff = 1000;
        replica_set_link("down");
        if (!replica_stopping())
            replica_sleep(backoff);
        backoff = backoff * 2 > REPLICA_BACKOFF_MAX_MS ? REPLICA_BACKOFF_MAX_MS : backoff * 2;
    }
    lru_thread_end();       /* the segments the applied values went into */
    return NULL;
}

int replica_start(const char *host, int port) {
    snprintf(replica.host, sizeof(replica.host), "%s", host);
    replica.port = port;
    __atomic_store_n(&replica.caught_up_ms, replica_now_ms(), __ATOMIC_RELEASE);
    if (getenv("MCDS_REPL_FULLSYNCS") != NULL)
        replica.full_syncs = strtoull(getenv("MCDS_REPL_FULLSYNCS"), NULL, 10);
    __atomic_store_n(&replica.stop, false, __ATOMIC_RELEASE);
    if (pthread_create(&replica.thread, NULL, replica_main, NULL) != 0)
        return -1;
    replica.running = true;
    return 0;
}

void replica_stop(void) {
    if (!replica.running)
        return;
    pthread_mutex_lock(&replica.lock);
    __atomic_store_n(&replica.stop, true, __ATOMIC_RELEASE);
    if (replica.fd >= 0)
        shutdown(replica.fd, SHUT_RDWR);
    pthread_cond_broadcast(&replica.cond);
    pthread_mutex_unlock(&replica.lock);
    pthread_join(replica.thread, NULL);
    replica.running = false;
    replica_set_link("down");
}

void replica_stats(stats_emit_fn emit, void *ctx) {
    uint64_t pos = persist_position(), now = replica_now_ms(), skipped, quarantined;

    persist_follow_skipped(&skipped, &quarantined);

    pthread_mutex_lock(&replica.lock);
    emit(ctx, "repl_link", replica.link);
    stats_emit_u64(emit, ctx, "repl_primary_position", replica.primary_pos);
    stats_emit_u64(emit, ctx, "repl_lag_bytes", replica.primary_pos > pos ? replica.primary_pos - pos : 0);
    stats_emit_u64(emit, ctx, "repl_lag_seconds",
                   replica.primary_pos <= pos ? 0 : (now - replica.caught_up_ms) / 1000);
    stats_emit_u64(emit, ctx, "repl_records_applied", replica.applied);
    stats_emit_u64(emit, ctx, "repl_records_skipped", skipped);
    stats_emit_u64(emit, ctx, "repl_keys_quarantined", quarantined);
    stats_emit_u64(emit, ctx, "repl_full_syncs", replica.full_syncs);
    stats_emit_u64(emit, ctx, "repl_partial_syncs", replica.partial_syncs);
    pthread_mutex_unlock(&replica.lock);
}
