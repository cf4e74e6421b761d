/*
 * base/reaper: the background thread that frees what commands let go of
 * (see reaper.h). A FIFO of jobs under one lock; the thread sleeps on a
 * condition while it is empty.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/reaper.h"

static pthread_mutex_t reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reaper_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t reaper_idle_cond = PTHREAD_COND_INITIALIZER;
static bool reaper_running;         /* a job is being run */
static struct reaper_job *reaper_head, *reaper_tail;
static int reaper_users;
static bool reaper_on, reaper_stopping;
static pthread_t reaper_thread;

static void *reaper_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&reaper_lock);
    for (;;) {
        struct reaper_job *j = reaper_head;
        if (j == NULL && reaper_stopping)
            break;
        if (j == NULL) {
            pthread_cond_wait(&reaper_cond, &reaper_lock);
            continue;
        }
        reaper_head = j->next;
        if (reaper_head == NULL)
            reaper_tail = NULL;
        reaper_running = true;
        pthread_mutex_unlock(&reaper_lock);
        j->run(j);
        pthread_mutex_lock(&reaper_lock);
        reaper_running = false;
        if (reaper_head == NULL)
            pthread_cond_broadcast(&reaper_idle_cond);
    }
    pthread_mutex_unlock(&reaper_lock);
    return NULL;
}

void reaper_start(void) {
    pthread_mutex_lock(&reaper_lock);
    if (reaper_users++ == 0) {
        reaper_stopping = false;
        reaper_on = pthread_create(&reaper_thread, NULL, reaper_main, NULL) == 0;
    }
    pthread_mutex_unlock(&reaper_lock);
}

void reaper_stop(void) {
    bool join;

    pthread_mutex_lock(&reaper_lock);
    join = --reaper_users == 0 && reaper_on;
    if (join) {
        reaper_stopping = true;
        pthread_cond_signal(&reaper_cond);
    }
    pthread_mutex_unlock(&reaper_lock);
    if (!join)
        return;
    pthread_join(reaper_thread, NULL);
    pthread_mutex_lock(&reaper_lock);
    reaper_on = false;
    pthread_mutex_unlock(&reaper_lock);
}

void reaper_put(struct reaper_job *j) {
    bool now;

    j->next = NULL;
    pthread_mutex_lock(&reaper_lock);
    now = !reaper_on || reaper_stopping;
    if (!now) {
        if (reaper_tail != NULL)
            reaper_tail->next = j;
        else
            reaper_head = j;
        reaper_tail = j;
        pthread_cond_signal(&reaper_cond);
    }
    pthread_mutex_unlock(&reaper_lock);
    if (now)
        j->run(j);
}

bool reaper_drain(void) {
    bool waited;

    pthread_mutex_lock(&reaper_lock);
    waited = reaper_head != NULL || reaper_running;
    while (reaper_on && (reaper_head != NULL || reaper_running))
        pthread_cond_wait(&reaper_idle_cond, &reaper_lock);
    pthread_mutex_unlock(&reaper_lock);
    return waited;
}
