/*
 * store/list_replay: lists back into the keyspace at start-up (see
 * list_replay.c).
 */
#ifndef MCDS_LIST_REPLAY_H
#define MCDS_LIST_REPLAY_H

/* Registers the list type with persistence: how its records apply and
 * its snapshot entries load, and how a list is dumped. */
void list_replay_init(void);

#endif
