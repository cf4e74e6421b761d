/*
 * daemon: what memcached's start-up options ask of the process: going
 * into the background (-d), the pid file (-P), becoming another user once
 * listening (-u) and locking memory (-k).
 */
#ifndef MCDS_DAEMON_H
#define MCDS_DAEMON_H

/* -d: forks; the parent waits until daemon_ready() (exit 0) or the child
 * fails (exit 1) and never returns. The child detaches from the terminal.
 * Without -d, or in a restart in place, does nothing. Returns 0 in the
 * process that goes on. */
int daemon_start(void);
/* Before an exec of this program by itself (a restart in place, same
 * pid): the new image is in the background already, and its pid file
 * holds its pid. */
void daemon_mark_in_place(void);
/* -P: writes the pid file (once listening, before -u drops root, so it
 * can be written where root writes). -1 if it cannot. */
int daemon_write_pid(void);
/* The server is serving: locks memory (-k), tells the waiting parent. */
void daemon_ready(void);
/* -u: when root, becomes that user (after listening). -1 if it cannot. */
int daemon_drop_root(void);
/* A clean exit: removes the pid file. */
void daemon_stop(void);

#endif
