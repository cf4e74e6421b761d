/*
 * listener: binds, listens and accepts on the main thread's event base.
 *
 * Every accepted socket is counted against -c; one over the limit gets
 * memcached's "ERROR Too many open connections" and is closed at once.
 * With -p 0 the kernel picks the port and the start-up line names it.
 * With -Z every TCP listener speaks TLS but those given as -l notls:<addr>
 * (memcached's prefix); a UNIX socket stays plain.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "net/listener.h"
#include "base/log.h"
#include "base/reply.h"
#include "base/settings.h"
#include "base/stats.h"
#include "base/tls_opts.h"
#include "net/worker.h"

#define LISTENER_PAUSE_MS 100
#define LISTENER_MAX 16             /* -l addresses */

static int listener_fds[LISTENER_MAX];
static bool listener_tls[LISTENER_MAX];  /* its connections speak TLS */
static struct event *listener_evs[LISTENER_MAX];
static int listener_n;
static bool listener_unix_bound;    /* our socket file is at -s PATH */
static struct stat listener_unix_st;  /* the socket file we bound (its device and inode) */
static struct event *listener_resume_ev;

static void listener_resume(evutil_socket_t fd, short what, void *arg) {
    int i;

    for (i = 0; i < listener_n; i++)
        event_add(listener_evs[i], NULL);
}

static conn_proto_choose_fn listener_choose;    /* the protocols its connections speak */

void listener_set_protocol(conn_proto_choose_fn choose) {
    listener_choose = choose;
}

/* Out of file descriptors: stop accepting for a moment instead of
 * spinning on a socket that stays readable. */
static void listener_pause(void) {
    struct timeval tv = { 0, LISTENER_PAUSE_MS * 1000 };

    int i;

    log_msg(1, "accept: %s; pausing accepts for %d ms", strerror(errno), LISTENER_PAUSE_MS);
    for (i = 0; i < listener_n; i++)
        event_del(listener_evs[i]);
    evtimer_add(listener_resume_ev, &tv);
}

static void listener_reject(int fd) {
    const struct reply_line *r = &reply_lines[REPLY_TOO_MANY_CONNS];

    if (write(fd, r->text, r->len) < 0)
        log_msg(2, "cannot tell a rejected client why: %s", strerror(errno));
    close(fd);
    stats_global_add(STATS_REJECTED_CONNECTIONS, 1);
}

static void listener_accept(evutil_socket_t lfd, short what, void *arg) {
    const bool *tls = arg;

    for (;;) {
        int one = 1;
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                listener_pause();
            else if (errno != EAGAIN && errno != EWOULDBLOCK)
                log_msg(1, "accept: %s", strerror(errno));
            return;
        }
        if (stats_global_get(STATS_CURR_CONNECTIONS) >= (uint64_t)settings.maxconns) {
            listener_reject(fd);
            continue;
        }
        if (settings.socket_path == NULL)
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        stats_global_add(STATS_CURR_CONNECTIONS, 1);
        stats_global_add(STATS_TOTAL_CONNECTIONS, 1);
        worker_dispatch(fd, *tls, listener_choose);
    }
}

static void listener_log_tcp(int fd, bool tls) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN];
    int port;

    getsockname(fd, (struct sockaddr *)&ss, &len);
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
        port = ntohs(s6->sin6_port);
        log_msg(0, "listening on [%s]:%d%s", host, port, tls ? " (TLS)" : "");
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        port = ntohs(s4->sin_port);
        log_msg(0, "listening on %s:%d%s", host, port, tls ? " (TLS)" : "");
    }
    settings.port = port;
}

/* Splits one -l entry into host and port, as memcached reads it:
 * "host", "host:port", "[v6]" or "[v6]:port"; a bare IPv6 address (more
 * than one ':') is a host alone. The port defaults to -p. */
static int listener_split(char *entry, char **host, int *port) {
    char *colon;

    *port = settings.port;
    if (entry[0] == '[') {
        char *close = strchr(entry, ']');
        if (close == NULL)
            return -1;
        *close = '\0';
        *host = entry + 1;
        colon = close[1] == ':' ? close + 1 : NULL;
        if (colon == NULL && close[1] != '\0')
            return -1;
    } else {
        *host = entry;
        colon = strchr(entry, ':');
        if (colon != NULL && strchr(colon + 1, ':') != NULL)
            colon = NULL;           /* a bare IPv6 address */
        if (colon != NULL)
            *colon = '\0';
    }
    if (colon != NULL) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || p < 0 || p > 65535)
            return -1;
        *port = (int)p;
    }
    return 0;
}

int listener_tcp_socket(const char *host, int portnum) {
    struct addrinfo hints, *ai = NULL;
    char port[16];
    int fd, one = 1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(port, sizeof(port), "%d", portnum);
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0) {
        log_msg(0, "cannot resolve listen address %s: %s", host, gai_strerror(rc));
        return -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ai->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, settings.backlog) < 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        log_msg(0, "failed to listen on %s:%d: %s", host, portnum, strerror(errno));
        return -1;
    }
    return fd;
}

/* Every -l address (comma-separated, or -l repeated). Their "listening
 * on" lines come once all of them listen: whoever waits for a line (a
 * test harness, a script) finds every listener ready. */
