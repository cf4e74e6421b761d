/*
 * auth: the credentials of -Y/--auth-file and the exchanges that check
 * them: memcached's text-protocol "set" and SASL PLAIN (binary protocol).
 *
 * The file holds one "user:password" per line (memcached's format; the
 * password is everything after the first ':'; a trailing "\r" is dropped;
 * empty lines are skipped). It is read whole at start and on SIGHUP; a
 * reload that fails keeps the credentials already loaded. Passwords are
 * compared in constant time; a failed attempt is counted (auth_errors)
 * and logged with -v, never with its password.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/auth.h"
#include "proto/auth_throttle.h"
#include "base/log.h"
#include "base/parse.h"
#include "base/settings.h"
#include "base/stats.h"

#define AUTH_FILE_MAX (1024 * 1024)     /* bytes read from the file */
#define AUTH_LINE_MAX 2048              /* as the text protocol's lines */

struct auth_user {
    char *user, *pass;
    size_t nuser, npass;
};

static struct {
    pthread_mutex_t lock;
    struct auth_user *users;
    size_t n;
    bool on;
} auth = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- the file ---- */

static void auth_users_free(struct auth_user *u, size_t n) {
    size_t i;

    for (i = 0; i < n; i++) {
        free(u[i].user);
        free(u[i].pass);
    }
    free(u);
}

