/*
 * ops/metrics_http: the metrics listener (see metrics_http.h). It owns a
 * thread, its event base, the listening socket and the connections of
 * scrapers. Each connection sends one request head and gets one reply,
 * then is closed (Connection: close), so no state outlives a request.
 *
 * Bounds: MH_CONNS_MAX connections at once (more are closed as they are
 * accepted), MH_HEAD_MAX bytes of request head (431 past it), MH_TIMEOUT_S
 * to send the head and to take the reply. The body is rendered whole
 * before it is sent; its size is bounded by --metrics-top, not by the
 * keyspace. With -Y a request needs HTTP Basic credentials of the auth
 * file (RFC 7617); a failure counts toward its address's lock-out as a
 * failed login of the protocols does.
 *
 * The thread joins quiesce (base/quiesce.h) although it changes nothing:
 * a rendering takes the locks of queues, lists and tree counters, which a
 * snapshot's forked child takes too, so a fork must never find one held.
 */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/log.h"
#include "base/quiesce.h"
#include "base/settings.h"
#include "net/listener.h"
#include "ops/metrics.h"
#include "ops/metrics_http.h"

#define MH_CONNS_MAX 16
#define MH_HEAD_MAX 8192
#define MH_TIMEOUT_S 10
#define MH_CRED_MAX 1024        /* decoded "user:password" */

/* The replies other than 200, one line of text each. */
enum mh_status { MH_BAD_REQUEST, MH_UNAUTHORIZED, MH_NOT_FOUND, MH_BAD_METHOD, MH_HEAD_TOO_LARGE, MH_UNAVAILABLE };

static const struct {
    const char *status;
    const char *extra;              /* header lines, each ending in \r\n */
    const char *body;
} mh_replies[] = {
    [MH_BAD_REQUEST] = { "400 Bad Request", "", "bad request\n" },
    [MH_UNAUTHORIZED] = { "401 Unauthorized", "WWW-Authenticate: Basic realm=\"mcds\", charset=\"UTF-8\"\r\n",
                          "authentication required (a user of the server's auth file)\n" },
    [MH_NOT_FOUND] = { "404 Not Found", "", "not found: the metrics are at /metrics\n" },
    [MH_BAD_METHOD] = { "405 Method Not Allowed", "Allow: GET, HEAD\r\n", "only GET and HEAD\n" },
    [MH_HEAD_TOO_LARGE] = { "431 Request Header Fields Too Large", "", "request head over 8192 bytes\n" },
    [MH_UNAVAILABLE] = { "503 Service Unavailable", "", "out of memory rendering the metrics\n" },
};

struct mh_conn {
    struct bufferevent *bev;
    struct mh_conn *prev, *next;
};

static struct {
    const struct metrics_auth *auth;
    struct event_base *base;
    struct evconnlistener *listener;
    struct event *stop_ev;
    struct quiesce_member *quiesce;
    int stop_pipe[2];
    pthread_t thread;
    bool running;
    struct mh_conn *conns;          /* open connections, for the stop */
    int nconns;
} mh = { .stop_pipe = { -1, -1 } };

/* ---- connections ---- */

static void mh_conn_free(struct mh_conn *c) {
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        mh.conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    bufferevent_free(c->bev);
    mh.nconns--;
    free(c);
}

/* The reply is out (or the peer went): the connection ends. */
static void mh_written(struct bufferevent *bev, void *arg) {
    (void)bev;
    mh_conn_free(arg);
}

static void mh_event(struct bufferevent *bev, short what, void *arg) {
    (void)bev;
    (void)what;                     /* EOF, an error or a timeout alike */
    mh_conn_free(arg);
}

/* Queues a reply and closes once it is written. body is sent unless the
 * request was HEAD; its length goes in Content-Length either way. */
static void mh_send(struct mh_conn *c, const char *status, const char *extra, const char *type,
                    struct evbuffer *body, bool head_only) {
    struct evbuffer *out = bufferevent_get_output(c->bev);

    bufferevent_disable(c->bev, EV_READ);
    evbuffer_add_printf(out, "HTTP/1.1 %s\r\n%sContent-Type: %s\r\nContent-Length: %zu\r\n"
                             "Connection: close\r\n\r\n",
                        status, extra, type, evbuffer_get_length(body));
    if (!head_only)
        evbuffer_add_buffer(out, body);
    bufferevent_setcb(c->bev, NULL, mh_written, mh_event, c);
}

