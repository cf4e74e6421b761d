/*
 * auth_throttle: per-connection and per-address limits on failed logins
 * (see auth_throttle.h). The addresses are a fixed table searched from end
 * to end (only login attempts look at it); when it is full the entry
 * least recently failed gives way. One mutex covers the table and the
 * log's rate limit.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/stats.h"
#include "net/conn_names.h"
#include "proto/auth_throttle.h"

#define AT_SLOTS 1024
#define AT_FORGET_MS (10 * 60 * 1000)   /* failures this old are forgotten */

struct at_entry {
    unsigned char addr[16];
    uint8_t len;                    /* 0: a free slot is one with last_ms 0 */
    uint32_t fails;
    uint64_t last_ms;               /* the last failure */
    uint64_t until_ms;              /* refused until then */
};

static pthread_mutex_t at_lock = PTHREAD_MUTEX_INITIALIZER;
static struct at_entry at_table[AT_SLOTS];
static uint64_t at_throttled;       /* attempts refused while locked out */
static uint64_t at_log_next_ms;     /* no failure line before then */
static uint64_t at_log_skipped;     /* failures not logged since the last line */

/* The peer address bytes of socket fd into out (0 for a UNIX socket or an
 * error). */
static uint8_t at_addr_of(int fd, unsigned char *out) {
    struct sockaddr_storage ss;
    socklen_t n = sizeof(ss);

    if (getpeername(fd, (struct sockaddr *)&ss, &n) < 0)
        return 0;
    if (ss.ss_family == AF_INET) {
        memcpy(out, &((struct sockaddr_in *)&ss)->sin_addr, 4);
        return 4;
    }
    if (ss.ss_family == AF_INET6) {
        memcpy(out, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/* The entry of address addr (len bytes; made if create, taking the free
 * or the least recently failed slot), or NULL; at_lock held. */
static struct at_entry *at_find(const unsigned char *addr, uint8_t len, bool create, uint64_t now) {
    struct at_entry *e, *victim = &at_table[0];

    for (e = at_table; e < at_table + AT_SLOTS; e++) {
        if (e->last_ms != 0 && e->len == len && memcmp(e->addr, addr, len) == 0) {
            if (now - e->last_ms <= AT_FORGET_MS)
                return e;
            memset(e, 0, sizeof(*e));       /* forgotten */
            victim = e;
            break;
        }
        if (e->last_ms < victim->last_ms)
            victim = e;
    }
    if (!create)
        return NULL;
    memset(victim, 0, sizeof(*victim));
    memcpy(victim->addr, addr, len);
    victim->len = len;
    return victim;
}

static void at_stats(stats_emit_fn emit, void *ctx) {
    uint64_t now = clock_now_ms(), locked = 0, throttled;
    size_t i;

    pthread_mutex_lock(&at_lock);
    for (i = 0; i < AT_SLOTS; i++)
        locked += at_table[i].last_ms != 0 && at_table[i].until_ms > now;
    throttled = at_throttled;
    pthread_mutex_unlock(&at_lock);
    stats_emit_u64(emit, ctx, "auth_throttled", throttled);
    stats_emit_u64(emit, ctx, "auth_locked_addresses", locked);
}

static const struct stats_provider at_stats_provider = { "auth", STATS_PLACE_MCDS, 50, at_stats };

void auth_throttle_init(void) {
    pthread_mutex_lock(&at_lock);
    memset(at_table, 0, sizeof(at_table));
    at_throttled = at_log_next_ms = at_log_skipped = 0;
    pthread_mutex_unlock(&at_lock);
    stats_provide(&at_stats_provider);
}

bool auth_throttle_fd_refused(int fd) {
    uint64_t now = clock_now_ms();
    unsigned char addr[16];
    uint8_t len = at_addr_of(fd, addr);     /* a system call: before the lock */
    struct at_entry *e;
    bool refused;

    pthread_mutex_lock(&at_lock);
    e = at_find(addr, len, false, now);
    refused = e != NULL && e->until_ms > now;
    if (refused)
        at_throttled++;
    pthread_mutex_unlock(&at_lock);
    return refused;
}

/* The lock-out after the address's fails-th failure. */
static uint64_t at_lock_ms(uint32_t fails) {
    uint32_t over = fails - AUTH_ADDR_FAILS;

    return over >= 16 ? AUTH_LOCK_MAX_MS
           : (1000ull << over) < AUTH_LOCK_MAX_MS ? 1000ull << over : AUTH_LOCK_MAX_MS;
}

void auth_throttle_fd_failed(int fd, const char *user, size_t nuser) {
    uint64_t now = clock_now_ms(), skipped = 0;
    unsigned char addr[16];
    uint8_t len = at_addr_of(fd, addr);
    struct at_entry *e;
    bool log_it;
    char name[128];

    pthread_mutex_lock(&at_lock);
    e = at_find(addr, len, true, now);
    e->fails++;
    e->last_ms = now;
    if (e->fails >= AUTH_ADDR_FAILS)
        e->until_ms = now + at_lock_ms(e->fails);
    log_it = now >= at_log_next_ms;
    if (log_it) {
        skipped = at_log_skipped;
        at_log_skipped = 0;
        at_log_next_ms = now + 1000;
    } else {
        at_log_skipped++;
    }
    pthread_mutex_unlock(&at_lock);
    if (!log_it)
        return;
    conn_names_addr(fd, true, name, sizeof(name));
    log_msg(1, "authentication failed for user %.*s from %s (%llu more failure(s) not logged)",
            (int)(nuser > 64 ? 64 : nuser), user, name, (unsigned long long)skipped);
}

void auth_throttle_failed(conn *c, const char *user, size_t nuser) {
    if (c->auth_fails < UINT8_MAX)
        c->auth_fails++;
    auth_throttle_fd_failed(c->fd, user, nuser);
}

void auth_throttle_fd_passed(int fd) {
    unsigned char addr[16];
    uint8_t len = at_addr_of(fd, addr);
    struct at_entry *e;

    pthread_mutex_lock(&at_lock);
    e = at_find(addr, len, false, clock_now_ms());
    if (e != NULL)
        memset(e, 0, sizeof(*e));
    pthread_mutex_unlock(&at_lock);
}

bool auth_throttle_conn_done(const conn *c) {
    return c->auth_fails >= AUTH_CONN_FAILS;
}
