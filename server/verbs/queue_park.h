/*
 * queue_park: blocking reads of a queue (qpop wait=, get <queue>/t=) over
 * park: the waiter a queue serves, and what a served wait answers.
 */
#ifndef MCDS_QUEUE_PARK_H
#define MCDS_QUEUE_PARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/conn.h"

enum qpark_mode {
    QPARK_POP,              /* qpop wait=: ITEM lines, leased */
    QPARK_KESTREL_TAKE,     /* get <q>/t=: a VALUE line, taken for good */
    QPARK_KESTREL_OPEN,     /* get <q>/open/t=: a VALUE line, the open read */
};

/* Parks c until queue pin serves up to want messages (leased for
 * lease_ms, or held: QUEUE_HELD) or wait_ms pass. Takes over the pin
 * reference. key is the key as asked (Kestrel's VALUE lines repeat it);
 * with_cas: a gets. A queue already closed answers END at once. */
void qpark_start(conn *c, item *pin, int want, uint64_t lease_ms, uint64_t wait_ms,
                 enum qpark_mode mode, const char *key, size_t nkey, bool with_cas);

#endif
