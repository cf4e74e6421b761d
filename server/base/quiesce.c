/*
 * quiesce: the barrier of quiesce.h. A member's pipe event parks its
 * thread on `released` while a hold of its generation lasts; the holder
 * counts parked members, woken through `parked_changed`. Two conditions,
 * so that a member parking wakes only the holder, not every member
 * already parked. A new hold first waits until the members of the last
 * one have left, so that no member still leaving is counted as parked in
 * the new one.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/quiesce.h"

#define QUIESCE_MAX_MEMBERS 1024

struct quiesce_member {
    int rd, wr;
    struct event *ev;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t released;        /* members wait here for the hold to end */
    pthread_cond_t parked_changed;  /* holders wait here for members to park or leave */
    struct quiesce_member *members[QUIESCE_MAX_MEMBERS];
    int nmembers;
    int parked;             /* members waiting in their event */
    uint64_t gen;           /* the current hold */
    bool holding;
    bool closed;
} qs = { .lock = PTHREAD_MUTEX_INITIALIZER, .released = PTHREAD_COND_INITIALIZER,
          .parked_changed = PTHREAD_COND_INITIALIZER };

static void quiesce_on_byte(evutil_socket_t fd, short what, void *arg) {
    char buf[16];
    uint64_t gen;

    (void)what;
    (void)arg;
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    pthread_mutex_lock(&qs.lock);
    if (qs.holding) {
        gen = qs.gen;
        qs.parked++;
        pthread_cond_broadcast(&qs.parked_changed);
        while (qs.holding && qs.gen == gen)
            pthread_cond_wait(&qs.released, &qs.lock);
        if (--qs.parked == 0)
            pthread_cond_broadcast(&qs.parked_changed);     /* a new hold waits for that */
    }
    pthread_mutex_unlock(&qs.lock);
}

struct quiesce_member *quiesce_join(struct event_base *base) {
    struct quiesce_member *m = calloc(1, sizeof(*m));
    int fds[2];

    if (m == NULL)
        return NULL;
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
        free(m);
        return NULL;
    }
    m->rd = fds[0];
    m->wr = fds[1];
    m->ev = event_new(base, m->rd, EV_READ | EV_PERSIST, quiesce_on_byte, NULL);
    pthread_mutex_lock(&qs.lock);
    if (m->ev == NULL || event_add(m->ev, NULL) < 0 || qs.nmembers == QUIESCE_MAX_MEMBERS) {
        pthread_mutex_unlock(&qs.lock);
        if (m->ev != NULL)
            event_free(m->ev);
        close(m->rd);
        close(m->wr);
        free(m);
        return NULL;
    }
    qs.members[qs.nmembers++] = m;
    pthread_mutex_unlock(&qs.lock);
    return m;
}

void quiesce_leave(struct quiesce_member *m) {
    int i;

    if (m == NULL)
        return;
    pthread_mutex_lock(&qs.lock);
    for (i = 0; i < qs.nmembers; i++) {
        if (qs.members[i] == m) {
            qs.members[i] = qs.members[--qs.nmembers];
            break;
        }
    }
    pthread_mutex_unlock(&qs.lock);
    event_free(m->ev);
    close(m->rd);
    close(m->wr);
    free(m);
}

static void quiesce_deadline(struct timespec *ts, unsigned ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Wakes every member; qs.lock held. */
static void quiesce_wake_all(void) {
    int i;

    for (i = 0; i < qs.nmembers; i++) {
        char b = 'h';
        ssize_t w;
        do
            w = write(qs.members[i]->wr, &b, 1);
        while (w < 0 && errno == EINTR);   /* EAGAIN: a byte is there already */
    }
}

int quiesce_hold(unsigned timeout_ms) {
    struct timespec deadline;
    int rc = 0;

    quiesce_deadline(&deadline, timeout_ms);
    pthread_mutex_lock(&qs.lock);
    while (qs.parked > 0 && !qs.closed && rc == 0)
        rc = pthread_cond_timedwait(&qs.parked_changed, &qs.lock, &deadline);
    if (qs.closed || qs.holding || rc != 0) {
        pthread_mutex_unlock(&qs.lock);
        return -1;
    }
    qs.holding = true;
    qs.gen++;
    quiesce_wake_all();
    while (qs.parked < qs.nmembers && !qs.closed && rc == 0)
        rc = pthread_cond_timedwait(&qs.parked_changed, &qs.lock, &deadline);
    if (qs.parked < qs.nmembers || qs.closed) {
        qs.holding = false;
        pthread_cond_broadcast(&qs.released);
        pthread_mutex_unlock(&qs.lock);
        return -1;
    }
    pthread_mutex_unlock(&qs.lock);
    return 0;
}

void quiesce_release(void) {
    pthread_mutex_lock(&qs.lock);
    qs.holding = false;
    pthread_cond_broadcast(&qs.released);
    pthread_mutex_unlock(&qs.lock);
}

void quiesce_close(void) {
    pthread_mutex_lock(&qs.lock);
    qs.closed = true;
    qs.holding = false;
    pthread_cond_broadcast(&qs.released);
    pthread_cond_broadcast(&qs.parked_changed);
    pthread_mutex_unlock(&qs.lock);
}
