/*
 * crash: the report written when the server dies of a fault.
 */
#ifndef MCDS_CRASH_H
#define MCDS_CRASH_H

/* Installs the fault handlers (not over a sanitizer's). */
void crash_init(void);
/* The log file's descriptor the report also goes to; -1 for none. */
void crash_log_fd(int fd);

#endif
