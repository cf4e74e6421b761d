/*
 * list_park_multi: a connection parked on several lists at once (lmpop
 * wait=): served once, by the first of its lists that has elements.
 */
#ifndef MCDS_LIST_PARK_MULTI_H
#define MCDS_LIST_PARK_MULTI_H

#include <stdint.h>

#include "net/conn.h"
#include "types/list.h"

#define LPARK_MULTI_MAX 64          /* most lists one wait watches */

/* Parks c on the n lists pins (n <= LPARK_MULTI_MAX) until one of them
 * gives up to want elements from end e, or wait_ms pass; the answer names
 * the key of the list that served it. Takes over the pin references. */
void lmpark_start(conn *c, item **pins, int n, enum list_end e, int want, uint64_t wait_ms);

#endif
