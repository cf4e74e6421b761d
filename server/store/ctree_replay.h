/*
 * store/ctree_replay: tree counters back into the keyspace at start-up
 * (see ctree_replay.c).
 */
#ifndef MCDS_CTREE_REPLAY_H
#define MCDS_CTREE_REPLAY_H

/* Registers the tree-counter type with persistence: how its records
 * apply and its snapshot entries load, and how it is dumped. */
void ctree_replay_init(void);
/* After recovery: the active-object list in order of last change. */
void ctree_replay_done(void);

#endif
