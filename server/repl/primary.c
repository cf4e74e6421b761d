/*
 * repl/primary: one sender thread per replica, in a list for `stats`,
 * synchronous acknowledgement and shutdown. Finished senders are joined
 * when the next replica comes, or at shutdown. A sender that has sent
 * everything sleeps in poll() on its socket (REPLACKs) and on an eventfd
 * that each write of the log signals (primary_log_written), at most until
 * its next PING.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/settings.h"
#include "persist/files.h"
#include "persist/persist.h"
#include "repl/lineage.h"
#include "repl/link_tls.h"
#include "repl/primary.h"
#include "repl/repl.h"
#include "repl/stream.h"
#include "repl/sync.h"

#define PRIMARY_CHECKPOINTS 64      /* frames remembered for the lag in records */
#define PRIMARY_LINGER_US 1000      /* asynchronous: the log gathers this long before the next frame */

struct primary_peer {
    struct stream_sock sock;            /* the socket, and its TLS session if any */
    char addr[64];
    char lineage[LINEAGE_ID_LEN + 1];   /* what it asked for; "" none */
    uint64_t asked;
    pthread_t thread;
    int wake_fd;                        /* eventfd: the log was written further */
    int wake_pending;                   /* atomic: wake_fd was signalled and not read */
    bool stop, done;                    /* atomics */
    const char *state;                  /* "sync", "up" (under primary.lock) */
    uint64_t sent, acked, ack_ms;       /* positions; time of the last REPLACK */
    uint64_t sent_records, acked_records;
    struct { uint64_t end, records; } cp[PRIMARY_CHECKPOINTS];
    unsigned ncp;
    struct primary_peer *next;
};

static struct {
    pthread_mutex_t lock;
    struct primary_peer *peers;
    int live;                           /* atomic: senders not done */
} primary = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int primary_timeout_ms(void) {
    return settings.repl_timeout * 1000;
}

/* ---- the first answer ---- */

/* The newest complete snapshot of the data directory, opened: its fd
 * (*lsn, *size), or -1 when there is none. */
static int primary_open_snapshot(uint64_t *lsn, uint64_t *size) {
    struct persist_files *f = malloc(sizeof(*f));
    char path[PATH_MAX + 40];
    struct stat st;
    int fd = -1;

    if (f != NULL && files_list(settings.data_dir, f, false) == 0 && f->nsnaps > 0) {
        *lsn = f->snaps[f->nsnaps - 1];
        files_path(path, sizeof(path), settings.data_dir, "snap", *lsn);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && fstat(fd, &st) == 0) {
            *size = (uint64_t)st.st_size;
        } else if (fd >= 0) {
            close(fd);
            fd = -1;
        }
    }
    free(f);
    return fd;
}

/* Whether the replica's position continues here. */
static bool primary_partial_ok(const struct primary_peer *p, const struct lineage *l, uint64_t written) {
    struct stream_log log;
    bool same = p->asked == 0 || lineage_holds(l, p->lineage, p->asked);

    if (!same || p->asked > written || stream_log_open(&log, settings.data_dir, p->asked) < 0)
        return false;
    stream_log_close(&log);
    return p->asked == written || stream_log_record_at(settings.data_dir, p->asked);
}

/* Sends the snapshot file fd of size bytes. */
static int primary_send_file(struct primary_peer *p, int fd, uint64_t size) {
    char buf[64 * 1024];
    uint64_t off = 0;

    while (off < size) {
        ssize_t r = pread(fd, buf, sizeof(buf), (off_t)off);
        if (r <= 0 || stream_write(&p->sock, buf, (size_t)r, primary_timeout_ms()) < 0)
            return -1;
        off += (uint64_t)r;
    }
    return 0;
}

/* CONTINUE, or FULLSYNC and the snapshot: 0 with p->sent where the log
 * goes on, or -1. */
