/*
 * quiesce: holds, for a moment, every thread that changes the keyspace
 * (the workers, and the main thread with its timers), each one between
 * two events of its loop, so that another thread sees the keyspace and
 * the log at one instant. A snapshot forks there (persist/snap_fork.c).
 *
 * A thread takes part by joining with its event base before its loop
 * runs: quiesce_hold() then wakes it through a pipe of its own, and it
 * waits in that event until quiesce_release(). A thread that is not
 * between events within the timeout (a long command, a full disk) makes
 * the hold fail, and every thread goes on as if nothing had happened.
 */
#ifndef MCDS_QUIESCE_H
#define MCDS_QUIESCE_H

struct event_base;
struct quiesce_member;

/* Joins the thread that runs base (call before that loop runs, on the
 * thread that starts it): NULL when the pipe or event cannot be made. */
struct quiesce_member *quiesce_join(struct event_base *base);
/* Leaves (the loop has stopped): frees the event, closes the pipe. */
void quiesce_leave(struct quiesce_member *m);

/* From a thread that is not a member: 0 once every member waits between
 * two events (call quiesce_release() soon), or -1 after timeout_ms, or
 * when one is already held or the server stops (nothing is held then). */
int quiesce_hold(unsigned timeout_ms);
void quiesce_release(void);
/* Shutdown: holds fail from now on, and a pending one gives up. */
void quiesce_close(void);

#endif
