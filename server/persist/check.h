/*
 * persist/check: --check-data-dir, the offline checker of a data
 * directory (check.c says what it reads and prints).
 */
#ifndef MCDS_PERSIST_CHECK_H
#define MCDS_PERSIST_CHECK_H

/* Prints the report on stdout: 0 when sound, 1 when not. The keyspace
 * (store, types registered) must be set up, and nothing else running. */
int persist_check(const char *dir);

#endif