static int primary_begin(struct primary_peer *p) {
    struct lineage l;
    uint64_t written = persist_written(), lsn = 0, size = 0;
    int fd, rc;

    if (repl_lineage_keep() < 0) {
        stream_printf(&p->sock, primary_timeout_ms(), "SERVER_ERROR cannot write the lineage file\r\n");
        return -1;
    }
    repl_lineage(&l);
    if (primary_partial_ok(p, &l, written)) {
        p->sent = p->asked;
        log_msg(1, "replication: replica %s continues at %llu", p->addr, (unsigned long long)p->sent);
        return stream_printf(&p->sock, primary_timeout_ms(), "CONTINUE %s %llu\r\n", l.id,
                             (unsigned long long)p->sent);
    }
    fd = primary_open_snapshot(&lsn, &size);
    if (fd < 0 && !primary_partial_ok(&(struct primary_peer){ .asked = 0 }, &l, written)) {
        log_msg(0, "replication: replica %s needs a full resync, and there is no snapshot: refused", p->addr);
        stream_printf(&p->sock, primary_timeout_ms(), "SERVER_ERROR no snapshot to resync from; try later\r\n");
        return -1;
    }
    log_msg(0, "replication: replica %s (at %s %llu) resyncs in full from %llu", p->addr,
            p->lineage[0] ? p->lineage : "?", (unsigned long long)p->asked, (unsigned long long)lsn);
    rc = stream_printf(&p->sock, primary_timeout_ms(), "FULLSYNC %s %llu %llu\r\n", l.id, (unsigned long long)lsn,
                       (unsigned long long)size);
    if (rc == 0 && fd >= 0)
        rc = primary_send_file(p, fd, size);
    if (fd >= 0)
        close(fd);
    p->sent = lsn;
    return rc;
}

/* ---- the stream ---- */

/* REPLACK lines from the replica; -1 when it is gone or speaks otherwise. */
static int primary_read_acks(struct primary_peer *p, struct stream_in *in) {
    unsigned long long pos;
    ssize_t r = stream_in_fill(in, 0);
    bool bad, advanced = false;
    char *line;
    unsigned i;

    if (r == 0 || r == -1)
        return -1;
    while ((line = stream_in_line(in, &bad)) != NULL) {
        if (sscanf(line, "REPLACK %llu", &pos) != 1 || pos > p->sent)
            return -1;
        pthread_mutex_lock(&primary.lock);
        advanced = advanced || pos > p->acked;
        p->acked = pos;
        p->ack_ms = stream_now_ms();
        for (i = 0; i < p->ncp && i < PRIMARY_CHECKPOINTS; i++)
            if (p->cp[i].end <= pos && p->cp[i].records > p->acked_records)
                p->acked_records = p->cp[i].records;
        pthread_mutex_unlock(&primary.lock);
    }
    if (advanced)
        sync_wake();
    return bad ? -1 : 0;
}

/* One LOG frame of what is written and not sent: 1 sent, 0 nothing to
 * send, -1 cut off. */
static int primary_send_log(struct primary_peer *p, struct stream_log *log) {
    uint64_t records;
    ssize_t n = stream_log_read(log, persist_written(), &records);

    if (n <= 0)
        return (int)n;
    if (stream_printf(&p->sock, primary_timeout_ms(), "LOG %zd\r\n", n) < 0 ||
        stream_write(&p->sock, log->buf, (size_t)n, primary_timeout_ms()) < 0)
        return -1;
    pthread_mutex_lock(&primary.lock);
    p->sent = log->pos;
    p->sent_records += records;
    p->cp[p->ncp % PRIMARY_CHECKPOINTS].end = p->sent;
    p->cp[p->ncp % PRIMARY_CHECKPOINTS].records = p->sent_records;
    p->ncp++;
    pthread_mutex_unlock(&primary.lock);
    return 1;
}

/* Milliseconds until the next PING is due. */
static int primary_until_ping(uint64_t last_ping) {
    uint64_t since = stream_now_ms() - last_ping;

    return since >= 1000 ? 0 : (int)(1000 - since);
}

/* Sleeps until the replica sends something, the log is written further,
 * or ms pass. Woken by the log while no reply waits for a replica, it
 * lets the log gather a little longer: one frame then carries what many
 * writes wrote (each frame costs both ends a read, a write and an
 * acknowledgement), for a lag of a millisecond more. */
