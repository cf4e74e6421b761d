/*
 * conn_names: a table by fd of the generation of the connection open on
 * it (0: none), under one lock taken when a connection opens or closes
 * and when a token is named. A token is (generation << 32) | fd; it names
 * a connection while the table holds that generation for that fd. Naming
 * reads the peer address under the lock, so the fd cannot be closed and
 * reused meanwhile (a connection leaves the table before its fd closes).
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "base/settings.h"
#include "net/conn_names.h"

#define CN_INIT 64

static pthread_mutex_t cn_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *cn_gen;           /* by fd */
static size_t cn_cap;
static uint32_t cn_next_gen;

/* Room for fd; lock held. */
static bool cn_room(int fd) {
    size_t cap = cn_cap ? cn_cap : CN_INIT;
    uint32_t *v;

    while (cap <= (size_t)fd)
        cap *= 2;
    if (cap == cn_cap)
        return true;
    v = realloc(cn_gen, cap * sizeof(*v));
    if (v == NULL)
        return false;
    while (cn_cap < cap)
        v[cn_cap++] = 0;
    cn_gen = v;
    return true;
}

uint64_t conn_names_open(int fd) {
    uint64_t token = 0;

    if (fd < 0)
        return 0;
    pthread_mutex_lock(&cn_lock);
    if (cn_room(fd)) {
        if (++cn_next_gen == 0)
            cn_next_gen = 1;
        cn_gen[fd] = cn_next_gen;
        token = (uint64_t)cn_next_gen << 32 | (uint32_t)fd;
    }
    pthread_mutex_unlock(&cn_lock);
    return token;
}

static int cn_fd(uint64_t token) {
    return (int)(uint32_t)token;
}

/* Whether token names the connection open now; lock held. */
static bool cn_open_now(uint64_t token) {
    int fd = cn_fd(token);

    return token != 0 && (size_t)fd < cn_cap && cn_gen[fd] == (uint32_t)(token >> 32);
}

void conn_names_close(uint64_t token) {
    pthread_mutex_lock(&cn_lock);
    if (cn_open_now(token))
        cn_gen[cn_fd(token)] = 0;
    pthread_mutex_unlock(&cn_lock);
}

bool conn_names_format(uint64_t token, char *out, size_t cap) {
    char addr[128];
    bool open;

    pthread_mutex_lock(&cn_lock);
    open = cn_open_now(token);
    if (open)
        conn_names_addr(cn_fd(token), true, addr, sizeof(addr));
    pthread_mutex_unlock(&cn_lock);
    if (open)
        snprintf(out, cap, "%d %s", cn_fd(token), addr);
    return open;
}

void conn_names_free(void) {
    pthread_mutex_lock(&cn_lock);
    free(cn_gen);
    cn_gen = NULL;
    cn_cap = 0;
    pthread_mutex_unlock(&cn_lock);
}

/* ---- addresses ---- */

/* "tcp:1.2.3.4:5", "tcp6:[::1]:5" or "unix:<path>" of a socket address. */
static void sc_format_addr(const struct sockaddr_storage *ss, char *out, size_t cap) {
    char host[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        snprintf(out, cap, "tcp:%s:%d", host, ntohs(s4->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
        snprintf(out, cap, "tcp6:[%s]:%d", host, ntohs(s6->sin6_port));
    } else {
        snprintf(out, cap, "unix:%s", settings.socket_path != NULL ? settings.socket_path : "");
    }
}

void conn_names_addr(int fd, bool peer, char *out, size_t cap) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    memset(&ss, 0, sizeof(ss));
    if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &len) : getsockname(fd, (struct sockaddr *)&ss, &len)) < 0)
        ss.ss_family = AF_UNIX;
    sc_format_addr(&ss, out, cap);
}
