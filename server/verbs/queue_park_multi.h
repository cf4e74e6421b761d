/*
 * queue_park_multi: a blocking pop over several queues (qpopany wait=),
 * over park: one waiter per queue, in one group, so that exactly one of
 * the queues serves the wait.
 */
#ifndef MCDS_QUEUE_PARK_MULTI_H
#define MCDS_QUEUE_PARK_MULTI_H

#include <stdint.h>

#include "net/conn.h"

#define QPARK_MULTI_MAX 16          /* most queues one wait watches */

/* Parks c on the n queues pins[] (pinned; their references are taken
 * over) until one serves up to want messages, leased for lease_ms[i]
 * (the lease of queue i), or wait_ms pass. A queue deleted meanwhile
 * ends the wait with END. */
void qmpark_start(conn *c, item **pins, int n, int want, const uint64_t *lease_ms, uint64_t wait_ms);

#endif