static void primary_sleep(struct primary_peer *p, int ms) {
    struct pollfd f[2] = { { p->sock.fd, POLLIN, 0 }, { p->wake_fd, POLLIN, 0 } };
    uint64_t n;

    if (stream_sock_pending(&p->sock))
        return;     /* a REPLACK already waits in the TLS session */
    if (poll(f, 2, ms) <= 0 || !(f[1].revents & POLLIN))
        return;
    if (read(p->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        log_msg(1, "replication: replica %s: its wake-up cannot be read", p->addr);
    if (!sync_on() && !sync_anyone_waiting())
        usleep(PRIMARY_LINGER_US);
}

/* Sends what the log has written, a few frames at most: 0 all of it, 1
 * more may wait, -1 cut off. The wake is re-armed before the log is
 * looked at, so a write after the look signals again. */
static int primary_send_all(struct primary_peer *p, struct stream_log *log) {
    int sent, n = 0;

    __atomic_store_n(&p->wake_pending, 0, __ATOMIC_SEQ_CST);
    while ((sent = primary_send_log(p, log)) > 0 && ++n < 16)
        ;
    return sent;
}

static void primary_stream(struct primary_peer *p) {
    struct stream_log log;
    struct stream_in in;
    uint64_t last_ping = 0, heard = stream_now_ms();
    int sent = 0;

    if (stream_log_open(&log, settings.data_dir, p->sent) < 0) {
        log_msg(0, "replication: replica %s: the log at %llu is gone", p->addr, (unsigned long long)p->sent);
        return;
    }
    stream_in_init(&in, &p->sock);
    pthread_mutex_lock(&primary.lock);
    p->state = "up";
    p->ack_ms = heard;
    pthread_mutex_unlock(&primary.lock);
    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        uint64_t now = stream_now_ms();
        if (now - last_ping >= 1000) {
            if (stream_printf(&p->sock, primary_timeout_ms(), "PING %llu %llu\r\n",
                              (unsigned long long)persist_written(), (unsigned long long)now) < 0)
                break;
            last_ping = now;
        }
        if ((sent = primary_send_all(p, &log)) < 0)
            break;
        if (primary_read_acks(p, &in) < 0)
            break;
        if (sent == 0)
            primary_sleep(p, primary_until_ping(last_ping));
        if (stream_now_ms() - __atomic_load_n(&p->ack_ms, __ATOMIC_RELAXED) > (uint64_t)primary_timeout_ms())
            break;
    }
    if (sent < 0)
        log_msg(0, "replication: replica %s cut off at %llu (its log is gone, or it takes nothing)", p->addr,
                (unsigned long long)p->sent);
    stream_in_free(&in);
    stream_log_close(&log);
}

static void *primary_main(void *arg) {
    struct primary_peer *p = arg;

    pthread_setname_np(pthread_self(), "mcds-repl-send");   /* top -H, /proc/PID/task/TID/comm */

    pthread_mutex_lock(&primary.lock);
    p->state = "sync";
    pthread_mutex_unlock(&primary.lock);
    if (primary_begin(p) == 0)
        primary_stream(p);
    log_msg(1, "replication: replica %s gone", p->addr);
    shutdown(p->sock.fd, SHUT_RDWR);
    __atomic_sub_fetch(&primary.live, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
    sync_wake();        /* changes waiting for it are answered at once if too few are left */
    return NULL;
}

/* ---- the list ---- */

/* Joins and frees finished senders (all of them when all). */
static void primary_reap(bool all) {
    struct primary_peer **pp, *p;

    pthread_mutex_lock(&primary.lock);
    for (pp = &primary.peers; (p = *pp) != NULL;) {
        if (!all && !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE)) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        pthread_mutex_unlock(&primary.lock);
        __atomic_store_n(&p->stop, true, __ATOMIC_RELEASE);
        shutdown(p->sock.fd, SHUT_RDWR);
        pthread_join(p->thread, NULL);
        if (p->sock.tls != NULL)
            link_tls_free(p->sock.tls);
        close(p->sock.fd);
        close(p->wake_fd);
        free(p);
        pthread_mutex_lock(&primary.lock);
        pp = &primary.peers;
    }
    pthread_mutex_unlock(&primary.lock);
}

static void primary_peer_name(int fd, char *buf, size_t n) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;

    if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
    }
    snprintf(buf, n, "%s:%d", host, port);
}