static void mh_error(struct mh_conn *c, enum mh_status s, bool head_only) {
    struct evbuffer *body = evbuffer_new();

    if (body == NULL) {
        mh_conn_free(c);
        return;
    }
    evbuffer_add(body, mh_replies[s].body, strlen(mh_replies[s].body));
    mh_send(c, mh_replies[s].status, mh_replies[s].extra, "text/plain; charset=utf-8", body, head_only);
    evbuffer_free(body);
}

static void mh_metrics(struct mh_conn *c, bool head_only) {
    struct evbuffer *body = evbuffer_new();

    if (body == NULL || metrics_render(body) < 0) {
        if (body != NULL)
            evbuffer_free(body);
        mh_error(c, MH_UNAVAILABLE, head_only);
        return;
    }
    mh_send(c, "200 OK", "", "text/plain; version=0.0.4; charset=utf-8", body, head_only);
    evbuffer_free(body);
}

/* ---- the request ---- */

/* The value of header name (case-insensitive) in head's header lines, its
 * length in *n; NULL when absent. */
static const char *mh_header(const char *head, const char *name, size_t *n) {
    size_t len = strlen(name);
    const char *p = strstr(head, "\r\n");

    while (p != NULL && p[2] != '\r') {
        const char *line = p + 2, *end = strstr(line, "\r\n");
        if (end == NULL)
            return NULL;
        if ((size_t)(end - line) > len && strncasecmp(line, name, len) == 0 && line[len] == ':') {
            const char *v = line + len + 1;
            while (v < end && (*v == ' ' || *v == '\t'))
                v++;
            *n = (size_t)(end - v);
            while (*n > 0 && (v[*n - 1] == ' ' || v[*n - 1] == '\t'))
                (*n)--;
            return v;
        }
        p = end;
    }
    return NULL;
}

/* Whether the request carries Basic credentials the auth file knows. */
static bool mh_authorized(struct mh_conn *c, const char *head) {
    char cred[MH_CRED_MAX + 1];
    const char *v, *colon;
    size_t n;
    long len;

    v = mh_header(head, "Authorization", &n);
    if (v == NULL || n < 6 || strncasecmp(v, "Basic ", 6) != 0)
        return false;
    v += 6;
    n -= 6;
    while (n > 0 && *v == ' ') {
        v++;
        n--;
    }
    if (n > 4 * ((MH_CRED_MAX + 2) / 3) || (len = base64_decode(v, n, cred, MH_CRED_MAX)) < 0)
        return false;
    colon = memchr(cred, ':', (size_t)len);
    if (colon == NULL)
        return false;
    return mh.auth->login(bufferevent_getfd(c->bev), cred, (size_t)(colon - cred), colon + 1,
                          (size_t)(cred + len - colon - 1));
}

/* head: the request line and headers, NUL-terminated, ending "\r\n\r\n". */
static void mh_request(struct mh_conn *c, const char *head) {
    const char *sp1 = strchr(head, ' '), *sp2, *eol = strstr(head, "\r\n");
    size_t npath;
    bool head_only;

    sp2 = sp1 != NULL ? strchr(sp1 + 1, ' ') : NULL;
    if (sp1 == NULL || sp2 == NULL || sp2 > eol || strncmp(sp2 + 1, "HTTP/1.", 7) != 0) {
        mh_error(c, MH_BAD_REQUEST, false);
        return;
    }
    head_only = sp1 - head == 4 && strncmp(head, "HEAD", 4) == 0;
    if (!head_only && !(sp1 - head == 3 && strncmp(head, "GET", 3) == 0)) {
        mh_error(c, MH_BAD_METHOD, false);
        return;
    }
    if (mh.auth != NULL && mh.auth->on() && !mh_authorized(c, head)) {
        mh_error(c, MH_UNAUTHORIZED, head_only);
        return;
    }
    npath = strcspn(sp1 + 1, "? ");
    if (npath != 8 || strncmp(sp1 + 1, "/metrics", 8) != 0) {
        mh_error(c, MH_NOT_FOUND, head_only);
        return;
    }
    mh_metrics(c, head_only);
}

