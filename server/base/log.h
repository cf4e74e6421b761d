/*
 * log: the server's log lines, on stderr or in a file.
 *
 * Level 0 lines are always printed (start-up, shutdown, fatal errors);
 * -v adds connection events and warnings, -vv adds every command.
 * Non-printable bytes are escaped (\xNN), so a line is always one line.
 */
#ifndef MCDS_LOG_H
#define MCDS_LOG_H

void log_set_level(int level);
int log_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Logs to path (appended) from now on; -1 when it cannot be opened. */
int log_open(const char *path);
/* SIGHUP: reopens the log file (a rotation moved it), logging the result. */
void log_reopen(void);
void log_close(void);
/* In a forked child: every line from now on is written to fd, with no
 * lock and no timestamp, for the parent to log. */
void log_to_parent(int fd);

#endif
