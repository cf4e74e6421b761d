/*
 * base/kick: a pipe that wakes an event loop's thread (kick.h).
 */
#include <event2/event.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/kick.h"

static void kick_on_read(evutil_socket_t fd, short what, void *arg) {
    struct kick *k = arg;
    char buf[64];

    (void)what;
    while (read(fd, buf, sizeof(buf)) > 0)
        continue;
    k->fn(k->arg);
}

int kick_init(struct kick *k, struct event_base *base, void (*fn)(void *arg), void *arg) {
    k->fn = fn;
    k->arg = arg;
    k->ev = NULL;
    if (pipe(k->fd) < 0) {
        k->fd[0] = k->fd[1] = -1;
        return -1;
    }
    fcntl(k->fd[0], F_SETFL, O_NONBLOCK);
    fcntl(k->fd[1], F_SETFL, O_NONBLOCK);
    k->ev = event_new(base, k->fd[0], EV_READ | EV_PERSIST, kick_on_read, k);
    if (k->ev == NULL || event_add(k->ev, NULL) < 0) {
        kick_free(k);
        return -1;
    }
    return 0;
}

void kick_send(struct kick *k) {
    char why = 'k';

    if (k->fd[1] >= 0 && write(k->fd[1], &why, 1) < 0) {
        /* EAGAIN: a kick is waiting anyway */
    }
}

void kick_free(struct kick *k) {
    if (k->ev != NULL)
        event_free(k->ev);
    if (k->fd[0] >= 0) {
        close(k->fd[0]);
        close(k->fd[1]);
    }
    k->ev = NULL;
    k->fd[0] = k->fd[1] = -1;
}