static int listener_tcp(void) {
    char *list = strdup(settings.listen_addr), *entry, *save = NULL;
    int rc = 0, i;

    if (list == NULL)
        return -1;
    for (entry = strtok_r(list, ",", &save); entry != NULL && rc == 0; entry = strtok_r(NULL, ",", &save)) {
        char *host;
        int port, fd;
        bool tls = tls_opts.enabled;
        if (strncmp(entry, "notls:", 6) == 0) {
            entry += 6;
            tls = false;
        }
        if (listener_n == LISTENER_MAX || listener_split(entry, &host, &port) < 0) {
            log_msg(0, "bad or too many listen addresses (at most %d): %s", LISTENER_MAX, settings.listen_addr);
            rc = -1;
        } else if ((fd = listener_tcp_socket(host, port)) < 0) {
            rc = -1;
        } else {
            listener_tls[listener_n] = tls;
            listener_fds[listener_n++] = fd;
        }
    }
    free(list);
    if (rc < 0 || listener_n == 0)
        return -1;
    for (i = 0; i < listener_n; i++)
        listener_log_tcp(listener_fds[i], listener_tls[i]);
    return 0;
}

/* Clears the way for our socket at path: nothing there, or a socket that
 * nobody answers on (a crashed server's leftover, removed). Anything else,
 * a live server's socket above all, is left alone and refused. */
static int listener_unix_clear(const char *path, const struct sockaddr_un *sun) {
    struct stat st;
    int fd, rc, err;

    if (lstat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        log_msg(0, "cannot check unix socket path %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        log_msg(0, "refusing to listen on unix:%s: it exists and is not a socket", path);
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
    err = errno;
    close(fd);
    if (rc == 0) {
        log_msg(0, "refusing to listen on unix:%s: another server answers on it", path);
        return -1;
    }
    if (err != ECONNREFUSED && err != ENOENT) {
        log_msg(0, "refusing to listen on unix:%s: %s", path, strerror(err));
        return -1;
    }
    unlink(path);
    return 0;
}

/* Binds with the socket's permissions set from the start (umask around
 * bind), so it is never reachable with wider ones. Start-up is single
 * threaded, so the process-wide umask is ours for that moment. */
static int listener_unix_bind(int fd, const struct sockaddr_un *sun) {
    mode_t old = umask((mode_t)(~settings.socket_mask & 0777));
    int rc = bind(fd, (const struct sockaddr *)sun, sizeof(*sun));
    int err = errno;

    umask(old);
    errno = err;
    return rc;
}

static int listener_unix(void) {
    struct sockaddr_un sun;
    int fd;

    if (strlen(settings.socket_path) >= sizeof(sun.sun_path)) {
        log_msg(0, "unix socket path too long: %s", settings.socket_path);
        return -1;
    }
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    strcpy(sun.sun_path, settings.socket_path);
    if (listener_unix_clear(settings.socket_path, &sun) < 0)
        return -1;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || listener_unix_bind(fd, &sun) < 0 || listen(fd, settings.backlog) < 0) {
        log_msg(0, "failed to listen on unix:%s: %s", settings.socket_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    listener_unix_bound = lstat(settings.socket_path, &listener_unix_st) == 0;
    log_msg(0, "listening on unix:%s", settings.socket_path);
    return fd;
}

/* Removes the socket file this server bound, and only it: another server
 * may have bound the path since (after the file was deleted). */
static void listener_unix_remove(void) {
    struct stat st;

    if (lstat(settings.socket_path, &st) == 0 && st.st_dev == listener_unix_st.st_dev &&
        st.st_ino == listener_unix_st.st_ino)
        unlink(settings.socket_path);
}

int listener_open(struct event_base *base) {
    int i;

    if (settings.socket_path != NULL) {
        listener_fds[0] = listener_unix();
        listener_n = listener_fds[0] >= 0 ? 1 : 0;
        if (listener_n == 0)
            return -1;
    } else if (listener_tcp() < 0) {
        return -1;
    }
    listener_resume_ev = evtimer_new(base, listener_resume, NULL);
    if (listener_resume_ev == NULL)
        return -1;
    for (i = 0; i < listener_n; i++) {
        listener_evs[i] = event_new(base, listener_fds[i], EV_READ | EV_PERSIST, listener_accept, &listener_tls[i]);
        if (listener_evs[i] == NULL || event_add(listener_evs[i], NULL) < 0) {
            log_msg(0, "cannot watch the listening socket");
            return -1;
        }
    }
    return 0;
}

/* Workers read these while the main thread may be closing the
 * listeners at shutdown (stats conns): both sides use atomics. */
int listener_fd_at(int i) {
    return i < __atomic_load_n(&listener_n, __ATOMIC_RELAXED)
               ? __atomic_load_n(&listener_fds[i], __ATOMIC_RELAXED) : -1;
}

void listener_close(void) {
    int i;

    for (i = 0; i < listener_n; i++) {
        if (listener_evs[i] != NULL)
            event_free(listener_evs[i]);
        if (listener_fds[i] >= 0)
            close(listener_fds[i]);
        listener_evs[i] = NULL;
        __atomic_store_n(&listener_fds[i], -1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&listener_n, 0, __ATOMIC_RELAXED);
    if (listener_resume_ev != NULL)
        event_free(listener_resume_ev);
    listener_resume_ev = NULL;
    if (listener_unix_bound)
        listener_unix_remove();
    listener_unix_bound = false;
}
