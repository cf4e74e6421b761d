/*
 * types/queue_names: every queue in name order, for qlist (a page of
 * queues after a given name, as ctchildren pages after a key).
 */
#ifndef MCDS_QUEUE_NAMES_H
#define MCDS_QUEUE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/item.h"

struct queue;

/* A new queue, its name and item set (0), or -1 when the index cannot grow. */
int queue_names_add(struct queue *q);
/* A queue being freed. */
void queue_names_remove(struct queue *q);
/* Pins (a reference on each one's item) the queues named after `after`
 * (from the first when nafter is 0), in name order, into qs: max of them,
 * and beyond max those that share the last one's name (a deleted queue
 * still pinned and the one made after it), at most cap in all. Returns how
 * many were pinned (a queue being freed is passed over). When more
 * follow, the last name visited goes to last_name (ITEM_KEY_MAX bytes),
 * its length to *nlast; otherwise *nlast is 0. */
size_t queue_names_page(const char *after, size_t nafter, size_t max, size_t cap, struct queue **qs,
                        char *last_name, size_t *nlast);
/* The keyspace item holding q (what queue_names_page pinned). */
item *queue_names_item(const struct queue *q);

#endif
