/*
 * list_park: blocking pops of a list (lpop/rpop wait=) over park: the
 * waiter a list serves, and what a served wait answers.
 */
#ifndef MCDS_LIST_PARK_H
#define MCDS_LIST_PARK_H

#include <stddef.h>
#include <stdint.h>

#include "net/conn.h"
#include "types/list.h"

/* Parks c until list pin gives up to want elements from end e, or
 * wait_ms pass. Takes over the pin reference. A list already closed
 * answers END at once. */
void lpark_start(conn *c, item *pin, enum list_end e, int want, uint64_t wait_ms,
                 const char *key, size_t nkey);

/* Parks c until list pin has an element to move from end se to end de
 * of list dpin (which may be pin), or wait_ms pass; the answer names
 * dpin's key. Takes over both pin references. */
void lpark_start_move(conn *c, item *pin, enum list_end se, item *dpin, enum list_end de,
                      uint64_t wait_ms);

#endif
