/*
 * base/reaper: one background thread that frees what a command let go of
 * (a deleted list, a deleted queue, a purged queue's messages), so that
 * freeing a million elements costs the client that asked O(1) and no
 * other client of its worker waits for it. Jobs run one at a time, in the
 * order they were put. Each structure that puts jobs starts the thread
 * (reaper_start) and stops it (reaper_stop) at shutdown; the last stop
 * runs every job still waiting before it returns.
 */
#ifndef MCDS_REAPER_H
#define MCDS_REAPER_H

#include <stdbool.h>

struct reaper_job {
    struct reaper_job *next;
    void (*run)(struct reaper_job *j);      /* frees what j holds (and j) */
};

/* One more user of the thread; the first starts it. */
void reaper_start(void);
/* One user fewer; the last runs what waits and joins the thread. */
void reaper_stop(void);
/* Runs j->run(j) on the reaper thread, or now when there is none (not
 * started, could not start, or stopped). */
void reaper_put(struct reaper_job *j);
/* Waits until every job put so far has run; false at once when none was
 * waiting or running. For an allocation that found no room under -m: the
 * memory a delete or a purge let go of counts before the answer is "out
 * of memory". The caller must hold no lock. */
bool reaper_drain(void);

#endif
