/*
 * store/queue_replay: queues back into the keyspace at start-up (see
 * queue_replay.c).
 */
#ifndef MCDS_QUEUE_REPLAY_H
#define MCDS_QUEUE_REPLAY_H

/* Registers the queue type with persistence: how its records apply and
 * its snapshot entries load, and how a queue is dumped. */
void queue_replay_init(void);

#endif
