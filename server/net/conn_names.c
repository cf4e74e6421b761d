/*
 * conn_names: a table by fd of the generation of the connection open on
 * it (0: none), under one lock taken when a connection opens or closes
 * and when a token is named. A token is (generation << 32) | fd; it names
 * a connection while the table holds that generation for that fd. Naming
 * reads the peer address under the lock, so the fd cannot be closed and
 * reused meanwhile (a connection leaves the table before its fd closes).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "net/conn_names.h"
#include "ops/stats_conns.h"

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
        stats_conns_addr(cn_fd(token), true, addr, sizeof(addr));
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
