/*
 * log: the server's log lines on stderr.
 *
 * Level 0 lines are always printed (start-up, shutdown, fatal errors);
 * -v adds connection events and warnings, -vv adds every command.
 */
#ifndef MCDS_LOG_H
#define MCDS_LOG_H

void log_set_level(int level);
int log_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