static char *auth_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "r");
    char *buf;

    if (f == NULL) {
        log_msg(0, "auth file %s: %s", path, strerror(errno));
        return NULL;
    }
    buf = malloc(AUTH_FILE_MAX + 1);
    if (buf != NULL) {
        *len = fread(buf, 1, AUTH_FILE_MAX + 1, f);
        if (*len > AUTH_FILE_MAX) {
            log_msg(0, "auth file %s: larger than %d bytes", path, AUTH_FILE_MAX);
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* Adds one "user:password" line to *u; -1 when it is malformed. */
static int auth_add_line(struct auth_user **u, size_t *n, const char *line, size_t len) {
    const char *colon = memchr(line, ':', len);
    struct auth_user *grown, *e;

    if (colon == NULL || colon == line)
        return -1;
    grown = realloc(*u, (*n + 1) * sizeof(**u));
    if (grown == NULL)
        return -1;
    *u = grown;
    e = &grown[*n];
    e->nuser = (size_t)(colon - line);
    e->npass = len - e->nuser - 1;
    e->user = strndup(line, e->nuser);
    e->pass = strndup(colon + 1, e->npass);
    (*n)++;
    return e->user != NULL && e->pass != NULL ? 0 : -1;
}

static int auth_parse(const char *path, struct auth_user **out, size_t *nout) {
    size_t len = 0, at = 0, lineno = 0, n = 0;
    struct auth_user *u = NULL;
    char *buf = auth_read_file(path, &len);

    if (buf == NULL)
        return -1;
    while (at < len) {
        char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - buf) : len, llen = end - at;
        lineno++;
        if (llen > 0 && buf[at + llen - 1] == '\r')
            llen--;
        if (llen > 0 && auth_add_line(&u, &n, buf + at, llen) < 0) {
            log_msg(0, "auth file %s: line %zu is not <user>:<password>", path, lineno);
            auth_users_free(u, n);
            free(buf);
            return -1;
        }
        at = end + 1;
    }
    free(buf);
    if (n == 0) {
        log_msg(0, "auth file %s: no <user>:<password> line", path);
        return -1;
    }
    *out = u;
    *nout = n;
    return 0;
}

static int auth_install(void) {
    struct auth_user *u, *old;
    size_t n, nold;

    if (auth_parse(settings.auth_file, &u, &n) < 0)
        return -1;
    pthread_mutex_lock(&auth.lock);
    old = auth.users;
    nold = auth.n;
    auth.users = u;
    auth.n = n;
    auth.on = true;
    pthread_mutex_unlock(&auth.lock);
    auth_users_free(old, nold);
    log_msg(1, "auth file %s: %zu user(s)", settings.auth_file, n);
    return 0;
}

int auth_load(void) {
    if (settings.auth_file == NULL)
        return 0;
    auth_throttle_init();
    return auth_install();
}

void auth_reload(void) {
    if (settings.auth_file != NULL && auth_install() < 0)
        log_msg(0, "auth file %s not reloaded: the credentials loaded before stay", settings.auth_file);
}

void auth_free(void) {
    pthread_mutex_lock(&auth.lock);
    auth_users_free(auth.users, auth.n);
    auth.users = NULL;
    auth.n = 0;
    pthread_mutex_unlock(&auth.lock);
}

bool auth_on(void) {
    return settings.auth_file != NULL;
}

/* ---- checking ---- */

/* Equal, in a time that depends on the lengths only. */
static bool auth_same(const char *a, size_t na, const char *b, size_t nb) {
    unsigned char diff = na != nb;
    size_t i;

    for (i = 0; i < na; i++)
        diff |= (unsigned char)(a[i] ^ b[i < nb ? i : 0]);
    return diff == 0 && nb > 0;
}

bool auth_check(const char *user, size_t nuser, const char *pass, size_t npass) {
    bool ok = false;
    size_t i;

    pthread_mutex_lock(&auth.lock);
    for (i = 0; i < auth.n && !ok; i++) {
        const struct auth_user *e = &auth.users[i];
        if (e->nuser == nuser && memcmp(e->user, user, nuser) == 0)
            ok = auth_same(pass, npass, e->pass, e->npass);
    }
    pthread_mutex_unlock(&auth.lock);
    stats_incr(STATS_AUTH_CMDS);
    if (!ok)
        stats_incr(STATS_AUTH_ERRORS);
    return ok;
}

/* One attempt of c as user: refused at once while its address is locked
 * out, else checked; the failures are counted (auth_throttle.c), the
 * connection's own too. */
static bool auth_attempt(conn *c, const char *user, size_t nuser, const char *pass, size_t npass) {
    bool ok = auth_peer_login(c->fd, user, nuser, pass, npass);

    if (ok)
        c->auth_fails = 0;
    else if (c->auth_fails < UINT8_MAX)
        c->auth_fails++;
    return ok;
}

bool auth_peer_login(int fd, const char *user, size_t nuser, const char *pass, size_t npass) {
    if (auth_throttle_fd_refused(fd)) {
        stats_incr(STATS_AUTH_CMDS);
        stats_incr(STATS_AUTH_ERRORS);
        return false;
    }
    if (!auth_check(user, nuser, pass, npass)) {
        auth_throttle_fd_failed(fd, user, nuser);
        return false;
    }
    auth_throttle_fd_passed(fd);
    return true;
}

/* Whether user is in the comma-separated --admin-users. */
static bool auth_is_admin(const char *user, size_t nuser) {
    const char *p = settings.admin_users;

    while (p != NULL && *p != '\0') {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (n == nuser && memcmp(p, user, n) == 0)
            return true;
        p = comma != NULL ? comma + 1 : NULL;
    }
    return false;
}

/* c has authenticated as user. */
static void auth_grant(conn *c, const char *user, size_t nuser) {
    c->authenticated = true;
    c->admin = auth_is_admin(user, nuser);
}

bool auth_may_admin(const conn *c) {
    return settings.admin_users == NULL || c->admin;
}

/* ---- text protocol ---- */

/* Queues r; a connection that failed too often is closed after it. */
static enum conn_parse_result auth_text_reply(conn *c, enum reply_id r) {
    conn_out_reply(c, r);
    return auth_throttle_conn_done(c) ? PARSE_CLOSE : PARSE_DONE;
}

/* "<user> <password>" (more tokens are ignored, as memcached does). */
static enum conn_parse_result auth_text_token(conn *c, char *data, size_t n) {
    char *v[3];
    size_t lens[3];

    if (n < 2 || data[n - 2] != '\r' || data[n - 1] != '\n') {
        auth_throttle_failed(c, "", 0);
        return auth_text_reply(c, REPLY_AUTH_BAD_END);
    }
    if (parse_tokenize(data, n - 2, v, lens, 2) < 2) {
        auth_throttle_failed(c, "", 0);
        return auth_text_reply(c, REPLY_AUTH_BAD_FORMAT);
    }
    if (!auth_attempt(c, v[0], lens[0], v[1], lens[1]))
        return auth_text_reply(c, REPLY_AUTH_FAILED);
    auth_grant(c, v[0], lens[0]);
    return auth_text_reply(c, REPLY_STORED);
}

enum conn_parse_result auth_text(conn *c, char *line, size_t len, size_t avail) {
    char copy[AUTH_LINE_MAX + 1];
    char *v[7];
    size_t lens[7], n = len;
    uint32_t size;
    int ntok;

    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (n > AUTH_LINE_MAX)
        return PARSE_CLOSE;
    memcpy(copy, line, n);
    copy[n] = '\0';
    ntok = parse_tokenize(copy, n, v, lens, 6);
    if (ntok < 5 || strcmp(v[0], "set") != 0 || !parse_u32(v[4], &size)) {
        conn_consume(c, len + 1);
        return auth_text_reply(c, REPLY_UNAUTHENTICATED);
    }
    if (size > AUTH_TOKEN_MAX) {
        conn_consume(c, len + 1);
        auth_throttle_failed(c, "", 0);
        if (!auth_throttle_conn_done(c))
            conn_start_swallow(c, (size_t)size + 2);
        return auth_text_reply(c, REPLY_AUTH_BAD_FORMAT);
    }
    if (avail < len + 1 + size + 2)
        return PARSE_MORE;
    conn_consume(c, len + 1 + size + 2);
    return auth_text_token(c, line + len + 1, (size_t)size + 2);
}

/* ---- SASL PLAIN (RFC 4616) ---- */

/* A malformed attempt: counted as a failed one. */
static bool auth_malformed(conn *c) {
    stats_incr(STATS_AUTH_CMDS);
    stats_incr(STATS_AUTH_ERRORS);
    auth_throttle_failed(c, "", 0);
    return false;
}

bool auth_sasl_plain(conn *c, const char *mech, size_t nmech, const char *v, size_t n) {
    const char *user, *pass, *nul;

    if (nmech != 5 || memcmp(mech, "PLAIN", 5) != 0 || n > AUTH_TOKEN_MAX)
        return auth_malformed(c);
    nul = memchr(v, '\0', n);               /* after the authorization id */
    if (nul == NULL)
        return auth_malformed(c);
    user = nul + 1;
    nul = memchr(user, '\0', n - (size_t)(user - v));
    if (nul == NULL)
        return auth_malformed(c);
    pass = nul + 1;
    if (!auth_attempt(c, user, (size_t)(nul - user), pass, n - (size_t)(pass - v)))
        return false;
    auth_grant(c, user, (size_t)(nul - user));
    return true;
}
