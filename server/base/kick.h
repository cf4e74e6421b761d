/*
 * base/kick: a wake-up that any thread sends to the thread of an event
 * loop (the main thread's timers): a non-blocking pipe whose reading end
 * is an event of that loop. Kicks sent before the loop reads them run its
 * function once; a full pipe already holds one, so none is lost.
 */
#ifndef MCDS_KICK_H
#define MCDS_KICK_H

struct event;
struct event_base;

/* Starts as { { -1, -1 }, NULL, NULL, NULL }: kicks are dropped until
 * kick_init. */
struct kick {
    int fd[2];
    struct event *ev;
    void (*fn)(void *arg);
    void *arg;
};

/* fn(arg) will run on base's thread after each kick: 0, or -1 when the
 * pipe or the event cannot be made (kicks are dropped then). */
int kick_init(struct kick *k, struct event_base *base, void (*fn)(void *arg), void *arg);
/* From any thread. */
void kick_send(struct kick *k);
/* With base's loop stopped: the event freed, the pipe closed. */
void kick_free(struct kick *k);

#endif
