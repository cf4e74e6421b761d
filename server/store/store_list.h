/*
 * store_list: lists in the keyspace. Finding or creating the list under a
 * key, and every operation that changes a list, pass through here, so
 * that one layer sees every list mutation (the point where persistence
 * hooks in), as store_queue does for queues.
 *
 * A pinned list is the list's item with a reference held by the caller:
 * release it with item_release() when done.
 */
#ifndef MCDS_STORE_LIST_H
#define MCDS_STORE_LIST_H

#include "store/store.h"
#include "types/list.h"

void store_list_init(void);
/* Stops the reclaimer (lists freed later are freed at once). */
void store_list_shutdown(void);

/* The list under key, pinned. With create, a missing one is made with o
 * (no limit if o is NULL). *st as store_struct_find's. */
item *store_list_open(const char *key, size_t nkey, bool create, const struct list_opts *o,
                      enum store_status *st);
struct list *store_list_of(item *pin);

enum list_result store_list_push(item *pin, enum list_end e, const struct list_val *v, int n,
                                 uint64_t *len);
int store_list_pop(item *pin, enum list_end e, int max, list_each_fn fn, void *arg);
enum list_result store_list_set(item *pin, int64_t idx, const struct list_val *v);
enum list_result store_list_insert(item *pin, bool after, const struct list_val *pivot,
                                   const struct list_val *v, uint64_t *len);
uint64_t store_list_trim(item *pin, int64_t off, uint64_t limit);
enum list_result store_list_remove(item *pin, int64_t count, const struct list_val *v,
                                   uint64_t *removed);
/* lmove: list_move between the lists src and dst (src may be dst). */
enum list_result store_list_move(item *src, enum list_end se, item *dst, enum list_end de,
                                 char **copy, size_t *ncopy);

#endif