/* Frees what primary_attach was given, for a replica it cannot serve. */
static int primary_attach_fail(int fd, struct link_tls *tls, struct primary_peer *p) {
    if (tls != NULL)
        link_tls_free(tls);
    close(fd);
    free(p);
    return -1;
}

int primary_attach(int fd, struct link_tls *tls, const char *lineage, uint64_t pos) {
    struct primary_peer *p;

    primary_reap(false);
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return primary_attach_fail(fd, tls, NULL);
    p->sock.fd = fd;
    p->sock.tls = tls;
    p->asked = pos;
    if ((p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        return primary_attach_fail(fd, tls, p);
    if (lineage != NULL)
        snprintf(p->lineage, sizeof(p->lineage), "%s", lineage);
    primary_peer_name(fd, p->addr, sizeof(p->addr));
    /* fd is a dup of the worker's socket and shares its file status
     * flags: it stays non-blocking (stream.c polls, then sends and
     * receives with MSG_DONTWAIT), or a reply the worker still had queued
     * would be written on a blocking socket. */
    pthread_mutex_lock(&primary.lock);
    __atomic_add_fetch(&primary.live, 1, __ATOMIC_ACQ_REL);
    if (pthread_create(&p->thread, NULL, primary_main, p) != 0) {
        __atomic_sub_fetch(&primary.live, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_unlock(&primary.lock);
        close(p->wake_fd);
        return primary_attach_fail(fd, tls, p);
    }
    p->next = primary.peers;
    primary.peers = p;
    pthread_mutex_unlock(&primary.lock);
    return 0;
}

void primary_stop(void) {
    primary_reap(true);
}

void primary_log_written(void) {
    struct primary_peer *p;
    uint64_t one = 1;

    if (__atomic_load_n(&primary.live, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&primary.lock);
    for (p = primary.peers; p != NULL; p = p->next)
        if (__atomic_exchange_n(&p->wake_pending, 1, __ATOMIC_SEQ_CST) == 0 &&
            write(p->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
            log_msg(1, "replication: replica %s cannot be woken", p->addr);
    pthread_mutex_unlock(&primary.lock);
}

int primary_acked_count(uint64_t lsn) {
    struct primary_peer *p;
    int n = 0;

    if (__atomic_load_n(&primary.live, __ATOMIC_ACQUIRE) == 0)
        return 0;
    pthread_mutex_lock(&primary.lock);
    for (p = primary.peers; p != NULL; p = p->next)
        n += !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) && p->acked >= lsn;
    pthread_mutex_unlock(&primary.lock);
    return n;
}

int primary_connected(void) {
    return __atomic_load_n(&primary.live, __ATOMIC_ACQUIRE);
}

void primary_stats(stats_emit_fn emit, void *ctx) {
    struct primary_peer *p;
    uint64_t written = persist_written(), now = stream_now_ms();
    char name[32], line[160];
    int i = 0;

    pthread_mutex_lock(&primary.lock);
    for (p = primary.peers; p != NULL; p = p->next)
        i += !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE);
    stats_emit_u64(emit, ctx, "repl_replicas", (uint64_t)i);
    i = 0;
    for (p = primary.peers; p != NULL; p = p->next) {
        if (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE))
            continue;
        snprintf(name, sizeof(name), "repl_replica_%d", i++);
        snprintf(line, sizeof(line), "%s %s %llu %llu %llu %llu", p->addr, p->state,
                 (unsigned long long)p->acked, (unsigned long long)(written > p->acked ? written - p->acked : 0),
                 (unsigned long long)(p->sent_records - p->acked_records),
                 (unsigned long long)((now - p->ack_ms) / 1000));
        emit(ctx, name, line);
    }
    pthread_mutex_unlock(&primary.lock);
}