static void mh_read(struct bufferevent *bev, void *arg) {
    struct mh_conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
    char *head;
    size_t n;

    if (end.pos < 0) {
        if (evbuffer_get_length(in) > MH_HEAD_MAX)
            mh_error(c, MH_HEAD_TOO_LARGE, false);
        return;
    }
    n = (size_t)end.pos + 4;
    if (n > MH_HEAD_MAX || (head = malloc(n + 1)) == NULL) {
        mh_error(c, n > MH_HEAD_MAX ? MH_HEAD_TOO_LARGE : MH_UNAVAILABLE, false);
        return;
    }
    evbuffer_remove(in, head, n);
    head[n] = '\0';
    if (memchr(head, '\0', n) != NULL)
        mh_error(c, MH_BAD_REQUEST, false);
    else
        mh_request(c, head);
    free(head);
}

static void mh_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len, void *arg) {
    struct timeval timeout = { MH_TIMEOUT_S, 0 };
    struct mh_conn *c;

    (void)l;
    (void)sa;
    (void)len;
    (void)arg;
    if (mh.nconns >= MH_CONNS_MAX || (c = calloc(1, sizeof(*c))) == NULL) {
        close(fd);
        return;
    }
    c->bev = bufferevent_socket_new(mh.base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (c->bev == NULL) {
        close(fd);
        free(c);
        return;
    }
    c->next = mh.conns;
    if (mh.conns != NULL)
        mh.conns->prev = c;
    mh.conns = c;
    mh.nconns++;
    bufferevent_setcb(c->bev, mh_read, NULL, mh_event, c);
    bufferevent_set_timeouts(c->bev, &timeout, &timeout);
    bufferevent_enable(c->bev, EV_READ);
}

/* ---- the thread ---- */

static void mh_on_stop(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    event_base_loopbreak(mh.base);
}

static void *mh_main(void *arg) {
    (void)arg;
    event_base_dispatch(mh.base);
    return NULL;
}

static void mh_free(void) {
    while (mh.conns != NULL)
        mh_conn_free(mh.conns);
    if (mh.quiesce != NULL)
        quiesce_leave(mh.quiesce);
    if (mh.listener != NULL)
        evconnlistener_free(mh.listener);
    if (mh.stop_ev != NULL)
        event_free(mh.stop_ev);
    if (mh.base != NULL)
        event_base_free(mh.base);
    if (mh.stop_pipe[0] >= 0) {
        close(mh.stop_pipe[0]);
        close(mh.stop_pipe[1]);
    }
    mh.listener = NULL;
    mh.quiesce = NULL;
    mh.stop_ev = NULL;
    mh.base = NULL;
    mh.stop_pipe[0] = mh.stop_pipe[1] = -1;
}

int metrics_http_start(const struct metrics_auth *auth) {
    int fd;

    if (settings.metrics_port == 0)
        return 0;
    mh.auth = auth;
    fd = listener_tcp_socket(settings.metrics_listen, settings.metrics_port);
    if (fd < 0)
        return -1;
    mh.base = event_base_new();
    if (mh.base == NULL || pipe(mh.stop_pipe) < 0 ||
        (mh.stop_ev = event_new(mh.base, mh.stop_pipe[0], EV_READ, mh_on_stop, NULL)) == NULL ||
        event_add(mh.stop_ev, NULL) < 0 || (mh.quiesce = quiesce_join(mh.base)) == NULL ||
        (mh.listener = evconnlistener_new(mh.base, mh_accept, NULL, LEV_OPT_CLOSE_ON_FREE, -1, fd)) == NULL) {
        log_msg(0, "cannot start the metrics listener: %s", strerror(errno));
        if (mh.listener == NULL)
            close(fd);
        mh_free();
        return -1;
    }
    if (pthread_create(&mh.thread, NULL, mh_main, NULL) != 0) {
        log_msg(0, "cannot start the metrics thread");
        mh_free();
        return -1;
    }
    mh.running = true;
    if (strchr(settings.metrics_listen, ':') != NULL)
        log_msg(0, "metrics on http://[%s]:%d/metrics", settings.metrics_listen, settings.metrics_port);
    else
        log_msg(0, "metrics on http://%s:%d/metrics", settings.metrics_listen, settings.metrics_port);
    return 0;
}

void metrics_http_stop(void) {
    char b = 0;

    if (mh.running) {
        if (write(mh.stop_pipe[1], &b, 1) != 1)
            log_msg(0, "metrics: cannot wake the thread to stop it: %s", strerror(errno));
        pthread_join(mh.thread, NULL);
        mh.running = false;
    }
    mh_free();
}
